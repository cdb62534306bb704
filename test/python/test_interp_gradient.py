"""vp.interp and vp.gradient (issue 19; were missing, and np.interp /
np.gradient on resident arrays were refused) against NumPy: NumPy's
formulas and special cases (exact sample points, the last point, NaN x,
left/right, period; uniform and uneven spacing, edge_order 1 and 2), so
float64 results agree to the last bit on lavapipe and float32 ones within
a few ULP (NumPy may compute an uneven spacing's coefficients in float64)."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target

SETTINGS = settings(max_examples=20, deadline=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))


def _f64():
    return "float64" in vp.Context().info["features"]


@SETTINGS
@given(st.integers(1, 12), st.integers(0, 20), st.integers(0, 2**31),
       st.sampled_from(["plain", "leftright", "period", "ints"]))
def test_interp_matches_numpy(n, m, seed, how):
    if not _f64():
        pytest.skip("np.interp computes in float64")
    rng = np.random.default_rng(seed)
    xp = np.sort(rng.choice(np.arange(40), n, replace=False)).astype(np.float64) / 8
    fp = rng.standard_normal(n)
    x = np.concatenate([rng.random(m) * 7 - 1, xp[: min(n, 3)], xp[-1:], [np.nan, -np.inf]])
    # a period past xp's range: xp % period has no duplicates, whose order
    # NumPy's (unstable) argsort leaves to its SIMD sort
    kw = {"leftright": {"left": -9.0, "right": 9.0}, "period": {"period": 5.5}}.get(how, {})
    if how == "ints":
        x = np.round(x[np.isfinite(x)]).astype(np.int32)
        fp = (fp * 10).astype(np.int32)
    want = np.interp(x, xp, fp, **kw)
    got = np.interp(vp.asarray(x), vp.asarray(xp), vp.asarray(fp), **kw)
    assert isinstance(got, vp.ndarray) and got.dtype == want.dtype == np.float64
    np.testing.assert_array_equal(got.numpy(), want)


def test_interp_edges_and_errors():
    x = vp.asarray(np.array([-1.0, 0.0, 0.5, 1.0, 2.0]))
    np.testing.assert_array_equal(vp.interp(x, vp.asarray([0.5]), vp.asarray([7.0])).numpy(),
                                  np.interp(x.numpy(), [0.5], [7.0]))
    # an infinite slope: NumPy retries from the right end
    xp, fp = np.array([0.0, 1e-310, 1.0]), np.array([0.0, 1.0, 1.0])
    np.testing.assert_array_equal(vp.interp(x, vp.asarray(xp), vp.asarray(fp)).numpy(),
                                  np.interp(x.numpy(), xp, fp))
    with pytest.raises(ValueError, match="empty"):
        vp.interp(x, vp.zeros(0), vp.zeros(0))
    with pytest.raises(ValueError, match="same length"):
        vp.interp(x, vp.zeros(3), vp.zeros(2))
    with pytest.raises(ValueError, match="1-D"):
        vp.interp(x, vp.zeros((2, 2)), vp.zeros((2, 2)))
    with pytest.raises(ValueError, match="period"):
        vp.interp(x, vp.arange(3.0), vp.arange(3.0), period=0)
    with pytest.raises(TypeError, match="complex"):
        vp.interp(x, vp.arange(3.0), vp.asarray(np.ones(3, np.complex64)))


@SETTINGS
@given(st.lists(st.integers(3, 7), min_size=1, max_size=3).map(tuple), st.integers(0, 2**31),
       st.sampled_from([np.float32, np.int32, np.float64]),
       st.sampled_from([1, 2]), st.sampled_from(["none", "scalar", "coords", "even"]),
       st.data())
def test_gradient_matches_numpy(shape, seed, dt, edge, spacing, data):
    if dt == np.float64 and not _f64():
        return
    rng = np.random.default_rng(seed)
    f = (rng.standard_normal(shape) * 10).astype(dt)
    axis = data.draw(st.sampled_from([None] + list(range(-len(shape), len(shape)))))
    axes = list(range(len(shape))) if axis is None else [axis % len(shape)]
    if spacing == "none":
        args = ()
    elif spacing == "scalar":
        args = (0.75,)
    else:  # coordinates per axis: uneven, or evenly spaced (NumPy's uniform path)
        args = tuple(np.cumsum(rng.random(shape[a]) + 0.2) if spacing == "coords"
                     else np.arange(shape[a]) * 1.5 for a in axes)
    want = np.gradient(f, *args, axis=axis, edge_order=edge)
    got = np.gradient(vp.asarray(f), *(vp.asarray(a) if isinstance(a, np.ndarray) else a
                                        for a in args), axis=axis, edge_order=edge)
    want = want if isinstance(want, tuple) else (want,)
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert isinstance(g, vp.ndarray) and g.dtype == w.dtype and g.shape == w.shape
        tol = 4e-6 if w.dtype == np.float32 else 1e-13
        np.testing.assert_allclose(g.numpy(), w, rtol=tol, atol=tol * np.abs(w).max())


def test_gradient_errors():
    f = vp.asarray(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    with pytest.raises(ValueError, match="too small"):
        vp.gradient(f, axis=0, edge_order=2)
    with pytest.raises(ValueError, match="edge_order"):
        vp.gradient(f, edge_order=3)
    with pytest.raises(TypeError, match="invalid number of arguments"):
        vp.gradient(f, 1.0, 2.0, 3.0)
    with pytest.raises(ValueError, match="must match the length"):
        vp.gradient(f, vp.arange(4.0), axis=1)
    with pytest.raises(np.exceptions.AxisError):
        vp.gradient(f, axis=2)
