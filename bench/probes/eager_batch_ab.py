"""Is batching eager dispatches faster on this GPU? `c = a + b` and
`vp.sin(a) + vp.exp(a)` at 2^20 float32, timed per call + synchronize, in
blocks that take turns: eager_batch 1, 8 and "adaptive" (runtime/eager.c),
default and 'device' memory, and CuPy beside them; the submissions per
call of each batching beside its time. (The memory suite's "batched /
eager_batch=1" rows on the H200 disagreed with its own default rows; this
probe settles which default to keep.)

    python bench/probes/eager_batch_ab.py [--n 1048576] [--blocks 20]
"""
import argparse
import statistics
import time

import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1 << 20)
    ap.add_argument("--blocks", type=int, default=20)
    a = ap.parse_args()
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
