"""Matrix multiply (issue 19): vp.matmul's tiled GEMM kernels against
cupy.matmul (cuBLAS SGEMM, TF32 off), and the float16 cooperative-matrix
kernels (each variant of vulpy._coopmat.VARIANTS, and vp.matmul of
resident float16 arrays, float16 out, as a user calls it) against cupy's
float16 matmul.

Goals (issue 19, H200): 4096^2 float32 >= 0.7x cupy.matmul; float16 inputs
on cooperative matrices >= 0.5x cupy float16. Also 1024^2 and 8192^2
float32. Every tile configuration of vulpy._gemm.CONFIGS that suits the
size is measured in the same run (backend "vulpy <config>"), so one H200
run picks the best; the ratio records name the configuration
("matmul float32 4096^2: vulpy 128x128 / cupy").

Wall clock from Python, synchronous calls on resident arrays with out=
(no allocation in the loop), the backends interleaved round by round in
one process (benchlib.interleave), each timed call after an untimed one of
the same backend (block_warmup=1: the first call after another API's block
pays the GPU's switch between the CUDA and Vulkan contexts; without it
cupy float16 4096^2 read 0.60 ms here against 0.229 ms alone,
bench/notes/matmul.md). Records carry TFLOP/s (2 n^3 / t) and,
on an H200, the percentage of its peak (FP32 ~67 TFLOP/s, FP16 dense
tensor ~990 TFLOP/s) as extra fields. Each result is checked against NumPy
first (a sample of rows above 1024, in float64): a wrong one is an error
record. CuPy rows are skipped where CuPy is missing. --quick: one small
size. On a CPU device (lavapipe) the sizes are 128 and 256.
"""
import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bindings" / "python"))
os.environ.setdefault("CUPY_TF32", "0")  # cuBLAS SGEMM in full float32, as the goal says

import vulpy as vp  # noqa: E402
from vulpy import _coopmat, _gemm  # noqa: E402
from benchlib import Recorder, interleave, wall  # noqa: E402

try:  # the H200 comparison
    import cupy as cp  # noqa: E402
    cp.cuda.runtime.getDeviceCount()
except Exception:  # no CuPy, or no CUDA device
    cp = None

PEAK_F32, PEAK_F16 = 67.0, 990.0  # H200 SXM, TFLOP/s (dense)


def _configs(n, gpu):
    """The configurations worth measuring at size n."""
    if not gpu:
        return ["64x64", "32x32"] if n <= 256 else ["128x128", "64x64"]
    if n <= 1024:
        return ["128x128", "128x128v", "128x128vd", "128x64", "64x64"]
    return ["128x128", "128x128d", "128x128v", "128x128vd", "128x128i", "128x128k16",
            "128x64", "64x64"]


def _check(got, a64, b64, rows, k):
    """None when got[rows] matches the float64 product within float32's
    dot-product bound, else a message."""
    want = a64[rows] @ b64
    bound = np.abs(a64[rows]) @ np.abs(b64)
    err = np.abs(got[rows].astype(np.float64) - want)
    bad = err > 4e-7 * k * bound + 1e-5
    if bad.any():
        return f"WRONG RESULT against NumPy: max error {err.max():.3g} at {np.argwhere(bad)[0]}"
    return None


def run(ctx):
    dev = vp.default_context()
    gpu = dev.kind != "cpu"
    h200 = "H200" in dev.name
    rec = Recorder("matmul", ctx.device_label)
    if ctx.quick:
        sizes = [256] if gpu else [128]
    else:
        sizes = [1024, 4096, 8192] if gpu else [128, 256]
    reps = 3 if ctx.quick else (10 if gpu else 5)
    rng = np.random.default_rng(19)
    for n in sizes:
        _float32(rec, dev, n, gpu, h200, reps, rng)
    _float16(rec, dev, 4096 if gpu and not ctx.quick else (256 if gpu else 128), gpu, h200,
             reps, rng)
    return rec.records


