"""vp.fft against cuFFT (issue 19): a 1-D complex64 transform of 2^24
points and a 2-D complex64 transform of 1024 x 1024, vp.fft.fft / fft2 on
resident arrays against cupy.fft.fft / fft2, wall clock from Python with a
synchronize after every call, the backends interleaved round by round in
one process. Each case also gives the ratio cupy time / vulpy time (VulPy's
speed as a fraction of cuFFT's), the figure issue 19 sets a goal for
(>= 0.7).

Every result is first checked against numpy.fft (relative error <= 1e-4
of the largest magnitude): a wrong one is an error record. The first call
of a shape makes its plan (VkFFT compiles its shaders; cuFFT plans too):
warm-up rounds are not recorded. Sizes: as above on a GPU, 2^20 and
256 x 256 on a CPU device (lavapipe), 2^14 and 64 x 64 with --quick.
Records without CuPy say so (skipped).
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

SUITE = "fft"


def run(ctx):
    dev = vp.default_context()
    cpu = dev.kind == "cpu"
    if ctx.quick:
        cases = [("fft complex64 1-D", (1 << 14,)), ("fft2 complex64 2-D", (64, 64))]
    elif cpu:
        cases = [("fft complex64 1-D", (1 << 20,)), ("fft2 complex64 2-D", (256, 256))]
    else:
        cases = [("fft complex64 1-D", (1 << 24,)), ("fft2 complex64 2-D", (1024, 1024))]
    reps = 5 if ctx.quick or cpu else 20
    rng = np.random.default_rng(0)
    out = []

    def base(case, shape, backend):
        return dict(suite=SUITE, case=case, size="x".join(map(str, shape)), backend=backend,
                    device=ctx.device_label)

    for case, shape in cases:
        two = len(shape) == 2
        h = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)
        want = np.fft.fft2(h) if two else np.fft.fft(h)
        a = vp.asarray(h)
        vfn = (lambda: vp.fft.fft2(a)) if two else (lambda: vp.fft.fft(a))
        got = vfn().numpy()
        err = float(np.abs(got - want).max() / np.abs(want).max())
        if not err <= 1e-4:
            out.append(dict(base(case, shape, "vulpy"), median=None, p10=None, p90=None,
                            unit="ms", error=f"WRONG RESULT against numpy.fft (relative error "
                                             f"{err:.3g})"))
            continue

        def vrun(vfn=vfn):
            vfn()
            dev.synchronize()
        runners = {"vulpy": wall(vrun)}
        if cp is not None:
            ca = cp.asarray(h)
            cfn = (lambda: cp.fft.fft2(ca)) if two else (lambda: cp.fft.fft(ca))
            cerr = float(np.abs(cp.asnumpy(cfn()) - want).max() / np.abs(want).max())
            if not cerr <= 1e-4:
                out.append(dict(base(case, shape, "cupy"), median=None, p10=None, p90=None,
                                unit="ms", error=f"cupy: relative error {cerr:.3g}"))
                cp_ok = False
            else:
                cp_ok = True

            def crun(cfn=cfn):
                cfn()
                cp.cuda.Device().synchronize()
            if cp_ok:
                runners["cupy"] = wall(crun)
        # block_warmup: an untimed call before each timed one, so the call after
        # the other API's block does not pay the GPU's context switch (the
        # matmul suite's cupy float16 read 2.6x slow without it, notes/matmul.md)
        res = interleave(runners, reps, warmup=3, budget_s=90, block_warmup=1)
        meds = {}
        for backend, samples in res.items():
            if isinstance(samples, Exception):
                out.append(dict(base(case, shape, backend), median=None, p10=None, p90=None,
                                unit="ms", error=repr(samples)))
                continue
            st = stats_ns(samples, "ms")
            meds[backend] = st["median"]
            out.append(dict(base(case, shape, backend), **st,
                            method="wall clock from Python, synchronize after each call"))
        rcase = f"{case}: vulpy speed / cupy (cuFFT)"
        if cp is None:
            out.append(dict(base(case, shape, "cupy"), median=None, p10=None, p90=None,
                            unit="ms", skipped="CuPy is not importable here"))
            out.append(dict(base(rcase, shape, "ratio"), median=None, p10=None, p90=None,
                            unit="x", skipped="CuPy is not importable here",
                            goal={"op": ">=", "target": 0.7, "issue": 19}))
        elif "vulpy" in meds and "cupy" in meds:
            out.append(dict(base(rcase, shape, "ratio"), median=meds["cupy"] / meds["vulpy"],
                            p10=None, p90=None, unit="x", numerator="vulpy",
                            goal={"op": ">=", "target": 0.7, "issue": 19}))
    return out
