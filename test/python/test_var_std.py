"""vp.var / vp.std (issue 19): NumPy's var and std in host Python, as
functions and methods, with axis / ddof / keepdims / dtype / out, NumPy in
-> NumPy out and resident in -> resident out, checked against NumPy; and
inside a kernel vp.var(expr) keeps the kernel language's meaning."""
import numpy as np
import pytest

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target

RNG = np.random.default_rng(7)
F32 = (RNG.standard_normal((5, 6, 7)) * 3 + 100).astype(np.float32)
I32 = RNG.integers(-50, 50, (4, 9)).astype(np.int32)
CASES = [
    {}, {"axis": 0}, {"axis": -1}, {"axis": (0, 2)}, {"ddof": 1}, {"axis": 1, "ddof": 2},
    {"axis": 1, "keepdims": True}, {"keepdims": True},
]


@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("kw", CASES, ids=str)
def test_float32_resident_and_numpy(name, kw):
    want = getattr(np, name)(F32, **kw)
    got = getattr(vp, name)(vp.asarray(F32), **kw)
    assert isinstance(got, vp.ndarray) and got.dtype == want.dtype and got.shape == want.shape
    # two passes: no catastrophic cancellation around the mean of 100
    np.testing.assert_allclose(got.numpy(), want, rtol=2e-5)
    got_np = getattr(vp, name)(F32, **kw)  # convenience mode: NumPy in -> NumPy out
    assert isinstance(got_np, np.ndarray)
    np.testing.assert_allclose(got_np, want, rtol=2e-5)
    meth = getattr(vp.asarray(F32), name)(**kw)
    np.testing.assert_allclose(meth.numpy(), want, rtol=2e-5)


@pytest.mark.parametrize("name", ["var", "std"])
def test_integers_are_float64_and_dtype(name):
    for kw in ({}, {"axis": 1}, {"axis": 0, "ddof": 1}):
        want = getattr(np, name)(I32, **kw)
        got = getattr(vp, name)(vp.asarray(I32), **kw)
        assert got.dtype == np.float64
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    want = getattr(np, name)(I32, axis=0, dtype=np.float32)
    got = getattr(vp, name)(vp.asarray(I32), axis=0, dtype=np.float32)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5)


MIXED = np.array([[1, 2, 4, 9.5, 0], [3, 1, -7, 2, 250]])


@pytest.mark.parametrize("src", [np.float64, np.int32, np.uint8], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("dtype", [np.int16, np.int64, np.uint8, np.bool_],
                         ids=lambda d: np.dtype(d).name)
def test_integer_dtype_follows_numpys_steps(src, dtype):
    """An integer or bool dtype=: NumPy's mean truncated into that dtype,
    squared deviations summed in it (wrapping), the quotient cast back.
    It was the float64 variance of a cast to dtype (var(a, dtype=int16) of
    MIXED gave 9.5 as float64, NumPy int16 10)."""
    a = MIXED.astype(src)
    mask = MIXED > 1
    if np.dtype(dtype) == np.bool_ and a.dtype == np.bool_:
        return
    for kw in ({}, {"axis": 1}, {"axis": 0, "ddof": 1}, {"axis": 1, "where": mask},
               {"keepdims": True}, {"where": mask}):
        with np.errstate(all="ignore"):
            want = np.var(a, dtype=dtype, **kw)
        got = vp.var(vp.asarray(a), dtype=dtype, **{k: vp.asarray(v) if k == "where" else v
                                                    for k, v in kw.items()})
        assert got.dtype == want.dtype and got.shape == np.shape(want), kw
        assert np.array_equal(got.numpy(), want), (kw, got.numpy(), want)
        if np.ndim(want) == 0:  # std: NumPy casts a scalar's square root back
            assert vp.std(vp.asarray(a), dtype=dtype, **kw).numpy() == np.std(a, dtype=dtype,
                                                                              **kw)
        else:
            with pytest.raises(TypeError):
                np.std(a, dtype=dtype, **kw)
            with pytest.raises(TypeError, match="dtype="):
                vp.std(vp.asarray(a), dtype=dtype, **kw)
    with pytest.raises(TypeError, match="bool"):
        vp.var(vp.asarray(MIXED > 0), dtype=bool)


def test_out_and_numpy_dispatch():
    x = vp.asarray(F32)
    out = vp.empty((6, 7))
    r = vp.std(x, axis=0, out=out)
    assert r is out
    np.testing.assert_allclose(out.numpy(), np.std(F32, axis=0), rtol=2e-5)
    np.testing.assert_allclose(np.var(x, axis=2).numpy(), np.var(F32, axis=2), rtol=2e-5)
    assert isinstance(np.std(x), vp.ndarray)


def test_ddof_too_large_warns_like_numpy():
    x = np.array([1.0, 2.0], np.float32)
    with pytest.warns(RuntimeWarning, match="Degrees of freedom"):
        got = vp.var(vp.asarray(x), ddof=2)
    assert np.isinf(got.numpy()) or np.isnan(got.numpy())


def test_host_var_is_numpy_var_and_marked():
    assert vp.var.__vp_kernel_builtin__ == "var"
    assert float(vp.var(vp.asarray([1.0, 2.0, 3.0, 4.0]))) == pytest.approx(1.25)


@vp.kernel
def running(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32]):
    i = vp.global_id()
    acc = vp.var(x[i])
    acc += 1.0
    acc *= 2.0
    y[i] = acc


