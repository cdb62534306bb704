"""The ufuncs: vp.sin, vp.add, ... on NumPy arrays (convenience mode: NumPy in,
NumPy out) and on resident arrays (resident in, resident out, `out=`).

Each call is array-level VIR, compiled by the C compiler (fuse, lower-arrays,
GLSL, SPIR-V: the path vp.jit takes) and cached by its text; NumPy's
semantics per operation are _graph.apply_ufunc's. Python only chooses:
  - dtypes as NumPy resolves them (ufunc.resolve_dtypes: NEP 50 promotion,
    Python scalars are weak), then checked against the device's features;
  - layout: operands of the output's shape are whole arrays of dynamic
    extent (tensor<?xT>, the element count n a push constant), views and
    broadcasts that _array.view_code describes in at most two axis terms
    (x[1:], x[::-2], u[1:-1, 2:], x.T, x - x.mean(axis=0): the offset,
    steps and divisors push constants too), resident arrays of one
    element, and host scalars and 0-d arrays as push constants, so one
    compile serves every size and view; other views and broadcasts and
    the small dtypes take the array path with static shapes
    (_arrayops.ufunc);
  - the grid: lower-arrays' rule for n (the compile's grid ops, evaluated
    by Compiled.grid), with vec4 access for 32-bit buffers (padded to 16
    bytes, so the tail needs no special case).
The first call of a resident signature of whole arrays hands the plan to
the C fast path (Launcher.ufunc), which runs the next calls without
Python; one with views or broadcasts leaves a plan for _view_fast.
"""
import math
import operator
import weakref

import numpy as np

from . import _array, _arrayops, _context, _engine, _graph, _indexing, _native
from ._launch import Handle, ufunc_c_call

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_I32, _U32 = np.dtype(np.int32), np.dtype(np.uint32)
_I64, _U64 = np.dtype(np.int64), np.dtype(np.uint64)
_BOOL = np.dtype(np.bool_)
_DTYPES = frozenset((_F32, _F64, _I32, _U32, _I64, _U64, _BOOL))
_SMALL = frozenset(np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16, np.float16))

_ALIASES = {"true_divide": "divide", "abs": "absolute", "asin": "arcsin", "acos": "arccos",
            "atan": "arctan", "atan2": "arctan2", "asinh": "arcsinh", "acosh": "arccosh",
            "atanh": "arctanh", "pow": "power", "mod": "remainder"}


# ------------------------------------------------------------- planning
_texts = {}  # plan key -> array VIR text
_BUF = ("xa", "xb", "xc")  # the buffers of operands 0, 1, 2


def _array_vir(uf, loop_in, out_dt, layout, storage, oview=False):
    """The array VIR of one variant: operands 'c' are whole arrays of
    dynamic extent (@xa, @xb, @xc in storage dtypes), 'w' views of their
    buffers (element i at o<k> + i * t<k>, push fields; 'v' the same with
    step 1) and the other codes of _array.view_code (broadcasts as a block,
    views of two axes: _at), 'b' resident
    arrays of one element broadcast over it (read once per invocation),
    's' push scalars s0, ... (bool as a u32 word); the result goes to
    `out`, through the view (oo, to) when `oview` ('v' or 'w' as above)."""
    key = (uf.name, loop_in, out_dt, layout, storage, oview)
    text = _texts.get(key)
    if text is not None:
        return text
    g = _graph.Graph(uf.name)
    g.push.append(("n", _U32))  # the extent of tensor<?xT>
    vals = []
    for k, L in enumerate(layout):
        if L == "s":
            if loop_in[k] == _BOOL:
                v = g.op("ne", [g.scalar(_U32, f"s{k}"), g.const(0, _U32)], _BOOL)
            else:
                v = g.scalar(loop_in[k], f"s{k}")
        elif L == "b":  # one element, read once and broadcast
            b = g.buffer(("x", k), _array.storage_dtype(storage[k]), 1, None, _BUF[k])
            v = g.broadcast(g.load(b, storage[k], ()), _graph.DYN)
        elif L != "c":  # a run-time view (_array.view_code): offset, steps, divisors
            b = g.buffer(("x", k), _array.storage_dtype(storage[k]), None, None, _BUF[k])
            v = g.load(b, storage[k], _graph.DYN, at=_graph.view_at(g, str(k), L))
        else:
            b = g.buffer(("x", k), _array.storage_dtype(storage[k]), None, None, _BUF[k])
            v = g.load(b, storage[k], _graph.DYN)
        vals.append(v)
    r = _graph.apply_ufunc(g, uf, vals, loop_in, out_dt)
    r = g.cast(r, out_dt)
    if r.shape is None:
        r = g.broadcast(r, _graph.DYN)
    at = _graph.view_at(g, "o", oview) if oview else None
    g.store(g.buffer(("out",), _array.storage_dtype(out_dt), None, None, "out"), r, at=at)
    text = _texts[key] = g.text()
    return text


def _get_program(uf, ctx, loop_in, out_dt, layout, storage, oview=False):
    """(Compiled, Program) of one variant on ctx's device."""
    comp = _engine.compile(_array_vir(uf, loop_in, out_dt, layout, storage, oview), ctx,
                           label=f"vp.{uf.name}")
    if len(comp.launches) != 1:  # one elementwise kernel, always
        raise RuntimeError(f"vp.{uf.name}: {len(comp.launches)} launches for one ufunc")
    name = comp.launches[0][0]
    return comp, comp.programs[name]


# ------------------------------------------------------------- calling


