"""Sorting (issue 19): vp.sort / vp.argsort of resident float32 and uint32
keys (the stable LSD radix sort of bindings/python/vulpy/_sort.py) against
cupy.sort / cupy.argsort (CUB's radix sort) where CuPy runs (the H200).
Wall clock per synchronous call from Python, the backends interleaved in
one process (benchlib.interleave). Every result is checked against NumPy
first (argsort: the keys it orders must be sorted, and equal NumPy's
stable order); a wrong one is an error record.

Records: one per backend (ms; "vulpy" is what vp.sort picks by itself,
its record's "path" says which: "onesweep" on discrete GPUs, and then
"vulpy rts" times the reduce-then-scan sort beside it, with a ratio
record "... onesweep vs reduce-then-scan" = rts ms / onesweep ms), and
"vulpy vs cupy" (cupy ms / vulpy ms: above 1 VulPy is faster) carrying
issue 19's goal >= 0.7 at 2^26 keys; where CuPy is missing those are
skipped records. Sizes: 2^26 on a GPU, 2^20 on a
CPU device (lavapipe), 2^16 with --quick.

(The "vulpy onesweep v2" rows and "... onesweep v3 vs v2" ratios of
earlier runs timed wave 9's variant 2, retired after it lost: v3 was
1.01-1.44x as fast on the H200; bench/notes/sort.md.)
Where onesweep runs, one sort with GPU timestamps gives "dispatch"
records: GPU ms per kernel (ohist, oscan, onesweep pass 0..3; median of
3 sorts). (bench/probes/sort_ab.py times the onesweep variants against
each other and CuPy; bench/probes/sort_parts.py prints each pass's GB/s.)
The case "sort uint32 (float32 bits)"
sorts the float32 keys' bit patterns as uint32: the float32 data's digit
distribution (the top byte has ~12 values) with the unsigned kernels, so
set beside "sort float32" and "sort uint32" it tells whether uint32's
higher time comes from the data or from the kernels' key mode.
"""
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bindings" / "python"))

import vulpy as vp  # noqa: E402
from vulpy import _sort, _sort_onesweep  # noqa: E402
from benchlib import interleave, stats_ns, wall  # noqa: E402

try:  # the H200 comparison
    import cupy as cp  # noqa: E402
    cp.cuda.runtime.getDeviceCount()
except Exception:  # no CuPy, or no CUDA device
    cp = None

GOAL = {"op": ">=", "target": 0.7, "issue": 19}


def _keys(kind, n, rng):
    if kind == "float32":
        return rng.standard_normal(n).astype(np.float32)
    if kind == "float32 bits":
        return rng.standard_normal(n).astype(np.float32).view(np.uint32)
    return rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)


def _with(fn, path=None, variant=None, profile=False):
    """fn() with the sort path / onesweep variant / PROFILE set."""
    saved = (_sort.SORT_PATH, _sort_onesweep.VARIANT, _sort.PROFILE)
    _sort.SORT_PATH, _sort.PROFILE = path, profile
    if variant is not None:
        _sort_onesweep.VARIANT = variant
    try:
        return fn()
    finally:
        _sort.SORT_PATH, _sort_onesweep.VARIANT, _sort.PROFILE = saved


def _breakdown(fn, reps=3, **kw):
    """[(kernel label, GPU ms)] of one sort (median over reps), or None
    when a run fell back or the device has no timestamps."""
    runs = []
    for _ in range(reps):
        _with(fn, profile=True, **kw)
        if _sort.last_path != "onesweep" or not _sort.last_times:
            return None
        runs.append(_sort.last_times)
    out, npass = [], 0
    for i, (name, _) in enumerate(runs[0]):
        label = name
        if name == "onesweep":
            label, npass = f"onesweep pass {npass}", npass + 1
        out.append((label, float(np.median([r[i][1] for r in runs]))))
    return out


