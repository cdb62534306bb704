"""vp.fft (issue 19) differentially against numpy.fft (hypothesis): sizes
including 1 and primes (Bluestein), batched and 2-D/3-D transforms, any
axes, n= / s= cropping and padding, the three norm= modes, real input and
the real transforms, strided input, round trips, and the errors NumPy
raises for bad axes / n / norm (naming the argument).

Tolerance: the relative error of a result, max |got - want| / max |want|,
is at most 2e-5 for complex64 (float32 input) and 1e-12 for complex128
(float64 input); docs/python-api.md ("vp.fft") states the same.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target

SETTINGS = settings(max_examples=15, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])
C64, C128 = np.dtype(np.complex64), np.dtype(np.complex128)
F32, F64 = np.dtype(np.float32), np.dtype(np.float64)
TOL = {C64: 2e-5, C128: 1e-12, F32: 2e-5, F64: 1e-12}
# lengths: 1, powers of two, small-prime products, primes above 13 (Bluestein)
SIZES = [1, 2, 3, 5, 8, 12, 16, 17, 30, 31, 64, 100, 128]
NORMS = [None, "backward", "ortho", "forward"]


def data(shape, dt, seed=0):
    r = np.random.default_rng(seed)
    dt = np.dtype(dt)
    if dt.kind == "c":
        return np.asarray(r.standard_normal(shape) + 1j * r.standard_normal(shape)).astype(dt)
    if dt.kind == "f":
        return np.asarray(r.standard_normal(shape)).astype(dt)
    return np.asarray(r.integers(-5, 6, shape)).astype(dt)


def close(got, want, name="", resident=True):
    want = np.asarray(want)
    if resident:
        assert isinstance(got, vp.ndarray), f"{name}: {type(got).__name__}"
        g = got.numpy()
    else:
        assert isinstance(got, np.ndarray), f"{name}: {type(got).__name__}"
        g = got
    assert g.shape == want.shape, (name, g.shape, want.shape)
    assert g.dtype == want.dtype, (name, g.dtype, want.dtype)
    scale = max(float(np.abs(want).max(initial=0.0)), 1e-30)
    err = float(np.abs(g - want).max(initial=0.0)) / scale
    assert err <= TOL[want.dtype], f"{name}: relative error {err:.3g}"


# ---------------------------------------------------------------- 1-D
@SETTINGS
@given(n=st.sampled_from(SIZES), batch=st.sampled_from([(), (3,), (2, 2)]),
       dt=st.sampled_from([C64, C128]), norm=st.sampled_from(NORMS), inverse=st.booleans())
def test_fft_1d(n, batch, dt, norm, inverse):
    x = data(batch + (n,), dt, n)
    f, nf = (vp.fft.ifft, np.fft.ifft) if inverse else (vp.fft.fft, np.fft.fft)
    close(f(vp.asarray(x), norm=norm), nf(x, norm=norm), f"{f.__name__} n={n} {norm}")


@SETTINGS
@given(n=st.sampled_from(SIZES), m=st.sampled_from([1, 4, 7, 16, 33]),
       axis=st.sampled_from([0, 1, -1]), norm=st.sampled_from(NORMS))
def test_fft_n_and_axis(n, m, axis, norm):
    """n= crops or zero-pads along axis; other axes are batched."""
    x = data((5, 8), C64, m)
    close(vp.fft.fft(vp.asarray(x), n=m, axis=axis, norm=norm),
          np.fft.fft(x, n=m, axis=axis, norm=norm), f"fft n={m} axis={axis}")
    close(vp.fft.ifft(vp.asarray(x), n=n, axis=axis, norm=norm),
          np.fft.ifft(x, n=n, axis=axis, norm=norm), f"ifft n={n} axis={axis}")


@pytest.mark.parametrize("dt", [F32, F64, np.int32, np.bool_])
def test_real_input_is_promoted(dt):
    x = data((4, 12), dt, 3)
    want = np.fft.fft(x)
    assert want.dtype == (C64 if dt == F32 else C128)
    close(vp.fft.fft(vp.asarray(x)), want, f"fft of {np.dtype(dt).name}")
    close(vp.fft.fft(x), want, "NumPy in", resident=False)


def test_result_dtypes_of_every_input_dtype_are_numpys():
    """Each transform's result dtype for each input dtype is NumPy's; irfft
    and hfft of float16 are float16 (VulPy gave float32), irfftn float32."""
    for dt in (np.bool_, np.int8, np.uint16, np.int32, np.float16, F32, F64, C64, C128):
        x = (np.arange(1, 9) * 1.25).astype(dt)
        for f in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "irfft2", "rfftn",
                  "irfftn"):
            if np.dtype(dt).kind == "c" and f in ("rfft", "ihfft", "rfftn"):
                continue
            arr = x.reshape(2, 4) if f[-1] in "2n" else x
            want = getattr(np.fft, f)(arr)
            got = getattr(vp.fft, f)(vp.asarray(arr))
            assert got.dtype == want.dtype, (f, np.dtype(dt).name, got.dtype, want.dtype)
            np.testing.assert_allclose(got.numpy().astype(want.dtype), want,
                                       rtol=4e-3 if dt == np.float16 else 1e-5, atol=1e-2,
                                       err_msg=f"{f} {np.dtype(dt).name}")


def test_round_trip():
    for n in (1, 7, 64, 100):
        x = data((3, n), C64, n)
        a = vp.asarray(x)
        close(vp.fft.ifft(vp.fft.fft(a)), x, f"ifft(fft) n={n}")
        for norm in ("ortho", "forward"):
            close(vp.fft.ifft(vp.fft.fft(a, norm=norm), norm=norm), x, f"{norm} n={n}")
    x = data((6, 10), C128, 1)
    close(vp.fft.ifft2(vp.fft.fft2(vp.asarray(x))), x, "ifft2(fft2)")


# ---------------------------------------------------------------- N-D
@SETTINGS
@given(shape=st.sampled_from([(4, 6), (1, 8), (5, 1), (3, 5, 7), (2, 3, 4, 5), (16, 17)]),
       dt=st.sampled_from([C64, C128]), norm=st.sampled_from(NORMS), inverse=st.booleans(),
       pick=st.integers(0, 3))
def test_fftn_axes(shape, dt, norm, inverse, pick):
    x = data(shape, dt, len(shape))
    nd = len(shape)
    axes = [None, (-1,), (0, nd - 1), tuple(range(nd))[::-1]][pick]
    f, nf = (vp.fft.ifftn, np.fft.ifftn) if inverse else (vp.fft.fftn, np.fft.fftn)
    close(f(vp.asarray(x), axes=axes, norm=norm), nf(x, axes=axes, norm=norm),
          f"{f.__name__} {shape} axes={axes}")


@pytest.mark.filterwarnings("ignore:`axes` should not be `None`:DeprecationWarning")
def test_fft2_and_s():
    x = data((3, 6, 10), C64, 7)
    a = vp.asarray(x)
    close(vp.fft.fft2(a), np.fft.fft2(x), "fft2")
    close(vp.fft.ifft2(a, norm="ortho"), np.fft.ifft2(x, norm="ortho"), "ifft2")
    close(vp.fft.fft2(a, s=(4, 12)), np.fft.fft2(x, s=(4, 12)), "fft2 s")
    close(vp.fft.fft2(a, axes=(0, 2)), np.fft.fft2(x, axes=(0, 2)), "fft2 axes")
    close(vp.fft.fftn(a, s=(5, 3), axes=(2, 0)), np.fft.fftn(x, s=(5, 3), axes=(2, 0)),
          "fftn s axes")
    close(vp.fft.fftn(a, s=(2, 7, 9)), np.fft.fftn(x, s=(2, 7, 9)), "fftn s")
    close(vp.fft.fftn(a, axes=(1,)), np.fft.fftn(x, axes=(1,)), "fftn one axis")


def test_strided_input():
    x = data((8, 12), C64, 2)
    a = vp.asarray(x)
    close(vp.fft.fft(a[:, ::2]), np.fft.fft(x[:, ::2]), "every other column")
    close(vp.fft.fft(a[1:6, 3:]), np.fft.fft(x[1:6, 3:]), "a window")
    close(vp.fft.fft(a.T), np.fft.fft(x.T), "transposed")
    close(vp.fft.fft2(a[::-1]), np.fft.fft2(x[::-1]), "reversed rows")
    r = data((9, 10), F32, 3)
    close(vp.fft.rfft(vp.asarray(r)[::2, 1:]), np.fft.rfft(r[::2, 1:]), "rfft strided")


def test_input_is_not_modified_and_results_are_new():
    x = data((4, 16), C64, 5)
    a = vp.asarray(x)
    y = vp.fft.fft(a)
    assert y is not a and y.buffer is not a.buffer
    np.testing.assert_array_equal(a.numpy(), x)


# ---------------------------------------------------------------- real transforms
@SETTINGS
@given(n=st.sampled_from(SIZES), dt=st.sampled_from([F32, F64]), norm=st.sampled_from(NORMS),
       m=st.sampled_from([None, 1, 6, 9, 40]))
def test_rfft_irfft(n, dt, norm, m):
    x = data((3, n), dt, n)
    close(vp.fft.rfft(vp.asarray(x), n=m, norm=norm), np.fft.rfft(x, n=m, norm=norm),
          f"rfft n={n} m={m}")
    spec = np.fft.rfft(x)
    if m is None and spec.shape[-1] == 1:
        m = 1  # NumPy's default output length, 2 * (1 - 1), is 0 (an error)
    close(vp.fft.irfft(vp.asarray(spec), n=m, norm=norm), np.fft.irfft(spec, n=m, norm=norm),
          f"irfft n={n} m={m}")


def test_real_round_trips_and_nd():
    r = data((4, 6, 10), F64, 11)
    close(vp.fft.rfftn(vp.asarray(r)), np.fft.rfftn(r), "rfftn")
    close(vp.fft.rfft2(vp.asarray(r), norm="ortho"), np.fft.rfft2(r, norm="ortho"), "rfft2")
    spec = np.fft.rfftn(r)
    close(vp.fft.irfftn(vp.asarray(spec), s=r.shape), r, "irfftn(rfftn)")
    close(vp.fft.irfftn(vp.asarray(spec)), np.fft.irfftn(spec), "irfftn default s")
    close(vp.fft.irfft2(np.fft.rfft2(r), s=(6, 9)), np.fft.irfft2(np.fft.rfft2(r), s=(6, 9)),
          "irfft2 NumPy in", resident=False)
    close(vp.fft.rfftn(vp.asarray(r), axes=(0, 2)), np.fft.rfftn(r, axes=(0, 2)), "rfftn axes")
    x = data(33, F32, 1)
    close(vp.fft.irfft(vp.fft.rfft(vp.asarray(x)), n=33), x, "odd round trip")


# ---------------------------------------------------------------- API
def test_numpy_in_numpy_out_and_np_dispatch():
    x = data((2, 16), C64, 4)
    got = vp.fft.fft(x)
    assert isinstance(got, np.ndarray)
    close(got, np.fft.fft(x), "NumPy in", resident=False)
    # np.fft.<name> on a resident array runs on the device (__array_function__)
    close(np.fft.fft(vp.asarray(x)), np.fft.fft(x), "np.fft.fft(resident)")
    close(np.fft.ifft2(vp.asarray(x)), np.fft.ifft2(x), "np.fft.ifft2(resident)")


def test_empty_batch():
    x = np.zeros((0, 8), C64)
    got = vp.fft.fft(vp.asarray(x))
    assert got.shape == (0, 8) and got.dtype == C64


def test_many_shapes_evict_plans():
    """More shapes than the per-context plan cache holds (16): the least
    recently used plans are freed and later shapes still transform right."""
    for n in range(2, 21):
        x = data(n, C64, n)
        close(vp.fft.fft(vp.asarray(x)), np.fft.fft(x), f"n={n}")
    x = data(2, C64, 0)
    close(vp.fft.fft(vp.asarray(x)), np.fft.fft(x), "n=2 again")


def test_plan_reused_across_buffers():
    """One plan, several buffers in flight: each result is its own input's."""
    xs = [data((4, 64), C64, s) for s in range(4)]
    ys = [vp.fft.fft(vp.asarray(x)) for x in xs]
    for x, y in zip(xs, ys):
        close(y, np.fft.fft(x), "reuse")


