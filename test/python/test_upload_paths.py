"""Every upload and download path gives the exact bytes (issue 21: the
256 MiB `device` upload's paths).

Contexts: one that maps 'device' memory (lavapipe: unified memory), one
that does not (no_device_mapping: a discrete GPU's staging ring), one that
also imports every upload's pages per call (VULPY_UPLOAD_IMPORT_MIB=1:
runtime/staging.c, "imported uploads"), and one whose array uploads copy
from the NumPy array's cached import (Context.upload_import_min). Sources:
sizes 0, 1, odd, several MiB and 64 MiB + odd; views at byte offsets 1..63
of a bigger allocation; non-contiguous and converted sources; a source freed
right after the call; uploads from several threads at once. The stats show
that the import paths really ran (a silent fallback would pass the byte
checks alone)."""
import gc
import threading

import numpy as np
import pytest

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target


@pytest.fixture(scope="module")
def nomap():
    return vp.Context(no_device_mapping=True)


@pytest.fixture(scope="module")
def percall():
    """Per-call imports in C for uploads of 1 MiB or more; the Python
    cache off, so every upload goes through the C path."""
    mp = pytest.MonkeyPatch()
    mp.setenv("VULPY_UPLOAD_IMPORT_MIB", "1")
    try:
        c = vp.Context(no_device_mapping=True)
    finally:
        mp.undo()
    c.upload_import_min = 0
    return c


@pytest.fixture(scope="module")
def cached():
    """Array uploads of 1 MiB or more copy from the array's cached import."""
    c = vp.Context(no_device_mapping=True)
    c.upload_import_min = 1 << 20
    return c


@pytest.fixture(params=["mapped", "staged", "percall", "cached"])
def anyctx(request, ctx, nomap, percall, cached):
    return {"mapped": ctx, "staged": nomap, "percall": percall, "cached": cached}[request.param]


def _bytes(n, seed):
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8)


SIZES = [0, 1, 3, 4097, 1000003, (3 << 20) + 11]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("skew", [0, 1, 7, 16, 33, 63])
def test_round_trip_at_any_address(anyctx, n, skew):
    big = _bytes(n + 64, n + skew)
    src = big[skew:skew + n]  # a view at byte offset `skew`
    a = vp.asarray(src, memory="device", context=anyctx)
    np.testing.assert_array_equal(a.numpy(), src)
    a.set(big[63 - skew:63 - skew + n])  # another offset, into the existing array
    out = np.empty(n + 64, np.uint8)
    a.get(out=out[skew:skew + n])  # out to an odd offset too
    np.testing.assert_array_equal(out[skew:skew + n], big[63 - skew:63 - skew + n])


