"""Lesson 10 - lesson 9's persistent 2-D wave streams frames live to a plot
through a vp.MemSock while the time loop runs on the GPU
(docs/tutorials/10-memsock.md).

    python examples/lesson10_memsock.py [--size 64] [--steps 240] [--every 8]
                                        [--out DIR] [--show] [--png FILE]

--size is the grid side (cells), --steps the time steps, --every the steps
between two frames. Frames are drawn as they arrive: PNG files in --out
(a temporary folder by default; matplotlib when installed, else PPM images
written with NumPy), or a window with --show. --png writes the lesson's
picture. Exits non-zero when a frame differs from the simulation's state at
its step (lesson 8's one dispatch per step, and NumPy), or when a channel's
counts do not add up.
"""
import argparse
import atexit
import math
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

import vulpy as vp

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--size", type=int, default=64, help="grid side (cells)")
ap.add_argument("--steps", type=int, default=240, help="time steps")
ap.add_argument("--every", type=int, default=8, help="steps between two frames")
ap.add_argument("--out", help="folder for the frames (default: a temporary one)")
ap.add_argument("--show", action="store_true", help="draw the frames in a window")
ap.add_argument("--png", help="write the lesson's picture here")
args = ap.parse_args()
NX = NY = args.size
N = NX * NY
S = 0.5                            # Courant number c dt / dx (2-D limit: 1/sqrt(2))
LOCAL = 256
STEPS, EVERY = args.steps, args.every


# Lesson 9's kernel, with its steering left out and one thing added: every
# `every` steps, after the grid barrier, the whole field is fired into the
# pipe as one frame, stamped with its step number.
@vp.kernel(persistent=True, local_size_x=LOCAL)
def wave(u: vp.Buffer[vp.float32], drive: vp.Buffer[vp.float32], pipe: vp.MemSock[vp.float32],
         nx: vp.uint32, ny: vp.uint32, s2: vp.float32, src: vp.uint32, first: vp.uint32,
         last: vp.uint32, every: vp.uint32):
    for t in range(first, last):               # the time loop, on the GPU
        n = nx * ny
        prev = (t % 3) * n
        cur = ((t + 1) % 3) * n
        nxt = ((t + 2) % 3) * n
        for x, y in vp.grid_range(nx, ny):
            i = y * nx + x
            if x == 0 or y == 0 or x == nx - 1 or y == ny - 1:
                u[nxt + i] = 0.0               # PEC wall: Ez = 0
            else:
                c = cur + i
                lap = u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx] - 4.0 * u[c]
                v = 2.0 * u[c] - u[prev + i] + s2 * lap
                if i == src:
                    v = v + drive[t]
                u[nxt + i] = v
        vp.grid_sync()                         # step t is written everywhere

        def frame(step: vp.uint32):            # runs only if the pipe takes the frame
            for x, y in vp.grid_range(nx, ny):
                i = y * nx + x
                pipe[i] = u[nxt + i]

        if (t + 1) % every == 0:               # the same t in every invocation
            pipe.fire(frame, step=t + 1)


# Lesson 8's kernel, unchanged: the reference, one dispatch per step.
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


