"""vp.jit (fusion mode): the seed's example, dispatch counts per call, the
VIR before and after fusion, the GLSL, scalars, NumPy in/out, tracing
errors that say what and where."""
import re

import numpy as np
import pytest

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target


def dispatches(ctx, f, *args):
    d0 = ctx.stats()["dispatches"]
    out = f(*args)
    return out, ctx.stats()["dispatches"] - d0


def test_seed_example(ctx):
    x = np.linspace(0.0, 1.0, 1_000_000, dtype=np.float32)
    xv = vp.asarray(x)
    f = vp.jit(lambda a, b: vp.where(a > b, vp.sin(a), vp.cos(b)))
    out = f(xv, xv * 0.5)
    ref = np.where(x > x * 0.5, np.sin(x), np.cos(x * 0.5))
    assert isinstance(out, vp.ndarray) and out.shape == x.shape and out.dtype == np.float32
    np.testing.assert_allclose(out.numpy(), ref, rtol=0, atol=4e-7)
    half = xv * 0.5
    _, n = dispatches(ctx, f, xv, half)
    assert n == 1 and f.dispatches == 1
    # what it became: the traced VIR, the fused VIR, one GLSL kernel
    assert "array.load @a : tensor<1000000xf32>" in f.vir
    assert "select" in f.vir and "array.kernel" not in f.vir
    assert f.fused_vir.count("array.kernel {") == 1
    assert f.glsl.count("void main()") == 1 and "sin(" in f.glsl and "cos(" in f.glsl
    assert "array.launch @jit_k0" in f.lowered_vir


def test_six_op_chain_is_one_dispatch(ctx):
    a = np.linspace(-2, 2, 4097, dtype=np.float32)
    b = np.linspace(1, 3, 4097, dtype=np.float32)
    av, bv = vp.asarray(a), vp.asarray(b)

    def chain(a, b):
        t = a * b + 1.0
        u = vp.exp(-t * t)
        return vp.sqrt(u + vp.abs(a)) - b

    f = vp.jit(chain)
    out, n = dispatches(ctx, f, av, bv)
    assert n == 1
    np.testing.assert_allclose(out.numpy(), chain(a, b), rtol=2e-6, atol=2e-6)
    g = vp.jit(chain, fuse=False)
    out2, n2 = dispatches(ctx, g, av, bv)
    assert n2 > 5 and g.dispatches == n2
    np.testing.assert_allclose(out2.numpy(), out.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("red", ["sum", "max", "mean", "min", "prod"])
def test_chain_with_trailing_reduction_is_one_dispatch(ctx, red):
    x = np.linspace(-1, 1, 100_003, dtype=np.float32)
    xv = vp.asarray(x)
    f = vp.jit(lambda a: getattr(vp, red)(vp.sin(a) * 0.5 + 0.25))
    out, n = dispatches(ctx, f, xv)
    assert n == 1
    ref = getattr(np, red)((np.sin(x) * 0.5 + 0.25).astype(np.float64))
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-4 if red != "prod" else 1e-2, atol=1e-6)


def test_reduction_over_an_axis_in_jit(ctx):
    x = np.random.default_rng(1).standard_normal((64, 300)).astype(np.float32)
    f = vp.jit(lambda a: (a * a).sum(axis=1, keepdims=True))
    out, n = dispatches(ctx, f, vp.asarray(x))
    assert n == 1 and out.shape == (64, 1)
    np.testing.assert_allclose(out.numpy(), (x * x).sum(axis=1, keepdims=True), rtol=1e-4)


def test_centering_needs_two_kernels(ctx):
    x = np.random.default_rng(2).standard_normal((32, 128)).astype(np.float32)
    f = vp.jit(lambda a: a - a.mean(axis=1, keepdims=True))
    out, n = dispatches(ctx, f, vp.asarray(x))
    assert n == 2
    np.testing.assert_allclose(out.numpy(), x - x.mean(axis=1, keepdims=True), atol=1e-5)


def test_numpy_in_numpy_out_and_scalars_do_not_retrace():
    x = np.arange(1000, dtype=np.float32)
    f = vp.jit(lambda a, s: a * s + 1)
    r1 = f(x, 2.0)
    r2 = f(x, 3.5)
    assert isinstance(r1, np.ndarray) and r1.dtype == np.float32
    np.testing.assert_allclose(r1, x * 2 + 1)
    np.testing.assert_allclose(r2, x * 3.5 + 1)
    assert len(f._cache) == 1
    f(x.astype(np.float64), 2.0)  # a new dtype: a new trace
    assert len(f._cache) == 2


