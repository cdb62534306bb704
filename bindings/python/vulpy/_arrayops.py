"""Eager array operations on the array path: one graph per call, compiled
(and cached by its text) by the C compiler, run at once.

The ufuncs use it when their own planner cannot (strided views as inputs
or as out=, more than four broadcast dimensions); reductions, indexing,
copies of views and fills of views always do. Convenience mode holds as
for the ufuncs: NumPy arrays in, NumPy arrays out (staged in the context's
scratch buffers); any resident operand makes the results resident.
"""
import math

import numpy as np

from . import _array, _context, _engine, _graph
from ._launch import Handle

_BOOL = np.dtype(np.bool_)
_U8 = np.dtype(np.uint8)
_U32 = np.dtype(np.uint32)
_F16 = np.dtype(np.float16)
# the dtypes a run-time view copies and fills (run_store); the 8/16-bit
# ones may be packed in words on a device, the complex ones are pairs
_RUN_DTYPES = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.int32, np.uint32,
                                              np.int64, np.uint64, np.bool_))


def storage_of(a):
    """The element type of a resident array's buffer."""
    return _array.storage_dtype(a.dtype)


def extent(a):
    """Elements of a's buffer that its view reaches (from 0): the buffer's
    size in the VIR, so that the text, and the cache key, do not depend on
    how big the allocation happens to be."""
    if a._estrides is None:
        return a._offset + a._size
    if a._size == 0:
        return a._offset + 1
    return a._offset + 1 + sum((d - 1) * s for d, s in zip(a.shape, a._estrides) if s > 0)


# --- issue 19: complex operands. _complex.py implements them on top of the
# operations here (and of the ufuncs), so it sits above this module and this
# module cannot import it; COMPLEX reaches it through the vulpy package,
# which _array.bind_ops hands over when the package imports (as ndarray's
# methods reach the op modules). The ufuncs ask COMPLEX too.
class _ComplexOps:
    """_complex.py's functions, looked up on first use and kept."""

    def __getattr__(self, name):
        f = getattr(_array._ops._complex, name)
        setattr(self, name, f)
        return f


COMPLEX = _ComplexOps()
_COMPLEX_SUPPORTED = ("+ - * / **, negative, conj, abs, exp, exp2, expm1, sqrt, log, log2, "
                      "log10, log1p, square, reciprocal, sign, round, rint, float_power, sin, "
                      "cos, tan, sinh, cosh, tanh and their inverses, isnan, isinf, isfinite, "
                      "== != < <= > >=, logical_and / or / xor / not, maximum / minimum / fmax / fmin, where, real, imag, "
                      "angle, sum, mean, prod, cumsum, cumprod, var, std, max, min, argmax, argmin and "
                      "their nan forms, any, all, "
                      "matmul / dot / vdot / inner / tensordot / einsum, linalg.norm, astype, "
                      "copy, indexing views, integer-array and mask reads (take, compress, "
                      "take_along_axis) and assignments (put, place, putmask), "
                      "concatenate / stack / roll, sort / argsort / unique / searchsorted, fft")


def complex_unsupported(what, dt):
    """The TypeError for operation `what` on complex dtype `dt`."""
    return TypeError(f"{what}: {np.dtype(dt).name} operands are not supported (complex arrays "
                     f"support {_COMPLEX_SUPPORTED}; docs/python-api.md, \"Complex dtypes and "
                     f"`vp.fft`\")")


