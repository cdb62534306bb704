"""Allocation from Python (issue 21): what NumPy-style code pays for the
arrays it makes, against CuPy in the same process (interleaved, when CuPy is
importable: the H200 machine has it).

Cases, float32, wall clock from Python, each call followed by nothing and a
block of calls ended by a synchronize (so that asynchronous work - CuPy's
memset, VulPy's deferred GPU zero fill - is paid inside the block):
  - `vp.zeros(n)` / `cupy.zeros(n)`, `vp.empty(n)` / `cupy.empty(n)`;
  - `c = a + b` on resident arrays, a new result each call (VulPy: the
    default memory kind and 'device', which tells where temporaries should
    live; docs/python-api.md, "Memory");
  - `vp.sin(x) + vp.exp(x)` without out= (two temporaries and a result);
  - an FDTD-like loop of 40 steps (H += 0.5 E; E += 0.5 H, each update a
    temporary and a new field) that allocates its two fields once per run,
    against the same dispatches on preallocated fields with out= (goal:
    within 5 %).
Ratios are vulpy time / CuPy time (goal <= 1.0) and allocating / preallocated
(goal <= 1.05), from pairs of neighbouring blocks. bench/notes/memory.md.
"""
import gc
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import benchlib as bl  # noqa: E402

GOAL_CUPY = {"op": "<=", "target": 1.0, "issue": 21}
GOAL_FDTD = {"op": "<=", "target": 1.05, "issue": 21}


def _block(fn, sync, inner):
    """A runner: `inner` calls of fn, then sync(); ns per call."""
    def run():
        t0 = time.perf_counter_ns()
        for _ in range(inner):
            fn()
        sync()
        return (time.perf_counter_ns() - t0) / inner
    return run


def _host(arr):
    """A resident result as NumPy, read through a GPU copy into 'cached'
    memory: the CPU reads rebar memory through PCIe at a fraction of a GB/s,
    seconds for the 512 MiB results at 2^27."""
    if not hasattr(arr, "numpy"):
        return arr
    if arr.memory in ("rebar", "device"):
        arr = arr.copy(memory="cached")
    return arr.numpy()


def _inner(n):
    return 20 if n <= 1 << 20 else 8 if n <= 1 << 24 else 3


