"""ndarray.view(dtype) (issue 19: an ndarray method a NumPy user reaches
for, missing before): the buffer's bytes seen as another dtype, no copy,
against NumPy's view over every pair of a set of dtypes, on whole arrays
and on views; writes through either; ufuncs and kernels on a view; the
errors (bool is a 32-bit word on the device, byte offsets that are not
whole elements of the new dtype, NumPy's own size rules)."""
import numpy as np
import pytest

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target

DTS = [np.uint8, np.int16, np.float16, np.int32, np.float32, np.uint32, np.int64, np.float64,
       np.complex64, np.complex128]


def _data():
    r = np.random.default_rng(0)
    return r.integers(0, 256, 4 * 6 * 16, dtype=np.uint8)


@pytest.mark.parametrize("src", DTS, ids=lambda d: np.dtype(d).name)
def test_every_pair_matches_numpys_view(src):
    raw = _data()
    a = raw.view(src).reshape(4, -1)
    x = vp.asarray(a)
    for dst in DTS:
        for name, h, v in (("whole", a, x), ("rows", a[1:3], x[1:3]), ("reversed", a[::-1], x[::-1]),
                           ("row", a[2], x[2])):
            try:
                want = h.view(dst)
            except ValueError:
                with pytest.raises(ValueError):
                    v.view(dst)
                continue
            got = v.view(dst)
            assert got.dtype == want.dtype and got.shape == want.shape, (name, src, dst)
            np.testing.assert_array_equal(got.numpy().view(np.uint8), want.view(np.uint8),
                                          err_msg=f"{name} {np.dtype(src).name}->"
                                                  f"{np.dtype(dst).name}")


def test_writes_show_through_both_and_views_compute():
    a = np.array([[1.5, -2.0, 3.25, -0.0], [5.0, -6.0, 7.0, 8.0]], np.float32)
    x = vp.asarray(a)
    bits = x.view(np.uint32)
    bits[0, 0] = 0x40000000  # 2.0
    assert x.numpy()[0, 0] == 2.0
    x[1, 1] = 1.0
    assert bits.numpy()[1, 1] == 0x3F800000
    # |x| by clearing the sign bits, as a bit trick in NumPy
    cleared = (x.view(np.uint32) & np.uint32(0x7FFFFFFF)).view(np.float32)
    np.testing.assert_array_equal(cleared.numpy(), np.abs(x.numpy()))
    # a view's dtype in a kernel and in reductions
    assert int(vp.sum(x.view(np.int32) >> 31)) == int(np.sum(x.numpy().view(np.int32) >> 31))
    c = vp.asarray(np.array([1 + 2j, 3 - 4j], np.complex64)).view(np.float32)
    np.testing.assert_array_equal(c.numpy(), [1, 2, 3, -4])
    same = x.view()
    assert same is not x and same.dtype == x.dtype
    same[0, 2] = 9.0
    assert x.numpy()[0, 2] == 9.0


def test_view_errors_name_the_problem():
    x = vp.asarray(np.arange(8, dtype=np.float32).reshape(2, 4))
    with pytest.raises(TypeError, match="bool"):
        vp.asarray(np.array([True, False, True, True])).view(np.uint8)
    with pytest.raises(TypeError, match="bool"):
        vp.asarray(np.zeros(4, np.uint32)).view(np.bool_)
    with pytest.raises(ValueError, match="whole float64 elements"):
        x[:, 1:3].view(np.float64)  # NumPy takes it (byte offset 4); VulPy's offsets are elements
    with pytest.raises(ValueError, match="divisor"):
        x[:, 1:].view(np.float64)
    with pytest.raises(ValueError, match="contiguous"):
        x.T.view(np.float64)
    with pytest.raises(ValueError, match="0d"):
        vp.asarray(np.float32(1.0)).view(np.float64)
    with pytest.raises(TypeError, match="type="):
        x.view(np.float32, np.ndarray)
    with pytest.raises(TypeError):
        x.view("U4")


