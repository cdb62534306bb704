"""Lesson 4 - @vp.kernel: your own kernel; invocation ids, the dispatch grid,
push constants (docs/tutorials/04-dispatch.md).

    python examples/lesson04_dispatch.py [--size 256] [--steps 200] [--png FILE]

--size is the side of the 2-D image, --steps the number of calls timed,
--png draws the ids of part 1 (which workgroup ran each pixel).
Exits non-zero when a result disagrees with NumPy.
"""
import argparse
import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

import vulpy as vp

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--size", type=int, default=256, help="image side (pixels)")
ap.add_argument("--steps", type=int, default=200, help="calls timed")
ap.add_argument("--png", help="draw the workgroup of each pixel here")
args = ap.parse_args()


# 0. The seed's kernel: buffers positionally, push constants by keyword.
@vp.kernel(local_size_x=64)
def push_particles(pos: vp.Buffer[vp.vec4], vel: vp.Buffer[vp.vec4],
                   n: vp.uint32, dt: vp.float32):
    i    = vp.global_id()
    x    = vp.var(pos[i].xyz)
    v    = vp.var(vel[i].xyz)
    x[:] = x + v * dt
    pos[i] = vp.vec4(x, pos[i].w)


N = 1000                           # not a multiple of 64: the guard makes it exact
pos = np.random.default_rng(0).standard_normal((N, 4)).astype(np.float32)
vel = np.ones((N, 4), np.float32)
pos_v, vel_v = vp.asarray(pos), vp.asarray(vel)

push_particles(pos_v, vel_v, dispatch=N, n=N, dt=0.001)
want = pos.copy()
want[:, :3] += 0.001
np.testing.assert_allclose(pos_v.numpy(), want, rtol=1e-6)

# NumPy arrays work too: uploaded before, written back after.
push_particles(pos, vel, dispatch=N, n=N, dt=0.001)
np.testing.assert_allclose(pos, want, rtol=1e-6)
print("push_particles: 1000 particles moved, resident and NumPy arrays alike")


# 1. Who am I? Every invocation writes its three ids.
@vp.kernel(local_size_x=8, local_size_y=4)
def whoami(gid: vp.Buffer[vp.uvec2], lid: vp.Buffer[vp.uvec2],
           wid: vp.Buffer[vp.uvec2], w: vp.uint32):
    x = vp.global_id(0)
    y = vp.global_id(1)
    i = y * w + x                  # row-major pixel index
    gid[i] = vp.global_id().xy
    lid[i] = vp.local_id().xy
    wid[i] = vp.workgroup_id().xy


W, H = 20, 10                      # not multiples of the 8 x 4 workgroup
gid = vp.zeros((H * W, 2), dtype=np.uint32)
lid = vp.zeros((H * W, 2), dtype=np.uint32)
wid = vp.zeros((H * W, 2), dtype=np.uint32)
whoami(gid, lid, wid, dispatch=(W, H), w=W)

g, l, wg = gid.numpy(), lid.numpy(), wid.numpy()
ys, xs = np.mgrid[0:H, 0:W]
np.testing.assert_array_equal(g, np.stack([xs.ravel(), ys.ravel()], axis=1))
np.testing.assert_array_equal(g, wg * [8, 4] + l)   # global = workgroup * size + local
print("ids: global_id == workgroup_id * (8, 4) + local_id for all", W * H, "pixels")


# 2. dispatch= counts invocations; groups= counts workgroups.
@vp.kernel(local_size_x=64)
def mark(out: vp.Buffer[vp.uint32]):
    i = vp.global_id()
    out[i] = 1


out = vp.zeros(200, dtype=np.uint32)
mark(out, dispatch=100)            # exactly 100 invocations (the guard)
assert out.numpy().sum() == 100
out = vp.zeros(200, dtype=np.uint32)
mark(out, groups=(2, 1, 1))        # 2 workgroups of 64: 128 invocations
assert out.numpy().sum() == 128
print("dispatch=100 ran 100 invocations, groups=(2, 1, 1) ran 128")


# 3. Push constants: the scalars (and small vectors) of a call.
@vp.kernel(local_size_x=16, local_size_y=16)
def blob(img: vp.Buffer[vp.float32], w: vp.uint32, center: vp.vec2,
         sigma: vp.float32, amp: vp.float32):
    x = vp.global_id(0)
    y = vp.global_id(1)
    d = vp.vec2(vp.float32(x), vp.float32(y)) - center
    img[y * w + x] = amp * vp.exp(-vp.dot(d, d) / (2.0 * sigma * sigma))


n = args.size
img = vp.empty((n, n), dtype=np.float32)
blob(img, dispatch=(n, n), w=n, center=(0.3 * n, 0.6 * n), sigma=0.1 * n, amp=2.0)

yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
want = 2.0 * np.exp(-((xx - np.float32(0.3 * n)) ** 2 + (yy - np.float32(0.6 * n)) ** 2)
                    / np.float32(2.0 * (0.1 * n) ** 2))
np.testing.assert_allclose(img.numpy(), want, rtol=2e-5, atol=1e-30)
print(f"blob: {n}x{n} image matches NumPy")

# A push constant the call forgets, or one its type cannot hold, is an error.
try:
    blob(img, dispatch=(n, n), w=n, center=(0.0, 0.0), sigma=1.0)
except TypeError as e:
    print("error:", e)             # missing push constant 'amp' (f32)
try:
    blob(img, dispatch=(n, n), w=-1, center=(0.0, 0.0), sigma=1.0, amp=1.0)
except TypeError as e:
    print("error:", e)             # push constant 'w' (u32) cannot hold -1

# The push block as GLSL declares it: the hidden _vp_count is the guard's.
glsl = blob.glsl
print(glsl[glsl.index("layout(push_constant"):glsl.index("} pc;") + 5])


# 4. What a call costs: a tiny dispatch, and the image against NumPy.
def per_call(fn, steps):
    fn()                           # compile / warm up
    t = time.perf_counter()
    for _ in range(steps):
        fn()
    return (time.perf_counter() - t) / steps


tiny = vp.zeros(64, dtype=np.uint32)
t_tiny = per_call(lambda: mark(tiny, dispatch=64), args.steps)
t_gpu = per_call(lambda: blob(img, dispatch=(n, n), w=n, center=(0.3 * n, 0.6 * n),
                              sigma=0.1 * n, amp=2.0), args.steps)
c = np.float32(2.0 * (0.1 * n) ** 2)


def numpy_blob():
    return 2.0 * np.exp(-((xx - np.float32(0.3 * n)) ** 2 + (yy - np.float32(0.6 * n)) ** 2) / c)


t_np = per_call(numpy_blob, max(1, args.steps // 10))
print(f"device: {vp.default_context().name}")
print(f"tiny @vp.kernel call (64 invocations, synchronous): {t_tiny * 1e6:.1f} us")
print(f"blob {n}x{n}: vulpy {t_gpu * 1e3:.3f} ms, numpy {t_np * 1e3:.3f} ms "
      f"({t_np / t_gpu:.2f}x)")

# 5. The picture: each pixel coloured by the workgroup that ran it; the
# launched grid is 3 x 3 groups of 8 x 4 (24 x 12), the guard cut it to 20 x 10.
PLOT = """
import sys, numpy as np, matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.patches import Rectangle
wid = np.load(sys.argv[1]); H, W = wid.shape[:2]
group = wid[..., 1] * 3 + wid[..., 0]
fig, ax = plt.subplots(figsize=(7, 3.8), dpi=100)
ax.imshow(group, cmap="tab10", vmin=0, vmax=10, alpha=0.45,
          extent=(-0.5, W - 0.5, H - 0.5, -0.5))
for x0, y0, w, h in ((W - 0.5, -0.5, 24 - W, 12), (-0.5, H - 0.5, W, 12 - H)):
    ax.add_patch(Rectangle((x0, y0), w, h, facecolor="0.93", edgecolor="0.6", hatch="//", lw=0))
for gy in range(3):
    for gx in range(3):
        ax.add_patch(Rectangle((gx * 8 - 0.5, gy * 4 - 0.5), 8, 4, fill=False, lw=1.5))
        ax.text(gx * 8 + 3.5, gy * 4 + 1.5, f"workgroup ({gx},{gy})", ha="center", va="center",
                fontsize=8)
ax.set_xlim(-0.5, 23.5); ax.set_ylim(11.5, -0.5)
ax.set_xticks(range(0, 24, 2)); ax.set_yticks(range(0, 12, 2))
ax.set_xlabel("global_id(0) = x"); ax.set_ylabel("global_id(1) = y")
ax.set_title("dispatch=(20, 10), local size 8 x 4: 3 x 3 workgroups; the guard returns in the hatched part",
             fontsize=9)
fig.tight_layout(); fig.savefig(sys.argv[2])
"""
if args.png:
    tmp = tempfile.mkdtemp()
    atexit.register(shutil.rmtree, tmp, True)
    npy = os.path.join(tmp, "wid.npy")
    np.save(npy, wg.reshape(H, W, 2))
    try:
        import matplotlib  # noqa: F401
        py = sys.executable
    except ImportError:    # the .venv has none: Debian's python3-matplotlib draws it
        py = "/usr/bin/python3"
    subprocess.run([py, "-c", PLOT, npy, args.png], check=True)
    print("wrote", args.png)
print("lesson 4: OK")
