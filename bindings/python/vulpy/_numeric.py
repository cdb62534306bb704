"""Comparisons, differences and matrix-shape helpers a CuPy user reaches for
(issue 19): isclose, allclose, array_equal, array_equiv, diff, ediff1d,
tril, triu, diag, diagonal, trace, meshgrid, logspace, nan_to_num,
atleast_1d/2d/3d, append, divmod, modf, frexp, unwrap, vander, trim_zeros,
copyto, putmask, place (docs/python-api.md, "Comparisons,
differences, matrix shapes", says NumPy 2's semantics they follow).

Each is a composition of the vp ufuncs, reductions, views and shape
operations (_ufunc, _reduce, _indexing, _shapeops): resident in -> resident
out, NumPy in -> NumPy's own function. allclose, array_equal and
array_equiv return a Python bool (one value read back).
"""
import builtins
import operator

import numpy as np

from . import _array, _reduce, _shapeops, _ufunc

_nd = _array.ndarray
_BOOL = np.dtype(np.bool_)
_res = _shapeops._resident  # any operand resident


def _asnd(x, ctx):
    """x as a resident array on ctx (NumPy data and scalars are uploaded)."""
    if isinstance(x, _nd):
        return x
    return _array.asarray(np.asarray(x), context=ctx)


# ---------------------------------------------------------------- closeness
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """numpy.isclose on the GPU: |a - b| <= atol + rtol * |b| elementwise,
    in the result type of (a, b, 1.0) (integers compare as floats);
    infinities are close only to an equal infinity, NaN only to NaN with
    equal_nan=True."""
    if not _res(a, b):
        return np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    ctx = _array.common_context("vp.isclose", (a, b))
    dt = np.result_type(getattr(a, "dtype", np.asarray(a).dtype),
                        getattr(b, "dtype", np.asarray(b).dtype), 1.0)
    a = _asnd(a, ctx).astype(dt)
    b = _asnd(b, ctx).astype(dt)
    finite = _ufunc.logical_and(_ufunc.isfinite(a), _ufunc.isfinite(b))
    near = _ufunc.less_equal(_ufunc.abs(_ufunc.subtract(a, b)),
                             _ufunc.add(atol, _ufunc.multiply(rtol, _ufunc.abs(b))))
    r = _ufunc.where(finite, near, _ufunc.equal(a, b))
    if equal_nan:
        r = _ufunc.logical_or(r, _ufunc.logical_and(_ufunc.isnan(a), _ufunc.isnan(b)))
    return r


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """vp.allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    numpy.allclose: True when every element of isclose(a, b) is (one
    value read back)."""
    if not _res(a, b):
        return builtins.bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))
    return builtins.bool(_reduce.all(isclose(a, b, rtol, atol, equal_nan)))


def array_equal(a1, a2, equal_nan=False):
    """vp.array_equal(a1, a2, equal_nan=False):
    numpy.array_equal: same shape and equal elements (NaNs equal with
    equal_nan=True); a Python bool."""
    if not _res(a1, a2):
        return builtins.bool(np.array_equal(a1, a2, equal_nan=equal_nan))
    s1, s2 = np.shape(a1), np.shape(a2)
    if tuple(s1) != tuple(s2):
        return False
    ctx = _array.common_context("vp.array_equal", (a1, a2))
    a1, a2 = _asnd(a1, ctx), _asnd(a2, ctx)
    eq = _ufunc.equal(a1, a2)
    if equal_nan and np.dtype(a1.dtype).kind == "f" or equal_nan and np.dtype(a2.dtype).kind == "f":
        eq = _ufunc.logical_or(eq, _ufunc.logical_and(_ufunc.isnan(a1), _ufunc.isnan(a2)))
    return builtins.bool(_reduce.all(eq))


def array_equiv(a1, a2):
    """vp.array_equiv(a1, a2):
    numpy.array_equiv: broadcastable shapes and equal elements."""
    if not _res(a1, a2):
        return builtins.bool(np.array_equiv(a1, a2))
    try:
        np.broadcast_shapes(np.shape(a1), np.shape(a2))
    except ValueError:
        return False
    ctx = _array.common_context("vp.array_equiv", (a1, a2))
    return builtins.bool(_reduce.all(_ufunc.equal(_asnd(a1, ctx), _asnd(a2, ctx))))


# -------------------------------------------------------------- differences
def _slice(ndim, axis, s):
    idx = [slice(None)] * ndim
    idx[axis] = s
    return tuple(idx)


def diff(a, n=1, axis=-1, prepend=np._NoValue, append=np._NoValue):
    """vp.diff(a, n=1, axis=-1, prepend=<no value>, append=<no value>):
    numpy.diff on the GPU: the n-th difference along `axis` (for booleans
    `!=`, as NumPy), with prepend=/append= values joined first."""
    if not _res(a, None if prepend is np._NoValue else prepend,
                None if append is np._NoValue else append):
        return np.diff(a, n, axis, prepend, append)
    ctx = _array.common_context("vp.diff", (a, prepend, append))
    a = _asnd(a, ctx)
    if n == 0:
        return a
    if n < 0:
        raise ValueError(f"diff: order must be non-negative but got {n!r}")
    if a.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    ax = _shapeops._axis(axis, a.ndim, "diff")
    parts = []
    for v in (prepend, None, append):
        if v is None:
            parts.append(a)
        elif v is not np._NoValue:
            shape = list(a.shape)
            shape[ax] = 1
            v = _asnd(v, ctx)
            parts.append(_shapeops.broadcast_to(v, tuple(shape)) if v.ndim == 0 else v)
    if len(parts) > 1:
        a = _shapeops.concatenate(parts, axis=ax)
    op = _ufunc.not_equal if np.dtype(a.dtype) == _BOOL else _ufunc.subtract
    for _ in range(n):
        if a.shape[ax] == 0:
            break
        a = op(a[_slice(a.ndim, ax, slice(1, None))], a[_slice(a.ndim, ax, slice(None, -1))])
    return a