class Ufunc:
    """A VulPy ufunc: call it like the NumPy ufunc of the same name.

    NumPy arrays in -> a NumPy array out (the work runs on the default or
    given context); any resident operand -> a resident result. `out=`
    (or, as NumPy, one more positional argument: `vp.add(a, b, c)`)
    takes a resident array or view (or a NumPy array in convenience
    mode); `sync=False` returns a vp.Handle whose wait() gives the result.

    Made once per NumPy name by the package (vp.ufunc is this class, for
    isinstance): Ufunc(name, nin, np_ufunc) with the NumPy ufunc np_ufunc
    whose dtypes it resolves and nin its number of inputs."""

    def __init__(self, name, nin, np_ufunc):
        self.__name__ = self.name = name
        self.nin = nin
        self.np = np_ufunc
        self._resolved = {}
        self._keeps_cache = {}  # dtype -> whether (dtype, ...) gives dtype (_keeps)
        self.last_program = None
        self.last_compiled = None  # the _engine.Compiled of the last call (.array_vir)
        # weak references to Launcher.ufunc of the last resident out=
        # signature and of the last one without out= (its result made in C):
        # the plan in the context's _ufast holds the launcher, so a context
        # that goes away takes its launchers (and their kernels) with it
        self._fastw = self._fastnw = None
        self.__doc__ = _doc(name, nin)

    def __repr__(self):
        return f"<vp ufunc {self.name!r}>"

    # ------------------------------------------------------------ methods
    def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False, initial=None,
               where=True):
        """numpy.<ufunc>.reduce on the device, for add, multiply, maximum,
        minimum, fmax, fmin, logical_and, logical_or, bitwise_and / or / xor
        (vp.sum, prod, max, min, nanmax, nanmin, all, any along `axis`: 0 by
        default, as NumPy's; None for every axis). Other ufuncs raise
        NotImplementedError naming themselves."""
        kind = _REDUCE_AS.get(self.name)
        if kind is None:
            raise NotImplementedError(f"vp.{self.name}.reduce is not supported (reduce is: "
                                      f"{', '.join(sorted(_REDUCE_AS))})")
        if self.name in _BITWISE_REDUCE:
            return _bitwise_reduce(self, array, axis, dtype, out, keepdims, initial, where)
        f = getattr(_array._ops, kind)
        kw = {"axis": axis, "out": out, "keepdims": keepdims}
        if where is not True:
            kw["where"] = where
        if initial is not None:
            if kind in ("all", "any"):
                raise NotImplementedError(f"vp.{self.name}.reduce: initial= is not supported")
            kw["initial"] = initial
        if dtype is not None:
            if kind in ("sum", "prod"):
                kw["dtype"] = dtype
            else:  # (a NumPy array stays one: NumPy in, NumPy out)
                array = (array if hasattr(array, "astype") else np.asarray(array)).astype(dtype)
        return f(array, **kw)

    def accumulate(self, array, axis=0, dtype=None, out=None):
        """numpy.<ufunc>.accumulate on the device, for add and multiply: the
        running sum / product along `axis` (0 by default), vp.cumsum /
        vp.cumprod (NumPy 2's dtypes: small integers and bools widen)."""
        kind = {"add": "cumsum", "multiply": "cumprod"}.get(self.name)
        if kind is None and self.name not in _DOUBLING_SCAN:
            raise NotImplementedError(f"vp.{self.name}.accumulate is not supported "
                                      f"(accumulate is: add, multiply, "
                                      f"{', '.join(_DOUBLING_SCAN)})")
        if axis is None:
            raise TypeError(f"vp.{self.name}.accumulate: axis must be an int (NumPy's)")
        if kind is not None:
            return getattr(_array._ops, kind)(array, axis, dtype, out)
        if self.name in _RUNNING:
            r = _running(self.name, array, axis, dtype, out)
            if r is not None:
                return r
        return _doubling_scan(self, array, axis, dtype, out)

    def reduceat(self, array, indices, axis=0, dtype=None, out=None):
        """numpy.<ufunc>.reduceat on the device, for the ufuncs whose reduce
        runs there (see reduce): along `axis`, the reduction of each segment
        array[indices[i]:indices[i + 1]] (array[indices[i]] alone where
        indices[i + 1] <= indices[i]; the last segment runs to the end), in
        reduce's dtype (`dtype` as reduce's); `out` a resident array of the
        result's shape. A resident `indices` is read back (the result's
        shape depends on it)."""
        if _REDUCE_AS.get(self.name) is None:
            raise NotImplementedError(f"vp.{self.name}.reduceat is not supported (reduceat is: "
                                      f"{', '.join(sorted(_REDUCE_AS))})")
        return _array._ops._reduce.reduceat(self, array, indices, axis, dtype, out)

    def at(self, a, indices, b=None):
        """numpy.<ufunc>.at for add, subtract, multiply, maximum, minimum:
        a[indices] op= b in place, unbuffered, a repeated index applied once
        per occurrence (one atomic per value on the device; _scatter.py).
        Returns None."""
        return _array._ops._scatter.at(self, a, indices, b)

    def outer(self, a, b, **kwargs):
        """numpy.<ufunc>.outer: the ufunc of every pair, r[i..., j...] =
        ufunc(a[i...], b[j...]) (a broadcast of a with b's axes added)."""
        if self.nin != 2:
            raise ValueError(f"vp.{self.name}.outer: outer product only supported for "
                             f"binary functions")
        if not isinstance(a, (_array.ndarray, _graph.Traced)) and \
                not isinstance(b, (_array.ndarray, _graph.Traced)):
            return self.np.outer(a, b, **kwargs)
        nb = np.ndim(b) if not hasattr(b, "ndim") else b.ndim
        sa = tuple(a.shape) if hasattr(a, "shape") else np.shape(a)
        a2 = a.reshape(sa + (1,) * nb) if hasattr(a, "reshape") and not isinstance(a, np.ndarray) \
            else np.reshape(a, sa + (1,) * nb)
        return self(a2, b, **kwargs)

    @property
    def glsl(self):
        """The GLSL of the kernel this ufunc ran last (None before a call)."""
        p = self.last_program
        return p.artifacts["glsl"] if p is not None else None

    @property
    def vir(self):
        """The VIR of the kernel this ufunc ran last."""
        p = self.last_program
        return p.artifacts["vir"] if p is not None else None

    def resolve(self, keys):
        """(input loop dtypes, output dtype) as NumPy resolves them."""
        r = self._resolved.get(keys)
        if r is None:
            try:
                dts = self.np.resolve_dtypes(keys + (None,))
            except Exception as e:  # numpy's own UFuncTypeError etc.
                names = ", ".join(getattr(k, "name", getattr(k, "__name__", str(k))) for k in keys)
                raise TypeError(f"vp.{self.name}: no loop for ({names}): {e}") from None
            r = (tuple(dts[:-1]), dts[-1])
            self._resolved[keys] = r
        return r

    @property
    def _fast(self):
        """Launcher.ufunc of the last resident out= signature (or None)."""
        return self._fastw() if self._fastw is not None else None

    @_fast.setter
    def _fast(self, fn):
        self._fastw = weakref.ref(fn) if fn is not None else None
        if fn is not None:
            ufunc_c_call(self)  # the next calls reach it from C (launch.c, UfuncCall)

    @property
    def _fastn(self):
        """Launcher.ufunc of the last signature without out= (or None)."""
        return self._fastnw() if self._fastnw is not None else None

    @_fastn.setter
    def _fastn(self, fn):
        self._fastnw = weakref.ref(fn) if fn is not None else None
        if fn is not None:
            ufunc_c_call(self)

    def __call__(self, *args, out=None, context=None, sync=True, where=True, dtype=None,
                 casting="same_kind"):
        if len(args) > self.nin and self.name != "cast":
            # NumPy's positional output: vp.add(a, b, c) is vp.add(a, b, out=c)
            if len(args) > self.nin + 1:
                raise TypeError(f"vp.{self.name} takes {self.nin} input(s) and 1 output, got "
                                f"{len(args)} positional arguments")
            if out is not None:
                raise TypeError(f"vp.{self.name}: cannot specify 'out' as both a positional "
                                f"and keyword argument")
            args, out = args[:self.nin], args[self.nin]
        if dtype is not None or where is not True or casting != "same_kind":
            return self._dtype_where(args, out, context, sync, where, dtype, casting)
        if out is not None and self.name != "cast":
            o = out[0] if type(out) is tuple and len(out) == 1 else out
            od = getattr(o, "dtype", None)
            # out= of another dtype than the operands' (a cheap test first):
            # NumPy computes in the loop's dtype and casts into out=
            if isinstance(od, np.dtype) and (
                    any(getattr(a, "dtype", od) != od for a in args) or
                    not self._keeps(od)) and self._casts_into(args, od):
                return self._dtype_where(args, out, context, sync, where, dtype, casting)
        if self.name in _COMPARE_FLIP and len(args) == 2 and (type(args[0]) is int or
                                                              type(args[1]) is int):
            decided = self._out_of_range_compare(args)
            if decided is not None:
                x, answer = decided
                same = globals()["equal" if answer else "not_equal"]  # x == x: True on ints
                return same(x, x, out=out, context=context, sync=sync)
        # (a ufunc with a Launcher.ufunc is called from C first: resident
        # operands of its last planned signatures are checked, given a
        # result and dispatched there, and this runs when that declines;
        # _launch.ufunc_c_call)
        cx = _arrayops.COMPLEX  # issue 19: complex operands (_complex.py)
        if cx is not None and cx.involved(args, out):
            return cx.ufunc(self, args, out, context, sync)
        if len(args) != self.nin:
            raise TypeError(f"vp.{self.name} takes {self.nin} input(s), got {len(args)}")
        if self.name == "power":
            _check_host_exponents(args)
        if out is not None:
            # an input that overlaps out= other than element for element
            # (v[1:] += v[:-1]) is read as it was before the call: NumPy's
            # rule, by a copy (the C path above only takes whole arrays of
            # one shape, which cannot overlap that way)
            o = out[0] if type(out) is tuple and len(out) == 1 else out
            if type(o) is _array.ndarray:
                args = _array.unalias(args, (o,))
            if type(o) is _array.ndarray or type(o) is np.ndarray:
                args = _to_out_shape(args, o.shape)
        # vp.jit's tracers record the call (an operand type with the hook);
        # strided views and out= views (a prefix view too: this planner's
        # vec4 kernels would write past its end) run on the array path, and
        # so do broadcasts (_apply hands them over)
        for a in args:
            t = type(a)
            if t is not _array.ndarray and t is not np.ndarray and t is not float and \
                    t is not int:
                trace = getattr(t, "_vp_trace_ufunc", None)
                if trace is not None:
                    return trace(self, args, out)
        if args and type(args[0]) is np.ndarray:
            r = self._try_fast_np(args, out, context, sync)
        else:
            r = self._try_fast(args, out, context, sync)
        return r if r is not None else _apply(self, args, out, context, sync)

    def _out_of_range_compare(self, args):
        """NumPy 2 compares an integer array with a Python int outside its
        dtype's range exactly (u8 < 300 is all True, u8 == -1 all False)
        instead of raising OverflowError. (x, the decided answer), or None
        where the int is in range or the other operand is no integer array."""
        for k in (0, 1):
            s, x = args[k], args[1 - k]
            if type(s) is not int:
                continue
            dt = getattr(x, "dtype", None)
            if not isinstance(dt, np.dtype) or dt.kind not in "iu" or isinstance(x, np.generic):
                return None
            ii = np.iinfo(dt)
            if ii.min <= s <= ii.max:
                return None
            name = self.name if k == 1 else _COMPARE_FLIP[self.name]  # as x op s
            above = s > ii.max
            return x, {"less": above, "less_equal": above, "greater": not above,
                       "greater_equal": not above, "equal": False, "not_equal": True}[name]
        return None

    def _keys(self, args):
        if len(args) != self.nin:
            raise TypeError(f"vp.{self.name} takes {self.nin} input(s), got {len(args)}")
        return tuple(a.dtype if hasattr(a, "dtype") and not isinstance(a, np.generic)
                     else _dtype_key(a) for a in args)  # vp.jit's tracers have .dtype

    def _keeps(self, dt):
        """Whether operands of dtype dt give a result of dtype dt (add: yes;
        greater, isnan: bool), cached per dtype."""
        k = self._keeps_cache.get(dt)
        if k is None:
            try:
                k = self.np is None or self.np.resolve_dtypes((dt,) * self.nin + (None,))[-1] == dt
            except Exception:
                k = True  # no loop: the call says so
            self._keeps_cache[dt] = k
        return k

    def _casts_into(self, args, od):
        """Whether out= of dtype od differs from the result NumPy's loop
        gives these operands (then the call casts into it)."""
        if self.np is None:
            return False
        try:
            return self.np.resolve_dtypes(self._keys(args) + (None,))[-1] != od
        except Exception:  # no loop: the call below says so in its own words
            return False

    def _dtype_where(self, args, out, context, sync, where, dtype, casting="same_kind"):
        """NumPy's dtype= (the loop whose output is `dtype`, inputs cast to
        it by `casting`), casting= (the rule for inputs into the loop and the
        result into out=: NumPy's resolve_dtypes checks both, its
        UFuncTypeError as a TypeError), out= of another dtype than the
        loop's (computed in the loop's, cast into out=, as NumPy) and where=
        (out= keeps its values where the mask is False; without out= those
        elements are unspecified, as NumPy leaves them uninitialized: VulPy
        gives the computed ones)."""
        if casting not in _CASTINGS:
            raise ValueError(f"casting must be one of 'no', 'equiv', 'safe', 'same_kind', or "
                             f"'unsafe' (got {casting!r})")
        o = out[0] if type(out) is tuple and len(out) == 1 else out
        od = getattr(o, "dtype", None) if o is not None else None
        od = od if isinstance(od, np.dtype) else None
        rdt = None
        if (dtype is not None or casting != "same_kind" or od is not None) and \
                self.np is not None:
            keys = self._keys(args)
            kw = {} if dtype is None else {"signature": (None,) * self.nin + (np.dtype(dtype),)}
            try:
                dts = self.np.resolve_dtypes(keys + (od,), casting=casting, **kw)
            except Exception as e:  # numpy's own UFuncTypeError etc.
                what = f"dtype={np.dtype(dtype).name}: " if dtype is not None else ""
                raise TypeError(f"vp.{self.name}: {what}{e}") from None
            args = tuple(a if isinstance(a, (bool, int, float)) or getattr(a, "dtype", None) == dt
                         else (a.astype(dt) if hasattr(a, "astype") else np.asarray(a, dt))
                         for a, dt in zip(args, dts))
            rdt = dts[-1]
        if od is not None and rdt is not None and od != rdt:
            r = self(*args, context=context)
            r = r.astype(od) if hasattr(r, "astype") else np.asarray(r, od)
            if where is True:
                o[...] = r
                return out if type(out) is tuple else o
            return globals()["where"](where, r, o, out=o, context=context, sync=sync)
        if where is True:
            return self(*args, out=out, context=context, sync=sync)
        r = self(*args, context=context)
        if out is None:
            return r
        return globals()["where"](where, r, o, out=o, context=context, sync=sync)

    def _try_fast_np(self, args, out, context, sync):
        """The common convenience call - C-contiguous NumPy arrays of one
        shape, already of the loop's dtypes - once _apply has planned the
        same signature: the inputs' buffers (imported or staged), a pooled
        output, a dispatch. None: take the slow path."""
        if out is not None:
            return None
        shape = None
        sig = ["np", self.name]
        for a in args:
            if type(a) is not np.ndarray or not a.flags.c_contiguous:
                return None
            if shape is None:
                shape = a.shape
            elif a.shape != shape:
                return None
            sig.append(a.dtype)
        sig.append(shape)
        ctx = _context.resolve(context)
        plan = ctx._ufast.get(tuple(sig))
        if plan is None:
            return None
        kern, push, gx, gy, out_dt, n, osize, okind = plan
        binds = [ctx._host_input(a, allow_import=sync) for a in args]
        obuf = ctx._scratch(okind, osize)
        binds.append(obuf)
        ticket = kern.dispatch(binds, push, gx, gy, 1, True, sync)
        if sync:
            return _numpy_result(ctx, obuf, out_dt, n, shape)
        return Handle(ticket, lambda: _numpy_result(ctx, obuf, out_dt, n, shape))

    def _try_fast(self, args, out, context, sync):
        """The common resident call - arrays of one shape on one context, and
        Python scalars - as a dictionary lookup and a dispatch, once _apply
        has planned the same signature. None: take the slow path."""
        ctx = shape = a0 = None
        sig = [self.name]
        for a in args:
            t = type(a)
            if t is _array.ndarray:
                if not a._whole:  # a view: its offset and step
                    return _view_fast(self, args, out, context, sync)
                if a0 is None:
                    a0, ctx, shape = a, a._ctx, a.shape
                elif a._ctx is not ctx:
                    return None
                elif a.shape != shape:  # a broadcast: its divisors
                    return _view_fast(self, args, out, context, sync)
                sig.append(a.dtype)
            elif t is float or t is int or t is bool:
                sig.append(t)
            else:
                return None
        if a0 is None or (context is not None and context is not ctx):
            return None
        if out is not None and (type(out) is not _array.ndarray or out._ctx is not ctx or
                                out.shape != shape or not out._whole):
            return _view_fast(self, args, out, context, sync)
        sig.append(shape)
        sig.append(out is None)
        plan = ctx._ufast.get(tuple(sig))
        if plan is None:
            return None
        kern, push, gx, gy, out_dt, scalars, packer, fast = plan
        # out= that is also an input (x += y, vp.add(x, y, out=x)) is read:
        # its owed zero fill (a new vp.zeros / vp.empty) must not be dropped
        reads_out = out is not None and any(
            type(a) is _array.ndarray and a._buf is out._buf for a in args)
        if fast is not None:  # the C path takes this call and the next ones
            w = self._fastw if out is not None else self._fastnw
            tried = w is not None and w() is fast and context is None
            if out is not None:
                self._fast = fast
            else:
                self._fastn = fast
            if not tried:  # the C call tried another signature's launcher
                r = fast(args, out, sync)
                if r is not NotImplemented:
                    return r
        if scalars:  # push constants that change with every call
            values = dict(push)
            for k, name in scalars:
                values[name] = args[k]
            if self.name == "power" and out_dt.kind in "iu" and scalars[-1][0] == 1 and \
                    args[1] < 0:
                return None  # the slow path raises NumPy's error (python_int)
            try:
                push = packer.pack(values)
            except (TypeError, OverflowError):
                return None  # the slow path raises NumPy's error
        if out is None:
            out = _array._result(shape, out_dt, a0._buf.kind, ctx)  # written whole: not zeroed
        elif out.dtype != out_dt:
            return None  # the slow path says what is wrong
        elif out._whole and not reads_out:  # every element written, none read: a new
            out._buf.will_write(out.nbytes)   # out='s zero fill is moot
        binds = [a._buf for a in args if type(a) is _array.ndarray]
        binds.append(out._buf)
        if sync:  # eager: submitted, not waited for; host reads wait (issue 21)
            kern.dispatch(binds, push, gx, gy, 1, True, None)
            return out
        return Handle(kern.dispatch(binds, push, gx, gy, 1, True, False), result=out)


