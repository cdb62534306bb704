"""vp.testing: cupy.testing's array assertions (numpy.testing's, taking
resident arrays): each argument that is a vp.ndarray is read back, then
numpy.testing's assertion of the same name runs, with its keywords.

    vp.testing.assert_allclose(vp.sin(x), np.sin(h), rtol=1e-6)
"""
import numpy as np
import numpy.testing as _npt

from . import _array

__all__ = ["assert_allclose", "assert_array_almost_equal", "assert_array_almost_equal_nulp",
           "assert_array_max_ulp", "assert_array_equal", "assert_array_list_equal",
           "assert_array_less"]


def _host(x):
    return x.numpy() if isinstance(x, _array.ndarray) else x


def assert_allclose(actual, desired, rtol=1e-7, atol=0, equal_nan=True, err_msg="",
                    verbose=True, *, strict=False):
    """numpy.testing.assert_allclose of `actual` and `desired` (resident
    arrays read back): |actual - desired| <= atol + rtol * |desired|
    elementwise; NaNs equal where `equal_nan`; `strict` also compares shape
    and dtype. AssertionError (with `err_msg`, detailed when `verbose`)
    otherwise."""
    _npt.assert_allclose(_host(actual), _host(desired), rtol, atol, equal_nan, err_msg, verbose,
                         strict=strict)


def assert_array_almost_equal(x, y, decimal=6, err_msg="", verbose=True):
    """numpy.testing.assert_array_almost_equal of x and y (resident arrays
    read back): abs(y - x) < 1.5 * 10**(-decimal) elementwise; `err_msg`
    and `verbose` as NumPy's."""
    _npt.assert_array_almost_equal(_host(x), _host(y), decimal, err_msg, verbose)


def assert_array_almost_equal_nulp(x, y, nulp=1):
    """numpy.testing.assert_array_almost_equal_nulp of x and y (resident
    arrays read back): within `nulp` units in the last place of the larger
    magnitude."""
    _npt.assert_array_almost_equal_nulp(_host(x), _host(y), nulp)


def assert_array_max_ulp(a, b, maxulp=1, dtype=None):
    """numpy.testing.assert_array_max_ulp of a and b (resident arrays read
    back): at most `maxulp` units in the last place apart (in `dtype`);
    returns the ulp differences as NumPy's does."""
    return _npt.assert_array_max_ulp(_host(a), _host(b), maxulp, dtype)


def assert_array_equal(x, y, err_msg="", verbose=True, *, strict=False):
    """numpy.testing.assert_array_equal of x and y (resident arrays read
    back): equal shapes (or a scalar) and elements, NaNs equal; `strict`
    also compares dtype; `err_msg` and `verbose` as NumPy's."""
    _npt.assert_array_equal(_host(x), _host(y), err_msg, verbose, strict=strict)


def assert_array_list_equal(xlist, ylist, err_msg="", verbose=True):
    """cupy.testing.assert_array_list_equal: two sequences of arrays of the
    same length, each pair equal as assert_array_equal says (`err_msg` and
    `verbose` passed on)."""
    xlist, ylist = list(xlist), list(ylist)
    if len(xlist) != len(ylist):
        raise AssertionError(f"List size is different ({len(xlist)} != {len(ylist)})")
    for x, y in zip(xlist, ylist):
        _npt.assert_array_equal(_host(x), _host(y), err_msg, verbose)


def assert_array_less(x, y, err_msg="", verbose=True, *, strict=False):
    """numpy.testing.assert_array_less of x and y (resident arrays read
    back): x < y elementwise; `strict` also compares shape and dtype."""
    _npt.assert_array_less(_host(x), _host(y), err_msg, verbose, strict=strict)


del np
