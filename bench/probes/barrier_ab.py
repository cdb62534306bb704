"""Grid-barrier A/B (issue 15, docs/persistent.md "Barrier variants" and
"What the driver is asked to do"): every barrier variant's cost beside
CUDA's cooperative grid.sync() on the same grid, and the 64K-cell grid's
step rate persistent vs stepped, in one process, timed so that the host's
side is out of the figure.

    .venv/bin/python bench/probes/barrier_ab.py                 (the H200: all of it)
    .venv/bin/python bench/probes/barrier_ab.py --quick         (here, lavapipe: a smoke run)
    .venv/bin/python bench/probes/barrier_ab.py --variants flip,cg-offpath --groups 132
    .venv/bin/python bench/probes/barrier_ab.py --dump $OUT/kernels   (also the kernels' text)
    .venv/bin/python bench/probes/barrier_ab.py --experiments --groups 132 --dump $OUT/kernels
                     (issue 15's experiment cgx-acqpoll beside its bases, one call)

`--variants` names are barrier= names; `NAME+np` compiles NAME with
nonprivate=True (the phases' data buffers non-private instead of coherent:
docs/persistent.md "Memory model"; it changes only the small grid, the
barrier kernel has no data buffer). `--experiments` is flip, cg-offpath,
flip-offpath, every name of vulpy._persistent.EXPERIMENTS, and
cg-offpath+np: each experiment changes one thing the Vulkan driver is
given against cg-offpath, docs/persistent.md "Barrier variants" (the
eight others of that wave were retired on 2026-12-05: no gain on the
H200).

Per variant and group count (default 132 and 1056 on GPUs):
- `vk us/bar`: the marginal cost of one barrier of the Vulkan kernel: two
  runs of N1 and N2 steps (two barriers a step), each timed with a blocking
  wait (PersistentHandle.wait() without a timeout: no sleep-polling), the
  difference of their medians over the difference of the barriers passed.
  Launch, hidden-buffer set-up, discovery and copy-back cancel out. Every
  (variant, groups, steps) run is interleaved with the others rep by rep.
- `whole`: the N2 run's wall time over its barriers (what bench suite
  persistent reports; both wait blocking).
- `ours/CUDA us`: the same lowered kernel printed by VulPy's CUDA back end
  (`kernel.cuda`), compiled with nvcc and run by a cooperative launch with
  CUDA events: the lowering's cost without the Vulkan driver. Its fences
  are the back end's (`__threadfence()` around relaxed atomics, volatile
  polls), i.e. CUDA's pre-sm_70 grid sync sequence. Its host words are
  cudaMalloc'd device memory (Vulkan: the ControlBuffer's host-visible
  memory, device-local where the BAR allows). Variants whose CUDA text is
  the same are compiled and timed once; the row names the first one
  (`= NAME`).
- `cg us`: CUDA's own `cg::this_grid().sync()` (cooperative launch, CUDA
  events, bench_persistent.CUDA_SYNC), and `ratio` = vk / cg (goal <= 1.5).
`VULPY_PERSISTENT_TREE=N` moves the tree variants' two-level threshold
(default 256 groups) in both the Vulkan and our-CUDA columns.
Small grid (64K cells, 10^4 steps, the suite's heat kernel, groups rule
"work"): every variant's persistent form and the stepped form, interleaved
rep by rep, wall time a step with blocking waits, their ratio (goal >= 5),
the marginal ratio (10^4 vs 2 * 10^4 steps: the fixed launch cost out), and
a bit-for-bit check against the stepped form.
Order: every Vulkan figure first, every CUDA one (cg anchors, our CUDA)
after them: in the H200 suite runs a Vulkan row timed right after a CUDA
process had used the GPU read up to 30% faster than the same kernel timed
elsewhere (bench/probes/persistent_order.py).
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

# host words the CUDA harness sets as the runtime does (persistent.h)
H_SPIN, H_CANARY, H_JOIN_SPIN = 5, 4, 8
HARNESS = r'''
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
int main(int argc, char **argv) {
  int groups = atoi(argv[1]), steps = atoi(argv[2]), reps = atoi(argv[3]);
  uint *grid, *host;
  cudaMalloc(&grid, %(grid)d * 4);
  cudaMalloc(&host, 16 * 4);
  PushConstants pc(steps);
  void *args[] = {&grid, &host, &pc};
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  int coop = 1;
  for (int r = 0; r <= reps; r++) {  /* the first is a warm-up */
    uint words[16] = {0};
    words[%(spin)d] = 1u << 26;
    words[%(join)d] = 512;
    words[%(canary)d] = 3;
    const char *tree = getenv("VULPY_PERSISTENT_TREE");  /* as the runtime sets word 14 */
    words[14] = tree ? (uint)atoi(tree) : 0u;
    cudaMemset(grid, 0, %(grid)d * 4);
    cudaMemcpy(host, words, sizeof words, cudaMemcpyHostToDevice);
    cudaEventRecord(a);
    cudaError_t e = coop ? cudaLaunchCooperativeKernel((void *)syncs, groups, 256, args, 0, 0)
                         : cudaLaunchKernel((void *)syncs, groups, 256, args, 0, 0);
    if (e == cudaErrorCooperativeLaunchTooLarge) {  /* discovery trims what does not fit */
      cudaGetLastError();
      coop = 0;
      e = cudaLaunchKernel((void *)syncs, groups, 256, args, 0, 0);
    }
    cudaEventRecord(b);
    if (e == cudaSuccess) e = cudaEventSynchronize(b);
    if (e != cudaSuccess) { printf("error %%s\n", cudaGetErrorString(e)); return 1; }
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    cudaMemcpy(words, host, sizeof words, cudaMemcpyDeviceToHost);
    /* 2: admitted, 3: status, 6: barriers passed */
    if (r) printf("%%f %%u %%u %%u %%d\n", ms * 1000.0, words[6], words[2], words[3], coop);
  }
  return 0;
}
''' % {"spin": H_SPIN, "join": H_JOIN_SPIN, "canary": H_CANARY,
       "grid": vp._persistent.GRID_WORDS}


def nvcc():
    return shutil.which("nvcc") or (os.path.exists("/usr/local/cuda/bin/nvcc")
                                    and "/usr/local/cuda/bin/nvcc")


def vk_barriers(syncs, groups, n1, n2, reps):
    """{(variant, group count): (marginal us/barrier, whole-run us/barrier,
    admitted) or an error} of each `syncs` kernel (variant -> kernel) at
    each group count, every (variant, groups, steps) run interleaved rep by
    rep after one untimed round, so a change of the GPU's state weighs on
    every variant alike."""
    info, times, out = {}, {}, {}

    def run(v, g, steps):
        kw = {} if g is None else {"groups": g}
        h = syncs[v](steps=steps, sync=False, **kw)
        h.wait()  # blocking: no sleep-polling in the figure
        info[(v, g, steps)] = (h.barriers, h.admitted)

    keys = [(v, g) for v in syncs for g in groups]
    for key in keys:  # compile, warm up
        try:
            run(*key, n1)
            run(*key, n2)
        except Exception as e:  # noqa: BLE001
            out[key] = f"{type(e).__name__}: {e}"[:160]
    for _ in range(reps):
        for key in keys:
            for steps in (n1, n2):
                if key in out:
                    continue
                t0 = time.perf_counter()
                try:
                    run(*key, steps)
                except Exception as e:  # noqa: BLE001
                    out[key] = f"{type(e).__name__}: {e}"[:160]
                    continue
                times.setdefault(key + (steps,), []).append(time.perf_counter() - t0)
    for key in keys:
        if key in out:
            continue
        t1 = statistics.median(times[key + (n1,)])
        t2 = statistics.median(times[key + (n2,)])
        (b1, _), (b2, adm) = info[key + (n1,)], info[key + (n2,)]
        if b2 <= b1:  # lavapipe runs acquire-poll barriers stepped: no barrier to time
            out[key] = f"no barriers counted ({b1}, {b2}): ran stepped"
            continue
        out[key] = ((t2 - t1) / (b2 - b1) * 1e6, t2 / b2 * 1e6, adm)
    return out


def cuda_run(exe, groups, steps, reps):
    r = subprocess.run([exe, str(groups), str(steps), str(reps)], capture_output=True, text=True,
                       timeout=600)
    if r.returncode:
        raise RuntimeError((r.stdout + r.stderr).strip()[:200] or f"exit {r.returncode}")
    return [line.split() for line in r.stdout.split("\n") if line.strip()]


def build(src_text, tmp, name):
    cc = nvcc()
    if not cc:
        raise RuntimeError("no nvcc")
    src, exe = os.path.join(tmp, name + ".cu"), os.path.join(tmp, name)
    with open(src, "w") as f:
        f.write(src_text)
    arch = os.environ.get("BARRIER_AB_ARCH", "native")
    r = subprocess.run([cc, "-O3", f"-arch={arch}", "-o", exe, src], capture_output=True,
                       text=True, timeout=600)
    if r.returncode:
        raise RuntimeError("nvcc: " + (r.stderr or r.stdout).strip()[-300:])
    return exe


def cuda_key(text):
    """The CUDA text without comment lines (the first names the source
    file, which differs between variants that print the same code)."""
    return "\n".join(line for line in text.split("\n") if not line.lstrip().startswith("//"))


def ours_cuda(syncs, tmp, tag, groups, n1, n2, reps):
    """Our lowered kernel through our CUDA back end: (marginal us/barrier,
    admitted) from CUDA events."""
    exe = build(syncs.cuda + HARNESS, tmp, "ours_" + tag.replace("-", "_").replace("+", "_"))
    r1, r2 = cuda_run(exe, groups, n1, reps), cuda_run(exe, groups, n2, reps)
    for row in r1 + r2:
        if int(row[3]) & 2:
            raise RuntimeError(f"barrier timeout (status {row[3]}, admitted {row[2]})")
    m1 = statistics.median(float(x[0]) for x in r1)
    m2 = statistics.median(float(x[0]) for x in r2)
    return (m2 - m1) / (int(r2[0][1]) - int(r1[0][1])), int(r2[0][2])


def cg_sync(tmp, groups, n1, n2, reps):
    """CUDA's grid.sync(): marginal us a sync (events; two launch lengths)."""
    exe = os.path.join(tmp, "grid_sync")
    if not os.path.exists(exe):
        build(bp.CUDA_SYNC, tmp, "grid_sync")

    def med(steps):  # the program prints us a sync for each rep
        r = subprocess.run([exe, str(groups), str(steps), str(reps)], capture_output=True,
                           text=True, timeout=600)
        if r.returncode:
            raise RuntimeError((r.stdout + r.stderr).strip()[:200])
        return statistics.median(float(x) for x in r.stdout.split()) * steps
    return (med(n2) - med(n1)) / (n2 - n1)


