"""Sizes are overflow-checked before they reach C (issue 20): a byte
count that does not fit 64 bits is a ValueError naming the call, and the
extension refuses negative or >= 2^64 sizes and offsets instead of
wrapping them (vp.empty(1 << 62) used to succeed with a 0-byte buffer)."""
import numpy as np
import pytest

import vulpy as vp
from vulpy import _native
from conftest import needs_ext

pytestmark = needs_ext


@pytest.mark.parametrize("shape,dtype", [
    (1 << 62, np.float32),
    ((1 << 61,), np.float64),
    ((1 << 40, 1 << 30), np.float32),
    ((1 << 32, 1 << 32, 2), np.int32),
])
def test_empty_too_big(shape, dtype):
    with pytest.raises(ValueError, match="vp.empty: shape .* too big"):
        vp.empty(shape, dtype)
    with pytest.raises(ValueError, match="too big"):
        vp.zeros(shape, dtype)
    with pytest.raises(ValueError, match="too big"):
        vp.full(shape, 1, dtype)


def test_empty_big_but_representable_is_not_silent():
    # 2^62 bytes fit 64 bits: the device refuses it, never a tiny buffer
    with pytest.raises((MemoryError, vp.VulkanError)):
        vp.empty(1 << 60, np.float32)


def test_aligned_empty_too_big():
    with pytest.raises(ValueError, match="aligned_empty.*too big"):
        vp.aligned_empty((1 << 32, 1 << 32))


def test_negative_dims():
    with pytest.raises(ValueError, match="negative"):
        vp.empty((4, -1))


def _ctx():
    return vp.Context()._native


@pytest.mark.parametrize("size", [-1, -16, 1 << 64, (1 << 64) + 16])
def test_buffer_size_checked(size):
    with pytest.raises(ValueError, match="size"):
        _native.ext().Buffer(_ctx(), size)


def test_buffer_offsets_checked():
    c = _ctx()
    b = _native.ext().Buffer(c, 64)
    x = np.zeros(4, np.float32)
    with pytest.raises(ValueError, match="offset"):
        b.upload(x, -4)
    with pytest.raises(ValueError, match="offset"):
        b.download(x, (1 << 64) + 4)  # used to wrap to offset 4
    with pytest.raises(ValueError, match="offset"):
        b.fill(0, 1 << 64)
    with pytest.raises(ValueError, match="src_offset"):
        b.copy_from(b, 0, 128)
    with pytest.raises(ValueError, match="does not fit"):
        b.copy_from(b, 0, 0, 100)
    with pytest.raises(ValueError, match="size"):
        b.fill(0, 0, -2)
    b.fill(7, 0, -1)  # -1: the rest
    b.download(x)
    assert (x.view(np.uint32) == 7).all()
    with pytest.raises(ValueError, match="size"):
        c.scratch(-16, "device")
