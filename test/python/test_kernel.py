"""@vp.kernel, vp.compile and raw GLSL kernels: calling conventions,
inspection attributes, caching, and every error the issue lists."""
import numpy as np
import pytest

import vulpy as vp
from conftest import needs_cross, needs_target

pytestmark = needs_target


@vp.kernel(local_size_x=64)
def saxpy(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32], a: vp.float32):
    i = vp.global_id()
    y[i] = a * x[i] + y[i]


@vp.kernel(local_size_x=8, local_size_y=8)
def fill2d(out: vp.Buffer[vp.uint32], width: vp.uint32):
    x = vp.global_id(0)
    y = vp.global_id(1)
    out[y * width + x] = y * 1000 + x


@vp.kernel
def twice(x: vp.Buffer[vp.int32]):
    i = vp.global_id()
    x[i] = x[i] * 2


@pytest.mark.parametrize("n", [1, 63, 64, 65, 1000])
def test_dispatch_n_runs_exactly_n(ctx, n):
    x = np.arange(n + 10, dtype=np.float32)
    y = np.ones(n + 10, np.float32)
    xv, yv = vp.asarray(x), vp.asarray(y)
    saxpy(xv, yv, dispatch=n, a=2.0)
    want = y.copy()
    want[:n] += 2 * x[:n]
    np.testing.assert_array_equal(yv.numpy(), want)


def test_numpy_arguments_are_uploaded_and_written_back(ctx):
    x = np.arange(100, dtype=np.float32)
    y = np.ones(100, np.float32)
    saxpy(x, y, dispatch=100, a=0.5)
    np.testing.assert_array_equal(y, 1 + 0.5 * np.arange(100, dtype=np.float32))
    np.testing.assert_array_equal(x, np.arange(100, dtype=np.float32))  # read-only: untouched


def test_2d_dispatch_and_groups(ctx):
    w, h = 20, 13
    out = vp.zeros(w * h, np.uint32)
    fill2d(out, dispatch=(w, h), width=w)
    yy, xx = np.mgrid[0:h, 0:w]
    np.testing.assert_array_equal(out.numpy().reshape(h, w), yy * 1000 + xx)
    out2 = vp.zeros(16 * 16, np.uint32)
    fill2d(out2, groups=(2, 2, 1), width=16)
    yy, xx = np.mgrid[0:16, 0:16]
    np.testing.assert_array_equal(out2.numpy().reshape(16, 16), yy * 1000 + xx)


def test_default_local_size_and_inspection(ctx):
    x = vp.asarray(np.arange(5, dtype=np.int32))
    twice(x, dispatch=5)
    np.testing.assert_array_equal(x.numpy(), np.arange(5) * 2)
    assert "#version 450" in saxpy.glsl and "local_size_x = 64" in saxpy.glsl
    assert saxpy.spirv[:4] == b"\x03\x02\x23\x07"
    assert "kernel @saxpy" in saxpy.vir
    assert "dispatch_guard: _vp_count" in saxpy.manifest
    assert "__global__" in saxpy.cuda
    assert saxpy.hip


def test_async_kernel(ctx):
    x = vp.asarray(np.arange(64, dtype=np.float32))
    y = vp.zeros(64)
    h = saxpy(x, y, dispatch=64, a=1.0, sync=False)
    assert h.wait() is None and h.done
    np.testing.assert_array_equal(y.numpy(), np.arange(64, dtype=np.float32))
    xn, yn = np.ones(8, np.float32), np.zeros(8, np.float32)
    h = saxpy(xn, yn, dispatch=8, a=3.0, sync=False)
    h.wait()
    np.testing.assert_array_equal(yn, np.full(8, 3, np.float32))


def test_result_shows_in_an_existing_view(ctx):
    y = vp.zeros(64, memory="host")
    view = y.numpy_view()
    saxpy(vp.ones(64, memory="host"), y, dispatch=64, a=5.0)
    assert (view == 5.0).all()  # no call between the dispatch and this read


def test_kernel_cache_in_memory_and_on_disk(ctx, tmp_path):
    from vulpy import _compiler
    prog = saxpy.program()
    assert saxpy.program() is prog
    key = prog.artifacts["key"]
    folder = _compiler.cache_dir()
    assert (tmp_path / "x").parent.exists() and folder
    import os
    assert os.path.exists(_compiler._entry_path(folder, key))


