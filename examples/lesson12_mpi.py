"""Lesson 12 - beyond one device: a 3-D Yee FDTD split across MPI ranks,
halos exchanged through host-visible memory (docs/tutorials/12-mpi.md).

    mpirun -n 2 python examples/lesson12_mpi.py [--size 32] [--steps 60] [--png FILE]
    python examples/lesson12_mpi.py                     (one rank)

(as root OpenMPI also wants --allow-run-as-root, and --oversubscribe when
the ranks outnumber the cores). --size is the cube's side in cells, --steps
the time steps, --png writes a slice of Ez with the ranks' slabs marked.
Exits non-zero when the decomposed run differs from one rank by a single
bit, or the one-rank run from NumPy's update.
"""
import argparse
import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

import vulpy as vp
from vulpy import mpi

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--size", type=int, default=32, help="cube side (cells)")
ap.add_argument("--steps", type=int, default=60, help="time steps")
ap.add_argument("--png", help="write a slice of Ez here (rank 0)")
args = ap.parse_args()
N = args.size
S = 0.5                      # Courant number c dt / dx (3-D limit: 1/sqrt(3))

comm = mpi.world()
ctx = mpi.context(comm)      # this rank's GPU: its rank on the node picks one
from mpi4py import MPI       # noqa: E402  (mpi.world() imported it)


# Yee's cell, in units where c = dx = 1: H -= S curl E (forward differences),
# then E += S curl H (backward differences). Arrays are [z, y, x] with z split
# across ranks; `kl` is the local layer (0 and n + 1 are halos), `start + kl`
# the global z plus one. H lives on [0, N-2]^3, E inside the PEC box on
# [1, N-2]^3: what is never updated stays 0 (tangential E on the walls).
@vp.kernel(local_size_x=8, local_size_y=8)
def update_h(ex: vp.Buffer[vp.float32], ey: vp.Buffer[vp.float32], ez: vp.Buffer[vp.float32],
             hx: vp.Buffer[vp.float32], hy: vp.Buffer[vp.float32], hz: vp.Buffer[vp.float32],
             n: vp.uint32, start: vp.uint32, kl0: vp.uint32, s: vp.float32):
    i = vp.global_id(0)
    j = vp.global_id(1)
    kl = kl0 + vp.global_id(2)
    g = start + kl
    if i >= n - 1 or j >= n - 1 or g < 1 or g >= n:
        return
    c = (kl * n + j) * n + i
    up = c + n * n                                     # z + 1
    hx[c] = hx[c] - s * ((ez[c + n] - ez[c]) - (ey[up] - ey[c]))
    hy[c] = hy[c] - s * ((ex[up] - ex[c]) - (ez[c + 1] - ez[c]))
    hz[c] = hz[c] - s * ((ey[c + 1] - ey[c]) - (ex[c + n] - ex[c]))


@vp.kernel(local_size_x=8, local_size_y=8)
def update_e(ex: vp.Buffer[vp.float32], ey: vp.Buffer[vp.float32], ez: vp.Buffer[vp.float32],
             hx: vp.Buffer[vp.float32], hy: vp.Buffer[vp.float32], hz: vp.Buffer[vp.float32],
             n: vp.uint32, start: vp.uint32, kl0: vp.uint32, s: vp.float32):
    i = vp.global_id(0)
    j = vp.global_id(1)
    kl = kl0 + vp.global_id(2)
    g = start + kl
    if i < 1 or j < 1 or i >= n - 1 or j >= n - 1 or g < 2 or g >= n:
        return
    c = (kl * n + j) * n + i
    dn = c - n * n                                     # z - 1
    ex[c] = ex[c] + s * ((hz[c] - hz[c - n]) - (hy[c] - hy[dn]))
    ey[c] = ey[c] + s * ((hx[c] - hx[dn]) - (hz[c] - hz[c - 1]))
    ez[c] = ez[c] + s * ((hy[c] - hy[c - 1]) - (hx[c] - hx[c - n]))


def initial_ez():
    """A Gaussian pulse of Ez at the cube's centre, where the slabs meet."""
    z, y, x = np.mgrid[0:N, 0:N, 0:N] - (N - 1) / 2
    ez = np.exp(-(x * x + y * y + z * z) / (0.1 * N) ** 2).astype(np.float32)
    inner = np.zeros_like(ez)
    inner[1:-1, 1:-1, 1:-1] = ez[1:-1, 1:-1, 1:-1]     # E only inside the PEC box
    return inner


def simulate(comm, steps):
    """Runs `steps` steps on the ranks of `comm`; returns the six fields
    gathered on rank 0 (None elsewhere) and the seconds the steps took."""
    slab = mpi.Slab((N, N, N), comm=comm, context=ctx)
    if slab.n < 2:
        raise SystemExit(f"--size {N} over {slab.size} ranks leaves {slab.n} layer(s) a rank; "
                         f"each needs 2")
    zero = np.zeros((N, N, N), np.float32)
    E = [slab.scatter(zero), slab.scatter(zero), slab.scatter(initial_ez())]
    H = [slab.zeros() for _ in range(3)]
    halo = slab.halo_exchange(*E)      # zero-copy views of E's faces, taken once
    n = slab.n
    pc = dict(n=N, start=slab.start, s=S)

    def h_layers(first, count):
        if count > 0:
            return update_h(*E, *H, dispatch=(N, N, count), kl0=first, sync=False, **pc)

    def e_layers(first, count):
        if count > 0:
            return update_e(*E, *H, dispatch=(N, N, count), kl0=first, sync=False, **pc)

    comm.Barrier()
    t0 = time.perf_counter()
    for step in range(steps):
        ex = halo.start()              # E's faces to the neighbours, their faces into the halos
        h_layers(1, n - 1)             # H inside the slab: needs no halo
        e_layers(2, n - 2)             # E inside, from that H: no halo either
        ex.wait()
        h_layers(0, 1)                 # H beside the halos (layer 0: the neighbour's, redone here)
        h_layers(n, 1)
        e_layers(1, 1)                 # E's faces, which the next step sends
        e_layers(n, 1).wait()
    comm.Barrier()
    seconds = time.perf_counter() - t0
    return [slab.gather(f) for f in E + H], seconds


