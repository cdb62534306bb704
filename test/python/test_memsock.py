"""vp.MemSock end to end on the default device (lavapipe here): kernels fire
frames with pipe.fire(body, **payload), the host receives them in order.

Every test checks values: sequence numbers, payloads and frame contents
against what the kernel must have written, and the counters against a
replay of what each policy keeps. docs/memsock.md describes the protocol.
"""
import asyncio
import threading
import time

import numpy as np
import pytest

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target

W = 64  # one workgroup of 64 invocations writes each frame
GOLD = 2654435761


@vp.kernel(local_size_x=64)
def burst(pipe: vp.MemSock[vp.uint32], first: vp.uint32, n: vp.uint32):
    """n frames: frame s holds s * 64 + i, payload (s, s * GOLD)."""
    p = vp.global_id()

    def body(seq: vp.uint32, check: vp.uint32):
        pipe[p] = seq * 64 + p

    for j in range(n):
        pipe.fire(body, seq=first + j, check=(first + j) * 2654435761)


def _pipe(capacity, policy="block", **kw):
    pipe = vp.MemSock(dtype=vp.uint32, frame_shape=(W,),
                      payload={"seq": vp.uint32, "check": vp.uint32})
    return pipe, kw


def _frame_ok(frame, seq):
    return frame.shape == (W,) and np.array_equal(
        frame, (np.uint32(seq) * np.uint32(64) + np.arange(W, dtype=np.uint32)))


def test_block_many_frames_slow_consumer():
    """2 * 10^5 frames through a block pipe, 64 a dispatch, and a consumer
    that stalls now and then: every frame arrives once, in order, intact."""
    total, per = 200_000, 64
    pipe = vp.MemSock(dtype=vp.uint32, frame_shape=(W,),
                      payload={"seq": vp.uint32, "check": vp.uint32})
    state = {"next": 0, "bad": 0}

    @pipe.on("message")
    def on_frame(frame, seq, check):
        if seq != state["next"] or check != (seq * GOLD) & 0xFFFFFFFF or \
                frame[5] != seq * 64 + 5 or frame[63] != seq * 64 + 63:
            state["bad"] += 1
        if seq % 10_000 == 0:
            state["bad"] += not _frame_ok(frame, seq)
            time.sleep(0.002)  # a slow consumer: the GPU must not overtake it
        state["next"] = seq + 1

    pipe.open(capacity=per, policy="block")
    for first in range(0, total, per):
        burst(pipe, dispatch=W, first=first, n=per)
    st = pipe.stats
    pipe.close()
    assert state == {"next": total, "bad": 0}
    assert (st["published"], st["delivered"], st["dropped"], st["torn"]) == (total, total, 0, 0)
    assert st["gpu_timeouts"] == 0


def test_iterator_and_zero_copy_views():
    pipe = vp.MemSock(dtype=vp.uint32, frame_shape=(8, 8),
                      payload={"seq": vp.uint32, "check": vp.uint32})
    pipe.open(capacity=8, policy="block")
    burst(pipe, dispatch=W, first=100, n=5)
    got = []
    for frame, pl in pipe:
        assert frame.shape == (8, 8) and not frame.flags.writeable
        assert frame.base is not None  # a view into the ring, not a copy
        assert _frame_ok(frame.reshape(-1), pl.seq)
        got.append((pl.seq, pl.check))
        if len(got) == 5:
            pipe.close()
    assert got == [(s, (s * GOLD) & 0xFFFFFFFF) for s in range(100, 105)]


