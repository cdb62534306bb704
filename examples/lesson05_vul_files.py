"""Lesson 5 - .vul.py files: vp.compile, the emitted GLSL (read and edited),
CUDA and HIP output (docs/tutorials/05-vul-files.md).

    python examples/lesson05_vul_files.py [--size 1000] [--steps 200]

--size is the number of cells, --steps the number of time steps.
Exits non-zero when a result disagrees with NumPy.
"""
import argparse
import atexit
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

import vulpy as vp

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--size", type=int, default=1000, help="cells")
ap.add_argument("--steps", type=int, default=200, help="time steps")
args = ap.parse_args()
N, STEPS, R = args.size, args.steps, 0.25
HERE = os.path.dirname(os.path.abspath(__file__))
KERNEL = os.path.join(HERE, "lesson05_heat.vul.py")


def numpy_step(u, r):
    """The same update in NumPy, float32 throughout."""
    unew = u.copy()
    unew[1:-1] = u[1:-1] + np.float32(r) * (u[:-2] - np.float32(2.0) * u[1:-1] + u[2:])
    return unew


# 0. The seed's .vul.py file, compiled into a shader with named buffers.
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
print("my_kernel.vul.py: pos += vel * dt with both inputs uploaded")


# 1. Compile the lesson's file and run it: named buffers, push constants by keyword.
shader = vp.compile(KERNEL)
u0 = np.zeros(N, np.float32)
u0[N // 2 - 5:N // 2 + 5] = 1.0                # a hot stripe in the middle
shader.allocate(u=u0, unew=u0)                 # sizes both buffers, moves no data
shader.upload("u", u0)
for step in range(STEPS):
    shader.run(dispatch=N, n=N, r=R)
    a, b = shader.buffer("u"), shader.buffer("unew")
    shader.bind("u", b)                        # swap: this step's output is
    shader.bind("unew", a)                     # the next step's input
u_gpu = shader.download("u")

u_np = u0.copy()
for step in range(STEPS):
    u_np = numpy_step(u_np, R)
np.testing.assert_allclose(u_gpu, u_np, rtol=1e-5, atol=1e-6)
# Heat flows but is not made: the total stays while the stripe is far from the walls.
print(f"{STEPS} steps on {N} cells match NumPy; heat {u_gpu.sum():.4f} (start {u0.sum():.4f})")


# 2. The GLSL it became, as the command line prints it.
def vulpy_cli(*argv):
    r = subprocess.run([sys.executable, "-m", "vulpy", *argv], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(r.stderr)
    return r.stdout


glsl = vulpy_cli("emit-glsl", "--no-dispatch-guard", KERNEL)
# shader.glsl has the dispatch guard (the hidden _vp_count push field);
# --no-dispatch-guard leaves it out, since this kernel checks i >= pc.n itself.
assert "_vp_count" in shader.glsl and "_vp_count" not in glsl
print(glsl[glsl.index("void main()"):])

# 3. Edit the GLSL and run it as a raw GLSL kernel: the left wall becomes a
# heater held at 1.0. Raw GLSL checks its own bound (this kernel does).
edited = glsl.replace("unew[i] = u[i];", "unew[i] = (i == 0u) ? 1.0 : u[i];")
assert edited != glsl
heater = vp.kernel(edited, buffers=["u", "unew"], push=[("n", "uint32"), ("r", "float32")])
u = vp.zeros(N, dtype=np.float32)
unew = vp.zeros(N, dtype=np.float32)
for step in range(STEPS):
    heater(u, unew, dispatch=N, n=N, r=R)
    u, unew = unew, u

want = np.zeros(N, np.float32)
for step in range(STEPS):
    want = numpy_step(want, R)
    want[0] = 1.0
np.testing.assert_allclose(u.numpy(), want, rtol=1e-5, atol=1e-6)
print(f"edited GLSL: heat entering from the left wall, {u.numpy().sum():.4f} after {STEPS} steps")

# 4. The same kernel as CUDA C++ and HIP: self-contained sources for nvcc / hipcc.
out = tempfile.mkdtemp()
atexit.register(shutil.rmtree, out, True)
for to, ext, marker in (("cuda", "cu", "__global__ void main_kernel"),
                        ("hip", "hip", "#include <hip/hip_runtime.h>")):
    src = vulpy_cli(f"emit-{to}", KERNEL)
    assert marker in src, (to, marker)
    path = os.path.join(out, f"heat.{ext}")
    with open(path, "w") as f:
        f.write(src)
    print(f"emit-{to}: {len(src.splitlines())} lines -> {path}")
cuda = shader.cuda
print(cuda[cuda.index("extern \"C\""):])
print("lesson 5: OK")
