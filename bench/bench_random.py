"""vp.random (issue 19): standard normal and uniform float32 samples of 2^28
(the issue's size) from vp.random.default_rng against
cupy.random.default_rng().standard_normal / .random with dtype=float32, wall
clock per synchronous call from Python, the two interleaved in one process.
Records the time of each, GB/s written (4 bytes per sample), and the ratio
cupy time / vulpy time with the issue's goal (>= 1.0: bandwidth-bound).
Sizes: 2^28 on a GPU, 2^20 on a CPU device (lavapipe), 2^16 with --quick.
Before timing, the float32 uniform stream is checked against NumPy's
Generator(Philox(seed)) on a prefix (a wrong stream is an error record).
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
    n = 1 << 16 if ctx.quick else (1 << 20 if dev.kind == "cpu" else 1 << 28)
    reps = 5 if ctx.quick else 15
    out = []

    def rec(case, backend, **fields):
        r = dict(suite="random", case=case, size=n, backend=backend, device=ctx.device_label)
        r.update(fields)
        out.append(r)
        return r

    # correctness first: the float32 stream is NumPy's
    k = min(n, 1 << 16)
    got = vp.random.default_rng(1).random(k, dtype=np.float32).numpy()
    want = np.random.Generator(np.random.Philox(1)).random(k, dtype=np.float32)
    if not np.array_equal(got, want):
        rec("uniform float32", "vulpy", median=None, p10=None, p90=None, unit="ms",
            error="WRONG RESULT: the stream differs from NumPy's Philox")
        return out

    g = vp.random.default_rng(0)
    vbuf = vp.empty(n, np.float32)
    cases = {"normal float32": lambda: g.standard_normal(dtype=np.float32, out=vbuf),
             "uniform float32": lambda: g.random(dtype=np.float32, out=vbuf)}
    cfns, cnote = {}, {}
    if cp is not None:
        cg = cp.random.default_rng(0)
        cbuf = cp.empty(n, cp.float32)
        for case, meth in (("normal float32", cg.standard_normal), ("uniform float32", cg.random)):
            try:  # into a preallocated array, as VulPy's out=, where CuPy takes out=
                meth(n, dtype=cp.float32, out=cbuf)
                cfns[case] = lambda meth=meth: meth(n, dtype=cp.float32, out=cbuf)
                cnote[case] = "out="
            except TypeError:
                cfns[case] = lambda meth=meth: meth(n, dtype=cp.float32)
                cnote[case] = "allocating (no out=)"
    for case, fn in cases.items():
        runners = {"vulpy": wall(lambda fn=fn: fn())}
        if cp is not None:
            def crun(cfn=cfns[case]):
                cfn()
                cp.cuda.Device().synchronize()
            runners["cupy"] = wall(crun)
        # block_warmup: an untimed call before each timed one, so the call after
        # the other API's block does not pay the GPU's context switch (the
        # matmul suite's cupy float16 read 2.6x slow without it, notes/matmul.md)
        res = interleave(runners, reps, warmup=2, budget_s=60, block_warmup=1)
        meds = {}
        for backend, samples in res.items():
            if isinstance(samples, Exception):
                rec(case, backend, median=None, p10=None, p90=None, unit="ms",
                    error=repr(samples))
                continue
            st = stats_ns(samples, "ms")
            meds[backend] = st["median"]
            extra = {"cupy_call": cnote[case]} if backend == "cupy" else {}
            rec(case, backend, **st, gbps=round(4 * n / (st["median"] * 1e-3) / 1e9, 1), **extra)
        if cp is None:
            rec(case, "cupy", median=None, p10=None, p90=None, unit="ms",
                skipped="CuPy is not importable here")
        elif "vulpy" in meds and "cupy" in meds:
            rec(case + ": cupy time / vulpy time", "ratio", median=meds["cupy"] / meds["vulpy"],
                p10=None, p90=None, unit="x", goal={"op": ">=", "target": 1.0, "issue": 19})
    return out

