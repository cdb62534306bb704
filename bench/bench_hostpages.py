"""Shared host pages (issue 18, docs/multidevice.md): device 0 writes an
array, device 1 reads it and NumPy sees it, through one vp.HostArray
imported into both contexts (no copy) against the staged path (device 0
writes its own memory, x.to(ctx1) copies it through the host, NumPy gets a
download).

Per size, each path's iteration is timed from device 0's write to device
1's read done ("write -> read", latency and the GB/s that makes of the
array's bytes), device 0's write alone (shared: into host pages, over the
bus on a discrete GPU; staged: into its own memory), the staged path's copy
alone (x.to, GB/s; the shared path has none), and NumPy's access after the
write (shared: h.numpy(), a wait and the same view; staged: x.numpy(), a
copy). Every
iteration's values are checked (device 1's result against NumPy).

Devices: device 0 is the default context; device 1 is the first other
usable device (on the H200 machine: lavapipe, the CPU device), else a
second context on the same device. Sizes: 1 and 16 MiB on a CPU device or
with --quick, else 16, 64 and 256 MiB, each only where both devices can
bind it (maxStorageBufferRange: 128 MiB on lavapipe).

    bash bench/device/suites.sh --suites hostpages         (the H200)
    python bench/run.py --suite hostpages --quick   (here, lavapipe: small)
"""
import time

import numpy as np

import benchlib


def _kernels(vp):
    @vp.kernel(local_size_x=256)
    def produce(x: vp.Buffer[vp.float32], n: vp.uint32, a: vp.float32):
        i = vp.global_id()
        if i < n:
            x[i] = vp.float32(i % 1024) * a

    @vp.kernel(local_size_x=256)
    def consume(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32], n: vp.uint32):
        i = vp.global_id()
        if i < n:
            y[i] = x[i] + 1.0

    return produce, consume


def _second(vp, c0):
    for d in vp.list_devices():
        if d.get("usable", True) and d["index"] != c0.index:
            return vp.Context(device_index=d["index"]), "another device"
    return vp.Context(device_index=c0.index), "a second context on the same device"


