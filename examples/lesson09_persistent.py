"""Lesson 9 - lesson 8's 2-D wave with the time loop on the GPU: one
persistent dispatch, a grid barrier between steps, steered live
(docs/tutorials/09-persistent.md).

    python examples/lesson09_persistent.py [--size 96] [--steps 300] [--png FILE]

--size is the grid side (cells), --steps the time steps of each run, --png
writes a picture of the live run (its field and the source it applied). Exits
non-zero when the persistent run differs from the stepped form of the same
kernel (bit for bit), from lesson 8's one dispatch per step or from NumPy
(to rounding), or when the live steering is not what the GPU logged.
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
ap.add_argument("--png", help="write a picture of the live run here")
args = ap.parse_args()
NX = NY = args.size
N = NX * NY
S = 0.5                            # Courant number c dt / dx (2-D limit: 1/sqrt(2))
LOCAL = 256


# The whole simulation in one dispatch. `u` holds three fields, slots 0..2:
# at step t, u[n-1] is slot t % 3, u[n] slot (t+1) % 3 and u[n+1] is written
# to slot (t+2) % 3 - lesson 8's rotation of names, done with offsets.
# `drive[t]` is the soft source's value at step t (made on the host, as in
# lesson 8); the control word `gain` scales it, `used[t]` logs what step t saw.
@vp.kernel(persistent=True, local_size_x=LOCAL, control_words={"ctrl": ["gain"]})
def wave(u: vp.Buffer[vp.float32], drive: vp.Buffer[vp.float32], used: vp.Buffer[vp.uint32],
         ctrl: vp.Control, nx: vp.uint32, ny: vp.uint32, s2: vp.float32, src: vp.uint32,
         first: vp.uint32, last: vp.uint32):
    for t in range(first, last):               # the time loop, on the GPU
        n = nx * ny
        prev = (t % 3) * n
        cur = ((t + 1) % 3) * n
        nxt = ((t + 2) % 3) * n
        for x, y in vp.grid_range(nx, ny):     # every cell, whatever the group count
            i = y * nx + x
            if x == 0 or y == 0 or x == nx - 1 or y == ny - 1:
                u[nxt + i] = 0.0               # PEC wall: Ez = 0
            else:
                c = cur + i
                lap = u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx] - 4.0 * u[c]
                v = 2.0 * u[c] - u[prev + i] + s2 * lap
                if i == src:
                    v = v + vp.float32(ctrl.gain) * drive[t]   # steered: same grid-wide
                    used[t] = ctrl.gain
                u[nxt + i] = v
        vp.grid_sync()                         # step t is written everywhere, then t + 1


# Lesson 8's kernel, unchanged: the baseline, one dispatch per step.
@vp.kernel(local_size_x=16, local_size_y=16)
def wave_step(prev: vp.Buffer[vp.float32], cur: vp.Buffer[vp.float32],
              nxt: vp.Buffer[vp.float32], nx: vp.uint32, ny: vp.uint32,
              s2: vp.float32, src: vp.uint32, drive: vp.float32):
    x = vp.global_id(0)
    y = vp.global_id(1)
    i = y * nx + x
    if x == 0 or y == 0 or x == nx - 1 or y == ny - 1:
        nxt[i] = 0.0
        return
    lap = cur[i - 1] + cur[i + 1] + cur[i - nx] + cur[i + nx] - 4.0 * cur[i]
    u = 2.0 * cur[i] - prev[i] + s2 * lap
    if i == src:
        u = u + drive
    nxt[i] = u


def numpy_step(prev, cur, src, drive):
    """The same update in NumPy, float32, the same order of operations."""
    nxt = np.zeros_like(cur)
    c = cur
    lap = c[1:-1, :-2] + c[1:-1, 2:] + c[:-2, 1:-1] + c[2:, 1:-1] - np.float32(4.0) * c[1:-1, 1:-1]
    nxt[1:-1, 1:-1] = np.float32(2.0) * c[1:-1, 1:-1] - prev[1:-1, 1:-1] + np.float32(S * S) * lap
    nxt.flat[src] += np.float32(drive)
    return nxt


src = (NY // 3) * NX + NX // 3
f0, t0, tw = 0.05, 40.0, 15.0                                     # cycles/step, steps


def drive_at(n):
    return math.sin(2 * math.pi * f0 * n) * math.exp(-((n - t0) / tw) ** 2)


# Lavapipe runs one group (one CPU thread) and stops every loop of an
# invocation after 65,535 back-edges in all: a launch gets at most `chunk`
# steps, and longer runs are several launches, each resuming at `first`.
ctx = vp.default_context()
lavapipe = ctx.info.get("driver_name") == "llvmpipe"
per_step = -(-N // LOCAL) + 2                    # grid-stride trips a step, and the barriers
chunk = max(1, 50_000 // per_step) if lavapipe else 1 << 30


def persistent_run(steps, mode="persistent", gain=1):
    """`steps` steps of the driven wave in persistent launches (or `mode`);
    returns the last field and the gains the steps used."""
    u = vp.zeros(3 * N, np.float32)
    drive = vp.asarray(np.array([drive_at(n) for n in range(steps)], np.float32))
    used = vp.zeros(max(steps, 1), np.uint32)
    ctrl = vp.ControlBuffer(["gain"])
    ctrl["gain"] = gain
    for first in range(0, steps, chunk):
        wave(u, drive, used, ctrl, nx=NX, ny=NY, s2=S * S, src=src,
             first=first, last=min(steps, first + chunk), mode=mode)
    return u.numpy()[((steps + 1) % 3) * N:][:N].reshape(NY, NX), used.numpy()


def stepped_run(steps):
    """Lesson 8's loop: one dispatch per step from the host."""
    prev, cur = vp.zeros((NY, NX), np.float32), vp.zeros((NY, NX), np.float32)
    nxt = vp.empty_like(cur)
    for n in range(steps):
        wave_step(prev, cur, nxt, dispatch=(NX, NY), nx=NX, ny=NY, s2=S * S,
                  src=src, drive=drive_at(n), sync=False)
        prev, cur, nxt = cur, nxt, prev
    ctx.synchronize()
    return cur.numpy()


