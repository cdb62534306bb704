"""Fusion mode and reductions (issue 7): GPU time of vp.jit expressions
fused into one kernel, against the same expression hand-written as a vec4
@vp.kernel, against one kernel per op (vp.jit(..., fuse=False), what an
array library without fusion launches) and against the ufunc path; and the
bandwidth of vp.sum against a vec4 copy kernel on the same device. With
CuPy importable (the H200 run) the same expressions also run unfused in
CuPy, through cupy.fuse and as an ElementwiseKernel, and cupy.sum.
bench/notes/fusion.md says what is measured and the goals.

GPU times come from timestamps (VulPy: a recording with timestamps around
each dispatch; CuPy: CUDA events), so Python's per-call overhead is not in
them; the ufunc path, which has no single recording, is timed as pipelined
wall time next to vp.jit's (both with out=, sync=False, one wait). The
variants of a case run interleaved, round after round, so a ratio compares
samples taken under the same machine load. Sizes: 2^26 elements
(expressions) and 2^28 float32 (sum) on a real GPU; on a CPU device
(lavapipe) 2^20 and 2^22, which say how the kernels compare, not what a GPU
does.
"""
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bindings" / "python"))

import vulpy as vp  # noqa: E402

try:  # the H200 comparison
    import cupy as cp  # noqa: E402
    cp.cuda.runtime.getDeviceCount()
except Exception:  # no CuPy, or no CUDA device
    cp = None


def _stats(ns, unit="ms"):
    scale = {"us": 1e-3, "ms": 1e-6}[unit]
    s = sorted(ns)
    q = statistics.quantiles(s, n=10) if len(s) >= 10 else [s[0]] * 9
    return {"median": statistics.median(s) * scale, "p10": q[0] * scale, "p90": q[-1] * scale,
            "unit": unit}


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


COPY_GLSL = """#version 450
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer A { vec4 a[]; };
layout(std430, binding = 1) writeonly buffer B { vec4 b[]; };
layout(push_constant) uniform P { uint n; uint row; } pc;
void main() {
  uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * pc.row;
  if (i < pc.n)
    b[i] = a[i];
}
"""


# ------------------------------------------------------------- timers
# Each timer runs its variant once and returns nanoseconds.

def _kernel_timer(ctx, fn, arrays, invocations):
    """A hand-written @vp.kernel, GPU time of one dispatch."""
    k = vp.kernel(fn, context=ctx)
    k(*arrays, dispatch=invocations)
    prog = k.program()
    nk = prog.native(ctx)
    push = prog.packer.pack({})
    bufs = [a.buffer for a in arrays]
    return lambda: nk.dispatch_timed(bufs, push, invocations, 1, 1, False)


