"""What the persistent-program tests share (test_persistent*.py,
docs/persistent.md): the kernels several files run, each made for a
grid-barrier variant (barrier=None: the default one), their NumPy
references, the host <-> GPU message-passing litmus, and lavapipe's facts.

A kernel is made per call (@vp.kernel compiles on first use and caches by
source and options), so a file that wants one kernel a variant keeps the
ones it made, as test_persistent_barriers.py does in KERNELS.
"""
import numpy as np
import pytest

import vulpy as vp


def options(barrier=None, nonprivate=False):
    """@vp.kernel's keywords for a variant: none for the default one, so
    that kernel compiles exactly as one written without them."""
    if barrier is None and not nonprivate:
        return {}
    return {"barrier": barrier, "nonprivate": nonprivate}


def lavapipe():
    return vp.default_context().info.get("driver_name") == "llvmpipe"


# the barriers lavapipe cannot run persistent: their spin loops poll with
# acquire loads, which it miscompiles (docs/persistent.md, "Guarantees per
# device class"); the runtime runs them stepped there (a test below checks)
GPU_ONLY = ("cgx-acqpoll",)


def skip_gpu_only(request):
    """Skips a test parametrized with a GPU-only `barrier` on lavapipe."""
    params = getattr(getattr(request.node, "callspec", None), "params", {})
    b = params.get("barrier")
    name = (b[0] if isinstance(b, tuple) else str(b or "")).split("@")[0]
    if name in GPU_ONLY and lavapipe():
        pytest.skip(f"barrier={name!r} polls with acquire loads, which lavapipe miscompiles "
                    f"(it runs stepped there); its litmus tests need a GPU")


def lavapipe_groups():
    """Groups to start where a test wants several: on lavapipe at most one
    a worker thread (discovery admits no more), up to 4; None (the
    runtime's default) on a GPU."""
    return min(4, vp._persistent._threads(vp.default_context())) if lavapipe() else None


# --------------------------------------------------------------- counting


def make_count(barrier=None, nonprivate=False):
    """Each step: +1, a grid sync, *2, over n points."""
    @vp.kernel(persistent=True, local_size_x=64, **options(barrier, nonprivate))
    def count(acc: vp.Buffer[vp.uint32], n: vp.uint32, steps: vp.uint32):
        for t in range(steps):
            for p in vp.grid_range(n):
                acc[p] = acc[p] + 1
            vp.grid_sync()
            for p in vp.grid_range(n):
                acc[p] = acc[p] * 2
    return count


def expected_count(steps, start=0):
    """make_count's value after `steps` steps from `start` (uint32 wrap)."""
    v = start
    for _ in range(steps):
        v = (v + 1) * 2
    return v & 0xFFFFFFFF


# ----------------------------------------------------------- 2-D diffusion


def make_heat(barrier=None, nonprivate=False):
    """Explicit 2-D heat diffusion on an ny x nx grid, fixed boundary."""
    @vp.kernel(persistent=True, local_size_x=64, **options(barrier, nonprivate))
    def heat(u: vp.Buffer[vp.float32], v: vp.Buffer[vp.float32], nx: vp.uint32,
             ny: vp.uint32, alpha: vp.float32, steps: vp.uint32):
        for t in range(steps):
            for x, y in vp.grid_range(nx, ny):
                i = y * nx + x
                if x == 0 or y == 0 or x == nx - 1 or y == ny - 1:
                    v[i] = u[i]
                else:
                    v[i] = u[i] + alpha * (u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] -
                                           4.0 * u[i])
            vp.grid_sync()
            for p in vp.grid_range(nx * ny):
                u[p] = v[p]
    return heat


def heat_reference(u0, steps, alpha):
    """make_heat's result in NumPy (float32), u0 of shape (ny, nx)."""
    ref = u0.copy()
    for _ in range(steps):
        nxt = ref.copy()
        lap = ref[:-2, 1:-1] + ref[2:, 1:-1] + ref[1:-1, :-2] + ref[1:-1, 2:] - \
            np.float32(4) * ref[1:-1, 1:-1]
        nxt[1:-1, 1:-1] = ref[1:-1, 1:-1] + alpha * lap
        ref = nxt
    return ref


