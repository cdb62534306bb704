"""vp.linalg: numpy.linalg functions on the GPU (issue 19).

norm: vector norms (ord None/2, 1, inf, -inf, 0, any other p) and matrix
norms (ord None/'fro', 1, -1, inf, -inf) as compositions of vp ufuncs and
reductions (device kernels; NumPy in -> NumPy out, resident in -> resident
out). The matrix 2-norm, -2 and 'nuc' need singular values, which VulPy
has not: they raise NotImplementedError.

cholesky: right-looking Cholesky on the device, one workgroup per matrix.

solve, inv, det, slogdet: LU factorization with partial pivoting on the
device, one workgroup per matrix of a (..., M, M) stack
(_linalg_kernels.py); float32 and float64 (NumPy's dtype rules: float64
unless every input is float32; integer and bool input computes in
float64, or float32 on a device without float64). Resident in ->
resident out; NumPy (or list) input only -> numpy.linalg's own function.
A matrix with an exactly zero pivot is singular: solve and inv raise
numpy.linalg.LinAlgError("Singular matrix") (a 4-byte flag is read back),
det gives 0.0 and slogdet (0.0, -inf), as NumPy's. det is sign *
exp(logabsdet), as NumPy computes it (so it overflows where NumPy's does).
"""
import collections
import math

import numpy as np

from . import _array, _errors, _reduce, _shapeops, _ufunc

_nd = _array.ndarray


def _sumsq(x, axis, keepdims):
    return _reduce.sum(_ufunc.multiply(x, x), axis, None, None, keepdims)


def norm(x, ord=None, axis=None, keepdims=False):
    """numpy.linalg.norm on the GPU (module docstring says which ords).
    Integer and bool inputs compute in float64, as NumPy's."""
    if isinstance(x, (list, tuple)) or np.isscalar(x):
        x = np.asarray(x)
    dt = np.dtype(x.dtype)
    if dt.kind == "c":
        raise TypeError("vp.linalg.norm: complex input is not supported")
    if dt.kind != "f":
        x = x.astype(np.float64)
    nd = x.ndim
    if axis is None:
        if ord is None or (ord in ("f", "fro") and nd == 2) or (ord == 2 and nd == 1):
            r = _ufunc.sqrt(_sumsq(x, None, False))
            if keepdims:
                r = r.reshape((1,) * nd)
            return r
        axis = tuple(range(nd))
    elif not isinstance(axis, tuple):
        axis = (int(axis),)
    axis = tuple(int(a) for a in axis)
    for a in axis:  # checked before `% nd`, which would wrap (0, -3) of a matrix to (0, 1)
        if not -nd <= a < nd:
            raise _errors.AxisError(a, nd)
    axis = tuple(a % nd for a in axis)
    if len(axis) == 1:
        return _vector(x, ord, axis[0], keepdims)
    if len(axis) == 2:
        return _matrix(x, ord, axis, keepdims)
    raise ValueError("Improper number of dimensions to norm.")


def _vector(x, ord, axis, keepdims):
    ax = axis

    def absx():
        return _ufunc.absolute(x)

    if ord is None or ord == 2:
        return _ufunc.sqrt(_sumsq(x, ax, keepdims))
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    if ord == np.inf:  # NumPy's max starts at 0: an empty vector's inf-norm is 0
        return _reduce.amax(absx(), ax, None, keepdims, 0 if x.shape[ax] == 0 else None)
    if ord == -np.inf:
        return _reduce.amin(absx(), ax, None, keepdims)
    if ord == 0:
        nz = _ufunc.not_equal(x, 0)
        return _reduce.sum(nz, ax, x.dtype, None, keepdims)
    if ord == 1:
        return _reduce.sum(absx(), ax, None, None, keepdims)
    p = float(ord)
    s = _reduce.sum(_ufunc.power(absx(), p), ax, None, None, keepdims)
    return _ufunc.power(s, 1.0 / p)


