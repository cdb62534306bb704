"""Eager ufuncs (issue 21): a ufunc or operator on resident arrays submits
its dispatch and returns without waiting for the GPU, as CuPy's do; every
host read of a buffer waits for the work that uses it (numpy_view(),
.numpy(), float(), np.asarray, printing), and so does a host write through
a view taken after the work was submitted (write after read). Values are
checked against NumPy. The chains are long enough that lavapipe is still
running them when the host reads, so a missing wait reads stale data."""
import numpy as np
import pytest

import vulpy as vp
from conftest import needs_ext

pytestmark = needs_ext

N = 1 << 20
STEPS = 24


@pytest.fixture(scope="module")
def ectx():
    return vp.Context()


def _chain(ctx, memory=None):
    """(resident result of a long chain, NumPy's)."""
    h = np.linspace(0, 1, N, dtype=np.float32)
    x = vp.asarray(h, memory=memory, context=ctx)
    for i in range(STEPS):
        x = x * 1.5 + float(i)  # Python scalars: the resident fast path
        h = h * np.float32(1.5) + np.float32(i)
    return x, h


def _mappable(ctx):
    return vp.empty(4, context=ctx).mappable


def test_chain_then_numpy_view(ectx):
    if not _mappable(ectx):
        pytest.skip("default memory is not host-visible")
    x, h = _chain(ectx)
    np.testing.assert_array_equal(x.numpy_view(), h)


def test_chain_then_every_host_read(ectx):
    readers = [
        lambda x: x.numpy(),
        lambda x: np.asarray(x),
        lambda x: x.get(),
        lambda x: np.array(x.tolist(), np.float32),
    ]
    for read in readers:
        x, h = _chain(ectx)
        np.testing.assert_array_equal(read(x), h)


def test_chain_then_scalar_and_repr(ectx):
    big = vp.asarray(np.ones(N, np.float32), context=ectx)
    x = vp.asarray(np.float32([0.5]), context=ectx)
    y = vp.asarray(np.arange(4, dtype=np.float32), context=ectx)
    for _ in range(STEPS):
        big = big + 1.0  # keeps the queue busy
        x = x + 1.0
        y = y + 1.0
    assert float(x) == 0.5 + STEPS
    assert x.item() == 0.5 + STEPS
    assert repr(y).startswith(f"vp.ndarray([{STEPS}., {STEPS + 1}.")
    np.testing.assert_array_equal(big.numpy(), 1 + STEPS)


def test_write_through_view_after_a_kernel_that_reads(ectx):
    """Write after read: the view's host write waits for the queued kernel
    that reads the buffer, so the kernel sees the old values."""
    if not _mappable(ectx):
        pytest.skip("default memory is not host-visible")
    h = np.linspace(1, 2, N, dtype=np.float32)
    a = vp.asarray(h, context=ectx)
    busy = vp.asarray(h, context=ectx)
    for _ in range(STEPS):
        busy = busy * 1.0001  # queued ahead of the read of a
    b = a * 2.0
    a.numpy_view()[:] = 0
    np.testing.assert_array_equal(b.numpy(), h * np.float32(2))
    np.testing.assert_array_equal(a.numpy(), 0)


