"""np.packbits / np.unpackbits / np.histogram_bin_edges on resident arrays
(issue 19's "__array_function__: run on the device or raise"): they raised
"not implemented for vp.ndarray"; now vp.packbits, vp.unpackbits and
vp.histogram_bin_edges, checked against NumPy over dtypes, shapes, every
axis, both bit orders and counts."""
import numpy as np
import pytest

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target


@pytest.mark.parametrize("dt", [np.bool_, np.uint8, np.int32, np.int64, np.int8],
                         ids=lambda d: np.dtype(d).name)
def test_packbits_and_unpackbits_match_numpy(dt):
    r = np.random.default_rng(0)
    for shape in ((9,), (3, 5), (2, 3, 11), (0,), (4, 0), (1, 16)):
        a = r.integers(0, 3, shape).astype(dt)
        for axis in [None] + list(range(-len(shape), len(shape))):
            for order in ("big", "little"):
                want = np.packbits(a, axis=axis, bitorder=order)
                for got in (vp.packbits(vp.asarray(a), axis=axis, bitorder=order),
                            np.packbits(vp.asarray(a), axis=axis, bitorder=order)):
                    assert isinstance(got, vp.ndarray) and got.dtype == want.dtype
                    np.testing.assert_array_equal(got.numpy(), want)
                packed = vp.asarray(want)
                for count in (None, 3, -5, 100):
                    if want.size == 0 and count is not None and count > 0:
                        continue  # NumPy pads an empty array with uninitialized bytes
                    try:
                        w = np.unpackbits(want, axis=axis, count=count, bitorder=order)
                    except ValueError:  # -count past the elements: NumPy's error
                        with pytest.raises(ValueError, match="-count larger"):
                            vp.unpackbits(packed, axis=axis, count=count, bitorder=order)
                        continue
                    g = vp.unpackbits(packed, axis=axis, count=count, bitorder=order)
                    assert g.dtype == w.dtype and g.shape == w.shape
                    np.testing.assert_array_equal(g.numpy(), w)
    assert isinstance(vp.packbits(np.array([1, 0, 1])), np.ndarray)  # NumPy in, NumPy out
    with pytest.raises(TypeError, match="integer or boolean"):
        vp.packbits(vp.asarray(np.ones(3, np.float32)))
    with pytest.raises(TypeError, match="unsigned byte"):
        vp.unpackbits(vp.asarray(np.ones(3, np.int32)))
    with pytest.raises(ValueError, match="'little' or 'big'"):
        vp.packbits(vp.asarray(np.ones(3, np.int32)), bitorder="middle")


def test_histogram_bin_edges_match_numpy():
    r = np.random.default_rng(1)
    a = r.standard_normal(500).astype(np.float32)
    x = vp.asarray(a)
    for bins, rng in ((10, None), (7, (-1.0, 2.0)), ("auto", None), ("fd", None),
                      ("sturges", None), (np.array([-2.0, 0.0, 0.5, 3.0]), None)):
        want = np.histogram_bin_edges(a, bins, rng)
        got = np.histogram_bin_edges(x, bins, rng)
        assert isinstance(got, vp.ndarray) and got.shape == want.shape
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
        np.testing.assert_array_equal(np.histogram(x, bins, rng)[1].numpy(), got.numpy())
    with pytest.raises(ValueError, match="monotonically"):
        vp.histogram_bin_edges(x, vp.asarray(np.array([1.0, 0.0])))
