"""The printed-CUDA check: does the CUDA that VulPy prints compute what the
Vulkan run computes?

    python bench/cuda_check.py [--quick] [--json FILE] [--arch sm_90] [--keep DIR]

For every kernel of bench/kernels/*.vul.py (the seed's two kernels and test
kernels for float and integer math, atomics, shared memory with barriers, a
reduction and structs):
  1. compile it with VulPy (vp.compile: frontend -> VIR -> GLSL -> SPIR-V),
     take its CUDA translation (shader.cuda, the text `vulpy-translate
     --to=cuda` prints) and its manifest;
  2. run it through Vulkan on inputs drawn once (and check those results
     against NumPy where the spec has a reference);
  3. compile the CUDA with nvcc (-arch sm_90 on the H200), load the cubin with
     CuPy's RawModule and launch it on the same inputs: buffers as device
     pointers in binding order, the push-constant block by value (packed from
     the manifest's offsets, the dispatch guard's count filled in), through
     cuLaunchKernel's kernelParams (CudaLauncher says how);
  4. compare: bit-exact for integer outputs, |cuda - vulkan| <= tol * (1 +
     |vulkan|) for float outputs (TOLERANCE below, documented in
     bench/notes/cuda.md), and time one launch of each (CUDA events vs the
     Vulkan dispatch's GPU timestamps).
Where there is no nvcc or no CUDA GPU, it still does what it can (compile
only, or Vulkan only) and says which steps it skipped. Exit status 1 when
any comparison fails or a step errs.

bench/bench_cuda.py runs this as a suite (its records go into the results
file); the standalone form prints the table and can write JSON.
"""
import argparse
import ctypes
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
KERNELS = HERE / "kernels"

# Float outputs match when |cuda - vulkan| <= TOLERANCE * (1 + |vulkan|):
# VulPy's precise float32 math is within 4 ulp and CUDA's sinf/expf/... (no
# --use_fast_math) within 2-4 ulp, so one function differs by <= ~8 ulp
# (~1e-6 relative); the test expressions sum a few such terms of size O(1).
TOLERANCE = {"float32": 1e-5, "float64": 1e-12}


# ---------------------------------------------------------------- the cases

def _spec_float_math(n, rng):
    return dict(inputs={"x": rng.uniform(-2.0, 2.0, n).astype(np.float32),
                        "y": np.zeros(n, np.float32)},
                push={}, dispatch=n, outputs=["y"])


