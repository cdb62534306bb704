"""vp.jit's warm call with out= (issue 14, "Speed"): an elementwise function
on whole resident arrays of one shape is checked and dispatched in C
(Launcher.ufunc, as the ufuncs' out= calls are), and anything else still
takes the Python path with its rules (overlap copies, views, NumPy
arguments, other signatures)."""
import numpy as np
import pytest

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target

N = 1000


def _host(seed=0, n=N, dt=np.float32):
    return np.random.default_rng(seed).uniform(-1, 1, n).astype(dt)


def _calls(f):
    return f._fast.__self__.calls if f._fast is not None else None


def test_warm_call_is_the_c_path(ctx):
    h = _host()
    x, y = vp.asarray(h), vp.zeros(N, np.float32)
    f = vp.jit(lambda a: vp.sin(a) + vp.exp(a))
    assert f(x, out=y) is y
    assert f._fast is not None
    before = _calls(f)
    for _ in range(3):
        assert f(x, out=y) is y
    assert _calls(f) == before + 3
    np.testing.assert_allclose(y.numpy(), np.sin(h) + np.exp(h), rtol=1e-5)
    # inspection still describes the signature
    assert "void main()" in f.glsl and f.dispatches == 1


def test_warm_call_in_place_and_async(ctx):
    h = _host(1)
    f = vp.jit(lambda a, b: a * b + 1.0)
    x, y = vp.asarray(h), vp.zeros(N, np.float32)
    f(x, x, out=y)
    assert f._fast is not None
    z = vp.asarray(h)
    assert f(z, z, out=z) is z  # out= is an argument: read element for element
    np.testing.assert_allclose(z.numpy(), h * h + 1.0, rtol=1e-6)
    hd = f(x, x, out=y, sync=False)
    assert isinstance(hd, vp.Handle) and hd.wait() is y
    np.testing.assert_allclose(y.numpy(), h * h + 1.0, rtol=1e-6)


def test_other_signatures_take_the_python_path(ctx):
    h = _host(2)
    f = vp.jit(lambda a: a * 2.0)
    x, y = vp.asarray(h), vp.zeros(N, np.float32)
    f(x, out=y)
    first = f._fast.__self__
    calls = first.calls
    # another shape, another dtype, a view, a NumPy argument, no out=
    h2 = _host(3, 64)
    x2, y2 = vp.asarray(h2), vp.zeros(64, np.float32)
    f(x2, out=y2)
    np.testing.assert_allclose(y2.numpy(), h2 * 2.0, rtol=1e-6)
    hd = _host(4, N, np.float64)
    y64 = vp.zeros(N, np.float64)
    f(vp.asarray(hd), out=y64)
    np.testing.assert_allclose(y64.numpy(), hd * 2.0)
    w = vp.zeros(2 * N, np.float32)
    f(x, out=w[::2])
    np.testing.assert_allclose(w.numpy()[::2], h * 2.0, rtol=1e-6)
    assert not w.numpy()[1::2].any()
    f(h, out=y)
    np.testing.assert_allclose(y.numpy(), h * 2.0, rtol=1e-6)
    np.testing.assert_allclose(f(x).numpy(), h * 2.0, rtol=1e-6)
    # back to the first signature: its launcher (made once) serves it again
    f(x, out=y)
    f(x, out=y)
    assert f._fast.__self__ is first and first.calls == calls + 1


@pytest.mark.parametrize("fn,ref", [
    (lambda a: a[::-1] + 0.0, lambda h: h[::-1]),
    (lambda a: a - a.sum(), lambda h: h - h.sum(dtype=np.float32)),
], ids=["reversed", "sum"])
def test_not_elementwise_never_the_c_path(ctx, fn, ref):
    """A function that reads other elements than it writes keeps NumPy's
    overlap rule for out= arguments: it never gets the C path."""
    h = _host(5)
    f = vp.jit(fn)
    x, y = vp.asarray(h), vp.zeros(N, np.float32)
    f(x, out=y)
    assert f._fast is None
    z = vp.asarray(h)
    f(z, out=z)
    np.testing.assert_allclose(z.numpy(), ref(h), rtol=1e-4, atol=1e-4)
