"""vp.linalg: numpy.linalg functions on the GPU (issue 19).

norm: vector norms (ord None/2, 1, inf, -inf, 0, any other p) and matrix
norms (ord None/'fro', 1, -1, inf, -inf) as compositions of vp ufuncs and
reductions (device kernels; NumPy in -> NumPy out, resident in -> resident
out); the matrix 2-norm, -2 and 'nuc' from svdvals.

svd, svdvals, pinv, lstsq, matrix_rank, cond: the one-sided Jacobi SVD
on the device (_linalg_kernels.jacobi_svd), one workgroup per matrix; svd
completes its vectors to orthonormal bases with qr.

qr: Householder QR on the device (_linalg_kernels.householder_qr).

eigvalsh, eigh: cyclic two-sided Jacobi for symmetric matrices on the
device (_linalg_kernels.jacobi_eigh), one workgroup per matrix.

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
import operator

import numpy as np

from . import _array, _errors, _graph, _reduce, _shapeops, _ufunc

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
        # every norm but the matrix 2-norms and the nuclear norm is a norm
        # of |x| (NumPy's result is |x|'s real dtype); those three need the
        # singular values of a complex matrix
        nd = np.ndim(x)
        matrix = (axis is None and nd == 2) or (isinstance(axis, tuple) and len(axis) == 2)
        if matrix and ord in (2, -2, "nuc"):
            raise TypeError(f"vp.linalg.norm: ord={ord!r} of a complex matrix is not supported "
                            f"(it needs complex singular values); the Frobenius, 1 and inf "
                            f"norms are")
        from . import _complex
        a = _complex.ufunc(_complex._Named("absolute", 1, np.absolute), (x,), None, None, True)
        return norm(a, ord, axis, keepdims)
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
    if ord in (2, -2, "nuc"):  # from the singular values (svdvals: one-sided Jacobi)
        xm = _shapeops.moveaxis(x, (r0, c0), (-2, -1))
        sv = svdvals(xm)
        if ord == "nuc":
            r = _reduce.sum(sv, -1)
        else:
            r = sv[..., 0] if ord == 2 else sv[..., -1]
        if keepdims:
            shape = list(x.shape)
            shape[r0] = shape[c0] = 1
            r = r.reshape(tuple(shape))
        return r
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


def _check_elements(shape, elements):
    """The kernels index a stack with 32-bit integers: refuse one whose
    arrays reach 2^32 elements (ValueError naming its shape)."""
    if elements >= 2**32:
        raise ValueError(f"vp.linalg: the stack {tuple(shape)} is too large (2^32 elements "
                         f"or more)")


def _loop_limit_error(ctx, name, what, lim):
    return NotImplementedError(
        f"vp.linalg{name}: {what} needs more than the {lim} loop iterations per invocation "
        f"after which {ctx.name} ends loops silently (ctx.limits['max_loop_iterations']); "
        f"use numpy.linalg on x.numpy() there (GPUs have no such limit)")


def _check_loops(ctx, name, what, backedges):
    """Refuse (NotImplementedError) a factorization whose kernel would loop
    past the device's loop limit (lavapipe's 65,535 back-edges per
    invocation, ctx.limits['max_loop_iterations']; GPUs have none), where
    the loops would end silently. backedges: the kernel's count for the
    call, computed only where there is a limit."""
    lim = ctx.limits.get("max_loop_iterations")
    if lim is not None and backedges() > lim:
        raise _loop_limit_error(ctx, name, what, lim)


MAX_SWEEPS = 30  # LAPACK's gesvj gives up after 30 sweeps too
MIN_SWEEPS = 8   # a device whose loop limit allows fewer refuses the size


def _fit_sweeps(ctx, name, what, backedges):
    """The sweeps a Jacobi kernel may take: MAX_SWEEPS, or on a device with
    a loop limit the most (down to MIN_SWEEPS) whose back-edges,
    backedges(sweeps), stay under it; fewer than MIN_SWEEPS refuses the
    size (NotImplementedError)."""
    sweeps = MAX_SWEEPS
    lim = ctx.limits.get("max_loop_iterations")
    if lim is not None:
        while sweeps >= MIN_SWEEPS and backedges(sweeps) > lim:
            sweeps -= 1
        if sweeps < MIN_SWEEPS:
            raise _loop_limit_error(ctx, name, what, lim)
    return sweeps


def _unconverged(ctx, name, what, sweeps):
    """NotImplementedError for a Jacobi iteration that did not converge in
    the fewer than MAX_SWEEPS sweeps the device's loop limit allowed (with
    all of them it would raise LinAlgError, as LAPACK)."""
    return NotImplementedError(
        f"vp.linalg{name}: {what} did not converge in the {sweeps} sweeps that "
        f"{ctx.name}'s loop limit allows (ctx.limits['max_loop_iterations']); use "
        f"numpy.linalg on x.numpy() there")


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
    _check_elements(a.shape, count * n * max(n, nrhs, 1))
    if count and n:
        _check_loops(ctx, "", f"a {n} x {n} matrix"
                     f"{f' with {nrhs} right-hand sides' if nrhs else ''}",
                     lambda: K.backedges(n, nrhs))
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
    _check_elements(a.shape, count * n * n)
    if count and n:
        _check_loops(ctx, ".cholesky", f"a {n} x {n} matrix", lambda: K.cholesky_backedges(n))
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


# ---------------------------------------------------------------- SVD (one-sided Jacobi)

def _jacobi(a, cdt, wantv, name):
    """The one-sided Jacobi SVD of every matrix of the resident stack a
    (..., M, N) on the device (_linalg_kernels.jacobi_svd), in cdt.
    Returns (s, u, v, t): s (..., K) the singular values unsorted, K =
    min(M, N); with wantv, u (..., P, K) the left singular vectors (zero
    columns where s is 0) and v (..., K, K) the right ones of the matrix
    the kernel saw, which is a's transpose when M < N (t True then). Each
    matrix is scaled to max |a| = 1 first (no overflow or underflow of the
    sums of squares for ordinary scales) and s scaled back."""
    from . import _linalg_kernels as K
    from ._launch import Recorder, rows_grid
    ctx = a._ctx
    t = a.shape[-2] < a.shape[-1]
    g = _shapeops.swapaxes(a, -1, -2) if t else a
    batch, m, n = tuple(g.shape[:-2]), g.shape[-2], g.shape[-1]
    count = math.prod(batch)
    _check_elements(a.shape, count * m * max(n, 3 * K.L // max(m, 1) + 1))
    if count == 0 or n == 0:
        s = _array.zeros(batch + (n,), cdt, context=ctx)
        return s, (_array.zeros(batch + (m, n), cdt, context=ctx) if wantv else None), \
            (_shapeops.broadcast_to(_shapeops.eye(n, dtype=cdt, context=ctx), batch + (n, n))
             if wantv else None), t
    sweeps = _fit_sweeps(ctx, f".{name}", f"a {tuple(a.shape[-2:])} matrix",
                         lambda sw: K.svd_backedges(m, n, wantv, sw))
    work = g.astype(cdt)
    big = _reduce.amax(_ufunc.absolute(work), axis=(-2, -1), keepdims=True)
    if not bool(_reduce.all(_ufunc.isfinite(big))):  # NaN or inf input, as LAPACK's
        raise LinAlgError("SVD did not converge")
    big = _ufunc.where(_ufunc.greater(big, 0), big, 1)
    work = _ufunc.divide(work, big)  # a new contiguous array the kernel overwrites
    v = _array.empty(batch + (n, n) if wantv else (1,), cdt, context=ctx)
    s = _array.empty(batch + (n,), cdt, context=ctx)
    w = _array.empty((count * 3 * K.L,), cdt, context=ctx)
    flags = _array.zeros((1,), np.uint32, context=ctx)
    tol = np.asarray(m * np.finfo(cdt).eps, cdt)[()]
    grid = rows_grid(count)
    rec = Recorder(ctx)
    rec(K.jacobi_svd.specialize(u=cdt, v=cdt, s=cdt, w=cdt, tol=cdt), (work, v, s, w, flags),
        grid, m=m, n=n, wantv=int(wantv), sweeps=sweeps, count=count, gx=grid[0], tol=tol)
    rec.run()
    flag = int(flags.numpy()[0])
    if flag:
        if flag == 2:
            raise LinAlgError("SVD did not converge")
        if sweeps < MAX_SWEEPS:
            raise _unconverged(ctx, f".{name}", "the SVD", sweeps)
        raise LinAlgError("SVD did not converge")
    u = None
    if wantv:
        # a column whose norm stayed below tol is rounding noise of a zero
        # singular value (the kernel left it alone, unorthogonalized): its
        # left vector is 0 here (pinv and lstsq drop such values anyway;
        # svd completes the basis)
        nz = _ufunc.greater(s, tol).reshape(batch + (1, n))
        u = _ufunc.divide(work, _ufunc.where(nz, s.reshape(batch + (1, n)), 1))
        u = _ufunc.multiply(u, nz.astype(cdt))
    s = _ufunc.multiply(s, big.reshape(batch + (1,)))  # u is the scaled matrix's: scale-free
    return s, u, (v if wantv else None), t


def _sorted_desc(s):
    return _shapeops.flip(_sort_mod().sort(s, axis=-1), axis=-1)


def _sort_mod():
    from . import _sort
    return _sort


def _svd_input(name, a):
    a, = _resident_inputs(name, (a,))
    if a.ndim < 2:
        raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be at least "
                          f"two-dimensional")
    return a, _compute_dtype(name, (a,))


def svdvals(x, /):
    """numpy.linalg.svdvals on the GPU: the singular values of each matrix
    of a (..., M, N) stack, in descending order (one-sided Jacobi SVD,
    _linalg_kernels.jacobi_svd: high relative accuracy; values below about
    1e-19 (float32) / 1e-154 (float64) of the largest come out as 0).
    NaN input: LinAlgError("SVD did not converge"), as NumPy's."""
    if _array.common_context("vp.linalg.svdvals", (x,)) is None:
        return np.linalg.svdvals(x)
    a, cdt = _svd_input("svdvals", x)
    s, _, _, _ = _jacobi(a, cdt, False, "svdvals")
    return _sorted_desc(s)


