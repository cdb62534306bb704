"""Persistent programs (issue 15, docs/persistent.md): the step rate of one
dispatch that owns its time loop against the stepped form (one dispatch per
phase, replayed from recorded command buffers), on a small launch-bound grid
and a large bandwidth-bound one, and the cost of one grid barrier.

    bash bench/device.sh --suites persistent      (the H200)
    .venv/bin/python bench/run.py --suite persistent --quick   (here)

Each case checks that both forms give the same bits. Wall time of the whole
run (launch to the last result), over the steps: what a user waits for.
"""
import os
import statistics
import time

import numpy as np

STEPPER = '''
import vulpy as vp


@vp.kernel(persistent=True, local_size_x=256)
def heat(u: vp.Buffer[vp.float32], v: vp.Buffer[vp.float32], n: vp.uint32, alpha: vp.float32,
         steps: vp.uint32):
    for t in range(steps):
        for p in vp.grid_range(n):
            l = u[p - 1] if p > 0 else u[p]
            r = u[p + 1] if p + 1 < n else u[p]
            v[p] = u[p] + alpha * (l + r - 2.0 * u[p])
        vp.grid_sync()
        for p in vp.grid_range(n):
            u[p] = v[p]


@vp.kernel(persistent=True, local_size_x=256)
def syncs(steps: vp.uint32):
    for t in range(steps):
        vp.grid_sync()
'''


def _kernels(tmp):
    """The kernels, from a file (the frontend reads a function's source)."""
    path = os.path.join(tmp, "persistent_kernels.py")
    with open(path, "w") as f:
        f.write(STEPPER)
    ns = {}
    code = compile(STEPPER, path, "exec")
    import linecache
    linecache.cache[path] = (len(STEPPER), None, STEPPER.splitlines(True), path)
    exec(code, ns)
    return ns["heat"], ns["syncs"]


def _time(fn, reps):
    out = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        fn()
        out.append(time.perf_counter_ns() - t0)
    return out


def _record(case, size, backend, samples_ns, per, device, unit="us/step", **extra):
    s = sorted(x / per / 1e3 for x in samples_ns)
    q = statistics.quantiles(s, n=10) if len(s) >= 10 else [s[0]] * 9
    return dict(case=case, size=size, backend=backend, median=statistics.median(s), p10=q[0],
                p90=q[-1], unit=unit, device=device, **extra)


def run(ctx):
    import tempfile

    import vulpy as vp
    tmp = tempfile.mkdtemp(prefix="vulpy-bench-persistent-")
    heat, syncs = _kernels(tmp)
    dev = vp.default_context()
    device = dev.name
    lavapipe = dev.info.get("driver_name") == "llvmpipe"
    reps = 3 if ctx.quick else 5
    # (label, cells, steps): lavapipe's loop budget (65,535 back-edges an
    # invocation) caps the persistent form there; the H200 has none
    if ctx.quick or lavapipe:
        cases = [("small grid (launch-bound)", 4096, 100), ("large grid", 1 << 16, 5)]
        sync_steps = 200
    else:
        cases = [("small grid (launch-bound)", 1 << 16, 10_000),
                 ("large grid (bandwidth-bound)", 1 << 26, 200)]
        sync_steps = 20_000
    records = []
    rng = np.random.default_rng(1)
    for label, n, steps in cases:
        u0 = rng.random(n, dtype=np.float32)
        results = {}
        # each form runs its own copy from the same start the same number of
        # times: the results must agree bit for bit
        for mode in ("persistent", "stepped"):
            u = vp.asarray(u0)
            v = vp.zeros(n, np.float32)
            info = {}

            def once(u=u, v=v, mode=mode, info=info, n=n, steps=steps):
                h = heat(u, v, n=n, alpha=0.2, steps=steps, mode=mode, sync=False)
                h.wait(timeout=600)
                info["admitted"], info["steps"] = h.admitted, h.steps
            try:
                once()  # compile, warm up
                samples = _time(once, reps)
            except Exception as e:  # a wrong size for the device, the budget
                records.append(dict(case=f"step rate, {label}", size=n, backend=mode,
                                    error=f"{type(e).__name__}: {e}"[:300], device=device))
                continue
            results[mode] = u.numpy().copy()
            records.append(_record(f"step rate, {label}", n, mode, samples, steps, device,
                                   steps=steps, groups=info["admitted"]))
        if len(results) == 2 and results["persistent"].tobytes() != results["stepped"].tobytes():
            records.append(dict(case=f"step rate, {label}", size=n, backend="check",
                                error="persistent and stepped results differ", device=device))
        per = {r["backend"]: r["median"] for r in records
               if r.get("case") == f"step rate, {label}" and "median" in r}
        if len(per) == 2:
            # issue 15's goals: >= 5x on the launch-bound grid, >= 0.95x on
            # the bandwidth-bound one
            goal = dict(op=">=", target=5.0 if "small" in label else 0.95, issue=15)
            records.append(dict(case=f"speed-up, {label}", size=n, backend="stepped/persistent",
                                median=per["stepped"] / per["persistent"], p10=None, p90=None,
                                unit="x", device=device, goal=goal))
    # the grid barrier alone: a time loop of grid syncs (two barriers a step:
    # the step boundary and the sync)
    info = {}

    def barriers():
        h = syncs(steps=sync_steps, sync=False)
        h.wait(timeout=600)
        info["admitted"], info["barriers"] = h.admitted, h.barriers
    try:
        barriers()
        samples = _time(barriers, reps)
        records.append(_record("grid barrier", sync_steps, "persistent", samples,
                               info["barriers"], device, unit="us/barrier",
                               groups=info["admitted"]))
    except Exception as e:
        records.append(dict(case="grid barrier", size=sync_steps, backend="persistent",
                            error=f"{type(e).__name__}: {e}"[:300], device=device))
    for r in records:
        r["suite"] = "persistent"
    return records


if __name__ == "__main__":
    import sys
    from types import SimpleNamespace
    for r in run(SimpleNamespace(quick="--quick" in sys.argv, build=None)):
        print(r)