# ------------------------------------------------------------ errors
def test_too_few_buffers(ctx):
    with pytest.raises(TypeError, match=r"takes 2 buffer\(s\) \(x, y\), got 1"):
        saxpy(vp.zeros(4), dispatch=4, a=1.0)


@vp.kernel
def mixed(a: vp.float32, x: vp.Buffer[vp.float32], n: vp.uint32, y: vp.Buffer[vp.int32]):
    i = vp.global_id()
    if i < n:
        x[i] = x[i] * a + vp.float32(y[i])


def test_arguments_bind_as_python_binds_them(ctx):
    """A Taichi / Warp user passes scalars positionally: saxpy(x, y, 2.0)
    was 'takes 2 buffer(s), got 3'. Positional arguments take the
    parameters in order, any may come by keyword, the result is the
    all-keyword call's (and the extension's launcher runs the repeats)."""
    x = np.arange(8, dtype=np.float32)
    yv = vp.asarray(np.ones(8, np.float32))
    saxpy(vp.asarray(x), yv, 3.0, dispatch=8)
    np.testing.assert_array_equal(yv.get(), 3 * x + 1)
    saxpy(x=vp.asarray(x), y=yv, a=0.5, dispatch=8)
    np.testing.assert_array_equal(yv.get(), 3.5 * x + 1)
    saxpy(vp.asarray(x), y=yv, a=1.0, dispatch=8)
    np.testing.assert_array_equal(yv.get(), 4.5 * x + 1)
    # scalars before and between buffers, in declaration order
    xv = vp.asarray(x)
    ys = np.arange(8, dtype=np.int32) * 10
    mixed(2.0, xv, 5, ys, dispatch=8)
    want = x.copy()
    want[:5] = 2 * x[:5] + ys[:5]
    np.testing.assert_array_equal(xv.get(), want)
    calls = saxpy._fast.calls if saxpy._fast else 0
    for _ in range(3):
        saxpy(vp.asarray(x), yv, 1.0, dispatch=8)
    np.testing.assert_array_equal(yv.get(), 7.5 * x + 1)
    if saxpy._fast:
        assert saxpy._fast.calls == calls + 3


def test_argument_binding_errors_name_the_parameters(ctx):
    with pytest.raises(TypeError, match=r"takes 3 argument\(s\) \(x, y, a\), got 4 positional"):
        saxpy(vp.zeros(4), vp.zeros(4), 1.0, 2.0, dispatch=4)
    with pytest.raises(TypeError, match="multiple values for argument 'a'"):
        saxpy(vp.zeros(4), vp.zeros(4), 1.0, a=2.0, dispatch=4)
    with pytest.raises(TypeError, match=r"takes 2 buffer\(s\) \(x, y\), got 1: missing 'y'"):
        saxpy(x=vp.zeros(4), a=2.0, dispatch=4)
    with pytest.raises(TypeError, match=r"push constant 'a' \(f32\) cannot hold vp.ndarray"):
        mixed(vp.zeros(4), 2.0, 4, vp.zeros(4, np.int32), dispatch=4)
    with pytest.raises(TypeError, match="push constant 'n' \\(u32\\) cannot hold -1"):
        mixed(1.0, vp.zeros(4), -1, vp.zeros(4, np.int32), dispatch=4)


@vp.kernel(dispatch_guard=False)
def unguarded(x: vp.Buffer[vp.uint32]):
    i = vp.global_id()
    if i < len(x):
        x[i] = i + 1


def test_dispatch_guard_false_runs_whole_groups(ctx):
    """vp.kernel's docstring offered dispatch_guard=False and the decorator
    refused it as an unknown keyword. Without the guard every invocation of
    the dispatched groups runs (the kernel bounds itself); with it only
    dispatch=N of them."""
    x = vp.zeros(100, np.uint32)
    unguarded(x, dispatch=10)
    want = np.zeros(100, np.uint32)
    want[:64] = np.arange(1, 65)
    np.testing.assert_array_equal(x.get(), want)
    assert "_vp_count" not in unguarded.glsl
    with pytest.raises(TypeError, match="dispatch_guard= is for Python kernels"):
        vp.kernel("#version 450\nvoid main() {}", dispatch_guard=False)


