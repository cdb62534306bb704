"""Calls on views at a new length each time, against the same call at one
length, beside CuPy where it runs (the backends interleaved call by call):
x[1:] - x[:-1], x[::2] + 1, x[::-1] * 2, concatenate, roll, pad,
x[1:].copy() and y[2:] = x[:-2] of resident float32 arrays. Since the
run-time views (docs/fusion.md, "Dynamic extent") none of these compiles
per length; a kernel compiled per length shows as milliseconds in the
"new length" column. Wall clock of the call and a synchronize; every
VulPy answer is checked against NumPy.

    python bench/probes/view_lengths.py [--lengths 16] [--base 65536]
"""
import argparse
import statistics
import time

import numpy as np

import vulpy as vp

try:
    import cupy as cp
except ImportError:  # lavapipe machines: VulPy alone
    cp = None


def _set(y, x):
    y[2:] = x[:-2]
    return y


CASES = {
    "x[1:] - x[:-1]": lambda m, x: x[1:] - x[:-1],
    "x[::2] + 1": lambda m, x: x[::2] + 1,
    "x[::-1] * 2": lambda m, x: x[::-1] * 2,
    "concatenate": lambda m, x: m.concatenate([x, x[1:]]),
    "roll(x, 3)": lambda m, x: m.roll(x, 3),
    "pad(x, 2)": lambda m, x: m.pad(x, 2),
    "x[1:].copy()": lambda m, x: x[1:].copy(),
    "y[2:] = x[:-2]": lambda m, x: _set(m.zeros_like(x), x),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lengths", type=int, default=16)
    ap.add_argument("--base", type=int, default=1 << 16)
    args = ap.parse_args()
    ctx = vp.default_context()
    print(vp.__file__, "|", ctx.device_name if hasattr(ctx, "device_name") else ctx)
    base = np.random.default_rng(0).random(args.base + 4 * args.lengths, dtype=np.float32)

    def run(m, f, x, sync):
        t = time.perf_counter()
        r = f(m, x)
        sync()
        return (time.perf_counter() - t) * 1e3, r

    vsync = ctx.synchronize
    csync = cp.cuda.Device().synchronize if cp is not None else None
    print(f"{'case':18s} {'vulpy new':>10s} {'vulpy same':>10s}"
          + (f" {'cupy new':>9s} {'cupy same':>9s} {'new: cupy/vulpy':>15s}" if cp else ""))
    n0 = args.base
    for name, f in CASES.items():
        # what compiles once (a dtype, not a length), compiled
        run(vp, f, vp.asarray(base[:1000]), vsync)
        if cp is not None:
            run(cp, f, cp.asarray(base[:1000]), csync)
        vnew, cnew = [], []
        for k in range(args.lengths):
            n = n0 + 3 * k + 1
            x = vp.asarray(base[:n])
            vsync()
            t, r = run(vp, f, x, vsync)
            vnew.append(t)
            want = f(np, base[:n].copy())
            np.testing.assert_array_equal(r.numpy(), want, err_msg=f"{name} n={n}")
            if cp is not None:
                xc = cp.asarray(base[:n])
                csync()
                cnew.append(run(cp, f, xc, csync)[0])
        vsame, csame = [], []
        for _ in range(args.lengths):
            vsame.append(run(vp, f, x, vsync)[0])
            if cp is not None:
                csame.append(run(cp, f, xc, csync)[0])
        med = statistics.median
        line = f"{name:18s} {med(vnew):10.3f} {med(vsame):10.3f}"
        if cp is not None:
            line += f" {med(cnew):9.3f} {med(csame):9.3f} {med(cnew) / med(vnew):15.2f}"
        print(line + "  ms")


if __name__ == "__main__":
    main()
