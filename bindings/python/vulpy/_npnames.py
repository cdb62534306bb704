"""The NumPy and CuPy names a user types first that need no kernel: NumPy's
constants, scalar types and dtype functions (NumPy's own objects, so
`vp.complex64 is np.complex64` and `vp.inf is np.inf`), the dtype
questions about resident arrays (can_cast, min_scalar_type, common_type:
answered from the dtype, never a download), CuPy's asnumpy and
get_array_module, and small creation helpers whose result is resident
(copy, ascontiguousarray, the tril / triu / diag index tuples, mgrid /
ogrid, fromfunction, frombuffer, save / load). docs/python-api.md, "NumPy
names", lists them."""
import numpy as np

from . import _array

_nd = _array.ndarray

# --- NumPy's own objects (numbers, scalar types, dtype functions)
pi, e, euler_gamma, inf, nan, newaxis = np.pi, np.e, np.euler_gamma, np.inf, np.nan, np.newaxis
complex64, complex128, csingle, cdouble = np.complex64, np.complex128, np.csingle, np.cdouble
intp, uintp, int_, half, single, double = np.intp, np.uintp, np.int_, np.half, np.single, np.double
byte, ubyte, short, ushort, intc, uintc = np.byte, np.ubyte, np.short, np.ushort, np.intc, np.uintc
longlong, ulonglong = np.longlong, np.ulonglong
generic, number, integer, signedinteger, unsignedinteger = (
    np.generic, np.number, np.integer, np.signedinteger, np.unsignedinteger)
inexact, floating, complexfloating = np.inexact, np.floating, np.complexfloating
dtype, finfo, iinfo, promote_types, issubdtype, isdtype = (
    np.dtype, np.finfo, np.iinfo, np.promote_types, np.issubdtype, np.isdtype)
typename, mintypecode, s_, index_exp = np.typename, np.mintypecode, np.s_, np.index_exp
uint, ulong, long, True_, False_ = np.uint, np.ulong, np.long, np.True_, np.False_
typecodes, ScalarType, sctypeDict, little_endian = (
    np.typecodes, np.ScalarType, np.sctypeDict, np.little_endian)
iterable, binary_repr, base_repr, ndindex = np.iterable, np.binary_repr, np.base_repr, np.ndindex
# a resident array prints through NumPy's formatting: its options apply
set_printoptions, get_printoptions, printoptions = (
    np.set_printoptions, np.get_printoptions, np.printoptions)


def _dtype_of(x):
    """A resident array as an empty NumPy array of its dtype (what NumPy's
    dtype functions need); anything else as it is."""
    return np.empty(0, x.dtype) if isinstance(x, _nd) else x


def result_type(*arrays_and_dtypes):
    """numpy.result_type: the dtype NumPy's promotion gives
    `arrays_and_dtypes` (resident arrays by their dtype)."""
    return np.result_type(*(x.dtype if isinstance(x, _nd) else x for x in arrays_and_dtypes))


def can_cast(from_, to, casting="safe"):
    """numpy.can_cast: whether `from_` (a dtype, or a resident or NumPy
    array by its dtype) casts to `to` under `casting`."""
    return np.can_cast(from_.dtype if isinstance(from_, _nd) else from_, to, casting)


def min_scalar_type(a):
    """numpy.min_scalar_type: for an array `a` its dtype (NumPy's rule for
    anything but a scalar); for a scalar the smallest dtype holding it."""
    return a.dtype if isinstance(a, _nd) else np.min_scalar_type(a)


def common_type(*arrays):
    """numpy.common_type: the inexact scalar type of `arrays` (resident or
    NumPy, by their dtypes)."""
    return np.common_type(*(_dtype_of(a) for a in arrays))


def ndim(a):
    """numpy.ndim: the number of dimensions of `a` (a.ndim for arrays)."""
    return a.ndim if isinstance(a, _nd) else np.ndim(a)


def shape(a):
    """numpy.shape: the shape of `a` as a tuple - a.shape for a resident or
    NumPy array (no download), NumPy's answer for nested sequences and
    scalars."""
    return tuple(a.shape) if isinstance(a, _nd) else np.shape(a)