def ediff1d(ary, to_end=None, to_begin=None):
    """vp.ediff1d(ary, to_end=None, to_begin=None):
    numpy.ediff1d: differences of the flattened array, with optional
    values before and after."""
    if not _res(ary, to_end, to_begin):
        return np.ediff1d(ary, to_end, to_begin)
    ctx = _array.common_context("vp.ediff1d", (ary, to_end, to_begin))
    a = _asnd(ary, ctx).ravel()
    if a.dtype == np.bool_:  # NumPy subtracts (diff of bools is not_equal)
        raise TypeError("vp.ediff1d: boolean subtract, the `-` operator, is not supported "
                        "(NumPy's error); use diff (not_equal for bools) or bitwise_xor")
    d = diff(a)
    parts = [_asnd(np.ravel(np.asarray(to_begin, dtype=a.dtype)), ctx)] if to_begin is not None else []
    parts.append(d)
    if to_end is not None:
        parts.append(_asnd(np.ravel(np.asarray(to_end, dtype=a.dtype)), ctx))
    return _shapeops.concatenate(parts) if len(parts) > 1 else d


# ---------------------------------------------------------- matrix shapes
def _tri_mask(m, k, lower):
    rows, cols = m.shape[-2], m.shape[-1]
    ctx = m.context
    i = _array.arange(rows, dtype=np.int64, context=ctx).reshape(rows, 1)
    j = _array.arange(cols, dtype=np.int64, context=ctx).reshape(1, cols)
    d = _ufunc.subtract(j, i)
    return _ufunc.less_equal(d, k) if lower else _ufunc.greater_equal(d, k)


def _tri(m, k, lower):
    """tril (lower) or triu of resident m: 1-D input is first broadcast to
    a square, as NumPy does."""
    if m.ndim == 1:
        m = _shapeops.broadcast_to(m, (m.shape[0], m.shape[0]))
    if m.ndim < 1:
        raise ValueError(f"{'tril' if lower else 'triu'}: the input must be at least 1-D")
    return _ufunc.where(_tri_mask(m, int(k), lower), m, np.zeros((), m.dtype))


def tri(N, M=None, k=0, dtype=np.float32, *, memory=None, context=None):
    """vp.tri(N, M=None, k=0, dtype=float32, *, memory=None, context=None):
    numpy.tri as a resident N x M array (M None: square): ones on and below
    diagonal k, zeros above (VulPy's default dtype is float32, as vp.eye's;
    memory= and context= as for vp.zeros)."""
    N, M, k = _shapeops.matrix_args("tri", N, M, k)
    m = _array.empty((N, M), dtype, memory=memory, context=context)
    if m.size:
        m[...] = _tri_mask(m, k, True)  # (NumPy: greater_equal.outer, cast)
    return m


def tril(m, k=0):
    """vp.tril(m, k=0):
    numpy.tril: the elements on and below the k-th diagonal of the last
    two axes, zeros above (1-D input is first broadcast to a square)."""
    return _tri(m, k, True) if _res(m) else np.tril(m, k)


def triu(m, k=0):
    """vp.triu(m, k=0):
    numpy.triu: the elements on and above the k-th diagonal of the last
    two axes, zeros below."""
    return _tri(m, k, False) if _res(m) else np.triu(m, k)


def diagonal(a, offset=0, axis1=0, axis2=1):
    """vp.diagonal(a, offset=0, axis1=0, axis2=1):
    numpy.diagonal: the diagonal of the axis1/axis2 planes, as the last
    axis of the result (a copy here; NumPy's is a read-only view)."""
    if not _res(a):
        return np.diagonal(a, offset, axis1, axis2)
    if a.ndim < 2:
        raise ValueError("diagonal requires an array of at least two dimensions")
    ax1 = _shapeops._axis(axis1, a.ndim, "diagonal")
    ax2 = _shapeops._axis(axis2, a.ndim, "diagonal")
    if ax1 == ax2:
        raise ValueError("diagonal: axis1 and axis2 cannot be the same")
    b = _shapeops.moveaxis(a, (ax1, ax2), (-2, -1))
    rows, cols = b.shape[-2], b.shape[-1]
    offset = int(offset)
    if offset >= 0:
        n = max(0, min(rows, cols - offset))
        i0, j0 = 0, offset
    else:
        n = max(0, min(rows + offset, cols))
        i0, j0 = -offset, 0
    lead = b.shape[:-2]
    if n == 0:
        return _array.empty(lead + (0,), dtype=a.dtype, context=a.context)
    ii = _array.asarray(np.arange(i0, i0 + n, dtype=np.int64), context=a.context)
    jj = _array.asarray(np.arange(j0, j0 + n, dtype=np.int64), context=a.context)
    idx = (Ellipsis, ii, jj)
    return b[idx]


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """vp.trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    numpy.trace: sum along diagonals (NumPy's accumulation dtype)."""
    if not _res(a):
        return np.trace(a, offset, axis1, axis2, dtype, out)
    return _reduce.sum(diagonal(a, offset, axis1, axis2), -1, dtype, out)