SVDResult = getattr(getattr(np.linalg, "_linalg", None), "SVDResult", None) or \
    collections.namedtuple("SVDResult", ["U", "S", "Vh"])


def _complete(y, full):
    """y (..., P, K): orthonormal columns, then zero columns (those of zero
    singular values), K <= P. Returns P x P (full) or P x K orthonormal
    columns whose first ones are y's nonzero ones: Householder QR of
    [y | I] (complete), its Q's columns signed by R's diagonal (where y's
    column is j, Q[:, j] * R[j, j] = y_j with R[j, j] = +-1)."""
    batch, p, k = tuple(y.shape[:-2]), y.shape[-2], y.shape[-1]
    eye = _shapeops.broadcast_to(_shapeops.eye(p, dtype=y.dtype, context=y._ctx),
                                 batch + (p, p))
    q, r = qr(_shapeops.concatenate([y, eye], axis=-1), "complete")
    from . import _numeric
    d = _numeric.diagonal(r, 0, -2, -1)[..., :k]
    sgn = _ufunc.where(_ufunc.less(d, 0), -1, 1).astype(y.dtype)
    if p > k:
        sgn = _shapeops.concatenate([sgn, _array.ones(batch + (p - k,), y.dtype,
                                                      context=y._ctx)], axis=-1)
    q = _ufunc.multiply(q, sgn.reshape(batch + (1, p)))
    return q if full else q[..., :, :k].copy()


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """numpy.linalg.svd on the GPU: SVDResult(U, S, Vh) of each matrix of
    a (..., M, N) stack (S descending), or S alone for compute_uv=False,
    from the one-sided Jacobi SVD; full_matrices=True completes U (or Vh)
    to a square orthogonal matrix, as the basis of the columns of zero
    singular values is, by Householder QR (vp.linalg.qr). Singular vectors
    are unique only up to sign (and within repeated values): they may
    differ from LAPACK's, U @ diag(S) @ Vh agrees. hermitian=True is
    computed as for any matrix."""
    if _array.common_context("vp.linalg.svd", (a,)) is None:
        return np.linalg.svd(a, full_matrices, compute_uv, hermitian)
    if not compute_uv:
        return svdvals(a)
    x, cdt = _svd_input("svd", a)
    ctx = x._ctx
    batch, m, n = tuple(x.shape[:-2]), x.shape[-2], x.shape[-1]
    k = min(m, n)
    if x.size == 0:
        def eye(p, q):
            return _shapeops.broadcast_to(_shapeops.eye(p, q, dtype=cdt, context=ctx),
                                          batch + (p, q)).copy()
        return SVDResult(eye(m, m if full_matrices else k), _array.zeros(batch + (k,), cdt,
                                                                         context=ctx),
                         eye(n if full_matrices else k, n))
    s, u, v, t = _jacobi(x, cdt, True, "svd")
    from . import _indexfuncs, _sort
    order = _sort.argsort(_ufunc.negative(s), axis=-1)  # descending, ties in index order
    s = _indexfuncs.take_along_axis(s, order, -1)
    cols = order.reshape(batch + (1, k))
    u = _indexfuncs.take_along_axis(u, cols, -1)  # (..., P, K): may need completing
    v = _indexfuncs.take_along_axis(v, cols, -1)  # (..., K, K): orthogonal
    # the kernel's matrix g = u diag(s) v^T, with g = x, or x^T (t)
    if not t:
        return SVDResult(_complete(u, full_matrices), s, _shapeops.swapaxes(v, -1, -2).copy())
    return SVDResult(v, s, _shapeops.swapaxes(_complete(u, full_matrices), -1, -2).copy())


