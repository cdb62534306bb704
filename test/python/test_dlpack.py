"""DLPack (issue 18): ndarray.__dlpack__ / __dlpack_device__ for memory the
host can read (kDLCPU, zero copy: the NumPy array's pointer is the mapping),
vp.from_dlpack of kDLCPU tensors (zero-copy import where vp.asarray can
import, a copy otherwise), BufferError naming the memory kind for
device-only memory, and the capsule keeping the array alive."""
import gc
import sys

import numpy as np
import pytest

import vulpy as vp
from conftest import needs_ext

pytestmark = needs_ext


def test_np_from_dlpack_shares_the_bytes(ctx):
    x = vp.asarray(np.arange(8, dtype=np.float32), memory="host")
    assert x.__dlpack_device__() == (1, 0)
    a = np.from_dlpack(x)
    np.testing.assert_array_equal(a, np.arange(8, dtype=np.float32))
    assert a.ctypes.data == x.buffer.address  # zero copy: the mapping itself
    a[3] = 42.0  # write through NumPy ...
    assert x.numpy()[3] == 42.0  # ... and VulPy sees it
    y = vp.multiply(x, 2.0)  # the GPU reads NumPy's write too
    assert y.numpy()[3] == 84.0


def test_dlpack_waits_for_pending_gpu_writes(ctx):
    x = vp.zeros(1 << 16, memory="host")
    vp.add(vp.ones(1 << 16), 1.0, out=x, sync=False)
    a = np.from_dlpack(x)  # a host read point: the GPU's write is done
    np.testing.assert_array_equal(a, np.full(1 << 16, 2.0, np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint32,
                                   np.float64, np.int64, np.uint64])
def test_dlpack_dtypes_and_shapes(ctx, dtype):
    if np.dtype(dtype).itemsize == 8 and not ctx.has("float64" if dtype == np.float64 else "int64"):
        pytest.skip("no 64-bit type on this device")
    h = (np.arange(24) % 100).astype(dtype).reshape(2, 3, 4)
    x = vp.asarray(h, memory="host")
    a = np.from_dlpack(x)
    assert a.dtype == np.dtype(dtype) and a.shape == (2, 3, 4)
    np.testing.assert_array_equal(a, h)


def test_dlpack_strided_view_passes_strides(ctx):
    h = np.arange(24, dtype=np.float32).reshape(4, 6)
    x = vp.asarray(h, memory="host")
    v = x[1:, ::2]
    a = np.from_dlpack(v)
    np.testing.assert_array_equal(a, h[1:, ::2])
    assert a.strides == h[1:, ::2].strides
    assert a.ctypes.data == x.buffer.address + 6 * 4  # still no copy
    t = np.from_dlpack(x.T)
    np.testing.assert_array_equal(t, h.T)


def test_capsule_keeps_the_array_alive(ctx):
    x = vp.asarray(np.arange(1000, dtype=np.float32), memory="host")
    cap = x.__dlpack__()
    assert type(cap).__name__ == "PyCapsule"
    a = np.from_dlpack(x)
    ref = sys.getrefcount(x)
    del x
    gc.collect()
    np.testing.assert_array_equal(a, np.arange(1000, dtype=np.float32))
    del cap  # an unconsumed capsule frees its tensor (and its reference)
    gc.collect()
    assert ref >= 2
    for _ in range(3):  # allocations that would reuse the memory if it were freed
        vp.full(1000, -1.0, memory="host").numpy()
    np.testing.assert_array_equal(a, np.arange(1000, dtype=np.float32))


def test_unconsumed_capsule_releases_its_reference(ctx):
    x = vp.asarray(np.arange(4, dtype=np.float32), memory="host")
    before = sys.getrefcount(x)
    cap = x.__dlpack__()
    assert sys.getrefcount(x) == before + 1
    del cap
    assert sys.getrefcount(x) == before


def test_device_memory_raises_buffer_error_naming_the_kind(ctx):
    x = vp.asarray(np.arange(4, dtype=np.float32), memory="device")
    if x.buffer.mapped:
        pytest.skip("device memory is host-visible here (unified memory)")
    assert x.__dlpack_device__()[0] == 7  # kDLVulkan
    with pytest.raises(BufferError, match="memory='device'"):
        x.__dlpack__()
    with pytest.raises(BufferError, match="memory='device'"):
        np.from_dlpack(x)
    c = x.__dlpack__(copy=True)  # an explicit host copy
    assert type(c).__name__ == "PyCapsule"