def test_64mib_odd(anyctx):
    n = (64 << 20) + 13
    big = _bytes(n + 8, 5)
    a = vp.asarray(big[5:5 + n], memory="device", context=anyctx)
    np.testing.assert_array_equal(a.numpy(), big[5:5 + n])
    x = np.random.default_rng(1).random((n - 1) // 4, dtype=np.float32)
    b = vp.empty(x.shape, np.float32, memory="device", context=anyctx)
    b.set(x)
    np.testing.assert_array_equal(b.numpy(), x)


def test_non_contiguous_and_converted_sources(anyctx):
    x = np.random.default_rng(2).random((1024, 1536), dtype=np.float32)  # 6 MiB
    for src in (x[:, ::2], x.T, x[::3], x[::-1]):
        a = vp.empty(src.shape, np.float32, memory="device", context=anyctx)
        a.set(src)
        np.testing.assert_array_equal(a.numpy(), src)
        np.testing.assert_array_equal(vp.asarray(src, memory="device", context=anyctx).numpy(),
                                      src)
    f64 = x.astype(np.float64)
    a = vp.empty(x.shape, np.float32, memory="device", context=anyctx)
    a.set(f64)  # converted on the host first: a temporary source
    np.testing.assert_array_equal(a.numpy(), f64.astype(np.float32))
    ro = x.copy()
    ro.flags.writeable = False  # the import needs writable pages: the ring
    a.set(ro)
    np.testing.assert_array_equal(a.numpy(), ro)


def test_freed_source(anyctx):
    """The source is freed as soon as the call returns; new arrays of the
    same size (likely the same address) hold other bytes."""
    n = (5 << 20) + 3
    want = _bytes(n, 11)
    a = vp.empty(n, np.uint8, memory="device", context=anyctx)
    for round_ in range(3):
        src = want.copy()
        a.set(src)
        del src
        gc.collect()
        junk = np.full(n, 0x5A, np.uint8)
        np.testing.assert_array_equal(a.numpy(), want)
        b = vp.asarray(want.copy(), memory="device", context=anyctx)
        junk2 = np.full(n, 0xA5, np.uint8)
        np.testing.assert_array_equal(b.numpy(), want)
        del junk, junk2


def test_source_changed_between_uploads(anyctx):
    """A cached import reads the array's current bytes on every upload."""
    x = np.zeros(3 << 20, np.uint8)
    a = vp.empty(x.shape, np.uint8, memory="device", context=anyctx)
    for v in (1, 2, 3):
        x[:] = v
        x[v * 1000] = 200
        a.set(x)
        np.testing.assert_array_equal(a.numpy(), x)


def test_threads(anyctx):
    n, T = (3 << 20) + 101, 4
    srcs = [_bytes(n + 64, 20 + i)[1 + 13 * i:1 + 13 * i + n] for i in range(T)]
    arrs = [vp.empty(n, np.uint8, memory="device", context=anyctx) for _ in range(T)]
    errors = []

    def work(i):
        try:
            for _ in range(3):
                arrs[i].set(srcs[i])
                np.testing.assert_array_equal(arrs[i].numpy(), srcs[i])
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
    th = [threading.Thread(target=work, args=(i,)) for i in range(T)]
    for t in th:
        t.start()
    for t in th:
        t.join()
    assert not errors, errors[0]


def test_the_import_paths_ran(percall, cached, nomap):
    if not percall.host_import:
        pytest.skip("no VK_EXT_external_memory_host")
    x = np.random.default_rng(3).random(1 << 20, dtype=np.float32)  # 4 MiB
    before = percall.stats()["upload_imports"]
    a = vp.asarray(x, memory="device", context=percall)
    assert percall.stats()["upload_imports"] >= before + 4  # 1 MiB pieces
    np.testing.assert_array_equal(a.numpy(), x)
    # the cached path: a GPU copy from the array's import, no staged upload
    b = vp.empty(x.shape, np.float32, memory="device", context=cached)
    n0 = len(cached._imports)
    b.set(x)
    assert len(cached._imports) == n0 + 1
    b.set(x)  # the same import again
    assert len(cached._imports) == n0 + 1
    np.testing.assert_array_equal(b.numpy(), x)
    del x
    gc.collect()
    assert len(cached._imports) == n0  # released with the array
    assert nomap.stats()["upload_imports"] == 0


def test_cached_imports_are_bounded(cached, monkeypatch):
    """Imported (pinned) bytes stay under _IMPORTS_MAX_BYTES: the oldest
    imports go first, the data stays right."""
    if not cached.host_import:
        pytest.skip("no VK_EXT_external_memory_host")
    monkeypatch.setattr(cached, "_IMPORTS_MAX_BYTES", 5 << 20)
    xs = [np.full(2 << 20, i, np.uint8) for i in range(4)]
    a = vp.empty(2 << 20, np.uint8, memory="device", context=cached)
    for x in xs:
        a.set(x)
        np.testing.assert_array_equal(a.numpy(), x)
    held = sum(e[2] for e in cached._imports.values())
    assert held <= 5 << 20
    ids = {id(x) for x in xs}
    assert [k for k in cached._imports if k in ids] == [id(xs[2]), id(xs[3])]