def pinv(a, rcond=None, hermitian=False, *, rtol=np._NoValue):
    """numpy.linalg.pinv on the GPU: V diag(1/s) U^T from the one-sided
    Jacobi SVD, singular values at or below rcond * max(s) treated as 0
    (NumPy 2's defaults: rcond / rtol None -> max(M, N) * eps). Stacks,
    float32 / float64 as NumPy's."""
    if _array.common_context("vp.linalg.pinv", (a,)) is None:
        return np.linalg.pinv(a, rcond, hermitian, rtol=rtol)
    x, cdt = _svd_input("pinv", a)
    m, n = x.shape[-2], x.shape[-1]
    if rcond is None:
        rcond = max(m, n) * np.finfo(cdt).eps if rtol is np._NoValue or rtol is None else rtol
    elif rtol is not np._NoValue:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    batch = tuple(x.shape[:-2])
    if x.size == 0:
        return _array.zeros(batch + (n, m), cdt, context=x._ctx)
    s, u, v, t = _jacobi(x, cdt, True, "pinv")
    cut = _ufunc.multiply(_reduce.amax(s, axis=-1, keepdims=True), np.asarray(rcond, cdt)
                          if np.ndim(rcond) == 0 else _array.asarray(np.asarray(rcond, cdt)[..., None], context=x._ctx))
    inv_s = _ufunc.where(_ufunc.greater(s, cut), _ufunc.divide(1, _ufunc.where(
        _ufunc.greater(s, 0), s, 1)), 0).astype(cdt)
    k = s.shape[-1]
    # the kernel's matrix g (x, or x.T when t): pinv(g) = V diag(inv_s) U^T
    vs = _ufunc.multiply(v, inv_s.reshape(batch + (1, k)))
    from . import _matmul
    pg = _matmul.matmul(vs, _shapeops.swapaxes(u, -1, -2))
    return _shapeops.swapaxes(pg, -1, -2).copy() if t else pg


