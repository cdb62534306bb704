"""float(vp.sum(x)) of a whole resident float32 array, the kernel over a
dynamic extent (one compile for every length) against the static-shape
kernel of the same reduction (vp.jit of vp.sum: its array VIR has the
length), and cupy.sum where CuPy is importable; float(vp.dot(x, y)) of two
vectors against cupy.dot, A @ x against cupy's; wall clock from Python,
the backends interleaved in blocks of calls, each answer checked against NumPy. Then
a new length at every call (x[:m]) against one length.

    python bench/probes/sum_dynamic.py [--sizes 10,20,24,28] [--reps 30]
"""
import argparse
import itertools
import time

import numpy as np

import vulpy as vp


def _med(ts):
    return sorted(ts)[len(ts) // 2] * 1e6


def _interleaved(runs, reps, block=8):
    """{name: median us} of the functions in `runs`, in turn, `reps` blocks
    of `block` timed calls each after one untimed call: the GPU switches
    between CuPy's CUDA context and the Vulkan device at each change of
    backend (~140-190 us on the H100/H200), which alternating call by call
    charged to every call (docs/runtime.md, "Measuring it")."""
    ts = {name: [] for name in runs}
    for _ in range(reps):
        for name, f in runs.items():
            f()
            for _ in range(block):
                t = time.perf_counter()
                f()
                ts[name].append(time.perf_counter() - t)
    return {name: _med(v) for name, v in ts.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10,20,24,28")
    ap.add_argument("--reps", type=int, default=30)
    a = ap.parse_args()
    try:
        import cupy as cp
        cp.zeros(1)
    except Exception:  # noqa: BLE001 - no CuPy or no CUDA device
        cp = None
    ctx = vp.default_context()
    print(ctx.info.get("name"))
    for k in (int(s) for s in a.sizes.split(",")):
        n = 1 << k
        h = np.random.default_rng(k).standard_normal(n).astype(np.float32)
        want = float(h.sum(dtype=np.float64))
        x = vp.asarray(h)
        s = vp.empty((), np.float32)
        jit = vp.jit(lambda v: vp.sum(v))
        runs = {"dynamic": lambda: float(vp.sum(x)),
                "static": lambda: (jit(x, out=s), float(s))[1]}
        if cp is not None:
            c = cp.asarray(h)
            runs["cupy"] = lambda: float(cp.sum(c))
        # the inner product of two vectors: vp.dot against cupy.dot (cuBLAS)
        y = vp.asarray(h[::-1].copy())
        runs["vp.dot"] = lambda: float(vp.dot(x, y))
        if cp is not None:
            cy = cp.asarray(h[::-1].copy())
            runs["cupy.dot"] = lambda: float(cp.dot(c, cy))
        wdot = float(np.dot(h.astype(np.float64), h[::-1].astype(np.float64)))
        for name, f in runs.items():
            got = f()
            w = wdot if "dot" in name else want
            if abs(got - w) > 1e-4 * max(1.0, abs(w)) + 1e-3 * np.sqrt(n):
                raise SystemExit(f"{name} n=2^{k}: {got}, want {w}")
        med = _interleaved(runs, a.reps)
        line = " ".join(f"{name} {v:.1f} us" for name, v in med.items())
        extra = f" dynamic/static {med['dynamic'] / med['static']:.3f}"
        if "cupy" in med:
            extra += f" cupy/dynamic {med['cupy'] / med['dynamic']:.3f}"
            extra += f" cupy.dot/vp.dot {med['cupy.dot'] / med['vp.dot']:.3f}"
        print(f"2^{k}: {line}{extra}", flush=True)
    # a matrix times a vector: vp (a fused row reduction) against cupy (cuBLAS gemv)
    for m, k in ((4096, 4096), (8192, 4096), (64, 1 << 19), (1 << 19, 64)):
        r = np.random.default_rng(m)
        ha, hx = r.standard_normal((m, k)).astype(np.float32), r.standard_normal(k)
        hx = hx.astype(np.float32)
        want = ha.astype(np.float64) @ hx.astype(np.float64)
        av, xv = vp.asarray(ha), vp.asarray(hx)
        runs = {"vp": lambda: (av @ xv)[:1].numpy()}
        if cp is not None:
            ca, cx = cp.asarray(ha), cp.asarray(hx)
            runs["cupy"] = lambda: cp.asnumpy((ca @ cx)[:1])
        got = (av @ xv).numpy()
        if not np.allclose(got, want, rtol=1e-3, atol=1e-3 * np.sqrt(k)):
            raise SystemExit(f"A @ x {m}x{k}: max error {np.abs(got - want).max()}")
        med = _interleaved(runs, a.reps)
        ratio = f" cupy/vp {med['cupy'] / med['vp']:.3f}" if "cupy" in med else ""
        print(f"A @ x {m}x{k}: " + " ".join(f"{n} {v:.1f} us" for n, v in med.items()) + ratio,
              flush=True)
    # a new length every call against one length (2^16)
    n = 1 << 16
    x = vp.asarray(np.random.default_rng(1).random(n, dtype=np.float32))
    same = 5 * n // 8  # between steps of the group count (bench_python._lengths)
    fresh = (same + (k // 2 + 1) * (1 if k % 2 else -1) for k in itertools.count())
    new = lambda: float(vp.sum(x[:next(fresh)]))  # noqa: E731
    one = lambda: float(vp.sum(x[:same]))  # noqa: E731
    new(), one()
    tn, to = [], []
    for _ in range(10 * a.reps):
        t = time.perf_counter()
        new()
        tn.append(time.perf_counter() - t)
        t = time.perf_counter()
        one()
        to.append(time.perf_counter() - t)
    print(f"2^16 prefix: new length {_med(tn):.1f} us, one length {_med(to):.1f} us, "
          f"ratio {_med(tn) / _med(to):.2f}")


if __name__ == "__main__":
    main()
