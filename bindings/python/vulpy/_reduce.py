"""Reductions and scans: vp.sum, prod, min, max, mean, argmin, argmax, any,
all, cumsum, cumprod (NumPy's semantics: axis= None, an int or a tuple,
negative axes, keepdims=, dtype=, out=, initial=, where=), and the same
names as methods of vp.ndarray and of vp.jit's tracers.

Each call is an array.<kind> op on the array path (_arrayops): one kernel
(docs/fusion.md, "Lowering" says which shape of kernel), NumPy in -> NumPy
out, resident in -> resident out. Inside vp.jit they are recorded, and a
reduction at the end of an elementwise chain fuses into its kernel. What
the device reductions do not accumulate (a bool sum, an integer mean,
complex sums and products, initial= and where=) is composed from them in
this file.
"""
import builtins
import math
import operator
import warnings

import numpy as np

from . import _array, _arrayops, _engine, _graph, _ufunc
from . import _errors
from ._launch import Handle

_BOOL = np.dtype(np.bool_)
_I64 = np.dtype(np.int64)
_F16 = np.dtype(np.float16)
NAMES = ("sum", "prod", "min", "max", "mean", "argmin", "argmax", "any", "all", "cumsum",
         "cumprod", "amin", "amax")
_KIND = {"amin": "min", "amax": "max"}
_NO_IDENTITY = ("min", "max", "argmin", "argmax")
# A new resident result of a reduction up to this many bytes (a 0-d result,
# a short row of sums), in memory the host cannot map, is also copied into
# a host-visible mirror in the reduction's own submission: reading it
# (float(), .item(), .numpy()) then needs no second submission
# (_arrayops.Call._mirrored, docs/python-api.md).
MIRROR_MAX = 4096


def _axes(axis, ndim, name):
    if axis is None:
        return tuple(range(ndim))
    items = axis if isinstance(axis, (tuple, list)) else (axis,)
    out = []
    for a in items:
        if isinstance(a, (bool, np.bool_)):  # NumPy refuses True/False as an axis
            raise TypeError(f"vp.{name}: axis must be an integer, not {type(a).__name__}")
        a = operator.index(a)  # 1.0 is a TypeError, as in NumPy (int() would take it)
        # np.sum, np.argmax, np.cumsum take axis 0 or -1 on a 0-d array
        if (a not in (0, -1)) if ndim == 0 else not -ndim <= a < ndim:
            raise _errors.AxisError(a, ndim)
        a = a % ndim if ndim else 0
        if a in out:
            raise ValueError(f"vp.{name}: duplicate value in 'axis'")
        out.append(a)
    return tuple(sorted(out)) if ndim else ()


def result_dtype(kind, dt, dtype=None):
    """NumPy's result dtype of a reduction of dtype dt."""
    dt = np.dtype(dt)
    if kind in ("min", "max", "cummax", "cummin"):
        return dt
    if kind in ("argmin", "argmax"):
        return np.dtype(np.int64)
    if kind in ("any", "all"):
        return _BOOL
    z = np.zeros(1, dt)
    if kind == "mean":
        return np.dtype(dtype) if dtype is not None else np.mean(z).dtype if dt.kind in "fc" \
            else np.dtype(np.float64)
    f = {"sum": np.sum, "prod": np.prod, "cumsum": np.cumsum, "cumprod": np.cumprod}[kind]
    return f(z, dtype=dtype).dtype


def _check_identity(kind, shape, axes):
    """NumPy: min/max/argmin/argmax over an empty axis have no answer, even
    into an empty result (np.min(np.zeros((0, 0)), axis=0) raises too)."""
    if kind not in _NO_IDENTITY:
        return
    if builtins.any(shape[i] == 0 for i in axes):
        raise ValueError(f"zero-size array to reduction operation {kind} which has no identity")


def _warn_empty_mean(kind, shape, axes):
    """NumPy: a mean over an empty axis, into a non-empty result, is NaN
    with a RuntimeWarning."""
    if kind != "mean" or not builtins.any(shape[i] == 0 for i in axes):
        return
    kept = [d for i, d in enumerate(shape) if i not in axes]
    if int(np.prod(kept, dtype=np.int64)) > 0:
        warnings.warn("Mean of empty slice.", RuntimeWarning, stacklevel=4)


def _shape_of(x):
    if isinstance(x, (_array.ndarray, np.ndarray)):
        return x.shape
    return np.shape(x)


