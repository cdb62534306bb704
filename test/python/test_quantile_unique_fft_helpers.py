"""Issue 19, differential against NumPy (hypothesis draws shapes, dtypes,
axes, views): vp.percentile / quantile / nanpercentile / nanquantile
(every method), vp.unique(..., axis=), vp.fft.fftfreq / rfftfreq /
fftshift / ifftshift, and einsum's sublist form.

Tolerances: quantiles mix two sorted neighbours with NumPy's formula; the
GPU may fuse its multiply-add, so float32 results are within 2 ulp-ish
(rtol 1e-6 of the range) and float64 1e-13; integer results are exact.
unique, fftfreq and fftshift are exact (moves and NumPy's own values).
"""
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target

SETTINGS = settings(max_examples=15, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _f64():
    return "float64" in vp.default_context().features


def _data(shape, dt, seed, nan=0.0):
    rng = np.random.default_rng(seed)
    if np.dtype(dt).kind == "f":
        a = rng.standard_normal(shape).astype(dt)
        if nan:
            a[rng.random(shape) < nan] = np.nan
        return a
    return rng.integers(-20, 20 if np.dtype(dt).kind == "i" else 40, shape).astype(dt) \
        if np.dtype(dt).kind == "i" else rng.integers(0, 40, shape).astype(dt)


def _view(x, h, flip):
    """A non-contiguous view of the same data when asked (reversed last axis)."""
    if flip and h.ndim:
        return x[..., ::-1], h[..., ::-1]
    return x, h


def _axis_of(draw, ndim):
    choices = [None] + list(range(-ndim, ndim))
    if ndim >= 2:
        choices += [(0, ndim - 1), tuple(range(ndim))]
    return draw(st.sampled_from(choices))


def _tol(dt):
    return dict(rtol=2e-6, atol=2e-6) if np.dtype(dt) == np.float32 else \
        dict(rtol=1e-13, atol=1e-13)


# ------------------------------------------------------------ quantiles
QDTYPES = [np.float32, np.float64, np.int32, np.int64, np.uint32]


@pytest.mark.parametrize("fname", ["quantile", "percentile", "nanquantile", "nanpercentile"])
@pytest.mark.parametrize("dt", QDTYPES, ids=lambda d: np.dtype(d).name)
def test_quantiles_match_numpy(fname, dt):
    if np.dtype(dt) == np.float64 and not _f64():
        pytest.skip("no float64 on this device")
    scale = 100.0 if fname.endswith("percentile") else 1.0

    @SETTINGS
    @given(st.data(), st.lists(st.integers(1, 5), min_size=0, max_size=3).map(tuple),
           st.integers(0, 2**31), st.booleans(), st.booleans(),
           st.sampled_from(["scalar", "list", "2d", "int"]))
    def run(data, shape, seed, keepdims, flip, qkind):
        h = _data(shape, dt, seed, nan=0.2 if fname.startswith("nan") else 0.0)
        x, hv = _view(vp.asarray(h), h, flip)
        axis = _axis_of(data.draw, len(shape))
        q = {"scalar": 0.37, "list": [0.0, 0.5, 0.9, 1.0], "2d": np.array([[0.25], [0.75]]),
             "int": [0, 1]}[qkind]
        if fname.startswith("nan") and qkind == "2d" and isinstance(axis, tuple):
            q = [0.25, 0.75]  # NumPy 2.3 orders these dims differently (docs)
        q = q if not isinstance(q, (list, np.ndarray)) else np.asarray(q)
        q = q * scale if qkind != "int" else (np.asarray(q) * int(scale))
        want = getattr(np, fname)(hv, q, axis=axis, keepdims=keepdims)
        got = getattr(vp, fname)(x, q, axis=axis, keepdims=keepdims)
        assert isinstance(got, vp.ndarray)
        want = np.asarray(want)
        # the dtype NumPy gives when no slice is all NaN: its nanquantile
        # returns the input's dtype for an all-NaN input or first slice
        # (_nanquantile_1d's early return); VulPy's dtype never depends on
        # the values (docs/python-api.md, "Quantiles")
        usual = np.asarray(getattr(np, fname)(np.ones_like(hv), q, axis=axis,
                                              keepdims=keepdims)).dtype
        assert want.dtype == usual or (fname.startswith("nan") and np.isnan(want).any())
        assert got.shape == want.shape and got.dtype == usual, \
            (got.shape, want.shape, got.dtype, want.dtype, usual)
        want = want.astype(usual)
        tol = _tol(want.dtype) if want.dtype.kind == "f" else dict(rtol=0, atol=0)
        np.testing.assert_allclose(got.numpy(), want, **tol)
        # NumPy in -> NumPy out (a NumPy scalar for a 0-d result)
        host = getattr(vp, fname)(hv, q, axis=axis, keepdims=keepdims)
        assert not isinstance(host, vp.ndarray)
        np.testing.assert_allclose(np.asarray(host), want, **tol)

    run()


def test_nanquantile_dtype_does_not_depend_on_the_values():
    """The example hypothesis found on the H200 (shape (), seed 189): NumPy
    gives float32 for an all-NaN float32 input and float64 for any other
    float32 input with an array q; VulPy gives float64 for both."""
    q = np.array([0.0, 0.5, 0.9, 1.0])
    for h in (np.array(np.nan, np.float32), np.array(1.5, np.float32),
              np.array([[np.nan, np.nan], [1.0, 2.0]], np.float32)):
        got = vp.nanquantile(vp.asarray(h), q, axis=None if h.ndim == 0 else 1)
        want = np.nanquantile(h, q, axis=None if h.ndim == 0 else 1)
        assert got.dtype == np.float64, (h, got.dtype)
        np.testing.assert_allclose(got.numpy(), want.astype(np.float64), rtol=1e-6)


def test_quantile_nan_slices_and_out():
    h = np.arange(24, dtype=np.float32).reshape(4, 6)
    h[1, 2] = np.nan
    h[3, :] = np.nan
    x = vp.asarray(h)
    np.testing.assert_array_equal(vp.quantile(x, 0.5, axis=1).numpy(), np.quantile(h, 0.5, axis=1))
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        want = np.nanquantile(h, [0.1, 0.6], axis=1)
    np.testing.assert_allclose(vp.nanquantile(x, [0.1, 0.6], axis=1).numpy(), want, rtol=2e-6)
    out = vp.empty((4,), np.float32)
    assert vp.percentile(x, 30.0, axis=1, out=out) is out
    np.testing.assert_array_equal(out.numpy(), np.percentile(h, 30.0, axis=1))
    # np.percentile(resident) runs on the device
    r = np.percentile(vp.asarray(h[:3, :2]), [10, 90], axis=0)
    assert isinstance(r, vp.ndarray)
    np.testing.assert_allclose(r.numpy(), np.percentile(h[:3, :2], [10, 90], axis=0), rtol=2e-6)


def test_quantile_empty_and_errors():
    x = vp.asarray(np.empty((2, 0), np.float32))
    np.testing.assert_array_equal(vp.quantile(x, 0.5, axis=0).numpy(),
                                  np.quantile(np.empty((2, 0), np.float32), 0.5, axis=0))
    with pytest.raises(IndexError):  # NumPy's own error for an empty slice
        vp.quantile(vp.asarray(np.empty(0, np.float32)), 0.5)
    y = vp.asarray(np.arange(5, dtype=np.float32))
    with pytest.raises(ValueError, match="not a valid method"):
        vp.percentile(y, 50, method="bogus")
    with pytest.raises(ValueError, match=r"\[0, 100\]"):
        vp.percentile(y, 101)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        vp.quantile(y, [0.5, -0.1])
    with pytest.raises(TypeError, match="boolean"):
        vp.quantile(vp.asarray(np.ones(3, bool)), 0.5)
    with pytest.raises(np.exceptions.AxisError):
        vp.quantile(y, 0.5, axis=2)
    with pytest.raises(ValueError, match="only method 'inverted_cdf' supports weights"):
        vp.quantile(y, 0.5, weights=y)   # NumPy's error (weights need inverted_cdf)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.int64])
def test_weighted_inverted_cdf(dt):
    # quantile / percentile weights= (NumPy's, method='inverted_cdf'; was
    # NotImplementedError): same shape as a or the reduced axis' shape,
    # zero weights skipped, NaN slices NaN, keepdims, q arrays; the picks
    # are NumPy's element for element
    rng = np.random.default_rng(int(np.dtype(dt).itemsize))
    for trial in range(12):
        shape = tuple(int(v) for v in rng.integers(1, 6, int(rng.integers(1, 4))))
        h = (rng.integers(-4, 5, shape) if np.dtype(dt).kind == "i"
             else np.round(rng.standard_normal(shape), 1)).astype(dt)
        if np.dtype(dt).kind == "f" and trial % 3 == 0 and h.size > 2:
            h.flat[2] = np.nan
        w = rng.integers(0, 4, shape).astype([np.float32, np.int64, np.float64][trial % 3])
        w.flat[0] = 0
        axis = [None, 0, -1][trial % 3]
        q = [0.0, 0.3, [0.0, 0.5, 1.0], 1.0][trial % 4]
        kd = bool(trial % 2)
        for f, qq in (("quantile", q), ("percentile", np.asarray(q) * 100)):
            try:
                want = getattr(np, f)(h, qq, axis=axis, weights=w, method="inverted_cdf",
                                      keepdims=kd)
            except ValueError as e:  # NumPy 2.5: a slice whose weights are all zero
                assert "all zero" in str(e)
                with pytest.raises(ValueError, match="all zero"):
                    getattr(vp, f)(vp.asarray(h), qq, axis=axis, weights=vp.asarray(w),
                                   method="inverted_cdf", keepdims=kd)
                continue
            got = getattr(vp, f)(vp.asarray(h), qq, axis=axis, weights=vp.asarray(w),
                                 method="inverted_cdf", keepdims=kd)
            assert got.dtype == np.asarray(want).dtype and got.shape == np.shape(want)
            np.testing.assert_array_equal(got.numpy(), want)
            host = getattr(vp, f)(h, qq, axis=axis, weights=w, method="inverted_cdf",
                                  keepdims=kd)
            np.testing.assert_array_equal(host, want)
    h = rng.standard_normal((3, 4, 5)).astype(np.float32)
    w1 = rng.random(4).astype(np.float32)   # weights along the one axis
    np.testing.assert_array_equal(
        vp.quantile(vp.asarray(h), [0.2, 0.9], axis=1, weights=w1, method="inverted_cdf").numpy(),
        np.quantile(h, [0.2, 0.9], axis=1, weights=w1, method="inverted_cdf"))
    # a tuple axis: each slice's values with their weights (NumPy 2.3 pairs
    # the weights with the wrong values there; the reference flattens)
    w2 = rng.random((3, 5)).astype(np.float32)
    ref = np.array([[np.quantile(h[:, j, :].ravel(), qv, weights=w2.ravel(),
                                 method="inverted_cdf") for j in range(4)] for qv in (0.2, 0.9)],
                   np.float32)
    for ax, ww in (((0, 2), w2), ((2, 0), w2.T)):
        np.testing.assert_array_equal(vp.quantile(vp.asarray(h), [0.2, 0.9], axis=ax, weights=ww,
                                                  method="inverted_cdf").numpy(), ref)
    # nanquantile / nanpercentile: NumPy drops the NaNs with their weights
    # (an all-NaN slice is NaN)
    hn = np.round(rng.standard_normal((4, 6)), 1).astype(np.float32)
    hn[rng.random(hn.shape) < 0.3] = np.nan
    hn[1] = np.nan
    wn = rng.integers(0, 4, hn.shape).astype(np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's all-NaN slice warning
        for f, qq in (("nanquantile", [0.0, 0.4, 1.0]), ("nanpercentile", 40)):
            for ax in (None, 1):
                try:
                    want = getattr(np, f)(hn, qq, axis=ax, weights=wn, method="inverted_cdf")
                except ValueError as e:  # NumPy 2.5: the all-NaN row weighs nothing
                    assert "all zero" in str(e)
                    with pytest.raises(ValueError, match="all zero"):
                        getattr(vp, f)(vp.asarray(hn), qq, axis=ax, weights=wn,
                                       method="inverted_cdf")
                    continue
                got = getattr(vp, f)(vp.asarray(hn), qq, axis=ax, weights=wn,
                                     method="inverted_cdf")
                np.testing.assert_array_equal(got.numpy(), want)
    with pytest.raises(ValueError, match="non-negative"):
        vp.quantile(vp.asarray(h), 0.5, weights=-np.ones(h.shape), method="inverted_cdf")
    with pytest.raises(TypeError, match="Axis must be specified"):
        vp.quantile(vp.asarray(h), 0.5, weights=np.ones(4), method="inverted_cdf")
    with pytest.raises(ValueError, match="consistent"):
        vp.quantile(vp.asarray(h), 0.5, axis=1, weights=np.ones(5), method="inverted_cdf")


# ------------------------------------------------------------ unique(axis=)
UDTYPES = [np.int32, np.float32, np.uint8, np.int64, np.bool_]


@pytest.mark.parametrize("dt", UDTYPES, ids=lambda d: np.dtype(d).name)
def test_unique_axis_matches_numpy(dt):
    @SETTINGS
    @given(st.data(), st.lists(st.integers(0, 5), min_size=1, max_size=3).map(tuple),
           st.integers(0, 2**31), st.booleans())
    def run(data, shape, seed, flip):
        rng = np.random.default_rng(seed)
        h = rng.integers(0, 3, shape).astype(dt)  # few values: many repeated slices
        x, hv = _view(vp.asarray(h), h, flip)
        axis = data.draw(st.integers(-len(shape), len(shape) - 1))
        want = np.unique(hv, return_index=True, return_inverse=True, return_counts=True,
                         axis=axis)
        got = vp.unique(x, return_index=True, return_inverse=True, return_counts=True,
                        axis=axis)
        assert len(got) == 4
        for g, w in zip(got, want):
            assert isinstance(g, vp.ndarray)
            assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape)
            np.testing.assert_array_equal(g.numpy(), w)
        np.testing.assert_array_equal(vp.unique(hv, axis=axis), np.unique(hv, axis=axis))
        g = np.unique(x, axis=axis)  # np.unique(resident) runs on the device
        assert isinstance(g, vp.ndarray)
        np.testing.assert_array_equal(g.numpy(), np.unique(hv, axis=axis))

    run()


def test_unique_axis_negative_zero_and_errors():
    h = np.array([[0.0, 1.0], [-0.0, 1.0], [2.0, -1.0], [0.0, 1.0]], np.float32)
    u, c = vp.unique(vp.asarray(h), axis=0, return_counts=True)
    wu, wc = np.unique(h, axis=0, return_counts=True)
    np.testing.assert_array_equal(u.numpy(), wu)
    np.testing.assert_array_equal(c.numpy(), wc)
    with pytest.raises(np.exceptions.AxisError):
        vp.unique(vp.asarray(h), axis=2)
    with pytest.raises(np.exceptions.AxisError):
        vp.unique(vp.asarray(np.array(3.0, np.float32)), axis=0)


# ------------------------------------------------------------ fft helpers
@SETTINGS
@given(st.integers(1, 40), st.sampled_from([1.0, 0.1, 2.5, 1e-3, 7]))
def test_fftfreq_rfftfreq_are_numpys(n, d):
    if not _f64():
        pytest.skip("fftfreq is float64 (NumPy's dtype)")
    for name in ("fftfreq", "rfftfreq"):
        got = getattr(vp.fft, name)(n, d)
        want = getattr(np.fft, name)(n, d)
        assert isinstance(got, vp.ndarray) and got.dtype == want.dtype
        np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("dt", [np.float32, np.int32, np.complex64, np.bool_],
                         ids=lambda d: np.dtype(d).name)
def test_fftshift_matches_numpy(dt):
    @SETTINGS
    @given(st.data(), st.lists(st.integers(0, 6), min_size=1, max_size=3).map(tuple),
           st.booleans())
    def run(data, shape, flip):
        h = (np.arange(int(np.prod(shape))).reshape(shape) % 5).astype(dt)
        x, hv = _view(vp.asarray(h), h, flip)
        nd = len(shape)
        axes = data.draw(st.sampled_from([None] + list(range(-nd, nd)) +
                                         [tuple(range(nd)), (nd - 1, 0)]))
        for name in ("fftshift", "ifftshift"):
            want = getattr(np.fft, name)(hv, axes)
            got = getattr(vp.fft, name)(x, axes)
            assert isinstance(got, vp.ndarray) and got.dtype == want.dtype
            np.testing.assert_array_equal(got.numpy(), want)
            np.testing.assert_array_equal(getattr(np.fft, name)(x, axes).numpy(), want)
            np.testing.assert_array_equal(getattr(vp.fft, name)(hv, axes), want)

    run()


def test_fft_helper_errors():
    with pytest.raises(ValueError, match="positive"):
        vp.fft.fftfreq(0)
    with pytest.raises(TypeError, match="integer"):
        vp.fft.rfftfreq(2.5)
    with pytest.raises(np.exceptions.AxisError):
        vp.fft.fftshift(vp.asarray(np.ones((2, 3), np.float32)), axes=3)


# ------------------------------------------------------------ einsum sublists
def _letters_of(s):
    return [ord(c) - ord("a") for c in s]


@SETTINGS
@given(st.sampled_from(["ij,jk->ik", "ij,jk", "ij->ji", "ii->i", "ij,ij->", "i,j->ij",
                        "bij,bjk->bik", "ij->", "ijk,jk->i"]),
       st.integers(0, 2**31), st.booleans(), st.sampled_from([np.float32, np.int32]))
def test_einsum_sublist_form_matches_numpy(spec, seed, flip, dt):
    rng = np.random.default_rng(seed)
    ins, _, outs = spec.partition("->")
    sizes = {c: int(rng.integers(1, 5)) for c in set(ins.replace(",", ""))}
    hs = [_data(tuple(sizes[c] for c in term), dt, seed + k) for k, term in
          enumerate(ins.split(","))]
    args, vargs = [], []
    for term, h in zip(ins.split(","), hs):
        x, hv = _view(vp.asarray(h), h, flip and h.ndim and len(set(term)) == len(term))
        args += [hv, _letters_of(term)]
        vargs += [x, _letters_of(term)]
    if "->" in spec:
        args.append(_letters_of(outs))
        vargs.append(_letters_of(outs))
    want = np.einsum(*args)
    got = vp.einsum(*vargs)
    assert isinstance(got, vp.ndarray)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(np.einsum(*vargs).numpy(), want, rtol=1e-5, atol=1e-4)


def test_einsum_sublist_ellipsis_upper_letters_and_errors():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    b = rng.standard_normal((4, 5)).astype(np.float32)
    A, B = vp.asarray(a), vp.asarray(b)
    want = np.einsum(a, [Ellipsis, 30], b, [30, 51], [Ellipsis, 51])
    np.testing.assert_allclose(vp.einsum(A, [Ellipsis, 30], B, [30, 51], [Ellipsis, 51]).numpy(),
                               want, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match=r"\[0, 52\)"):
        vp.einsum(A, [0, 1, 52])
    with pytest.raises(TypeError, match="sublist"):
        vp.einsum(A, [0, "x", 1])


METHODS = ("inverted_cdf", "averaged_inverted_cdf", "closest_observation",
           "interpolated_inverted_cdf", "hazen", "weibull", "linear", "median_unbiased",
           "normal_unbiased", "lower", "higher", "midpoint", "nearest")


@pytest.mark.parametrize("method", METHODS)
def test_every_method_matches_numpy(method):
    """Every method= of NumPy's (only 'linear' ran before; the others were
    a NotImplementedError): the discrete ones pick an element in the
    input's dtype, the others interpolate with the method's virtual index
    and gamma; NumPy's dtypes (an integer q keeps an integer index where
    NumPy's does), NaN slices, the NaN-skipping variants (counts per slice,
    on the device), NumPy and resident input."""
    r = np.random.default_rng(11)
    for dt in (np.float32, np.float64, np.int64):
        if dt == np.float64 and not vp.default_context().has("float64"):
            continue
        a = (r.standard_normal((4, 9)) * 10).astype(dt)
        if dt != np.int64:
            a[1, 3] = np.nan
            a[2, :7] = np.nan
        for q in (0.3, [0, 0.1, 0.5, 0.62, 1], 1, np.array([0.2, 0.7], np.float32)):
            for fname in ("quantile", "nanquantile", "percentile"):
                qq = q if fname != "percentile" else np.multiply(q, 100)
                for axis in (None, 1):
                    with np.errstate(all="ignore"), warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        want = np.asarray(getattr(np, fname)(a, qq, axis=axis, method=method))
                    for x in (a, vp.asarray(a)):
                        got = getattr(vp, fname)(x, qq, axis=axis, method=method)
                        got = got.numpy() if isinstance(got, vp.ndarray) else np.asarray(got)
                        what = (dt.__name__, q, fname, axis, type(x).__name__)
                        assert got.shape == want.shape, what
                        if not (want.ndim == 0 and np.isnan(want)):  # (NumPy: the input's dtype)
                            assert got.dtype == want.dtype, what + (got.dtype, want.dtype)
                        tol = 2e-6 if want.dtype == np.float32 else 1e-13
                        np.testing.assert_allclose(got, want, rtol=tol, atol=0, err_msg=str(what))


def test_weighted_zero_total_follows_numpy(monkeypatch):
    # NumPy 2.5 refuses a slice whose weights sum to zero (NaN / inf
    # weights too), but not nanquantile's all-NaN slice (NaN); 2.3 picks
    # the first element. VulPy follows the NumPy it runs with: here both
    # behaviours, whichever NumPy this is
    from vulpy import _quantile
    h = np.arange(6.0).reshape(2, 3)
    zero = np.array([[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]])
    monkeypatch.setattr(_quantile, "_ZERO_WEIGHTS_RAISE", True)
    monkeypatch.setattr(_quantile, "_NAN_ZERO_WEIGHTS_RAISE", True)
    for w in (zero, np.array([[1.0, np.inf, 0.0], [1.0, 2.0, 3.0]])):
        with pytest.raises(ValueError, match="all zero"):
            vp.quantile(vp.asarray(h), 0.5, axis=1, weights=w, method="inverted_cdf")
    hn = h.copy()
    hn[0] = np.nan
    got = vp.nanquantile(vp.asarray(hn), 0.5, axis=1, weights=np.ones((2, 3)),
                         method="inverted_cdf").numpy()
    assert np.isnan(got[0]) and got[1] == 4.0
    hn[0, 1:] = [1.0, 2.0]
    with pytest.raises(ValueError, match="all zero"):   # non-NaN values, all weightless
        vp.nanquantile(vp.asarray(hn), 0.5, axis=1,
                       weights=np.array([[1.0, 0.0, 0.0], [1.0, 1.0, 1.0]]),
                       method="inverted_cdf")
    monkeypatch.setattr(_quantile, "_ZERO_WEIGHTS_RAISE", False)
    got = vp.quantile(vp.asarray(h), 0.5, axis=1, weights=zero, method="inverted_cdf")
    np.testing.assert_array_equal(got.numpy(), [0.0, 4.0])   # NumPy 2.3: the first element