# the float math ufuncs (their docstrings name NumPy's integer-to-float rule)
_MATH = frozenset(("sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
                   "arcsinh", "arccosh", "arctanh", "exp", "exp2", "expm1", "log", "log2",
                   "log10", "log1p", "sqrt", "cbrt"))
_KIND_NAMES = {"f": "float32, float64", "i": "int32, int64", "u": "uint32, uint64",
               "b": "bool"}
_KIND_OF = {"f": "f", "d": "f", "b": "i", "h": "i", "i": "i", "l": "i", "q": "i", "B": "u",
            "H": "u", "I": "u", "L": "u", "Q": "u", "?": "b"}


def _doc(name, nin):
    """The docstring of ufunc `name` (help(vp.sin)): arguments, dtypes,
    errors and an example."""
    args = "x" if nin == 1 else "x1, x2" if nin == 2 else "x1, x2, x3"
    npu = getattr(np, name, None)
    kinds = {_KIND_OF.get(t[0]) for t in getattr(npu, "types", ())}
    loops = ", ".join(_KIND_NAMES[k] for k in "fiub" if k in kinds) if kinds else None
    if name in _MATH:
        loops = "float32, float64 (int32 and bool inputs compute in float64, as NumPy's)"
    example = (f"vp.{name}(np.float32([0.5, 1.0]))" if nin == 1 else
               f"vp.{name}(np.float32([1.0, 2.0]), 3.0)")
    return f"""vp.{name}({args}, /, out=None, context=None, sync=True, where=True, dtype=None,
    casting='same_kind')

numpy.{name} on the GPU, elementwise, with NumPy's semantics (dtype
promotion, broadcasting, NaN handling, integer division by zero gives 0).

Arguments:
  {args:<12} NumPy arrays, resident vp.ndarrays (views included), Python
               or NumPy scalars, or lists.
  out          a resident vp.ndarray (or, when no input is resident, a
               C-contiguous NumPy array) of the result's shape; a dtype
               other than the loop's is cast into as casting= allows; it
               may overlap an input (the result is as if the inputs were
               copied first).
  context      the vp.Context to run on when no input is resident.
  sync         False: return a vp.Handle; .wait() gives the result.
  where        a bool mask (broadcast to the result): out= keeps its values
               where it is False (without out= they are unspecified).
  dtype        the loop's output dtype, as NumPy's: the inputs are cast to
               the loop NumPy picks (by casting=, else TypeError).
  casting      NumPy's rule for the inputs into the loop and the result into
               out=: 'no', 'equiv', 'safe', 'same_kind' (the default) or
               'unsafe'.

Dtypes: as NumPy resolves them (numpy.{name}.resolve_dtypes; Python scalars
are weak, NEP 50). Loops:
  {loops or "as NumPy's"}
int64, uint64 and float64 need the device's int64 / float64 features.

Returns a NumPy array when every input is a NumPy array or scalar
(convenience mode), else a resident vp.ndarray (or out=).

Errors: TypeError (no loop for the dtypes, a dtype the GPU cannot use, the
wrong number of inputs, a cast casting= refuses: NumPy's UFuncTypeError
text), ValueError (shapes that do
not broadcast, out= of another shape, operands on different contexts),
OverflowError (a Python int the loop dtype cannot hold; comparisons decide
an out-of-range int exactly, as NumPy 2), vp.FeatureError
(a 64-bit dtype the device lacks).

Example:
    import numpy as np, vulpy as vp
    y = {example}          # NumPy in, NumPy out
    x = vp.asarray(np.arange(4, dtype=np.float32))
    vp.{name}({", ".join(["x"] * nin)}, out=x)                   # resident, in place
"""


