"""The C fast path of kernel calls (the extension's Launcher, launch.c).

After a kernel's first call, calls with resident arrays and scalar push
constants run whole in C; everything else falls back to the Python path.
These tests check that the fast path is taken (its counters), that it gives
the same results as the Python path when buffers, push constants and grids
change from call to call, and that every error is still the Python path's,
naming the argument.
"""
import numpy as np
import pytest

import vulpy as vp
from conftest import needs_cross, needs_target

pytestmark = needs_target


def _saxpy():
    # a new kernel object per test: its launcher counts only this test's calls
    @vp.kernel(local_size_x=64)
    def saxpy(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32], a: vp.float32):
        i = vp.global_id()
        y[i] = a * x[i] + y[i]
    return saxpy


def _launcher(k):
    assert k._fast, "no launcher after a first call"
    return k._fast


def test_second_call_takes_the_fast_path(ctx):
    k = _saxpy()
    x = vp.asarray(np.arange(100, dtype=np.float32))
    y = vp.zeros(100)
    assert k._fast is None
    k(x, y, dispatch=100, a=1.0)  # Python path; makes the launcher
    L = _launcher(k)
    for _ in range(3):
        k(x, y, dispatch=100, a=1.0)
    assert (L.calls, L.fallbacks) == (3, 0)
    np.testing.assert_array_equal(y.numpy(), 4 * np.arange(100, dtype=np.float32))


def test_push_constants_change_call_to_call(ctx):
    k = _saxpy()
    x = vp.asarray(np.ones(64, np.float32))
    y = vp.zeros(64)
    total = 0.0
    for a in (1.0, 2.5, -3, np.float32(0.25), 7):  # float, int, NumPy scalar
        k(x, y, dispatch=64, a=a)
        total += float(a)
        np.testing.assert_array_equal(y.numpy(), np.full(64, total, np.float32))
    assert _launcher(k).calls == 4


@vp.kernel(local_size_x=8, local_size_y=8)
def _fill2d(out: vp.Buffer[vp.uint32], width: vp.uint32, base: vp.int32):
    x = vp.global_id(0)
    y = vp.global_id(1)
    out[y * width + x] = vp.uint32(base) + y * 1000 + x


def test_integer_push_constants_and_2d_grids(ctx):
    out = vp.zeros(16 * 16, np.uint32)
    _fill2d(out, dispatch=(16, 16), width=16, base=0)
    L = _launcher(_fill2d)
    before = L.calls
    for w, h, base in ((8, 4, 5), (16, 16, 1), (4, 2, 70000)):
        out2 = vp.zeros(w * h, np.uint32)
        _fill2d(out2, dispatch=(w, h), width=w, base=base)
        yy, xx = np.mgrid[:h, :w]
        np.testing.assert_array_equal(out2.numpy().reshape(h, w), base + yy * 1000 + xx)
    # groups= counts workgroups (8x8 each)
    out3 = vp.zeros(16 * 16, np.uint32)
    _fill2d(out3, groups=(2, 2), width=16, base=np.int32(3))
    yy, xx = np.mgrid[:16, :16]
    np.testing.assert_array_equal(out3.numpy().reshape(16, 16), 3 + yy * 1000 + xx)
    assert L.calls == before + 4 and L.fallbacks == 0


def test_other_buffers_rebind(ctx):
    """The runtime caches a launch per set of buffers: another buffer (or the
    first one again) must be bound, not the cached one."""
    k = _saxpy()
    xs = [vp.asarray(np.full(64, i + 1, np.float32)) for i in range(3)]
    ys = [vp.zeros(64) for _ in range(3)]
    for rep in range(2):
        for i in range(3):
            k(xs[i], ys[i], dispatch=64, a=1.0)
    for i in range(3):
        np.testing.assert_array_equal(ys[i].numpy(), np.full(64, 2 * (i + 1), np.float32))
    # a raw Buffer of the same context binds too
    k(xs[0], ys[1].buffer, dispatch=64, a=1.0)
    np.testing.assert_array_equal(ys[1].numpy(), np.full(64, 5, np.float32))
    assert _launcher(k).fallbacks == 0


def test_async_calls_return_handles(ctx):
    k = _saxpy()
    x = vp.asarray(np.ones(64, np.float32))
    y = vp.zeros(64)
    k(x, y, dispatch=64, a=1.0)
    hs = [k(x, y, dispatch=64, a=1.0, sync=False) for _ in range(4)]
    assert all(isinstance(h, vp.Handle) for h in hs)
    assert hs[-1].wait() is None and hs[-1].done
    np.testing.assert_array_equal(y.numpy(), np.full(64, 5, np.float32))
    assert _launcher(k).calls == 4


def test_numpy_arguments_fall_back(ctx):
    k = _saxpy()
    k(vp.zeros(4), vp.zeros(4), dispatch=4, a=1.0)
    L = _launcher(k)
    y = np.ones(8, np.float32)
    k(np.arange(8, dtype=np.float32), y, dispatch=8, a=2.0)  # uploaded, written back
    np.testing.assert_array_equal(y, 1 + 2 * np.arange(8, dtype=np.float32))
    assert L.fallbacks == 1 and "resident" in L.last_fallback