def _extra(n, samples_ns, peak, h200):
    med = sorted(samples_ns)[len(samples_ns) // 2]
    tflops = 2.0 * n ** 3 / med / 1e3
    return {"tflops": tflops, "pct_peak": (100.0 * tflops / peak) if h200 else None}


def _rate(rec, case, n, backend, samples, peak, h200):
    """The time record, and the rate as a record of its own (TFLOP/s, with
    the % of the H200's peak) so that the report shows it too."""
    ex = _extra(n, samples, peak, h200)
    rec.add(case, n, backend, samples, "ms", scale=1e-6, **ex)
    rec.value(f"{case}: TFLOP/s", n, backend, ex["tflops"], "TFLOP/s", pct_peak=ex["pct_peak"])


def _float32(rec, dev, n, gpu, h200, reps, rng):
    size = f"{n}^2"
    a_h = rng.standard_normal((n, n)).astype(np.float32)
    b_h = rng.standard_normal((n, n)).astype(np.float32)
    a, b = vp.asarray(a_h), vp.asarray(b_h)
    c = vp.empty((n, n), np.float32)
    rows = np.arange(n) if n <= 1024 else np.unique(rng.integers(0, n, 64))
    a64, b64 = a_h.astype(np.float64), b_h.astype(np.float64)
    runners = {}
    for cfg in _configs(n, gpu):
        name = f"vulpy {cfg}"
        try:
            _gemm.set_config(cfg)
            vp.matmul(a, b, out=c)
            bad = _check(c.numpy(), a64, b64, rows, n)
        except Exception as e:  # noqa: BLE001 - a record, not a crash
            bad = f"{type(e).__name__}: {e}"
        finally:
            _gemm.set_config(None)
        if bad:
            rec.error(f"matmul float32 {size}", n, name, bad)
            continue

        def call(cfg=cfg):
            _gemm.set_config(cfg)
            try:
                vp.matmul(a, b, out=c)
            finally:
                _gemm.set_config(None)
        runners[name] = wall(call)
    if cp is not None:
        ca, cb = cp.asarray(a_h), cp.asarray(b_h)
        cc = cp.empty((n, n), cp.float32)

        def crun():
            cp.matmul(ca, cb, out=cc)
            cp.cuda.Device().synchronize()
        runners["cupy"] = wall(crun)
    # block_warmup: an untimed call first, so no timed call pays the switch from
    # the other API's block (see the docstring)
    res = interleave(runners, reps, warmup=2, budget_s=90, block_warmup=1)
    for backend, samples in res.items():
        if isinstance(samples, Exception):
            rec.error(f"matmul float32 {size}", n, backend, repr(samples))
            continue
        _rate(rec, f"matmul float32 {size}", n, backend, samples, PEAK_F32, h200)
    if cp is None:
        rec.skip(f"matmul float32 {size}", n, "cupy", "CuPy is not importable here")
        return
    cs = res.get("cupy")
    if isinstance(cs, Exception) or not cs:
        return
    for backend, samples in res.items():
        if backend == "cupy" or isinstance(samples, Exception):
            continue
        goal = {"op": ">=", "target": 0.7, "issue": 19} if n == 4096 else None
        rec.ratio(f"matmul float32 {size}: {backend} / cupy", n, samples, cs, True, goal=goal,
                  numerator=backend)


def _float16(rec, dev, n, gpu, h200, reps, rng):
    size = f"{n}^2"
    case = f"matmul float16 (float32 accumulation) {size}"
    a_h = rng.standard_normal((n, n)).astype(np.float16)
    b_h = rng.standard_normal((n, n)).astype(np.float16)
    aw, bw = vp.asarray(a_h.view(np.uint32)), vp.asarray(b_h.view(np.uint32))
    rows = np.arange(n) if n <= 1024 else np.unique(rng.integers(0, n, 64))
    a64, b64 = a_h.astype(np.float64), b_h.astype(np.float64)
    variants = [v for v in _coopmat.VARIANTS if _coopmat.variant_for(dev, n, n, n, v) == v]
    if not variants:
        rec.skip(case, n, "vulpy coopmat", f"{dev.name} has no cooperative matrices "
                 f"(VK_NV_cooperative_matrix): the fallback is measured instead")
    runs = {f"vulpy coopmat {v}": dict(variant=v) for v in variants} or \
        {"vulpy fallback (no cooperative matrices)": dict(force_fallback=True)}
    runners = {}
    for name, kw in runs.items():
        try:
            got = _coopmat.matmul_f16_words(aw, bw, n, n, n, **kw).numpy()
            bad = _check(got, a64, b64, rows, n)
        except Exception as e:  # noqa: BLE001
            bad = f"{type(e).__name__}: {e}"
        if bad:
            rec.error(case, n, name, bad)
        else:
            runners[name] = wall(lambda kw=kw: _coopmat.matmul_f16_words(aw, bw, n, n, n, **kw))
    if variants:  # what a user types: vp.matmul of resident float16 (float16 out, as NumPy)
        name = "vulpy vp.matmul float16"
        try:
            a16, b16 = vp.asarray(a_h), vp.asarray(b_h)
            got = vp.matmul(a16, b16).numpy()[rows].astype(np.float64)
            want = a64[rows] @ b64
            err = np.abs(got - want)
            bound = 4e-7 * n * (np.abs(a64[rows]) @ np.abs(b64)) + 2.0 ** -11 * np.abs(want) + 1e-5
            bad = None if (err <= bound).all() else \
                f"WRONG RESULT against NumPy: max error {err.max():.3g}"
        except Exception as e:  # noqa: BLE001
            bad = f"{type(e).__name__}: {e}"
        if bad:
            rec.error(case, n, name, bad)
        else:
            runners[name] = wall(lambda: vp.matmul(a16, b16))
    if cp is not None:
        ca, cb = cp.asarray(a_h), cp.asarray(b_h)
        cc = cp.empty((n, n), cp.float16)

        def crun():
            cp.matmul(ca, cb, out=cc)
            cp.cuda.Device().synchronize()
        runners["cupy float16"] = wall(crun)
    res = interleave(runners, reps, warmup=2, budget_s=60, block_warmup=1)
    for name, samples in res.items():
        if isinstance(samples, Exception):
            rec.error(case, n, name, repr(samples))
            continue
        _rate(rec, case, n, name, samples, PEAK_F16, h200)
    if cp is None:
        rec.skip(case, n, "cupy float16", "CuPy is not importable here")
        return
    cs = res.get("cupy float16")
    if not cs or isinstance(cs, Exception):
        return
    for name, v in res.items():
        if name.startswith("vulpy coopmat") and v and not isinstance(v, Exception):
            rec.ratio(f"{case}: {name} / cupy float16", n, v, cs, True,
                      goal={"op": ">=", "target": 0.5, "issue": 19}, numerator=name)
        elif name == "vulpy vp.matmul float16" and v and not isinstance(v, Exception):
            rec.ratio(f"{case}: {name} / cupy float16", n, v, cs, True, numerator=name)
