"""cov, corrcoef, kron, trapezoid, polyval (docs/python-api.md, "More NumPy
functions"): NumPy's own formulas on the vp ufuncs, reductions, views
and matmul. Resident in -> resident out; NumPy in -> NumPy's own
function.
"""
import warnings

import numpy as np

from . import _array, _matmul, _numeric, _reduce, _shapeops, _ufunc

_nd = _array.ndarray
_res = _shapeops._resident


def _asnd(x, ctx):
    return x if isinstance(x, _nd) else _array.asarray(np.asarray(x), context=ctx)


def _rows2d(x, rowvar, transpose_row=False):
    """NumPy's ndmin=2 view of a cov operand, variables in rows: m is
    transposed for rowvar=False unless it was 1-D (a (1, n) m is n
    variables of one observation each); y unless it has one row
    (transpose_row=False: NumPy's own asymmetry)."""
    was_1d = x.ndim < 2
    x = x.reshape(1, -1) if was_1d else x
    if rowvar or was_1d or (x.shape[0] == 1 and not transpose_row):
        return x
    return x.T


def _cov_weights(fweights, aweights, n, ctx):
    """NumPy's checks of cov's weights and their product w (resident
    float64, or None), with aweights as given (for the normalization)."""
    w = aw = None
    if fweights is not None:
        f = _asnd(fweights, ctx).astype(np.float64)
        if bool(_reduce.any(_ufunc.not_equal(f, _ufunc.rint(f)))):
            raise TypeError("fweights must be integer")
        if f.ndim > 1:
            raise RuntimeError("cannot handle multidimensional fweights")
        if f.shape[0] != n:
            raise RuntimeError("incompatible numbers of samples and fweights")
        if bool(_reduce.any(_ufunc.less(f, 0))):
            raise ValueError("fweights cannot be negative")
        w = f
    if aweights is not None:
        aw = _asnd(aweights, ctx).astype(np.float64)
        if aw.ndim > 1:
            raise RuntimeError("cannot handle multidimensional aweights")
        if aw.shape[0] != n:
            raise RuntimeError("incompatible numbers of samples and aweights")
        if bool(_reduce.any(_ufunc.less(aw, 0))):
            raise ValueError("aweights cannot be negative")
        w = aw if w is None else _ufunc.multiply(w, aw)
    return w, aw


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *,
        dtype=None):
    """vp.cov(m, y=None, rowvar=True, bias=False, ddof=None,
    fweights=None, aweights=None, *, dtype=None):
    numpy.cov on the GPU: the covariance matrix of the variables in the
    rows of m (columns with rowvar=False), y's variables appended;
    normalized by N - ddof (ddof defaults to 1, or 0 with bias=True), or
    with fweights (integer repeat counts) / aweights (observation weights)
    by NumPy's weighted formulas and checks (their sums read back).
    The result is float64 for float32 and integer inputs, as NumPy's (a
    float64 device is needed), squeezed (a 0-d array for one variable).

        >>> vp.cov(vp.asarray(np.array([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]))).numpy()
        array([[ 1., -1.], [-1.,  1.]])
    """
    if not _res(m, y):
        return np.cov(m, y, rowvar, bias, ddof, fweights, aweights, dtype=dtype)
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    ctx = _array.common_context("vp.cov", (m, y))
    m = _asnd(m, ctx)
    if m.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    dt = np.dtype(dtype) if dtype is not None else np.result_type(m.dtype, np.float64) \
        if y is None else np.result_type(m.dtype, getattr(y, "dtype", np.asarray(y).dtype),
                                         np.float64)
    if dt == np.float64:
        ctx.require("float64", "vp.cov (NumPy's float64 result)")
    x = _rows2d(m.astype(dt), rowvar, transpose_row=True)
    if x.shape[0] == 0:
        return _array.empty((0, 0), dt, context=ctx)
    if y is not None:
        y = _asnd(y, ctx)
        if y.ndim > 2:
            raise ValueError("y has more than 2 dimensions")
        x = _shapeops.concatenate([x, _rows2d(y.astype(dt), rowvar)], axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    w, aw = _cov_weights(fweights, aweights, x.shape[1], ctx)
    if w is None:
        fact = x.shape[1] - ddof
        avg = _reduce.mean(x, axis=1, keepdims=True)
    else:
        w_sum = float(_reduce.sum(w))
        avg = _ufunc.divide(_reduce.sum(_ufunc.multiply(x, w), axis=1, keepdims=True), w_sum)
        if ddof == 0:
            fact = w_sum
        elif aw is None:
            fact = w_sum - ddof
        else:
            fact = w_sum - ddof * float(_reduce.sum(_ufunc.multiply(w, aw))) / w_sum
    if fact <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
        fact = 0.0
    xc = _ufunc.subtract(x, avg)
    xw = xc if w is None else _ufunc.multiply(xc, w)
    xt = xw.T.conj() if dt.kind == "c" else xw.T  # NumPy's dot(X, (X * w).T.conj())
    with np.errstate(divide="ignore", invalid="ignore"):
        c = _ufunc.multiply(_matmul.matmul(xc, xt), np.true_divide(1, fact))
    return _shapeops.squeeze(c)


def corrcoef(x, y=None, rowvar=True, bias=np._NoValue, ddof=np._NoValue, *, dtype=None):
    """vp.corrcoef(x, y=None, rowvar=True, *, dtype=None):
    numpy.corrcoef on the GPU: the Pearson correlation coefficients,
    cov(x, y, rowvar) divided by the outer product of the standard
    deviations and clipped to [-1, 1]; float64 as vp.cov. bias= and
    ddof= have no effect (deprecated in NumPy, which warns as here).

        >>> vp.corrcoef(vp.asarray(np.array([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]))).numpy()
        array([[ 1., -1.], [-1.,  1.]])
    """
    if not _res(x, y):
        return np.corrcoef(x, y, rowvar, bias, ddof, dtype=dtype)
    if bias is not np._NoValue or ddof is not np._NoValue:
        warnings.warn("bias and ddof have no effect and are deprecated", DeprecationWarning,
                      stacklevel=2)
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return _ufunc.divide(c, c)
    d = _numeric.diagonal(c)
    d = _ufunc.sqrt(d.real if d.dtype.kind == "c" else d)
    c = _ufunc.divide(_ufunc.divide(c, d.reshape(-1, 1)), d.reshape(1, -1))
    if c.dtype.kind != "c":
        return _ufunc.clip(c, -1, 1)
    c = c.copy() if not c.contiguous else c
    for part in (c.real, c.imag):  # each part clipped, as NumPy's
        _ufunc.clip(part, -1, 1, out=part)
    return c


def kron(a, b):
    """vp.kron(a, b):
    numpy.kron on the GPU: the Kronecker product, blocks of b scaled by
    each element of a (shapes multiplied axis by axis after the smaller
    ndim is padded with leading ones), in the result dtype of a * b.

        >>> vp.kron(vp.asarray(np.array([1, 10])), np.array([1, 2])).numpy()
        array([ 1,  2, 10, 20])
    """
    if not _res(a, b):
        return np.kron(a, b)
    ctx = _array.common_context("vp.kron", (a, b))
    a, b = _asnd(a, ctx), _asnd(b, ctx)
    if a.ndim == 0 or b.ndim == 0:
        return _ufunc.multiply(a, b)
    nd = max(a.ndim, b.ndim)
    sa = (1,) * (nd - a.ndim) + tuple(a.shape)
    sb = (1,) * (nd - b.ndim) + tuple(b.shape)
    ea = tuple(d for s in sa for d in (s, 1))   # (a0, 1, a1, 1, ...)
    eb = tuple(d for s in sb for d in (1, s))   # (1, b0, 1, b1, ...)
    r = _ufunc.multiply(a.reshape(ea), b.reshape(eb))
    return r.reshape(tuple(x * y for x, y in zip(sa, sb)))


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """vp.trapezoid(y, x=None, dx=1.0, axis=-1):
    numpy.trapezoid on the GPU: the integral of y along `axis` by the
    trapezoidal rule, with sample points x (1-D of that axis's length,
    or y's shape) or spacing dx. Integer y gives float64, as NumPy's.

        >>> float(vp.trapezoid(vp.asarray(np.array([1.0, 2.0, 3.0]))))
        4.0
    """
    if not _res(y, x, dx if np.ndim(dx) else None):
        return np.trapezoid(y, x, dx, axis)
    ctx = _array.common_context("vp.trapezoid", (y, x, dx))
    y = _asnd(y, ctx)
    ax = _shapeops._axis(axis, y.ndim, "trapezoid")
    if x is None:
        d = dx
    else:
        x = _asnd(x, ctx)
        if x.ndim == 1:
            d = _numeric.diff(x)
            shape = [1] * y.ndim
            shape[ax] = d.shape[0]
            d = d.reshape(shape)
        else:
            d = _numeric.diff(x, axis=ax)
    lo = [slice(None)] * y.ndim
    hi = [slice(None)] * y.ndim
    lo[ax], hi[ax] = slice(None, -1), slice(1, None)
    mid = _ufunc.divide(_ufunc.add(y[tuple(hi)], y[tuple(lo)]), 2.0)
    return _reduce.sum(_ufunc.multiply(d, mid), axis=ax)


def polyval(p, x):
    """vp.polyval(p, x):
    numpy.polyval on the GPU: p[0] * x**(n-1) + ... + p[n-1] by Horner's
    rule (one multiply-add per coefficient); the result has x's shape
    and the result dtype of p and x.

        >>> vp.polyval([3, 0, 1], vp.asarray(np.array([5.0]))).numpy()
        array([76.])
    """
    if not _res(p, x):
        return np.polyval(p, x)
    ctx = _array.common_context("vp.polyval", (p, x))
    p = _asnd(p, ctx)
    x = _asnd(x, ctx)
    if p.ndim != 1:
        raise ValueError("vp.polyval: p must be a 1-D sequence of coefficients")
    yv = _array.zeros(tuple(x.shape), x.dtype, context=ctx)
    for i in range(p.shape[0]):
        yv = _ufunc.add(_ufunc.multiply(yv, x), p[i])
    return yv


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """vp.polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    numpy.polyfit on the GPU: the least-squares polynomial of degree deg
    through (x, y) (y 1-D, or 2-D: one fit per column), highest power
    first. NumPy's method: the Vandermonde matrix (vp.vander) with its
    columns scaled to unit norm, then vp.linalg.lstsq (the one-sided Jacobi
    SVD on the device); RankWarning when the rank is short of deg + 1.
    full=True returns (coefficients, residuals, rank, singular values,
    rcond); cov=True (or 'unscaled') also the covariance matrix; w weights
    the points. The fit is in float64 for float32 input too (NumPy's
    vander promotes x with int), as NumPy's; it needs the device's float64.

        >>> vp.polyfit(vp.asarray([0.0, 1.0, 2.0]), vp.asarray([1.0, 3.0, 5.0]), 1).round(6).tolist()
        [2.0, 1.0]"""
    if not _res(x, y, w):
        return np.polyfit(x, y, deg, rcond, full, w, cov)
    from . import linalg
    ctx = _array.common_context("vp.polyfit", (x, y, w))
    x = _ufunc.add(_asnd(x, ctx), 0.0)
    y = _ufunc.add(_asnd(y, ctx), 0.0)
    order = int(deg) + 1
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")
    if rcond is None:
        rcond = x.shape[0] * np.finfo(x.dtype).eps
    lhs = _numeric.vander(x, order)
    rhs = y
    if w is not None:
        w = _ufunc.add(_asnd(w, ctx), 0.0)
        if w.ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if w.shape[0] != y.shape[0]:
            raise TypeError("expected w and y to have the same length")
        # NumPy's in-place `lhs *= w[:, None]; rhs *= w`: each keeps its
        # dtype (float32 y stays float32 there, rounded)
        lhs = _ufunc.multiply(lhs, w.reshape((-1, 1))).astype(lhs.dtype)
        rhs = _ufunc.multiply(rhs, w if rhs.ndim == 1 else w.reshape((-1, 1))).astype(rhs.dtype)
    scale = _ufunc.sqrt(_reduce.sum(_ufunc.multiply(lhs, lhs), axis=0))
    lhs = _ufunc.divide(lhs, scale)
    c, resids, rank, s = linalg.lstsq(lhs, rhs, rcond)
    c = _ufunc.divide(c, scale if c.ndim == 1 else scale.reshape((-1, 1)))
    if rank != order and not full:
        warnings.warn("Polyfit may be poorly conditioned", np.exceptions.RankWarning,
                      stacklevel=2)
    if full:
        return c, resids, rank, s, rcond
    if cov:
        vbase = linalg.inv(_matmul.matmul(_shapeops.swapaxes(lhs, 0, 1), lhs))
        vbase = _ufunc.divide(vbase, _ufunc.multiply(scale.reshape((-1, 1)),
                                                     scale.reshape((1, -1))))
        if cov == "unscaled":
            fac = 1
        else:
            if x.shape[0] <= order:
                raise ValueError("the number of data points must exceed order to scale the "
                                 "covariance matrix")
            fac = _ufunc.divide(resids, x.shape[0] - order)
        if y.ndim == 1:
            return c, _ufunc.multiply(vbase, fac)
        return c, _ufunc.multiply(vbase.reshape(vbase.shape + (1,)), fac)
    return c


NAMES = ("cov", "corrcoef", "kron", "trapezoid", "polyval", "polyfit")
