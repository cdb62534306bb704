"""Streams and events (issue 18; docs/multidevice.md, "Streams"): two
streams' results with and without events, a transfer-stream upload beside a
kernel on a compute stream, `stream=` on kernel calls, a gate event holding
a stream's queued work while the memory pool refuses to hand out the buffer
that work uses, events of one context waited for by another (the host
wait), and the argument errors. Lavapipe has one queue, so every stream
here shares it (`shared`); the runtime's semaphores, tickets and waits are
the same code a multi-queue device runs."""
import ctypes
import re

import numpy as np
import pytest

import vulpy as vp
from conftest import needs_ext, needs_target

pytestmark = needs_ext


@pytest.fixture(scope="module")
def kernels():
    @vp.kernel(local_size_x=64)
    def axpb(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32], n: vp.uint32,
             a: vp.float32, b: vp.float32):
        i = vp.global_id()
        if i < n:
            y[i] = y[i] * a + x[i] + b

    @vp.kernel(local_size_x=64)
    def busy(x: vp.Buffer[vp.float32], n: vp.uint32, reps: vp.uint32):
        i = vp.global_id()
        if i < n:
            acc = vp.var(x[i])
            for k in range(reps):
                acc = acc * 0.5 + 1.0
            x[i] = acc

    return axpb, busy


def _busy_want(x, reps):
    x = x.astype(np.float32).copy()
    for _ in range(reps):
        x = x * np.float32(0.5) + np.float32(1)
    return x


def test_stream_properties(ctx):
    s = vp.Stream()
    assert s.context is ctx and s.kind == "compute"
    t = vp.Stream(ctx, kind="transfer")
    assert t.kind == "transfer"
    assert isinstance(s.queue_family, int) and isinstance(s.queue_index, int)
    if ctx.info.get("kind") == "cpu" or "llvmpipe" in ctx.name:
        assert s.shared and t.shared  # lavapipe: one queue
    assert "vp.Stream compute" in repr(s)
    assert s.query() and s.done
    s.synchronize()
    assert vp.current_stream() is None
    with s:
        assert vp.current_stream() is s
        with t:
            assert vp.current_stream() is t
        assert vp.current_stream() is s
    assert vp.current_stream() is None


