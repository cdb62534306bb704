"""The allocation fast paths in C (issue 21; bindings/python/src/fastarray.c
and launch.c's Launcher.ufunc): vp.empty / vp.zeros served by
_vulpy.empty_array once a (dtype, memory) was planned, and eager ufuncs on
resident arrays without out= whose result the Launcher makes in C, Python
scalar operands packed there too. Each test warms the fast path first, then
checks that (a) it served the call (its counters moved) and (b) every call
it must not take - views, broadcasts, other dtypes, other scalar types,
values a field cannot hold, shapes given as floats, negative or too large -
falls back to the Python path and gives NumPy's result or the same error as
a cold call."""
import contextlib
import warnings

import numpy as np
import pytest

import vulpy as vp
from vulpy import _array, _native

from conftest import needs_ext

pytestmark = needs_ext

N = 1000


@pytest.fixture(scope="module")
def fctx():
    return vp.Context()


@contextlib.contextmanager
def _nowarn():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _slots(a):
    return {s: getattr(a, s) for s in _array.ndarray.__slots__ if s != "__weakref__"}


def _warm(fn, times=3):
    for _ in range(times):
        r = fn()
    return r


# ------------------------------------------------------------- vp.empty


def test_empty_fast_path_makes_the_same_array(fctx):
    _warm(lambda: vp.empty(N, context=fctx))
    plan = fctx._ufast.get(("empty", np.float32, None))
    assert plan is not None, "vp.empty planned no C path"
    fast = _native.ext().empty_array(plan, (4, 5), fctx)
    assert type(fast) is _array.ndarray
    slow = _array.ndarray(_native.ext().Buffer(fctx._native, 80, fctx.default_memory),
                          (4, 5), np.dtype(np.float32), fctx)
    a, b = _slots(fast), _slots(slow)
    assert a.pop("_buf").size == b.pop("_buf").size == 80
    assert a == b
    assert fast.base is None and fast.contiguous and fast.memory == fctx.default_memory
    np.testing.assert_array_equal(fast.numpy(), np.zeros((4, 5), np.float32))


@pytest.mark.parametrize("dtype,memory", [(np.float32, None), (np.int32, "host"),
                                          (np.float64, "cached"), (np.bool_, None)])
def test_empty_fast_path_zeroes_reused_memory(fctx, dtype, memory):
    if dtype == np.float64 and not fctx.has("float64"):
        pytest.skip("no float64")
    _warm(lambda: vp.empty(N, dtype, memory=memory, context=fctx))
    # a buffer of known contents goes back to the pool; the next (C-made)
    # array of its size class must read as zeros
    for _ in range(3):
        x = vp.full(N, 7, dtype, memory=memory, context=fctx)
        x.numpy()
        del x
        y = vp.empty(N, dtype, memory=memory, context=fctx)
        assert y.dtype == np.dtype(dtype) and y.shape == (N,)
        np.testing.assert_array_equal(y.numpy(), np.zeros(N, dtype))
    z = vp.zeros((3, 7), dtype, memory=memory, context=fctx)
    assert z.shape == (3, 7) and z.size == 21
    np.testing.assert_array_equal(z.numpy(), np.zeros((3, 7), dtype))


def _outcome(fn):
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 - compared below
        return type(e), str(e)
    return r.shape, r.dtype, r.memory, r.numpy().tolist()


@pytest.mark.parametrize("shape", [3.0, (2, 3.0), -1, (2, -3), (1 << 40, 1 << 40), "3",
                                   True, (True, 2), None, [2, [3]], (1 << 70,)])
def test_empty_odd_shapes_as_cold(fctx, shape):
    """Shapes the C path does not take give what the Python path gives:
    the same error, or the same array."""
    fctx._ufast.pop(("empty", np.float32, None), None)
    cold = _outcome(lambda: vp.empty(shape, context=fctx))
    _warm(lambda: vp.empty(N, context=fctx))
    assert fctx._ufast.get(("empty", np.float32, None)) is not None
    assert _outcome(lambda: vp.empty(shape, context=fctx)) == cold
    assert cold[0] in (TypeError, ValueError) or isinstance(cold[0], tuple)


def test_empty_fast_path_other_shape_spellings(fctx):
    _warm(lambda: vp.empty(4, context=fctx))
    for shape, want in [([2, 3], (2, 3)), (np.int64(4), (4,)), ((np.int32(2), 2), (2, 2)),
                        ((), ()), (0, (0,)), ((5, 0), (5, 0))]:
        x = vp.empty(shape, context=fctx)
        assert x.shape == want and x.size == int(np.prod(want))
        np.testing.assert_array_equal(x.numpy(), np.zeros(want, np.float32))


def test_empty_fast_path_keys_dtype_and_memory(fctx):
    _warm(lambda: vp.empty(8, np.int32, context=fctx))
    x = vp.empty(8, np.uint32, memory="host", context=fctx)
    assert x.dtype == np.uint32 and x.memory == "host"
    x = vp.empty(8, "float32", context=fctx)
    assert x.dtype == np.float32
    with pytest.raises(TypeError, match="not supported"):
        vp.empty(8, np.clongdouble, context=fctx)
    with pytest.raises(ValueError, match="memory"):
        vp.empty(8, np.int32, memory="vram", context=fctx)