def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    """numpy.linalg.matrix_rank on the GPU: the number of singular values
    above tol (default max(s) * max(M, N) * eps, or max(s) * rtol), per
    matrix of a stack (a resident int64 array; 0-d for one matrix). Arrays
    of fewer than 2 dimensions: 1 unless all zero, as NumPy's."""
    if _array.common_context("vp.linalg.matrix_rank", (A,)) is None:
        return np.linalg.matrix_rank(A, tol, hermitian, rtol=rtol)
    a, = _resident_inputs("matrix_rank", (A,))
    if a.ndim < 2:
        return int(not bool(_reduce.all(_ufunc.equal(a, 0))))
    s = svdvals(a)
    ctx = a._ctx
    if tol is None:
        if rtol is None:
            rtol = max(a.shape[-2:]) * np.finfo(s.dtype).eps
        r = np.asarray(rtol, s.dtype)
        r = r if r.ndim == 0 else _array.asarray(r[..., None], context=ctx)
        top = _reduce.amax(s, axis=-1, keepdims=True) if s.shape[-1] else s
        tol = _ufunc.multiply(top, r)
    else:
        t = np.asarray(tol, s.dtype)
        tol = t if t.ndim == 0 else _array.asarray(t[..., None], context=ctx)
    from . import _stats
    return _stats.count_nonzero(_ufunc.greater(s, tol), axis=-1)


def cond(x, p=None):
    """numpy.linalg.cond on the GPU: p None / 2 / -2 from the singular
    values (s_max / s_min, or the inverse), any other p (1, -1, inf, -inf,
    'fro') as norm(x, p) * norm(inv(x), p) for square matrices. A singular
    matrix gives inf (NaN results become inf unless x holds a NaN), as
    NumPy's. Empty matrices: LinAlgError."""
    if _array.common_context("vp.linalg.cond", (x,)) is None:
        return np.linalg.cond(x, p)
    a, = _resident_inputs("cond", (x,))
    if a.ndim >= 2 and a.size == 0 or (a.ndim >= 2 and 0 in a.shape[-2:]):
        raise LinAlgError("cond is not defined on empty arrays")
    if p is None or p == 2 or p == -2:
        s = svdvals(a)
        hi, lo = s[..., 0], s[..., -1]
        r = _ufunc.divide(lo, hi) if p == -2 else _ufunc.divide(hi, lo)
    else:
        _square(a)
        cdt = _compute_dtype("cond", (a,))
        sign, _ = _slogdet("cond", a)
        singular = _ufunc.equal(sign, 0)
        eye = _shapeops.broadcast_to(_shapeops.eye(a.shape[-1], dtype=cdt, context=a._ctx),
                                     tuple(a.shape))
        ok = _ufunc.where(singular[..., None, None], eye, a.astype(cdt))
        r = _ufunc.multiply(norm(a.astype(cdt), p, axis=(-2, -1)),
                            norm(inv(ok), p, axis=(-2, -1)))
        r = _ufunc.where(singular, np.inf, r)
    bad = _ufunc.isnan(r)
    hasnan = _reduce.any(_ufunc.isnan(a), axis=(-2, -1))
    return _ufunc.where(_ufunc.logical_and(bad, _ufunc.logical_not(hasnan)), np.inf, r)


def lstsq(a, b, rcond=None):
    """numpy.linalg.lstsq on the GPU: (x, residuals, rank, s) for a (M, N)
    and b (M,) or (M, K): x minimizes |b - a x| (the pseudo-inverse of the
    one-sided Jacobi SVD, singular values at or below rcond * max(s)
    dropped; rcond None is max(M, N) * eps as NumPy 2's); residuals the
    squared norms of b - a x per column when rank == N < M, else empty;
    rank a NumPy int32 (read back; NumPy's LAPACK integer); s the singular
    values, descending."""
    xs = _resident_inputs("lstsq", (a, b))
    if xs is None:
        return np.linalg.lstsq(a, b, rcond)
    a, b = xs
    if a.ndim != 2:
        raise LinAlgError(f"{a.ndim}-dimensional array given. Array must be two-dimensional")
    if b.ndim not in (1, 2):
        raise LinAlgError(f"{b.ndim}-dimensional array given. Array must be one or "
                          f"two-dimensional")
    m, n = a.shape
    if b.shape[0] != m:
        raise LinAlgError("Incompatible dimensions")
    cdt = _compute_dtype("lstsq", (a, b))
    if rcond is None:
        rcond = np.finfo(cdt).eps * max(m, n)
    ctx = a._ctx
    bb = b.reshape((m, 1)) if b.ndim == 1 else b
    k = bb.shape[1]
    if a.size == 0:
        x = _array.zeros((n, k), cdt, context=ctx)
        s = _array.zeros((0,), cdt, context=ctx)
        rank = 0
    else:
        s_, u, v, t = _jacobi(a, cdt, True, "lstsq")
        cut = _ufunc.multiply(_reduce.amax(s_), np.asarray(rcond, cdt))
        keep = _ufunc.greater(s_, cut)
        rank = int(_reduce.sum(keep))
        inv_s = _ufunc.where(keep, _ufunc.divide(1, _ufunc.where(_ufunc.greater(s_, 0), s_, 1)),
                             0).astype(cdt)
        from . import _matmul
        kk = s_.shape[-1]
        # a = U S V^T (t False) or a^T = U S V^T (t True): x = V S^+ U^T b or U S^+ V^T b
        left, right = (v, u) if not t else (u, v)
        x = _matmul.matmul(_ufunc.multiply(left, inv_s.reshape((1, kk))),
                           _matmul.matmul(_shapeops.swapaxes(right, 0, 1), bb.astype(cdt)))
        s = _sorted_desc(s_)
    if rank == n and m > n:
        from . import _matmul
        r = _ufunc.subtract(bb.astype(cdt), _matmul.matmul(a.astype(cdt), x))
        resid = _reduce.sum(_ufunc.multiply(r, r), axis=0)
    else:
        resid = _array.zeros((0,), cdt, context=ctx)
    if b.ndim == 1:
        x = x.reshape((n,))
    return x, resid, np.int32(rank), s


