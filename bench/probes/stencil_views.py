"""A 5-point stencil step written with views, the way a NumPy user writes
it, beside CuPy where it runs (interleaved call by call):

    u[1:-1, 1:-1] = (u[1:-1, 2:] + u[1:-1, :-2] + u[2:, 1:-1] + u[:-2, 1:-1]) * 0.25

(four two-axis views read, three temporaries, one two-axis view written:
array.load/store at(%off, %s, %d, %m, %s2, %d2, %m2), docs/fusion.md), and
`u.T.copy()`. At one grid size (wall clock of the step and a synchronize,
median ms) and at a new size each step (a compile per size shows as
milliseconds). Every VulPy answer is checked against NumPy.

    python bench/probes/stencil_views.py [--sizes 256 4096] [--steps 20]
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


def step(u):
    u[1:-1, 1:-1] = (u[1:-1, 2:] + u[1:-1, :-2] + u[2:, 1:-1] + u[:-2, 1:-1]) * np.float32(0.25)
    return u


def transpose(u):
    return u.T.copy()


def timed(f, x, sync):
    """(ms of f(x) and a synchronize, f(x)'s result)."""
    t = time.perf_counter()
    r = f(x)
    sync()
    return (time.perf_counter() - t) * 1e3, r


def report(label, vt, ct):
    med = statistics.median
    line = f"{label} vulpy {med(vt):8.3f}"
    if ct:
        line += f"  cupy {med(ct):8.3f}  cupy/vulpy {med(ct) / med(vt):.2f}"
    print(line + "  ms", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[256, 4096])
    ap.add_argument("--steps", type=int, default=20)
    args = ap.parse_args()
    ctx = vp.default_context()
    print(vp.__file__, "|", ctx.info.get("name"))
    vsync = ctx.synchronize
    csync = cp.cuda.Device().synchronize if cp is not None else None
    rng = np.random.default_rng(0)
    for name, f in (("stencil step", step), ("u.T.copy()", transpose)):
        for n in args.sizes:
            h = rng.random((n, n), dtype=np.float32)
            u = vp.asarray(h)
            np.testing.assert_allclose(f(u).numpy(), f(h.copy()), rtol=1e-6, err_msg=name)
            uc = cp.asarray(h) if cp is not None else None
            if cp is not None:
                f(uc)
            vt, ct = [], []
            for _ in range(args.steps):
                vt.append(timed(f, u, vsync)[0])
                if cp is not None:
                    ct.append(timed(f, uc, csync)[0])
            report(f"{name:14s} {n:5d}^2 same size:", vt, ct)
        vt, ct = [], []
        for k in range(args.steps):
            n = 200 + 3 * k
            h = rng.random((n, n + 1), dtype=np.float32)
            u = vp.asarray(h)
            vsync()
            t, r = timed(f, u, vsync)
            vt.append(t)
            np.testing.assert_allclose(r.numpy(), f(h.copy()), rtol=1e-6, err_msg=f"{name} {n}")
            if cp is not None:
                uc = cp.asarray(h)
                csync()
                ct.append(timed(f, uc, csync)[0])
        report(f"{name:14s} new size each:", vt, ct)

if __name__ == "__main__":
    main()
