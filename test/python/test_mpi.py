"""vulpy.mpi (issue 18, "MPI"): a slab-decomposed array over `mpirun -n N`
ranks on lavapipe gives the same bits as one rank, with halos exchanged
from host-visible memory (zero-copy views, or staging buffers for memory
the host cannot map), overlapped with the interior's kernels; and the
helper's errors are clear. MPI runs go through mpirun in a subprocess
(mpi_stencil_prog.py), so the pytest process never initializes MPI.

OpenMPI refuses root without --allow-run-as-root (the CI runs as root) and
more ranks than cores without --oversubscribe (CI has 2 cores)."""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, needs_target

import vulpy as vp
import vulpy.mpi

MPIRUN = shutil.which("mpirun")
needs_mpirun = pytest.mark.skipif(
    MPIRUN is None, reason="mpirun is not installed (`make deps` installs Debian's openmpi-bin)")
PROG = ROOT / "test" / "python" / "mpi_stencil_prog.py"


def env():
    return dict(os.environ, PYTHONPATH=str(ROOT / "bindings" / "python"),
                OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                OMPI_MCA_rmaps_base_oversubscribe="1")


def mpirun(n, *args, timeout=120):
    r = subprocess.run([MPIRUN, "-n", str(n), "--oversubscribe", sys.executable, *map(str, args)],
                       capture_output=True, text=True, env=env(), cwd=ROOT, timeout=timeout)
    assert "Validation Error" not in r.stderr, r.stderr[-3000:]
    return r


@needs_target
@needs_mpirun
@pytest.mark.parametrize("n,argv", [(2, []), (2, ["--staged"]), (3, ["--nz", "8"]),
                                    (2, ["--spin"])],
                         ids=["2-ranks-zero-copy", "2-ranks-staged", "3-ranks-uneven",
                              "2-ranks-waitall"])
def test_decomposed_stencil_is_bitwise_one_rank(n, argv):
    r = mpirun(n, PROG, *argv)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    # without --staged, the faces are staged anyway where MPI would read
    # them through a discrete GPU's BAR (the H200); the program checks that
    # rule itself (mpi.host_reads_fast) and fails when the path is not it
    staged = "--staged" in argv or not vp.mpi.host_reads_fast(vp.zeros(1).buffer)
    assert f"rank 0: {n} ranks vs 1" in r.stdout
    assert f"staged={staged}: identical (max difference 0)" in r.stdout, r.stdout


@needs_target
@needs_mpirun
def test_without_the_exchange_the_check_fails():
    """The comparison can fail: skipping the halo exchange changes the bits."""
    r = mpirun(2, PROG, "--no-exchange")
    assert r.returncode != 0
    assert "DIFFERENT" in r.stdout, r.stdout[-2000:] + r.stderr[-2000:]


@needs_target
@needs_mpirun
def test_lesson12_on_two_ranks_is_one_rank_bit_for_bit():
    """`mpirun -n 2 python examples/lesson12_mpi.py`: the 3-D Yee FDTD split
    in two slabs checks itself against one rank and NumPy."""
    r = mpirun(2, ROOT / "examples" / "lesson12_mpi.py", "--size", 24, "--steps", 30)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    assert "2 ranks vs 1 rank: identical, bit for bit (all six fields)" in r.stdout
    assert "lesson 12: OK" in r.stdout


def run_py(code):
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env(),
                       cwd=ROOT, timeout=120)
    return r


def test_missing_mpi4py_is_a_clear_import_error():
    r = run_py("import sys; sys.modules['mpi4py'] = None\n"
               "from vulpy import mpi\n"
               "try:\n    mpi.world()\n"
               "except ImportError as e:\n    print('ERR', e)\n")
    assert r.returncode == 0, r.stderr[-2000:]
    assert "ERR vulpy.mpi needs mpi4py and an MPI library" in r.stdout
    assert "openmpi-bin" in r.stdout


def test_split_deals_layers_evenly():
    sys.path.insert(0, str(ROOT / "bindings" / "python"))
    from vulpy.mpi import split
    assert split(13, 2) == [(0, 7), (7, 13)]
    assert split(8, 3) == [(0, 3), (3, 6), (6, 8)]
    assert split(5, 1) == [(0, 5)]


