"""MemSock figures (issue 16, docs/memsock.md): frames a kernel fires into
host memory, delivered to a callback, in GB/s for 64 KiB, 1 MiB and 16 MiB
frames, beside the plain device -> host copy rate of the same bytes measured
in the same run; and the host -> GPU -> host round trip of one small frame
(the kernel waits for a control word the host sets, fires, the callback
stamps it): an upper bound of publish -> callback latency, median and p99;
and the cost to a bandwidth-bound kernel of firing a 1 MiB frame every 8
steps (step time with and without the pipe).

    bash bench/device/suites.sh --suites memsock      (the H200)
    python bench/run.py --suite memsock --quick (here, lavapipe: 64 KiB only)

On a CPU device (lavapipe) a kernel cannot wait long for the host and a
dispatch's frames are delivered once it ended (docs/memsock.md), so each
dispatch fires at most `capacity` frames there and the round trip is one
dispatch a frame.

Records: throughput with capacity 16 (what a streaming user would pick:
16 frames in flight hide the consumer's wake-ups; 1 MiB frames also with
capacity 4, the old setting), the round trip host -> kernel -> callback and
publish -> callback (from the moment the consumer saw the frame's tag,
`vrt_memsock_seen_ns`, to the callback's first line: the wake-up, GIL and
Python call), and the kernel cost split into steps that do not fire (the
pipe bound, the fire skipped) and the average with a fire every 8 steps.
"""
import statistics
import time

import numpy as np

import benchlib

SIZES = {"64KiB": 64 << 10, "1MiB": 1 << 20, "16MiB": 16 << 20}
PRODUCER = 1 << 17  # invocations of the throughput producer: 512 groups, all resident on the H200


def _kernels(vp):
    # A producer of the size the device runs at once (a grid-stride loop
    # over the frame): with more fires a dispatch than slots, a grid larger
    # than that would wait for workgroups that cannot start (docs/memsock.md).
    @vp.kernel(local_size_x=256)
    def fill(pipe: vp.MemSock[vp.float32], first: vp.uint32, n: vp.uint32,
             elems: vp.uint32, stride: vp.uint32):
        p = vp.global_id()

        def body(seq: vp.uint32):
            q = vp.var(p)
            while q < elems:
                pipe[q] = vp.float32(seq)
                q += stride

        for j in range(n):
            pipe.fire(body, seq=first + j)

    @vp.kernel(local_size_x=64)
    def pingpong(ctrl: vp.Buffer[vp.uint32], pipe: vp.MemSock[vp.uint32], n: vp.uint32,
                 spins: vp.uint32):
        p = vp.global_id()

        def body(seq: vp.uint32):
            pipe[p] = seq

        for j in range(n):
            # the leader waits for the host's go (word 0 == j)
            if p == 0:
                k = vp.var(vp.uint32(0))
                while vp.atomic_add(ctrl[0], vp.uint32(0)) < j and k < spins:
                    k += 1
            vp.barrier()
            pipe.fire(body, seq=j)

    @vp.kernel(local_size_x=256)
    def scale_plain(src: vp.Buffer[vp.float32], dst: vp.Buffer[vp.float32], a: vp.float32):
        i = vp.global_id()
        dst[i] = src[i] * a

    @vp.kernel(local_size_x=256)
    def scale_piped(src: vp.Buffer[vp.float32], dst: vp.Buffer[vp.float32],
                    pipe: vp.MemSock[vp.float32], a: vp.float32, t: vp.uint32,
                    every: vp.uint32):
        i = vp.global_id()
        dst[i] = src[i] * a

        def body(step: vp.uint32):
            pipe[i] = dst[i]  # the first frame_elems elements; the rest are dropped

        if t % every == 0:
            pipe.fire(body, step=t)

    return fill, pingpong, scale_plain, scale_piped


