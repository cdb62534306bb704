"""Run under mpirun by test_mpi.py: a 3-D heat stencil on a slab-decomposed
grid (vulpy.mpi), halos exchanged while the interior runs, gathered on rank
0 and compared bit for bit with the same kernel on one rank (COMM_SELF).

    mpirun -n 2 python test/python/mpi_stencil_prog.py [--staged] [--nz 13]

Prints "rank 0: identical ..." and exits 0 when they agree; exits 1 with
the largest difference when they do not. --staged makes 'device' memory the
host cannot map (no_device_mapping=True), so the halos go through
host-visible staging buffers.
"""
import argparse
import sys

import numpy as np

import vulpy as vp
from vulpy import mpi

ap = argparse.ArgumentParser()
ap.add_argument("--nz", type=int, default=13)
ap.add_argument("--n", type=int, default=12)
ap.add_argument("--steps", type=int, default=20)
ap.add_argument("--staged", action="store_true")
ap.add_argument("--spin", action="store_true", help="Exchange.wait(spin=True): MPI Waitall")
ap.add_argument("--no-exchange", action="store_true", help="skip the exchange (must then differ)")
args = ap.parse_args()


@vp.kernel(local_size_x=8, local_size_y=8)
def heat(u: vp.Buffer[vp.float32], v: vp.Buffer[vp.float32], nx: vp.uint32, ny: vp.uint32,
         nz: vp.uint32, start: vp.uint32, kl0: vp.uint32, c: vp.float32):
    x = vp.global_id(0)
    y = vp.global_id(1)
    kl = kl0 + vp.global_id(2)          # local layer (1 .. n); global layer start + kl - 1
    k = start + kl
    i = (kl * ny + y) * nx + x
    if x == 0 or y == 0 or x >= nx - 1 or y >= ny - 1 or k <= 1 or k >= nz:
        v[i] = u[i]                     # the domain's faces hold their values
        return
    v[i] = u[i] + c * (u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] + u[i - nx * ny]
                       + u[i + nx * ny] - 6.0 * u[i])


def run(comm, ctx, u0, steps, exchange=True):
    slab = mpi.Slab(u0.shape, comm=comm, context=ctx)
    u, v = slab.scatter(u0), slab.zeros()
    halos = {id(u): slab.halo_exchange(u), id(v): slab.halo_exchange(v)}
    nz, ny, nx = u0.shape
    n = slab.n
    pc = dict(nx=nx, ny=ny, nz=nz, start=slab.start, c=0.1)
    for _ in range(steps):
        ex = halos[id(u)].start() if exchange else None   # u's faces out, halos in
        if n > 2:                                          # interior: needs no halo
            heat(u, v, dispatch=(nx, ny, n - 2), kl0=2, sync=False, **pc)
        if ex:
            ex.wait(spin=args.spin)
        heat(u, v, dispatch=(nx, ny, 1), kl0=1, sync=False, **pc)
        h = heat(u, v, dispatch=(nx, ny, 1), kl0=n, sync=False, **pc) if n > 1 else None
        (h or vp.Handle(None)).wait()
        u, v = v, u
    # staged: asked for (no device mapping), or chosen because MPI would read
    # the array through a discrete GPU's BAR (mpi.host_reads_fast)
    return slab.gather(u), halos[id(u)].staged, mpi.host_reads_fast(u.buffer)


comm = mpi.world()
ctx = mpi.context(comm, no_device_mapping=args.staged)
rng = np.random.default_rng(7)
u0 = rng.standard_normal((args.nz, args.n, args.n)).astype(np.float32)
got, staged, fast = run(comm, ctx, u0, args.steps, exchange=not args.no_exchange)
if comm.rank == 0:
    from mpi4py import MPI
    want, _, _ = run(MPI.COMM_SELF, ctx, u0, args.steps)
    diff = float(np.abs(got - want).max())
    same = np.array_equal(got.view(np.uint32), want.view(np.uint32))
    print(f"rank 0: {comm.size} ranks vs 1, {args.steps} steps of {u0.shape}, staged={staged}: "
          f"{'identical' if same else 'DIFFERENT'} (max difference {diff:.3g})")
    if staged != (args.staged or not fast) or (args.staged and fast):
        print("rank 0: the halo path is not the one asked for")
        sys.exit(1)
    sys.exit(0 if same else 1)
