"""Fusion mode and reductions (issue 7): GPU time of vp.jit expressions
fused into one kernel, against the same expression hand-written as a vec4
@vp.kernel, against one kernel per op (vp.jit(..., fuse=False), what an
array library without fusion launches) and against the ufunc path; and the
bandwidth of vp.sum against a vec4 copy kernel on the same device. With
CuPy importable (the H200 run) the same expressions also run unfused in
CuPy, through cupy.fuse and as an ElementwiseKernel, and cupy.sum.
bench/notes/fusion.md says what is measured and the goals.

GPU times come from timestamps (VulPy: one recording that runs the call
REPEAT times back to back with timestamps around each dispatch; CuPy: CUDA
events around the same number of back-to-back calls), so Python's
per-call overhead is not in them; each case first keeps the GPU busy for
a while (WARM_S), so every variant is timed at the clocks a busy GPU runs
at. A single short dispatch after an idle host sync, as this suite timed
until the second H200 run, can be timed at idle clocks (345 MHz on the
H200 without a CUDA context; bench/notes/fusion.md). With CuPy present its
CUDA context is made before anything is timed, so VulPy and CuPy run under
the same clock policy (as in the compare suite). The ufunc path, which has
no single recording, is timed as pipelined wall time next to vp.jit's
(both with out=, sync=False, one wait). The variants of a case run
interleaved, round after round, so a ratio compares samples taken under
the same machine load. Inputs are random (a > b differs between
neighbouring elements, so a warp of the seed's expression runs both sides
of the select). Sizes: 2^26 elements (expressions) and 2^28 float32 (sum)
on a real GPU; on a CPU device (lavapipe) 2^20 and 2^22, which say how the
kernels compare, not what a GPU does.
"""
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bindings" / "python"))

import vulpy as vp  # noqa: E402
from benchlib import stats_ns  # noqa: E402

# GPU timers: calls per sample (back to back) and the warm-up per case
REPEAT = 10
WARM_S = 0.3
# the sweep of the full reduction's workgroup cap (VULPY_REDUCE_GROUPS) on
# a GPU: the 2^28 float32 sum at each cap, interleaved with cupy.sum, twice
# the rounds of the other cases (the caps differ by about a percent)
SWEEP_GROUPS = (2048, 4096, 8192, 16384, 32768)

try:  # the H200 comparison
    import cupy as cp  # noqa: E402
    cp.cuda.runtime.getDeviceCount()
except Exception:  # no CuPy, or no CUDA device
    cp = None


def _stats(ns, unit="ms"):
    return stats_ns(ns, unit)


# ------------------------------------------------------------- expressions

def seed_expr(a, b):
    """The seed's fusion example."""
    return vp.where(a > b, vp.sin(a), vp.cos(b))


def chain6(a, b, c):
    """Six elementwise ops: mul, add, sin, mul, exp, sub."""
    return vp.exp(vp.sin(a * b + c) * 0.5) - a


def sinexp(a):
    return vp.sin(a) + vp.exp(a)


# The same expressions written by hand as vec4 kernels (the fast @vp.kernel
# path: one vec4 per invocation).
def k_sinexp4(x: vp.Buffer[vp.vec4], y: vp.Buffer[vp.vec4]):
    i = vp.global_id()
    v = x[i]
    y[i] = vp.sin(v) + vp.exp(v)


def k_seed4(a: vp.Buffer[vp.vec4], b: vp.Buffer[vp.vec4], y: vp.Buffer[vp.vec4]):
    i = vp.global_id()
    p = a[i]
    q = b[i]
    y[i] = vp.where(p > q, vp.sin(p), vp.cos(q))


def k_copy4(x: vp.Buffer[vp.vec4], y: vp.Buffer[vp.vec4]):
    """The copy reference: one vec4 per invocation, the kernel of the
    compare suite's "vulpy kernel vec4" row (4.29 TB/s on the H200, 1.00x
    the raw-Vulkan vec4 copy)."""
    i = vp.global_id()
    y[i] = x[i]


