"""Counting into bins: digitize, bincount, histogram (docs/python-api.md,
"More NumPy functions").

No atomics: the values are sorted on the device and the bin boundaries
found by binary search (searchsorted), so a bin's count is the difference
of two positions, and a weighted bin the difference of two entries of the
cumulative sum of the weights taken in sorted order. Resident in ->
resident out; NumPy in -> NumPy's own function. Data-dependent sizes and
edges (bincount's length, histogram's automatic range) read back one or
two scalars.
"""
import builtins
import operator

import numpy as np

from . import _array, _numeric, _reduce, _shapeops, _sort, _ufunc

_nd = _array.ndarray
_I64 = np.dtype(np.int64)
_res = _shapeops._resident


def _asnd(x, ctx):
    return x if isinstance(x, _nd) else _array.asarray(np.asarray(x), context=ctx)


def digitize(x, bins, right=False):
    """vp.digitize(x, bins, right=False):
    numpy.digitize on the GPU: for each value of x the int64 index i of
    its bin in the 1-D monotonic `bins`: bins[i-1] <= x < bins[i] for
    increasing bins (bins[i-1] < x <= bins[i] with right=True), the
    mirror for decreasing ones; 0 or len(bins) outside. A binary search
    per value (searchsorted); checking that bins is monotonic reads back
    one bool.

        >>> vp.digitize(vp.asarray(np.array([0.5, 1.5, 3.0])), [1.0, 2.0, 3.0]).numpy()
        array([0, 1, 3])
    """
    if not _res(x, bins):
        return np.digitize(x, bins, right)
    ctx = _array.common_context("vp.digitize", (x, bins))
    x, bins = _asnd(x, ctx), _asnd(bins, ctx)
    if np.dtype(x.dtype).kind == "c":
        raise TypeError("x may not be complex")
    if bins.ndim != 1:
        raise ValueError("object too deep for desired array" if bins.ndim > 1 else
                         "object of too small depth for desired array")
    increasing = True
    if bins.size > 1:
        d = _numeric.diff(bins)
        if bool(_reduce.all(_ufunc.greater_equal(d, 0))):
            increasing = True
        elif bool(_reduce.all(_ufunc.less_equal(d, 0))):
            increasing = False
        else:
            raise ValueError("bins must be monotonically increasing or decreasing")
    side = "left" if right else "right"
    if increasing:
        return _sort.searchsorted(bins, x, side=side)
    flipped = _shapeops.flip(bins, 0)
    return _ufunc.subtract(bins.size, _sort.searchsorted(flipped, x, side=side))


def _bin_positions(srt, edges, n):
    """positions in the sorted values of each bin's start, the last edge
    counted into the last bin (NumPy's closed last bin): n + 1 int64."""
    cuts = _sort.searchsorted(srt, edges, side="left")
    last = _sort.searchsorted(srt, edges[n:], side="right")
    return _shapeops.concatenate([cuts[:n], last])


def _binned(srt, order, w, cuts, ctx):
    """counts (int64) or summed weights per bin (in the weights' dtype)
    from the cut positions; float weights accumulate in float64 where
    the device has it, integers in int64."""
    if w is None:
        return _numeric.diff(cuts)
    dt = np.dtype(w.dtype)
    acc = np.int64 if dt.kind in "iub" else np.float64 if ctx.has("float64") else dt
    cw = _reduce.cumsum(w.reshape(-1)[order].astype(acc))
    cw = _shapeops.concatenate([_array.zeros((1,), cw.dtype, context=ctx), cw])
    return _ufunc.subtract(cw[cuts[1:]], cw[cuts[:-1]]).astype(dt)