def diag(v, k=0):
    """numpy.diag: a 2-D array with `v` on its k-th diagonal (1-D input), or
    the k-th diagonal of a 2-D input."""
    if not _res(v):
        return np.diag(v, k)
    k = int(k)
    if v.ndim == 1:
        n = v.shape[0] + abs(k)
        out = _array.zeros((n, n), dtype=v.dtype, context=v.context)
        if v.shape[0]:
            i = np.arange(v.shape[0], dtype=np.int64) + (0 if k >= 0 else -k)
            j = np.arange(v.shape[0], dtype=np.int64) + (k if k >= 0 else 0)
            out.ravel()[_array.asarray(i * n + j, context=v.context)] = v
        return out
    if v.ndim == 2:
        return diagonal(v, k)
    raise ValueError("diag: input must be 1-d or 2-d")


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """vp.meshgrid(*xi, copy=True, sparse=False, indexing='xy'):
    numpy.meshgrid: coordinate arrays from 1-D coordinate vectors
    (indexing 'xy' or 'ij'; sparse= gives broadcastable shapes)."""
    if not _res(*xi):
        return np.meshgrid(*xi, copy=copy, sparse=sparse, indexing=indexing)
    if indexing not in ("xy", "ij"):
        raise ValueError("meshgrid: indexing must be 'xy' or 'ij'")
    ctx = _array.common_context("vp.meshgrid", xi)
    xs = [_asnd(x, ctx).ravel() for x in xi]
    ndim = len(xs)
    out = []
    for i, x in enumerate(xs):
        shape = [1] * ndim
        shape[i] = x.shape[0]
        out.append(x.reshape(tuple(shape)))
    if indexing == "xy" and ndim > 1:
        for i in range(len(out)):
            out[i] = _shapeops.swapaxes(out[i], 0, 1)
    if not sparse:
        full = np.broadcast_shapes(*(o.shape for o in out))
        out = [_shapeops.broadcast_to(o, full) for o in out]
    if copy:
        out = [o.copy() for o in out]
    return tuple(out)


# -------------------------------------------------------------- creation
def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0, *,
             memory=None, context=None):
    """vp.logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0, *,
    memory=None, context=None):
    numpy.logspace as a resident array: base ** linspace(start, stop, num,
    endpoint) (float32 unless dtype= says otherwise, as vp.linspace; axis=0
    only); memory= and context= as for vp.zeros."""
    if axis != 0:
        raise NotImplementedError("logspace: axis= other than 0 is not supported")
    y = _array.linspace(start, stop, num, endpoint, dtype=dtype, memory=memory, context=context)
    r = _ufunc.power(np.asarray(base, dtype=y.dtype), y)
    return r if dtype is None else r.astype(dtype)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0, *, memory=None,
              context=None):
    """vp.geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0, *,
    memory=None, context=None):
    numpy.geomspace as a resident array (NumPy's own numbers, made on the
    host and uploaded, as vp.linspace's): float32 (complex64) for Python
    number bounds unless dtype= says otherwise, as vp.linspace; memory= and
    context= as for vp.zeros."""
    a = np.geomspace(start, stop, num, endpoint=endpoint, dtype=dtype, axis=axis)
    if dtype is None:
        a = a.astype(_array.default_dtype(a.dtype, start, stop), copy=False)
    return _array.asarray(a, memory=memory, context=context)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """vp.nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    numpy.nan_to_num on the GPU: NaN -> nan, +inf -> posinf (default the
    dtype's largest), -inf -> neginf (default the most negative). With
    copy=False the input is changed in place, as NumPy."""
    if not _res(x):
        return np.nan_to_num(x, copy=copy, nan=nan, posinf=posinf, neginf=neginf)
    dt = np.dtype(x.dtype)
    if dt.kind not in "fc":
        return x.copy() if copy else x
    if dt.kind == "c":  # each part on its own, as NumPy's
        r = x.copy() if copy else x
        for part in (r.real, r.imag):
            nan_to_num(part, copy=False, nan=nan, posinf=posinf, neginf=neginf)
        return r
    fi = np.finfo(dt)
    pos = np.asarray(fi.max if posinf is None else posinf, dt)
    neg = np.asarray(fi.min if neginf is None else neginf, dt)
    r = _ufunc.where(_ufunc.isnan(x), np.asarray(nan, dt), x)
    r = _ufunc.where(_ufunc.isposinf(r) if hasattr(_ufunc, "isposinf")
                     else _ufunc.logical_and(_ufunc.isinf(r), _ufunc.greater(r, 0)), pos, r)
    r = _ufunc.where(_ufunc.logical_and(_ufunc.isinf(r), _ufunc.less(r, 0)), neg, r)
    if not copy:
        x[...] = r
        return x
    return r


def _atleast(n, arys):
    res = [_shapeops._as_nd(a, n) if isinstance(a, _nd) else getattr(np, f"atleast_{n}d")(a)
           for a in arys]
    return res[0] if len(res) == 1 else tuple(res)


