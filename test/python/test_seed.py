"""Every snippet of the product description, as written there, checked
against NumPy.

The snippets are copied verbatim into SNIPPETS below and run from a file
(kernel decorators read their source, so they cannot run from exec'd
strings); what the description leaves undefined (N, pos_v, GLSL_SOURCE, ...)
is set up before, and the results are compared with NumPy after.
"""
import os
import runpy
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import vulpy as vp
from conftest import ROOT, needs_cross, needs_target

INTRO = '''
import numpy as np
import vulpy as vp

x = np.linspace(0.0, 1.0, 1_000_000, dtype=np.float32)
y = vp.sin(x) + vp.exp(x)   # GPU-accelerated, returns NumPy array
'''

CONVENIENCE = '''
x = np.linspace(0.0, 1.0, 1_000_000, dtype=np.float32)
y = vp.sin(x) + vp.exp(x)
'''

RESIDENT = '''
xv = vp.asarray(x)
yv = vp.empty_like(xv)
vp.sin(xv, out=yv)
result = yv.numpy_view()   # NumPy data pointer == Vulkan buffer pointer
'''

FUSION = '''
f = vp.jit(lambda a, b: vp.where(a > b, vp.sin(a), vp.cos(b)))
out = f(xv, xv * 0.5)
'''

DECORATOR = '''
@vp.kernel(local_size_x=64)
def push_particles(
    pos: vp.Buffer[vp.vec4],
    vel: vp.Buffer[vp.vec4],
    n:   vp.uint32,
    dt:  vp.float32,
):
    i    = vp.global_id()
    x    = vp.var(pos[i].xyz)
    v    = vp.var(vel[i].xyz)
    x[:] = x + v * dt
    pos[i] = vp.vec4(x, pos[i].w)

push_particles(pos_v, vel_v, dispatch=N, n=N, dt=0.001)
'''

VUL_FILE = '''
# my_kernel.vul.py
import vulpy as vp

class PushConstants:
    N:  uint32
    dt: float32

def main(pos: vp.Buffer[vp.float64], vel: vp.Buffer[vp.float64]):
    i: uint32 = vp.global_id()
    if i >= pc.N:
        return
    pos[i] = pos[i] + vel[i] * pc.dt
'''

VUL_HOST = '''
shader = vp.compile("my_kernel.vul.py", local_size_x=256, context=ctx)
shader.allocate(pos=pos_array, vel=vel_array)   # sizes the buffers — no data moves
shader.upload("pos", pos_array)
shader.upload("vel", vel_array)
shader.run(dispatch=N, N=N, dt=0.001)
'''

RAW_GLSL = '''
k = vp.kernel(
    GLSL_SOURCE,
    buffers=2,
    push=[("n", "uint32"), ("dt", "float32")],
)
k(pos, vel, dispatch=N, n=N, dt=0.001)
'''

CONTROL = '''
control = vp.ControlBuffer(["mode", "hot_count"], words=16)
control["hot_count"] = 0
# GPU kernel: atomicAdd(control[hot_count], 1)
print(control["hot_count"])
'''

DEVICES = [
    "vp.list_devices()                    # list all Vulkan devices",
    "ctx = vp.Context()                   # default device",
    "ctx = vp.Context(device_index=1)     # by index",
    'ctx = vp.Context(kind="dgpu")        # discrete GPU',
    'ctx = vp.Context(kind="igpu")        # integrated GPU',
]

GLSL_SOURCE = """#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Pos { vec4 pos[]; };
layout(std430, binding = 1) buffer Vel { vec4 vel[]; };
layout(push_constant) uniform Push { uint n; float dt; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.n) return;
    pos[i].xyz += vel[i].xyz * pc.dt;
}
"""


def run_snippet(tmp_path, code, name="snippet", **env):
    """Runs `code` from a file in tmp_path with `env` as its globals; returns them."""
    path = tmp_path / f"{name}.py"
    path.write_text("import numpy as np\nimport vulpy as vp\n" + textwrap.dedent(code))
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        return runpy.run_path(str(path), init_globals=env)
    finally:
        os.chdir(cwd)


def sin_exp(x):
    return np.sin(x) + np.exp(x)


@needs_target
def test_intro_and_convenience(ctx, tmp_path):
    for code in (INTRO, CONVENIENCE):
        g = run_snippet(tmp_path, code)
        assert isinstance(g["y"], np.ndarray) and g["y"].dtype == np.float32
        np.testing.assert_allclose(g["y"], sin_exp(g["x"]), rtol=2e-6, atol=1e-6)


@needs_target
def test_resident(ctx, tmp_path):
    x = np.linspace(0.0, 1.0, 1_000_000, dtype=np.float32)
    g = run_snippet(tmp_path, RESIDENT, x=x)
    result, yv = g["result"], g["yv"]
    np.testing.assert_allclose(result, np.sin(x), rtol=2e-6, atol=1e-7)
    # the promise in the comment: NumPy data pointer == Vulkan buffer pointer
    assert result.__array_interface__["data"][0] == yv.buffer.address


