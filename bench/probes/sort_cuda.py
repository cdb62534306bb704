"""Is the onesweep sort's per-pass gap to CUB the algorithm or the Vulkan
compile path? Runs the same kernels twice on one GPU: through Vulkan
(vp.sort with _sort.PROFILE: each dispatch's GPU timestamps) and in the
CUDA form VulPy prints for them (nvcc -O3 -arch=sm_90, launched with
CuPy on the same keys in the same order: fill, ohist, oscan, 4 passes;
CUDA events around each), then cupy.sort. Both results are checked
against NumPy. Medians of --reps calls, ms:

    python bench/probes/sort_cuda.py [--log2n 26] [--reps 7] [--variant 3]
        [--keep DIR]   (keeps the .cu / .cubin files, e.g. for ncu)

Needs nvcc and CuPy (the device machine); prints what it could not do.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
if not os.environ.get("PYTHONPATH"):
    sys.path.insert(0, str(HERE.parents[1] / "bindings" / "python"))
sys.path.insert(0, str(HERE.parent))
import vulpy as vp  # noqa: E402
from vulpy import _launch, _sort, _sort_onesweep as so  # noqa: E402

import cuda_check  # noqa: E402  (CudaLauncher, push_bytes, push_align, nvcc_compile)


# the ranking's 8 ballots (one a digit bit) in the printed CUDA, for --match:
# after the first line, 8 times: lines that set `bit` or `on` / `v`, then
# `peers = peers & ...` (the template's switch `bt` picks which)
MATCH_RE = re.compile(r"(uint )?peers = subgroupBallot\(valid\)\.x;\n"
                      r"(?:(?:(?![^\n]*peers = )[^\n]*\n)*?[ \t]*peers = peers & [^\n]*\n){8}")
def MATCH_TO(mo):
    """The 8 ballots' replacement: one __match_any_sync, and every name the
    block declared still declared (later code may assign it)."""
    decls = "".join(f"  {t} {nm};\n" for t, nm in
                    re.findall(r"^\s*(uint|bool) (\w+)(?: =[^\n]*)?;$", mo.group(0), re.M)
                    if nm != "peers")
    return (f"{mo.group(1) or ''}peers = __match_any_sync(__activemask(), d) & "
            f"subgroupBallot(valid).x;\n{decls}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--log2n", type=int, default=26)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--variant", default=None)
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--keep", default=None)
    ap.add_argument("--no-vulkan", action="store_true", help="the CUDA form only (for ncu)")
    ap.add_argument("--match", action="store_true",
                    help="the CUDA form's ranking with __match_any_sync (one MATCH) in place "
                         "of the 8 ballots a key (what subgroupPartitionNV would give)")
    a = ap.parse_args()
    n = 1 << a.log2n
    rng = np.random.default_rng(0)
    h = rng.standard_normal(n).astype(np.float32)
    want = np.sort(h)
    word, mode, bits = _sort._KEYS[np.dtype(np.float32)]
    passes = -(-bits // 8)
    if a.variant is not None:  # vp.sort's too
        so.VARIANT = a.variant
    cfg = so.settings(a.variant)
    lanes, ipt = so.shape(word, 32, cfg)
    tile = lanes * ipt
    tpr = -(-n // tile)
    ntiles = tpr
    sto = so.GH + passes * 256
    swords = sto + passes * ntiles * 256
    cpr = -(-tpr // so.HIST_TILES)
    grid = _launch.rows_grid

    # ---- Vulkan: vp.sort with per-dispatch GPU times
    x = vp.asarray(h) if not a.no_vulkan else None
    _sort.PROFILE = True
    vk = {}
    walls = []
    for _ in range(0 if a.no_vulkan else a.reps):
        t = time.perf_counter()
        r = vp.sort(x)
        walls.append(time.perf_counter() - t)
        for i, (name, ms) in enumerate(_sort.last_times or []):
            vk.setdefault((i, name), []).append(ms)
    _sort.PROFILE = False
    if walls:
        ok_vk = np.array_equal(r.numpy(), want)
        print(f"vulkan  path {_sort.last_path}, result {'ok' if ok_vk else 'WRONG'}, "
              f"wall {1e3 * statistics.median(walls):.3f} ms")
    if vk:  # per dispatch, in order (the 4 passes share a name)
        print("vulkan  " + "  ".join(f"{nm} {statistics.median(v):.3f}"
                                     for (_, nm), v in sorted(vk.items()))
              + f"  sum {sum(statistics.median(v) for v in vk.values()):.3f}")
    else:
        print("vulkan  no GPU timestamps on this device")

    try:
        import cupy as cp
    except Exception as e:  # noqa: BLE001
        print(f"no CuPy ({e}): CUDA form not run")
        return
    nvcc = cuda_check.find_nvcc()
    if not nvcc:
        print("no nvcc: CUDA form not run")
        return
    ns = so.kernels(word, mode, passes, 32, 0, 1 << 20, int(so.PUBLISH_INCLUSIVE), cfg=cfg)
    out_dir = a.keep or tempfile.mkdtemp()
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    launchers, progs = {}, {}
    for k in ("ohist", "oscan", "onesweep"):
        src = ns[k].cuda
        if a.match and k == "onesweep":
            src, nsub = MATCH_RE.subn(MATCH_TO, src)
            print(f"cuda    --match: {nsub} rankings use __match_any_sync")
            if not nsub:
                return
        cubin, dt, msg = cuda_check.nvcc_compile(nvcc, src, out_dir, k, a.arch)
        if cubin is None:
            print(f"nvcc failed on {k}: {msg}")
            return
        r = subprocess.run([nvcc, f"-arch={a.arch}", "-cubin", "-O3", "-Xptxas", "-v", "-o",
                            os.devnull, str(Path(out_dir) / f"{k}.cu")],
                           capture_output=True, text=True)
        regs = [ln.strip() for ln in r.stderr.splitlines() if "registers" in ln]
        print(f"cuda    {k}: nvcc {dt:.1f} s; {regs[-1] if regs else ''}")
        launchers[k] = (cuda_check.CudaLauncher(cp, cubin, cuda_check.cuda_kernel_name(src)),
                        cuda_check.push_align(src, 16), cuda_check.launch_block(src, {}))
        progs[k] = ns[k].program()

    keys = cp.asarray(h)
    ka = cp.empty_like(keys)
    kb = cp.empty_like(keys)
    sb = cp.empty((swords,), cp.uint32)
    gave = cp.zeros((4,), cp.uint32)

    def launch(k, bufs, groups, **pv):
        lau, align, block = launchers[k]
        # cuda_check's packing; the guard's count (if the kernel has one) as
        # the runtime fills it for whole workgroups (these grids are one row)
        data = cuda_check.push_bytes(progs[k], pv, groups[0] * block)
        lau.launch([b.data.ptr for b in bufs], data, align, (groups[0], groups[1], 1),
                   (block, 1, 1))

    ev = [cp.cuda.Event() for _ in range(8)]
    times = {}
    for rep in range(a.reps + 1):
        ev[0].record()
        sb[:sto] = 0
        hg = grid(cpr)
        launch("ohist", (keys, sb), hg, n=n, cpr=cpr, nchunks=cpr, gx=hg[0], tpr=tpr,
               ntiles=ntiles, sto=sto)
        ev[1].record()
        g = grid(passes)
        launch("oscan", (sb,), g, count=passes, gx=g[0])
        ev[2].record()
        kin, kout = keys, ka
        tg = grid(ntiles)
        for p in range(passes):
            launch("onesweep", (kin, kout, sb, sb, sb, gave), tg, n=n, tpr=tpr, ntiles=ntiles,
                   pas=p, sh=8 * p, first=int(p == 0), sto=sto)
            ev[3 + p].record()
            kin, kout = kout, (kb if kout is ka else ka)
        ev[2 + passes].synchronize()
        if rep == 0:
            continue  # warm-up
        labels = ["fill+ohist", "oscan"] + [f"pass{p}" for p in range(passes)]
        for i, lb in enumerate(labels):
            times.setdefault(lb, []).append(cp.cuda.get_elapsed_time(ev[i], ev[i + 1]))
        times.setdefault("total", []).append(cp.cuda.get_elapsed_time(ev[0], ev[2 + passes]))
    ok = np.array_equal(cp.asnumpy(kin), want) and int(gave[0].get()) == 0
    print(f"cuda    result {'ok' if ok else 'WRONG'} (gave {int(gave[0].get())})")
    print("cuda    " + "  ".join(f"{lb} {statistics.median(v):.3f}" for lb, v in times.items()))
    ct = []
    for _ in range(a.reps + 1):
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        e0.record()
        cp.sort(keys)
        e1.record()
        e1.synchronize()
        ct.append(cp.cuda.get_elapsed_time(e0, e1))
    print(f"cupy    sort {statistics.median(ct[1:]):.3f} ms (events)")


if __name__ == "__main__":
    main()
