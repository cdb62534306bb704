"""Persistent programs (issue 15, docs/persistent.md): the step rate of one
dispatch that owns its time loop against the stepped form (one dispatch per
phase, replayed from recorded command buffers), on a small launch-bound grid
and a large bandwidth-bound one; the cost of one grid barrier beside CUDA's
cooperative `grid.sync()` on the same grid (nvcc, where there is one);
the host -> GPU -> host steering round trip of a running program; every
grid-barrier variant (@vp.kernel(barrier=...): the barrier alone and the
small grid's step rate, each with its GLSL) so one run shows the fastest;
both grids under each rule for the default group count (groups="work" |
"resident" | "cores": `step rate, ..., groups=RULE`); and (not with --quick)
a 60 s persistent run steered live all the way (no device loss, no stall).

Beside VulPy's stepped form (three dispatches a step on the heat kernel:
the one-group step boundary and one per phase), each grid also runs as two
plain kernels dispatched by hand (`step rate, ..., plain dispatches`, two
dispatches a step, PLAIN; bit-checked; `plain dispatches / persistent`):
what the stepped form's boundary dispatch costs the baseline.

Rows that are compared are timed the same way in one block: each grid's
headline persistent row, its stepped row, its plain row and its groups=RULE rows run
round-robin, rep by rep (_interleaved), and CUDA's grid.sync() anchors run
after every Vulkan row. In the H200 runs of waves 8-10 a row timed right
after a CUDA process had used the GPU (the previous suite's CuPy, this
suite's own anchor) read up to 30% faster than the same kernel at the same
group count elsewhere in the run (headline 4.92 us/step against
groups=work 6.23; default barrier at 132 groups 1.77 us against
barrier=flip 2.51, the same GLSL); bench/probes/persistent_order.py times
that. With fewer than 10 reps p10 and p90 are the fastest and the slowest
rep.

    bash bench/device/suites.sh --suites persistent      (the H200)
    .venv/bin/python bench/run.py --suite persistent --quick   (here)

Each case checks that both forms give the same bits. Wall time of the whole
run (launch to the last result), over the steps: what a user waits for.
"""
import os
import statistics
import sys
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


@vp.kernel(persistent=True, local_size_x=256, control_words={"ctrl": ["x", "echo"]})
def steer(ctrl: vp.Control, u: vp.Buffer[vp.float32], n: vp.uint32, steps: vp.uint32):
    for t in range(steps):
        for p in vp.grid_range(n):
            if p == 0:
                ctrl.echo = ctrl.x    # what the step saw, back to the host
            u[p] = u[p] * 0.5 + 1.0
        vp.grid_sync()
'''

# The stepped baseline without VulPy's stepped form: the heat step as two
# plain kernels (one point an invocation), two dispatches a step recorded
# 32 steps a command buffer, as a user would write it by hand. The stepped
# form adds a one-group step-boundary dispatch a step (stop requests,
# steering snapshots, the steps done): this row says what that costs.
PLAIN = '''
import vulpy as vp


@vp.kernel(local_size_x=256)
def stencil(u: vp.Buffer[vp.float32], v: vp.Buffer[vp.float32], n: vp.uint32, alpha: vp.float32):
    for p in vp.grid_range(n):
        l = u[p - 1] if p > 0 else u[p]
        r = u[p + 1] if p + 1 < n else u[p]
        v[p] = u[p] + alpha * (l + r - 2.0 * u[p])


@vp.kernel(local_size_x=256)
def copy(u: vp.Buffer[vp.float32], v: vp.Buffer[vp.float32], n: vp.uint32):
    for p in vp.grid_range(n):
        u[p] = v[p]
