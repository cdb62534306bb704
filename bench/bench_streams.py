"""Streams (issue 18, docs/multidevice.md "Streams"): a host -> device
upload on a transfer stream beside a bandwidth-bound kernel on a compute
stream. The goal: both together in at most 1.1x the longer of the two
alone (the copy engine and the SMs overlap).

The upload is `big.set(host)` of a 256 MB float32 array into 'device'
memory on a context made with no_device_mapping=True, so it always takes
the staging ring (memcpy into pinned slots, vkCmdCopyBuffer on the
transfer stream's queue: a transfer-only queue family where the device has
one). The kernel is y = x * a + b over 256 MB, repeated R times so that the
compute alone lasts about as long as the upload alone (R is calibrated
first), submitted with sync=False on a compute stream. Per round,
interleaved: upload alone (then stream.synchronize), compute alone, and
both (the kernels submitted first, then the upload, then both streams
synchronized); the results are cleared before the overlapped run and its
values checked every round. Records: the three times,
the upload's GB/s, and total / max(upload alone, compute alone) with the
goal. Where the streams share one queue (lavapipe: one queue; `shared` in
the backend label) nothing overlaps and the ratio says so.

A second overlap row launches the kernels from another Python thread
while the upload runs (the upload's staging memcpy must not hold the
context lock that the launches need: runtime/staging.c).

Then transfers by sharing mode (docs/multidevice.md, "Streams"): the
compare suite's 256 MiB rows (upload 'device' through the staging ring,
upload 'rebar' and download 'cached' through the mapping, download
'device') on four contexts, interleaved: one queue (VULPY_STREAM_QUEUES=0,
EXCLUSIVE buffers), the default (several queues, buffers EXCLUSIVE while no
transfer stream lives), VULPY_SHARING=concurrent (every buffer CONCURRENT
over the compute and transfer families: the behaviour before), and the
default with a live transfer stream (its buffers CONCURRENT; device copies
on the transfer queue). Each as GB/s and as a ratio to one queue: the
default should be 1.0; the concurrent rows say what CONCURRENT costs.

    bash bench/device/suites.sh --suites streams         (the H200)
    python bench/run.py --suite streams --quick   (here, lavapipe: 16 MB)
"""
import os
import threading
import time

import numpy as np

import benchlib


def _kernel(vp, ctx):
    @vp.kernel(local_size_x=256, context=ctx)
    def axpb(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32], n: vp.uint32,
             a: vp.float32, b: vp.float32):
        i = vp.global_id()
        if i < n:
            y[i] = x[i] * a + b

    return axpb