def numpy_fdtd(steps):
    """The same update on the whole grid in NumPy (float32, the same order
    of operations)."""
    ex, ey, hx, hy, hz = (np.zeros((N, N, N), np.float32) for _ in range(5))
    ez, s = initial_ez(), np.float32(S)
    a, b = slice(0, N - 1), slice(1, N)            # H: [0, N-2]; its +1 neighbour
    c, d = slice(1, N - 1), slice(0, N - 2)        # E: [1, N-2]; its -1 neighbour
    for _ in range(steps):
        hx[a, a, a] = hx[a, a, a] - s * ((ez[a, b, a] - ez[a, a, a]) - (ey[b, a, a] - ey[a, a, a]))
        hy[a, a, a] = hy[a, a, a] - s * ((ex[b, a, a] - ex[a, a, a]) - (ez[a, a, b] - ez[a, a, a]))
        hz[a, a, a] = hz[a, a, a] - s * ((ey[a, a, b] - ey[a, a, a]) - (ex[a, b, a] - ex[a, a, a]))
        ex[c, c, c] = ex[c, c, c] + s * ((hz[c, c, c] - hz[c, d, c]) - (hy[c, c, c] - hy[d, c, c]))
        ey[c, c, c] = ey[c, c, c] + s * ((hx[c, c, c] - hx[d, c, c]) - (hz[c, c, c] - hz[c, c, d]))
        ez[c, c, c] = ez[c, c, c] + s * ((hy[c, c, c] - hy[c, c, d]) - (hx[c, c, c] - hx[c, d, c]))
    return [ex, ey, ez, hx, hy, hz]


def idle_until_rank0(comm):
    """Waits for rank 0 without spinning (an MPI barrier polls a core)."""
    req = comm.Ibarrier()
    while not req.Test():
        time.sleep(0.005)


simulate(comm, 2)                                  # compiles the kernels on every rank
fields, t_p = simulate(comm, args.steps)
P = comm.Get_size()
if comm.Get_rank() == 0:
    one, t_1 = simulate(MPI.COMM_SELF, args.steps)  # the whole cube on this rank alone
    names = ["Ex", "Ey", "Ez", "Hx", "Hy", "Hz"]
    same = all(np.array_equal(a.view(np.uint32), b.view(np.uint32)) for a, b in zip(fields, one))
    print(f"{P} rank(s) on {ctx.name}: {N}^3 cells, {args.steps} steps")
    print(f"{P} ranks vs 1 rank: {'identical, bit for bit' if same else 'DIFFERENT'} "
          f"(all six fields)")
    ref = numpy_fdtd(args.steps)
    err = max(float(np.abs(a - b).max()) for a, b in zip(one, ref)) / float(np.abs(ref[2]).max())
    print(f"1 rank vs NumPy: max difference {err:.1e} of Ez's peak")
    cells = N ** 3 * args.steps
    print(f"{P} rank(s): {t_p / args.steps * 1e3:.2f} ms/step ({cells / t_p / 1e6:.1f} Mcells/s); "
          f"1 rank: {t_1 / args.steps * 1e3:.2f} ms/step; speed-up {t_1 / t_p:.2f}x, "
          f"efficiency {t_1 / t_p / P:.0%}")
    if not same:
        bad = [nm for nm, a, b in zip(names, fields, one) if not np.array_equal(a, b)]
        print("differs in:", ", ".join(bad))
    ok = same and err < 1e-5
    comm.Ibarrier().Wait()
else:
    idle_until_rank0(comm)
    ok = True
ok = comm.allreduce(ok, op=MPI.LAND)

PLOT = """
import sys, numpy as np, matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
ez = np.load(sys.argv[1]); bounds = [int(b) for b in sys.argv[3].split(",") if b]
sl = ez[:, :, ez.shape[2] // 2]; m = np.abs(sl).max()
fig, ax = plt.subplots(figsize=(5, 4.4), dpi=100)
im = ax.imshow(sl, cmap="RdBu_r", vmin=-m, vmax=m, origin="lower")
for b in bounds:
    ax.axhline(b - 0.5, color="k", ls="--", lw=1)
ax.set_title(f"Ez, plane x = N/2, after {sys.argv[4]} steps ({len(bounds) + 1} ranks)")
ax.set_xlabel("y (cells)"); ax.set_ylabel("z (cells): dashed = slab boundaries")
fig.colorbar(im, ax=ax, shrink=0.85)
fig.tight_layout(); fig.savefig(sys.argv[2])
"""
if args.png and comm.Get_rank() == 0:
    tmp = tempfile.mkdtemp()
    atexit.register(shutil.rmtree, tmp, True)
    npy = os.path.join(tmp, "ez.npy")
    np.save(npy, fields[2])
    bounds = ",".join(str(a) for a, b in mpi.split(N, P)[1:])
    try:
        import matplotlib  # noqa: F401
        py = sys.executable
    except ImportError:    # the .venv has none: Debian's python3-matplotlib draws it
        py = "/usr/bin/python3"
    subprocess.run([py, "-c", PLOT, npy, args.png, bounds, str(args.steps)], check=True)
    print("wrote", args.png)
if not ok:
    sys.exit(1)
if comm.Get_rank() == 0:
    print("lesson 12: OK")
