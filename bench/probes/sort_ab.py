"""A/B of the onesweep sort's variants (bindings/python/vulpy/_sort_onesweep.py;
issue 19: vp.sort of 2^26 float32 / uint32 keys >= 0.7x cupy.sort) in one
process on the device:

1. every variant's vp.sort and vp.argsort of float32 and uint32 keys
   (2^20, and 3 rows of 100,003 with -0.0 / +0.0 / NaN / repeats) must
   equal NumPy's stable sort / argsort bit for bit, and must have run the
   onesweep path itself (no fallback); a variant that fails is reported
   and left out of the timing;
2. wall ms per synchronous call at 2^26 (median of --reps), the variants
   interleaved with cupy.sort / cupy.argsort (benchlib.interleave, as
   the sort suite), with cupy ms / variant ms (issue 19's ratio);
3. with --regs (needs nvcc), the registers and shared memory ptxas allots
   each variant's CUDA form and the workgroups a multiprocessor then holds
   (a proxy for the Vulkan driver's allotment: the occupancy);
4. the GPU ms per dispatch of each variant (sort_parts.py: timestamps,
   GB/s per pass, the host's part of the wall clock).

    python bench/probes/sort_ab.py                   (the default sweep, ~3-6 min)
    python bench/probes/sort_ab.py --variants 3 3:ipt=12 --reps 21

A variant is VULPY_ONESWEEP's text: "3" (the default: the look-back reads
8 status words a step, one owner per digit from the counts to the
look-back, 32-bit keys wait in shared memory instead of registers), or it
with settings overridden ("3:lb=16,ipt=12,lanes=128";
_sort_onesweep.VARIANTS). Wave 9's variant 2 and the pack and hco switches
were retired after losing (bench/notes/sort.md); variant 2's settings are
"3:lb=1,scan=0,ksh=0".
What to read: the "ratio" column of each case (>= 0.7 is the goal) and
which variant has the lowest ms; then its per-pass GB/s.
"""
import argparse
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "bindings" / "python"))

import vulpy as vp  # noqa: E402
from vulpy import _sort, _sort_onesweep  # noqa: E402
from benchlib import interleave, wall  # noqa: E402
from sort_parts import keys, parts, show, show_registers  # noqa: E402

try:
    import cupy as cp
    cp.cuda.runtime.getDeviceCount()
except Exception:  # noqa: BLE001 - no CuPy or no CUDA device: VulPy only
    cp = None

SWEEP = ["3", "3:ksh=0", "3:ksh=0,sharev=1", "3:defer=1", "3:lb=16", "3:lb=32", "3:ipt=12",
         "3:ipt=14", "3:ipt=10", "3:ksh=0,ipt=12", "3:ksh=0,ipt=10", "3:lanes=128",
         "3:ksh=0,lanes=128"]


def run_variant(spec, fn):
    saved = (_sort_onesweep.VARIANT, _sort.SORT_PATH)
    _sort_onesweep.VARIANT, _sort.SORT_PATH = spec, "onesweep"
    try:
        return fn()
    finally:
        _sort_onesweep.VARIANT, _sort.SORT_PATH = saved


def check(spec):
    """None, or what is wrong with the variant's results."""
    rng = np.random.default_rng(5)
    f = rng.standard_normal(3 * 100003).astype(np.float32)
    f[::5] = -0.0
    f[1::5] = 0.0
    f[2::13] = np.nan
    f[3::7] = 1.5
    cases = [keys("float32", 1 << 20, 1), keys("uint32", 1 << 20, 2), f.reshape(3, 100003),
             f.view(np.uint32).reshape(3, 100003)]
    for h in cases:
        x = vp.asarray(h)
        for op, want in (("sort", np.sort(h, kind="stable")),
                         ("argsort", np.argsort(h, kind="stable"))):
            got = run_variant(spec, lambda: getattr(vp, op)(x).numpy())
            if _sort.last_path != "onesweep":
                return f"{op} {h.dtype} {h.shape}: ran {_sort.last_path}"
            if op == "sort":
                got, want = got.view(np.uint32), want.view(np.uint32)
            if not np.array_equal(got, want):
                return f"{op} {h.dtype} {h.shape}: differs from NumPy's stable {op}"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variants", nargs="+", default=SWEEP)
    ap.add_argument("--log2n", type=int, default=26)
    ap.add_argument("--reps", type=int, default=11)
    ap.add_argument("--no-parts", action="store_true", help="skip the GPU breakdown")
    ap.add_argument("--regs", action="store_true", help="nvcc register counts too")
    a = ap.parse_args()
    n = 1 << a.log2n
    ctx = vp.default_context()
    print(f"device: {ctx.info['name']}; n = 2^{a.log2n}; cupy: {cp is not None}; default variant "
          f"{_sort_onesweep.VARIANT}")
    good = []
    for spec in a.variants:
        try:
            bad = check(spec)
        except Exception as e:  # noqa: BLE001 - e.g. a tile larger than shared memory
            bad = f"{type(e).__name__}: {str(e)[:300]}"
        print(f"check variant {spec:22s} {'ok' if bad is None else 'FAILED: ' + bad}")
        if bad is None:
            good.append(spec)
    for kind in ("float32", "uint32"):
        h = keys(kind, n)
        x = vp.asarray(h)
        for op in ("sort", "argsort"):
            f = getattr(vp, op)
            runners = {spec: wall(lambda spec=spec, f=f: run_variant(spec, lambda: f(x)._buf))
                       for spec in good}
            if cp is not None:
                ca = cp.asarray(h)
                cf = getattr(cp, op)

                def crun(cf=cf, ca=ca):
                    cf(ca)
                    cp.cuda.Device().synchronize()
                runners["cupy"] = wall(crun)
            res = interleave(runners, a.reps, warmup=2, budget_s=120, block_warmup=1)
            med = {k: (float(np.median(v)) / 1e6 if not isinstance(v, Exception) else v)
                   for k, v in res.items()}
            case = f"{op} {kind}"
            print(f"\n{case} at 2^{a.log2n}: wall ms per call (median of {a.reps}), "
                  f"ratio = cupy ms / variant ms")
            for k, ms in sorted(med.items(), key=lambda kv: (isinstance(kv[1], Exception),
                                                               kv[1] if isinstance(kv[1], float)
                                                               else 0)):
                if isinstance(ms, Exception):
                    print(f"  {k:22s} ERROR {ms!r:.200}")
                    continue
                ratio = med.get("cupy")
                r = f"  ratio {ratio / ms:5.3f}" if isinstance(ratio, float) and k != "cupy" \
                    else ""
                print(f"  {k:22s} {ms:8.3f} ms{r}")
    if a.regs:
        print("\nregisters and shared memory of the CUDA form by nvcc (a proxy for the "
              "driver's)")
        for spec in good:
            show_registers(spec)
    if not a.no_parts:
        print("\nGPU time per dispatch (timestamps), per variant")
        for kind in ("float32", "uint32"):
            x = vp.asarray(keys(kind, n))
            for op in ("sort", "argsort"):
                for spec in good:
                    show(f"{op} {kind}", spec,
                         parts(lambda f=getattr(vp, op): f(x)._buf, spec, op, n, 3))


if __name__ == "__main__":
    main()