@needs_target
def test_fusion(ctx, tmp_path):
    x = np.linspace(0.0, 1.0, 1000, dtype=np.float32)
    g = run_snippet(tmp_path, FUSION, xv=vp.asarray(x))
    a, b = x, x * np.float32(0.5)
    np.testing.assert_allclose(np.asarray(g["out"]), np.where(a > b, np.sin(a), np.cos(b)),
                               rtol=2e-6, atol=1e-7)


@needs_target
@pytest.mark.parametrize("N", [1000, 64, 1])
def test_kernel_decorator(ctx, tmp_path, N):
    rng = np.random.default_rng(N)
    pos = rng.standard_normal((N, 4)).astype(np.float32)
    vel = rng.standard_normal((N, 4)).astype(np.float32)
    pos_v, vel_v = vp.asarray(pos), vp.asarray(vel)
    run_snippet(tmp_path, DECORATOR, N=N, pos_v=pos_v, vel_v=vel_v)
    want = pos.copy()
    want[:, :3] += vel[:, :3] * np.float32(0.001)
    np.testing.assert_allclose(pos_v.numpy(), want, rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(vel_v.numpy(), vel)


@needs_target
def test_vul_py_source_mode(ctx, tmp_path):
    if not ctx.has("float64"):
        pytest.skip("the seed's .vul.py example is float64")
    (tmp_path / "my_kernel.vul.py").write_text(VUL_FILE.lstrip("\n"))
    N = 1000
    rng = np.random.default_rng(2)
    pos_array, vel_array = rng.standard_normal(N), rng.standard_normal(N)
    g = run_snippet(tmp_path, VUL_HOST, ctx=ctx, N=N, pos_array=pos_array, vel_array=vel_array)
    want = pos_array + vel_array * np.float64(np.float32(0.001))
    np.testing.assert_allclose(g["shader"].download("pos"), want, rtol=1e-15)
    # the comment's promise: allocate() sizes the buffers, no data moves
    first = VUL_HOST.strip().splitlines()[:2]
    g = run_snippet(tmp_path, "\n".join(first), name="alloc", ctx=ctx, pos_array=pos_array,
                    vel_array=vel_array)
    for name in ("pos", "vel"):
        got = g["shader"].download(name)
        assert got.shape == (N,) and got.dtype == np.float64 and not got.any()
    # inspect the shader: python -m vulpy emit-glsl my_kernel.vul.py
    out = subprocess.run([sys.executable, "-m", "vulpy", "emit-glsl", "my_kernel.vul.py"],
                         cwd=tmp_path, capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT / "bindings" / "python")))
    assert out.returncode == 0, out.stderr
    assert "#version 450" in out.stdout and "void main" in out.stdout


@needs_cross
def test_raw_glsl(ctx, tmp_path):
    N = 100
    rng = np.random.default_rng(3)
    p, v = rng.standard_normal((N, 4)).astype(np.float32), rng.standard_normal((N, 4)).astype(np.float32)
    pos, vel = vp.asarray(p), vp.asarray(v)
    run_snippet(tmp_path, RAW_GLSL, GLSL_SOURCE=GLSL_SOURCE, pos=pos, vel=vel, N=N)
    want = p.copy()
    want[:, :3] += v[:, :3] * np.float32(0.001)
    np.testing.assert_allclose(pos.numpy(), want, rtol=1e-6)


def test_control_buffer(ctx, tmp_path, capsys):
    g = run_snippet(tmp_path, CONTROL)
    assert capsys.readouterr().out.strip() == "0"
    control = g["control"]
    assert control.words == 16 and control["mode"] == 0


@needs_target
def test_control_buffer_from_a_kernel(ctx, tmp_path):
    """The comment's GPU side: atomicAdd(control[hot_count], 1), N times."""
    code = CONTROL + '''
HOT_COUNT = control.index("hot_count")

@vp.kernel(local_size_x=64)
def count_hot(x: vp.Buffer[vp.float32], ctrl: vp.Control):
    i = vp.global_id()
    if x[i] > 0.5:
        vp.atomic_add(ctrl[HOT_COUNT], 1)

count_hot(xs, control, dispatch=len(xs))
'''
    xs = np.linspace(0, 1, 1001, dtype=np.float32)
    g = run_snippet(tmp_path, code, xs=xs)
    assert g["control"]["hot_count"] == int((xs > 0.5).sum())


def test_device_selection(tmp_path):
    devs = vp.list_devices()
    kinds = {d["kind"] for d in devs}
    for line in DEVICES:
        wanted = ("device_index=1" in line and len(devs) < 2) or \
                 ('"dgpu"' in line and "dgpu" not in kinds) or \
                 ('"igpu"' in line and "igpu" not in kinds)
        if wanted:  # this machine lacks the device: a clean error, naming it
            with pytest.raises(vp.VulkanError):
                run_snippet(tmp_path, line)
        else:
            run_snippet(tmp_path, line)