def test_kernel_language_var_inside_kernels():
    x = np.arange(16, dtype=np.float32)
    y = np.zeros(16, np.float32)
    running(x, y, dispatch=16)
    np.testing.assert_array_equal(y, (x + 1) * 2)


@pytest.mark.parametrize("sa,sb", [((), (3,)), ((5,), (5,)), ((4, 5), (5,)), ((4, 5), (5, 3)),
                                   ((5,), (5, 3)), ((2, 3, 5), (5,))], ids=str)
def test_host_dot_is_numpy_dot(sa, sb):
    a = RNG.standard_normal(sa).astype(np.float32)
    b = RNG.standard_normal(sb).astype(np.float32)
    want = np.dot(a, b)
    got = vp.dot(vp.asarray(a), vp.asarray(b))
    assert isinstance(got, vp.ndarray) and got.shape == np.shape(want)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-5)
    assert isinstance(vp.dot(a, b), (np.ndarray, np.generic))  # convenience mode


def test_host_dot_dtypes_views_and_errors():
    i = np.arange(6, dtype=np.int32).reshape(2, 3)
    got = vp.dot(vp.asarray(i), vp.asarray(i).T)  # a non-contiguous view operand
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got.numpy(), np.dot(i, i.T))
    assert vp.dot.__vp_kernel_builtin__ == "dot"
    with pytest.raises(ValueError, match="not aligned"):
        vp.dot(vp.zeros((2, 3)), vp.zeros((2, 3)))
    # a product that needed the GEMM kernels (NotImplementedError before them, issue 19)
    big = vp.dot(vp.ones((512, 256)), vp.ones((256, 512)))
    np.testing.assert_array_equal(big.numpy(), np.full((512, 512), 256.0, np.float32))


@vp.kernel
def vec_dot(x: vp.Buffer[vp.vec4], y: vp.Buffer[vp.float32]):
    i = vp.global_id()
    y[i] = vp.dot(x[i], x[i])


def test_kernel_language_dot_inside_kernels():
    x = np.arange(32, dtype=np.float32).reshape(8, 4)
    y = np.zeros(8, np.float32)
    vec_dot(x, y, dispatch=8)
    np.testing.assert_allclose(y, (x * x).sum(1), rtol=1e-6)


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402