def test_skip_counts_exact():
    """skip with nobody consuming during the dispatch: the first `capacity`
    frames are kept, every later one is dropped and counted."""
    pipe = vp.MemSock(dtype=vp.uint32, frame_shape=(W,),
                      payload={"seq": vp.uint32, "check": vp.uint32})
    pipe.open(capacity=4, policy="skip")
    burst(pipe, dispatch=W, first=0, n=50)
    seqs = []
    while True:
        try:
            frame, pl = pipe.next(timeout=0)
        except TimeoutError:
            break
        assert _frame_ok(frame, pl.seq)
        seqs.append(pl.seq)
    st = pipe.stats
    assert seqs == [0, 1, 2, 3]  # the replay: what fits, in order
    assert (st["published"], st["delivered"], st["dropped"], st["gpu_dropped"]) == (50, 4, 46, 46)
    # once consumed, the next dispatch has room again
    burst(pipe, dispatch=W, first=50, n=6)
    seqs = [pl.seq for _, pl in (pipe.next(0) for _ in range(4))]
    assert seqs == [50, 51, 52, 53]
    pipe.close()
    assert pipe.stats["dropped"] == 48


def test_overwrite_laps_and_counts():
    """overwrite: the ring keeps the newest `capacity` frames; the lapped
    ones are counted; delivered frames are checked copies."""
    pipe = vp.MemSock(dtype=vp.uint32, frame_shape=(W,),
                      payload={"seq": vp.uint32, "check": vp.uint32})
    pipe.open(capacity=4, policy="overwrite")
    burst(pipe, dispatch=W, first=0, n=50)
    got = []
    while True:
        try:
            frame, pl = pipe.next(timeout=0)
        except TimeoutError:
            break
        assert _frame_ok(frame, pl.seq) and pl.check == (pl.seq * GOLD) & 0xFFFFFFFF
        got.append(pl.seq)
    st = pipe.stats
    assert got == [46, 47, 48, 49]
    assert (st["published"], st["delivered"], st["dropped"] + st["torn"]) == (50, 4, 46)
    assert st["gpu_dropped"] == 0
    pipe.close()


def test_overwrite_live_consumer_accounts_for_every_frame():
    pipe = vp.MemSock(dtype=vp.uint32, frame_shape=(W,),
                      payload={"seq": vp.uint32, "check": vp.uint32})
    seen = []

    @pipe.on("message")
    def on_frame(frame, seq, check):
        assert _frame_ok(frame, seq)
        seen.append(seq)
        time.sleep(0.0002)

    pipe.open(capacity=2, policy="overwrite")
    for first in range(0, 400, 40):
        burst(pipe, dispatch=W, first=first, n=40)
    st = pipe.stats
    pipe.close()
    assert seen == sorted(set(seen)) and seen[-1] == 399
    assert st["published"] == 400
    assert st["delivered"] == len(seen)
    assert st["delivered"] + st["dropped"] + st["torn"] == 400


def test_capacity_one_and_wraparound():
    for cap, per, rounds in ((1, 1, 40), (3, 2, 30)):
        pipe = vp.MemSock(dtype=vp.uint32, frame_shape=(W,),
                          payload={"seq": vp.uint32, "check": vp.uint32})
        seen = []
        pipe.on("message", lambda f, s, c: seen.append((s, _frame_ok(f, s))))
        pipe.open(capacity=cap, policy="block")
        for r in range(rounds):
            burst(pipe, dispatch=W, first=r * per, n=per)
        pipe.close()
        assert seen == [(s, True) for s in range(per * rounds)], cap


@vp.kernel(local_size_x=64)
def two_pipes(a: vp.MemSock[vp.float32], b: vp.MemSock[vp.int32], src: vp.Buffer[vp.float32],
              t: vp.uint32):
    p = vp.global_id()

    def fa(step: vp.uint32, scale: vp.float32):
        a[p] = src[p] * scale

    def fb(tag: vp.int32):
        b[p] = vp.int32(p) - tag

    pipe_every = t % 2
    if pipe_every == 0:
        a.fire(fa, step=t, scale=0.5)
    b.fire(fb, tag=-vp.int32(t))