def test_out_then_view(ectx):
    """The out= path (the extension's fast path after the first call) is
    eager too: a view taken after it shows the result."""
    if not _mappable(ectx):
        pytest.skip("default memory is not host-visible")
    h = np.linspace(0, 1, N, dtype=np.float32)
    a = vp.asarray(h, context=ectx)
    o = vp.empty(N, context=ectx)
    for k in range(4):
        vp.multiply(a, float(k), out=o)
        for _ in range(STEPS // 2):
            vp.add(o, 1.0, out=o)
        want = h * np.float32(k)
        for _ in range(STEPS // 2):
            want = want + np.float32(1)
        np.testing.assert_array_equal(o.numpy_view(), want)


def test_held_view_sees_results_after_synchronize(ectx):
    if not _mappable(ectx):
        pytest.skip("default memory is not host-visible")
    o = vp.zeros(N, context=ectx)
    v = o.numpy_view()
    vp.add(o, 3.0, out=o)
    ectx.synchronize()
    np.testing.assert_array_equal(v, 3)


def test_sync_false_still_returns_a_handle(ectx):
    a = vp.asarray(np.arange(8, dtype=np.float32), context=ectx)
    h = vp.add(a, a, sync=False)
    assert isinstance(h, vp.Handle)
    np.testing.assert_array_equal(h.wait().numpy(), np.arange(8) * 2)


def test_eager_loop_reuses_one_recorded_launch(ectx):
    """Resubmitting a launch that is still pending (recorded for
    simultaneous use) instead of recording one per call."""
    a = vp.asarray(np.ones(N, np.float32), context=ectx)
    o = vp.empty(N, context=ectx)
    vp.add(a, a, out=o)
    ectx.synchronize()
    before = ectx.stats()
    for _ in range(32):
        vp.add(a, a, out=o)
    after = ectx.stats()
    assert after["dispatches"] - before["dispatches"] == 32
    assert after["reused_launches"] - before["reused_launches"] == 32
    np.testing.assert_array_equal(o.numpy(), 2)


def test_launches_close_only_where_the_host_reads(ectx):
    """A launch whose buffers are all device-local (memory the host cannot
    map: discrete GPUs) ends without the closing barrier: its writes reach
    later work through that work's opening barrier, and the host reads them
    only through a copy, which closes. A launch that binds host-visible
    memory (every buffer on lavapipe; 'cached' arrays everywhere) still
    closes. A chain of dependent calls over both kinds, read back, checks
    the ordering against NumPy."""
    host_visible = 0x2  # VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT
    h = np.linspace(0, 1, N, dtype=np.float32)
    a = vp.asarray(h, context=ectx)
    c = vp.asarray(h, context=ectx, memory="cached")
    t = vp.empty(N, context=ectx)
    ectx.synchronize()
    device_only = not a._buf.memory_flags & host_visible
    assert c._buf.memory_flags & host_visible
    s0 = ectx.stats()
    for _ in range(8):
        vp.multiply(a, 0.5, out=t)      # reads a, writes t
        vp.add(t, 1.0, out=a)           # reads t (just written), writes a (just read)
        h = h * np.float32(0.5) + np.float32(1.0)
    s1 = ectx.stats()
    vp.add(a, 0.0, out=c)               # binds host-visible memory: closes
    s2 = ectx.stats()
    ectx.synchronize()
    np.testing.assert_array_equal(a.numpy(), h)
    np.testing.assert_array_equal(np.asarray(c), h)
    assert s1["dispatches"] - s0["dispatches"] == 16
    assert s1["open_launches"] - s0["open_launches"] == (16 if device_only else 0)
    assert s2["open_launches"] == s1["open_launches"]


def test_results_reuse_memory_in_queue_order(ectx):
    """A chain that runs ahead of the GPU: each result takes a freed
    temporary's memory although queued work still uses it (queue order
    makes that safe, as in CuPy's pool), so the pool neither grows nor
    waits, and the values are NumPy's.

    The GPU is held first: the default queue waits on a gate event that
    the host opens only after the chain is queued, so no operation of the
    chain can be done when the next one is queued, however fast the device
    (on the H200 each 1M-element operation used to finish before Python
    queued the next, and nothing was "ordered"). A timer opens the gate
    after 60 s, so a regression that waits fails instead of hanging."""
    import threading
    n = 1 << 20
    h = np.linspace(0, 1, n, dtype=np.float32)
    x = vp.asarray(h, context=ectx)
    x = x * 1.0 + 0.0  # plan the signatures
    ectx.synchronize()
    gate = vp.Event(ectx, gate=True)
    assert gate._native.wait_on(ectx._native, None) == "gpu"  # the default stream's queue
    timer = threading.Timer(60.0, gate.set)
    timer.start()
    try:
        s0 = ectx.stats()
        for i in range(64):
            x = x * 0.5 + 1.0
            h = h * np.float32(0.5) + np.float32(1.0)
        s1 = ectx.stats()
        held = not gate.done
    finally:
        gate.set()
        timer.cancel()
    assert held, "the gate opened (timer) before the chain was queued: the host waited"
    np.testing.assert_array_equal(x.numpy(), h)
    assert s1["pool_waits"] == s0["pool_waits"]
    assert s1["pool_ordered"] - s0["pool_ordered"] >= 64  # every result: a busy temporary
    assert s1["pool_misses"] - s0["pool_misses"] <= 2
    assert s1["driver_allocations"] - s0["driver_allocations"] <= 1