def reduce(kind, a, axis=None, dtype=None, out=None, keepdims=False, *, context=None, sync=True):
    """A reduction (or, for cumsum/cumprod, a scan) of `a`."""
    kind = _KIND.get(kind, kind)
    whole = axis is None and out is None and not keepdims and \
        type(a) is _array.ndarray and a._estrides is None and a._offset == 0 and a._size and \
        (context is None or context is a._ctx)
    fast = PLANS and whole
    if fast:
        # a dynamic plan serves every length; the small dtypes plan per shape
        key = (kind, a.dtype, a.shape if a.dtype in _SMALL else None,
               None if dtype is None else np.dtype(dtype), a._buf.kind,
               getattr(a._ctx, "_vp_feature_masks", None),
               getattr(a._ctx, "_vp_cpu_lowering", None), _engine.reduce_groups())
        plan = a._ctx.__dict__.get("_vp_reduce_plans", _NO_PLANS).get(key)
        if plan is not None:
            return _run_plan(plan, a, sync)
    scan = kind in _SCANS
    if isinstance(a, _graph.Traced):
        return _trace(kind, a, axis, dtype, keepdims, scan)
    hook = getattr(type(a), "_vp_reduce", None)  # a complex array inside vp.jit (_complex.py)
    if hook is not None:
        if out is not None:
            raise TypeError(f"vp.{kind}: out= inside vp.jit; return the result instead")
        return hook(a, kind, axis, dtype, keepdims)
    if isinstance(a, (list, tuple)) or np.isscalar(a):
        a = np.asarray(a)
    shape = tuple(_shape_of(a))
    nd = len(shape)
    if scan:
        _scan_axis(kind, axis)
        if axis is not None and nd == 0:
            _axes(axis, nd, kind)  # axis 0 or -1 scans a 0-d array as 1-d (NumPy)
        if nd == 0 or axis is None and nd != 1:
            # NumPy flattens; so do we (a copy of a view)
            a = a.reshape(-1) if isinstance(a, _array.ndarray) else np.ravel(a)
            shape, nd = tuple(_shape_of(a)), 1
        axes = _axes(0 if axis is None else axis, nd, kind)
    else:
        axes = _axes(axis, nd, kind)
    if kind in ("argmin", "argmax") and axis is not None and isinstance(axis, (tuple, list)):
        raise TypeError(f"vp.{kind}: axis must be an int or None")
    if dtype is not None and np.dtype(a.dtype).kind == "c" and np.dtype(dtype).kind != "c":
        raise TypeError(f"vp.{kind}: dtype={np.dtype(dtype).name} of a {np.dtype(a.dtype).name} "
                        f"array would drop the imaginary part (NumPy warns and drops it, as "
                        f"astype does); take .real (or abs()) first")
    rdt = result_dtype(kind, a.dtype, dtype)
    _check_identity(kind, shape, axes)
    _warn_empty_mean(kind, shape, axes)
    if kind in ("argmin", "argmax") and out is not None and \
            not np.can_cast(out.dtype, np.int64, "safe"):  # NumPy's test, this way round
        raise TypeError(f"vp.{kind}: out= has dtype {out.dtype}; NumPy takes an out= whose "
                        f"dtype casts safely to int64 (an integer or bool type, not uint64 or "
                        f"a float)")
    if isinstance(out, np.ndarray):  # np.copyto would broadcast into a larger out
        rshape = _result_shape(shape, axes, keepdims, scan)
        if out.shape != rshape:
            raise _array.out_shape_error(f"vp.{kind}", out, rshape)
    if dtype is not None and np.dtype(dtype).kind == "c" and np.dtype(dtype) != a.dtype and \
            kind in ("sum", "mean", "cumsum", "prod", "cumprod"):
        a = a.astype(dtype)  # (vp.sum(c64, dtype=complex128), vp.sum(f32, dtype=complex64))
    if np.dtype(a.dtype).kind == "c" and kind in ("sum", "mean", "cumsum") and \
            (dtype is None or np.dtype(dtype) == np.dtype(a.dtype)):
        r = _complex_sum(kind, a, axes, keepdims, rdt, out)
        return r if sync else Handle(None, result=r)
    if np.dtype(a.dtype).kind == "c" and kind in ("any", "all"):  # nonzero: either part
        r = reduce(kind, _ufunc.not_equal(a, 0), axis, None, out, keepdims, context=context)
        return r if sync else Handle(None, result=r)
    if np.dtype(a.dtype).kind == "c" and (kind in ("prod", "cumprod") and rdt.kind == "c" or
                                          kind in ("min", "max", "argmin", "argmax")):
        r = _complex_prod(kind, a, axes, keepdims, rdt, out)
        return r if sync else Handle(None, result=r)
    if rdt.kind == "b" and kind in ("sum", "prod", "cumsum", "cumprod", "mean") or \
            (kind == "mean" and rdt.kind in "iu"):
        r = _not_a_number_sum(kind, a, axis, rdt, out, keepdims, n=math.prod(
            shape[i] for i in axes))
        return r if sync else Handle(None, result=r)
    if whole and not scan and a.dtype not in _SMALL:
        # a whole array: the kernel over a dynamic extent (one compile, every n)
        _graph.require_features(a._ctx, (np.dtype(a.dtype), rdt), f"vp.{kind}")
        comp = _engine.compile(_dynamic_vir(kind, np.dtype(a.dtype), rdt), a._ctx,
                               label=f"vp.{kind}")
        plan = (comp, "x", "out", rdt, True)
        if fast:
            _keep(a._ctx, key, plan)
        return _run_plan(plan, a, sync)
    if (axis is not None or scan) and type(a) is _array.ndarray and \
            (context is None or context is a._ctx):
        r = _segments(kind, a, axes, keepdims, rdt, out, sync)
        if r is not None:
            return r
    c = _arrayops.Call(kind, context=context)
    c.mirror_max = MIRROR_MAX
    c.note(a)
    if isinstance(out, _array.ndarray):
        c.note(out)
    ctx = c.context_()
    _graph.require_features(ctx, (np.dtype(a.dtype), rdt), f"vp.{kind}")
    v = c.operand(a)
    if v.shape is None:
        v = c.g.broadcast(v, ())
    v = _arg_operand(c.g, kind, v)
    if scan:
        r = c.g.scan(kind, v, axes[0], rdt)
    else:
        # argmin/argmax over all axes of a matrix: the flat index (NumPy)
        r = c.g.reduce(kind, v, axes, keepdims, rdt)
    res = c.run(c.result(r, out, "unsafe"), sync)  # NumPy's reductions cast into out= so
    if fast and kind not in _SCANS and len(c.bind) == 2 and not c.push and \
            not c.scratch:
        _keep_plan(c, a, key, rdt)
    return res


def _complex_sum(kind, a, axes, keepdims, rdt, out):
    """sum, mean and cumsum of a complex array: the same reduction of its
    float view (shape + (2,), the (real, imag) pairs: one kernel), the
    result read back as complex (vulpy/_complex.py)."""
    from . import _complex
    host = not isinstance(a, _array.ndarray)
    z = _array.asarray(np.asarray(a)) if host else a
    f = _complex.fview(z)
    if kind == "cumsum":
        r = cumsum(f, axes[0])
    else:
        r = (sum if kind == "sum" else mean)(f, axes, None, None, keepdims)
    r = _complex.from_fview(r, rdt)
    if host and out is None:
        h = r.numpy()
        return h[()] if h.ndim == 0 else h
    return finish(r, out)


def _complex_prod(kind, a, axes, keepdims, rdt, out):
    """prod, cumprod, min, max, argmin and argmax of a complex array (no
    reduction of the float view): the reduced axes moved last and
    flattened, then the operation of halves, log2(n) rounds of complex
    multiplies (a pairwise product: rounding differs from NumPy's
    sequential loop by a few ulp) or of vp.maximum / vp.minimum (NumPy's
    lexicographic order; a NaN propagates; nanmax / nanmin: vp.fmax /
    vp.fmin, NumPy's fmax.reduce); cumprod doubles its reach each
    round (Hillis and Steele: log2(n) rounds, n log2(n) multiplies);
    argmin / argmax is the first element equal to the min / max (the
    first NaN where a slice has one), as NumPy's."""
    host = not isinstance(a, _array.ndarray)
    z = _array.asarray(np.asarray(a)) if host else a
    if kind in ("argmin", "argmax"):
        return _complex_arg(kind, z, axes, keepdims, out, host)
    if z.dtype != rdt:
        z = z.astype(rdt)
    nd = z.ndim
    if kind == "cumprod":
        ax = axes[0]
        order = [d for d in range(nd) if d != ax] + [ax]
        t = z.transpose(order).copy()
        n, k = t.shape[-1], 1
        while k < n:
            u = t.copy()
            u[..., k:] = t[..., k:] * t[..., :-k]
            t, k = u, 2 * k
        r = t.transpose(np.argsort(order).tolist()).copy()
    else:
        kept = [d for d in range(nd) if d not in axes]
        kshape = tuple(z.shape[d] for d in kept)
        n = math.prod(z.shape[d] for d in axes)
        b = z.transpose(kept + list(axes)).copy().reshape(kshape + (n,))
        f = {"prod": _ufunc.multiply, "max": _ufunc.maximum, "min": _ufunc.minimum,
             "nanmax": _ufunc.fmax, "nanmin": _ufunc.fmin}[kind]
        while n > 1:
            h = n // 2
            p = f(b[..., :h], b[..., h:2 * h])
            if n % 2:  # the odd one out joins the first pair's result
                p[..., :1] = f(p[..., :1], b[..., 2 * h:])
            b, n = p, h
        r = _array.ones(kshape, rdt, memory=z.memory, context=z._ctx) if n == 0 else \
            b[..., 0].copy()
        if keepdims:
            r = r.reshape(tuple(1 if d in axes else z.shape[d] for d in range(nd)))
    if host and out is None:
        h = r.numpy()
        return h[()] if h.ndim == 0 else h
    return finish(r, out)