def run(ctx):
    dev = vp.default_context()
    n = 1 << 16 if ctx.quick else (1 << 20 if dev.kind == "cpu" else 1 << 26)
    reps = 5 if ctx.quick else 15
    rng = np.random.default_rng(0)
    out = []

    def base(case, backend):
        return dict(suite="sort", case=case, size=n, backend=backend, device=ctx.device_label)

    cases = [("float32", ("sort", "argsort")), ("uint32", ("sort", "argsort")),
             ("float32 bits", ("sort",))]
    for kind, ops in cases:
        h = _keys(kind, n, rng)
        a = vp.asarray(h)
        want_sorted = np.sort(h)
        for op in ops:
            case = f"{op} {np.dtype(h.dtype).name}"
            if kind == "float32 bits":
                case += " (float32 bits)"
            fn = (lambda: vp.sort(a)) if op == "sort" else (lambda: vp.argsort(a))
            fn()
            path = _sort.last_path  # what the default ("auto") runs here
            # the backend beside the default: reduce-then-scan
            others = {"vulpy rts": dict(path="rts")}
            bad = []
            for name, kw in [("vulpy", {})] + list(others.items()):
                got = _with(fn, **kw).numpy()
                ok = np.array_equal(got, want_sorted) if op == "sort" else \
                    np.array_equal(got, np.argsort(h, kind="stable"))
                if not ok:
                    bad.append(name)
            if bad:
                out.append(dict(base(case, "vulpy"), median=None, p10=None, p90=None,
                                unit="ms", error=f"WRONG RESULT against NumPy ({', '.join(bad)})"))
                continue
            runners = {"vulpy": wall(lambda fn=fn: fn()._buf)}
            for name, kw in others.items():
                runners[name] = wall(lambda fn=fn, kw=kw: _with(fn, **kw)._buf)
            if cp is not None:
                ca = cp.asarray(h)
                cfn = cp.sort if op == "sort" else cp.argsort

                def crun(cfn=cfn, ca=ca):
                    cfn(ca)
                    cp.cuda.Device().synchronize()
                runners["cupy"] = wall(crun)
            # block_warmup: an untimed call before each timed one, so the call after
            # the other API's block does not pay the GPU's context switch (the
            # matmul suite's cupy float16 read 2.6x slow without it, notes/matmul.md)
            res = interleave(runners, reps, warmup=2, budget_s=90, block_warmup=1)
            med = {}
            for backend, samples in res.items():
                if isinstance(samples, Exception):
                    out.append(dict(base(case, backend), median=None, p10=None, p90=None,
                                    unit="ms", error=repr(samples)[:300]))
                    continue
                r = dict(base(case, backend), **stats_ns(samples, "ms"),
                         method="wall clock per synchronous call, interleaved")
                if backend == "vulpy":
                    r["path"] = path
                    if path != "rts":
                        r["variant"] = str(_sort_onesweep.VARIANT)
                out.append(r)
                med[backend] = r["median"]
            rcase = f"{case}: vulpy vs cupy"
            if cp is None:
                out.append(dict(base(case, "cupy"), median=None, p10=None, p90=None,
                                unit="ms", skipped="CuPy is not importable here"))
                out.append(dict(base(rcase, "ratio"), median=None, p10=None, p90=None, unit="x",
                                skipped="CuPy is not importable here", goal=GOAL))
            elif "vulpy" in med and "cupy" in med:
                out.append(dict(base(rcase, "ratio"), median=med["cupy"] / med["vulpy"],
                                p10=None, p90=None, unit="x",
                                goal=GOAL if n == 1 << 26 and kind != "float32 bits" else None))
            if "vulpy" in med and "vulpy rts" in med:
                out.append(dict(base(f"{case}: {path} vs reduce-then-scan", "ratio"),
                                median=med["vulpy rts"] / med["vulpy"], p10=None, p90=None,
                                unit="x"))
            # GPU time per dispatch (timestamps)
            if path == "onesweep":
                for label, ms in _breakdown(fn, path="onesweep") or ():
                    out.append(dict(base(f"{case}: dispatch {label}", "vulpy"), median=ms,
                                    p10=None, p90=None, unit="ms",
                                    method="GPU timestamps around the dispatch, median of 3 "
                                           "sorts"))
    return out
