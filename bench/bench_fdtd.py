"""The 3-D Yee FDTD reference application (issue 17, examples/fdtd3d.py,
docs/fdtd.md): throughput in Gcells/s (one cell update = its E and its H),
float32, vacuum, a PEC box.

    bash bench/device/suites.sh --suites fdtd                 (the H200)
    .venv/bin/python bench/run.py --suite fdtd --quick  (here: small sizes)

Cases, each a wall-clock run of `steps` steps ending in a synchronize,
median of `reps`:
- Gcells/s at 256^3 and 512^3: VulPy stepped (two @vp.kernel dispatches a
  step, sync=False), VulPy persistent (the time loop in one dispatch), and
  in the same process CuPy: the NumPy-style array version (cupy slicing,
  fdtd3d.numpy_step on cupy arrays) and a RawKernel CUDA version with the
  same arithmetic and the same launch shape. Each is checked against VulPy
  stepped after the run (to 1e-4 of the peak: CUDA fuses a * b + c).
- 64^3 steps/s, persistent against stepped (launch-bound; goal >= 4x).
- Live streaming cost: persistent at 512^3 with a 512 x 512 slice of Ez and
  (step, energy) sent through a MemSock every 10 steps, with a consumer
  thread, against the same run sending nothing.
Lavapipe (or --quick) runs 24^3 / 32^3, 16^3 and 32^3 instead; CuPy rows
say why they are skipped where there is no CUDA.
"""
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import benchlib  # noqa: E402

CUDA = r'''
extern "C" __global__ void upd_h(const float* __restrict__ ex, const float* __restrict__ ey,
                                 const float* __restrict__ ez, float* __restrict__ hx,
                                 float* __restrict__ hy, float* __restrict__ hz,
                                 unsigned nx, unsigned ny, unsigned nz, float s) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  unsigned z = blockIdx.z;
  if (x >= nx - 1 || y >= ny - 1 || z >= nz - 1) return;
  size_t i = ((size_t)z * ny + y) * nx + x, sy = nx, sz = (size_t)nx * ny;
  float e_x = ex[i], e_y = ey[i], e_z = ez[i];
  hx[i] = hx[i] - s * ((ez[i + sy] - e_z) - (ey[i + sz] - e_y));
  hy[i] = hy[i] - s * ((ex[i + sz] - e_x) - (ez[i + 1] - e_z));
  hz[i] = hz[i] - s * ((ey[i + 1] - e_y) - (ex[i + sy] - e_x));
}

extern "C" __global__ void upd_e(float* __restrict__ ex, float* __restrict__ ey,
                                 float* __restrict__ ez, const float* __restrict__ hx,
                                 const float* __restrict__ hy, const float* __restrict__ hz,
                                 unsigned nx, unsigned ny, unsigned nz, float c) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  unsigned z = blockIdx.z;
  if (x >= nx || y >= ny || z >= nz) return;
  size_t i = ((size_t)z * ny + y) * nx + x, sy = nx, sz = (size_t)nx * ny;
  float h_x = hx[i], h_y = hy[i], h_z = hz[i];
  bool inx = x > 0 && x < nx - 1, iny = y > 0 && y < ny - 1, inz = z > 0 && z < nz - 1;
  if (x < nx - 1 && iny && inz) ex[i] = ex[i] + c * ((h_z - hz[i - sy]) - (h_y - hy[i - sz]));
  if (y < ny - 1 && inx && inz) ey[i] = ey[i] + c * ((h_x - hx[i - sz]) - (h_z - hz[i - 1]));
  if (z < nz - 1 && inx && iny) ez[i] = ez[i] + c * ((h_y - hy[i - 1]) - (h_x - hx[i - sy]));
}
'''


def _fd():
    sys.path.insert(0, str(HERE.parent / "examples"))
    import fdtd3d
    return fdtd3d


def _pulse(n):
    """A Gaussian pulse of Ez and Hy (float32, vacuum): something to move."""
    c = np.arange(n, dtype=np.float32) - np.float32(0.4 * n)
    g = np.exp(-(c[:, None, None] ** 2 + c[None, :, None] ** 2 + c[None, None, :] ** 2)
               / np.float32((0.1 * n) ** 2)).astype(np.float32)
    return {"ez": g, "hy": np.float32(0.3) * g}


def _record(case, size, backend, samples_s, per, unit, device, **extra):
    vals = sorted(per / t for t in samples_s)
    q = statistics.quantiles(vals, n=10) if len(vals) >= 10 else [vals[0]] * 9
    return dict(case=case, size=size, backend=backend, median=statistics.median(vals),
                p10=q[0], p90=q[-1], unit=unit, device=device, **extra)


def _timed(fn, reps):
    fn()  # warm up (compile, first touch)
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def _peak_err(got, want):
    peak = max(float(np.abs(want[k]).max()) for k in want)
    return max(float(np.abs(got[k] - want[k]).max()) for k in want) / max(peak, 1e-30)