def _complex_arg(kind, z, axes, keepdims, out, host):
    """argmin / argmax of complex z: the first index equal to the slice's
    min / max, or of its first NaN (NumPy's argmax of complex)."""
    nd = z.ndim
    flat = len(axes) != 1  # axis=None: the flat index (a 0-d array: 0)
    if flat:
        z, axes = z.reshape(-1), (0,)
    m = _complex_prod(kind[3:], z, axes, True, z.dtype, None)
    nan = _ufunc.isnan(z)
    hit = _ufunc.where(any(nan, axes[0], None, True), nan, _ufunc.equal(z, m))
    r = argmax(hit, axes[0], keepdims=keepdims and not flat)
    if flat and keepdims:
        r = r.reshape((1,) * nd)
    if host and out is None:
        h = r.numpy()
        return h[()] if h.ndim == 0 else h
    return finish(r, out)


def _not_a_number_sum(kind, a, axis, rdt, out, keepdims, n):
    """dtype=bool for sum/prod and their scans, and an integer or bool
    dtype= for mean, where the device reductions accumulate numbers only:
    NumPy adds bools as logical or and multiplies them as logical and, and
    its mean of dtype=int8 is the int8 sum over the count, cast back
    (truncated). Composed from device reductions; the answer is NumPy's."""
    if kind in ("sum", "prod", "cumsum", "cumprod"):
        nz = _ufunc.not_equal(a, 0)
        if kind == "sum":
            r = any(nz, axis, None, keepdims)
        elif kind == "prod":
            r = all(nz, axis, None, keepdims)
        elif kind == "cumsum":  # a running or: some nonzero so far
            r = _ufunc.greater(cumsum(nz, axis, np.int64), 0)
        else:  # a running and: no zero so far
            r = _ufunc.equal(cumsum(_ufunc.logical_not(nz), axis, np.int64), 0)
        return finish(r, out)
    s = sum(a, axis, rdt, None, keepdims)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = _ufunc.divide(s, n)
    return finish(r.astype(rdt), out)


# ----------------------------------------------------- the full-reduction plan
# vp.sum(x) of a whole resident array: one kernel over a dynamic extent for
# every length (compiled once per kind and dtype; the small dtypes, read in
# words on some devices, compile per shape), bound to the next call's
# buffers, its 0-d result from the context's scratch pool
# (docs/python-api.md, "Reductions and scans"). The key holds what the
# lowering depends on, VULPY_REDUCE_GROUPS too.
POOLED = True  # False: a new buffer per result (benchmarks compare)
PLANS = True  # False: every call builds its graph (tests and benchmarks compare)
_NO_PLANS = {}
_PLANS_MAX = 256


_SMALL = frozenset(np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16, np.float16))
_dyn_texts = {}


def _dynamic_vir(kind, dt, rdt):
    """The array VIR of vp.KIND over a whole array of any length: a tensor
    of dynamic extent (tensor<?xT>, its length the push field n) reduced
    into @out (docs/fusion.md, "Dynamic extent")."""
    key = (kind, dt, rdt)
    text = _dyn_texts.get(key)
    if text is None:
        text = _dyn_texts[key] = _graph.whole_reduction(
            kind, kind, [("x", _array.storage_dtype(dt), dt)], rdt, _array.storage_dtype(rdt),
            lambda g, v: _arg_operand(g, kind, v[0]))
    return text


# vp.sum(x, axis=k) and the other reductions over a run of adjacent axes of
# a C-contiguous resident array: one kernel for every shape (compiled once
# per kind, dtype and form), the array seen as (before, along, after) =
# (n / inner, length, inner) and reduced in segments (ops.def): rows of a
# workgroup each when the axes are the trailing ones and long, else an
# invocation per output. Shapes whose loops would pass the budget of the
# static kernels' shapes (lower-arrays' MAX_ITER, TILE) take the static
# path, which tiles them.
_SEG_KINDS = frozenset(("sum", "prod", "min", "max", "mean", "argmin", "argmax", "any", "all",
                        "cumsum", "cumprod", "cummax", "cummin"))
# cummax / cummin: numpy.maximum / minimum.accumulate (_ufunc's accumulate
# calls reduce("cummax", ...); no vp.cummax of their own, as NumPy has none)
_SCANS = frozenset(("cumsum", "cumprod", "cummax", "cummin"))
_WG, _MAX_GROUPS, _COOP_MIN, _MAX_ITER, _TILE = 256, 65535, 64, 16384, 1024
_U32 = np.dtype(np.uint32)


def _result_shape(shape, axes, keepdims, scan):
    """The shape of a reduction's (or a scan's) result."""
    return tuple(shape) if scan else tuple(
        1 if d in axes else n for d, n in enumerate(shape) if keepdims or d not in axes)


def _segment_vir(kind, dt, rdt, rows):
    """The array VIR of vp.KIND in segments over a C-contiguous array of
    dtype dt: push fields n (outputs), r (the length) and, unless rows, b
    (inner); buffers x and out."""
    key = ("segments", kind, dt, rdt, rows)
    text = _dyn_texts.get(key)
    if text is None:
        g = _graph.Graph(kind)
        g.push.append(("n", _U32))
        length = g.scalar(_U32, "r")
        inner = None if rows else g.scalar(_U32, "b")
        v = g.load(g.buffer(("x",), _array.storage_dtype(dt), None, None, "x"), dt, _graph.DYN)
        r = g.reduce_segments(kind, _arg_operand(g, kind, v), length, inner, rdt)
        g.store(g.buffer(("out",), _array.storage_dtype(rdt), None, None, "out"), r)
        text = _dyn_texts[key] = g.text()
    return text


def _segments(kind, a, axes, keepdims, rdt, out, sync):
    """vp.KIND of resident `a` over `axes` in segments, or None where the
    static path takes it (a view, another layout, a small or complex
    dtype, axes that are not adjacent, an empty result or axis, loops past
    the budget, out= that is not a whole array of the result). A scan
    (cumsum, cumprod: one axis) runs as lines only, an invocation per line
    of up to TILE elements (longer lines are the static path's tiles)."""
    if kind not in _SEG_KINDS or not PLANS or a._estrides is not None or a._offset or \
            a.dtype in _SMALL or rdt in _SMALL or a.dtype.kind == "c" or not axes or \
            tuple(axes) != tuple(range(axes[0], axes[-1] + 1)):
        return None
    shape = a.shape
    k0, k1 = axes[0], axes[-1]
    length = math.prod(shape[k0:k1 + 1])
    inner = math.prod(shape[k1 + 1:])
    n = math.prod(shape[:k0]) * inner
    if not n or not length or a._size >= 2**32 or (
            a._size > _array.SEGMENTS_MAX and (inner != 1 or kind in _SCANS)):
        return None
    lines = length <= _TILE and n <= _MAX_GROUPS * _WG
    # rows a workgroup each on a GPU; a CPU device (lavapipe runs a
    # workgroup's tree and barriers one lane at a time) takes lines of up
    # to TILE: x.sum(axis=1) of 500 x 300 float32 took 14 ms as rows and
    # 0.44 ms as lines there
    rows = inner == 1 and _COOP_MIN <= length <= _WG * _MAX_ITER and n <= _MAX_GROUPS and \
        not (lines and a._ctx.kind == "cpu") and kind not in _SCANS
    if not rows and not lines:
        return None
    rshape = _result_shape(shape, axes, keepdims, kind in _SCANS)
    if out is not None and (type(out) is not _array.ndarray or not out._whole or
                            out.shape != rshape or out.dtype != rdt or out._ctx is not a._ctx):
        return None
    ctx = a._ctx
    key = ("segments", kind, a.dtype, rdt, rows, getattr(ctx, "_vp_feature_masks", None),
           getattr(ctx, "_vp_cpu_lowering", None))
    comp = ctx.__dict__.get("_vp_reduce_plans", _NO_PLANS).get(key)
    if comp is None:
        _graph.require_features(ctx, (np.dtype(a.dtype), rdt), f"vp.{kind}")
        comp = _engine.compile(_segment_vir(kind, np.dtype(a.dtype), rdt, rows), ctx,
                               label=f"vp.{kind}")
        _keep(ctx, key, comp)
    rb = None
    if out is None:
        out = _array._result(rshape, rdt, a._buf.kind, ctx)  # written whole
        if 0 < out.nbytes <= MIRROR_MAX and not out._buf.mapped:
            # a small result in memory the host cannot map: mirrored in the
            # same submission, as the static path's (_arrayops.Call._mirrored)
            m = ctx._scratch("cached", _array._padded(out.nbytes))
            rb = (m, 0, out._buf, 0, out.nbytes)
    else:
        _array.check_writable(out, f"vp.{kind}")
    push = {"n": n, "r": length} if rows else {"n": n, "r": length, "b": inner}
    t = comp.run(ctx, {"x": a._buf, "out": out._buf}, push,
                 (None if rb is None else True) if sync else False, rb)
    if rb is not None:
        out._mirror = (m, out._buf.last_use)
    return out if sync else Handle(t, result=out)


