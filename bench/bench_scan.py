"""Tiled scans and masks (issue 20): vp.cumsum, vp.maximum.accumulate
(array.cummax), vp.add.at at 4096 indices, and boolean-mask indexing of
long arrays, which lower-arrays now tiles so that no invocation loops more
than 1024 times (lavapipe cut the old one-invocation-per-line loop off at
65,535 elements: a silent wrong answer). Wall time per synchronous call on
resident arrays, against cupy.cumsum / a[mask] where CuPy runs (the H200).
Every result is checked against NumPy first: a wrong one is an error record.
Sizes: 2^26 on a GPU, 2^20 on a CPU device (lavapipe), 2^16 with --quick.
"""
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bindings" / "python"))

import vulpy as vp  # noqa: E402
from benchlib import interleave, stats_ns, wall  # noqa: E402

try:  # the H200 comparison
    import cupy as cp  # noqa: E402
    cp.cuda.runtime.getDeviceCount()
except Exception:  # no CuPy, or no CUDA device
    cp = None


def run(ctx):
    dev = vp.default_context()
    n = 1 << 16 if ctx.quick else (1 << 20 if dev.kind == "cpu" else 1 << 26)
    reps = 5 if ctx.quick else 15
    rng = np.random.default_rng(0)
    h = rng.integers(-3, 4, n).astype(np.int32)
    a = vp.asarray(h)
    mask = a > 0
    hm = h > 0
    out = []

    def record(case, backend, samples, extra=None):
        r = dict(suite="scan", case=case, size=n, backend=backend, device=ctx.device_label,
                 **stats_ns(samples, "ms"))
        r.update(extra or {})
        out.append(r)

    hf = rng.standard_normal(n).astype(np.float32)
    af = vp.asarray(hf)
    idx = rng.integers(0, n, 4096)
    di = vp.asarray(idx)
    acc = vp.zeros(n, np.float32)

    def add_at():  # ufunc.at at 4096 random indices of an n-element array
        vp.add.at(acc, di, 1.0)
        return acc
    want_at = np.zeros(n, np.float32)
    np.add.at(want_at, idx, 1.0)
    checks = {
        "cumsum int32": (lambda: vp.cumsum(a), np.cumsum(h, dtype=np.int64)),
        "mask int32": (lambda: a[mask], h[hm]),
        # array.cummax (one tiled scan; it was log2(n) ufunc launches)
        "maximum.accumulate float32": (lambda: vp.maximum.accumulate(af),
                                       np.maximum.accumulate(hf)),
        "add.at 4096 float32": (add_at, want_at),
    }
    for case, (fn, want) in checks.items():
        got = fn().numpy()
        if case.startswith("add.at"):  # timed calls add again: checked once, then reset
            acc[...] = 0
        if got.shape != want.shape or not np.array_equal(got, want):
            out.append(dict(suite="scan", case=case, size=n, backend="vulpy",
                            device=ctx.device_label, median=None, p10=None, p90=None,
                            unit="ms", error="WRONG RESULT against NumPy"))
            continue
        runners = {"vulpy": wall(lambda fn=fn: fn()._buf)}
        if cp is not None:
            ca, cm = cp.asarray(h), cp.asarray(hm)
            cf, ci, cacc = cp.asarray(hf), cp.asarray(idx), cp.zeros(n, cp.float32)
            cfn = {"cumsum int32": lambda: cp.cumsum(ca), "mask int32": lambda: ca[cm],
                   "maximum.accumulate float32": lambda: cp.maximum.accumulate(cf),
                   "add.at 4096 float32": lambda: cp.add.at(cacc, ci, 1.0)}[case]

            def crun(cfn=cfn):
                cfn()
                cp.cuda.Device().synchronize()
            runners["cupy"] = wall(crun)
        res = interleave(runners, reps, warmup=2, budget_s=60)
        for backend, samples in res.items():
            if isinstance(samples, Exception):
                out.append(dict(suite="scan", case=case, size=n, backend=backend,
                                device=ctx.device_label, median=None, p10=None, p90=None,
                                unit="ms", error=repr(samples)))
            else:
                record(case, backend, samples)
        if cp is None:
            out.append(dict(suite="scan", case=case, size=n, backend="cupy",
                            device=ctx.device_label, median=None, p10=None, p90=None,
                            unit="ms", skipped="CuPy is not importable here"))
    return out
