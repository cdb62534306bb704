"""The done flag of synchronous calls (runtime: vrt__wait_flag).

With the flag on, a synchronous kernel call waits on a word the GPU writes
after the kernel instead of the timeline semaphore. These tests turn it on
(it is off by default) and check the
results against NumPy over many back-to-back tiny calls, with asynchronous
calls mixed in, and with a flag that never comes (the runtime's testing
hook), where every wait must fall back to the semaphore. The validation
layer is on (conftest) and must stay silent.
"""
import numpy as np
import pytest

import vulpy as vp
from conftest import needs_target
from test_launcher import _saxpy  # a new saxpy kernel object per call

pytestmark = needs_target


@pytest.fixture
def fctx():
    c = vp.Context()
    c.done_flag = True
    # a long spin: on a loaded machine the flag must still end the waits
    c._native.set_wait("spin-block", 20000)
    return c


def _data(ctx):
    x0 = (np.arange(64) % 7).astype(np.float32)
    y0 = np.arange(64, dtype=np.float32)
    return x0, y0, vp.asarray(x0, context=ctx), vp.asarray(y0, context=ctx)


def test_default_is_off(ctx):
    assert ctx.done_flag is False
    c = vp.Context()
    c.done_flag = not c.done_flag
    assert c.done_flag != ctx.done_flag


def test_back_to_back_tiny_calls(fctx):
    k = _saxpy()
    x0, want, x, y = _data(fctx)
    before = fctx.stats()
    for r in range(200):
        k(x, y, dispatch=64, a=1.0)
        want = want + 1.0 * x0
        if r % 20 == 0 or r > 190:
            np.testing.assert_array_equal(y.numpy(), want)
    np.testing.assert_array_equal(y.numpy(), want)
    after = fctx.stats()
    waits = after["flag_waits"] - before["flag_waits"]
    fallbacks = after["flag_fallbacks"] - before["flag_fallbacks"]
    assert waits > 0 and waits + fallbacks == 200


def test_async_then_sync(fctx):
    k = _saxpy()
    x0, want, x, y = _data(fctx)
    for r in range(40):
        hs = [k(x, y, dispatch=64, a=0.5, sync=False) for _ in range(r % 4)]
        k(x, y, dispatch=64, a=2.0)
        want = want + (r % 4) * 0.5 * x0 + 2.0 * x0
        np.testing.assert_array_equal(y.numpy(), want)
        assert all(h.done for h in hs)
    # and the other way round: a sync call, then async ones and a wait
    for r in range(10):
        k(x, y, dispatch=64, a=1.0)
        h = k(x, y, dispatch=64, a=3.0, sync=False)
        h.wait()
        want = want + 4.0 * x0
    np.testing.assert_array_equal(y.numpy(), want)


def test_flag_that_never_comes_falls_back(fctx):
    k = _saxpy()
    x0, want, x, y = _data(fctx)
    fctx._native.set_wait("spin-block", 5)
    fctx._native.inject_fault("done flag", -1)  # the next recording writes 0
    before = fctx.stats()
    for _ in range(30):
        k(x, y, dispatch=64, a=3.0)
        want = want + 3.0 * x0
    np.testing.assert_array_equal(y.numpy(), want)
    after = fctx.stats()
    assert after["flag_fallbacks"] - before["flag_fallbacks"] >= 20
    assert (after["flag_fallbacks"] - before["flag_fallbacks"]
            + after["flag_waits"] - before["flag_waits"]) == 30