def _keep(ctx, key, plan):
    plans = ctx.__dict__.setdefault("_vp_reduce_plans", {})
    if len(plans) >= _PLANS_MAX:
        plans.clear()
    plans[key] = plan


def _keep_plan(c, a, key, rdt):
    names = {id(b): n for n, b in c.bind.items()}
    iname = names.get(id(a._buf))
    oname = next((n for n in c.bind if n != iname), None)
    if iname is not None and oname is not None:
        _keep(a._ctx, key, (c.compiled, iname, oname, rdt, False))


def _run_plan(plan, a, sync):
    comp, iname, oname, rdt, dynamic = plan
    return run_whole(comp, {iname: a._buf}, oname, {"n": a._size} if dynamic else {}, rdt,
                     a._ctx, a._buf.kind, sync)


def run_whole(comp, bind, oname, push, rdt, ctx, memory, sync=True):
    """Runs compiled `comp` on the buffers `bind` (name -> Buffer) with
    push fields `push`, its 0-d result (dtype rdt, in `memory`, from the
    scratch pool) stored into its buffer `oname` and mirrored into
    host-visible memory in the same submission; the result, or a Handle
    with sync=False. (Plans of full reductions, vp.dot of two vectors.)"""
    if POOLED:
        res = _array.ndarray(ctx._scratch(memory, 16), (), rdt, ctx)
    else:
        res = _array.empty((), rdt, memory=memory, context=ctx)
    rb = m = None
    if 0 < res.nbytes <= MIRROR_MAX and not res._buf.mapped:
        m = ctx._scratch("cached", 16)
        rb = (m, 0, res._buf, 0, res.nbytes)
    t = comp.run(ctx, dict(bind, **{oname: res._buf}), push, sync, rb)

    def done():
        if m is not None:
            res._mirror = (m, res._buf.last_use)
        return res
    if sync:
        return done()
    return Handle(t, done)


def _scan_axis(kind, axis):
    """A scan runs along one axis: a tuple is NumPy's TypeError (it was
    taken as its first axis)."""
    if isinstance(axis, (tuple, list)):
        raise TypeError(f"vp.{kind}: axis must be an int or None, not a "
                        f"{type(axis).__name__}")


def _trace(kind, a, axis, dtype, keepdims, scan):
    t = a._t
    t.stamp()
    nd = a.ndim
    v = a._v if a._v.shape is not None else t.g.broadcast(a._v, ())  # (a scalar: 0-d)
    if scan:
        _scan_axis(kind, axis)
        if axis is None and nd != 1:
            v = t.g.reshape(v, (a.size,))
            nd = 1
        axes = _axes(0 if axis is None else axis, nd, kind)
        return a.wrap(t.g.scan(kind, v, axes[0], result_dtype(kind, a.dtype, dtype)))
    axes = _axes(axis, nd, kind)
    _check_identity(kind, a.shape, axes)
    v = _arg_operand(t.g, kind, v)
    return a.wrap(t.g.reduce(kind, v, axes, keepdims, result_dtype(kind, a.dtype, dtype)))


def _arg_operand(g, kind, v):
    """argmin/argmax of bools: of the bools as int32 (False < True, as
    NumPy orders them; the array level orders numbers only)."""
    if kind in ("argmin", "argmax") and np.dtype(v.dtype) == np.dtype(np.bool_):
        return g.cast(v, np.dtype(np.int32))
    return v


def _make(kind):
    if kind in ("argmin", "argmax"):
        def f(a, axis=None, out=None, *, keepdims=False, context=None, sync=True):
            return reduce(kind, a, axis, None, out, keepdims, context=context, sync=sync)
    elif kind in ("cumsum", "cumprod"):
        def f(a, axis=None, dtype=None, out=None, *, context=None, sync=True):
            return reduce(kind, a, axis, dtype, out, False, context=context, sync=sync)
    elif kind in ("any", "all"):
        def f(a, axis=None, out=None, keepdims=False, *, where=True, context=None, sync=True):
            if wanted(None, where):
                return _composed(kind, a, axis, None, out, keepdims, None, where, sync)
            return reduce(kind, a, axis, None, out, keepdims, context=context, sync=sync)
    elif kind in ("min", "max", "amin", "amax"):
        def f(a, axis=None, out=None, keepdims=False, initial=None, where=True, *,
              context=None, sync=True):
            if wanted(initial, where):
                return _composed(kind, a, axis, None, out, keepdims, initial, where, sync)
            return reduce(kind, a, axis, None, out, keepdims, context=context, sync=sync)
    elif kind == "mean":
        def f(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True, context=None,
              sync=True):
            if wanted(None, where):
                return _composed(kind, a, axis, dtype, out, keepdims, None, where, sync)
            return reduce(kind, a, axis, dtype, out, keepdims, context=context, sync=sync)
    else:
        def f(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True, *,
              context=None, sync=True):
            if wanted(initial, where):
                return _composed(kind, a, axis, dtype, out, keepdims, initial, where, sync)
            return reduce(kind, a, axis, dtype, out, keepdims, context=context, sync=sync)
    f.__name__ = f.__qualname__ = kind
    f.__doc__ = _reduce_doc(kind, f)
    return f


def _composed(kind, a, axis, dtype, out, keepdims, initial, where, sync):
    """initial= / where=: several kernels (below); with sync=False
    a Handle that is already done."""
    kind = _KIND.get(kind, kind)
    if kind == "mean":
        r = masked_mean(a, axis, dtype, out, keepdims, where)
    else:
        r = _masked_reduce(kind, a, axis, dtype, out, keepdims, initial, where)
    return r if sync else Handle(None, result=r)