@pytest.mark.parametrize("call,exc,match", [
    (lambda a: vp.fft.fft(a, axis=2), np.exceptions.AxisError, "axis=2"),
    (lambda a: vp.fft.fft(a, axis=1.5), TypeError, "axis=1.5"),
    (lambda a: vp.fft.fft(a, n=0), ValueError, "n=0"),
    (lambda a: vp.fft.ifft(a, n=-3), ValueError, "n=-3"),
    (lambda a: vp.fft.fft(a, norm="bogus"), ValueError, "norm='bogus'"),
    (lambda a: vp.fft.fftn(a, axes=(0, 0)), ValueError, "repeats an axis"),
    (lambda a: vp.fft.fftn(a, s=(4,), axes=(0, 1)), ValueError, "s=.*axes="),
    (lambda a: vp.fft.fft2(a, s=(0, 4)), ValueError, "s=0"),
    (lambda a: vp.fft.fftn(a, axes=(0, 3)), np.exceptions.AxisError, "axes=3"),
    (lambda a: vp.fft.rfft(a), TypeError, "real transforms take real input"),
    (lambda a: vp.fft.fft(a[0, 0]), np.exceptions.AxisError, "axis=-1"),
])
def test_errors_name_the_argument(call, exc, match):
    a = vp.asarray(data((3, 4), C64))
    with pytest.raises(exc, match=match):
        call(a)


