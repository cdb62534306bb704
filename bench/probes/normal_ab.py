"""Which launch shape of the float32 normal kernels is fastest? Every path
of vp.random (NORMAL32_PATHS: v4, v8 (the default), v8/256, gs, fast,
fast-log) and the family candidates (NORMAL32_CANDIDATES: "vN/W" N normals
an invocation at out[t + j h], "bN/W" a contiguous stretch a workgroup,
"gsN/W/G" a grid-stride loop over G groups a SM), 2^28 float32 samples,
beside CuPy's normal (issue 19's goal: cupy time / vulpy time >= 1.0).
The store-only kernels of the same shapes are bench/probes/store_shapes.py.

First every exact path must write the default path's samples bit for bit
at the full size (vp.any(x != ref) on the device: a shape that differs is
an error, not a row); the fast ones within 1e-3 of them. Then:
  - GPU time: timestamps around each of REPEAT back-to-back dispatches of
    one recording of the launch standard_normal makes
    (random._normal32_plan), rounds of every path taking turns with CuPy's
    (CUDA events around REPEAT calls);
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
fastest exact path (the candidate for random._NORMAL32_PATH's default) and
its gap to the fastest store-only floor of store_shapes.py.
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

import vulpy as vp  # noqa: E402

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


def recorded(dev, n, buf, path):
    """GPU ns per dispatch of path's launch for n samples (REPEAT
    back-to-back dispatches with timestamps), and the runner."""
    bg = vp.random.Philox(0)
    nb = n // 8
    push = dict(vp.random._normal32_push(bg._fresh_blocks(nb), bg._key, nb),
                scale=1.0, loc=0.0, affine=0)
    kern, inv, _local, extra, folds = vp.random._normal32_plan(dev, n // 4, path)
    push.update(extra)
    if folds:
        push["row"] = inv  # a 1-D grid (the H200's x limit is 2^31 - 1)
    prog = kern.program()
    nk = prog.native(dev)
    data = prog.packer.pack(push)
    r = vp._native.ext().Recording(dev._native, True)
    for _ in range(REPEAT):
        r.dispatch(nk, [buf], data, inv, 1, 1, False)

    def run():
        r.run()
        return sum(r.times()) / REPEAT
    return run


def cupy_parts(n):
    cbuf = cp.empty(n, cp.float32)
    g = cp.random.default_rng(0)
    try:
        g.standard_normal(16, dtype=cp.float32, out=cbuf[:16])
        fn = lambda: g.standard_normal(n, dtype=cp.float32, out=cbuf)  # noqa: E731
    except TypeError:
        fn = lambda: g.standard_normal(n, dtype=cp.float32)  # noqa: E731
    start, end = cp.cuda.Event(), cp.cuda.Event()

    def gpu():
        start.record()
        for _ in range(REPEAT):
            fn()
        end.record()
        end.synchronize()
        return cp.cuda.get_elapsed_time(start, end) * 1e6 / REPEAT

    def wall():
        t0 = time.perf_counter_ns()
        fn()
        cp.cuda.Device().synchronize()
        return time.perf_counter_ns() - t0
    return gpu, wall


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
    default = vp.random._NORMAL32_PATH
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
    ref = with_path(default, lambda: vp.random.default_rng(5).standard_normal(
        n, dtype=np.float32))
    for p in paths:
        got = with_path(p, lambda: vp.random.default_rng(5).standard_normal(
            n, dtype=np.float32, out=x))
        if p.startswith("fast"):
            err = float(vp.max(vp.abs(got - ref)))
            if not err <= 1e-3:
                raise SystemExit(f"WRONG RESULT: path {p} strays {err:.3g} from {default}")
        elif bool(vp.any(got != ref)):
            raise SystemExit(f"WRONG RESULT: path {p} writes other samples than {default}")
    del ref
    print(f"compiled and checked {len(paths)} paths at n = {n} in "
          f"{time.perf_counter() - t0:.1f} s (exact paths bit-identical to {default})")

    gpu = {p: recorded(dev, n, x.buffer, p) for p in paths}
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
                         exact=not p.startswith("fast") and p != "cupy"))
    rows.sort(key=lambda r: r["wall_ms"])
    print(f"\n{'path':12s} {'GPU ms':>8s} {'GB/s':>6s} {'cupy/x GPU':>10s} {'wall ms':>8s} "
          f"{'cupy/x wall':>11s} {'wall-GPU':>8s}")
    for r in rows:
        f = lambda v: f"{v:.3f}" if v is not None else "-"  # noqa: E731
        mark = " (default)" if r["path"] == default else (
            "" if r["exact"] or r["path"] == "cupy" else " (other values)")
        print(f"{r['path']:12s} {r['gpu_ms']:8.3f} {r['gbps']:6.0f} {f(r['cupy_over_gpu']):>10s} "
              f"{r['wall_ms']:8.3f} {f(r['cupy_over_wall']):>11s} "
              f"{r['wall_ms'] - r['gpu_ms']:8.3f}{mark}")
    exact = [r for r in rows if r["exact"]]
    bw = min(exact, key=lambda r: r["wall_ms"])
    bg = min(exact, key=lambda r: r["gpu_ms"])
    print(f"\nfastest exact path by wall time: {bw['path']} ({bw['wall_ms']:.3f} ms); "
          f"by GPU time: {bg['path']} ({bg['gpu_ms']:.3f} ms); default {default}")
    if args.json:
        Path(args.json).write_text(json.dumps(dict(n=n, default=default, rows=rows), indent=1))


if __name__ == "__main__":
    main()
