"""Queue families and transfers (issue 18 follow-up; docs/multidevice.md,
"Streams"): buffers stay VK_SHARING_MODE_EXCLUSIVE until a context has a
transfer stream; a transfer stream's copy of a buffer made EXCLUSIVE runs on
the compute family (routed), of one made since on the transfer family; the
same buffers move back and forth between a transfer stream and the compute
queues with values checked against NumPy. Lavapipe has one queue family,
so VULPY_TRANSFER_FAMILY=emulate makes transfer streams take the
transfer-family paths (own command pool, own staging ring, sharing
bookkeeping, routing) on the one queue.

Also the staging ring without the context lock (runtime/staging.c): an
upload that waits for a staging slot does not stop another thread's kernel
launch, and several threads upload, launch and download at once."""
import threading

import numpy as np
import pytest

import vulpy as vp
from conftest import needs_ext, needs_target

pytestmark = needs_ext

MiB = 1 << 20


def _kernels(c):
    @vp.kernel(local_size_x=256, context=c)
    def axpb(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32], n: vp.uint32,
             a: vp.float32, b: vp.float32):
        i = vp.global_id()
        if i < n:
            y[i] = y[i] * a + x[i] + b

    return axpb


@pytest.fixture
def emulated(monkeypatch):
    monkeypatch.setenv("VULPY_TRANSFER_FAMILY", "emulate")
    c = vp.Context(no_device_mapping=True)
    monkeypatch.delenv("VULPY_TRANSFER_FAMILY")
    return c


def test_exclusive_until_a_transfer_stream(emulated):
    c = emulated
    before = vp.empty(1000, np.float32, context=c, memory="device")
    vp.Stream(c, "compute")  # a compute stream changes nothing
    again = vp.empty(1000, np.float32, context=c, memory="device")
    assert c.stats()["conc_buffers"] == 0
    ts = vp.Stream(c, "transfer")
    after = vp.empty(1000, np.float32, context=c, memory="device")
    assert c.stats()["conc_buffers"] >= 1
    del before, again, after
    ts.synchronize()
    del ts  # the last transfer stream gone: new buffers are EXCLUSIVE again
    import gc
    gc.collect()
    n0 = c.stats()["conc_buffers"]
    vp.empty(1 << 16, np.float32, context=c, memory="device")
    assert c.stats()["conc_buffers"] == n0