def bincount(x, weights=None, minlength=0):
    """vp.bincount(x, weights=None, minlength=0):
    numpy.bincount on the GPU: the number of occurrences of each value
    0..max(x) of the 1-D non-negative integer array x (int64), at least
    `minlength` long; with `weights` the sum of the weights of each value
    instead (float64, as NumPy's, so a float64 device is needed). Sorts x
    on the device; a weighted bin is the difference of two entries of the
    cumulative sum of the sorted weights, so its rounding error scales
    with the running total, not only the bin's sum (NumPy adds each
    weight to its bin). max(x) is read back (the result's length).

        >>> vp.bincount(vp.asarray(np.array([0, 1, 1, 3]))).numpy()
        array([1, 2, 0, 1])
    """
    if not _res(x, weights):
        return np.bincount(x, weights, minlength)
    minlength = operator.index(minlength) if minlength is not None else 0
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    ctx = _array.common_context("vp.bincount", (x, weights))
    x = _asnd(x, ctx)
    if x.ndim != 1:
        raise ValueError("object too deep for desired array" if x.ndim > 1 else
                         "object of too small depth for desired array")
    if np.dtype(x.dtype).kind not in "iub" or np.dtype(x.dtype) == np.uint64:
        raise TypeError(f"Cannot cast array data from dtype('{x.dtype}') to dtype('int64') "
                        f"according to the rule 'safe'")
    w = None
    if weights is not None:
        w = _asnd(weights, ctx)
        if tuple(w.shape) != tuple(x.shape):
            raise ValueError("The weights and list don't have the same length.")
        if x.size:
            ctx.require("float64", "vp.bincount with weights= (NumPy's float64 result)")
            w = w.astype(np.float64)
    n = minlength
    if x.size:
        if bool(_reduce.any(_ufunc.less(x, 0))):
            raise ValueError("'list' argument must have no negative elements")
        n = max(n, int(_reduce.max(x)) + 1)
    if x.size == 0:  # int64 zeros even with weights, as NumPy's
        return _array.zeros((n,), _I64, context=ctx)
    xs = x.astype(_I64)
    order = _sort.argsort(xs, kind="stable") if w is not None else None
    srt = xs[order] if order is not None else _sort.sort(xs)
    cuts = _sort.searchsorted(srt, _array.arange(n + 1, dtype=_I64, context=ctx))
    return _binned(srt, order, w, cuts, ctx)


def _outer_edges(col, rng):
    """NumPy's outer edges of data col (histogram, and each coordinate of
    histogramdd): the range given, else the data's min and max (two
    scalars read back, in its dtype), widened by 0.5 each way when they
    are equal."""
    if rng is not None:
        first, last = rng
        if first > last:
            raise ValueError("max must be larger than min in range parameter.")
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"supplied range of [{first}, {last}] is not finite")
    elif col.size == 0:
        first, last = 0, 1
    else:
        t = np.dtype(col.dtype).type
        first, last = t(_reduce.min(col).item()), t(_reduce.max(col).item())
        if not (np.isfinite(first) and np.isfinite(last)):
            raise ValueError(f"autodetected range of [{first}, {last}] is not finite")
    if first == last:
        first, last = first - 0.5, last + 0.5
    return first, last


_ESTIMATORS = ("auto", "fd", "doane", "rice", "scott", "sqrt", "sturges", "stone")


def _unsigned_subtract(a, b):
    """NumPy's a - b of histogram edges: exact for integers (a Python int),
    in the operands' type for floats."""
    if isinstance(a, (int, np.integer)) and isinstance(b, (int, np.integer)):
        return int(a) - int(b)
    return np.subtract(a, b)


