"""Edges of the eager ufunc path on resident arrays, against NumPy: empty
arrays ((0,), (3, 0)), 0-d arrays, operands aliased with out= (the same
array, interleaved views, out= the broadcast second input), and one large
array whose length is not a multiple of the vec4 access (2**24 + 3)."""
import numpy as np
import pytest

import vulpy as vp

from conftest import needs_target

pytestmark = [pytest.mark.usefixtures("ctx"), needs_target]

BINARY = ["add", "subtract", "multiply", "maximum", "minimum"]
UNARY_F = ["sin", "exp", "sqrt", "negative", "absolute"]
UNARY_I = ["negative", "absolute", "square"]
DTYPES = [np.float32, np.float64, np.int32, np.int64, np.uint32]


def _host(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if dt.kind == "f":
        return rng.uniform(0.25, 4.0, shape).astype(dt)
    if dt.kind == "u":
        return rng.integers(0, 1000, shape).astype(dt)
    return rng.integers(-1000, 1000, shape).astype(dt)


def _check(got, want):
    got = got.numpy() if isinstance(got, vp.ndarray) else np.asarray(got)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=2e-6 if want.dtype == np.float32 else 1e-14)
    else:
        np.testing.assert_array_equal(got, want)


# ------------------------------------------------------------ empty and 0-d


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 4)])
@pytest.mark.parametrize("dtype", DTYPES + [np.bool_])
def test_empty_binary(shape, dtype):
    a, b = _host(dtype, shape), _host(dtype, shape, 1)
    for name in (["logical_and", "logical_or", "equal"] if dtype == np.bool_ else BINARY):
        _check(getattr(vp, name)(vp.asarray(a), vp.asarray(b)), getattr(np, name)(a, b))


@pytest.mark.parametrize("shape", [(0,), (3, 0)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_empty_unary_and_out(shape, dtype):
    a = _host(dtype, shape)
    for name in (UNARY_F if np.dtype(dtype).kind == "f" else UNARY_I):
        _check(getattr(vp, name)(vp.asarray(a)), getattr(np, name)(a))
    out = vp.empty(shape, dtype)
    r = vp.add(vp.asarray(a), vp.asarray(a), out=out)
    assert r is out
    _check(out, a + a)


def test_empty_broadcast_against_row():
    a = np.zeros((0, 4), np.float32)
    row = _host(np.float32, (4,))
    _check(vp.add(vp.asarray(a), vp.asarray(row)), a + row)
    _check(vp.multiply(vp.asarray(row[:0]), np.float32(2)), row[:0] * np.float32(2))


@pytest.mark.parametrize("dtype", DTYPES)
def test_zero_d(dtype):
    h = np.array(_host(dtype, (1,))[0])
    v = _host(dtype, (5,), 2)
    x = vp.asarray(h)
    assert x.shape == ()
    for name in BINARY:
        f = getattr(vp, name)
        g = getattr(np, name)
        _check(f(x, x), g(h, h))
        _check(f(x, vp.asarray(v)), g(h, v))
        _check(f(vp.asarray(v), x), g(v, h))
    for name in (UNARY_F if np.dtype(dtype).kind == "f" else UNARY_I):
        _check(getattr(vp, name)(x), getattr(np, name)(h))
    out = vp.empty((), dtype)
    vp.multiply(x, x, out=out)
    _check(out, h * h)


# ------------------------------------------------------------ aliasing


@pytest.mark.parametrize("dtype", DTYPES)
def test_out_is_both_inputs(dtype):
    h = _host(dtype, (1001,))
    a = vp.asarray(h)
    r = vp.add(a, a, out=a)
    assert r is a
    _check(a, h + h)
    vp.multiply(a, a, out=a)
    _check(a, (h + h) * (h + h))


@pytest.mark.parametrize("dtype", DTYPES)
def test_interleaved_views(dtype):
    h = _host(dtype, (1000,))
    v = vp.asarray(h)
    vp.multiply(v[::2], v[1::2], out=v[::2])
    want = h.copy()
    np.multiply(want[::2], want[1::2], out=want[::2])
    _check(v, want)
    # out= the odd elements, reading the even ones and themselves
    vp.subtract(v[::2], v[1::2], out=v[1::2])
    np.subtract(want[::2], want[1::2], out=want[1::2])
    _check(v, want)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float64])