def run(ctx):
    try:
        vp = benchlib.vulpy()
    except benchlib.Skip as e:
        return [dict(case="fdtd", size=0, backend="vulpy", skipped=str(e))]
    fd = _fd()
    dev = vp.default_context()
    device = dev.name
    small = ctx.quick or dev.info.get("driver_name") == "llvmpipe"
    reps = 3 if small else 5
    if small:
        sizes, steps_big = (24, 32), 10
        n_small, steps_small = 16, 100
        n_stream, steps_stream, every = 32, 40, 10
    else:
        sizes, steps_big = (256, 512), 100
        n_small, steps_small = 64, 2000
        n_stream, steps_stream, every = 512, 100, 10
    s = fd.S_DEFAULT
    # a Recorder's list: bench/run.py keeps what is in it if the suite's time
    # runs out; persistent runs wait with a timeout (a hung GPU loop is an
    # ERROR record, not a lost suite)
    records = benchlib.Recorder("fdtd", device).records
    limit = 60.0
    cp = None
    try:
        cp = optional_cupy()
    except benchlib.Skip as e:
        cp_skip = str(e)

    def sim(n):
        m = fd.Sim(n, s=s)
        m.set(_pulse(n))
        return m

    def persistent(m, steps):
        k, done = m.chunk(), 0
        while done < steps:           # one launch on a GPU; chunks on lavapipe
            m.launch(min(k, steps - done), first=done, timeout=limit)
            done += min(k, steps - done)

    # -- throughput at the two sizes
    for n in sizes:
        cells = n ** 3
        steps = steps_big
        ref = None
        per = {}
        for backend in ("vulpy stepped", "vulpy persistent"):
            try:
                m = sim(n)
                if backend == "vulpy stepped":
                    def go(m=m):
                        m.step(steps)
                        m.sync()
                else:
                    def go(m=m):
                        persistent(m, steps)
                samples = _timed(go, reps)
                rec = _record("Gcells/s", n, backend, samples, cells * steps / 1e9, "Gcells/s",
                              device, steps=steps)
                records.append(rec)
                per[backend] = rec["median"]
                got = m.get()
                if ref is None:
                    ref = got
                else:
                    err = _peak_err(got, ref)
                    # the same number of steps from the same start: the same bits
                    if err > 1e-5:
                        records.append(dict(case="Gcells/s", size=n, backend="check",
                                            error=f"{backend} differs from stepped by {err:.1e} "
                                                  f"of the peak", device=device))
                del m
            except Exception as e:  # noqa: BLE001 - a size the device cannot hold, ...
                records.append(dict(case="Gcells/s", size=n, backend=backend, device=device,
                                    error=f"{type(e).__name__}: {e}"[:300]))
        for backend in ("cupy slicing", "cupy RawKernel"):
            if cp is None:
                records.append(dict(case="Gcells/s", size=n, backend=backend, device=device,
                                    skipped=cp_skip))
                continue
            try:
                rec, got = _cupy(cp, fd, backend, n, steps, s, reps)
                rec["device"] = device
                records.append(rec)
                per[backend] = rec["median"]
                if ref is not None:
                    # _cupy returns the state after one fresh run of `steps`
                    want = _fresh_stepped(fd, n, steps, s, _pulse)
                    err = _peak_err(got, want)
                    if err > 1e-4:
                        records.append(dict(case="Gcells/s", size=n, backend="check",
                                            error=f"{backend} differs from VulPy stepped by "
                                                  f"{err:.1e} of the peak", device=device))
            except Exception as e:  # noqa: BLE001
                records.append(dict(case="Gcells/s", size=n, backend=backend, device=device,
                                    error=f"{type(e).__name__}: {e}"[:300]))
        raw = per.get("cupy RawKernel")
        for backend in ("vulpy stepped", "vulpy persistent"):
            if raw and per.get(backend):
                records.append(dict(case="vs CuPy RawKernel", size=n, backend=backend,
                                    median=per[backend] / raw, p10=None, p90=None, unit="x",
                                    device=device,
                                    goal=dict(op=">=", target=1.05, issue=17)))

    # -- the small, launch-bound grid: steps/s
    per = {}
    for backend in ("vulpy stepped", "vulpy persistent"):
        try:
            m = sim(n_small)
            if backend == "vulpy stepped":
                def go(m=m):
                    m.step(steps_small)
                    m.sync()
            else:
                def go(m=m):
                    persistent(m, steps_small)
            samples = _timed(go, reps)
            rec = _record("steps/s, small grid", n_small, backend, samples, steps_small,
                          "steps/s", device, steps=steps_small)
            records.append(rec)
            per[backend] = rec["median"]
        except Exception as e:  # noqa: BLE001
            records.append(dict(case="steps/s, small grid", size=n_small, backend=backend,
                                device=device, error=f"{type(e).__name__}: {e}"[:300]))
    if len(per) == 2:
        records.append(dict(case="persistent / stepped, small grid", size=n_small,
                            backend="vulpy", median=per["vulpy persistent"] / per["vulpy stepped"],
                            p10=None, p90=None, unit="x", device=device,
                            goal=dict(op=">=", target=4.0, issue=17)))

    # -- live streaming: a slice every `every` steps vs none
    try:
        records += _streaming(vp, fd, sim, n_stream, steps_stream, every, reps, device, limit)
    except Exception as e:  # noqa: BLE001
        records.append(dict(case="streaming", size=n_stream, backend="vulpy persistent",
                            device=device, error=f"{type(e).__name__}: {e}"[:300]))
    for r in records:
        r["suite"] = "fdtd"
    return records


