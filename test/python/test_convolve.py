"""vp.convolve and vp.correlate (issue 19; were missing, and np.convolve /
np.correlate on resident arrays were refused) against NumPy: every mode,
either argument the longer (correlate's 'same' centring differs from
convolve's there), float32 / float64 / int32 (float64 sums, exact here),
views as inputs; sums split into windows of taps (a device that cuts
long loops)."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import vulpy as vp
from vulpy import _convolve
from conftest import needs_target

pytestmark = needs_target

SETTINGS = settings(max_examples=30, deadline=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))


@SETTINGS
@given(st.integers(1, 40), st.integers(1, 40), st.sampled_from([np.float32, np.float64, np.int32]),
       st.sampled_from(["full", "same", "valid"]), st.sampled_from(["convolve", "correlate"]),
       st.booleans(), st.integers(0, 2**31))
def test_matches_numpy(na, nv, dt, mode, name, strided, seed):
    if dt != np.float32 and "float64" not in vp.Context().info["features"]:
        return
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal(2 * na) * 8).astype(dt)
    v = (rng.standard_normal(nv) * 8).astype(dt)
    ha = a[::2] if strided else a[:na]
    xa = vp.asarray(a)[::2] if strided else vp.asarray(a)[:na]
    want = getattr(np, name)(ha, v, mode)
    got = getattr(np, name)(xa, vp.asarray(v), mode)
    assert isinstance(got, vp.ndarray) and got.dtype == want.dtype and got.shape == want.shape
    if dt == np.int32:
        np.testing.assert_array_equal(got.numpy(), want)
    else:
        tol = 1e-5 if dt == np.float32 else 1e-12
        scale = np.abs(ha).max() * np.abs(v).max() * min(na, nv)
        np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol * scale)


@SETTINGS
@given(st.integers(1, 60), st.integers(1, 60), st.sampled_from(["full", "same", "valid"]),
       st.sampled_from(["convolve", "correlate"]), st.integers(1, 7), st.integers(0, 2**31))
def test_windows_of_taps(na, nv, mode, name, taps, seed):
    """The sum split into dispatches of `taps` taps each (what lavapipe
    gets for more than TAPS_PER_CALL), either argument the longer."""
    if vp.default_context().limits.get("max_loop_iterations") is None:
        pytest.skip("one dispatch on a device that does not cut long loops")
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(na).astype(np.float32)
    v = rng.standard_normal(nv).astype(np.float32)
    want = getattr(np, name)(a, v, mode)
    saved, _convolve.TAPS_PER_CALL = _convolve.TAPS_PER_CALL, taps
    try:
        got = getattr(vp, name)(vp.asarray(a), vp.asarray(v), mode).numpy()
    finally:
        _convolve.TAPS_PER_CALL = saved
    scale = np.abs(a).max() * np.abs(v).max() * min(na, nv)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * scale)


@pytest.mark.parametrize("name", ["convolve", "correlate"])
def test_sum_longer_than_the_loop_budget(name):
    """Bug: on lavapipe a sum of 70000 taps (mode 'valid', 2 outputs)
    raised vp.KernelError (the loop canary: lavapipe ends an invocation's
    loops after 65,535 back-edges); it is summed in windows now."""
    rng = np.random.default_rng(3)
    a = rng.integers(-4, 5, 70001).astype(np.float32)
    v = rng.integers(-4, 5, 70000).astype(np.float32)
    for x, y in ((a, v), (v, a)):
        got = getattr(vp, name)(vp.asarray(x), vp.asarray(y), "valid").numpy()
        np.testing.assert_array_equal(got, getattr(np, name)(x, y, "valid"))  # exact: small integers


def test_errors():
    a = vp.asarray(np.ones(4, np.float32))
    with pytest.raises(ValueError, match="mode must be one of"):
        vp.convolve(a, a, "bogus")
    with pytest.raises(ValueError, match="v cannot be empty"):
        vp.convolve(a, vp.zeros(0))
    with pytest.raises(ValueError, match="a cannot be empty"):
        vp.correlate(vp.zeros(0), a)
    with pytest.raises(ValueError, match="1-D"):
        vp.convolve(vp.zeros((2, 2)), a)
    with pytest.raises(TypeError, match="complex"):
        vp.convolve(a, vp.asarray(np.ones(2, np.complex64)))