class Call:
    """One eager operation: a graph, what its buffers are bound to, its
    push constants and scratch buffers, and where results go."""

    def __init__(self, name, ctx=None, context=None):
        self.name = name
        self.ctx = ctx
        self.context = context
        self.g = _graph.Graph(name.replace(".", "_"))
        self.bind = {}
        self.push = {}
        self.scratch = []
        self.resident = None  # the first resident operand
        # New resident results up to this many bytes, in memory the host
        # cannot map, get a readback mirror (see _mirrored); 0: none.
        self.mirror_max = 0
        self.readback = None

    # ---------------------------------------------------------- operands
    def note(self, x):
        """Records the context of a resident operand (all must agree)."""
        if isinstance(x, _array.ndarray):
            if self.ctx is None:
                self.ctx = x._ctx
            elif x._ctx is not self.ctx:
                raise _array.mixed_contexts(f"vp.{self.name}", self.ctx, x._ctx)
            if self.resident is None:
                self.resident = x

    def context_(self):
        if self.ctx is None:
            self.ctx = _context.resolve(self.context)
        return self.ctx

    def array(self, a, dtype=None):
        """A tensor value of a resident array (through its view) or of a
        NumPy array (staged)."""
        ctx = self.context_()
        if getattr(a, "dtype", None) is not None and a.dtype.kind == "c":
            raise complex_unsupported(f"vp.{self.name}", a.dtype)
        if isinstance(a, _array.ndarray):
            sd = storage_of(a)
            b = self.g.buffer(("r", id(a._buf)), sd, extent(a), a._buf, "a")
            self.bind[b.name] = a._buf
            v = self.g.load(b, a.dtype, a.shape, a._offset, a._estrides)
        else:
            h = np.asarray(a)
            if dtype is not None and h.dtype != dtype:
                h = h.astype(dtype)
            elif not h.dtype.isnative:  # '>u2': the values in the GPU's byte order
                h = h.astype(h.dtype.newbyteorder("="))
            _array.check_dtype(h.dtype, f"vp.{self.name}")
            h = np.ascontiguousarray(h)
            sd = _U8 if h.dtype == _BOOL else h.dtype
            buf = ctx._scratch("host" if not ctx.uma else "device", max(h.nbytes, 16))
            if h.size:
                buf.upload(h.view(sd) if h.dtype == _BOOL else h)
            self.scratch.append(buf)
            b = self.g.buffer(("n", id(buf)), sd, max(h.size, 1), buf, "h")
            self.bind[b.name] = buf
            v = self.g.load(b, h.dtype, h.shape)
        return v

    def scalar(self, value, dtype):
        """A push-constant scalar."""
        if isinstance(value, (complex, np.complexfloating)) or np.dtype(dtype).kind == "c":
            raise complex_unsupported(f"vp.{self.name}", np.asarray(value).dtype)
        v = self.g.scalar(dtype)
        field = self.g.push[-1][0]
        self.push[field] = push_value(value, np.dtype(dtype))
        return v

    def operand(self, x, dtype=None):
        """A graph value of any operand: resident/NumPy array or scalar."""
        if isinstance(x, _array.ndarray):
            return self.array(x)
        if isinstance(x, (bool, int, float)) or (isinstance(x, np.ndarray) and x.ndim == 0) or \
                isinstance(x, np.generic):
            dt = np.dtype(dtype) if dtype is not None else np.asarray(x).dtype
            return self.scalar(np.asarray(x).item(), dt)
        return self.array(x, dtype)

    # ---------------------------------------------------------- results
    def result(self, value, out=None, casting="same_kind"):
        """Where `value` goes: `out` (resident, possibly a view, or NumPy),
        or a new array (resident when an operand was). Returns a function
        giving the result after the run. A NumPy out= takes the result by
        np.copyto's `casting` (a ufunc's same_kind; reductions pass
        NumPy's unsafe)."""
        ctx = self.context_()
        shape = value.shape if value.shape is not None else ()
        dt = value.dtype
        if isinstance(out, _array.ndarray):
            if out.shape != shape:
                raise _array.out_shape_error(f"vp.{self.name}", out, shape)
            _array.check_writable(out, f"vp.{self.name}")
            if out._ctx is not ctx:
                raise _array.mixed_contexts(f"vp.{self.name} (out=)", ctx, out._ctx)
            v = self.g.cast(value, out.dtype) if out.dtype != dt else value
            b = self.g.buffer(("r", id(out._buf)), storage_of(out), extent(out), out._buf,
                              "out")
            self.bind[b.name] = out._buf
            self.g.store(b, v, out._offset, out._estrides)
            return lambda: out
        if out is None and self.resident is not None:
            res = _array._result(tuple(shape), dt, self.resident.memory, ctx)  # written whole
            fin = self.result(value, res)
            if 0 < res.nbytes <= self.mirror_max and not res._buf.mapped and \
                    self.readback is None:
                return self._mirrored(res)
            return fin
        # NumPy out
        sd = _U8 if dt == _BOOL else dt
        n = int(np.prod(shape, dtype=np.int64))
        buf = ctx._scratch("cached" if not ctx.uma else "device", max(n * sd.itemsize, 16))
        self.scratch.append(buf)
        b = self.g.buffer(("n", id(buf)), sd, max(n, 1), buf, "out")
        self.bind[b.name] = buf
        self.g.store(b, value)

        def finish():
            r = np.empty(shape, sd)
            if n:
                buf.download(r)
            if dt == _BOOL:
                r = r.view(np.bool_)
            if isinstance(out, np.ndarray):
                np.copyto(out, r, casting=casting)
                return out
            return r

        return finish

    def _mirrored(self, res):
        """A small new result in memory the host cannot map ('device' on a
        discrete GPU): the run copies it, in its own submission, into a
        pooled 'cached' buffer (the mirror), so reading it back (float(),
        .item(), .numpy()) is a wait and a memcpy instead of a second
        submission. The result itself stays in its memory kind; the mirror
        is used only while the GPU has not touched the result since
        (ndarray._download)."""
        ctx = self.context_()
        m = ctx._scratch("cached", _array._padded(res.nbytes))
        self.readback = (m, 0, res._buf, 0, res.nbytes)

        def finish():
            res._mirror = (m, res._buf.last_use)
            return res
        return finish

    # ---------------------------------------------------------- running
    def run(self, finish, sync=True):
        """Compiles (cached), dispatches, and returns finish() or a Handle."""
        ctx = self.context_()
        comp = _engine.compile(self.g.text(), ctx, f"vp.{self.name}")
        self.compiled = comp
        # resident operands and results only (no staged host data, no
        # readback): eager, as the resident ufuncs' fast path (host reads
        # of the results wait for it)
        eager = sync and not self.scratch and self.readback is None
        t = comp.run(ctx, self.bind, self.push, None if eager else sync, self.readback)

        def done():
            for b in self.scratch:
                ctx._release(b)
            return finish()

        if sync:
            return done()
        return Handle(t, done)


