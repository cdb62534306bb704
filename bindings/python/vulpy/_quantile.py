"""percentile, quantile, nanpercentile, nanquantile (issue 19) on the device
(docs/python-api.md, "Quantiles", is the reference: dtypes, NaN slices,
the order of q's dimensions).

method='linear' only: each slice along the reduced axes (merged into one,
last) is sorted (vp.sort: NaN last), the two neighbours of the virtual
index (n - 1) q are gathered and mixed by NumPy's own _lerp formula. The
virtual index, neighbours and weight are NumPy's code on the host for
quantile / percentile (n is one number), and the same formulas on the
device, in q's dtype, for the NaN-skipping variants (n differs per slice).
"""
import numpy as np

from . import _array, _reduce, _ufunc

_nd = _array.ndarray
_I64 = np.dtype(np.int64)
_NUMPY_METHODS = ("inverted_cdf", "averaged_inverted_cdf", "closest_observation",
                  "interpolated_inverted_cdf", "hazen", "weibull", "linear", "median_unbiased",
                  "normal_unbiased", "lower", "higher", "midpoint", "nearest")


def _check(fname, a, method, weights, interpolation, overwrite_input):
    if interpolation is not None:
        raise NotImplementedError(f"vp.{fname}: interpolation= (deprecated in NumPy) is not "
                                  f"supported; use method='linear'")
    if weights is not None:
        raise NotImplementedError(f"vp.{fname}: weights= is not implemented (NumPy allows it "
                                  f"with method='inverted_cdf' only)")
    if method != "linear":
        if method in _NUMPY_METHODS:
            raise NotImplementedError(f"vp.{fname}: method={method!r} is not implemented "
                                      f"(only method='linear', NumPy's default)")
        raise ValueError(f"vp.{fname}: {method!r} is not a valid method. Use one of: "
                         f"{_NUMPY_METHODS}")
    if np.dtype(a.dtype).kind == "c":
        raise TypeError(f"vp.{fname}: a must be an array of real numbers")
    if np.dtype(a.dtype).kind == "b":  # NumPy's lerp subtracts: a TypeError there too
        raise TypeError(f"vp.{fname}: boolean arrays are not supported (NumPy's interpolation "
                        f"subtracts them, which NumPy refuses); pass a.astype(int)")
    if np.dtype(a.dtype).kind not in "iuf":
        raise TypeError(f"vp.{fname}: unsupported dtype {np.dtype(a.dtype).name}")


def _q_of(fname, a, q, percent):
    """q as NumPy makes it (percentile divides by a's float type's 100; a
    Python number takes a float array's dtype), range-checked."""
    dt = np.dtype(a.dtype)
    if isinstance(q, _nd):
        q = q.numpy()  # q is small: its values decide the neighbours on the host
    if percent:
        q = np.asanyarray(np.true_divide(q, dt.type(100) if dt.kind == "f" else 100, out=...))
        what = "Percentiles must be in the range [0, 100]"
    else:
        q = np.asanyarray(q, dtype=dt) if isinstance(q, (int, float)) and dt.kind == "f" \
            else np.asanyarray(q)
        what = "Quantiles must be in the range [0, 1]"
    if q.dtype.kind not in "biuf":
        raise TypeError(f"vp.{fname}: q must be real numbers, got {q.dtype.name}")
    if q.size and not (q.min() >= 0 and q.max() <= 1):
        raise ValueError(what)
    return q


def _host_neighbours(n, q):
    """NumPy's _get_indexes and _get_gamma for method='linear' on n values."""
    virtual = np.asanyarray((n - 1) * q)
    above = virtual >= n - 1
    prev = np.asanyarray(np.clip(np.floor(virtual), 0, n - 1)).astype(_I64)
    nxt = np.asanyarray(np.clip(np.floor(virtual) + 1, 0, n - 1)).astype(_I64)
    # NumPy's gamma uses the index -1 for `above` (the same element either
    # side, so the weight only matters through 0 * t): kept as NumPy has it
    gamma = np.asanyarray(virtual - np.where(above, -1, prev), dtype=virtual.dtype)
    return prev, nxt, gamma


def _lerp(a, b, t):
    """NumPy's _lerp: a + (b - a) t, and b - (b - a)(1 - t) where t >= 0.5."""
    d = _ufunc.subtract(b, a)
    lo = _ufunc.add(a, _ufunc.multiply(d, t))
    hi = _ufunc.subtract(b, _ufunc.multiply(d, _ufunc.subtract(1, t)))
    r = _ufunc.where(_ufunc.greater_equal(t, 0.5), hi, lo)
    dt = np.result_type(a.dtype, np.dtype(t.dtype))
    return r if r.dtype == dt else r.astype(dt)


