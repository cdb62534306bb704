"""Shared host pages (issue 18, docs/multidevice.md): one vp.HostArray
imported into several contexts and seen by NumPy, with no copy.

The pairs of contexts are made from whatever devices exist: here (lavapipe
only) two contexts on the one device; on the H200 machine also the H200 and
lavapipe in one process - a GPU and the CPU device writing and reading the
same DRAM pages."""
import gc
import itertools
import warnings

import numpy as np
import pytest

import vulpy as vp
from vulpy import _hostarray, _native
from conftest import needs_ext, needs_target

pytestmark = needs_ext


def _usable():
    if not vp._has_extension():
        return []
    try:
        return [d for d in vp.list_devices() if d.get("usable", True)]
    except Exception:  # noqa: BLE001 - no Vulkan: the tests skip through needs_ext
        return []


DEVS = _usable()
# (index of device A, index of device B): the same device twice, then the
# first device with every other one, both ways round.
PAIRS = [(DEVS[0]["index"], DEVS[0]["index"])] if DEVS else []
for d in DEVS[1:]:
    PAIRS += [(DEVS[0]["index"], d["index"]), (d["index"], DEVS[0]["index"])]
NAMES = {d["index"]: d["name"].split(" (")[0].replace(" ", "_") for d in DEVS}


@pytest.fixture(scope="module")
def contexts():
    made = {}

    def get(index, slot):
        key = (index, slot)
        if key not in made:
            made[key] = vp.Context(device_index=index)
        return made[key]
    return get


@pytest.fixture(params=PAIRS, ids=[f"{NAMES[a]}+{NAMES[b]}" for a, b in PAIRS])
def pair(request, contexts):
    a, b = request.param
    ca = contexts(a, 0)
    cb = contexts(b, 1)  # a second context even on the same device
    assert ca is not cb and ca._native is not cb._native
    return ca, cb


def _shares(ctx):
    return ctx.has("external_memory_host")


@pytest.fixture(scope="module")
def kernels():
    if not vp._has_extension():
        pytest.skip("no extension")

    @vp.kernel(local_size_x=64)
    def produce(x: vp.Buffer[vp.float32], n: vp.uint32, a: vp.float32):
        i = vp.global_id()
        if i < n:
            x[i] = vp.float32(i) * a + 1.0

    @vp.kernel(local_size_x=64)
    def consume(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32], n: vp.uint32):
        i = vp.global_id()
        if i < n:
            y[i] = x[i] * x[i] - 2.0

    @vp.kernel(local_size_x=64)
    def slow_produce(x: vp.Buffer[vp.float32], n: vp.uint32, reps: vp.uint32):
        # enough work that the GPU is still busy when the host moves on
        i = vp.global_id()
        if i < n:
            acc = vp.var(vp.float32(0.0))
            for k in range(reps):
                acc = acc * 0.5 + 1.0
            x[i] = acc + vp.float32(i)

    return produce, consume, slow_produce


def _want_produce(n, a):
    return np.arange(n, dtype=np.float32) * np.float32(a) + np.float32(1)


# ----------------------------------------------------------------- sharing
@needs_target
def test_a_writes_b_reads_numpy_sees(pair, kernels):
    produce, consume, _ = kernels
    ca, cb = pair
    if not (_shares(ca) and _shares(cb)):
        pytest.skip("a device lacks VK_EXT_external_memory_host (the fallback test covers it)")
    n = 5000
    h = vp.HostArray(n, np.float32)
    xa, xb = h.on(ca), h.on(cb)
    assert h.shared_with(ca) and h.shared_with(cb)
    assert xa.context is ca and xb.context is cb and xa.memory == "host"
    # the same bytes: every context's mapping and NumPy's pointer are the pages
    view = h.numpy()
    assert view.ctypes.data == h.address == xa.buffer.address == xb.buffer.address
    assert xa.buffer.imported and xb.buffer.imported
    produce(xa, dispatch=n, n=n, a=0.25)           # device A writes
    want = _want_produce(n, 0.25)
    y = vp.zeros(n, np.float32, context=cb)
    consume(xb, y, dispatch=n, n=n)                # device B reads them, no copy
    np.testing.assert_array_equal(h.numpy(), want)  # NumPy sees A's writes
    np.testing.assert_allclose(y.numpy(), want * want - 2, rtol=1e-6)
    assert h.numpy() is view                       # the same view object, never a copy
    # and the other way round: B writes, A and NumPy see it
    produce(xb, dispatch=n, n=n, a=-1.5)
    np.testing.assert_array_equal(view, _want_produce(n, -1.5))
    ya = vp.zeros(n, np.float32, context=ca)
    consume(xa, ya, dispatch=n, n=n)
    np.testing.assert_allclose(ya.numpy(), _want_produce(n, -1.5) ** 2 - 2, rtol=1e-6)
    # NumPy writes, both devices read
    view[:] = 3.0
    consume(xa, ya, dispatch=n, n=n)
    consume(xb, y, dispatch=n, n=n)
    np.testing.assert_array_equal(ya.numpy(), np.full(n, 7, np.float32))
    np.testing.assert_array_equal(y.numpy(), np.full(n, 7, np.float32))
    info = h.info(cb)
    assert info["shared"] and "host_visible" in info["memory"] and info["device"] == cb.index
    assert info["address"] == h.address


