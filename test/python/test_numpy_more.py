"""More NumPy functions (docs/python-api.md, "More NumPy functions"):
index helpers (_indexfuncs.py), set operations (_setfuncs.py), binning
(_histogram.py) and cov/corrcoef/kron/trapezoid/polyval (_statfuncs.py),
differentially against NumPy (hypothesis) on resident arrays, contiguous
and strided views, empty inputs, through vp.<name> and NumPy's own names
(__array_function__), plus NumPy's errors. Few shapes and dtypes, so that
few kernels are compiled."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import vulpy as vp
from conftest import needs_target
from test_array_api import check, resident

pytestmark = needs_target

SETTINGS = settings(max_examples=8, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
DTYPES = [np.float32, np.int32, np.int64, np.float64]


def _skip_f64(dt):
    if np.dtype(dt) == np.float64 and not vp.default_context().has("float64"):
        pytest.skip("the device has no float64")


def small(dt, shape):
    """Small integer values (many repeats) in dtype dt."""
    el = st.integers(-4, 4).map(lambda v: np.dtype(dt).type(v))
    return hnp.arrays(dt, shape, elements=el)


SHAPES = hnp.array_shapes(min_dims=2, max_dims=2, min_side=0, max_side=4)


# ------------------------------------------------------------------ index helpers
@pytest.mark.parametrize("dt", DTYPES)
@SETTINGS
@given(data=st.data(), strided=st.booleans(), axis=st.sampled_from([0, 1, -1]))
def test_take_put_along_axis(dt, data, strided, axis):
    _skip_f64(dt)
    a = data.draw(small(dt, data.draw(SHAPES)))
    n = a.shape[axis]
    ishape = list(a.shape)
    ishape[axis] = data.draw(st.integers(0 if n == 0 else 1, 3))
    if n == 0:
        ishape[axis] = 0
    idx = data.draw(hnp.arrays(np.int64, tuple(ishape),
                               elements=st.integers(-n, max(n - 1, -n))))
    x = resident(a, strided)
    want = np.take_along_axis(a, idx, axis)
    check(vp.take_along_axis(x, vp.asarray(idx), axis), want)
    check(np.take_along_axis(x, idx, axis=axis), want)
    vals = np.arange(idx.size, dtype=dt).reshape(idx.shape)
    if idx.size:
        # distinct positions in each slice along the axis (the first k of a
        # permutation of each; some negative): which of repeated writes
        # lands is unspecified, as CuPy's (the H200 kept another than
        # NumPy's last when an earlier version of this test repeated some)
        keys = data.draw(hnp.arrays(np.int32, a.shape, elements=st.integers(0, 99)))
        perm = np.argsort(keys, axis=axis, kind="stable")
        idx = np.take(perm, np.arange(min(idx.shape[axis], n)), axis=axis)
        neg = data.draw(hnp.arrays(np.bool_, idx.shape))
        idx = np.where(neg, idx - n, idx)
        vals = np.arange(idx.size, dtype=dt).reshape(idx.shape)
    b = a.copy()
    np.put_along_axis(b, idx, vals, axis)
    vp.put_along_axis(x, vp.asarray(idx), vp.asarray(vals), axis)
    check(x, b)
    # axis=None takes from the flattened array
    flat = np.array([0, -1], np.int64) if a.size else np.zeros(0, np.int64)
    check(vp.take_along_axis(x, flat, None), np.take_along_axis(b, flat, None))


@SETTINGS
@given(shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5),
       data=st.data(), order=st.sampled_from("CF"))
def test_unravel_ravel_multi_index(shape, data, order):
    size = int(np.prod(shape))
    flat = data.draw(hnp.arrays(np.int64, data.draw(st.integers(0, 6)),
                                elements=st.integers(0, size - 1)))
    want = np.unravel_index(flat, shape, order=order)
    got = vp.unravel_index(vp.asarray(flat), shape, order=order)
    check(list(got), list(want))
    coords = tuple(vp.asarray(c) for c in want)
    check(vp.ravel_multi_index(coords, shape, order=order), flat)
    check(np.ravel_multi_index(coords, shape, order=order), flat)
    big = tuple(c + 2 * d for c, d in zip(want, shape))
    for mode in ("wrap", "clip"):
        check(vp.ravel_multi_index(tuple(map(vp.asarray, big)), shape, mode=mode),
              np.ravel_multi_index(big, shape, mode=mode))


def test_indices_rot90():
    for dims, dt in (((2, 3), int), ((0, 2), np.int32), ((), int), ((3, 1, 2), np.float32)):
        check(vp.indices(dims, dtype=dt), np.indices(dims, dtype=dt))
        check(list(vp.indices(dims, dtype=dt, sparse=True)),
              list(np.indices(dims, dtype=dt, sparse=True)))
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for strided in (False, True):
        x = resident(a, strided)
        for k in (-1, 0, 1, 2, 3, 6):
            for axes in ((0, 1), (2, 0), (-1, 1)):
                check(vp.rot90(x, k, axes), np.rot90(a, k, axes))
        check(np.rot90(x), np.rot90(a))
    check(vp.rot90(vp.zeros((0, 3), np.int32)), np.rot90(np.zeros((0, 3), np.int32)))


@pytest.mark.parametrize("shape,wrap", [((3, 3), False), ((5, 3), False), ((5, 2), True),
                                        ((2, 4), False), ((3, 3, 3), False), ((0, 0), False)])
def test_fill_diagonal(shape, wrap):
    a = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    for val in (-7, [10, 20], np.array([[1, 2], [3, 4], [5, 6]], np.int32)):
        b = a.copy()
        np.fill_diagonal(b, val, wrap)
        x = vp.asarray(a)
        assert vp.fill_diagonal(x, vp.asarray(np.asarray(val, np.int32)), wrap) is None
        check(x, b)
    # through a strided view, and via NumPy's name
    big = np.zeros(shape[:-1] + (2 * shape[-1],), np.float32)
    b = big.copy()
    np.fill_diagonal(b[..., ::2], 2.5, wrap)
    xb = vp.asarray(big)
    np.fill_diagonal(xb[..., ::2], 2.5, wrap)
    check(xb, b)


# ------------------------------------------------------------------ set operations
@settings(SETTINGS, max_examples=4)
@given(data=st.data(), strided=st.booleans(), dt=st.sampled_from([np.int32, np.float32]))
def test_set_operations(dt, data, strided):
    # fixed shapes (each shape compiles its own kernels); empty ones below
    a = data.draw(small(dt, (2, 3)))
    b = data.draw(small(dt, data.draw(st.sampled_from([(5,), (0,)]))))
    if data.draw(st.booleans()):
        a = a[:0]
    if np.dtype(dt).kind == "f" and a.size:
        a.flat[0] = np.nan   # NaN is never found, as NumPy's
    x, y = resident(a, strided), vp.asarray(b)
    check(vp.isin(x, y), np.isin(a, b))
    check(np.isin(x, y, invert=True), np.isin(a, b, invert=True))
    check(vp.isin(x, b), np.isin(a, b))
    ua, ub = np.unique(a[~np.isnan(a)] if a.dtype.kind == "f" else a), np.unique(b)
    check(vp.union1d(x, y), np.union1d(a, b))
    check(np.intersect1d(x, y), np.intersect1d(a, b))
    check(list(vp.intersect1d(x, y, return_indices=True)),
          list(np.intersect1d(a, b, return_indices=True)))
    check(list(vp.intersect1d(vp.asarray(ua), vp.asarray(ub), assume_unique=True,
                              return_indices=True)),
          list(np.intersect1d(ua, ub, assume_unique=True, return_indices=True)))
    check(vp.setdiff1d(x, y), np.setdiff1d(a, b))
    check(vp.setdiff1d(vp.asarray(ua), vp.asarray(ub), assume_unique=True),
          np.setdiff1d(ua, ub, assume_unique=True))
    check(np.setxor1d(x, y), np.setxor1d(a, b))


def test_set_operations_mixed_dtypes():
    a, b = np.array([1, 2, 5], np.int32), np.array([2.5, 5.0, 1.0], np.float32)
    for name in ("union1d", "setdiff1d", "isin"):  # setdiff1d keeps ar1's dtype
        check(getattr(vp, name)(vp.asarray(a), vp.asarray(b)), getattr(np, name)(a, b),
              name=name)


# ------------------------------------------------------------------ binning
@settings(SETTINGS, max_examples=4)
@given(data=st.data(), strided=st.booleans())
def test_digitize_bincount(data, strided):
    x = data.draw(hnp.arrays(np.float32, data.draw(st.sampled_from([0, 7])),
                             elements=st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.0, 2.5, 9.0])))
    bins = np.array([0.0, 1.0, 1.0, 2.5], np.float32)
    for right in (False, True):
        check(vp.digitize(resident(x, strided), bins, right), np.digitize(x, bins, right))
        check(np.digitize(vp.asarray(x), bins[::-1], right=right),
              np.digitize(x, bins[::-1], right=right))
    c = data.draw(hnp.arrays(np.int64, data.draw(st.sampled_from([0, 8])),
                             elements=st.integers(0, 6)))
    w = np.linspace(-1, 2, c.size)
    minlength = data.draw(st.integers(0, 9))
    check(vp.bincount(resident(c, strided), minlength=minlength),
          np.bincount(c, minlength=minlength))
    if vp.default_context().has("float64"):
        check(np.bincount(vp.asarray(c), vp.asarray(w), minlength), np.bincount(c, w, minlength),
              rtol=1e-12, atol=1e-12)


@SETTINGS
@given(data=st.data(), strided=st.booleans(), dt=st.sampled_from([np.float32, np.int32]))
def test_histogram(data, strided, dt):
    a = data.draw(hnp.arrays(dt, data.draw(st.sampled_from([0, 1, 9])),
                             elements=st.integers(-3, 6).map(lambda v: dt(v))))
    x = resident(a, strided)
    for kw in ({}, {"bins": 3}, {"bins": 4, "range": (-1, 5)}, {"bins": [-2, 0, 0.5, 4]}):
        if not a.size and "range" not in kw and np.ndim(kw.get("bins", 1)) == 0:
            kw = dict(kw, range=(0, 1))
        check(list(vp.histogram(x, **kw)), list(np.histogram(a, **kw)))
        w = np.linspace(0, 1, a.size).astype(np.float32)
        check(list(np.histogram(x, weights=vp.asarray(w), **kw)),
              list(np.histogram(a, weights=w, **kw)), rtol=1e-6, atol=1e-6)
        if vp.default_context().has("float64") and a.size:
            check(list(vp.histogram(x, density=True, **kw)),
                  list(np.histogram(a, density=True, **kw)), rtol=1e-12, atol=1e-12)


@SETTINGS
@given(data=st.data(), strided=st.booleans(), dt=st.sampled_from([np.float32, np.int32]),
       d=st.integers(1, 3))
def test_histogramdd_histogram2d(data, strided, dt, d):
    if not vp.default_context().has("float64"):
        pytest.skip("NumPy's histogramdd is float64")
    n = data.draw(st.sampled_from([0, 1, 7, 20]))
    a = data.draw(hnp.arrays(dt, (n, d), elements=st.integers(-3, 6).map(lambda v: dt(v))))
    x = resident(a, strided)
    w = np.linspace(0, 1, n).astype(np.float32)
    edges = [-2, 0, 0.5, 4, 6]
    for kw in ({}, {"bins": 3}, {"bins": 4, "range": [(-1, 5)] * d}, {"bins": [edges] * d},
               {"bins": [2, edges, 3][:d]}, {"bins": 2, "density": True}):
        if not n and "range" not in kw:
            continue  # NumPy's automatic range of no points: [0, 1] either way
        want = np.histogramdd(a, **kw)
        if kw.get("density") and not np.isfinite(want[0]).all():
            continue  # (a zero total: NaN either way, with NumPy's warning)
        check(list(vp.histogramdd(x, **kw)), list(want), rtol=1e-12, atol=1e-12)
        check(list(np.histogramdd(x, weights=vp.asarray(w), **kw)),
              list(np.histogramdd(a, weights=w, **kw)), rtol=1e-6, atol=1e-6)
    # a sequence of D 1-D arrays; a view of each
    cols = [np.ascontiguousarray(a[:, i]) for i in range(d)]
    check(list(vp.histogramdd([vp.asarray(c) for c in cols], bins=3, range=[(-3, 6)] * d)),
          list(np.histogramdd(cols, bins=3, range=[(-3, 6)] * d)))
    if d == 2:
        for kw in ({"bins": 3, "range": [(-3, 6)] * 2}, {"bins": (2, 4), "range": [(-3, 6)] * 2},
                   {"bins": np.array(edges, np.float64)}, {"bins": [edges, [0, 1, 2]]}):
            check(list(vp.histogram2d(vp.asarray(cols[0]), vp.asarray(cols[1]), **kw)),
                  list(np.histogram2d(cols[0], cols[1], **kw)))
            check(list(np.histogram2d(x[:, 0], x[:, 1], weights=vp.asarray(w), **kw)),
                  list(np.histogram2d(a[:, 0], a[:, 1], weights=w, **kw)), rtol=1e-6, atol=1e-6)


def test_histogramdd_errors_are_numpys():
    x = vp.asarray(np.arange(12, dtype=np.float32).reshape(6, 2))
    with pytest.raises(ValueError, match="dimension of bins"):
        vp.histogramdd(x, bins=[2, 2, 2])
    with pytest.raises(ValueError, match="one entry per dimension"):
        vp.histogramdd(x, range=[(0, 1)])
    with pytest.raises(ValueError, match=r"`bins\[1\]` must be positive"):
        vp.histogramdd(x, bins=[2, 0])
    with pytest.raises(ValueError, match=r"`bins\[0\]` must be monotonically increasing"):
        vp.histogramdd(x, bins=[[0, 2, 1], 2])
    with pytest.raises(ValueError, match="max must be larger"):
        vp.histogramdd(x, range=[(0, 1), (3, 2)])
    with pytest.raises(ValueError, match="not finite"):
        vp.histogramdd(vp.asarray(np.array([[1.0, np.inf]], np.float32)))
    with pytest.raises(ValueError, match="weights"):
        vp.histogramdd(x, weights=vp.ones(5, np.float32))
    assert isinstance(vp.histogramdd(np.zeros((3, 2)))[0], np.ndarray)


# ------------------------------------------------------------------ statistics
@SETTINGS
@given(data=st.data(), strided=st.booleans())
def test_cov_corrcoef(data, strided):
    if not vp.default_context().has("float64"):
        pytest.skip("NumPy's cov is float64")
    m = data.draw(hnp.arrays(np.float32, data.draw(hnp.array_shapes(min_dims=1, max_dims=2,
                                                                     min_side=2, max_side=5)),
                             elements=st.floats(-4, 4, width=32)))
    x = resident(m, strided)
    for kw in ({}, {"rowvar": False}, {"bias": True}, {"ddof": 0}):
        check(vp.cov(x, **kw), np.cov(m, **kw), rtol=1e-9, atol=1e-9)
    check(np.cov(x, m[..., ::-1]), np.cov(m, m[..., ::-1]), rtol=1e-9, atol=1e-9)
    with np.errstate(all="ignore"):
        want = np.corrcoef(m)
    check(vp.corrcoef(x), want, rtol=1e-9, atol=1e-9)


def test_cov_weights_and_one_row_as_numpy():
    """fweights= / aweights= raised NotImplementedError; a (1, n) m with
    rowvar=False (n variables of one observation) gave a 0-d result where
    NumPy 2 gives n x n. NumPy's formulas, checks and messages."""
    if not vp.default_context().has("float64"):
        pytest.skip("NumPy's cov is float64")
    r = np.random.default_rng(2)
    m = (r.standard_normal((3, 6)) * 4).astype(np.float32)
    x = vp.asarray(m)
    f = np.array([1, 2, 1, 3, 1, 2])
    a = np.abs(r.standard_normal(6)) + 0.2
    for kw in ({"fweights": f}, {"aweights": a}, {"fweights": f, "aweights": a},
               {"fweights": f, "aweights": a, "ddof": 0}, {"aweights": a, "bias": True},
               {"fweights": f, "rowvar": False, "ddof": 2}):
        want = np.cov(m if kw.get("rowvar", True) else m.T, **kw)
        vkw = {k: vp.asarray(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
        check(vp.cov(x if kw.get("rowvar", True) else x.T, **vkw), want, rtol=1e-9, atol=1e-9)
    one = m[:1]
    with np.errstate(all="ignore"):
        for kw in ({"rowvar": False}, {"rowvar": False, "bias": True}, {}):
            check(vp.cov(vp.asarray(one), **kw), np.cov(one, **kw), rtol=1e-9, atol=1e-9)
        check(vp.corrcoef(vp.asarray(one), rowvar=False), np.corrcoef(one, rowvar=False),
              rtol=1e-9, atol=1e-9)
        check(vp.cov(x, vp.asarray(m[:, :1]), rowvar=False), np.cov(m, m[:, :1], rowvar=False),
              rtol=1e-9, atol=1e-9)
        check(vp.cov(x, vp.asarray(m[:1]), rowvar=True), np.cov(m, m[:1]),
              rtol=1e-9, atol=1e-9)
    for kw, err in (({"fweights": f + 0.5}, TypeError), ({"fweights": -f}, ValueError),
                    ({"aweights": -a}, ValueError), ({"fweights": f[:3]}, RuntimeError),
                    ({"aweights": np.ones((2, 6))}, RuntimeError)):
        with pytest.raises(err) as want:
            np.cov(m, **kw)
        with pytest.raises(err) as got:
            vp.cov(x, **kw)
        assert str(got.value) == str(want.value)


@pytest.mark.parametrize("dt", [np.float32, np.int32])
def test_kron_trapezoid_polyval(dt):
    a = np.arange(6, dtype=dt).reshape(2, 3) - 2
    b = np.array([[1, -2], [3, 4]], dt)
    for u, v in ((a, b), (a[0], b), (a, np.asarray(dt(3))), (a[:, :0], b)):
        check(vp.kron(vp.asarray(u), vp.asarray(v)), np.kron(u, v))
        check(np.kron(resident(u, True), v), np.kron(u, v))
    f64 = vp.default_context().has("float64")
    if dt == np.float32 or f64:   # trapezoid of integers is float64
        check(vp.trapezoid(resident(a, True)), np.trapezoid(a), rtol=1e-6)
        check(vp.trapezoid(vp.asarray(a), axis=0, dx=dt(2)), np.trapezoid(a, axis=0, dx=dt(2)),
              rtol=1e-6)
        xs = np.array([0, 1, 3], dt)
        check(np.trapezoid(vp.asarray(a), x=vp.asarray(xs)), np.trapezoid(a, x=xs), rtol=1e-6)
    check(vp.polyval(vp.asarray(b[0]), vp.asarray(a)), np.polyval(b[0], a), rtol=1e-6)
    check(vp.polyval(np.array([], dt), vp.asarray(a)), np.polyval(np.array([], dt), a))
    check(np.polyval(vp.asarray(np.array([2, 0, -1], dt)), a),
          np.polyval(np.array([2, 0, -1], dt), a), rtol=1e-6)


def test_zero_d():
    z, zn = vp.asarray(np.array(2.0, np.float32)), np.array(2.0, np.float32)
    check(vp.isin(z, [2.0, 3.0]), np.isin(zn, [2.0, 3.0]))
    check(vp.digitize(z, [1.0, 3.0]), np.digitize(zn, [1.0, 3.0]))
    check(vp.kron(z, np.ones(2, np.float32)), np.kron(zn, np.ones(2, np.float32)))
    check(vp.union1d(z, [1.0]), np.union1d(zn, [1.0]))
    check(list(vp.histogram(z)), list(np.histogram(zn)))
    i = vp.asarray(np.array(3))
    check(list(vp.unravel_index(i, (2, 3))), list(np.unravel_index(np.array(3), (2, 3))))
    check(vp.ravel_multi_index((i - 2, i - 1), (2, 3)),
          np.asarray(np.ravel_multi_index((1, 2), (2, 3))))
    with pytest.raises(ValueError, match="out of range"):
        vp.rot90(z)


# ------------------------------------------------------------------ NumPy in, NumPy out
def test_numpy_in_numpy_out():
    a = np.array([[3, 1], [2, 5]], np.int32)
    assert isinstance(vp.take_along_axis(a, np.argsort(a, 1), 1), np.ndarray)
    assert isinstance(vp.isin(a, [1]), np.ndarray)
    assert isinstance(vp.histogram(a)[0], np.ndarray)
    assert isinstance(vp.kron(a, a), np.ndarray)
    b = a.copy()
    vp.fill_diagonal(b, 0)
    np.testing.assert_array_equal(b, [[0, 1], [2, 0]])


def test_empty_multi_index_assignment():
    """Bug: x[i, j] = v with empty integer-array indices (x of shape (0, 0)
    or (0, 3)) raised CompileError ('array.scatter' view reaches elements
    -1..0 of out); NumPy writes nothing (put_along_axis on an empty array
    came here)."""
    for shape, i, j in (((0, 0), np.zeros((0, 0), np.int64), np.zeros((0, 0), np.int64)),
                        ((0, 3), np.zeros((0, 1), np.int64), np.arange(3).reshape(1, 3))):
        x = vp.zeros(shape, np.float32)
        x[i, j] = 1.0
        check(x, np.zeros(shape, np.float32))
    x = vp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    x[np.zeros(0, np.int64), np.zeros(0, np.int64)] = 9.0
    check(x, np.arange(6, dtype=np.float32).reshape(2, 3))


# ------------------------------------------------------------------ errors
def test_errors():
    x = vp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    with pytest.raises(IndexError, match="integer array"):
        vp.take_along_axis(x, np.zeros((2, 1), np.float32), 1)
    with pytest.raises(ValueError, match="same number of dimensions"):
        vp.take_along_axis(x, np.zeros(2, np.int64), 1)
    with pytest.raises(IndexError, match="out of bounds"):
        vp.take_along_axis(x, vp.asarray(np.array([[3], [0]])), 1)   # resident: checked
    with pytest.raises(IndexError):
        vp.take_along_axis(x, np.array([[-4], [0]]), 1)
    with pytest.raises(IndexError, match="out of bounds"):
        vp.put_along_axis(x, vp.asarray(np.array([[3], [0]])), 1.0, 1)
    with pytest.raises(ValueError, match="out of bounds"):
        vp.unravel_index(vp.asarray(np.array([6])), (2, 3))
    with pytest.raises(TypeError, match="int indices"):
        vp.unravel_index(vp.asarray(np.array([1.0])), (2, 3))
    with pytest.raises(ValueError, match="invalid entry"):
        vp.ravel_multi_index((vp.asarray(np.array([2])), np.array([0])), (2, 3))
    with pytest.raises(ValueError, match="mode"):
        vp.ravel_multi_index((vp.asarray(np.array([1])), np.array([0])), (2, 3), mode="x")
    with pytest.raises(ValueError, match="length 2"):
        vp.ravel_multi_index((vp.asarray(np.array([1])),), (2, 3))
    with pytest.raises(ValueError, match="len\\(axes\\)"):
        vp.rot90(x, axes=(0,))
    with pytest.raises(ValueError, match="different"):
        vp.rot90(x, axes=(1, -1))
    with pytest.raises(ValueError, match="out of range"):
        vp.rot90(x, axes=(0, 3))
    with pytest.raises(ValueError, match="at least 2-d"):
        vp.fill_diagonal(vp.zeros(3), 1)
    with pytest.raises(ValueError, match="equal length"):
        vp.fill_diagonal(vp.zeros((2, 2, 3)), 1)
    with pytest.raises(ValueError, match="kind"):
        vp.isin(x, x, kind="hash")
    with pytest.raises(ValueError, match="monotonically"):
        vp.digitize(x, vp.asarray(np.array([1.0, 0.0, 2.0])))
    with pytest.raises(ValueError, match="negative"):
        vp.bincount(vp.asarray(np.array([1, -1])))
    with pytest.raises(ValueError, match="minlength"):
        vp.bincount(vp.asarray(np.array([1])), minlength=-1)
    with pytest.raises(TypeError, match="Cannot cast"):
        vp.bincount(vp.asarray(np.array([1.0])))
    with pytest.raises(TypeError, match="uint64"):
        vp.bincount(vp.asarray(np.array([1], np.uint64)))
    with pytest.raises(ValueError, match="too deep"):
        vp.bincount(x.astype(np.int32))
    with pytest.raises(ValueError, match="positive"):
        vp.histogram(x, bins=0)
    with pytest.raises(ValueError, match="larger than min"):
        vp.histogram(x, range=(2, 1))
    with pytest.raises(ValueError, match="monotonically"):
        vp.histogram(x, bins=[0, 2, 1])
    with pytest.raises(ValueError, match="not finite"):
        vp.histogram(vp.asarray(np.array([1.0, np.inf], np.float32)))
    with pytest.raises(ValueError, match="same shape"):
        vp.histogram(x, weights=np.ones(2, np.float32))
    with pytest.raises(ValueError, match="more than 2"):
        vp.cov(vp.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match="1-D"):
        vp.polyval(x, x)
    with pytest.raises(ValueError, match="read-only|readonly|not writable|broadcast"):
        vp.fill_diagonal(vp.broadcast_to(vp.zeros(3), (3, 3)), 1)
