"""vulpy.mpi: one array split over MPI ranks in slabs, with halo layers
exchanged through host-visible memory (issue 18; docs/multidevice.md, "MPI").

    from vulpy import mpi
    comm = mpi.world()                    # mpi4py's COMM_WORLD
    ctx = mpi.context(comm)               # this rank's device (local rank -> GPU)
    slab = mpi.Slab((nz, ny, nx), comm=comm, context=ctx)   # split along axis 0
    u = slab.scatter(u0)                  # this rank's layers of u0, with halos
    halo = slab.halo_exchange(u)          # zero-copy views of u's faces, taken once
    ex = halo.start()                     # Isend / Irecv straight from / into u's memory
    step(..., sync=False)                 # interior work meanwhile, on the GPU
    ex.wait()                             # halos filled; the GPU reads them next
    full = slab.gather(u)                 # the global array on rank 0, None elsewhere

Axis 0 is the split axis so that a face (one layer `u[k]`) is contiguous in
C order: MPI sends it from, and receives it into, the array's own mapping,
with no packing. The ordering between GPU work and the exchange is the
caller's: the kernel that writes the layers to send must be finished (its
handle waited) before `start()`, and the kernels that read the halos must be
submitted after `wait()`. Arrays in memory the host cannot map ('device' on
a discrete GPU), or that the host reads slowly ('rebar' on a discrete GPU:
VRAM mapped uncached through the BAR), are exchanged through host-cached
staging layers, with one GPU copy each way (`Halo.staged` says which).

Needs mpi4py (pinned in pyproject.toml; Open MPI from Debian's openmpi-bin /
libopenmpi-dev, listed in the Makefile). Run with
`mpirun -n 2 python prog.py`; as root OpenMPI also wants
`--allow-run-as-root`, and `--oversubscribe` when ranks outnumber cores.
"""
import os
import time

import numpy as np

from . import _array, _context

_yield = getattr(os, "sched_yield", lambda: time.sleep(0))
# Exchange.wait() polls busily this long before it starts yielding the core.
POLL_SPIN_S = 200e-6

__all__ = ["world", "device_index", "context", "split", "Slab", "Halo", "Exchange"]


def _mpi():
    """mpi4py's MPI module, or an ImportError saying what to install."""
    try:
        from mpi4py import MPI
    except (ImportError, OSError, RuntimeError) as e:  # no mpi4py, or no MPI library for it
        raise ImportError(
            "vulpy.mpi needs mpi4py and an MPI library: `make venv` installs the pinned "
            "mpi4py (pyproject.toml), `make deps` Debian's openmpi-bin and libopenmpi-dev; "
            f"or `pip install mpi4py` beside an MPI installation ({e})") from e
    return MPI


def world():
    """mpi4py's MPI.COMM_WORLD (MPI is initialized by the import). A plain
    `python prog.py` is one rank (MPI's singleton start)."""
    return _mpi().COMM_WORLD


def _comm(comm):
    return world() if comm is None else comm


def device_index(comm=None, devices=None):
    """The device index (as vp.list_devices() numbers them) for this rank:
    its rank among the ranks of its node (MPI_COMM_TYPE_SHARED) picks one of
    the node's GPUs (dgpu, igpu; every device where there is none), round
    robin, so with fewer devices than ranks they share them - one device:
    all ranks on device 0 of that list."""
    MPI = _mpi()
    comm = _comm(comm)
    node = comm.Split_type(MPI.COMM_TYPE_SHARED, key=comm.Get_rank())
    local = node.Get_rank()
    node.Free()
    devs = [d for d in (devices if devices is not None else _context.list_devices())
            if d.get("usable", True)]
    if not devs:
        raise RuntimeError("vulpy.mpi.device_index: no usable Vulkan device on this node")
    gpus = [d["index"] for d in devs if d["kind"] in ("dgpu", "igpu")]
    pool = gpus or [d["index"] for d in devs]
    return pool[local % len(pool)]


