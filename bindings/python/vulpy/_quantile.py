"""percentile, quantile, nanpercentile, nanquantile (issue 19) on the device
(docs/python-api.md, "Quantiles", is the reference: dtypes, NaN slices,
the order of q's dimensions).

Every method of NumPy's: each slice along the reduced axes (merged into
one, last) is sorted (vp.sort: NaN last); the method's virtual index (the
same expression as NumPy's get_virtual_index, in the same dtypes) either
picks an element (the discrete methods: lower, higher, nearest,
inverted_cdf, closest_observation; and integer indices of linear) or
mixes its two neighbours by NumPy's _lerp formula with the method's gamma.
The index, neighbours and weight are NumPy's code on the host for quantile
/ percentile (n is one number), and the same formulas on the device for
the NaN-skipping variants (n differs per slice).
"""
import numpy as np

from . import _array, _reduce, _ufunc

_nd = _array.ndarray
_I64 = np.dtype(np.int64)
# NumPy 2.4 takes a Python number q as it is (float64), divides a
# percentile's q by the weak int 100, and interpolates with a Python-float
# gamma, so the result dtype follows a's (an integer a: float64) where 2.3
# kept q's (quantile(int64 array, 1, method='weibull') is float64 there,
# int64 before). VulPy follows the NumPy it runs with.
_WEAK_Q = np.lib.NumpyVersion(np.__version__) >= "2.4.0"
def _numpy_refuses(f, a):
    """Whether NumPy's weighted f refuses a slice whose weights sum to
    zero ("Weights included NaN, inf or were all zero": NumPy 2.5 does,
    2.3 picks the slice's first element)."""
    import warnings
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            f(np.asarray(a), 0.5, weights=np.zeros(len(a)), method="inverted_cdf")
    except ValueError:
        return True
    return False


# VulPy follows the NumPy it runs with
_ZERO_WEIGHTS_RAISE = _numpy_refuses(np.quantile, [1.0])
_NAN_ZERO_WEIGHTS_RAISE = _numpy_refuses(np.nanquantile, [1.0, np.nan])
_NUMPY_METHODS = ("inverted_cdf", "averaged_inverted_cdf", "closest_observation",
                  "interpolated_inverted_cdf", "hazen", "weibull", "linear", "median_unbiased",
                  "normal_unbiased", "lower", "higher", "midpoint", "nearest")


def _check(fname, a, method, weights, interpolation, overwrite_input):
    if interpolation is not None:
        raise NotImplementedError(f"vp.{fname}: interpolation= (deprecated in NumPy) is not "
                                  f"supported; use method='linear'")
    if weights is not None and method != "inverted_cdf":
        raise ValueError(f"vp.{fname}: only method 'inverted_cdf' supports weights. Got: "
                         f"{method}.")
    if method not in _NUMPY_METHODS:
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
        hundred = dt.type(100) if dt.kind == "f" and not _WEAK_Q else 100
        q = np.asanyarray(np.true_divide(q, hundred, out=...))
        what = "Percentiles must be in the range [0, 100]"
    else:
        q = np.asanyarray(q, dtype=dt) if isinstance(q, (int, float)) and dt.kind == "f" \
            and not _WEAK_Q else np.asanyarray(q)
        what = "Quantiles must be in the range [0, 1]"
    if q.dtype.kind not in "biuf":
        raise TypeError(f"vp.{fname}: q must be real numbers, got {q.dtype.name}")
    if q.size and not (q.min() >= 0 and q.max() <= 1):
        raise ValueError(what)
    return q


# H&F's continuous methods: NumPy's _compute_virtual_index(n, q, alpha, beta)
_ALPHA_BETA = {"interpolated_inverted_cdf": (0, 1), "hazen": (0.5, 0.5), "weibull": (0, 0),
               "median_unbiased": (1 / 3.0, 1 / 3.0), "normal_unbiased": (3 / 8.0, 3 / 8.0)}