def test_tuple_results_and_broadcasting():
    a = np.random.default_rng(3).standard_normal((16, 40)).astype(np.float32)
    row = np.linspace(0, 1, 40, dtype=np.float32)
    f = vp.jit(lambda a, r: (a + r, (a * r).sum(axis=0), 7))
    s, t, k = f(a, row)
    np.testing.assert_allclose(s, a + row, rtol=1e-6)
    np.testing.assert_allclose(t, (a * row).sum(axis=0), rtol=1e-4, atol=1e-5)
    assert k == 7


def test_bool_results_and_where():
    x = np.linspace(-1, 1, 333, dtype=np.float32)
    f = vp.jit(lambda a: (a > 0, vp.where(a > 0, a, 0.0), (a > 0.5).any(), (a < 2).all()))
    m, w, an, al = f(x)
    assert m.dtype == np.bool_ and np.array_equal(m, x > 0)
    np.testing.assert_array_equal(w, np.where(x > 0, x, 0))
    assert bool(an) and bool(al)


def test_indexing_in_jit():
    x = np.arange(60, dtype=np.float32).reshape(6, 10)
    f = vp.jit(lambda a: a[1:5, ::-2] * 2)
    np.testing.assert_array_equal(f(x), x[1:5, ::-2] * 2)
    g = vp.jit(lambda a: a[np.array([4, 0, -1])].sum(axis=1))
    np.testing.assert_array_equal(g(x), x[[4, 0, -1]].sum(axis=1))
    h = vp.jit(lambda a: a.T + 1)
    np.testing.assert_array_equal(h(x), x.T + 1)


def test_strided_resident_inputs():
    x = np.arange(200, dtype=np.float32)
    xv = vp.asarray(x)
    f = vp.jit(lambda a: a * 3)
    np.testing.assert_array_equal(f(xv[::3]).numpy(), x[::3] * 3)
    np.testing.assert_array_equal(f(xv[::-2]).numpy(), x[::-2] * 3)


def test_glsl_comments_name_the_python_line():
    f = vp.jit(lambda a: vp.sqrt(a))  # this line
    f(np.ones(10, np.float32))
    line = test_glsl_comments_name_the_python_line.__code__.co_firstlineno + 1
    assert f"test_jit.py:{line}" in f.glsl


def test_data_dependent_if_is_a_tracing_error():
    def f(a):
        if a.sum() > 0:  # line +1
            return a
        return -a

    with pytest.raises(vp.TracingError) as e:
        vp.jit(f)(np.ones(4, np.float32))
    line = f.__code__.co_firstlineno + 1
    assert f"test_jit.py:{line}" in str(e.value)
    assert "data-dependent" in str(e.value) and "vp.where" in str(e.value)


def test_unsupported_function_is_a_tracing_error():
    # (np.linalg.norm traces now: test_hunt_jit's test_numpy_std_var_round_norm_trace)
    with pytest.raises(vp.TracingError, match=r"numpy\.det is not supported"):
        vp.jit(lambda a: np.linalg.det(a))(np.ones((4, 4), np.float32))
    with pytest.raises(vp.TracingError, match="numpy.sort is not supported in vp.jit"):
        vp.jit(lambda a: np.sort(a))(np.ones(4, np.float32))


def test_mask_indexing_in_jit_is_a_tracing_error():
    with pytest.raises(vp.TracingError, match="data-dependent shape"):
        vp.jit(lambda a: a[a > 0])(np.ones(4, np.float32))


def test_numpy_ufuncs_on_tracers():
    x = np.linspace(0, 1, 50, dtype=np.float32)
    f = vp.jit(lambda a: np.sin(a) + np.maximum(a, 0.5))
    np.testing.assert_allclose(f(x), np.sin(x) + np.maximum(x, 0.5), atol=3e-7)


def test_async_call():
    x = np.arange(10, dtype=np.float32)
    f = vp.jit(lambda a: a + 1)
    h = f(x, sync=False)
    np.testing.assert_array_equal(h.wait(), x + 1)


def test_stores_join_a_trailing_reduction(ctx):
    x = np.linspace(0, 1, 5000, dtype=np.float32)
    f = vp.jit(lambda a: (vp.sin(a), vp.sin(a).sum()))
    (y, s), n = dispatches(ctx, f, vp.asarray(x))
    assert n == 1
    np.testing.assert_allclose(y.numpy(), np.sin(x), atol=3e-7)
    np.testing.assert_allclose(s.numpy(), np.sin(x).sum(), rtol=1e-5)