def numpy_run(steps, gains):
    a = b = np.zeros((NY, NX), np.float32)
    for n in range(steps):
        d = np.float32(np.float32(gains[n]) * np.float32(drive_at(n)))
        a, b = b, numpy_step(a, b, src, d)
    return b


# 1. One persistent dispatch against the same kernel's stepped form (one
#    dispatch per phase, made by the compiler): the same bits.
steps = args.steps
u_pers, used = persistent_run(steps)
u_step, _ = persistent_run(steps, mode="stepped")
same = np.array_equal(u_pers.view(np.uint32), u_step.view(np.uint32))
print(f"persistent vs stepped form: {'bit for bit equal' if same else 'DIFFERENT'}")
assert same

# 2. Against lesson 8's host loop and against NumPy: equal to rounding.
peak = np.abs(u_pers).max()
d8 = np.abs(u_pers - stepped_run(steps)).max() / peak
dnp = np.abs(u_pers - numpy_run(steps, used)).max() / peak
print(f"persistent vs lesson 8: max difference {d8:.1e} of the peak; vs NumPy: {dnp:.1e}")
assert d8 < 1e-5 and dnp < 1e-5, (d8, dnp)

# 3. Live: launch a long run without waiting, watch its progress, turn the
#    source up while it runs, then stop it - and resume it where it stopped.
long = min(chunk, 20 * steps)
u = vp.zeros(3 * N, np.float32)
drive = vp.asarray(np.array([drive_at(n) for n in range(long)], np.float32))
used = vp.zeros(long, np.uint32)
ctrl = vp.ControlBuffer(["gain"])
ctrl["gain"] = 1
h = wave(u, drive, used, ctrl, nx=NX, ny=NY, s2=S * S, src=src, first=0, last=long,
         sync=False)                         # returns at once: the GPU runs the loop
while h.steps < 20 and not h.done:           # the GPU publishes steps done
    time.sleep(0)
