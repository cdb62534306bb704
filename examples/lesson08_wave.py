"""Lesson 8 - a 2-D wave / FDTD simulation, one dispatch per time step
(docs/tutorials/08-wave.md). The baseline that lesson 9 makes persistent.

    python examples/lesson08_wave.py [--size 96] [--steps 300] [--png FILE]

--size is the grid side (cells), --steps the time steps of each run, --png
writes a snapshot of the field. Exits non-zero when the simulation disagrees
with the discrete dispersion relation, with energy conservation, or with the
NumPy implementation of the same update.
"""
import argparse
import atexit
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

import vulpy as vp

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--size", type=int, default=96, help="grid side (cells)")
ap.add_argument("--steps", type=int, default=300, help="time steps per run")
ap.add_argument("--png", help="write a snapshot of the driven field here")
args = ap.parse_args()
NX = NY = args.size
S = 0.5                            # Courant number c dt / dx (2-D limit: 1/sqrt(2))


# Ez of Yee's TMz scheme with H eliminated: the second-order leapfrog
#   u[n+1] = 2 u[n] - u[n-1] + S^2 (u[i-1] + u[i+1] + u[j-1] + u[j+1] - 4 u[i, j])
# PEC walls hold the edge cells at 0; `drive` is added at cell `src` (a soft source).
@vp.kernel(local_size_x=16, local_size_y=16)
def wave_step(prev: vp.Buffer[vp.float32], cur: vp.Buffer[vp.float32],
              nxt: vp.Buffer[vp.float32], nx: vp.uint32, ny: vp.uint32,
              s2: vp.float32, src: vp.uint32, drive: vp.float32):
    x = vp.global_id(0)
    y = vp.global_id(1)
    i = y * nx + x
    if x == 0 or y == 0 or x == nx - 1 or y == ny - 1:
        nxt[i] = 0.0               # PEC wall: Ez = 0
        return
    lap = cur[i - 1] + cur[i + 1] + cur[i - nx] + cur[i + nx] - 4.0 * cur[i]
    u = 2.0 * cur[i] - prev[i] + s2 * lap
    if i == src:
        u = u + drive              # soft source: adds to the field, does not pin it
    nxt[i] = u


def numpy_step(prev, cur, src, drive):
    """The same update in NumPy, float32, the same order of operations."""
    nxt = np.zeros_like(cur)
    c = cur
    lap = c[1:-1, :-2] + c[1:-1, 2:] + c[:-2, 1:-1] + c[2:, 1:-1] - np.float32(4.0) * c[1:-1, 1:-1]
    nxt[1:-1, 1:-1] = np.float32(2.0) * c[1:-1, 1:-1] - prev[1:-1, 1:-1] + np.float32(S * S) * lap
    nxt.flat[src] += np.float32(drive)
    return nxt


def run(u_prev, u_cur, steps, src=0, drive=lambda n: 0.0, every=None):
    """Runs `steps` steps on the GPU, one dispatch each; returns the last field
    (and every `every`-th one)."""
    prev, cur = vp.asarray(u_prev), vp.asarray(u_cur)
    nxt = vp.empty_like(cur)
    frames = []
    for n in range(steps):
        wave_step(prev, cur, nxt, dispatch=(NX, NY), nx=NX, ny=NY, s2=S * S,
                  src=src, drive=drive(n), sync=False)
        prev, cur, nxt = cur, nxt, prev          # rotate: no copies
        if every and (n + 1) % every == 0:
            frames.append(cur.numpy())
    vp.default_context().synchronize()
    return cur.numpy(), prev.numpy(), frames


def energy(u_old, u_new):
    """The leapfrog's conserved energy between two steps (float64):
    |u[n+1] - u[n]|^2 + S^2 sum over edges of (D u[n+1]) (D u[n])."""
    a, b = u_old.astype(np.float64), u_new.astype(np.float64)
    e = ((b - a) ** 2).sum()
    for axis in (0, 1):
        e += S * S * (np.diff(b, axis=axis) * np.diff(a, axis=axis)).sum()
    return e


j, i = np.mgrid[0:NY, 0:NX]

