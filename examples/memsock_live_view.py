"""Watch a running kernel: a 2-D wave simulation streams a snapshot every few
steps through a vp.MemSock, and the callback updates an image as frames
arrive - matplotlib's imshow when it is installed (saved as PNG files, so it
works headless), else plain PGM images written with NumPy.

    python examples/memsock_live_view.py [out_dir]

Each snapshot is checked against the same simulation done with NumPy.
docs/memsock.md explains the channel.
"""
import os
import sys
import tempfile

import numpy as np

import vulpy as vp

NX = NY = 64
STEPS, EVERY = 60, 10


@vp.kernel(local_size_x=64)
def wave_step(u: vp.Buffer[vp.float32], prev: vp.Buffer[vp.float32],
              pipe: vp.MemSock[vp.float32], nx: vp.uint32, ny: vp.uint32, t: vp.uint32,
              every: vp.uint32):
    """prev <- the next state (a leapfrog step of the wave equation); every
    `every` steps the new state is fired to the host."""
    i = vp.global_id()
    x = i % nx
    y = i // nx
    if x > 0 and x + 1 < nx and y > 0 and y + 1 < ny:
        lap = u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] - 4.0 * u[i]
        prev[i] = 2.0 * u[i] - prev[i] + 0.2 * lap

    def snapshot(step: vp.uint32):
        pipe[i] = prev[i]

    if t % every == 0:
        pipe.fire(snapshot, step=t)


def reference():
    yy, xx = np.mgrid[0:NY, 0:NX]
    u = np.exp(-((xx - NX / 3) ** 2 + (yy - NY / 2) ** 2) / 20.0).astype(np.float32)
    prev = u.copy()
    snaps = {}
    for t in range(STEPS):
        nxt = prev.copy()
        lap = u[1:-1, :-2] + u[1:-1, 2:] + u[:-2, 1:-1] + u[2:, 1:-1] - 4 * u[1:-1, 1:-1]
        nxt[1:-1, 1:-1] = 2 * u[1:-1, 1:-1] - prev[1:-1, 1:-1] + np.float32(0.2) * lap
        prev, u = u, nxt
        if t % EVERY == 0:
            snaps[t] = nxt.copy()
    return snaps


class Viewer:
    """imshow when matplotlib is here (Agg: files, no display), else PGM."""

    def __init__(self, out):
        self.out, self.saved = out, []
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
            self.fig, ax = plt.subplots()
            self.im = ax.imshow(np.zeros((NY, NX)), vmin=-0.5, vmax=1.0, cmap="RdBu_r")
        except ImportError:
            self.fig = None

    def show(self, frame, step):
        if self.fig is not None:
            self.im.set_data(frame)
            path = os.path.join(self.out, f"wave_{step:04d}.png")
            self.fig.savefig(path)
        else:
            img = np.clip((frame + 0.5) / 1.5 * 255, 0, 255).astype(np.uint8)
            path = os.path.join(self.out, f"wave_{step:04d}.pgm")
            with open(path, "wb") as f:
                f.write(b"P5 %d %d 255\n" % (NX, NY) + img.tobytes())
        self.saved.append(path)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="vulpy-wave-")
    os.makedirs(out, exist_ok=True)
    want = reference()
    viewer = Viewer(out)
    got = {}
    pipe = vp.MemSock(dtype=vp.float32, frame_shape=(NY, NX), payload={"step": vp.uint32})

    @pipe.on("message")
    def on_frame(frame, step):     # frame: a zero-copy view of the ring slot
        viewer.show(frame, step)
        got[step] = frame.copy()

    pipe.open(capacity=4, policy="block")
    yy, xx = np.mgrid[0:NY, 0:NX]
    u0 = np.exp(-((xx - NX / 3) ** 2 + (yy - NY / 2) ** 2) / 20.0).astype(np.float32)
    u, prev = vp.asarray(u0.ravel()), vp.asarray(u0.ravel())
    for t in range(STEPS):
        wave_step(u, prev, pipe, dispatch=NX * NY, nx=NX, ny=NY, t=t, every=EVERY)
        u, prev = prev, u
    pipe.close()
    assert sorted(got) == sorted(want), (sorted(got), sorted(want))
    for t, frame in got.items():
        np.testing.assert_allclose(frame, want[t], rtol=1e-5, atol=1e-5)
    print(f"{len(got)} snapshots streamed while the kernel ran; images in {out}")
    print("stats:", pipe.stats)


if __name__ == "__main__":
    main()