def test_two_pipes_one_kernel():
    a = vp.MemSock(dtype=vp.float32, frame_shape=(W,), payload={"step": vp.uint32,
                                                               "scale": vp.float32})
    b = vp.MemSock(dtype=vp.int32, frame_shape=(W,), payload={"tag": vp.int32})
    ga, gb = [], []
    a.on("message", lambda f, step, scale: ga.append((step, scale, f.copy())))
    b.on("message", lambda f, tag: gb.append((tag, f.copy())))
    a.open(capacity=2)
    b.open(capacity=2)
    src = vp.asarray(np.linspace(0, 1, W, dtype=np.float32))
    for t in range(6):
        two_pipes(a, b, src, dispatch=W, t=t)
    a.close()
    b.close()
    assert [(s, sc) for s, sc, _ in ga] == [(0, 0.5), (2, 0.5), (4, 0.5)]
    for _, _, f in ga:
        np.testing.assert_array_equal(f, np.linspace(0, 1, W, dtype=np.float32) * 0.5)
    assert [t for t, _ in gb] == [0, -1, -2, -3, -4, -5]
    for tag, f in gb:
        np.testing.assert_array_equal(f, np.arange(W, dtype=np.int32) - tag)


def test_close_during_a_run():
    """A callback closes the pipe: later fires are dropped by the GPU, the
    dispatches do not wait, and every frame is accounted for."""
    pipe = vp.MemSock(dtype=vp.uint32, frame_shape=(W,),
                      payload={"seq": vp.uint32, "check": vp.uint32})
    seen = []

    @pipe.on("message")
    def on_frame(frame, seq, check):
        seen.append(seq)
        if seq == 3:
            pipe.close()

    pipe.open(capacity=2, policy="block")
    for r in range(10):
        burst(pipe, dispatch=W, first=r, n=1)
    st = pipe.stats
    assert seen == [0, 1, 2, 3]
    assert st["closed"] and st["published"] == 10
    assert st["delivered"] + st["dropped"] == 10
    assert st["gpu_dropped"] >= 5


def test_callback_error_reraised_and_pipe_stops():
    pipe = vp.MemSock(dtype=vp.uint32, frame_shape=(W,),
                      payload={"seq": vp.uint32, "check": vp.uint32})

    @pipe.on("message")
    def on_frame(frame, seq, check):
        if seq == 2:
            raise ValueError("bad frame 2")

    pipe.open(capacity=2, policy="block")
    burst(pipe, dispatch=W, first=0, n=2)
    with pytest.raises(ValueError, match="bad frame 2"):
        burst(pipe, dispatch=W, first=2, n=2)
    # the pipe is closed: a later dispatch drops its fires and does not hang
    burst(pipe, dispatch=W, first=4, n=2)
    assert pipe.stats["closed"]
    pipe.close()


def test_async_iteration():
    pipe = vp.MemSock(dtype=vp.uint32, frame_shape=(W,),
                      payload={"seq": vp.uint32, "check": vp.uint32})
    pipe.open(capacity=16, policy="block")

    def produce():
        for r in range(4):
            burst(pipe, dispatch=W, first=r * 4, n=4)

    async def consume():
        got = []
        async for frame, pl in pipe:
            assert _frame_ok(frame, pl.seq)
            got.append(pl.seq)
            if len(got) == 16:
                pipe.close()  # ends the iteration
        return got

    async def main():
        th = threading.Thread(target=produce)
        th.start()
        got = await consume()
        th.join()
        return got

    assert asyncio.run(main()) == list(range(16))


