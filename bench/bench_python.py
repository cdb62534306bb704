"""The Python layer's cost: per-call overhead of a tiny resident ufunc and of
a tiny @vp.kernel, against the C runtime's own dispatch round trip measured
in the same process on the same pipeline (and the same per wait strategy);
convenience-mode vp.sin(x) + vp.exp(x) on 1M float32 against NumPy, with
each of its fast paths turned off in turn; downloads and uploads from
Python per memory kind; compile time in new processes (cold with and
without the glslang prewarm, warm), split into its parts.
bench/notes/python.md says what the goals are.
"""
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bindings" / "python"))

import vulpy as vp  # noqa: E402
from benchlib import stats_ns  # noqa: E402


def _stats(samples_ns, unit="us"):
    return stats_ns(samples_ns, unit)


def _timed(fn, iters):
    out = []
    for _ in range(iters):
        t0 = time.perf_counter_ns()
        fn()
        out.append(time.perf_counter_ns() - t0)
    return out


@vp.kernel(local_size_x=64)
def _tiny(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32], a: vp.float32):
    i = vp.global_id()
    y[i] = a * x[i]


@vp.kernel(local_size_x=64)
def _tiny_py(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32], a: vp.float32):
    i = vp.global_id()
    y[i] = a * x[i]


class _NoDispatch:
    """A native kernel stand-in whose dispatch does nothing."""

    def dispatch(self, *args):
        return None


