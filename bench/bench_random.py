"""vp.random (issue 19): standard normal and uniform float32 samples of 2^28
(the issue's size) from vp.random.default_rng against
cupy.random.default_rng().standard_normal / .random with dtype=float32, wall
clock per synchronous call from Python, the two interleaved in one process
(each timed call after an untimed one of the same backend, so no timed call
pays the GPU's switch between the CUDA and Vulkan contexts).
Records the time of each, GB/s written (4 bytes per sample), and the ratio
cupy time / vulpy time with the issue's goal (>= 1.0: bandwidth-bound).
Sizes: 2^28 on a GPU, 2^20 on a CPU device (lavapipe), 2^16 with --quick.
Before timing, the float32 uniform stream is checked against NumPy's
Generator(Philox(seed)) on a prefix (a wrong stream is an error record).

A/B rows for the float32 normals (bench/notes/random.md): backend
"vulpy <path>" for the other path of vp.random.NORMAL32_PATHS (the
default path is the plain "vulpy" row; "lean:v32/128" uses the device's
built-in log2 / sin / cos and writes other values), "vulpy
wait=spin" (the default path with the context polling instead of blocking
after 100 us), each with its ratio to CuPy (no goal: the goal is the plain
row's). `normal(3, 2) float32`: Generator.normal with a location and
scale (allocating, as a user calls it; float32 numbers are scaled in the
kernel's store, one pass) against cupy's Generator.normal(..., dtype=)
where it takes dtype=. Then GPU times (timestamps around each of REPEAT back-to-back
dispatches in one recording, after a warm-up; CuPy: CUDA events around
REPEAT calls), case "... GPU time": every normal path's kernel, the
uniform kernel, and "store only" (a grid of one vec4 an invocation writing
a constant: the floor of the stores, with no arithmetic). GPU time
against wall time says how much of a call is the host and the wait; the
store-only floor against a kernel says how much is arithmetic.
"""
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bindings" / "python"))

import vulpy as vp  # noqa: E402
from benchlib import cupy_events, interleave, recorded, stats_ns, wall  # noqa: E402

try:  # the H200 comparison
    import cupy as cp  # noqa: E402
    cp.cuda.runtime.getDeviceCount()
except Exception:  # no CuPy, or no CUDA device
    cp = None