# ------------------------------------------------------------- timers
# Each timer runs its variant and returns nanoseconds per call.

def _recorded(ctx, calls, repeat):
    """GPU ns per run of `calls` ((kernel, buffers, push, x, y, z, groups)
    tuples), recorded `repeat` times back to back in one recording with
    timestamps around each dispatch."""
    rec = vp._native.ext().Recording(ctx._native, True)
    for _ in range(repeat):
        for call in calls:
            rec.dispatch(*call)

    def run():
        rec.run()
        return sum(rec.times()) / repeat
    return run


def _kernel_timer(ctx, fn, arrays, invocations, repeat):
    """A hand-written @vp.kernel, GPU time of one dispatch."""
    k = vp.kernel(fn, context=ctx)
    k(*arrays, dispatch=invocations)
    prog = k.program()
    nk = prog.native(ctx)
    push = prog.packer.pack({})
    bufs = [a.buffer for a in arrays]
    return _recorded(ctx, [(nk, bufs, push, invocations, 1, 1, False)], repeat)


def _copy_timer(ctx, x, y, n, repeat):
    """The vec4 copy of n float32 (k_copy4): the device's copy bandwidth
    as VulPy reaches it, the reference for the sum."""
    return _kernel_timer(ctx, k_copy4, [x, y], n // 4, repeat)


def _pipelined(submit, batch):
    """Wall time per call of `batch` asynchronous calls and one wait."""
    def run():
        t0 = time.perf_counter_ns()
        h = None
        for _ in range(batch):
            h = submit()
        h.wait()
        return (time.perf_counter_ns() - t0) / batch
    return run


def _cupy_timer(fn, repeat):
    """CUDA events around `repeat` back-to-back calls: ns per call."""
    start, end = cp.cuda.Event(), cp.cuda.Event()
    fn()

    def run():
        start.record()
        for _ in range(repeat):
            fn()
        end.record()
        end.synchronize()
        return cp.cuda.get_elapsed_time(start, end) * 1e6 / repeat
    return run


def _interleaved(timers, rounds, warm_s=0.0):
    """{name: [ns, ...]}: every timer once per round, in turn, after a
    warm-up that runs them in turn for at least `warm_s` seconds (a GPU
    raises its clocks only under sustained load)."""
    out = {k: [] for k in timers}
    t_end = time.perf_counter() + warm_s
    while True:
        for t in timers.values():
            t()
        if time.perf_counter() >= t_end:
            break
    for _ in range(rounds):
        for k, t in timers.items():
            out[k].append(t())
    return out


# ------------------------------------------------------------- the suite

def run(ctx):
    c = vp.default_context()
    gpu = c.kind in ("dgpu", "igpu")
    quick = ctx.quick
    n = (1 << 26) if gpu else (1 << (18 if quick else 20))
    nsum = (1 << 28) if gpu else (1 << (20 if quick else 22))
    rounds = (5 if quick else 20) if gpu else (3 if quick else 7)
    batch = 4 if gpu else 1
    repeat = REPEAT if gpu else 1
    warm = WARM_S if gpu else 0.0
    dev = c.name
    recs = []
    if cp is not None:  # the CUDA context first: both libraries under one clock policy
        cp.cuda.Device(0).use()
        cp.zeros(1).sum()
        cp.cuda.Stream.null.synchronize()

    def rec(case, size, backend, stats, **extra):
        r = dict(case=case, size=size, backend=backend, device=dev, **stats, **extra)
        recs.append(r)
        return r

    def ratio(case, size, num, den, goal=None):
        """Speed-up of `den` over `num` (num time / den time)."""
        r = {"median": num["median"] / den["median"], "p10": None, "p90": None, "unit": "x"}
        if goal is not None:
            r["goal"] = {"op": ">=", "target": goal, "issue": 7}
        return rec(case, size, "ratio", r)

    def timed(timers):
        return _interleaved(timers, rounds, warm)

    def method(**extra):
        return dict(method=f"GPU timestamps, {repeat} back-to-back calls per sample",
                    **extra)

    rng = np.random.default_rng(0)
    ah, bh, ch = (rng.random(n, dtype=np.float32) for _ in range(3))
    a, b, cc = (vp.asarray(h) for h in (ah, bh, ch))
    y = vp.empty(n, np.float32)
    t1, t2, t3 = (vp.empty(n, np.float32) for _ in range(3))
    m = vp.empty(n, np.bool_)
    if cp is not None:
        ca, cb, c3 = (cp.asarray(h) for h in (ah, bh, ch))
        cy = cp.empty_like(ca)

    def check(got, want, what):
        if not np.allclose(got.numpy(), want, rtol=1e-5, atol=1e-6):
            raise AssertionError(f"{what}: wrong result")

    def cp_check(got, want, what):
        if not np.allclose(cp.asnumpy(got), want, rtol=1e-5, atol=1e-6):
            raise AssertionError(f"{what}: wrong result")

    # -- sin(x) + exp(x): jit vs the hand-written vec4 kernel vs ufuncs ------
    jse = vp.jit(sinexp)
    jse(a, out=y)
    check(y, np.sin(ah) + np.exp(ah), "vp.jit sin+exp")

    def ufunc_sinexp(sync):
        vp.sin(a, out=t1, sync=False)
        vp.exp(a, out=t2, sync=False)
        return vp.add(t1, t2, out=y, sync=sync)
    ufunc_sinexp(True)
    check(y, np.sin(ah) + np.exp(ah), "ufuncs sin+exp")
    gpu_t = timed({"kernel": _kernel_timer(c, k_sinexp4, [a, y], n // 4, repeat),
                   "jit": jse.timer(a, out=y, repeat=repeat)})
    wall_t = timed({"jit": _pipelined(lambda: jse(a, out=y, sync=False), batch),
                    "ufuncs": _pipelined(lambda: ufunc_sinexp(False), batch)})
    sk = rec("sin+exp hand-written vec4 @vp.kernel", n, "vulpy", _stats(gpu_t["kernel"]),
             **method())
    sj = rec("sin+exp vp.jit", n, "vulpy", _stats(gpu_t["jit"]),
             **method(kernels=jse.dispatches))
    ratio("sin+exp: vp.jit speed vs the hand-written vec4 kernel", n, sk, sj)
    wj = rec("sin+exp vp.jit, pipelined wall", n, "vulpy", _stats(wall_t["jit"]))
    wu = rec("sin+exp ufuncs (3 kernels), pipelined wall", n, "vulpy", _stats(wall_t["ufuncs"]))
    ratio("sin+exp: vp.jit speed-up over the ufunc path (wall)", n, wu, wj)

    # -- the seed's expression ------------------------------------------------
    fused = vp.jit(seed_expr)
    fused(a, b, out=y)
    want = np.where(ah > bh, np.sin(ah), np.cos(bh))
    check(y, want, "vp.jit seed")
    unfused = vp.jit(seed_expr, fuse=False)
    fast = vp.jit(seed_expr, fast_math=True)
    slow = vp.jit(seed_expr, fuse=False, fast_math=True)

    def ufunc_seed(sync):
        vp.greater(a, b, out=m, sync=False)
        vp.sin(a, out=t1, sync=False)
        vp.cos(b, out=t2, sync=False)
        return vp.where(m, t1, t2, out=y, sync=sync)
    ufunc_seed(True)
    check(y, want, "ufuncs seed")
    timers = {"kernel": _kernel_timer(c, k_seed4, [a, b, y], n // 4, repeat),
              "fused": fused.timer(a, b, out=y, repeat=repeat),
              "unfused": unfused.timer(a, b, out=y, repeat=repeat),
              "fast": fast.timer(a, b, out=y, repeat=repeat),
              "slow": slow.timer(a, b, out=y, repeat=repeat)}
    if cp is not None:
        def cp_seed_expr(p, q):
            return cp.where(p > q, cp.sin(p), cp.cos(q))

        # cupy.fuse names its kernel after the function: a def, not a lambda
        cp_seed_fused = cp.fuse(cp_seed_expr)
        ek = cp.ElementwiseKernel("float32 p, float32 q", "float32 y",
                                  "y = p > q ? sinf(p) : cosf(q)", "vp_seed")
        cp_check(cp_seed_fused(ca, cb), want, "cupy.fuse seed")
        cp_check(ek(ca, cb, cy), want, "cupy ElementwiseKernel seed")
        # each CuPy form as a user calls it: unfused and fused allocate
        # their result (CuPy's memory pool), the ElementwiseKernel writes cy
        timers.update({"cp unfused": _cupy_timer(lambda: cp_seed_expr(ca, cb), repeat),
                       "cp fuse": _cupy_timer(lambda: cp_seed_fused(ca, cb), repeat),
                       "cp ek": _cupy_timer(lambda: ek(ca, cb, cy), repeat)})
    gpu_t = timed(timers)
    wall_t = timed({"jit": _pipelined(lambda: fused(a, b, out=y, sync=False), batch),
                    "ufuncs": _pipelined(lambda: ufunc_seed(False), batch)})
    kt = rec("where(a > b, sin(a), cos(b)) hand-written vec4 @vp.kernel", n, "vulpy",
             _stats(gpu_t["kernel"]), **method())
    ft = rec("where(a > b, sin(a), cos(b)) fused", n, "vulpy", _stats(gpu_t["fused"]),
             **method(kernels=fused.dispatches))
    ut = rec("where(a > b, sin(a), cos(b)) one kernel per op", n, "vulpy",
             _stats(gpu_t["unfused"]), **method(kernels=unfused.dispatches))
    ratio("seed expression: fused speed-up over unfused", n, ut, ft)
    ratio("seed expression: vp.jit speed vs the hand-written vec4 kernel", n, kt, ft)
    fft = rec("where(a > b, sin(a), cos(b)) fused, fast_math", n, "vulpy", _stats(gpu_t["fast"]),
              **method(kernels=fast.dispatches))
    ust = rec("where(a > b, sin(a), cos(b)) one kernel per op, fast_math", n, "vulpy",
              _stats(gpu_t["slow"]), **method(kernels=slow.dispatches))
    ratio("seed expression, fast_math: fused speed-up over unfused", n, ust, fft)
    wj = rec("where(a > b, sin(a), cos(b)) vp.jit, pipelined wall", n, "vulpy",
             _stats(wall_t["jit"]))
    wu = rec("where(a > b, sin(a), cos(b)) ufuncs (4 kernels), pipelined wall", n, "vulpy",
             _stats(wall_t["ufuncs"]))
    ratio("seed expression: vp.jit speed-up over the ufunc path (wall)", n, wu, wj)
    if cp is not None:
        cev = dict(method=f"CUDA events, {repeat} back-to-back calls per sample")
        cu = rec("where(a > b, sin(a), cos(b))", n, "cupy", _stats(gpu_t["cp unfused"]), **cev)
        cf = rec("where(a > b, sin(a), cos(b)) cupy.fuse", n, "cupy.fuse",
                 _stats(gpu_t["cp fuse"]), **cev)
        ce = rec("where(a > b, sin(a), cos(b)) ElementwiseKernel", n, "cupy",
                 _stats(gpu_t["cp ek"]), **cev)
        ratio("jit seed expression: vulpy jit vs cupy unfused", n, cu, ft, goal=1.5)
        ratio("jit seed expression: vulpy jit vs cupy.fuse", n, cf, ft, goal=1.0)
        ratio("jit seed expression: vulpy jit vs cupy ElementwiseKernel", n, ce, ft)
        ratio("jit seed expression: vulpy jit fast_math vs cupy.fuse", n, cf, fft)

    # -- a 6-op chain -----------------------------------------------------------
    want6 = np.exp(np.sin(ah * bh + ch) * np.float32(0.5)) - ah
    f6 = vp.jit(chain6)
    f6(a, b, cc, out=y)
    check(y, want6, "vp.jit chain6")
    u6 = vp.jit(chain6, fuse=False)
    fast6 = vp.jit(chain6, fast_math=True)
    slow6 = vp.jit(chain6, fuse=False, fast_math=True)
    timers = {"fused": f6.timer(a, b, cc, out=y, repeat=repeat),
              "unfused": u6.timer(a, b, cc, out=y, repeat=repeat),
              "fast": fast6.timer(a, b, cc, out=y, repeat=repeat),
              "slow": slow6.timer(a, b, cc, out=y, repeat=repeat)}
    if cp is not None:
        def cp_chain6(p, q, r):
            return cp.exp(cp.sin(p * q + r) * 0.5) - p

        cp_chain6_fused = cp.fuse(cp_chain6)
        cp_check(cp_chain6_fused(ca, cb, c3), want6, "cupy.fuse chain6")
        timers.update({"cp unfused": _cupy_timer(lambda: cp_chain6(ca, cb, c3), repeat),
                       "cp fuse": _cupy_timer(lambda: cp_chain6_fused(ca, cb, c3), repeat)})
    gpu_t = timed(timers)
    f6t = rec("6-op chain fused", n, "vulpy", _stats(gpu_t["fused"]),
              **method(kernels=f6.dispatches))
    u6t = rec("6-op chain one kernel per op", n, "vulpy", _stats(gpu_t["unfused"]),
              **method(kernels=u6.dispatches))
    ratio("6-op chain: fused speed-up over unfused", n, u6t, f6t)
    ff6 = rec("6-op chain fused, fast_math", n, "vulpy", _stats(gpu_t["fast"]),
              **method(kernels=fast6.dispatches))
    us6 = rec("6-op chain one kernel per op, fast_math", n, "vulpy", _stats(gpu_t["slow"]),
              **method(kernels=slow6.dispatches))
    ratio("6-op chain, fast_math: fused speed-up over unfused", n, us6, ff6)
    if cp is not None:
        cev = dict(method=f"CUDA events, {repeat} back-to-back calls per sample")
        c6u = rec("6-op chain", n, "cupy", _stats(gpu_t["cp unfused"]), **cev)
        c6f = rec("6-op chain cupy.fuse", n, "cupy.fuse", _stats(gpu_t["cp fuse"]), **cev)
        ratio("6-op chain: vulpy fused vs cupy unfused", n, c6u, f6t, goal=1.5)
        ratio("6-op chain: vulpy fused vs cupy.fuse", n, c6f, f6t, goal=1.0)
        ratio("6-op chain: vulpy fused fast_math vs cupy.fuse", n, c6f, ff6)

    # -- sum vs copy bandwidth ----------------------------------------------------
    # Both results stay on the device (a 0-d array each: VulPy writes out=
    # s, cupy.sum returns a new 0-d CuPy array); neither reads it back.
    xh = rng.random(nsum, dtype=np.float32)
    want_sum = float(xh.sum(dtype=np.float64))
    x = vp.asarray(xh)
    xy = vp.empty_like(x)
    s = vp.empty((), np.float32)
    fsum = vp.jit(lambda v: vp.sum(v))
    fsum(x, out=s)
    if not abs(float(s.numpy()) - want_sum) <= 1e-5 * abs(want_sum):
        raise AssertionError(f"vp.jit sum: {float(s.numpy())!r}, want {want_sum!r}")
    timers = {"sum": fsum.timer(x, out=s, repeat=repeat),
              "copy": _copy_timer(c, x, xy, nsum, repeat)}
    if cp is not None:
        cx = cp.asarray(xh)
        got = float(cp.sum(cx))
        if not abs(got - want_sum) <= 1e-5 * abs(want_sum):
            raise AssertionError(f"cupy.sum: {got!r}, want {want_sum!r}")
        timers["cp sum"] = _cupy_timer(lambda: cp.sum(cx), repeat)
    gpu_t = timed(timers)
    st = _stats(gpu_t["sum"])
    gbs = nsum * 4 / (st["median"] * 1e6)
    rec("sum float32", nsum, "vulpy", st, gbs=gbs, **method(kernels=fsum.dispatches))
    ct = _stats(gpu_t["copy"])
    cgbs = 2 * nsum * 4 / (ct["median"] * 1e6)
    rec("copy kernel (vec4) float32", nsum, "vulpy", ct, gbs=cgbs, **method())
    rec("sum bandwidth / copy bandwidth", nsum, "ratio",
        {"median": gbs / cgbs, "p10": None, "p90": None, "unit": "x",
         "goal": {"op": ">=", "target": 0.85, "issue": 7}})
    if cp is not None:
        cs = rec("sum float32", nsum, "cupy", _stats(gpu_t["cp sum"]),
                 gbs=nsum * 4 / (_stats(gpu_t["cp sum"])["median"] * 1e6),
                 method=f"CUDA events, {repeat} back-to-back calls per sample")
        ratio("sum: vulpy vs cupy.sum", nsum, cs, st, goal=1.0)
    if gpu:
        try:  # a failure here costs the sweep's records, not the suite's
            _sweep_groups(x, want_sum, repeat, 2 * rounds, warm, rec, ratio, method,
                          cx if cp is not None else None)
        except Exception as e:
            recs.append(dict(case="sum float32, reduce groups sweep", size=nsum,
                             backend="vulpy", device=dev, median=None, p10=None, p90=None,
                             unit="", error=f"{type(e).__name__}: {e}"[:500]))
    else:
        recs.append(dict(case="sum float32, reduce groups sweep", size=nsum, backend="vulpy",
                         device=dev, median=None, p10=None, p90=None, unit="",
                         skipped="the group-cap sweep runs on a GPU only"))
    return recs


def _sweep_groups(x, want_sum, repeat, rounds, warm, rec, ratio, method, cx):
    """The 2^28 float32 sum at each cap of SWEEP_GROUPS (VULPY_REDUCE_GROUPS
    set while each one is compiled and its timer recorded; the compile
    cache and vp.jit's entries key on it), interleaved with cupy.sum when
    CuPy is present, `rounds` rounds; rec() and ratio() keep the records. The
    records carry the groups the kernel launched (2^28 at 64 x 256
    elements a workgroup: 16384 at most, so caps 16384 and 32768 launch
    the same grid)."""
    nsum = x.size
    timers, launched = {}, {}
    saved = os.environ.get("VULPY_REDUCE_GROUPS")
    try:
        for g in SWEEP_GROUPS:
            os.environ["VULPY_REDUCE_GROUPS"] = str(g)
            f = vp.jit(lambda v: vp.sum(v))
            s = vp.empty((), np.float32)
            f(x, out=s)
            got = float(s.numpy())
            if not abs(got - want_sum) <= 1e-5 * abs(want_sum):
                raise AssertionError(f"vp.jit sum, reduce groups {g}: {got!r}, want {want_sum!r}")
            launched[g] = f._last.compiled.launches[0][1]
            timers[g] = f.timer(x, out=s, repeat=repeat)
    finally:
        if saved is None:
            os.environ.pop("VULPY_REDUCE_GROUPS", None)
        else:
            os.environ["VULPY_REDUCE_GROUPS"] = saved
    if cx is not None:
        timers["cp sum"] = _cupy_timer(lambda: cp.sum(cx), repeat)
    gpu_t = _interleaved(timers, rounds, warm)
    cs = None
    if cx is not None:
        cst = _stats(gpu_t["cp sum"])
        cs = rec("sum float32, reduce groups sweep", nsum, "cupy", cst,
                 gbs=nsum * 4 / (cst["median"] * 1e6),
                 method=f"CUDA events, {repeat} back-to-back calls per sample")
    for g in SWEEP_GROUPS:
        st = _stats(gpu_t[g])
        r = rec(f"sum float32, reduce groups {g}", nsum, "vulpy", st,
                gbs=nsum * 4 / (st["median"] * 1e6), reduce_groups=g, groups=launched[g],
                **method())
        if cs is not None:
            ratio(f"sum float32, reduce groups {g} / cupy.sum", nsum, cs, r)