_dtype_key = _arrayops.dtype_key
# s op x read as x op' s, for the comparisons (NumPy 2's out-of-range ints)
_COMPARE_FLIP = {"less": "greater", "less_equal": "greater_equal", "greater": "less",
                 "greater_equal": "less_equal", "equal": "equal", "not_equal": "not_equal"}


def _apply(uf, args, out, context, sync, loop=None):
    ctx = _array.common_context(f"vp.{uf.name}", args)
    # out=, else the first resident operand: the result is resident
    resident = out if isinstance(out, _array.ndarray) else \
        next((a for a in args if isinstance(a, _array.ndarray)), None)
    if resident is out and out is not None:
        if ctx is not None and out._ctx is not ctx:
            raise _array.mixed_contexts(f"vp.{uf.name} (out=)", ctx, out._ctx)
        ctx = out._ctx
    if ctx is None:
        ctx = _context.resolve(context)
    elif context is not None and context is not ctx:
        raise ValueError(f"vp.{uf.name}: context= differs from the operands' context")

    # dtypes
    if loop is None:
        keys = tuple(_dtype_key(a) for a in args)
        loop_in, out_dt = uf.resolve(keys)
    else:
        loop_in, out_dt = loop
    if any(dt in _SMALL for dt in loop_in + (out_dt,)) or any(
            getattr(a, "dtype", None) in _SMALL for a in args):
        # issue 19: int8/uint8/int16/uint16/float16 run on the array path
        # (8/16-bit storage, or words where the device lacks it); this
        # planner's kernel-language templates are 32/64-bit only
        return _arrayops.ufunc(uf, args, out, context, sync)
    for dt in loop_in + (out_dt,):
        if dt not in _DTYPES:
            names = ", ".join(d.name for d in _array.DTYPES)
            raise TypeError(f"vp.{uf.name}: dtype {dt.name} is not supported on the GPU "
                            f"(supported: {names})")
        feat = _graph.FEATURE.get(dt)
        if feat is not None and not ctx.has(feat):
            ctx.require(feat, f"vp.{uf.name} on {dt.name}")

    # operands: host values become arrays or push scalars
    ops, shapes = [], []
    for k, a in enumerate(args):
        if isinstance(a, _array.ndarray):
            ops.append(a)
            shapes.append(a.shape)
        elif isinstance(a, (int, float)) and not isinstance(a, np.generic):
            ops.append(_host_scalar(uf, a, loop_in[k], k))
            shapes.append(())
        else:
            arr = np.asarray(a)
            if arr.dtype.kind not in "fiub":
                raise TypeError(f"vp.{uf.name}: argument {k + 1} has dtype {arr.dtype.name}, "
                                f"which the GPU cannot use")
            ops.append(arr)
            shapes.append(arr.shape)
    try:
        oshape = np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(f"vp.{uf.name}: operands could not be broadcast together with shapes "
                         f"{' '.join(str(s) for s in shapes)}") from None
    n = math.prod(oshape)
    cpu_big = n > _array.CPU_VIEW_MAX and ctx.kind == "cpu"
    codes = {}
    for k, (s, o) in enumerate(zip(shapes, ops)):
        if type(o) is _array.ndarray and (s != oshape or not o._whole) and \
                not (s != oshape and _one_element(o, s)):
            codes[k] = _operand_view(o, oshape, cpu_big)
    if all(s == () for s in shapes) or any(
            s != oshape and (s != () or isinstance(o, _array.ndarray)) and
            not _one_element(o, s) and codes.get(k) is None
            for k, (s, o) in enumerate(zip(shapes, ops))) or \
            any(codes.get(k, 1) is None for k in range(len(ops))):
        # other broadcasts and scalars alone: the array path, static
        # shapes; host scalars and 0-d NumPy arrays stay push constants
        # here, resident arrays of one element (x - vp.mean(x)) are read
        # on the device, and a resident block broadcast (x - x.mean(axis=0))
        # is a run-time view
        return _arrayops.ufunc(uf, args, out, context, sync)

    # the output
    host_out = None
    if out is not None:
        if isinstance(out, tuple) and len(out) == 1:
            out = out[0]
        if isinstance(out, _array.ndarray):
            if out.shape != oshape:
                raise _array.out_shape_error(f"vp.{uf.name}", out, oshape)
            if out.dtype != out_dt:
                raise _array.out_dtype_error(f"vp.{uf.name}", out, out_dt)
            dst = out
        elif isinstance(out, np.ndarray):
            if resident is not None:
                raise TypeError(f"vp.{uf.name}: out= must be a resident vp.ndarray when an "
                                "input is resident")
            if out.shape != oshape:
                raise _array.out_shape_error(f"vp.{uf.name}", out, oshape)
            if not out.flags.c_contiguous:
                raise ValueError(f"vp.{uf.name}: out= must be C-contiguous")
            host_out = out
            dst = None
        else:
            raise TypeError(f"vp.{uf.name}: out= must be a vp.ndarray or a NumPy array, "
                            f"not {type(out).__name__}")
    else:
        dst = None

    if n == 0:
        if resident is not None:
            return dst if dst is not None else _array.empty(oshape, out_dt, context=ctx)
        res = host_out if host_out is not None else np.empty(oshape, out_dt)
        return res if sync else Handle(None, result=res)

    # buffers and layout
    scratch = []
    bufs, layout, storage = [], [], []
    views = {}
    for k, a in enumerate(ops):
        if isinstance(a, _array.ndarray):
            if k in codes:  # a view, or a broadcast as a block (_array.view_code)
                L, vals = codes[k]
                _array.put_view(views, str(k), vals)
                bufs.append(a._buf)
                storage.append(a.dtype)
                layout.append(L)
                continue
            if a.shape != oshape:  # one element (_one_element)
                bufs.append(a._buf)
                storage.append(a.dtype)
                layout.append("b")
                continue
            buf, st = a._buf, a.dtype
        elif isinstance(a, np.ndarray):
            if a.ndim == 0:
                v = a.astype(loop_in[k]) if loop_in[k] != _BOOL else a.astype(np.bool_)
                layout.append("s")
                storage.append(loop_in[k])
                bufs.append(v.item() if loop_in[k] != _BOOL else int(v.item()))
                continue
            if loop_in[k] == _BOOL:  # truthiness, as NumPy casts to bool
                host = np.ascontiguousarray(a.astype(np.bool_).astype(np.uint32))
            else:
                host = np.ascontiguousarray(a, dtype=loop_in[k])
            # the caller's own array (not a converted temporary) is read in
            # place when it can be; an asynchronous call takes a copy, so the
            # caller may change the array before waiting
            buf = ctx._host_input(host, allow_import=sync and host is args[k])
            scratch.append(buf)
            st = loop_in[k]
        bufs.append(buf)
        storage.append(st)
        layout.append("c")  # of the output's shape (broadcasts left above)

    if dst is None:
        if resident is not None:
            dst = _array._result(oshape, out_dt, resident.memory, ctx)  # written whole
            obuf = dst._buf
        else:
            osz = max(n * _array.storage_dtype(out_dt).itemsize, 16)
            okind = "cached" if not ctx.uma else "device"
            obuf = ctx._scratch(okind, osz)
            scratch.append(obuf)
    else:
        obuf = dst._buf
    oview = None
    if dst is not None and not dst._whole:  # out= a view: written through its offset and step
        _array.check_writable(dst, f"vp.{uf.name}")
        ov = _out_view(dst, cpu_big)
        if ov is None:
            _release(ctx, scratch)
            return _arrayops.ufunc(uf, args, out, context, sync)
        oview = ov[0]
        _array.put_view(views, "o", ov[1])

    # the variant: array VIR over the dynamic extent n (one compile, every n)
    comp, prog = _get_program(uf, ctx, tuple(loop_in), out_dt, tuple(layout), tuple(storage),
                              oview)
    kern = prog.native(ctx)
    uf.last_program = prog
    uf.last_compiled = comp

    # push constants and grid
    gx, gy, _ = comp.grid(0, n)
    values = {"n": n}
    values.update(views)
    for k, L in enumerate(layout):
        if L == "s":
            values[f"s{k}"] = bufs[k]
    push = prog.packer.pack(values) if prog.packer.names else None
    by_name = {_BUF[k]: b for k, b in enumerate(bufs) if layout[k] != "s"}
    by_name["out"] = obuf
    names = [b["name"] for b in prog.buffers]
    binds = [by_name[b] for b in names]
    # a resident call with no staged host input is eager on its first call
    # too (submitted, not waited for; host reads wait per buffer)
    eager = sync and resident is not None and not scratch
    ticket = kern.dispatch(binds, push, gx, gy, 1, True, None if eager else sync)
    # the fast paths bind the array operands in order, then the result: a
    # kernel that reads each of them (an isnan of ints reads none)
    whole = names == [_BUF[k] for k, L in enumerate(layout) if L != "s"] + ["out"]
    if not whole:
        pass  # every call plans (rare: results that ignore an operand)
    elif views or "b" in layout:
        # views, in or out, and broadcasts: the signature of dtypes and layouts (not of
        # shapes, offsets or steps, which are this call's push constants)
        # takes the next such call (_view_fast)
        if not scratch and loop is None and resident is not None and all(
                (L != "s" and type(a) is _array.ndarray) or
                (L == "s" and type(a) in (float, int, bool)) for L, a in zip(layout, args)):
            key = ("view", uf.name) + tuple(
                (a.dtype, L) if L != "s" else type(a) for L, a in zip(layout, args)) + (
                oview, out is None)
            ctx._ufast[key] = (comp, kern, prog, tuple(loop_in), out_dt)
    elif not scratch and loop is None and resident is not None and oview is None and all(
            (L == "c" and type(a) is _array.ndarray) or
            (L == "s" and type(a) in (float, int, bool)) for L, a in zip(layout, args)):
        # resident arrays of the output's shape and Python scalars: remember
        # the whole decision for the next call with the same signature
        sig = (uf.name,) + tuple(a.dtype if type(a) is _array.ndarray else type(a)
                                 for a in args) + (oshape, out is None)
        scalars = [(k, f"s{k}") for k, L in enumerate(layout) if L == "s"]
        fast = None
        codes = _scalar_fields(prog, scalars)
        if uf.name == "power" and out_dt.kind in "iu" and scalars:
            codes = None  # the C path does not check the exponent's sign (python_int)
        if codes is not None and len(args) < 64 and (push is None or len(push) <= 512):
            # the C path of the next such call (Launcher.ufunc): out= given,
            # or a result it makes (fastarray.c); scalars packed per call
            launcher = _native.ext().Launcher(kern, _array.ndarray, Handle, tuple(
                a.dtype if type(a) is _array.ndarray else type(a) for a in args) + (out_dt,),
                (), len(push) if push else 0)
            launcher.as_ufunc(push or b"", gx, gy, tuple(oshape), codes,
                              _array.storage_dtype(out_dt))
            fast = launcher.ufunc
            if out is not None:
                uf._fast = fast
            else:
                uf._fastn = fast
        ctx._ufast[sig] = (kern, values if scalars else push, gx, gy, out_dt, scalars,
                           prog.packer, fast)
    elif resident is None and out is None and loop is None and all(
            L == "c" and type(a) is np.ndarray and a.dtype == lt and lt != _BOOL and
            a.flags.c_contiguous for L, a, lt in zip(layout, args, loop_in)):
        # NumPy arrays of the output's shape, no conversion: the convenience
        # fast path (Ufunc._try_fast_np) takes the next call
        sig = ("np", uf.name) + tuple(a.dtype for a in args) + (oshape,)
        ctx._ufast[sig] = (kern, push, gx, gy, out_dt, n, osz, okind)

    if resident is not None:
        if sync:
            _release(ctx, scratch)
            return dst
        return Handle(ticket, lambda: (_release(ctx, scratch), dst)[1])

    def finish():
        sdt = _array.storage_dtype(out_dt)
        if host_out is not None:
            if host_out.dtype == sdt:  # straight into the caller's array
                obuf.download(host_out)
                return host_out
            res = np.empty(oshape, sdt)
            obuf.download(res)
            np.copyto(host_out, res.astype(np.bool_) if out_dt == _BOOL else res,
                      casting="same_kind")
            return host_out
        return _numpy_result(ctx, obuf, out_dt, n, oshape)

    return finish() if sync else Handle(ticket, finish)


