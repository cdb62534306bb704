"""The MPI side of bench/bench_mpi.py: run under `mpirun -n P`, it measures
on every rank and writes rank 0's JSON to --out.

  halo     Halo.exchange() of one face of --face^2 float32 each way between
           neighbours (vulpy.mpi), per memory kind (zero-copy views of
           host-visible arrays; 'device' memory the host cannot map goes
           through staging buffers), and plain MPI (Irecv / Isend /
           Waitall) of NumPy arrays of the same size (the floor); time per
           exchange, the slowest rank's.
  fdtd     the 3-D Yee update of lesson 12 (examples/lesson12_mpi.py, the
           same kernels and the same overlap of the exchange with the
           interior), global grid (--nz, --n, --n) split over the ranks;
           seconds per step, the slowest rank's. First a small run is
           checked bit for bit against one rank (rank 0 alone), so no
           figure comes from a wrong answer.
"""
import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if os.environ.get("VULPY_BENCH_INSTALLED") != "1":  # else the wheel bench/device/suites.sh installed
    sys.path.insert(0, str(ROOT / "bindings" / "python"))

import vulpy as vp  # noqa: E402
from vulpy import mpi  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--face", type=int, default=512)
ap.add_argument("--reps", type=int, default=50)
ap.add_argument("--n", type=int, default=64, help="FDTD grid side (y, x)")
ap.add_argument("--nz", type=int, default=64, help="FDTD global z layers")
ap.add_argument("--steps", type=int, default=20)
ap.add_argument("--what", default="halo,fdtd")
ap.add_argument("--out", required=True)
args = ap.parse_args()

comm = mpi.world()
ctx = mpi.context(comm)
from mpi4py import MPI  # noqa: E402  (mpi.world() imported it)

P, rank = comm.Get_size(), comm.Get_rank()
out = {"ranks": P, "device": ctx.name, "device_kind": ctx.kind,
       "devices": len(set(comm.allgather((MPI.Get_processor_name(), ctx.index)))),
       "mpi": MPI.Get_library_version().splitlines()[0].strip().strip("\x00"),
       "halo": [], "fdtd": []}


def slowest(seconds):
    return comm.allreduce(seconds, op=MPI.MAX)


# ------------------------------------------------------------------ halo
def halo_case(memory):
    F = args.face
    slab = mpi.Slab((P * 2, F, F), comm=comm, context=ctx, memory=memory)
    x = slab.scatter(np.full((P * 2, F, F), 0, np.float32) + np.arange(P * 2, dtype=np.float32)
                     [:, None, None])
    halo = slab.halo_exchange(x)
    times = []
    for r in range(args.reps + 5):
        comm.Barrier()
        t = time.perf_counter()
        halo.exchange()
        dt = slowest(time.perf_counter() - t)
        if r >= 5:
            times.append(dt)
    v = x.numpy()
    ok = True
    if slab.lower is not None:
        ok &= bool((v[0] == slab.start - 1).all())
    if slab.upper is not None:
        ok &= bool((v[-1] == slab.stop).all())
    ok = comm.allreduce(ok, op=MPI.LAND)
    return {"case": "halo exchange", "memory": memory, "staged": halo.staged, "face": F,
            "face_bytes": halo.face_bytes, "median_s": statistics.median(times),
            "p10_s": float(np.quantile(times, 0.1)), "p90_s": float(np.quantile(times, 0.9)),
            "ok": ok}


def plain_case():
    F = args.face
    send = [np.ones((F, F), np.float32) for _ in range(2)]
    recv = [np.empty((F, F), np.float32) for _ in range(2)]
    up = rank + 1 if rank + 1 < P else MPI.PROC_NULL
    dn = rank - 1 if rank > 0 else MPI.PROC_NULL
    times = []
    for r in range(args.reps + 5):
        comm.Barrier()
        t = time.perf_counter()
        MPI.Request.Waitall([comm.Irecv(recv[0], source=dn, tag=0),
                             comm.Isend(send[0], dest=up, tag=0),
                             comm.Irecv(recv[1], source=up, tag=1),
                             comm.Isend(send[1], dest=dn, tag=1)])
        dt = slowest(time.perf_counter() - t)
        if r >= 5:
            times.append(dt)
    return {"case": "halo exchange", "memory": "numpy (plain MPI)", "staged": False, "face": F,
            "face_bytes": F * F * 4, "median_s": statistics.median(times),
            "p10_s": float(np.quantile(times, 0.1)), "p90_s": float(np.quantile(times, 0.9)),
            "ok": True}