def _reduce_doc(kind, f):
    import inspect
    sig = str(inspect.signature(f))
    what = {"cumsum": "the running sum", "cumprod": "the running product",
            "argmin": "the index of the smallest element",
            "argmax": "the index of the largest element"}.get(kind, f"numpy.{kind}")
    lines = [f"vp.{kind}{sig}: {what} on the GPU (numpy.{kind}'s arguments and "
             f"result dtype), one kernel. NumPy in -> NumPy out, resident in -> "
             f"resident out; inside vp.jit it traces.",
             "",
             "    a         a resident or NumPy array (or anything np.asarray takes).",
             "    axis      None (all elements), an int or a tuple of ints"
             + (" (one int for a scan)" if kind.startswith("cum") else "") + "."]
    if "dtype" in sig:
        lines.append("    dtype     the accumulator and result dtype (NumPy's default "
                     "when None: int64 for small ints, the input's float type).")
    lines.append("    out       an array of the result's shape to write into (returned).")
    if "keepdims" in sig:
        lines.append("    keepdims  True keeps the reduced axes with length 1.")
    if "initial" in sig:
        lines.append("    initial   a starting value combined with each slice (None: none); "
                     "min/max need it with where= and give it for an empty slice.")
    if "where" in sig:
        lines.append("    where     a bool array broadcast to a's shape: only its True "
                     "elements are reduced (several kernels, as the composition it is).")
    lines += ["    context   the vp.Context for NumPy inputs (None: the default).",
              "    sync      False returns a vp.Handle; its .wait() returns the value.",
              "",
              "Errors: numpy.exceptions.AxisError for an axis out of range, ValueError "
              "for an empty reduction without an identity (min/max/argmin/argmax), "
              + ("" if kind in ("sum", "prod", "mean", "cumsum", "cumprod") else
                 "TypeError for complex input, ") + "vp.FeatureError for a 64-bit dtype the "
              "device lacks.",
              "",
              "Example:",
              f"    vp.{kind}(vp.arange(6).reshape(2, 3), axis=0)"]
    import textwrap
    return "\n".join(textwrap.fill(x, 76, subsequent_indent=" " * (14 if x.startswith("    ") and
                                                                   x[4:5] != " " else 0))
                     if len(x) > 76 else x for x in lines)


sum = _make("sum")  # noqa: A001
prod = _make("prod")
mean = _make("mean")
argmin = _make("argmin")
argmax = _make("argmax")
any = _make("any")  # noqa: A001
all = _make("all")  # noqa: A001
cumsum = _make("cumsum")
cumprod = _make("cumprod")
amin = _make("amin")
amax = _make("amax")
_min_r, _max_r = _make("min"), _make("max")


def _is_operand(x):
    """A second positional argument that is an array or a float is an operand
    (elementwise); an int, a tuple or None is an axis (NumPy's np.min)."""
    return isinstance(x, (_array.ndarray, np.ndarray, _graph.Traced, float, list)) and \
        not isinstance(x, bool)


def min(a, *args, **kwargs):  # noqa: A001
    """vp.min(a, axis=None, ...) reduces like numpy.min; vp.min(a, b) is the
    elementwise minimum (what vp.min meant before reductions)."""
    if args and _is_operand(args[0]):
        return _ufunc.minimum(a, *args, **kwargs)
    return _min_r(a, *args, **kwargs)


def max(a, *args, **kwargs):  # noqa: A001
    """vp.max(a, axis=None, ...) reduces like numpy.max; vp.max(a, b) is the
    elementwise maximum."""
    if args and _is_operand(args[0]):
        return _ufunc.maximum(a, *args, **kwargs)
    return _max_r(a, *args, **kwargs)


# ----------------------------------------------------------- var and std
# numpy.var / numpy.std (issue 19): the mean (kept dims), then the mean of the
# squared deviations, two passes as NumPy (docs/python-api.md). Inside a
# kernel `vp.var(expr)` keeps its kernel-language meaning (_types.kernel_name).
def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
        mean=None, correction=None, context=None):
    """vp.var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *,
    where=True, mean=None, correction=None, context=None):
    numpy.var on the GPU (the mean, then the mean of squared deviations;
    where= selects the elements, as NumPy's). As NumPy 2: mean= is a mean
    you computed already (its reduced axes kept, keepdims=True), used
    instead of computing one; correction= is the array API's name of ddof
    (a ValueError with a nonzero ddof too).
    NumPy in -> NumPy out, resident in -> resident out. Inside a kernel,
    vp.var(expr) is the kernel language's variable (docs/language.md)."""
    ddof = _correction("var", ddof, correction)
    if _complex_input(a, dtype):
        return _complex_moment("var", a, axis, dtype, out, ddof, keepdims, where, context, mean)
    if mean is not None:
        return _given_mean("var", a, axis, dtype, out, ddof, keepdims, where, mean)
    if dtype is not None and np.dtype(dtype).kind in "biu":
        return _integer_moment("var", a, axis, dtype, out, ddof, keepdims, where)
    if wanted(None, where):
        return masked_moment("var", a, axis, dtype, out, ddof, keepdims, where)
    return _moment("var", a, axis, dtype, out, ddof, keepdims, context)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
        mean=None, correction=None, context=None):
    """vp.std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *,
    where=True, mean=None, correction=None, context=None):
    numpy.std on the GPU (the square root of vp.var; mean= and
    correction= as vp.var's)."""
    ddof = _correction("std", ddof, correction)
    if _complex_input(a, dtype):
        return _complex_moment("std", a, axis, dtype, out, ddof, keepdims, where, context, mean)
    if mean is not None:
        return _given_mean("std", a, axis, dtype, out, ddof, keepdims, where, mean)
    if dtype is not None and np.dtype(dtype).kind in "biu":
        return _integer_moment("std", a, axis, dtype, out, ddof, keepdims, where)
    if wanted(None, where):
        return masked_moment("std", a, axis, dtype, out, ddof, keepdims, where)
    return _moment("std", a, axis, dtype, out, ddof, keepdims, context)


def _integer_moment(kind, a, axis, dtype, out, ddof, keepdims, where):
    """var / std with an integer or bool dtype=, NumPy's steps in that dtype:
    the sum in dtype, divided and cast back (the mean truncated), the
    deviations in the promoted dtype of a and that mean, their squares
    summed in dtype, divided and cast back; std's square root is cast back
    only for a scalar result (NumPy's sqrt into an integer array raises).
    vp.var(a, dtype=np.int16) was the float64 variance of a cast to int16."""
    a = _operand(a)
    dtype = np.dtype(dtype)
    if dtype.kind == "b" and np.dtype(a.dtype).kind == "b":
        raise TypeError(f"vp.{kind}: NumPy subtracts the bool mean from bool data, which "
                        f"it refuses (boolean subtract); pass a numeric dtype=")
    shape = tuple(a.shape)
    mask = where_mask(kind, a, where)
    kept = tuple(1 if i in _axes(axis, len(shape), kind) else d for i, d in enumerate(shape))
    rshape = kept if keepdims else tuple(d for i, d in enumerate(shape)
                                         if i not in _axes(axis, len(shape), kind))
    if kind == "std" and rshape != ():
        raise TypeError(f"vp.std: cannot cast the square root (a float) into the "
                        f"dtype={dtype.name} result array (NumPy's sqrt, casting rule "
                        f"'same_kind'); pass a float dtype=")
    if mask is None:
        n = math.prod(shape[i] for i in _axes(axis, len(shape), kind))
        count, left = n, builtins.max(n - ddof, 0)
    else:
        count = sum(_ufunc.logical_and(mask, _ones(a)), axis, _I64, None, True)
        left = _ufunc.maximum(_ufunc.subtract(count, ddof), 0)
        if not keepdims:
            left = left.reshape(rshape)
    w = True if mask is None else mask
    with np.errstate(invalid="ignore", divide="ignore"):
        m = _ufunc.divide(sum(a, axis, dtype, None, True, where=w), count).astype(dtype)
        d = _ufunc.subtract(a, m)
        s = sum(_ufunc.multiply(d, d), axis, dtype, None, keepdims, where=w)
        r = _ufunc.divide(s, left).astype(dtype)
        if kind == "std":
            r = _ufunc.sqrt(r).astype(dtype)
    return finish(r, out)