@st.composite
def _moment_case(draw):
    nd = draw(st.integers(0, 3))
    shape = tuple(draw(st.lists(st.integers(1, 7), min_size=nd, max_size=nd)))
    dt = draw(st.sampled_from([np.float32, np.float64, np.int32]))
    elems = st.integers(-20, 20) if dt == np.int32 else \
        st.floats(-50, 50, width=np.dtype(dt).itemsize * 8)
    a = draw(hnp.arrays(dt, shape, elements=elems))
    axis = draw(st.sampled_from([None] + list(range(-nd, nd)))) if nd else None
    return a, axis, draw(st.integers(0, 1)), draw(st.booleans()), draw(st.booleans())


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(_moment_case())
def test_differential_shapes_dtypes_views(case):
    """0-d to 3-d, every axis, ddof, keepdims, float32/float64/int32, and a
    strided view (every other element of the last axis)."""
    a, axis, ddof, keepdims, strided = case
    n = a.size if axis is None else a.shape[axis]
    if n - ddof <= 0:
        return
    x = vp.asarray(a)
    if strided and a.ndim and a.shape[-1] > 2:
        x, a = x[..., ::2], a[..., ::2]
        n = a.size if axis is None else a.shape[axis]
        if n - ddof <= 0:
            return
    tol = 2e-4 if a.dtype == np.float32 else 1e-9
    for name in ("var", "std"):
        want = getattr(np, name)(a, axis=axis, ddof=ddof, keepdims=keepdims)
        got = getattr(vp, name)(x, axis=axis, ddof=ddof, keepdims=keepdims)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol)


def test_inside_vp_jit():
    """vp.jit traces vp.std / x.var() from the same reductions (no np.shape
    of a tracer: that is a TracingError)."""
    a = RNG.standard_normal((6, 5)).astype(np.float32)

    @vp.jit
    def f(x):
        return vp.std(x * 2, axis=1), x.var(ddof=1)

    s, v = f(vp.asarray(a))
    np.testing.assert_allclose(np.asarray(s), np.std(a * 2, axis=1), rtol=2e-5)
    np.testing.assert_allclose(np.asarray(v), np.var(a, ddof=1), rtol=2e-5)


@pytest.mark.parametrize("name", ["var", "std"])
def test_mean_and_correction_keywords(name):
    # NumPy 2's mean= (a mean computed already, reduced axes kept) and
    # correction= (the array API's ddof): before, a TypeError
    np_f, vp_f = getattr(np, name), getattr(vp, name)
    x = vp.asarray(F32)
    mask = RNG.random(F32.shape) > 0.3
    mu = np.mean(F32, axis=1, keepdims=True) + np.float32(0.25)  # not the mean: must be used
    for kw in ({"axis": 1, "mean": mu}, {"axis": 1, "mean": mu, "keepdims": True},
               {"axis": 1, "mean": mu, "where": mask}, {"axis": 1, "mean": mu, "ddof": 1},
               {"axis": 1, "mean": mu.astype(np.float64)}, {"mean": np.float32(99.5)},
               {"axis": 0, "correction": 1}, {"axis": (0, 2), "correction": 2}):
        want = np_f(F32, **kw)
        got = vp_f(x, **{k: (vp.asarray(v) if k == "mean" and isinstance(v, np.ndarray)
                             else v) for k, v in kw.items()})
        assert isinstance(got, vp.ndarray) and got.dtype == want.dtype, kw
        assert got.shape == want.shape, kw
        np.testing.assert_allclose(got.numpy(), want, rtol=2e-5, err_msg=str(kw))
        np.testing.assert_allclose(vp_f(F32, **kw), want, rtol=2e-5, err_msg=str(kw))
    np.testing.assert_allclose(getattr(x, name)(axis=1, mean=mu).numpy(),
                               np_f(F32, axis=1, mean=mu), rtol=2e-5)
    np.testing.assert_allclose(np_f(x, axis=1, mean=mu).numpy(), np_f(F32, axis=1, mean=mu),
                               rtol=2e-5)
    c = (F32[0] + 1j * F32[1][::-1]).astype(np.complex64)
    cm = np.mean(c, axis=1, keepdims=True) + 0.5j
    np.testing.assert_allclose(vp_f(vp.asarray(c), axis=1, mean=vp.asarray(cm)).numpy(),
                               np_f(c, axis=1, mean=cm), rtol=2e-5)
    im = np.mean(I32, axis=0, keepdims=True)
    np.testing.assert_allclose(vp_f(vp.asarray(I32), axis=0, mean=im).numpy(),
                               np_f(I32, axis=0, mean=im), rtol=1e-12)
    with pytest.raises(ValueError, match="ddof and correction"):
        vp_f(x, ddof=1, correction=1)
    with pytest.raises(ValueError, match="mean= of shape"):
        vp_f(x, axis=1, mean=np.zeros((7, 6), np.float32))