def test_without_subgroups_or_byte_storage(ctx, monkeypatch):
    """The lowering's fallbacks (shared-memory trees, bools as packed words)
    give the same answers; the device is told it lacks the features."""
    from vulpy import _engine
    names = vp._native.ext().feature_names()
    lack = sum(1 << i for i, n in enumerate(names)
               if n in ("subgroup_arithmetic", "subgroup_vote", "storage8", "int8"))
    monkeypatch.setattr(ctx, "_vp_feature_masks", (lack, _engine._masks(ctx)[1]))
    x = np.linspace(-1, 1, 3001, dtype=np.float32)
    f = vp.jit(lambda a: ((a > 0.25), vp.max(a * 2), vp.argmin(a), (a * a).sum()))
    m, mx, am, s = f(x)
    assert m.dtype == np.bool_ and np.array_equal(m, x > 0.25)
    assert mx == np.float32(2.0) and am == 0
    np.testing.assert_allclose(s, (x * x).sum(), rtol=1e-5)
    assert "subgroup" not in f.lowered_vir and "atomic.or" in f.lowered_vir


def test_out_arrays():
    """out= receives the results (and is returned), also as a view, also
    the argument itself (in place, through a reversed view too)."""
    x = np.arange(64, dtype=np.float32)
    xv = vp.asarray(x)
    f = vp.jit(lambda a: a * 2.0 + 1.0)
    o = vp.empty(64, np.float32)
    assert f(xv, out=o) is o
    np.testing.assert_array_equal(o.numpy(), x * 2 + 1)
    h = f(xv, out=o, sync=False)
    assert h.wait() is o if hasattr(h, "wait") else h is o
    # in place, and in place through a reversed view (read before written)
    y = vp.asarray(x)
    f(y, out=y)
    np.testing.assert_array_equal(y.numpy(), x * 2 + 1)
    y = vp.asarray(x)
    f(y[::-1], out=y)
    np.testing.assert_array_equal(y.numpy(), x[::-1] * 2 + 1)
    # a strided view as out=; the rest of the array is untouched
    z = vp.asarray(np.zeros(128, np.float32))
    f(xv, out=z[::2])
    np.testing.assert_array_equal(z.numpy()[::2], x * 2 + 1)
    assert not z.numpy()[1::2].any()
    # several results; a cast into out='s dtype (same_kind)
    g = vp.jit(lambda a: (a > 10, a.sum()))
    m, s = vp.empty(64, np.int32), vp.empty((), np.float32)
    r = g(xv, out=(m, s))
    assert r[0] is m and r[1] is s
    np.testing.assert_array_equal(m.numpy(), (x > 10).astype(np.int32))
    assert float(s.numpy()) == x.sum()


def test_out_errors():
    xv = vp.asarray(np.arange(64, dtype=np.float32))
    f = vp.jit(lambda a: a + 1.0)
    with pytest.raises(ValueError, match="shape"):
        f(xv, out=vp.empty(32, np.float32))
    with pytest.raises(ValueError, match="returns 1"):
        f(xv, out=(vp.empty(64, np.float32), vp.empty(64, np.float32)))
    with pytest.raises(TypeError, match="resident"):
        f(xv, out=np.empty(64, np.float32))
    with pytest.raises(TypeError, match="same_kind"):
        f(xv, out=vp.empty(64, np.int32))


@pytest.fixture
def gpu_lowering(ctx, monkeypatch):
    """Lower as for a GPU (vec4 everywhere, selects as branches) on this
    device, so that the kernels a GPU gets run and are checked here."""
    monkeypatch.setattr(ctx, "_vp_cpu_lowering", False, raising=False)
    return ctx


def test_contiguous_kernel_is_the_hand_written_one(gpu_lowering):
    """A contiguous elementwise chain prints like a hand-written vec4
    kernel: one vec4 per invocation, no loop, no bounds check when the grid
    fits, no index arithmetic."""
    n = 1 << 16
    a = np.linspace(-3, 3, n, dtype=np.float32)
    b = a[::-1].copy()
    f = vp.jit(lambda a, b: vp.where(a > b, vp.sin(a), vp.cos(b)))
    out = f(vp.asarray(a), vp.asarray(b))
    np.testing.assert_allclose(out.numpy(), np.where(a > b, np.sin(a), np.cos(b)), atol=4e-7)
    main = f.glsl.split("void main()")[1]
    assert "vec4 a[]" in f.glsl and "vec4 out_[]" in f.glsl
    assert "a[gl_GlobalInvocationID.x]" in main and "out_[gl_GlobalInvocationID.x] = vec4(" in main
    for bad in ("for (", "if (", " / ", " % "):
        assert bad not in main, bad
    # a size the grid does not divide: one bounds check, nothing else
    g = vp.jit(lambda a: vp.exp(a) - 1.0)
    m = 1000
    np.testing.assert_allclose(g(vp.asarray(a[:m])).numpy(), np.exp(a[:m]) - 1, rtol=2e-6)
    main = g.glsl.split("void main()")[1]
    assert main.count("if (") == 1 and "for (" not in main and "vec4" in main


