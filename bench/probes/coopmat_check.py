"""Cooperative-matrix float16 GEMM on the device: correctness of every
variant (the tiled kernels of _coopmat.TILES) on random and
ragged shapes, then the 4096^2 rates beside cupy.matmul (cuBLAS half).

On the H200, after bench/device/prep.sh and the .whl-test download that
bench/device/pytest.sh describes:

  run(command="bash bench/device/pytest.sh test/python/test_coopmat.py "
      "test/python/test_matmul.py; VULPY_VALIDATION=0 PYTHONPATH=/tmp/site-pytest "
      "python3 bench/probes/coopmat_check.py", carry=[".gl", ".whl", ".whl-test"])

Here (lavapipe: no cooperative matrices, so only the fallback runs, at
small sizes): .venv/bin/python bench/probes/coopmat_check.py

Correctness, per shape and variant (each variant on the shapes it takes):
- 'exact': integer-valued halves in [-4, 4], so every product and every
  float32 partial sum is exact whatever the order: the result must equal
  NumPy's float32 matmul of the same float16 inputs bit for bit.
- 'normal': standard-normal halves against the float64 product; the error
  must stay within |err| <= 4e-7 * k * (|A| @ |B|) + 1e-5, the bound
  bench/bench_matmul.py uses (float32's dot-product bound k * 2^-24 with
  room for the tensor cores' truncating accumulation); the printed
  'err/bound' is max |err| / (|A| @ |B|) in units of 2^-24 (about sqrt(k)
  for round-to-nearest sums). Structural errors (a wrong index, a lost
  partial tile) show in 'exact' bit for bit; this one catches NaN and
  precision loss.
- where the default variant also takes the shape, each other one's largest
  difference from it (the same MMAs in the same K order: expected 0).
- vp.matmul of resident float16 arrays (the default variant, float16
  out) on the 'exact' data: equal to NumPy's float16 `a @ b` bit for bit.
Prints 'WRONG' lines and exits 1 on any failure, else 'ALL CORRECT'.

Rates at 4096^2 (--size): wall clock of matmul_f16_words (synchronous, a
pooled float32 result) and the kernel's GPU time (timestamps), median of
--reps, as TFLOP/s = 2 n^3 / t; cupy.matmul of float16 (cuBLAS, float16
out) the same way when CuPy imports, and each variant's wall-clock ratio
to it (issue 19's goal: >= 0.5).
"""
import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

_SRC = Path(__file__).resolve().parents[2] / "bindings" / "python"
if list((_SRC / "vulpy").glob("_vulpy*.so")):  # a built tree; else the installed wheel
    sys.path.insert(0, str(_SRC))
import vulpy as vp  # noqa: E402
from vulpy import _coopmat  # noqa: E402

SHAPES = [(1, 8, 8), (16, 16, 16), (128, 128, 128), (130, 136, 40), (77, 520, 1000),
          (256, 384, 512), (1000, 1000, 1000), (1024, 1024, 1024), (2048, 1032, 264),
          (4096, 4096, 4096)]
SMALL = [(1, 8, 8), (130, 136, 40), (128, 128, 64)]


def _f16(rng, shape, exact):
    if exact:
        return rng.integers(-4, 5, shape).astype(np.float16)
    return rng.standard_normal(shape).astype(np.float16)


def _run(ctx, v, a, b):
    m, k = a.shape
    n = b.shape[1]
    if v == "fallback":
        r = _coopmat.matmul_f16_words(a.view(np.uint32), b.view(np.uint32), m, n, k,
                                      context=ctx, force_fallback=True)
    else:
        r = _coopmat.matmul_f16_words(a.view(np.uint32), b.view(np.uint32), m, n, k,
                                      context=ctx, variant=v)
    return r.numpy()


def check(ctx, shapes, variants, rng):
    bad = 0
    for (m, n, k) in shapes:
        takers = [v for v in variants if v == "fallback" or
                  _coopmat.variant_for(ctx, m, n, k, v) == v]
        if not takers:
            print(f"{m}x{k} @ {k}x{n}: no variant takes it (fallback only)")
            continue
        rows = np.arange(m) if m <= 1024 else np.unique(rng.integers(0, m, 96))
        for exact in (True, False):
            a, b = _f16(rng, (m, k), exact), _f16(rng, (k, n), exact)
            a32, b32 = a.astype(np.float32), b.astype(np.float32)
            want32 = a32[rows] @ b32
            want64 = a[rows].astype(np.float64) @ b.astype(np.float64)
            bound = np.abs(a[rows].astype(np.float64)) @ np.abs(b.astype(np.float64))
            got = {}
            for v in takers:
                try:
                    g = _run(ctx, v, a, b)[rows]
                except Exception as e:  # noqa: BLE001 - a report line, not a crash
                    print(f"WRONG {v} {m}x{k}@{k}x{n}: {type(e).__name__}: {e}")
                    bad += 1
                    continue
                got[v] = g
                if exact:
                    ok = np.array_equal(g, want32)
                    d = np.abs(g.astype(np.float64) - want32).max() if g.size else 0.0
                    msg = f"exact: max |diff| {d:.3g}"
                else:
                    err = np.abs(g.astype(np.float64) - want64)
                    ok = bool(np.all(err <= 4e-7 * k * bound + 1e-5)) and \
                        not np.isnan(g).any()
                    rel = (err / np.maximum(bound, 1e-30)).max() / 2.0 ** -24
                    msg = f"normal: max err {err.max():.3g}, err/bound {rel:.2f} x 2^-24"
                if not ok:
                    bad += 1
                    where = np.argwhere(g != want32)[:1] if exact else np.argwhere(
                        err > 4e-7 * k * bound + 1e-5)[:1]
                    msg += f" at {where.tolist()}"
                print(f"{'ok   ' if ok else 'WRONG'} {v:12s} {m}x{k} @ {k}x{n} {msg}")
            if exact and "fallback" not in takers:  # the user's call: float16 out, as NumPy's
                try:
                    g16 = vp.matmul(vp.asarray(a, context=ctx), vp.asarray(b, context=ctx)).numpy()
                    want16 = a[rows] @ b
                    ok = g16.dtype == np.float16 and np.array_equal(g16[rows], want16)
                    msg = f"dtype {g16.dtype}"
                except Exception as e:  # noqa: BLE001
                    ok, msg = False, f"{type(e).__name__}: {e}"
                bad += not ok
                v0 = _coopmat.variant_for(ctx, m, n, k)
                print(f"{'ok   ' if ok else 'WRONG'} {'vp.matmul':12s} {m}x{k} @ {k}x{n} exact, "
                      f"float16 out ({v0 or 'fallback'}): {msg}")
            ref = _coopmat.DEFAULT
            for v in got:
                if v not in (ref, "fallback") and ref in got:
                    d = np.abs(got[v].astype(np.float64) - got[ref]).max()
                    print(f"      {v:12s} vs {ref}: max |diff| {d:.3g}"
                          f"{' (bitwise equal)' if d == 0 else ''}")
    return bad