def _run_view(a, write=False, shape=None):
    """_array.view_code of resident `a` (at its own shape, or broadcast to
    `shape`) where run_store takes it: a dtype it moves, and for a write a
    view that reaches no element twice (one term, or two: x[1:-1, 1:-1],
    x.T)."""
    if a.dtype not in _RUN_DTYPES:
        return None
    shape = a.shape if shape is None else shape
    vc = _array.view_code(a, shape)
    if vc is None or (write and (vc[0] not in "vw" and vc[0][0] != "m" or (
            vc[1].get("t") == 0 and a._size > 1))):
        return None
    if vc[0] not in "vw" and math.prod(shape) > _array.CPU_VIEW_MAX and a._ctx.kind == "cpu":
        return None  # divisions per element: the static path
    return vc


def runs(dst, src):
    """Whether dst[...] = src takes run_store: dst a view it writes, src a
    resident array on its context that broadcasts to dst's shape (vp.tile
    and vp.repeat copy such views), that it reads and that overlaps dst
    element for element or not at all, or a real scalar."""
    if not dst._size or _run_view(dst, True) is None:
        return False
    if type(src) is _array.ndarray:
        if src._ctx is not dst._ctx:
            return False
        if src.shape != dst.shape:
            try:
                if np.broadcast_shapes(src.shape, dst.shape) != dst.shape:
                    return False
            except ValueError:
                return False  # the static path says what is wrong
        return _run_view(src, shape=dst.shape) is not None and \
            not _array.write_hazard(dst, src)
    return isinstance(src, (bool, int, float, np.bool_, np.integer, np.floating)) or (
        type(src) is np.ndarray and src.ndim == 0 and src.dtype.kind in "biuf")


def push_value(value, dt):
    """A scalar's push-constant value at dtype dt (bool: 0 or 1)."""
    return int(bool(value)) if dt == _BOOL else (
        float(value if dt != _F16 else np.float16(value)) if dt.kind == "f"
        else int(np.asarray(value).astype(dt)))