# ---------------------------------------------------------------- QR (Householder)

QRResult = getattr(getattr(np.linalg, "_linalg", None), "QRResult", None) or \
    collections.namedtuple("QRResult", ["Q", "R"])


def qr(a, mode="reduced"):
    """numpy.linalg.qr on the GPU: Householder QR of each matrix of a
    (..., M, N) stack, as LAPACK's geqrf / orgqr (R's diagonal has their
    signs, so Q and R agree with NumPy's to rounding for full-rank input).
    mode 'reduced' (Q (..., M, K), R (..., K, N), K = min(M, N)),
    'complete' (Q (..., M, M), R (..., M, N)), 'r' (R only), 'raw' ((h,
    tau): h (..., N, M) the reflectors below R, transposed as NumPy's)."""
    if _array.common_context("vp.linalg.qr", (a,)) is None:
        return np.linalg.qr(a, mode)
    if mode not in ("reduced", "complete", "r", "raw"):
        raise ValueError(f"Unrecognized mode '{mode}'")
    from . import _linalg_kernels as K, _numeric
    from ._launch import Recorder, rows_grid
    x, = _resident_inputs("qr", (a,))
    if x.ndim < 2:
        raise LinAlgError(f"{x.ndim}-dimensional array given. Array must be at least "
                          f"two-dimensional")
    cdt = _compute_dtype("qr", (x,))
    ctx = x._ctx
    batch, m, n = tuple(x.shape[:-2]), x.shape[-2], x.shape[-1]
    k = min(m, n)
    kq = m if mode == "complete" else k
    wantq = mode in ("reduced", "complete")
    count = math.prod(batch)
    _check_elements(x.shape, count * max(m * n, m * kq, L_QR))
    if count and m and n:
        _check_loops(ctx, ".qr", f"a {(m, n)} matrix", lambda: K.qr_backedges(m, n, kq, wantq))
    work = x.astype(cdt)  # new, contiguous: the kernel overwrites it
    q = _array.zeros(batch + (m, kq) if wantq else (1,), cdt, context=ctx)
    tau = _array.zeros(batch + (k,), cdt, context=ctx)  # (the kernel runs only when k > 0)
    if count and m and n:
        w = _array.empty((count * K.L,), cdt, context=ctx)
        grid = rows_grid(count)
        rec = Recorder(ctx)
        rec(K.householder_qr.specialize(a=cdt, q=cdt, tau=cdt, w=cdt, zero=cdt),
            (work, q, tau, w), grid, m=m, n=n, kq=kq, wantq=int(wantq), count=count,
            gx=grid[0], zero=np.asarray(0, cdt)[()])
        rec.run()
    elif wantq and kq:  # no reflectors: Q is the identity's first kq columns
        q = _shapeops.broadcast_to(_shapeops.eye(m, kq, dtype=cdt, context=ctx),
                                   batch + (m, kq)).copy()
    if mode == "raw":
        return _shapeops.swapaxes(work, -1, -2).copy(), tau
    rows = kq if mode == "complete" else k
    r = _numeric.triu(work[..., :rows, :]) if rows <= m else _numeric.triu(work)
    if mode == "r":
        return r
    return QRResult(q, r)


L_QR = 256  # the kernel's workgroup (its scratch: one element an invocation)


# ---------------------------------------------------------------- symmetric eigenproblems

EighResult = getattr(getattr(np.linalg, "_linalg", None), "EighResult", None) or \
    collections.namedtuple("EighResult", ["eigenvalues", "eigenvectors"])


