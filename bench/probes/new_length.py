"""The first call at a new length against the same call repeated, for
calls built of dynamic-extent kernels (docs/fusion.md, "Dynamic extent"):
vp.var, vp.std, x - vp.mean(x), x / vp.max(x) of a whole resident float32
array. A kernel compiled per length shows as milliseconds in the first
column. Each answer is checked against NumPy.

    python bench/probes/new_length.py [--lengths 8]
"""
import argparse
import statistics
import time

import numpy as np

import vulpy as vp


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lengths", type=int, default=8)
    args = ap.parse_args()
    base = np.random.default_rng(0).random(1 << 16, dtype=np.float32)
    cases = {
        "float(vp.var(x))": (lambda x: float(vp.var(x)), lambda h: float(np.var(h))),
        "float(vp.std(x))": (lambda x: float(vp.std(x)), lambda h: float(np.std(h))),
        "(x - vp.mean(x)).numpy()": (lambda x: (x - vp.mean(x)).numpy(),
                                     lambda h: h - h.mean(dtype=np.float32)),
        "(x / vp.max(x)).numpy()": (lambda x: (x / vp.max(x)).numpy(), lambda h: h / h.max()),
    }
    n = 3001
    print(vp.__file__)
    for name, (f, want) in cases.items():
        f(vp.asarray(base[:1000]))  # what compiles once, compiled
        new, same = [], []
        for _ in range(args.lengths):
            n += 1
            x = vp.asarray(base[:n])
            t = time.perf_counter()
            got = f(x)
            new.append((time.perf_counter() - t) * 1e3)
            np.testing.assert_allclose(got, want(base[:n]), rtol=1e-4, atol=1e-6, err_msg=name)
        for _ in range(args.lengths):
            t = time.perf_counter()
            f(x)
            same.append((time.perf_counter() - t) * 1e3)
        print(f"{name:26s} new length {statistics.median(new):8.2f} ms   "
              f"same length {statistics.median(same):6.2f} ms")


if __name__ == "__main__":
    main()