def test_cpu_lowering(ctx):
    """On a CPU device a select computes both sides first, and costly
    kernels stay scalar (docs/fusion.md, "CPU devices")."""
    if ctx.kind != "cpu":
        pytest.skip("CPU devices only")
    a = np.linspace(-3, 3, 4096, dtype=np.float32)
    f = vp.jit(lambda a, b: vp.where(a > b, vp.sin(a), vp.cos(b)))
    out = f(vp.asarray(a), vp.asarray(a[::-1].copy()))
    np.testing.assert_allclose(out.numpy(), np.where(a > a[::-1], np.sin(a), np.cos(a[::-1])),
                               atol=4e-7)
    assert "? if_true : if_false" in f.glsl and "vec4" not in f.glsl.split("void main()")[1]


def test_two_dimensional_grid(ctx):
    """Past 65535 workgroups of items the grid has rows (x + y * row)."""
    n = 65535 * 256 + 1  # odd: scalar items, 2 rows, the last one partial
    x = np.arange(n, dtype=np.uint32)
    xv = vp.asarray(x)
    f = vp.jit(lambda a: a * 3 + 1)
    out = f(xv)
    assert [tuple(l[1:]) for l in f._last.compiled.launches] == [(32768, 2, 1)]
    got = out.numpy()
    np.testing.assert_array_equal(got[:1000], x[:1000] * 3 + 1)
    np.testing.assert_array_equal(got[-70000:], x[-70000:] * 3 + 1)
    assert "gl_GlobalInvocationID.y" in f.glsl


@pytest.mark.parametrize("lowering", ["device", "gpu"])
@pytest.mark.parametrize("n", [4, 4100, (1 << 20) + 12, 3 << 18])
@pytest.mark.parametrize("red", ["sum", "max", "min", "mean"])
def test_full_reductions_unrolled(ctx, monkeypatch, lowering, n, red):
    """The vec4 full reduction: four loads per iteration into four
    accumulators, then the vec4s the unrolled loop leaves (n / 4 = 1025,
    2^18 + 3, 3 x 2^16 ...), NaN propagating through every lane."""
    if lowering == "gpu":
        monkeypatch.setattr(ctx, "_vp_cpu_lowering", False, raising=False)
    rng = np.random.default_rng(n)
    x = rng.random(n, dtype=np.float32) - 0.25
    f = vp.jit(lambda a: getattr(vp, red)(a))
    got = f(vp.asarray(x))
    want = getattr(np, red)(x.astype(np.float64))
    np.testing.assert_allclose(float(got.numpy()), want, rtol=2e-5, atol=1e-6)
    if n > 4 and red in ("max", "min"):
        x[n - 3] = np.nan
        assert np.isnan(float(f(vp.asarray(x)).numpy()))
        x[n - 3] = 0
        x[1] = np.nan
        assert np.isnan(float(f(vp.asarray(x)).numpy()))


# ------------------------------------------------------------ differential


def _jit_case(dt):
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    @st.composite
    def case(draw):
        nd = draw(st.integers(1, 3))
        shape = tuple(draw(st.lists(st.integers(0, 6), min_size=nd, max_size=nd)))
        if np.dtype(dt).kind == "f":
            el = st.floats(-3, 3, width=np.dtype(dt).itemsize * 8)
        else:
            el = st.integers(-4, 4)
        a = draw(hnp.arrays(dt, shape, elements=el))
        b = draw(hnp.arrays(dt, shape[draw(st.integers(0, nd)):], elements=el))  # broadcast
        red = draw(st.sampled_from(["none", "sum", "max", "min", "mean", "argmax", "any", "all"]))
        axes = [None] + list(range(-nd, nd)) + ([(0, nd - 1)] if nd > 1 else [])
        axis = draw(st.sampled_from(axes))
        return a, b, red, axis, draw(st.booleans())

    return case()