@needs_target
@needs_mpirun
def test_errors_and_device_choice():
    """One rank (MPI's singleton start): Slab's argument errors name the
    argument, and device_index() deals the node's GPUs round robin, with
    every rank on device 0 of the list when there is one."""
    code = r"""
import numpy as np
import vulpy as vp
from vulpy import mpi

class FakeComm:                       # this rank's rank on its node is `local`
    def __init__(self, local): self.local = local
    def Get_rank(self): return self.local
    def Split_type(self, kind, key): return self
    def Free(self): pass

gpu = lambda i, k: {"index": i, "kind": k, "usable": True}
two = [gpu(0, "dgpu"), gpu(1, "cpu"), gpu(2, "dgpu")]
print("dev", mpi.device_index(FakeComm(1), two), mpi.device_index(FakeComm(2), two),
      mpi.device_index(FakeComm(2), [gpu(0, "cpu")]),
      mpi.device_index(FakeComm(1), [gpu(0, "dgpu"), gpu(1, "cpu")]))
comm = mpi.world()
ctx = mpi.context(comm)
assert vp.default_context() is ctx
for kw in ({"shape": (4, 4), "halo": 0}, {"shape": (1, 4), "halo": 2}, {"shape": ()}):
    try:
        mpi.Slab(comm=comm, **kw)
    except ValueError as e:
        print("ERR", e)
s = mpi.Slab((6, 5), comm=comm)
print(s)
for bad in (np.zeros((8, 5), np.float32), vp.zeros((7, 5))):
    try:
        s.halo_exchange(bad)
    except (TypeError, ValueError) as e:
        print("ERR", e)
try:
    s.scatter(np.zeros((5, 5)))
except ValueError as e:
    print("ERR", e)
u = s.scatter(np.arange(30, dtype=np.float32).reshape(6, 5))
h = s.halo_exchange(u)
h.exchange()                          # one rank: no neighbours, nothing moves
fast = mpi.host_reads_fast(u.buffer)  # lavapipe: yes; a discrete GPU: no, staged
# zero copy: the faces MPI gets are u's own bytes; staged: rows of one buffer
a = u.buffer.address if fast else h.views[0]["recv_lo"].ctypes.data
print("views", [h.views[0][k].ctypes.data - a for k in ("recv_lo", "send_lo", "send_hi",
                                                        "recv_hi")], h.staged, fast)
print("gather", s.gather(u).ravel()[[0, 29]], s.owned(u).shape)
"""
    r = run_py(code)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-3000:]
    out = r.stdout
    # GPUs [0, 2]: local rank 1 -> 2, rank 2 -> 0 (round robin); a CPU device
    # only: 0; one GPU beside a CPU device (the H200 and lavapipe): the GPU, shared
    assert "dev 2 0 0 0" in out
    assert "ERR Slab: halo must be an int >= 1, got 0" in out
    assert "ERR Slab: 1 layers over 1 ranks leave rank 0 1 layer(s), fewer than halo=2" in out
    assert "ERR Slab: shape must have at least one axis" in out
    assert "<vulpy.mpi.Slab rank 0/1: layers [0, 6) of (6, 5), halo 1, local (8, 5)>" in out
    assert "ERR Slab.halo_exchange: expected a resident vp.ndarray, got ndarray" in out
    assert "ERR Slab.halo_exchange: the array has shape (7, 5), this rank's local shape is (8, 5)" \
        in out
    assert "ERR Slab.scatter: the array has shape (5, 5), the slab's global shape is (6, 5)" in out
    assert "gather [ 0. 29.] (6, 5)" in out
    if "views [0, 20, 120, 140] False True" not in out:  # layers 0, 1, 6, 7 of 5 float32
        # the H200: MPI reading VRAM through the BAR is slow, so the faces are
        # the rows of one staging buffer, with a GPU copy each way
        assert "views [0, 20, 40, 60] True False" in out, out


def test_uncached_device_memory_is_staged_not_read_through_the_bar():
    """MPI reads the faces of host-cached or host memory in place; VRAM mapped
    uncached (rebar on a discrete GPU, 35 ms for a 1 MiB face on the H200)
    is staged by a GPU copy. Real buffers on this device (all host-cached on
    lavapipe) are zero-copy; the H200's kinds by their Vulkan flags."""
    from types import SimpleNamespace as NS
    import vulpy as vp
    from vulpy import mpi
    for kind in ("host", "cached", "rebar", "device"):
        b = vp.zeros(4, memory=kind).buffer
        assert mpi.host_reads_fast(b) == bool(b.mapped and (b.memory_flags & 0x8 or not b.memory_flags & 0x1))
    DL, HV, HC, CA = 0x1, 0x2, 0x4, 0x8
    assert not mpi.host_reads_fast(NS(mapped=True, memory_flags=DL | HV | HC))        # rebar, dGPU
    assert mpi.host_reads_fast(NS(mapped=True, memory_flags=HV | HC))                 # host
    assert mpi.host_reads_fast(NS(mapped=True, memory_flags=HV | HC | CA))            # cached
    assert mpi.host_reads_fast(NS(mapped=True, memory_flags=DL | HV | HC | CA))       # unified
    assert not mpi.host_reads_fast(NS(mapped=False, memory_flags=DL))                 # device
