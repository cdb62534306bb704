"""Indexing resident arrays against NumPy: basic slicing as strided views
(hypothesis draws the slices), views as ufunc inputs and as out=, integer
array and boolean mask indexing, reads and writes, every dtype."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target

SETTINGS = settings(max_examples=10, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
DTYPES = [np.float32, np.int32, np.uint32, np.float64, np.int64, np.bool_]


def _data(shape, dt):
    a = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    if np.dtype(dt) == np.bool_:
        return (a % 3 == 0)
    return (a * 7 % 23 - 5).astype(dt) if np.dtype(dt).kind != "u" else (a * 7 % 23).astype(dt)


def _slice(n):
    return st.builds(slice, st.none() | st.integers(-n - 2, n + 2),
                     st.none() | st.integers(-n - 2, n + 2),
                     st.none() | st.integers(-3, 3).filter(lambda s: s != 0))


def _skip(ctx, dt):
    if np.dtype(dt) == np.float64 and not ctx.has("float64"):
        pytest.skip("no float64")
    if np.dtype(dt) == np.int64 and not ctx.has("int64"):
        pytest.skip("no int64")


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_basic_slicing_is_a_view(ctx, dt):
    _skip(ctx, dt)
    x = _data((7, 9), dt)
    xv = vp.asarray(x)

    @SETTINGS
    @given(st.tuples(_slice(7), _slice(9)) | st.tuples(st.integers(-7, 6), _slice(9)) |
           st.tuples(_slice(7), st.integers(-9, 8), st.none()))
    def run(key):
        v = xv[key]
        assert isinstance(v, vp.ndarray) and v.buffer is xv.buffer  # no copy
        np.testing.assert_array_equal(v.numpy(), x[key])
        # as a ufunc input (the array path reads through the view)
        if v.size and np.dtype(dt) != np.bool_:
            np.testing.assert_array_equal((v + v).numpy(), x[key] + x[key])

    run()


def test_ellipsis_reads_and_writes():
    """x[...], x[..., i], x[i, ..., j] (an Ellipsis stands for the missing
    dims, once) on resident arrays and inside vp.jit."""
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    xv = vp.asarray(a)
    keys = [Ellipsis, (Ellipsis, 1), (1, Ellipsis), (0, Ellipsis, 2), (Ellipsis, None),
            (None, Ellipsis, 1, 2, 3), (Ellipsis, slice(None, None, -2)), (Ellipsis, [2, 0])]
    for k in keys:
        np.testing.assert_array_equal(xv[k].numpy(), a[k], err_msg=repr(k))
        f = vp.jit(lambda t, k=k: t[k] * 1)
        np.testing.assert_array_equal(np.asarray(f(a)), a[k], err_msg=repr(k))
    xv[..., 1] = 3
    a[..., 1] = 3
    np.testing.assert_array_equal(xv.numpy(), a)
    xv[...] = -1
    a[...] = -1
    np.testing.assert_array_equal(xv.numpy(), a)
    with pytest.raises(IndexError, match="single ellipsis"):
        xv[..., ...]


@pytest.mark.parametrize("dt", [np.float32, np.int32, np.bool_], ids=lambda d: np.dtype(d).name)
def test_views_as_out(ctx, dt):
    x = _data((6, 8), dt)
    base = np.zeros((6, 16), dt)
    bv = vp.asarray(base)
    if np.dtype(dt) == np.bool_:
        vp.logical_not(vp.asarray(x), out=bv[:, 1::2])
        base[:, 1::2] = ~x
    else:
        vp.negative(vp.asarray(x), out=bv[::-1, ::2])
        base[::-1, ::2] = -x
    np.testing.assert_array_equal(bv.numpy(), base)


def test_view_assignment_and_fill():
    x = np.arange(40, dtype=np.float32).reshape(5, 8)
    xv = vp.asarray(x)
    xv[1:4, ::3] = -1
    x[1:4, ::3] = -1
    xv[0] = np.arange(8, dtype=np.float32) * 10
    x[0] = np.arange(8) * 10
    xv[:, 7].fill(3)
    x[:, 7] = 3
    np.testing.assert_array_equal(xv.numpy(), x)


def test_assignment_broadcasts_as_numpy():
    """The value of x[key] = value broadcasts to the target as NumPy's:
    leading unit axes of the value are dropped (they were a CompileError),
    and a value that does not broadcast to the target is NumPy's
    ValueError (one that broadcast *with* it, (2, 4) into (4,), was a
    CompileError)."""
    for dt in (np.float32, np.int32):
        x = np.zeros((4, 3, 1), dt)
        xv = vp.asarray(x)
        for key, value in [(0, np.full((1, 1, 1), 7, dt)), (slice(1, 2), np.ones((1, 1, 3, 1), dt)),
                           ((2, 1), np.array([5], dt)), (3, [[1], [2], [3]])]:
            xv[key] = vp.asarray(value) if isinstance(value, np.ndarray) else value
            x[key] = value
            np.testing.assert_array_equal(xv.numpy(), x)
        for key, value in [(0, np.ones((2, 3, 1), dt)), (slice(0, 2), np.ones(2, dt)),
                           (0, np.ones((1, 2, 3, 1), dt))]:
            with pytest.raises(ValueError, match="could not broadcast input array"):
                x[key] = value
            for v in (value, vp.asarray(value)):
                with pytest.raises(ValueError, match="could not broadcast input array"):
                    xv[key] = v
        np.testing.assert_array_equal(xv.numpy(), x)


def test_transpose_view():
    x = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    xv = vp.asarray(x)
    np.testing.assert_array_equal(xv.T.numpy(), x.T)
    np.testing.assert_array_equal(xv.transpose(1, 0, 2).numpy(), x.transpose(1, 0, 2))
    np.testing.assert_array_equal(vp.transpose(xv, (2, 0, 1)).copy().numpy(), x.transpose(2, 0, 1))
    assert xv.T.copy().contiguous


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_integer_array_indexing(ctx, dt):
    _skip(ctx, dt)
    x = _data((10, 6), dt)
    xv = vp.asarray(x)

    @SETTINGS
    @given(st.lists(st.integers(-10, 9), min_size=0, max_size=12),
           st.sampled_from(["row", "col", "both"]))
    def run(idx, where):
        i = np.array(idx, dtype=np.int64)
        if where == "row":
            np.testing.assert_array_equal(xv[i].numpy(), x[i])
        elif where == "col":
            j = i % 6
            np.testing.assert_array_equal(xv[:, j].numpy(), x[:, j])
        else:
            j = np.abs(i) % 6
            np.testing.assert_array_equal(xv[i, j].numpy(), x[i, j])
        # resident index arrays too
        np.testing.assert_array_equal(xv[vp.asarray(i.astype(np.int32))].numpy(), x[i])

    run()


def test_index_errors():
    xv = vp.asarray(np.zeros((3, 4), np.float32))
    with pytest.raises(IndexError, match="out of bounds"):
        xv[np.array([0, 3])]
    with pytest.raises(IndexError, match="out of bounds"):
        xv[5]
    with pytest.raises(IndexError, match="too many indices"):
        xv[0, 0, 0]
    with pytest.raises(IndexError):
        xv[1.5]


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_integer_array_assignment(ctx, dt):
    _skip(ctx, dt)
    x = _data((9, 4), dt)
    xv = vp.asarray(x)
    i = np.array([0, -1, 4])
    val = _data((3, 4), dt)
    xv[i] = val
    x[i] = val
    xv[[2, 3]] = x[1]
    x[[2, 3]] = x[1]
    np.testing.assert_array_equal(xv.numpy(), x)


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_boolean_mask(ctx, dt):
    _skip(ctx, dt)

    @SETTINGS
    @given(st.integers(0, 30), st.integers(1, 4), st.integers(0, 10 ** 6))
    def run(n, cols, seed):
        rng = np.random.default_rng(seed)
        x = _data((n, cols), dt)
        m1 = rng.random(n) < 0.4
        m2 = rng.random((n, cols)) < 0.5
        xv = vp.asarray(x)
        np.testing.assert_array_equal(xv[m1].numpy(), x[m1])
        np.testing.assert_array_equal(xv[vp.asarray(m2)].numpy(), x[m2])
        # writes: a scalar, and one value per selected element
        y, yv = x.copy(), vp.asarray(x)
        y[m2] = 1
        yv[m2] = 1
        np.testing.assert_array_equal(yv.numpy(), y)
        k = int(m1.sum())
        vals = _data((k, cols), dt)
        y[m1] = vals
        yv[m1] = vals
        np.testing.assert_array_equal(yv.numpy(), y)

    run()


def test_mask_shape_mismatch():
    xv = vp.asarray(np.zeros((3, 4), np.float32))
    with pytest.raises(IndexError, match="boolean index did not match"):
        xv[np.ones(4, bool)]


# ---------------------------------------------------------------- vp.take


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_take_matches_numpy(ctx, dt):
    """vp.take(a, idx, axis) == np.take for every axis form (None, int,
    negative), empty and single-element axes, empty and scalar indices; NumPy
    in / NumPy out, resident in / resident out, and the method."""
    _skip(ctx, dt)

    @SETTINGS
    @given(st.lists(st.integers(0, 4), min_size=1, max_size=3), st.data())
    def run(shape, data):
        shape = tuple(shape)
        x = _data(shape, dt)
        nd = len(shape)
        axis = data.draw(st.sampled_from([None] + list(range(-nd, nd))))
        n = x.size if axis is None else shape[axis]
        if n == 0:
            idx = np.zeros(0, np.int64)
        else:
            idx = np.array(data.draw(st.lists(st.integers(-n, n - 1), max_size=6)), np.int64)
            if data.draw(st.booleans()):
                idx = idx[:1].reshape(()) if idx.size else np.int64(0)
        want = np.take(x, idx, axis=axis)
        got = vp.take(x, idx, axis=axis)
        assert isinstance(got, np.ndarray) and got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
        xv = vp.asarray(x)
        r = xv.take(idx, axis=axis)
        assert isinstance(r, vp.ndarray)
        np.testing.assert_array_equal(r.numpy(), want)

    run()


def test_take_in_jit_out_and_errors(ctx):
    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    idx = np.array([4, 0, -1, 2])
    f = vp.jit(lambda a: vp.take(a, idx, axis=1) * 2)
    np.testing.assert_array_equal(np.asarray(f(x)), np.take(x, idx, axis=1) * 2)
    g = vp.jit(lambda a: a.take(idx[:2]))  # flattened, as a method
    np.testing.assert_array_equal(np.asarray(g(x)), np.take(x, idx[:2]))
    out = vp.empty((4, 4), np.float32)
    assert vp.take(vp.asarray(x), idx, axis=1, out=out) is out
    np.testing.assert_array_equal(out.numpy(), np.take(x, idx, axis=1))
    with pytest.raises(IndexError, match="out of bounds"):
        vp.take(x, [5], axis=1)
    with pytest.raises(np.exceptions.AxisError):
        vp.take(x, [0], axis=2)
    with pytest.raises(ValueError, match="mode='fill': expected 'raise', 'wrap' or 'clip'"):
        vp.take(x, [0], mode="fill")
    with pytest.raises(ValueError, match="out has shape"):
        vp.take(x, [0], axis=0, out=np.empty((2, 5), np.float32))