@needs_target
def test_back_and_forth_between_families(emulated):
    """One buffer made before the transfer stream (EXCLUSIVE: its transfer
    copies are routed to the compute family) and one made after (shared:
    its copies run on the transfer family) go up on the transfer stream, are
    read and written by kernels on a compute stream, come back down on the
    transfer stream and on the default one, and are copied on both."""
    c = emulated
    axpb = _kernels(c)
    n = (9 * MiB) // 4 + 5  # two staging slots and a bit
    rng = np.random.default_rng(7)
    old = vp.empty(n, np.float32, context=c, memory="device")
    ts, cs = vp.Stream(c, "transfer"), vp.Stream(c, "compute")
    # emulated on the one queue where the device has one family (lavapipe);
    # a queue of its own where it has a transfer family (the H200)
    assert ts.kind == "transfer" and ts.shared == (ts.queue_family == cs.queue_family)
    new = vp.empty(n, np.float32, context=c, memory="device")
    out = vp.zeros(n, np.float32, context=c, memory="device")
    s0 = c.stats()
    want_out = np.zeros(n, np.float32)
    for r in range(4):
        h_old = rng.standard_normal(n).astype(np.float32)
        h_new = rng.standard_normal(n).astype(np.float32)
        with ts:
            old.set(h_old)
            new.set(h_new)
            up = ts.record()
        cs.wait_event(up)
        with cs:
            axpb(old, out, dispatch=n, n=n, a=0.5, b=float(r), sync=False)
            axpb(new, out, dispatch=n, n=n, a=1.0, b=1.0, sync=False)
            # the kernels write the uploaded buffers too
            axpb(out, new, dispatch=n, n=n, a=2.0, b=0.0, sync=False)
            done = cs.record()
        want_out = want_out * np.float32(0.5) + h_old + np.float32(r)
        want_out = want_out + h_new + np.float32(1)
        want_new = h_new * np.float32(2) + want_out
        ts.wait_event(done)
        with ts:  # down on the transfer stream (staging ring of its family)
            np.testing.assert_allclose(new.numpy(), want_new, rtol=1e-5, atol=1e-5)
            np.testing.assert_array_equal(old.numpy(), h_old)
            cp_new = new.copy()      # a GPU copy on the transfer family
            cp_old = old.copy()      # routed: old is EXCLUSIVE
        # and on the default stream (the compute family's ring)
        np.testing.assert_allclose(out.numpy(), want_out, rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(cp_new.numpy(), want_new, rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(cp_old.numpy(), h_old)
        # a default-queue kernel writes both, the transfer stream reads them
        # after an event of the default stream, then copies one onto the other
        axpb(cp_new, new, dispatch=n, n=n, a=0.0, b=2.0, sync=False)
        axpb(cp_old, old, dispatch=n, n=n, a=-1.0, b=0.0, sync=False)
        ts.wait_event(vp.Event(c).record())
        with ts:
            np.testing.assert_allclose(new.numpy(), want_new + 2, rtol=1e-5, atol=1e-5)
            np.testing.assert_array_equal(old.numpy(), np.zeros(n, np.float32))
            old.set(h_new)
            new.set(np.zeros(n, np.float32))
            up = ts.record()
        cs.wait_event(up)
        with cs:
            axpb(old, new, dispatch=n, n=n, a=1.0, b=0.5, sync=False)
        cs.synchronize()
        np.testing.assert_allclose(new.numpy(), h_new + np.float32(0.5), rtol=1e-6)
    s1 = c.stats()
    assert s1["xfer_copies"] > s0["xfer_copies"]   # new: on the transfer family
    assert s1["xfer_routed"] > s0["xfer_routed"]   # old: routed
    c.synchronize()


@needs_target
def test_kernel_refused_on_emulated_transfer_stream(emulated):
    c = emulated
    axpb = _kernels(c)
    x, y = vp.zeros(64, np.float32, context=c), vp.zeros(64, np.float32, context=c)
    ts = vp.Stream(c, "transfer")
    with pytest.raises(Exception, match="transfer stream"):
        axpb(x, y, dispatch=64, n=64, a=1.0, b=0.0, stream=ts)


def test_stream_queues_zero_still_one_queue(monkeypatch):
    monkeypatch.setenv("VULPY_STREAM_QUEUES", "0")
    monkeypatch.setenv("VULPY_TRANSFER_FAMILY", "emulate")  # ignored with one queue
    c = vp.Context(no_device_mapping=True)
    monkeypatch.delenv("VULPY_STREAM_QUEUES")
    monkeypatch.delenv("VULPY_TRANSFER_FAMILY")
    ts = vp.Stream(c, "transfer")
    x = vp.empty(3 * MiB // 4, np.float32, context=c, memory="device")
    h = np.arange(x.size, dtype=np.float32)
    with ts:
        x.set(h)
    ts.synchronize()
    np.testing.assert_array_equal(x.numpy(), h)
    s = c.stats()
    assert s["conc_buffers"] == 0 and s["xfer_copies"] == 0 and s["xfer_routed"] == 0


@needs_target
def test_upload_waiting_for_a_slot_does_not_hold_the_lock():
    """Stream s waits on a gate; an upload on s fills all four staging
    slots with copies queued behind it. A second upload on s then waits for
    a slot's copy, i.e. for the gate. Meanwhile another thread's kernel
    launch (sync=False) must go through: before, the waiting upload held
    the context lock and the launch blocked until the gate opened."""
    c = vp.Context(no_device_mapping=True)
    axpb = _kernels(c)
    s, other = vp.Stream(c), vp.Stream(c)
    n1 = 32 * MiB // 4
    h1 = np.arange(n1, dtype=np.float32)
    h2 = -np.arange(MiB // 4, dtype=np.float32)
    big = vp.empty(n1, np.float32, context=c, memory="device")
    small = vp.empty(h2.size, np.float32, context=c, memory="device")
    x = vp.asarray(np.ones(256, np.float32), context=c)
    y = vp.zeros(256, np.float32, context=c)
    axpb(x, y, dispatch=256, n=256, a=1.0, b=0.0)  # compiled and cached now
    gate = vp.Event(c, gate=True)
    s.wait_event(gate)
    with s:
        big.set(h1)  # four slots, each copy queued behind the gate
    errors = []

    def second_upload():
        try:
            with s:
                small.set(h2)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    def launch():
        try:
            axpb(x, y, dispatch=256, n=256, a=1.0, b=1.0, sync=False, stream=other)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    t1 = threading.Thread(target=second_upload)
    t1.start()
    t1.join(0.5)
    assert t1.is_alive()  # waiting for a slot, i.e. for the gate
    t2 = threading.Thread(target=launch)
    t2.start()
    t2.join(20)
    launched = not t2.is_alive()
    gate.set()
    t1.join()
    t2.join()
    assert not errors, errors
    assert launched, "the kernel launch waited for the upload's slot wait"
    s.synchronize()
    other.synchronize()
    np.testing.assert_array_equal(big.numpy(), h1)
    np.testing.assert_array_equal(small.numpy(), h2)
    np.testing.assert_array_equal(y.numpy(), np.full(256, 3, np.float32))  # 0+1+0, then 1+1+1


@needs_target
@pytest.mark.parametrize("emulate", [False, True])
def test_threads_upload_launch_download(monkeypatch, emulate):
    """Six threads at once, each with its own arrays: uploads through the
    staging ring (3 slots' worth each: the threads share the ring's slots),
    kernels, downloads, on the default stream, a compute stream or a
    transfer stream; every value checked."""
    if emulate:
        monkeypatch.setenv("VULPY_TRANSFER_FAMILY", "emulate")
    c = vp.Context(no_device_mapping=True)
    monkeypatch.delenv("VULPY_TRANSFER_FAMILY", raising=False)
    axpb = _kernels(c)
    axpb(vp.zeros(4, np.float32, context=c), vp.zeros(4, np.float32, context=c),
         dispatch=4, n=4, a=1.0, b=0.0)
    n = (12 * MiB) // 4 + 3
    errors = []

    def work(k):
        try:
            rng = np.random.default_rng(100 + k)
            kind = ("default", "compute", "transfer")[k % 3]
            st = None if kind == "default" else vp.Stream(c, kind)
            cs = vp.Stream(c, "compute")
            a = vp.empty(n, np.float32, context=c, memory="device")
            b = vp.zeros(n, np.float32, context=c, memory="device")
            for r in range(3):
                h = rng.standard_normal(n).astype(np.float32)
                if st is None:
                    a.set(h)
                    # the default stream is a stream: the compute stream's
                    # kernel must wait for its upload (on the H200 it ran
                    # before the upload's last staging slot had landed)
                    ev = vp.Event(c).record()
                else:
                    with st:
                        a.set(h)
                    ev = st.record()
                if ev is not None:
                    cs.wait_event(ev)
                axpb(a, b, dispatch=n, n=n, a=0.0, b=float(k), sync=False, stream=cs)
                cs.synchronize()
                if st is None:
                    got_b = b.numpy()
                    got_a = a.numpy()
                else:
                    with st:
                        got_b = b.numpy()
                        got_a = a.numpy()
                np.testing.assert_array_equal(got_a, h)
                np.testing.assert_array_equal(got_b, h + np.float32(k))
        except Exception as e:  # noqa: BLE001
            errors.append((k, e))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    c.synchronize()