def _to_out_shape(args, oshape):
    """NumPy broadcasts the inputs against out= too (vp.add(row, 1, out=m)
    fills every row of m): array inputs of a smaller broadcast shape become
    broadcast views of out='s shape. Inputs that do not broadcast to it are
    left for the shape check to name."""
    same = False
    for a in args:  # the common call first: arrays of out='s shape and Python scalars
        t = type(a)
        if t is _array.ndarray or t is np.ndarray:
            if a.shape != oshape:
                break
            same = True
        elif t is not float and t is not int and t is not bool:
            break
    else:
        if same:
            return args
    shapes = [np.shape(a) for a in args]
    try:
        if np.broadcast_shapes(*shapes, oshape) != oshape or \
                np.broadcast_shapes(*shapes) == oshape:
            return args
    except ValueError:
        return args
    out = []
    for a, s in zip(args, shapes):
        if type(a) is _array.ndarray:
            pad = len(oshape) - len(s)
            st = [0] * pad + [0 if n == 1 else t for n, t in zip(s, _array.elem_strides(a))]
            a = _indexing.strided_view(a, oshape, a._offset, st)
        elif s != () or isinstance(a, (np.ndarray, np.generic)):
            a = np.broadcast_to(a, oshape)
        out.append(a)
    if all(s == () for s in shapes) and out and not isinstance(out[0], np.ndarray):
        return args  # Python scalars alone have no array to broadcast
    return tuple(out)