def _spec_int_math(n, rng):
    a = rng.integers(-(1 << 30), 1 << 30, n, dtype=np.int64).astype(np.int32)
    b = rng.integers(-1000, 1000, n, dtype=np.int64).astype(np.int32)
    b[b == 0] = 7
    x = a.view(np.uint32).astype(np.uint64)
    x = (x * 2654435761) & 0xFFFFFFFF
    x ^= x >> 15
    x = ((x << 3) | (x >> 29)) & 0xFFFFFFFF
    h = ((x + np.arange(n, dtype=np.uint64)) & 0xFFFFFFFF).astype(np.uint32)
    return dict(inputs={"a": a, "b": b, "h": np.zeros(n, np.uint32),
                        "q": np.zeros(n, np.int32), "r": np.zeros(n, np.int32)},
                push={}, dispatch=n, outputs=["h", "q", "r"],
                reference={"h": h, "q": (a // b).astype(np.int32), "r": (a % b).astype(np.int32)})


def _spec_atomics(n, rng):
    d = rng.integers(0, 1 << 31, n, dtype=np.int64).astype(np.uint32)
    want = np.zeros(65, np.uint32)
    want[:64] = np.bincount(d % 64, minlength=64)
    want[64] = d.max()
    return dict(inputs={"data": d, "hist": np.zeros(65, np.uint32)}, push={}, dispatch=n,
                outputs=["hist"], reference={"hist": want})


def _spec_shared_reduce(n, rng):
    n -= n % 256
    x = rng.integers(0, 1000, n, dtype=np.int64).astype(np.uint32)
    part = x.reshape(-1, 256).sum(axis=1, dtype=np.uint64).astype(np.uint32)
    return dict(inputs={"x": x, "partial": np.zeros(n // 256, np.uint32),
                        "total": np.zeros(1, np.uint32)},
                push={}, dispatch=n, outputs=["partial", "total"],
                reference={"partial": part,
                           "total": np.array([int(x.sum(dtype=np.uint64)) & 0xFFFFFFFF],
                                             np.uint32)})


def _spec_structs(n, rng, shader=None):
    dt = shader.dtype("p")
    p = np.zeros(n, dt)
    p["pos"] = rng.uniform(-1, 1, (n, 3))
    p["vel"] = rng.uniform(-1, 1, (n, 3))
    p["mass"] = rng.uniform(0.5, 2.0, n)
    p["id"] = np.arange(n, dtype=np.uint32)
    return dict(inputs={"p": p}, push={"dt": 0.01, "g": 9.81}, dispatch=n, outputs=["p"])


def _spec_seed_my_kernel(n, rng):
    pos = rng.uniform(-1, 1, n)
    vel = rng.uniform(-1, 1, n)
    dt = np.float32(0.001)
    return dict(inputs={"pos": pos, "vel": vel}, push={"N": n, "dt": float(dt)}, dispatch=n,
                outputs=["pos"], reference={"pos": pos + vel * np.float64(dt)})


def _spec_seed_push_particles(n, rng):
    pos = rng.uniform(-1, 1, (n, 4)).astype(np.float32)
    vel = rng.uniform(-1, 1, (n, 4)).astype(np.float32)
    want = pos.copy()
    want[:, :3] = pos[:, :3] + vel[:, :3] * np.float32(0.001)
    return dict(inputs={"pos": pos.reshape(-1), "vel": vel.reshape(-1)},
                push={"n": n, "dt": 0.001}, dispatch=n, outputs=["pos"],
                reference={"pos": want.reshape(-1)})


def _spec_sinexp(n, rng):
    x = np.linspace(0.0, 1.0, n, dtype=np.float32)
    return dict(inputs={"x": x, "y": np.zeros(n, np.float32)}, push={}, dispatch=n,
                outputs=["y"], reference={"y": np.sin(x) + np.exp(x)})


SPECS = {"float_math": _spec_float_math, "int_math": _spec_int_math,
         "atomics": _spec_atomics, "shared_reduce": _spec_shared_reduce,
         "structs": _spec_structs, "seed_my_kernel": _spec_seed_my_kernel,
         "seed_push_particles": _spec_seed_push_particles, "sinexp": _spec_sinexp}


# ---------------------------------------------------------------- helpers

def compare(name, got, want, kind_hint=None):
    """(ok, detail) of one output: bit-exact for integers, TOLERANCE for
    floats; struct arrays field by field."""
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape or got.dtype != want.dtype:
        return False, f"{name}: shape/dtype {got.shape} {got.dtype} vs {want.shape} {want.dtype}"
    if want.dtype.names:
        worst = 0.0
        for f in want.dtype.names:
            ok, det = compare(f"{name}.{f}", got[f], want[f])
            if not ok:
                return ok, det
            m = re.search(r"max rel ([0-9.e+-]+)", det)
            worst = max(worst, float(m.group(1)) if m else 0.0)
        return True, f"{name}: struct fields match (max rel {worst:.3g})"
    if want.dtype.kind in "iub":
        bad = np.flatnonzero(got.ravel() != want.ravel())
        if bad.size:
            i = bad[0]
            return False, (f"{name}: {bad.size} of {want.size} differ (bit-exact); first "
                           f"[{i}] {got.ravel()[i]} vs {want.ravel()[i]}")
        return True, f"{name}: bit-exact"
    tol = TOLERANCE.get(want.dtype.base.name, 1e-5)
    g = got.astype(np.float64).ravel()
    w = want.astype(np.float64).ravel()
    err = np.abs(g - w)
    lim = tol * (1.0 + np.abs(w))
    bad = np.flatnonzero(~(err <= lim))
    rel = float(np.max(err / (1.0 + np.abs(w)))) if err.size else 0.0
    if bad.size:
        i = bad[0]
        return False, (f"{name}: {bad.size} of {w.size} beyond tol {tol:g}; first [{i}] "
                       f"{g[i]!r} vs {w[i]!r}")
    return True, f"{name}: within tol {tol:g} (max rel {rel:.3g})"


def push_bytes(prog, values, dispatch):
    """The push-constant block as the kernel sees it: the values packed by
    VulPy's own packer, then the dispatch guard's count (the runtime fills
    it on Vulkan; here we do)."""
    man = prog.manifest
    data = bytearray(prog.packer.pack(values) or b"")
    size = man.get("push_size") or len(data)
    data.extend(b"\0" * (size - len(data)))
    guard = man.get("dispatch_guard")
    if guard:
        f = next(f for f in man["push"] if f["name"] == guard)
        struct.pack_into("<3I", data, f["offset"], dispatch, 1, 1)
    return bytes(data)


def cuda_kernel_name(src):
    m = re.search(r'extern\s+"C"\s+__global__\s+(?:__launch_bounds__\([^)]*\)\s+)?void\s+(\w+)\s*\(',
                  src)
    return m.group(1) if m else None


def push_align(src, size):
    """The alignment of the push struct: from the CUDA text's __align__(N),
    else 16 (std430's largest for 4-byte vectors)."""
    m = re.search(r"Push constants[^\n]*\n\s*struct\s+__align__\((\d+)\)", src)
    return int(m.group(1)) if m else (16 if size >= 16 else 4)


def launch_block(src, manifest):
    """blockDim.x: the CUDA text's "Launch with blockDim = (X, 1, 1)", else
    the manifest's local size."""
    m = re.search(r"blockDim = \((\d+), 1, 1\)", src)
    if m:
        return int(m.group(1))
    return int((manifest.get("local_size") or (64, 1, 1))[0])


def find_nvcc():
    for c in (os.environ.get("NVCC"), shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc"):
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def nvcc_compile(nvcc, src, out_dir, name, arch):
    cu = Path(out_dir) / f"{name}.cu"
    cubin = Path(out_dir) / f"{name}.cubin"
    cu.write_text(src)
    cmd = [nvcc, f"-arch={arch}", "-cubin", "-O3", "-lineinfo", "-o", str(cubin), str(cu)]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        return None, dt, (p.stderr or p.stdout)[-1500:]
    return cubin, dt, (p.stderr or "").strip()[-300:]


def kernel_params(ptrs, push, align):
    """cuLaunchKernel's kernelParams for pointers + one struct by value: an
    array of addresses, one per parameter, each pointing at that parameter's
    value (the driver reads each one's size and offset from the cubin, so no
    layout is guessed here). Returns (the array, what must stay alive while
    it is used)."""
    keep = [ctypes.c_uint64(p) for p in ptrs]
    if push:
        # sizeof the struct is a multiple of its alignment (std430 may end earlier)
        data = bytes(push) + b"\0" * ((-len(push)) % align)
        keep.append(ctypes.create_string_buffer(data, len(data)))
    arr = (ctypes.c_void_p * max(1, len(keep)))(*[ctypes.addressof(k) for k in keep])
    return arr, keep


def function_pointer(kernel):
    """The CUfunction of what RawModule.get_function returned: a RawKernel
    (CuPy >= 8: its `.kernel` is the loaded cupy.cuda.Function) or a
    Function (older CuPy); None when neither has a pointer."""
    fn = getattr(kernel, "kernel", kernel)
    ptr = getattr(fn, "ptr", None)
    return int(ptr) if ptr else None


class CudaLauncher:
    """Launches a kernel of a cubin with pointers + one struct by value.

    The cubin is loaded with CuPy's RawModule(path=...) and the kernel taken
    with get_function(name). The launch goes through cuLaunchKernel with
    kernelParams (cupy.cuda.driver.launchKernel; the function pointer from
    the RawKernel's loaded Function): the driver takes each parameter's size
    from the cubin, so the by-value push struct needs no layout here. Where
    that is unavailable, the documented call kernel(grid, block, args) with
    the struct as a NumPy void scalar. `how` names the path that worked."""

    def __init__(self, cp, cubin, name):
        self.cp = cp
        self.mod = cp.RawModule(path=str(cubin))
        self.kernel = self.mod.get_function(name)
        self.how = None
        self._keep = None

    def _driver(self, ptrs, push, align, grid, block):
        f = function_pointer(self.kernel)
        if f is None:
            raise AttributeError(f"no CUfunction pointer on {type(self.kernel).__name__}")
        params, keep = kernel_params(ptrs, push, align)
        stream = self.cp.cuda.get_current_stream()
        self.cp.cuda.driver.launchKernel(f, grid[0], grid[1], grid[2], block[0], block[1],
                                         block[2], 0, stream.ptr, ctypes.addressof(params), 0)
        self._keep = (params, keep)  # until the next launch: the driver copied them already

    def _documented(self, ptrs, push, align, grid, block):
        args = [np.uint64(p) for p in ptrs]
        if push:
            data = bytes(push) + b"\0" * ((-len(push)) % align)
            args.append(np.frombuffer(data, np.dtype((np.void, len(data))))[0])
        self.kernel(tuple(grid), tuple(block), tuple(args))

    def launch(self, ptrs, push, align, grid, block):
        if self.how == "documented":
            return self._documented(ptrs, push, align, grid, block)
        try:
            self._driver(ptrs, push, align, grid, block)
            self.how = "cuLaunchKernel(kernelParams)"
        except (AttributeError, TypeError) as e:
            if self.how is not None:
                raise
            try:
                self._documented(ptrs, push, align, grid, block)
            except Exception as e2:  # noqa: BLE001
                raise RuntimeError(f"cuLaunchKernel path: {type(e).__name__}: {e}; documented "
                                   f"call: {type(e2).__name__}: {e2}") from e2
            self.how = "documented"


# ---------------------------------------------------------------- the check

def check_all(quick=False, arch="sm_90", keep=None, log=print, only=None):
    """Runs every kernel; returns a list of result dicts."""
    results = []
    try:
        sys.path.insert(0, str(HERE.parent / "bindings" / "python"))
        import vulpy as vp
        ctx = vp.default_context()
        device = ctx.name
    except Exception as e:  # noqa: BLE001
        log(f"cuda_check: VulPy unusable here ({type(e).__name__}: {e}); nothing to check")
        return [dict(kernel="*", status="skipped", detail=f"vulpy unusable: {e}"[:300])]
    nvcc = find_nvcc()
    cp = None
    gpu_note = ""
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() > 0:
            cp = cupy
            gpu_note = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    except Exception as e:  # noqa: BLE001
        gpu_note = f"no CUDA GPU ({type(e).__name__})"
    log(f"cuda_check: Vulkan device {device}; nvcc {nvcc or 'not found'}; CUDA: "
        f"{gpu_note or 'no CuPy'}")
    work = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="vulpy-cuda-"))
    work.mkdir(parents=True, exist_ok=True)
    cpu = ctx.kind == "cpu"
    rng = np.random.default_rng(2026)

    for path in sorted(KERNELS.glob("*.vul.py")):
        name = path.name[:-len(".vul.py")]
        if only and name not in only:
            continue
        spec_fn = SPECS.get(name)
        res = dict(kernel=name, status="ok", steps=[])
        results.append(res)
        if spec_fn is None:
            res.update(status="error", detail="no spec in cuda_check.SPECS")
            continue
        try:
            sh = vp.compile(str(path))
        except Exception as e:  # noqa: BLE001
            res.update(status="skipped" if type(e).__name__ in ("NotImplementedError",)
                       else "error", detail=f"vp.compile: {type(e).__name__}: {e}"[:600])
            log(f"  {name:<22} {res['status']}: {res['detail'][:200]}")
            continue
        big = name == "sinexp"
        n = (1 << 16 if cpu or quick else 1 << 24) if big else (4096 if cpu else 1 << 16)
        try:
            spec = spec_fn(n, rng, shader=sh) if name == "structs" else spec_fn(n, rng)
        except Exception as e:  # noqa: BLE001 - one broken spec must not hide the others
            res.update(status="error", detail=f"inputs: {type(e).__name__}: {e}"[:600])
            log(f"  {name:<22} error: {res['detail'][:200]}")
            continue
        n = spec["dispatch"]
        prog = sh._prog

        # -- CUDA source
        try:
            src = sh.cuda
        except Exception as e:  # noqa: BLE001
            res.update(status="skipped" if type(e).__name__ == "NotImplementedError" else "error",
                       detail=f"CUDA translation: {type(e).__name__}: {e}"[:600])
            log(f"  {name:<22} {res['status']}: {res['detail'][:200]}")
            continue
        (work / f"{name}.cu").write_text(src)
        kname = cuda_kernel_name(src)

        # -- Vulkan run
        try:
            for bname, arr in spec["inputs"].items():
                sh.upload(bname, arr)
            sh.run(dispatch=n, **spec["push"])
            vk_out = {o: sh.download(o) for o in spec["outputs"]}
        except Exception as e:  # noqa: BLE001
            res.update(status="error", detail=f"Vulkan run: {type(e).__name__}: {e}"[:600])
            log(f"  {name:<22} error: {res['detail'][:200]}")
            continue
        for o, want in spec.get("reference", {}).items():
            ok, det = compare(o, vk_out[o], want)
            res["steps"].append(f"vulkan vs numpy {det}")
            if not ok:
                res.update(status="mismatch", detail=f"Vulkan vs NumPy: {det}")
        if res["status"] != "ok":
            log(f"  {name:<22} MISMATCH: {res['detail'][:200]}")
            continue
        try:  # GPU time of one Vulkan dispatch (timestamps)
            nk = prog.native(ctx)
            bufs = [sh.buffer(b).buffer for b in sh.buffer_names]
            data = prog.packer.pack(spec["push"])
            vt = sorted(nk.dispatch_timed(bufs, data, n, 1, 1, False) for _ in range(7))
            res["vulkan_us"] = vt[3] * 1e-3
        except Exception as e:  # noqa: BLE001
            res["steps"].append(f"vulkan timing unavailable: {e}")

        # -- nvcc
        if nvcc is None:
            res.update(status="compile-skipped", detail="no nvcc here: CUDA not compiled or run")
            log(f"  {name:<22} vulkan ok; no nvcc: CUDA not compiled")
            continue
        cubin, ct, msg = nvcc_compile(nvcc, src, work, name, arch)
        res["nvcc_s"] = round(ct, 3)
        if cubin is None:
            res.update(status="error", detail=f"nvcc failed: {msg}")
            log(f"  {name:<22} NVCC FAILED: {msg[:300]}")
            continue
        if cp is None:
            res.update(status="run-skipped", detail="compiled with nvcc; no CUDA GPU to run it")
            log(f"  {name:<22} compiled; no CUDA GPU: not run")
            continue

        # -- CUDA run on the same inputs
        try:
            launcher = CudaLauncher(cp, cubin, kname)
            dev = {b: cp.asarray(np.ascontiguousarray(spec["inputs"][b]).view(np.uint8))
                   for b in sh.buffer_names}
            ptrs = [dev[b].data.ptr for b in sh.buffer_names]
            push = push_bytes(prog, spec["push"], n)
            lx = launch_block(src, prog.manifest)
            grid = ((n + lx - 1) // lx, 1, 1)
            launcher.launch(ptrs, push, push_align(src, len(push)), grid, (lx, 1, 1))
            cp.cuda.get_current_stream().synchronize()
            res["steps"].append(f"cuda launched through {launcher.how}")
            cu_out = {o: cp.asnumpy(dev[o]).view(vk_out[o].dtype).reshape(vk_out[o].shape)
                      for o in spec["outputs"]}
        except Exception as e:  # noqa: BLE001
            res.update(status="error", detail=f"CUDA run: {type(e).__name__}: {e}"[:600])
            log(f"  {name:<22} CUDA RUN FAILED: {res['detail'][:300]}")
            continue
        for o in spec["outputs"]:
            ok, det = compare(o, cu_out[o], vk_out[o])
            res["steps"].append(f"cuda vs vulkan {det}")
            if not ok:
                res.update(status="mismatch", detail=f"CUDA vs Vulkan: {det}")
        # -- time one launch (on fresh copies of the inputs; results unused)
        try:
            s, e = cp.cuda.Event(), cp.cuda.Event()
            ts = []
            for _ in range(7):
                s.record()
                launcher.launch(ptrs, push, push_align(src, len(push)), grid, (lx, 1, 1))
                e.record()
                e.synchronize()
                ts.append(cp.cuda.get_elapsed_time(s, e) * 1e3)
            res["cuda_us"] = sorted(ts)[3]
        except Exception as ex:  # noqa: BLE001
            res["steps"].append(f"cuda timing failed: {ex}")
        res["n"] = n
        vt, ctm = res.get("vulkan_us"), res.get("cuda_us")
        tail = f" cuda {ctm:.1f} us vs vulkan {vt:.1f} us" if vt and ctm else ""
        log(f"  {name:<22} {res['status'].upper() if res['status'] != 'ok' else 'match'}:"
            f" {'; '.join(s for s in res['steps'] if s.startswith('cuda'))[:200]}{tail}")
    if not keep:
        shutil.rmtree(work, ignore_errors=True)
    return results


def records(results, device):
    """The results as bench/run.py records (suite 'cuda')."""
    out = []
    for r in results:
        base = dict(suite="cuda", case=f"printed CUDA: {r['kernel']}", size=r.get("n", 0),
                    device=device, p10=None, p90=None, status=r["status"],
                    detail="; ".join(r.get("steps", [])) or r.get("detail", ""))
        if r["status"] in ("mismatch", "error"):
            out.append(dict(base, backend="cuda vs vulkan", median=None, unit="",
                            error=f"{r['status']}: {r.get('detail', '')}"))
            continue
        if r["status"] != "ok":
            out.append(dict(base, backend="cuda vs vulkan", median=None, unit="",
                            skipped=r.get("detail", r["status"])))
            continue
        out.append(dict(base, backend="cuda vs vulkan", median=1.0, unit="match"))
        if r.get("cuda_us") is not None:
            out.append(dict(base, backend="cuda (nvcc)", median=r["cuda_us"], unit="us"))
        if r.get("vulkan_us") is not None:
            out.append(dict(base, backend="vulkan (vulpy)", median=r["vulkan_us"], unit="us"))
        if r.get("cuda_us") and r.get("vulkan_us"):
            out.append(dict(base, backend="ratio", median=r["vulkan_us"] / r["cuda_us"],
                            unit="x (vulkan time / cuda time)"))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--arch", default=os.environ.get("CUDA_ARCH", "sm_90"))
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--keep", help="keep the .cu and .cubin files in this folder")
    ap.add_argument("--kernel", action="append", help="only these kernels")
    args = ap.parse_args(argv)
    res = check_all(args.quick, args.arch, args.keep, only=args.kernel)
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=1) + "\n")
    bad = [r for r in res if r["status"] in ("mismatch", "error")]
    print(f"cuda_check: {sum(r['status'] == 'ok' for r in res)} match, {len(bad)} failed, "
          f"{sum(r['status'] not in ('ok', 'mismatch', 'error') for r in res)} skipped")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