def test_a_plan_leaves_the_process_locale_alone():
    """VkFFT sets LC_ALL to "C" while it prints shaders and restored a
    pointer its own call had overwritten: the process stayed in the "C"
    locale, and Python read text files as ASCII (test_layers failed after
    an FFT). The runtime keeps a copy and restores it."""
    import locale
    before = locale.setlocale(locale.LC_ALL)
    x = vp.asarray(np.ones(24, np.complex64))      # a new plan (24: not cached yet)
    vp.fft.fft(x).numpy()
    assert locale.setlocale(locale.LC_ALL) == before


def test_out_argument():
    # NumPy 2's out= of the transforms (before: TypeError, unexpected
    # keyword): resident, NumPy and view outs, np.fft on resident arrays,
    # the input itself as out, same_kind casting, clear errors
    rng = np.random.default_rng(11)
    h = (rng.standard_normal((6, 8)) + 1j * rng.standard_normal((6, 8))).astype(np.complex64)
    r = rng.standard_normal((6, 8)).astype(np.float32)
    x, xr = vp.asarray(h), vp.asarray(r)
    for name, a, ha, kw in (("fft", x, h, {}), ("ifft2", x, h, {}), ("rfft", xr, r, {}),
                            ("irfft", x, h, {"n": 9}), ("fftn", x, h, {"axes": (0,)}),
                            ("hfft", x, h, {}), ("ihfft", xr, r, {})):
        want = getattr(np.fft, name)(ha, **kw)
        o = vp.empty(want.shape, want.dtype)
        assert getattr(vp.fft, name)(a, out=o, **kw) is o
        np.testing.assert_allclose(o.numpy(), want, rtol=1e-4, atol=1e-4, err_msg=name)
        on = np.empty(want.shape, want.dtype)
        assert getattr(vp.fft, name)(ha, out=on, **kw) is on
        np.testing.assert_allclose(on, want, rtol=1e-4, atol=1e-4, err_msg=name)
        o2 = vp.empty(want.shape, want.dtype)
        assert getattr(np.fft, name)(a, out=o2, **kw) is o2
        np.testing.assert_allclose(o2.numpy(), want, rtol=1e-4, atol=1e-4, err_msg=name)
    v = vp.zeros((6, 16), np.complex64)
    vp.fft.fft(x, out=v[:, ::2])
    np.testing.assert_allclose(v.numpy()[:, ::2], np.fft.fft(h), rtol=1e-4, atol=1e-4)
    assert np.all(v.numpy()[:, 1::2] == 0)
    y = vp.asarray(h)
    vp.fft.fft(y, out=y)   # the input itself: computed first, then written
    np.testing.assert_allclose(y.numpy(), np.fft.fft(h), rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="out= has shape"):
        vp.fft.fft(x, out=vp.empty((6, 7), np.complex64))
    with pytest.raises(TypeError, match="same_kind"):
        vp.fft.fft(x, out=vp.empty((6, 8), np.float32))