def size(a, axis=None):
    """numpy.size: the number of elements of `a`, or its length along
    `axis` when given - from the shape of a resident array (no download),
    NumPy's answer for anything else."""
    if not isinstance(a, _nd):
        return np.size(a, axis)
    return a.size if axis is None else a.shape[axis]


def isscalar(element):
    """numpy.isscalar: True when `element` is a Python or NumPy scalar; a
    resident array, 0-d included, is not one (as NumPy's 0-d arrays are
    not)."""
    return False if isinstance(element, _nd) else np.isscalar(element)


# --- CuPy's


def asnumpy(a, stream=None, order="C", out=None, *, blocking=True):
    """cupy.asnumpy: `a` as a NumPy array - a resident array downloaded (its
    values, in `order`), anything else np.asarray(a, order=order). `out`: a
    NumPy array of a's shape to write into (returned). `stream` and
    `blocking` are CuPy's: a download always waits for the writes before it
    (None / True are accepted; another stream, or blocking=False, is a
    ValueError, as VulPy copies synchronously)."""
    if stream is not None or blocking is not True:
        raise ValueError("vp.asnumpy: stream= and blocking=False are not supported (a download "
                         "waits for the array's writes and returns when it is done)")
    if order not in ("C", "F", "A", "K"):
        raise ValueError(f"vp.asnumpy: order must be one of 'C', 'F', 'A', 'K', got {order!r}")
    r = np.asarray(a.numpy() if isinstance(a, _nd) else a, order=order)
    if out is None:
        return r
    if not isinstance(out, np.ndarray) or out.shape != r.shape:
        raise ValueError(f"vp.asnumpy: out must be a NumPy array of shape {r.shape}")
    out[...] = r
    return out


def get_array_module(*args):
    """cupy.get_array_module: the vulpy module when any of `args` is a
    resident array, else numpy (for code written for both)."""
    for a in args:
        if isinstance(a, _nd):
            return _array._ops
    return np


# --- resident results


def copy(a, order="K", subok=False):
    """numpy.copy: a new array with a's values - resident for a resident
    `a` (contiguous, C order), a NumPy copy otherwise (convenience mode:
    NumPy in, NumPy out). `order` 'K', 'C' or 'A' (resident arrays are C
    ordered); `subok` is NumPy's."""
    if not isinstance(a, _nd):
        return np.copy(a, order=order, subok=subok)
    if order not in ("K", "C", "A"):
        raise ValueError(f"vp.copy: order={order!r}; resident arrays are C-ordered")
    return a.copy()


def ascontiguousarray(a, dtype=None):
    """numpy.ascontiguousarray: `a` as a C-contiguous array of `dtype`
    (default a's): a resident `a` itself when it already is one, else a
    contiguous copy; a NumPy array stays NumPy's."""
    if not isinstance(a, _nd):
        return np.ascontiguousarray(a, dtype=dtype)
    same = dtype is None or np.dtype(dtype) == a.dtype
    if same and a.flags.c_contiguous and a.ndim >= 1:
        return a
    r = a.astype(dtype) if not same else a.copy()
    return r.reshape(1) if r.ndim == 0 else r


def _resident(arrays, context):
    return tuple(_array.asarray(x, context=context) for x in arrays)


def tril_indices(n, k=0, m=None, *, context=None):
    """numpy.tril_indices: the (rows, cols) of the lower triangle (with
    diagonal offset `k`) of an n x m array (`m` default n), as resident
    int64 arrays on `context` (default: the default context)."""
    return _resident(np.tril_indices(n, k, m), context)


def triu_indices(n, k=0, m=None, *, context=None):
    """numpy.triu_indices: the (rows, cols) of the upper triangle (diagonal
    offset `k`) of an n x m array (`m` default n), resident int64 arrays on
    `context`."""
    return _resident(np.triu_indices(n, k, m), context)


def diag_indices(n, ndim=2, *, context=None):
    """numpy.diag_indices: `ndim` copies of arange(n), the indices of the
    main diagonal of an n x ... x n array, resident on `context`."""
    return _resident(np.diag_indices(n, ndim), context)


