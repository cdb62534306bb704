"""Fusion mode and reductions (issue 7): GPU time of vp.jit expressions
fused into one kernel against the same expressions run one kernel per op
(vp.jit(..., fuse=False): what an array library without fusion launches),
and the bandwidth of vp.sum against a copy kernel on the same device. With
CuPy importable (the H200 run) the same expressions also run unfused in
CuPy, through cupy.fuse, and cupy.sum. bench/notes/fusion.md says what is
measured and the goals.

GPU times come from timestamps (VulPy: a recording with timestamps around
each dispatch; CuPy: CUDA events), so Python's per-call overhead is not in
them. Sizes: 2^26 elements (expressions) and 2^28 float32 (sum) on a real
GPU; on a CPU device (lavapipe) 2^20 and 2^22, which say how the kernels
compare, not what a GPU does.
"""
import statistics
import sys
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


def seed_expr(a, b):
    """The seed's fusion example."""
    return vp.where(a > b, vp.sin(a), vp.cos(b))


def chain6(a, b, c):
    """Six elementwise ops: mul, add, sin, mul, exp, sub."""
    return vp.exp(vp.sin(a * b + c) * 0.5) - a


def _cupy_time(fn, iters):
    start, end = cp.cuda.Event(), cp.cuda.Event()
    fn()
    out = []
    for _ in range(iters):
        start.record()
        fn()
        end.record()
        end.synchronize()
        out.append(cp.cuda.get_elapsed_time(start, end) * 1e6)
    return out


COPY_GLSL = """#version 450
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer A { vec4 a[]; };
layout(std430, binding = 1) writeonly buffer B { vec4 b[]; };
layout(push_constant) uniform P { uint n; } pc;
void main() {
  uint stride = gl_NumWorkGroups.x * 256u;
  for (uint i = gl_GlobalInvocationID.x; i < pc.n; i += stride)
    b[i] = a[i];
}
"""


