"""The kernel-language patterns a Taichi or Warp user writes
(docs/language.md, docs/coming-from.md), run on the device and checked
against NumPy and Python's own math: loops unrolled over a module tuple,
tuples returned by helpers, Python's math module and built-ins."""
import math

import numpy as np
import pytest

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target

TAPS = (0.0625, 0.25, 0.375, 0.25, 0.0625)


@vp.kernel
def filter5(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32], n: vp.uint32):
    i = vp.global_id()
    acc = vp.var(0.0)
    for j, w in enumerate(TAPS):
        acc += w * x[min(i + j, n - 1)]
    y[i] = acc


def test_five_tap_filter_unrolled_from_a_tuple(ctx):
    n = 1000
    x = np.random.default_rng(1).random(n, dtype=np.float32)
    y = np.zeros(n, np.float32)
    filter5(x, y, dispatch=n, n=n)
    xp = np.concatenate([x, np.full(4, x[-1], np.float32)])
    want = sum(np.float32(w) * xp[j:j + n] for j, w in enumerate(TAPS))
    np.testing.assert_allclose(y, want, rtol=1e-6)
    assert "for" not in filter5.glsl.split("void main")[1]  # unrolled
    assert "0.375" in filter5.glsl


@vp.kernel
def zip_static(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32]):
    i = vp.global_id()
    acc = vp.var(0.0)
    for w, k in zip(TAPS, vp.static(range(10, 15))):
        acc += w * vp.float32(k)
    for k in vp.static(range(3)):
        acc += x[i] * vp.float32(k)
    y[i] = acc


def test_zip_and_static_range(ctx):
    x = np.arange(64, dtype=np.float32)
    y = np.zeros(64, np.float32)
    zip_static(x, y, dispatch=64)
    want = sum(w * k for w, k in zip(TAPS, range(10, 15))) + x * 3
    np.testing.assert_allclose(y, want, rtol=1e-6)


def polar(x, y):
    return math.hypot(x, y), math.atan2(y, x)


def divmod_floor(a, b):
    return a // b, a % b


@vp.kernel
def tuples(x: vp.Buffer[vp.float32], r: vp.Buffer[vp.float32], t: vp.Buffer[vp.float32],
           k: vp.Buffer[vp.int32], q: vp.Buffer[vp.int32], m: vp.Buffer[vp.int32]):
    i = vp.global_id()
    rad, ang = polar(x[i], 1.0)
    r[i] = rad
    t[i] = ang
    d, rem = divmod_floor(k[i], 7)
    q[i], m[i] = d, rem