def _matrix(x, ord, axis, keepdims):
    nd = x.ndim
    r0, c0 = (int(a) % nd for a in axis)
    if r0 == c0:
        raise ValueError("Duplicate axes given.")
    if ord in (2, -2, "nuc"):
        raise NotImplementedError(f"vp.linalg.norm: ord={ord!r} needs singular values, which "
                                  f"VulPy has not; use numpy.linalg.norm on x.numpy()")
    if ord is None or ord in ("fro", "f"):
        r = _ufunc.sqrt(_sumsq(x, (r0, c0), keepdims))
        return r
    if ord in (1, -1, np.inf, -np.inf):
        # 1: largest column sum (sum over rows, then max over columns)
        inner, outer = (r0, c0) if ord in (1, -1) else (c0, r0)
        s = _reduce.sum(_ufunc.absolute(x), inner, None, None, True)
        if ord in (1, np.inf):  # from 0, as NumPy's: no ValueError when `outer` is empty
            r = _reduce.amax(s, outer, None, True, 0 if x.shape[outer] == 0 else None)
        else:
            r = _reduce.amin(s, outer, None, True)
        if not keepdims:
            r = r.reshape(tuple(d for i, d in enumerate(r.shape) if i not in (r0, c0)))
        return r
    raise ValueError("Invalid norm order for matrices.")


# ---------------------------------------------------------------- LU: solve, inv, det

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
LinAlgError = np.linalg.LinAlgError
SlogdetResult = getattr(getattr(np.linalg, "_linalg", None), "SlogdetResult", None) or \
    collections.namedtuple("SlogdetResult", ["sign", "logabsdet"])


def _resident_inputs(name, xs):
    """The inputs as resident arrays of one context (NumPy ones uploaded),
    or None when none is resident (the caller runs numpy.linalg's)."""
    ctx = _array.common_context(f"vp.linalg.{name}", xs)
    if ctx is None:
        return None
    return [x if isinstance(x, _nd) else _array.asarray(np.asarray(x), context=ctx)
            for x in xs]


def _compute_dtype(name, xs):
    """NumPy's linalg dtype: float32 when every input is float32, else
    float64 (integers and bool convert); float32 for integer-only input on
    a device without float64. float16, longdouble and complex: TypeError."""
    ctx = xs[0]._ctx
    for x in xs:
        dt = x.dtype
        if dt.kind == "c":
            raise TypeError(f"vp.linalg.{name}: complex input is not supported")
        if dt.kind == "f" and dt not in (_F32, _F64):
            raise TypeError(f"array type {dt.name} is unsupported in linalg")
        if dt.kind not in "biuf":
            raise TypeError(f"vp.linalg.{name}: dtype {dt.name} is not supported")
    if all(x.dtype == _F32 for x in xs):
        return _F32
    if not ctx.has("float64"):
        if all(x.dtype.kind != "f" for x in xs):
            return _F32
        ctx.require("float64", f"vp.linalg.{name} on float64 input")
    return _F64


def _square(a):
    if a.ndim < 2:
        raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be at least "
                          f"two-dimensional")
    if a.shape[-1] != a.shape[-2]:
        raise LinAlgError("Last 2 dimensions of the array must be square")


