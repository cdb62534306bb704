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
  alloc     vp.empty, c = a + b, c = 0.5 * a and vp.sin(x) + vp.exp(x) on
            resident float32 arrays of 2^10 and 2^20 elements, without
            out=: the host cost of allocating results (issue 21); and
            bench_memory's FDTD-like loop at 2^12 (40 steps, a temporary and
            a new field per update) against the same dispatches with out=,
            as the ratio `fdtd alloc / prealloc`.
  host      issue 14's entry points on float32[2^10] (vp.add(a, b,
            out=c), c = a + b, vp.sin(a), a vp.jit call with out=, a tiny
            @vp.kernel sync call, an eager ufunc + ctx.synchronize()) and
            the convenience vp.sin(h) + vp.exp(h) on NumPy 2^10 (staged)
            and 2^18 (imported): the calling thread's CPU time per call
            (time.thread_time_ns over blocks of 50 calls ended by a
            synchronize), so the figure is the host's own work - Python,
            the binding, the runtime and the driver's submit - and not
            lavapipe's worker threads running the kernels or the machine's
            load. Rows `... wall` are the same blocks' wall time.

A build given as FOLDER@N runs with Context.eager_batch = N (N=1: every
eager dispatch submitted alone), so `ab.py alloc B@1 B` measures batching.
bench/probes/alloc_layers.py times the layers of one call in one build.

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


def _fdtd(vp, np, m, steps=40):
    """bench_memory's FDTD-like loop at m elements: (allocating,
    preallocated), each a run of `steps` steps ended by a synchronize."""
    ctx = vp.default_context()
    e0 = vp.asarray(np.linspace(0, 1, m, dtype=np.float32))
    E2, H2, T2 = vp.empty(m), vp.empty(m), vp.empty(m)

    def alloc():
        E, H = e0.copy(), vp.zeros(m)
        for _ in range(steps):
            H = H + 0.5 * E
            E = E + 0.5 * H
        ctx.synchronize()
        return E

    def prealloc():
        E2._buf.copy_from(e0._buf)
        H2.fill(0)
        for _ in range(steps):
            vp.multiply(E2, 0.5, out=T2)
            vp.add(H2, T2, out=H2)
            vp.multiply(H2, 0.5, out=T2)
            vp.add(E2, T2, out=E2)
        ctx.synchronize()
        return E2

    if not np.allclose(alloc().numpy(), prealloc().numpy(), rtol=1e-6):
        raise AssertionError("the FDTD loops disagree")
    return alloc, prealloc


