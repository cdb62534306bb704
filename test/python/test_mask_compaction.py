"""a[mask] on resident arrays (issue 19): a device compaction (a scan of the
mask, one 4-byte read back of the count, a scatter) against NumPy, and the
read back itself: x[k:].numpy() of a view reads only the elements the view
reaches (it read the whole buffer, which for the scan's 2^26-element
positions on the H200 was most of the 2.4 s a[mask] took)."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target

SETTINGS = settings(max_examples=12, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


class _CountingBuffer:
    """A resident buffer that records the byte sizes of its downloads."""

    def __init__(self, buf):
        self._b, self.sizes = buf, []

    def download(self, dst, offset=0):
        self.sizes.append(memoryview(dst).nbytes)
        return self._b.download(dst, offset)

    def __getattr__(self, name):
        return getattr(self._b, name)


@pytest.mark.parametrize("key", [np.s_[4095:], np.s_[10:20:3], np.s_[::-7], np.s_[100:0:-9]])
def test_view_numpy_reads_only_what_the_view_reaches(key):
    h = np.arange(4096, dtype=np.int32)
    v = vp.asarray(h)[key]
    rec = _CountingBuffer(v._buf)
    v._buf = rec
    np.testing.assert_array_equal(v.numpy(), h[key])
    span = (max(range(4096)[key]) - min(range(4096)[key]) + 1) * 4
    assert rec.sizes == [span]


def test_mask_reads_back_four_bytes():
    # the count is the last element of the mask's positions: one 4-byte read
    n = 1 << 14
    h = np.arange(n, dtype=np.float32)
    x = vp.asarray(h)
    m = x > 100.0
    seen = []
    orig = vp.ndarray.numpy

    def spy(self):
        seen.append(self.nbytes)
        return orig(self)
    try:
        vp.ndarray.numpy = spy
        r = x[m]
    finally:
        vp.ndarray.numpy = orig
    assert seen == [4]
    np.testing.assert_array_equal(r.numpy(), h[h > 100.0])


@pytest.mark.parametrize("dt", [np.float32, np.int32, np.uint32, np.bool_])
def test_mask_special_masks(dt):
    h = (np.arange(60) % 7).astype(dt).reshape(3, 4, 5)
    x = vp.asarray(h)
    cases = [np.zeros(3, bool), np.ones(3, bool), np.zeros((3, 4), bool),
             np.ones((3, 4, 5), bool), np.arange(60).reshape(3, 4, 5) % 4 == 1,
             np.array([True, False, True])]
    for m in cases:
        for mk in (m, vp.asarray(m)):
            got = x[mk]
            assert isinstance(got, vp.ndarray)
            assert got.shape == h[m].shape and got.dtype == h[m].dtype
            np.testing.assert_array_equal(got.numpy(), h[m])
    # a broadcast (zero-stride) resident mask, and a 0-d array's mask
    row = vp.asarray(np.array([True, False, False, True, True]))
    mb = vp.broadcast_to(row, (3, 4, 5))
    np.testing.assert_array_equal(x[mb].numpy(), h[np.broadcast_to(row.numpy(), (3, 4, 5))])
    s = vp.asarray(np.array(5, dtype=dt))
    for b in (True, False):
        np.testing.assert_array_equal(s[vp.asarray(np.array(b))].numpy(), np.array(5, dt)[np.array(b)])


def test_mask_of_views():
    h = np.arange(200, dtype=np.float32).reshape(10, 20)
    x = vp.asarray(h)
    v, hv = x[::2, 3:17], h[::2, 3:17]          # a strided view, and a strided mask
    mh = (np.arange(200).reshape(10, 20) % 3 == 0)
    m = vp.asarray(mh)[1::2, ::-1][:, 3:17]
    np.testing.assert_array_equal(v[m].numpy(), hv[mh[1::2, ::-1][:, 3:17]])
    np.testing.assert_array_equal(x.T[vp.asarray(mh.T)].numpy(), h.T[mh.T])


@SETTINGS
@given(st.lists(st.integers(0, 6), min_size=0, max_size=3), st.integers(0, 3),
       st.floats(0.0, 1.0), st.integers(0, 2**31))
def test_mask_matches_numpy(shape, mdims, p, seed):
    shape = tuple(shape)
    mdims = min(mdims, len(shape))
    rng = np.random.default_rng(seed)
    h = rng.standard_normal(shape).astype(np.float32)
    mh = rng.random(shape[:mdims]) < p
    x = vp.asarray(h)
    np.testing.assert_array_equal(x[vp.asarray(mh)].numpy(), h[mh])
    np.testing.assert_array_equal(x[mh].numpy(), h[mh])


@pytest.mark.slow
def test_mask_large():
    n = (1 << 22) + 3
    rng = np.random.default_rng(1)
    h = rng.integers(-3, 4, n).astype(np.int32)
    x = vp.asarray(h)
    np.testing.assert_array_equal(x[x > 0].numpy(), h[h > 0])


@pytest.mark.parametrize("dt", [np.float32, np.int32, np.uint32, np.bool_, np.float64,
                                np.int64, np.uint64, np.int8, np.float16])
def test_compaction_over_tiles(dt, monkeypatch):
    # masks over every axis take the stream compaction (_compact.py: tiles
    # of 2048 elements); several tiles, a partial last one, 8-byte elements
    # as two words; the 8/16-bit dtypes take the array path. MAX_GX = 2
    # folds the tiles onto a 2-D grid, as past 32768 tiles.
    from vulpy import _launch
    rng = np.random.default_rng(7)
    n = 3 * 2048 + 5
    h = (rng.standard_normal(n) * 50).astype(dt)
    for p in (0.0, 0.01, 0.5, 1.0):
        hm = rng.random(n) < p
        for gx in (None, 2):
            if gx:
                monkeypatch.setattr(_launch, "MAX_GX", gx)
            got = vp.asarray(h)[vp.asarray(hm)]
            assert got.dtype == h.dtype and got.shape == h[hm].shape
            np.testing.assert_array_equal(got.numpy(), h[hm])
            monkeypatch.undo()
    # 2-D: the mask covers both axes
    h2, m2 = h[:6000].reshape(60, 100), rng.random((60, 100)) < 0.3
    np.testing.assert_array_equal(vp.asarray(h2)[m2].numpy(), h2[m2])


def test_compaction_is_taken_for_full_masks(monkeypatch):
    from vulpy import _compact
    calls = []
    orig = _compact.mask_select
    monkeypatch.setattr(_compact, "mask_select", lambda a, m: calls.append(1) or orig(a, m))
    x = vp.asarray(np.arange(12, dtype=np.float32).reshape(3, 4))
    assert x[x > 4.0].shape == (7,) and calls


def test_nonzero_takes_the_compaction_and_compiles_nothing_per_shape(compiled_texts):
    """numpy.nonzero, flatnonzero and argwhere write the flat indices of the
    true elements from the compaction's scatter (words=0), bit for bit
    NumPy's (int64, every dimension) around the tile (K.T) and for empty,
    all-false and all-true inputs. They built the indices as a cumsum of
    ones, a static-shape array VIR compiled for every new size (13-90 ms a
    call on lavapipe): now a new shape compiles no array VIR at all."""
    from vulpy import _compact_kernels as K
    rng = np.random.default_rng(4)
    shapes = [(1,), (7,), (K.T - 1,), (K.T,), (K.T + 1,), (3, K.T // 3 + 5), (2, 3, 401), (0,),
              (4, 0)]
    for p in (0.0, 0.3, 1.0):
        for shape in shapes:
            h = (rng.random(shape) < p).astype(np.float32) * rng.integers(1, 5, shape)
            x = vp.asarray(h)
            for got, want in [(vp.nonzero(x), np.nonzero(h)), ((vp.flatnonzero(x),),
                                                               (np.flatnonzero(h),)),
                              ((vp.argwhere(x),), (np.argwhere(h),))]:
                assert len(got) == len(want)
                for g, w in zip(got, want):
                    g = g.numpy()
                    assert g.dtype == w.dtype and g.shape == w.shape, (shape, p)
                    np.testing.assert_array_equal(g, w, err_msg=str((shape, p)))
    texts = compiled_texts
    vp.nonzero(vp.asarray(rng.random((5, 9)) < 0.5))[0].numpy()  # the ufuncs' plans
    texts.clear()
    for n in (333, 1234, 5000):
        m = vp.asarray(rng.random((n // 7 + 1, 7)) < 0.5)
        vp.nonzero(m)[0].numpy()
        vp.flatnonzero(m).numpy()
    static = [t for t in texts if "?x" not in t]
    assert not static, static[0]