@needs_target
def test_two_streams_without_events(ctx, kernels):
    axpb, _ = kernels
    n = 3000
    rng = np.random.default_rng(1)
    x0 = rng.standard_normal(n).astype(np.float32)
    s1, s2 = vp.Stream(), vp.Stream()
    x = vp.asarray(x0)
    y1, y2 = vp.zeros(n, np.float32), vp.ones(n, np.float32)
    w1, w2 = np.zeros(n, np.float32), np.ones(n, np.float32)
    for r in range(6):
        axpb(x, y1, dispatch=n, n=n, a=0.5, b=float(r), sync=False, stream=s1)
        with s2:
            axpb(x, y2, dispatch=n, n=n, a=2.0, b=-1.0, sync=False)
        w1 = w1 * np.float32(0.5) + x0 + np.float32(r)
        w2 = w2 * np.float32(2.0) + x0 - np.float32(1)
    s1.synchronize()
    s2.synchronize()
    np.testing.assert_allclose(y1.numpy(), w1, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(y2.numpy(), w2, rtol=1e-5, atol=1e-4)


@needs_target
def test_two_streams_with_an_event(ctx, kernels):
    axpb, busy = kernels
    n = 2048
    x0 = np.linspace(-1, 1, n, dtype=np.float32)
    s1, s2 = vp.Stream(), vp.Stream()
    x = vp.asarray(x0)
    z = vp.zeros(n, np.float32)
    with s1:
        busy(x, dispatch=n, n=n, reps=50, sync=False)   # s1 writes x ...
        ev = s1.record()
    assert isinstance(ev, vp.Event)
    assert s2.wait_event(ev) == "gpu" and ev.how == "gpu"
    with s2:
        axpb(x, z, dispatch=n, n=n, a=0.0, b=1.0, sync=False)  # ... s2 reads it after
    s2.synchronize()
    assert ev.done and ev.query()
    xw = _busy_want(x0, 50)
    np.testing.assert_allclose(z.numpy(), xw + 1, rtol=1e-5)
    np.testing.assert_allclose(x.numpy(), xw, rtol=1e-5)


@needs_target
def test_gate_holds_queued_work_and_the_pool(ctx, kernels):
    """A stream waits on a gate the host has not opened: its kernel is
    queued, not run; a buffer that kernel uses, freed meanwhile, is not
    handed out again (the pool would give it back at once otherwise, as the
    end of the test shows); opening the gate runs the work."""
    axpb, _ = kernels
    n = 4096
    s = vp.Stream()
    gate = vp.Event(ctx, gate=True)
    assert not gate.done
    x = vp.asarray(np.full(n, 2, np.float32), memory="host")
    y = vp.asarray(np.full(n, 10, np.float32), memory="host")
    s.wait_event(gate)
    axpb(x, y, dispatch=n, n=n, a=1.0, b=0.5, sync=False, stream=s)
    assert not s.query()
    # the mapping, read without the wait the buffer protocol makes
    view = np.ctypeslib.as_array((ctypes.c_float * n).from_address(y.buffer.address))
    assert view[7] == 10                            # not run yet
    xaddr = x.buffer.address
    del x
    fresh = [vp.empty(n, np.float32, memory="host") for _ in range(3)]
    assert all(f.buffer.address != xaddr for f in fresh)   # not handed out early
    gate.set()
    s.synchronize()
    np.testing.assert_array_equal(y.numpy(), np.full(n, 12.5, np.float32))
    del fresh
    again = [vp.empty(n, np.float32, memory="host") for _ in range(4)]
    assert any(a.buffer.address == xaddr for a in again)   # and reused once done


@needs_target
def test_transfer_stream_beside_a_kernel():
    """An upload on a transfer stream (device memory that is not mapped:
    the staging ring's GPU copies) while a kernel runs on a compute stream;
    the compute stream then reads the upload after its event."""
    c = vp.Context(no_device_mapping=True)
    axpb, busy = _kernels_for(c)
    n = 1 << 20
    host = np.arange(n, dtype=np.float32)
    cs, ts = vp.Stream(c, "compute"), vp.Stream(c, "transfer")
    work = vp.asarray(np.ones(4096, np.float32), context=c)
    big = vp.empty(n, np.float32, context=c, memory="device")
    with cs:
        busy(work, dispatch=4096, n=4096, reps=200, sync=False)
    with ts:
        big.set(host)
        up = ts.record()
    cs.wait_event(up)
    out = vp.zeros(n, np.float32, context=c)
    with cs:
        axpb(big, out, dispatch=n, n=n, a=0.0, b=3.0, sync=False)
    cs.synchronize()
    np.testing.assert_allclose(work.numpy(), _busy_want(np.ones(4096), 200), rtol=1e-6)
    np.testing.assert_array_equal(out.numpy(), host + 3)
    np.testing.assert_array_equal(big.numpy(), host)


def _kernels_for(c):
    @vp.kernel(local_size_x=64, context=c)
    def axpb(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32], n: vp.uint32,
             a: vp.float32, b: vp.float32):
        i = vp.global_id()
        if i < n:
            y[i] = y[i] * a + x[i] + b

    @vp.kernel(local_size_x=64, context=c)
    def busy(x: vp.Buffer[vp.float32], n: vp.uint32, reps: vp.uint32):
        i = vp.global_id()
        if i < n:
            acc = vp.var(x[i])
            for k in range(reps):
                acc = acc * 0.5 + 1.0
            x[i] = acc

    return axpb, busy


@needs_target
def test_event_across_contexts(ctx, kernels):
    """An event of one context waited for by a stream of another: the host
    waits (`how` says so), and the other context then sees the data."""
    _, busy = kernels
    other = vp.Context()
    n = 4096
    h = vp.HostArray(n, np.float32)
    xa = h.on(ctx)
    sa = vp.Stream(ctx)
    sb = vp.Stream(other)
    with sa:
        busy(xa, dispatch=n, n=n, reps=100, sync=False)
    ev = sa.record()
    how = sb.wait_event(ev)
    assert ev.how == how
    # lavapipe exports no semaphores: the host waits; two contexts on one GPU
    # whose driver exports timeline semaphores wait on the device instead
    assert how in ("host", "semaphore")
    if how == "host":
        assert ev.done
    sb.synchronize()
    np.testing.assert_allclose(h.numpy(), _busy_want(np.zeros(n), 100), rtol=1e-6)
    # an event goes to after= like a handle
    ev2 = vp.Event(ctx).record(sa)
    ev2.synchronize()
    with pytest.raises(ValueError, match="belongs to"):
        vp.Event(ctx).record(sb)


