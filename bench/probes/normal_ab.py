"""Which float32 normal path is fastest? Every path of vp.random
(NORMAL32_PATHS: v4, v8 (the default), v8/256, gs; fast, fast-log, hlog,
lean with other math) and the family candidates (NORMAL32_CANDIDATES: "vN/W"
N normals an invocation at out[t + j h], "bN/W" a contiguous stretch a
workgroup, "gsN/W/G" a grid-stride loop over G groups a SM; a prefix
"fast:", "hlog:" or "lean:" the math), 2^28 float32 samples, beside CuPy's
normal (issue 19's goal: cupy time / vulpy time >= 1.0). The store-only
kernels of the same shapes are bench/probes/store_shapes.py, the
instruction counts bench/probes/normal_ptx.py.

First every exact path must write v8's samples (the documented stream)
bit for bit at the full size (vp.any(x != ref) on the device: a shape that
differs is an error, not a row); the other math within 1e-3 of them, and
its largest absolute and relative differences are printed (the device's
own accuracy figures for docs/python-api.md's table). Then:
  - GPU time: timestamps around each of REPEAT back-to-back dispatches of
    one recording of the launch standard_normal makes
    (random._normal32_plan, benchlib.recorded), rounds of every path taking
    turns with CuPy's (CUDA events around REPEAT calls);
  - wall time: `rng.standard_normal(dtype=np.float32, out=x)` with the path
    set, each timed call after an untimed one of its backend, interleaved
    with CuPy's call (what the bench suite's ratio row measures).

    python bench/probes/normal_ab.py [--log2n 28] [--rounds 9] [--paths v8,v16/128]
        [--json out.json]
    VULPY_NORMAL32_PATH=PATH python bench/run.py --suite random   # then the suite

Read: per path "GPU ms" and "wall ms" with "cupy/x" (CuPy's median over the
path's; >= 1 meets the goal) and "wall-GPU" (the call's cost beyond the
kernel: host, submit, wait; compare CuPy's), sorted by wall time; the
wait mode is the context's (--wait spin to try another); the last lines name the
fastest exact path and the fastest of each other math (hlog: a few ulp
everywhere; lean: a few ulp in r, cuRAND's sin / cos): the candidates for
random._NORMAL32_PATH's default.
"""
import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
sys.path.insert(0, str(ROOT / "bench"))

import vulpy as vp  # noqa: E402
from benchlib import cupy_events, recorded  # noqa: E402

try:
    import cupy as cp
    cp.cuda.runtime.getDeviceCount()
except Exception:  # no CuPy or no CUDA device
    cp = None

REPEAT = 10


def with_path(path, fn):
    saved = vp.random._NORMAL32_PATH
    vp.random._NORMAL32_PATH = path
    try:
        return fn()
    finally:
        vp.random._NORMAL32_PATH = saved


