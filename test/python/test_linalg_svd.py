"""The one-sided Jacobi SVD on the device (_linalg_kernels.jacobi_svd) and
what is built on it: vp.linalg.svdvals, svd (the vectors completed to
square orthogonal ones by vp.linalg.qr where asked), pinv,
lstsq, matrix_rank, cond, norm's 2 / -2 / 'nuc', and vp.polyfit, each
differentially against NumPy (all were refused or NotImplementedError):
tall and wide matrices, stacks, rank-deficient ones, empty ones, NaN
input (NumPy's LinAlgError), float32 / float64.

Tolerances relative to the largest magnitude of NumPy's answer: float32
2e-5, float64 1e-11 (for pinv and lstsq times the condition number of
the well-conditioned random matrices here, which stays below ~100)."""
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target

SETTINGS = settings(max_examples=12, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])
F32, F64 = np.dtype(np.float32), np.dtype(np.float64)
TOL = {F32: 2e-5, F64: 1e-11}
LinAlgError = np.linalg.LinAlgError


def close(got, want, tol=None):
    want = np.asarray(want)
    got = np.asarray(got.numpy() if isinstance(got, vp.ndarray) else got)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype,
                                                                 want.shape, want.dtype)
    tol = tol or TOL[want.dtype] if want.dtype.kind == "f" else 0
    scale = np.abs(want).max() if want.size else 1.0
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale)


def rand(rng, shape, dt, rank=None):
    a = rng.standard_normal(shape).astype(dt)
    if rank is not None and shape[-1] > 1:
        # rank 1 exactly in the dtype: every column is column 0 times 2 or
        # -1 (exact products), so the other singular values are 0 up to
        # rounding noise far below the cut-offs (a product of thin float64
        # factors cast to float32 is not: its noise sits near pinv's
        # cut-off, where NumPy's answer itself is noise)
        a[..., :, 1:] = a[..., :, :1] * np.where(np.arange(1, shape[-1]) % 2, 2, -1).astype(dt)
    return a


@SETTINGS
@given(dt=st.sampled_from([F32, F64]), m=st.integers(0, 9), n=st.integers(0, 9),
       batch=st.sampled_from([(), (2,)]), deficient=st.booleans(), seed=st.integers(0, 2**31))
def test_svdvals_pinv_rank_match_numpy(dt, m, n, batch, deficient, seed):
    rng = np.random.default_rng(seed)
    a = rand(rng, batch + (m, n), dt, rank=1 if deficient else None)
    x = vp.asarray(a)
    close(np.linalg.svdvals(x), np.linalg.svdvals(a))
    close(np.linalg.svd(x, compute_uv=False), np.linalg.svd(a, compute_uv=False))
    if a.size:
        close(np.linalg.pinv(x), np.linalg.pinv(a), TOL[dt] * 20)
        got = np.linalg.matrix_rank(x)
        np.testing.assert_array_equal(np.asarray(got.numpy() if isinstance(got, vp.ndarray)
                                                 else got), np.linalg.matrix_rank(a))
    else:
        assert np.linalg.pinv(x).shape == np.linalg.pinv(a).shape


@SETTINGS
@given(dt=st.sampled_from([F32, F64]), m=st.integers(1, 12), n=st.integers(1, 6),
       k=st.sampled_from([None, 1, 3]), deficient=st.booleans(), seed=st.integers(0, 2**31))
def test_lstsq_matches_numpy(dt, m, n, k, deficient, seed):
    """x, residuals (only when rank == N < M), rank, s as NumPy's."""
    rng = np.random.default_rng(seed)
    a = rand(rng, (m, n), dt, rank=1 if deficient else None)
    b = rng.standard_normal((m,) if k is None else (m, k)).astype(dt)
    want = np.linalg.lstsq(a, b)
    got = np.linalg.lstsq(vp.asarray(a), vp.asarray(b))
    assert got[2] == want[2] and type(got[2]) is type(want[2])  # (np.int32, as LAPACK's)
    close(got[0], want[0], TOL[dt] * 20)
    close(got[1], want[1], TOL[dt] * 20)
    close(got[3], want[3])


