"""A/B of every tiled cooperative-matrix float16 GEMM configuration
(vulpy._coopmat.TILES) against cupy.matmul float16 (cuBLAS half), at
4096^2 and 8192^2, interleaved, each result checked against CuPy; issue
19's goal is a ratio >= 0.5.

On the H200, after bench/device/prep.sh (and the .whl-test download
bench/device/pytest.sh describes), ~60 s:

  run(command="bash bench/device/pytest.sh test/python/test_coopmat.py; "
      "VULPY_VALIDATION=0 PYTHONPATH=/tmp/site-pytest python3 bench/probes/coopmat_ab.py",
      carry=[".gl", ".whl", ".whl-test"])

First the ceilings (--no-peak skips them): t128x256's MMA loop alone,
1056 workgroups x 2048 K sub-steps of 16 MMAs a subgroup, no global
memory: 'reg' (fragments kept in registers: the MMA rate the driver's
coopmat1 code reaches), 'smem' (each sub-step loads its fragments from
the padded shared tiles, B row-major, as the GEMM does; the transposed-B
'smem_t' ceiling went with Tile.b_t, retired). Read: if 'reg' is near
the GEMM's rate, coopmat1 itself is the limit (then only
VK_NV_cooperative_matrix2 or another path can reach 0.5x); if 'smem' is
far below 'reg', the shared-memory fragment loads are; if both are far above the GEMM, the
global->shared pipeline is (latency, barriers).

Then, per size n:
- A and B: standard-normal float16 n x n (NumPy, seed 19), resident in
  VulPy and in CuPy.
- The check (before any timing): each configuration's float32 result,
  in three blocks of 128 rows (first, middle, last: edge tiles included),
  against CuPy's float32 product of the same float16 values within
  |err| <= 4e-7 * n * (|A| @ |B|) + 1e-5 (float32's dot-product bound
  with room for the tensor cores' accumulation order, as
  bench/bench_matmul.py and coopmat_check.py use). A NaN or a larger
  error prints WRONG and the configuration is left out of the rates.
  cupy.matmul float16 (its float16 result) is checked the same way with a
  float16 rounding allowance.
- The rates: --rounds rounds; in each round every backend (each
  configuration, then cupy) runs one untimed call (it pays any switch
  between the Vulkan and CUDA contexts) and then one timed call. VulPy's
  GPU time is the kernel's timestamps (dispatch_timed, the padded output
  buffer preallocated), CuPy's its CUDA events; the wall time is the
  synchronous call from Python (VulPy: matmul_f16_words, a pooled float32
  result; CuPy: matmul then synchronize).
Prints per size one line per backend: median GPU ms, TFLOP/s (2 n^3 / t),
the ratio cupy_gpu / vulpy_gpu, and the wall-clock figures; then a
summary sorted by the 4096^2 ratio, the best configuration named.
Exit status 1 on any WRONG.

What to read: the 'ratio' column (GPU time; the goal >= 0.5), which
suffix moves it (docs/notes/matmul.md lists what each configuration
changes: c = compiled per shape without guards, b = one B fragment live,
g8 = grouped workgroup order), and whether 8192^2 agrees with 4096^2.
--variants NAME,NAME picks configurations; --sizes 4096 a size.
"""
import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

_SRC = Path(__file__).resolve().parents[2] / "bindings" / "python"
if list((_SRC / "vulpy").glob("_vulpy*.so")):  # a built tree; else the installed wheel
    sys.path.insert(0, str(_SRC))
import vulpy as vp  # noqa: E402
from vulpy import _coopmat, _native  # noqa: E402
from vulpy import _coopmat_tiled as _tiled  # noqa: E402
from vulpy._launch import Program  # noqa: E402

ROWS = 128  # rows per checked block