# ufunc.reduce: the vp reduction of each ufunc that has one
_REDUCE_AS = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
              "fmax": "nanmax", "fmin": "nanmin", "logical_and": "all", "logical_or": "any",
              "bitwise_and": "bitwise_and", "bitwise_or": "bitwise_or",
              "bitwise_xor": "bitwise_xor"}
_BITWISE_REDUCE = ("bitwise_and", "bitwise_or", "bitwise_xor")


# ufunc.accumulate by recursive doubling (log2 n launches of the ufunc)
_DOUBLING_SCAN = ("maximum", "minimum", "fmax", "fmin", "logical_and", "logical_or",
                  "bitwise_and", "bitwise_or", "bitwise_xor")


_RUNNING = ("maximum", "minimum", "fmax", "fmin", "logical_and", "logical_or")
_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


def _running(name, array, axis, dtype, out):
    """maximum / minimum (fmax, fmin, logical_or, logical_and).accumulate
    of a real array as one scan (lower-arrays' array.cummax / cummin:
    one kernel, tiled past 1024 elements a line); None for complex input,
    which the doubling scan below takes. fmax / fmin ignore NaNs: the
    running max of NaN as -inf (+inf), NaN while every element so far is
    one. The logical ones (and bools) scan bytes 0 / 1 (max: or, min:
    and)."""
    a = array if hasattr(array, "ndim") else _array._ops.asarray(array)
    if dtype is not None:
        a = a.astype(dtype)
    if np.dtype(a.dtype).kind == "c":
        return None
    if a.ndim == 0:
        raise ValueError("cannot accumulate on a scalar")
    ax = operator.index(axis)
    if not -a.ndim <= ax < a.ndim:
        raise np.exceptions.AxisError(ax, a.ndim)
    reduce = _array._ops._reduce.reduce
    kind = "cummax" if name in ("maximum", "fmax", "logical_or") else "cummin"
    if name in ("logical_or", "logical_and") or np.dtype(a.dtype) == np.bool_:
        r = reduce(kind, not_equal(a, 0).astype(np.uint8), ax)
        r = not_equal(r, 0)
    elif name in ("fmax", "fmin") and np.dtype(a.dtype).kind == "f":
        nan = isnan(a)
        fill = -np.inf if name == "fmax" else np.inf
        r = reduce(kind, where(nan, a.dtype.type(fill), a), ax)
        allnan = reduce("cummin", nan.astype(np.uint8), ax)
        r = where(not_equal(allnan, 0), a.dtype.type(np.nan), r)
    else:
        r = reduce(kind, a, ax)
    if out is not None:
        out[...] = r
        return out
    return r


def _doubling_scan(uf, array, axis, dtype, out):
    """uf.accumulate for an associative uf without a scan kernel of its own
    (np.maximum.accumulate, the running max): Hillis-Steele doubling, r[k:]
    = uf(r[k:], r[:-k]) for k = 1, 2, 4, ..., each step a new array (so no
    step reads what it writes); the result keeps the operand's dtype
    (logical ones: bool), as NumPy's."""
    a = array if hasattr(array, "ndim") else _array._ops.asarray(array)
    if dtype is not None:
        a = a.astype(dtype)
    if a.ndim == 0:
        raise ValueError("cannot accumulate on a scalar")
    ax = int(axis)
    if not -a.ndim <= ax < a.ndim:
        raise np.exceptions.AxisError(ax, a.ndim)
    ax %= a.ndim
    n = a.shape[ax]
    pre = (slice(None),) * ax
    r = a if uf.name not in ("logical_and", "logical_or") else a.astype(_BOOL)
    k = 1
    while k < n:
        step = uf(r[pre + (slice(k, None),)], r[pre + (slice(0, n - k),)])
        r = _array._ops.concatenate([r[pre + (slice(0, k),)], step], axis=ax)
        k *= 2
    if r is a:
        r = a.copy()
    if out is not None:
        out[...] = r
        return out
    return r


def _bitwise_reduce(uf, array, axis, dtype, out, keepdims, initial, where):
    """bitwise_and / or / xor .reduce: halving the axis by the ufunc itself
    (log2 n launches; NumPy's identity for an empty axis: -1, 0, 0)."""
    if where is not True:
        raise NotImplementedError(f"vp.{uf.name}.reduce: where= is not supported")
    a = array if hasattr(array, "ndim") else _array._ops.asarray(array)
    if dtype is not None:
        a = a.astype(dtype)
    if a.dtype.kind not in "biu":
        raise TypeError(f"vp.{uf.name}.reduce: ufunc '{uf.name}' not supported for the input "
                        f"type {a.dtype.name}")
    axes = tuple(range(a.ndim)) if axis is None else \
        tuple(int(x) % a.ndim for x in (axis if isinstance(axis, (tuple, list)) else (axis,)))
    for ax in axes:
        if a.ndim and not -a.ndim <= ax < a.ndim:
            raise np.exceptions.AxisError(ax, a.ndim)
    r = a
    for ax in sorted(axes, reverse=True):
        n = r.shape[ax]
        if n == 0:
            ident = {"bitwise_and": -1, "bitwise_or": 0, "bitwise_xor": 0}[uf.name]
            if r.dtype.kind == "b":
                ident = bool(ident)
            elif r.dtype.kind == "u":
                ident = np.iinfo(r.dtype).max if ident == -1 else 0
            shape = r.shape[:ax] + r.shape[ax + 1:]
            r = _array._ops.full(shape, ident, dtype=r.dtype, context=r._ctx)
            continue
        pre = (slice(None),) * ax
        while n > 1:
            h = n // 2
            head = uf(r[pre + (slice(0, h),)], r[pre + (slice(h, 2 * h),)])
            r = _array._ops.concatenate([head, r[pre + (slice(2 * h, n),)]], axis=ax) \
                if n % 2 else head
            n = r.shape[ax]
        r = r[pre + (0,)]
    if initial is not None:
        r = uf(r, initial)
    if keepdims:
        r = r.reshape(tuple(1 if i in axes else d for i, d in enumerate(a.shape)))
    if out is not None:
        out[...] = r
        return out
    return r


def _check_host_exponents(args):
    """NumPy's ValueError for an integer power whose exponents, a NumPy
    array on the host, hold a negative one (resident exponents cannot be
    read without a wait: there the kernel gives the truncated 1 / a^|n|,
    docs/python-api.md)."""
    b = args[1]
    if not isinstance(b, (np.ndarray, np.generic)) or b.dtype.kind not in "iu":
        return
    a = args[0]
    kind = a.dtype.kind if hasattr(a, "dtype") else ("i" if isinstance(a, int) else "f")
    if kind in "biu" and b.dtype.kind == "i" and (b < 0).any():
        raise ValueError("vp.power: Integers to negative integer powers are not allowed.")


def _host_scalar(uf, a, lt, k):
    """Python scalar `a` (argument k) at its loop dtype lt, as a 0-d NumPy
    array: NumPy refuses values the loop type cannot hold."""
    if lt == _BOOL:
        return np.array(int(bool(a)), np.uint32)
    if type(a) is int and lt.kind in "iu":
        return _arrayops.python_int(uf.name, a, lt, k)
    try:
        return np.array(a, dtype=lt)
    except OverflowError as e:
        raise OverflowError(f"vp.{uf.name}: argument {k + 1}: {e}") from None


def _push_scalar(v, lt):
    """The push value of 0-d `v` of loop dtype lt (bool: 0 or 1)."""
    return int(v.astype(np.bool_).item()) if lt == _BOOL else v.astype(lt).item()