@pytest.mark.parametrize("dt", [np.float32, np.int32, np.float64], ids=lambda d: np.dtype(d).name)
def test_chain_and_reduction_match_numpy_in_one_dispatch(ctx, dt):
    """hypothesis: an elementwise chain (with a broadcast operand) and an
    optional trailing reduction over any axis, keepdims or not, on shapes
    with empty and single-element axes: NumPy's values, and one dispatch."""
    from hypothesis import HealthCheck, given, settings
    if np.dtype(dt) == np.float64 and not ctx.has("float64"):
        pytest.skip("no float64")

    @settings(max_examples=12, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(_jit_case(dt))
    def run(c):
        a, b, red, axis, keepdims = c
        if red == "argmax" and isinstance(axis, tuple):
            axis = None
        if red == "mean" and np.dtype(dt).kind != "f":
            red = "sum"

        def chain(x, y, mod):
            t = mod.maximum(x * 2 - y, x) + 1
            if red == "none":
                return t
            if red in ("any", "all"):
                return getattr(mod, red)(t > y, axis=axis, keepdims=keepdims)
            if red == "argmax":
                return mod.argmax(t, axis=axis, keepdims=keepdims)
            return getattr(mod, red)(t, axis=axis, keepdims=keepdims)

        try:
            with np.errstate(all="ignore"):
                want = np.asarray(chain(a, b, np))
        except ValueError:  # max/argmax of an empty axis
            with pytest.raises(ValueError):
                vp.jit(lambda x, y: chain(x, y, vp))(a, b)
            return
        f = vp.jit(lambda x, y: chain(x, y, vp))
        av, bv = vp.asarray(a), vp.asarray(b)
        got, n = dispatches(ctx, f, av, bv)
        got = got.numpy()
        assert got.shape == want.shape and got.dtype == want.dtype, (red, axis, keepdims)
        if a.size and want.size:
            assert n == 1, (red, a.shape, axis)
        if want.dtype.kind == "f":
            tol = 1e-5 if want.dtype == np.float64 else 1e-4
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
        else:
            np.testing.assert_array_equal(got, want)

    run()


@pytest.mark.parametrize("red", ["sum", "max", "argmax", "mean"])
def test_big_full_reduction_grid_and_finish(ctx, monkeypatch, red):
    """A GPU's full reduction: one workgroup per 64 x 256 elements (514
    here), and the last workgroup reads the partials two at a time (512)
    and then the two left one by one; argmax, which carries indices,
    reads them one by one. Checked against NumPy in float64."""
    monkeypatch.setattr(ctx, "_vp_cpu_lowering", False, raising=False)
    n = (1 << 23) + (1 << 14) + 8
    x = np.random.default_rng(7).random(n, dtype=np.float32) - 0.5
    f = vp.jit(lambda a: getattr(vp, red)(a))
    got = f(vp.asarray(x)).numpy()
    assert [tuple(l[1:]) for l in f._last.compiled.launches] == [(514, 1, 1)]
    if red == "argmax":
        assert int(got) == int(np.argmax(x))
    else:
        want = getattr(np, red)(x.astype(np.float64))
        np.testing.assert_allclose(float(got), want, rtol=1e-5, atol=1e-3)
    unrolled = re.search(r"_part\[t\d+ \+ 256u\]", f.glsl) is not None
    assert unrolled == (red != "argmax")


def test_timer_runs_repeat_calls_back_to_back(ctx):
    """f.timer(..., repeat=k): one recording of k calls (the benchmarks'
    back-to-back samples), GPU ns per call; here each call adds 1 in place,
    so k runs of the timer add k * runs."""
    x = vp.asarray(np.zeros(4096, np.float32))
    f = vp.jit(lambda a: a + 1.0)
    t = f.timer(x, out=x, repeat=3)  # timer() makes one call itself
    np.testing.assert_array_equal(x.numpy(), 1.0)
    ns = [t(), t()]
    assert all(v > 0 for v in ns)
    np.testing.assert_array_equal(x.numpy(), 7.0)


def test_numpy_float64_scalar_argument_is_strong():
    # np.float64 is a Python float too: it was taken for a weak Python
    # scalar, whose type then failed NumPy's loop resolution inside the
    # trace ("no loop for (float64, float64)"); NumPy scalars are strong
    x = vp.asarray(np.arange(4, dtype=np.float32))
    f = vp.jit(lambda a, s, t: a * (s / t))
    r = f(x, np.float64(3.0), np.float64(2.0))
    assert r.dtype == np.float64
    np.testing.assert_array_equal(r.numpy(), np.arange(4, dtype=np.float32) * 1.5)
    r = f(x, 3.0, 2.0)  # Python floats stay weak
    np.testing.assert_array_equal(r.numpy(), np.arange(4, dtype=np.float32) * 1.5)