class _Grid:
    """numpy.mgrid / ogrid as resident arrays: the same index expressions
    (g[0:5, 0:3], complex steps for counts), the result on the default
    context."""

    def __init__(self, grid, name):
        self._grid, self._name = grid, name

    def __getitem__(self, key):
        r = self._grid[key]
        if isinstance(r, np.ndarray):
            return _array.asarray(r)
        return type(r)(_array.asarray(x) for x in r)

    def __repr__(self):
        return f"vp.{self._name}"


mgrid = _Grid(np.mgrid, "mgrid")
ogrid = _Grid(np.ogrid, "ogrid")


def fromfunction(function, shape, *, dtype=float, **kwargs):
    """numpy.fromfunction: function(*indices) over the index arrays of
    `shape` (resident arrays of `dtype`, vp.indices), keyword arguments
    `kwargs` passed on: a vp function gives a resident result."""
    idx = _array._ops.indices(shape, dtype=dtype)
    return function(*(idx[i] for i in range(len(shape))), **kwargs)


def frombuffer(buffer, dtype=float, count=-1, offset=0, *, context=None):
    """numpy.frombuffer read into a resident array on `context`: `count`
    items of `dtype` from `buffer` (any buffer-protocol object) at byte
    `offset` (the bytes are copied; the array does not alias `buffer`)."""
    return _array.asarray(np.frombuffer(buffer, dtype, count, offset), context=context)


def astype(x, dtype, /, *, copy=True, device=None):
    """numpy.astype (NumPy 2, the array API's): `x` converted to `dtype`, as
    x.astype(dtype, copy=copy); `device` None or x's context (a copy to
    another context is x.to_device())."""
    if device is not None and isinstance(x, _nd) and device is not x.context:
        raise ValueError("vp.astype: device must be None or x's context; use "
                         "x.to_device(ctx).astype(dtype) to convert on another context")
    return x.astype(dtype, copy=copy) if isinstance(x, _nd) else np.astype(x, dtype, copy=copy)


class _Concat:
    """numpy.r_ / c_ for resident arrays: r_[a, b, 1:4] concatenates its
    items along the first axis (c_: the last, each 1-D item made a column),
    a slice being arange (a complex step: linspace's count), a scalar one
    element. NumPy's string directives ('r', '0,2', ...) are not taken."""

    def __init__(self, name, columns):
        self._name, self._columns = name, columns

    def __getitem__(self, key):
        ops = _array._ops
        items = key if isinstance(key, tuple) else (key,)
        if any(isinstance(k, str) for k in items):
            raise NotImplementedError(f"vp.{self._name}: string directives are not supported; "
                                      f"use vp.concatenate / vp.stack with axis=")
        parts = []
        for k in items:
            if isinstance(k, slice):
                k = ops.asarray(np.r_[k])
            elif not isinstance(k, _nd):
                k = ops.asarray(np.asarray(k))
            parts.append(k.reshape(1) if k.ndim == 0 else k)
        if not self._columns:
            return ops.concatenate(parts, axis=0)
        parts = [p.reshape(-1, 1) if p.ndim == 1 else p for p in parts]
        return ops.concatenate(parts, axis=-1)

    def __len__(self):
        return 0

    def __repr__(self):
        return f"vp.{self._name}"


r_ = _Concat("r_", False)
c_ = _Concat("c_", True)


def fromiter(iter, dtype, count=-1, *, context=None):
    """numpy.fromiter read into a resident array on `context`: the values
    of `iter` (at most `count`, all when -1) as `dtype`, gathered on the host
    first."""
    return _array.asarray(np.fromiter(iter, dtype, count), context=context)


def save(file, arr, allow_pickle=True):
    """numpy.save of a resident (or NumPy) array `arr` to `file` (a path or
    a file object): the values are downloaded and written in .npy format
    (`allow_pickle` as NumPy's)."""
    np.save(file, arr.numpy() if isinstance(arr, _nd) else arr, allow_pickle=allow_pickle)


def load(file, mmap_mode=None, allow_pickle=False, *, context=None):
    """numpy.load of a .npy `file` into a resident array on `context` (as
    cupy.load); a .npz archive gives a dict of resident arrays by name.
    `mmap_mode` and `allow_pickle` are NumPy's (a memory map is read once,
    into device memory)."""
    r = np.load(file, mmap_mode=mmap_mode, allow_pickle=allow_pickle)
    if isinstance(r, np.lib.npyio.NpzFile):
        with r:
            return {k: _array.asarray(r[k], context=context) for k in r.files}
    return _array.asarray(r, context=context)


