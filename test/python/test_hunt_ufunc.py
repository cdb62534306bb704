"""A hunt for silent wrong answers in the eager elementwise path, the
operators and the reductions, called as a CuPy user would, differentially
against NumPy (hypothesis where it fits): special values (inf, NaN, -0.0,
subnormals, huge and tiny quotients), every dtype, views and aliased out=,
and vp.jit fusing the same expressions (it must equal the eager result).

Each test named after a bug fails on the code before its fix."""
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import vulpy as vp

from conftest import needs_target

pytestmark = [pytest.mark.usefixtures("ctx"), needs_target]

SETTINGS = settings(max_examples=12, deadline=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))


def _np(x):
    return x.numpy() if isinstance(x, vp.ndarray) else np.asarray(x)


def _same(got, want, what=""):
    """Bit-for-bit NumPy: dtype, shape, values, NaN where NaN, zero signs."""
    got, want = _np(got), np.asarray(want)
    assert got.dtype == want.dtype, (what, got.dtype, want.dtype)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    if want.dtype.kind == "f":
        bad = ~((got == want) & (np.signbit(got) == np.signbit(want)) | (np.isnan(got) & np.isnan(want)))
        assert not bad.any(), (what, np.argwhere(bad)[:5].tolist(), got[bad][:5], want[bad][:5])
    else:
        np.testing.assert_array_equal(got, want, err_msg=str(what))


def _want(f, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args)


# -------------------------------------------- float floor_divide / remainder

SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 1.5, -1.5, 3.0, -3.0, 2.5,
           1e30, -1e30, 1e-40, -1e-40, 1.5e-45, 3.4e38, 1e-30]
SPECIAL64 = SPECIAL + [1e300, -1e300, 5e-324, 1e-300, 2.0 ** 60 + 1]


def _float_pairs(dtype):
    vals = SPECIAL64 if dtype == np.float64 else SPECIAL
    v = np.array(vals, dtype)
    return np.repeat(v, len(v)), np.tile(v, len(v))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["floor_divide", "remainder", "fmod"])
def test_float_floordiv_mod_specials(dtype, name):
    """Bug: float // and % through the GLSL helpers gave NaN for an infinite
    divisor (NumPy: -1.5 // inf == -1, -1.5 % inf == inf), for a subnormal
    divisor (a / b overflowed: 2.5 % 1e-40), a huge quotient in float64
    (1e30 % 2.5 was -7e13, NumPy 1.0) and -0.0 for -1.5 // -3.0 (NumPy +0)."""
    a, b = _float_pairs(dtype)
    want = _want(getattr(np, name), a, b)
    _same(getattr(vp, name)(vp.asarray(a), vp.asarray(b)), want, name)


def _floats(dtype):
    w = 32 if dtype == np.float32 else 64
    return st.floats(width=w, allow_nan=True, allow_infinity=True, allow_subnormal=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@SETTINGS
@given(data=st.data())
def test_float_divmod_hypothesis(dtype, data):
    """floor_divide, remainder, fmod and divmod on random floats, through
    the ufunc, the operators and vp.jit: all bit-identical to NumPy."""
    n = data.draw(st.integers(1, 40))
    a = np.array(data.draw(st.lists(_floats(dtype), min_size=n, max_size=n)), dtype)
    b = np.array(data.draw(st.lists(_floats(dtype), min_size=n, max_size=n)), dtype)
    av, bv = vp.asarray(a), vp.asarray(b)
    _same(av // bv, _want(np.floor_divide, a, b), "//")
    _same(av % bv, _want(np.remainder, a, b), "%")
    _same(vp.fmod(av, bv), _want(np.fmod, a, b), "fmod")
    q, r = vp.divmod(av, bv)
    _same(q, _want(np.floor_divide, a, b), "divmod q")
    _same(r, _want(np.remainder, a, b), "divmod r")
    _same(vp.jit(lambda x, y: x // y)(av, bv), _want(np.floor_divide, a, b), "jit //")
    _same(vp.jit(lambda x, y: x % y)(av, bv), _want(np.remainder, a, b), "jit %")
