"""Host instructions per call on the calling thread for issue 14's timed
statements - the eager ufunc with out= and its synchronize, the eager call
alone, the tiny @vp.kernel sync call, `x * 2.0` with its synchronize -
with the real dispatch and wait (host_instructions.py's cases are dry runs),
counted by valgrind's callgrind on lavapipe with the Vulkan driver's own
work taken off: the inclusive cost of every call from VulPy's code into
the driver (vkQueueSubmit, the semaphore waits) is subtracted, so what is
left is the interpreter, the binding and the runtime - the part that is
the same on the H200, whose driver costs differ.

    .venv/bin/python bench/probes/host_path.py [--calls 200] [--python PY] [BUILD ...]

BUILD: folders holding a built `vulpy` package (default: this tree); PY:
the interpreter the child runs (default this one; the H200 runs 3.12,
where @vp.kernel calls go through vectorcall). The context holds no eager
batch (eager_batch = 1, as on a GPU); lavapipe's waits block (a CPU
device), so the spin loop of a GPU wait is not in the count.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CASES = ["vp.multiply(x, 2.0, out=y); sync()", "vp.multiply(x, 2.0, out=y) alone",
         "@vp.kernel tiny sync call", "x * 2.0; sync()"]


def child(calls):
    import numpy as np

    import vulpy as vp
    sys.path.insert(0, str(HERE.parent))
    from bench_python import _tiny
    n = 1 << 10
    ctx = vp.default_context()
    ctx.eager_batch = 1  # as on a GPU
    a = vp.asarray(np.linspace(0, 1, n, dtype=np.float32))
    c = vp.empty(n, np.float32)
    sync, mul = ctx.synchronize, vp.multiply
    for _ in range(3):
        mul(a, 2.0, out=c)
        sync()
        a * 2.0
        sync()
        _tiny(a, c, dispatch=n, a=2.0)
    fns = [lambda: (mul(a, 2.0, out=c), sync()), lambda: mul(a, 2.0, out=c),
           lambda: _tiny(a, c, dispatch=n, a=2.0), lambda: (a * 2.0, sync())]
    for fn in [lambda: None] + fns:
        os.getppid()  # callgrind dumps its counters here
        for _ in range(calls):
            fn()
        sync()
    os.getppid()


def dump_cost(path):
    """(all instructions, those of calls from the extension into the driver)."""
    total = next(int(ln.split()[1]) for ln in open(path)
                 if ln.startswith(("summary:", "totals:")))
    tree = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--tree=calling",
                           "--threshold=100", path], capture_output=True, text=True,
                          check=True).stdout
    driver, ours = 0, False
    for ln in tree.splitlines():
        m = re.match(r"\s*([\d,]+) \([^)]*\)\s+(\*|>)\s+(.*)", ln)
        if not m:
            continue
        cost, kind, what = int(m.group(1).replace(",", "")), m.group(2), m.group(3)
        if kind == "*":
            ours = "_vulpy" in what
        elif ours and ("libvulkan" in what):
            driver += cost
    return total, driver


def measure(build, calls, python):
    env = dict(os.environ, VULPY_VALIDATION="0")
    if build:
        p = Path(build)
        env["PYTHONPATH"] = str(p / "bindings" / "python" if (p / "bindings").is_dir() else p)
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "cg.out")
        subprocess.run(["valgrind", "--tool=callgrind", "--dump-before=getppid",
                        "--separate-threads=yes", f"--callgrind-out-file={out}", python, __file__,
                        "--child", "--calls", str(calls)], env=env, check=True,
                       capture_output=True)
        # dump 1: start-up; then the empty loop and the cases (thread 1: the caller's)
        got = [dump_cost(f"{out}.{i}-01") for i in range(2, len(CASES) + 3)]
    base = got[0][0] / calls
    return [((t - drv) / calls - base, drv / calls) for t, drv in got[1:]]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("builds", nargs="*")
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.calls)
        return
    builds = args.builds or [None]
    got = [measure(b, args.calls, args.python) for b in builds]
    print(f"{'host instructions per call, driver off':40s}" +
          "".join(f" {str(b or 'this tree')[-18:]:>18s}" for b in builds))
    for k, case in enumerate(CASES):
        print(f"{case:40s}" + "".join(f" {g[k][0]:18.0f}" for g in got))
    print(f"{'(driver calls, left out)':40s}" +
          "".join(f" {sum(x[1] for x in g) / len(g):18.0f}" for g in got))


if __name__ == "__main__":
    main()
