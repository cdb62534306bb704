"""Where one vp.sort / vp.argsort of 2^26 keys spends its device time
(issue 19), per onesweep variant (bindings/python/vulpy/_sort_onesweep.py):
the GPU ms of each dispatch (ohist, oscan, onesweep pass 0..3) from the
recording's timestamps (vulpy._sort.PROFILE; median of --reps sorts), each
dispatch's effective GB/s (the bytes it must move: ohist reads the keys;
a pass reads and writes them, and argsort's payload, which the first pass
makes instead of reading and the last writes as int64), and the sum of the
dispatches against the wall clock of the whole call (the difference is
the host's part and the gaps between dispatches: allocation, recording,
submission, the fills, the read-back of the give-up word).

    python bench/probes/sort_parts.py                      (variants 2 and 3)
    python bench/probes/sort_parts.py --variants 3 3:lb=16 --log2n 24

`--regs` (needs nvcc; no device) prints instead what ptxas allots the
onesweep kernels' CUDA form (sm_90, 32 lanes, float32 keys): registers an
invocation and shared memory, a proxy for what the Vulkan driver allots
the same kernel, and so for how many workgroups fit a multiprocessor.

On a device without timestamps (lavapipe has them) only the wall clock is
printed. A sort that fell back to reduce-then-scan (a look-back gave up) is
reported as such: its parts are not onesweep's.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

# the checkout's package, unless PYTHONPATH names one (an installed wheel:
# bench/device/setup.sh, or another commit's for a bisect); the checkout
# first made both of two wheels' runs time the same code
if not os.environ.get("PYTHONPATH"):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bindings" / "python"))

import vulpy as vp  # noqa: E402
from vulpy import _sort, _sort_onesweep  # noqa: E402


def keys(kind, n, seed=0):
    rng = np.random.default_rng(seed)
    if kind == "float32":
        return rng.standard_normal(n).astype(np.float32)
    return rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)


def moved(name, npass, passes, n, op):
    """Bytes a dispatch must move (read + written) at n 4-byte keys."""
    if name == "ohist":
        return 4 * n
    if name != "onesweep":
        return 0
    b = 8 * n                                   # the keys, read and written
    if op == "argsort":
        b += 0 if npass == 0 else 4 * n         # payload read (pass 0 makes it)
        b += 8 * n if npass == passes - 1 else 4 * n   # written (last: int64)
    return b


def parts(fn, spec, op, n, reps=5):
    """{"wall": ms, "gpu": [(label, ms, GB/s)], "path": what ran} of fn
    (a vp.sort / argsort call) under variant `spec`, medians of reps."""
    saved = (_sort_onesweep.VARIANT, _sort.SORT_PATH, _sort.PROFILE)
    _sort_onesweep.VARIANT, _sort.SORT_PATH = spec, "onesweep"
    try:
        fn()  # compile, warm
        walls = []
        for _ in range(reps):
            t = time.perf_counter()
            fn()
            walls.append((time.perf_counter() - t) * 1e3)
        path = _sort.last_path
        _sort.PROFILE = True
        runs = []
        for _ in range(reps):
            fn()
            runs.append(list(_sort.last_times))
            path = path if _sort.last_path == "onesweep" else _sort.last_path
    finally:
        _sort_onesweep.VARIANT, _sort.SORT_PATH, _sort.PROFILE = saved
    gpu = []
    if runs and runs[0] and path == "onesweep":
        names = [nm for nm, _ in runs[0]]
        passes = names.count("onesweep")
        npass = 0
        for i, nm in enumerate(names):
            ms = float(np.median([r[i][1] for r in runs]))
            label = nm
            if nm == "onesweep":
                label = f"pass {npass}"
            gbs = moved(nm, npass, passes, n, op) / (ms * 1e6) if ms > 0 else 0.0
            npass += nm == "onesweep"
            gpu.append((label, ms, gbs))
    return dict(wall=float(np.median(walls)), gpu=gpu, path=path)


def show(case, spec, r):
    gsum = sum(ms for _, ms, _ in r["gpu"])
    head = f"{case:16s} variant {spec:22s} wall {r['wall']:7.3f} ms"
    if not r["gpu"]:
        print(f"{head}  (path {r['path']}; no GPU times)")
        return
    print(f"{head}  GPU sum {gsum:7.3f} ms  host+gaps {r['wall'] - gsum:6.3f} ms")
    print("    " + "  ".join(f"{lb} {ms:.3f} ms {gbs:6.1f} GB/s" if gbs else f"{lb} {ms:.3f} ms"
                             for lb, ms, gbs in r["gpu"]))


def registers(spec):
    """[(kernel, registers, shared bytes)] of variant spec's onesweep
    kernels (sort, argsort's last pass) in CUDA form, by nvcc -arch=sm_90;
    None without nvcc."""
    if not shutil.which("nvcc"):
        return None
    cfg = _sort_onesweep.settings(spec)
    out = []
    for name, vals, vout in (("sort", 0, "uint32"), ("argsort", 1, "int64")):
        ns = _sort_onesweep.kernels("uint32", 2, 4, 32, vals, vout=vout, cfg=cfg)
        with tempfile.TemporaryDirectory() as d:
            src = Path(d) / "k.cu"
            src.write_text(ns["onesweep"].cuda)
            r = subprocess.run(["nvcc", "-arch=sm_90", "-cubin", "-o", str(Path(d) / "k.cubin"),
                                "-Xptxas", "-v", str(src)], capture_output=True, text=True)
        m = re.search(r"Used (\d+) registers.*?(\d+) bytes smem", r.stderr)
        out.append((name, int(m.group(1)), int(m.group(2))) if m else (name, None, None))
    return out


def show_registers(spec):
    regs = registers(spec)
    if regs is None:
        print("nvcc not found: no register counts")
        return
    parts = []
    for name, reg, smem in regs:
        if reg is None:
            parts.append(f"{name}: nvcc failed")
            continue
        lanes = _sort_onesweep.shape("uint32", 32, _sort_onesweep.settings(spec))[0]
        # workgroups a multiprocessor holds (H100/H200: 64 Ki registers in
        # units of 8 an invocation, 2048 invocations, 227 KiB shared)
        fit = min(65536 // (-(-reg // 8) * 8 * lanes), 2048 // lanes, 232448 // max(smem, 1))
        parts.append(f"{name}: {reg} registers, {smem} B shared, {fit} workgroups/SM")
    print(f"variant {spec:22s} " + "; ".join(parts))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", nargs="+", default=["3"])
    ap.add_argument("--log2n", type=int, default=26)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--regs", action="store_true", help="nvcc register counts only")
    a = ap.parse_args()
    if a.regs:
        for spec in a.variants:
            show_registers(spec)
        return
    n = 1 << a.log2n
    ctx = vp.default_context()
    print(f"device: {ctx.info['name']}; n = 2^{a.log2n}; timestamps: "
          f"{bool(ctx.info['limits'].get('timestamps'))}")
    for kind in ("float32", "uint32"):
        x = vp.asarray(keys(kind, n))
        for op, f in (("sort", vp.sort), ("argsort", vp.argsort)):
            for spec in a.variants:
                try:
                    r = parts(lambda: f(x)._buf, spec, op, n, a.reps)
                except Exception as e:  # noqa: BLE001 - a variant that does not build here
                    print(f"{op} {kind:8s} variant {spec}: {type(e).__name__}: {str(e)[:300]}")
                    continue
                show(f"{op} {kind}", spec, r)


if __name__ == "__main__":
    main()