def _quantile(fname, a, q, axis, out, overwrite_input, method, keepdims, weights,
              interpolation, percent, skip_nan):
    from . import _sort, _stats
    host = not isinstance(a, _nd)
    if host:
        a = np.asanyarray(a)
    _check(fname, a, method, weights, interpolation, overwrite_input)
    q_given = q.numpy() if isinstance(q, _nd) else q
    q = _q_of(fname, a, q, percent)
    axes = _reduce._axes(axis, a.ndim, fname)
    n = _stats._count(a, axes)
    kept = tuple(s for d, s in enumerate(a.shape) if d not in axes)
    rshape = tuple(1 if d in axes else s for d, s in enumerate(a.shape)) if keepdims else kept
    if n == 0 or q.size == 0 or int(np.prod(kept, dtype=np.int64)) == 0:
        # NumPy's own answer (its error, its NaNs) on an empty array of the shape
        f = getattr(np, fname)
        r = np.asarray(f(np.empty(a.shape, a.dtype), q_given, axis=axis, keepdims=keepdims))
        r = r if host else _array.asarray(r, context=a._ctx)
        return _stats._finish(r, out) if not host or out is not None else r[()]
    x = a if not host else _array.asarray(a)
    x = _stats._moved_last(x, axes)
    srt = _sort.sort(x, axis=-1)
    m = int(np.prod(kept, dtype=np.int64))
    flat = srt.reshape(-1)
    base = _array.arange(0, m * n, n, dtype=_I64, context=flat._ctx).reshape(kept)
    lift = q.shape + (1,) * len(kept)
    floats = x.dtype.kind == "f"
    if skip_nan and floats:
        k = _ufunc.subtract(n, _reduce.sum(_ufunc.isnan(x), -1, _I64))  # non-NaN per slice
        qd = _array.asarray(q.reshape(lift), context=flat._ctx)
        km1 = _ufunc.subtract(k, 1).astype(q.dtype if q.dtype.kind == "f" else np.float64)
        virtual = _ufunc.multiply(km1, qd)  # shape q + kept, q's dtype
        prevf = _ufunc.floor(virtual)
        above = _ufunc.greater_equal(virtual, km1)
        below = _ufunc.less(virtual, 0)
        last = _ufunc.maximum(_ufunc.subtract(k, 1), 0)
        prev = _ufunc.where(below, 0, _ufunc.where(above, last, prevf.astype(_I64)))
        nxt = _ufunc.where(below, 0, _ufunc.where(above, last, _ufunc.add(prev, 1)))
        gamma = _ufunc.subtract(virtual, _ufunc.where(above, -1.0, prevf).astype(virtual.dtype))
        gamma = gamma.astype(virtual.dtype)
        pa, pb = _ufunc.add(base, prev), _ufunc.add(base, nxt)
    else:
        prev, nxt, gamma = _host_neighbours(n, q)
        pa = _ufunc.add(base, _array.asarray(prev.reshape(lift), context=flat._ctx))
        pb = _ufunc.add(base, _array.asarray(nxt.reshape(lift), context=flat._ctx))
        gamma = _array.asarray(np.ascontiguousarray(gamma.reshape(lift)), context=flat._ctx)
    lo = flat[pa.reshape(-1)].reshape(pa.shape)
    if q.dtype.kind in "biu":  # integer virtual indices: NumPy takes the values
        r = lo
    else:
        r = _lerp(lo, flat[pb.reshape(-1)].reshape(pb.shape), gamma)
    if floats and not skip_nan:  # a slice with a NaN: NaN (its last sorted value)
        has_nan = _ufunc.isnan(srt[..., n - 1])
        r = _ufunc.where(has_nan, float("nan"), r).astype(r.dtype)
    r = r.reshape(q.shape + rshape)
    if host and out is None:
        h = r.numpy()
        return h[()] if h.ndim == 0 else h
    return _stats._finish(r, out)


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None, interpolation=None):
    """numpy.quantile on the GPU, method='linear'."""
    return _quantile("quantile", a, q, axis, out, overwrite_input, method, keepdims, weights,
                     interpolation, False, False)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None, interpolation=None):
    """numpy.percentile on the GPU: quantile of q / 100."""
    return _quantile("percentile", a, q, axis, out, overwrite_input, method, keepdims, weights,
                     interpolation, True, False)


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False, *, weights=None, interpolation=None):
    """numpy.nanquantile on the GPU: quantiles of the non-NaN values of each
    slice (NaN for an all-NaN slice, without NumPy's warning)."""
    return _quantile("nanquantile", a, q, axis, out, overwrite_input, method, keepdims,
                     weights, interpolation, False, True)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False, *, weights=None, interpolation=None):
    """numpy.nanpercentile on the GPU: nanquantile of q / 100."""
    return _quantile("nanpercentile", a, q, axis, out, overwrite_input, method, keepdims,
                     weights, interpolation, True, True)


NAMES = ("quantile", "percentile", "nanquantile", "nanpercentile")


# The parameters, written once for the four functions' docstrings.
_PARAMS = """

    a: the array (NumPy or resident; any real dtype); q: the {what}, a
    scalar or array in {rng}; axis: None (flattened), an int or a tuple of
    ints; out: a resident array for the result; keepdims: keep the reduced
    axes as size 1; method: only 'linear' (NumPy's default; any other is a
    NotImplementedError naming it); overwrite_input is accepted and ignored
    (the input is never changed); weights and the deprecated interpolation
    are NotImplementedError. The result is float64 for integer input, else
    the input's float dtype, with q's dimensions first.
    Example: vp.{name}(vp.arange(5.0), {q}) -> 2.0"""
for _f, _pct in ((quantile, False), (nanquantile, False), (percentile, True),
                 (nanpercentile, True)):
    _f.__doc__ += _PARAMS.format(what="percentages" if _pct else "quantile(s)",
                                 rng="[0, 100]" if _pct else "[0, 1]", name=_f.__name__,
                                 q=50 if _pct else 0.5)