def _virtual(m, n, q, method):
    """NumPy's get_virtual_index of `method` for n values (a Python int, or
    an array of counts per slice) and q, with m's floor / ceil / rint /
    where / equal / remainder (numpy, or the device's ufuncs): (index,
    discrete), discrete meaning the index picks an element."""
    if method in ("linear", "lower", "higher", "nearest", "midpoint"):
        v = (n - 1) * q
        if method == "midpoint":
            return 0.5 * (m.floor(v) + m.ceil(v)), False
        f = {"lower": m.floor, "higher": m.ceil, "nearest": m.rint}.get(method)
        return (f(v), True) if f is not None else (v, False)
    if method in ("inverted_cdf", "closest_observation"):
        # _discrete_interpolation_to_boundaries: the element before the
        # index where its gamma is 0 (closest_observation: and it is odd)
        v = n * q - 1 if method == "inverted_cdf" else n * q - 1 - 0.5
        prev = m.floor(v)
        at = m.equal(v - prev, 0)
        if method == "closest_observation":
            at = m.logical_and(at, m.equal(m.remainder(prev, 2), 1))
        return m.where(at, prev, prev + 1), True
    if method == "averaged_inverted_cdf":
        return n * q - 1, False
    alpha, beta = _ALPHA_BETA[method]
    return n * q + (alpha + q * (1 - alpha - beta)) - 1, False


def _fix_gamma(m, gamma, v, method):
    """NumPy's fix_gamma of the continuous methods."""
    if method == "averaged_inverted_cdf":
        return m.where(m.equal(gamma, 0), 0.5, 1.0)
    if method == "midpoint":
        return m.where(m.equal(m.remainder(v, 1), 0), 0.0, 0.5)
    return gamma


def _host_plan(n, q, method):
    """NumPy's indexes and gamma on n values (quantile's _get_indexes and
    _get_gamma): (prev, nxt, gamma), gamma None where the index picks the
    element (a discrete method, or linear's integer index)."""
    v, discrete = _virtual(np, n, q, method)
    v = np.asanyarray(v)
    if discrete or (method == "linear" and v.dtype.kind in "iu"):
        idx = np.clip(v, 0, n - 1).astype(_I64)
        return idx, idx, None
    above = v >= n - 1
    prev = np.asanyarray(np.clip(np.floor(v), 0, n - 1)).astype(_I64)
    nxt = np.asanyarray(np.clip(np.floor(v) + 1, 0, n - 1)).astype(_I64)
    # NumPy's gamma uses the index -1 for `above` and 0 below (the same
    # element either side, so the weight only matters through 0 * t):
    # kept as NumPy has it
    gamma = np.asanyarray(v - np.where(above, -1, np.where(v < 0, 0, np.floor(v))))
    gamma = np.asanyarray(_fix_gamma(np, gamma, v, method), dtype=v.dtype)
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
    weak = _WEAK_Q and type(q) in (int, float)
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
    if weights is not None:
        r = _weighted(fname, x, q, axis, axes, weights, kept, n, skip_nan)
        r = r.reshape(q.shape + rshape)
        if host and out is None:
            h = r.numpy()
            return h[()] if h.ndim == 0 else h
        return _stats._finish(r, out)
    x = _stats._moved_last(x, axes)
    srt = _sort.sort(x, axis=-1)
    m = int(np.prod(kept, dtype=np.int64))
    flat = srt.reshape(-1)
    base = _array.arange(0, m * n, n, dtype=_I64, context=flat._ctx).reshape(kept)
    lift = q.shape + (1,) * len(kept)
    floats = x.dtype.kind == "f"
    if skip_nan and floats:
        gamma = _device_plan(x, n, q.reshape(lift), method, flat._ctx)
        pa, pb, gamma = _ufunc.add(base, gamma[0]), _ufunc.add(base, gamma[1]), gamma[2]
    else:
        prev, nxt, gamma = _host_plan(n, q, method)
        pa = _ufunc.add(base, _array.asarray(prev.reshape(lift), context=flat._ctx))
        pb = _ufunc.add(base, _array.asarray(nxt.reshape(lift), context=flat._ctx))
        if gamma is not None:
            gamma = _array.asarray(np.ascontiguousarray(gamma.reshape(lift)), context=flat._ctx)
    if weak and gamma is not None:  # NumPy 2.4's float(gamma): a's dtype decides
        gamma = gamma.astype(np.result_type(x.dtype, 0.0))
    lo = flat[pa.reshape(-1)].reshape(pa.shape)
    if gamma is None:  # the index picks the element (in the input's dtype, as NumPy's take)
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


