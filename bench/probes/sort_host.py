"""Where the host's part of one vp.sort of 2^26 resident keys goes (issue
19: the wall clock is ~0.45 ms above the sum of the dispatches' GPU
times). Median ms per call, blocks taking turns, CuPy's sort interleaved
when importable:

  wall        vp.sort(x) (x resident), as a user calls it
  sort_rows   the onesweep body (allocation, recording, run, read-back)
  pre-run     allocation + recording, before the submission
  run         Recording.run(): submission and the wait
  post-run    after the wait (the give-up word read)
  gpu sum     the dispatches' GPU times (a separate, timestamped call)
  spin        the wall clock with ctx.wait = 'spin' (never blocks), in a
              block of calls after the others
  blocked waits  per default-mode call (the adaptive spin-block mode
              blocks until a wait it saw lets it spin long enough)

    python bench/probes/sort_host.py [--log2n 26] [--rounds 15] [--path onesweep]
"""
import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

if not os.environ.get("PYTHONPATH"):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bindings" / "python"))
import vulpy as vp  # noqa: E402
from vulpy import _sort, _sort_onesweep  # noqa: E402

T = {}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--log2n", type=int, default=26)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--path", default=None, help="_sort.SORT_PATH (default: the device's)")
    a = ap.parse_args()
    _sort.SORT_PATH = a.path
    n = 1 << a.log2n
    ctx = vp.default_context()
    rng = np.random.default_rng(0)
    h = rng.standard_normal(n).astype(np.float32)
    x = vp.asarray(h)
    assert np.array_equal(vp.sort(x).numpy(), np.sort(h))
    try:
        import cupy as cp
        xc = cp.asarray(h)
        cp.sort(xc)
        cp.cuda.runtime.deviceSynchronize()
    except Exception:  # noqa: BLE001
        cp = None
    rows0, run0 = _sort_onesweep.sort_rows, _sort._Rec.run

    def rows(*args, **kw):
        t = T["rows_start"] = time.perf_counter()
        r = rows0(*args, **kw)
        T["rows"] = time.perf_counter() - t
        return r

    def run(self):
        t = time.perf_counter()
        T["pre"] = t - T.get("rows_start", t)
        run0(self)
        t2 = time.perf_counter()
        T["run"] = t2 - t
        T["run_end"] = t2

    _sort_onesweep.sort_rows, _sort._Rec.run = rows, run
    out = {k: [] for k in ("wall", "sort_rows", "pre-run", "run", "post-run", "spin", "cupy",
                           "gpu sum", "blocked waits")}
    for _ in range(a.rounds):
        w0 = ctx.stats().get("waits_blocked", 0)
        t = time.perf_counter()
        r = vp.sort(x)
        t1 = time.perf_counter()
        out["blocked waits"].append(ctx.stats().get("waits_blocked", 0) - w0)
        out["wall"].append(t1 - t)
        out["sort_rows"].append(T["rows"])
        out["pre-run"].append(T["pre"])
        out["run"].append(T["run"])
        out["post-run"].append(T["rows_start"] + T["rows"] - T["run_end"])
        del r
        if cp is not None:
            t = time.perf_counter()
            rc = cp.sort(xc)
            cp.cuda.runtime.deviceSynchronize()
            out["cupy"].append(time.perf_counter() - t)
            del rc
        _sort.PROFILE = True
        r = vp.sort(x)
        _sort.PROFILE = False
        out["gpu sum"].append(sum(ms for _, ms in _sort.last_times) / 1e3)
        del r
    # the spin mode's block after the default mode's (changing ctx.wait
    # starts a mode from its base spin: toggling it each round would keep
    # the default mode's adaptive spin from ever growing)
    keep = ctx.wait
    ctx.wait = "spin"
    for _ in range(a.rounds):
        t = time.perf_counter()
        r = vp.sort(x)
        out["spin"].append(time.perf_counter() - t)
        del r
    ctx.wait = keep
    print(f"device: {ctx.info['name']}; sort float32 2^{a.log2n}; path {_sort.last_path}")
    for k, v in out.items():
        if v:
            m = statistics.median(v)
            print(f"  {k:14s} {m if k == 'blocked waits' else m * 1e3:8.3f}"
                  f"{'' if k == 'blocked waits' else ' ms'}")


if __name__ == "__main__":
    main()