def _complex_input(a, dtype):
    dt = getattr(a, "dtype", None)
    if dt is None and not isinstance(a, _graph.Traced):
        dt = np.asarray(a).dtype
    return (dt is not None and np.dtype(dt).kind == "c") or \
        (dtype is not None and np.dtype(dtype).kind == "c")


def _correction(kind, ddof, correction):
    """ddof from NumPy 2's correction= (the array API's name for it)."""
    if correction is None:
        return ddof
    if ddof != 0:
        raise ValueError(f"vp.{kind}: ddof and correction can't be provided simultaneously")
    return correction


def _given_mean(kind, a, axis, dtype, out, ddof, keepdims, where, mean):
    """numpy.var / numpy.std with mean= (NumPy 2): the squared deviations
    from the caller's mean, in the dtype NumPy's `a - mean` promotes to,
    summed (in dtype= where given) and divided by the count less ddof."""
    a, mean = _operand(a), _operand(mean)
    if dtype is not None and np.dtype(dtype).kind in "biu":
        raise TypeError(f"vp.{kind}: mean= with an integer or bool dtype= is not supported; "
                        f"pass a float dtype=")
    if dtype is not None:
        a = a.astype(dtype)
    elif np.dtype(a.dtype).kind in "biu":
        a = a.astype(np.float64)
    try:
        ok = np.broadcast_shapes(tuple(np.shape(mean)), tuple(a.shape)) == tuple(a.shape)
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(f"vp.{kind}: mean= of shape {tuple(np.shape(mean))} does not broadcast "
                         f"to the input's shape {tuple(a.shape)} (NumPy wants the mean with "
                         f"its reduced axes kept: keepdims=True)")
    mask = where_mask(kind, a, where)
    with np.errstate(invalid="ignore", divide="ignore"):
        d = _ufunc.subtract(a, mean)
        s = sum(_ufunc.multiply(d, d), axis, dtype, None, keepdims,
                where=True if mask is None else mask)
        if mask is None:
            shape = tuple(a.shape)
            n = math.prod(shape[i] for i in _axes(axis, len(shape), kind))
            left = builtins.max(n - ddof, 0)
        else:
            n = sum(_ufunc.logical_and(mask, _ones(a)), axis, _I64, None, keepdims)
            left = _ufunc.maximum(_ufunc.subtract(n, ddof), 0)
        v = divide_by_count(s, left)
        r = v if kind == "var" else _ufunc.sqrt(v)
    return finish(r, out)


def _complex_moment(kind, a, axis, dtype, out, ddof, keepdims, where, context, mean=None):
    """var / std of complex a: |z - mean z|^2 = (x - mean x)^2 + (y -
    mean y)^2, so the variance is var(a.real) + var(a.imag), in the parts'
    real dtype (NumPy's result dtype for complex input), or in dtype= (a
    complex one, as NumPy's result then is)."""
    from . import _complex
    if isinstance(a, (list, tuple)) or np.isscalar(a):
        a = np.asarray(a)
    if dtype is not None:
        if np.dtype(dtype).kind != "c":
            raise TypeError(f"vp.{kind}: dtype={np.dtype(dtype).name} would drop the imaginary "
                            f"part of complex input")
        a = a.astype(dtype)
    if a.dtype.kind != "c":  # real input, complex dtype=: NumPy's var of the real values
        a = a.astype(np.result_type(a.dtype, np.complex64))
    kw = dict(ddof=ddof, keepdims=keepdims, where=where, context=context)
    if mean is None:
        v = _ufunc.add(var(_complex.real(a), axis, **kw), var(_complex.imag(a), axis, **kw))
    else:  # mean= (NumPy 2): each part's deviations from that part of the mean
        mean = _operand(mean)
        v = _ufunc.add(var(_complex.real(a), axis, mean=_complex.real(mean), **kw),
                       var(_complex.imag(a), axis, mean=_complex.imag(mean), **kw))
    if kind == "std":
        v = _ufunc.sqrt(v)
    if dtype is not None:  # NumPy: a complex dtype= is the result's dtype (imaginary part 0)
        v = v.astype(dtype)
    return finish(v, out)


def _moment(kind, a, axis, dtype, out, ddof, keepdims, context):
    if isinstance(a, (list, tuple)) or np.isscalar(a):
        a = np.asarray(a)
    dt = np.dtype(a.dtype)
    if dt.kind == "c" or (dtype is not None and np.dtype(dtype).kind == "c"):
        raise TypeError(f"vp.{kind}: complex input is not supported")
    if dtype is not None:
        a = a.astype(dtype)
    elif dt.kind in "biu":
        # NumPy: the variance of integers and bools is float64
        a = a.astype(np.float64)
    shape = tuple(a.shape)  # ndarrays and vp.jit tracers
    axes = _axes(axis, len(shape), kind)
    n = math.prod(shape[i] for i in axes)
    if n - ddof <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=3)
    kw = {} if isinstance(a, _graph.Traced) else {"context": context}
    # over every axis: a 0-d mean broadcast from the device, so the three
    # kernels are the ufuncs' and reductions' of a dynamic extent (no
    # compile at a new length); else the mean with its axes kept
    whole = len(axes) == len(shape) and not isinstance(a, _graph.Traced)
    ax = None if whole else axis
    m = mean(a, ax, None, None, not whole, **kw)
    d = _ufunc.subtract(a, m)
    s = sum(_ufunc.multiply(d, d), ax, None, None, keepdims and not whole, **kw)
    if whole and keepdims:
        s = s.reshape((1,) * len(shape))
    div = builtins.max(n - ddof, 0)
    if isinstance(out, np.ndarray) and isinstance(s, _array.ndarray):
        # a NumPy out= for a resident input, as the other reductions take
        # var casts into it as a reduction does; std's is sqrt's out= (same_kind)
        r = _moment_finish(kind, s, div, None)
        np.copyto(out, r.numpy(), casting="unsafe" if kind == "var" else "same_kind")
        return out
    return _moment_finish(kind, s, div, out)


def divide_by_count(s, n):
    """s / n for float s and a count n (an int, or an array of counts), as
    NumPy divides by its intp counts: in a wider float, then back to s's
    dtype. float16 divides in float32: a count past 65504 is inf in
    float16 (vp.var of 70000 float16 values was NaN, vp.nanmean 0)."""
    dt = np.dtype(s.dtype)
    wide = np.dtype(np.float32) if dt == _F16 else dt
    count = np.empty(0, wide).real.dtype  # complex s: counts of its parts' dtype
    if not isinstance(n, (int, float)) and np.dtype(n.dtype) != count:
        n = n.astype(count)
    if wide == dt:
        return _ufunc.divide(s, n)
    return _ufunc.divide(s.astype(wide), n).astype(dt)


