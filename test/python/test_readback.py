"""Reading a reduction's small result back: float(vp.sum(x)) on memory the
host cannot map is one submission (the reduction and a copy into a
host-visible mirror, together), and the value is right for every memory
kind, dtype and reading form, on a context that maps 'device' memory
(lavapipe: unified memory) and on one that does not (no_device_mapping: a
discrete GPU's paths). The mirror is used only while the GPU has not
touched the result since it was made."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import vulpy as vp
from vulpy import _reduce
from conftest import needs_target
from test_reduce import _values  # the same element strategy as the reduction tests

pytestmark = needs_target

SETTINGS = settings(max_examples=6, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])

KINDS = ["device", "host", "cached", "rebar"]
NAMES = ["sum", "max", "min", "mean", "argmin", "argmax", "prod", "any", "all"]
DTYPES = [np.float32, np.float64, np.int32, np.uint32, np.int64, np.bool_]


@pytest.fixture(scope="module")
def nomap():
    """A context whose 'device' buffers are never mapped."""
    return vp.Context(no_device_mapping=True)


@pytest.fixture(params=["mapped", "nomap"])
def anyctx(request, ctx, nomap):
    return ctx if request.param == "mapped" else nomap


def _skip(c, dt):
    dt = np.dtype(dt)
    if dt == np.float64 and not c.has("float64"):
        pytest.skip("no float64")
    if dt.itemsize == 8 and dt.kind in "iu" and not c.has("int64"):
        pytest.skip("no int64")


def _expect(name, a):
    with np.errstate(all="ignore"):  # a float32 prod may overflow to inf, on both sides
        return getattr(np, name)(a)


def _prod_order_dependent(name, a):
    """A float prod whose value depends on the order of the multiplications:
    a zero among factors whose product overflows. NumPy itself gives 0 for
    [0, 2, 2, ..., 2] and NaN for [2, ..., 2, 0] (float32, 300 twos): the
    zero meets either a finite partial product or an overflowed inf. A
    reduction tree may meet either, so both are right there."""
    if name != "prod" or a.dtype.kind != "f" or not (a == 0).any():
        return False
    nz = np.abs(a[a != 0]).astype(np.float64)
    with np.errstate(all="ignore"):
        big = np.exp(np.sum(np.log(nz))) if nz.size else 0.0
    return bool(np.isfinite(nz).all() and big > np.finfo(a.dtype).max)


def _close(got, ref, dt):
    ref = np.asarray(ref)
    if ref.dtype.kind == "f":
        tol = 1e-5 if np.dtype(dt) == np.float64 else 2e-4
        np.testing.assert_allclose(got, ref, rtol=tol, atol=tol)
    else:
        assert got == ref.item()


# --------------------------------------------------------------- values

@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_0d_values_every_kind(anyctx, name, dt):
    """Each reading form of a 0-d result, against NumPy, for each memory
    kind of the input (the result's kind); hypothesis draws the data."""
    _skip(anyctx, dt)

    @SETTINGS
    @given(a=hnp.arrays(dt, st.integers(1, 3000), elements=_values(dt)),
           kind=st.sampled_from(KINDS))
    def check(a, kind):
        xv = vp.asarray(a, memory=kind, context=anyctx)
        r = getattr(vp, name)(xv)
        assert r.shape == () and r.memory == kind
        assert (r._mirror is not None) == (not r.mappable)
        ref = _expect(name, a)
        assert r.dtype == np.asarray(ref).dtype
        if _prod_order_dependent(name, a):  # 0 or NaN, as NumPy's own order decides
            for got in (r.item(), float(r), r.numpy().item()):
                assert got == 0 or np.isnan(got), got
            return
        _close(r.item(), ref, dt)
        _close(np.asarray(r).item(), ref, dt)
        _close(r.get().item(), ref, dt)
        _close(r.numpy().item(), ref, dt)
        out = np.empty((), r.dtype)
        _close(r.get(out=out).item(), ref, dt)
        if r.dtype.kind == "f":
            _close(float(r), ref, dt)
        else:
            _close(int(r), ref, dt)
    check()


@pytest.mark.parametrize("kind", KINDS)
def test_small_axis_results(nomap, kind):
    """A short row of sums (a non-0-d small result) is mirrored too."""
    x = np.random.default_rng(3).random((40, 300), dtype=np.float32)
    xv = vp.asarray(x, memory=kind, context=nomap)
    for axis, ref in ((1, x.sum(1)), (0, x.sum(0)), (None, x.sum())):
        r = vp.sum(xv, axis=axis)
        assert (r._mirror is not None) == (kind == "device")
        np.testing.assert_allclose(r.numpy(), ref, rtol=2e-5)
        np.testing.assert_allclose(np.asarray(r), ref, rtol=2e-5)


def test_large_results_are_not_mirrored(nomap):
    x = np.ones((2048, 4), np.float32)
    r = vp.sum(vp.asarray(x, memory="device", context=nomap), axis=1)
    assert r.nbytes > _reduce.MIRROR_MAX and r._mirror is None
    np.testing.assert_array_equal(r.numpy(), np.full(2048, 4, np.float32))


# --------------------------------------------------------------- submissions

def _submits(c, fn):
    s0 = c.stats()["submits"]
    v = fn()
    return c.stats()["submits"] - s0, v


@pytest.mark.parametrize("name", ["sum", "max", "min", "mean", "argmin", "argmax"])
def test_one_submission(anyctx, name):
    """float(vp.sum(x)) of a device array: the reduction's submission and no
    other (the copy into the mirror rides in it). Fails if the read-back
    copy becomes a second submission again."""
    x = np.random.default_rng(5).random(1 << 16, dtype=np.float32)
    xv = vp.asarray(x, memory="device", context=anyctx)
    f = getattr(vp, name)
    conv = int if name.startswith("arg") else float
    conv(f(xv))  # compile and warm up
    n, v = _submits(anyctx, lambda: conv(f(xv)))
    assert n == 1
    _close(v, getattr(np, name)(x), np.float32)


def test_counter_sees_a_second_submission(nomap, monkeypatch):
    """Without the mirror the same read is two submissions on a context
    that cannot map device memory: the counter the test above relies on
    does see the copy."""
    xv = vp.asarray(np.ones(4096, np.float32), memory="device", context=nomap)
    monkeypatch.setattr(_reduce, "MIRROR_MAX", 0)
    float(vp.sum(xv))
    n, v = _submits(nomap, lambda: float(vp.sum(xv)))
    assert (n, v) == (2, 4096.0)


def test_sync_false_handle(nomap):
    xv = vp.asarray(np.arange(100, dtype=np.float32), memory="device", context=nomap)
    h = vp.sum(xv, sync=False)
    r = h.wait()
    n, v = _submits(nomap, lambda: float(r))
    assert (n, v) == (0, 4950.0)


# --------------------------------------------------------------- invalidation

def test_gpu_writes_after_the_reduction_are_seen(nomap):
    """Whatever the GPU does to the result after the reduction, a read
    returns the buffer's value: out= into it, a write through a view,
    fill, set, a copy into it; a read-only use falls back too."""
    x = np.arange(1, 101, dtype=np.float32)
    xv = vp.asarray(x, memory="device", context=nomap)
    s = 5050.0

    r = vp.sum(xv)
    vp.add(r, 1.0, out=r)
    assert float(r) == s + 1 and r._mirror is None

    r = vp.sum(xv)
    v = r.reshape(1)
    vp.multiply(v, 2.0, out=v)
    assert float(r) == 2 * s

    r = vp.sum(xv)
    r[...] = 7.0
    assert float(r) == 7.0

    r = vp.sum(xv)
    r.set(np.array(3.0, np.float32))
    assert float(r) == 3.0

    r = vp.sum(xv)
    r.buffer.copy_from(vp.asarray(np.full(4, 9.0, np.float32), memory="device",
                                  context=nomap).buffer, 0, 0, 4)
    assert float(r) == 9.0

    r = vp.sum(xv)
    y = xv / r  # reads r on the GPU: the mirror is dropped, the value stays right
    assert float(r) == s
    np.testing.assert_allclose(y.numpy(), x / s, rtol=1e-6)


def test_reduction_into_out_is_not_mirrored(nomap):
    xv = vp.asarray(np.ones(64, np.float32), memory="device", context=nomap)
    out = vp.empty((), np.float32, memory="device", context=nomap)
    r = vp.sum(xv, out=out)
    assert r is out and r._mirror is None and float(r) == 64.0


# --------------------------------------------------------------- plans

@pytest.mark.parametrize("name", ["sum", "max", "argmin", "mean", "any"])
def test_plan_rebinds_other_arrays(anyctx, name, monkeypatch):
    """A second full reduction of the same kind, dtype and memory runs the
    first call's plan (no graph built; one for every length: a kernel over
    a dynamic extent) on the new arrays; each answer is its own array's,
    and with plans off the answers are the same."""
    rng = np.random.default_rng(11)
    f = getattr(vp, name)
    arrays = [rng.random(777, dtype=np.float32) - 0.5 for _ in range(4)]
    views = [vp.asarray(a, memory="device", context=anyctx) for a in arrays]
    f(views[0])
    plans = anyctx.__dict__.get("_vp_reduce_plans", {})
    assert any(k[0] == name and k[1] == np.float32 and k[2] is None for k in plans)
    got = [f(v) for v in views]
    monkeypatch.setattr(_reduce, "PLANS", False)
    slow = [f(v) for v in views]
    for a, g, s in zip(arrays, got, slow):
        ref = getattr(np, name)(a)
        assert g.dtype == s.dtype == np.asarray(ref).dtype and g.memory == "device"
        np.testing.assert_allclose(g.item(), ref, rtol=2e-5)
        assert g.item() == s.item()


def test_plan_keys(nomap):
    """Plans are per memory kind and dtype (and shape for the small dtypes):
    other arrays get theirs."""
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    for kind in ("device", "host"):
        for shape in ((3, 4), (12,), (4, 3)):
            for dt in (np.int32, np.float32):
                v = vp.asarray(a.reshape(shape).astype(dt), memory=kind, context=nomap)
                for _ in range(2):
                    r = vp.sum(v)
                    assert r.memory == kind and r.item() == 66
                    assert r.dtype == np.sum(a.astype(dt)).dtype
    # views, keepdims, axis, out= and dtype= take the general path
    v = vp.asarray(a, memory="device", context=nomap)
    assert vp.sum(v[:, ::2]).item() == a[:, ::2].sum()
    assert vp.sum(v, keepdims=True).shape == (1, 1)
    assert vp.sum(v, dtype=np.float32).dtype == np.float32


def test_plan_sync_false(nomap):
    xv = vp.asarray(np.arange(10, dtype=np.float32), memory="device", context=nomap)
    vp.sum(xv)
    hs = [vp.sum(xv, sync=False) for _ in range(3)]
    assert [float(h.wait()) for h in hs] == [45.0] * 3


# --------------------------------------------------------------- vp.jit

def test_jit_sum_one_submission(nomap):
    """vp.jit's 0-d results (new, or out=) are mirrored the same way; with
    two small results only the first is."""
    x = np.random.default_rng(2).random(5000, dtype=np.float32)
    xv = vp.asarray(x, memory="device", context=nomap)
    f = vp.jit(lambda v: vp.sum(v * 2))
    g = vp.jit(lambda v: (vp.sum(v), vp.max(v)))
    s = vp.empty((), np.float32, memory="device", context=nomap)
    float(f(xv))
    n, v = _submits(nomap, lambda: float(f(xv)))
    assert n == 1
    np.testing.assert_allclose(v, 2 * x.sum(), rtol=2e-5)
    n, v = _submits(nomap, lambda: float(f(xv, out=s)))
    assert n == 1 and s._mirror is not None
    np.testing.assert_allclose(v, 2 * x.sum(), rtol=2e-5)
    a, b = g(xv)
    assert a._mirror is not None and b._mirror is None
    np.testing.assert_allclose((float(a), float(b)), (x.sum(), x.max()), rtol=2e-5)


def test_plan_reuses_the_launch(nomap):
    """float(vp.sum(x)) in a loop: the pooled 0-d result comes back each
    time, so the dispatch resubmits its recorded command buffer; results
    kept alive get buffers of their own."""
    x = np.arange(300, dtype=np.float32)
    xv = vp.asarray(x, memory="device", context=nomap)
    float(vp.sum(xv))
    float(vp.sum(xv))
    s0 = nomap.stats()
    vals = [float(vp.sum(xv)) for _ in range(5)]
    s1 = nomap.stats()
    assert vals == [44850.0] * 5
    assert s1["reused_launches"] - s0["reused_launches"] == 5
    assert s1["submits"] - s0["submits"] == 5
    kept = [vp.sum(vp.asarray(x + i, memory="device", context=nomap)) for i in range(4)]
    assert len({id(r.buffer) for r in kept}) == 4
    assert [float(r) for r in kept] == [44850.0 + 300 * i for i in range(4)]
