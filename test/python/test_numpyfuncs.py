"""block, choose, piecewise, apply_along_axis, apply_over_axes,
sort_complex, the window functions and i0 (bindings/python/vulpy/
_numpyfuncs.py; issue 19), each differentially against NumPy: as vp.<name>
and as np.<name> on resident arrays (a resident result), with NumPy's
errors, empty arrays, views and every dtype the function takes."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import vulpy as vp
from conftest import needs_target
from vulpy._numpyfuncs import _leaves

pytestmark = needs_target

SETTINGS = settings(max_examples=15, deadline=None, derandomize=True)
HAS_F64 = None


def f64():
    global HAS_F64
    if HAS_F64 is None:
        HAS_F64 = vp.default_context().has("float64")
    return HAS_F64


def same(got, want, rtol=0.0, atol=0.0):
    assert isinstance(got, vp.ndarray), type(got)
    g = got.numpy()
    assert g.dtype == np.asarray(want).dtype, (g.dtype, np.asarray(want).dtype)
    assert g.shape == np.shape(want), (g.shape, np.shape(want))
    if rtol or atol:
        np.testing.assert_allclose(g, want, rtol=rtol, atol=atol)
    else:
        np.testing.assert_array_equal(g, want)


# ------------------------------------------------------------------ block

A = np.arange(6, dtype=np.float32).reshape(2, 3)
B = np.arange(4, dtype=np.float32).reshape(2, 2) + 10
C = np.arange(5, dtype=np.float32) - 3


@pytest.mark.parametrize("build", [
    lambda a, b, c: [[a, b], [c[None, :]]],                                 # 2 rows of blocks
    lambda a, b, c: [a, b],                                                 # one row
    lambda a, b, c: [c, c, 7.0],                                            # scalars are blocks
    lambda a, b, c: [[[a]], [[a]]],                                         # depth 3 > ndim
    lambda a, b, c: a,                                                      # depth 0: a copy
    lambda a, b, c: [[a.T], [b]],                                           # a view
])
def test_block_matches_numpy(build):
    host = build(A, B, C)
    want = np.block(host)
    for res in ("all", "first"):
        seen = [0]

        def up(x):
            seen[0] += 1
            return vp.asarray(x) if res == "all" or seen[0] == 1 else x
        dev = build(*(up(x) for x in (A, B, C)))
        if not any(isinstance(x, vp.ndarray) for x in _leaves(dev)):
            continue
        got = vp.block(dev)
        same(got, want)
        same(np.block(dev), want)
    got = vp.block(vp.asarray(A))
    same(got, A)


def test_block_errors_are_numpys():
    a = vp.asarray(A)
    with pytest.raises(TypeError, match="tuple"):
        vp.block((a, a))
    with pytest.raises(ValueError, match="cannot be empty"):
        vp.block([a, []])
    with pytest.raises(ValueError, match="depths are mismatched"):
        vp.block([[a], a])
    with pytest.raises(ValueError):
        vp.block([a, vp.asarray(C)])   # 2-D and 1-D along the last axis: 2 rows vs 1


def test_block_empty_and_dtypes():
    e = np.zeros((2, 0), np.int32)
    i = np.arange(4, dtype=np.int32).reshape(2, 2)
    same(vp.block([vp.asarray(e), vp.asarray(i)]), np.block([e, i]))
    same(vp.block([vp.asarray(i), vp.asarray(i.astype(np.uint8))]),
         np.block([i, i.astype(np.uint8)]))


# ----------------------------------------------------------------- choose

@SETTINGS
@given(st.sampled_from(["raise", "wrap", "clip"]), st.integers(1, 4), st.integers(0, 2 ** 31),
       st.sampled_from([np.float32, np.int32, np.int64, np.uint8, np.bool_]))
def test_choose_matches_numpy(mode, n, seed, dt):
    rng = np.random.default_rng(seed)
    lo, hi = (0, n) if mode == "raise" else (-2 * n, 2 * n + 1)
    a = rng.integers(lo, hi, (3, 5)).astype(np.int64)
    # choices of shapes that broadcast with a: full, a row, a column, a scalar
    shapes = [(3, 5), (5,), (3, 1), ()]
    choices = [(rng.standard_normal(shapes[k % 4]) * 10).astype(dt) for k in range(n)]
    want = np.choose(a, choices, mode=mode)
    same(vp.choose(vp.asarray(a), [vp.asarray(c) for c in choices], mode=mode), want)
    same(np.choose(vp.asarray(a), [vp.asarray(c) for c in choices], mode=mode), want)
    # NumPy choices with a resident index array
    same(vp.choose(vp.asarray(a), choices, mode=mode), want)


def test_choose_out_raise_and_errors():
    a = np.array([[0, 2, 1], [1, 0, 2]], np.int32)
    ch = np.arange(18, dtype=np.float32).reshape(3, 2, 3)
    out = vp.zeros((2, 3), np.float32)
    assert vp.choose(vp.asarray(a), vp.asarray(ch), out=out) is out
    same(out, np.choose(a, ch))
    with pytest.raises(ValueError, match="invalid entry"):
        vp.choose(vp.asarray(a + 1), vp.asarray(ch))
    with pytest.raises(ValueError, match="invalid entry"):
        np.choose(vp.asarray(a - 1), vp.asarray(ch))
    with pytest.raises(TypeError, match="integer"):
        vp.choose(vp.asarray(a.astype(np.float32)), vp.asarray(ch))
    with pytest.raises(ValueError, match="mode"):
        vp.choose(vp.asarray(a), vp.asarray(ch), mode="bogus")
    with pytest.raises(ValueError, match="empty"):
        vp.choose(vp.asarray(a), [])
    e = np.zeros((0,), np.int64)
    same(vp.choose(vp.asarray(e), [vp.asarray(np.zeros(0, np.float32))]),
         np.choose(e, [np.zeros(0, np.float32)]))


# -------------------------------------------------------------- piecewise

def test_piecewise_matches_numpy():
    x = np.linspace(-2.5, 2.5, 11).astype(np.float32)
    conds = [x < 0, x >= 0]
    want = np.piecewise(x, conds, [lambda v: -v, lambda v: v * v])
    d = vp.asarray(x)
    got = vp.piecewise(d, [d < 0, d >= 0], [lambda v: -v, lambda v: v * v])
    same(got, want)
    same(np.piecewise(d, [d < 0, d >= 0], [lambda v: -v, lambda v: v * v]), want)
    # one function more: the value where no condition holds; constants
    want = np.piecewise(x, [x < -1, x > 1], [-1.0, 1.0, lambda v: v / 2])
    same(vp.piecewise(d, [d < -1, d > 1], [-1.0, 1.0, lambda v: v / 2]), want)
    # one condition, not in a list; extra arguments to the functions
    want = np.piecewise(x, x > 0, [lambda v, k: v * k], 3.0)
    same(vp.piecewise(d, d > 0, [lambda v, k: v * k], 3.0), want)
    # overlapping conditions: the later wins; a condition that holds nowhere
    want = np.piecewise(x, [x > -10, x > 0, x > 100], [1.0, 2.0, lambda v: v])
    same(vp.piecewise(d, [d > -10, d > 0, d > 100], [1.0, 2.0, lambda v: v]), want)
    # integers, 2-D
    xi = np.arange(-6, 6, dtype=np.int32).reshape(3, 4)
    di = vp.asarray(xi)
    same(vp.piecewise(di, [di % 2 == 0], [lambda v: v * 10, 7]),
         np.piecewise(xi, [xi % 2 == 0], [lambda v: v * 10, 7]))


def test_piecewise_errors():
    d = vp.asarray(np.arange(4, dtype=np.float32))
    with pytest.raises(ValueError, match="functions are expected"):
        vp.piecewise(d, [d > 0, d > 1], [1.0])
    with pytest.raises(IndexError, match="shape"):
        vp.piecewise(d, [vp.asarray(np.array([True, False]))], [1.0])


# ------------------------------------------------- apply_along / over axes

@pytest.mark.parametrize("axis", [0, 1, -1, 2])
def test_apply_along_axis_matches_numpy(axis):
    h = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 5
    d = vp.asarray(h)
    # a reduction (scalar per slice), a same-length result, a longer one
    same(vp.apply_along_axis(vp.sum, axis, d), np.apply_along_axis(np.sum, axis, h))
    same(np.apply_along_axis(lambda v: v * 2 + 1, axis, d),
         np.apply_along_axis(lambda v: v * 2 + 1, axis, h))
    same(vp.apply_along_axis(lambda v: vp.outer(v, v), axis, d),
         np.apply_along_axis(lambda v: np.outer(v, v), axis, h))
    # a view in
    same(vp.apply_along_axis(vp.cumsum, axis, d[:, ::-1]),
         np.apply_along_axis(np.cumsum, axis, h[:, ::-1]))


def test_apply_along_axis_errors_and_scalars():
    d = vp.zeros((0, 3), np.float32)
    with pytest.raises(ValueError, match="iteration dimensions are 0"):
        vp.apply_along_axis(vp.sum, 1, d)
    with pytest.raises(np.exceptions.AxisError):
        vp.apply_along_axis(vp.sum, 2, vp.zeros((2, 3), np.float32))
    # a function returning a Python number: NumPy's dtype for it
    h = np.arange(6, dtype=np.int32).reshape(2, 3)
    same(vp.apply_along_axis(lambda v: 7, 1, vp.asarray(h)),
         np.apply_along_axis(lambda v: 7, 1, h))


def test_apply_over_axes_matches_numpy():
    h = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    d = vp.asarray(h)
    same(vp.apply_over_axes(vp.sum, d, [0, 2]), np.apply_over_axes(np.sum, h, [0, 2]))
    same(np.apply_over_axes(vp.sum, d, [1]), np.apply_over_axes(np.sum, h, [1]))
    same(vp.apply_over_axes(vp.sum, d, -1), np.apply_over_axes(np.sum, h, -1))
    with pytest.raises(ValueError, match="correct shape"):
        vp.apply_over_axes(lambda a, ax: vp.sum(a), d, [0])


# ----------------------------------------------------------- sort_complex

@SETTINGS
@given(st.integers(0, 2 ** 31), st.integers(0, 40), st.sampled_from([np.complex64,
                                                                     np.complex128]))
def test_sort_complex_matches_numpy(seed, n, dt):
    if dt == np.complex128 and not f64():
        return
    rng = np.random.default_rng(seed)
    parts = np.array([0.0, -0.0, 1.5, -1.5, np.inf, -np.inf, np.nan, 2.0], np.float64)
    h = np.empty(n, dt)  # parts set apart (1j * nan would make the real part NaN too)
    h.real, h.imag = rng.choice(parts, n), rng.choice(parts, n)
    m = rng.random(n) < 0.5
    h.real[m] = rng.standard_normal(int(m.sum()))
    h.imag[m] = rng.integers(-2, 3, int(m.sum()))
    want = np.sort_complex(h)
    got = vp.sort_complex(vp.asarray(h))
    same(got, want)
    same(np.sort_complex(vp.asarray(h)), want)
    # 2-D: along the last axis
    h2 = np.concatenate([h, h[::-1]]).reshape(2, n)
    same(vp.sort_complex(vp.asarray(h2)), np.sort_complex(h2))


@pytest.mark.parametrize("v", [np.complex64(1 + 2j), np.float32(1.5)])
def test_sort_complex_of_0d_is_numpys_axis_error(v):
    """A 0-d complex array came back as a copy where NumPy (and vp for a 0-d
    real array) raises AxisError: it has no last axis to sort."""
    with pytest.raises(np.exceptions.AxisError):
        np.sort_complex(v)
    with pytest.raises(np.exceptions.AxisError):
        vp.sort_complex(vp.asarray(v))


@pytest.mark.parametrize("dt", [np.int8, np.uint16, np.int32, np.float32, np.float64, np.bool_])
def test_sort_complex_of_real_dtypes(dt):
    if dt == np.float64 and not f64():
        pytest.skip("no float64")
    h = np.array([3, 0, 2, 1, 1, 0, 3], dt)
    want = np.sort_complex(h)
    if want.dtype == np.complex128 and not f64():
        pytest.skip("complex128 needs float64")
    same(vp.sort_complex(vp.asarray(h)), want)


# ---------------------------------------------------------- windows, i0

@pytest.mark.parametrize("name", ["bartlett", "blackman", "hamming", "hanning"])
@pytest.mark.parametrize("m", [0, 1, 2, 7, 50])
def test_windows(name, m):
    same(getattr(vp, name)(m), getattr(np, name)(m).astype(np.float32))


@pytest.mark.parametrize("m,beta", [(0, 1.0), (1, 5.0), (12, 14.0), (31, 0.0)])
def test_kaiser(m, beta):
    same(vp.kaiser(m, beta), np.kaiser(m, beta).astype(np.float32))
    host = vp.kaiser(m, beta, memory="host")
    assert host.memory == "host"


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.float16, np.int32, np.uint8,
                                np.bool_])
def test_i0_matches_numpy(dt):
    want_dt = np.i0(np.zeros(1, dt)).dtype
    if (want_dt == np.float64 or dt == np.float64) and not f64():
        pytest.skip("no float64")
    if np.dtype(dt).kind == "f":
        h = np.concatenate([np.linspace(-30, 30, 241), [0.0, 8.0, -8.0, 7.999, 8.001, 1e-3,
                                                        np.nan]]).astype(dt)
        if dt == np.float16:
            h = h[np.abs(h.astype(np.float32)) < 11]    # I0(11.1) > float16's max
    elif dt == np.bool_:
        h = np.array([True, False, True])
    else:
        h = np.arange(0, 40, 3).astype(dt)
    want = np.i0(h)
    if dt == np.float16:  # NumPy computes in float16 (1e-3 off: i0(0.001) = 0.9985); vp in
        want = np.i0(h.astype(np.float32)).astype(np.float16)   # float32, then rounds
    got = vp.i0(vp.asarray(h))
    tol = {np.dtype(np.float64): 1e-13, np.dtype(np.float32): 2e-6,
           np.dtype(np.float16): 1e-3}[want.dtype]
    same(got, want, rtol=tol)
    same(np.i0(vp.asarray(h)), want, rtol=tol)
    same(vp.i0(vp.asarray(h)[::-2]), want[::-2], rtol=tol)   # a view


def test_i0_refuses_complex():
    with pytest.raises(TypeError, match="complex"):
        vp.i0(vp.asarray(np.array([1 + 1j], np.complex64)))
