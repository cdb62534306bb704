"""The memory pool (runtime/pool.c) from Python: a loop of expressions
allocates from the driver a bounded number of times; reused memory reads
as zeros; a buffer that queued GPU work still uses is not handed out
again; 8 threads; free_all_blocks; set_limit and vp.OutOfMemoryError;
results written whole are not zeroed, vp.zeros is zeroed on the GPU.
Values are always checked against NumPy."""
import re
import threading

import numpy as np
import pytest

import vulpy as vp
from conftest import needs_ext

pytestmark = needs_ext


@pytest.fixture(scope="module")
def mctx():
    """A context of its own, so that counters move only with these tests."""
    return vp.Context()


def _stats(c):
    return c.stats()


def test_pool_api(mctx):
    pool = mctx.memory_pool
    assert pool is mctx.memory_pool
    assert vp.get_default_memory_pool() is vp.default_context().memory_pool
    a = vp.zeros(1000, context=mctx)
    assert pool.used_bytes() >= a.nbytes
    assert pool.total_bytes() == pool.used_bytes() + pool.free_bytes()
    used = pool.used_bytes()
    del a
    assert pool.used_bytes() < used
    assert pool.free_bytes() > 0 and pool.n_free_blocks() >= 1
    assert "MemoryPool" in repr(pool)
    s = mctx.stats()
    for k in ("driver_allocations", "driver_frees", "pool_hits", "pool_misses",
              "pool_used_bytes", "pool_cached_bytes", "gpu_zero_bytes", "cpu_zero_bytes"):
        assert k in s
    with pytest.raises(ValueError, match="fraction"):
        pool.set_limit(fraction=2)
    with pytest.raises(ValueError, match="size"):
        pool.set_limit(-1)


def test_expression_loop_allocates_a_bounded_number_of_times(mctx):
    x = np.linspace(-1, 1, 1000, dtype=np.float32)
    y = np.linspace(2, 3, 1000, dtype=np.float32)
    a, b = vp.asarray(x, context=mctx), vp.asarray(y, context=mctx)
    c = a * b + 1  # the first iteration plans and allocates
    s0 = _stats(mctx)
    for _ in range(10_000):
        c = a * b + 1
    s1 = _stats(mctx)
    assert s1["driver_allocations"] - s0["driver_allocations"] <= 2
    assert s1["pool_hits"] - s0["pool_hits"] >= 19_990
    assert s1["pool_misses"] - s0["pool_misses"] <= 4
    np.testing.assert_allclose(c.numpy(), x * y + 1, rtol=1e-6)


@pytest.mark.parametrize("memory", ["device", "host", "cached", "rebar"])
def test_fresh_empty_after_free_reads_zeros(mctx, memory):
    n = 50_000
    a = vp.full(n, 7.5, np.float32, memory=memory, context=mctx)
    np.testing.assert_array_equal(a.numpy(), np.full(n, 7.5, np.float32))
    buf_id = id(a.buffer)
    addr = a.buffer.address
    del a
    hits = _stats(mctx)["pool_hits"]
    e = vp.empty(n, np.float32, memory=memory, context=mctx)
    assert _stats(mctx)["pool_hits"] == hits + 1  # the freed buffer came back
    if addr is not None:
        assert e.buffer.address == addr
    del buf_id
    np.testing.assert_array_equal(e.numpy(), np.zeros(n, np.float32))
    if e.mappable:
        np.testing.assert_array_equal(e.numpy_view(), np.zeros(n, np.float32))
    # a smaller request of the same size class: zeros too
    del e
    f = vp.empty(n - 7, np.float32, memory=memory, context=mctx)
    np.testing.assert_array_equal(f.numpy(), np.zeros(n - 7, np.float32))


def test_unmapped_device_memory_reused_reads_zeros():
    c = vp.Context(no_device_mapping=True)
    n = 70_000
    a = vp.full(n, 3.0, np.float32, memory="device", context=c)
    del a
    e = vp.zeros(n, memory="device", context=c)
    assert c.stats()["pool_hits"] >= 1
    np.testing.assert_array_equal(e.numpy(), np.zeros(n, np.float32))


def test_written_results_are_not_zeroed_and_zeros_are_zeroed_on_the_gpu(mctx):
    n = 1 << 16
    x = np.random.default_rng(1).standard_normal(n).astype(np.float32)
    a = vp.asarray(x, memory="rebar", context=mctx)
    s0 = _stats(mctx)
    c = a + a
    s1 = _stats(mctx)
    assert s1["gpu_zero_bytes"] + s1["cpu_zero_bytes"] == \
        s0["gpu_zero_bytes"] + s0["cpu_zero_bytes"]
    np.testing.assert_allclose(c.numpy(), x + x)
    z = vp.zeros(n, memory="rebar", context=mctx)
    # the fill is owed until the first use (lazy zeroing), here the read
    np.testing.assert_array_equal(z.numpy_view(), np.zeros(n, np.float32))
    s2 = _stats(mctx)
    assert s2["gpu_zero_bytes"] - s1["gpu_zero_bytes"] >= 4 * n
    assert s2["cpu_zero_bytes"] == s1["cpu_zero_bytes"]
    h = vp.zeros(n, memory="host", context=mctx)  # host kinds: memset
    assert _stats(mctx)["cpu_zero_bytes"] - s2["cpu_zero_bytes"] >= 4 * n
    np.testing.assert_array_equal(h.numpy_view(), np.zeros(n, np.float32))


