"""Two contexts in one process (issue 18): arrays of two contexts meeting in
one call (ufuncs, vp.jit, @vp.kernel) raise a ValueError naming both
devices, and x.to(ctx) copies an array to another context (through host
memory). Both contexts are on the default device (lavapipe here)."""
import numpy as np
import pytest

import vulpy as vp
from conftest import needs_ext, needs_target

pytestmark = needs_ext


@pytest.fixture
def two(ctx):
    other = vp.Context()
    assert other is not ctx and other._native is not ctx._native
    return ctx, other


def _names_both(exc, a, b):
    msg = str(exc.value)
    assert "different contexts" in msg
    assert f"{id(a):#x}" in msg and f"{id(b):#x}" in msg
    assert msg.count(a.name) + msg.count(b.name) >= 2


def test_two_contexts_both_work(two):
    a, b = two
    x = vp.asarray(np.arange(4, dtype=np.float32), context=a)
    y = vp.asarray(np.arange(4, dtype=np.float32), context=b)
    np.testing.assert_array_equal((x + 1).numpy(), (y + 1).numpy())
    assert x.context is a and y.context is b


def test_ufunc_names_both_devices(two):
    a, b = two
    x, y = vp.zeros(3, context=a), vp.zeros(3, context=b)
    with pytest.raises(ValueError) as e:
        vp.add(x, y)
    _names_both(e, a, b)
    with pytest.raises(ValueError) as e:
        vp.add(x, x, out=y)
    _names_both(e, a, b)
    with pytest.raises(ValueError) as e:
        x + y
    _names_both(e, a, b)


def test_jit_names_both_devices(two):
    a, b = two

    @vp.jit
    def f(p, q):
        return p * 2 + q

    x, y = vp.ones(3, context=a), vp.ones(3, context=b)
    np.testing.assert_array_equal(f(x, x).numpy(), np.full(3, 3, np.float32))
    with pytest.raises(ValueError) as e:
        f(x, y)
    _names_both(e, a, b)


def test_array_functions_name_themselves_and_both_devices(two):
    # the operand checks of the array functions (_array.common_context):
    # the error names the function the user called, not an inner ufunc
    a, b = two
    x, y = vp.ones((2, 4), context=a), vp.ones((2, 4), context=b)
    calls = {"vp.isclose": lambda: vp.isclose(x, y), "vp.append": lambda: vp.append(x, y),
             "vp.matmul": lambda: vp.matmul(x, y.T), "vp.einsum": lambda: vp.einsum("ij,kj", x, y)}
    for name, call in calls.items():
        with pytest.raises(ValueError, match=name + ": arrays of different contexts") as e:
            call()
        _names_both(e, a, b)


@needs_target
def test_kernel_names_both_devices(two):
    a, b = two

    @vp.kernel(local_size_x=64)
    def k(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32]):
        i = vp.global_id()
        y[i] = x[i] + 1.0

    x, y = vp.ones(4, context=a), vp.zeros(4, context=b)
    with pytest.raises(ValueError) as e:
        k(x, y, dispatch=4)
    _names_both(e, a, b)


@pytest.mark.parametrize("memory", ["device", "host"])
def test_to_copies_to_another_context(two, memory):
    a, b = two
    h = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = vp.asarray(h, memory=memory, context=a)
    y = x.to(b)
    assert y.context is b and y.shape == (3, 4) and y.dtype == np.float32
    np.testing.assert_array_equal(y.numpy(), h)
    vp.add(y, 1.0, out=y)  # a copy: x does not change
    np.testing.assert_array_equal(x.numpy(), h)
    np.testing.assert_array_equal((y - 1).numpy(), h)
    assert x.to(a) is x
    np.testing.assert_array_equal(x[:, 1::2].to(b).numpy(), h[:, 1::2])
    assert x.to(b, memory="host").memory == "host"
    z = vp.asarray(np.array([True, False]), context=a).to(b)
    np.testing.assert_array_equal(z.numpy(), [True, False])


def test_from_dlpack_to_another_context(two):
    a, b = two
    x = vp.arange(5, dtype=np.float32, memory="host", context=a)
    y = vp.from_dlpack(x, context=b)
    assert y.context is b
    np.testing.assert_array_equal(y.numpy(), np.arange(5, dtype=np.float32))


@pytest.mark.parametrize("memory", ["device", "host", "cached", "rebar"])
def test_to_through_imported_pages(two, monkeypatch, memory):
    """x.to(ctx) through host pages imported into both contexts (the path a
    discrete GPU takes; forced here on lavapipe) gives the same bits as the
    NumPy path, for every memory kind, and leaves the source unchanged."""
    from vulpy import _array
    a, b = two
    monkeypatch.setattr(_array, "_TO_PAGES_KINDS", ("dgpu", "igpu", "cpu", "virtual", "other"))
    monkeypatch.setattr(_array, "_TO_PAGES_MIN", 1)
    took = []
    real = _array._to_through_pages
    monkeypatch.setattr(_array, "_to_through_pages",
                        lambda *args: took.append(real(*args)) or took[-1])
    data = np.random.default_rng(3).standard_normal(70001).astype(np.float32)
    x = vp.sin(vp.asarray(data, memory=memory, context=a))   # GPU-written, pending
    y = x.to(b)
    assert y.context is b and y.dtype == x.dtype and y.shape == x.shape
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    assert len(took) == 1 and took[0] is y     # the pages path ran (lavapipe imports)
    z = vp.asarray(np.arange(12, dtype=np.int64).reshape(3, 4), context=a)[1:]   # a view
    np.testing.assert_array_equal(z.to(b).numpy(), np.arange(12).reshape(3, 4)[1:])
    m = vp.asarray(np.array([True, False, True]), context=a)                    # bool words
    assert m.to(b).numpy().tolist() == [True, False, True]
