"""Per-call time of a tiny @vp.kernel under two builds of the extension, in
one interleaved run: is a change to the dispatch path faster or slower?

    # a copy of the package with the old build, then rebuild with the change
    cp -r bindings/python/vulpy /tmp/old/ && <change, cmake --build build>
    cp -r bindings/python/vulpy /tmp/new/ && cp -r bindings/python/vulpy /tmp/new2/
    .venv/bin/python bench/probes/ab_percall.py /tmp/old /tmp/new /tmp/new2 [--rounds 30]

Each argument is a folder holding a `vulpy` package (its _vulpy.abi3.so
built). Every round runs one process per folder, in a rotating order, and
each process times, in blocks that take turns: the @vp.kernel call through
the Launcher, the same kernel held to the Python path (Kernel.dispatch),
and Kernel.dispatch called directly, sync and async + wait (bench_python's
kernel). Printed: the median per-call time of each folder and the median of
the per-round ratios to the first. Give the new build twice (an A/A pair):
the spread of their ratio is this machine's noise, and only a difference
beyond it means anything. Figures include the device round trip.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path


def child(blocks):
    import numpy as np

    import vulpy as vp  # first: the build from PYTHONPATH, before bench_python's path
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/
    from bench_python import _timed, _tiny, _tiny_py

    c = vp.default_context()
    n = 1024
    xv = vp.asarray(np.arange(n, dtype=np.float32))
    yv = vp.empty_like(xv)
    _tiny(xv, yv, dispatch=n, a=2.0)
    _tiny_py(xv, yv, dispatch=n, a=2.0)
    _tiny_py._fast = False
    prog = _tiny.program()
    kern = prog.native(c)
    push = prog.packer.pack({"a": 2.0})
    binds = [xv.buffer, yv.buffer]
    cases = {
        "@vp.kernel call (Launcher)": lambda: _tiny(xv, yv, dispatch=n, a=2.0),
        "@vp.kernel call, Python path (Kernel.dispatch)":
            lambda: _tiny_py(xv, yv, dispatch=n, a=2.0),
        "Kernel.dispatch sync": lambda: kern.dispatch(binds, push, n, 1, 1, False, True),
        "Kernel.dispatch async + wait":
            lambda: kern.dispatch(binds, push, n, 1, 1, False, False).wait(),
    }
    got = {k: [] for k in cases}
    for _ in range(blocks):
        for k, fn in cases.items():
            got[k] += _timed(fn, 50)[5:]
    if not np.allclose(yv.numpy(), 2 * np.arange(n)):
        raise AssertionError("the kernel's result is wrong")
    print(json.dumps({k: statistics.median(v) for k, v in got.items()}))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("builds", nargs="*", help="folders each holding a vulpy package")
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--blocks", type=int, default=8, help="blocks of 50 calls per case")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.blocks)
    if len(args.builds) < 2:
        ap.error("give at least two folders")
    res = {b: [] for b in args.builds}
    t0 = time.time()
    for r in range(args.rounds):
        order = args.builds[r % len(args.builds):] + args.builds[:r % len(args.builds)]
        for b in order:
            p = subprocess.run([sys.executable, __file__, "--child", "--blocks", str(args.blocks)],
                               env=dict(os.environ, PYTHONPATH=b), capture_output=True,
                               text=True, check=True)
            res[b].append(json.loads(p.stdout.strip().splitlines()[-1]))
    base = args.builds[0]
    print(f"{args.rounds} rounds, {time.time() - t0:.0f} s; ratios are medians of per-round "
          f"ratios to {base}")
    for case in res[base][0]:
        line = f"{case:48s} {statistics.median(x[case] for x in res[base]) / 1e3:7.2f} us"
        for b in args.builds[1:]:
            ratio = statistics.median(x[case] / y[case] for x, y in zip(res[b], res[base]))
            med = statistics.median(x[case] for x in res[b]) / 1e3
            line += f" | {b} {med:7.2f} us x{ratio:.3f}"
        print(line)


if __name__ == "__main__":
    main()