def _cases(vp, ctx, cp, n):
    """{case: {backend: (setup -> fn, sync)}} for size n."""
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    dev = ctx.default_memory
    vsync = ctx.synchronize
    out = {}
    keep = {}

    def v_arrays(memory):
        if memory not in keep:
            keep[memory] = (vp.asarray(x, memory=memory), vp.asarray(y, memory=memory))
        return keep[memory]

    def check_v(fn, want, exact=False):
        got = _host(fn())
        (bl.check_equal if exact else bl.check_close)(got, want, *(() if exact else (2e-6,)),
                                                      **({} if exact else {"atol": 1e-6}))

    def vulpy_zeros():
        f = lambda: vp.zeros(n)  # noqa: E731
        check_v(f, np.zeros(n, np.float32), exact=True)
        return f

    def vulpy_empty():
        return lambda: vp.empty(n)

    def vulpy_add(memory):
        def setup():
            a, b = v_arrays(memory)
            f = lambda: a + b  # noqa: E731
            check_v(f, x + y)
            return f
        return setup

    def vulpy_add_out(memory):
        # the kernel alone, into a preallocated result: what the memory kind
        # costs the GPU, apart from allocation (the "where temporaries
        # live" measurement, docs/python-api.md)
        def setup():
            a, b = v_arrays(memory)
            c = vp.empty(n, memory=memory)
            f = lambda: vp.add(a, b, out=c)  # noqa: E731
            check_v(f, x + y)
            return f
        return setup

    def vulpy_sinexp():
        a, _ = v_arrays(dev)
        f = lambda: vp.sin(a) + vp.exp(a)  # noqa: E731
        check_v(f, np.sin(x) + np.exp(x))
        return f

    out["vp.zeros(n) / cupy.zeros"] = {"vulpy": (vulpy_zeros, vsync)}
    out["vp.empty(n) / cupy.empty"] = {"vulpy": (vulpy_empty, vsync)}
    out["c = a + b (new result)"] = {"vulpy": (vulpy_add(dev), vsync)}
    if dev != "device":
        out["c = a + b (new result)"]["vulpy device"] = (vulpy_add("device"), vsync)
    out["vp.sin(x) + vp.exp(x) (no out=)"] = {"vulpy": (vulpy_sinexp, vsync)}
    if hasattr(ctx, "eager_batch"):
        # the same with every eager dispatch submitted alone (eager_batch=1):
        # what batching the submissions saves (docs/runtime.md)
        out["c = a + b (new result)"]["vulpy batch 1"] = (_unbatched(ctx, vulpy_add(dev)), vsync)
        out["vp.sin(x) + vp.exp(x) (no out=)"]["vulpy batch 1"] = (
            _unbatched(ctx, vulpy_sinexp), vsync)
    out["vp.add(a, b, out=c) (no allocation)"] = {"vulpy": (vulpy_add_out(dev), vsync)}
    if dev != "device":
        out["vp.add(a, b, out=c) (no allocation)"]["vulpy device"] = (vulpy_add_out("device"),
                                                                      vsync)
    if cp is not None:
        csync = cp.cuda.Device().synchronize
        ckeep = {}

        def c_arrays():
            if not ckeep:
                ckeep["ab"] = (cp.asarray(x), cp.asarray(y))
            return ckeep["ab"]

        def cupy_zeros():
            f = lambda: cp.zeros(n, dtype=cp.float32)  # noqa: E731
            bl.check_equal(cp.asnumpy(f()), np.zeros(n, np.float32))
            return f

        def cupy_add():
            a, b = c_arrays()
            f = lambda: a + b  # noqa: E731
            bl.check_close(cp.asnumpy(f()), x + y, 2e-6, atol=1e-6)
            return f

        def cupy_sinexp():
            a, _ = c_arrays()
            f = lambda: cp.sin(a) + cp.exp(a)  # noqa: E731
            bl.check_close(cp.asnumpy(f()), np.sin(x) + np.exp(x), 2e-6, atol=1e-6)
            return f

        out["vp.zeros(n) / cupy.zeros"]["cupy"] = (cupy_zeros, csync)
        out["vp.empty(n) / cupy.empty"]["cupy"] = (lambda: lambda: cp.empty(n, cp.float32), csync)
        out["c = a + b (new result)"]["cupy"] = (cupy_add, csync)
        out["vp.sin(x) + vp.exp(x) (no out=)"]["cupy"] = (cupy_sinexp, csync)

        def cupy_add_out():
            a, b = c_arrays()
            c = cp.empty(n, cp.float32)
            f = lambda: cp.add(a, b, out=c)  # noqa: E731
            bl.check_close(cp.asnumpy(f()), x + y, 2e-6, atol=1e-6)
            return f

        out["vp.add(a, b, out=c) (no allocation)"]["cupy"] = (cupy_add_out, csync)
    return out


def _unbatched(ctx, setup):
    """A setup whose calls run with ctx.eager_batch = 1 (put back after
    each call, so the other backends' blocks run with the default)."""
    def wrapped():
        fn = setup()

        def run():
            keep = ctx.eager_batch
            ctx.eager_batch = 1
            try:
                return fn()
            finally:
                ctx.eager_batch = keep
        return run
    return wrapped


def _fdtd(vp, ctx, n, steps):
    """(allocating run, preallocated run, reference) for the FDTD-like loop."""
    e0 = np.linspace(0, 1, n, dtype=np.float32)
    he = vp.asarray(e0)

    def alloc():
        E = he.copy()  # the fields, once per run
        H = vp.zeros(n)
        for _ in range(steps):
            H = H + 0.5 * E  # a temporary and a new field per update
            E = E + 0.5 * H
        ctx.synchronize()
        return E

    E, H, T = vp.empty(n), vp.empty(n), vp.empty(n)

    def prealloc():
        E._buf.copy_from(he._buf)
        H.fill(0)
        for _ in range(steps):
            vp.multiply(E, 0.5, out=T)
            vp.add(H, T, out=H)
            vp.multiply(H, 0.5, out=T)
            vp.add(E, T, out=E)
        ctx.synchronize()
        return E

    e = e0.astype(np.float32)
    h = np.zeros(n, np.float32)
    for _ in range(steps):
        h = h + np.float32(0.5) * e
        e = e + np.float32(0.5) * h
    return alloc, prealloc, e