def test_out_is_the_broadcast_second_input(dtype):
    hm = _host(dtype, (5, 7))
    hr = _host(dtype, (7,), 1)
    # out= the second input, the first broadcast against it
    m = vp.asarray(hm)
    vp.subtract(vp.asarray(hr), m, out=m)
    _check(m, hr - hm)
    # the second input is a row of out=, broadcast over it: NumPy reads the
    # row as it was before the call (copy-first), not the updated row 0
    m = vp.asarray(hm)
    vp.add(m, m[0], out=m)
    want = hm.copy()
    np.add(want, want[0], out=want)
    _check(m, want)
    m = vp.asarray(hm)
    vp.multiply(m[2], m, out=m)
    want = hm.copy()
    np.multiply(want[2], want, out=want)
    _check(m, want)
    # a column of out=, broadcast along rows
    m = vp.asarray(hm)
    vp.subtract(m, m[:, 3:4], out=m)
    want = hm.copy()
    np.subtract(want, want[:, 3:4], out=want)
    _check(m, want)


def test_out_shifted_overlap():
    h = np.arange(10, dtype=np.float32)
    v = vp.asarray(h)
    vp.add(v[1:], v[:-1], out=v[1:])
    want = h.copy()
    np.add(want[1:], want[:-1], out=want[1:])
    _check(v, want)
    v = vp.asarray(h)
    vp.add(v[:-1], v[1:], out=v[:-1])
    want = h.copy()
    np.add(want[:-1], want[1:], out=want[:-1])
    _check(v, want)


# ------------------------------------------------------------ large


N_BIG = (1 << 24) + 3  # not a multiple of 4: the vec4 tail


@pytest.mark.slow
def test_large_not_a_multiple_of_vec4():
    hf = _host(np.float32, (N_BIG,))
    gf = _host(np.float32, (N_BIG,), 1)
    x, y = vp.asarray(hf), vp.asarray(gf)
    _check(vp.add(x, y), hf + gf)
    _check(vp.sqrt(x), np.sqrt(hf))
    _check(vp.less(x, y), hf < gf)
    hi = _host(np.int32, (N_BIG,))
    gi = _host(np.int32, (N_BIG,), 1)
    gi[gi == 0] = 7
    xi, yi = vp.asarray(hi), vp.asarray(gi)
    _check(vp.floor_divide(xi, yi), np.floor_divide(hi, gi))
    _check(vp.maximum(xi, np.int32(3)), np.maximum(hi, np.int32(3)))
    # in place over the whole array, and over an odd-offset view of it
    vp.add(x, y, out=x)
    want = hf + gf
    _check(x, want)
    vp.multiply(x[1:], np.float32(2), out=x[1:])
    want[1:] *= np.float32(2)
    _check(x, want)
    hb = hf > 2.0
    _check(vp.logical_xor(vp.asarray(hb), vp.less(x, y)), np.logical_xor(hb, want < gf))


def test_out_aliases_a_transposed_or_reversed_input():
    h = np.arange(16, dtype=np.float32).reshape(4, 4)
    x = vp.asarray(h)
    vp.add(x, x.T, out=x)
    want = h.copy()
    np.add(want, want.T, out=want)
    _check(x, want)
    x = vp.asarray(h)
    vp.multiply(x[:, ::-1], x, out=x)
    want = h.copy()
    np.multiply(want[:, ::-1], want, out=want)
    _check(x, want)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.float16, np.bool_])