def _estimated_bins(a, name, range_, weighted):
    """numpy.histogram's bins=<estimator>: the number of equal bins from
    NumPy's bin-width rule on a's values (the few statistics each needs are
    reduced on the device and read back: min and max, the standard
    deviation, the quartiles, the third moment), and the outer edges."""
    if name not in _ESTIMATORS:
        raise ValueError(f"{name!r} is not a valid estimator for `bins`")
    if name == "stone":
        raise NotImplementedError("vp.histogram: bins='stone' (a search over bin counts) is "
                                  "not supported; pass another estimator or a number of bins")
    if weighted:
        raise TypeError("Automated estimation of the number of bins is not supported for "
                        "weighted data")
    first, last = _outer_edges(a, range_)
    x = a
    if range_ is not None:
        keep = _ufunc.logical_and(_ufunc.greater_equal(a, first), _ufunc.less_equal(a, last))
        if not bool(_reduce.all(keep)):
            x = a[keep]
    if x.size == 0:
        return first, last, 1
    n = x.size
    t = np.dtype(x.dtype).type
    ptp = _unsigned_subtract(t(_reduce.max(x).item()), t(_reduce.min(x).item()))

    def sturges():
        return ptp / (np.log2(n) + 1.0)

    def fd():
        q = _array._ops.percentile(x, [75, 25]).numpy()
        return 2.0 * np.subtract(q[0], q[1]) * n ** (-1.0 / 3.0)

    if name == "sqrt":
        width = ptp / np.sqrt(n)
    elif name == "sturges":
        width = sturges()
    elif name == "rice":
        width = ptp / (2.0 * n ** (1.0 / 3))
    elif name == "scott":
        width = (24.0 * np.pi ** 0.5 / n) ** (1.0 / 3.0) * _array._ops.std(x).item()
    elif name == "fd":
        width = fd()
    elif name == "auto":
        fw, sw = fd(), sturges()
        width = min(fw, sw) if fw else sw
    else:  # doane
        width = 0.0
        if n > 2:
            sg1 = np.sqrt(6.0 * (n - 2) / ((n + 1.0) * (n + 3)))
            sigma = _array._ops.std(x).item()
            if sigma > 0.0:
                m = _array._ops.mean(x).item()
                g1 = _array._ops.mean(_ufunc.power(_ufunc.divide(_ufunc.subtract(x, m), sigma),
                                                   3)).item()
                width = ptp / (1.0 + np.log2(n) + np.log2(1.0 + np.absolute(g1) / sg1))
    if width:
        if np.issubdtype(x.dtype, np.integer) and width < 1:
            width = 1
        return first, last, int(np.ceil(_unsigned_subtract(last, first) / width))
    return first, last, 1  # a zero width (fd of data whose quartiles agree)


def _edges(a, bins, range_, ctx, weighted=False):
    """(edges as a resident 1-D array, their count minus one)."""
    if isinstance(bins, str):
        first, last, bins = _estimated_bins(a, bins, range_, weighted)
        range_ = (first, last)
    if np.ndim(bins) == 0:
        try:
            n = operator.index(bins)
        except TypeError:
            raise TypeError("`bins` must be an integer, a string, or an array") from None
        if n < 1:
            raise ValueError("`bins` must be positive, when an integer")
        first, last = _outer_edges(a, range_)
        dt = np.result_type(first, last, a.dtype)
        if dt.kind in "iub":
            dt = np.result_type(dt, float)
        edges = np.linspace(first, last, n + 1, endpoint=True, dtype=dt)
        return _array.asarray(edges, context=ctx), n
    edges = _asnd(bins, ctx)
    if edges.ndim != 1:
        raise ValueError("`bins` must be 1d, when an array")
    if edges.size > 1 and bool(_reduce.any(_ufunc.less(_numeric.diff(edges), 0))):
        raise ValueError("`bins` must increase monotonically, when an array")
    return edges, edges.size - 1


def histogram_bin_edges(a, bins=10, range=None, weights=None):  # noqa: A002
    """vp.histogram_bin_edges(a, bins=10, range=None, weights=None):
    numpy.histogram_bin_edges, the edges vp.histogram uses (an int: equal
    widths over range or a's min and max; a string: NumPy's estimator; an
    array: checked to increase). weights= only matters to the estimators
    (which, as NumPy's, refuse it). NumPy in -> NumPy out.

        >>> vp.histogram_bin_edges(vp.asarray(np.array([1.0, 2.0, 3.0])), bins=2).numpy()
        array([1., 2., 3.])
    """
    if not _res(a, bins if np.ndim(bins) else None, weights):
        return np.histogram_bin_edges(a, bins, range, weights)
    ctx = _array.common_context("vp.histogram_bin_edges", (a, bins, weights))
    flat = _asnd(a, ctx).reshape(-1)
    if weights is not None and tuple(_asnd(weights, ctx).shape) != tuple(np.shape(a)):
        raise ValueError("weights should have the same shape as a.")
    return _edges(flat, bins, range, ctx, weights is not None)[0]


