"""Complex ufuncs (issue 19): c = a * b, a / b, vp.exp(a), abs(a) and a ** 2.5
on resident complex64 arrays, wall clock from Python with a synchronize
after every call, the way a user writes them (a new result each call), the
backends interleaved round by round in one process:

- vulpy: the formula of float ufuncs on the parts traced into one kernel
  (_complex.py, "one kernel"), what `a * b` runs;
- vulpy unfused: the same float ufuncs run one by one (what ran before
  the trace; the A/B of the fusion, in the same process);
- cupy: CuPy's complex ufunc (one kernel of thrust::complex).

Every result is first checked against NumPy (relative error <= 1e-5 of
the largest magnitude): a wrong one is an error record. Records: ms per
call for each backend, and the ratios vulpy unfused / vulpy (what the
fusion gains) and cupy / vulpy (VulPy's speed as a fraction of CuPy's).
Sizes: 2^24 on a GPU, 2^20 on a CPU device (lavapipe), 2^12 with --quick.
"""
import sys
from contextlib import nullcontext
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bindings" / "python"))

import vulpy as vp  # noqa: E402
from vulpy import _complex  # noqa: E402
from benchlib import interleave, stats_ns, wall  # noqa: E402

try:  # the H200 comparison
    import cupy as cp  # noqa: E402
    cp.cuda.runtime.getDeviceCount()
except Exception:  # no CuPy, or no CUDA device
    cp = None

SUITE = "complex"
CASES = {  # case -> (function of (xp, a, b), NumPy's)
    "a * b": lambda xp, a, b: a * b,
    "a / b": lambda xp, a, b: a / b,
    "exp(a)": lambda xp, a, b: xp.exp(a),
    "abs(a)": lambda xp, a, b: abs(a),
    "a ** 2.5": lambda xp, a, b: a ** 2.5,
}


class _Unfused:
    """While active, complex ufuncs run their float ufuncs one by one."""

    def __enter__(self):
        self.saved = _complex._fused
        _complex._fused = lambda *args: False

    def __exit__(self, *exc):
        _complex._fused = self.saved


def run(ctx):
    dev = vp.default_context()
    n = 1 << 12 if ctx.quick else (1 << 20 if dev.kind == "cpu" else 1 << 24)
    reps = 5 if ctx.quick or dev.kind == "cpu" else 20
    rng = np.random.default_rng(0)
    ha, hb = ((rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(np.complex64)
              for _ in range(2))
    a, b = vp.asarray(ha), vp.asarray(hb)
    out = []

    def base(case, backend):
        return dict(suite=SUITE, case=f"complex64 {case}", size=f"2^{n.bit_length() - 1}",
                    backend=backend, device=ctx.device_label)

    for case, f in CASES.items():
        want = f(np, ha, hb)
        scale = float(np.abs(want).max())
        runners = {}
        for backend, guard in (("vulpy", None), ("vulpy unfused", _Unfused)):
            with (guard() if guard else nullcontext()):
                err = float(np.abs(f(vp, a, b).numpy() - want).max()) / scale
            if not err <= 1e-5:
                out.append(dict(base(case, backend), median=None, p10=None, p90=None, unit="ms",
                                error=f"WRONG RESULT against NumPy (relative error {err:.3g})"))
                continue

            def vrun(f=f, guard=guard):
                with (guard() if guard else nullcontext()):
                    f(vp, a, b)
                    dev.synchronize()
            runners[backend] = wall(vrun)
        if cp is not None:
            ca, cb = cp.asarray(ha), cp.asarray(hb)

            def crun(f=f):
                f(cp, ca, cb)
                cp.cuda.Device().synchronize()
            runners["cupy"] = wall(crun)
        res = interleave(runners, reps, warmup=2, budget_s=60, block_warmup=1)
        meds = {}
        for backend, samples in res.items():
            if isinstance(samples, Exception):
                out.append(dict(base(case, backend), median=None, p10=None, p90=None, unit="ms",
                                error=repr(samples)))
                continue
            st = stats_ns(samples, "ms")
            meds[backend] = st["median"]
            out.append(dict(base(case, backend), **st,
                            method="wall clock from Python, a new result and a synchronize "
                                   "each call"))
        for other, what in (("vulpy unfused", "fused speed-up (unfused / fused)"),
                            ("cupy", "vulpy speed / cupy")):
            if "vulpy" in meds and other in meds:
                out.append(dict(base(f"{case}: {what}", "ratio"), median=meds[other] / meds["vulpy"],
                                p10=None, p90=None, unit="x", numerator="vulpy",
                                method="medians of the interleaved rounds"))
            elif other == "cupy" and cp is None:
                out.append(dict(base(f"{case}: {what}", "ratio"), median=None, p10=None,
                                p90=None, unit="x", skipped="CuPy is not importable here"))
    return out