def test_missing_and_unknown_push_constants(ctx):
    with pytest.raises(TypeError, match="missing push constant 'a'"):
        saxpy(vp.zeros(4), vp.zeros(4), dispatch=4)
    with pytest.raises(TypeError, match="unknown push constant 'b'"):
        saxpy(vp.zeros(4), vp.zeros(4), dispatch=4, a=1.0, b=2.0)
    with pytest.raises(TypeError, match="push constant 'width'"):
        fill2d(vp.zeros(4, np.uint32), dispatch=4, width=-1)


def test_wrong_dtype_names_the_buffer(ctx):
    with pytest.raises(TypeError, match="buffer 'x' is vp.Buffer\\[vp.float32\\].*float64"):
        saxpy(vp.zeros(4, np.float64), vp.zeros(4), dispatch=4, a=1.0)
    with pytest.raises(TypeError, match="buffer 'y'"):
        saxpy(np.zeros(4, np.float32), np.zeros(4, np.int32), dispatch=4, a=1.0)
    with pytest.raises(TypeError, match="must be a vp.ndarray"):
        saxpy([1.0], vp.zeros(4), dispatch=4, a=1.0)


def test_dispatch_arguments_are_checked(ctx):
    with pytest.raises(TypeError, match="dispatch=N"):
        saxpy(vp.zeros(4), vp.zeros(4), a=1.0)
    with pytest.raises(TypeError, match="not both"):
        saxpy(vp.zeros(4), vp.zeros(4), a=1.0, dispatch=4, groups=(1, 1, 1))
    with pytest.raises(TypeError, match="tuple of 1 to 3"):
        saxpy(vp.zeros(4), vp.zeros(4), a=1.0, dispatch=(1, 2, 3, 4))


def test_float64_kernel_without_the_feature(ctx, monkeypatch):
    @vp.kernel
    def dbl(x: vp.Buffer[vp.float64]):
        i = vp.global_id()
        x[i] = x[i] * 2.0

    monkeypatch.setattr(ctx, "_features", ctx.features - {"float64"})
    monkeypatch.setattr(ctx, "_kernels", {})
    with pytest.raises(vp.FeatureError, match="float64"):
        dbl(vp.zeros(4, np.float64), dispatch=4)


def test_compile_error_names_the_place(ctx):
    @vp.kernel
    def broken(x: vp.Buffer[vp.float32]):
        i = vp.global_id()
        x[i] = undefined_name + 1.0  # noqa: F821

    with pytest.raises(vp.CompileError) as e:
        broken(vp.zeros(4), dispatch=4)
    msg = str(e.value)
    assert "test_kernel.py:" in msg and "error:" in msg and "undefined_name" in msg
    assert "^" in msg  # the caret under the column
    assert e.value.diagnostics[0]["line"] > 0


# ------------------------------------------------------------ vp.compile
SHADER = '''
import vulpy as vp

class Particle:
    pos: vp.vec3
    mass: vp.float32
    vel: vp.vec2

def main(ps: vp.Buffer[Particle], n: vp.uint32, dt: vp.float32):
    i = vp.global_id()
    ps[i].pos = ps[i].pos + vp.vec3(ps[i].vel, 0.0) * dt * ps[i].mass
'''


def test_struct_buffers_and_layout_errors(ctx, tmp_path):
    path = tmp_path / "parts.vul.py"
    path.write_text(SHADER)
    sh = vp.compile(path, local_size_x=32, context=ctx)
    dt = sh.dtype("ps")
    assert dt.itemsize == 32 and dt.fields["mass"][1] == 12 and dt.fields["vel"][1] == 16
    ps = np.zeros(50, dt)
    ps["pos"] = np.arange(150, dtype=np.float32).reshape(50, 3)
    ps["mass"] = 2.0
    ps["vel"] = 1.0
    sh.allocate(ps=ps)
    sh.upload("ps", ps)
    sh.run(dispatch=50, n=50, dt=0.5)
    got = sh.download("ps")
    want = ps["pos"].copy()
    want[:, :2] += 1.0
    np.testing.assert_allclose(got["pos"], want)
    packed = np.dtype([("pos", np.float32, 3), ("mass", np.float32), ("vel", np.float32, 2)])
    with pytest.raises(TypeError) as e:
        sh.upload("ps", np.zeros(50, packed))
    msg = str(e.value)
    assert "struct Particle (std430, 32 bytes)" in msg and "numpy dtype (24 bytes)" in msg
    assert "vel: vec2 at offset 16" in msg