def test_import_once_per_context(ctx):
    if not _shares(ctx):
        pytest.skip("no VK_EXT_external_memory_host")
    h = vp.HostArray((3, 4), np.int32)
    x = h.on(ctx)
    assert h.on(ctx) is x and vp.asarray(h, context=ctx) is x
    assert vp.asarray(h) is h.on()  # the default context
    assert x.shape == (3, 4) and x.dtype == np.int32 and h.contexts == [ctx]
    with pytest.raises(ValueError, match="shares its pages as they are"):
        vp.asarray(h, dtype=np.float32, context=ctx)
    with pytest.raises(ValueError, match="shares its pages"):
        vp.asarray(h, memory="device", context=ctx)
    # ufuncs on the shared array write the pages
    vp.add(x, 5, out=x)
    np.testing.assert_array_equal(h.numpy(), np.full((3, 4), 5, np.int32))
    assert "shared" in repr(h)


def test_threads_share_one_import(ctx, monkeypatch):
    """h.on(ctx) from many threads at once: one import, one array."""
    import threading
    real, calls = _hostarray._import, []

    def counting(c, mem):
        calls.append(c)
        return real(c, mem)
    monkeypatch.setattr(_hostarray, "_import", counting)
    h = vp.HostArray(1 << 16, np.float32)
    got, go = [], threading.Barrier(8)

    def worker():
        go.wait()
        got.append(h.on(ctx))
    ts = [threading.Thread(target=worker) for _ in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert len(calls) == 1 and len(got) == 8 and all(x is got[0] for x in got)


def test_bad_arguments():
    with pytest.raises(TypeError, match="bool"):
        vp.HostArray(4, np.bool_)
    with pytest.raises(ValueError):
        vp.HostArray(-1)
    h = vp.HostArray(4)
    assert h.shared_with() is False and h.info() is None  # no h.on yet
    with pytest.raises(ValueError, match="copy must be None or False"):
        h.on(copy=True)


# ---------------------------------------------------------------- fallback
def test_refused_import_falls_back_to_a_copy_and_says_so(pair, monkeypatch):
    ca, cb = pair
    real = _hostarray._import

    def refuse_b(ctx, mem):
        if ctx is cb:
            raise vp.VulkanError("vkAllocateMemory failed: VK_ERROR_INVALID_EXTERNAL_HANDLE "
                                 "(a second import refused)")
        return real(ctx, mem)
    monkeypatch.setattr(_hostarray, "_import", refuse_b)
    h = vp.HostArray(8, np.float32)
    h.numpy()[:] = np.arange(8)
    with pytest.raises(BufferError, match="copy=False"):
        h.on(cb, copy=False)
    with pytest.warns(vp.SharingWarning, match="NOT seen"):
        xb = h.on(cb)
    assert not h.shared_with(cb) and h.info(cb)["shared"] is False
    assert xb.buffer.address != h.address          # its own memory: a copy
    np.testing.assert_array_equal(xb.numpy(), np.arange(8))  # of the data at that moment
    h.numpy()[:] = -1                               # not shared: B does not see it
    np.testing.assert_array_equal(xb.numpy(), np.arange(8))
    with pytest.raises(BufferError, match="refused before"):
        h.on(cb, copy=False)
    assert "COPY" in repr(h)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert h.on(cb) is xb                       # warned once, at the copy
    if _shares(ca):
        assert h.on(ca).buffer.address == h.address and h.shared_with(ca)


def test_device_without_the_extension_gets_a_copy(monkeypatch):
    c = vp.Context()
    monkeypatch.setattr(c, "_features", c._features - {"external_memory_host"})
    h = vp.HostArray(4, np.float32)
    with pytest.warns(vp.SharingWarning, match="lacks VK_EXT_external_memory_host"):
        x = h.on(c)
    assert not h.shared_with(c)
    np.testing.assert_array_equal(x.numpy(), np.zeros(4, np.float32))


# ---------------------------------------------------------------- ordering
@needs_target
def test_after_orders_another_contexts_dispatch(pair, kernels):
    """A's work with sync=False is still running when B's dispatch is issued;
    after= makes the host wait for it first, so B reads A's values."""
    produce, consume, slow = kernels
    ca, cb = pair
    if not (_shares(ca) and _shares(cb)):
        pytest.skip("needs two sharing contexts")
    n = 4096
    h = vp.HostArray(n, np.float32)
    xa, xb = h.on(ca), h.on(cb)
    y = vp.zeros(n, np.float32, context=cb)
    reps = 2000
    ref = np.float32(0)
    for _ in range(reps):
        ref = ref * np.float32(0.5) + np.float32(1)
    want = ref + np.arange(n, dtype=np.float32)
    handle = slow(xa, dispatch=n, n=n, reps=reps, sync=False)
    consume(xb, y, dispatch=n, n=n, after=handle)
    np.testing.assert_allclose(y.numpy(), want * want - 2, rtol=1e-6)
    # a HostArray as after=: every context's work on its pages
    handle = slow(xa, dispatch=n, n=n, reps=reps, sync=False)
    vp.multiply(xa, 2.0, out=xa)       # an eager ufunc on A: submitted, not waited for
    consume(xb, y, dispatch=n, n=n, after=[handle, h])
    np.testing.assert_allclose(y.numpy(), (2 * want) ** 2 - 2, rtol=1e-6)
    with pytest.raises(TypeError, match="after= takes"):
        consume(xb, y, dispatch=n, n=n, after=3)


# ---------------------------------------------------------------- lifetime
ORDERS = list(itertools.permutations(["h", "view", "xa", "xb"]))[::5]


@needs_target
@pytest.mark.parametrize("order", ORDERS, ids=["-".join(o) for o in ORDERS])
def test_pages_outlive_every_holder(pair, kernels, order):
    """Whatever is deleted first, the survivors keep working on the same
    pages (a use-after-free would crash or read garbage), and the pages go
    once the last holder goes."""
    produce, consume, _ = kernels
    ca, cb = pair
    if not (_shares(ca) and _shares(cb)):
        pytest.skip("needs two sharing contexts")
    gc.collect()
    live0 = _native.ext().HostMemory.live()
    n = 1000
    held = {"h": vp.HostArray(n, np.float32)}
    held["view"] = held["h"].numpy()
    held["xa"], held["xb"] = held["h"].on(ca), held["h"].on(cb)
    assert _native.ext().HostMemory.live() == live0 + 1
    ya = vp.zeros(n, np.float32, context=ca)
    yb = vp.zeros(n, np.float32, context=cb)
    # GPU work still pending on the pages when the holders start to go
    produce(held["xa"], dispatch=n, n=n, a=2.0, sync=False)  # what step 0 writes
    for step, name in enumerate(order):
        del held[name]
        gc.collect()
        a = float(step + 2)
        if "xa" in held:
            produce(held["xa"], dispatch=n, n=n, a=a)
        elif "xb" in held:
            produce(held["xb"], dispatch=n, n=n, a=a)
        elif "view" in held:
            held["view"][:] = _want_produce(n, a)
        elif "h" in held:
            held["h"].numpy()[:] = _want_produce(n, a)
        else:
            break
        want = _want_produce(n, a)
        if "view" in held:
            np.testing.assert_array_equal(held["view"], want)
        if "xa" in held:
            consume(held["xa"], ya, dispatch=n, n=n)
            np.testing.assert_allclose(ya.numpy(), want * want - 2, rtol=1e-6)
        if "xb" in held:
            consume(held["xb"], yb, dispatch=n, n=n)
            np.testing.assert_allclose(yb.numpy(), want * want - 2, rtol=1e-6)
        if "h" in held:
            np.testing.assert_array_equal(held["h"].numpy(), want)
    assert not held
    gc.collect()
    assert _native.ext().HostMemory.live() == live0, "the pages were not freed"


@needs_target
def test_pending_work_then_everything_dropped(pair, kernels):
    """Dropping the HostArray, its view and both imports while both devices
    still have work queued on the pages: the imports wait for it before the
    pages go (no crash), and nothing leaks."""
    _, _, slow = kernels
    ca, cb = pair
    if not (_shares(ca) and _shares(cb)):
        pytest.skip("needs two sharing contexts")
    gc.collect()
    live0 = _native.ext().HostMemory.live()
    n = 4096
    h = vp.HostArray(n, np.float32)
    xa, xb = h.on(ca), h.on(cb)
    slow(xa, dispatch=n, n=n, reps=1000, sync=False)
    slow(xb, dispatch=n, n=n, reps=1000, sync=False)
    del h, xa, xb
    gc.collect()
    assert _native.ext().HostMemory.live() == live0
    ca.synchronize()
    cb.synchronize()