def optional_cupy():
    cp = benchlib.optional("cupy")
    try:
        if cp.cuda.runtime.getDeviceCount() < 1:
            raise benchlib.Skip("cupy: no CUDA device")
    except benchlib.Skip:
        raise
    except Exception as e:  # noqa: BLE001
        raise benchlib.Skip(f"cupy: no CUDA device ({type(e).__name__}: {e})"[:200])
    return cp


def _fresh_stepped(fd, n, steps, s, pulse):
    m = fd.Sim(n, s=s)
    m.set(pulse(n))
    m.step(steps)
    return m.get()


def _cupy(cp, fd, backend, n, steps, s, reps):
    """(record, the state after one fresh run of `steps`) for a CuPy version."""
    shape = (n, n, n)
    start = fd.pec({k: _pulse(n).get(k, np.zeros(shape, np.float32)) for k in fd.FIELDS})
    f = {k: cp.asarray(v) for k, v in start.items()}
    if backend == "cupy slicing":
        def go():
            for _ in range(steps):
                fd.numpy_step(f, s)
            cp.cuda.Device().synchronize()
    else:
        mod = cp.RawModule(code=CUDA)
        kh, ke = mod.get_function("upd_h"), mod.get_function("upd_e")
        block = (64, 4, 1)
        grid = ((n + 63) // 64, (n + 3) // 4, n)
        args = (np.uint32(n), np.uint32(n), np.uint32(n), np.float32(s))

        def go():
            for _ in range(steps):
                kh(grid, block, (f["ex"], f["ey"], f["ez"], f["hx"], f["hy"], f["hz"]) + args)
                ke(grid, block, (f["ex"], f["ey"], f["ez"], f["hx"], f["hy"], f["hz"]) + args)
            cp.cuda.Device().synchronize()
    samples = _timed(go, reps)
    rec = _record("Gcells/s", n, backend, samples, n ** 3 * steps / 1e9, "Gcells/s", None,
                  steps=steps)
    for k, v in start.items():   # one fresh run for the check
        f[k][...] = cp.asarray(v)
    go()
    got = {k: cp.asnumpy(v) for k, v in f.items()}
    del f
    cp.get_default_memory_pool().free_all_blocks()
    return rec, got


def _streaming(vp, fd, sim, n, steps, every, reps, device, limit):
    """Persistent runs with a (n x n) slice + (step, energy) through a
    MemSock every `every` steps, consumed by a callback, against none."""
    out = []
    per = {}
    frames = []
    for backend in ("no streaming", f"slice every {every} steps"):
        m = sim(n)
        k = m.chunk()
        if backend == "no streaming":
            def go(m=m):
                done = 0
                while done < steps:
                    m.launch(min(k, steps - done), first=done, timeout=limit)
                    done += min(k, steps - done)
        else:
            pipe = m.memsock(capacity=steps // every + 2, policy="skip")

            @pipe.on("message")
            def got(frame, step, energy):
                frames.append((int(step), float(energy), float(frame[n // 2, n // 2])))

            def go(m=m, pipe=pipe):
                done = 0
                while done < steps:
                    m.launch(min(k, steps - done), pipe=pipe, every=every, first=done,
                             timeout=limit)
                    done += min(k, steps - done)
        samples = _timed(go, reps)
        rec = _record("streaming", n, backend, samples, n ** 3 * steps / 1e9, "Gcells/s", device,
                      steps=steps, every=every)
        if backend != "no streaming":
            st = pipe.stats
            rec.update(frames_delivered=st["delivered"], frames_dropped=st["dropped"],
                       frame_bytes=n * n * 4)
            pipe.close()
            if not frames or st["dropped"]:
                out.append(dict(case="streaming", size=n, backend="check", device=device,
                                error=f"frames: {st['delivered']} delivered, "
                                      f"{st['dropped']} dropped"))
        per[backend] = rec["median"]
        out.append(rec)
    a, b = per.get("no streaming"), per.get(f"slice every {every} steps")
    if a and b:
        out.append(dict(case="streaming cost", size=n, backend="vulpy persistent",
                        median=b / a, p10=None, p90=None, unit="x (streaming / none)",
                        device=device))
    return out


if __name__ == "__main__":
    from types import SimpleNamespace
    for r in run(SimpleNamespace(quick="--quick" in sys.argv, build=None)):
        print(r)