def test_errors_still_name_the_argument(ctx):
    k = _saxpy()
    k(vp.zeros(4), vp.zeros(4), dispatch=4, a=1.0)
    L = _launcher(k)
    with pytest.raises(TypeError, match=r"takes 2 buffer\(s\) \(x, y\), got 1"):
        k(vp.zeros(4), dispatch=4, a=1.0)
    with pytest.raises(TypeError, match="buffer 'x' is vp.Buffer\\[vp.float32\\].*float64"):
        k(vp.zeros(4, np.float64), vp.zeros(4), dispatch=4, a=1.0)
    with pytest.raises(TypeError, match="buffer 'y' is vp.Buffer\\[vp.float32\\].*int32"):
        k(vp.zeros(4), vp.zeros(4, np.int32), dispatch=4, a=1.0)
    with pytest.raises(TypeError, match="must be a vp.ndarray"):
        k([1.0], vp.zeros(4), dispatch=4, a=1.0)
    with pytest.raises(TypeError, match="missing push constant 'a'"):
        k(vp.zeros(4), vp.zeros(4), dispatch=4)
    with pytest.raises(TypeError, match="unknown push constant 'b'"):
        k(vp.zeros(4), vp.zeros(4), dispatch=4, a=1.0, b=2.0)
    with pytest.raises(TypeError, match="push constant 'a' .*cannot hold"):
        k(vp.zeros(4), vp.zeros(4), dispatch=4, a="x")
    with pytest.raises(TypeError, match="push constant 'a' .*cannot hold"):
        k(vp.zeros(4), vp.zeros(4), dispatch=4, a=1e300)  # beyond float32
    with pytest.raises(TypeError, match="dispatch=N"):
        k(vp.zeros(4), vp.zeros(4), a=1.0)
    with pytest.raises(TypeError, match="not both"):
        k(vp.zeros(4), vp.zeros(4), a=1.0, dispatch=4, groups=(1, 1, 1))
    with pytest.raises(TypeError, match="tuple of 1 to 3"):
        k(vp.zeros(4), vp.zeros(4), a=1.0, dispatch=(1, 2, 3, 4))
    with pytest.raises(TypeError, match="tuple of 1 to 3"):
        k(vp.zeros(4), vp.zeros(4), a=1.0, dispatch=True)
    with pytest.raises(ValueError, match="0..2\\*\\*32-1"):
        k(vp.zeros(4), vp.zeros(4), a=1.0, dispatch=-1)
    # odd but valid keywords: the Python path runs them
    y = vp.zeros(4)
    k(vp.ones(4), y, dispatch=[4], a=1.0, sync=1, context=ctx)
    np.testing.assert_array_equal(y.numpy(), np.ones(4, np.float32))
    assert L.calls == 0 and L.fallbacks == 14