def context(comm=None, **kwargs):
    """A vp.Context on this rank's device (device_index()), made the default
    context; VULPY_DEVICE, when set, wins (every rank then uses that device).
    Keyword arguments go to vp.Context."""
    if _context.env_device() is not None:
        ctx = _context.Context(**kwargs)
    else:
        ctx = _context.Context(device_index=device_index(comm), **kwargs)
    _context.set_default_context(ctx)
    return ctx


def split(n, parts):
    """How `n` layers are dealt to `parts` ranks: a list of (start, stop),
    the first n % parts ranks one layer more."""
    base, extra = divmod(n, parts)
    out, at = [], 0
    for r in range(parts):
        c = base + (r < extra)
        out.append((at, at + c))
        at += c
    return out


class Slab:
    """The slab decomposition of a global array of `shape` along axis 0 over
    the ranks of `comm`: this rank owns global layers [start, stop) and
    holds them with `halo` extra layers on each side, so its arrays have
    `local_shape` = (n + 2 * halo,) + shape[1:]; local layer `halo + i` is
    global layer `start + i`. `lower` / `upper` are the neighbour ranks
    (None at the ends of the domain, whose halos nobody fills). Arrays are
    made in `memory` (default: the context's default kind)."""

    def __init__(self, shape, *, halo=1, comm=None, context=None, dtype=np.float32,
                 memory=None):
        comm = _comm(comm)
        shape = tuple(int(s) for s in (shape if isinstance(shape, (tuple, list)) else (shape,)))
        if not shape or min(shape) < 1:
            raise ValueError(f"Slab: shape must have at least one axis, all >= 1; got {shape}")
        if isinstance(halo, bool) or not isinstance(halo, int) or halo < 1:
            raise ValueError(f"Slab: halo must be an int >= 1, got {halo!r}")
        self.comm, self.shape, self.halo = comm, shape, halo
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        self.bounds = split(shape[0], self.size)
        self.start, self.stop = self.bounds[self.rank]
        self.n = self.stop - self.start
        short = [(r, b - a) for r, (a, b) in enumerate(self.bounds) if b - a < halo]
        if short:
            r, c = short[0]
            raise ValueError(f"Slab: {shape[0]} layers over {self.size} ranks leave rank {r} "
                             f"{c} layer(s), fewer than halo={halo}; use fewer ranks or a "
                             f"larger axis 0")
        self.lower = self.rank - 1 if self.rank > 0 else None
        self.upper = self.rank + 1 if self.rank < self.size - 1 else None
        self.local_shape = (self.n + 2 * halo,) + shape[1:]
        self.context = _context.resolve(context)
        self.dtype = np.dtype(dtype)
        self.memory = _array.check_memory(memory, self.context)

    def __repr__(self):
        return (f"<vulpy.mpi.Slab rank {self.rank}/{self.size}: layers [{self.start}, "
                f"{self.stop}) of {self.shape}, halo {self.halo}, local {self.local_shape}>")

    def zeros(self, dtype=None):
        """A resident array of local_shape, zeroed."""
        return _array.zeros(self.local_shape, dtype or self.dtype, memory=self.memory,
                            context=self.context)

    def scatter(self, a, dtype=None):
        """This rank's layers of the global NumPy array `a` (which every rank
        holds: nothing is sent), halos included where the domain has them."""
        a = np.asarray(a)
        if a.shape != self.shape:
            raise ValueError(f"Slab.scatter: the array has shape {a.shape}, the slab's global "
                             f"shape is {self.shape}")
        h = self.halo
        lo, hi = max(self.start - h, 0), min(self.stop + h, self.shape[0])
        local = np.zeros(self.local_shape, dtype or self.dtype)
        at = lo - (self.start - h)
        local[at:at + hi - lo] = a[lo:hi]
        return _array.asarray(local, memory=self.memory, context=self.context)

    def owned(self, x):
        """The layers this rank owns (a view of `x`, halos left out)."""
        return x[self.halo:self.halo + self.n]

    def gather(self, x, root=0):
        """The global array (NumPy) assembled on `root` from every rank's
        owned layers; None on the other ranks. A host read of `x` (it waits
        for the GPU work that uses it). Collective: every rank calls it."""
        self._check(x, "gather")
        mine = np.ascontiguousarray(x.numpy()[self.halo:self.halo + self.n])
        layer = int(np.prod(self.shape[1:], dtype=np.int64)) * mine.itemsize  # bytes
        out = np.empty(self.shape, mine.dtype) if self.rank == root else None
        counts = [(b - a) * layer for a, b in self.bounds]
        displs = [a * layer for a, b in self.bounds]
        recv = [out.reshape(-1).view(np.uint8), counts, displs, _mpi().BYTE] \
            if self.rank == root else None
        self.comm.Gatherv(mine.reshape(-1).view(np.uint8), recv, root=root)
        return out

    def halo_exchange(self, *arrays, lower=True, upper=True):
        """A Halo over `arrays` (each of local_shape, on this slab's context):
        the zero-copy views of their faces are taken now, once."""
        return Halo(self, arrays, lower=lower, upper=upper)

    def _check(self, x, what):
        if not isinstance(x, _array.ndarray):
            raise TypeError(f"Slab.{what}: expected a resident vp.ndarray, got "
                            f"{type(x).__name__}")
        if tuple(x.shape) != self.local_shape:
            raise ValueError(f"Slab.{what}: the array has shape {tuple(x.shape)}, this rank's "
                             f"local shape is {self.local_shape}")
        if not x.contiguous:
            raise ValueError(f"Slab.{what}: the array must be C-contiguous (a whole array, "
                             f"not a view)")
        if x.context is not self.context:
            raise ValueError(f"Slab.{what}: the array lives on {x.context!r}, the slab on "
                             f"{self.context!r}")