REPEAT = 10   # dispatches per GPU-time sample
WARM_S = 1.0  # seconds of load before the GPU-time rounds (clocks up)


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
    default = vp.random._normal32_path(vp.default_context())
    cases = {"normal float32": {"vulpy": lambda: g.standard_normal(dtype=np.float32, out=vbuf)},
             "uniform float32": {"vulpy": lambda: g.random(dtype=np.float32, out=vbuf)}}
    for path in vp.random.NORMAL32_PATHS:
        if path != default:
            cases["normal float32"][f"vulpy {path}"] = lambda p=path: _with_path(
                p, lambda: g.standard_normal(dtype=np.float32, out=vbuf))
    cases["normal float32"]["vulpy wait=spin"] = lambda: _with_wait(
        dev, "spin", lambda: g.standard_normal(dtype=np.float32, out=vbuf))
    # what a user types with a location and scale (one pass: the kernel scales)
    cases["normal(3, 2) float32"] = {"vulpy": lambda: g.normal(3.0, 2.0, n, dtype=np.float32)}
    bad = _check_paths(n)
    if bad:
        rec("normal float32", "vulpy", median=None, p10=None, p90=None, unit="ms", error=bad)
        return out
    cfns, cnote = {}, {}
    if cp is not None:
        cg = cp.random.default_rng(0)
        cbuf = cp.empty(n, cp.float32)
        try:
            cg.normal(3.0, 2.0, 16, dtype=cp.float32)
            cfns["normal(3, 2) float32"] = lambda: cg.normal(3.0, 2.0, n, dtype=cp.float32)
            cnote["normal(3, 2) float32"] = "allocating (as VulPy's)"
        except (TypeError, AttributeError):
            # CuPy 14's Generator has no normal(): its legacy cupy.random.normal
            # (XORWOW) is what a CuPy user types for a location and scale
            crs = cp.random.RandomState(0)
            cfns["normal(3, 2) float32"] = lambda: crs.normal(3.0, 2.0, n, dtype=cp.float32)
            cnote["normal(3, 2) float32"] = "allocating; cupy.random.RandomState.normal (CuPy's Generator has no normal)"
        for case, meth in (("normal float32", cg.standard_normal), ("uniform float32", cg.random)):
            try:  # into a preallocated array, as VulPy's out=, where CuPy takes out=
                meth(n, dtype=cp.float32, out=cbuf)
                cfns[case] = lambda meth=meth: meth(n, dtype=cp.float32, out=cbuf)
                cnote[case] = "out="
            except TypeError:
                cfns[case] = lambda meth=meth: meth(n, dtype=cp.float32)
                cnote[case] = "allocating (no out=)"
    for case, fns in cases.items():
        runners = {name: wall(fn) for name, fn in fns.items()}
        if cp is not None and case in cfns:
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
            if backend == "vulpy" and case.startswith("normal"):
                extra["path"] = default
            rec(case, backend, **st, gbps=round(4 * n / (st["median"] * 1e-3) / 1e9, 1), **extra)
        if cp is None or case not in cfns:
            rec(case, "cupy", median=None, p10=None, p90=None, unit="ms",
                skipped="CuPy is not importable here" if cp is None else
                "cupy's Generator.normal takes no dtype= here")
        elif "vulpy" in meds and "cupy" in meds:
            goal = {"op": ">=", "target": 1.0, "issue": 19} if case in (
                "normal float32", "uniform float32") else None
            rec(case + ": cupy time / vulpy time", "ratio", median=meds["cupy"] / meds["vulpy"],
                p10=None, p90=None, unit="x", **({"goal": goal} if goal else {}))
            for backend in meds:
                if backend.startswith("vulpy "):
                    rec(f"{case}: cupy time / {backend} time", "ratio",
                        median=meds["cupy"] / meds[backend], p10=None, p90=None, unit="x",
                        numerator=backend)
    out.extend(_gpu_times(ctx, dev, n, vbuf, reps, rec, cfns))
    return out


def _with_path(path, fn):
    saved = vp.random._NORMAL32_PATH
    vp.random._NORMAL32_PATH = path
    try:
        return fn()
    finally:
        vp.random._NORMAL32_PATH = saved


def _with_wait(dev, mode, fn):
    saved = dev.wait
    dev.wait = mode
    try:
        return fn()
    finally:
        dev.wait = saved


def _check_paths(n):
    """None when every exact normal path writes v8's values (the documented
    stream) on a prefix and the others stay within 1e-3 of them, else a
    message."""
    m = min(n, 1 << 16)
    ref = _with_path("v8", lambda: vp.random.default_rng(3).standard_normal(
        m, dtype=np.float32).numpy())
    for path in vp.random.NORMAL32_PATHS:
        got = _with_path(path, lambda: vp.random.default_rng(3).standard_normal(
            m, dtype=np.float32).numpy())
        if not vp.random.normal32_exact(path):
            if not (np.isfinite(got).all() and np.abs(got - ref).max() <= 1e-3):
                return f"WRONG RESULT: path {path} strays from the formula by " \
                       f"{np.abs(got - ref).max():.3g}"
        elif not np.array_equal(got, ref):
            return f"WRONG RESULT: path {path} writes other values than v8"
    return None


