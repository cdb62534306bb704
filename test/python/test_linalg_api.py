"""NumPy 2's numpy.linalg names that compose the others (were refused on
resident arrays): matmul, tensordot, outer, trace, diagonal,
matrix_transpose, vecdot, cross, matrix_norm, vector_norm, matrix_power
(NumPy's sequence of products), multi_dot (NumPy's chain order),
tensorinv, tensorsolve; differentially against numpy.linalg, with
NumPy's errors."""
import numpy as np
import pytest

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target

RNG = np.random.default_rng(0)
A = RNG.standard_normal((2, 3, 4, 4)).astype(np.float32)
B = RNG.standard_normal((2, 3, 4, 4)).astype(np.float32)


def cmp(got, want, tol=1e-5):
    assert isinstance(got, vp.ndarray), type(got)
    g, w = got.numpy(), np.asarray(want)
    assert g.shape == w.shape and g.dtype == w.dtype, (g.shape, w.shape, g.dtype, w.dtype)
    np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


def test_products_and_views():
    x, y = vp.asarray(A), vp.asarray(B)
    cmp(np.linalg.matmul(x, y), np.linalg.matmul(A, B))
    b2 = RNG.standard_normal((4, 4, 5)).astype(np.float32)
    cmp(np.linalg.tensordot(x, vp.asarray(b2), axes=2), np.linalg.tensordot(A, b2, axes=2), 1e-4)
    v, w = RNG.standard_normal(5).astype(np.float32), RNG.standard_normal(7).astype(np.float32)
    cmp(np.linalg.outer(vp.asarray(v), vp.asarray(w)), np.linalg.outer(v, w))
    cmp(np.linalg.trace(x, offset=1), np.linalg.trace(A, offset=1))
    cmp(np.linalg.diagonal(x, offset=-1), np.linalg.diagonal(A, offset=-1))
    t = np.linalg.matrix_transpose(x)
    cmp(t, np.linalg.matrix_transpose(A))
    assert t._buf is x._buf  # a view, as NumPy's
    cmp(np.linalg.vecdot(x, y, axis=1), np.linalg.vecdot(A, B, axis=1))
    c, d = RNG.standard_normal((4, 3, 2)), RNG.standard_normal((1, 3, 2))
    cmp(np.linalg.cross(vp.asarray(c), vp.asarray(d), axis=1), np.linalg.cross(c, d, axis=1), 1e-12)


@pytest.mark.parametrize("ord", ["fro", 1, np.inf, 2, "nuc"])
def test_matrix_norm(ord):
    cmp(np.linalg.matrix_norm(vp.asarray(A), ord=ord, keepdims=True),
        np.linalg.matrix_norm(A, ord=ord, keepdims=True))


@pytest.mark.parametrize("axis", [None, 1, (1, 3), (-1, 0)])
@pytest.mark.parametrize("ord", [2, 1, np.inf, 3])
def test_vector_norm(axis, ord):
    keep = axis != 1
    cmp(np.linalg.vector_norm(vp.asarray(A), axis=axis, ord=ord, keepdims=keep),
        np.linalg.vector_norm(A, axis=axis, ord=ord, keepdims=keep), 1e-4)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 6, -1, -3])
def test_matrix_power(n):
    m = RNG.standard_normal((2, 4, 4)) + 4 * np.eye(4)
    cmp(np.linalg.matrix_power(vp.asarray(m), n), np.linalg.matrix_power(m, n), 1e-10)


def test_matrix_power_integers_and_errors():
    i = np.arange(9).reshape(3, 3)
    cmp(np.linalg.matrix_power(vp.asarray(i), 4), np.linalg.matrix_power(i, 4))  # exact int64
    with pytest.raises(TypeError, match="integer"):
        np.linalg.matrix_power(vp.asarray(i), 1.5)
    with pytest.raises(np.linalg.LinAlgError, match="square"):
        np.linalg.matrix_power(vp.ones((2, 3)), 2)


def test_multi_dot():
    """NumPy's chain order (the cheapest): the same products, so results
    agree to rounding; 1-D first and last arrays."""
    ms = [RNG.standard_normal(s) for s in [(10,), (10, 3), (3, 30), (30, 2), (2,)]]
    cmp(np.linalg.multi_dot([vp.asarray(m) for m in ms]), np.linalg.multi_dot(ms), 1e-10)
    cmp(np.linalg.multi_dot([vp.asarray(m) for m in ms[1:4]]), np.linalg.multi_dot(ms[1:4]),
        1e-10)
    out = vp.zeros((10, 2), np.float64)
    assert vp.linalg.multi_dot([vp.asarray(m) for m in ms[1:4]], out=out) is out
    with pytest.raises(ValueError, match="at least two"):
        vp.linalg.multi_dot([vp.asarray(ms[1])])


def test_tensorinv_tensorsolve():
    t = (RNG.standard_normal((24, 24)) + 24 * np.eye(24)).reshape(4, 6, 8, 3)
    cmp(np.linalg.tensorinv(vp.asarray(t), ind=2), np.linalg.tensorinv(t, ind=2), 1e-10)
    b = RNG.standard_normal((4, 6))
    cmp(np.linalg.tensorsolve(vp.asarray(t), vp.asarray(b)), np.linalg.tensorsolve(t, b), 1e-10)
    a = np.eye(24).reshape(6, 4, 2, 3, 4) + 0.01 * RNG.standard_normal((6, 4, 2, 3, 4))
    a2 = np.moveaxis(a, 2, 0).copy()
    b = RNG.standard_normal((6, 4))
    cmp(np.linalg.tensorsolve(vp.asarray(a2), vp.asarray(b), axes=(0,)),
        np.linalg.tensorsolve(a2, b, axes=(0,)), 1e-10)
    with pytest.raises(ValueError, match="Invalid ind"):
        vp.linalg.tensorinv(vp.asarray(t), ind=0)


def test_errors_are_numpys():
    with pytest.raises(ValueError, match="one-dimensional"):
        np.linalg.outer(vp.ones((2, 2)), vp.ones(2))
    with pytest.raises(ValueError, match="3-dimensional vectors"):
        np.linalg.cross(vp.ones(2), vp.ones(2))
    with pytest.raises(ValueError, match="at least 2-dimensional"):
        np.linalg.matrix_transpose(vp.ones(3))