def run_store(name, dst, src=None, value=None):
    """dst[...] = src (a resident array broadcast to dst's shape, converted
    as astype does) or = value (a Python scalar of dst's dtype) through the
    run-time views of both (_run_view): array VIR over the dynamic extent,
    one compile per dtype pair whatever the length, offset or step. The
    caller has checked the views (None from _run_view: not this way) and
    that src does not overlap dst other than element for element. The
    second call of a signature (dtypes, storage, unit steps) skips the
    graph: its compiled plan takes this call's offsets, steps and extent."""
    ctx = dst._ctx
    dcode, dvals = _run_view(dst, True)
    if src is not None:
        scode, svals = _run_view(src, shape=dst.shape)
        key = ("run_store", name, dst.dtype, storage_of(dst), dcode, src.dtype,
               storage_of(src), scode)
    else:
        key = ("run_store", name, dst.dtype, storage_of(dst), dcode)
    plan = ctx._ufast.get(key)
    if plan is not None:
        comp, xname, oname, vfield = plan
        push = {"n": dst._size}
        _array.put_view(push, "o", dvals)
        bind = {oname: dst._buf}
        if src is not None:
            _array.put_view(push, "0", svals)
            bind[xname] = src._buf
        else:
            push[vfield] = push_value(value, dst.dtype)
        comp.run(ctx, bind, push, None, None)  # eager, as Call.run
        return dst
    c = Call(name)
    c.note(dst)
    g = c.g
    g.push.append(("n", _U32))
    c.push["n"] = dst._size
    xname = vfield = None
    if src is not None:
        c.note(src)
        b = g.buffer(("x",), storage_of(src), None, None, "xa")
        c.bind[xname := b.name] = src._buf
        v = g.load(b, src.dtype, _graph.DYN, at=_graph.view_at(g, "0", scode))
        _array.put_view(c.push, "0", svals)
        v = g.convert(v, dst.dtype)
    else:
        v = g.broadcast(c.scalar(value, dst.dtype), _graph.DYN)
        vfield = g.push[-1][0]
    o = g.buffer(("out",), storage_of(dst), None, None, "out")
    c.bind[o.name] = dst._buf
    g.store(o, v, at=_graph.view_at(g, "o", dcode))
    _array.put_view(c.push, "o", dvals)
    r = c.run(lambda: dst)
    ctx._ufast[key] = (c.compiled, xname, o.name, vfield)
    return r


def materialize(a):
    """A C-contiguous resident copy of a (strided) resident array."""
    if a.dtype.kind == "c":  # issue 19: through the float view
        return COMPLEX.materialize(a)
    if a._size and _run_view(a) is not None:
        return run_store("copy", _array._result(a.shape, a.dtype, a.memory, a._ctx), a)
    c = Call("copy")
    c.note(a)
    v = c.array(a)
    out = _array._result(a.shape, a.dtype, a.memory, a._ctx)  # written whole
    return c.run(c.result(v, out))


def fill(a, value):
    """Sets every element of the resident array (or view) `a`."""
    if a.dtype.kind == "c" or isinstance(value, (complex, np.complexfloating)):
        return COMPLEX.fill(a, value)
    if a._size and _run_view(a, True) is not None:
        return run_store("fill", a, value=value)
    c = Call("fill")
    c.note(a)
    v = c.scalar(value, a.dtype)
    return c.run(c.result(c.g.broadcast(v, a.shape), a))


def check_assign_shape(shape, target):
    """NumPy's ValueError for x[key] = value of a shape that does not
    broadcast to the target's."""
    try:
        if np.broadcast_shapes(tuple(shape), target) == target:
            return
    except ValueError:
        pass
    raise ValueError(f"could not broadcast input array from shape {tuple(shape)} into shape "
                     f"{target}")


def assign(a, src):
    """a[...] = src (broadcast), for a resident array or view `a`."""
    extra = np.ndim(src) - a.ndim
    if extra > 0 and all(d == 1 for d in np.shape(src)[:extra]):
        # NumPy drops a value's leading unit axes: x[1:2] = ones((1, 1, 4))
        src = (src if hasattr(src, "ndim") else np.asarray(src))[(0,) * extra]
    if a.dtype.kind == "c" or COMPLEX.is_complex(src):
        return COMPLEX.assign(a, src)
    if runs(a, src):
        _array.check_writable(a, "vp.assign")
        if type(src) is _array.ndarray:
            return run_store("assign", a, src)
        return run_store("assign", a, value=np.asarray(src).item())
    c = Call("assign")
    c.note(a)
    c.note(src)
    v = c.g.convert(c.operand(src, a.dtype), a.dtype)
    check_assign_shape(v.shape or (), a.shape)
    if v.shape is None or v.shape != a.shape:
        v = c.g.broadcast(v, a.shape)
    return c.run(c.result(v, a))