def _binding_only(c, xv, yv, n, iters, rec):
    """The call's own cost with the GPU out of it: the Launcher's checks and
    push block without its dispatch (Launcher.dry_run), and the Python path with
    a kernel whose dispatch does nothing. On this noisy machine these are the
    figures that show the binding's cost; the round trips above carry the
    driver's and the device's time as well."""
    launcher = _tiny._fast
    prog = _tiny_py.program()
    launcher.dry_run = True
    prog.native = lambda ctx: _NoDispatch()
    try:
        f, s = [], []
        for _ in range(max(iters // 100, 4)):  # blocks that take turns
            f += _timed(lambda: _tiny(xv, yv, dispatch=n, a=2.0), 100)
            s += _timed(lambda: _tiny_py(xv, yv, dispatch=n, a=2.0), 100)
    finally:
        launcher.dry_run = False
        del prog.native
    a = rec("@vp.kernel call, binding only (no dispatch)", n, "C Launcher", _stats(f))
    b = rec("@vp.kernel call, binding only (no dispatch)", n, "Python path", _stats(s))
    rec("@vp.kernel binding cost: Python path / C Launcher", n, "ratio",
        {"median": b["median"] / a["median"], "p10": None, "p90": None, "unit": "x"})
    return []


def run(ctx):
    iters = 200 if ctx.quick else 2000
    c = vp.default_context()
    dev = c.name
    recs = []

    def rec(case, size, backend, stats, **extra):
        r = dict(case=case, size=size, backend=backend, device=dev, **stats, **extra)
        recs.append(r)
        return r

    # The Python calls (the Launcher's and the Python path's) and the C loop
    # alternate in blocks, so that drift in this shared machine's load hits
    # them alike.
    blocks = iters // 50

    # -- a tiny resident ufunc: vp.sin(xv, out=yv), 1024 elements ---------
    n = 1024
    xv = vp.asarray(np.linspace(0, 1, n, dtype=np.float32))
    yv = vp.empty_like(xv)
    for _ in range(20):
        vp.sin(xv, out=yv)
    # the same pipeline, buffers and push block, dispatched from C
    prog = vp.sin.last_program
    kern = prog.native(c)
    gx, gy, _ = vp.sin.last_compiled.grid(0, n)
    push = prog.packer.pack({"n": n})
    # vp.sin(x, out=y) runs through the ufunc's Launcher; with context=
    # given it takes the Python path (_try_fast), timed in the same blocks
    py_ns, slow_ns, c_ns = [], [], []
    # (each call then c.synchronize(): a resident out= call is eager, submitted
    # and not waited for, and the C round trip waits)
    for _ in range(blocks):
        py_ns += _timed(lambda: (vp.sin(xv, out=yv), c.synchronize()), 50)
        slow_ns += _timed(lambda: (vp.sin(xv, out=yv, context=c), c.synchronize()), 50)
        c_ns += kern.time_dispatch([xv.buffer, yv.buffer], push, gx, gy, 1, True, 50)
    py_ufunc = rec("resident vp.sin(x, out=y) + synchronize per call", n, "python", _stats(py_ns))
    py_uslow = rec("resident vp.sin(x, out=y) + synchronize per call, Python path "
                   "(no Launcher)", n, "python", _stats(slow_ns))
    c_ufunc = rec("C vrt_dispatch round trip (same ufunc kernel)", n, "C", _stats(c_ns))
    rec("ufunc overhead ratio (python / C)", n, "ratio",
        {"median": py_ufunc["median"] / c_ufunc["median"], "p10": None, "p90": None,
         "unit": "x"}, goal=1.5)
    rec("ufunc Python path (no Launcher) / C round trip", n, "ratio",
        {"median": py_uslow["median"] / c_ufunc["median"], "p10": None, "p90": None,
         "unit": "x"})

    # -- a tiny @vp.kernel ---------------------------------------------------
    # `_tiny` takes the extension's Launcher (the call done in C) from its
    # second call on; `_tiny_py` is the same kernel held to the Python path
    # (the path of every call before the Launcher), timed in the same blocks.
    _tiny(xv, yv, dispatch=n, a=2.0)
    _tiny_py(xv, yv, dispatch=n, a=2.0)
    _tiny_py._fast = False
    kp = _tiny.program()
    kk = kp.native(c)
    kpush = kp.packer.pack({"a": 2.0})
    py, pyslow, cl = [], [], []
    for _ in range(blocks):
        py += _timed(lambda: _tiny(xv, yv, dispatch=n, a=2.0), 50)
        pyslow += _timed(lambda: _tiny_py(xv, yv, dispatch=n, a=2.0), 50)
        cl += kk.time_dispatch([xv.buffer, yv.buffer], kpush, n, 1, 1, False, 50)
    py_k = rec("@vp.kernel call per call", n, "python", _stats(py))
    py_s = rec("@vp.kernel call per call, Python path (no Launcher)", n, "python", _stats(pyslow))
    c_k = rec("C vrt_dispatch round trip (same @vp.kernel)", n, "C", _stats(cl))
    rec("@vp.kernel overhead ratio (python / C)", n, "ratio",
        {"median": py_k["median"] / c_k["median"], "p10": None, "p90": None, "unit": "x"},
        goal=1.5)
    rec("@vp.kernel Python path (no Launcher) / C round trip", n, "ratio",
        {"median": py_s["median"] / c_k["median"], "p10": None, "p90": None, "unit": "x"})
    recs.extend(_binding_only(c, xv, yv, n, iters, rec))

    # -- the tiny @vp.kernel per wait strategy (Python and C alike) ----------
    cpu = c.kind == "cpu"
    modes = ["block"] if cpu else ["spin-block", "block", "spin"]
    first = c.wait
    per = {m: ([], []) for m in modes}
    for _ in range(max(blocks // 2, 2)):
        for m in modes:
            c.wait = m
            per[m][0].extend(_timed(lambda: _tiny(xv, yv, dispatch=n, a=2.0), 50)[10:])
            per[m][1].extend(kk.time_dispatch([xv.buffer, yv.buffer], kpush, n, 1, 1, False,
                                              50)[10:])
    c.wait = first
    for m in modes:
        rec(f"@vp.kernel call per call, wait={m}", n, "python", _stats(per[m][0]))
        rec(f"C vrt_dispatch round trip, wait={m}", n, "C", _stats(per[m][1]))

    # -- convenience: vp.sin(x) + vp.exp(x), 1M float32 ----------------------
    m = 1_000_000
    x = np.linspace(0.0, 1.0, m, dtype=np.float32)
    reps = 10 if ctx.quick else 40
    want = np.sin(x) + np.exp(x)

    def copied_out():
        # the results downloaded into new arrays (the path before zero-copy)
        return vp.sin(x, out=np.empty_like(x)) + vp.exp(x, out=np.empty_like(x))

    def no_import():
        c.host_import = False
        try:
            return vp.sin(x) + vp.exp(x)
        finally:
            c.host_import = True

    variants = {"vulpy": lambda: vp.sin(x) + vp.exp(x),
                "vulpy, inputs copied in": no_import,
                "vulpy, results copied out": copied_out,
                "numpy": lambda: np.sin(x) + np.exp(x)}
    for name, fn in variants.items():
        got = fn()
        if not np.allclose(got, want, rtol=1e-5, atol=1e-6):
            raise AssertionError(f"convenience ({name}) differs from NumPy")
    samples = {name: [] for name in variants}
    for _ in range(reps):  # interleaved: the same machine state for each
        for name, fn in variants.items():
            samples[name] += _timed(fn, 1)
    a = rec("convenience vp.sin(x) + vp.exp(x)", m, "vulpy", _stats(samples["vulpy"], "ms"))
    b = rec("numpy np.sin(x) + np.exp(x)", m, "numpy", _stats(samples["numpy"], "ms"))
    for name in ("vulpy, inputs copied in", "vulpy, results copied out"):
        rec("convenience vp.sin(x) + vp.exp(x)", m, name, _stats(samples[name], "ms"))
    rec("convenience speed-up over NumPy", m, "ratio",
        {"median": b["median"] / a["median"], "p10": None, "p90": None, "unit": "x"})
    one = {"vulpy": lambda: vp.sin(x), "numpy": lambda: np.sin(x)}
    s1 = {k: [] for k in one}
    for _ in range(reps):
        for k, fn in one.items():
            s1[k] += _timed(fn, 1)
    rec("one convenience call vp.sin(x)", m, "vulpy", _stats(s1["vulpy"], "ms"))
    rec("one convenience call vp.sin(x)", m, "numpy", _stats(s1["numpy"], "ms"))

    # -- resident: sin(x) + exp(x) with the data on the device ----------------
    xv = vp.asarray(x)
    s, e, o = vp.empty_like(xv), vp.empty_like(xv), vp.empty_like(xv)

    def resident():
        vp.sin(xv, out=s)
        vp.exp(xv, out=e)
        vp.add(s, e, out=o)
    resident()
    rec("resident sin(x) + exp(x) (3 kernels, out=)", m, "vulpy",
        _stats(_timed(resident, reps), "ms"))

    _readback(c, ctx.quick, rec)
    _lengths(c, ctx.quick, rec)
    recs += _transfers(c, ctx, rec)
    recs += _compile(ctx, dev)
    return recs


def _readback(c, quick, rec):
    """float(vp.sum(x)) of a 'device' array: the wall time of the call with
    its answer on the host, with the result's readback mirror (the copy into
    host-visible memory rides in the reduction's submission) and without it
    (_reduce.MIRROR_MAX = 0: a second submission, the staging copy), against
    the call that leaves the result on the device and the C round trip of
    the same reduction kernel alone (Kernel.time_dispatch); "before" is
    also without the reduction plan and the pooled result (_reduce.PLANS =
    POOLED = False: the kernel's text made and looked up in the compile
    cache and a new result buffer made on every call), and one variant has
    the mirror without them. The submissions per float(vp.sum(x)) come
    from the context's counter. On a unified-memory
    device 'device' memory is mapped and needs no copy at all, so there the
    discrete GPU's path is measured on a context with no_device_mapping."""
    from vulpy import _reduce
    if c.uma:
        c = vp.Context(device=str(c.index), no_device_mapping=True)
    mirror_max = _reduce.MIRROR_MAX
    for n in (1024, 1 << 16):
        x = np.random.default_rng(9).random(n, dtype=np.float32)
        xv = vp.asarray(x, memory="device", context=c)
        want = float(np.sum(x, dtype=np.float64))
        # the reduction's kernel, buffers and push block, as vp.sum runs them
        # (its plan: a kernel over a dynamic extent, the length pushed)
        keep = vp.sum(xv)
        comp, iname, oname, _, dynamic = next(
            p for k, p in c.__dict__["_vp_reduce_plans"].items()
            if k[0] == "sum" and k[1] == np.float32)
        (k, bufs, data, gx, gy, gz), = comp._calls(c, {iname: xv._buf, oname: keep._buf},
                                                   {"n": n} if dynamic else {})

        def before(mirror, plans):
            def f():
                _reduce.MIRROR_MAX = mirror_max if mirror else 0
                _reduce.PLANS = _reduce.POOLED = plans
                try:
                    return float(vp.sum(xv))
                finally:
                    _reduce.MIRROR_MAX, _reduce.PLANS, _reduce.POOLED = mirror_max, True, True
            return f
        variants = {"mirror": lambda: float(vp.sum(xv)), "copy": before(False, False),
                    "mirror, no plan": before(True, False), "call": lambda: vp.sum(xv)}
        subs = {}
        for name in ("mirror", "copy", "mirror, no plan"):
            fn = variants[name]
            got = fn()
            if abs(got - want) > 1e-4 * abs(want):
                raise AssertionError(f"float(vp.sum(x)) ({name}): {got}, want {want}")
            s0 = c.stats()["submits"]
            fn()
            subs[name] = c.stats()["submits"] - s0
        it = 50 if n <= 1 << 12 else 10
        blocks = 4 if quick else 20
        t = {name: [] for name in list(variants) + ["C"]}
        for _ in range(blocks):  # blocks that take turns: the same load for each
            for name, fn in variants.items():
                t[name] += _timed(fn, it)
            t["C"] += k.time_dispatch(bufs, data, gx, gy, gz, True, it)
        del keep
        st = {name: _stats(v) for name, v in t.items()}
        rec("float(vp.sum(x)), device memory, readback mirror", n, "vulpy", st["mirror"],
            submits=subs["mirror"])
        rec("float(vp.sum(x)), device memory, copy submission (before)", n, "vulpy",
            st["copy"], submits=subs["copy"])
        rec("float(vp.sum(x)), device memory, readback mirror, no plan kept", n,
            "vulpy", st["mirror, no plan"], submits=subs["mirror, no plan"])
        rec("vp.sum(x), device memory, result left on the device", n, "vulpy", st["call"])
        rec("C vrt_dispatch round trip (the same sum kernel)", n, "C", st["C"])
        for name, case in (("mirror", "float(vp.sum(x)) / sum dispatch alone, readback mirror"),
                           ("copy", "float(vp.sum(x)) / sum dispatch alone, copy (before)")):
            rec(case, n, "ratio", {"median": st[name]["median"] / st["C"]["median"],
                                   "p10": None, "p90": None, "unit": "x"})
        for name in ("mirror", "copy"):
            rec(f"submissions per float(vp.sum(x)), "
                f"{'readback mirror' if name == 'mirror' else 'copy (before)'}", n, "count",
                {"median": float(subs[name]), "p10": None, "p90": None, "unit": "submits"})


def _lengths(c, quick, rec):
    """float(vp.sum(x[:m])) with a new length m at every call (a loop over
    masks, batches, ragged rows) against the same call at one length: a
    full reduction of a whole array is one kernel over a dynamic extent,
    so a new length costs no compile (each one compiled a kernel of ~60 ms
    on this machine before; docs/fusion.md, "Dynamic extent"). Goal: the
    new-length call within 1.2x of the same-length call."""
    n = 1 << 16
    x = np.random.default_rng(5).random(n, dtype=np.float32)
    xv = vp.asarray(x, context=c)
    it = 20 if quick else 100
    blocks = 3 if quick else 10
    # between group-count steps (a group per 2^14 elements: 2^15 itself
    # is one, and lengths just above it run a third group)
    same = 5 * n // 8
    # never the same length twice, alternating around `same` so that both
    # cases sum as many elements on average (counting down from n - 1, as
    # before, summed about twice as many: the old 1.58x was mostly that)
    fresh = (same + (k // 2 + 1) * (1 if k % 2 else -1) for k in itertools.count())

    def new_length():
        m = next(fresh)
        return float(vp.sum(xv[:m]))

    def one_length():
        return float(vp.sum(xv[:same]))
    got, want = new_length(), float(np.sum(x[:same - 1], dtype=np.float64))
    if abs(got - want) > 1e-4 * abs(want):
        raise AssertionError(f"float(vp.sum(x[:m])): {got}, want {want}")
    one_length()
    t = {"new": [], "same": []}
    for _ in range(blocks):
        t["new"] += _timed(new_length, it)
        t["same"] += _timed(one_length, it)
    sn, ss = _stats(t["new"]), _stats(t["same"])
    rec("float(vp.sum(prefix of x)), a new length every call", n, "vulpy", sn)
    rec("float(vp.sum(prefix of x)), one length", n, "vulpy", ss)
    rec("float(vp.sum(prefix of x)): new length / one length", n, "ratio",
        {"median": sn["median"] / ss["median"], "p10": None, "p90": None, "unit": "x",
         "goal": {"op": "<=", "target": 1.2, "issue": 14}})


def _gbs(samples_ns, nbytes):
    """GB/s stats (p10 the slow end) from per-copy times."""
    v = sorted(nbytes / t for t in samples_ns)
    q = statistics.quantiles(v, n=10) if len(v) >= 10 else [v[0]] * 9
    return {"median": statistics.median(v), "p10": q[0], "p90": q[-1], "unit": "GB/s"}


def _transfers(c, ctx, rec):
    """Downloads and uploads from Python, per memory kind: into an existing
    array (get(out=)) and into a new one (numpy()), with the context's copy
    threads and with one; uploads with set(); NumPy's own copy for the
    machine's bandwidth."""
    mib = 64 if (ctx.quick or c.kind == "cpu") else 256
    reps = 3 if ctx.quick else 6
    nbytes = mib << 20
    x = np.random.default_rng(5).integers(0, 2**32, nbytes // 4, dtype=np.uint32)
    out = np.empty_like(x)
    threads = c.copy_threads
    y = np.empty_like(x)
    rec(f"NumPy copy {mib} MiB", nbytes, "np.copyto", _gbs(
        _timed(lambda: np.copyto(y, x), reps), nbytes))
    for kind in ("device", "host", "cached", "rebar"):
        size = nbytes
        if kind == "rebar" and c.kind == "dgpu":
            size = 16 << 20  # the CPU reads BAR memory uncached
        xs = x[: size // 4]
        os_ = out[: size // 4]
        a = vp.asarray(xs, memory=kind, context=c)
        if not np.array_equal(a.numpy(), xs):
            raise AssertionError(f"download of memory={kind} differs")
        counts = (threads, 1) if threads > 1 else (1,)
        label = {t: f"{t} copy thread{'s' if t > 1 else ''}" for t in counts}
        variants = {}
        for t in counts:
            variants[f"get(out=), {label[t]}"] = (t, lambda: a.get(out=os_))
            variants[f"numpy() (new array), {label[t]}"] = (t, a.numpy)
        got = {k: [] for k in variants}
        ups = {f"set(), {label[t]}": [] for t in counts}
        for _ in range(reps):
            for k, (t, fn) in variants.items():
                c.copy_threads = t
                got[k] += _timed(fn, 1)
            for k, t in zip(ups, counts):
                c.copy_threads = t
                ups[k] += _timed(lambda: (a.set(xs), c.synchronize()), 1)
        c.copy_threads = threads
        case = f"download {size >> 20} MiB from Python, memory={kind}"
        for k, v in got.items():
            rec(case, size, f"vulpy {k}", _gbs(v, size))
        case = f"upload {size >> 20} MiB from Python, memory={kind}"
        for k, v in ups.items():
            rec(case, size, f"vulpy {k}", _gbs(v, size))
        del a
    return []


def _compile(ctx, dev):
    """New processes (bench/compile_probe.py) from a Python kernel to a ready
    pipeline: cold (empty caches) and warm (the caches a cold run filled),
    each with the warm-up threads (glslang's and the driver's: the default)
    and without them (VULPY_PREWARM=0); each record carries its parts
    (Python + compiler, pipeline, and the pipeline's own split) and, apart,
    what the process paid outside the timed path (imports, context, first
    launch)."""
    probe = Path(__file__).resolve().parent / "compile_probe.py"
    reps = 1 if ctx.quick else 3
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT / "bindings" / "python")] + [p for p in os.environ.get(
            "PYTHONPATH", "").split(os.pathsep) if p]))
    if os.environ.get("VULPY_BENCH_INSTALLED") == "1":
        env["PYTHONPATH"] = os.environ.get("PYTHONPATH", "")
    runs = {"cold, prewarm": [], "cold, no prewarm": [], "warm": [], "warm, no prewarm": []}
    for _ in range(reps):
        for prewarm in ("1", "0"):
            with tempfile.TemporaryDirectory(prefix="vulpy-bench-cache-") as d:
                e = dict(env, VULPY_PREWARM=prewarm)
                for mode in ("cold", "warm"):
                    p = subprocess.run([sys.executable, str(probe), "vulpy", "--cache", d],
                                       capture_output=True, text=True, env=e, timeout=300)
                    try:
                        got = json.loads((p.stdout.strip().splitlines() or ["{}"])[-1])
                    except ValueError:
                        got = {"error": (p.stderr or p.stdout)[-300:]}
                    if "ns" not in got:
                        raise RuntimeError(f"compile probe: {got}")
                    key = {("cold", "1"): "cold, prewarm", ("cold", "0"): "cold, no prewarm",
                           ("warm", "1"): "warm", ("warm", "0"): "warm, no prewarm"}[
                               (mode, prewarm)]
                    runs[key].append(got)
    recs = []
    for key, got in runs.items():
        parts = {}
        for k in got[0]:
            if k.endswith("_ns") and k != "ns":
                parts[k[:-3]] = statistics.median(g.get(k, 0) for g in got) * 1e-6
        r = dict(case=f"compile {key} (new process)", size=1, backend="vulpy kernel",
                 device=dev, **_stats([g["ns"] for g in got], "ms"), parts_ms=parts,
                 fast_hit=got[-1].get("fast_hit"), driver_hit=got[-1].get("driver_hit"),
                 outside_ms={k: statistics.median(g.get("outside_ms", {}).get(k, 0)
                                                 for g in got)
                             for k in got[0].get("outside_ms", {})})
        if key in ("cold, prewarm", "warm"):  # the defaults
            r["goal"] = {"op": "<=", "target": 1.0 if key == "warm" else 20.0, "issue": 8}
        recs.append(r)
    return recs