def histogram(a, bins=10, range=None, density=None, weights=None):  # noqa: A002
    """vp.histogram(a, bins=10, range=None, density=None, weights=None):
    numpy.histogram on the GPU: (hist, bin_edges) of the flattened a.
    bins is a number of equal-width bins over `range` (default: a's min
    and max, two scalars read back) or the increasing edges; every bin
    is half-open [e_i, e_i+1) but the last, which holds its right edge,
    as NumPy's; values outside and NaN are not counted. hist is int64
    counts, or with `weights` (a's shape) their sums in the weights'
    dtype; density=True divides by the total and the bin width (float64,
    so a float64 device is needed). The values are sorted on the device
    and the edges found by binary search; weighted sums are differences
    of a cumulative sum (vp.bincount says what that means for rounding).

        >>> h, e = vp.histogram(vp.asarray(np.array([1.0, 2.0, 2.0, 3.0])), bins=2)
        >>> h.numpy(), e.numpy()
        (array([1, 3]), array([1., 2., 3.]))
    """
    if not _res(a, bins if np.ndim(bins) else None, weights):
        return np.histogram(a, bins, range, density, weights)
    ctx = _array.common_context("vp.histogram", (a, bins, weights))
    a = _asnd(a, ctx)
    flat = a.reshape(-1)
    w = None
    if weights is not None:
        w = _asnd(weights, ctx)
        if tuple(w.shape) != tuple(a.shape):
            raise ValueError("weights should have the same shape as a.")
    edges, n = _edges(flat, bins, range, ctx, weights is not None)
    if flat.size == 0 or n < 1:
        dt = _I64 if w is None else np.result_type(w.dtype)
        hist = _array.zeros((max(n, 0),), dt, context=ctx)
    else:
        order = _sort.argsort(flat, kind="stable") if w is not None else None
        srt = flat[order] if order is not None else _sort.sort(flat)
        hist = _binned(srt, order, w, _bin_positions(srt, edges, n), ctx)
    if density:
        ctx.require("float64", "vp.histogram(density=True) (NumPy's float64 result)")
        width = _numeric.diff(edges).astype(np.float64)
        total = _reduce.sum(hist.astype(np.float64))
        return _ufunc.divide(_ufunc.divide(hist.astype(np.float64), width), total), edges
    return hist, edges