# -------------------------------------------------------- steered by words


def make_until_told(barrier=None, nonprivate=False):
    """A `while` time loop that adds ctrl.rate every step until ctrl.stop."""
    @vp.kernel(persistent=True, local_size_x=64, control_words={"ctrl": ["stop", "rate"]},
               **options(barrier, nonprivate))
    def until_told(acc: vp.Buffer[vp.uint32], ctrl: vp.Control, n: vp.uint32):
        while ctrl.stop == 0:
            for p in vp.grid_range(n):
                acc[p] = acc[p] + ctrl.rate
            vp.grid_sync()
    return until_told


# ------------------------------------------------------------ the litmus


def make_litmus(barrier=None):
    """GPU -> host: point 0 writes the payload, then the flag (an atomic
    store, release); host -> GPU: every step records its snapshot of ack."""
    @vp.kernel(persistent=True, local_size_x=64, control_words={"flags": ["flag", "ack"]},
               **options(barrier))
    def litmus(payload: vp.Control, flags: vp.Control, out: vp.Buffer[vp.uint32],
               n: vp.uint32, steps: vp.uint32):
        for t in range(steps):
            for p in vp.grid_range(n):
                if p == 0:
                    payload[0] = t + 1     # the payload, a plain store
                    flags.flag = t + 1     # then the flag (atomic store, release)
                out[t] = flags.ack        # host -> GPU: the snapshot of ack
            vp.grid_sync()
    return litmus


def run_litmus(litmus, want_rounds=100_000, max_launches=200, steps=3000, n=64):
    """The message-passing litmus both ways (PERSISTENT.md): launches of
    `litmus` until the host checked `want_rounds` rounds (and at least 4
    launches ran). GPU -> host: the host reads the flag, then the payload,
    and must never see a flag newer than the payload. Host -> GPU: the host
    counts `ack` up; the steps must never see it decrease. Asserts each
    launch's checks; returns (rounds, violations, blind, launches): blind
    counts launches that ended before any host write reached them."""
    rounds = violations = blind = launches = 0
    for launch in range(max_launches):
        if launch >= 4 and rounds >= want_rounds:
            break
        payload = vp.ControlBuffer([], words=4)
        flags = vp.ControlBuffer(["flag", "ack"])
        out = vp.zeros(steps, np.uint32)
        h = litmus(payload, flags, out, n=n, steps=steps, sync=False)
        ack = 0
        while not h.done:
            f = flags["flag"]
            p = payload[0]
            violations += p < f
            rounds += 1
            ack += 1
            flags["ack"] = ack
        h.wait(timeout=60)
        assert flags["flag"] == steps and payload[0] == steps
        seen = out.numpy()
        assert (np.diff(seen.astype(np.int64)) >= 0).all()
        assert seen[-1] <= ack
        blind += int(seen[-1] == 0)
        launches += 1
    return rounds, int(violations), blind, launches


# ------------------------------------------------------- MemSock frames


def make_memsock_counter(barrier=None):
    """Steps first..last-1 of u = u / 2 + t, firing u into `pipe` after
    every `every`-th step (payload: the steps done)."""
    @vp.kernel(persistent=True, local_size_x=64, **options(barrier))
    def count(u: vp.Buffer[vp.float32], pipe: vp.MemSock[vp.float32], n: vp.uint32,
              first: vp.uint32, last: vp.uint32, every: vp.uint32):
        for t in range(first, last):
            for i in vp.grid_range(n):
                u[i] = u[i] * 0.5 + vp.float32(t)
            vp.grid_sync()

            def frame(step: vp.uint32):
                for i in vp.grid_range(n):
                    pipe[i] = u[i]

            if (t + 1) % every == 0:
                pipe.fire(frame, step=t + 1)
    return count


def memsock_frames_want(n, steps, every):
    """make_memsock_counter's frames from u = arange(n), by step."""
    u = np.arange(n, dtype=np.float32)
    out = {}
    for t in range(steps):
        u = u * np.float32(0.5) + np.float32(t)
        if (t + 1) % every == 0:
            out[t + 1] = u.copy()
    return out