def atleast_1d(*arys):
    """vp.atleast_1d(*arys):
    numpy.atleast_1d: views with at least one dimension."""
    return _atleast(1, arys)


def atleast_2d(*arys):
    """vp.atleast_2d(*arys):
    numpy.atleast_2d: views with at least two dimensions."""
    return _atleast(2, arys)


def atleast_3d(*arys):
    """numpy.atleast_3d: views with at least three dimensions (NumPy's
    placement: (N,) -> (1, N, 1), (M, N) -> (M, N, 1))."""
    return _atleast(3, arys)


def append(arr, values, axis=None):
    """numpy.append: a new array, `values` after `arr` (flattened both when
    axis is None)."""
    if not _res(arr, values):
        return np.append(arr, values, axis)
    ctx = _array.common_context("vp.append", (arr, values))
    arr, values = _asnd(arr, ctx), _asnd(values, ctx)
    if axis is None:
        return _shapeops.concatenate([arr.ravel(), values.ravel()])
    return _shapeops.concatenate([arr, values], axis=axis)


def frexp(x, *outs, out=None):
    """vp.frexp(x, [m, e,] out=None):
    numpy.frexp: mantissa and exponent, x == m * 2**e with 0.5 <= |m| < 1
    (m keeps x's sign; zero, inf and NaN give (x, 0); subnormal x a normal
    m and its exponent, on every device: float16 and float32 by their bits,
    so a device that flushes float32 subnormals, ctx.flushes_subnormals,
    gets them too). m has x's float
    type (NumPy's for integer input), e is int32. out=(m, e) as
    vp.divmod's; `outs`, the outputs after the input, are out= too. np.frexp on resident arrays runs here.

        >>> [a.tolist() for a in vp.frexp(vp.asarray([8.0, -0.375]))]
        [[0.5, -0.75], [4, -1]]"""
    m_out, e_out = _pair_out("frexp", out, outs)
    out = None if m_out is None and e_out is None else (m_out, e_out)
    if not _res(x, m_out, e_out):
        return np.frexp(x) if out is None else np.frexp(x, out=out)
    ctx = _array.common_context("vp.frexp", (x, m_out, e_out))
    x = _asnd(x, ctx)
    want = np.frexp(np.zeros(1, x.dtype))[0].dtype
    if want.kind != "f":
        raise TypeError(f"vp.frexp: {x.dtype} input is not supported (NumPy's frexp has no "
                        f"loop for it)")
    if want.itemsize < 8:
        # float16 and float32 by the bits (_numeric_kernels.frexp_f32):
        # exact on a device that flushes float32 subnormals, where log2,
        # ldexp and a conversion to float64 all read them as 0. float16
        # converts to float32 exactly (no float32 subnormal is involved)
        # and m (at most 11 bits) converts back exactly.
        from . import _numeric_kernels as K
        xf = x.astype(np.float32) if x.dtype != np.float32 else x
        xf = xf if xf.contiguous else xf.copy()
        m = _array.empty(x.shape, np.float32, context=ctx)
        e = _array.empty(x.shape, np.int32, context=ctx)
        block = 65535 * 64  # (the x workgroup count every device takes)
        for i0 in range(0, x.size, block):
            K.frexp_f32(xf, m, e, n=x.size, i0=i0, dispatch=min(block, x.size - i0),
                        context=ctx)
        return _into("frexp", (m if want == np.float32 else m.astype(want), e),
                     (m_out, e_out))
    work = want  # float64: the device keeps float64 subnormals
    xf = x if x.dtype == work else x.astype(work)
    ax = _ufunc.absolute(xf)
    plain = _ufunc.logical_and(_ufunc.isfinite(xf), _ufunc.not_equal(xf, 0))
    # e from log2 (off by one near powers of two, where the rounding of
    # log2 decides), then m = ldexp(x, -e) and one step of correction:
    # ldexp is exact here (m is a normal number), so the check is too
    e = _ufunc.where(plain, _ufunc.add(_ufunc.floor(_ufunc.log2(_ufunc.where(plain, ax, 1))),
                                       1), 0).astype(np.int32)
    m = _ufunc.ldexp(xf, _ufunc.negative(e))
    am = _ufunc.absolute(m)
    up = _ufunc.logical_and(plain, _ufunc.greater_equal(am, 1))
    down = _ufunc.logical_and(plain, _ufunc.less(am, 0.5))
    e = _ufunc.add(e, _ufunc.subtract(up.astype(np.int32), down.astype(np.int32)))
    m = _ufunc.where(up, _ufunc.multiply(m, 0.5), _ufunc.where(down, _ufunc.multiply(m, 2), m))
    m = _ufunc.where(plain, m, xf)  # zero (either sign), inf, NaN: x itself
    return _into("frexp", (m, e), (m_out, e_out))


