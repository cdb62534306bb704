"""Instructions the host executes per call of issue 14's entry points, GPU
out: the ufunc, jit and kernel launchers in dry-run mode (every check, the
result array made, no dispatch), counted by valgrind's callgrind - the one
figure a loaded shared machine cannot blur (the `ab.py host` timings of
the same calls wander by up to 1.5x between two runs of one build there).

    .venv/bin/python bench/probes/host_instructions.py [--calls 400] [BUILD ...]

BUILD: folders holding a built `vulpy` package (as bench/ab.py takes them;
default: this tree). Each build runs once under callgrind (a few minutes
each: lavapipe's start-up under valgrind), the child dumping its counters at
a marker call (os.getppid) between the cases; printed is each case's
instructions per call, the empty loop's taken off.
"""
import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CASES = ["vp.add(a, b, out=c)", "Launcher.ufunc out= alone", "c = a + b", "vp.add(a, b)",
         "Launcher.ufunc new alone", "jit f(a, b, out=c)", "@vp.kernel call",
         "ctx.synchronize() (idle)"]


def child(calls):
    import numpy as np

    import vulpy as vp
    sys.path.insert(0, str(HERE.parent))
    from bench_python import _tiny
    n = 1 << 10
    ctx = vp.default_context()
    a = vp.asarray(np.linspace(0, 1, n, dtype=np.float32))
    b = vp.asarray(np.ones(n, np.float32))
    c = vp.empty(n, np.float32)
    for _ in range(2):
        a + b
        vp.add(a, b, out=c)
    f = vp.jit(lambda x, y: x * 2.0 + y)
    f(a, b, out=c)
    f(a, b, out=c)
    _tiny(a, c, dispatch=n, a=2.0)
    _tiny(a, c, dispatch=n, a=2.0)
    fo, fn = vp.add._fast, vp.add._fastn
    for lau in (fo.__self__, fn.__self__, f._fast.__self__, _tiny._fast):
        lau.dry_run = True
    ctx.synchronize()
    fns = [lambda: vp.add(a, b, out=c), lambda: fo((a, b), c, True), lambda: a + b,
           lambda: vp.add(a, b), lambda: fn((a, b), None, True), lambda: f(a, b, out=c),
           lambda: _tiny(a, c, dispatch=n, a=2.0), ctx.synchronize]
    for fn_ in [lambda: None] + fns:
        os.getppid()  # callgrind dumps its counters here
        for _ in range(calls):
            fn_()
    os.getppid()


def measure(build, calls):
    env = dict(os.environ, VULPY_VALIDATION="0")
    if build:
        p = Path(build)
        env["PYTHONPATH"] = str(p / "bindings" / "python" if (p / "bindings").is_dir() else p)
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "cg.out")
        subprocess.run(["valgrind", "--tool=callgrind", "--dump-before=getppid",
                        f"--callgrind-out-file={out}", sys.executable, __file__, "--child",
                        "--calls", str(calls)], env=env, check=True, capture_output=True)
        totals = []
        for i in range(2, len(CASES) + 3):  # dump 1: start-up; then the empty loop, the cases
            with open(f"{out}.{i}") as fh:
                totals.append(next(int(ln.split()[1]) for ln in fh
                                   if ln.startswith(("summary:", "totals:"))))
    base = totals[0] / calls
    return [t / calls - base for t in totals[1:]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("builds", nargs="*")
    ap.add_argument("--calls", type=int, default=400)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.calls)
        return
    builds = args.builds or [None]
    got = [measure(b, args.calls) for b in builds]
    print(f"{'instructions per call':28s}" + "".join(f" {str(b or 'this tree')[-18:]:>18s}"
                                                      for b in builds))
    for k, case in enumerate(CASES):
        print(f"{case:28s}" + "".join(f" {g[k]:18.0f}" for g in got))


if __name__ == "__main__":
    main()