def test_errors(ctx, kernels):
    with pytest.raises(ValueError, match="kind="):
        vp.Stream(kind="copy")
    s = vp.Stream()
    with pytest.raises(TypeError, match="vp.Event"):
        s.wait_event(object())
    with pytest.raises(TypeError, match="vp.Stream"):
        vp.Event().record(stream=3)
    with pytest.raises(ValueError, match="gate"):
        vp.Event().set()
    with pytest.raises(ValueError, match="gate"):
        vp.Event(gate=True).record()
    axpb, _ = kernels
    x = vp.zeros(4, np.float32)
    with pytest.raises(TypeError, match="stream="):
        axpb(x, x, dispatch=4, n=4, a=1.0, b=1.0, stream="s")
    assert vp.current_stream() is None


def test_dlpack_cuda_import_is_kept(ctx):
    """Where CUDA is (the H200 run of this file): the first export of a
    buffer imports it, later exports reuse that import (same pointer, the
    same bytes), and the values written by VulPy are what CUDA reads."""
    info = vp.cuda_interop(ctx)
    if not info["available"]:
        pytest.skip(f"no CUDA here: {info['reason']}")
    ext = vp._native.ext()
    x = vp.empty(1 << 20, np.float32, exportable=True)
    x[...] = np.float32(3)
    m1 = ext.cuda_import(x.buffer, ctx.info["device_uuid"])
    m2 = ext.cuda_import(x.buffer, ctx.info["device_uuid"])
    assert m1 is m2 and m1.pointer != 0
    caps = [x.__dlpack__(dl_device=(2, info["cuda_device"])) for _ in range(3)]
    assert all(type(c).__name__ == "PyCapsule" for c in caps)
    del caps, m1, m2
    y = vp.empty(1 << 20, np.float32, exportable=True)  # its own buffer, its own import
    assert ext.cuda_import(y.buffer, ctx.info["device_uuid"]).pointer != \
        ext.cuda_import(x.buffer, ctx.info["device_uuid"]).pointer
    cupy = pytest.importorskip("cupy")
    t = cupy.from_dlpack(x)
    assert float(t[12345]) == 3.0
    t *= 2
    cupy.cuda.Device().synchronize()
    np.testing.assert_array_equal(x.numpy()[:16], np.full(16, 6, np.float32))


def test_dlpack_cuda_export_absent(ctx):
    """No CUDA here (lavapipe, no libcuda): vp.cuda_interop says why, an
    exportable array works as a VulPy array, and asking __dlpack__ for a
    kDLCUDA tensor is a BufferError that says why."""
    info = vp.cuda_interop(ctx)
    assert set(info) == {"available", "cuda_device", "reason"}
    if info["available"]:
        pytest.skip("CUDA is here: bench/bench_dlpack.py covers it")
    assert info["cuda_device"] is None and info["reason"]
    e = vp.empty(1000, np.float32, exportable=True)
    assert e.memory == "device" and e.buffer.owner == "exportable"
    np.testing.assert_array_equal(e.numpy(), np.zeros(1000, np.float32))
    e += 2.5
    np.testing.assert_array_equal(e.numpy(), np.full(1000, 2.5, np.float32))
    assert e.__dlpack_device__()[0] == 7  # not CUDA: kDLVulkan, no export
    with pytest.raises(BufferError, match="kDLCUDA.*not available"):
        e.__dlpack__(dl_device=(2, 0))
    with pytest.raises(BufferError, match="kDLCUDA.*not available"):
        e.__dlpack__()
    assert type(e.__dlpack__(copy=True)).__name__ == "PyCapsule"  # a host copy still goes
    x = vp.arange(8, dtype=np.float32, memory="host")
    with pytest.raises(BufferError, match="exportable=True"):
        x.__dlpack__(dl_device=(2, 0))
    with pytest.raises(BufferError, match="kDLCPU"):
        x.__dlpack__(dl_device=(4, 0))
    with pytest.raises(ValueError, match="'device' memory"):
        vp.empty(4, np.float32, memory="host", exportable=True)
    with pytest.raises(TypeError, match="bool"):
        vp.empty(4, np.bool_, exportable=True)


