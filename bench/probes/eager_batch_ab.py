"""Is batching eager dispatches faster on this GPU? `c = a + b` and
`vp.sin(a) + vp.exp(a)` at 2^20 float32, timed per call + synchronize, in
blocks that take turns: eager_batch 1, 8 and "adaptive" (runtime/eager.c),
default and 'device' memory, and CuPy beside them; the submissions per
call of each batching beside its time. (The memory suite's "batched /
eager_batch=1" rows on the H200 disagreed with its own default rows; this
probe settles which default to keep.)

    python bench/probes/eager_batch_ab.py [--n 1048576] [--blocks 20]

--loops: the pipelined loops adaptive batching was slow on (H200,
2026-12-02/03) against eager_batch 1, in one process, blocks interleaved:
`c = a + b` and `vp.sin(x) + vp.exp(x)` at 2^20, 2^24, 2^27 in the default
memory and 'device', `vp.add(a, b, out=c)` at 2^20, and the memory suite's
FDTD-like loop at 2^24 (allocating against preallocated). Each block is
`inner` calls (20 / 8 / 3 by size, as bench/bench_memory.py) and one
synchronize; it prints the total and the host's issue time per call (a host
time near the total: the host blocked, not the GPU) and the stats per call
(submits, flusher sends, eager_drained: held batches sent with the queue
empty, i.e. GPU bubbles; driver allocations, pool waits). Adaptive keeps
VULPY_EAGER_INFLIGHT (default 2) submissions in flight before it holds;
--inflight 1,2,3 reruns the loops once per value, each in its own process;
--flusher-us 0,20 likewise for VULPY_EAGER_FLUSHER_US (0: the flusher
blocks in vkWaitSemaphores; 20: it polls every 20 us), crossed with
--inflight when both are given.

    python bench/probes/eager_batch_ab.py --loops [--blocks 10] [--quick]
    python bench/probes/eager_batch_ab.py --loops --inflight 1,2 --flusher-us 0,20
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

import numpy as np


STATS = ("submits", "eager_flushes", "eager_drained", "driver_allocations", "pool_waits",
         "pool_ordered")


def loops(a):
    """The pipelined loops, batch 1 against adaptive, interleaved."""
    import vulpy as vp
    ctx = vp.default_context()
    sizes = [1 << 16, 1 << 20] if a.quick else [1 << 20, 1 << 24, 1 << 27]
    fdtd_n = 1 << 16 if a.quick else 1 << 24
    cases = {}  # name -> (calls per block, fn, check)
    for n in sizes:
        inner = 20 if n <= 1 << 20 else 8 if n <= 1 << 24 else 3
        hx = np.random.default_rng(0).random(n, dtype=np.float32)
        for mem in dict.fromkeys((ctx.default_memory, "device")):
            xa, xb = vp.asarray(hx, memory=mem), vp.asarray(hx, memory=mem)

            def add(xa=xa, xb=xb, inner=inner):
                for _ in range(inner):
                    c = xa + xb
                return c

            def sinexp(xa=xa, inner=inner):
                for _ in range(inner):
                    c = vp.sin(xa) + vp.exp(xa)
                return c
            cases[f"c = a + b 2^{n.bit_length() - 1} {mem}"] = (inner, add, hx + hx)
            cases[f"sin+exp 2^{n.bit_length() - 1} {mem}"] = (inner, sinexp, np.sin(hx) + np.exp(hx))
            if n == 1 << 20:
                out = vp.empty(n, memory=mem)

                def addout(xa=xa, xb=xb, out=out, inner=inner):
                    for _ in range(inner):
                        vp.add(xa, xb, out=out)
                    return out
                cases[f"add out= 2^20 {mem}"] = (inner, addout, hx + hx)
    e0 = np.linspace(0, 1, fdtd_n, dtype=np.float32)
    he = vp.asarray(e0)
    E, H, T = vp.empty(fdtd_n), vp.empty(fdtd_n), vp.empty(fdtd_n)

    def fdtd_alloc():
        e, h = he.copy(), vp.zeros(fdtd_n)
        for _ in range(40):
            h = h + 0.5 * e
            e = e + 0.5 * h
        return e

    def fdtd_pre():
        E._buf.copy_from(he._buf)
        H.fill(0)
        for _ in range(40):
            vp.multiply(E, 0.5, out=T)
            vp.add(H, T, out=H)
            vp.multiply(H, 0.5, out=T)
            vp.add(E, T, out=E)
        return E
    e, h = e0.copy(), np.zeros(fdtd_n, np.float32)
    for _ in range(40):
        h = h + np.float32(0.5) * e
        e = e + np.float32(0.5) * h
    lg = fdtd_n.bit_length() - 1
    cases[f"FDTD 40 steps allocating 2^{lg}"] = (160, fdtd_alloc, e)
    cases[f"FDTD 40 steps prealloc 2^{lg}"] = (160, fdtd_pre, e)
    modes = (1, "adaptive")
    tot = {(k, m): [] for k in cases for m in modes}
    host = {(k, m): [] for k in cases for m in modes}
    st = {(k, m): dict.fromkeys(STATS, 0) for k in cases for m in modes}
    for (k, (inner, fn, want)) in cases.items():  # results first, once per mode
        for m in modes:
            ctx.eager_batch = m
            got = fn()
            ctx.synchronize()
            h = got.copy(memory="cached").numpy() if got.memory in ("rebar", "device") else got.numpy()
            np.testing.assert_allclose(h, want, rtol=1e-4, atol=1e-5, err_msg=f"{k}, batch {m}")
            del got
    for _ in range(a.blocks):
        for k, (inner, fn, _) in cases.items():
            for m in modes:
                ctx.eager_batch = m
                fn()  # the untimed block before each timed one
                ctx.synchronize()
                s0 = ctx.stats()
                t0 = time.perf_counter_ns()
                r = fn()
                t1 = time.perf_counter_ns()
                ctx.synchronize()
                t2 = time.perf_counter_ns()
                s1 = ctx.stats()
                del r
                tot[k, m].append((t2 - t0) / inner)
                host[k, m].append((t1 - t0) / inner)
                for s in STATS:
                    st[k, m][s] += s1.get(s, 0) - s0.get(s, 0)
    inflight = os.environ.get("VULPY_EAGER_INFLIGHT", "default (2)")
    fus = os.environ.get("VULPY_EAGER_FLUSHER_US", "default (0: blocks)")
    print(f"device {ctx.name}, memory {ctx.default_memory}, VULPY_EAGER_INFLIGHT {inflight}, "
          f"VULPY_EAGER_FLUSHER_US {fus}, "
          f"{a.blocks} blocks; us per call (median; p10-p90), host issue us per call, stats per call")
    for k, (inner, _, _) in cases.items():
        for m in modes:
            v = tot[k, m]
            calls = inner * a.blocks
            per = " ".join(f"{s}={st[k, m][s] / calls:.2f}" for s in STATS)
            print(f"{k:32s} batch {str(m):8s} {statistics.median(v) / 1e3:9.2f} "
                  f"({np.percentile(v, 10) / 1e3:.2f}-{np.percentile(v, 90) / 1e3:.2f})  host "
                  f"{statistics.median(host[k, m]) / 1e3:8.2f}  {per}")
        r = statistics.median(tot[k, "adaptive"]) / statistics.median(tot[k, 1])
        print(f"{'':32s} adaptive / batch 1 = {r:.3f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1 << 20)
    ap.add_argument("--blocks", type=int, default=None)
    ap.add_argument("--loops", action="store_true", help="the pipelined loops (see above)")
    ap.add_argument("--quick", action="store_true", help="--loops at small sizes (lavapipe)")
    ap.add_argument("--inflight", default=None, help="--loops once per VULPY_EAGER_INFLIGHT value")
    ap.add_argument("--flusher-us", default=None,
                    help="--loops once per VULPY_EAGER_FLUSHER_US value (0: blocking flusher)")
    a = ap.parse_args()
    if a.loops:
        a.blocks = a.blocks or 10
        if a.inflight or a.flusher_us:
            for k in (a.inflight or os.environ.get("VULPY_EAGER_INFLIGHT", "2")).split(","):
                for us in (a.flusher_us or os.environ.get("VULPY_EAGER_FLUSHER_US", "0")).split(","):
                    argv = [sys.executable, __file__, "--loops", "--blocks", str(a.blocks)]
                    argv += ["--quick"] if a.quick else []
                    env = dict(os.environ, VULPY_EAGER_INFLIGHT=k, VULPY_EAGER_FLUSHER_US=us)
                    subprocess.run(argv, env=env, check=True)
            return
        loops(a)
        return
    a.blocks = a.blocks or 20
    import vulpy as vp
    ctx = vp.default_context()
    default = ctx.eager_batch
    x = np.random.default_rng(0).random(a.n, dtype=np.float32)
    cases = {}
    for mem in (ctx.default_memory, "device"):
        xa, xb = vp.asarray(x, memory=mem), vp.asarray(x, memory=mem)
        for batch in (1, 8, "adaptive"):
            def add(xa=xa, xb=xb):
                return xa + xb
            def sinexp(xa=xa):
                return vp.sin(xa) + vp.exp(xa)
            cases[f"a + b, {mem}, batch {batch}"] = (batch, add)
            cases[f"sin + exp, {mem}, batch {batch}"] = (batch, sinexp)
    try:
        import cupy as cp
        ca, cb = cp.asarray(x), cp.asarray(x)
        cases["a + b, cupy"] = (None, lambda: ca + cb)
        cases["sin + exp, cupy"] = (None, lambda: cp.sin(ca) + cp.exp(ca))
        csync = cp.cuda.Device().synchronize
    except Exception:  # noqa: BLE001
        csync = None
    got = {k: [] for k in cases}
    subs = {k: [0, 0] for k in cases}  # submits, calls
    for _ in range(a.blocks):
        for k, (batch, fn) in cases.items():
            if batch is not None:
                ctx.eager_batch = batch
                sync = ctx.synchronize
            else:
                sync = csync
            for _ in range(5):
                fn(); sync()
            s0 = ctx.stats()["submits"]
            for _ in range(20):
                t0 = time.perf_counter_ns()
                fn()
                sync()
                got[k].append(time.perf_counter_ns() - t0)
            subs[k][0] += ctx.stats()["submits"] - s0
            subs[k][1] += 20
    print(f"device {ctx.name}, default eager_batch {default}, n {a.n}")
    for k, v in got.items():
        per = f", {subs[k][0] / subs[k][1]:.2f} submits/call" if cases[k][0] is not None else ""
        print(f"{k:40s} {statistics.median(v) / 1e3:8.2f} us  (p10 {np.percentile(v, 10) / 1e3:.2f}, "
              f"p90 {np.percentile(v, 90) / 1e3:.2f}{per})")


if __name__ == "__main__":
    main()
