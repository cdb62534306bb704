"""Why the persistent suite's rows for one configuration disagree (issue 15):
the same kernel at the same group count measured in different places of a
run. In the H200 runs of waves 8-10 every row timed right after a CUDA
process had used the GPU was faster than the same configuration timed
elsewhere in the run (default barrier alone at 132 groups 1.77 us after the
CUDA grid.sync() anchor, 2.51 us as `barrier=flip` later, same GLSL; the
small grid's headline row 4.92 us/step after the sort suite's CuPy process,
6.23 as `groups=work` after a stepped run, same kernel object). This probe
measures one set of configurations, interleaved rep by rep, after each of
the things the suite does between those rows, and prints the GPU's clocks
(nvidia-smi) beside each set, so one run says which event moves the figure.

    .venv/bin/python bench/probes/persistent_order.py           (the H200)
    .venv/bin/python bench/probes/persistent_order.py --quick   (lavapipe: a smoke run)
    bash bench/device/probes.sh 300 'bench/probes/persistent_order.py'

Configurations (each a blocking wait, wall time over the steps or barriers):
  headline  the small grid as the suite's headline row calls it (no groups=)
  work      the same kernel object with groups="work" (the suite's groups=work row)
  flip      a second kernel object compiled with barrier="flip" (the same GLSL)
  cg-offpath  the small grid with barrier="cg-offpath"
  bar132    the default barrier alone at 132 groups (the suite's `grid barrier` row)
Phases, in order: start; after the CUDA grid.sync() program; again (does it
last?); after 3 s idle; after CUDA then a stepped run of the small grid;
after CUDA then the 2^26-cell grid; after CUDA then 2000 tiny eager ops;
after CUDA then the barrier alone at 1056 groups. Each phase line gives the
median us/step (us/barrier for bar132) and every rep, in order, so a state
that wears off within a phase shows.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # bench/ (bench_persistent)

import bench_persistent as bp  # noqa: E402

import vulpy as vp  # noqa: E402


def clocks():
    """'sm MHz / mem MHz / pstate' from nvidia-smi, or '-'."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return "-"
    try:
        r = subprocess.run([smi, "--query-gpu=clocks.sm,clocks.mem,pstate,power.draw",
                            "--format=csv,noheader"], capture_output=True, text=True, timeout=10)
        return r.stdout.strip().replace(", ", "/") or "-"
    except (OSError, subprocess.SubprocessError):
        return "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (lavapipe)")
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    ctx = vp.default_context()
    quick = args.quick or ctx.info.get("driver_name") == "llvmpipe"
    n, steps, sync_steps = (4096, 100, 200) if quick else (1 << 16, 10_000, 20_000)
    big_n, big_steps = (1 << 16, 5) if quick else (1 << 26, 200)
    reps = 2 if quick else args.reps
    tmp = tempfile.mkdtemp(prefix="vulpy-persistent-order-")
    heat, syncs, _ = bp._kernels(tmp)
    heat_flip, _, _ = bp._kernels(tmp, "flip")
    heat_off, _, _ = bp._kernels(tmp, "cg-offpath")
    u0 = np.random.default_rng(1).random(n, dtype=np.float32)

    def small(kernel, **kw):
        def run():
            u, v = vp.asarray(u0), vp.zeros(n, np.float32)
            t0 = time.perf_counter_ns()
            h = kernel(u, v, n=n, alpha=0.2, steps=steps, sync=False, **kw)
            h.wait()
            dt = time.perf_counter_ns() - t0
            return dt / 1e3 / steps, h.admitted
        return run

    def barrier(groups):
        def run():
            kw = {} if quick else {"groups": groups}
            t0 = time.perf_counter_ns()
            h = syncs(steps=sync_steps, sync=False, **kw)
            h.wait()
            dt = time.perf_counter_ns() - t0
            return dt / 1e3 / h.barriers, h.admitted
        return run

    configs = {"headline": small(heat, mode="persistent"),
               "work": small(heat, mode="persistent", groups="work"),
               "flip": small(heat_flip, mode="persistent"),
               "cg-offpath": small(heat_off, mode="persistent"),
               "bar132": barrier(132)}
    for fn in configs.values():  # compile, warm up
        fn()

    cuda_note = []

    def cuda():
        got = bp._cuda_grid_sync(tmp, 132, sync_steps, 2)
        if isinstance(got, str):
            cuda_note.append(got)

    def stepped():
        u, v = vp.asarray(u0), vp.zeros(n, np.float32)
        heat(u, v, n=n, alpha=0.2, steps=steps, mode="stepped")

    def large():
        b0 = np.zeros(big_n, np.float32)
        heat(vp.asarray(b0), vp.zeros(big_n, np.float32), n=big_n, alpha=0.2, steps=big_steps,
             mode="persistent")

    def eager():
        x = vp.zeros(1024, np.float32)
        for _ in range(2000):
            x = x + 1.0
        vp.synchronize() if hasattr(vp, "synchronize") else x.numpy()

    def idle():
        time.sleep(3)

    def barrier1056():
        h = syncs(steps=sync_steps, sync=False, **({} if quick else {"groups": 1056}))
        h.wait()

    phases = [("start", []), ("after CUDA", [cuda]), ("again", []), ("after 3 s idle", [idle]),
              ("after CUDA, stepped", [cuda, stepped]), ("after CUDA, 2^26 grid", [cuda, large]),
              ("after CUDA, 2000 eager ops", [cuda, eager]),
              ("after CUDA, barrier at 1056", [cuda, barrier1056]),
              ("after CUDA only", [cuda])]
    print(f"device: {ctx.name}; default barrier {vp._persistent.DEFAULT_BARRIER}; small grid "
          f"{n} cells x {steps} steps (us/step), bar132: {sync_steps} steps (us/barrier); "
          f"{reps} reps interleaved per phase; clocks: sm/mem/pstate/power", flush=True)
    for name, events in phases:
        for ev in events:
            ev()
        c0 = clocks()
        got = {k: [] for k in configs}
        adm = {}
        for _ in range(reps):
            for k, fn in configs.items():
                us, adm[k] = fn()
                got[k].append(us)
        c1 = clocks()
        print(f"\n[{name}] clocks before {c0}, after {c1}", flush=True)
        for k, xs in got.items():
            print(f"  {k:11s} groups {adm[k]:5d}  median {statistics.median(xs):7.3f}   reps "
                  + " ".join(f"{x:.3f}" for x in xs), flush=True)
    if cuda_note:
        print(f"\nno CUDA program ran: {cuda_note[0]}")


if __name__ == "__main__":
    main()