@vp.kernel
def _count_u(out: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    out[i] = n


def test_integer_range_errors(ctx):
    out = vp.zeros(4, np.uint32)
    _count_u(out, dispatch=4, n=1)
    with pytest.raises(TypeError, match="push constant 'n' .*cannot hold -1"):
        _count_u(out, dispatch=4, n=-1)
    with pytest.raises(TypeError, match="push constant 'n' .*cannot hold 4294967296"):
        _count_u(out, dispatch=4, n=2**32)
    with pytest.raises(TypeError, match="push constant 'n' .*cannot hold 1.5"):
        _count_u(out, dispatch=4, n=1.5)
    _count_u(out, dispatch=4, n=2**32 - 1)
    _count_u(out, dispatch=4, n=True)  # struct packs a bool as 1
    np.testing.assert_array_equal(out.numpy(), np.ones(4, np.uint32))


def test_an_empty_grid_runs_nothing(ctx):
    k = _saxpy()
    y = vp.zeros(4)
    k(vp.ones(4), y, dispatch=4, a=1.0)
    k(vp.ones(4), y, dispatch=0, a=1.0)
    assert k(vp.ones(4), y, dispatch=(4, 0), a=1.0, sync=False).wait() is None
    np.testing.assert_array_equal(y.numpy(), np.ones(4, np.float32))


def test_another_context_falls_back(ctx):
    k = _saxpy()
    k(vp.zeros(4), vp.zeros(4), dispatch=4, a=1.0)
    L = _launcher(k)
    other = vp.Context()
    x = vp.asarray(np.ones(4, np.float32), context=other)
    y = vp.zeros(4, context=other)
    k(x, y, dispatch=4, a=3.0)  # the Python path, on the other context
    np.testing.assert_array_equal(y.numpy(), np.full(4, 3, np.float32))
    assert L.fallbacks == 1 and "context" in L.last_fallback
    with pytest.raises(ValueError, match="different contexts"):
        k(vp.zeros(4), y, dispatch=4, a=1.0)
    with pytest.raises(ValueError, match="different contexts"):
        k(x, vp.zeros(4), dispatch=4, a=1.0)
    assert L.calls == 0


@needs_cross
def test_raw_glsl_kernel_fast_path(ctx):
    src = """#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer X { float x[]; };
layout(std430, binding = 1) buffer Y { float y[]; };
layout(push_constant) uniform P { uint n; float a; } p;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < p.n) y[i] = p.a * x[i];
}
"""
    k = vp.kernel(src, buffers=2, push=[("n", "uint32"), ("a", "float32")])
    x = vp.asarray(np.arange(100, dtype=np.float32))
    y = vp.zeros(100)
    k(x, y, dispatch=100, n=100, a=1.0)
    for a in (2.0, 3.0):
        k(x, y, dispatch=100, n=50, a=a)
        want = np.arange(100, dtype=np.float32)
        want[:50] *= a
        np.testing.assert_array_equal(y.numpy(), want)
    assert _launcher(k).calls == 2


# ------------------------------------------------------------- ufuncs
def _ufunc_launcher(uf):
    assert uf._fast is not None, "no ufunc launcher after a planned out= call"
    return uf._fast.__self__


def test_ufunc_out_takes_the_fast_path(ctx):
    x = vp.asarray(np.linspace(0, 1, 1000, dtype=np.float32))
    y = vp.empty_like(x)
    assert vp.cos(x, out=y) is y  # plans (Python path), makes the launcher
    L = _ufunc_launcher(vp.cos)
    before = L.calls
    x.set(np.linspace(1, 2, 1000, dtype=np.float32))
    assert vp.cos(x, out=y) is y
    np.testing.assert_allclose(y.numpy(), np.cos(np.linspace(1, 2, 1000, dtype=np.float32)),
                               rtol=1e-6, atol=1e-6)
    h = vp.cos(x, out=y, sync=False)
    assert isinstance(h, vp.Handle) and h.wait() is y
    assert L.calls == before + 2


def test_ufunc_other_operands_rebind(ctx):
    a = [vp.asarray(np.full(300, i, np.float32)) for i in range(3)]
    b = vp.asarray(np.full(300, 10, np.float32))
    outs = [vp.empty_like(b) for _ in range(3)]
    for rep in range(2):
        for i in range(3):
            vp.add(a[i], b, out=outs[i])
    for i in range(3):
        np.testing.assert_array_equal(outs[i].numpy(), np.full(300, 10 + i, np.float32))
    assert _ufunc_launcher(vp.add).calls >= 5


def test_ufunc_other_signatures_fall_back(ctx):
    x = vp.asarray(np.linspace(0, 1, 256, dtype=np.float32))
    y = vp.empty_like(x)
    vp.exp(x, out=y)
    vp.exp(x, out=y)
    L = _ufunc_launcher(vp.exp)
    f0 = L.fallbacks
    # another shape, a view, another dtype: each falls back and is right
    x2 = vp.asarray(np.linspace(0, 1, 100, dtype=np.float32))
    y2 = vp.empty_like(x2)
    vp.exp(x2, out=y2)
    np.testing.assert_allclose(y2.numpy(), np.exp(x2.numpy()), rtol=1e-6)
    vp.exp(x[::2], out=y[:128])
    np.testing.assert_allclose(y.numpy()[:128], np.exp(x.numpy()[::2]), rtol=1e-6)
    with pytest.raises(ValueError, match="out= has shape"):
        vp.exp(x, out=y2)
    with pytest.raises(TypeError, match="Cannot cast ufunc 'exp' output from dtype.'float32'"):
        vp.exp(x, out=vp.zeros(256, np.int32))
    assert L.fallbacks >= f0 + 1


@vp.kernel(local_size_x=64)
def _push_particles(pos: vp.Buffer[vp.vec4], vel: vp.Buffer[vp.vec4], dt: vp.float32):
    i = vp.global_id()
    pos[i] = pos[i] + vel[i] * dt


def test_vector_buffers_take_the_fast_path(ctx):
    """The seed's kernel shape: vec4 buffers of float32 arrays."""
    p = np.zeros((128, 4), np.float32)
    v = np.random.default_rng(1).random((128, 4), dtype=np.float32)
    pv, vv = vp.asarray(p), vp.asarray(v)
    _push_particles(pv, vv, dispatch=128, dt=0.5)
    L = _launcher(_push_particles)
    before = L.calls
    _push_particles(pv, vv, dispatch=128, dt=0.25)
    np.testing.assert_allclose(pv.numpy(), 0.75 * v, rtol=1e-6)
    assert L.calls == before + 1
    # not whole vec4s: the Python path says so
    with pytest.raises(ValueError, match="buffer 'vel' holds vec4 elements"):
        _push_particles(pv, vp.zeros(6), dispatch=1, dt=0.5)
    with pytest.raises(TypeError, match="buffer 'pos'"):
        _push_particles(vp.zeros((4, 4), np.int32), vv, dispatch=1, dt=0.5)
    assert L.calls == before + 1