def _moment_finish(kind, s, div, out):
    if isinstance(out, _array.ndarray) and out.dtype != s.dtype:
        # NumPy's var divides into out= unsafely, std's sqrt by same_kind
        if kind == "std" and not np.can_cast(s.dtype, out.dtype, "same_kind"):
            raise TypeError(f"vp.std: cannot cast the result from {np.dtype(s.dtype).name} "
                            f"to out='s {out.dtype.name} according to the rule 'same_kind'")
        return finish(_moment_finish(kind, s, div, None), out)
    if np.dtype(s.dtype) == _F16:
        v = divide_by_count(s, div)
        return finish(v if kind == "var" else _ufunc.sqrt(v), out)
    if kind == "var":
        return _ufunc.divide(s, div, out=out) if out is not None else _ufunc.divide(s, div)
    v = _ufunc.divide(s, div)
    return _ufunc.sqrt(v, out=out) if out is not None else _ufunc.sqrt(v)


def finish(r, out):
    """r into out= (a resident or NumPy array of r's shape), as the
    reductions do; r itself without out. _stats and _quantile use it too."""
    if out is None:
        return r
    if isinstance(out, _array.ndarray):
        if tuple(out.shape) != tuple(np.shape(r)):
            raise _array.out_shape_error("out=", out, np.shape(r))
        out[...] = r
        return out
    if tuple(out.shape) != tuple(np.shape(r)):  # np.copyto would broadcast into it
        raise _array.out_shape_error("out=", out, np.shape(r))
    np.copyto(out, r.numpy() if isinstance(r, _array.ndarray) else r, casting="unsafe")
    return out


# ------------------------------------------------------ initial= and where=
# numpy.sum(a, initial=5, where=m) and the same on prod, min, max, amin,
# amax, mean, any, all, var, std and the NaN-aware ones (_stats), composed
# on the device from the plain reductions above and vp.where:
#
#   masked-out elements are replaced by the reduction's identity (0 for
#   sum, 1 for prod, True for all, False for any; for min/max, which have
#   none, `initial`: NumPy then requires it), the slice is reduced, and
#   `initial` is combined with the result (sum: +, prod: *, min: minimum,
#   max: maximum), in the result's dtype as NumPy casts it (a float initial
#   truncated for an integer result, an out-of-range one an OverflowError).
#
# mean divides by the count of selected elements per slice (NaN where
# none, NumPy's RuntimeWarning when none at all is selected); var and std
# take the mean and the squared deviations over the selected elements.
_UFUNC_NAME = {"min": "minimum", "max": "maximum", "nanmin": "fmin", "nanmax": "fmax"}


def wanted(initial, where):
    """Whether a call has initial= or where= (NumPy's defaults otherwise)."""
    return initial is not None or not (where is True or where is np.True_)


def _operand(a):
    if isinstance(a, (list, tuple)) or np.isscalar(a):
        return np.asarray(a)
    return a


def where_mask(name, a, where):
    """where= as a bool operand of a's shape (broadcast), or None for all."""
    if where is True or where is np.True_:
        return None
    if isinstance(where, (list, tuple, bool, np.bool_)):
        where = np.asarray(where)
    dt = getattr(where, "dtype", None)  # arrays and vp.jit's tracers
    dt = np.dtype(dt if dt is not None else np.asarray(where).dtype)
    if dt != _BOOL:
        raise TypeError(f"vp.{name}: where= must be boolean; cannot cast {dt} to bool "
                        f"(NumPy's 'safe' rule)")
    try:
        shape = np.broadcast_shapes(tuple(where.shape), tuple(a.shape))
    except ValueError:
        shape = None
    if shape != tuple(a.shape):
        raise ValueError(f"vp.{name}: where= of shape {tuple(where.shape)} does not broadcast "
                         f"to the input's shape {tuple(a.shape)}")
    if isinstance(a, _array.ndarray) and isinstance(where, np.ndarray):
        where = _array.asarray(where, context=a._ctx)
    return where


def _initial_value(name, initial, rdt):
    """initial in the result's dtype, as NumPy casts it."""
    if rdt.kind in "iub" and isinstance(initial, (float, np.floating)):
        if not math.isfinite(initial):
            raise ValueError(f"vp.{name}: cannot convert float {initial} to integer "
                             f"(initial= for an integer result)")
        initial = int(initial)
    if rdt.kind in "iu" and isinstance(initial, (int, np.integer)):
        info = np.iinfo(rdt)
        if not info.min <= int(initial) <= info.max:
            raise OverflowError(f"vp.{name}: initial={initial} is out of bounds for "
                                f"{rdt.name}")
    return rdt.type(initial)


def _full(shape, value, like):
    """A result of `shape` holding `value`, resident for a resident input."""
    h = np.full(shape, value)
    if isinstance(like, _array.ndarray):
        return _array.asarray(h, context=like._ctx)
    return h[()] if h.ndim == 0 else h


def _masked_reduce(kind, a, axis, dtype, out, keepdims, initial, where):
    """sum, prod, min, max, any, all with initial= and/or where=."""
    name = {"min": "amin", "max": "amax"}.get(kind, kind)
    a = _operand(a)
    mask = where_mask(name, a, where)
    rdt = result_dtype(kind, a.dtype, dtype)
    if kind in ("min", "max") and initial is None and mask is not None:
        raise ValueError(f"reduction operation '{_UFUNC_NAME[kind]}' does not have an "
                         f"identity, so to use a where mask one has to specify 'initial'")
    if kind in ("any", "all") and initial is not None:
        raise TypeError(f"vp.{kind}() got an unexpected keyword argument 'initial'")
    init = None if initial is None else _initial_value(name, initial, rdt)
    axes = _axes(axis, a.ndim, name)
    shape = tuple(a.shape)
    rshape = tuple(1 if d in axes else s for d, s in enumerate(shape)) if keepdims else \
        tuple(s for d, s in enumerate(shape) if d not in axes)
    empty = builtins.any(shape[d] == 0 for d in axes)
    if kind in ("min", "max") and empty:  # the initial alone (init is a scalar of rdt)
        if init is None:
            _check_identity(kind, shape, axes)
        return finish(_full(rshape, init, a), out)
    x = a
    if mask is not None:
        fill = {"sum": 0, "prod": 1, "any": False, "all": True}.get(kind, init)
        if isinstance(fill, np.generic):
            fill = fill.item()
        if kind in ("any", "all") and np.dtype(a.dtype) != _BOOL:
            x = _ufunc.not_equal(a, 0)
        x = _ufunc.where(mask, x, fill)
        if np.dtype(x.dtype) != np.dtype(a.dtype) and kind not in ("any", "all"):
            x = x.astype(a.dtype)
    f = {"sum": sum, "prod": prod, "min": amin, "max": amax, "any": any, "all": all}[kind]
    r = f(x, axis, dtype, None, keepdims) if kind in ("sum", "prod") else \
        f(x, axis, None, keepdims)
    if init is not None:
        op = {"sum": _ufunc.add, "prod": _ufunc.multiply, "min": _ufunc.minimum,
              "max": _ufunc.maximum}[kind]
        r = op(r, init)  # a NumPy scalar of rdt: the result stays rdt
        if np.dtype(r.dtype) != rdt:
            r = r.astype(rdt)
    return finish(r, out)


