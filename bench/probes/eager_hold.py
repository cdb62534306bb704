"""Why adaptive eager batching holds nothing on a device (the H200,
2026-12-03: test_eager_adaptive's random chains submitted every dispatch
even behind 0.4 s of GPU work). Behind a long kernel, a few eager ops on
arrays of each memory kind; after each, the stats that say what happened
(submits, held, zero fills, gpu/cpu zero bytes, open launches).

    bash bench/device/probes.sh 60 'bench/probes/eager_hold.py'
"""
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bindings" / "python"))
import vulpy as vp  # noqa: E402


@vp.kernel(local_size_x=256)
def spin(x: vp.Buffer[vp.float32], iters: vp.uint32):
    i = vp.global_id()
    v = x[i]
    for _ in range(iters):
        v = vp.sin(v) * 0.5 + 0.25
    x[i] = v


KEYS = ("submits", "dispatches", "eager_held", "eager_flushes", "gpu_zero_bytes",
        "cpu_zero_bytes", "zero_fills_dropped", "open_launches", "reused_launches")


def main():
    c = vp.Context()
    c.eager_batch = "adaptive"
    print(c.name, c.kind, "default memory", c.default_memory, "eager_batch", c.eager_batch,
          flush=True)
    iters = 4096 if c.kind == "cpu" else 65536
    n = 1 << 10
    while True:  # a spin of >= 50 ms
        s = vp.zeros(n, np.float32, context=c)
        t = time.perf_counter()
        spin(s, iters=iters, dispatch=n)
        c.synchronize()
        dt = time.perf_counter() - t
        if dt > 0.05 or n >= 1 << 26:
            break
        n *= 4
    print(f"spin: {n} elements, {dt * 1e3:.1f} ms", flush=True)
    for kind in [None, "device", "rebar", "host", "cached"]:
        try:
            kw = {} if kind is None else {"memory": kind}
            x = vp.asarray(np.ones(1 << 16, np.float32), context=c, **kw)
            y = vp.asarray(np.ones(1 << 16, np.float32), context=c, **kw)
        except Exception as e:  # noqa: BLE001
            print(f"{kind}: {type(e).__name__}: {e}"[:200])
            continue
        vp.add(x, 1.0, out=x)
        x + y
        c.synchronize()
        s = vp.zeros(n, np.float32, context=c)
        spin(s, iters=iters, dispatch=n, sync=False)
        spin(s, iters=iters, dispatch=n, sync=False)
        prev = c.stats()
        print(f"[{kind or 'default'}] after the spins: " +
              " ".join(f"{k}={prev[k]}" for k in KEYS), flush=True)
        for step, f in enumerate([lambda: vp.add(x, 1.0, out=x)] * 3 + [lambda: x + y] * 3
                                 + [lambda: vp.add(x, y, out=y)] * 2):
            f()
            s1 = c.stats()
            print(f"  op {step}: " + " ".join(f"{k}+{s1[k] - prev[k]}" for k in KEYS), flush=True)
            prev = s1
        c.synchronize()


if __name__ == "__main__":
    main()