def unwrap(p, discont=None, axis=-1, *, period=2 * np.pi):
    """vp.unwrap(p, discont=None, axis=-1, *, period=2*pi):
    numpy.unwrap on the device: adds multiples of `period` wherever a step
    along `axis` is larger than `discont` (default period/2), so that no
    step is; NumPy's steps exactly (the boundary case of a step of exactly
    period/2 keeps its sign; integer input with an integer period stays
    integer). The running correction is vp.cumsum's, whose summation order
    differs from NumPy's: float results agree to rounding.

        >>> vp.unwrap(vp.asarray([0.0, 3.0, 6.0, 2.5])).tolist()  # doctest: +ELLIPSIS
        [0.0, 3.0, 6.0, 8.78...]"""
    if not _res(p):
        return np.unwrap(p, discont, axis, period=period)
    p = _asnd(p, _array.common_context("vp.unwrap", (p,)))
    if p.ndim == 0:
        raise ValueError("vp.unwrap: p must be at least one-dimensional")
    ax = _shapeops._axis(axis, p.ndim, "unwrap")
    dd = diff(p, axis=ax)
    if discont is None:
        discont = period / 2
    dtype = np.result_type(dd.dtype, period)
    if np.issubdtype(dtype, np.integer):
        high, rem = builtins.divmod(period, 2)
        ambiguous = rem == 0
    else:
        high, ambiguous = period / 2, True
    low = -high
    ddmod = _ufunc.add(_ufunc.remainder(_ufunc.subtract(dd, low), period), low)
    if ambiguous:  # a step of exactly period/2 keeps its sign
        copyto(ddmod, high, where=_ufunc.logical_and(_ufunc.equal(ddmod, low),
                                                     _ufunc.greater(dd, 0)))
    fix = _ufunc.subtract(ddmod, dd)
    copyto(fix, 0, where=_ufunc.less(_ufunc.absolute(dd), discont))
    up = p.astype(dtype) if p.dtype != dtype else p.copy()
    tail = _slice(p.ndim, ax, slice(1, None))
    up[tail] = _ufunc.add(p[tail], _reduce.cumsum(fix, axis=ax))
    return up


def vander(x, N=None, increasing=False):
    """vp.vander(x, N=None, increasing=False):
    numpy.vander on the device: the (len(x), N) matrix of powers of the
    1-D x, highest power first (x**(N-1), ..., x, 1) unless `increasing`;
    N defaults to len(x). NumPy's dtype (x's type promoted with int:
    int64 for integers and bool, float64 for float32), powers as running
    products (vp.cumprod; float results agree with NumPy's to rounding,
    integers exactly, wrapping on overflow as NumPy's do).

        >>> vp.vander(vp.asarray([1, 2, 3]), 3).tolist()
        [[1, 1, 1], [4, 2, 1], [9, 3, 1]]"""
    if not _res(x):
        return np.vander(x, N, increasing)
    x = _asnd(x, _array.common_context("vp.vander", (x,)))
    if x.ndim != 1:
        raise ValueError("vp.vander: x must be a one-dimensional array or sequence")
    n = x.shape[0]
    N = n if N is None else operator.index(N)
    if N < 0:
        raise ValueError(f"vp.vander: N must be non-negative, got {N}")
    dt = np.promote_types(x.dtype, int)
    v = _array.empty((n, N), dt, context=x.context)
    t = v if increasing else v[:, ::-1]
    if N > 0:
        t[:, 0] = 1
    if N > 1 and n:
        xs = x if x.dtype == dt else x.astype(dt)
        t[:, 1:] = _reduce.cumprod(_shapeops.broadcast_to(xs.reshape(n, 1), (n, N - 1)),
                                   axis=1)
    return v


def trim_zeros(filt, trim="fb", axis=None):
    """vp.trim_zeros(filt, trim='fb', axis=None):
    numpy.trim_zeros on the device: filt without its leading ('f') and/or
    trailing ('b') zeros: a view of filt (n-d: along every axis, or only
    `axis`, the bounds of the non-zero elements). Reads 2 * ndim indices
    back to the host (the view's bounds).

        >>> vp.trim_zeros(vp.asarray([0, 0, 1, 2, 0])).tolist()
        [1, 2]"""
    if not _res(filt):
        return np.trim_zeros(filt, trim, axis)
    if not isinstance(trim, str) or trim.lower() not in ("fb", "bf", "f", "b"):
        raise ValueError(f"unexpected character(s) in `trim`: {trim!r}")
    trim = trim.lower()
    filt = _asnd(filt, _array.common_context("vp.trim_zeros", (filt,)))
    if filt.ndim == 0:
        return filt[()]
    if axis is not None:
        axis = _shapeops._axis(axis, filt.ndim, "trim_zeros")
    nz = filt if np.dtype(filt.dtype) == _BOOL else _ufunc.not_equal(filt, 0)
    start, stop = [], []
    for ax in range(filt.ndim):
        others = tuple(a for a in range(filt.ndim) if a != ax)
        line = _reduce.any(nz, axis=others) if others else nz
        if not builtins.bool(_reduce.any(line)):  # all zero: an empty slice
            start, stop = [0] * filt.ndim, [0] * filt.ndim
            break
        start.append(int(_reduce.argmax(line)))
        stop.append(filt.shape[ax] - int(_reduce.argmax(line[::-1])))
    else:
        if "f" not in trim:
            start = [None] * filt.ndim
        if "b" not in trim:
            stop = [None] * filt.ndim
    if filt.ndim == 1:
        return filt[start[0]:stop[0]]
    if axis is None:
        return filt[tuple(slice(a, b) for a, b in zip(start, stop))]
    return filt[(slice(None),) * axis + (slice(start[axis], stop[axis]),)]


