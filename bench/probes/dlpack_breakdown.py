"""Where the time of `cupy.from_dlpack(x)` / `torch.from_dlpack(x)` of an
exportable VulPy array goes, part by part and size by size (issue 18's
goal: the exchange time independent of the size; the dlpack suite measured
60 us at 16 MiB and 126 us at 1 GiB with CuPy, 109 and 190 us with
PyTorch, bench/notes/dlpack.md).

On the H200, in a second run call right after `bash bench/device/suites.sh
--suites dlpack` (which installs the wheel into /tmp/site; the machine,
kept warm, keeps it; a few minutes: the old-bench state downloads 1 GiB
before each timed call):

  run(command="PYTHONPATH=/tmp/site python3 bench/probes/dlpack_breakdown.py",
      carry=[".gl", ".whl"])

(if device.sh logged "no Vulkan driver found by default", prefix
VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json).

Here (no CUDA) it prints why it cannot run and exits 0.

Per size (--sizes, MiB; default 16 64 256 1024), best (min) and median of
--reps timed calls (wall clock, perf_counter_ns), each part timed on its
own, in three states of the machine before every timed call:
- steady: nothing ran since the last call (back to back);
- vk-write: VulPy filled the whole array and synchronized (the GPU idle,
  the last writer Vulkan);
- bench: what the dlpack suite does between its timed calls: CUDA doubled
  the array in place and synchronized, VulPy downloaded three 16 KiB
  stretches of it, added 1 and synchronized, filled it and synchronized;
- old-bench: the same with the whole-array download (x.numpy()) the suite
  made until wave 9;
- host-pass: the GPU idle, the host copied a NumPy array of the same size
  (its caches then hold none of the interpreter's working set).
If old-bench and host-pass scale with the size while steady, vk-write and
bench do not, the size dependence the suite measured was the host's caches
after its own 1 GiB check, not the exchange.
The parts:
  dlpack_device      x.__dlpack_device__()
  interop            vulpy._cuda.interop(ctx) (cached probe)
  cuda_import        the buffer's CUDA mapping (cached after the first)
  sync point         ctx.synchronize() with nothing pending
  capsule            the kDLCUDA capsule from the cached mapping
  __dlpack__         x.__dlpack__(stream=1, max_version=(1, 0)): the four above
  cupy(capsule)      cupy.from_dlpack of a capsule made before the clock
  torch(capsule)     torch.utils.dlpack.from_dlpack of a capsule made before
  ptr attributes     cudaPointerGetAttributes of the imported pointer (what
                     PyTorch's from_dlpack asks CUDA for the device)
  cupy.from_dlpack   the whole call, as the suite times it
  torch.from_dlpack  the whole call
  control cupy<-torch, control torch<-cupy: the same exchange between the
                     two CUDA libraries on their own (cudaMalloc) memory of
                     the same size: what "constant" looks like on this machine.
Rows of an absent library (no cupy, no torch, or one without a CUDA
device), and a row whose first (untimed) call raises, are left out with a
note saying why. The last table is, per part and state, t(largest) / t(smallest) of the
best and of the median: a part whose ratio is well above 1 is what scales.
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
from vulpy import _array, _cuda, _native  # noqa: E402


def _opt(name):
    try:
        mod = __import__(name)
        if name == "cupy":
            mod.cuda.runtime.getDeviceCount()
        elif not mod.cuda.is_available():
            return None
        return mod
    except Exception:  # noqa: BLE001 - absent or without a CUDA device
        return None


def _time(fn, prep, reps):
    """ns of fn() per rep, prep() run untimed before each."""
    out = []
    for _ in range(reps):
        prep()
        t0 = time.perf_counter_ns()
        r = fn()
        out.append(time.perf_counter_ns() - t0)
        del r
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[16, 64, 256, 1024], help="MiB")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--states", nargs="+",
                    default=["steady", "vk-write", "bench", "old-bench", "host-pass"])
    args = ap.parse_args()
    ctx = vp.default_context()
    info = vp.cuda_interop(ctx)
    if not info["available"]:
        print(f"dlpack_breakdown: CUDA export unavailable here ({info['reason']}); nothing to do")
        return 0
    cp, torch = _opt("cupy"), _opt("torch")
    print(f"device {ctx.name}; CUDA device {info['cuda_device']}; "
          f"cupy {getattr(cp, '__version__', 'absent')}; torch {getattr(torch, '__version__', 'absent')}")
    ext = _native.ext()
    uuid = ctx.info["device_uuid"]
    dev = info["cuda_device"]
    for name, mod, rows in (("cupy", cp, "cupy(capsule), ptr attributes, cupy.from_dlpack, "
                                          "control cupy<-torch, control torch<-cupy"),
                            ("torch", torch, "torch(capsule), torch.from_dlpack, "
                                             "control cupy<-torch, control torch<-cupy")):
        if mod is None:
            print(f"note: {name} absent (or without a CUDA device): rows {rows} skipped")
    table = {}  # (state, part) -> {MiB: samples}
    failed = {}  # part -> why its first call raised (the row is left out)
    for mib in args.sizes:
        n = (mib << 20) // 4
        x = vp.empty(n, np.float32, exportable=True)
        x[...] = np.float32(1)
        ctx.synchronize()
        t0 = time.perf_counter_ns()
        m = ext.cuda_import(x._buf, uuid)
        print(f"{mib} MiB: first import {(time.perf_counter_ns() - t0) / 1e3:.1f} us "
              f"(pointer {m.pointer:#x})")
        step = max(1, n // 4096)
        ct = cp.from_dlpack(x) if cp is not None else None      # CUDA's views, for the
        tt = torch.from_dlpack(x) if torch is not None else None  # bench state's writes
        ctl_t = torch.empty(n, dtype=torch.float32, device=f"cuda:{dev}") if torch else None
        ctl_c = cp.empty(n, cp.float32) if cp is not None else None
        val = [1.0]

        def vk_write():
            val[0] += 1.0
            x[...] = np.float32(val[0])
            ctx.synchronize()

        def bench_state(whole=False):
            if ct is not None:
                ct.__imul__(2)
                cp.cuda.Device().synchronize()
            elif tt is not None:
                tt.mul_(2)
                torch.cuda.synchronize()
            if whole:
                _ = x.numpy()[::step]
            else:
                k = min(4096, n)
                _ = (x[:k].numpy(), x[n // 2:n // 2 + k].numpy(), x[n - k:].numpy())
            x.__iadd__(1.0)
            ctx.synchronize()
            vk_write()

        hsrc = np.ones(n, np.float32)
        hdst = np.empty_like(hsrc)

        def host_pass():
            np.copyto(hdst, hsrc)

        states = {"steady": lambda: None, "vk-write": vk_write, "bench": bench_state,
                  "old-bench": lambda: bench_state(True), "host-pass": host_pass}
        parts = {
            "dlpack_device": lambda: x.__dlpack_device__(),
            "interop": lambda: _cuda.interop(ctx),
            "cuda_import": lambda: ext.cuda_import(x._buf, uuid),
            "sync point": lambda: ctx.synchronize(),
            "capsule": lambda: _array._dlpack_cuda(x, m.pointer, (x, m), True, dev),
            "__dlpack__": lambda: x.__dlpack__(stream=1, max_version=(1, 0)),
        }
        pre = {}  # parts whose input (a fresh capsule) is made untimed
        if cp is not None:
            parts["ptr attributes"] = lambda: cp.cuda.runtime.pointerGetAttributes(m.pointer)
            parts["cupy(capsule)"] = lambda: cp.from_dlpack(pre["cupy"])
            parts["cupy.from_dlpack"] = lambda: cp.from_dlpack(x)
            if torch is not None:
                parts["control cupy<-torch"] = lambda: cp.from_dlpack(ctl_t)
        if torch is not None:
            parts["torch(capsule)"] = lambda: torch.utils.dlpack.from_dlpack(pre["torch"])
            parts["torch.from_dlpack"] = lambda: torch.from_dlpack(x)
            if cp is not None:
                parts["control torch<-cupy"] = lambda: torch.from_dlpack(ctl_c)
        for sname in args.states:
            state = states[sname]
            for pname, fn in parts.items():
                if pname in failed:
                    continue

                def prep(state=state, pname=pname):
                    state()
                    # a capsule is consumed by the call that takes it: a
                    # fresh one before every call, the untimed first too
                    # (unversioned: the bare-capsule form every CuPy and
                    # PyTorch version takes)
                    if pname == "cupy(capsule)":
                        pre["cupy"] = x.__dlpack__(stream=1)
                    elif pname == "torch(capsule)":
                        pre["torch"] = x.__dlpack__(stream=1)
                try:
                    prep()
                    fn()  # once untimed (first-call costs of the library)
                except Exception as e:  # noqa: BLE001 - a library that refuses: skip the row
                    failed[pname] = f"{type(e).__name__}: {e}"
                    print(f"{mib} MiB: row '{pname}' skipped: {failed[pname]}")
                    continue
                table.setdefault((sname, pname), {})[mib] = _time(fn, prep, args.reps)
        got = np.asarray(x.numpy()[::step])
        if ct is not None:
            ok = np.array_equal(cp.asnumpy(ct[::step]), got)
            print(f"{mib} MiB: CuPy's view equals VulPy's bytes: {ok}")
        del ct, tt, ctl_t, ctl_c, pre, parts, m, x, hsrc, hdst
    sizes = args.sizes
    hdr = "state     part                  " + "".join(f"{s:>9} MiB min/med" for s in sizes)
    print("\ntimes in us (min / median of %d)" % args.reps)
    print(hdr)
    for (sname, pname), per in table.items():
        cells = "".join(f"{min(per[s]) / 1e3:>9.1f} /{statistics.median(per[s]) / 1e3:>8.1f}"
                        if s in per else f"{'-':>9} /{'-':>8}" for s in sizes)
        print(f"{sname:<9} {pname:<21} {cells}")
    lo, hi = sizes[0], sizes[-1]
    print(f"\nt({hi} MiB) / t({lo} MiB): min, median   ('<<' marks a median ratio above 1.3 "
          f"with at least 10 us more)")
    for (sname, pname), per in table.items():
        if hi not in per or lo not in per:
            continue
        rmin = min(per[hi]) / max(1, min(per[lo]))
        mlo, mhi = statistics.median(per[lo]), statistics.median(per[hi])
        flag = "  <<" if mhi / max(1, mlo) > 1.3 and mhi - mlo > 10e3 else ""
        print(f"{sname:<9} {pname:<21} {rmin:6.2f} {mhi / max(1, mlo):6.2f}{flag}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