def _check(rec, case, label, backend, y, a, n):
    got = y.numpy()[:: max(1, n // 4096)]
    idx = np.arange(n)[:: max(1, n // 4096)]
    want = (idx % 1024).astype(np.float32) * np.float32(a) + np.float32(1)
    if not np.array_equal(got, want):
        rec.error(case, label, backend, f"device 1 read wrong values (a={a})")
        return False
    return True


def run(ctx):
    vp = benchlib.vulpy()
    from vulpy import _array  # x.to's two paths (_TO_PAGES_MIN)
    rec = benchlib.Recorder("hostpages", ctx.device_label)
    c0 = vp.default_context()
    c1, how = _second(vp, c0)
    cpu = c0.info.get("kind") == "cpu"
    devices = f"{c0.name} -> {c1.name} ({how})"
    produce, consume = _kernels(vp)
    sizes = [1 << 20, 16 << 20] if (ctx.quick or cpu) else [16 << 20, 64 << 20, 256 << 20]
    # one binding of a kernel may span at most maxStorageBufferRange (lavapipe: 128 MiB)
    most = min(c.info["limits"]["max_storage_buffer_range"] or (1 << 62) for c in (c0, c1))
    reps = 3 if ctx.quick else 7
    for nbytes in sizes:
        n = nbytes // 4
        label = f"{nbytes >> 20} MiB"
        if nbytes > most:
            rec.skip("shared pages", label, devices,
                     f"past maxStorageBufferRange ({most >> 20} MiB) of a device")
            continue
        try:
            h = vp.HostArray(n, np.float32)
            xa, xb = h.on(c0), h.on(c1)
            if not (h.shared_with(c0) and h.shared_with(c1)):
                rec.skip("shared pages", label, devices, "a device could not import the pages")
                continue
            y1 = vp.zeros(n, np.float32, context=c1)
            d0 = vp.zeros(n, np.float32, context=c0)   # device 0's own memory (staged)
            lat = {"shared": [], "staged": []}
            write = {"shared": [], "staged": []}
            copy = []
            npy = {"shared": [], "staged": []}
            copy_np = []
            ok = True
            for r in range(reps + 1):  # the first round warms up (compiles, faults pages in)
                a = float(r % 7 + 1)
                # shared: A writes the pages, B reads them after a host wait, NumPy views them
                t0 = time.perf_counter_ns()
                hw = produce(xa, dispatch=n, n=n, a=a, sync=False)
                hw.wait()
                t1 = time.perf_counter_ns()
                consume(xb, y1, dispatch=n, n=n)
                t2 = time.perf_counter_ns()
                v = h.numpy()
                t3 = time.perf_counter_ns()
                ok = ok and _check(rec, "shared pages", label, "shared", y1, a, n)
                ok = ok and float(v[n - 1]) == ((n - 1) % 1024) * a
                if r:
                    lat["shared"].append(t2 - t0)
                    write["shared"].append(t1 - t0)
                    npy["shared"].append(t3 - t2)
                # staged: A writes its own memory, x.to copies it to B, NumPy downloads
                t0 = time.perf_counter_ns()
                produce(d0, dispatch=n, n=n, a=a)
                t1 = time.perf_counter_ns()
                x1 = d0.to(c1)
                t2 = time.perf_counter_ns()
                consume(x1, y1, dispatch=n, n=n)
                t3 = time.perf_counter_ns()
                host = d0.numpy()
                t4 = time.perf_counter_ns()
                ok = ok and _check(rec, "staged copy", label, "staged", y1, a, n)
                ok = ok and float(host[n - 1]) == ((n - 1) % 1024) * a
                del x1
                # x.to through NumPy (a download, an upload), for the same data:
                # the path x.to takes below _TO_PAGES_MIN or without imports
                _array._TO_PAGES_MIN, keep = 1 << 62, _array._TO_PAGES_MIN
                try:
                    t5 = time.perf_counter_ns()
                    x2 = d0.to(c1)
                    t6 = time.perf_counter_ns()
                finally:
                    _array._TO_PAGES_MIN = keep
                consume(x2, y1, dispatch=n, n=n)
                ok = ok and _check(rec, "staged copy", label, "x.to via NumPy", y1, a, n)
                del x2
                if r:
                    copy_np.append(t6 - t5)
                    lat["staged"].append(t3 - t0)
                    write["staged"].append(t1 - t0)
                    copy.append(t2 - t1)
                    npy["staged"].append(t4 - t3)
                if not ok:
                    break
            if not ok:
                continue
            for path, backend in (("shared", "shared pages (vp.HostArray)"),
                                  ("staged", "staged copy (x.to, x.numpy)")):
                rec.add("dev0 write -> dev1 read: latency", label, backend, lat[path], "ms",
                        scale=1e-6, devices=devices)
                rec.add("dev0 write -> dev1 read: GB/s", label, backend, lat[path], "GB/s",
                        scale=float(nbytes), inverse=True, devices=devices)
                rec.add("dev0 write", label, backend, write[path], "ms", scale=1e-6,
                        devices=devices)
                rec.add("NumPy access after dev0's write", label, backend, npy[path], "us",
                        scale=1e-3, devices=devices)
            rec.add("staged hand-off dev0 -> dev1 (x.to)", label, "staged copy", copy, "GB/s",
                    scale=float(nbytes), inverse=True, devices=devices,
                    path="pages" if nbytes >= _array._TO_PAGES_MIN else "numpy")
            rec.add("staged hand-off dev0 -> dev1 (x.to)", label, "x.to via NumPy", copy_np,
                    "GB/s", scale=float(nbytes), inverse=True, devices=devices)
            rec.ratio("write -> read: shared speed-up over staged", label, lat["shared"],
                      lat["staged"], higher_is_better=True, devices=devices)
            del h, xa, xb, y1, d0
        except Exception as e:  # noqa: BLE001 - a record, and the run goes on
            rec.error("shared pages", label, devices, repr(e))
    return rec.records
