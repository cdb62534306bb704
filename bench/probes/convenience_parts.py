"""Where the convenience call `vp.sin(x) + vp.exp(x)` (NumPy float32[1M] in
and out, compare suite's case 2) spends its time, part by part, beside
CuPy's `cp.asnumpy(cp.sin(cp.asarray(x)) + cp.exp(cp.asarray(x)))` when
CuPy is importable. Blocks that take turns; median ms per call:

  whole          vp.sin(x) + vp.exp(x), the context's default wait
                 (spin-block, whose spin follows the last waits' length)
  whole, spin    the same with ctx.wait = 'spin' (never blocks: what
                 waiting costs at most)
  whole, fixed   the same in spin-block with the spin held at its base
                 (100 us: the wait before the adaptive spin): each wait of
                 a longer dispatch blocks and pays the driver's wake-up
  one vp.sin(x)  one call: import cache hit, dispatch reading x over PCIe
                 and writing its result into host memory, the wait
  host add       NumPy's `+` of two such results (the user's own op)
  numpy add      the same `+` of np.sin(x) and np.exp(x): whether VulPy's
                 results read slower than NumPy's own arrays
  add out=       np.add of VulPy's results into one preallocated array:
                 what the new result's first touch (page faults) costs
  resident in    vp.sin(xr, out=oc) + synchronize, xr resident in 'device'
                 memory, oc in 'cached' (host) memory: one vp.sin(x)
                 without the kernel's read of x over PCIe (nor the Python
                 of a NumPy call)
  cupy           CuPy's round trip (two uploads, two kernels and an add on
                 the GPU, one download)

Also printed: the context's blocked waits per whole call in each mode
(`ctx.stats()['waits_blocked']`).

    .venv/bin/python bench/probes/convenience_parts.py [--n 1000000] [--rounds 20]

The H200 run of issue 14 reads `whole` against `cupy` (the goal: cupy /
whole >= 1.5) and `whole, fixed` against `whole` (what the adaptive spin
took off).
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bindings" / "python"))
import vulpy as vp  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--block", type=int, default=10)
    args = ap.parse_args()
    ctx = vp.default_context()
    x = np.linspace(0.0, 1.0, args.n, dtype=np.float32)
    want = np.sin(x) + np.exp(x)
    np.testing.assert_allclose(vp.sin(x) + vp.exp(x), want, rtol=1e-5, atol=1e-6)
    xr = vp.asarray(x, memory="device")
    oc = vp.empty(args.n, np.float32, memory="cached")
    r1, r2 = vp.sin(x), vp.exp(x)
    a1, a2 = np.sin(x), np.exp(x)
    ho = np.empty_like(a1)
    mode0 = ctx.wait

    def with_wait(mode, fixed=False):
        # set_wait starts the mode from its base spin: `fixed` sets it again
        # before each op, so no op spins longer because of the one before
        def run():
            keep = ctx.wait
            ctx.wait = mode
            try:
                s = vp.sin(x)
                if fixed:
                    ctx.wait = mode
                return s + vp.exp(x)
            finally:
                ctx.wait = keep
        return run

    cases = {
        "whole": lambda: vp.sin(x) + vp.exp(x),
        "whole, spin": with_wait("spin"),
        "whole, fixed": with_wait("spin-block", fixed=True),
        "one vp.sin(x)": lambda: vp.sin(x),
        "host add": lambda: r1 + r2,
        "numpy add": lambda: a1 + a2,
        "add out=": lambda: np.add(r1, r2, out=ho),
        "resident in": lambda: (vp.sin(xr, out=oc), ctx.synchronize()),
    }
    try:
        import cupy as cp
        cp.zeros(1)

        def cupy_fn():
            return cp.asnumpy(cp.sin(cp.asarray(x)) + cp.exp(cp.asarray(x)))
        np.testing.assert_allclose(cupy_fn(), want, rtol=1e-5, atol=1e-6)
        cases["cupy"] = cupy_fn
    except Exception as e:  # noqa: BLE001 - no CuPy or no CUDA device
        print(f"(cupy skipped: {type(e).__name__}: {str(e)[:80]})")
    times = {k: [] for k in cases}
    blocked = {k: [] for k in cases if k.startswith("whole")}
    for _ in range(args.rounds):
        for k, fn in cases.items():
            fn()  # untimed: the GPU switches to this block's API, the spin settles
            b0 = ctx.stats()["waits_blocked"]
            for _ in range(args.block):
                t0 = time.perf_counter_ns()
                fn()
                times[k].append(time.perf_counter_ns() - t0)
            if k in blocked:
                blocked[k].append((ctx.stats()["waits_blocked"] - b0) / args.block)
    ctx.wait = mode0
    ref = statistics.median(times["whole"])
    print(f"{ctx.name}, n = {args.n}, {args.rounds} rounds of {args.block}")
    print(f"{'part':16s} {'median ms':>10s} {'/ whole':>8s}")
    for k, t in times.items():
        m = statistics.median(t)
        extra = f"  blocked waits/call {statistics.median(blocked[k]):.2f}" if k in blocked else ""
        print(f"{k:16s} {m / 1e6:10.4f} {m / ref:8.3f}{extra}")
    if "cupy" in times:
        print(f"cupy / whole (the goal: >= 1.5): {statistics.median(times['cupy']) / ref:.3f}")


if __name__ == "__main__":
    main()