@SETTINGS
@given(dt=st.sampled_from([F32, F64]), m=st.integers(0, 8), n=st.integers(0, 8),
       batch=st.sampled_from([(), (2,)]), deficient=st.booleans(), full=st.booleans(),
       seed=st.integers(0, 2**31))
def test_svd_vectors(dt, m, n, batch, deficient, full, seed):
    """np.linalg.svd with the vectors (was NotImplementedError): NumPy's
    shapes and S; U and Vh by what defines them (their signs are free):
    U diag(S) Vh = a, orthonormal columns of U and rows of Vh, completed
    to square ones with full_matrices (rank-deficient input included)."""
    rng = np.random.default_rng(seed)
    a = rand(rng, batch + (m, n), dt, rank=1 if deficient else None)
    wu, ws, wvh = np.linalg.svd(a, full_matrices=full)
    r = np.linalg.svd(vp.asarray(a), full_matrices=full)
    assert type(r).__name__ == "SVDResult"
    u, s, vh = (x.numpy() for x in r)
    assert (u.shape, s.shape, vh.shape) == (wu.shape, ws.shape, wvh.shape)
    assert u.dtype == wu.dtype == s.dtype == vh.dtype
    close(r.S, ws)
    k = s.shape[-1]
    t = TOL[dt] * 10 * max(m, n, 1) * max(np.abs(a).max() if a.size else 1, 1)
    np.testing.assert_allclose((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], a, atol=t)
    for q, side in ((u, -1), (vh, -2)):
        g = np.swapaxes(q, -1, -2) @ q if side == -1 else q @ np.swapaxes(q, -1, -2)
        np.testing.assert_allclose(g, np.broadcast_to(np.eye(q.shape[side]), g.shape),
                                   atol=TOL[dt] * 10 * max(m, n, 1))


def test_norm_2_nuc_and_cond_match_numpy():
    rng = np.random.default_rng(5)
    for dt in (F32, F64):
        a = rand(rng, (3, 4, 4), dt)
        x = vp.asarray(a)
        for o in (2, -2, "nuc"):
            close(np.linalg.norm(x, o, axis=(1, 2)), np.linalg.norm(a, o, axis=(1, 2)))
            close(np.linalg.norm(x[0], o), np.linalg.norm(a[0], o))
            close(np.linalg.norm(x, o, axis=(2, 1), keepdims=True),
                  np.linalg.norm(a, o, axis=(2, 1), keepdims=True))
        for p in (None, 2, -2, 1, -1, np.inf, -np.inf, "fro"):
            close(np.linalg.cond(x, p), np.linalg.cond(a, p), TOL[dt] * 50)
        r = rand(rng, (5, 3), dt)
        close(np.linalg.cond(vp.asarray(r)), np.linalg.cond(r), TOL[dt] * 50)


def test_singular_and_nan():
    """An exactly singular matrix: cond inf for the p that invert (NumPy
    gives inf or a huge number there), huge for p = 2 (as NumPy's, both
    rounding noise); NaN input: svdvals raises LinAlgError as NumPy's,
    cond gives NaN (the input has a NaN). inf input raises too (NumPy's
    svdvals returns NaNs there and its pinv zeros: LAPACK's garbage)."""
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    x = vp.asarray(a)
    assert float(np.linalg.cond(x, 1).numpy()) == np.inf
    assert float(np.linalg.cond(x).numpy()) > 1 / np.finfo(np.float64).eps / 10
    assert int(np.linalg.matrix_rank(x).numpy()) == 1
    n = np.array([[np.nan, 1.0], [1.0, 1.0]])
    with pytest.raises(LinAlgError):
        np.linalg.svdvals(n)
    with pytest.raises(LinAlgError, match="did not converge"):
        vp.linalg.svdvals(vp.asarray(n))
    with pytest.raises(LinAlgError, match="did not converge"):
        vp.linalg.svdvals(vp.asarray(np.array([[np.inf, 1.0], [1.0, 1.0]])))
    assert np.isnan(float(np.linalg.cond(vp.asarray(n), 1).numpy()))