# ------------------------------------------------------------------ fdtd
# Lesson 12's kernels, with the global z extent `nz` apart from the side n.
@vp.kernel(local_size_x=8, local_size_y=8)
def update_h(ex: vp.Buffer[vp.float32], ey: vp.Buffer[vp.float32], ez: vp.Buffer[vp.float32],
             hx: vp.Buffer[vp.float32], hy: vp.Buffer[vp.float32], hz: vp.Buffer[vp.float32],
             n: vp.uint32, nz: vp.uint32, start: vp.uint32, kl0: vp.uint32, s: vp.float32):
    i = vp.global_id(0)
    j = vp.global_id(1)
    kl = kl0 + vp.global_id(2)
    g = start + kl
    if i >= n - 1 or j >= n - 1 or g < 1 or g >= nz:
        return
    c = (kl * n + j) * n + i
    up = c + n * n
    hx[c] = hx[c] - s * ((ez[c + n] - ez[c]) - (ey[up] - ey[c]))
    hy[c] = hy[c] - s * ((ex[up] - ex[c]) - (ez[c + 1] - ez[c]))
    hz[c] = hz[c] - s * ((ey[c + 1] - ey[c]) - (ex[c + n] - ex[c]))


@vp.kernel(local_size_x=8, local_size_y=8)
def update_e(ex: vp.Buffer[vp.float32], ey: vp.Buffer[vp.float32], ez: vp.Buffer[vp.float32],
             hx: vp.Buffer[vp.float32], hy: vp.Buffer[vp.float32], hz: vp.Buffer[vp.float32],
             n: vp.uint32, nz: vp.uint32, start: vp.uint32, kl0: vp.uint32, s: vp.float32):
    i = vp.global_id(0)
    j = vp.global_id(1)
    kl = kl0 + vp.global_id(2)
    g = start + kl
    if i < 1 or j < 1 or i >= n - 1 or j >= n - 1 or g < 2 or g >= nz:
        return
    c = (kl * n + j) * n + i
    dn = c - n * n
    ex[c] = ex[c] + s * ((hz[c] - hz[c - n]) - (hy[c] - hy[dn]))
    ey[c] = ey[c] + s * ((hx[c] - hx[dn]) - (hz[c] - hz[c - 1]))
    ez[c] = ez[c] + s * ((hy[c] - hy[c - 1]) - (hx[c] - hx[c - n]))


def fdtd(comm, nz, n, steps, memory=None, gather=False):
    slab = mpi.Slab((nz, n, n), comm=comm, context=ctx, memory=memory)
    if slab.n < 2:
        raise SystemExit(f"fdtd: {nz} layers over {slab.size} ranks: fewer than 2 a rank")
    z = np.arange(nz, dtype=np.float32)[:, None, None]
    ez0 = np.zeros((nz, n, n), np.float32)
    ez0[1:-1, 1:-1, 1:-1] = np.exp(-((z[1:-1] - nz / 2) / 3) ** 2) * 0.5
    E = [slab.zeros(), slab.zeros(), slab.scatter(ez0)]
    H = [slab.zeros() for _ in range(3)]
    halo = slab.halo_exchange(*E)
    L = slab.n
    pc = dict(n=n, nz=nz, start=slab.start, s=0.5)

    def layers(kernel, first, count):
        if count > 0:
            return kernel(*E, *H, dispatch=(n, n, count), kl0=first, sync=False, **pc)

    def step():
        ex = halo.start()
        layers(update_h, 1, L - 1)
        layers(update_e, 2, L - 2)
        ex.wait()
        layers(update_h, 0, 1)
        layers(update_h, L, 1)
        layers(update_e, 1, 1)
        layers(update_e, L, 1).wait()

    step()                                   # compiles, touches every buffer
    comm.Barrier()
    t = time.perf_counter()
    for _ in range(steps - 1):
        step()
    comm.Barrier()
    seconds = (time.perf_counter() - t) / max(steps - 1, 1)
    fields = [slab.gather(f) for f in E + H] if gather else None
    return seconds, fields, halo.staged


def fdtd_check():
    """A small run on every rank against rank 0 alone: bit for bit."""
    got = fdtd(comm, 2 * P + 4, 16, 6, gather=True)[1]
    ok = True
    if rank == 0:
        want = fdtd(MPI.COMM_SELF, 2 * P + 4, 16, 6, gather=True)[1]
        ok = all(np.array_equal(a.view(np.uint32), b.view(np.uint32)) for a, b in zip(got, want))
        comm.Ibarrier().Wait()
    else:
        req = comm.Ibarrier()
        while not req.Test():
            time.sleep(0.005)
    return comm.allreduce(ok, op=MPI.LAND)


kinds = ["device", "host", "cached"] + (["rebar"] if ctx.default_memory == "rebar" else [])
if "halo" in args.what:
    out["halo"].append(plain_case())
    for m in kinds:
        try:
            out["halo"].append(halo_case(m))
        except Exception as e:  # noqa: BLE001 - a record, and the run goes on
            out["halo"].append({"case": "halo exchange", "memory": m, "error": repr(e)[:300]})
if "fdtd" in args.what:
    ok = fdtd_check()
    for m in [None] if ctx.default_memory != "rebar" else [None, "device"]:
        secs, _, staged = fdtd(comm, args.nz, args.n, args.steps, memory=m)
        out["fdtd"].append({"case": "fdtd", "memory": m or ctx.default_memory, "staged": staged,
                            "nz": args.nz, "n": args.n, "steps": args.steps,
                            "seconds_per_step": slowest(secs), "ok": ok})
if rank == 0:
    Path(args.out).write_text(json.dumps(out, indent=1))