def _blocks(n):
    mid = (n // 2) // ROWS * ROWS + 5  # not tile aligned
    return [(0, ROWS), (mid, mid + ROWS), (n - ROWS, n)]


def _check(name, got_blocks, ref_blocks, bound_blocks, k, f16_out=False):
    worst, ok = 0.0, True
    for g, want, bound in zip(got_blocks, ref_blocks, bound_blocks):
        err = np.abs(g.astype(np.float64) - want)
        lim = 4e-7 * k * bound + 1e-5
        if f16_out:  # the float16 result's own rounding on top
            lim = lim + np.abs(want) * 2.0 ** -11
        ok = ok and not np.isnan(g).any() and bool(np.all(err <= lim))
        worst = max(worst, float((err / np.maximum(bound, 1e-30)).max()) / 2.0 ** -24)
    print(f"  {'ok   ' if ok else 'WRONG'} {name:14s} err/bound {worst:.2f} x 2^-24")
    return ok


def run_size(ctx, n, variants, rounds, rng, cp):
    tf = lambda ms: 2.0 * n ** 3 / (ms * 1e-3) / 1e12  # noqa: E731
    print(f"\n== float16 {n}^2 @ {n}^2, float32 accumulation ==")
    t0 = time.perf_counter()
    a = rng.standard_normal((n, n), np.float32).astype(np.float16)
    b = rng.standard_normal((n, n), np.float32).astype(np.float16)
    aw = vp.asarray(a.view(np.uint32), context=ctx)
    bw = vp.asarray(b.view(np.uint32), context=ctx)
    blocks = _blocks(n)
    ca, cb = cp.asarray(a), cp.asarray(b)
    ca32, cb32 = ca.astype(cp.float32), cb.astype(cp.float32)
    ref = [cp.asnumpy(ca32[r0:r1] @ cb32).astype(np.float64) for r0, r1 in blocks]
    bound = [cp.asnumpy(cp.abs(ca32[r0:r1]) @ cp.abs(cb32)).astype(np.float64)
             for r0, r1 in blocks]
    del ca32, cb32
    print(f"  data and reference: {time.perf_counter() - t0:.1f} s")

    # the check, and each configuration's program and output buffer
    runs, bad = {}, 0
    for v in variants:
        if _coopmat.variant_for(ctx, n, n, n, v) != v:
            print(f"  skip  {v:14s} (does not take {n}^2 here: shared memory or subgroup size)")
            continue
        try:
            t1 = time.perf_counter()
            p, push, grid, (pm, pn) = _coopmat.launch_args(v, n, n, n)
            k = p.native(ctx)
            comp = time.perf_counter() - t1
            r = _coopmat.matmul_f16_words(aw, bw, n, n, n, variant=v)
            got = [r[r0:r1].numpy() for r0, r1 in blocks]
            del r
        except Exception as e:  # noqa: BLE001 - a report line, not a crash
            print(f"  WRONG {v:14s} {type(e).__name__}: {e}")
            bad += 1
            continue
        if not _check(f"{v} ({comp:.1f} s build)", got, ref, bound, n):
            bad += 1
            continue
        c = vp.empty((pm, pn), np.float32, context=ctx)
        runs[v] = (k, [aw._buf, bw._buf, c._buf], push, grid)
    cc = cp.empty((n, n), cp.float16)
    cp.matmul(ca, cb, out=cc)
    cgot = [cp.asnumpy(cc[r0:r1]).astype(np.float32) for r0, r1 in blocks]
    if not _check("cupy float16", cgot, ref, bound, n, f16_out=True):
        bad += 1

    # the rates, interleaved round by round
    gpu = {v: [] for v in runs}
    wall = {v: [] for v in runs}
    gpu["cupy"], wall["cupy"] = [], []
    ev0, ev1 = cp.cuda.Event(), cp.cuda.Event()
    dev = cp.cuda.Device()
    for _ in range(rounds):
        for v, (k, bufs, push, grid) in runs.items():
            k.dispatch_timed(bufs, push, *grid, True)  # untimed: pays any context switch
            gpu[v].append(k.dispatch_timed(bufs, push, *grid, True) / 1e6)
            t1 = time.perf_counter()
            _coopmat.matmul_f16_words(aw, bw, n, n, n, variant=v)
            wall[v].append((time.perf_counter() - t1) * 1e3)
        cp.matmul(ca, cb, out=cc)
        dev.synchronize()
        ev0.record()
        cp.matmul(ca, cb, out=cc)
        ev1.record()
        ev1.synchronize()
        gpu["cupy"].append(cp.cuda.get_elapsed_time(ev0, ev1))
        t1 = time.perf_counter()
        cp.matmul(ca, cb, out=cc)
        dev.synchronize()
        wall["cupy"].append((time.perf_counter() - t1) * 1e3)
    med = {v: (statistics.median(gpu[v]), statistics.median(wall[v])) for v in gpu}
    cg, cw = med["cupy"]
    print(f"  {'backend':14s} {'GPU ms':>8s} {'TFLOP/s':>8s} {'ratio':>6s}   {'wall ms':>8s} "
          f"{'TFLOP/s':>8s} {'ratio':>6s}   (median of {rounds}; ratio = cupy / this)")
    for v, (g, w) in med.items():
        print(f"  {v:14s} {g:8.3f} {tf(g):8.1f} {cg / g:6.3f}   {w:8.3f} {tf(w):8.1f} "
              f"{cw / w:6.3f}")
    return {v: (tf(g), cg / g) for v, (g, w) in med.items() if v != "cupy"}, bad


# ---- the ceilings: the tiled kernels' MMA loop without global memory

PEAK_ITERS, PEAK_GROUPS = 2048, 1056


def peak_glsl(kind):
    """A kernel of t128x256's shape (8 subgroups, 4 x 4 accumulators of
    16 x 16 float32 each) that runs PEAK_ITERS K sub-steps of 16 MMAs a
    subgroup with no global memory in the loop. kind 'reg': the fragments
    stay in registers (the MMA rate alone); 'smem': each sub-step loads
    its 4 A and 4 B fragments from the padded shared tiles as the GEMM
    does (the GEMM's own formulas; B row-major)."""
    t = _coopmat.TILES["t128x256"]
    E = _tiled._E
    acc_t = "fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>"
    h_t = "fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>"
    L = ["#version 450", "#extension GL_NV_cooperative_matrix : require",
         "#extension GL_KHR_memory_scope_semantics : require",
         "#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require",
         "#extension GL_EXT_shader_16bit_storage : require",
         "#extension GL_KHR_shader_subgroup_basic : require",
         f"layout(local_size_x = {t.invocations}) in;",
         "layout(set = 0, binding = 0) readonly buffer A { uvec4 a[]; };",
         "layout(set = 0, binding = 1) writeonly buffer C { float c[]; };",
         "layout(push_constant) uniform P { uint iters; uint words; } pc;",
         f"shared uvec4 As[{t.a_stage}];", f"shared uvec4 Bs[{t.b_stage}];",
         "void main() {",
         "  uint tid = gl_LocalInvocationID.x;",
         f"  uint wm = gl_SubgroupID / {t.sgn}u, wn = gl_SubgroupID % {t.sgn}u;",
         f"  for (uint i = tid; i < {t.a_stage}u; i += {t.invocations}u) As[i] = a[i % pc.words];",
         f"  for (uint i = tid; i < {t.b_stage}u; i += {t.invocations}u) Bs[i] = a[i % pc.words];",
         "  barrier();"]
    w = L.append
    for i in range(t.fm):
        for j in range(t.fn):
            w(f"  {acc_t} acc{i}_{j} = {acc_t}(0.0);")

    def frags(kk, ind):
        for i in range(t.fm):
            w(f"{ind}coopMatLoadNV(fa{i}, As, {_tiled.a_frag(t, 0, E('wm'), i, kk)}, "
              f"{t.a_stride}u, false);")
        for j in range(t.fn):
            w(f"{ind}coopMatLoadNV(fb{j}, Bs, {_tiled.b_frag(t, 0, E('wn'), j, kk)}, "
              f"{t.b_stride}u, false);")
    w("  " + " ".join(f"{h_t} fa{i};" for i in range(t.fm)))
    w("  " + " ".join(f"{h_t} fb{j};" for j in range(t.fn)))
    if kind == "reg":
        frags(0, "  ")
    w("  for (uint it = 0u; it < pc.iters; it++) {")
    if kind != "reg":
        frags(E("(it & 1u)"), "    ")
    for i in range(t.fm):
        for j in range(t.fn):
            w(f"    acc{i}_{j} = coopMatMulAddNV(fa{i}, fb{j}, acc{i}_{j});")
    w("  }")
    w(f"  uint base = (gl_WorkGroupID.x * {t.sgm * t.sgn}u + gl_SubgroupID) * "
      f"{t.fm * t.fn * 256}u;")
    for i in range(t.fm):
        for j in range(t.fn):
            w(f"  coopMatStoreNV(acc{i}_{j}, c, base + {(i * t.fn + j) * 256}u, 16u, false);")
    w("}")
    man = f"""vulpy_manifest: 1
kernel: main
entry_point: main
local_size: [{t.invocations}, 1, 1]
buffers:
  - {{name: a, set: 0, binding: 0, type: vec4<u32>, elem_size: 16, access: readonly}}
  - {{name: c, set: 0, binding: 1, type: f32, elem_size: 4, access: writeonly}}
push_constants:
  size: 8
  fields:
    - {{name: iters, type: u32, offset: 0, size: 4}}
    - {{name: words, type: u32, offset: 4, size: 4}}
structs: []
shared_bytes: {16 * (t.a_stage + t.b_stage)}
features: [storage16, float16, subgroup_basic, vulkan_memory_model, cooperative_matrix]
"""
    flops = 2.0 * 16 ** 3 * t.fm * t.fn * t.sgm * t.sgn * PEAK_GROUPS * PEAK_ITERS
    return "\n".join(L) + "\n", man, flops, t


def peaks(ctx, rng, reps=5):
    """The MMA-loop ceilings (peak_glsl) in TFLOP/s, GPU time."""
    print("\n== ceilings: the t128x256 MMA loop without global memory "
          f"({PEAK_GROUPS} workgroups x {PEAK_ITERS} K sub-steps) ==")
    data = vp.asarray(rng.standard_normal(8192).astype(np.float16).view(np.uint32),
                      context=ctx)
    for kind in ("reg", "smem"):
        glsl, man, flops, t = peak_glsl(kind)
        label = f"coopmat_ab peak {kind}"
        try:
            prog = Program({"glsl": glsl, "spirv": _native.ext().glsl_to_spirv(glsl, label),
                            "manifest": man, "key": ("coopmat_ab", kind)}, label)
            k = prog.native(ctx)
            out = vp.empty((PEAK_GROUPS * t.sgm * t.sgn * t.fm * t.fn * 256,), np.float32,
                           context=ctx)
            push = prog.packer.pack({"iters": PEAK_ITERS, "words": data.size // 4})
            bufs = [data._buf, out._buf]
            k.dispatch_timed(bufs, push, PEAK_GROUPS, 1, 1, True)
            ms = statistics.median(k.dispatch_timed(bufs, push, PEAK_GROUPS, 1, 1, True) / 1e6
                                   for _ in range(reps))
            finite = bool(np.isfinite(out[:4096].numpy()).all())
        except Exception as e:  # noqa: BLE001 - a report line
            print(f"  {kind:7s} FAILED: {type(e).__name__}: {e}")
            continue
        print(f"  {kind:7s} {ms:8.3f} ms = {flops / (ms * 1e-3) / 1e12:7.1f} TFLOP/s"
              f"{'' if finite else '  (non-finite output)'}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="4096,8192")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--variants", default="")
    ap.add_argument("--no-peak", action="store_true")
    args = ap.parse_args()
    t0 = time.perf_counter()
    ctx = vp.default_context()
    lim = ctx.limits
    print(f"device: {ctx.name}; cooperative_matrix: {_coopmat.available(ctx)}; subgroup_size "
          f"{lim.get('subgroup_size')}; max_shared_memory {lim.get('max_shared_memory')}; "
          f"default {_coopmat.DEFAULT}")
    if not _coopmat.available(ctx):
        print("no cooperative matrices on this device: nothing to compare "
              "(test/python/test_coopmat.py covers what lavapipe can)")
        return 0
    try:
        import cupy as cp
        cp.cuda.runtime.getDeviceCount()
    except Exception as e:  # noqa: BLE001
        print(f"cupy is needed for the reference and the comparison: {type(e).__name__}: {e}")
        return 2
    variants = [v for v in args.variants.split(",") if v] or list(_coopmat.TILES)
    rng = np.random.default_rng(19)
    if not args.no_peak:
        peaks(ctx, rng)
    table, bad = {}, 0
    for n in [int(s) for s in args.sizes.split(",")]:
        res, b = run_size(ctx, n, variants, args.rounds, rng, cp)
        table[n], bad = res, bad + b
    sizes = list(table)
    print("\n== summary: TFLOP/s (GPU time) and ratio to cupy float16; goal ratio >= 0.5 ==")
    print("  " + f"{'config':14s}" + "".join(f" {n:>7d}^2 ratio" for n in sizes))
    first = table[sizes[0]]
    for v in sorted(first, key=lambda v: -first[v][1]):
        cells = "".join(f" {table[n][v][0]:9.1f} {table[n][v][1]:5.3f}" if v in table[n]
                        else f" {'-':>9s} {'-':>5s}" for n in sizes)
        print(f"  {v:14s}{cells}")
    if first:
        best = max(first, key=lambda v: first[v][1])
        print(f"best at {sizes[0]}^2: {best} ({first[best][1]:.3f}x cupy; default "
              f"{_coopmat.DEFAULT}: {first.get(_coopmat.DEFAULT, (0, 0))[1]:.3f}x)")
    print(f"{'ALL CORRECT' if not bad else f'{bad} WRONG'}; {time.perf_counter() - t0:.0f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
