"""vp.linalg.eigvalsh / eigh (cyclic Jacobi on the device,
_linalg_kernels.jacobi_eigh) against numpy.linalg: eigenvalues
(ascending) to a tolerance, eigenvectors by what defines them (A V = V
diag(w), V^T V = I: their signs are free), only the UPLO triangle read,
stacks, empty ones, repeated eigenvalues, NaN/inf input, the loop limit
of lavapipe (refused, never wrong). Tolerances relative to the largest
|eigenvalue|: float32 2e-5 * n, float64 1e-13 * n."""
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
TOL = {F32: 2e-6, F64: 1e-14}
LinAlgError = np.linalg.LinAlgError


def sym(rng, shape, dt):
    m = rng.standard_normal(shape)
    return (m + np.swapaxes(m, -1, -2)).astype(dt)


def check(a, w, v, dt, uplo="L"):
    """w, v (resident) against NumPy's eigenvalues and the definition."""
    n = a.shape[-1]
    want = np.linalg.eigvalsh(a, uplo)
    w = w.numpy()
    assert w.dtype == want.dtype and w.shape == want.shape
    scale = max(np.abs(want).max() if want.size else 1.0, 1e-30)
    tol = TOL[dt] * max(n, 1) * scale
    np.testing.assert_allclose(w, want, rtol=0, atol=tol)
    if v is not None:
        v = v.numpy()
        assert v.dtype == want.dtype and v.shape == a.shape
        full = np.tril(a) + np.swapaxes(np.tril(a, -1), -1, -2) if uplo == "L" else \
            np.triu(a) + np.swapaxes(np.triu(a, 1), -1, -2)
        np.testing.assert_allclose(full @ v, v * w[..., None, :], rtol=0, atol=tol * 4)
        np.testing.assert_allclose(np.swapaxes(v, -1, -2) @ v, np.broadcast_to(np.eye(n), v.shape),
                                   rtol=0, atol=TOL[dt] * max(n, 1) * 4)


@SETTINGS
@given(dt=st.sampled_from([F32, F64]), n=st.integers(0, 12), batch=st.sampled_from([(), (3,)]),
       uplo=st.sampled_from(["L", "U"]), seed=st.integers(0, 2**31))
def test_eigh_matches_numpy(dt, n, batch, uplo, seed):
    rng = np.random.default_rng(seed)
    a = sym(rng, batch + (n, n), dt)
    if n > 1:  # the other triangle holds garbage: never read
        other = (0, n - 1) if uplo == "L" else (n - 1, 0)
        a[..., other[0], other[1]] = 1e6
    x = vp.asarray(a)
    check(a, np.linalg.eigvalsh(x, uplo), None, dt, uplo)
    w, v = np.linalg.eigh(x, uplo)
    check(a, w, v, dt, uplo)
    r = vp.linalg.eigh(x, UPLO=uplo)
    assert type(r).__name__ == "EighResult" and r.eigenvalues is not None


def test_repeated_and_zero_eigenvalues():
    """A projector (eigenvalues 0, 0, 1, 1, 1), a diagonal with repeats, a
    zero matrix, an integer matrix (float64, as NumPy's)."""
    rng = np.random.default_rng(2)
    q, _ = np.linalg.qr(rng.standard_normal((5, 5)))
    p = q[:, :3] @ q[:, :3].T
    for a in (p, np.diag([2.0, -1.0, 2.0, 0.0]), np.zeros((3, 3)), np.array([[2, 1], [1, 2]])):
        x = vp.asarray(a)
        check(np.asarray(a, np.float64), *vp.linalg.eigh(x), F64)


def test_larger():
    """n = 300 > the workgroup's 256 invocations (two rows each in the
    rotations); where the device cuts long loops this size is refused."""
    a = sym(np.random.default_rng(4), (300, 300), F64)
    if vp.default_context().limits.get("max_loop_iterations") is not None:
        with pytest.raises(NotImplementedError, match="max_loop_iterations"):
            vp.linalg.eigvalsh(vp.asarray(a))
        a = a[:30, :30]
    check(a, *vp.linalg.eigh(vp.asarray(a)), F64)


def test_errors():
    with pytest.raises(LinAlgError, match="did not converge"):
        vp.linalg.eigvalsh(vp.asarray(np.array([[np.nan, 0.0], [0.0, 1.0]])))
    with pytest.raises(LinAlgError, match="did not converge"):
        vp.linalg.eigh(vp.asarray(np.array([[np.inf, 0.0], [0.0, 1.0]])))
    with pytest.raises(ValueError, match="UPLO"):
        vp.linalg.eigvalsh(vp.asarray(np.eye(2)), UPLO="X")
    with pytest.raises(LinAlgError, match="square"):
        vp.linalg.eigh(vp.ones((2, 3)))
    assert isinstance(vp.linalg.eigvalsh(np.eye(2)), np.ndarray)  # NumPy in, NumPy out