def savez(file, *args, **kwds):
    """numpy.savez of resident (or NumPy) arrays: positional `args` as
    arr_0, arr_1, ..., keyword `kwds` by name, downloaded into one .npz
    `file`."""
    np.savez(file, *(_host(a) for a in args), **{k: _host(v) for k, v in kwds.items()})


def savez_compressed(file, *args, **kwds):
    """numpy.savez_compressed: savez with the archive's members deflated
    (`file`, `args`, `kwds` as savez's)."""
    np.savez_compressed(file, *(_host(a) for a in args), **{k: _host(v) for k, v in kwds.items()})


def _host(a):
    return a.numpy() if isinstance(a, _nd) else a


def asarray_chkfinite(a, dtype=None, *, context=None):
    """numpy.asarray_chkfinite: `a` as a resident array of `dtype` (on
    `context` for host data), ValueError when it holds an inf or a NaN (one
    bool read back from the device)."""
    ops = _array._ops
    r = ops.asarray(a, dtype, context=context) if not isinstance(a, _nd) or dtype is not None \
        else a
    if r.dtype.kind in "fc" and r.size and not bool(ops.all(ops.isfinite(r))):
        raise ValueError("array must not contain infs or NaNs")
    return r


def isfortran(a):
    """numpy.isfortran: True when `a` is Fortran-contiguous and not also
    C-contiguous (a resident array: a transposed view of 2 or more
    dimensions)."""
    return bool(a.flags.f_contiguous and not a.flags.c_contiguous)


def loadtxt(fname, dtype=float, *args, context=None, **kwargs):
    """numpy.loadtxt of text file `fname` read on the host (its `dtype` and
    further `args` / `kwargs` NumPy's), the array uploaded to `context`."""
    return _array.asarray(np.loadtxt(fname, dtype, *args, **kwargs), context=context)


def savetxt(fname, X, *args, **kwargs):
    """numpy.savetxt of a resident (or NumPy) array `X` to text file `fname`
    (downloaded first; `args` / `kwargs` NumPy's: fmt, delimiter, ...)."""
    np.savetxt(fname, _host(X), *args, **kwargs)


def fromfile(file, dtype=float, count=-1, sep="", offset=0, *, context=None):
    """numpy.fromfile read on the host (`file`, `dtype`, `count`, `sep`,
    `offset` NumPy's), the array uploaded to `context`."""
    return _array.asarray(np.fromfile(file, dtype, count, sep, offset), context=context)


def einsum_path(subscripts, *operands, optimize="greedy"):
    """numpy.einsum_path for resident operands: the contraction order
    `optimize` ('greedy', 'optimal' or an explicit path) finds for
    `subscripts`, and its report - from the operands' shapes and dtypes
    alone (NumPy plans on zero-stride stand-ins; nothing is downloaded)."""
    stand = [np.lib.stride_tricks.as_strided(np.zeros(1, o.dtype), o.shape, (0,) * o.ndim)
             if isinstance(o, _nd) else o for o in operands]
    return np.einsum_path(subscripts, *stand, optimize=optimize)


