"""ab.py - one build of VulPy against another, interleaved in one run.

    .venv/bin/python bench/ab.py CASE A B [C ...] [--rounds N]

Is a change faster or slower? Each of A, B, ... is a folder holding a
`vulpy` package with its extension built (e.g. a copy of
bindings/python/vulpy made before the change: `cp -r bindings/python/vulpy
/tmp/old/`), or a source tree whose bindings/python holds one. Every round
runs one child process per build, in an order that rotates, so that drift
on a shared machine hits every build alike; each child measures CASE and
prints medians. Printed: each build's median per case and the median of
the per-round ratios to A. Give the new build twice (an A/A pair): the
spread of their ratio is this machine's noise, and only a difference beyond
it means anything.

Cases:
  call      a tiny @vp.kernel call (bench_python's kernel) through the
            Launcher, through the Python path (Kernel.dispatch), and
            Kernel.dispatch itself, sync and async + wait; the sync call
            again with the context's `spin-block` wait. Includes the device
            round trip. (Was ab_percall.py and tiny_ab.py.)
  compile   the compile probe (bench/compile_probe.py): a cold compile in a
            new process with an empty cache, then a warm one from the disk
            cache, with and without VULPY_PREWARM. (Was compile_ab.py.)
  alloc     vp.empty, c = a + b and vp.sin(x) + vp.exp(x) on resident
            float32 arrays of 2^10 and 2^20 elements, without out=: the
            host cost of allocating results (issue 21).

bench/notes/python.md quotes figures made with the first two.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _timed(fn, n):
    ns = []
    for _ in range(n):
        t0 = time.perf_counter_ns()
        fn()
        ns.append(time.perf_counter_ns() - t0)
    return ns


def child_call(blocks):
    import numpy as np

    import vulpy as vp  # first: the build on PYTHONPATH, before bench_python's path
    sys.path.insert(0, str(HERE))
    from bench_python import _tiny, _tiny_py

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
    first_wait = c.wait

    def spin_block():
        c.wait = "spin-block"
        try:
            _tiny(xv, yv, dispatch=n, a=2.0)
        finally:
            c.wait = first_wait

    cases = {
        "@vp.kernel call (Launcher)": lambda: _tiny(xv, yv, dispatch=n, a=2.0),
        "@vp.kernel call, Python path (Kernel.dispatch)":
            lambda: _tiny_py(xv, yv, dispatch=n, a=2.0),
        "Kernel.dispatch sync": lambda: kern.dispatch(binds, push, n, 1, 1, False, True),
        "Kernel.dispatch async + wait":
            lambda: kern.dispatch(binds, push, n, 1, 1, False, False).wait(),
        "@vp.kernel call, spin-block wait": spin_block,
    }
    got = {k: [] for k in cases}
    for _ in range(blocks):
        for k, fn in cases.items():
            got[k] += _timed(fn, 50)[5:]
    if not np.allclose(yv.numpy(), 2 * np.arange(n)):
        raise AssertionError("the kernel's result is wrong")
    return {k: statistics.median(v) for k, v in got.items()}


def child_compile(blocks):
    probe = HERE / "compile_probe.py"
    out = {}
    for _ in range(max(1, blocks // 4)):
        for pw in ("1", "0"):
            env = dict(os.environ, VULPY_PREWARM=pw)
            with tempfile.TemporaryDirectory() as d:
                for mode in ("cold", "warm"):
                    p = subprocess.run([sys.executable, str(probe), "vulpy", "--cache", d],
                                       capture_output=True, text=True, env=env, timeout=300,
                                       check=True)
                    g = json.loads(p.stdout.strip().splitlines()[-1])
                    out.setdefault(f"{mode}, prewarm={pw}: total", []).append(g["ns"])
                    out.setdefault(f"{mode}, prewarm={pw}: compile", []).append(g["compile_ns"])
    return {k: statistics.median(v) for k, v in out.items()}


def child_alloc(blocks):
    import numpy as np

    import vulpy as vp

    res = {}
    for n in (1 << 10, 1 << 20):
        a = vp.asarray(np.random.default_rng(0).random(n, dtype=np.float32))
        b = vp.asarray(np.random.default_rng(1).random(n, dtype=np.float32))
        cases = {f"vp.empty 2^{n.bit_length() - 1}": lambda: vp.empty(n),
                 f"a + b 2^{n.bit_length() - 1}": lambda: a + b,
                 f"sin(a) + exp(a) 2^{n.bit_length() - 1}": lambda: vp.sin(a) + vp.exp(a)}
        for k, fn in cases.items():
            fn()
            res[k] = []
        for _ in range(blocks):
            for k, fn in cases.items():
                res[k] += _timed(fn, 50)[5:]
            vp.default_context().synchronize()
        if not np.allclose((a + b).numpy(), a.numpy() + b.numpy()):
            raise AssertionError("a + b is wrong")
    return {k: statistics.median(v) for k, v in res.items()}


CASES = {"call": child_call, "compile": child_compile, "alloc": child_alloc}


def _pythonpath(build):
    p = Path(build)
    if (p / "bindings" / "python" / "vulpy").is_dir():
        return str(p / "bindings" / "python")
    if (p / "vulpy").is_dir():
        return str(p)
    raise SystemExit(f"ab.py: {build} holds neither a vulpy package nor bindings/python/vulpy")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("case", choices=sorted(CASES))
    ap.add_argument("builds", nargs="*", help="folders holding a vulpy package, or source trees")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--blocks", type=int, default=8, help="blocks of 50 calls per case")
    ap.add_argument("--json", action="store_true", help="also print every round's medians")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(CASES[args.case](args.blocks)))
        return
    if len(args.builds) < 2:
        ap.error("give at least two builds")
    builds = list(enumerate(args.builds))      # the same folder twice: an A/A pair
    paths = [_pythonpath(b) for b in args.builds]
    res = [[] for _ in builds]
    t0 = time.time()
    for r in range(args.rounds):
        k = r % len(builds)
        for i, b in builds[k:] + builds[:k]:
            p = subprocess.run([sys.executable, __file__, args.case, "--child",
                                "--blocks", str(args.blocks)],
                               env=dict(os.environ, PYTHONPATH=paths[i], VULPY_VALIDATION="0"),
                               capture_output=True, text=True)
            if p.returncode:
                raise SystemExit(f"ab.py: the child for {b} failed:\n{p.stderr[-3000:]}")
            res[i].append(json.loads(p.stdout.strip().splitlines()[-1]))
    print(f"{args.case}: {args.rounds} rounds, {time.time() - t0:.0f} s; medians in us, "
          f"ratios are medians of per-round ratios to {args.builds[0]}")
    for case in res[0][0]:
        line = f"{case:48s} {statistics.median(x[case] for x in res[0]) / 1e3:9.2f}"
        for i, b in builds[1:]:
            ratio = statistics.median(x[case] / y[case] for x, y in zip(res[i], res[0]))
            med = statistics.median(x[case] for x in res[i]) / 1e3
            line += f" | {b} {med:9.2f} x{ratio:.3f}"
        print(line)
    if args.json:
        print(json.dumps(dict(zip(args.builds, res))))


if __name__ == "__main__":
    main()