def run(ctx):
    rec = bl.Recorder("memory", ctx.device_label)
    try:
        vp = bl.vulpy()
    except bl.Skip as e:
        rec.skip("memory", 0, "vulpy", e)
        return rec.records
    vctx = vp.default_context()
    try:
        cp = bl.optional("cupy")
        cp.zeros(1)
    except bl.Skip as e:
        cp = None
        cupy_why = str(e)
    except Exception as e:  # noqa: BLE001 - CuPy without a CUDA device
        cp = None
        cupy_why = f"cupy unusable: {type(e).__name__}: {e}"[:200]
    sizes = [1 << 16, 1 << 20] if ctx.quick else [1 << 20, 1 << 24, 1 << 27]
    reps = 5 if ctx.quick else 10
    for n in sizes:
        for case, backends in _cases(vp, vctx, cp, n).items():
            runners = {}
            for name, (setup, sync) in backends.items():
                try:
                    runners[name] = _block(setup(), sync, _inner(n))
                except bl.WrongResult as e:
                    rec.error(case, n, name, e)
                except Exception as e:  # noqa: BLE001
                    if bl.vulpy_skip(e) or name == "cupy":
                        rec.skip(case, n, name, f"{type(e).__name__}: {e}")
                    else:
                        rec.error(case, n, name, f"{type(e).__name__}: {e}")
            if cp is None:
                rec.skip(case, n, "cupy", cupy_why)
            # block_warmup: one untimed block before each timed one, so the
            # backend that runs right after another API's block does not pay
            # the GPU's context switch in its figure (on the H200 the first
            # backend of each round, "vulpy", read 19.5 us at 2^20 against
            # 10.45 us for the same configuration later in the round)
            got = bl.gc_quiet(bl.interleave)(runners, reps, warmup=2, budget_s=30,
                                              block_warmup=1)
            for name, samples in got.items():
                if isinstance(samples, Exception):
                    rec.error(case, n, name, f"{type(samples).__name__}: {samples}")
                elif samples:
                    rec.add(case, n, name, samples, "us", scale=1e-3)
            for name in ("vulpy", "vulpy device"):
                if isinstance(got.get(name), list) and isinstance(got.get("cupy"), list):
                    rec.ratio(f"{case}: {name} time / cupy", n, got[name], got["cupy"],
                              higher_is_better=False, goal=GOAL_CUPY)
            if isinstance(got.get("vulpy batch 1"), list) and isinstance(got.get("vulpy"), list):
                rec.ratio(f"{case}: batched / eager_batch=1", n, got["vulpy"],
                          got["vulpy batch 1"], higher_is_better=False)
            if isinstance(got.get("vulpy device"), list) and isinstance(got.get("vulpy"), list):
                rec.ratio(f"{case}: {vctx.default_memory} time / device", n, got["vulpy"],
                          got["vulpy device"], higher_is_better=False)
        gc.collect()
    # the FDTD-like loop
    steps = 40
    for n in ([1 << 16] if ctx.quick else [1 << 22, 1 << 24]):
        case = f"FDTD-like loop, {steps} steps"
        alloc, prealloc, want = _fdtd(vp, vctx, n, steps)
        try:
            bl.check_close(_host(alloc()), want, 1e-5, atol=1e-6)
            bl.check_close(_host(prealloc()), want, 1e-5, atol=1e-6)
        except bl.WrongResult as e:
            rec.error(case, n, "vulpy", e)
            continue
        got = bl.gc_quiet(bl.interleave)({"allocating": bl.wall(alloc),
                                          "preallocated": bl.wall(prealloc)},
                                         reps, warmup=2, budget_s=60)
        for name, samples in got.items():
            rec.add(case, n, f"vulpy {name}", samples, "ms", scale=1e-6)
        rec.ratio(f"{case}: allocating / preallocated", n, got["allocating"],
                  got["preallocated"], higher_is_better=False, goal=GOAL_FDTD)
    s = vctx.stats()
    if "driver_allocations" in s:  # a tree with the memory pool
        rec.value("pool after the suite: driver allocations", 0, "vulpy",
                  s["driver_allocations"], "calls")
        rec.value("pool after the suite: hits", 0, "vulpy", s["pool_hits"], "calls")
    if "pool_ordered" in s:  # eager ufuncs, lazy zeroing
        rec.value("pool after the suite: results in queue order", 0, "vulpy",
                  s["pool_ordered"], "calls")
        rec.value("pool after the suite: waits for busy memory", 0, "vulpy",
                  s["pool_waits"], "calls")
        rec.value("pool after the suite: zero fills dropped", 0, "vulpy",
                  s["zero_fills_dropped"], "calls")
    return rec.records