class vectorize:  # noqa: N801 (NumPy's and CuPy's name)
    """cupy.vectorize / numpy.vectorize on the device: vectorize(pyfunc)
    makes a function that applies `pyfunc` elementwise to its (broadcast)
    arguments in one kernel. Like CuPy's, `pyfunc` is compiled, not run by
    Python: it is written in VulPy's kernel language (docs/language.md:
    arithmetic, comparisons, `if`/`else`, `a if c else b`, math.*, vp.*
    built-ins, module-level numbers, other def functions it calls), a def
    function or a lambda, taking scalars and returning one. The output dtype
    is `otypes[0]` or, as NumPy's vectorize finds it, the dtype of pyfunc's
    result on the first elements (called once on the host); the kernel
    computes in the kernel language's types (a float32 input stays float32
    inside) and converts to it. Resident arguments give a resident result;
    NumPy arrays and scalars only, a NumPy result. `doc` sets the
    docstring; `excluded`, `cache` and `signature` are NumPy's and not
    supported (`cache` is accepted: kernels are always cached per dtypes).
    A kernel the compiler refuses is a vp.CompileError naming the line of
    pyfunc."""

    def __init__(self, pyfunc, otypes=None, doc=None, excluded=None, cache=False, signature=None):
        if excluded or signature is not None:
            raise NotImplementedError("vp.vectorize: excluded= and signature= are not supported")
        if not callable(pyfunc):
            raise TypeError(f"vp.vectorize: pyfunc must be a function, got {type(pyfunc).__name__}")
        self.pyfunc = pyfunc
        self.otypes = None if otypes is None else [np.dtype(t) for t in otypes]
        self.__doc__ = doc if doc is not None else pyfunc.__doc__
        self._kernels = {}

    def _kernel(self, dtypes, out_dtype):
        key = (dtypes, out_dtype)
        k = self._kernels.get(key)
        if k is None:
            k = self._kernels[key] = _vectorized_kernel(self.pyfunc, dtypes, out_dtype)
        return k

    def __call__(self, *args):
        ops = _array._ops
        resident = any(isinstance(a, _nd) for a in args)
        ctx = _array.common_context("vp.vectorize", args) if resident else None
        arrays = [a if isinstance(a, _nd) else ops.asarray(np.asarray(a), context=ctx)
                  for a in args]
        if not arrays:
            raise TypeError("vp.vectorize: the function needs at least one argument")
        for a in arrays:
            if a.dtype.kind == "c":
                raise TypeError("vp.vectorize: complex arguments are not supported (the kernel "
                                "language has no complex type)")
        shape = np.broadcast_shapes(*(tuple(a.shape) for a in arrays))
        n = int(np.prod(shape))
        if self.otypes:
            out_dtype = self.otypes[0]
        elif n == 0:
            raise ValueError("cannot call `vectorize` on size 0 inputs unless `otypes` is set")
        else:  # NumPy's rule: the result of pyfunc on the first elements
            first = [a.reshape(-1)[:1].numpy()[0] for a in arrays]
            out_dtype = np.asarray(self.pyfunc(*first)).dtype
            if out_dtype.kind not in "biuf":
                raise TypeError(f"vp.vectorize: pyfunc returned {out_dtype}; the device "
                                f"computes numbers and bools (give otypes=)")
        flat, dtypes = [], []
        for a in arrays:
            dtypes.append(a.dtype)
            if a.dtype == np.bool_:  # (a kernel's bool buffer is 32-bit words: uint32)
                a = a.astype(np.uint32)
            if tuple(a.shape) != shape or not a.flags.c_contiguous:
                a = ops.ascontiguousarray(ops.broadcast_to(a, shape))
            flat.append(a.reshape(-1) if a.ndim != 1 else a)
        out_dtype = np.dtype(out_dtype)
        stored = np.dtype(np.uint32) if out_dtype == np.bool_ else out_dtype
        out = ops.empty(shape, stored, context=flat[0].context)
        if n:
            if n >= 2 ** 32:
                raise ValueError(f"vp.vectorize: {n} elements (at most 2**32 - 1)")
            k = self._kernel(tuple(dtypes), out_dtype)
            block = 65535 * 64  # (vp.kernel's local size 64)
            for i0 in range(0, n, block):
                k(*flat, out.reshape(-1), n=n, i0=i0, dispatch=min(block, n - i0))
        if stored != out_dtype:
            out = out.astype(out_dtype)
        return out if resident else out.numpy()


_VECTORIZED = 0