def test_shader_errors(ctx, tmp_path):
    path = tmp_path / "k.vul.py"
    path.write_text("import vulpy as vp\n\ndef main(a: vp.Buffer[vp.float32], "
                    "b: vp.Buffer[vp.float32]):\n    i = vp.global_id()\n    b[i] = a[i]\n")
    sh = vp.compile(str(path), context=ctx)
    assert sh.buffer_names == ["a", "b"]
    sh.allocate(a=np.zeros(8, np.float32))
    with pytest.raises(RuntimeError, match="b not allocated"):
        sh.run(dispatch=8)
    with pytest.raises(KeyError, match="no buffer 'c'"):
        sh.upload("c", np.zeros(3))
    sh.upload("b", np.zeros(8, np.float32))
    sh.upload("a", np.arange(8, dtype=np.float32))
    sh.run(dispatch=8)
    np.testing.assert_array_equal(sh.download("b"), np.arange(8, dtype=np.float32))
    assert isinstance(sh.buffer("b"), vp.ndarray)
    with pytest.raises(ValueError, match="bytes"):
        sh.upload("a", np.zeros(9, np.float32))
    bad = tmp_path / "bad.vul.py"
    bad.write_text("import vulpy as vp\n\ndef main(a: vp.Buffer[vp.float32]):\n    a[0] = nope\n")
    with pytest.raises(vp.CompileError, match=r"bad.vul.py:4:12: error"):
        vp.compile(bad, context=ctx)


SHADER_3D = """import vulpy as vp

class PushConstants:
    nx: uint32
    ny: uint32
    nz: uint32

def main(out: vp.Buffer[vp.uint32]):
    x = vp.global_id(0)
    y = vp.global_id(1)
    z = vp.global_id(2)
    if x >= pc.nx or y >= pc.ny or z >= pc.nz:
        return
    out[(z * pc.ny + y) * pc.nx + x] = z * 10000 + y * 100 + x
"""


@pytest.mark.parametrize("dims", [(13, 7), (5, 6, 3)])
def test_shader_2d_3d_and_inspection(ctx, tmp_path, dims):
    """vp.compile(..., local_size_y/z=) and .run(dispatch=(nx, ny[, nz])):
    every id written once, none past the counts; and the inspection
    attributes of the issue (.glsl .vir .spirv .cuda .manifest)."""
    path = tmp_path / "grid.vul.py"
    path.write_text(SHADER_3D)
    nx, ny, nz = (dims + (1,))[:3]
    sh = vp.compile(str(path), local_size_x=4, local_size_y=4,
                    local_size_z=2 if len(dims) == 3 else 1, context=ctx)
    assert "local_size_x = 4, local_size_y = 4" in sh.glsl
    assert "kernel @main" in sh.vir and sh.spirv[:4] == b"\x03\x02\x23\x07"
    assert "__global__" in sh.cuda and "name: out" in sh.manifest
    n = nx * ny * nz
    sh.allocate(out=np.zeros(n + 5, np.uint32))
    sh.upload("out", np.full(n + 5, 7, np.uint32))
    sh.run(dispatch=dims, nx=nx, ny=ny, nz=nz)
    z, y, x = np.meshgrid(np.arange(nz), np.arange(ny), np.arange(nx), indexing="ij")
    want = np.concatenate([(z * 10000 + y * 100 + x).ravel(), np.full(5, 7)]).astype(np.uint32)
    np.testing.assert_array_equal(sh.download("out"), want)
    np.testing.assert_array_equal(sh.buffer("out").numpy(), want)