def _copy_timer(ctx, x, y, n):
    """A vec4 copy of n float32, one vec4 per invocation (a 2-D grid past
    65535 groups): the device's copy bandwidth, the reference for the sum."""
    k = vp.kernel(COPY_GLSL, buffers=2, push=[("n", "uint32"), ("row", "uint32")], context=ctx)
    prog = k._prog
    kern = prog.native(ctx)
    n4 = n // 4
    gx = min(-(-n4 // 256), 32768)
    gy = -(-n4 // (gx * 256))
    push = prog.packer.pack({"n": n4, "row": gx * 256})
    rec = vp._native.ext().Recording(ctx._native, True)
    rec.dispatch(kern, [x.buffer, y.buffer], push, gx, gy, 1, True)

    def run():
        rec.run()
        return sum(rec.times())
    return run


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


def _cupy_timer(fn):
    start, end = cp.cuda.Event(), cp.cuda.Event()
    fn()

    def run():
        start.record()
        fn()
        end.record()
        end.synchronize()
        return cp.cuda.get_elapsed_time(start, end) * 1e6
    return run


def _interleaved(timers, rounds):
    """{name: [ns, ...]}: every timer once per round, in turn."""
    out = {k: [] for k in timers}
    for t in timers.values():  # warm-up
        t()
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
    dev = c.name
    recs = []

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

    rng = np.random.default_rng(0)
    ah, bh, ch = (rng.random(n, dtype=np.float32) for _ in range(3))
    a, b, cc = (vp.asarray(h) for h in (ah, bh, ch))
    y = vp.empty(n, np.float32)
    t1, t2, t3 = (vp.empty(n, np.float32) for _ in range(3))
    m = vp.empty(n, np.bool_)

    def check(got, want, what):
        if not np.allclose(got.numpy(), want, rtol=1e-5, atol=1e-6):
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
    gpu_t = _interleaved({"kernel": _kernel_timer(c, k_sinexp4, [a, y], n // 4),
                          "jit": jse.timer(a, out=y)}, rounds)
    wall_t = _interleaved({"jit": _pipelined(lambda: jse(a, out=y, sync=False), batch),
                           "ufuncs": _pipelined(lambda: ufunc_sinexp(False), batch)}, rounds)
    sk = rec("sin+exp hand-written vec4 @vp.kernel", n, "vulpy", _stats(gpu_t["kernel"]))
    sj = rec("sin+exp vp.jit", n, "vulpy", _stats(gpu_t["jit"]), kernels=jse.dispatches)
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
    gpu_t = _interleaved({"kernel": _kernel_timer(c, k_seed4, [a, b, y], n // 4),
                          "fused": fused.timer(a, b, out=y),
                          "unfused": unfused.timer(a, b, out=y),
                          "fast": fast.timer(a, b, out=y),
                          "slow": slow.timer(a, b, out=y)}, rounds)
    wall_t = _interleaved({"jit": _pipelined(lambda: fused(a, b, out=y, sync=False), batch),
                           "ufuncs": _pipelined(lambda: ufunc_seed(False), batch)}, rounds)
    kt = rec("where(a > b, sin(a), cos(b)) hand-written vec4 @vp.kernel", n, "vulpy",
             _stats(gpu_t["kernel"]))
    ft = rec("where(a > b, sin(a), cos(b)) fused", n, "vulpy", _stats(gpu_t["fused"]),
             kernels=fused.dispatches)
    ut = rec("where(a > b, sin(a), cos(b)) one kernel per op", n, "vulpy",
             _stats(gpu_t["unfused"]), kernels=unfused.dispatches)
    ratio("seed expression: fused speed-up over unfused", n, ut, ft)
    ratio("seed expression: vp.jit speed vs the hand-written vec4 kernel", n, kt, ft)
    fft = rec("where(a > b, sin(a), cos(b)) fused, fast_math", n, "vulpy", _stats(gpu_t["fast"]),
              kernels=fast.dispatches)
    ust = rec("where(a > b, sin(a), cos(b)) one kernel per op, fast_math", n, "vulpy",
              _stats(gpu_t["slow"]), kernels=slow.dispatches)
    ratio("seed expression, fast_math: fused speed-up over unfused", n, ust, fft)
    wj = rec("where(a > b, sin(a), cos(b)) vp.jit, pipelined wall", n, "vulpy",
             _stats(wall_t["jit"]))
    wu = rec("where(a > b, sin(a), cos(b)) ufuncs (4 kernels), pipelined wall", n, "vulpy",
             _stats(wall_t["ufuncs"]))
    ratio("seed expression: vp.jit speed-up over the ufunc path (wall)", n, wu, wj)

    # -- a 6-op chain -----------------------------------------------------------
    f6 = vp.jit(chain6)
    f6(a, b, cc, out=y)
    check(y, np.exp(np.sin(ah * bh + ch) * np.float32(0.5)) - ah, "vp.jit chain6")
    u6 = vp.jit(chain6, fuse=False)
    fast6 = vp.jit(chain6, fast_math=True)
    slow6 = vp.jit(chain6, fuse=False, fast_math=True)
    gpu_t = _interleaved({"fused": f6.timer(a, b, cc, out=y), "unfused": u6.timer(a, b, cc, out=y),
                          "fast": fast6.timer(a, b, cc, out=y),
                          "slow": slow6.timer(a, b, cc, out=y)}, rounds)
    f6t = rec("6-op chain fused", n, "vulpy", _stats(gpu_t["fused"]), kernels=f6.dispatches)
    u6t = rec("6-op chain one kernel per op", n, "vulpy", _stats(gpu_t["unfused"]),
              kernels=u6.dispatches)
    ratio("6-op chain: fused speed-up over unfused", n, u6t, f6t)
    ff6 = rec("6-op chain fused, fast_math", n, "vulpy", _stats(gpu_t["fast"]),
              kernels=fast6.dispatches)
    us6 = rec("6-op chain one kernel per op, fast_math", n, "vulpy", _stats(gpu_t["slow"]),
              kernels=slow6.dispatches)
    ratio("6-op chain, fast_math: fused speed-up over unfused", n, us6, ff6)

    # -- sum vs copy bandwidth ----------------------------------------------------
    xh = rng.random(nsum, dtype=np.float32)
    x = vp.asarray(xh)
    xy = vp.empty_like(x)
    s = vp.empty((), np.float32)
    fsum = vp.jit(lambda v: vp.sum(v))
    fsum(x, out=s)
    if not abs(float(s.numpy()) - float(xh.sum(dtype=np.float64))) <= 1e-4 * nsum:
        raise AssertionError("vp.jit sum: wrong result")
    gpu_t = _interleaved({"sum": fsum.timer(x, out=s), "copy": _copy_timer(c, x, xy, nsum)},
                         rounds)
    st = _stats(gpu_t["sum"])
    gbs = nsum * 4 / (st["median"] * 1e6)
    rec("sum float32", nsum, "vulpy", st, gbs=gbs, kernels=fsum.dispatches)
    ct = _stats(gpu_t["copy"])
    cgbs = 2 * nsum * 4 / (ct["median"] * 1e6)
    rec("copy kernel (vec4) float32", nsum, "vulpy", ct, gbs=cgbs)
    rec("sum bandwidth / copy bandwidth", nsum, "ratio",
        {"median": gbs / cgbs, "p10": None, "p90": None, "unit": "x",
         "goal": {"op": ">=", "target": 0.85, "issue": 7}})

    # -- CuPy on the same machine (H200) -----------------------------------------
    if cp is not None:
        ca, cb, c3 = (cp.asarray(h) for h in (ah, bh, ch))

        def cp_seed_expr(p, q):
            return cp.where(p > q, cp.sin(p), cp.cos(q))

        def cp_chain6(p, q, r):
            return cp.exp(cp.sin(p * q + r) * 0.5) - p

        # cupy.fuse names its kernel after the function: a def, not a lambda
        cp_seed_fused = cp.fuse(cp_seed_expr)
        cp_chain6_fused = cp.fuse(cp_chain6)
        ek = cp.ElementwiseKernel("float32 p, float32 q", "float32 y",
                                  "y = p > q ? sinf(p) : cosf(q)", "vp_seed")
        cx = cp.asarray(xh)
        cu_t = _interleaved({"unfused": _cupy_timer(lambda: cp_seed_expr(ca, cb)),
                             "fuse": _cupy_timer(lambda: cp_seed_fused(ca, cb)),
                             "ek": _cupy_timer(lambda: ek(ca, cb)),
                             "c6": _cupy_timer(lambda: cp_chain6(ca, cb, c3)),
                             "c6f": _cupy_timer(lambda: cp_chain6_fused(ca, cb, c3)),
                             "sum": _cupy_timer(lambda: cp.sum(cx))}, rounds)
        cu = rec("where(a > b, sin(a), cos(b))", n, "cupy", _stats(cu_t["unfused"]))
        cf = rec("where(a > b, sin(a), cos(b)) cupy.fuse", n, "cupy.fuse", _stats(cu_t["fuse"]))
        ce = rec("where(a > b, sin(a), cos(b)) ElementwiseKernel", n, "cupy", _stats(cu_t["ek"]))
        ratio("jit seed expression: vulpy jit vs cupy unfused", n, cu, ft, goal=1.5)
        ratio("jit seed expression: vulpy jit vs cupy.fuse", n, cf, ft, goal=1.0)
        ratio("jit seed expression: vulpy jit vs cupy ElementwiseKernel", n, ce, ft)
        ratio("jit seed expression: vulpy jit fast_math vs cupy.fuse", n, cf, fft)
        c6u = rec("6-op chain", n, "cupy", _stats(cu_t["c6"]))
        c6f = rec("6-op chain cupy.fuse", n, "cupy.fuse", _stats(cu_t["c6f"]))
        ratio("6-op chain: vulpy fused vs cupy unfused", n, c6u, f6t, goal=1.5)
        ratio("6-op chain: vulpy fused vs cupy.fuse", n, c6f, f6t, goal=1.0)
        ratio("6-op chain: vulpy fused fast_math vs cupy.fuse", n, c6f, ff6)
        cs = rec("sum float32", nsum, "cupy", _stats(cu_t["sum"]))
        ratio("sum: vulpy vs cupy.sum", nsum, cs, st, goal=1.0)
    return recs