def _dummy(x):
    """An empty stand-in with x's dtype (resident or NumPy array), or x
    itself (a Python scalar keeps NumPy's weak-scalar rules)."""
    if isinstance(x, _array.ndarray):
        return np.zeros((0,) * builtins.max(x.ndim, 1), x.dtype)
    if isinstance(x, np.ndarray):
        return np.zeros((0,) * builtins.max(x.ndim, 1), x.dtype)
    return x


def select(condlist, choicelist, default=0):
    """vp.select(condlist, choicelist, default=0) in host Python:
    numpy.select on the device: from the first condition that holds, the
    matching choice, else default (all broadcast together; NumPy's result
    dtype). Inside a kernel vp.select(cond, a, b) is the kernel language's
    branch-free select (docs/language.md)."""
    condlist, choicelist = list(condlist), list(choicelist)
    if not _res(*condlist, *choicelist, default):
        return np.select(condlist, choicelist, default)
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if not condlist:
        raise ValueError("select with an empty condition list is not possible")
    # NumPy's dtype (and its errors) from empty stand-ins
    dt = np.select([np.zeros(0, bool)] * len(choicelist), [_dummy(c) for c in choicelist],
                   _dummy(default)).dtype
    ctx = _array.common_context("vp.select", tuple(condlist) + tuple(choicelist) + (default,))
    conds = [_asnd(c, ctx) for c in condlist]
    for i, c in enumerate(conds):
        if np.dtype(c.dtype) != _BOOL:
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")
    choices = [_asnd(c, ctx) for c in choicelist]
    dflt = _asnd(default, ctx)
    shape = np.broadcast_shapes(*(tuple(x.shape) for x in conds + choices + [dflt]))
    out = _shapeops.broadcast_to(dflt.astype(dt) if dflt.dtype != dt else dflt, shape)
    for cond, choice in zip(reversed(conds), reversed(choices)):
        out = _ufunc.where(cond, choice.astype(dt) if choice.dtype != dt else choice, out)
    return out if out._buf is not dflt._buf else out.copy()


def _numpy_crosses_2d():
    """Whether the NumPy we run with still takes 2-vectors in np.cross
    (deprecated in NumPy 2.0, refused by later versions)."""
    import warnings
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            np.cross(np.zeros(2), np.zeros(3))
        return True
    except ValueError:
        return False


_CROSS_2D = _numpy_crosses_2d()


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """vp.cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None) in host
    Python: numpy.cross on the device: the cross product of vectors of 3
    components along the given axes, the other axes broadcast. Vectors of
    2 components as the installed NumPy takes them: where it still does
    (NumPy 2.0 to 2.4: a DeprecationWarning; 2 and 2 give the z component
    only) VulPy does too, where it refuses them VulPy raises its
    ValueError. Inside a kernel vp.cross(u, v) is the kernel language's
    vec3 cross product."""
    if not _res(a, b):
        return np.cross(a, b, axisa, axisb, axisc, axis)
    ctx = _array.common_context("vp.cross", (a, b))
    a, b = _asnd(a, ctx), _asnd(b, ctx)
    if axis is not None:
        axisa = axisb = axisc = axis
    a = _shapeops.moveaxis(a, _shapeops._axis(axisa, a.ndim, "cross"), -1)
    b = _shapeops.moveaxis(b, _shapeops._axis(axisb, b.ndim, "cross"), -1)
    na, nb = a.shape[-1], b.shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n(dimension must be 2 or 3)")
    if not _CROSS_2D and (na == 2 or nb == 2):
        raise ValueError(f"Both input arrays must be (arrays of) 3-dimensional vectors, but they "
                         f"are {na} and {nb} dimensional instead.")
    if na == 2 and nb == 2:
        import warnings
        warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use arrays of "
                      "3-dimensional vectors instead. (deprecated in NumPy 2.0)",
                      DeprecationWarning, stacklevel=2)
    dt = np.result_type(a.dtype, b.dtype)
    a, b = a.astype(dt), b.astype(dt)
    mul, sub = _ufunc.multiply, _ufunc.subtract

    def c(x, i):
        return x[..., i]
    z = sub(mul(c(a, 0), c(b, 1)), mul(c(a, 1), c(b, 0)))
    if na == 2 and nb == 2:
        return z
    if na == 2:
        parts = [mul(c(a, 1), c(b, 2)), _ufunc.negative(mul(c(a, 0), c(b, 2))), z]
    elif nb == 2:
        parts = [_ufunc.negative(mul(c(a, 2), c(b, 1))), mul(c(a, 2), c(b, 0)), z]
    else:
        parts = [sub(mul(c(a, 1), c(b, 2)), mul(c(a, 2), c(b, 1))),
                 sub(mul(c(a, 2), c(b, 0)), mul(c(a, 0), c(b, 2))), z]
    shape = np.broadcast_shapes(*(tuple(p.shape) for p in parts))
    r = _shapeops.stack([_shapeops.broadcast_to(p, shape) for p in parts], axis=-1)
    return _shapeops.moveaxis(r, -1, _shapeops._axis(axisc, r.ndim, "cross"))