def test_errors_and_limits():
    x = vp.asarray(np.eye(3))
    with pytest.raises(LinAlgError, match="two-dimensional"):
        vp.linalg.svdvals(vp.ones(3))
    with pytest.raises(LinAlgError, match="empty"):
        vp.linalg.cond(vp.zeros((0, 0)))
    with pytest.raises(ValueError, match="both set"):
        vp.linalg.pinv(x, rcond=1e-3, rtol=1e-3)
    assert np.linalg.matrix_rank(vp.asarray(np.zeros(3))) == 0  # 1-D: NumPy's rule
    assert isinstance(vp.linalg.pinv(np.eye(2)), np.ndarray)  # NumPy in, NumPy out
    lim = vp.default_context().limits.get("max_loop_iterations")
    if lim is not None:  # lavapipe: refused past what its loop budget allows, never wrong
        with pytest.raises(NotImplementedError, match="max_loop_iterations"):
            vp.linalg.svdvals(vp.asarray(np.eye(300)))


def test_larger_and_tall():
    """More rows than the workgroup's 256 invocations (the rows split
    among them), and a matrix of 30 columns (435 pairs a sweep)."""
    rng = np.random.default_rng(8)
    for shape in ((700, 5), (5, 700), (30, 30)):
        a = rand(rng, shape, F64)
        close(vp.linalg.svdvals(vp.asarray(a)), np.linalg.svdvals(a))
        close(vp.linalg.pinv(vp.asarray(a)), np.linalg.pinv(a), 1e-9)


@SETTINGS
@given(dt=st.sampled_from([F32, F64]), deg=st.integers(0, 5), two=st.booleans(),
       how=st.sampled_from(["plain", "w", "full", "cov", "unscaled"]), seed=st.integers(0, 2**31))
def test_polyfit_matches_numpy(dt, deg, two, how, seed):
    rng = np.random.default_rng(seed)
    x = np.linspace(-2, 3, 40).astype(dt)
    y = (1 + 2 * x - 0.5 * x ** 2 + rng.standard_normal(40) * 0.1).astype(dt)
    if two:
        y = np.stack([y, 3 * y], 1)
    kw = {"plain": {}, "full": {"full": True}, "cov": {"cov": True},
          "unscaled": {"cov": "unscaled"}, "w": {"w": np.abs(rng.standard_normal(40))}}[how]
    want = np.polyfit(x, y, deg, **kw)
    got = np.polyfit(vp.asarray(x), vp.asarray(y), deg,
                     **{k: vp.asarray(v) if isinstance(v, np.ndarray) else v
                        for k, v in kw.items()})
    want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if isinstance(w, np.ndarray):
            close(g, w, 1e-9)
        else:
            assert g == w


def test_polyfit_rank_warning_and_errors():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vp.polyfit(vp.asarray(np.ones(3)), vp.asarray(np.arange(3.0)), 2)
    assert any(issubclass(w.category, np.exceptions.RankWarning) for w in caught)
    with pytest.raises(ValueError, match="deg >= 0"):
        vp.polyfit(vp.asarray(np.ones(3)), vp.asarray(np.ones(3)), -1)
    with pytest.raises(TypeError, match="same length"):
        vp.polyfit(vp.asarray(np.ones(3)), vp.asarray(np.ones(4)), 1)
    with pytest.raises(TypeError, match="1D vector for x"):
        vp.polyfit(vp.asarray(np.ones((2, 2))), vp.asarray(np.ones(2)), 1)