# ------------------------------------------------------------ raw GLSL
GLSL = """#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer A { float a[]; };
layout(std430, binding = 1) buffer B { float b[]; };
layout(push_constant) uniform P { uint n; float s; } pc;
void main() { uint i = gl_GlobalInvocationID.x; if (i < pc.n) b[i] = a[i] * pc.s; }
"""

GLSL_CONTROL = """#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Control { uint words[]; };
layout(push_constant) uniform P { uint n; } pc;
void main() { if (gl_GlobalInvocationID.x < pc.n) atomicAdd(words[1], 1u); }
"""


@needs_cross
def test_raw_glsl_kernel(ctx):
    k = vp.kernel(GLSL, buffers=2, push=[("n", "uint32"), ("s", "float32")])
    a = vp.asarray(np.arange(100, dtype=np.float32))
    b = vp.zeros(100)
    k(a, b, dispatch=100, n=100, s=3.0)
    np.testing.assert_array_equal(b.numpy(), 3 * np.arange(100, dtype=np.float32))
    assert k.glsl == GLSL and k.spirv[:4] == b"\x03\x02\x23\x07"


@needs_cross
def test_raw_glsl_mismatches_are_named(ctx):
    with pytest.raises(ValueError, match="declared buffers=3 but the shader has 2"):
        vp.kernel(GLSL, buffers=3, push=[("n", "uint32"), ("s", "float32")])
    with pytest.raises(ValueError, match="push constant 1 is 's'.*declared 'dt'"):
        vp.kernel(GLSL, buffers=2, push=[("n", "uint32"), ("dt", "float32")])
    with pytest.raises(TypeError, match="'s' is float32 in the shader, declared uint32"):
        vp.kernel(GLSL, buffers=2, push=[("n", "uint32"), ("s", "uint32")])
    with pytest.raises(ValueError, match="declared 1 push constant"):
        vp.kernel(GLSL, buffers=2, push=[("n", "uint32")])
    with pytest.raises(vp.CompileError, match="error"):
        vp.kernel("#version 450\nvoid main() { nope; }\n", buffers=0)


@needs_cross
def test_control_buffer_in_raw_glsl(ctx):
    control = vp.ControlBuffer(["mode", "hot_count"], words=16)
    k = vp.kernel(GLSL_CONTROL, buffers=1, push=[("n", "uint32")])
    k(control, dispatch=300, n=300)
    assert control["hot_count"] == 300


def test_native_dispatch_results_and_argument_errors(ctx):
    # Kernel.dispatch itself (the Python path's call into the extension):
    # sync gives None, async a Ticket that keeps the buffers alive until it
    # is waited on; bad arguments raise and keep no reference to the list.
    import sys
    saxpy(vp.zeros(4), vp.zeros(4), dispatch=4, a=1.0)
    prog = saxpy.program()
    k = prog.native(vp.default_context())
    push = prog.packer.pack({"a": 2.0})
    x = vp.asarray(np.arange(64, dtype=np.float32))
    y = vp.zeros(64)
    bufs = [x.buffer, y.buffer]
    assert k.dispatch(bufs, push, 64, 1, 1, False, True) is None
    np.testing.assert_array_equal(y.numpy(), 2 * np.arange(64, dtype=np.float32))
    held = sys.getrefcount(y.buffer)
    t = k.dispatch(bufs, push, 64, 1, 1, False, False)
    name, during = type(t).__name__, sys.getrefcount(y.buffer)
    t.wait()
    done = t.done
    del t
    after = sys.getrefcount(y.buffer)  # (not in an assert: pytest's rewrite holds its operands)
    assert name == "Ticket" and during > held and done and after == held
    np.testing.assert_array_equal(y.numpy(), 4 * np.arange(64, dtype=np.float32))
    before = sys.getrefcount(bufs)
    with pytest.raises(TypeError, match="Buffer"):
        k.dispatch([x.buffer, "y"], push, 64, 1, 1, False, True)
    with pytest.raises(ValueError, match="32-bit"):
        k.dispatch(bufs, push, -1, 1, 1, False, True)
    with pytest.raises(TypeError):
        k.dispatch(bufs, 3, 64, 1, 1, False, True)
    with pytest.raises(TypeError, match="dispatch\\("):
        k.dispatch(bufs, push, 64, 1, 1, False)
    after = sys.getrefcount(bufs)
    assert after == before
