"""Lesson 11 - a 3-D FDTD scatter as one persistent program that writes one
dataset, read by three readers at once: a second device's hot-cell overlay,
NumPy, and the host that steers and watches (docs/tutorials/11-fdtd-scatter.md).

    python examples/lesson11_fdtd_scatter.py [--size 24] [--steps 60] [--every 6]
                                             [--level 0.05] [--png FILE] [--show]

A dielectric sphere in a PEC box, lit by a soft source, is run by
examples/fdtd3d.py's persistent kernel on device 0; with every streamed
slice it also writes |E| on that plane into shared host pages (a
vp.HostArray); device 1 (another GPU if there is one, else a second context
on the same device: lavapipe, the CPU) marks the cells where |E| > level on
the same pages, zero-copy; NumPy draws them.
Exits non-zero when the overlay differs from NumPy's threshold of the same
pages, a streamed slice differs from a stepped run at its step, or the
steering did not take effect at one step boundary.
"""
import argparse
import os
import sys
import time

import numpy as np

import vulpy as vp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fdtd3d  # noqa: E402 - examples/fdtd3d.py, the reference application

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--size", type=int, default=24, help="cells per side")
ap.add_argument("--steps", type=int, default=60, help="time steps")
ap.add_argument("--every", type=int, default=6, help="steps between two streamed slices")
ap.add_argument("--level", type=float, default=0.05, help="|E| above which a cell is hot")
ap.add_argument("--png", help="write the lesson's picture here")
ap.add_argument("--show", action="store_true", help="draw the picture in a window")
args = ap.parse_args()
N, STEPS, EVERY, LEVEL = args.size, args.steps, args.every, np.float32(args.level)
if not 0 < EVERY < STEPS - 1 or N < 4:
    ap.error("need --size >= 4 and 0 < --every < --steps - 1 (at least one streamed slice)")
EPS_R, P1, P2 = 4.0, 20, 12       # the sphere's eps_r; the source's period before / after steering

# 1. Two contexts: device 0 runs the simulation, device 1 the overlay.
ctx0 = vp.default_context()
others = [d["index"] for d in vp.list_devices() if d.get("usable", True) and d["index"] != ctx0.index]
ctx1 = vp.Context(device_index=others[0] if others else ctx0.index)
print(f"device 0: {ctx0.name} ({ctx0.kind}); device 1: {ctx1.name} ({ctx1.kind})"
      + ("" if others else ", a second context on the same device"))

# 2. One dataset: |E| on the plane z = n/2 in shared host pages, imported by
# both devices; the fields stay in device 0's memory.
eps = fdtd3d.sphere(N, N / 6, EPS_R)
sim = fdtd3d.Sim(N, eps=eps, period=P1, amp=1.0, context=ctx0)
emag = vp.HostArray((N, N), np.float32)
emag0 = emag.on(ctx0)              # the persistent program writes |E| here
emag1 = emag.on(ctx1)              # device 1's array over the same pages
print(f"shared: device 0 {emag.shared_with(ctx0)}, device 1 {emag.shared_with(ctx1)}")


# 3. The hot-cell overlay, a kernel of device 1: mark and count the cells
# where |E| > level.
@vp.kernel(local_size_x=64)
def hot_cells(e: vp.Buffer[vp.float32], mask: vp.Buffer[vp.uint32], ctrl: vp.Control,
              n: vp.uint32, level: vp.float32):
    i = vp.global_id()
    if i < n:
        hot = e[i] > level
        mask[i] = vp.uint32(1 if hot else 0)
        if hot:
            vp.atomic_add(ctrl[0], 1)


mask = vp.zeros((N, N), np.uint32, context=ctx1)
count = vp.ControlBuffer(["hot"], context=ctx1)


def overlay():
    count["hot"] = 0
    hot_cells(emag1, mask, count, dispatch=N * N, n=N * N, level=LEVEL)
    return count["hot"]


overlay()                          # compiled before the run: the run waits for no compiler

# 4. Launch the persistent program, stream slices, steer, overlay live.
ctrl = vp.ControlBuffer(["period", "pause"], context=ctx0)
ctrl["period"] = P1
# Under `block` a full ring makes the kernel wait for the host. A GPU gets two
# slots: it runs at most two slices ahead of the host, so the steering lands
# mid-run. A CPU device gets a slot for every slice and never waits
# (lavapipe cannot wait long inside a dispatch: docs/memsock.md). So does a
# GPU whose "device 1" is a second context on itself: its overlay kernel
# waits for the persistent dispatch, which would wait for the host, which
# waits for the overlay (on the H200 the run stopped at step 18 for ever).
slots = (STEPS - 1) // EVERY + 1 if ctx0.kind == "cpu" or not others else 2
pipe = sim.memsock(capacity=slots, policy="block")
assert STEPS <= sim.chunk(), f"--steps above lavapipe's loop budget ({sim.chunk()} here)"
t0 = time.perf_counter()
run = sim.launch(STEPS, ctrl=ctrl, pipe=pipe, every=EVERY, sync=False, mag=emag0)
frames, live = [], []
cpu = ctx0.kind == "cpu"
if cpu:  # lavapipe hands out a dispatch's frames once it ended whole (docs/memsock.md)
    while run.steps < 1 and not run.done:
        time.sleep(0.0005)
    ctrl["period"] = P2            # steer by the run's progress, mid-run
    sim.finish(run)