def _eigh(name, a, UPLO, wantv):
    """(w, v): the eigenvalues (ascending) and, with wantv, eigenvectors of
    every symmetric matrix of the stack a (..., M, M), from the triangle
    UPLO names, by the cyclic Jacobi kernel (_linalg_kernels.jacobi_eigh)."""
    from . import _linalg_kernels as K, _numeric, _sort
    from ._launch import Recorder, rows_grid
    if UPLO not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    a, = _resident_inputs(name, (a,))
    _square(a)
    cdt = _compute_dtype(name, (a,))
    ctx = a._ctx
    batch, n = tuple(a.shape[:-2]), a.shape[-1]
    count = math.prod(batch)
    _check_elements(a.shape, count * n * n)
    if count == 0 or n == 0:
        w = _array.zeros(batch + (n,), cdt, context=ctx)
        eye = _shapeops.broadcast_to(_shapeops.eye(n, dtype=cdt, context=ctx), batch + (n, n))
        return w, (eye.copy() if wantv else None)
    sweeps = _fit_sweeps(ctx, f".{name}", f"a {n} x {n} matrix",
                         lambda sw: K.eigh_backedges(n, wantv, sw))
    x = a.astype(cdt)
    tri = _numeric.tril(x) if UPLO == "L" else _numeric.triu(x)
    strict = _numeric.tril(x, -1) if UPLO == "L" else _numeric.triu(x, 1)
    sym = _ufunc.add(tri, _shapeops.swapaxes(strict, -1, -2))  # the triangle, mirrored
    big = _reduce.amax(_ufunc.absolute(sym), axis=(-2, -1), keepdims=True)
    if not bool(_reduce.all(_ufunc.isfinite(big))):
        raise LinAlgError("Eigenvalues did not converge")
    big = _ufunc.where(_ufunc.greater(big, 0), big, 1)
    work = _ufunc.divide(sym, big)  # new, contiguous: the kernel overwrites it
    v = _array.empty(batch + (n, n) if wantv else (1,), cdt, context=ctx)
    flags = _array.zeros((1,), np.uint32, context=ctx)
    eps = np.finfo(cdt).eps
    tol = np.asarray(n * eps, cdt)[()]
    floor = np.asarray(eps, cdt)[()]
    grid = rows_grid(count)
    rec = Recorder(ctx)
    rec(K.jacobi_eigh.specialize(a=cdt, v=cdt, tol=cdt, floor=cdt), (work, v, flags), grid,
        n=n, wantv=int(wantv), sweeps=sweeps, count=count, gx=grid[0], tol=tol, floor=floor)
    rec.run()
    flag = int(flags.numpy()[0])
    if flag == 1 and sweeps < MAX_SWEEPS:
        raise _unconverged(ctx, f".{name}", "the iteration", sweeps)
    if flag:
        raise LinAlgError("Eigenvalues did not converge")
    d = _numeric.diagonal(work, 0, -2, -1)
    w = _ufunc.multiply(d, big.reshape(batch + (1,)))
    order = _sort.argsort(w, axis=-1)  # ascending, as LAPACK's
    from . import _indexfuncs
    w = _indexfuncs.take_along_axis(w, order, -1)
    if not wantv:
        return w, None
    vecs = _indexfuncs.take_along_axis(v, order.reshape(batch + (1, n)), -1)
    return w, vecs


def eigvalsh(a, UPLO="L"):
    """numpy.linalg.eigvalsh on the GPU: the eigenvalues of each symmetric
    matrix of a (..., M, M) stack, ascending, from the lower (UPLO='L') or
    upper triangle only (cyclic Jacobi, _linalg_kernels.jacobi_eigh: high
    relative accuracy). NaN or inf input: LinAlgError."""
    if _array.common_context("vp.linalg.eigvalsh", (a,)) is None:
        return np.linalg.eigvalsh(a, UPLO)
    return _eigh("eigvalsh", a, UPLO, False)[0]


def eigh(a, UPLO="L"):
    """numpy.linalg.eigh on the GPU: EighResult(eigenvalues, eigenvectors)
    of each symmetric matrix of a stack: eigenvalues ascending, the
    eigenvectors orthonormal columns (their signs may differ from
    LAPACK's, as any eigenvector's may), from the UPLO triangle."""
    if _array.common_context("vp.linalg.eigh", (a,)) is None:
        return np.linalg.eigh(a, UPLO)
    return EighResult(*_eigh("eigh", a, UPLO, True))


# ---------------------------------------------------------------- NumPy 2's array-API names

def _res1(name, *xs):
    """The inputs as resident arrays of one context, or None (NumPy's)."""
    return _resident_inputs(name, xs)


def matmul(x1, x2, /):
    """numpy.linalg.matmul: vp.matmul (arrays of at least one dimension)."""
    xs = _res1("matmul", x1, x2)
    if xs is None:
        return np.linalg.matmul(x1, x2)
    from . import _matmul
    return _matmul.matmul(*xs)


def tensordot(x1, x2, /, *, axes=2):
    """numpy.linalg.tensordot: vp.tensordot."""
    xs = _res1("tensordot", x1, x2)
    if xs is None:
        return np.linalg.tensordot(x1, x2, axes=axes)
    from . import _matmul
    return _matmul.tensordot(*xs, axes=axes)


def outer(x1, x2, /):
    """numpy.linalg.outer: the outer product of two 1-D arrays (ValueError
    for any other, as NumPy's)."""
    xs = _res1("outer", x1, x2)
    if xs is None:
        return np.linalg.outer(x1, x2)
    a, b = xs
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"Input arrays must be one-dimensional, but they are "
                         f"x1.ndim={a.ndim} and x2.ndim={b.ndim}.")
    from . import _stats
    return _stats.outer(a, b)


def trace(x, /, *, offset=0, dtype=None):
    """numpy.linalg.trace: the sums along the diagonals of the last two
    axes."""
    xs = _res1("trace", x)
    if xs is None:
        return np.linalg.trace(x, offset=offset, dtype=dtype)
    from . import _numeric
    return _numeric.trace(xs[0], offset, -2, -1, dtype)


