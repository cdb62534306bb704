"""Per-call cost of the three array entry points against a tiny @vp.kernel
call measured in the same process, in blocks that take turns (so the
figures are ratios that survive this machine's noise):

  ufunc out=    vp.sin(x, out=y) on resident float32[2^10]
  ufunc new     vp.add(x, x) on resident float32[2^10] (a new result)
  jit out=      vp.jit(lambda a: vp.sin(a) + vp.exp(a))(x, out=y), 2^10
  conv 1M       vp.sin(h) + vp.exp(h) on NumPy float32[2^20]
  kernel        @vp.kernel y[i] = a * x[i], dispatch=2^10 (the reference)

    .venv/bin/python bench/probes/percall_paths.py [--iters 2000]

Prints the median microseconds of each and its ratio to `kernel`. Issue 14
("One array path") keeps these ratios from growing when the eager ufuncs
move onto the array path.
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bindings" / "python"))
import vulpy as vp  # noqa: E402


@vp.kernel(local_size_x=64)
def _tiny(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32], a: vp.float32):
    i = vp.global_id()
    y[i] = a * x[i]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iters", type=int, default=2000)
    ap.add_argument("--big", type=int, default=1 << 20)
    args = ap.parse_args()
    n = 1 << 10
    xh = np.linspace(0, 1, n, dtype=np.float32)
    x, y = vp.asarray(xh), vp.zeros(n, np.float32)
    big = np.linspace(0, 1, args.big, dtype=np.float32)
    f = vp.jit(lambda a: vp.sin(a) + vp.exp(a))
    cases = {
        "kernel": lambda: _tiny(x, y, dispatch=n, a=2.0),
        "ufunc out=": lambda: vp.sin(x, out=y),
        "ufunc new": lambda: vp.add(x, x),
        "jit out=": lambda: f(x, out=y),
        "conv 1M": lambda: vp.sin(big) + vp.exp(big),
    }
    for fn in cases.values():  # warm: compile, pipelines, pools
        for _ in range(5):
            fn()
    np.testing.assert_allclose(f(x).numpy(), np.sin(xh) + np.exp(xh), rtol=1e-5)
    times = {k: [] for k in cases}
    block = 50
    for _ in range(max(args.iters // block, 1)):
        for k, fn in cases.items():
            reps = block if k != "conv 1M" else max(block // 10, 1)
            for _ in range(reps):
                t0 = time.perf_counter_ns()
                fn()
                times[k].append(time.perf_counter_ns() - t0)
    ref = statistics.median(times["kernel"])
    print(f"{'case':12s} {'median us':>10s} {'/ kernel':>9s}")
    for k, t in times.items():
        m = statistics.median(t)
        print(f"{k:12s} {m / 1e3:10.2f} {m / ref:9.2f}")


if __name__ == "__main__":
    main()