def _vectorized_kernel(pyfunc, dtypes, out_dtype):
    """The @vp.kernel that stores pyfunc(a0[i], ...) into o[i]: its source
    registered in linecache (so the frontend reads it as a file's), pyfunc a
    helper of it (a lambda written out as a def first)."""
    import ast
    import inspect
    import linecache
    import textwrap
    global _VECTORIZED
    _VECTORIZED += 1
    name = pyfunc.__name__
    ns = {"vp": _array._ops}
    lines = ["import math", "import vulpy as vp", ""]
    helpers = []
    if name == "<lambda>":
        # the lambda's text, made a def in the generated file; the names it
        # reads come along into the generated module's namespace
        try:
            src = textwrap.dedent("".join(inspect.getsourcelines(pyfunc)[0]))
        except (OSError, TypeError):
            raise TypeError("vp.vectorize: the lambda's source is not available (a def "
                            "function in a file works)") from None
        try:
            tree = ast.parse(src)
        except SyntaxError:
            tree = ast.parse("(" + src.strip().rstrip(",") + ")") if src else None
        argnames = list(pyfunc.__code__.co_varnames[:pyfunc.__code__.co_argcount])
        found = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and
                 [a.arg for a in n.args.args] == argnames] if tree else []
        if len({ast.unparse(f.body) for f in found}) != 1:  # (the same text twice is one)
            raise TypeError("vp.vectorize: cannot tell this lambda from the others on its "
                            "line; write it as a def function")
        name = f"_vp_lambda_{_VECTORIZED}"
        lines += [f"def {name}({', '.join(argnames)}):",
                  f"    return {ast.unparse(found[0].body)}", ""]
        code = pyfunc.__code__
        for n in code.co_names:
            if n in pyfunc.__globals__:
                ns[n] = pyfunc.__globals__[n]
        for n, cell in zip(code.co_freevars, pyfunc.__closure__ or ()):
            ns[n] = cell.cell_contents
    else:
        ns[name] = pyfunc
        helpers.append(pyfunc)
    # bools travel as uint32 words (a kernel has no bool buffer)
    def buf(d):
        return "uint32" if np.dtype(d) == np.bool_ else np.dtype(d).name
    params = [f"a{k}: vp.Buffer[vp.{buf(d)}]" for k, d in enumerate(dtypes)]
    elems = [f"a{k}[i] != vp.uint32(0)" if np.dtype(d) == np.bool_ else f"a{k}[i]"
             for k, d in enumerate(dtypes)]
    odt = buf(out_dtype)
    # dispatched in blocks from element i0 (the workgroup count in x bounds
    # one dispatch: 65,535 on lavapipe and many GPUs)
    lines += [f"def _vp_vectorized({', '.join(params)}, o: vp.Buffer[vp.{odt}], n: vp.uint32, "
              f"i0: vp.uint32):",
              "    i = vp.global_id() + i0",
              "    if i < n:",
              f"        o[i] = vp.{odt}({name}({', '.join(elems)}))", ""]
    text = "\n".join(lines)
    filename = f"<vp.vectorize {pyfunc.__qualname__} #{_VECTORIZED}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    exec(compile(text, filename, "exec"), ns)
    return _array._ops.kernel(ns["_vp_vectorized"], helpers=helpers)


# --- text of an array, layout requirements, broadcast objects
def array2string(a, *args, **kwargs):
    """numpy.array2string of `a`'s values (a resident array is read back;
    every other argument NumPy's): the text NumPy writes for them."""
    return np.array2string(a.numpy() if isinstance(a, _nd) else a, *args, **kwargs)


def array_str(a, max_line_width=None, precision=None, suppress_small=None):
    """numpy.array_str of `a`'s values (a resident array is read back):
    `str()` of the NumPy array, with NumPy's `max_line_width`, `precision`
    and `suppress_small`."""
    return np.array_str(a.numpy() if isinstance(a, _nd) else a, max_line_width, precision,
                        suppress_small)


def array_repr(arr, max_line_width=None, precision=None, suppress_small=None):
    """numpy.array_repr: for a resident array `arr`, `repr()` as vp.ndarray
    writes it (its values as NumPy formats them with `max_line_width`, `precision`
    and `suppress_small`, then shape, dtype and memory); NumPy's for
    anything else."""
    if not isinstance(arr, _nd):
        return np.array_repr(arr, max_line_width, precision, suppress_small)
    opts = {k: v for k, v in (("linewidth", max_line_width), ("precision", precision),
                              ("suppress", suppress_small)) if v is not None}
    with np.printoptions(**opts):
        return repr(arr)


def asfortranarray(a, dtype=None):
    """numpy.asfortranarray: `a` as a Fortran-contiguous array of `dtype`
    (default a's): a resident `a` itself when it already is one, else a
    copy laid out column-major (a transposed view of a C-contiguous copy of
    a.T); a NumPy array stays NumPy's."""
    if not isinstance(a, _nd):
        return np.asfortranarray(a, dtype=dtype)
    if a.ndim <= 1:
        return ascontiguousarray(a, dtype)
    same = dtype is None or np.dtype(dtype) == a.dtype
    if same and a.flags.f_contiguous:
        return a
    t = a.T
    return (t.astype(dtype) if not same else t.copy()).T