def diagonal(x, /, *, offset=0):
    """numpy.linalg.diagonal: the diagonals of the last two axes (a copy)."""
    xs = _res1("diagonal", x)
    if xs is None:
        return np.linalg.diagonal(x, offset=offset)
    from . import _numeric
    return _numeric.diagonal(xs[0], offset, -2, -1)


def matrix_transpose(x, /):
    """numpy.linalg.matrix_transpose: the last two axes swapped (a view);
    ValueError below two dimensions, as NumPy's."""
    xs = _res1("matrix_transpose", x)
    if xs is None:
        return np.linalg.matrix_transpose(x)
    if xs[0].ndim < 2:
        raise ValueError(f"Input array must be at least 2-dimensional, but it is {xs[0].ndim}")
    return _shapeops.swapaxes(xs[0], -1, -2)


def _core_last(x, axis):
    """x with its axis `axis` moved last (a transposed view; vp.jit's
    tracers too, which moveaxis would send back through NumPy)."""
    ax = _errors.axis(axis, x.ndim)
    if ax == x.ndim - 1:
        return x
    return x.transpose(tuple(d for d in range(x.ndim) if d != ax) + (ax,))


def vecdot(x1, x2, /, *, axis=-1):
    """numpy.linalg.vecdot: sum(conj(x1) * x2) along `axis` of each
    operand (its core dimension, NumPy's gufunc (n),(n)->(): the two
    lengths must be equal, a ValueError otherwise), the other axes
    broadcast."""
    if _graph.is_traced(x1) or _graph.is_traced(x2):
        a, b = x1, x2   # inside vp.jit: the same steps, traced
        if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
            raise TypeError("vp.linalg.vecdot inside vp.jit: pass both operands as "
                            "arguments of the function (a NumPy operand is not traced)")
    else:
        xs = _res1("vecdot", x1, x2)
        if xs is None:
            return np.linalg.vecdot(x1, x2, axis=axis)
        a, b = xs
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"vecdot: Input operand {0 if a.ndim == 0 else 1} does not have enough "
                         f"dimensions (has 0, gufunc core with signature (n),(n)->() requires 1)")
    # each operand's own `axis` is its core dimension: moved last, where
    # the product and the sum see it (before, the core lengths broadcast:
    # (3,) with (1,) summed 3 products where NumPy raises)
    a, b = _core_last(a, axis), _core_last(b, axis)
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"vecdot: Input operand 1 has a mismatch in its core dimension 0, with "
                         f"gufunc signature (n),(n)->() (size {b.shape[-1]} is different from "
                         f"{a.shape[-1]})")
    axis = -1
    if a.dtype.kind == "c":
        from . import _complex
        a = _complex.conjugate(a)
    # NumPy's dot loops: the operands' dtype, no widening (int8 stays int8
    # and wraps; bools are any(a and b)); float16 products summed in
    # float32 and rounded once (HALF_dot)
    rdt = np.result_type(a.dtype, b.dtype)
    if rdt == np.bool_:
        return _reduce.any(_ufunc.logical_and(a, b), axis)
    if rdt == np.float16:
        f = np.dtype(np.float32)
        return _reduce.sum(_ufunc.multiply(a.astype(f), b.astype(f)), axis, f).astype(rdt)
    return _reduce.sum(_ufunc.multiply(a, b), axis, rdt)


def cross(x1, x2, /, *, axis=-1):
    """numpy.linalg.cross: the cross product of 3-element vectors along
    `axis` (ValueError for any other length, as NumPy's), the shapes
    broadcast."""
    xs = _res1("cross", x1, x2)
    if xs is None:
        return np.linalg.cross(x1, x2, axis=axis)
    a, b = xs
    if a.shape[axis] != 3 or b.shape[axis] != 3:
        raise ValueError(f"Both input arrays must be (arrays of) 3-dimensional vectors, but "
                         f"they are {a.shape[axis]} and {b.shape[axis]} dimensional instead.")
    a = _shapeops.moveaxis(a, axis, -1)
    b = _shapeops.moveaxis(b, axis, -1)
    c = [_ufunc.subtract(_ufunc.multiply(a[..., i], b[..., j]),
                         _ufunc.multiply(a[..., j], b[..., i]))
         for i, j in ((1, 2), (2, 0), (0, 1))]
    return _shapeops.moveaxis(_shapeops.stack(c, axis=-1), -1, axis)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """numpy.linalg.matrix_norm: norm over the last two axes."""
    xs = _res1("matrix_norm", x)
    if xs is None:
        return np.linalg.matrix_norm(x, keepdims=keepdims, ord=ord)
    return norm(xs[0], ord, (-2, -1), keepdims)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """numpy.linalg.vector_norm: a vector norm over all axes (axis None:
    the array flattened), one axis or a tuple of them (taken together)."""
    xs = _res1("vector_norm", x)
    if xs is None:
        return np.linalg.vector_norm(x, axis=axis, keepdims=keepdims, ord=ord)
    a = xs[0]
    if a.dtype.kind not in "fc":
        a = a.astype(np.float64)
    nd = a.ndim
    if axis is None:
        r = norm(a.ravel(), ord, 0)
        return r.reshape((1,) * nd) if keepdims else r
    axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
    axes = tuple(_errors.axis(int(ax), nd, "vp.linalg.vector_norm: axis") for ax in axes)
    rest = tuple(i for i in range(nd) if i not in axes)
    t = _shapeops.moveaxis(a, axes, tuple(range(nd - len(axes), nd)))
    t = t.reshape(tuple(a.shape[i] for i in rest) + (math.prod(a.shape[i] for i in axes),))
    r = norm(t, ord, -1)
    if keepdims:
        r = r.reshape(tuple(1 if i in axes else a.shape[i] for i in range(nd)))
    return r