def test_small_dtypes_empty_zero_d_and_aliased(dtype):
    h = _host(dtype, (10,))
    name = "logical_xor" if dtype == np.bool_ else "add"
    f, g = getattr(vp, name), getattr(np, name)
    _check(f(vp.asarray(h[:0]), vp.asarray(h[:0])), g(h[:0], h[:0]))
    z = np.array(h[3])
    _check(f(vp.asarray(z), vp.asarray(h)), g(z, h))
    x = vp.asarray(h)
    f(x[::2], x[1::2], out=x[1::2])
    want = h.copy()
    g(want[::2], want[1::2], out=want[1::2])
    _check(x, want)


@needs_target
def test_positional_out():
    # NumPy's positional output (np.add(a, b, c), np.modf(x, f, w)): the
    # same as out=, on resident arrays, views and NumPy arrays; given twice,
    # or one too many, a TypeError (before: "takes 2 input(s), got 3")
    h = np.linspace(-3.0, 3.0, 11, dtype=np.float32)
    a = vp.asarray(h)
    for _ in range(3):  # the C call path too (it takes over after a first call)
        c = vp.empty(11, np.float32)
        assert vp.add(a, a, c) is c
        np.testing.assert_array_equal(c.numpy(), h + h)
    v = vp.zeros(22, np.float32)
    vp.multiply(a, 2.0, v[::2])
    np.testing.assert_array_equal(v.numpy()[::2], h * 2)
    np.testing.assert_array_equal(v.numpy()[1::2], 0)
    hn = np.empty(11, np.float32)
    assert vp.sin(h, hn) is hn
    np.testing.assert_allclose(hn, np.sin(h), rtol=1e-6, atol=1e-7)
    f, w = vp.empty(11, np.float32), vp.empty(11, np.float32)
    vp.modf(a, f, w)
    wf, ww = np.modf(h)
    np.testing.assert_array_equal(f.numpy(), wf)
    np.testing.assert_array_equal(w.numpy(), ww)
    q = vp.empty(11, np.float32)
    r = vp.divmod(a, 1.5, q)
    np.testing.assert_array_equal(q.numpy(), np.floor_divide(h, np.float32(1.5)))
    np.testing.assert_array_equal(r[1].numpy(), np.remainder(h, np.float32(1.5)))
    m = vp.empty(11, np.float32)
    vp.frexp(a, m)
    np.testing.assert_array_equal(m.numpy(), np.frexp(h)[0])
    with pytest.raises(TypeError, match="both a positional and keyword"):
        vp.add(a, a, c, out=c)
    with pytest.raises(TypeError, match="got 4 positional"):
        vp.add(a, a, c, c)
    with pytest.raises(TypeError, match="at most 2 outputs"):
        vp.modf(a, f, w, f)
    with pytest.raises(TypeError, match="both a positional and keyword"):
        vp.divmod(a, 1.5, q, out=(q, None))


@needs_target
def test_where_with_condition_only():
    # numpy.where(condition) is nonzero(condition) (before: "takes 3 input(s)")
    h = np.array([[0.0, 1.5, 0.0], [-2.0, 0.0, 3.0]], np.float32)
    x = vp.asarray(h)
    for _ in range(2):  # after a three-argument call too (the C call path)
        got = vp.where(x != 0)
        want = np.where(h != 0)
        assert len(got) == 2
        for g, w in zip(got, want):
            assert isinstance(g, vp.ndarray) and g.dtype == np.int64
            np.testing.assert_array_equal(g.numpy(), w)
        vp.where(x > 0, x, 0.0, out=vp.empty_like(x))
    for g, w in zip(vp.where(h > 0), np.where(h > 0)):   # NumPy in -> NumPy out
        assert isinstance(g, np.ndarray)
        np.testing.assert_array_equal(g, w)
    with pytest.raises(TypeError, match="both or neither"):
        vp.where(x > 0, x)