def _throughput(vp, rec, fill, ctx, label, nbytes, quick, cpu, cap=16, copy_rate=True):
    elems = nbytes // 4
    per = cap if cpu else 16  # a GPU waits for credit; lavapipe cannot wait long
    rounds = 2 if quick else (8 if nbytes >= 16 << 20 else 32)
    pipe = vp.MemSock(dtype=vp.float32, frame_shape=(elems,), payload={"seq": vp.uint32})
    bad = []

    @pipe.on("message")
    def on_frame(frame, seq):
        if frame[0] != seq or frame[-1] != seq:
            bad.append(seq)

    pipe.open(ctx, capacity=cap, policy="block")
    grid = min(elems, PRODUCER)
    fill(pipe, dispatch=grid, first=0, n=1, elems=elems, stride=grid)  # compile, warm up
    samples, first = [], 1
    for _ in range(3 if quick else 7):
        t0 = time.perf_counter_ns()
        for _ in range(rounds):
            fill(pipe, dispatch=grid, first=first, n=per, elems=elems, stride=grid)
            first += per
        dt = time.perf_counter_ns() - t0
        samples.append(rounds * per * nbytes / dt)  # bytes/ns = GB/s
    st = pipe.stats
    pipe.close()
    if bad or st["dropped"] or st["torn"] or st["delivered"] != first:
        rec.error("memsock throughput", label, "vulpy",
                  f"frames wrong or lost: bad={bad[:5]} stats={st}")
        return
    name = "vulpy MemSock (block)" if cap == 16 else f"vulpy MemSock (block, capacity {cap})"
    rec.add("memsock throughput", label, name, samples, "GB/s")
    if not copy_rate:
        return
    # the plain copy of the same bytes, device -> host, in the same run: a
    # device-memory array read back into a NumPy array (the staging ring's
    # DMA), and CuPy's copy into pinned memory where CuPy is there (the
    # PCIe rate a CUDA user gets); the ratio is to the faster of the two
    src = vp.asarray(np.ones(elems, np.float32), memory="device")
    host = np.empty(elems, np.float32)
    copies = []
    for _ in range(3 if quick else 9):
        t0 = time.perf_counter_ns()
        src._buf.download(host)
        copies.append(nbytes / (time.perf_counter_ns() - t0))
    if not np.all(host == 1):
        rec.error("memsock throughput", label, "plain copy", "download gave wrong data")
        return
    rec.add("memsock throughput", label, "plain device->host copy", copies, "GB/s")
    best = statistics.median(copies)
    try:
        cp = benchlib.optional("cupy")
        dsrc = cp.ones(elems, cp.float32)
        pinned = cp.cuda.alloc_pinned_memory(nbytes)
        hp = np.frombuffer(pinned, np.float32, elems)
        cps = []
        for _ in range(3 if quick else 9):
            cp.cuda.runtime.deviceSynchronize()
            t0 = time.perf_counter_ns()
            dsrc.get(out=hp)
            cp.cuda.runtime.deviceSynchronize()
            cps.append(nbytes / (time.perf_counter_ns() - t0))
        if np.all(hp == 1):
            rec.add("memsock throughput", label, "cupy device->pinned host copy", cps, "GB/s")
            best = max(best, statistics.median(cps))
    except benchlib.Skip as e:
        rec.skip("memsock throughput", label, "cupy device->pinned host copy", str(e))
    ratio = statistics.median(samples) / best
    goal = {"goal": {"op": ">=", "target": 0.8, "issue": 16}} if nbytes >= 1 << 20 else {}
    rec.value("memsock / copy rate", label, "vulpy", float(f"{ratio:.3g}"), "x", **goal)


def _latency(vp, rec, pingpong, ctx, quick, cpu):
    """The kernel waits for the host's go (a control word), fires, the
    callback stamps it and sets the next go. On a GPU one dispatch runs n
    rounds; on lavapipe (frames delivered at the dispatch's end) one
    dispatch a round."""
    n = 1 if cpu else (200 if quick else 2000)
    rounds = (8 if quick else 32) if cpu else (4 if quick else 10)
    ctrl = vp.ControlBuffer(["go"], words=4)
    pipe = vp.MemSock(dtype=vp.uint32, frame_shape=(64,), payload={"seq": vp.uint32})
    stamps = {}
    native = None

    @pipe.on("message")
    def on_frame(frame, seq):
        now = time.perf_counter_ns()
        if frame[0] != seq:
            stamps["bad"] = seq
        stamps[seq] = now - stamps.get(("go", seq), now)
        stamps[("seen", seq)] = now - native.seen_ns()
        stamps[("go", seq + 1)] = time.perf_counter_ns()
        ctrl["go"] = seq + 1

    pipe.open(ctx, capacity=4, policy="block")
    native = pipe._native
    lat, pub = [], []
    for r in range(rounds):
        ctrl["go"] = 0
        stamps.clear()
        stamps[("go", 0)] = time.perf_counter_ns()
        pingpong(ctrl, pipe, dispatch=64, n=n, spins=20000 if cpu else 1 << 30)
        first = 0 if cpu else 1  # on a GPU round 0 includes the launch
        lat.extend(stamps[k] for k in range(first, n) if k in stamps)
        pub.extend(stamps[("seen", k)] for k in range(first, n) if ("seen", k) in stamps)
    st = pipe.stats
    pipe.close()
    if "bad" in stamps or not lat:
        rec.error("memsock round trip", "64 u32", "vulpy", f"wrong or no frames: {st}")
        return
    for case, xs in (("memsock host->GPU->callback round trip", lat),
                     ("memsock publish -> callback", pub)):
        us = sorted(x / 1e3 for x in xs)
        p99 = us[min(len(us) - 1, int(0.99 * len(us)))]
        goal = {"goal": {"op": "<=", "target": 20, "issue": 16}} \
            if case.startswith("memsock publish") else {}
        rec.add(case, "64 u32", "vulpy" + (" (a dispatch a frame)" if cpu else ""), us, "us",
                p99=round(p99, 2), **goal)