# ------------------------------------------------------- eager ufuncs


def _launcher(uf):
    f = uf._fastn
    assert f is not None, f"{uf.name} planned no C path without out="
    return f.__self__


def test_new_result_made_in_c(fctx):
    h = np.linspace(-1, 1, N, dtype=np.float32)
    x = vp.asarray(h, context=fctx)
    y = vp.asarray(h[::-1].copy(), context=fctx)
    _warm(lambda: x + y)
    lau = _launcher(vp.add)
    calls = lau.calls
    for _ in range(5):
        z = x + y
        assert type(z) is _array.ndarray and z.shape == (N,) and z.dtype == np.float32
        assert z.memory == x.memory and z.base is None and z.context is fctx
    assert lau.calls == calls + 5
    np.testing.assert_array_equal(z.numpy(), h + h[::-1])
    s = _warm(lambda: vp.sin(x) + vp.exp(x))
    np.testing.assert_allclose(s.numpy(), np.sin(h) + np.exp(h), rtol=2e-6, atol=1e-6)


def test_python_scalar_operands_packed_in_c(fctx):
    h = np.linspace(0, 1, N, dtype=np.float32)
    x = vp.asarray(h, context=fctx)
    _warm(lambda: 0.5 * x)
    lau = _launcher(vp.multiply)
    calls = lau.calls
    for v in (0.25, -3.5, 1e30):
        np.testing.assert_array_equal((v * x).numpy(), np.float32(v) * h)
    assert lau.calls == calls + 3
    # a float the f32 field cannot hold: the Python path, NumPy's result
    fb = lau.fallbacks
    with np.errstate(over="ignore"), _nowarn():
        want = np.multiply(1e300, h)
        got = vp.multiply(1e300, x).numpy()
    assert lau.fallbacks == fb + 1
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    # an int is another signature: the Python path, then its own launcher
    np.testing.assert_array_equal((2 * x).numpy(), 2 * h)
    np.testing.assert_array_equal((True * x).numpy(), True * h)


def test_int_scalar_out_of_range_raises_as_cold(fctx):
    xi = vp.asarray(np.arange(N, dtype=np.int32), context=fctx)
    _warm(lambda: xi + 3)
    lau = _launcher(vp.add)
    fb = lau.fallbacks
    with pytest.raises((OverflowError, TypeError)) as warm:
        xi + (1 << 40)
    assert lau.fallbacks == fb + 1
    vp.add._fastn = None
    cold_ctx_x = vp.asarray(np.arange(N, dtype=np.int32), context=vp.Context())
    with pytest.raises(type(warm.value)):
        cold_ctx_x + (1 << 40)
    np.testing.assert_array_equal((xi + 3).numpy(), np.arange(N, dtype=np.int32) + 3)


def test_views_broadcasts_and_dtypes_fall_back(fctx):
    h = np.arange(2 * N, dtype=np.float32)
    big = vp.asarray(h, context=fctx)
    x = vp.asarray(h[:N].copy(), context=fctx)
    _warm(lambda: x + x)
    lau = _launcher(vp.add)
    # a prefix view of the planned shape: not whole, the Python path
    fb = lau.fallbacks
    np.testing.assert_array_equal((big[:N] + x).numpy(), h[:N] + h[:N])
    np.testing.assert_array_equal((big[N:] + x).numpy(), h[N:] + h[:N])
    np.testing.assert_array_equal((big[::2] + x).numpy(), h[::2] + h[:N])
    assert lau.fallbacks >= fb + 1
    # broadcasts, another shape, another dtype, NumPy operands
    row = vp.asarray(np.ones((1, N), np.float32), context=fctx)
    np.testing.assert_array_equal((row + x).numpy(), np.ones((1, N), np.float32) + h[:N])
    np.testing.assert_array_equal((big + big).numpy(), h + h)
    xd = vp.asarray(np.arange(N, dtype=np.int32), context=fctx)
    got = x + xd
    assert got.dtype == np.float64 or got.dtype == (np.float32(0) + np.int32(0)).dtype
    np.testing.assert_array_equal(got.numpy(), h[:N] + np.arange(N, dtype=np.int32))
    np.testing.assert_array_equal((x + h[:N]).numpy(), 2 * h[:N])
    # and the planned signature still runs in C afterwards
    calls = lau.calls
    vp.add._fastn = lau.ufunc
    np.testing.assert_array_equal((x + x).numpy(), 2 * h[:N])
    assert lau.calls == calls + 1