def host_reads_fast(buf):
    """True when MPI may read and write `buf`'s mapping directly (the rule of
    `vulpy._array.host_reads_fast`). MPI reading a face through a discrete
    GPU's BAR (`'rebar'`) is many times slower than staging it through
    cached host memory by a GPU copy (bench suite mpi; bench/notes/mpi.md),
    so such arrays are staged."""
    return _array.host_reads_fast(buf)


class Halo:
    """The halo exchange of some arrays of one Slab.

    `lower=True` fills each array's lower halo (layers [0, halo)) from the
    lower neighbour's top owned layers, `upper=True` the upper halo from the
    upper neighbour's bottom owned layers. For host-visible arrays the four
    faces are NumPy views of the array's own mapping, taken here once (so a
    later start() never waits for the GPU) and handed to MPI as they are:
    zero copies. Other arrays (`staged`) get host-visible face buffers and a
    GPU copy between them and the array on each start() / wait().

    `views[i]` are array i's faces as MPI sees them (NumPy arrays:
    'send_lo', 'send_hi', 'recv_lo', 'recv_hi'); for a host-visible array
    their data pointers are inside `arrays[i].buffer.address`'s mapping."""

    def __init__(self, slab, arrays, *, lower=True, upper=True):
        if not arrays:
            raise ValueError("Slab.halo_exchange: give at least one array")
        self.slab, self.arrays = slab, list(arrays)
        self.lower, self.upper = bool(lower), bool(upper)
        h, n = slab.halo, slab.n
        layer = int(np.prod(slab.shape[1:], dtype=np.int64))
        self.face_bytes = None
        self._faces = []
        for x in self.arrays:
            slab._check(x, "halo_exchange")
            nb = h * layer * x.itemsize
            self.face_bytes = nb
            # byte offsets of the four faces in the array's buffer
            off = {"recv_lo": 0, "send_lo": nb, "send_hi": n * layer * x.itemsize,
                   "recv_hi": (n + h) * layer * x.itemsize}
            if host_reads_fast(x.buffer):
                v = x.numpy_view().reshape(-1)
                count = h * layer
                views = {k: v[o // x.itemsize:o // x.itemsize + count] for k, o in off.items()}
                self._faces.append((x, None, off, views))
            else:
                stage = _array.zeros((4, h * layer), x.dtype, memory="cached",
                                     context=slab.context)
                sv = stage.numpy_view()
                views = {k: sv[i] for i, k in enumerate(("recv_lo", "send_lo", "send_hi",
                                                         "recv_hi"))}
                self._faces.append((x, stage, off, views))
        self.staged = any(f[1] is not None for f in self._faces)
        self.views = [f[3] for f in self._faces]

    def start(self):
        """Posts the receives and sends (MPI Irecv / Isend) and returns the
        Exchange; the GPU work that wrote the layers to send must be done."""
        MPI = _mpi()
        s = self.slab
        reqs = []
        for i, (x, stage, off, v) in enumerate(self._faces):
            if stage is not None:      # device -> host-visible face buffers (GPU copies)
                nb = self.face_bytes
                if self.lower and s.upper is not None:
                    stage.buffer.copy_from(x.buffer, 2 * nb, off["send_hi"], nb)
                if self.upper and s.lower is not None:
                    stage.buffer.copy_from(x.buffer, 1 * nb, off["send_lo"], nb)
                stage.buffer.invalidate()
            else:
                x.buffer.invalidate()  # GPU writes -> host (non-coherent memory only)
            up, down = 2 * i, 2 * i + 1   # tags: messages going up / down the ranks
            if self.lower:
                if s.lower is not None:
                    reqs.append(s.comm.Irecv(v["recv_lo"], source=s.lower, tag=up))
                if s.upper is not None:
                    reqs.append(s.comm.Isend(v["send_hi"], dest=s.upper, tag=up))
            if self.upper:
                if s.upper is not None:
                    reqs.append(s.comm.Irecv(v["recv_hi"], source=s.upper, tag=down))
                if s.lower is not None:
                    reqs.append(s.comm.Isend(v["send_lo"], dest=s.lower, tag=down))
        return Exchange(self, reqs, MPI)

    def exchange(self):
        """start() and wait() in one: the halos are filled on return."""
        self.start().wait()


class Exchange:
    """The MPI requests of one Halo.start(); wait() completes them."""

    def __init__(self, halo, reqs, MPI):
        self.halo, self.requests, self._MPI, self._done = halo, reqs, MPI, False

    def wait(self, spin=False):
        """Waits for every send and receive; the halos then hold the
        neighbours' layers, visible to GPU work submitted after this.

        By default it polls (MPI Testall, which also drives MPI's progress),
        busily for POLL_SPIN_S (time enough for a face of a few MiB between
        idle ranks), then yielding the core between polls (sched_yield):
        MPI_Waitall busy-waits, and on a CPU device (lavapipe) or with more ranks than
        cores that spinning takes the core from the very threads computing
        the interior (docs/multidevice.md, "Waiting"). (A sleep between polls is worse: each
        wake-up is late, and a 1 MiB message needs several polls.)
        `spin=True` calls Waitall (a core to spare, lowest latency)."""
        if self._done:
            return
        if spin:
            self._MPI.Request.Waitall(self.requests)
        else:
            test = self._MPI.Request.Testall
            until = time.perf_counter() + POLL_SPIN_S
            while not test(self.requests):
                if time.perf_counter() > until:
                    _yield()       # the core to whoever is runnable, then poll again
        self._done = True
        h, s = self.halo, self.halo.slab
        for x, stage, off, v in h._faces:
            if stage is not None:
                stage.buffer.flush()
                nb = h.face_bytes
                if h.lower and s.lower is not None:
                    x.buffer.copy_from(stage.buffer, off["recv_lo"], 0, nb)
                if h.upper and s.upper is not None:
                    x.buffer.copy_from(stage.buffer, off["recv_hi"], 3 * nb, nb)
            else:
                x.buffer.flush()       # host writes -> GPU (non-coherent memory only)