def test_argument_errors():
    with pytest.raises(TypeError, match="payload fields are"):
        vp.MemSock(dtype=vp.float32, frame_shape=(4,), payload={"x": vp.float64})
    with pytest.raises(ValueError, match="frame_shape"):
        vp.MemSock(dtype=vp.float32, frame_shape=(0, 3))
    pipe = vp.MemSock(dtype=vp.float32, frame_shape=(W,))
    with pytest.raises(ValueError, match="policy='drop'"):
        pipe.open(capacity=2, policy="drop")
    with pytest.raises(ValueError, match="capacity"):
        pipe.open(capacity=0)
    with pytest.raises(ValueError, match="unknown event"):
        pipe.on("frame", print)
    # a pipe of the wrong dtype for the kernel's parameter
    pipe.open(capacity=2)
    with pytest.raises(TypeError, match="MemSock of uint32"):
        burst(pipe, dispatch=W, first=0, n=1)
    pipe.close()
    # a payload that differs from the kernel's fire body: refused, named
    other = vp.MemSock(dtype=vp.uint32, frame_shape=(W,), payload={"seq": vp.uint32})
    other.open(capacity=2)
    burst(other, dispatch=W, first=0, n=1)
    with pytest.raises(vp.VulkanError, match="payload"):
        other.next(timeout=1)
    other.close()


def test_kernel_language_errors():
    def compile_(src):
        return vp.kernel(src)

    @vp.kernel(local_size_x=64)
    def outside(pipe: vp.MemSock[vp.float32]):
        p = vp.global_id()
        pipe[p] = 1.0

    with pytest.raises(vp.CompileError, match=r"test_memsock.py:\d+:\d+: error: MemSock 'pipe' "
                                              r"is written only inside a fire body"):
        outside.program()

    @vp.kernel(local_size_x=64)
    def divergent(pipe: vp.MemSock[vp.float32]):
        p = vp.global_id()

        def body(i: vp.uint32):
            pipe[p] = 1.0

        if p < 10:
            pipe.fire(body, i=p)

    with pytest.raises(vp.CompileError, match=r"test_memsock.py:\d+:\d+: error: pipe.fire inside "
                                              r"control flow that differs"):
        divergent.program()

    @vp.kernel(local_size_x=64)
    def names(pipe: vp.MemSock[vp.float32]):
        p = vp.global_id()

        def body(i: vp.uint32):
            pipe[p] = 1.0

        pipe.fire(body, j=1)

    with pytest.raises(vp.CompileError, match="'j' is not a payload field of body"):
        names.program()

    @vp.kernel(local_size_x=64)
    def types(pipe: vp.MemSock[vp.float32]):
        p = vp.global_id()

        def body(i: vp.uint32):
            pipe[p] = 1.0

        pipe.fire(body, i=1.5)

    with pytest.raises(vp.CompileError, match="payload field 'i'"):
        types.program()


# ------------------------------------------------- the product's snippet