def astype(a, dtype, memory=None):
    dt = np.dtype(dtype)
    if a._size and dt in _RUN_DTYPES and _run_view(a) is not None:
        out = _array._result(a.shape, dt, _array.check_memory(memory or a.memory), a._ctx)
        return run_store("astype", out, a)
    c = Call("astype")
    c.note(a)
    dt = np.dtype(dtype)
    r = c.g.convert(c.array(a), dt)
    out = _array._result(a.shape, dt, _array.check_memory(memory or a.memory), a._ctx)
    return c.run(c.result(r, out))


def python_int(uf_name, a, dt, k):
    """Python int operand `a` (argument k) of ufunc `uf_name` at its loop's
    integer dtype dt, as a 0-d NumPy array, as the installed NumPy casts
    it: a value dt cannot hold is NumPy's OverflowError, except for
    numpy.where, which NumPy 2.3 casts as it is (1000 is int8's -24) and
    later NumPy refuses too - NumPy itself decides. A negative exponent of
    an integer power is NumPy's ValueError (an array's negative exponents
    give 0 instead: docs/python-api.md, "Deviations from NumPy")."""
    if uf_name == "power" and k == 1 and a < 0 and dt.kind in "iu":
        raise ValueError("vp.power: Integers to negative integer powers are not allowed.")
    try:
        if uf_name == "where":
            return np.asarray(np.where(np.False_, np.zeros((), dt), a))
        return np.array(a, dtype=dt)
    except OverflowError as e:
        raise OverflowError(f"vp.{uf_name}: argument {k + 1}: {e}") from None


def dtype_key(x):
    """The resolve_dtypes key of one ufunc operand: a dtype, or a Python
    scalar type (weak, as NEP 50 says)."""
    if isinstance(x, (_array.ndarray, np.ndarray, np.generic)):
        return x.dtype
    if isinstance(x, bool):
        return _BOOL
    if isinstance(x, (int, float)):
        return type(x)
    dt = getattr(x, "dtype", None)  # vp.jit's tracers (np.asarray refuses them)
    return dt if isinstance(dt, np.dtype) else np.asarray(x).dtype


def ufunc(uf, args, out, context, sync):
    """A vulpy Ufunc on the array path (views, out= views, any number of
    broadcast dimensions)."""
    c = Call(uf.name, context=context)
    for a in args:
        c.note(a)
    if isinstance(out, tuple) and len(out) == 1:
        out = out[0]
    if isinstance(out, _array.ndarray):
        c.note(out)
    keys = tuple(dtype_key(a) for a in args)
    loop_in, out_dt = uf.resolve(keys) if uf.name != "cast" else ((args[0].dtype,), out.dtype)
    ctx = c.context_()
    _graph.require_features(ctx, tuple(loop_in) + (out_dt,), f"vp.{uf.name}")
    args = list(args)
    for k, (a, dt) in enumerate(zip(args, loop_in)):
        if type(a) is int and dt.kind in "iu":  # NumPy refuses what the loop cannot hold
            python_int(uf.name, a, dt, k)
        elif type(a) in (int, float) and dt.kind == "f" and dt.itemsize < 8:
            # NumPy casts a Python float (or int) past the loop's range to
            # inf, with its overflow warning (a push constant refused it:
            # `x < 1e40` of a 0-d float32 x was a TypeError)
            args[k] = np.array(a, dtype=dt)[()]
    vals = [c.operand(a, dt if not isinstance(a, (_array.ndarray, np.ndarray)) else None)
            for a, dt in zip(args, loop_in)]
    shapes = [v.shape for v in vals if v.shape is not None]
    try:
        oshape = np.broadcast_shapes(*shapes) if shapes else ()
    except ValueError:
        raise ValueError(f"vp.{uf.name}: operands could not be broadcast together with shapes "
                         f"{' '.join(str(v.shape or ()) for v in vals)}") from None
    r = _graph.apply_ufunc(c.g, uf, vals, loop_in, out_dt)
    if r.shape is None:
        r = c.g.broadcast(r, oshape)
    if isinstance(out, _array.ndarray) and out.dtype != r.dtype:
        raise _array.out_dtype_error(f"vp.{uf.name}", out, r.dtype)
    res = c.run(c.result(r, out), sync)
    uf.last_program = next(iter(c.compiled.programs.values()), None)
    uf.last_compiled = c.compiled
    return res
