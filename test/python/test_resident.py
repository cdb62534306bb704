"""Resident arrays: creation, attributes, views, zero-copy, copies."""
import numpy as np
import pytest

import vulpy as vp
from conftest import needs_ext

pytestmark = needs_ext

MAPPABLE = ("host", "cached", "rebar")


def addr(a):
    return a.__array_interface__["data"][0]


@pytest.mark.parametrize("memory", vp.MEMORY_KINDS)
def test_asarray_round_trip_every_memory_kind(ctx, memory):
    x = np.arange(1000, dtype=np.float32) * 0.5
    xv = vp.asarray(x, memory=memory)
    assert xv.memory == memory
    assert xv.shape == (1000,) and xv.dtype == np.float32 and xv.size == 1000
    assert xv.ndim == 1 and xv.nbytes == 4000 and xv.context is ctx
    np.testing.assert_array_equal(xv.numpy(), x)
    np.testing.assert_array_equal(np.asarray(xv), x)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.uint32, np.int64,
                                   np.uint64, np.bool_])
def test_every_dtype_round_trips(ctx, dtype):
    x = (np.arange(37) % 5).astype(dtype)
    xv = vp.asarray(x)
    assert xv.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(xv.numpy(), x)


def test_unsupported_dtype_names_it(ctx):
    # (int16 and complex were the examples until issue 19 made them supported:
    # test_small_dtypes.py, test_complex.py)
    with pytest.raises(TypeError, match=f"{np.dtype(np.longdouble).name} is not supported"):
        vp.asarray(np.zeros(3, np.longdouble))
    with pytest.raises(TypeError, match="clongdouble|complex256"):
        vp.empty(3, np.clongdouble)


def test_unknown_memory_kind_names_the_kinds(ctx):
    with pytest.raises(ValueError, match="'device', 'host', 'cached', 'rebar'"):
        vp.empty(3, memory="vram")


@pytest.mark.parametrize("memory", MAPPABLE)
def test_numpy_view_is_the_mapping(ctx, memory):
    xv = vp.asarray(np.arange(64, dtype=np.float32), memory=memory)
    view = xv.numpy_view()
    assert addr(view) == xv.buffer.address
    np.testing.assert_array_equal(view, np.arange(64, dtype=np.float32))
    # writes through the view are seen by the GPU side (and by .numpy())
    view[3] = 42.0
    assert xv.numpy()[3] == 42.0


def test_numpy_view_of_device_memory(ctx):
    xv = vp.zeros(16, memory="device")
    if xv.mappable:  # unified memory: device memory is host-visible
        assert addr(xv.numpy_view()) == xv.buffer.address
    else:
        with pytest.raises(ValueError, match="'host', 'cached' or 'rebar'"):
            xv.numpy_view()


def test_creation_functions(ctx):
    np.testing.assert_array_equal(vp.zeros((2, 3)).numpy(), np.zeros((2, 3), np.float32))
    np.testing.assert_array_equal(vp.ones(5, np.int32).numpy(), np.ones(5, np.int32))
    np.testing.assert_array_equal(vp.full(4, 2.5).numpy(), np.full(4, 2.5))
    np.testing.assert_array_equal(vp.full(3, 7, np.int64).numpy(), np.full(3, 7, np.int64))
    np.testing.assert_array_equal(vp.full(3, 1.5, np.float64).numpy(), np.full(3, 1.5))
    np.testing.assert_array_equal(vp.arange(10).numpy(), np.arange(10))
    np.testing.assert_array_equal(vp.arange(2, 11, 3, dtype=np.float32).numpy(),
                                  np.arange(2, 11, 3, dtype=np.float32))
    np.testing.assert_array_equal(vp.linspace(0, 1, 11, dtype=np.float32).numpy(),
                                  np.linspace(0, 1, 11, dtype=np.float32))
    e = vp.empty((0, 4))
    assert e.size == 0 and e.numpy().shape == (0, 4)


def test_like_functions_keep_shape_dtype_memory(ctx):
    xv = vp.asarray(np.ones((3, 4), np.float64), memory="cached")
    for f in (vp.empty_like, vp.zeros_like, vp.ones_like):
        y = f(xv)
        assert (y.shape, y.dtype, y.memory, y.context) == ((3, 4), np.float64, "cached", ctx)
    np.testing.assert_array_equal(vp.ones_like(xv).numpy(), np.ones((3, 4)))
    np.testing.assert_array_equal(vp.full_like(xv, 3).numpy(), np.full((3, 4), 3.0))
    z = vp.zeros_like(np.zeros(5, np.int32))
    assert z.dtype == np.int32 and z.shape == (5,)
    assert vp.empty_like(xv, np.float32).dtype == np.float32


def test_reshape_and_ravel_are_views(ctx):
    xv = vp.arange(12, dtype=np.float32, memory="host")
    r = xv.reshape(3, 4)
    assert r.shape == (3, 4) and r.buffer is xv.buffer
    assert xv.reshape((2, -1)).shape == (2, 6)
    f = r.ravel()
    assert f.shape == (12,) and f.buffer is xv.buffer
    r.numpy_view()[1, 1] = 100
    assert xv.numpy()[5] == 100
    with pytest.raises(ValueError, match="cannot reshape"):
        xv.reshape(5, 3)


def test_copy_astype_fill_set(ctx):
    xv = vp.asarray(np.arange(6, dtype=np.int32))
    c = xv.copy()
    assert c.buffer is not xv.buffer
    np.testing.assert_array_equal(c.numpy(), np.arange(6))
    c.fill(9)
    np.testing.assert_array_equal(c.numpy(), np.full(6, 9))
    c.set(np.arange(6, dtype=np.int32) * 2)
    np.testing.assert_array_equal(c.numpy(), np.arange(6) * 2)
    with pytest.raises(ValueError, match="shape"):
        c.set(np.zeros(5))


def test_host_import_is_zero_copy(ctx):
    if not ctx.has("external_memory_host"):
        pytest.skip("no VK_EXT_external_memory_host")
    a = vp.aligned_empty(1000, np.float32)
    a[:] = np.arange(1000)
    av = vp.asarray(a, memory="host")
    assert av.buffer.imported
    assert av.buffer.address == addr(a)
    np.testing.assert_array_equal(av.numpy_view(), a)
    a[7] = -1.0  # the NumPy array and the buffer are the same pages
    assert av.numpy()[7] == -1.0


def test_unaligned_host_array_is_copied(ctx):
    a = np.arange(10, dtype=np.float32)[1:]
    av = vp.asarray(a, memory="host")
    assert not av.buffer.imported
    np.testing.assert_array_equal(av.numpy(), a)


def test_asarray_of_resident_is_identity(ctx):
    xv = vp.zeros(4)
    assert vp.asarray(xv) is xv
    y = vp.asarray(xv, dtype=np.int32)
    assert y.dtype == np.int32 and y is not xv


def test_bool_arrays_are_words(ctx):
    b = vp.asarray(np.array([True, False, True]))
    assert b.dtype == np.bool_
    np.testing.assert_array_equal(b.numpy(), [True, False, True])
    if b.mappable:
        with pytest.raises(TypeError, match="uint32 words"):
            b.numpy_view()
        np.testing.assert_array_equal(b.view_words(), [1, 0, 1])


def test_repr_and_len(ctx):
    xv = vp.asarray(np.array([1.0, 2.0], np.float32))
    assert "shape=(2,)" in repr(xv) and "float32" in repr(xv)
    assert len(xv) == 2
    assert float(vp.asarray(np.array([3.5]))) == 3.5