def test_dlpack_argument_errors(ctx):
    x = vp.zeros(4, memory="host")
    with pytest.raises(ValueError, match="stream"):
        x.__dlpack__(stream=1)
    with pytest.raises(BufferError, match="dl_device"):
        x.__dlpack__(dl_device=(2, 0))
    with pytest.raises(BufferError, match="bool"):
        vp.asarray(np.ones(4, bool), memory="host").__dlpack__()


def test_from_dlpack_aligned_numpy_is_zero_copy(ctx):
    if not ctx.has("external_memory_host"):
        pytest.skip("no VK_EXT_external_memory_host")
    h = vp.aligned_empty(4096, np.float32)
    h[:] = np.arange(4096, dtype=np.float32)
    x = vp.from_dlpack(h)
    assert x.memory == "host" and x.buffer.address == h.ctypes.data
    h[7] = -5.0  # NumPy's write shows in VulPy: the same pages
    assert x.numpy()[7] == -5.0
    vp.add(x, 1.0, out=x)
    assert h[7] == -4.0  # and the GPU's write shows in NumPy
    np.testing.assert_array_equal(vp.from_dlpack(h, copy=False).numpy(), h)


def test_from_dlpack_copies_what_cannot_be_imported(ctx):
    h = np.arange(10, dtype=np.float32)[1:]  # not page-aligned
    x = vp.from_dlpack(h)
    np.testing.assert_array_equal(x.numpy(), h)
    h[0] = 99.0
    assert x.numpy()[0] == 1.0  # a copy, as documented
    with pytest.raises(BufferError, match="copy=False"):
        vp.from_dlpack(h, copy=False)


def test_from_dlpack_errors_and_round_trip(ctx):
    with pytest.raises(TypeError, match="__dlpack__"):
        vp.from_dlpack([1, 2, 3])

    class OnGpu:
        def __dlpack__(self, **kw):
            raise AssertionError("not called")

        def __dlpack_device__(self):
            return (2, 0)

    with pytest.raises(BufferError, match=r"\(2, 0\)"):
        vp.from_dlpack(OnGpu())
    x = vp.arange(6, dtype=np.float32, memory="host")
    assert vp.from_dlpack(x) is x
    h = np.from_dlpack(x)
    y = vp.from_dlpack(h)
    np.testing.assert_array_equal(y.numpy(), np.arange(6, dtype=np.float32))


class _DeviceOnly:
    """Stands in for a buffer the host cannot map (lavapipe maps every
    kind, so 'device' memory is host-visible here)."""
    mapped = False
    kind = "device"


def test_unmapped_memory_raises_buffer_error(ctx):
    x = vp.zeros(4, memory="device")
    x._buf = _DeviceOnly()
    assert x.__dlpack_device__() == (7, ctx.index)  # kDLVulkan
    with pytest.raises(BufferError, match=r"memory='device' on .*copy=True"):
        x.__dlpack__()
    with pytest.raises(BufferError, match="memory='device'"):
        np.from_dlpack(x)


def test_legacy_unversioned_capsule(ctx):
    import ctypes
    x = vp.asarray(np.arange(5, dtype=np.int32), memory="host")
    valid = ctypes.pythonapi.PyCapsule_IsValid
    valid.restype, valid.argtypes = ctypes.c_int, [ctypes.py_object, ctypes.c_char_p]
    assert valid(x.__dlpack__(), b"dltensor")
    assert valid(x.__dlpack__(max_version=(1, 0)), b"dltensor_versioned")

    class Old:  # a producer of DLPack 0.8's protocol: no keywords
        def __dlpack__(self):
            return x.__dlpack__()

        def __dlpack_device__(self):
            return x.__dlpack_device__()

    a = np.from_dlpack(Old())
    np.testing.assert_array_equal(a, np.arange(5))
    assert a.ctypes.data == x.buffer.address


def test_np_from_dlpack_of_imported_numpy_pages(ctx):
    # an array over imported NumPy pages (vp.from_dlpack of vp.aligned_empty)
    # has that ndarray as its buffer's owner, and __dlpack__ compared the
    # owner with "exportable" by ==: element by element, so np.from_dlpack
    # raised "The truth value of an array ... is ambiguous" (seen in a
    # clean-clone CI run of the docs' DLPack sample)
    h = vp.aligned_empty(4096, np.float32)
    h[:] = np.arange(4096, dtype=np.float32)
    y = vp.from_dlpack(h)
    a = np.from_dlpack(y)
    np.testing.assert_array_equal(a, np.arange(4096, dtype=np.float32))
    assert y.__dlpack_device__()[0] == 1
