"""Block broadcasts (x - m of x (N, M) and m (M,), x / s of s (N, 1), a
row or column view as the broadcast operand) at a new shape each call and
at one shape, beside CuPy where it runs (interleaved call by call), and a
large one (4096 x 4096 float32, bandwidth-bound) at one shape. Since the
run-time block view (array.load at(%off, %step, %div, %mod), docs/fusion.md)
none of these compiles per shape; a compile per shape shows as
milliseconds in the "new" column. Wall clock of the call and a
synchronize, median ms; every VulPy answer is checked against NumPy.

    python bench/probes/broadcast_shapes.py [--calls 16] [--big 4096]
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


def _rows(x, n):
    k = 64 + n % 7  # the row length changes with n
    return x[:(n // k) * k].reshape(-1, k)


CASES = {
    "x - m (row)": lambda m, x, y, n: _rows(x, n) - y[:64 + n % 7],
    "x / s (column)": lambda m, x, y, n: _rows(x, n) / y[:n // (64 + n % 7)].reshape(-1, 1),
    "x - x[0] (row view)": lambda m, x, y, n: _rows(x, n) - _rows(x, n)[0],
    "x * x[:, :1] (column view)": lambda m, x, y, n: _rows(x, n) * _rows(x, n)[:, :1],
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=16)
    ap.add_argument("--base", type=int, default=1 << 16)
    ap.add_argument("--big", type=int, default=4096)
    args = ap.parse_args()
    ctx = vp.default_context()
    print(vp.__file__, "|", ctx.info.get("name"))
    rng = np.random.default_rng(0)
    base = rng.random(args.base + 8 * args.calls, dtype=np.float32)
    ybase = rng.random(args.base, dtype=np.float32) + 1

    def run(m, f, x, y, n, sync):
        t = time.perf_counter()
        r = f(m, x, y, n)
        sync()
        return (time.perf_counter() - t) * 1e3, r

    vsync = ctx.synchronize
    csync = cp.cuda.Device().synchronize if cp is not None else None
    print(f"{'case':28s} {'vulpy new':>10s} {'vulpy same':>10s}"
          + (f" {'cupy new':>9s} {'cupy same':>9s} {'new: cupy/vulpy':>15s}" if cp else ""))
    med = statistics.median
    yv = vp.asarray(ybase)
    yc = cp.asarray(ybase) if cp is not None else None
    for name, f in CASES.items():
        run(vp, f, vp.asarray(base[:1000]), yv, 1000, vsync)  # the layout compiled
        if cp is not None:
            run(cp, f, cp.asarray(base[:1000]), yc, 1000, csync)
        vnew, cnew = [], []
        for k in range(args.calls):
            n = args.base + 5 * k + 1
            x = vp.asarray(base[:n])
            vsync()
            t, r = run(vp, f, x, yv, n, vsync)
            vnew.append(t)
            want = f(np, base[:n].copy(), ybase, n)
            np.testing.assert_allclose(r.numpy(), want, rtol=1e-6, err_msg=f"{name} n={n}")
            if cp is not None:
                xc = cp.asarray(base[:n])
                csync()
                cnew.append(run(cp, f, xc, yc, n, csync)[0])
        vsame, csame = [], []
        for _ in range(args.calls):
            vsame.append(run(vp, f, x, yv, n, vsync)[0])
            if cp is not None:
                csame.append(run(cp, f, xc, yc, n, csync)[0])
        line = f"{name:28s} {med(vnew):10.3f} {med(vsame):10.3f}"
        if cp is not None:
            line += f" {med(cnew):9.3f} {med(csame):9.3f} {med(cnew) / med(vnew):15.2f}"
        print(line + "  ms")
    # bandwidth-bound: one large shape
    N = args.big
    h = rng.random((N, N), dtype=np.float32)
    hm = rng.random(N, dtype=np.float32)
    hs = rng.random((N, 1), dtype=np.float32) + 1
    big = {"big x - m (row)": lambda m, a, b, c: a - b, "big x / s (column)": lambda m, a, b, c: a / c,
           "big x + x (no broadcast)": lambda m, a, b, c: a + a}
    va, vm, vs = vp.asarray(h), vp.asarray(hm), vp.asarray(hs)
    if cp is not None:
        ca, cm, cs = cp.asarray(h), cp.asarray(hm), cp.asarray(hs)
    for name, f in big.items():
        want = f(np, h, hm, hs)
        np.testing.assert_allclose(f(vp, va, vm, vs).numpy(), want, rtol=1e-6, err_msg=name)
        vt, ct = [], []
        for _ in range(max(5, args.calls // 2)):
            t = time.perf_counter()
            f(vp, va, vm, vs)
            vsync()
            vt.append((time.perf_counter() - t) * 1e3)
            if cp is not None:
                t = time.perf_counter()
                f(cp, ca, cm, cs)
                csync()
                ct.append((time.perf_counter() - t) * 1e3)
        line = f"{name:28s} {med(vt):10.3f}"
        if cp is not None:
            line += f" {med(ct):9.3f} cupy  {med(ct) / med(vt):.2f}x"
        print(line + "  ms")


if __name__ == "__main__":
    main()