while len(frames) < (STEPS - 1) // EVERY:
    frame, pay = pipe.next(timeout=60)
    if not frames and not cpu:
        ctrl["period"] = P2        # steer: the source's frequency, mid-run
    frames.append((pay.step, frame.copy()))
    live.append(overlay())         # device 1 reads the pages while device 0 writes them
if not cpu:
    sim.finish(run)
wall = time.perf_counter() - t0
pipe.close()
print(f"persistent: {STEPS} steps of {N}^3 cells in one dispatch, {len(frames)} slices "
      f"streamed, {wall * 1e3:.0f} ms ({wall / STEPS * 1e6:.0f} us/step)")
print(f"live hot-cell counts from device 1: {live}")

# 5. The overlay of the final pages equals NumPy's threshold of the same pages.
hot = overlay()
page = emag.numpy()                # NumPy's view of the same bytes: no copy
want = page > LEVEL
assert np.array_equal(mask.numpy().astype(bool), want), "overlay != NumPy's threshold"
assert hot == int(want.sum()), (hot, int(want.sum()))
print(f"overlay on device 1: {hot} hot cells of {N * N}, equal to NumPy's threshold")
t0 = time.perf_counter()
for _ in range(5):
    overlay()
print(f"overlay: {(time.perf_counter() - t0) / 5 * 1e3:.2f} ms a pass over {N * N * 4 / 1e3:.1f} KB "
      f"of shared pages (kernel call and count read)")

# 6. Steering took effect at one step boundary: every step saw one period.
log = sim.log.numpy()[:STEPS]
period, ran = log >> 1, log & 1
assert ran.all() and period[0] == P1, period
assert (period == P2).any(), "the run ended before the host steered it: try more --steps"
switch = int(np.argmax(period == P2))
assert (period[:switch] == P1).all() and (period[switch:] == P2).all(), period
print(f"steering: period {P1} for steps 0-{switch - 1}, {P2} from step {switch}")

# 7. The streamed slices are a stepped run's at their steps (its periods from
# the log), and the pages hold its |E| at the last slice's step.
ref = fdtd3d.Sim(N, eps=eps, period=P1, amp=1.0, context=ctx0)
worst = 0.0
for n in range(STEPS):
    ref.period = int(period[n])
    ref.step()
    for st, frame in frames:
        if st == n + 1:
            want = ref.f["ez"].numpy()[N // 2]
            worst = max(worst, float(np.abs(frame - want).max()))
    if n + 1 == frames[-1][0]:
        e = [ref.f[k].numpy()[N // 2] for k in ("ex", "ey", "ez")]
        mag_ref = np.sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2])
peak = float(page.max())
assert worst <= 1e-5 * peak, worst
assert np.abs(mag_ref - page).max() <= 1e-5 * peak, np.abs(mag_ref - page).max()
print(f"streamed slices vs a stepped run: max difference {worst:.1e}; |E| pages "
      f"{np.abs(mag_ref - page).max():.1e} (peak |E| {peak:.3g})")


# 8. The third reader draws: |E| at z = n/2, the hot cells over it
# (matplotlib; Debian's /usr/bin/python3 draws when this Python has none).
PLOT = """
import sys, numpy as np, matplotlib
if sys.argv[2] != "--show":
    matplotlib.use("Agg")
import matplotlib.pyplot as plt
d = np.load(sys.argv[1])
u, m = d["ez"], d["mask"]
fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4.2), dpi=100)
v = float(np.percentile(u, 99.5))
im = a.imshow(u, cmap="Blues", vmin=0, vmax=v, origin="lower")
yy, xx = np.nonzero(m)
a.scatter(xx, yy, s=14, marker="s", facecolors="none", edgecolors="orangered", linewidths=0.9)
a.contour(d["eps"], levels=[1.5], colors="k", linewidths=0.8)
a.set_title(f"|E| at z = n/2, step {int(d['step'])} (shared pages); hot cells of device 1 boxed",
            fontsize=9)
a.set_xlabel("x (cells)"); a.set_ylabel("y (cells)")
fig.colorbar(im, ax=a, shrink=0.85)
b.plot(d["steps"], d["live"], ".-")
b.axvline(int(d["switch"]), color="k", lw=0.8, ls="--")
b.set_xlabel("step of the streamed slice"); b.set_ylabel("hot cells counted on device 1")
b.set_title(f"live overlay counts; the source's period steered at step {int(d['switch'])}",
            fontsize=9)
fig.tight_layout()
fig.savefig(sys.argv[2]) if sys.argv[2] != "--show" else plt.show()
"""


def picture(target):
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        npz = os.path.join(tmp, "l11.npz")
        np.savez(npz, ez=page, mask=mask.numpy(), eps=eps[N // 2], step=frames[-1][0],
                 steps=[f[0] for f in frames], live=live, switch=switch)
        try:
            import matplotlib  # noqa: F401
            py = sys.executable
        except ImportError:
            py = "/usr/bin/python3"
        subprocess.run([py, "-c", PLOT, npz, target], check=True)


if args.png:
    picture(args.png)
    print("wrote", args.png)
if args.show:
    picture("--show")
print("lesson 11: OK")