def child_alloc(blocks):
    import numpy as np

    import vulpy as vp

    batch = int(os.environ.get("VULPY_AB_EAGER_BATCH") or 0)
    if batch:  # FOLDER@N
        vp.default_context().eager_batch = batch
    sync = vp.default_context().synchronize
    res = {}
    for n in (1 << 10, 1 << 20):
        a = vp.asarray(np.random.default_rng(0).random(n, dtype=np.float32))
        b = vp.asarray(np.random.default_rng(1).random(n, dtype=np.float32))
        cases = {f"vp.empty 2^{n.bit_length() - 1}": lambda: vp.empty(n),
                 f"a + b 2^{n.bit_length() - 1}": lambda: a + b,
                 f"0.5 * a 2^{n.bit_length() - 1}": lambda: 0.5 * a,
                 f"sin(a) + exp(a) 2^{n.bit_length() - 1}": lambda: vp.sin(a) + vp.exp(a)}
        for k, fn in cases.items():
            fn()
            res[k] = []
        for _ in range(blocks):
            for k, fn in cases.items():
                res[k] += _timed(fn, 50)[5:]
            sync()
        if not np.allclose((a + b).numpy(), a.numpy() + b.numpy()):
            raise AssertionError("a + b is wrong")
    alloc, prealloc = _fdtd(vp, np, 1 << 12)
    res["fdtd 2^12 alloc (40 steps)"], res["fdtd 2^12 prealloc (40 steps)"] = [], []
    for _ in range(max(2, blocks // 2)):
        res["fdtd 2^12 alloc (40 steps)"] += _timed(alloc, 2)
        res["fdtd 2^12 prealloc (40 steps)"] += _timed(prealloc, 2)
    out = {k: statistics.median(v) for k, v in res.items()}
    out["fdtd alloc / prealloc (a ratio)"] = 1e3 * (  # printed / 1e3
        out["fdtd 2^12 alloc (40 steps)"] / out["fdtd 2^12 prealloc (40 steps)"])
    return out


def child_host(blocks):
    import numpy as np

    import vulpy as vp

    batch = int(os.environ.get("VULPY_AB_EAGER_BATCH") or 0)
    ctx = vp.default_context()
    if batch:  # FOLDER@N
        ctx.eager_batch = batch
    sync = ctx.synchronize
    n = 1 << 10
    rng = np.random.default_rng(0)
    a = vp.asarray(rng.random(n, dtype=np.float32))
    b = vp.asarray(rng.random(n, dtype=np.float32))
    c = vp.empty(n, np.float32)
    f = vp.jit(lambda x, y: x * 2.0 + y)
    sys.path.insert(0, str(HERE))
    from bench_python import _tiny
    h10 = rng.random(n, dtype=np.float32)
    h18 = rng.random(1 << 18, dtype=np.float32)
    cases = {
        "vp.add(a, b, out=c)": lambda: vp.add(a, b, out=c),
        "c = a + b": lambda: a + b,
        "vp.sin(a)": lambda: vp.sin(a),
        "jit f(a, b, out=c)": lambda: f(a, b, out=c),
        "@vp.kernel sync call": lambda: _tiny(a, c, dispatch=n, a=2.0),
        "vp.add(a, b, out=c) + synchronize": lambda: (vp.add(a, b, out=c), sync()),
        "conv sin(h) + exp(h) 2^10": lambda: vp.sin(h10) + vp.exp(h10),
        "conv sin(h) + exp(h) 2^18": lambda: vp.sin(h18) + vp.exp(h18),
    }
    cpu = {k: [] for k in cases}
    wall = {k: [] for k in cases}
    for fn in cases.values():
        for _ in range(3):
            fn()
    sync()
    for _ in range(blocks):
        for k, fn in cases.items():
            reps = 50 if "2^18" not in k else 10
            t0, c0 = time.perf_counter_ns(), time.thread_time_ns()
            for _ in range(reps):
                fn()
            sync()
            cpu[k].append((time.thread_time_ns() - c0) / reps)
            wall[k].append((time.perf_counter_ns() - t0) / reps)
    if not np.allclose(f(a, b).numpy(), 2 * a.numpy() + b.numpy(), rtol=1e-6):
        raise AssertionError("the jit result is wrong")
    if not np.allclose(vp.sin(h18) + vp.exp(h18), np.sin(h18) + np.exp(h18), rtol=1e-5):
        raise AssertionError("the convenience result is wrong")
    out = {f"{k} cpu": statistics.median(v) for k, v in cpu.items()}
    out.update({f"{k} wall": statistics.median(v) for k, v in wall.items()})
    return out


CASES = {"call": child_call, "compile": child_compile, "alloc": child_alloc, "host": child_host}


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
    paths = [_pythonpath(b.partition("@")[0]) for b in args.builds]
    res = [[] for _ in builds]
    t0 = time.time()
    for r in range(args.rounds):
        k = r % len(builds)
        for i, b in builds[k:] + builds[:k]:
            p = subprocess.run([sys.executable, __file__, args.case, "--child",
                                "--blocks", str(args.blocks)],
                               env=dict(os.environ, PYTHONPATH=paths[i], VULPY_VALIDATION="0",
                                        VULPY_AB_EAGER_BATCH=b.partition("@")[2]),
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