def _lu(a, b, cdt):
    """Factors every matrix of a (resident, (..., n, n)) on the device;
    b (resident, a's batch shape + (n, nrhs)) or None: its solution.
    Returns (x, d, s, singular): x the solution (contiguous, cdt; None
    without b), d the diagonals of U (..., n), s the signs of det (int32,
    ...), singular whether any matrix had a zero pivot (read back only
    with b)."""
    from . import _linalg_kernels as K
    from ._launch import Recorder, rows_grid
    ctx, mem = a._ctx, a.memory
    batch, n = tuple(a.shape[:-2]), a.shape[-1]
    count = math.prod(batch)
    nrhs = b.shape[-1] if b is not None else 0
    if count * n * max(n, nrhs, 1) >= 2**32:
        raise ValueError(f"vp.linalg: the stack {tuple(a.shape)} is too large (2^32 elements "
                         f"or more)")
    lim = ctx.limits.get("max_loop_iterations") if count and n else None
    if lim is not None and K.backedges(n, nrhs) > lim:
        raise NotImplementedError(
            f"vp.linalg: a {n} x {n} matrix{f' with {nrhs} right-hand sides' if nrhs else ''} "
            f"needs more than the {lim} loop iterations per invocation after which {ctx.name} "
            f"ends loops silently (ctx.limits['max_loop_iterations']); use numpy.linalg on "
            f"x.numpy() there (GPUs have no such limit)")
    w = a.astype(cdt)  # a new contiguous array: the kernel overwrites it with L and U
    x = b.astype(cdt) if b is not None else _array.empty((1,), cdt, memory=mem, context=ctx)
    d = _array.empty(batch + (n,), cdt, memory=mem, context=ctx)
    if count == 0 or n == 0 or (b is not None and nrhs == 0):  # NumPy's: no error either
        return (x if b is not None else None), d, _array.ones(batch, np.int32, context=ctx), False
    s = _array.empty(batch, np.int32, memory=mem, context=ctx)
    sing = _array.zeros((1,), np.uint32, context=ctx)
    g = rows_grid(count)
    rec = Recorder(ctx)
    rec(K.lu.specialize(a=cdt, b=cdt, d=cdt), (w, x, d, s, sing), g, n=n, nrhs=nrhs,
        count=count, gx=g[0])
    rec.run()
    if b is None:
        return None, d, s, False
    return x, d, s, bool(sing.numpy()[0])


def solve(a, b):
    """numpy.linalg.solve on the GPU: a (..., M, M), b (M,) or (..., M, K)
    (NumPy 2's rule: b is one vector only when b.ndim == 1; the batch
    shapes broadcast). LinAlgError("Singular matrix") when a matrix of the
    stack has an exactly zero pivot."""
    xs = _resident_inputs("solve", (a, b))
    if xs is None:
        return np.linalg.solve(a, b)
    a, b = xs
    _square(a)
    cdt = _compute_dtype("solve", (a, b))
    n = a.shape[-1]
    if b.ndim == 1:
        if b.shape[0] != n:
            raise ValueError(f"solve1: Input operand 1 has a mismatch in its core dimension 0, "
                             f"with gufunc signature (m,m),(m)->(m) (size {b.shape[0]} is "
                             f"different from {n})")
        batch = tuple(a.shape[:-2])
        oshape = batch + (n,)
        b = b.reshape((n, 1))
    else:
        if b.shape[-2] != n:
            raise ValueError(f"solve: Input operand 1 has a mismatch in its core dimension 0, "
                             f"with gufunc signature (m,m),(m,n)->(m,n) (size {b.shape[-2]} is "
                             f"different from {n})")
        try:
            batch = np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
        except ValueError:
            raise ValueError(f"vp.linalg.solve: the stacks of a {tuple(a.shape)} and b "
                             f"{tuple(b.shape)} could not be broadcast together") from None
        oshape = batch + tuple(b.shape[-2:])
    a = _shapeops.broadcast_to(a, batch + (n, n))
    b = _shapeops.broadcast_to(b, batch + tuple(b.shape[-2:]))
    x, _, _, singular = _lu(a, b, cdt)
    if singular:
        raise LinAlgError("Singular matrix")
    return x.reshape(oshape)


def inv(a):
    """numpy.linalg.inv on the GPU: solve(a, I) for each matrix of the
    stack; LinAlgError("Singular matrix") as NumPy's."""
    xs = _resident_inputs("inv", (a,))
    if xs is None:
        return np.linalg.inv(a)
    a, = xs
    _square(a)
    cdt = _compute_dtype("inv", (a,))
    n = a.shape[-1]
    eye = _shapeops.eye(n, dtype=cdt, memory=a.memory, context=a._ctx)
    x, _, _, singular = _lu(a, _shapeops.broadcast_to(eye, tuple(a.shape)), cdt)
    if singular:
        raise LinAlgError("Singular matrix")
    return x


