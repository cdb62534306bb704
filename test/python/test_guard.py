"""The dispatch guard and the dispatch grid: kernels with barriers run
`dispatch=N` for N not a multiple of the local size without an early
return before the barrier (the out-of-range invocations take part,
predicated), large 1-D dispatches, and `emit-glsl` on an ordinary Python
file with host functions beside the kernel."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target

ROOT = Path(__file__).resolve().parents[2]


@vp.kernel(local_size_x=64)
def reverse_blocks(a: vp.Buffer[vp.float32]):
    t = vp.Shared[vp.float32, 64]
    t[vp.local_index()] = a[vp.global_id()]
    vp.barrier()
    a[vp.global_id()] = t[63 - vp.local_index()]


def _reverse_blocks_ref(a, ls):
    """Each block of `ls` reversed, the part past len(a) read as zeros."""
    n = len(a)
    padded = np.zeros(-(-n // ls) * ls, a.dtype)
    padded[:n] = a
    return padded.reshape(-1, ls)[:, ::-1].reshape(-1)[:n]


def test_barrier_kernel_has_no_return_before_the_barrier():
    src = reverse_blocks.glsl
    main = src[src.index("void main()"):]
    assert "barrier();" in main
    assert "return" not in main[:main.index("barrier();")]


@pytest.mark.parametrize("n", [1, 63, 100, 129, 1000])
def test_barrier_kernel_dispatch_not_a_multiple(ctx, n):
    a = np.arange(1, n + 1, dtype=np.float32)
    av = vp.asarray(a)  # exactly n elements: the extra invocations must not touch a[n:]
    reverse_blocks(av, dispatch=n)
    np.testing.assert_array_equal(av.numpy(), _reverse_blocks_ref(a, 64))


def put(dst: vp.Buffer[vp.uint32], i: vp.uint32, v: vp.uint32):
    dst[i] = v


@vp.kernel(local_size_x=32)
def block_sums(a: vp.Buffer[vp.float32], sums: vp.Buffer[vp.float32], cnt: vp.Buffer[vp.uint32],
               order: vp.Buffer[vp.uint32]):
    t = vp.Shared[vp.float32, 32]
    lid = vp.local_index()
    t[lid] = a[vp.global_id()]
    vp.barrier()
    s = vp.uint32(16)
    while s > 0:
        if lid < s:
            t[lid] = t[lid] + t[lid + s]
        vp.barrier()
        s = s // 2
    old = vp.atomic_add(cnt[0], 1)
    put(order, vp.global_id(), old)
    if lid == 0:
        sums[vp.workgroup_id()] = t[0]


@pytest.mark.parametrize("n", [5, 32, 70, 1001])
def test_barrier_reduction_atomics_and_helper(ctx, n):
    rng = np.random.default_rng(n)
    a = rng.integers(-50, 50, n).astype(np.float32)
    ng = -(-n // 32)
    sums = vp.asarray(np.full(ng, -1, np.float32))
    cnt = vp.asarray(np.zeros(1, np.uint32))
    order = vp.asarray(np.full(n, 12345, np.uint32))
    block_sums(vp.asarray(a), sums, cnt, order, dispatch=n)
    padded = np.zeros(ng * 32, np.float32)
    padded[:n] = a
    np.testing.assert_array_equal(sums.numpy(), padded.reshape(ng, 32).sum(axis=1))
    assert cnt.numpy()[0] == n  # only the n invocations counted
    np.testing.assert_array_equal(np.sort(order.numpy()), np.arange(n, dtype=np.uint32))


@vp.kernel(local_size_x=64)
def no_barrier(a: vp.Buffer[vp.float32]):
    a[vp.global_id()] = a[vp.global_id()] + 1.0


def test_kernel_without_barrier_keeps_the_early_return(ctx):
    assert "return;" in no_barrier.glsl
    a = np.zeros(100, np.float32)
    av = vp.asarray(a)
    no_barrier(av, dispatch=70)
    np.testing.assert_array_equal(av.numpy(), np.r_[np.ones(70), np.zeros(30)].astype(np.float32))


# ---------------------------------------------------- emit-glsl, host code

HOST_FILE = '''\
import time
import numpy as np
import vulpy as vp

def host():
    return time.perf_counter()

def twice(x: vp.float32) -> vp.float32:
    return x * 2.0

@vp.kernel(local_size_x=64)
def k(a: vp.Buffer[vp.float32]):
    a[vp.global_id()] = twice(a[vp.global_id()])

if __name__ == "__main__":
    t0 = host()
    a = vp.asarray(np.ones(10, np.float32))
    k(a, dispatch=10)
'''


def _vulpy(*args):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "bindings" / "python"))
    return subprocess.run([sys.executable, "-m", "vulpy", *args], capture_output=True, text=True,
                          env=env)


def test_emit_glsl_of_an_ordinary_python_file(tmp_path):
    f = tmp_path / "f.py"
    f.write_text(HOST_FILE)
    r = _vulpy("emit-glsl", str(f), "--kernel", "k")
    assert r.returncode == 0, r.stderr
    assert "void main()" in r.stdout and "twice(" in r.stdout
    assert "host" not in r.stdout


def test_emit_glsl_still_checks_helpers_that_are_called(tmp_path):
    f = tmp_path / "f.py"
    f.write_text(HOST_FILE.replace("twice(a[vp.global_id()])", "host()"))
    r = _vulpy("emit-glsl", str(f), "--kernel", "k")
    assert r.returncode == 1
    assert "'time' is a module; kernels read attributes of vulpy and math only" in r.stderr
    assert "f.py:6:" in r.stderr


# ---------------------------------------------------- large 1-D dispatches

@vp.kernel(local_size_x=1)
def ones(a: vp.Buffer[vp.float32]):
    a[vp.global_id()] = 1.0


@vp.kernel(local_size_x=1)
def ones_below(a: vp.Buffer[vp.float32], n: vp.uint32):
    i = vp.global_id()
    if i < n:
        a[i] = 1.0


def test_too_many_workgroups_names_the_limit(ctx):
    """The group-count check, apart from buffer sizes: on the H200 the limit
    is 2^31 - 1 groups, and an array of one float per group (8 GiB) is past
    maxStorageBufferRange, so the kernel writes only a small array."""
    maxx = ctx.info["limits"]["max_workgroup_count"][0]
    a = vp.zeros(16, np.float32)
    ones_below(a, n=16, dispatch=maxx)  # at the limit: fine
    np.testing.assert_array_equal(a.numpy(), np.ones(16, np.float32))
    with pytest.raises(vp.VulkanError, match=rf"maxComputeWorkGroupCount\[0\] is {maxx}.*grid-stride"):
        ones_below(a, n=16, dispatch=maxx + 1)


@pytest.mark.slow
def test_library_kernels_past_the_x_group_limit(ctx):
    """Ufuncs, jit, reductions and scans lay out their own 2-D grids: 2^24 + 3
    elements need more than 65,535 workgroups of 256."""
    n = (1 << 24) + 3
    x = np.random.default_rng(0).random(n, dtype=np.float32)
    xv = vp.asarray(x)
    np.testing.assert_array_equal((xv + np.float32(1)).numpy(), x + np.float32(1))
    np.testing.assert_allclose(vp.jit(lambda a: a * 2.0 + 1.0)(xv).numpy(), x * 2 + 1, rtol=1e-6)
    assert float(vp.max(xv)) == x.max()
    np.testing.assert_allclose(float(vp.sum(xv)), x.sum(dtype=np.float64), rtol=1e-5)
    np.testing.assert_allclose(vp.sin(xv).numpy()[-5:], np.sin(x[-5:]), rtol=1e-6)


@vp.kernel(local_size_x=64)
def double_strided(a: vp.Buffer[vp.float32], n: vp.uint32):
    stride = vp.num_workgroups().x * 64
    i = vp.global_id()
    while i < n:
        a[i] = a[i] * 2.0
        i += stride


def test_grid_stride_loop_from_the_docs(ctx):
    """docs/language.md's way past the limit: a grid-stride loop."""
    maxx = ctx.info["limits"]["max_workgroup_count"][0]
    n = 64 * min(maxx, 65535) + 7
    x = np.arange(n, dtype=np.float32)
    xv = vp.asarray(x)
    double_strided(xv, groups=4096, n=n)
    np.testing.assert_array_equal(xv.numpy(), x * 2)