def _view_fast(uf, args, out, context, sync):
    """A resident call with a view among its operands or as out=, or a
    broadcast - arrays that _array.view_code describes, and Python scalars -
    once _apply has planned the same dtypes and layouts: the offsets,
    steps, divisors and extent are this call's push constants of the same
    kernel. None: take the slow path."""
    ctx = shape = a0 = None
    for a in args:
        t = type(a)
        if t is _array.ndarray:
            if a0 is None:
                a0, ctx, shape = a, a._ctx, a.shape
            elif a._ctx is not ctx:
                return None
            elif a.shape != shape:
                try:
                    shape = np.broadcast_shapes(shape, a.shape)
                except ValueError:
                    return None  # the slow path says what is wrong
        elif t is not float and t is not int and t is not bool:
            return None
    if a0 is None:
        return None
    if context is not None and context is not ctx:
        return None
    n = math.prod(shape)
    cpu_big = n > _array.CPU_VIEW_MAX and ctx.kind == "cpu"
    key = ["view", uf.name]
    vals = {}
    for k, a in enumerate(args):
        if type(a) is not _array.ndarray:
            key.append(type(a))
        elif a.shape != shape and _one_element(a, a.shape):
            key.append((a.dtype, "b"))
        elif a.shape != shape or not a._whole:  # as _apply's codes
            vc = _operand_view(a, shape, cpu_big)
            if vc is None:
                return None
            _array.put_view(vals, str(k), vc[1])
            key.append((a.dtype, vc[0]))
        else:
            key.append((a.dtype, "c"))
    if type(out) is tuple and len(out) == 1:
        out = out[0]
    oview = None
    if out is not None:
        if type(out) is not _array.ndarray or out._ctx is not ctx or out.shape != shape:
            return None
        if not out._whole:
            _array.check_writable(out, f"vp.{uf.name}")
            ov = _out_view(out, cpu_big)
            if ov is None:
                return None
            oview = ov[0]
            _array.put_view(vals, "o", ov[1])
    key.append(oview)
    key.append(out is None)
    plan = ctx._ufast.get(tuple(key))
    if plan is None or n == 0:
        return None
    comp, kern, prog, loop_in, out_dt = plan
    if out is not None and out.dtype != out_dt:
        return None  # the slow path says what is wrong
    for k, a in enumerate(args):
        if type(a) is not _array.ndarray:
            vals[f"s{k}"] = _push_scalar(_host_scalar(uf, a, loop_in[k], k), loop_in[k])
    vals["n"] = n
    gx, gy, _ = comp.grid(0, n)
    pk = prog.packer
    push = pk.pack({name: vals[name] for name in pk.names}) if pk.names else None
    if out is None:
        out = _array._result(shape, out_dt, a0.memory, ctx)  # written whole
    binds = [a._buf for a in args if type(a) is _array.ndarray]
    binds.append(out._buf)
    uf.last_program, uf.last_compiled = prog, comp
    if sync:  # eager: submitted, not waited for; host reads wait
        kern.dispatch(binds, push, gx, gy, 1, True, None)
        return out
    return Handle(kern.dispatch(binds, push, gx, gy, 1, True, False), result=out)


def _operand_view(a, oshape, cpu_big):
    """_array.view_code of operand `a` read at oshape, None where it takes
    the array path: more than two axis terms, or divisors per element on
    a CPU device past _array.CPU_VIEW_MAX elements (cpu_big)."""
    vc = _array.view_code(a, oshape)
    return None if vc is None or (cpu_big and vc[0] not in "vw") else vc


def _out_view(o, cpu_big=False):
    """_operand_view of out= view `o`, None also where an element is
    written twice (a zero step over more than one element: the array path
    refuses it)."""
    ov = _operand_view(o, o.shape, cpu_big)
    if ov is None or ov[0] not in "vw" and ov[0][0] != "m" or (
            ov[1].get("t") == 0 and o._size > 1):
        return None
    return ov


def _one_element(a, shape):
    """Whether operand `a` (of `shape`) is a whole resident array of one
    element, which a dynamic-extent kernel broadcasts from the device (no
    host read, no compile per length)."""
    return type(a) is _array.ndarray and math.prod(shape) == 1 and a._offset == 0 and \
        a._estrides is None


def _scalar_fields(prog, scalars):
    """((operand index, struct code, push offset), ...) of a plan's Python
    scalar operands, as Launcher.as_ufunc packs them; None when one has a
    type the C path does not pack (it then serves no call)."""
    if not scalars:
        return ()
    fields = {f["name"]: f for f in prog.manifest["push"]}
    out = []
    for k, name in scalars:
        f = fields.get(name)
        code, lanes = (f["code"], f["lanes"]) if f else (None, 0)
        if code not in ("f", "d", "i", "I", "q", "Q") or lanes != 1:
            return None
        out.append((k, code, f["offset"]))
    return tuple(out)


def _numpy_result(ctx, obuf, out_dt, n, oshape):
    """The NumPy result of a convenience call from its output buffer."""
    sdt = _array.storage_dtype(out_dt)
    if obuf.mapped and out_dt != _BOOL and ctx.zero_copy_results and \
            obuf.size <= ctx._ZERO_COPY_MAX:
        # The result IS the mapped output buffer (host-cached memory): no
        # copy, no page faults. The buffer returns to the context's pool
        # when the last view of it dies.
        return np.frombuffer(obuf, sdt, n).reshape(oshape)
    res = np.empty(oshape, sdt)
    if n:
        obuf.download(res)
    return res.astype(np.bool_) if out_dt == _BOOL else res


def _release(ctx, bufs):
    for b in bufs:
        ctx._release(b)


def cast(a, out):
    """Converts resident `a` into resident `out` (astype)."""
    _apply(_CAST, (a,), out, None, True, loop=((a.dtype,), out.dtype))
    return out


class _Where(Ufunc):
    def __call__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs:
            # numpy.where(condition): the indices of its nonzero elements
            return _array._ops._stats.nonzero(args[0])
        if len(args) == 2:
            raise TypeError("vp.where: either both or neither of x and y should be given")
        return super().__call__(*args, **kwargs)

    def resolve(self, keys):
        r = self._resolved.get(keys)
        if r is None:
            dt = np.result_type(*(k if isinstance(k, np.dtype) else k(0) for k in keys[1:]))
            r = ((_BOOL, dt, dt), dt)
            self._resolved[keys] = r
        return r


class _Clip(Ufunc):
    """clip(a, lo, hi) = minimum(maximum(a, lo), hi), NaN-propagating."""

    def __call__(self, a, a_min=None, a_max=None, out=None, *, min=None,  # noqa: A002
                 max=None, context=None, sync=True):  # noqa: A002 (NumPy 2.1's names)
        if min is not None or max is not None:
            if a_min is not None or a_max is not None:
                raise ValueError("vp.clip: passing `min` or `max` keyword argument when "
                                 "`a_min` and `a_max` are provided is forbidden")
            a_min, a_max = min, max
        if a_min is None and a_max is None:
            # NumPy 2.1: no bounds clip nothing (a copy, or into out=)
            return maximum(a, a, out=out, context=context, sync=sync)
        dt = getattr(a, "dtype", None)
        if isinstance(dt, np.dtype) and dt.kind in "iu":
            # a Python int bound beyond the dtype's range on its own side
            # clips nothing (NumPy 2: clip(u8, -5, 300) is u8); others stay
            # NumPy's OverflowError
            ii = np.iinfo(dt)
            if type(a_min) is int and a_min < ii.min:
                a_min = None if a_max is not None else ii.min
            if type(a_max) is int and a_max > ii.max:
                a_max = None if a_min is not None else ii.max
        lo = maximum(a, a_min, context=context) if a_min is not None else a
        return minimum(lo, a_max, out=out, context=context, sync=sync) if a_max is not None \
            else (maximum(a, a_min, out=out, context=context, sync=sync))


_CAST = Ufunc("cast", 1, None)
where = _Where("where", 3, None)
where.__doc__ = """vp.where(condition, x, y, /, out=None, context=None, sync=True)

Elementwise x where condition else y, like numpy.where with three
arguments (with condition alone, vp.nonzero(condition): a tuple of int64
index arrays, one per dimension): condition is read as bool (nonzero is true), x and y promote to
one dtype as numpy.result_type says, and the three broadcast together.
Arguments, out= (cast into by casting=, 'same_kind' by default), context=,
sync= and the errors are as for every vp ufunc (help(vp.add)).

Example:
    a = vp.asarray(np.float32([1, -2, 3]))
    vp.where(a > 0, a, 0.0)          # resident [1, 0, 3]
"""

