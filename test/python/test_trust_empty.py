"""Reductions of empty arrays follow NumPy (issue 20): the mean of nothing
is NaN with a RuntimeWarning (vp.mean of an empty array used to be 0.0,
silently), min/max/argmin/argmax of nothing are a ValueError, sum is 0 and
prod 1; the axis forms too."""
import warnings

import numpy as np
import pytest

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target

CASES = [((0,), None), ((0, 3), 0), ((3, 0), 1), ((3, 0), 0), ((0, 3), 1), ((2, 0, 3), (0, 1)),
         ((0,), 0)]


def _np(name, h, axis, **kw):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            e = getattr(np, name)(h, axis=axis, **kw)
        except ValueError:
            return ValueError, False
    return e, any(issubclass(x.category, RuntimeWarning) for x in w)


@pytest.mark.parametrize("resident", [True, False])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("shape,axis", CASES)
@pytest.mark.parametrize("name", ["sum", "prod", "mean", "max", "min", "argmax", "argmin",
                                  "any", "all"])
def test_empty_like_numpy(name, shape, axis, dtype, resident):
    if name in ("argmax", "argmin") and isinstance(axis, tuple):
        pytest.skip("argmin/argmax take one axis")
    h = np.zeros(shape, dtype)
    e, warned = _np(name, h, axis)
    a = vp.asarray(h) if resident else h
    if e is ValueError:
        with pytest.raises(ValueError, match="zero-size array"):
            getattr(vp, name)(a, axis=axis)
        return
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = getattr(vp, name)(a, axis=axis)
    got_warning = any(issubclass(x.category, RuntimeWarning) for x in w)
    assert got_warning == warned, (name, shape, axis, [str(x.message) for x in w])
    r = r.numpy() if hasattr(r, "numpy") else np.asarray(r)
    e = np.asarray(e)
    assert r.shape == e.shape
    if e.dtype.kind == "f":
        np.testing.assert_array_equal(np.isnan(r), np.isnan(e))
        np.testing.assert_array_equal(r[~np.isnan(r)], e[~np.isnan(e)])
    else:
        np.testing.assert_array_equal(r, e)


def test_empty_mean_keepdims():
    h = np.zeros((0, 4), np.float32)
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        r = vp.mean(vp.asarray(h), axis=0, keepdims=True)
    assert r.shape == (1, 4)
    assert np.isnan(r.numpy()).all()
    with pytest.warns(RuntimeWarning):
        assert np.isnan(float(vp.asarray(h).mean()))
