"""DLPack to CUDA (issue 18, docs/multidevice.md "DLPack to CUDA"): a VulPy
array allocated with exportable=True handed to CuPy and PyTorch with
cupy.from_dlpack / torch.from_dlpack, no copy.

Per library present (each is skipped where it cannot be imported, and the
whole suite where vp.cuda_interop() says CUDA export is unavailable: no
libcuda, no CUDA device with the Vulkan device's UUID, no
VK_KHR_external_memory_fd) and per size (16 MiB and 1 GiB; --quick: 16
and 64 MiB): VulPy writes the array and waits, the library imports it (timed:
from_dlpack: VulPy's sync point, with no GPU work left to wait for, and the
CUDA import; the first import of a buffer is recorded apart), the
values are checked on the CUDA side; the library doubles it in place and
VulPy sees the doubled values (on three 16 KiB stretches: no whole-array
download right before the next timed call, _vp_sample); VulPy adds 1 and the library's tensor from
before sees it — the same bytes both ways, which a copy would not show; the
library's data pointer is the same before and after the writes. Records:
the import time per size and the ratio t(large) / t(16 MiB) with the goal
<= 2 (independent of the size: no copy; issue 18).

    bash bench/device/suites.sh --suites dlpack         (the H200, with CuPy/PyTorch there)
    python bench/run.py --suite dlpack --quick   (here: skipped, no CUDA)
"""
import time

import numpy as np

import benchlib


def _vp_sample(x, k=4096):
    """Three contiguous stretches of x (start, middle, end) downloaded from
    VulPy: the check that the library's writes are VulPy's bytes, without a
    whole-array download. x.numpy() of 1 GiB, as this suite did until wave 9,
    streams 1 GiB through the host's caches right before the timed call,
    which then runs its Python with cold caches: a cost that grows with the
    size, though nothing is copied (bench/probes/dlpack_breakdown.py, state
    'bench', measures it)."""
    n = x.shape[0]
    k = min(k, n)
    m = max(0, n // 2 - k // 2)
    return np.concatenate([x[:k].numpy(), x[m:m + k].numpy(), x[n - k:].numpy()])


def _lib_ops(name, mod):
    """from_dlpack, to_numpy (a sample), scale in place, sync, data pointer."""
    if name == "cupy":
        return (mod.from_dlpack, lambda t, s: mod.asnumpy(t[::s]),
                lambda t: t.__imul__(2), lambda: mod.cuda.Device().synchronize(),
                lambda t: int(t.data.ptr))
    return (mod.from_dlpack, lambda t, s: t[::s].cpu().numpy(), lambda t: t.mul_(2),
            lambda: mod.cuda.synchronize(), lambda t: int(t.data_ptr()))


def run(ctx):
    vp = benchlib.vulpy()
    rec = benchlib.Recorder("dlpack", ctx.device_label)
    c = vp.default_context()
    info = vp.cuda_interop(c)
    if not info["available"]:
        rec.skip("from_dlpack (no copy)", "", "cuda", f"CUDA export unavailable: "
                 f"{info['reason']}")
        return rec.records
    sizes = [16 << 20, 64 << 20] if ctx.quick else [16 << 20, 1 << 30]
    reps = 3 if ctx.quick else 7
    for name in ("cupy", "torch"):
        try:
            mod = benchlib.optional(name)
        except benchlib.Skip as e:
            rec.skip("from_dlpack (no copy)", "", name, str(e))
            continue
        from_dlpack, sample, scale, sync, ptr = _lib_ops(name, mod)
        times, first = {}, {}
        for nbytes in sizes:
            n = nbytes // 4
            label = f"{nbytes >> 20} MiB"
            step = max(1, n // 4096)
            try:
                x = vp.empty(n, np.float32, exportable=True)
                ts, ok = [], True
                for r in range(reps + 1):
                    x[...] = np.float32(r + 1)           # VulPy writes
                    c.synchronize()  # the timed call then waits for no GPU work
                    t0 = time.perf_counter_ns()
                    t = from_dlpack(x)                   # sync point + CUDA import
                    t1 = time.perf_counter_ns()
                    if r:
                        ts.append(t1 - t0)
                    else:  # the first export of this buffer maps its pages into CUDA
                        first[nbytes] = [t1 - t0]
                    p0 = ptr(t)
                    ok = ok and np.all(sample(t, step) == np.float32(r + 1))
                    scale(t)                             # the library writes in place
                    sync()
                    ok = ok and np.all(_vp_sample(x) == np.float32(2 * (r + 1)))
                    x += 1.0                             # VulPy writes again ...
                    c.synchronize()
                    ok = ok and np.all(sample(t, step) == np.float32(2 * (r + 1) + 1))
                    ok = ok and ptr(t) == p0             # ... the same bytes, same pointer
                    del t
                    if not ok:
                        rec.error("from_dlpack (no copy)", label, name,
                                  "values differ between VulPy and the library (a copy?)")
                        break
                if ok:
                    rec.add("from_dlpack (no copy)", label, name, ts, "us", scale=1e-3,
                            cuda_device=info["cuda_device"])
                    times[nbytes] = ts
                    rec.add("from_dlpack first import", label, name, first[nbytes], "us",
                            scale=1e-3, cuda_device=info["cuda_device"])
                del x
            except Exception as e:  # noqa: BLE001 - a record, and the run goes on
                rec.error("from_dlpack (no copy)", label, name, repr(e))
        if len(times) == 2:
            small, large = sizes
            g = rec.ratio(f"from_dlpack time {large >> 20} MiB / {small >> 20} MiB", "",
                          times[large], times[small], higher_is_better=False, library=name)
            if g is not None:
                g["goal"] = {"op": "<=", "target": 2.0, "issue": 18}
    return rec.records