def _slogdet(name, a):
    a, = _resident_inputs(name, (a,))
    _square(a)
    cdt = _compute_dtype(name, (a,))
    _, d, s, _ = _lu(a, None, cdt)
    logdet = _reduce.sum(_ufunc.log(_ufunc.absolute(d)), -1)  # -inf where a u_ii is 0
    return s.astype(cdt), logdet


def slogdet(a):
    """numpy.linalg.slogdet on the GPU: (sign, logabsdet), arrays of the
    stack's batch shape; (0.0, -inf) for a singular matrix."""
    if _array.common_context("vp.linalg.slogdet", (a,)) is None:
        return np.linalg.slogdet(a)
    sign, logdet = _slogdet("slogdet", a)
    return SlogdetResult(sign, _ufunc.where(_ufunc.equal(sign, 0), -np.inf, logdet))


def det(a):
    """numpy.linalg.det on the GPU: sign * exp(logabsdet) per matrix, as
    NumPy computes it; 0.0 for a singular matrix, 1.0 for a 0 x 0 one."""
    if _array.common_context("vp.linalg.det", (a,)) is None:
        return np.linalg.det(a)
    sign, logdet = _slogdet("det", a)
    return _ufunc.multiply(sign, _ufunc.exp(logdet))


def cholesky(a, /, *, upper=False):
    """numpy.linalg.cholesky on the GPU: L with a = L @ L.T for each
    matrix of a (..., M, M) stack (only the lower triangle of a is read, as
    NumPy's); upper=True gives L.T. LinAlgError("Matrix is not positive
    definite") when a pivot of some matrix is <= 0 (a NaN gives NaNs, as
    NumPy's). One workgroup per
    matrix (_linalg_kernels.cholesky); on a device that cuts long loops
    (lavapipe) matrices past about 350 x 350 raise NotImplementedError."""
    xs = _resident_inputs("cholesky", (a,))
    if xs is None:
        return np.linalg.cholesky(a, upper=upper)
    a, = xs
    _square(a)
    cdt = _compute_dtype("cholesky", (a,))
    from . import _linalg_kernels as K
    from ._launch import Recorder, rows_grid
    ctx = a._ctx
    batch, n = tuple(a.shape[:-2]), a.shape[-1]
    count = math.prod(batch)
    if count * n * n >= 2**32:
        raise ValueError(f"vp.linalg: the stack {tuple(a.shape)} is too large (2^32 elements "
                         f"or more)")
    lim = ctx.limits.get("max_loop_iterations") if count and n else None
    if lim is not None and K.cholesky_backedges(n) > lim:
        raise NotImplementedError(
            f"vp.linalg.cholesky: a {n} x {n} matrix needs more than the {lim} loop iterations "
            f"per invocation after which {ctx.name} ends loops silently "
            f"(ctx.limits['max_loop_iterations']); use numpy.linalg on x.numpy() there (GPUs "
            f"have no such limit)")
    w = a.astype(cdt)  # a new contiguous array: the kernel overwrites it with L
    if count and n:
        bad = _array.zeros((1,), np.uint32, context=ctx)
        g = rows_grid(count)
        rec = Recorder(ctx)
        rec(K.cholesky.specialize(a=cdt), (w, bad), g, n=n, count=count, gx=g[0])
        rec.run()
        if bool(bad.numpy()[0]):
            raise LinAlgError("Matrix is not positive definite")
    return _shapeops.swapaxes(w, -1, -2).copy() if upper else w


NAMES = ("norm", "solve", "inv", "det", "slogdet", "cholesky")