def _copy_times(ctx, xv, yv, n, iters):
    """GPU ns of a vec4 grid-stride copy of n float32 (the device's copy
    bandwidth, the reference for the sum)."""
    k = vp.kernel(COPY_GLSL, buffers=2, push=[("n", "uint32")], context=ctx)
    prog = k._prog
    kern = prog.native(ctx)
    groups = min(-(-n // 4 // 256), 65535)
    push = prog.packer.pack({"n": n // 4})
    rec = vp._native.ext().Recording(ctx._native, True)
    rec.dispatch(kern, [xv.buffer, yv.buffer], push, groups, 1, 1, True)
    out = []
    for _ in range(iters):
        rec.run()
        out.append(sum(rec.times()))
    return out


def run(ctx):
    c = vp.default_context()
    gpu = c.kind in ("dgpu", "igpu")
    quick = ctx.quick
    n = (1 << 26) if gpu else (1 << (18 if quick else 20))
    nsum = (1 << 28) if gpu else (1 << (20 if quick else 22))
    iters = 5 if quick else 20
    dev = c.name
    recs = []

    def rec(case, size, backend, stats, **extra):
        r = dict(case=case, size=size, backend=backend, device=dev, **stats, **extra)
        recs.append(r)
        return r

    def ratio(case, size, num, den, goal=None):
        r = {"median": num["median"] / den["median"], "p10": None, "p90": None, "unit": "x"}
        if goal is not None:
            r["goal"] = goal
        return rec(case, size, "ratio", r)

    rng = np.random.default_rng(0)
    a = vp.asarray(rng.random(n, dtype=np.float32))
    b = vp.asarray(rng.random(n, dtype=np.float32))
    cc = vp.asarray(rng.random(n, dtype=np.float32))

    # -- the seed's expression -------------------------------------------------
    fused = vp.jit(seed_expr)
    unfused = vp.jit(seed_expr, fuse=False)
    ft = rec("where(a > b, sin(a), cos(b)) fused", n, "vulpy",
             _stats(fused.gpu_times(a, b, iters=iters)), kernels=fused.dispatches)
    ut = rec("where(a > b, sin(a), cos(b)) one kernel per op", n, "vulpy",
             _stats(unfused.gpu_times(a, b, iters=iters)), kernels=unfused.dispatches)
    ratio("seed expression: fused speed-up over unfused", n, ut, ft)
    fast = vp.jit(seed_expr, fast_math=True)
    fft = rec("where(a > b, sin(a), cos(b)) fused, fast_math", n, "vulpy",
              _stats(fast.gpu_times(a, b, iters=iters)), kernels=fast.dispatches)
    slow = vp.jit(seed_expr, fuse=False, fast_math=True)
    ust = rec("where(a > b, sin(a), cos(b)) one kernel per op, fast_math", n, "vulpy",
              _stats(slow.gpu_times(a, b, iters=iters)), kernels=slow.dispatches)
    ratio("seed expression, fast_math: fused speed-up over unfused", n, ust, fft)

    # -- a 6-op chain ------------------------------------------------------------
    f6 = vp.jit(chain6)
    u6 = vp.jit(chain6, fuse=False)
    f6t = rec("6-op chain fused", n, "vulpy", _stats(f6.gpu_times(a, b, cc, iters=iters)),
              kernels=f6.dispatches)
    u6t = rec("6-op chain one kernel per op", n, "vulpy",
              _stats(u6.gpu_times(a, b, cc, iters=iters)), kernels=u6.dispatches)
    ratio("6-op chain: fused speed-up over unfused", n, u6t, f6t)
    fast6 = vp.jit(chain6, fast_math=True)
    ff6 = rec("6-op chain fused, fast_math", n, "vulpy",
              _stats(fast6.gpu_times(a, b, cc, iters=iters)), kernels=fast6.dispatches)
    slow6 = vp.jit(chain6, fuse=False, fast_math=True)
    us6 = rec("6-op chain one kernel per op, fast_math", n, "vulpy",
              _stats(slow6.gpu_times(a, b, cc, iters=iters)), kernels=slow6.dispatches)
    ratio("6-op chain, fast_math: fused speed-up over unfused", n, us6, ff6)

    # -- sum vs copy bandwidth ----------------------------------------------------
    x = vp.asarray(rng.random(nsum, dtype=np.float32))
    y = vp.empty_like(x)
    fsum = vp.jit(lambda v: vp.sum(v))
    st = _stats(fsum.gpu_times(x, iters=iters))
    gbs = nsum * 4 / (st["median"] * 1e6)
    rec("sum float32", nsum, "vulpy", st, gbs=gbs)
    ct = _stats(_copy_times(c, x, y, nsum, iters))
    cgbs = 2 * nsum * 4 / (ct["median"] * 1e6)
    rec("copy kernel (vec4) float32", nsum, "vulpy", ct, gbs=cgbs)
    rec("sum bandwidth / copy bandwidth", nsum, "ratio",
        {"median": gbs / cgbs, "p10": None, "p90": None, "unit": "x"}, goal=0.85)

    # -- CuPy on the same machine (H200) -----------------------------------------
    if cp is not None:
        ca, cb, c3 = (cp.asarray(v.numpy()) for v in (a, b, cc))

        def cp_seed():
            return cp.where(ca > cb, cp.sin(ca), cp.cos(cb))

        cp_seed_fused = cp.fuse(lambda p, q: cp.where(p > q, cp.sin(p), cp.cos(q)))
        cu = rec("where(a > b, sin(a), cos(b))", n, "cupy",
                 _stats(_cupy_time(cp_seed, iters)))
        cf = rec("where(a > b, sin(a), cos(b)) cupy.fuse", n, "cupy.fuse",
                 _stats(_cupy_time(lambda: cp_seed_fused(ca, cb), iters)))
        ratio("seed expression: vulpy fused vs cupy unfused", n, cu, ft, goal=1.5)
        ratio("seed expression: vulpy fused vs cupy.fuse", n, cf, ft, goal=1.0)
        ratio("seed expression: vulpy fused fast_math vs cupy.fuse", n, cf, fft)
        c6 = cp.fuse(lambda p, q, r: cp.exp(cp.sin(p * q + r) * 0.5) - p)
        c6u = rec("6-op chain", n, "cupy",
                  _stats(_cupy_time(lambda: cp.exp(cp.sin(ca * cb + c3) * 0.5) - ca, iters)))
        c6f = rec("6-op chain cupy.fuse", n, "cupy.fuse",
                  _stats(_cupy_time(lambda: c6(ca, cb, c3), iters)))
        ratio("6-op chain: vulpy fused vs cupy unfused", n, c6u, f6t, goal=1.5)
        ratio("6-op chain: vulpy fused vs cupy.fuse", n, c6f, f6t, goal=1.0)
        ratio("6-op chain: vulpy fused fast_math vs cupy.fuse", n, c6f, ff6)
        cx = cp.asarray(x.numpy())
        cs = rec("sum float32", nsum, "cupy", _stats(_cupy_time(lambda: cp.sum(cx), iters)))
        ratio("sum: vulpy vs cupy.sum", nsum, cs, st, goal=1.0)
    return recs