# 1. A cavity mode: seeded exactly, it must oscillate at the frequency of the
#    discrete dispersion relation sin^2(w dt / 2) = S^2 (sin^2(kx dx/2) + sin^2(ky dx/2)).
mx, my = max(1, round(7 * (NX - 1) / 95)), max(1, round(5 * (NY - 1) / 95))  # k dx fixed
kx, ky = mx * math.pi / (NX - 1), my * math.pi / (NY - 1)       # k dx
mode = (np.sin(kx * i) * np.sin(ky * j)).astype(np.float32)
w_discrete = 2 * math.asin(S * math.sqrt(math.sin(kx / 2) ** 2 + math.sin(ky / 2) ** 2))
w_continuum = S * math.hypot(kx, ky)                              # w dt of the PDE
u_prev = (math.cos(w_discrete) * mode).astype(np.float32)         # u at step -1
every = 5
_, _, frames = run(u_prev, mode, args.steps, every=every)
amp = np.array([(f * mode).sum() / (mode * mode).sum() for f in frames])
n = every * np.arange(1, len(frames) + 1)
err_discrete = np.abs(amp - np.cos(n * w_discrete)).max()
err_continuum = np.abs(amp - np.cos(n * w_continuum)).max()
period = 2 * math.pi / w_discrete
print(f"mode ({mx},{my}): period {period:.3f} steps (the PDE's: {2 * math.pi / w_continuum:.3f}); "
      f"max |a(n) - cos(n w dt)| = {err_discrete:.1e} (PDE's w: {err_continuum:.1e})")
assert err_discrete < 1e-4, err_discrete
if args.steps >= 100:
    assert err_continuum > 10 * err_discrete  # the check tells the two apart

# 2. Energy: a Gaussian pulse at rest bounces around the PEC box; the discrete
#    energy stays what it was.
pulse = np.exp(-((i - 0.4 * NX) ** 2 + (j - 0.5 * NY) ** 2) / (0.05 * NX) ** 2).astype(np.float32)
pulse[0, :] = pulse[-1, :] = pulse[:, 0] = pulse[:, -1] = 0
u_last, u_before, _ = run(pulse, pulse, args.steps)
e0, e1 = energy(pulse, pulse), energy(u_before, u_last)
drift = abs(e1 - e0) / e0
print(f"pulse: energy {e0:.6f} -> {e1:.6f} after {args.steps} steps (relative drift {drift:.1e})")
assert drift < 1e-5, drift

# 3. A soft source (a Gaussian-modulated sine) against NumPy, step for step.
src = (NY // 3) * NX + NX // 3
f0, t0, tw = 0.05, 40.0, 15.0                                     # cycles/step, steps


def drive(n):
    return math.sin(2 * math.pi * f0 * n) * math.exp(-((n - t0) / tw) ** 2)


zero = np.zeros((NY, NX), np.float32)
u_gpu, _, _ = run(zero, zero, args.steps, src=src, drive=drive)
a, b = zero, zero
for n in range(args.steps):
    a, b = b, numpy_step(a, b, src, drive(n))
diff = np.abs(u_gpu - b).max() / np.abs(b).max()
print(f"driven: GPU vs NumPy, max difference {diff:.1e} of the field's peak")
assert diff < 1e-5, diff


# 4. Speed: one dispatch per step on this device, against NumPy.
def timed(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


t_gpu = timed(lambda: run(zero, zero, args.steps, src=src, drive=drive))
t_np = timed(lambda: [numpy_step(zero, zero, src, 0.0) for _ in range(args.steps)])
cells = NX * NY * args.steps
print(f"device: {vp.default_context().name}")
print(f"{NX}x{NY}, {args.steps} steps: vulpy {t_gpu / args.steps * 1e6:.0f} us/step "
      f"({cells / t_gpu / 1e6:.1f} Mcells/s), numpy {t_np / args.steps * 1e6:.0f} us/step "
      f"({t_np / t_gpu:.2f}x)")

# 5. The picture: the driven field as the last step left it.
PLOT = """
import sys, numpy as np, matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
u = np.load(sys.argv[1]); steps = sys.argv[3]
m = np.abs(u).max()
fig, ax = plt.subplots(figsize=(5, 4.4), dpi=100)
im = ax.imshow(u, cmap="RdBu_r", vmin=-m, vmax=m, origin="lower")
ax.set_title(f"Ez after {steps} steps: soft source, PEC walls")
ax.set_xlabel("x (cells)"); ax.set_ylabel("y (cells)")
fig.colorbar(im, ax=ax, shrink=0.85)
fig.tight_layout(); fig.savefig(sys.argv[2])
"""
if args.png:
    tmp = tempfile.mkdtemp()
    atexit.register(shutil.rmtree, tmp, True)
    npy = os.path.join(tmp, "ez.npy")
    np.save(npy, u_gpu)
    try:
        import matplotlib  # noqa: F401
        py = sys.executable
    except ImportError:    # the .venv has none: Debian's python3-matplotlib draws it
        py = "/usr/bin/python3"
    subprocess.run([py, "-c", PLOT, npy, args.png, str(args.steps)], check=True)
    print("wrote", args.png)
print("lesson 8: OK")