def _kernel_cost(vp, rec, plain, piped, ctx, quick, cpu):
    """A bandwidth-bound step (dst = src * a) with and without a 1 MiB frame
    fired every `every` steps: the slowdown the pipe costs the kernel."""
    n = (1 << 18) if (quick or cpu) else (1 << 26)
    every, steps = 8, (16 if (quick or cpu) else 256)
    frame = min(n, (1 << 20) // 4)
    src = vp.asarray(np.ones(n, np.float32))
    dst = vp.empty(n, dtype=np.float32)
    pipe = vp.MemSock(dtype=vp.float32, frame_shape=(frame,), payload={"step": vp.uint32})
    seen = []
    pipe.on("message", lambda f, step: seen.append(step))
    pipe.open(ctx, capacity=4, policy="skip")
    plain(src, dst, dispatch=n, a=2.0)
    piped(src, dst, pipe, dispatch=n, a=2.0, t=1, every=every)
    a_s, b_s, c_s = [], [], []
    for _ in range(3 if quick else 5):
        t0 = time.perf_counter_ns()
        for t in range(steps):
            plain(src, dst, dispatch=n, a=2.0)
        a_s.append((time.perf_counter_ns() - t0) / steps)
        t0 = time.perf_counter_ns()
        for t in range(steps):
            piped(src, dst, pipe, dispatch=n, a=2.0, t=t, every=every)
        b_s.append((time.perf_counter_ns() - t0) / steps)
        t0 = time.perf_counter_ns()
        for t in range(steps):  # the pipe bound, the fire never taken
            piped(src, dst, pipe, dispatch=n, a=2.0, t=1, every=1 << 30)
        c_s.append((time.perf_counter_ns() - t0) / steps)
    pipe.close()
    if not seen or seen[0] != 0:
        rec.error("memsock kernel cost", f"{n} f32", "vulpy", f"no frames: {pipe.stats}")
        return
    label = f"{n} f32, 1 MiB frame every {every} steps"
    rec.add("memsock kernel cost: step time", label, "without pipe", a_s, "us", scale=1e-3)
    rec.add("memsock kernel cost: step time", label, "with pipe", b_s, "us", scale=1e-3)
    rec.add("memsock kernel cost: step time", label, "with pipe, no fire", c_s, "us",
            scale=1e-3)
    rec.value("memsock kernel cost: slowdown", label, "vulpy",
              float(f"{statistics.median(b_s) / statistics.median(a_s):.3g}"), "x")


def run(ctx):
    vp = benchlib.vulpy()
    rec = benchlib.Recorder("memsock", ctx.device_label)
    context = vp.default_context()
    cpu = context.info.get("kind") == "cpu"
    fill, pingpong, plain, piped = _kernels(vp)
    for label, nbytes in SIZES.items():
        if (ctx.quick or cpu) and nbytes > (64 << 10):
            rec.skip("memsock throughput", label, "vulpy", "quick run / CPU device: 64 KiB only")
            continue
        try:
            _throughput(vp, rec, fill, context, label, nbytes, ctx.quick, cpu)
            if label == "1MiB":  # the old setting, for comparison
                _throughput(vp, rec, fill, context, label, nbytes, ctx.quick, cpu, cap=4,
                            copy_rate=False)
        except Exception as e:  # noqa: BLE001 - a record, and the run goes on
            rec.error("memsock throughput", label, "vulpy", repr(e))
    try:
        _latency(vp, rec, pingpong, context, ctx.quick, cpu)
    except Exception as e:  # noqa: BLE001
        rec.error("memsock round trip", "64 u32", "vulpy", repr(e))
    try:
        _kernel_cost(vp, rec, plain, piped, context, ctx.quick, cpu)
    except Exception as e:  # noqa: BLE001
        rec.error("memsock kernel cost", "", "vulpy", repr(e))
    return rec.records