def masked_mean(a, axis, dtype, out, keepdims, where):
    """numpy.mean with where=: the sum of the selected elements over their
    count (NaN where a slice selects none)."""
    a = _operand(a)
    mask = where_mask("mean", a, where)
    rdt = result_dtype("mean", a.dtype, dtype)
    # NumPy sums float16 in float32 and integers in float64
    acc = rdt if dtype is not None or rdt != np.dtype(np.float16) else np.dtype(np.float32)
    x = _ufunc.where(mask, a, 0)
    s = sum(x if np.dtype(x.dtype) == np.dtype(a.dtype) else x.astype(a.dtype), axis,
                    acc, None, keepdims)
    n = sum(_ufunc.logical_and(mask, _ones(a)), axis, _I64, None, keepdims)
    if not isinstance(n, _graph.Traced) and not bool(all(_ufunc.greater(n, 0))):
        warnings.warn("Mean of empty slice.", RuntimeWarning, stacklevel=3)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = _ufunc.divide(s, n.astype(acc))
    return finish(r.astype(rdt) if np.dtype(r.dtype) != rdt else r, out)


def _ones(a):
    """True in a's shape (for counting a broadcast mask)."""
    return _ufunc.logical_or(_ufunc.isnan(a), True) if np.dtype(a.dtype).kind == "f" else \
        _ufunc.logical_or(_ufunc.equal(a, a), True)


def masked_moment(kind, a, axis, dtype, out, ddof, keepdims, where):
    """numpy.var / numpy.std with where=."""
    a = _operand(a)
    mask = where_mask(kind, a, where)
    if dtype is not None:
        a = a.astype(dtype)
    elif np.dtype(a.dtype).kind in "biu":
        a = a.astype(np.float64)
    sel = _ufunc.logical_and(mask, _ones(a))
    n = sum(sel, axis, _I64, None, True)
    s = sum(_ufunc.where(mask, a, 0), axis, None, None, True)
    with np.errstate(invalid="ignore", divide="ignore"):
        m = divide_by_count(s, n)
        d = _ufunc.where(mask, _ufunc.subtract(a, m), 0)
        d = d.astype(a.dtype) if np.dtype(d.dtype) != np.dtype(a.dtype) else d
        ss = sum(_ufunc.multiply(d, d), axis, None, None, keepdims)
        n = n if keepdims else sum(sel, axis, _I64, None, False)
        v = divide_by_count(ss, _ufunc.maximum(_ufunc.subtract(n, ddof), 0))
        r = v if kind == "var" else _ufunc.sqrt(v)
    return finish(r, out)


def masked_nan_reduce(kind, a, axis, dtype, out, keepdims, initial, where):
    """nansum, nanprod, nanmin, nanmax with initial= and/or where=: NaNs
    are masked out as well (NumPy's fmin/fmax with an initial)."""
    a = _operand(a)
    mask = where_mask(f"nan{kind}", a, where)
    if kind in ("min", "max") and initial is None and mask is not None:
        raise ValueError(f"reduction operation '{_UFUNC_NAME['nan' + kind]}' does not have "
                         f"an identity, so to use a where mask one has to specify 'initial'")
    if np.dtype(a.dtype).kind in "fc":
        ok = _ufunc.logical_not(_ufunc.isnan(a))
        mask = ok if mask is None else _ufunc.logical_and(ok, mask)
    return _masked_reduce(kind, a, axis, dtype, out, keepdims, initial,
                  True if mask is None else mask)


# ufunc.reduceat: the segments grouped by length (the powers of two they
# fall under), each group one gather into a (segments, longest) block and one
# reduction along it: at most ~2n elements gathered in all, a few launches a
# group. A segment shorter than its block repeats its last element (harmless
# for the idempotent ufuncs) or, for these, is padded with the identity:
_REDUCEAT_IDENTITY = {"add": 0, "multiply": 1, "bitwise_xor": 0}


def reduceat(uf, array, indices, axis=0, dtype=None, out=None):
    """numpy.<ufunc>.reduceat for the ufuncs whose reduce runs on the device:
    along `axis`, result[i] = uf.reduce(array[indices[i]:indices[i + 1]])
    where indices[i] < indices[i + 1], else array[indices[i]]; the last runs
    to the end. NumPy's dtypes (those of uf.reduce) and errors; sums of
    floats agree with NumPy's to rounding (another order of additions)."""
    ops = _array._ops
    host = not isinstance(array, _array.ndarray)
    a = ops.asarray(array) if host else array
    idx = indices.numpy() if isinstance(indices, _array.ndarray) else np.asarray(indices)
    if idx.ndim != 1:
        raise ValueError(f"vp.{uf.name}.reduceat: indices must be 1-D, got shape {idx.shape}")
    if idx.size and idx.dtype.kind not in "iu":
        raise TypeError(f"Cannot cast array data from {idx.dtype!r} to dtype('int64') according "
                        f"to the rule 'safe'")
    if a.ndim == 0:
        raise TypeError(f"vp.{uf.name}.reduceat: the array must have at least 1 dimension")
    ax = _errors.axis(axis, a.ndim, f"vp.{uf.name}.reduceat: axis")
    n = a.shape[ax]
    starts = idx.astype(np.int64)
    bad = starts[(starts < 0) | (starts >= n)]
    if bad.size:
        raise IndexError(f"index {bad[0]} out-of-bounds in {uf.name}.reduceat [0, {n})")
    t = ops.moveaxis(a, ax, -1)
    ends = np.append(starts[1:], n)
    lens = np.where(ends > starts, ends - starts, 1)
    klass = np.ceil(np.log2(lens)).astype(np.int64) if lens.size else lens
    pad = _REDUCEAT_IDENTITY.get(uf.name)
    parts, order = [], []
    for k in np.unique(klass):
        sel = np.flatnonzero(klass == k)
        width = int(lens[sel].max())
        j = np.arange(width)
        g = ops.take(t, starts[sel, None] + np.minimum(j, lens[sel, None] - 1), axis=-1,
                     mode="clip")
        if pad is not None and not (lens[sel] == width).all():
            mask = ops.asarray(j < lens[sel, None], context=a._ctx)
            g = ops.where(mask, g, g.dtype.type(pad))
        parts.append(uf.reduce(g, axis=-1, dtype=dtype))
        order.append(sel)
    if not parts:  # no indices: an empty axis of reduce's dtype
        one = ops.take(t, np.zeros((0, 1), np.int64), axis=-1, mode="clip")
        parts, order = [uf.reduce(one, axis=-1, dtype=dtype)], [starts]
    r = parts[0] if len(parts) == 1 else ops.concatenate(parts, axis=-1)
    perm = np.concatenate(order)
    if (np.diff(perm) < 0).any():
        inv = np.empty_like(perm)
        inv[perm] = np.arange(perm.size)
        r = ops.take(r, inv, axis=-1, mode="clip")
    r = ops.moveaxis(r, -1, ax)
    if out is not None:
        if tuple(out.shape) != tuple(r.shape):
            raise ValueError(f"vp.{uf.name}.reduceat: out has shape {tuple(out.shape)}, the "
                             f"result {tuple(r.shape)}")
        ops.copyto(out, r)
        return out
    return r.numpy() if host else r