def histogramdd(sample, bins=10, range=None, density=None, weights=None):  # noqa: A002
    """vp.histogramdd(sample, bins=10, range=None, density=None, weights=None):
    numpy.histogramdd on the GPU: (hist, edges) of N points in D
    dimensions (sample an (N, D) array, or a sequence of D 1-D arrays of
    length N). bins: a count or increasing edges, one for all coordinates
    or one per coordinate; the edges of a count are NumPy's linspace over
    `range` (default: each coordinate's min and max, read back). Every
    bin is half-open but the last of each axis, which holds its right
    edge; points outside and NaN are not counted. Each coordinate's bin is
    a binary search (searchsorted) into its edges, the D bins one flat
    position, the histogram a vp.bincount of those (weighted bins: the
    difference of two entries of a cumulative sum, as vp.bincount). hist is
    float64, as NumPy's (a float64 device is needed); edges a list of
    resident arrays."""
    seq = isinstance(sample, (list, tuple))
    per_axis = isinstance(bins, (list, tuple))
    given = (list(sample) if seq else [sample]) + [weights] + \
        (list(bins) if per_axis else [bins] if isinstance(bins, _nd) else [])
    if not _res(*given):
        return np.histogramdd(sample, bins, range, density, weights)
    ctx = _array.common_context("vp.histogramdd", given)
    if seq:
        cols = [_asnd(c, ctx) for c in sample]
        if any(c.ndim != 1 for c in cols) or len({c.size for c in cols}) > 1:
            raise ValueError("vp.histogramdd: a sequence sample must hold D 1-D arrays of one "
                             f"length (got shapes {[c.shape for c in cols]})")
    else:
        s = _asnd(sample, ctx)
        if s.ndim == 1:
            s = s.reshape(-1, 1)
        if s.ndim != 2:
            raise ValueError(f"vp.histogramdd: sample must be (N, D) (got shape {s.shape})")
        cols = [s[:, i] for i in builtins.range(s.shape[1])]
    D = len(cols)
    w = None
    if weights is not None:
        w = _asnd(weights, ctx)
        if w.ndim != 1 or (cols and w.size != cols[0].size):
            raise ValueError(f"vp.histogramdd: weights must be 1-D with one weight a point "
                             f"(got shape {w.shape})")
    try:
        m = len(bins)
    except TypeError:
        bins = D * [bins]
    else:
        if m != D:
            raise ValueError("The dimension of bins must be equal to the dimension of the "
                             "sample x.")
    if range is None:
        range = (None,) * D  # noqa: A001
    elif len(range) != D:
        raise ValueError("range argument must have one entry per dimension")
    ctx.require("float64", "vp.histogramdd (NumPy's float64 histogram)")
    edges, nbin, pos = [], [], None
    for i, col in enumerate(cols):
        b = bins[i]
        if np.ndim(b) == 0:
            try:
                n = operator.index(b)
            except TypeError:
                raise TypeError(f"`bins[{i}]` must be an integer, when a scalar") from None
            if n < 1:
                raise ValueError(f"`bins[{i}]` must be positive, when an integer")
            first, last = _outer_edges(col, range[i])
            e = _array.asarray(np.linspace(first, last, n + 1), context=ctx)
        elif np.ndim(b) == 1:
            e = _asnd(b, ctx)
            if e.size > 1 and bool(_reduce.any(_ufunc.less(_numeric.diff(e), 0))):
                raise ValueError(f"`bins[{i}]` must be monotonically increasing, when an array")
        else:
            raise ValueError(f"`bins[{i}]` must be a scalar or 1d array")
        edges.append(e)
        nbin.append(e.size + 1)  # an outlier bin at each end
        if col.size and e.size:
            c = _sort.searchsorted(e, col, side="right")
            # a point on the last edge is in the last bin
            c = _ufunc.subtract(c, _ufunc.equal(col, e[-1]).astype(_I64))
            pos = c if pos is None else _ufunc.add(_ufunc.multiply(pos, e.size + 1), c)
    total = int(np.prod(nbin))
    if pos is None:  # no points (or an axis without edges)
        hist = _array.zeros((total,), np.float64, context=ctx)
    else:
        hist = bincount(pos, w, minlength=total).astype(np.float64)
    hist = hist.reshape(tuple(nbin))[(slice(1, -1),) * D]
    if density:
        s = _reduce.sum(hist)
        for i, e in enumerate(edges):
            shape = [1] * D
            shape[i] = nbin[i] - 2
            hist = _ufunc.divide(hist, _numeric.diff(e).reshape(tuple(shape)))
        hist = _ufunc.divide(hist, s)
    elif not hist.contiguous:
        hist = hist.copy()
    return hist, edges


def histogram2d(x, y, bins=10, range=None, density=None, weights=None):  # noqa: A002
    """vp.histogram2d(x, y, bins=10, range=None, density=None, weights=None):
    numpy.histogram2d on the GPU: (hist, xedges, yedges) of the points
    (x[i], y[i]), through vp.histogramdd (whose docstring says how; hist
    is float64). bins: a count or edges for both, or a pair of them."""
    if not _res(x, y, weights, *(list(bins) if isinstance(bins, (list, tuple)) else [bins])):
        return np.histogram2d(x, y, bins, range, density, weights)
    try:
        n = len(bins)
    except TypeError:
        n = 1
    if n != 1 and n != 2:
        bins = [bins, bins]
    hist, edges = histogramdd([x, y], bins, range, density, weights)
    return hist, edges[0], edges[1]


NAMES = ("digitize", "bincount", "histogram", "histogramdd", "histogram2d")
