"""Lesson 3 - kernels: @vp.kernel, .vul.py files, raw GLSL (docs/tutorials/03-kernels.md)."""
import atexit
import os
import shutil
import tempfile

import numpy as np

import vulpy as vp


# A kernel is an annotated Python function: buffers, then push constants.
@vp.kernel(local_size_x=64)
def push_particles(pos: vp.Buffer[vp.vec4], vel: vp.Buffer[vp.vec4],
                   n: vp.uint32, dt: vp.float32):
    i    = vp.global_id()
    x    = vp.var(pos[i].xyz)
    v    = vp.var(vel[i].xyz)
    x[:] = x + v * dt
    pos[i] = vp.vec4(x, pos[i].w)


N = 1000                               # not a multiple of 64: the guard makes it exact
pos = np.random.default_rng(0).standard_normal((N, 4)).astype(np.float32)
vel = np.ones((N, 4), np.float32)
pos_v, vel_v = vp.asarray(pos), vp.asarray(vel)

push_particles(pos_v, vel_v, dispatch=N, n=N, dt=0.001)
want = pos.copy()
want[:, :3] += 0.001
np.testing.assert_allclose(pos_v.numpy(), want, rtol=1e-6)
print(push_particles.glsl)             # also .vir, .spirv, .cuda, .hip, .manifest

# NumPy arrays work too: uploaded before, written back after.
push_particles(pos, vel, dispatch=N, n=N, dt=0.001)
np.testing.assert_allclose(pos, want, rtol=1e-6)

# A .vul.py file compiled into a shader with named buffers.
src = '''
import vulpy as vp

class PushConstants:
    N:  uint32
    dt: float32

def main(pos: vp.Buffer[vp.float32], vel: vp.Buffer[vp.float32]):
    i: uint32 = vp.global_id()
    if i >= pc.N:
        return
    pos[i] = pos[i] + vel[i] * pc.dt
'''
tmp = tempfile.mkdtemp()
atexit.register(shutil.rmtree, tmp, True)
path = os.path.join(tmp, "my_kernel.vul.py")
with open(path, "w") as f:
    f.write(src)
pos_array = np.zeros(N, np.float32)
vel_array = np.ones(N, np.float32)
shader = vp.compile(path, local_size_x=256)     # path: "my_kernel.vul.py"
shader.allocate(pos=pos_array, vel=vel_array)   # sizes the buffers, moves no data
shader.upload("pos", pos_array)                 # allocate() moved nothing:
shader.upload("vel", vel_array)                 # upload every input
shader.run(dispatch=N, N=N, dt=0.5)
new_pos = shader.download("pos")
np.testing.assert_array_equal(new_pos, np.full(N, 0.5, np.float32))

# A control buffer: words the CPU and the GPU change atomically.
control = vp.ControlBuffer(["mode", "hot_count"], words=16)
HOT = control.index("hot_count")


@vp.kernel(local_size_x=64)
def count_hot(x: vp.Buffer[vp.float32], ctrl: vp.Control):
    i = vp.global_id()
    if x[i] > 0.5:
        vp.atomic_add(ctrl[HOT], 1)


xs = np.linspace(0, 1, 1001, dtype=np.float32)
count_hot(xs, control, dispatch=xs.size)
assert control["hot_count"] == int((xs > 0.5).sum())
print("hot cells:", control["hot_count"])

# Raw GLSL: compiled in-process, its interface checked against what we declare.
GLSL_SOURCE = """#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Pos { vec4 pos[]; };
layout(std430, binding = 1) buffer Vel { vec4 vel[]; };
layout(push_constant) uniform Push { uint n; float dt; } pc;
void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= pc.n) return;          // raw GLSL checks its own bound
    pos[i].xyz += vel[i].xyz * pc.dt;
}
"""
before = pos_v.numpy()
k = vp.kernel(GLSL_SOURCE, buffers=2, push=[("n", "uint32"), ("dt", "float32")])
k(pos_v, vel_v, dispatch=N, n=N, dt=0.001)
want = before.copy()
want[:, :3] += 0.001
np.testing.assert_allclose(pos_v.numpy(), want, rtol=1e-6)
print("lesson 3: OK")