def matrix_power(a, n):
    """numpy.linalg.matrix_power: a raised to the integer power n for each
    matrix of a stack, by NumPy's sequence of products (so results agree
    to rounding): n = 0 the identity, n < 0 the power of inv(a)."""
    xs = _res1("matrix_power", a)
    if xs is None:
        return np.linalg.matrix_power(a, n)
    x, = xs
    _square(x)
    try:
        n = operator.index(n)
    except TypeError as e:
        raise TypeError("exponent must be an integer") from e
    from . import _matmul
    if n == 0:
        eye = _shapeops.eye(x.shape[-1], dtype=x.dtype, context=x._ctx)
        return _shapeops.broadcast_to(eye, tuple(x.shape)).copy()
    if n < 0:
        x = inv(x)
        n = abs(n)
    if n == 1:
        return x.copy()
    if n == 2:
        return _matmul.matmul(x, x)
    if n == 3:
        return _matmul.matmul(_matmul.matmul(x, x), x)
    z = result = None
    while n > 0:
        z = x if z is None else _matmul.matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else _matmul.matmul(result, z)
    return result


def multi_dot(arrays, *, out=None):
    """numpy.linalg.multi_dot: the product of two or more arrays (the first
    and last may be 1-D) in the order of fewest multiplications (NumPy's
    matrix-chain order, so results agree to rounding)."""
    arrays = list(arrays)
    if not any(isinstance(a, _nd) for a in arrays):
        return np.linalg.multi_dot(arrays, out=out)
    xs = _resident_inputs("multi_dot", arrays)
    from . import _matmul
    n = len(xs)
    if n < 2:
        raise ValueError("Expecting at least two arrays.")
    first, last = xs[0].ndim == 1, xs[-1].ndim == 1
    if first:
        xs[0] = xs[0].reshape((1, -1))
    if last:
        xs[-1] = xs[-1].reshape((-1, 1))
    for x in xs:
        if x.ndim != 2:
            raise LinAlgError(f"{x.ndim}-dimensional array given. Array must be "
                              f"two-dimensional")
    if n == 2:
        r = _matmul.matmul(xs[0], xs[1])
    else:
        dims = [x.shape[0] for x in xs] + [xs[-1].shape[1]]
        cost = [[0] * n for _ in range(n)]
        split = [[0] * n for _ in range(n)]
        for length in range(1, n):  # NumPy's _multi_dot_matrix_chain_order
            for i in range(n - length):
                j = i + length
                cost[i][j] = math.inf
                for k in range(i, j):
                    q = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                    if q < cost[i][j]:
                        cost[i][j] = q
                        split[i][j] = k

        def chain(i, j):
            if i == j:
                return xs[i]
            k = split[i][j]
            return _matmul.matmul(chain(i, k), chain(k + 1, j))
        r = chain(0, n - 1)
    if first and last:
        r = r.reshape(())
    elif first:
        r = r.reshape((r.shape[-1],))
    elif last:
        r = r.reshape((r.shape[0],))
    if out is not None:
        from . import _numeric
        _numeric.copyto(out, r)
        return out
    return r


def tensorinv(a, ind=2):
    """numpy.linalg.tensorinv: the inverse of a reshaped to a square matrix
    (the first `ind` axes against the rest), reshaped back."""
    xs = _res1("tensorinv", a)
    if xs is None:
        return np.linalg.tensorinv(a, ind)
    x, = xs
    if ind <= 0:
        raise ValueError("Invalid ind argument.")
    old = tuple(x.shape)
    prod = math.prod(old[ind:])
    return inv(x.reshape((prod, -1))).reshape(old[ind:] + old[:ind])


def tensorsolve(a, b, axes=None):
    """numpy.linalg.tensorsolve: x with tensordot(a, x, x.ndim) == b, by
    solve on a reshaped to a square matrix."""
    xs = _res1("tensorsolve", a, b)
    if xs is None:
        return np.linalg.tensorsolve(a, b, axes)
    x, y = xs
    an = x.ndim
    if axes is not None:
        allaxes = list(range(an))
        for k in axes:
            allaxes.remove(k)
            allaxes.insert(an, k)
        x = x.transpose(allaxes)
    oldshape = tuple(x.shape[-(an - y.ndim):])
    prod = math.prod(oldshape)
    if x.size != prod ** 2:
        raise LinAlgError("Input arrays must satisfy the requirement "
                          "prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])")
    return solve(x.reshape((prod, prod)), y.ravel()).reshape(oldshape)


NAMES = ("norm", "solve", "inv", "det", "slogdet", "cholesky", "svdvals", "svd", "pinv",
         "matrix_rank", "cond", "lstsq", "eigvalsh", "eigh", "qr", "matmul", "tensordot",
         "outer", "trace", "diagonal", "matrix_transpose", "vecdot", "cross", "matrix_norm",
         "vector_norm", "matrix_power", "multi_dot", "tensorinv", "tensorsolve")