# issue 19 (array API): the accuracy of the more ufuncs, per dtype (their
# docstrings; docs/python-api.md, "More ufuncs")
_ACCURACY = {
    "fmod": "float: exact, as C's fmod; "
            "integers: C's remainder, 0 where x2 == 0",
    "hypot": "float: within 3 ulp (max * sqrt(1 + (min/max)**2): no overflow)",
    "fmax": "exact; a NaN operand loses to a number", "fmin": "exact; a NaN operand loses",
    "copysign": "exact (the sign bit of x2, -0.0 and negative NaNs included)",
    "ldexp": "exact where the result is a normal number, a float32 subnormal x "
             "included on every device (read from its bits); subnormal results follow the "
             "device's denormal mode",
    "logaddexp": "float: within 4 ulp of log(exp(x1) + exp(x2)), no overflow",
    "logaddexp2": "float: within 4 ulp of log2(2**x1 + 2**x2), no overflow; equal operands "
                  "give x1 + 1 (the infinities too)",
    "nextafter": "exact (by the bits, subnormals included on every device): the next "
                 "number after x1 toward x2, x2 where they are equal, NaN for NaN; float16 "
                 "in float16's grid, bit for bit NumPy's",
    "spacing": "exact (by the bits): the gap to the next number away from zero, with x's "
               "sign (+ for -0.0), inf past the largest finite, NaN for inf and NaN; "
               "float16 as NumPy's float16 loop (always positive)",
    "heaviside": "exact: 0 where x1 < 0, x2 where x1 is 0 (either sign), 1 where x1 > 0, "
                 "NaN where x1 is NaN; integer input computes in NumPy's float type",
    "left_shift": "exact; counts outside [0, bits) give 0, as NumPy",
    "right_shift": "exact; counts outside [0, bits) give 0 (-1 for negative x1), as NumPy",
    "gcd": "exact (integers)",
    "bitwise_count": "exact: the set bits of |x| (NumPy's: bitwise_count(-1) is 1), uint8 "
                     "for every integer type",
    "lcm": "exact (integers) where the result fits the dtype: |x1 / gcd * x2|, 0 where "
           "both are 0",
    "float_power": "pow in float64 (NumPy's loops: every real input computes and returns "
                   "float64; a device without float64 raises); within the device's "
                   "float64 pow", "fabs": "exact", "signbit": "exact",
    "deg2rad": "x * (pi/180) in the input's dtype, as NumPy (1 rounding)",
    "rad2deg": "x * (180/pi) in the input's dtype, as NumPy (1 rounding)",
}

# the ufuncs of the C table (include/vulpy/ir/ufuncs.def): a vp ufunc each
# (those of issue 19, _ACCURACY above, get their docstring below). The
# names and operand counts are listed here, not read from the extension:
# `import vulpy` must not load the C extension (python -m vulpy dump-ast
# runs without it; test_astjson, test_errors); the semantics stay in C, and
# test_ufunc_table checks this list against ext().ufuncs() entry for entry.
_TABLE = tuple((n, 2) for n in (
    "add", "subtract", "multiply", "divide", "floor_divide", "remainder", "fmod", "power",
    "float_power", "minimum", "maximum", "fmin", "fmax", "arctan2", "hypot", "copysign", "ldexp",
    "logaddexp", "logaddexp2", "heaviside", "nextafter", "bitwise_and", "bitwise_or",
    "bitwise_xor", "left_shift", "right_shift", "gcd", "lcm", "logical_and",
    "logical_or", "logical_xor", "less", "less_equal", "greater",
    "greater_equal", "equal", "not_equal")) + tuple((n, 1) for n in (
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh",
    "arccosh", "arctanh", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt",
    "cbrt", "negative", "positive", "absolute", "fabs", "sign", "reciprocal", "floor", "ceil", "trunc",
    "rint", "square", "logical_not", "invert", "bitwise_count", "isnan", "isinf", "isfinite", "signbit",
    "spacing", "deg2rad", "rad2deg"))
_MB = tuple(n for n, k in _TABLE if k == 2 and n in _ACCURACY)
_MU = tuple(n for n, k in _TABLE if k == 1 and n in _ACCURACY)
_NAMES_2 = [n for n, k in _TABLE if k == 2 and n not in _ACCURACY]
_NAMES_1 = [n for n, k in _TABLE if k == 1 and n not in _ACCURACY]
BY_NUMPY = {}
_g = globals()
for _n, _k in _TABLE:
    _g[_n] = BY_NUMPY[_n] = Ufunc(_n, _k, getattr(np, _n))
clip = _Clip("clip", 3, np.clip)
clip.__doc__ = """vp.clip(a, a_min=None, a_max=None, out=None, *, min=None, max=None,
context=None, sync=True)

numpy.clip on the GPU: minimum(maximum(a, a_min), a_max), NaN-propagating;
either bound may be None, and both (NumPy 2.1: a copy of a). min= and
max= are NumPy 2.1's keyword names of the bounds (a ValueError with
a_min / a_max too). Arguments, dtypes, out=, context=, sync= and the
errors are as for vp.minimum and vp.maximum (help(vp.minimum)).

Example:
    vp.clip(np.float32([-1, 0.5, 2]), 0.0, 1.0)     # array([0. , 0.5, 1. ])
"""
for _a, _n in _ALIASES.items():
    _g[_a] = _g[_n]
BY_NUMPY["true_divide"] = divide
ALL = _NAMES_2 + _NAMES_1 + ["clip", "where"] + list(_ALIASES)


for _n in _MB + _MU:
    _g[_n].__doc__ = (f"vp.{_n}({'x1, x2' if _n in _MB else 'x'}, /, out=None, context=None, "
                      f"sync=True, where=True, dtype=None, casting='same_kind')\n\nnumpy.{_n} "
                      f"on the GPU, elementwise, NumPy's dtype rules and broadcasting; NumPy in "
                      f"-> NumPy out, resident in -> resident out (views and out= views too); "
                      f"out= of another dtype cast into by casting=; where=, dtype= and "
                      f"casting= as help(vp.add) says.\nAccuracy: {_ACCURACY[_n]}.\n")
_g["radians"], _g["degrees"] = _g["deg2rad"], _g["rad2deg"]
BY_NUMPY["radians"], BY_NUMPY["degrees"] = _g["deg2rad"], _g["rad2deg"]
ALL += list(_MB + _MU) + ["radians", "degrees"]


def around(a, decimals=0, out=None):
    """vp.around(a, decimals=0, out=None) (also vp.round): numpy.around on
    the GPU. Floats round half to even (rint) at `decimals` places:
    rint(a * 10**d) / 10**d, or rint(a / 10**-d) * 10**-d for negative d,
    as NumPy computes it; integers are returned as they are for d >= 0 and
    rounded half to even at 10**-d exactly for d < 0; bools give rint's
    float16 for d == 0 and NumPy's TypeError otherwise."""
    decimals = int(decimals)
    k = _arrayops.dtype_key(a)
    dt = np.asarray(a).dtype if isinstance(k, type) else np.dtype(k)
    if dt.kind == "f":
        if decimals == 0:
            return rint(a, out=out) if out is not None else rint(a)
        m = float(10.0 ** abs(decimals))
        if decimals > 0:
            r = rint(multiply(a, m))
            return divide(r, m, out=out) if out is not None else divide(r, m)
        r = rint(divide(a, m))
        return multiply(r, m, out=out) if out is not None else multiply(r, m)
    if dt.kind == "c":
        return _arrayops.COMPLEX.around(a, decimals, out)
    if dt == _BOOL:
        # NumPy: rint of bools (float16); other decimals scale in float64,
        # which its multiply / divide cannot cast back into bool
        if decimals == 0:
            return rint(a, out=out) if out is not None else rint(a)
        raise TypeError(f"vp.around: Cannot cast ufunc '{'multiply' if decimals > 0 else 'divide'}' "
                        f"output from dtype('float64') to dtype('bool') with casting rule "
                        f"'same_kind' (NumPy's error for decimals={decimals} of a bool array)")
    if decimals >= 0:
        r = a.copy() if hasattr(a, "copy") else np.array(a, copy=True)  # tracers too
        if out is not None:
            multiply(r, 1, out=out) if dt != _BOOL else logical_and(r, True, out=out)
            return out
        return r
    m = 10 ** (-decimals)
    if m > np.iinfo(dt).max:
        z = subtract(a, a)
        return multiply(z, 1, out=out) if out is not None else z
    # a = q*m + r with 0 <= r < m; up where 2r > m, or 2r == m and q odd
    q = floor_divide(a, m)
    r = subtract(a, multiply(q, m))
    half = m // 2  # m is even (10, 100, ...)
    up = logical_or(greater(r, half), logical_and(equal(r, half),
                                                  not_equal(bitwise_and(q, 1), 0)))
    q = where(up, add(q, 1), q)
    return multiply(q, m, out=out) if out is not None else multiply(q, m)


round_ = around
ALL += ["around"]