@vp.kernel(local_size_x=1)
def _ones(a: vp.Buffer[vp.float32]):
    a[vp.global_id()] = 1.0


@needs_target
def test_too_many_workgroups_on_every_path(ctx):
    """A grid past maxComputeWorkGroupCount is an error naming the limit
    whichever way the kernel is launched: synchronously, with sync=False,
    on a stream (stream= and `with`), from other threads (with and without
    a stream), along x and y. Nothing runs, and a good launch still does."""
    import threading
    lim = ctx.info["limits"]["max_workgroup_count"]
    s = vp.Stream()
    a = vp.zeros(16, np.float32)
    calls = {
        "sync": lambda g: _ones(a, groups=g),
        "sync=False": lambda g: _ones(a, groups=g, sync=False).wait(),
        "stream=": lambda g: _ones(a, groups=g, sync=False, stream=s).wait(),
    }

    def in_stream(g):
        with s:
            _ones(a, groups=g, sync=False)

    calls["with stream"] = in_stream
    for axis in (0, 1):
        if lim[axis] >= 2 ** 32 - 1:
            continue
        g = [1, 1, 1]
        g[axis] = lim[axis] + 1
        g = tuple(g)
        want = rf"maxComputeWorkGroupCount\[{axis}\] is {lim[axis]}"
        for name, call in calls.items():
            with pytest.raises(vp.VulkanError, match=want):
                call(g)
        errors = {}

        def threaded(name, call, g=g):
            try:
                call(g)
            except vp.VulkanError as e:
                errors[name] = str(e)

        ts = [threading.Thread(target=threaded, args=(f"thread {n}", c)) for n, c in calls.items()]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        assert sorted(errors) == sorted(f"thread {n}" for n in calls)
        assert all(re.search(want, e) for e in errors.values()), errors
    s.synchronize()
    np.testing.assert_array_equal(a.numpy(), 0)  # nothing ran
    _ones(a, dispatch=16)
    np.testing.assert_array_equal(a.numpy(), 1)


@needs_target
def test_host_access_waits_only_for_the_buffers_work(ctx, kernels):
    """Uploading into, reading and freeing a host-visible buffer wait for
    the work that used it, on each queue, not for another stream's pending
    work (issue 21: vrt_buffer_wait). A stream held by a gate has a kernel
    pending; a buffer only the default stream used is then written and
    read at once. Needs a stream with a queue of its own (the H200): with
    one queue (lavapipe) the gated batch holds everything after it anyway.
    A timer opens the gate after 20 s, so a wait for it fails the timing
    instead of hanging."""
    import threading
    import time
    axpb, _ = kernels
    s = vp.Stream()
    if s.shared:
        pytest.skip("the streams share one queue on this device")
    n = 4096
    x = vp.asarray(np.full(n, 2, np.float32))
    y = vp.asarray(np.full(n, 10, np.float32))
    h = vp.asarray(np.full(n, 1, np.float32), memory="host")
    gate = vp.Event(ctx, gate=True)
    s.wait_event(gate)
    axpb(x, y, dispatch=n, n=n, a=1.0, b=0.5, sync=False, stream=s)  # pending behind the gate
    # then h = 1 + 2 + 0.5 on the default stream: a later ticket than the
    # gated one, which a wait for "every queue's tickets up to h's" waits for
    axpb(x, h, dispatch=n, n=n, a=1.0, b=0.5, sync=False)
    # an imported NumPy array (where the device imports host memory): its
    # destroy waits for its own GPU work, not the gated stream's
    g = vp.asarray(np.full(1 << 16, 3, np.float32), memory="host")
    axpb(x, g, dispatch=n, n=n, a=1.0, b=0.5, sync=False)
    timer = threading.Timer(20.0, gate.set)
    timer.start()
    try:
        t0 = time.perf_counter()
        np.testing.assert_array_equal(h.numpy(), np.full(n, 3.5, np.float32))
        h.set(np.full(n, 7, np.float32))
        np.testing.assert_array_equal(np.asarray(h.numpy_view()), np.full(n, 7, np.float32))
        del h, g
        took = time.perf_counter() - t0
        still_closed = not gate.done
    finally:
        gate.set()
        timer.cancel()
    assert still_closed and took < 5.0, f"host access took {took:.3f} s beside a gated stream"
    s.synchronize()
    np.testing.assert_array_equal(y.numpy(), np.full(n, 12.5, np.float32))
