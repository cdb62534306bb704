"""Reductions over an axis (x.sum(axis=1), x.max(axis=0), ...) at a new
shape each call and at one shape, beside CuPy where it runs (interleaved
call by call), then large shapes at one shape four ways: what a call takes
by default (on a GPU past _array.SEGMENTS_MAX elements the static kernel),
VulPy's kernel in segments (one compile for every shape: docs/fusion.md,
"Reductions in segments"), VulPy's static kernel of that shape
(vulpy._reduce.PLANS = False) and CuPy. A compile per shape shows as milliseconds in the "new"
column. Wall clock of the call and a synchronize, median ms; every VulPy
answer is checked against NumPy.

    python bench/probes/axis_reduce.py [--calls 16]
"""
import argparse
import statistics
import time

import numpy as np

import vulpy as vp
from vulpy import _array, _reduce

try:
    import cupy as cp
except ImportError:  # lavapipe machines: VulPy alone
    cp = None

CASES = {  # (name, f(module, x), rows, cols of the n-th new shape)
    "x.sum(axis=1) (rows)": (lambda m, x: x.sum(axis=1), lambda k: (500 + 7 * k, 300 + k)),
    "x.sum(axis=0) (lines)": (lambda m, x: x.sum(axis=0), lambda k: (500 + 7 * k, 300 + k)),
    "x.max(axis=1)": (lambda m, x: x.max(axis=1), lambda k: (500 + 7 * k, 300 + k)),
    "x.argmax(axis=0)": (lambda m, x: x.argmax(axis=0), lambda k: (300 + 7 * k, 200 + k)),
    "x.mean(axis=-1) 3-D": (lambda m, x: x.mean(axis=-1), lambda k: (20 + k, 30, 100 + k)),
}
BIG = [("sum(axis=1) 4096x4096", (4096, 4096), lambda m, x: x.sum(axis=1)),
       ("sum(axis=1) 65535x256", (65535, 256), lambda m, x: x.sum(axis=1)),
       ("sum(axis=0) 1024x16384", (1024, 16384), lambda m, x: x.sum(axis=0)),
       ("max(axis=0) 512x65536", (512, 65536), lambda m, x: x.max(axis=0)),
       ("mean(axis=2) 64x256x512", (64, 256, 512), lambda m, x: x.mean(axis=2))]


def _time(f, sync):
    t = time.perf_counter()
    r = f()
    sync()
    return (time.perf_counter() - t) * 1e3, r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=16)
    ap.add_argument("--no-big", action="store_true")
    args = ap.parse_args()
    ctx = vp.default_context()
    print(vp.__file__, "|", ctx.info.get("name"))
    rng = np.random.default_rng(0)
    vsync = ctx.synchronize
    csync = cp.cuda.Device().synchronize if cp is not None else None
    med = statistics.median
    print(f"{'case':28s} {'vulpy new':>10s} {'vulpy same':>10s}"
          + (f" {'cupy new':>9s} {'cupy same':>9s} {'new: cupy/vulpy':>15s}" if cp else ""))
    for name, (f, shape_of) in CASES.items():
        h = rng.random(shape_of(args.calls + 1), dtype=np.float32)
        f(vp, vp.asarray(h)).numpy()  # the kind and form compiled
        vnew, cnew = [], []
        for k in range(args.calls):
            h = rng.random(shape_of(k), dtype=np.float32)
            x = vp.asarray(h)
            vsync()
            t, r = _time(lambda: f(vp, x), vsync)
            vnew.append(t)
            np.testing.assert_allclose(r.numpy(), f(np, h), rtol=2e-5, err_msg=f"{name} {h.shape}")
            if cp is not None:
                xc = cp.asarray(h)
                csync()
                cnew.append(_time(lambda: f(cp, xc), csync)[0])
        vsame = [_time(lambda: f(vp, x), vsync)[0] for _ in range(args.calls)]
        line = f"{name:28s} {med(vnew):10.3f} {med(vsame):10.3f}"
        if cp is not None:
            csame = [_time(lambda: f(cp, xc), csync)[0] for _ in range(args.calls)]
            line += f" {med(cnew):9.3f} {med(csame):9.3f} {med(cnew) / med(vnew):15.2f}"
        print(line + "  ms")
    if args.no_big:
        return
    print(f"{'one shape':28s} {'default':>10s} {'segments':>10s} {'static':>10s}"
          + (f" {'cupy':>9s}" if cp else "") + "  ms (median)")
    limit = _array.SEGMENTS_MAX
    for name, shape, f in BIG:
        h = rng.random(shape, dtype=np.float32)
        x = vp.asarray(h)
        want = f(np, h)
        xc = cp.asarray(h) if cp is not None else None
        ways = (("default", True, limit), ("segments", True, 1 << 62), ("static", False, limit))
        for _, plans, most in ways:
            _reduce.PLANS, _array.SEGMENTS_MAX = plans, most
            np.testing.assert_allclose(f(vp, x).numpy(), want, rtol=1e-4, err_msg=name)
        times = {"default": [], "segments": [], "static": [], "cupy": []}
        for _ in range(max(5, args.calls // 2)):
            # each backend's timed call follows an untimed one of its own:
            # the first call after the other API's pays the switch between
            # the CUDA and Vulkan contexts (bench/notes/matmul.md)
            for label, plans, most in ways:
                _reduce.PLANS, _array.SEGMENTS_MAX = plans, most
                _time(lambda: f(vp, x), vsync)
                times[label].append(_time(lambda: f(vp, x), vsync)[0])
            if cp is not None:
                _time(lambda: f(cp, xc), csync)
                times["cupy"].append(_time(lambda: f(cp, xc), csync)[0])
        _reduce.PLANS, _array.SEGMENTS_MAX = True, limit
        line = f"{name:28s} {med(times['default']):10.3f} {med(times['segments']):10.3f} " \
            f"{med(times['static']):10.3f}"
        if cp is not None:
            line += f" {med(times['cupy']):9.3f}"
        print(line)


if __name__ == "__main__":
    main()