def _normal_dispatches(dev, n):
    """{row name: (kernel, push dict, invocations)} of the float32 normal
    paths for n samples (random._normal32_plan's launches, 1-D) and the
    store-only floor."""
    bg = vp.random.Philox(0)
    n4 = n // 4
    push = dict(vp.random._normal32_push(bg._fresh_blocks(n // 8), bg._key, n // 8),
                scale=1.0, loc=0.0, affine=0)
    out = {}
    for path in vp.random.NORMAL32_PATHS:
        kern, inv, _local, extra = vp.random._normal32_plan(n4, path)
        out[path] = (kern, dict(push, **extra, row=inv), inv)
    k = vp.random._kernels()
    out["store only (v4 grid)"] = (k.store_f32_v4, dict(v=1.0, n4=n4, row=n4), n4)
    return out


def _gpu_times(ctx, dev, n, vbuf, reps, rec, cfns):
    """The GPU-time rows (module docstring)."""
    out = []
    timers = {}
    if n // 4 > dev.info["limits"]["max_workgroup_count"][0] * 64:
        return out  # 1-D grids only here (the H200's x limit is 2^31 - 1)
    for name, (kern, push, inv) in _normal_dispatches(dev, n).items():
        try:
            timers[f"vulpy {name}"] = recorded(vp, dev, kern, vbuf.buffer, push, inv, REPEAT)
        except Exception as e:  # noqa: BLE001 - a record, not a crash
            out.append(dict(suite="random", case="normal float32 GPU time", size=n,
                            backend=f"vulpy {name}", device=ctx.device_label, median=None,
                            p10=None, p90=None, unit="ms", error=repr(e)[:300]))
    # the recording's output is the v4 launch's: check it once (a wrong push
    # layout would time the wrong work)
    if "vulpy v4" in timers:
        timers["vulpy v4"]()
        got = vbuf.numpy()[:4096]
        bg = vp.random.Philox(0)
        ref = _with_path("v4", lambda: vp.random.Generator(bg).standard_normal(
            4096, dtype=np.float32).numpy())
        if not np.array_equal(got, ref):
            out.append(dict(suite="random", case="normal float32 GPU time", size=n,
                            backend="vulpy v4", device=ctx.device_label, median=None,
                            p10=None, p90=None, unit="ms",
                            error="WRONG RESULT: the recorded v4 dispatch differs from the call"))
            return out
    ku = vp.random._kernels().uniform_f32_v4
    bg = vp.random.Philox(0)
    upush = dict(bg._push(bg._fresh_blocks(n // 8)), n4=n // 4, row=n // 8)
    try:
        timers["vulpy uniform"] = recorded(vp, dev, ku, vbuf.buffer, upush, n // 8, REPEAT)
    except Exception as e:  # noqa: BLE001
        out.append(dict(suite="random", case="uniform float32 GPU time", size=n,
                        backend="vulpy", device=ctx.device_label, median=None, p10=None,
                        p90=None, unit="ms", error=repr(e)[:300]))
    if cp is not None:
        for case, name in (("normal float32", "cupy normal"), ("uniform float32", "cupy uniform")):
            timers[name] = cupy_events(cp, cfns[case], REPEAT)
    t_end = time.perf_counter() + (0.2 if ctx.quick else WARM_S)
    while time.perf_counter() < t_end:  # the GPU's clocks up before the rounds
        for t in timers.values():
            t()
    got = {name: [] for name in timers}
    for _ in range(reps):
        for name, t in timers.items():
            got[name].append(t())
    for name, samples in got.items():
        case = "uniform float32 GPU time" if "uniform" in name else "normal float32 GPU time"
        backend = "cupy" if name.startswith("cupy") else (
            "vulpy" if name == "vulpy uniform" else name)
        st = stats_ns(samples, "ms")
        out.append(dict(suite="random", case=case, size=n, backend=backend,
                        device=ctx.device_label, **st,
                        gbps=round(4 * n / (st["median"] * 1e-3) / 1e9, 1),
                        method=f"timestamps, {REPEAT} back-to-back dispatches"
                        if backend != "cupy" else f"CUDA events, {REPEAT} calls"))
    return out