_REQUIRE = {"C": "C", "C_CONTIGUOUS": "C", "CONTIGUOUS": "C", "F": "F", "F_CONTIGUOUS": "F",
            "FORTRAN": "F", "A": "A", "ALIGNED": "A", "W": "W", "WRITEABLE": "W", "O": "O",
            "OWNDATA": "O", "E": "E", "ENSUREARRAY": "E"}


def require(a, dtype=None, requirements=None, *, like=None, context=None):
    """numpy.require: `a` as an array of `dtype` meeting `requirements`
    (flags: 'C' / 'C_CONTIGUOUS', 'F' / 'F_CONTIGUOUS', 'A' / 'ALIGNED',
    'W' / 'WRITEABLE', 'O' / 'OWNDATA', 'E' / 'ENSUREARRAY'): a resident
    `a` itself when it meets them, else a copy that does. NumPy data gives
    NumPy's answer (`context` puts it on a device instead); `like` is
    refused."""
    if like is not None:
        raise TypeError("vp.require: like= is not supported (the result is resident for a "
                        "resident a)")
    if not isinstance(a, _nd) and context is None:
        return np.require(a, dtype, requirements)
    reqs = set()
    for r in requirements or ():  # (a string is its letters, as in NumPy: "CW")
        k = _REQUIRE.get(str(r).upper())
        if k is None:
            raise KeyError(f"vp.require: unknown requirement {r!r}")
        reqs.add(k)
    if {"C", "F"} <= reqs:
        raise ValueError("Cannot specify both C and Fortran contiguous.")
    r = _array._ops.asarray(a, dtype, context=context) if not isinstance(a, _nd) or \
        (dtype is not None and np.dtype(dtype) != a.dtype) else a
    if "C" in reqs:
        r = ascontiguousarray(r)
    elif "F" in reqs:
        r = asfortranarray(r)
    if ("W" in reqs and not r.flags.writeable) or ("O" in reqs and not r.flags.owndata):
        r = r.copy()
    return r


class broadcast:
    """numpy.broadcast / cupy.broadcast of arrays (resident, NumPy or
    scalars): the shape they broadcast to (`shape`, `ndim` / `nd`, `size`,
    `numiter`) and `values`, each argument broadcast to it (read-only views
    of resident arrays, NumPy's views of the others). Iterating over
    element tuples is not supported (it would read every element back)."""

    def __init__(self, *args):
        if len(args) > 64:
            raise ValueError("vp.broadcast: at most 64 arrays (NumPy's limit)")
        shapes = [tuple(a.shape) if isinstance(a, _nd) else np.shape(a) for a in args]
        self.shape = np.broadcast_shapes(*shapes)
        self.numiter = len(args)
        self._args = args

    @property
    def ndim(self):
        return len(self.shape)

    nd = ndim

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def values(self):
        return tuple(_array._ops.broadcast_to(a, self.shape) for a in self._args)

    def __iter__(self):
        raise TypeError("vp.broadcast: iterating over element tuples would read every "
                        "element back; use .values (the broadcast arrays)")

    def __repr__(self):
        return f"vp.broadcast(shape={self.shape}, numiter={self.numiter})"


def in1d(ar1, ar2, assume_unique=False, invert=False, *, kind=None):
    """numpy.in1d (deprecated in NumPy 2 for isin): whether each element of
    ar1, flattened, is in ar2 - vp.isin(ar1, ar2, assume_unique, invert,
    kind=kind).ravel()."""
    r = _array._ops.isin(ar1, ar2, assume_unique, invert, kind=kind)
    return r.ravel() if isinstance(r, _nd) else np.ravel(r)


