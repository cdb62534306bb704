"""Small dtypes (issue 19): uint8 / int8 / float16 resident arrays through
the array path (computed in 32 bits, stored at 1 or 2 bytes an element).
Wall time per synchronous call on resident arrays, against CuPy where it
runs (the H200); each record carries its effective bandwidth (bytes read
and written / time) for the roofline. Every result is checked against NumPy
first: a wrong one is an error record.
Sizes: 2^28 elements on a GPU, 2^20 on a CPU device (lavapipe), 2^16 with
--quick. `bash bench/device/suites.sh --suites dtypes` runs it on the H200.
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
    rng = np.random.default_rng(0)
    u8 = rng.integers(0, 256, n).astype(np.uint8)
    i8 = rng.integers(-128, 128, n).astype(np.int8)
    f16 = rng.standard_normal(n).astype(np.float16)
    f32 = rng.standard_normal(n).astype(np.float32)
    U8, I8, F16, F32 = (vp.asarray(x) for x in (u8, i8, f16, f32))
    out = []
    # case: (vulpy call, NumPy answer, cupy call on cupy operands, bytes moved)
    cases = {
        "add uint8": (lambda: U8 + U8, u8 + u8, lambda c: c["u8"] + c["u8"], 3 * n),
        "mul int8 + uint8 -> int16": (lambda: I8 * U8, i8 * u8,
                                      lambda c: c["i8"] * c["u8"], 4 * n),
        "add float16": (lambda: F16 + F16, f16 + f16, lambda c: c["f16"] + c["f16"], 6 * n),
        "astype float32 -> float16": (lambda: F32.astype(np.float16), f32.astype(np.float16),
                                      lambda c: c["f32"].astype(cp.float16), 6 * n),
        "sum uint8": (lambda: vp.sum(U8), np.sum(u8), lambda c: c["u8"].sum(), n),
    }
    cpa = None
    if cp is not None:
        cpa = {"u8": cp.asarray(u8), "i8": cp.asarray(i8), "f16": cp.asarray(f16),
               "f32": cp.asarray(f32)}

    def fail(case, backend, msg):
        out.append(dict(suite="dtypes", case=case, size=n, backend=backend,
                        device=ctx.device_label, median=None, p10=None, p90=None, unit="ms",
                        error=msg))

    for case, (fn, want, cfn, nbytes) in cases.items():
        got = fn()
        got = got.numpy() if isinstance(got, vp.ndarray) else np.asarray(got)
        want = np.asarray(want)
        ok = got.dtype == want.dtype and got.shape == want.shape and (
            np.array_equal(got, want) if want.dtype.kind in "iu" or case.startswith(("add", "astype"))
            else np.allclose(got, want))
        if not ok:
            fail(case, "vulpy", "WRONG RESULT against NumPy")
            continue
        runners = {"vulpy": wall(lambda fn=fn: fn())}
        if cpa is not None:
            def crun(cfn=cfn):
                cfn(cpa)
                cp.cuda.Device().synchronize()
            runners["cupy"] = wall(crun)
        res = interleave(runners, reps, warmup=2, budget_s=60)
        for backend, samples in res.items():
            if isinstance(samples, Exception):
                fail(case, backend, repr(samples))
                continue
            r = dict(suite="dtypes", case=case, size=n, backend=backend,
                     device=ctx.device_label, **stats_ns(samples, "ms"))
            if r.get("median"):
                r["gbps"] = round(nbytes / (r["median"] * 1e-3) / 1e9, 2)
            out.append(r)
        if cp is None:
            out.append(dict(suite="dtypes", case=case, size=n, backend="cupy",
                            device=ctx.device_label, median=None, p10=None, p90=None,
                            unit="ms", skipped="CuPy is not importable here"))
    return out