def _median_ms(fn, reps):
    fn()
    fn()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(ts)


def rates(ctx, n, variants, reps, rng):
    a = _f16(rng, (n, n), False)
    b = _f16(rng, (n, n), False)
    aw, bw = vp.asarray(a.view(np.uint32), context=ctx), vp.asarray(b.view(np.uint32),
                                                                     context=ctx)
    tf = lambda ms: 2.0 * n ** 3 / (ms * 1e-3) / 1e12  # noqa: E731
    res = {}
    print(f"\nmatmul float16 {n}^2 (float32 accumulation), median of {reps}:")
    for v in variants:
        if v != "fallback" and _coopmat.variant_for(ctx, n, n, n, v) != v:
            continue
        kw = {"force_fallback": True} if v == "fallback" else {"variant": v}
        try:
            wall = _median_ms(lambda: _coopmat.matmul_f16_words(aw, bw, n, n, n, **kw), reps)
            gpu = None
            if v != "fallback":
                p, push, grid, (pm, pn) = _coopmat.launch_args(v, n, n, n)
                c = vp.empty((pm, pn), np.float32, context=ctx)
                k = p.native(ctx)
                gpu = statistics.median(
                    k.dispatch_timed([aw._buf, bw._buf, c._buf], push, *grid, True) / 1e6
                    for _ in range(reps))
        except Exception as e:  # noqa: BLE001
            print(f"  {v:12s} FAILED: {type(e).__name__}: {e}")
            continue
        res[v] = wall
        g = f", GPU {gpu:.3f} ms = {tf(gpu):.1f} TFLOP/s" if gpu else ""
        print(f"  vulpy {v:12s} wall {wall:.3f} ms = {tf(wall):.1f} TFLOP/s{g}")
    try:
        import cupy as cp
        cp.cuda.runtime.getDeviceCount()
    except Exception as e:  # noqa: BLE001
        print(f"  cupy: not here ({type(e).__name__})")
        return res
    ca, cb = cp.asarray(a), cp.asarray(b)
    cc = cp.empty((n, n), cp.float16)

    def crun():
        cp.matmul(ca, cb, out=cc)
        cp.cuda.Device().synchronize()
    cwall = _median_ms(crun, reps)
    s, e = cp.cuda.Event(), cp.cuda.Event()
    gs = []
    for _ in range(reps):
        s.record()
        cp.matmul(ca, cb, out=cc)
        e.record()
        e.synchronize()
        gs.append(cp.cuda.get_elapsed_time(s, e))
    cgpu = statistics.median(gs)
    print(f"  cupy  float16      wall {cwall:.3f} ms = {tf(cwall):.1f} TFLOP/s, GPU {cgpu:.3f} ms "
          f"= {tf(cgpu):.1f} TFLOP/s")
    for v, wall in res.items():
        print(f"  ratio {v:12s} / cupy (wall): {cwall / wall:.3f}x  (goal >= 0.5)")
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--no-rates", action="store_true")
    ap.add_argument("--variants", default="", help="NAME,NAME (default: every variant; "
                    "the 'c' ones compile once per shape checked)")
    args = ap.parse_args()
    ctx = vp.default_context()
    lim = ctx.limits
    coop = _coopmat.available(ctx)
    print(f"device: {ctx.name}; cooperative_matrix: {coop}; subgroup_size "
          f"{lim.get('subgroup_size')}; max_shared_memory {lim.get('max_shared_memory')}; "
          f"default variant {_coopmat.DEFAULT} (${_coopmat.ENV}="
          f"{os.environ.get(_coopmat.ENV, '')!r})")
    rng = np.random.default_rng(19)
    if coop:
        variants = [v for v in args.variants.split(",") if v] or list(_coopmat.VARIANTS)
        shapes = SHAPES
    else:
        print("no cooperative matrices here: the fallback only, small shapes")
        variants, shapes = ["fallback"], SMALL
    bad = check(ctx, shapes, variants, rng)
    if not args.no_rates:
        rates(ctx, args.size if coop else 256, variants, args.reps if coop else 3, rng)
    print("\nALL CORRECT" if not bad else f"\n{bad} WRONG")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