@vp.kernel(local_size_x=64)
def update_e(efield: vp.Buffer[vp.float32], hfield: vp.Buffer[vp.float32],
             pipe: vp.MemSock[vp.float32], nx: vp.uint32, t: vp.uint32,
             snap_interval: vp.uint32):
    """A 1-D FDTD E update (E += 0.5 * dH/dx) that streams E every few steps."""
    p = vp.global_id()
    if p > 0 and p < nx:
        efield[p] = efield[p] + 0.5 * (hfield[p] - hfield[p - 1])

    def pipe_body(snap_idx: vp.uint32):
        pipe[snap_idx * nx + p] = efield[p]

    if t % snap_interval == 0:
        pipe.fire(pipe_body, snap_idx=t // snap_interval)


@vp.kernel(local_size_x=64)
def update_h(efield: vp.Buffer[vp.float32], hfield: vp.Buffer[vp.float32], nx: vp.uint32):
    p = vp.global_id()
    if p + 1 < nx:
        hfield[p] = hfield[p] + 0.5 * (efield[p + 1] - efield[p])


def test_seed_snippet_fdtd():
    """The product description's MemSock code, with a small FDTD: each
    snapshot is row snap_idx of a (ny, nx) frame; the callback sees E."""
    nx, steps, snap_interval = 128, 24, 4
    ny = steps // snap_interval
    n_snapshots = 2
    ctx = vp.default_context()
    CTRL_PIPE = 2
    control = vp.ControlBuffer(["mode", "hot_count"], words=8)
    ctrl_arr = control.view()

    class Imshow:
        frames = []

        def set_data(self, frame):
            self.frames.append(frame.copy())

    imshow = Imshow()
    idxs = []

    pipe = vp.MemSock(dtype=vp.float32, frame_shape=(ny, nx), payload={"snap_idx": vp.uint32})

    @pipe.on("message")
    def on_frame(frame, idx):
        imshow.set_data(frame)   # frame is a zero-copy numpy view into host DRAM
        idxs.append(idx)

    pipe.open(ctx, capacity=n_snapshots, ctrl_view=ctrl_arr, ctrl_offset=CTRL_PIPE)

    e0 = np.exp(-0.5 * ((np.arange(nx) - nx / 2) / 6.0) ** 2).astype(np.float32)
    e, h = vp.asarray(e0), vp.zeros(nx, dtype=np.float32)
    re, rh = e0.copy(), np.zeros(nx, np.float32)
    want = []
    for t in range(steps):
        update_e(e, h, pipe, dispatch=nx, nx=nx, t=t, snap_interval=snap_interval)
        re[1:] = re[1:] + np.float32(0.5) * (rh[1:] - rh[:-1])
        if t % snap_interval == 0:
            want.append(re.copy())
        update_h(e, h, dispatch=nx, nx=nx)
        rh[:-1] = rh[:-1] + np.float32(0.5) * (re[1:] - re[:-1])
    pipe.close()
    assert idxs == list(range(ny))
    for k, frame in enumerate(imshow.frames):
        np.testing.assert_allclose(frame[k], want[k], rtol=1e-6, atol=1e-7)
    assert ctrl_arr[CTRL_PIPE] == ny and ctrl_arr[CTRL_PIPE + 1] == 1
    np.testing.assert_allclose(e.numpy(), re, rtol=1e-5, atol=1e-6)


def test_lowered_glsl_is_readable():
    g = burst.glsl
    for text in ("pipe_ring", "atomicMax", "gl_ScopeQueueFamily", "barrier();", "seq",
                 "credit", "leader", "frame_base"):
        assert text in g, text


SEED_VUL = '''
import vulpy as vp

class PushConstants:
    nx: vp.uint32
    t: vp.uint32
    snap_interval: vp.uint32

def pipe_body(snap_idx: vp.uint32):
    pipe[snap_idx * pc.nx + p] = efield[p]

def main(efield: vp.Buffer[vp.float32], pipe: vp.MemSock[vp.float32]):
    p = vp.global_id()
    t = pc.t
    efield[p] = efield[p] * 0.5 + vp.float32(t)
    if t % pc.snap_interval == 0:
        pipe.fire(pipe_body, snap_idx=t)   # transpiler wraps this in the epoch protocol
'''


def test_seed_snippet_vul_py(tmp_path):
    """The seed's .vul.py lines as written (module-level pipe_body reading
    the kernel's p, efield and pipe), through vp.compile and Shader.run."""
    path = tmp_path / "snap.vul.py"
    path.write_text(SEED_VUL)
    nx, ny, steps = 64, 8, 8
    shader = vp.compile(str(path), local_size_x=64)
    e0 = np.arange(nx, dtype=np.float32)
    shader.allocate(efield=e0)
    shader.upload("efield", e0)
    pipe = vp.MemSock(dtype=vp.float32, frame_shape=(ny, nx), payload={"snap_idx": vp.uint32})
    rows = {}

    @pipe.on("message")
    def on_frame(frame, idx):
        rows[idx] = frame[idx].copy()

    pipe.open(capacity=2)
    shader.bind("pipe", pipe)
    ref = e0.copy()
    want = {}
    for t in range(steps):
        shader.run(dispatch=nx, nx=nx, t=t, snap_interval=2)
        ref = ref * np.float32(0.5) + np.float32(t)
        if t % 2 == 0:
            want[t] = ref.copy()
    pipe.close()
    assert sorted(rows) == sorted(want)
    for t in want:
        np.testing.assert_allclose(rows[t], want[t], rtol=1e-6)


@vp.kernel(local_size_x=64)
def burst_other(pipe: vp.MemSock[vp.uint32], first: vp.uint32, n: vp.uint32):
    """The same payload as burst, another kernel: frames hold seq + 7."""
    p = vp.global_id()

    def body(seq: vp.uint32, check: vp.uint32):
        pipe[p] = seq + 7

    for j in range(n):
        pipe.fire(body, seq=first + j, check=(first + j) * 2654435761)


def test_two_kernels_one_pipe():
    """Two kernels take turns on one pipe: their frames form one sequence;
    a dispatch while another has the pipe is refused."""
    pipe = vp.MemSock(dtype=vp.uint32, frame_shape=(W,),
                      payload={"seq": vp.uint32, "check": vp.uint32})
    seen = []
    pipe.on("message", lambda f, s, c: seen.append((s, int(f[3]))))
    pipe.open(capacity=4)
    burst(pipe, dispatch=W, first=0, n=3)
    burst_other(pipe, dispatch=W, first=3, n=2)
    burst(pipe, dispatch=W, first=5, n=1)
    h = burst(pipe, dispatch=W, first=6, n=1, sync=False)
    with pytest.raises(vp.VulkanError, match="one dispatch at a time"):
        burst_other(pipe, dispatch=W, first=7, n=1)
    h.wait()
    pipe.close()
    assert seen == [(0, 3), (1, 67), (2, 131), (3, 10), (4, 11), (5, 323), (6, 387)]


def test_block_wait_that_gives_up_is_counted_and_warned():
    """A block wait bounded to zero polls (the ring's spin word set to 0):
    with the ring full, each later fire gives up at once, is dropped and
    counted, and the dispatch warns; the host's counts agree."""
    pipe = vp.MemSock(dtype=vp.uint32, frame_shape=(W,),
                      payload={"seq": vp.uint32, "check": vp.uint32})
    pipe.open(capacity=1, policy="block")
    np.frombuffer(pipe._native.ring, np.uint32)[12] = 0  # VMS_HDR_SPIN
    with pytest.warns(RuntimeWarning, match="gave up waiting for a free slot 2 time"):
        burst(pipe, dispatch=W, first=0, n=3)
    frame, pl = pipe.next(timeout=0)
    assert pl.seq == 0 and _frame_ok(frame, 0)
    with pytest.raises(TimeoutError):
        pipe.next(timeout=0)
    st = pipe.stats
    assert (st["published"], st["delivered"], st["dropped"]) == (3, 1, 2)
    assert (st["gpu_timeouts"], st["gpu_dropped"]) == (2, 2)
    pipe.close()


@vp.kernel(local_size_x=256)
def _fill16(pipe: vp.MemSock[vp.float32], first: vp.uint32, n: vp.uint32):
    p = vp.global_id()

    def body(seq: vp.uint32):
        pipe[p] = vp.float32(seq)

    for j in range(n):
        pipe.fire(body, seq=first + j)


def test_loop_budget_cut_raises_and_delivers_nothing_torn():
    """lavapipe ends every loop of an invocation after 65,535 back-edges in
    all. A kernel firing 16 frames a dispatch into 4 block slots, with a
    wait bound of 2^20 polls and a slow consumer, runs its waits into that
    budget: before the canary, 5 frames arrived with no warning and frame 4
    held frame 16's last quarter (bench/probes/memsock_diag.py). Now the
    dispatch raises naming the loop budget, and every frame handed out is
    whole (f[0] == f[-1] == its seq)."""
    ctx = vp.default_context()
    if ctx.limits["max_loop_iterations"] is None:
        pytest.skip("the device has no loop budget")
    for _ in range(3):  # the cut comes at a different fire each run
        pipe = vp.MemSock(dtype=vp.float32, frame_shape=(1024,), payload={"seq": vp.uint32})
        got = []

        @pipe.on("message")
        def on_frame(frame, seq):
            got.append((seq, float(frame[0]), float(frame[-1])))
            time.sleep(0.002)  # slower than the kernel's loop budget lasts

        pipe.open(capacity=4, policy="block")
        np.frombuffer(pipe._native.ring, np.uint32)[12] = 1 << 20  # VMS_HDR_SPIN
        _fill16(pipe, dispatch=1024, first=0, n=1)
        with pytest.raises(vp.VulkanError, match="loops early.*loop budget ran out"), \
                pytest.warns(RuntimeWarning):
            _fill16(pipe, dispatch=1024, first=1, n=16)
        st = pipe.stats
        pipe.close()
        assert got and all(seq == a == b for seq, a, b in got), got
        assert [g[0] for g in got] == sorted(g[0] for g in got)
        assert st["gpu_cut"] > 0
        assert st["published"] == st["delivered"] + st["dropped"] + st["torn"] + st["pending"]


def test_a_million_frames_block_slow_consumer():
    """10^6 small frames (16 u32) through a block pipe, 1024 fires a
    dispatch, with a consumer that stalls now and then: sequence numbers
    contiguous, every payload checksum and frame right, nothing lost or torn."""
    total, per, w = 1_000_000, 1024, 16

    @vp.kernel(local_size_x=16)
    def small(pipe: vp.MemSock[vp.uint32], first: vp.uint32, n: vp.uint32):
        p = vp.global_id()

        def body(seq: vp.uint32, check: vp.uint32):
            pipe[p] = seq * 16 + p

        for j in range(n):
            pipe.fire(body, seq=first + j, check=(first + j) * 2654435761)

    pipe = vp.MemSock(dtype=vp.uint32, frame_shape=(w,),
                      payload={"seq": vp.uint32, "check": vp.uint32})
    state = {"next": 0, "bad": 0}
    lane = np.arange(w, dtype=np.uint32)

    @pipe.on("message")
    def on_frame(frame, seq, check):
        if seq != state["next"] or check != (seq * GOLD) & 0xFFFFFFFF or \
                frame[0] != seq * 16 or frame[15] != seq * 16 + 15:
            state["bad"] += 1
        if seq % 50_000 == 0:
            state["bad"] += not np.array_equal(frame, np.uint32(seq * 16) + lane)
            time.sleep(0.002)  # a slow consumer: the GPU must not overtake it
        state["next"] = seq + 1

    pipe.open(capacity=per, policy="block")
    t0 = time.perf_counter()
    for first in range(0, total, per):
        small(pipe, dispatch=w, first=first, n=min(per, total - first))
    dt = time.perf_counter() - t0
    st = pipe.stats
    pipe.close()
    assert state == {"next": total, "bad": 0}
    assert (st["published"], st["delivered"], st["dropped"], st["torn"]) == (total, total, 0, 0)
    assert st["gpu_timeouts"] == 0 and st["gpu_cut"] == 0
    print(f"10^6 frames in {dt:.1f} s")


# ------------------------------------------------ frames in user pages (issue 16)

def _user_pipe():
    return vp.MemSock(dtype=vp.uint32, frame_shape=(W,),
                      payload={"seq": vp.uint32, "check": vp.uint32})


def test_frames_in_user_pages_hostarray():
    """memory=vp.HostArray: the frames are the user's pages; callbacks get
    views into them, the user's array sees the frame bytes."""
    ctx = vp.default_context()
    if not ctx.has("external_memory_host"):
        pytest.skip("no VK_EXT_external_memory_host")
    pipe = _user_pipe()
    need = pipe.required_bytes(4)
    assert need == 4 * 256  # 64 uint32 = 256 bytes a frame, already a multiple of 256
    h = vp.HostArray((need // 4,), np.uint32)
    pipe.open(capacity=4, memory=h)
    assert pipe.memory == "user"
    user = h.numpy()
    base = user.__array_interface__["data"][0]
    burst(pipe, dispatch=W, first=10, n=3)
    seen = []

    @pipe.on("message")
    def on_frame(frame, seq, check):
        assert np.shares_memory(frame, user)
        seen.append((seq, frame.__array_interface__["data"][0] - base, frame.copy()))

    deadline = time.monotonic() + 30
    while pipe.stats["delivered"] < 3 and time.monotonic() < deadline:
        time.sleep(0.005)
    pipe.close()
    assert [s for s, _, _ in seen] == [10, 11, 12]
    for seq, off, f in seen:
        assert off == (seq - 10) * 256 and _frame_ok(f, seq)
        assert _frame_ok(user[off // 4: off // 4 + W], seq)  # the user's own array has them
    del pipe
    assert _frame_ok(h.numpy()[:W], 10)  # the pages outlive the pipe


def test_frames_in_user_pages_numpy_array():
    """memory=<page-aligned NumPy array> (the HostMemory under a HostArray,
    or any array the device can import): imported, no copy."""
    ctx = vp.default_context()
    if not ctx.has("external_memory_host"):
        pytest.skip("no VK_EXT_external_memory_host")
    pipe = _user_pipe()
    h = vp.HostArray((1 << 14,), np.uint32)  # 64 KiB: aligned and a multiple of the alignment
    arr = h.numpy()
    pipe.open(capacity=8, memory=arr)
    burst(pipe, dispatch=W, first=0, n=8)
    frame, pl = next(iter(pipe))
    assert np.shares_memory(frame, arr) and _frame_ok(frame, pl.seq)
    pipe.close()
    for s in range(8):
        assert _frame_ok(arr[s * W:(s + 1) * W], s)


def test_frames_in_user_pages_errors():
    ctx = vp.default_context()
    pipe = _user_pipe()
    need = pipe.required_bytes(8)
    with pytest.raises(TypeError, match="memory="):
        pipe.open(capacity=8, memory=[0] * 4096)
    if not ctx.has("external_memory_host"):
        pytest.skip("no VK_EXT_external_memory_host")
    small = vp.HostArray((need // 4 - 1,), np.uint32)
    with pytest.raises(ValueError, match=f"need {need}.*required_bytes"):
        pipe.open(capacity=8, memory=small)
    odd = np.zeros(need // 4 + 1, np.uint32)[1:]  # not page-aligned: no silent copy
    with pytest.raises(BufferError, match="cannot import"):
        pipe.open(capacity=8, memory=odd)
    assert pipe._native is None  # nothing opened


def test_frames_in_user_pages_import_refused(monkeypatch):
    """A device that refuses the import: BufferError, never a silent copy."""
    from vulpy import _hostarray

    def refuse(ctx, mem):
        raise BufferError("refused by the test")

    monkeypatch.setattr(_hostarray, "_import", refuse)
    pipe = _user_pipe()
    h = vp.HostArray((pipe.required_bytes(2) // 4,), np.uint32)
    with pytest.raises(BufferError, match="MemSock.open.*refused by the test"):
        pipe.open(capacity=2, memory=h)


def test_frames_in_user_pages_resident_array():
    """memory=<vp.ndarray over imported pages> (h.on(ctx)): the same pages."""
    ctx = vp.default_context()
    if not ctx.has("external_memory_host"):
        pytest.skip("no VK_EXT_external_memory_host")
    pipe = _user_pipe()
    h = vp.HostArray((pipe.required_bytes(2) // 4,), np.uint32)
    pipe.open(capacity=2, memory=h.on(ctx))
    burst(pipe, dispatch=W, first=5, n=1)
    frame, pl = next(iter(pipe))
    assert pl.seq == 5 and np.shares_memory(frame, h.numpy()) and _frame_ok(frame, 5)
    pipe.close()
    with pytest.raises(ValueError, match="view"):
        _user_pipe().open(capacity=1, memory=h.on(ctx)[W:])
