"""One default-dtype rule for every creation function (issue 14):
without dtype=, Python float data is float32 (the convenience path's
compute type); data that carries a dtype keeps it; ints and bools follow
NumPy. docs/python-api.md states the rule."""
import numpy as np
import pytest

import vulpy as vp

pytestmark = pytest.mark.usefixtures("ctx")

F32, F64, I64 = np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.int64)


@pytest.mark.parametrize("make, dtype, values", [
    (lambda: vp.empty(3), F32, None),
    (lambda: vp.zeros(3), F32, np.zeros(3)),
    (lambda: vp.ones(3), F32, np.ones(3)),
    (lambda: vp.full(3, 2.5), F32, np.full(3, 2.5)),
    (lambda: vp.full(3, 7), I64, np.full(3, 7)),
    (lambda: vp.full(3, True), np.dtype(np.bool_), np.full(3, True)),
    (lambda: vp.full(3, np.float64(2.5)), F64, np.full(3, 2.5)),
    (lambda: vp.asarray([1.0, 2.0]), F32, [1.0, 2.0]),
    (lambda: vp.array([1.5]), F32, [1.5]),
    (lambda: vp.asarray(3.0), F32, 3.0),
    (lambda: vp.asarray([1, 2]), I64, [1, 2]),
    (lambda: vp.asarray(np.zeros(3)), F64, np.zeros(3)),
    (lambda: vp.asarray(np.zeros(3, np.float32)), F32, np.zeros(3)),
    (lambda: vp.arange(4), I64, np.arange(4)),
    (lambda: vp.arange(0, 1, 0.25), F32, np.arange(0, 1, 0.25)),
    (lambda: vp.arange(np.float64(0), 1, 0.25), F64, np.arange(0, 1, 0.25)),
    (lambda: vp.linspace(0, 1, 5), F32, np.linspace(0, 1, 5)),
    (lambda: vp.linspace(0.0, 1.0, 5, dtype=np.float64), F64, np.linspace(0, 1, 5)),
    (lambda: vp.zeros_like(np.zeros(3)), F64, np.zeros(3)),
    (lambda: vp.full_like(vp.zeros(3), 2.5), F32, np.full(3, 2.5)),
    (lambda: vp.ones_like([1.0, 2.0]), F32, np.ones(2)),
    (lambda: vp.empty_like([1.0, 2.0]), F32, None),
    (lambda: vp.full_like([1, 2], 3), I64, np.full(2, 3)),
])
def test_default_dtype(make, dtype, values):
    a = make()
    assert a.dtype == dtype
    if values is not None:
        np.testing.assert_array_equal(a.numpy(), np.asarray(values, dtype))


def test_linspace_takes_numpys_arguments_in_numpys_order():
    """retstep= and axis= were missing, and the fifth positional argument
    was dtype where NumPy's is retstep: vp.linspace(0, 1, 5, False, True)
    now returns (samples, step) as numpy.linspace does."""
    got, step = vp.linspace(0, 1, 5, False, True)
    want, wstep = np.linspace(0, 1, 5, False, True)
    assert step == wstep and got.dtype == np.float32
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-7)
    r, s = vp.linspace(-2.0, 3.0, 4, retstep=True, dtype=np.float64)
    w, ws = np.linspace(-2.0, 3.0, 4, retstep=True, dtype=np.float64)
    assert s == ws and r.dtype == np.float64
    np.testing.assert_array_equal(r.numpy(), w)
    lo, hi = np.array([0.0, 1.0]), np.array([1.0, 3.0])
    for axis in (0, 1, -1):
        want = np.linspace(lo, hi, 3, axis=axis)
        got = vp.linspace(lo, hi, 3, axis=axis)
        assert got.shape == want.shape and got.dtype == want.dtype  # NumPy bounds keep float64
        np.testing.assert_array_equal(got.numpy(), want)
    got = vp.linspace(vp.asarray(lo), vp.asarray(hi), 4)
    np.testing.assert_array_equal(got.numpy(), np.linspace(lo, hi, 4))
