"""Differential tests of the reductions and scans against NumPy (hypothesis
drives shapes and values): every reduction, every axis form (None, int,
negative, tuple), keepdims, every dtype the device has, empty and
single-element axes, NumPy in / NumPy out, resident arrays, methods,
strided views, out=."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target

SETTINGS = settings(max_examples=8, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

REDUCTIONS = ["sum", "prod", "min", "max", "mean", "argmin", "argmax", "any", "all"]
DTYPES = [np.float32, np.float64, np.int32, np.uint32, np.int64, np.bool_]


def _values(dt):
    dt = np.dtype(dt)
    if dt == np.bool_:
        return st.booleans()
    if dt.kind == "f":
        return st.floats(-4, 4, width=dt.itemsize * 8, allow_nan=False)
    return st.integers(-5 if dt.kind == "i" else 0, 5)


@st.composite
def case(draw, dt, allow_empty=True):
    nd = draw(st.integers(0, 3))
    lo = 0 if allow_empty else 1
    shape = tuple(draw(st.lists(st.integers(lo, 9), min_size=nd, max_size=nd)))
    a = draw(hnp.arrays(dt, shape, elements=_values(dt)))
    axes = [None] + list(range(-nd, nd))
    if nd >= 2:
        axes += [(0, nd - 1), tuple(range(nd))]
    axis = draw(st.sampled_from(axes))
    keepdims = draw(st.booleans())
    return a, axis, keepdims


def _skip(ctx, dt):
    if np.dtype(dt) in (np.dtype(np.float64),) and not ctx.has("float64"):
        pytest.skip("no float64")
    if np.dtype(dt) in (np.dtype(np.int64), np.dtype(np.uint64)) and not ctx.has("int64"):
        pytest.skip("no int64")


def _check(name, a, axis, keepdims, got):
    np_kw = {"axis": axis}
    if name.startswith("arg"):
        if isinstance(axis, tuple):
            return
        np_kw["keepdims"] = keepdims
    else:
        np_kw["keepdims"] = keepdims
    try:
        with np.errstate(all="ignore"):
            ref = getattr(np, name)(a, **np_kw)
    except ValueError:
        return "raises"
    got = np.asarray(got)
    assert got.shape == np.shape(ref), (name, a.shape, axis, keepdims)
    assert got.dtype == np.asarray(ref).dtype, (name, got.dtype, np.asarray(ref).dtype)
    if got.dtype.kind == "f":
        tol = 1e-5 if a.dtype == np.float64 else 2e-4
        if name == "prod":
            tol = 1e-3
        np.testing.assert_allclose(got, ref, rtol=tol, atol=tol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_reduction_matches_numpy(ctx, name, dt):
    _skip(ctx, dt)

    @SETTINGS
    @given(case(dt))
    def run(c):
        a, axis, keepdims = c
        if name.startswith("arg") and isinstance(axis, tuple):
            axis = None
        try:
            with np.errstate(all="ignore"):
                getattr(np, name)(a, axis=axis, keepdims=keepdims)
        except ValueError:
            with pytest.raises(ValueError):
                getattr(vp, name)(a, axis=axis, keepdims=keepdims)
            return
        # NumPy in, NumPy out
        _check(name, a, axis, keepdims, getattr(vp, name)(a, axis=axis, keepdims=keepdims))
        # resident, as a method
        av = vp.asarray(a)
        r = getattr(av, name)(axis=axis, keepdims=keepdims)
        assert isinstance(r, vp.ndarray)
        _check(name, a, axis, keepdims, r.numpy())

    run()


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dt", [np.float32, np.int32, np.int64, np.bool_],
                         ids=lambda d: np.dtype(d).name)
def test_scans_match_numpy(ctx, name, dt):
    _skip(ctx, dt)

    @SETTINGS
    @given(case(dt))
    def run(c):
        a, axis, _ = c
        if isinstance(axis, tuple) or (a.ndim == 0 and axis is not None):
            axis = None
        ref = getattr(np, name)(a, axis=axis)
        got = getattr(vp, name)(a, axis=axis)
        assert got.shape == ref.shape and got.dtype == ref.dtype
        if ref.dtype.kind == "f":
            np.testing.assert_allclose(got, ref, rtol=1e-3, atol=1e-3)
        else:
            np.testing.assert_array_equal(got, ref)

    run()


def test_large_sum_uses_many_workgroups():
    x = np.random.default_rng(0).standard_normal(3_000_001).astype(np.float32)
    np.testing.assert_allclose(vp.sum(x), x.sum(dtype=np.float64), rtol=1e-5)
    assert vp.argmax(x) == np.argmax(x) and vp.argmin(x) == np.argmin(x)
    np.testing.assert_allclose(vp.max(x), x.max())


def test_nan_propagates_like_numpy():
    x = np.arange(1000, dtype=np.float32)
    x[500] = np.nan
    assert np.isnan(vp.max(x)) and np.isnan(vp.min(x)) and np.isnan(vp.sum(x))
    assert vp.argmax(x) == 500 and vp.argmin(x) == 500
    y = x.reshape(10, 100)
    np.testing.assert_array_equal(np.isnan(vp.max(y, axis=1)), np.isnan(y.max(axis=1)))


def test_reductions_of_views_and_out(ctx):
    x = np.arange(120, dtype=np.float32).reshape(10, 12)
    xv = vp.asarray(x)
    np.testing.assert_allclose(xv[::2, ::-3].sum(axis=0).numpy(), x[::2, ::-3].sum(axis=0))
    out = vp.zeros((12,), np.float32)
    vp.sum(xv, axis=0, out=out)
    np.testing.assert_allclose(out.numpy(), x.sum(axis=0))
    big = vp.zeros((24,), np.float32)
    vp.max(xv, axis=0, out=big[::2])
    np.testing.assert_allclose(big.numpy()[::2], x.max(axis=0))


def test_min_max_keep_their_elementwise_form():
    a = np.array([1, 5, 3], np.float32)
    b = np.array([4, 2, 6], np.float32)
    np.testing.assert_array_equal(vp.min(a, b), np.minimum(a, b))
    np.testing.assert_array_equal(vp.max(a, b), np.maximum(a, b))
    assert vp.min(a) == 1 and vp.max(a, axis=0) == 5


def test_dtype_argument():
    x = np.arange(10, dtype=np.int32)
    assert vp.sum(x, dtype=np.float32).dtype == np.float32
    assert vp.sum(x).dtype == np.sum(x).dtype
    assert vp.mean(x).dtype == np.float64


def test_bad_axis():
    with pytest.raises((ValueError, np.exceptions.AxisError)):
        vp.sum(np.ones((2, 3), np.float32), axis=2)
    with pytest.raises(ValueError, match="duplicate"):
        vp.sum(np.ones((2, 3), np.float32), axis=(0, 0))
