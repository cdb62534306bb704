"""initial= and where= of the reductions (numpy.sum(a, initial=5, where=m)
and the same on prod, min, max, amin, amax, mean, any, all, var, std and
the NaN-aware ones), composed on the device from the plain reductions and
vp.where:

    masked-out elements are replaced by the reduction's identity (0 for
    sum, 1 for prod, True for all, False for any; for min/max, which have
    none, `initial`: NumPy then requires it), the slice is reduced, and
    `initial` is combined with the result (sum: +, prod: *, min: minimum,
    max: maximum), in the result's dtype as NumPy casts it (a float initial
    truncated for an integer result, an out-of-range one an OverflowError).

mean divides by the count of selected elements per slice (NaN where
none, NumPy's RuntimeWarning when none at all is selected); var and std
take the mean and the squared deviations over the selected elements.
"""
import builtins
import math
import warnings

import numpy as np

from . import _array, _graph, _reduce, _ufunc

_BOOL = np.dtype(np.bool_)
_I64 = np.dtype(np.int64)
_UFUNC_NAME = {"min": "minimum", "max": "maximum", "nanmin": "fmin", "nanmax": "fmax"}


def wanted(initial, where):
    """Whether a call needs this module (NumPy's defaults otherwise)."""
    return initial is not None or not (where is True or where is np.True_)


def _operand(a):
    if isinstance(a, (list, tuple)) or np.isscalar(a):
        return np.asarray(a)
    return a


def _mask(name, a, where):
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


def _into(r, out):
    from . import _stats
    return _stats._finish(r, out)


def _full(shape, value, like):
    """A result of `shape` holding `value`, resident for a resident input."""
    h = np.full(shape, value)
    if isinstance(like, _array.ndarray):
        return _array.asarray(h, context=like._ctx)
    return h[()] if h.ndim == 0 else h


def reduce(kind, a, axis, dtype, out, keepdims, initial, where):
    """sum, prod, min, max, any, all with initial= and/or where=."""
    name = {"min": "amin", "max": "amax"}.get(kind, kind)
    a = _operand(a)
    mask = _mask(name, a, where)
    rdt = _reduce.result_dtype(kind, a.dtype, dtype)
    if kind in ("min", "max") and initial is None and mask is not None:
        raise ValueError(f"reduction operation '{_UFUNC_NAME[kind]}' does not have an "
                         f"identity, so to use a where mask one has to specify 'initial'")
    if kind in ("any", "all") and initial is not None:
        raise TypeError(f"vp.{kind}() got an unexpected keyword argument 'initial'")
    init = None if initial is None else _initial_value(name, initial, rdt)
    axes = _reduce._axes(axis, a.ndim, name)
    shape = tuple(a.shape)
    rshape = tuple(1 if d in axes else s for d, s in enumerate(shape)) if keepdims else \
        tuple(s for d, s in enumerate(shape) if d not in axes)
    empty = builtins.any(shape[d] == 0 for d in axes)
    if kind in ("min", "max") and empty:  # the initial alone (init is a scalar of rdt)
        if init is None:
            _reduce._check_identity(kind, shape, axes)
        return _into(_full(rshape, init, a), out)
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
    f = {"sum": _reduce.sum, "prod": _reduce.prod, "min": _reduce.amin, "max": _reduce.amax,
         "any": _reduce.any, "all": _reduce.all}[kind]
    r = f(x, axis, dtype, None, keepdims) if kind in ("sum", "prod") else \
        f(x, axis, None, keepdims)
    if init is not None:
        op = {"sum": _ufunc.add, "prod": _ufunc.multiply, "min": _ufunc.minimum,
              "max": _ufunc.maximum}[kind]
        r = op(r, init)  # a NumPy scalar of rdt: the result stays rdt
        if np.dtype(r.dtype) != rdt:
            r = r.astype(rdt)
    return _into(r, out)


def mean(a, axis, dtype, out, keepdims, where):
    """numpy.mean with where=: the sum of the selected elements over their
    count (NaN where a slice selects none)."""
    a = _operand(a)
    mask = _mask("mean", a, where)
    rdt = _reduce.result_dtype("mean", a.dtype, dtype)
    # NumPy sums float16 in float32 and integers in float64
    acc = rdt if dtype is not None or rdt != np.dtype(np.float16) else np.dtype(np.float32)
    x = _ufunc.where(mask, a, 0)
    s = _reduce.sum(x if np.dtype(x.dtype) == np.dtype(a.dtype) else x.astype(a.dtype), axis,
                    acc, None, keepdims)
    n = _reduce.sum(_ufunc.logical_and(mask, _ones(a)), axis, _I64, None, keepdims)
    if not isinstance(n, _graph.Traced) and not bool(_reduce.all(_ufunc.greater(n, 0))):
        warnings.warn("Mean of empty slice.", RuntimeWarning, stacklevel=3)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = _ufunc.divide(s, n.astype(acc))
    return _into(r.astype(rdt) if np.dtype(r.dtype) != rdt else r, out)


def _ones(a):
    """True in a's shape (for counting a broadcast mask)."""
    return _ufunc.logical_or(_ufunc.isnan(a), True) if np.dtype(a.dtype).kind == "f" else \
        _ufunc.logical_or(_ufunc.equal(a, a), True)


def moment(kind, a, axis, dtype, out, ddof, keepdims, where):
    """numpy.var / numpy.std with where=."""
    a = _operand(a)
    mask = _mask(kind, a, where)
    if dtype is not None:
        a = a.astype(dtype)
    elif np.dtype(a.dtype).kind in "biu":
        a = a.astype(np.float64)
    sel = _ufunc.logical_and(mask, _ones(a))
    n = _reduce.sum(sel, axis, _I64, None, True)
    s = _reduce.sum(_ufunc.where(mask, a, 0), axis, None, None, True)
    with np.errstate(invalid="ignore", divide="ignore"):
        m = _ufunc.divide(s, n.astype(s.dtype))
        d = _ufunc.where(mask, _ufunc.subtract(a, m), 0)
        d = d.astype(a.dtype) if np.dtype(d.dtype) != np.dtype(a.dtype) else d
        ss = _reduce.sum(_ufunc.multiply(d, d), axis, None, None, keepdims)
        n = n if keepdims else _reduce.sum(sel, axis, _I64, None, False)
        dof = _ufunc.maximum(_ufunc.subtract(n, ddof), 0).astype(ss.dtype)
        v = _ufunc.divide(ss, dof)
        r = v if kind == "var" else _ufunc.sqrt(v)
    return _into(r, out)


def nan_reduce(kind, a, axis, dtype, out, keepdims, initial, where):
    """nansum, nanprod, nanmin, nanmax with initial= and/or where=: NaNs
    are masked out as well (NumPy's fmin/fmax with an initial)."""
    a = _operand(a)
    mask = _mask(f"nan{kind}", a, where)
    if kind in ("min", "max") and initial is None and mask is not None:
        raise ValueError(f"reduction operation '{_UFUNC_NAME['nan' + kind]}' does not have "
                         f"an identity, so to use a where mask one has to specify 'initial'")
    if np.dtype(a.dtype).kind == "f":
        ok = _ufunc.logical_not(_ufunc.isnan(a))
        mask = ok if mask is None else _ufunc.logical_and(ok, mask)
    if kind in ("min", "max") and initial is None:  # no mask: NumPy's nanmin/nanmax
        from . import _stats
        return (_stats.nanmin if kind == "min" else _stats.nanmax)(a, axis, out, keepdims)
    return reduce(kind, a, axis, dtype, out, keepdims, initial,
                  True if mask is None else mask)
