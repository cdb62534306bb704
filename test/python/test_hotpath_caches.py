"""The small caches of the per-call hot path (issue 14's per-call figure)
never change a result:
- a ufunc launcher remembers shape tuples it found equal to its signature's
  (launch.c, ushape_seen): an operand of another shape, the same elements
  in another shape, or a reshaped view still gets NumPy's result;
- the runtime's launch cache looks at the entry the last dispatch used first
  (dispatch.c, last_launch): alternating outputs, a freed buffer whose
  memory the pool hands out again, another size, out= aliasing an operand;
- ndarray slots are read in place (fastarray.c, slot offsets found on a
  probe instance): the launchers see what the attributes say;
- @vp.kernel's call through vectorcall (3.12+) or tp_call (3.11) takes the
  same keywords and raises the same errors;
- ctx.synchronize() is the extension's wait: the eager work is done after it.
Every check compares with NumPy."""
import gc
import sys

import numpy as np
import pytest

import vulpy as vp
from conftest import needs_ext

pytestmark = needs_ext

N = 1024


@pytest.fixture(scope="module")
def hctx():
    return vp.Context()


def _launcher(w):
    m = w() if w is not None else None
    return m.__self__ if m is not None else None


def _pair(ctx, n=N, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    return a, b, vp.asarray(a, context=ctx), vp.asarray(b, context=ctx)


def test_shape_seen_equal_then_other_shapes(hctx):
    a, b, x, y = _pair(hctx)
    c = vp.empty(N, np.float32, context=hctx)
    for _ in range(3):  # plans the launcher, then serves from C
        vp.add(x, y, out=c)
    lau = _launcher(vp.add._fastw)
    assert lau is not None
    calls = lau.calls
    vp.add(x, y, out=c)
    assert lau.calls == calls + 1  # the C path took it (its shapes cached)
    np.testing.assert_array_equal(c.numpy(), a + b)
    # the same elements in another shape: not this signature's
    a2, b2 = a.reshape(32, 32), b.reshape(32, 32)
    x2 = vp.asarray(a2, context=hctx)
    y2 = vp.asarray(b2, context=hctx)
    c2 = vp.empty((32, 32), np.float32, context=hctx)
    vp.add(x2, y2, out=c2)
    np.testing.assert_array_equal(c2.numpy(), a2 + b2)
    # a reshaped view of the cached out=: the result has its shape
    r = vp.add(x2, y2)
    assert r.shape == (32, 32)
    np.testing.assert_array_equal(r.numpy(), a2 + b2)
    # another size
    a3, b3, x3, y3 = _pair(hctx, N // 2, 1)
    c3 = vp.empty(N // 2, np.float32, context=hctx)
    vp.add(x3, y3, out=c3)
    np.testing.assert_array_equal(c3.numpy(), a3 + b3)
    # back to the first: still right
    vp.add(y, y, out=c)
    np.testing.assert_array_equal(c.numpy(), b + b)


def test_new_shape_tuples_each_call(hctx):
    """A shape tuple that is a new object each time (more than the cache
    holds) is compared by value."""
    a, b, x, y = _pair(hctx, seed=2)
    c = vp.empty(N, np.float32, context=hctx)
    for k in range(12):
        xs = vp.asarray(a + k, context=hctx)
        vp.multiply(xs, y, out=c)
        np.testing.assert_array_equal(c.numpy(), (a + k) * b)


def test_alternating_outputs_and_a_freed_buffer(hctx):
    a, b, x, y = _pair(hctx, seed=3)
    outs = [vp.empty(N, np.float32, context=hctx) for _ in range(3)]
    for k in range(9):
        o = outs[k % 3]
        vp.add(x, y if k % 2 else x, out=o)
        np.testing.assert_array_equal(o.numpy(), a + (b if k % 2 else a))
    # free one output; the pool hands its memory to the next array of the size
    del outs[0], o
    gc.collect()
    fresh = vp.empty(N, np.float32, context=hctx)
    vp.subtract(x, y, out=fresh)
    np.testing.assert_array_equal(fresh.numpy(), a - b)
    # the eager results without out= take pooled buffers in turn
    for k in range(6):
        r = x * float(k)
        hctx.synchronize()
        np.testing.assert_array_equal(r.numpy(), a * np.float32(k))


def test_out_aliasing_an_operand(hctx):
    a, b, x, y = _pair(hctx, seed=4)
    c = vp.asarray(a, context=hctx)
    want = a.copy()
    for _ in range(4):
        vp.add(c, y, out=c)  # in place, the same launch again and again
        want = want + b
    np.testing.assert_allclose(c.numpy(), want, rtol=1e-6)
    vp.multiply(x, y, out=c)  # then out= no longer an operand
    np.testing.assert_array_equal(c.numpy(), a * b)


def test_slots_read_in_place_follow_the_attributes(hctx):
    a, b, x, y = _pair(hctx, seed=5)
    c = vp.empty(N, np.float32, context=hctx)
    vp.add(x, y, out=c)
    vp.add(x, y, out=c)
    # a view (not whole) of the same buffer: the C path must see _whole
    # False and leave it to the Python path
    v = c[: N // 2]
    vp.add(x[: N // 2], y[: N // 2], out=v)
    np.testing.assert_array_equal(v.numpy(), (a + b)[: N // 2])
    # another dtype: the C path must see its dtype
    xi = vp.asarray(np.arange(N, dtype=np.int32), context=hctx)
    ci = vp.empty(N, np.int32, context=hctx)
    vp.add(xi, xi, out=ci)
    np.testing.assert_array_equal(ci.numpy(), 2 * np.arange(N, dtype=np.int32))


@vp.kernel(local_size_x=64)
def _scale(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32], a: vp.float32):
    i = vp.global_id()
    y[i] = a * x[i]


def test_kernel_call_keywords_and_errors(hctx):
    a, _, x, _ = _pair(hctx, seed=6)
    y = vp.empty(N, np.float32, context=hctx)
    _scale(x, y, dispatch=N, a=2.0)
    _scale(x, y, dispatch=N, a=2.0)
    lau = _scale._fast
    assert lau
    calls = lau.calls
    for k, kw in enumerate([dict(dispatch=N, a=3.0), dict(a=4.0, dispatch=N),
                            dict(dispatch=N, a=5.0, sync=True), dict(groups=N // 64, a=6.0),
                            dict(dispatch=N, a=np.float32(7.0))]):
        _scale(x, y, **kw)
        np.testing.assert_array_equal(y.numpy(), a * np.float32(3.0 + k))
    assert lau.calls == calls + 5
    h = _scale(x, y, dispatch=N, a=8.0, sync=False)
    h.wait()
    np.testing.assert_array_equal(y.numpy(), a * np.float32(8.0))
    falls = lau.fallbacks
    with pytest.raises(TypeError, match="'a'"):
        _scale(x, y, dispatch=N)
    with pytest.raises(TypeError):
        _scale(x, y, dispatch=N, a=1.0, bogus=1)
    with pytest.raises(TypeError):
        _scale(x, y)
    with pytest.raises(TypeError):
        _scale(x, dispatch=N, a=1.0)
    # each call with keywords the launcher declined once (no keywords: never
    # asked), and the Python path raised
    assert lau.fallbacks == falls + 3
    _scale(x, y, dispatch=N, a=9.0)  # and the C path still serves
    np.testing.assert_array_equal(y.numpy(), a * np.float32(9.0))


@pytest.mark.skipif(sys.version_info < (3, 12),
                    reason="3.11 gives a Python subclass of KernelCall no vectorcall")
def test_kernel_class_speaks_vectorcall():
    # Py_TPFLAGS_HAVE_VECTORCALL: the call builds no argument tuple or dict
    assert type(_scale).__flags__ & (1 << 11)


def test_synchronize_waits_for_eager_work(hctx):
    a, b, x, y = _pair(hctx, seed=7)
    c = vp.empty(N, np.float32, context=hctx)
    sync = hctx.synchronize
    for k in range(5):
        vp.multiply(x, float(k), out=c)
        sync()
        assert hctx._native.stats()["submits"] >= 1
        np.testing.assert_array_equal(c.numpy(), a * np.float32(k))
    assert sync() is None
    assert "waits until every submitted" in (vp.Context.synchronize.__doc__ + sync.__doc__)