# --- polynomials from roots, polynomial division
def poly(seq_of_zeros):
    """numpy.poly of `seq_of_zeros`, a 1-D sequence of roots, on the
    device: the monic
    polynomial's coefficients (highest power first, NumPy's dtype: float32
    roots give float32, integers float64), the product of the (x - r); real
    where complex roots come in conjugate pairs (as NumPy's, one check read
    back); 1.0 for no roots. A square matrix (NumPy's characteristic
    polynomial) needs eigenvalues: TypeError."""
    if not isinstance(seq_of_zeros, _nd):
        return np.poly(seq_of_zeros)
    ops = _array._ops
    z = seq_of_zeros.reshape(1) if seq_of_zeros.ndim == 0 else seq_of_zeros
    if z.ndim == 2 and z.shape[0] == z.shape[1] and z.shape[0] != 0:
        raise TypeError("vp.poly of a matrix (its characteristic polynomial) needs general "
                        "eigenvalues, which VulPy lacks; pass the roots")
    if z.ndim != 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    if z.shape[0] == 0:
        return 1.0
    dt = np.dtype(np.mintypecode(z.dtype.char))
    a = ops.ones(1, dt, context=z._ctx)
    zero = ops.zeros(1, dt, context=z._ctx)
    for k in range(z.shape[0]):  # a (x - z_k): [a, 0] - z_k [0, a]
        a = ops.subtract(ops.concatenate([a, zero]),
                         ops.multiply(z[k:k + 1].astype(dt), ops.concatenate([zero, a])))
    if dt.kind == "c":
        roots = z.astype(dt)
        if bool(ops.all(ops.sort(roots) == ops.sort(ops.conjugate(roots)))):
            a = ops.real(a).copy()
    return a


def polydiv(u, v):
    """numpy.polydiv on the device: (quotient, remainder) of the polynomial
    division u / v (1-D coefficients, highest power first), NumPy's long
    division (one small update per quotient term, no read-back) in float64
    (float32 where the device lacks it) or the complex dtype, then the
    remainder's leading zeros stripped as NumPy does (one read-back)."""
    if not isinstance(u, _nd) and not isinstance(v, _nd):
        return np.polydiv(u, v)
    ops = _array._ops
    ctx = next(x._ctx for x in (u, v) if isinstance(x, _nd))
    u, v = (x if isinstance(x, _nd) else ops.asarray(np.asarray(x), context=ctx) for x in (u, v))
    u, v = (x.reshape(1) if x.ndim == 0 else x for x in (u, v))
    if u.ndim != 1 or v.ndim != 1:
        raise ValueError("vp.polydiv: coefficients must be 1-D (poly1d is not supported)")
    f = np.float64 if ctx.has("float64") else np.float32
    dt = np.result_type(u.dtype, v.dtype, f)
    u, v = u.astype(dt), v.astype(dt)
    m, n = u.shape[0] - 1, v.shape[0] - 1
    if n < 0:
        raise ZeroDivisionError("vp.polydiv: division by an empty polynomial")
    scale = ops.divide(1, v[:1])
    q = ops.zeros(max(m - n + 1, 1), dt, context=ctx)
    r = u.copy()
    for k in range(0, m - n + 1):
        d = ops.multiply(scale, r[k:k + 1])
        q[k:k + 1] = d
        r[k:k + n + 1] -= ops.multiply(d, v)
    # NumPy strips leading near-zeros of the remainder: while allclose(r[0], 0, rtol=1e-14)
    if r.shape[0] > 1:
        small = (ops.abs(r) <= 1e-8).numpy()  # (allclose's atol; rtol times 0 is 0)
        lead = int(np.argmin(small)) if not small.all() else r.shape[0] - 1
        r = r[min(lead, r.shape[0] - 1):]
    return q, r


def fromstring(string, dtype=float, count=-1, *, sep, like=None, context=None):
    """numpy.fromstring of text `string` (`sep` required, as NumPy 2's; at
    most `count` items of `dtype`) parsed on the host, the array uploaded to
    `context`; `like` is refused."""
    if like is not None:
        raise TypeError("vp.fromstring: like= is not supported")
    return _array.asarray(np.fromstring(string, dtype, count, sep=sep), context=context)


def genfromtxt(fname, dtype=float, *args, context=None, **kwargs):
    """numpy.genfromtxt of `fname` read on the host (its arguments NumPy's),
    the array uploaded to `context` (a plain dtype: no structured or masked
    results)."""
    return _array.asarray(np.genfromtxt(fname, dtype, *args, **kwargs), context=context)