def run(ctx):
    vp = benchlib.vulpy()
    rec = benchlib.Recorder("streams", ctx.device_label)
    c = vp.Context(no_device_mapping=True)
    cpu = c.info.get("kind") == "cpu"
    nbytes = (16 << 20) if (ctx.quick or cpu) else (256 << 20)
    n = nbytes // 4
    label = f"{nbytes >> 20} MB"
    reps = 3 if ctx.quick else 7
    try:
        axpb = _kernel(vp, c)
        cs, ts = vp.Stream(c, "compute"), vp.Stream(c, "transfer")
        backend = (f"compute q{cs.queue_family}.{cs.queue_index} + transfer "
                   f"q{ts.queue_family}.{ts.queue_index}"
                   + (" (shared queue)" if ts.shared or cs.shared else ""))
        host = np.arange(n, dtype=np.float32) % np.float32(4093)
        big = vp.empty(n, np.float32, context=c, memory="device")
        x = vp.asarray(np.ones(n, np.float32), context=c, memory="device")
        y = vp.empty(n, np.float32, context=c, memory="device")

        def upload():
            t0 = time.perf_counter_ns()
            with ts:
                big.set(host)
            ts.synchronize()
            return time.perf_counter_ns() - t0

        def compute(r):
            t0 = time.perf_counter_ns()
            with cs:
                for _ in range(r):
                    axpb(x, y, dispatch=n, n=n, a=2.0, b=1.0, sync=False)
            cs.synchronize()
            return time.perf_counter_ns() - t0

        def both(r):
            t0 = time.perf_counter_ns()
            with cs:
                for _ in range(r):
                    axpb(x, y, dispatch=n, n=n, a=2.0, b=1.0, sync=False)
            with ts:
                big.set(host)
            cs.synchronize()
            ts.synchronize()
            return time.perf_counter_ns() - t0

        # warm up (compile, first-touch pages), then calibrate R: compute ~ upload
        upload()
        compute(1)
        u = min(upload() for _ in range(2))
        k = min(compute(1) for _ in range(2))
        r = max(1, min(200, round(u / max(k, 1))))
        ups, comps, tots = [], [], []
        ok = True
        zeros = np.zeros(n, np.float32)
        for i in range(reps):
            ups.append(upload())
            comps.append(compute(r))
            # clear both results (untimed, then a full wait) so the check below
            # sees what the overlapped round wrote
            big.set(zeros)
            y.set(zeros)
            c.synchronize()
            tots.append(both(r))
            got = big.numpy()[:: max(1, n // 4096)]
            if not np.array_equal(got, host[:: max(1, n // 4096)]):
                rec.error("upload beside a kernel", label, backend, "the upload's values differ")
                ok = False
                break
            yv = y.numpy()[:: max(1, n // 4096)]
            if not np.all(yv == np.float32(3)):
                rec.error("upload beside a kernel", label, backend, "the kernel's values differ")
                ok = False
                break
        if ok:
            extra = dict(kernels=r, shared=bool(ts.shared or cs.shared))
            rec.add("upload alone (transfer stream)", label, backend, ups, "ms", scale=1e-6,
                    **extra)
            rec.add("upload alone (transfer stream): GB/s", label, backend, ups, "GB/s",
                    scale=float(nbytes), inverse=True, **extra)
            rec.add(f"compute alone ({r} x y = x*a+b)", label, backend, comps, "ms",
                    scale=1e-6, **extra)
            rec.add("upload + compute on two streams", label, backend, tots, "ms", scale=1e-6,
                    **extra)
            longer = [max(a, b) for a, b in zip(ups, comps)]
            g = rec.ratio("total / max(upload alone, compute alone)", label, tots, longer,
                          higher_is_better=False, **extra)
            if g is not None:
                g["goal"] = {"op": "<=", "target": 1.1, "issue": 18}
            _threaded(rec, label, backend, both_threads(r, ts, cs, axpb, big, host, x, y, n),
                      ups, comps, big, y, host, zeros, c, n, extra)
    except Exception as e:  # noqa: BLE001 - a record, and the run goes on
        rec.error("upload beside a kernel", label, "streams", repr(e))
    _cross_context(vp, rec, c, label, ctx.quick)
    _sharing(vp, rec, ctx.quick)
    return rec.records


def both_threads(r, ts, cs, axpb, big, host, x, y, n):
    """The overlapped round with the kernels launched one by one from a
    second thread while this one uploads."""
    def run():
        go = threading.Barrier(2)

        def launches():
            go.wait()
            with cs:
                for _ in range(r):
                    axpb(x, y, dispatch=n, n=n, a=2.0, b=1.0, sync=False)

        t = threading.Thread(target=launches)
        t.start()
        go.wait()
        t0 = time.perf_counter_ns()
        with ts:
            big.set(host)
        t.join()
        cs.synchronize()
        ts.synchronize()
        return time.perf_counter_ns() - t0
    return run


def _threaded(rec, label, backend, both, ups, comps, big, y, host, zeros, c, n, extra):
    tots = []
    step = max(1, n // 4096)
    for _ in range(len(ups)):
        big.set(zeros)
        y.set(zeros)
        c.synchronize()
        tots.append(both())
        if not (np.array_equal(big.numpy()[::step], host[::step])
                and np.all(y.numpy()[::step] == np.float32(3))):
            rec.error("upload + kernels launched by another thread", label, backend,
                      "values differ")
            return
    rec.add("upload + kernels launched by another thread", label, backend, tots, "ms",
            scale=1e-6, **extra)
    longer = [max(a, b) for a, b in zip(ups, comps)]
    g = rec.ratio("threads: total / max(upload alone, compute alone)", label, tots, longer,
                  higher_is_better=False, **extra)
    if g is not None:
        g["goal"] = {"op": "<=", "target": 1.1, "issue": 18}


SHARING = (
    ("one queue", {"VULPY_STREAM_QUEUES": "0"}, False),
    ("default (EXCLUSIVE)", {}, False),
    ("VULPY_SHARING=concurrent", {"VULPY_SHARING": "concurrent"}, False),
    ("transfer stream (CONCURRENT)", {}, True),
)


def _context(vp, env):
    """A context made with `env` set (the runtime reads it when the
    context is made), the environment restored after."""
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        return vp.Context()
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _sharing(vp, rec, quick):
    try:
        probe = vp.Context()
        cpu = probe.info.get("kind") == "cpu"
        del probe
        mib = 16 if (quick or cpu) else 256
        nbytes = mib << 20
        n = nbytes // 4
        x = np.random.default_rng(6).integers(0, 2**32, n, dtype=np.uint32).view(np.float32)
        out = np.empty_like(x)
        reps = 3 if quick else 7
        setups = []
        for name, env, stream in SHARING:
            c = _context(vp, env)
            ts = vp.Stream(c, "transfer") if stream else None
            arrs = {k: vp.asarray(x, context=c, memory=k) for k in ("device", "rebar", "cached")}
            fam = (f"{name}: transfer family q{ts.queue_family}" if ts is not None
                   else name)
            setups.append((name, c, ts, arrs, fam))

        def op(setup, what, kind):
            _, c, ts, arrs, _ = setup
            a = arrs[kind]

            def run():
                t0 = time.perf_counter_ns()
                if ts is not None:
                    with ts:
                        a.set(x) if what == "upload" else a.get(out=out)
                    ts.synchronize()
                else:
                    a.set(x) if what == "upload" else a.get(out=out)
                    c.synchronize()
                return time.perf_counter_ns() - t0
            return run

        for what, kind in (("upload", "device"), ("upload", "rebar"), ("download", "cached"),
                           ("download", "device")):
            case = f"{what} {mib} MiB, memory={kind}, by sharing mode"
            runs = [op(s, what, kind) for s in setups]
            for r in runs:  # warm up (first-touch pages, staging rings)
                r()
            samples = [[] for _ in runs]
            for _ in range(reps):
                for i, r in enumerate(runs):
                    samples[i].append(r())
            if what == "download":
                for s in setups:
                    got = s[3][kind].numpy()[:: max(1, n // 4096)]
                    if not np.array_equal(got.view(np.uint32),
                                          x[:: max(1, n // 4096)].view(np.uint32)):
                        rec.error(case, mib << 20, s[0], "values differ")
            for (name, _, _, _, fam), smp in zip(setups, samples):
                rec.add(case, nbytes, fam, smp, "GB/s", scale=float(nbytes), inverse=True)
            for (name, _, _, _, _), smp in zip(setups[1:], samples[1:]):
                rec.ratio(f"{case}: {name} / one queue (speed)", nbytes, smp, samples[0],
                          higher_is_better=True)
        for s in setups:
            s[1].synchronize()
    except Exception as e:  # noqa: BLE001
        rec.error("transfers by sharing mode", 0, "streams", repr(e))


def _cross_context(vp, rec, c, label, quick):
    """An event of one context waited for by a stream of a second context
    on the same device: how (an exported semaphore where the driver has
    VK_KHR_external_semaphore_fd, else a host wait) and how long
    wait_event() holds the host while the first context's kernels run (a
    device wait returns at once; a host wait lasts the kernels)."""
    try:
        c2 = vp.Context(device_index=c.index)
        axpb = _kernel(vp, c)
        n = (4 << 20) if quick else (64 << 20)
        x = vp.asarray(np.ones(n, np.float32), context=c)
        y = vp.empty(n, np.float32, context=c)
        sa, sb = vp.Stream(c), vp.Stream(c2)
        hows, held = set(), []
        for _ in range(3 if quick else 7):
            with sa:
                for _ in range(4):
                    axpb(x, y, dispatch=n, n=n, a=2.0, b=1.0, sync=False)
            ev = sa.record()
            t0 = time.perf_counter_ns()
            hows.add(sb.wait_event(ev))
            held.append(time.perf_counter_ns() - t0)
            sb.synchronize()
            sa.synchronize()
        how = "/".join(sorted(hows))
        rec.add("cross-context event: wait_event() holds the host", label,
                f"{how} ({c.name} -> second context)", held, "us", scale=1e-3, how=how)
    except Exception as e:  # noqa: BLE001
        rec.error("cross-context event", label, "streams", repr(e))