def _pair_out(name, out, outs=()):
    """out= of a two-output ufunc: None or a pair (each None or an array);
    outs: the outputs given after the inputs, as NumPy takes them
    (np.modf(x, f, w)), never together with out=."""
    if outs:
        if len(outs) > 2:
            raise TypeError(f"vp.{name}: too many positional arguments: at most 2 outputs "
                            f"after the inputs, got {len(outs)}")
        if out is not None:
            raise TypeError(f"vp.{name}: cannot specify 'out' as both a positional and "
                            f"keyword argument")
        out = tuple(outs) + (None,) * (2 - len(outs))
    if out is None:
        return None, None
    if not isinstance(out, tuple) or len(out) != 2:
        raise TypeError(f"vp.{name}: out must be a tuple of two arrays (or None each), "
                        f"got {type(out).__name__}")
    return out


def _into(name, res, out):
    """The results `res` written into the caller's `out` pair where given
    (after both were computed: an out that overlaps an input does not
    change the other result), NumPy's 'same_kind' casting."""
    got = []
    for r, o in zip(res, out):
        if o is None:
            got.append(r)
            continue
        if not isinstance(o, _array.ndarray):
            raise TypeError(f"vp.{name}: out must hold vp.ndarray (or None), got "
                            f"{type(o).__module__}.{type(o).__name__}")
        copyto(o, r)
        got.append(o)
    return tuple(got)


def divmod(x1, x2, *outs, out=None):  # noqa: A001  (numpy.divmod)
    """vp.divmod(x1, x2, [q, r,] out=None):
    numpy.divmod: (floor_divide(x1, x2), remainder(x1, x2)), computed
    together; out=(q, r) writes either result into an array of yours (as
    if the inputs were copied first when an out overlaps one); `outs`,
    the outputs after the inputs (NumPy's positional form), are out= too.
    np.divmod on resident arrays runs here."""
    q_out, r_out = _pair_out("divmod", out, outs)
    out = None if q_out is None and r_out is None else (q_out, r_out)
    if not _res(x1, x2, q_out, r_out):
        return np.divmod(x1, x2) if out is None else np.divmod(x1, x2, out=out)
    return _into("divmod", (_ufunc.floor_divide(x1, x2), _ufunc.remainder(x1, x2)),
                 (q_out, r_out))


def modf(x, *outs, out=None):
    """vp.modf(x, [frac, whole,] out=None):
    numpy.modf: the fractional and integral parts of x, both with x's sign
    (modf(-2.5) is (-0.5, -2.0); modf(-inf) is (-0.0, -inf); NaN gives NaN
    twice). float16/32/64 keep their dtype; integer and bool input are
    NumPy's float type for them (float64 for 32- and 64-bit integers).
    out=(frac, whole) as vp.divmod's (`outs`, the outputs after the input,
    are out= too). np.modf on resident arrays runs here.

        >>> [a.tolist() for a in vp.modf(vp.asarray([2.5, -0.25]))]
        [[0.5, -0.25], [2.0, -0.0]]"""
    f_out, w_out = _pair_out("modf", out, outs)
    out = None if f_out is None and w_out is None else (f_out, w_out)
    if not _res(x, f_out, w_out):
        return np.modf(x) if out is None else np.modf(x, out=out)
    ctx = _array.common_context("vp.modf", (x, f_out, w_out))
    x = _asnd(x, ctx)
    want = np.modf(np.zeros(1, x.dtype))[0].dtype
    if want.kind != "f":
        raise TypeError(f"vp.modf: {x.dtype} input is not supported (NumPy's modf has no "
                        f"loop for it)")
    xf = x if x.dtype == want else x.astype(want)
    whole = _ufunc.trunc(xf)
    # |x| < 1: the fraction is x itself (no arithmetic, so a subnormal x
    # survives a device that flushes them); else x - whole is 0 or at
    # least x's ulp (a normal number), and inf has fraction 0
    small = _ufunc.less(_ufunc.absolute(xf), 1)
    frac = _ufunc.where(small, xf, _ufunc.where(_ufunc.isinf(xf), 0,
                                                _ufunc.subtract(xf, whole)))
    frac = _ufunc.copysign(frac, xf)
    if frac.dtype != want:  # where(…, 0, …) keeps the float type; be sure
        frac = frac.astype(want)
    return _into("modf", (frac, whole), (f_out, w_out))


NAMES = ("isclose", "allclose", "array_equal", "array_equiv", "diff", "ediff1d", "tril", "triu",
         "diag", "diagonal", "trace", "meshgrid", "logspace", "geomspace", "tri", "nan_to_num", "atleast_1d",
         "atleast_2d", "atleast_3d", "append", "divmod", "modf", "frexp", "select", "cross", "unwrap", "vander", "trim_zeros")


# ------------------------------------------------------------ copying into
def _cast_check(name, dst_dtype, src, casting):
    """NumPy's own casting verdict (its TypeError, word for word): the same
    call on empty NumPy arrays of the dtypes, or with a Python scalar as
    itself (NumPy 2's rules for those differ from a dtype's)."""
    probe = np.empty(0, src.dtype) if isinstance(src, _nd) else src
    try:
        np.copyto(np.empty(0, dst_dtype), probe, casting=casting)
    except ValueError:
        pass  # a shape mismatch of the probes; shapes are checked below
    except TypeError as e:
        raise TypeError(f"vp.{name}: {e}") from None