def _weighted(fname, x, q, axis, axes, weights, kept, n, skip_nan):
    """NumPy's weighted method='inverted_cdf' on the device: each slice
    (the reduced axes merged, last) sorted stably with its weights, their
    running sum (float64, as NumPy's, where the device has it) over the
    slice's total is the empirical CDF, and quantile q picks the first
    element whose CDF reaches q (the count of CDF values below q, NumPy's
    searchsorted side='left'; zeros of the CDF count as below, so leading
    zero weights are skipped); a slice holding NaN gives NaN, or with
    skip_nan (nanquantile: NumPy drops the NaNs and their weights) the NaNs
    weigh nothing (they sort last, past every pick; an all-NaN slice picks
    a NaN). Returns the picks, shape q.shape + kept."""
    from . import _sort, _stats
    ops = _array._ops
    ctx = x._ctx
    w = weights if isinstance(weights, _nd) else _array.asarray(np.asarray(weights), context=ctx)
    if np.dtype(w.dtype).kind not in "biuf":
        raise TypeError(f"vp.{fname}: weights must be real numbers, got {w.dtype}")
    if tuple(w.shape) != tuple(x.shape):
        if axis is None:
            raise TypeError(f"vp.{fname}: Axis must be specified when shapes of a and weights "
                            f"differ.")
        order = tuple(int(d) % x.ndim for d in (axis if isinstance(axis, tuple) else (axis,)))
        if tuple(w.shape) != tuple(x.shape[d] for d in order):
            raise ValueError(f"vp.{fname}: Shape of weights must be consistent with shape of "
                             f"a along specified axis.")
        # NumPy's _weights_are_valid: the weights of the reduced axes (in
        # axis='s order) put in a's order, broadcast along the others
        w = w.transpose(tuple(int(i) for i in np.argsort(order))).reshape(
            tuple(s if d in axes else 1 for d, s in enumerate(x.shape)))
        w = ops.broadcast_to(w, x.shape)
    if bool(_reduce.any(_ufunc.less(w, 0))):
        raise ValueError(f"vp.{fname}: Weights must be non-negative.")
    if skip_nan and x.dtype.kind == "f":
        w = _ufunc.where(_ufunc.isnan(x), 0, w).astype(w.dtype)
    xs = _stats._moved_last(x, axes)
    ws = _stats._moved_last(w, axes)
    order = _sort.argsort(xs, axis=-1)          # stable, NaN last
    xs = ops.take_along_axis(xs, order, -1)
    ws = ops.take_along_axis(ws, order, -1)
    acc = np.dtype(np.float64 if ctx.has("float64") else np.float32)
    cdf = _reduce.cumsum(ws, -1, acc)
    total = cdf[..., n - 1:]
    if _NAN_ZERO_WEIGHTS_RAISE if skip_nan else _ZERO_WEIGHTS_RAISE:
        bad = _ufunc.logical_or(_ufunc.equal(total, 0), _ufunc.logical_not(_ufunc.isfinite(total)))
        if skip_nan and x.dtype.kind == "f":
            # an all-NaN slice is NaN, not an error (NumPy 2.5's nanquantile)
            bad = _ufunc.logical_and(bad, _ufunc.logical_not(_ufunc.isnan(xs[..., :1])))
        if bool(_reduce.any(bad)):
            raise ValueError(f"vp.{fname}: Weights included NaN, inf or were all zero.")
    cdf = _ufunc.divide(cdf, total)
    if q.dtype.kind == "f":
        cdf = cdf.astype(q.dtype)
    cdf = _ufunc.where(_ufunc.equal(cdf, 0), -1, cdf).astype(cdf.dtype)
    qd = _array.asarray(np.ascontiguousarray(q.reshape(q.shape + (1,) * (len(kept) + 1))),
                        context=ctx)
    below = _reduce.sum(_ufunc.less(cdf, qd), -1, _I64)    # q.shape + kept
    idx = _ufunc.minimum(below, n - 1)
    m = int(np.prod(kept, dtype=np.int64))
    base = _array.arange(0, m * n, n, dtype=_I64, context=ctx).reshape(kept)
    flat = xs.reshape(-1)   # (take_along_axis made it: contiguous)
    pos = _ufunc.add(base, idx)
    r = flat[pos.reshape(-1)].reshape(pos.shape)
    if x.dtype.kind == "f" and not skip_nan:  # a slice with a NaN: NaN (its last sorted value)
        r = _ufunc.where(_ufunc.isnan(xs[..., n - 1]), xs[..., n - 1], r).astype(r.dtype)
    return r