def test_helpers_return_tuples(ctx):
    x = np.linspace(-3, 3, 64, dtype=np.float32)
    k = np.arange(-32, 32, dtype=np.int32)
    r, t = np.zeros(64, np.float32), np.zeros(64, np.float32)
    q, m = np.zeros(64, np.int32), np.zeros(64, np.int32)
    tuples(x, r, t, k, q, m, dispatch=64)
    np.testing.assert_allclose(r, np.hypot(x, 1), rtol=1e-6)
    np.testing.assert_allclose(t, np.arctan2(1, x), rtol=1e-5)
    np.testing.assert_array_equal(q, k // 7)
    np.testing.assert_array_equal(m, k % 7)


@vp.kernel
def mathk(x: vp.Buffer[vp.float32], f: vp.Buffer[vp.float32], k: vp.Buffer[vp.int32]):
    i = vp.global_id()
    v = x[i]
    j = i * 8
    f[j + 0] = math.sqrt(abs(v)) + math.pi
    f[j + 1] = math.exp(v / 4.0) * math.e
    f[j + 2] = math.log(abs(v) + 1.0, 2.0)
    f[j + 3] = round(v, 1)
    f[j + 4] = pow(v, 2) + pow(abs(v), 0.5)
    f[j + 5] = math.copysign(3.0, v) + math.degrees(v)
    f[j + 6] = max(v, 0.5, -v, 1.5 * v) + min(v, 2.0, -1.0)
    f[j + 7] = math.fmod(v, 1.5) + math.tau
    k[j + 0] = round(v)
    k[j + 1] = math.floor(v)
    k[j + 2] = math.ceil(v)
    k[j + 3] = math.trunc(v)
    k[j + 4] = round(v * 2.0)
    k[j + 5] = abs(math.floor(v)) + max(1, 2, 3, 4, 5)
    k[j + 6] = pow(math.floor(v), 2)
    k[j + 7] = round(2.5) + round(3.5) + round(-2.5)


def test_math_and_builtins_match_python(ctx):
    # halves included: round() is half to even, as Python's
    x = np.array([-3.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -2.25, -0.1, 0.0, 0.3, 1.75, 2.05, 4.4, 7.5],
                 np.float32)
    n = len(x)
    f = np.zeros(8 * n, np.float32)
    k = np.zeros(8 * n, np.int32)
    mathk(x, f, k, dispatch=n)
    f, k = f.reshape(n, 8), k.reshape(n, 8)
    for row, v32 in enumerate(x):
        v = float(v32)
        want_f = [math.sqrt(abs(v)) + math.pi, math.exp(v / 4) * math.e, math.log(abs(v) + 1, 2),
                  float(np.round(np.float32(v), 1)), pow(v, 2) + pow(abs(v), 0.5),
                  math.copysign(3.0, v) + math.degrees(v), max(v, 0.5, -v, 1.5 * v) + min(v, 2.0, -1.0),
                  math.fmod(v, 1.5) + math.tau]
        want_k = [round(v), math.floor(v), math.ceil(v), math.trunc(v), round(v * 2),
                  abs(math.floor(v)) + max(1, 2, 3, 4, 5), pow(math.floor(v), 2),
                  round(2.5) + round(3.5) + round(-2.5)]
        np.testing.assert_allclose(f[row], want_f, rtol=2e-6, atol=2e-6, err_msg=f"x={v}")
        assert list(k[row]) == want_k, f"x={v}"


EXEC_SRC = '''
import math
import vulpy as vp
W = (1.0, 2.0)
def h(x):
    return x * math.pi, x
@vp.kernel
def k(x: vp.Buffer[vp.float32]):
    i = vp.global_id()
    a, b = h(x[i])
    for w in W:
        a += w * b
    x[i] = a
'''


def test_exec_of_a_string_registered_in_linecache(ctx):
    import linecache
    name = "<vulpy-test-exec>"
    linecache.cache[name] = (len(EXEC_SRC), None, EXEC_SRC.splitlines(True), name)
    scope = {}
    exec(compile(EXEC_SRC, name, "exec"), scope)
    x = np.arange(8, dtype=np.float32)
    scope["k"](x, dispatch=8)
    np.testing.assert_allclose(x, np.arange(8) * (math.pi + 3), rtol=1e-6)


def test_kernel_without_source_is_a_compile_error(ctx):
    scope = {}
    exec(compile(EXEC_SRC, "<no-linecache>", "exec"), scope)
    with pytest.raises(vp.CompileError, match=r"<no-linecache>: error: cannot read the source of 'k'.*"
                       r"\n  hint: define kernels in a file, a Jupyter/IPython cell, or register"):
        scope["k"](np.zeros(4, np.float32), dispatch=4)


def test_python_dash_c_says_where_kernels_can_be_defined():
    import subprocess
    import sys
    code = ("import vulpy as vp\n@vp.kernel\ndef k(x: vp.Buffer[vp.float32]):\n    x[vp.global_id()] = 1.0\n"
            "try:\n    k.vir\nexcept vp.CompileError as e:\n    print('CompileError', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "CompileError <string>: error: cannot read the source of 'k'" in out.stdout, out.stderr


@vp.kernel
def histogram(data: vp.Buffer[vp.uint32], hist: vp.Buffer[vp.uint32], per: vp.uint32):
    i = vp.global_id()
    h = vp.Local[vp.uint32, 16]
    for k in range(per):
        h[data[i * per + k] % 16] += 1
    for b in vp.static(range(16)):
        hist[i * 16 + b] = h[b]


def test_per_thread_histogram_in_a_private_array(ctx):
    n, per = 256, 40
    data = np.random.default_rng(7).integers(0, 1000, n * per).astype(np.uint32)
    hist = np.zeros(n * 16, np.uint32)
    histogram(data, hist, dispatch=n, per=per)
    want = np.stack([np.bincount(row % 16, minlength=16) for row in data.reshape(n, per)])
    np.testing.assert_array_equal(hist.reshape(n, 16), want)
    assert "uint h[16];" in histogram.glsl and "h[" in histogram.cuda


@vp.kernel
def clamp_index(out: vp.Buffer[vp.float32], idx: vp.Buffer[vp.int32]):
    i = vp.global_id()
    a = vp.Local[vp.float32, 4]
    for k in vp.static(range(4)):
        a[k] = vp.float32(k + 1)
    a[idx[i]] += 10.0
    out[i] = a[idx[i]]


def test_private_array_index_out_of_range_is_clamped(ctx):
    idx = np.array([-7, -1, 0, 1, 2, 3, 4, 100], np.int32)
    out = np.zeros(8, np.float32)
    clamp_index(out, idx, dispatch=8)
    np.testing.assert_array_equal(out, np.array([1, 1, 1, 2, 3, 4, 4, 4], np.float32) + 10)


class Body:
    pos: vp.vec2
    vel: vp.vec2
    mass: vp.float32

    def step(self, dt, g):
        self.vel.y -= g * dt
        self.pos += self.vel * dt

    def energy(self):
        return 0.5 * self.mass * vp.dot(self.vel, self.vel)


def heavier(b: Body, k):
    return Body(b.pos, b.vel, b.mass * k)


@vp.kernel
def integrate(bodies: vp.Buffer[Body], e: vp.Buffer[vp.float32], dt: vp.float32, steps: vp.int32):
    i = vp.global_id()
    for s in range(steps):
        bodies[i].step(dt, 9.81)
    local = heavier(bodies[i], 2.0)
    local.step(0.0, 0.0)
    e[i] = local.energy() + Body.energy(bodies[i])


def test_struct_with_a_method_integrates_particles(ctx):
    n, dt, steps = 100, 0.01, 50
    rng = np.random.default_rng(3)
    pos = rng.random((n, 2), dtype=np.float32)
    vel = rng.random((n, 2), dtype=np.float32)
    mass = rng.random(n, dtype=np.float32) + 1
    # std430: vec2 pos at 0, vec2 vel at 8, mass at 16, size 24 (8-byte aligned)
    layout = np.dtype({"names": ["pos", "vel", "mass"], "formats": [(np.float32, 2), (np.float32, 2), np.float32],
                       "offsets": [0, 8, 16], "itemsize": 24})
    bodies = np.zeros(n, layout)
    bodies["pos"], bodies["vel"], bodies["mass"] = pos, vel, mass
    e = np.zeros(n, np.float32)
    integrate(bodies, e, dispatch=n, dt=dt, steps=steps)
    p, v = pos.copy(), vel.copy()
    for _ in range(steps):
        v[:, 1] -= np.float32(9.81) * np.float32(dt)
        p += v * np.float32(dt)
    np.testing.assert_allclose(bodies["pos"], p, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bodies["vel"], v, rtol=1e-4, atol=1e-5)
    ke = 0.5 * mass * (v ** 2).sum(1)
    np.testing.assert_allclose(e, 3 * ke, rtol=1e-4)
    assert "Body_step(" in integrate.glsl and "bodies[i] = Body_step(bodies[i], pc.dt, 9.81);" in integrate.glsl


@vp.kernel
def axpy(x: vp.Buffer, y: vp.Buffer, n: vp.uint32):
    i = vp.global_id()
    if i < n:
        y[i] = 3 * x[i] + y[i]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_generic_axpy_compiles_per_dtype(ctx, dtype):
    x = np.arange(100).astype(dtype)
    y = np.full(100, 7, dtype)
    axpy(x, y, dispatch=100, n=100)
    assert y.dtype == dtype
    np.testing.assert_array_equal(y, 3 * np.arange(100).astype(dtype) + 7)
    # resident arrays take the same specialization
    xv, yv = vp.asarray(np.arange(10).astype(dtype)), vp.asarray(np.zeros(10, dtype))
    axpy(xv, yv, dispatch=10, n=10)
    np.testing.assert_array_equal(yv.numpy(), 3 * np.arange(10).astype(dtype))


def test_generic_kernel_specializations_and_errors(ctx):
    assert "double x[]" in axpy.specialize(x=np.float64, y=np.float64).glsl
    assert "int y[]" in axpy.specialize(x=np.int32, y=np.int32).glsl
    with pytest.raises(vp.CompileError, match="generic buffer 'x' .* has no type yet"):
        axpy.glsl
    with pytest.raises(TypeError, match="generic buffer 'x' takes an array, got int"):
        axpy(3, np.zeros(4, np.float32), dispatch=4, n=4)
    with pytest.raises(TypeError):  # a float64 x with a float32 y: y's own check
        axpy.specialize(x=np.float64, y=np.float64)(np.zeros(4), np.zeros(4, np.float32), dispatch=4, n=4)


@vp.kernel(local_size_x=8, local_size_y=8)
def laplace(a: vp.Buffer[vp.float32, 2], b: vp.Buffer[vp.float32, 2]):
    x = vp.global_id(0)
    y = vp.global_id(1)
    h, w = a.shape
    if x >= 1 and y >= 1 and x + 1 < w and y + 1 < h:
        b[y, x] = 0.25 * (a[y - 1, x] + a[y + 1, x] + a[y, x - 1] + a[y, x + 1]) - a[y, x]


def _laplace(a):
    want = np.zeros_like(a)
    want[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:]) - a[1:-1, 1:-1]
    return want


def test_2d_stencil_on_strided_views(ctx):
    big = np.random.default_rng(5).random((40, 60), dtype=np.float32)
    a = big[::2, 1::3]                       # a NumPy view: uploaded C-contiguous
    b = np.zeros(a.shape, np.float32)
    laplace(a, b, dispatch=(a.shape[1], a.shape[0]))
    np.testing.assert_allclose(b, _laplace(a), rtol=1e-6, atol=1e-6)
    res = vp.asarray(big)
    for view, host in ((res[::2, 1::3], a), (res.T, big.T), (res[3:17, 5:50], big[3:17, 5:50])):
        out = vp.zeros(view.shape, np.float32)  # a resident view: its strides and offset
        laplace(view, out, dispatch=(view.shape[1], view.shape[0]))
        np.testing.assert_allclose(out.numpy(), _laplace(np.ascontiguousarray(host)), rtol=1e-6, atol=1e-6)
    # the output may be a view too: only its elements change
    dst = vp.zeros((40, 60), np.float32)
    laplace(res, dst[:, :], dispatch=(60, 40))
    np.testing.assert_allclose(dst.numpy(), _laplace(big), rtol=1e-6, atol=1e-6)
    with pytest.raises(TypeError, match=r"buffer 'a' is vp.Buffer\[T, 2\]; got an array of 1 dimension"):
        laplace(np.zeros(8, np.float32), np.zeros((2, 4), np.float32), dispatch=(4, 2))


@vp.kernel
def reverse_copy(src: vp.Buffer[vp.int32, 1], dst: vp.Buffer[vp.int32, 1]):
    i = vp.global_id()
    if i < len(src):
        dst[i] = src[i]


def test_1d_views_with_negative_and_step_strides(ctx):
    data = np.arange(20, dtype=np.int32)
    res = vp.asarray(data)
    for view, want in ((res[::-1], data[::-1]), (res[1::3], data[1::3]), (res[15:2:-2], data[15:2:-2])):
        out = vp.zeros(view.shape, np.int32)
        reverse_copy(view, out, dispatch=view.shape[0])
        np.testing.assert_array_equal(out.numpy(), want)


@vp.kernel
def flat_copy(src: vp.Buffer[vp.int32], dst: vp.Buffer[vp.int32]):
    i = vp.global_id()
    dst[i] = src[i]


def test_strided_view_to_a_1d_parameter_points_at_nd_buffers(ctx):
    res = vp.asarray(np.arange(20, dtype=np.int32))
    with pytest.raises(ValueError, match=r"or declare the parameter vp.Buffer\[T, 1\]"):
        flat_copy(res[::2], vp.zeros(10, np.int32), dispatch=10)