def small_grid(heats, n, steps, reps):
    """{name: (us/step whole, us/step marginal, bytes)} of each kernel of
    `heats` (name -> (kernel, mode)), all interleaved rep by rep (a, b, c,
    a, b, c, ...) after one untimed round, so that a change of the GPU's
    state during the block weighs on every row alike
    (bench/probes/persistent_order.py)."""
    u0 = np.random.default_rng(1).random(n, dtype=np.float32)
    times = {(name, k): [] for name in heats for k in (steps, 2 * steps)}
    bits = {}

    def run(name, k):
        heat, mode = heats[name]
        u, v = vp.asarray(u0), vp.zeros(n, np.float32)
        t0 = time.perf_counter()
        h = heat(u, v, n=n, alpha=0.2, steps=k, mode=mode, sync=False)
        h.wait()
        dt = time.perf_counter() - t0
        if k == steps:
            bits[name] = u.numpy().tobytes()
        return dt

    failed = {}
    for name in heats:  # compile, warm up
        try:
            run(name, steps)
        except Exception as e:  # noqa: BLE001
            failed[name] = f"{type(e).__name__}: {e}"[:120]
    for _ in range(reps):
        for k in (steps, 2 * steps):
            for name in heats:
                if name not in failed:
                    times[(name, k)].append(run(name, k))
    res = dict(failed)
    for name in heats:
        if name in failed:
            continue
        t1 = statistics.median(times[(name, steps)])
        t2 = statistics.median(times[(name, 2 * steps)])
        res[name] = (t1 / steps * 1e6, (t2 - t1) / steps * 1e6, bits[name])
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variants", help="comma-separated barrier= names, NAME+np for "
                                       "nonprivate=True (default: all)")
    ap.add_argument("--experiments", action="store_true",
                    help="flip, cg-offpath, flip-offpath, the experiment cgx-acqpoll and "
                         "cg-offpath+np (issue 15)")
    ap.add_argument("--groups", help="comma-separated group counts (default 132,1056 on GPUs)")
    ap.add_argument("--quick", action="store_true", help="small sizes (lavapipe)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--no-cuda", action="store_true", help="skip both CUDA columns")
    ap.add_argument("--no-small", action="store_true", help="skip the small grid")
    ap.add_argument("--dump", metavar="DIR",
                    help="write each variant's barrier kernel (syncs) as GLSL and as our CUDA")
    args = ap.parse_args()
    ctx = vp.default_context()
    lavapipe = ctx.info.get("driver_name") == "llvmpipe"
    quick = args.quick or lavapipe
    variants = (args.variants.split(",") if args.variants
                else ["flip", "cg-offpath", "flip-offpath", *vp._persistent.EXPERIMENTS,
                      "cg-offpath+np"] if args.experiments
                else list(vp._persistent.BARRIERS))
    groups = ([None if g == "default" else int(g) for g in args.groups.split(",")]
              if args.groups else [None] if quick else [132, 1056])
    n1, n2 = (50, 150) if quick else (5000, 25000)
    small_n, small_steps = (4096, 100) if quick else (1 << 16, 10_000)
    reps = 3 if quick else args.reps
    tmp = tempfile.mkdtemp(prefix="vulpy-barrier-ab-")
    print(f"device: {ctx.name}; default barrier {vp._persistent.DEFAULT_BARRIER}; "
          f"steps {n1} / {n2} (two barriers a step); reps {reps}", flush=True)
    # Vulkan first, CUDA last: in the H200 suite runs a Vulkan row timed
    # right after a CUDA process had used the GPU read up to 30% faster
    # than the same kernel elsewhere (bench/probes/persistent_order.py)
    kernels = {}
    for v in variants:
        name, np_ = (v[:-3], True) if v.endswith("+np") else (v, False)
        heat, syncs, _ = bp._kernels(tmp, name, np_)
        kernels[v] = (heat, syncs)
        if args.dump:
            os.makedirs(args.dump, exist_ok=True)
            for ext, text in (("glsl", syncs.glsl), ("cu", None), ("spvasm", None)):
                try:
                    if ext == "cu":
                        text = syncs.cuda
                    elif ext == "spvasm":  # the SPIR-V the driver gets, as text
                        spv = os.path.join(args.dump, f"syncs_{v}.spv")
                        with open(spv, "wb") as f:
                            f.write(syncs.spirv)
                        dis = shutil.which("spirv-dis")
                        text = (subprocess.run([dis, spv], capture_output=True, text=True).stdout
                                if dis else "; no spirv-dis here: see the .spv\n")
                except Exception as e:  # noqa: BLE001
                    text = f"// {type(e).__name__}: {e}\n"
                with open(os.path.join(args.dump, f"syncs_{v}.{ext}"), "w") as f:
                    f.write(text)
            if np_:  # the barrier kernel has no data buffer: the heat kernel shows it
                with open(os.path.join(args.dump, f"heat_{v}.glsl"), "w") as f:
                    f.write(heat.glsl)
    vk = vk_barriers({v: kernels[v][1] for v in variants}, groups, n1, n2, reps)
    small = {}
    if not args.no_small:
        heats = {v: (kernels[v][0], "persistent") for v in variants}
        heats["(stepped)"] = (kernels[variants[0]][0], "stepped")
        small = small_grid(heats, small_n, small_steps, reps)
    cg = {}
    for g in sorted({r[2] for r in vk.values() if not isinstance(r, str)}):
        if args.no_cuda:
            continue
        try:
            cg[g] = cg_sync(tmp, g, n1, n2, reps)
        except Exception as e:  # noqa: BLE001 - no CUDA here: say so, go on
            cg[g] = f"{type(e).__name__}: {e}"[:120]
    print(f"CUDA cg grid.sync() us/sync (timed after every Vulkan row): {cg}", flush=True)
    print(f"{'barrier':14s} {'groups':>6s} {'vk us/bar':>9s} {'whole':>7s} {'cg us':>7s} "
          f"{'ratio':>6s} {'ours/CUDA us':>12s}", flush=True)
    ours_done = {}
    for v in variants:
        syncs = kernels[v][1]
        for g in groups:
            r = vk[(v, g)]
            if isinstance(r, str):
                print(f"{v:14s} {str(g):>6s} error {r}"[:200], flush=True)
                continue
            marg, whole, adm = r
            c = cg.get(adm) if isinstance(cg.get(adm), float) else None
            ours = "-"
            if not args.no_cuda and g is not None:
                try:  # the same CUDA text as a variant timed before: its figure
                    key = (cuda_key(syncs.cuda), g)
                    if key not in ours_done:
                        ours_done[key] = (v,) + ours_cuda(syncs, tmp, v, g, n1, n2, reps)
                    first, o, oadm = ours_done[key]
                    ours = (f"{o:.2f}" + ("" if oadm == adm else f" ({oadm} adm)")
                            + ("" if first == v else f" = {first}"))
                except Exception as e:  # noqa: BLE001
                    ours = f"({type(e).__name__}: {e})"[:60]
            print(f"{v:14s} {adm:6d} {marg:9.2f} {whole:7.2f} "
                  f"{(f'{c:.2f}' if c else '-'):>7s} {(f'{marg / c:.2f}x' if c else '-'):>6s} "
                  f"{ours:>12s}", flush=True)
    stepped = small.get("(stepped)")
    if small:
        print(f"\nsmall grid ({small_n} cells, {small_steps} steps), us/step, blocking waits, "
              f"every variant and the stepped form interleaved (goal: stepped/persistent >= 5):")
        print(f"{'barrier':14s} {'pers':>7s} {'stepped':>8s} {'ratio':>6s} {'pers marg':>9s} "
              f"{'step marg':>9s} {'ratio marg':>10s} bits")
        for v in variants:
            r = small.get(v)
            if isinstance(r, str) or isinstance(stepped, str) or stepped is None:
                print(f"{v:14s} error {r if isinstance(r, str) else stepped}")
                continue
            (p, pm, pb), (s, sm, sb) = r, stepped
            print(f"{v:14s} {p:7.2f} {s:8.2f} {s / p:5.2f}x {pm:9.2f} {sm:9.2f} {sm / pm:9.2f}x "
                  f"{'same' if pb == sb else 'DIFFER'}")


if __name__ == "__main__":
    main()