def test_buffer_used_by_queued_work_is_not_handed_out(mctx):
    """A sync=False chain reads `a`; `a` is freed while the chain runs (its
    handles dropped, so nothing in Python holds the buffer): the next array
    of its size must get other memory until the chain is done."""
    n = 1 << 22
    x = np.linspace(0, 1, n, dtype=np.float32)
    seen_busy = False
    for attempt in range(6):
        a = vp.asarray(x, context=mctx)
        out = vp.empty(n, context=mctx)
        vp.sin(a, out=out)  # plan the signature (the fast path follows)
        for _ in range(4 << attempt):  # longer chains until one outlasts the allocation
            vp.sin(a, out=out, sync=False)  # the handle dies at once
        last = a.buffer.last_use
        addr, hits = a.buffer.address, _stats(mctx)["pool_hits"]
        del a
        fresh = vp.empty(n, context=mctx)
        if not mctx._native.ticket_done(last):  # still running after the allocation
            seen_busy = True
            if addr is not None:
                assert fresh.buffer.address != addr
            if attempt == 0:  # later attempts free the earlier ones' buffers of the class
                assert _stats(mctx)["pool_hits"] == hits  # nothing of that class was free
        mctx.synchronize()
        np.testing.assert_allclose(out.numpy(), np.sin(x), rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(fresh.numpy(), np.zeros(n, np.float32))
        if seen_busy:
            # once the work is done, the freed memory is handed out again
            hits = _stats(mctx)["pool_hits"]
            again = vp.empty(n, context=mctx)
            assert _stats(mctx)["pool_hits"] == hits + 1
            if addr is not None:
                assert again.buffer.address == addr
            np.testing.assert_array_equal(again.numpy(), np.zeros(n, np.float32))
            break
        del out, fresh
    assert seen_busy, "the chain never ran long enough to test reuse while busy"


def test_pool_under_eight_threads(mctx):
    errors = []

    def work(k):
        try:
            rng = np.random.default_rng(k)
            for i in range(40):
                n = 1000 + 37 * ((k + i) % 5)
                x = rng.standard_normal(n).astype(np.float32)
                a = vp.asarray(x, context=mctx)
                c = a * 2.0 + 1.0
                np.testing.assert_allclose(c.numpy(), x * 2 + 1, rtol=1e-6)
                e = vp.empty(n, context=mctx)
                assert not e.numpy().any()
        except Exception as ex:  # noqa: BLE001 - reported below
            errors.append(ex)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


def test_free_all_blocks_returns_memory_to_the_driver(mctx):
    pool = mctx.memory_pool
    # 40 MiB each: blocks of their own (small buffers share 64 MiB blocks
    # with the context's staging ring and other live buffers)
    arrays = [vp.zeros(10 << 20, context=mctx) for _ in range(3)]
    del arrays
    assert pool.free_bytes() >= 3 * 40 << 20
    s0 = _stats(mctx)
    pool.free_all_blocks()
    s1 = _stats(mctx)
    assert pool.free_bytes() == 0 and pool.n_free_blocks() == 0
    assert s1["driver_frees"] > s0["driver_frees"]
    assert s1["block_bytes"] < s0["block_bytes"]


def test_set_limit_then_out_of_memory(mctx):
    pool = mctx.memory_pool
    pool.free_all_blocks()
    base = pool.used_bytes()
    try:
        pool.set_limit(base + (8 << 20))
        assert pool.get_limit() == base + (8 << 20)
        a = vp.empty(1 << 20, context=mctx)  # 4 MiB: fits
        with pytest.raises(vp.OutOfMemoryError) as ei:
            vp.empty(2 << 20, context=mctx)  # 8 MiB more: does not
        msg = str(ei.value)
        assert "cannot allocate 8388608 bytes" in msg
        assert f"limit is {base + (8 << 20)} bytes" in msg
        assert isinstance(ei.value, MemoryError)
        del a
        b = vp.empty(2 << 20, context=mctx)  # the cached 4 MiB go: it fits now
        np.testing.assert_array_equal(b.numpy()[:10], np.zeros(10, np.float32))
        del b
    finally:
        pool.set_limit(0)
    assert pool.get_limit() == 0
    c = vp.empty(4 << 20, context=mctx)
    assert c.size == 4 << 20


def test_driver_out_of_memory_names_the_sizes(mctx):
    """The driver refuses (an injected VK_ERROR_OUT_OF_DEVICE_MEMORY) with
    nothing cached to free: vp.OutOfMemoryError with the size and the heap.
    Every call fails while the fault is set: a device with more than one
    memory type for the kind (the H200's rebar falls back to plain device
    memory) would otherwise succeed on its next type."""
    pool = mctx.memory_pool
    pool.free_all_blocks()
    heap = max(h["size"] for h in mctx.info["memory"]["heaps"])
    mctx._native.inject_fault("vkAllocateMemory", -2, 0)
    try:
        with pytest.raises(vp.OutOfMemoryError) as ei:
            vp.empty(50 << 18, context=mctx)  # 50 MiB: a block of its own
    finally:
        mctx._native.inject_fault(None)
    msg = str(ei.value)
    assert "cannot allocate 52428800 bytes of" in msg
    assert re.search(r"its heap has \d+ bytes", msg) and heap > 0
    # the next request goes through
    a = vp.full(50 << 18, 2.0, context=mctx)
    assert float(a[-1:].numpy()[0]) == 2.0


def test_lazy_zeroing_empty_pays_no_fill_it_never_needs(mctx):
    """vp.empty's GPU zero fill is owed, not recorded: an out= that writes
    every element drops it; a host read or a partial write first performs
    it, so no stale data is ever visible (issue 21)."""
    n = 1 << 18
    x = np.random.default_rng(5).standard_normal(n).astype(np.float32)
    a = vp.asarray(x, memory="rebar", context=mctx)
    vp.multiply(a, 2.0, out=vp.empty(n, memory="rebar", context=mctx))  # plan out=
    for _ in range(3):  # leave known non-zero contents in the pool's buffers
        junk = vp.asarray(x + 7, memory="rebar", context=mctx)
        del junk
    s0 = _stats(mctx)
    e = vp.empty(n, memory="rebar", context=mctx)
    assert _stats(mctx)["gpu_zero_bytes"] == s0["gpu_zero_bytes"]  # owed, not paid
    vp.multiply(a, 2.0, out=e)  # writes every element: the fill is dropped
    s1 = _stats(mctx)
    assert s1["zero_fills_dropped"] == s0["zero_fills_dropped"] + 1
    assert s1["gpu_zero_bytes"] == s0["gpu_zero_bytes"]
    np.testing.assert_array_equal(e.numpy_view(), x * 2)
    # read first: zeros, by a GPU fill recorded at the read
    for _ in range(3):
        junk = vp.asarray(x + 7, memory="rebar", context=mctx)
        del junk
    z = vp.empty(n, memory="rebar", context=mctx)
    np.testing.assert_array_equal(z.numpy_view(), np.zeros(n, np.float32))
    assert _stats(mctx)["gpu_zero_bytes"] - s1["gpu_zero_bytes"] >= 4 * n
    # a kernel that writes part of it: the rest reads as zeros
    junk = vp.asarray(x + 7, memory="rebar", context=mctx)
    del junk
    p = vp.empty(2 * n, memory="rebar", context=mctx)
    p[:n] = a  # a partial write on the GPU
    got = p.numpy()
    np.testing.assert_array_equal(got[:n], x)
    np.testing.assert_array_equal(got[n:], np.zeros(n, np.float32))
    # device memory (unmapped on discrete GPUs) read through a download
    junk = vp.asarray(x + 7, memory="device", context=mctx)
    del junk
    np.testing.assert_array_equal(vp.empty(n, memory="device", context=mctx).numpy(),
                                  np.zeros(n, np.float32))


def test_lazy_zeroing_dropped_on_the_extension_out_path(mctx):
    """vp.add(a, b, out=e) in the extension's fast path (after the first
    call) drops a fresh vp.empty's owed fill too; values are NumPy's."""
    n = 1 << 18
    x = np.random.default_rng(6).standard_normal(n).astype(np.float32)
    a = vp.asarray(x, memory="rebar", context=mctx)
    b = vp.asarray(x * 3, memory="rebar", context=mctx)
    vp.add(a, b, out=vp.empty(n, memory="rebar", context=mctx))  # plans it
    vp.add(a, b, out=vp.empty(n, memory="rebar", context=mctx))
    for _ in range(3):
        e = vp.empty(n, memory="rebar", context=mctx)
        s0 = _stats(mctx)
        vp.add(a, b, out=e)
        s1 = _stats(mctx)
        assert s1["zero_fills_dropped"] == s0["zero_fills_dropped"] + 1
        assert s1["gpu_zero_bytes"] == s0["gpu_zero_bytes"]
        np.testing.assert_array_equal(e.numpy_view(), x + x * 3)