def test_more_ndarray_methods_match_numpy():
    """ndarray methods NumPy users call that vp.ndarray lacked: clip,
    compress, diagonal, trace, searchsorted, partition (in place),
    argpartition, put (in place), choose, mT, byteswap, tobytes, dumps,
    dump; each against NumPy's own method."""
    import io
    import pickle
    r = np.random.default_rng(0)
    a = r.integers(-50, 50, (4, 5)).astype(np.int32)
    x = vp.asarray(a)
    np.testing.assert_array_equal(x.clip(-3, 7).numpy(), a.clip(-3, 7))
    np.testing.assert_array_equal(x.clip(max=2).numpy(), a.clip(max=2))
    np.testing.assert_array_equal(x.compress([True, False, True], axis=1).numpy(),
                                  a.compress([True, False, True], axis=1))
    np.testing.assert_array_equal(x.diagonal(1).numpy(), a.diagonal(1))
    assert int(x.trace(-1)) == a.trace(-1)
    s = np.sort(a.ravel())
    np.testing.assert_array_equal(vp.asarray(s).searchsorted(np.array([0, 5]), side="right").numpy(),
                                  s.searchsorted([0, 5], side="right"))
    y = vp.asarray(a.copy())
    assert y.partition(2, axis=1) is None
    np.testing.assert_array_equal(y.numpy()[:, 2], np.sort(a, axis=1)[:, 2])
    np.testing.assert_array_equal(np.sort(y.numpy(), axis=1), np.sort(a, axis=1))
    idx = x.argpartition(1, axis=0).numpy()
    np.testing.assert_array_equal(np.take_along_axis(a, idx, 0)[1], np.sort(a, axis=0)[1])
    z, b = vp.asarray(a.copy()), a.copy()
    assert z.put([0, 3, -1], [100, 200, 300]) is None
    b.put([0, 3, -1], [100, 200, 300])
    np.testing.assert_array_equal(z.numpy(), b)
    c = np.array([0, 1, 1, 0])
    np.testing.assert_array_equal(vp.asarray(c).choose([np.arange(4), np.arange(4) * 10]).numpy(),
                                  c.choose([np.arange(4), np.arange(4) * 10]))
    m = np.arange(24).reshape(2, 3, 4)
    np.testing.assert_array_equal(vp.asarray(m).mT.numpy(), m.mT)
    for dt in (np.int32, np.float64, np.int16, np.uint8, np.complex64, np.complex128, np.float16):
        h = (np.arange(6).reshape(2, 3) * 37).astype(dt)
        for hv, v in ((h, vp.asarray(h)), (h[:, ::2], vp.asarray(h)[:, ::2])):
            np.testing.assert_array_equal(v.byteswap().numpy().view(np.uint8),
                                          hv.byteswap().view(np.uint8))
        w = vp.asarray(h)
        assert w.byteswap(inplace=True) is w
        np.testing.assert_array_equal(w.numpy().view(np.uint8), h.byteswap().view(np.uint8))
    assert x.tobytes() == a.tobytes()
    np.testing.assert_array_equal(pickle.loads(x.dumps()).numpy(), a)
    f = io.BytesIO()
    x.dump(f)
    f.seek(0)
    np.testing.assert_array_equal(pickle.load(f).numpy(), a)
    with pytest.raises(TypeError, match="bool"):
        vp.asarray(np.array([True])).byteswap()


def test_flat_reads_and_writes_in_c_order_through_views():
    """ndarray.flat (missing): x.flat[k] in C order, reading and writing
    through to x, transposed and strided views included, as NumPy's."""
    a = np.arange(12).reshape(3, 4)
    for make in (lambda v: v, lambda v: v.T, lambda v: v[::-1, 1::2]):
        x, h = make(vp.asarray(a.copy())), make(a.copy())
        for key in (5 % h.size, slice(1, 5), slice(None, None, 3), [0, h.size - 1],
                    np.arange(h.size) % 2 == 0):
            np.testing.assert_array_equal(np.asarray(x.flat[key].numpy()), h.flat[key])
            x.flat[key] = -7
            h.flat[key] = -7
            np.testing.assert_array_equal(x.numpy(), h)
        assert list(x.flat) == list(h.flat) and len(x.flat) == h.size
        np.testing.assert_array_equal(x.flat.copy().numpy(), h.flat.copy())
    x, h = vp.asarray(a.copy()).T, a.copy().T
    x.flat[[1, 2, 3]] = vp.asarray(np.array([10, 20, 30]))
    h.flat[[1, 2, 3]] = [10, 20, 30]
    np.testing.assert_array_equal(x.numpy(), h)