'''

# CUDA's own grid barrier, the anchor for ours: a cooperative launch of
# the same grid (groups x 256) looping over grid.sync(); CUDA events time it.
CUDA_SYNC = r'''
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
namespace cg = cooperative_groups;
__global__ void syncs(int steps, unsigned *out) {
  cg::grid_group g = cg::this_grid();
  for (int t = 0; t < steps; t++) g.sync();
  if (g.thread_rank() == 0) out[0] = steps;
}
int main(int argc, char **argv) {
  int groups = atoi(argv[1]), steps = atoi(argv[2]), reps = atoi(argv[3]);
  unsigned *out;
  cudaMalloc(&out, 4);
  void *args[] = {&steps, &out};
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int r = 0; r <= reps; r++) {  /* the first is a warm-up */
    cudaEventRecord(a);
    cudaError_t e = cudaLaunchCooperativeKernel((void *)syncs, groups, 256, args, 0, 0);
    cudaEventRecord(b);
    if (e == cudaSuccess) e = cudaEventSynchronize(b);
    if (e != cudaSuccess) { printf("error %s\n", cudaGetErrorString(e)); return 1; }
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    if (r) printf("%f\n", ms * 1000.0 / steps);
  }
  return 0;
}
'''


def _kernels(tmp, barrier=None, nonprivate=False):
    """The kernels, from a file (the frontend reads a function's source);
    `barrier`: the grid-barrier variant they are compiled with (None: the
    default one); nonprivate: non-private buffers instead of coherent."""
    text = STEPPER
    if barrier is not None:
        text = text.replace("persistent=True,",
                            f"persistent=True, barrier={barrier!r}, nonprivate={nonprivate!r},")
    path = os.path.join(tmp, f"persistent_kernels_{barrier or 'default'}"
                             f"{'_nonprivate' if nonprivate else ''}.py")
    with open(path, "w") as f:
        f.write(text)
    ns = {}
    code = compile(text, path, "exec")
    import linecache
    linecache.cache[path] = (len(text), None, text.splitlines(True), path)
    exec(code, ns)
    return ns["heat"], ns["syncs"], ns["steer"]


def _plain_stepper(tmp, n, steps):
    """A function running `steps` heat steps on (u, v) as plain dispatches
    (PLAIN: stencil, then copy, 32 steps a recorded command buffer, each
    submitted and waited for), and the dispatches a step (2)."""
    import linecache

    import vulpy as vp
    from vulpy import _native
    path = os.path.join(tmp, "persistent_plain_kernels.py")
    with open(path, "w") as f:
        f.write(PLAIN)
    linecache.cache[path] = (len(PLAIN), None, PLAIN.splitlines(True), path)
    ns = {}
    exec(compile(PLAIN, path, "exec"), ns)
    ctx = vp.default_context()
    progs = [ns["stencil"].program(), ns["copy"].program()]
    kerns = [p.native(ctx) for p in progs]
    groups = -(-n // 256)

    def run(u, v):
        bufs = [u._buf, v._buf]
        pushes = [progs[0].packer.pack(dict(n=n, alpha=0.2)), progs[1].packer.pack(dict(n=n))]
        for k in range(0, steps, 32):
            rec = _native.ext().Recording(ctx._native, False)
            for _ in range(min(32, steps - k)):
                for kern, push in zip(kerns, pushes):
                    rec.dispatch(kern, bufs, push, groups, 1, 1, True)
            rec.run()
    return run


def _barrier_glsl(syncs):
    """The GLSL of a time loop of grid syncs, from the time loop on (the
    two barriers a step, as every back end sees them)."""
    text = syncs.glsl
    at = text.find("for (")
    return text[at:] if at >= 0 else text


def _finish(h):
    """Waits for a timed run without sleep-polling: wait(timeout=...) polls
    with sleeps that grow to 10 ms, which added up to 10 ms to each timed
    run (on the 10^4-step small grid, ~65 ms, up to 1.5 us a step); wait()
    blocks on the run's fence (the GIL released). A run cannot hang: every
    barrier wait is bounded by the spin limit."""
    h.wait()


def _time(fn, reps):
    out = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        fn()
        out.append(time.perf_counter_ns() - t0)
    return out


def _record(case, size, backend, samples_ns, per, device, unit="us/step", **extra):
    s = sorted(x / per / 1e3 for x in samples_ns)
    # fewer than 10 samples: the fastest and the slowest (a spread, not a
    # quantile)
    q = statistics.quantiles(s, n=10) if len(s) >= 10 else [s[0]] * 8 + [s[-1]]
    return dict(case=case, size=size, backend=backend, median=statistics.median(s), p10=q[0],
                p90=q[-1], unit=unit, device=device, **extra)


def _interleaved(fns, reps):
    """Times each function of `fns` (name -> fn) `reps` times, round-robin
    (a, b, c, a, b, c, ...) after one untimed round (compile, warm up), so
    that whatever state the GPU is in during the block (the H200 runs of
    waves 8-10: rows timed right after a CUDA process had used the GPU read
    up to 30% faster than the same kernel timed later, bench/probes/
    persistent_order.py) weighs on every row alike. Returns ({name: [ns]},
    {name: error}); a function that raised is left out from then on."""
    samples, errors = {k: [] for k in fns}, {}
    for k, fn in fns.items():
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - a wrong size for the device, the budget
            errors[k] = f"{type(e).__name__}: {e}"[:300]
    for _ in range(reps):
        for k, fn in fns.items():
            if k in errors:
                continue
            t0 = time.perf_counter_ns()
            try:
                fn()
            except Exception as e:  # noqa: BLE001
                errors[k] = f"{type(e).__name__}: {e}"[:300]
                continue
            samples[k].append(time.perf_counter_ns() - t0)
    return samples, errors


def _grid_rows(heat, label, n, steps, reps, device, rng, tmp):
    """One grid's rows, all timed in one interleaved block: the default
    launch persistent and stepped (the headline rows `step rate, LABEL`
    and `speed-up, LABEL`) and the default barrier under each rule for the
    groups a launch dispatches (groups="work" | "resident" | "cores",
    vp._persistent.GROUP_RULES: `step rate, LABEL, groups=RULE`, with
    `rule` and the groups discovery admitted). Every form runs its own copy
    from the same start the same number of times, so all must end with the
    same bits (checked against the stepped form)."""
    import vulpy as vp
    u0 = rng.random(n, dtype=np.float32)
    forms = [("persistent", "persistent", None), ("stepped", "stepped", None)]
    forms += [(f"groups={rule}", "persistent", rule) for rule in vp._persistent.GROUP_RULES]
    fns, state = {}, {}
    try:
        plain = _plain_stepper(tmp, n, steps)
    except Exception as e:  # noqa: BLE001 - reported as the row's error
        plain = f"{type(e).__name__}: {e}"[:300]
    for name, mode, groups in forms + [("plain dispatches", "plain", None)]:
        info = state[name] = dict(u=vp.asarray(u0), v=vp.zeros(n, np.float32))
        if mode == "plain":
            def once(info=info):
                if isinstance(plain, str):
                    raise RuntimeError(plain)
                plain(info["u"], info["v"])
                info["admitted"] = -(-n // 256)
            fns[name] = once
            continue

        def once(info=info, mode=mode, groups=groups):
            kw = {} if groups is None else {"groups": groups}
            h = heat(info["u"], info["v"], n=n, alpha=0.2, steps=steps, mode=mode, sync=False,
                     **kw)
            _finish(h)
            info["admitted"] = h.admitted
        fns[name] = once
    t_start = time.time()
    samples, errors = _interleaved(fns, reps)
    want = None if "stepped" in errors else state["stepped"]["u"].numpy().tobytes()
    stepped = (None if "stepped" in errors
               else statistics.median(samples["stepped"]) / steps / 1e3)
    out = []
    for name, mode, rule in forms:
        case = f"step rate, {label}" + ("" if rule is None else f", {name}")
        extra = {} if rule is None else dict(barrier=None, nonprivate=False, rule=rule)
        if name in errors:
            out.append(dict(case=case, size=n, backend=mode, error=errors[name], device=device,
                            **extra))
            continue
        rec = _record(case, n, mode, samples[name], steps, device, steps=steps,
                      groups=state[name]["admitted"], interleaved=True, t_start=t_start, **extra)
        out.append(rec)
        if mode == "stepped":
            continue
        if want is not None and state[name]["u"].numpy().tobytes() != want:
            out.append(dict(case=case, size=n, backend="check",
                            error="persistent and stepped results differ", device=device, **extra))
        if stepped is not None:
            # issue 15's goals: >= 5x on the launch-bound grid, >= 0.95x
            # on the bandwidth-bound one
            goal = dict(op=">=", target=5.0 if "small" in label else 0.95, issue=15)
            out.append(dict(case=case.replace("step rate", "speed-up", 1), size=n,
                            backend="stepped/persistent", median=stepped / rec["median"],
                            p10=None, p90=None, unit="x", device=device, goal=goal, **extra))
    # the plain baseline: two dispatches a step, no step-boundary dispatch
    case = f"step rate, {label}, plain dispatches"
    if "plain dispatches" in errors:
        out.append(dict(case=case, size=n, backend="stepped (plain)",
                        error=errors["plain dispatches"], device=device))
        return out
    rec = _record(case, n, "stepped (plain)", samples["plain dispatches"], steps, device,
                  steps=steps, groups=state["plain dispatches"]["admitted"],
                  dispatches_per_step=2, interleaved=True, t_start=t_start)
    out.append(rec)
    if want is not None and state["plain dispatches"]["u"].numpy().tobytes() != want:
        out.append(dict(case=case, size=n, backend="check",
                        error="plain dispatches and stepped results differ", device=device))
    if "persistent" in samples and samples["persistent"]:
        pers = statistics.median(samples["persistent"]) / steps / 1e3
        out.append(dict(case=f"plain dispatches / persistent, {label}", size=n,
                        backend="plain/persistent", median=rec["median"] / pers, p10=None,
                        p90=None, unit="x", device=device))
    return out


def run(ctx):
    import tempfile

    import vulpy as vp
    tmp = tempfile.mkdtemp(prefix="vulpy-bench-persistent-")
    heat, syncs, steer = _kernels(tmp)
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
        records += _grid_rows(heat, label, n, steps, reps, device, rng, tmp)
    # the grid barrier alone: a time loop of grid syncs (two barriers a step:
    # the step boundary and the sync), at the default size and at 132 groups
    # (one a SM on the H200: PERSISTENT.md's raw-GLSL probe measured 3.1 us).
    # The NVIDIA driver runs Vulkan barriers faster once a CUDA program has
    # run on the GPU, and keeps them so (bench/probes/barrier_state.py, H200
    # 2026-12-03: flip 2.49 -> 1.70 us at 132 groups, 3.90 -> 3.14 at 1056,
    # from the first CUDA run on, for the rest of the process; every rep
    # before it slow, every rep after it fast). CUDA's grid.sync() is timed
    # in that state by construction, so the rows compared with it are timed
    # in it too: the default barrier first as the GPU is before any CUDA
    # program ran (`grid barrier, before CUDA ran`, no goal), then the CUDA
    # program once, then every barrier row; the anchors themselves run at
    # the end (_cuda_anchors)
    sizes = [None] if ctx.quick or lavapipe else [None, 132, 1056]

    def barrier_row(case, groups):
        info = {}

        def barriers():
            kw = {} if groups is None else {"groups": groups}
            h = syncs(steps=sync_steps, sync=False, **kw)
            _finish(h)
            info["admitted"], info["barriers"] = h.admitted, h.barriers
        try:
            barriers()
            samples = _time(barriers, reps)
            return _record(case, sync_steps, "persistent", samples, info["barriers"], device,
                           unit="us/barrier", groups=info["admitted"])
        except Exception as e:
            return dict(case=case, size=sync_steps, backend="persistent", groups=groups,
                        error=f"{type(e).__name__}: {e}"[:300], device=device)
    if not (ctx.quick or lavapipe):
        records += [barrier_row("grid barrier, before CUDA ran", g) for g in sizes if g]
        got = _cuda_grid_sync(tmp, 132, 1000, 1)  # the state CUDA leaves
        if isinstance(got, str):
            print(f"persistent: no CUDA program before the barrier rows: {got}", file=sys.stderr)
    records += [barrier_row("grid barrier", g) for g in sizes]
    records += _variants(tmp, device, cases, sizes, sync_steps, reps, records)
    records += _slices(heat, device, cases[0], reps, records)
    records += _steering(steer, device, quick=ctx.quick or lavapipe)
    if not (ctx.quick or lavapipe):
        records += _long_run(steer, device, seconds=60)
    records += _cuda_anchors(tmp, records, sync_steps, reps, device)
    records += _per_step(records, cases[0][0], device)
    for r in records:
        r["suite"] = "persistent"
    return records


def _cuda_anchors(tmp, records, sync_steps, reps, device):
    """CUDA's grid.sync() (cooperative launch) at each group count a
    barrier row was admitted at, and each barrier row's ratio to it
    (`grid barrier vs CUDA[, barrier=NAME]`, issue 15's goal <= 1.5x). Run
    after every Vulkan row: the H200 runs of waves 8-10 read the Vulkan
    rows timed right after this CUDA program up to 30% faster than the
    same configurations elsewhere in the run."""
    import re
    rows = [r for r in records if r.get("backend") == "persistent" and "median" in r
            and re.fullmatch(r"grid barrier(, barrier=[\w-]+)?", r.get("case", ""))]
    out, cuda = [], {}
    for groups in sorted({r["groups"] for r in rows}):
        got = _cuda_grid_sync(tmp, groups, sync_steps, reps)
        if isinstance(got, str):
            out.append(dict(case="grid barrier", size=sync_steps, backend="cuda grid.sync()",
                            groups=groups, skipped=got, device=device))
            continue
        crec = _record("grid barrier", sync_steps, "cuda grid.sync()", [x * 1e3 for x in got],
                       1, device, unit="us/barrier", groups=groups)
        out.append(crec)
        cuda[groups] = crec["median"]
    for r in rows:
        c = cuda.get(r["groups"])
        if not c:
            continue
        tag = r["case"][len("grid barrier"):]
        out.append(dict(case=f"grid barrier vs CUDA{tag}", size=sync_steps,
                        backend="persistent/cuda", median=r["median"] / c, p10=None, p90=None,
                        unit="x", device=device, groups=r["groups"],
                        **({"barrier": r["barrier"]} if "barrier" in r else {}),
                        goal=dict(op="<=", target=1.5, issue=15)))
    return out


def _variants(tmp, device, cases, sizes, sync_steps, reps, done):
    """Every grid-barrier variant (@vp.kernel(barrier=...), docs/persistent.md
    "Barrier variants"), and lean, flip and cg with non-private buffers
    (nonprivate=True, "Memory model"), on the same cases: the barrier alone (us/barrier at
    each size; CUDA's grid.sync() is timed after every Vulkan row,
    _cuda_anchors) and both grids'
    persistent step rates (the speed-up over the stepped form measured
    above, and a bit-for-bit check against it). Each variant's first barrier
    record carries the GLSL of its time loop (`glsl`), also printed on
    stderr."""

    import vulpy as vp
    refs = {}
    for label, n, steps in cases:
        stepped = next((r for r in done if r.get("case") == f"step rate, {label}"
                        and r.get("backend") == "stepped" and "median" in r), None)
        u0 = np.random.default_rng(1).random(n, dtype=np.float32)
        ref = vp.asarray(u0)
        try:
            _kernels(tmp)[0](ref, vp.zeros(n, np.float32), n=n, alpha=0.2, steps=steps,
                             mode="stepped")
            ref = ref.numpy().tobytes()
        except Exception:  # noqa: BLE001 - the check is then left out
            ref = None
        refs[label] = (u0, ref, stepped)
    out = []
    configs = [(b, False) for b in vp._persistent.BARRIERS] + [("lean", True), ("flip", True),
                                                               ("cg", True)]
    for barrier, nonprivate in configs:
        heat, syncs, _ = _kernels(tmp, barrier, nonprivate)
        tag = f"barrier={barrier}" + (", nonprivate" if nonprivate else "")
        if (vp.default_context().info.get("driver_name") == "llvmpipe"
                and vp._persistent.acquire_polls(syncs.program())):
            # cgx-acqpoll: lavapipe miscompiles acquire polls and runs it
            # stepped (docs/persistent.md): nothing to time here
            out.append(dict(case=f"grid barrier, {tag}", size=sync_steps, backend="persistent",
                            barrier=barrier, device=device,
                            skipped="lavapipe runs this barrier stepped (acquire polls)"))
            continue
        glsl = None
        try:
            glsl = _barrier_glsl(syncs)
            print(f"---- grid barrier, {tag}: GLSL of the time loop ----\n{glsl}",
                  file=sys.stderr)
        except Exception as e:  # noqa: BLE001
            glsl = f"{type(e).__name__}: {e}"[:300]
        # the barrier alone has no buffers: nonprivate does not change it
        for groups in sizes if not nonprivate else []:
            info = {}

            def barriers(groups=groups, info=info):
                kw = {} if groups is None else {"groups": groups}
                h = syncs(steps=sync_steps, sync=False, **kw)
                _finish(h)
                info["admitted"], info["barriers"] = h.admitted, h.barriers
            try:
                barriers()
                rec = _record(f"grid barrier, {tag}", sync_steps, "persistent",
                              _time(barriers, reps), info["barriers"], device,
                              unit="us/barrier", groups=info["admitted"], barrier=barrier,
                              nonprivate=nonprivate)
            except Exception as e:  # noqa: BLE001
                out.append(dict(case=f"grid barrier, {tag}", size=sync_steps,
                                backend="persistent", groups=groups, barrier=barrier,
                                error=f"{type(e).__name__}: {e}"[:300], device=device))
                continue
            if glsl is not None:
                rec["glsl"], glsl = glsl, None
            out.append(rec)
        for label, n, steps in cases:
            # the small grid also with one group a SM (132 on the H200): a
            # barrier among fewer groups is cheaper, and 132 x 256
            # invocations still cover 64K cells in two strides
            for groups in [None] + ([132] if "small" in label and len(sizes) > 1 else []):
                out += _variant_steps(heat, tag, barrier, nonprivate, label, n, steps, reps,
                                      refs[label], device, groups)
    return out


def case_is_default_barrier(r):
    return r.get("case") == "grid barrier" and r.get("backend") == "persistent" and "median" in r


def _per_step(records, label, device):
    """The small (launch-bound) grid's time a step, persistent against
    stepped, for the default barrier and every variant at each group count
    measured: a record each (`per-step time, ...`: persistent and stepped
    us/step, their ratio, the us/step the 5x goal needs, and the variant's
    own grid-barrier cost at that group count, two of which a step of the
    heat kernel pays) and a table on stderr, so the lead sees where the
    goal stands and how much of a step the barriers are."""
    import re
    stepped = next((r for r in records if r.get("case") == f"step rate, {label}"
                    and r.get("backend") == "stepped" and "median" in r), None)
    if not stepped:
        return []
    barrier = {}   # (barrier, nonprivate, groups) -> us/barrier
    for r in records:
        m = re.fullmatch(r"grid barrier, barrier=([\w-]+)", r.get("case", ""))
        if m and "median" in r:
            barrier[(m.group(1), False, r.get("groups"))] = r["median"]
        elif case_is_default_barrier(r):
            barrier[(None, False, r.get("groups"))] = r["median"]
    rows = []
    for r in records:
        case = r.get("case", "")
        if r.get("backend") != "persistent" or "median" not in r or not (
                case == f"step rate, {label}" or case.startswith(f"step rate, {label}, barrier=")
                or case.startswith(f"step rate, {label}, groups=")):
            continue
        name = case[len(f"step rate, {label}"):].lstrip(", ") or "default"
        b = r.get("barrier")
        rows.append(dict(case=f"per-step time, {label}, {name}", size=r["size"],
                         backend="persistent vs stepped", median=r["median"], p10=r.get("p10"),
                         p90=r.get("p90"), unit="us/step", device=device,
                         stepped_us=stepped["median"], groups=r.get("groups"),
                         speedup=stepped["median"] / r["median"],
                         goal_us=stepped["median"] / 5.0,
                         # the barrier alone has no buffers: nonprivate
                         # does not change it (measured coherent)
                         barrier_us=barrier.get((b, False, r.get("groups"))),
                         barrier=b, nonprivate=r.get("nonprivate", False)))
    if rows:
        print(f"---- per-step time, {label}: stepped {stepped['median']:.2f} us/step "
              f"(goal: persistent <= {stepped['median'] / 5:.2f} us/step, 5x) ----",
              file=sys.stderr)
        print(f"{'variant':44s} {'groups':>6s} {'us/step':>8s} {'speed-up':>8s} "
              f"{'barrier us':>10s}", file=sys.stderr)
        for row in rows:
            bu = row["barrier_us"]
            print(f"{row['case'].split(', ', 2)[-1]:44s} {row['groups'] or 0:6d} "
                  f"{row['median']:8.2f} {row['speedup']:7.2f}x "
                  f"{'' if bu is None else f'{bu:10.2f}'}", file=sys.stderr)
    # the barrier alone, every variant beside CUDA's grid.sync() (goal <= 1.5x)
    cuda = {r.get("groups"): r["median"] for r in records
            if r.get("backend") == "cuda grid.sync()" and "median" in r}
    if barrier:
        print("---- grid barrier alone, us/barrier (ratio to CUDA grid.sync(), goal <= 1.5x) ----",
              file=sys.stderr)
        for (b, _, g), us in sorted(barrier.items(), key=lambda kv: (kv[0][2] or 0, kv[1])):
            c = cuda.get(g)
            print(f"{b or 'default':12s} groups {g or 0:5d} {us:8.2f} us" +
                  (f"   cuda {c:6.2f} us   {us / c:5.2f}x" if c else "   (no CUDA anchor)"),
                  file=sys.stderr)
    return rows


def _variant_steps(heat, tag, barrier, nonprivate, label, n, steps, reps, ref, device,
                   groups=None):
    """One variant's persistent step rate on one grid, its speed-up over
    the stepped form and its bit-for-bit check; groups: the groups to
    dispatch (None: the default)."""
    import vulpy as vp
    u0, want, stepped = ref
    if groups is not None:
        tag = f"{tag}, groups={groups}" if tag else f"groups={groups}"
    u = vp.asarray(u0)
    v = vp.zeros(n, np.float32)
    info = {}
    extra = dict(barrier=barrier, nonprivate=nonprivate)

    def once(u=u, v=v, info=info):
        h = heat(u, v, n=n, alpha=0.2, steps=steps, mode="persistent", sync=False,
                 groups=groups)
        _finish(h)
        info["admitted"] = h.admitted
    try:
        once()
        samples = _time(once, reps)
    except Exception as e:  # noqa: BLE001
        return [dict(case=f"step rate, {label}, {tag}", size=n, backend="persistent",
                     error=f"{type(e).__name__}: {e}"[:300], device=device, **extra)]
    rec = _record(f"step rate, {label}, {tag}", n, "persistent", samples, steps, device,
                  steps=steps, groups=info["admitted"], **extra)
    out = [rec]
    # a fresh single run from the same start, against the stepped form's
    one = vp.asarray(u0)
    heat(one, vp.zeros(n, np.float32), n=n, alpha=0.2, steps=steps, mode="persistent",
         groups=groups)
    if want is not None and one.numpy().tobytes() != want:
        out.append(dict(case=f"step rate, {label}, {tag}", size=n, backend="check",
                        error="persistent and stepped results differ", device=device, **extra))
    if stepped:
        out.append(dict(case=f"speed-up, {label}, {tag}", size=n, backend="stepped/persistent",
                        median=stepped["median"] / rec["median"], p10=None, p90=None, unit="x",
                        device=device,
                        goal=dict(op=">=", target=5.0 if "small" in label else 0.95, issue=15),
                        **extra))
    return out


def _slices(heat, device, small, reps, done):
    """The small grid in bounded slices (max_seconds_per_dispatch=, a few
    slices a run): the step rate with the relaunches, their count, and a
    bit-for-bit check against one dispatch (docs/persistent.md, "Bounded
    slices")."""
    import vulpy as vp
    label, n, steps = small
    one = next((r for r in done if r.get("case") == f"step rate, {label}"
                and r.get("backend") == "persistent" and "median" in r), None)
    u0 = np.random.default_rng(1).random(n, dtype=np.float32)
    ref = vp.asarray(u0)
    heat(ref, vp.zeros(n, np.float32), n=n, alpha=0.2, steps=steps, mode="persistent")
    # about four slices a run: a quarter of one dispatch's time
    sl = max(0.001, (one["median"] * steps / 1e6 / 4) if one else 0.01)
    u, v = vp.asarray(u0), vp.zeros(n, np.float32)
    info = {}

    def once(u=u, v=v, info=info):
        h = heat(u, v, n=n, alpha=0.2, steps=steps, sync=False, max_seconds_per_dispatch=sl)
        _finish(h)
        info["dispatches"], info["admitted"] = h.dispatches, h.admitted
    try:
        samples = _time(once, reps)
        chk = vp.asarray(u0)
        h = heat(chk, vp.zeros(n, np.float32), n=n, alpha=0.2, steps=steps, sync=False,
                 max_seconds_per_dispatch=sl)
        h.wait(timeout=600)
    except Exception as e:  # noqa: BLE001
        return [dict(case=f"step rate, {label}, slices", size=n, backend="persistent",
                     error=f"{type(e).__name__}: {e}"[:300], device=device)]
    rec = _record(f"step rate, {label}, slices", n, "persistent", samples, steps, device,
                  steps=steps, groups=info["admitted"], dispatches=info["dispatches"],
                  max_seconds_per_dispatch=sl)
    out = [rec]
    if chk.numpy().tobytes() != ref.numpy().tobytes():
        out.append(dict(case=f"step rate, {label}, slices", size=n, backend="check",
                        error="sliced and one-dispatch results differ", device=device))
    return out


def _cuda_grid_sync(tmp, groups, steps, reps):
    """us per CUDA grid.sync() for `groups` groups of 256 (cooperative
    launch), or why not."""
    import shutil
    import subprocess
    nvcc = shutil.which("nvcc") or (os.path.exists("/usr/local/cuda/bin/nvcc")
                                    and "/usr/local/cuda/bin/nvcc")
    if not nvcc:
        return "no nvcc"
    src = os.path.join(tmp, "grid_sync.cu")
    exe = os.path.join(tmp, "grid_sync")
    with open(src, "w") as f:
        f.write(CUDA_SYNC)
    try:
        if not os.path.exists(exe):
            subprocess.run([nvcc, "-O3", "-arch=native", "-o", exe, src], check=True,
                           capture_output=True, timeout=300)
        r = subprocess.run([exe, str(groups), str(steps), str(reps)], capture_output=True,
                           text=True, timeout=600)
    except (OSError, subprocess.SubprocessError) as e:
        return f"{type(e).__name__}: {e}"[:300]
    if r.returncode:
        return (r.stdout + r.stderr).strip()[:300] or f"exit {r.returncode}"
    return [float(x) for x in r.stdout.split()]


def _round_trips(h, ctrl, count, start, timeout=10.0):
    """count steering round trips: the host writes x, a step of the running
    kernel snapshots it at its boundary and writes it back to echo, the host
    sees echo; seconds each (None: the program ended; raises on a stall)."""
    out = []
    for i in range(start, start + count):
        ctrl["x"] = i
        t0 = time.perf_counter()
        while ctrl["echo"] != i:
            if h.done:
                return out, None
            if time.perf_counter() - t0 > timeout:
                raise RuntimeError(f"stall: the running kernel did not echo x={i} in {timeout} s "
                                   f"(steps {h.steps})")
        out.append(time.perf_counter() - t0)
    return out, i + 1


def _steering(steer, device, quick):
    """Host -> GPU -> host steering round trip and the GPU -> host progress
    interval of a running program."""
    import vulpy as vp
    # lavapipe: one point a step keeps the run under its loop budget
    n = 256 if quick else 1 << 16
    steps = 10_000 if quick else 1 << 30
    ctrl = vp.ControlBuffer(["x", "echo"])
    u = vp.zeros(n, np.float32)
    try:
        h = steer(ctrl, u, n=n, steps=steps, sync=False)
        trips, _ = _round_trips(h, ctrl, 20 if quick else 2000, 1)
        # progress: how often a changed step count reaches the host
        seen, changes, t0 = h.steps, [], time.perf_counter()
        while len(changes) < (20 if quick else 2000) and not h.done:
            s = h.steps
            if s != seen:
                changes.append(time.perf_counter())
                seen = s
            if time.perf_counter() - t0 > 5:
                break
        if not h.done:
            h.stop()
        h.wait(timeout=60)
    except Exception as e:
        return [dict(case="steering round trip", size=n, backend="persistent",
                     error=f"{type(e).__name__}: {e}"[:300], device=device)]
    recs = []
    if trips:
        recs.append(_record("steering round trip (host write -> step sees it -> host sees echo)",
                            n, "persistent", [x * 1e9 for x in trips], 1, device, unit="us",
                            groups=h.admitted))
    if len(changes) > 2:
        gaps = [(b - a) * 1e9 for a, b in zip(changes, changes[1:])]
        recs.append(_record("progress interval (host sees steps change)", n, "persistent", gaps,
                            1, device, unit="us", groups=h.admitted))
    return recs


def _long_run(steer, device, seconds):
    """One persistent dispatch steered live for `seconds`: a new x every
    10 ms, each echoed within 10 s, the step count growing every second;
    then stop() and wait()."""
    import vulpy as vp
    n = 1 << 20
    ctrl = vp.ControlBuffer(["x", "echo"])
    u = vp.zeros(n, np.float32)
    rec = dict(case=f"{seconds} s persistent run, steered live", size=n, backend="persistent",
               device=device)
    try:
        h = steer(ctrl, u, n=n, steps=(1 << 32) - 1, sync=False)
        t0 = time.perf_counter()
        nxt, trips, last_steps, last_t = 1, [], 0, t0
        while time.perf_counter() - t0 < seconds:
            got, nxt = _round_trips(h, ctrl, 1, nxt)
            if nxt is None:
                raise RuntimeError(f"the program ended early at step {h.steps}")
            trips += got
            now = time.perf_counter()
            if now - last_t >= 1.0:
                s = h.steps
                if s <= last_steps:
                    raise RuntimeError(f"stall: steps stayed at {s} for {now - last_t:.1f} s")
                last_steps, last_t = s, now
            time.sleep(0.01)
        h.stop()
        h.wait(timeout=30)
        wall = time.perf_counter() - t0
        rec.update(median=wall, unit="s", steps=h.steps, steers=len(trips),
                   max_round_trip_us=max(trips) * 1e6, steps_per_s=h.steps / wall,
                   groups=h.admitted, p10=None, p90=None)
    except Exception as e:
        rec["error"] = f"{type(e).__name__}: {e}"[:300]
    return [rec]


if __name__ == "__main__":
    from types import SimpleNamespace
    for r in run(SimpleNamespace(quick="--quick" in sys.argv, build=None)):
        print(r)