def _device_plan(x, n, q, method, ctx):
    """_host_plan per slice of x (last axis, n long) on the device, with the
    count of its non-NaN values for n (they sort first): (prev, nxt,
    gamma), indexes within the slice, gamma None where they pick."""
    k = _ufunc.subtract(n, _reduce.sum(_ufunc.isnan(x), -1, _I64))  # non-NaN per slice
    # the index in the dtype NumPy's has (q's, float64 for integers but for
    # integer q with linear and the discrete methods)
    vdt = np.asanyarray(_virtual(np, 2, q, method)[0]).dtype
    nk = k if vdt.kind in "iu" else k.astype(vdt)
    qd = _array.asarray(np.ascontiguousarray(q), context=ctx)
    v, discrete = _virtual(_ufunc, nk, qd, method)  # shape q + kept
    last = _ufunc.maximum(_ufunc.subtract(k, 1), 0)
    if discrete or (method == "linear" and vdt.kind in "iu"):
        idx = _ufunc.minimum(_ufunc.maximum(v, 0), last).astype(_I64)
        return idx, idx, None
    prevf = _ufunc.floor(v)
    above = _ufunc.greater_equal(v, _ufunc.subtract(nk, 1))
    below = _ufunc.less(v, 0)
    prev = _ufunc.where(below, 0, _ufunc.where(above, last, prevf.astype(_I64)))
    nxt = _ufunc.where(below, 0, _ufunc.where(above, last, _ufunc.add(prev, 1)))
    gamma = _ufunc.subtract(v, _ufunc.where(above, -1, _ufunc.where(below, 0, prevf)))
    gamma = _fix_gamma(_ufunc, gamma, v, method).astype(v.dtype)
    return prev, nxt, gamma


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None, interpolation=None):
    """numpy.quantile on the GPU (every method of NumPy's)."""
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
    axes as size 1; method: any of NumPy's ('linear', its default; the
    discrete 'lower', 'higher', 'nearest', 'inverted_cdf',
    'closest_observation' pick an element, in the input's dtype; the others
    interpolate); overwrite_input is accepted and ignored (the input is
    never changed); weights (method='inverted_cdf' only, as NumPy's): an
    array of a's shape, or of the reduced axes' shape with axis given,
    non-negative (the NaN-skipping ones drop NaNs with their weights); the
    deprecated
    interpolation is NotImplementedError. An interpolated result is float64 for integer
    input, else the input's float dtype, with q's dimensions first.
    Example: vp.{name}(vp.arange(5.0), {q}) -> 2.0"""
for _f, _pct in ((quantile, False), (nanquantile, False), (percentile, True),
                 (nanpercentile, True)):
    _f.__doc__ += _PARAMS.format(what="percentages" if _pct else "quantile(s)",
                                 rng="[0, 100]" if _pct else "[0, 1]", name=_f.__name__,
                                 q=50 if _pct else 0.5)