def copyto(dst, src, casting="same_kind", where=True):
    """vp.copyto(dst, src, casting='same_kind', where=True):
    numpy.copyto on the device: src (an array, NumPy data or a scalar)
    broadcast to dst's shape and written into dst where `where` is True.
    src may overlap dst (the result is as if src were copied first).
    casting= follows NumPy's rules and its TypeError; a src that does not
    broadcast to dst's shape is a ValueError; a read-only dst (a broadcast
    view) is a ValueError. A NumPy dst is NumPy's copyto.

        >>> x = vp.zeros(4)
        >>> vp.copyto(x, vp.arange(4.0), where=vp.arange(4) % 2 == 1)
        >>> x.tolist()
        [0.0, 1.0, 0.0, 3.0]"""
    if not isinstance(dst, _nd):
        if _res(src, where):
            raise TypeError("vp.copyto: dst is a NumPy array and src or where a resident "
                            "vp.ndarray; download explicitly (x.numpy()) or copy into a "
                            "vp.ndarray")
        return np.copyto(dst, src, casting=casting, where=where)
    if casting not in ("no", "equiv", "safe", "same_kind", "unsafe"):
        raise ValueError(f"vp.copyto: casting must be one of 'no', 'equiv', 'safe', "
                         f"'same_kind', 'unsafe', got {casting!r}")
    ctx = _array.common_context("vp.copyto", (dst, src, where))
    if not isinstance(src, _nd):
        src = np.asarray(src) if not isinstance(src, (bool, int, float, complex)) else src
    _cast_check("copyto", dst.dtype, src, casting)
    sshape = np.shape(src) if not isinstance(src, _nd) else src.shape
    try:
        if np.broadcast_shapes(sshape, dst.shape) != dst.shape:
            raise ValueError
    except ValueError:
        raise ValueError(f"vp.copyto: could not broadcast src from shape {sshape} into "
                         f"dst's shape {dst.shape}") from None
    _array.check_writable(dst, "vp.copyto")
    if where is True:
        dst[...] = src
        return None
    mask = _asnd(where, ctx)
    if mask.dtype != _BOOL:
        raise TypeError(f"vp.copyto: where must be a bool array, got {mask.dtype}")
    try:
        if np.broadcast_shapes(mask.shape, dst.shape) != dst.shape:
            raise ValueError
    except ValueError:
        raise ValueError(f"vp.copyto: could not broadcast where from shape {mask.shape} "
                         f"into dst's shape {dst.shape}") from None
    s = _asnd(src, ctx) if not isinstance(src, _nd) else src
    dst[...] = _ufunc.where(mask, (s if s.dtype == dst.dtype else s.astype(dst.dtype)), dst)  # a new array first
    return None


def _flat_fill(name, a, mask, values, gather_index):
    """The shared part of putmask and place: a[mask] takes values[k % n],
    k from gather_index(mask_flat) (int64), computed before any write."""
    if not isinstance(a, _nd):
        raise TypeError(f"vp.{name}: a must be a resident vp.ndarray (NumPy arrays: "
                        f"numpy.{name})")
    _array.check_writable(a, f"vp.{name}")
    ctx = a._ctx
    m = _asnd(mask, ctx)
    if m.shape != a.shape:
        raise ValueError(f"vp.{name}: mask and data must be the same size (mask {m.shape}, "
                         f"data {a.shape})")
    m = m if m.dtype == _BOOL else m.astype(_BOOL)
    v = _asnd(values, ctx).ravel()
    if v.size == 0:
        if a.size and bool(_reduce.any(m)):
            raise ValueError(f"vp.{name}: cannot insert from an empty array"
                             if name == "place" else
                             f"vp.{name}: values is empty and mask selects elements")
        return None
    idx = gather_index(m.ravel()) % v.size
    vals = (v if v.dtype == a.dtype else v.astype(a.dtype))[idx].reshape(a.shape)  # gathered: a copy
    a[...] = _ufunc.where(m, vals, a)
    return None


def putmask(a, mask, values):
    """vp.putmask(a, mask, values): numpy.putmask in place on the device:
    a.flat[i] = values.flat[i % len(values)] wherever mask.flat[i] is True
    (values repeat over a's positions). mask has a's shape; values may
    overlap a (read before any write). NumPy arrays: numpy.putmask.

        >>> x = vp.arange(6)
        >>> vp.putmask(x, x > 2, vp.asarray([10, 20]))
        >>> x.tolist()
        [0, 1, 2, 20, 10, 20]"""
    if not _res(a, mask, values):
        return np.putmask(a, mask, values)
    return _flat_fill("putmask", a, mask, values,
                      lambda m: _array.arange(m.size, dtype=np.int64, context=m._ctx))


def place(arr, mask, vals):
    """vp.place(arr, mask, vals): numpy.place in place on the device: the
    k-th True position of mask (in C order) takes vals[k % len(vals)].
    mask has arr's shape; vals may overlap arr (read first); empty vals with
    a True in mask is NumPy's ValueError. NumPy arrays: numpy.place.

        >>> x = vp.arange(6)
        >>> vp.place(x, x > 2, vp.asarray([10, 20]))
        >>> x.tolist()
        [0, 1, 2, 10, 20, 10]"""
    if not _res(arr, mask, vals):
        return np.place(arr, mask, vals)
    return _flat_fill("place", arr, mask, vals,
                      lambda m: m.astype(np.int64).cumsum() - 1)
