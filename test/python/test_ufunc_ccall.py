"""The vp ufuncs' call in C (launch.c, "UfuncCall"; _launch.ufunc_c_call):
once a ufunc planned a Launcher.ufunc, its object moves to a subclass whose
tp_call checks the call and dispatches with no Python frame, and hands
everything else to the class's Python __call__. The launchers it reaches
are a cache keyed by the last planned signatures (operand dtypes, shape,
whole arrays, context, out= or not): each test warms one, then checks that
the C path served the matching call (the launcher's counters) and that a
call with another dtype, shape, stride, memory view, out= or context gives
NumPy's result through the Python path - nothing the cache holds leaks
into it."""
import inspect
import weakref

import numpy as np
import pytest

import vulpy as vp
from vulpy import _ufunc

from conftest import needs_ext

pytestmark = needs_ext

N = 1000


@pytest.fixture(scope="module")
def uctx():
    return vp.Context()


def _arrays(ctx, dtype=np.float32, n=N):
    rng = np.random.default_rng(n)
    a = rng.standard_normal(n).astype(dtype)
    b = rng.standard_normal(n).astype(dtype)
    return a, b, vp.asarray(a, context=ctx), vp.asarray(b, context=ctx)


def _launcher(w):
    m = w() if w is not None else None
    return m.__self__ if m is not None else None


def test_the_object_keeps_its_identity_and_face(uctx):
    a, b, x, y = _arrays(uctx)
    add = vp.add
    sig = inspect.signature(add)
    c = vp.empty(N, np.float32, context=uctx)
    for _ in range(3):
        vp.add(x, y, out=c)
    assert vp.add is add and _ufunc.add is add and vp.BY_NUMPY["add"] is add \
        if hasattr(vp, "BY_NUMPY") else vp.add is add
    assert isinstance(add, _ufunc.Ufunc) and type(add) is not _ufunc.Ufunc
    assert type(add).__name__ == "Ufunc" and repr(add) == "<vp ufunc 'add'>"
    assert inspect.signature(add) == sig
    assert "numpy.add" in add.__doc__
    np.testing.assert_array_equal(c.numpy(), a + b)


def test_out_call_served_in_c_and_others_fall_back(uctx):
    a, b, x, y = _arrays(uctx)
    c = vp.empty(N, np.float32, context=uctx)
    for _ in range(3):
        vp.subtract(x, y, out=c)
    lau = _launcher(vp.subtract._fastw)
    assert lau is not None
    calls, falls = lau.calls, lau.fallbacks
    for _ in range(4):
        vp.subtract(x, y, out=c)
    assert lau.calls == calls + 4 and lau.fallbacks == falls
    np.testing.assert_array_equal(c.numpy(), a - b)
    # another dtype: float64 operands and result
    a64, b64, x64, y64 = _arrays(uctx, np.float64)
    c64 = vp.empty(N, np.float64, context=uctx)
    vp.subtract(x64, y64, out=c64)
    np.testing.assert_array_equal(c64.numpy(), a64 - b64)
    # another shape
    a2, b2, x2, y2 = _arrays(uctx, n=N // 2 + 3)
    c2 = vp.empty(N // 2 + 3, np.float32, context=uctx)
    vp.subtract(x2, y2, out=c2)
    np.testing.assert_array_equal(c2.numpy(), a2 - b2)
    # strided views in and out
    c3 = vp.zeros(N, np.float32, context=uctx)
    vp.subtract(x[::2], y[1::2], out=c3[: N // 2])
    np.testing.assert_array_equal(c3.numpy()[: N // 2], a[::2] - b[1::2])
    np.testing.assert_array_equal(c3.numpy()[N // 2:], 0)
    # out= overlapping an input other than element for element (NumPy's rule)
    v = vp.asarray(np.arange(10, dtype=np.float32), context=uctx)
    vp.subtract(v[1:], v[:-1], out=v[1:])
    np.testing.assert_array_equal(v.numpy(), [0] + [1] * 9)
    # the first signature again: still the C path, still right
    calls = lau.calls
    vp.subtract(x, y, out=c)
    np.testing.assert_array_equal(c.numpy(), a - b)
    assert _launcher(vp.subtract._fastw) is not lau or lau.calls == calls + 1


def test_new_result_served_in_c_with_context_and_kinds(uctx):
    a, b, x, y = _arrays(uctx)
    for _ in range(3):
        r = vp.multiply(x, y)
    lau = _launcher(vp.multiply._fastnw)
    assert lau is not None
    calls = lau.calls
    r = x * y
    assert lau.calls == calls + 1
    assert r.context is uctx and r.dtype == np.float32 and r.shape == (N,)
    np.testing.assert_array_equal(r.numpy(), a * b)
    # another context: its own arrays, its own result (the launcher is the
    # first context's: it declines)
    other = vp.Context()
    xo, yo = vp.asarray(a, context=other), vp.asarray(b, context=other)
    ro = vp.multiply(xo, yo)
    assert ro.context is other
    np.testing.assert_array_equal(ro.numpy(), a * b)
    # a Python scalar operand is another signature
    np.testing.assert_array_equal((x * 2.0).numpy(), a * np.float32(2.0))
    # NumPy operands: the convenience path, NumPy out
    got = vp.multiply(a, b)
    assert type(got) is np.ndarray
    np.testing.assert_array_equal(got, a * b)


def test_keywords_sync_and_context(uctx):
    a, b, x, y = _arrays(uctx)
    c = vp.empty(N, np.float32, context=uctx)
    for _ in range(3):
        vp.maximum(x, y, out=c)
    h = vp.maximum(x, y, out=c, sync=False)
    assert isinstance(h, vp.Handle) and h.wait() is c
    assert vp.maximum(x, y, out=c, sync=True, context=None) is c
    assert vp.maximum(x, y, out=c, context=uctx) is c  # context given: the Python path
    np.testing.assert_array_equal(c.numpy(), np.maximum(a, b))
    with pytest.raises(TypeError, match="bogus"):
        vp.maximum(x, y, out=c, bogus=1)
    with pytest.raises(TypeError, match="takes 2 input"):
        vp.maximum(x, out=c)
    # a truthy sync= that is not a bool: the Python path, synchronous as ever
    assert vp.maximum(x, y, out=c, sync=1) is c


def test_a_dead_context_takes_its_launchers(uctx):
    ctx = vp.Context()
    a, b, x, y = _arrays(ctx)
    for _ in range(3):
        r = vp.add(x, y)
    w = vp.add._fastnw
    assert _launcher(w) is not None
    del x, y, r
    cref = weakref.ref(ctx)
    del ctx
    import gc
    gc.collect()
    # the context went (nothing else holds it), and so did its plans and
    # launchers: the ufunc holds no strong reference to them
    assert cref() is None and w() is None
    # and the next call, on another context, plans its own and is right
    a2, b2, x2, y2 = _arrays(uctx)
    for _ in range(3):
        np.testing.assert_array_equal((x2 + y2).numpy(), a2 + b2)
    assert _launcher(vp.add._fastnw) is not None