def path_timer(dev, n, buf, path):
    """GPU ns per dispatch of path's launch for n samples (REPEAT
    back-to-back dispatches with timestamps, benchlib.recorded)."""
    bg = vp.random.Philox(0)
    nb = n // 8
    push = dict(vp.random._normal32_push(bg._fresh_blocks(nb), bg._key, nb),
                scale=1.0, loc=0.0, affine=0)
    kern, inv, _local, extra, folds = vp.random._normal32_plan(dev, n // 4, path)
    push.update(extra)
    if folds:
        push["row"] = inv  # a 1-D grid (the H200's x limit is 2^31 - 1)
    return recorded(vp, dev, kern, buf, push, inv, REPEAT)


def cupy_parts(n):
    cbuf = cp.empty(n, cp.float32)
    g = cp.random.default_rng(0)
    try:
        g.standard_normal(16, dtype=cp.float32, out=cbuf[:16])
        fn = lambda: g.standard_normal(n, dtype=cp.float32, out=cbuf)  # noqa: E731
    except TypeError:
        fn = lambda: g.standard_normal(n, dtype=cp.float32)  # noqa: E731

    def wall():
        t0 = time.perf_counter_ns()
        fn()
        cp.cuda.Device().synchronize()
        return time.perf_counter_ns() - t0
    return cupy_events(cp, fn, REPEAT), wall


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log2n", type=int, default=None, help="samples (default 28 on a GPU, "
                    "18 on a CPU device)")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--warm", type=float, default=1.0)
    ap.add_argument("--paths", default=None, help="comma-separated paths (default: all named "
                    "paths and vp.random.NORMAL32_CANDIDATES)")
    ap.add_argument("--wait", default=None, help="the context's wait mode for the wall "
                    "times (spin, block, spin-block; default: the context's)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    dev = vp.default_context()
    if args.wait:
        dev.wait = args.wait
    n = 1 << (args.log2n or (18 if dev.kind == "cpu" else 28))
    paths = (args.paths.split(",") if args.paths else
             list(vp.random.NORMAL32_PATHS) + list(vp.random.NORMAL32_CANDIDATES))
    default = vp.random._normal32_path(dev)
    if default not in paths:
        paths.insert(0, default)
    t0 = time.perf_counter()
    dev._native.cores()
    cores_ms = (time.perf_counter() - t0) * 1e3
    print(f"device: {dev.info.get('name', dev.kind)}; n = {n} float32; default path "
          f"{default}; {len(paths)} paths; the driver's core-count query took {cores_ms:.3f} ms "
          f"(vp.random asks it once a context now; the gs path asked it every call)")
    g = vp.random.default_rng(0)
    x = vp.empty(n, np.float32)
    t0 = time.perf_counter()
    ref = with_path("v8", lambda: vp.random.default_rng(5).standard_normal(
        n, dtype=np.float32))
    # the other math against the documented stream: the largest absolute
    # difference, and the largest relative one where |z| >= 2^-4 (the
    # built-in sin / cos add an absolute error, r 2^-21, that is relative
    # only where z is near 0)
    big = vp.abs(ref) >= 0.0625
    dev_err = {}
    for p in paths:
        got = with_path(p, lambda: vp.random.default_rng(5).standard_normal(
            n, dtype=np.float32, out=x))
        if not vp.random.normal32_exact(p):
            d = vp.abs(got - ref)
            err = float(vp.max(d))
            rel = float(vp.max(vp.where(big, d / vp.abs(ref), 0.0)))
            dev_err[p] = (err, rel)
            if not err <= 1e-3:
                raise SystemExit(f"WRONG RESULT: path {p} strays {err:.3g} from v8")
        elif bool(vp.any(got != ref)):
            raise SystemExit(f"WRONG RESULT: path {p} writes other samples than v8")
    del ref, big
    print(f"compiled and checked {len(paths)} paths at n = {n} in "
          f"{time.perf_counter() - t0:.1f} s (exact paths bit-identical to v8)")
    for p, (err, rel) in dev_err.items():
        print(f"  {p:18s} other values: max |x - v8| {err:.3g}, max |x - v8| / |v8| "
              f"{rel:.3g} ({rel / 2**-24:.1f} x 2^-24) where |v8| >= 2^-4")

    gpu = {p: path_timer(dev, n, x.buffer, p) for p in paths}
    wall = {}
    for p in paths:
        def w(p=p):
            t = time.perf_counter_ns()
            with_path(p, lambda: g.standard_normal(dtype=np.float32, out=x))
            return time.perf_counter_ns() - t
        wall[p] = w
    if cp is not None:
        gpu["cupy"], wall["cupy"] = cupy_parts(n)
    t_end = time.perf_counter() + args.warm
    while time.perf_counter() < t_end:
        for t in gpu.values():
            t()
    gs = {k: [] for k in gpu}
    ws = {k: [] for k in wall}
    for _ in range(args.rounds):
        for k, t in gpu.items():  # GPU time: vulkan rows, then cupy's
            if k == "cupy":
                t()  # untimed: the first call after the Vulkan ones
            gs[k].append(t())
        for k, t in wall.items():  # wall: each after an untimed call of its own
            t()
            ws[k].append(t())
    med = lambda s: statistics.median(s) / 1e6  # noqa: E731 - ms
    cg = med(gs["cupy"]) if "cupy" in gs else None
    cw = med(ws["cupy"]) if "cupy" in ws else None
    rows = []
    for p in paths + (["cupy"] if cp is not None else []):
        rows.append(dict(path=p, gpu_ms=med(gs[p]), wall_ms=med(ws[p]),
                         gbps=4 * n / (med(gs[p]) * 1e-3) / 1e9,
                         cupy_over_gpu=cg / med(gs[p]) if cg else None,
                         cupy_over_wall=cw / med(ws[p]) if cw else None,
                         exact=p != "cupy" and bool(vp.random.normal32_exact(p))))
    rows.sort(key=lambda r: r["wall_ms"])
    print(f"\n{'path':18s} {'GPU ms':>8s} {'GB/s':>6s} {'cupy/x GPU':>10s} {'wall ms':>8s} "
          f"{'cupy/x wall':>11s} {'wall-GPU':>8s}")
    for r in rows:
        f = lambda v: f"{v:.3f}" if v is not None else "-"  # noqa: E731
        mark = " (default)" if r["path"] == default else (
            "" if r["exact"] or r["path"] == "cupy" else " (other values)")
        print(f"{r['path']:18s} {r['gpu_ms']:8.3f} {r['gbps']:6.0f} {f(r['cupy_over_gpu']):>10s} "
              f"{r['wall_ms']:8.3f} {f(r['cupy_over_wall']):>11s} "
              f"{r['wall_ms'] - r['gpu_ms']:8.3f}{mark}")
    exact = [r for r in rows if r["exact"]]
    bw = min(exact, key=lambda r: r["wall_ms"])
    bg = min(exact, key=lambda r: r["gpu_ms"])
    print(f"\nfastest exact path by wall time: {bw['path']} ({bw['wall_ms']:.3f} ms); "
          f"by GPU time: {bg['path']} ({bg['gpu_ms']:.3f} ms); default {default}")
    for kind in ("hlog", "lean", "fast"):
        mine = [r for r in rows if r["path"] == kind or r["path"].startswith(kind + ":")]
        if mine:
            b = min(mine, key=lambda r: r["wall_ms"])
            print(f"fastest {kind} path by wall time: {b['path']} ({b['wall_ms']:.3f} ms, "
                  f"GPU {b['gpu_ms']:.3f} ms)")
    if args.json:
        Path(args.json).write_text(json.dumps(dict(n=n, default=default, rows=rows, errors={
            p: dict(max_abs=e, max_rel=r) for p, (e, r) in dev_err.items()}), indent=1))


if __name__ == "__main__":
    main()
