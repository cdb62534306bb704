"""vp.linalg.qr (Householder QR on the device, _linalg_kernels.householder_qr,
LAPACK's geqrf / orgqr recipe) against numpy.linalg.qr: Q and R agree to
rounding (same reflectors, so the same signs) in every mode ('reduced',
'complete', 'r', 'raw'), tall, wide and square matrices, stacks, empty
ones, rank-deficient ones (checked by Q R = A and Q^T Q = I), the loop
limit of lavapipe (refused, never wrong). Tolerances relative to the
largest |a|: float32 1e-5 * (M + N), float64 1e-14 * (M + N)."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target

SETTINGS = settings(max_examples=15, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])
F32, F64 = np.dtype(np.float32), np.dtype(np.float64)
TOL = {F32: 1e-5, F64: 1e-14}
LinAlgError = np.linalg.LinAlgError


def tol_for(a):
    return TOL[a.dtype] * (sum(a.shape[-2:]) + 1) * max(np.abs(a).max() if a.size else 1, 1)


@SETTINGS
@given(dt=st.sampled_from([F32, F64]), m=st.integers(0, 9), n=st.integers(0, 9),
       batch=st.sampled_from([(), (2,)]), mode=st.sampled_from(["reduced", "complete", "r", "raw"]),
       seed=st.integers(0, 2**31))
def test_qr_matches_numpy(dt, m, n, batch, mode, seed):
    a = np.random.default_rng(seed).standard_normal(batch + (m, n)).astype(dt)
    want = np.linalg.qr(a, mode)
    got = np.linalg.qr(vp.asarray(a), mode)
    if mode == "r":
        want, got = (want,), (got,)
    else:
        assert type(got).__name__ == type(want).__name__  # QRResult, or raw's tuple
    t = tol_for(a)
    for g, w in zip(got, want):
        assert isinstance(g, vp.ndarray)
        g = g.numpy()
        assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape, g.dtype, w.dtype)
        np.testing.assert_allclose(g, w, rtol=0, atol=t)


def test_rank_deficient_and_zero_columns():
    """A zero column (its reflector is the identity: tau 0) and repeated
    columns: Q R = A, Q orthonormal, R upper triangular."""
    rng = np.random.default_rng(1)
    a = rng.standard_normal((6, 4))
    a[:, 1] = 0
    a[:, 3] = a[:, 0] * 2
    q, r = vp.linalg.qr(vp.asarray(a))
    q, r = q.numpy(), r.numpy()
    np.testing.assert_allclose(q @ r, a, atol=1e-13)
    np.testing.assert_allclose(q.T @ q, np.eye(4), atol=1e-13)
    np.testing.assert_array_equal(r, np.triu(r))
    h, tau = vp.linalg.qr(vp.asarray(a), "raw")
    assert float(tau.numpy()[1]) == 0.0 == float(np.linalg.qr(a, "raw")[1][1])


def test_larger_and_limit():
    """More rows than the workgroup's 256 invocations; on lavapipe the
    kernel's loop count allows 126 x 126 (the count is conservative: 160
    came out right and 180 wrong by 1.1 with the check bypassed)."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((300, 5))
    q, r = vp.linalg.qr(vp.asarray(a))
    wq, wr = np.linalg.qr(a)
    np.testing.assert_allclose(q.numpy(), wq, atol=tol_for(a))
    np.testing.assert_allclose(r.numpy(), wr, atol=tol_for(a))
    if vp.default_context().limits.get("max_loop_iterations") is not None:
        with pytest.raises(NotImplementedError, match="max_loop_iterations"):
            vp.linalg.qr(vp.asarray(np.eye(127)))


def test_errors():
    with pytest.raises(ValueError, match="Unrecognized mode"):
        vp.linalg.qr(vp.asarray(np.eye(2)), "bogus")
    with pytest.raises(LinAlgError, match="two-dimensional"):
        vp.linalg.qr(vp.ones(3))
    q, r = vp.linalg.qr(vp.asarray(np.array([[3, 0], [4, 5]])))  # integers: float64, as NumPy's
    assert q.dtype == np.float64
    np.testing.assert_allclose(r.numpy(), np.linalg.qr(np.array([[3, 0], [4, 5]]))[1], atol=1e-14)
    assert isinstance(vp.linalg.qr(np.eye(2))[0], np.ndarray)  # NumPy in, NumPy out