ctrl["gain"] = 3                             # seen from the next step boundary on
while h.steps < long // 2 and not h.done:
    time.sleep(0)
h.stop()                                     # the loop ends at the next step boundary
h.wait(timeout=60)
done = h.steps
log = used.numpy()[:done]
switch = int(np.argmax(log == 3)) if (log == 3).any() else "never (the run ended first)"
print(f"live: gain 1 -> 3 at step {switch}, stopped after {done} of "
      f"{long} steps ({h.mode}, {h.admitted} group(s), {h.barriers} grid barriers)")
assert set(np.unique(log)) <= {1, 3} and (np.diff(log.astype(np.int64)) >= 0).all()
if done < long:                              # resume: the same kernel from step `done`
    wave(u, drive, used, ctrl, nx=NX, ny=NY, s2=S * S, src=src, first=done, last=long)
got = u.numpy()[((long + 1) % 3) * N:][:N].reshape(NY, NX)
want = numpy_run(long, used.numpy())
dlive = np.abs(got - want).max() / np.abs(want).max()
print(f"live: stopped + resumed run vs NumPy replay of the logged gains: {dlive:.1e} of the peak")
assert dlive < 1e-5, dlive


# 4. Speed: one dispatch (per chunk) against one dispatch per step.
def timed(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


t_pers = timed(lambda: persistent_run(steps))
t_phase = timed(lambda: persistent_run(steps, mode="stepped"))
t_host = timed(lambda: stepped_run(steps))
print(f"device: {ctx.name}")
print(f"{NX}x{NY}, {steps} steps, us/step: persistent {t_pers / steps * 1e6:.0f}, "
      f"stepped form {t_phase / steps * 1e6:.0f}, lesson 8 loop {t_host / steps * 1e6:.0f}")

# 5. The picture: the live run's field, and the source the GPU applied each
#    step (the logged gain times the drive), with the stop and resume marked.
PLOT = """
import sys, numpy as np, matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
d = np.load(sys.argv[1]); u, src, done = d["u"], d["src"], int(d["done"])
fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4.2), dpi=100,
                           gridspec_kw={"width_ratios": [1, 1.3]})
m = np.abs(u).max()
im = a.imshow(u, cmap="RdBu_r", vmin=-m, vmax=m, origin="lower")
a.set_title(f"Ez after {len(src)} steps (one persistent dispatch + resume)", fontsize=9)
a.set_xlabel("x (cells)"); a.set_ylabel("y (cells)")
fig.colorbar(im, ax=a, shrink=0.85)
b.plot(d["drive"], "--", color="0.6", lw=1, label="the drive, gain 1 (no steering)")
b.plot(src, lw=1.2, label="applied: logged gain x drive")
sw = np.flatnonzero(d["gain"] == 3)
if len(sw):
    b.axvline(sw[0], color="k", ls=":", lw=0.8)
    b.annotate(f" host: gain = 3, seen at step {sw[0]}", (sw[0], b.get_ylim()[0] * 0.8), fontsize=8)
b.set_xlim(0, min(len(src), 100)); b.set_xlabel("step"); b.set_ylabel("source value")
b.set_title(f"the soft source, steered live; h.stop() at step {done} of {len(src)}, then resumed",
            fontsize=9)
b.legend(fontsize=8, loc="upper right")
fig.tight_layout(); fig.savefig(sys.argv[2])
"""
if args.png:
    tmp = tempfile.mkdtemp()
    atexit.register(shutil.rmtree, tmp, True)
    npz = os.path.join(tmp, "live.npz")
    d = np.array([drive_at(n) for n in range(long)])
    np.savez(npz, u=got, src=used.numpy() * d, drive=d, gain=used.numpy(), done=done)
    try:
        import matplotlib  # noqa: F401
        py = sys.executable
    except ImportError:    # the .venv has none: Debian's python3-matplotlib draws it
        py = "/usr/bin/python3"
    subprocess.run([py, "-c", PLOT, npz, args.png], check=True)
    print("wrote", args.png)
print("lesson 9: OK")