def test_out_aliasing_and_overlap_after_warm(fctx):
    h = np.arange(10, dtype=np.float32)
    v = vp.asarray(h, context=fctx)
    w = vp.asarray(h, context=fctx)
    _warm(lambda: vp.add(v, w, out=v.copy()))
    _warm(lambda: v + w)
    # out= an input, element for element: NumPy's result
    vp.add(w, w, out=w)
    np.testing.assert_array_equal(w.numpy(), 2 * h)
    # out= overlapping an input shifted (NumPy's copy-first rule)
    v[1:] += v[:-1]
    want = h.copy()
    want[1:] += h[:-1]
    np.testing.assert_array_equal(v.numpy(), want)
    assert v.numpy()[9] == 17


def test_scalar_with_out_in_c(fctx):
    h = np.linspace(0, 1, N, dtype=np.float32)
    x = vp.asarray(h, context=fctx)
    t = vp.empty(N, context=fctx)
    _warm(lambda: vp.multiply(x, 0.5, out=t))
    lau = vp.multiply._fast.__self__
    calls = lau.calls
    for v in (0.5, 2.0, -1.0):
        assert vp.multiply(x, v, out=t) is t
        np.testing.assert_array_equal(t.numpy(), h * np.float32(v))
    assert lau.calls == calls + 3


def test_async_result_made_in_c(fctx):
    h = np.linspace(0, 1, N, dtype=np.float32)
    x = vp.asarray(h, context=fctx)
    _warm(lambda: vp.subtract(x, x))
    lau = _launcher(vp.subtract)
    calls = lau.calls
    hd = vp.subtract(x, x, sync=False)
    assert lau.calls == calls + 1
    r = hd.wait()
    assert type(r) is _array.ndarray
    np.testing.assert_array_equal(r.numpy(), np.zeros(N, np.float32))


def test_other_context_falls_back_with_its_error(fctx):
    x = vp.asarray(np.ones(N, np.float32), context=fctx)
    _warm(lambda: x + x)
    other = vp.Context()
    y = vp.asarray(np.ones(N, np.float32), context=other)
    with pytest.raises(ValueError, match="context"):
        x + y
    # the other context's own arrays run (its own plan)
    np.testing.assert_array_equal(_warm(lambda: y + y).numpy(), np.full(N, 2, np.float32))


def test_loop_allocates_from_the_driver_once(fctx):
    h = np.linspace(0, 1, 4096, dtype=np.float32)
    a = vp.asarray(h, context=fctx)
    b = vp.asarray(h, context=fctx)
    c = _warm(lambda: a * b + 1.0)
    fctx.synchronize()
    before = fctx.stats()["pool_misses"]
    for _ in range(500):
        c = a * b + 1.0
    fctx.synchronize()
    assert fctx.stats()["pool_misses"] - before <= 4
    np.testing.assert_allclose(c.numpy(), h * h + 1, rtol=1e-6)


def test_alternating_signatures_stay_in_c(fctx):
    """Two shapes in turn: each call finds its signature's launcher (the
    plan's), not only the last one used."""
    a = vp.asarray(np.arange(100, dtype=np.float32), context=fctx)
    b = vp.asarray(np.arange(300, dtype=np.float32), context=fctx)
    _warm(lambda: a - a)
    la = _launcher(vp.subtract)
    _warm(lambda: b - b)
    lb = _launcher(vp.subtract)
    assert la is not lb
    ca, cb = la.calls, lb.calls
    for _ in range(5):
        ra, rb = a - a, b - b
    assert (la.calls - ca, lb.calls - cb) == (5, 5)
    np.testing.assert_array_equal(ra.numpy(), np.zeros(100, np.float32))
    np.testing.assert_array_equal(rb.numpy(), np.zeros(300, np.float32))


def test_a_context_that_goes_takes_its_launchers():
    """The ufuncs keep their last launchers weakly: the context's plans own
    them, so a dropped context (and its device memory) is not kept alive by
    vp.add's or vp.sin's last call (no gc needed)."""
    import weakref
    c = vp.Context()
    x = vp.asarray(np.ones(8, np.float32), context=c)
    y = vp.empty(8, context=c)
    for _ in range(3):
        vp.empty(8, context=c)
        x + x
        0.5 * x
        vp.sin(x, out=y)
    assert vp.add._fastn is not None and vp.sin._fast is not None
    r = weakref.ref(c)
    del c, x, y
    assert r() is None
    assert vp.add._fastn is None and vp.multiply._fastn is None and vp.sin._fast is None


def test_reductions_on_a_new_context_at_a_dead_ones_id():
    """A context that dies promptly (the fast paths keep none alive) may
    leave its id() to the next one: the array engine's per-context scratch
    buffers must not be the dead context's (sum's partials were: 'buffer
    sum_k0_part belongs to another context')."""
    import gc
    h = np.linspace(0, 1, 1 << 16, dtype=np.float32)
    ids = set()
    for _ in range(6):
        c = vp.Context()
        x = vp.asarray(h, context=c)
        assert float(x.sum()) == pytest.approx(float(h.sum()), rel=1e-4)
        ids.add(id(c))
        del c, x
        gc.collect()
    assert ids  # ids are often reused here; each context still sums right