src = (NY // 3) * NX + NX // 3
f0, t0, tw = 0.05, 40.0, 15.0                                     # cycles/step, steps


def drive_at(n):
    return math.sin(2 * math.pi * f0 * n) * math.exp(-((n - t0) / tw) ** 2)


ctx = vp.default_context()
lavapipe = ctx.info.get("driver_name") == "llvmpipe"
# Lavapipe runs one group and ends an invocation's loops after 65,535
# back-edges (lesson 9): at most `chunk` steps a launch there (GPUs: 64
# frames a launch). The ring holds every frame of one launch, so `block`
# never makes the kernel wait for the plot inside a dispatch: lavapipe
# cannot wait long for the host (docs/memsock.md). Each launch returns once
# its frames were delivered.
per_step = -(-N // LOCAL) + 2 + -(-N // LOCAL) // EVERY + 1
chunk = max(EVERY, 40_000 // per_step // EVERY * EVERY) if lavapipe else 64 * EVERY
ring = min(chunk, STEPS) // EVERY + 1


def reference():
    """Lesson 8's loop: the state after every `EVERY`-th step, {step: field}."""
    prev, cur = vp.zeros((NY, NX), np.float32), vp.zeros((NY, NX), np.float32)
    nxt = vp.empty_like(cur)
    want = {}
    for n in range(STEPS):
        wave_step(prev, cur, nxt, dispatch=(NX, NY), nx=NX, ny=NY, s2=S * S,
                  src=src, drive=drive_at(n))
        prev, cur, nxt = cur, nxt, prev
        if (n + 1) % EVERY == 0:
            want[n + 1] = cur.numpy()
    return want


def numpy_field(steps):
    """NumPy's state after `steps` steps (the same float32 arithmetic)."""
    a = b = np.zeros((NY, NX), np.float32)
    for n in range(steps):
        c = np.zeros_like(b)
        lap = b[1:-1, :-2] + b[1:-1, 2:] + b[:-2, 1:-1] + b[2:, 1:-1] - np.float32(4) * b[1:-1, 1:-1]
        c[1:-1, 1:-1] = np.float32(2) * b[1:-1, 1:-1] - a[1:-1, 1:-1] + np.float32(S * S) * lap
        c.flat[src] += np.float32(drive_at(n))
        a, b = b, c
    return b


def simulate(pipe, every=EVERY, on_launch=None):
    """The persistent run, in launches of at most `chunk` steps; calls
    on_launch(handle) while each launch runs (the live consumer)."""
    u = vp.zeros(3 * N, np.float32)
    drive = vp.asarray(np.array([drive_at(n) for n in range(STEPS)], np.float32))
    for first in range(0, STEPS, chunk):
        h = wave(u, drive, pipe, nx=NX, ny=NY, s2=S * S, src=src, first=first,
                 last=min(STEPS, first + chunk), every=every, sync=False)
        if on_launch is not None:
            on_launch(h)
        h.wait(timeout=120)
    return u


class Plot:
    """Draws frames as they arrive: matplotlib (a window with --show, else
    PNG files), or PPM images written with NumPy when matplotlib is missing."""

    def __init__(self, out, show):
        self.out, self.count, self.plt = out, 0, None
        try:
            import matplotlib
            if not show:
                matplotlib.use("Agg")
            import matplotlib.pyplot as plt
            self.plt = plt
            self.fig, ax = plt.subplots(figsize=(4, 4))
            self.im = ax.imshow(np.zeros((NY, NX)), cmap="RdBu_r", vmin=-0.3, vmax=0.3,
                                origin="lower")
            self.title = ax.set_title("")
        except ImportError:
            if show:
                print("--show needs matplotlib; writing PPM frames instead")
        self.show = show and self.plt is not None

    def draw(self, frame, step):
        self.count += 1
        if self.plt is not None:
            self.im.set_data(frame)
            self.title.set_text(f"Ez at step {step} (streamed live)")
            if self.show:
                self.plt.pause(0.001)
            else:
                self.fig.savefig(os.path.join(self.out, f"frame_{step:05d}.png"))
            return
        v = np.clip(frame / 0.3, -1, 1)           # blue - white - red, by hand
        rgb = np.stack([1 - np.clip(-v, 0, 1), 1 - abs(v), 1 - np.clip(v, 0, 1)], -1)
        with open(os.path.join(self.out, f"frame_{step:05d}.ppm"), "wb") as f:
            f.write(b"P6 %d %d 255\n" % (NX, NY) + (rgb[::-1] * 255).astype(np.uint8).tobytes())


out = args.out or tempfile.mkdtemp(prefix="vulpy-lesson10-")
if not args.out:
    atexit.register(shutil.rmtree, out, True)
os.makedirs(out, exist_ok=True)
want = reference()

# 1. Live: the simulation runs on the GPU; each frame goes through the pipe
#    to the poller thread, which hands a copy to the main thread to draw.
pipe = vp.MemSock(dtype=vp.float32, frame_shape=(NY, NX), payload={"step": vp.uint32})
frames = queue.Queue()
got = {}


@pipe.on("message")
def on_frame(frame, step):        # the poller thread; `frame` is the ring slot itself
    frames.put((step, frame.copy()))   # copy: the slot is reused once this returns


pipe.open(ctx, capacity=ring, policy="block")
plot = Plot(out, args.show)


def draw_while_running(h):
    while True:
        try:
            step, f = frames.get(timeout=0.01)
        except queue.Empty:
            if h.done:
                return
            continue
        got[step] = f
        plot.draw(f, step)


wave.program()                           # compile first: the timing below is the run
t = time.perf_counter()
u = simulate(pipe, on_launch=draw_while_running)
pipe.close()
while not frames.empty():                # frames delivered after the last look
    step, f = frames.get()
    got[step] = f
    plot.draw(f, step)
live = time.perf_counter() - t
stats = pipe.stats
print(f"block: {stats['delivered']} frames delivered of {stats['published']} published, "
      f"{stats['dropped']} dropped, {stats['torn']} torn")
assert stats["delivered"] == stats["published"] == len(want) and not stats["dropped"]

# 2. Every frame is the simulation's state at its step: lesson 8's stepped
#    run bit for bit where the arithmetic is the same (lavapipe), and NumPy.
assert sorted(got) == sorted(want), (sorted(got), sorted(want))
worst = max(float(np.abs(got[s] - want[s]).max()) for s in want)
peak = max(float(np.abs(w).max()) for w in want.values())
print(f"frames vs lesson 8's stepped run at the same steps: max difference "
      f"{worst / peak:.1e} of the peak")
assert worst <= 1e-5 * peak, worst / peak
last = max(want)
dnp = float(np.abs(got[last] - numpy_field(last)).max()) / peak
print(f"last frame vs NumPy: {dnp:.1e} of the peak")
assert dnp < 1e-5, dnp
final = u.numpy()[((STEPS + 1) % 3) * N:][:N].reshape(NY, NX)
if STEPS % EVERY == 0:
    assert np.array_equal(final, got[STEPS])   # the last frame is the final field


# 3. The other policies, with a consumer slower than the simulation and a
#    ring of 2: `skip` drops the newest frames when the ring is full,
#    `overwrite` laps the oldest. Whatever arrives is still exactly the state
#    at its step, and every frame is accounted for.
def slow_consumer(policy):
    p = vp.MemSock(dtype=vp.float32, frame_shape=(NY, NX), payload={"step": vp.uint32})
    seen = {}

    @p.on("message")
    def slow(frame, step):
        seen[step] = frame.copy()
        time.sleep(0.02)              # a plot that cannot keep up

    p.open(ctx, capacity=2, policy=policy)
    simulate(p)
    p.close()
    st = p.stats
    assert st["published"] == st["delivered"] + st["dropped"] + st["torn"], st
    for s, f in seen.items():
        assert s in want and np.abs(f - want[s]).max() <= 1e-5 * peak, s
    return st, sorted(seen)


for policy in ("skip", "overwrite"):
    st, steps_seen = slow_consumer(policy)
    print(f"{policy}: {st['delivered']} delivered + {st['dropped']} dropped + {st['torn']} "
          f"torn = {st['published']} published; frames at steps "
          f"{', '.join(map(str, steps_seen[:5]))}{', ...' if len(steps_seen) > 5 else ''}")
print("skip, overwrite: every delivered frame is the state at its step")


# 4. Speed: steps/s without frames (a pipe bound, nothing fired), with
#    frames to a consumer that only counts them, and frames/s drawn live.
def rate(every):
    p = vp.MemSock(dtype=vp.float32, frame_shape=(NY, NX), payload={"step": vp.uint32})
    p.on("message", lambda frame, step: None)
    p.open(ctx, capacity=ring, policy="block")
    t0 = time.perf_counter()
    simulate(p, every=every)
    dt = time.perf_counter() - t0
    p.close()
    return dt, p.stats["delivered"]


t_none, _ = rate(STEPS + 1)
t_pipe, n_pipe = rate(EVERY)
print(f"device: {ctx.name}" + (" (a CPU device: Mesa's lavapipe)" if lavapipe else ""))
print(f"{NX}x{NY}, {STEPS} steps: {STEPS / t_none:.0f} steps/s without frames, "
      f"{STEPS / t_pipe:.0f} steps/s streaming a frame every {EVERY} steps "
      f"({n_pipe / t_pipe:.0f} frames/s, {n_pipe * N * 4 / t_pipe / 1e6:.1f} MB/s)")
print(f"live run with drawing ({'matplotlib' if plot.plt else 'PPM'}): {len(got)} frames "
      f"in {live:.2f} s, {len(got) / live:.0f} frames/s")

# 5. The picture: four frames as the plot received them, and the policies.
PLOT = """
import sys, numpy as np, matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
d = np.load(sys.argv[1]); steps = d["steps"]; frames = d["frames"]
fig, axes = plt.subplots(1, len(steps) + 1, figsize=(12, 3.4), dpi=100,
                         gridspec_kw={"width_ratios": [1] * len(steps) + [1.9]})
for ax, s, f in zip(axes, steps, frames):
    ax.imshow(f, cmap="RdBu_r", vmin=-0.3, vmax=0.3, origin="lower")
    ax.set_title(f"frame of step {s}", fontsize=9); ax.set_xticks([]); ax.set_yticks([])
ax = axes[-1]
all_steps = d["all"]
for row, (name, kept) in enumerate([("block", d["block"]), ("skip", d["skip"]),
                                    ("overwrite", d["overwrite"])]):
    ax.scatter(all_steps, [row] * len(all_steps), marker="|", color="0.8", s=60)
    ax.scatter(kept, [row] * len(kept), marker="|", color="C%d" % row, s=120)
ax.set_yticks([0, 1, 2]); ax.set_yticklabels(["block", "skip", "overwrite"])
ax.set_ylim(-0.7, 2.7); ax.invert_yaxis(); ax.set_xlabel("step of the frame")
ax.set_title("frames delivered (grey: published)\\nskip, overwrite: a slow plot, 2 slots", fontsize=9)
fig.suptitle("A persistent 2-D wave streaming its field through a vp.MemSock", fontsize=10)
fig.tight_layout(); fig.savefig(sys.argv[2])
"""
if args.png:
    tmp = tempfile.mkdtemp()
    atexit.register(shutil.rmtree, tmp, True)
    npz = os.path.join(tmp, "frames.npz")
    keys = sorted(got)
    pick = [keys[len(keys) * k // 4] for k in range(1, 4)] + [keys[-1]]
    np.savez(npz, steps=pick, frames=[got[s] for s in pick], all=sorted(want),
             block=sorted(got), skip=slow_consumer("skip")[1],
             overwrite=slow_consumer("overwrite")[1])
    try:
        import matplotlib  # noqa: F401
        py = sys.executable
    except ImportError:    # the .venv has none: Debian's python3-matplotlib draws it
        py = "/usr/bin/python3"
    subprocess.run([py, "-c", PLOT, npz, args.png], check=True)
    print("wrote", args.png)
print(f"{plot.count} frames drawn into {out if args.out else 'a temporary folder'}")
print("lesson 10: OK")
