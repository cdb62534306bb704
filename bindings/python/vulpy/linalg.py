"""vp.linalg: numpy.linalg functions on the GPU (issue 19).

norm: vector norms (ord None/2, 1, inf, -inf, 0, any other p) and matrix
norms (ord None/'fro', 1, -1, inf, -inf) as compositions of vp ufuncs and
reductions (device kernels; NumPy in -> NumPy out, resident in -> resident
out). The matrix 2-norm, -2 and 'nuc' need singular values, which VulPy
has not: they raise NotImplementedError.
"""
import numpy as np

from . import _array, _errors, _reduce, _ufunc

_nd = _array.ndarray


def _sumsq(x, axis, keepdims):
    return _reduce.sum(_ufunc.multiply(x, x), axis, None, None, keepdims)


def norm(x, ord=None, axis=None, keepdims=False):
    """numpy.linalg.norm on the GPU (module docstring says which ords).
    Integer and bool inputs compute in float64, as NumPy's."""
    if isinstance(x, (list, tuple)) or np.isscalar(x):
        x = np.asarray(x)
    dt = np.dtype(x.dtype)
    if dt.kind == "c":
        raise TypeError("vp.linalg.norm: complex input is not supported")
    if dt.kind != "f":
        x = x.astype(np.float64)
    nd = x.ndim
    if axis is None:
        if ord is None or (ord in ("f", "fro") and nd == 2) or (ord == 2 and nd == 1):
            r = _ufunc.sqrt(_sumsq(x, None, False))
            if keepdims:
                r = r.reshape((1,) * nd)
            return r
        axis = tuple(range(nd))
    elif not isinstance(axis, tuple):
        axis = (int(axis),)
    axis = tuple(int(a) for a in axis)
    for a in axis:  # checked before `% nd`, which would wrap (0, -3) of a matrix to (0, 1)
        if not -nd <= a < nd:
            raise _errors.AxisError(a, nd)
    axis = tuple(a % nd for a in axis)
    if len(axis) == 1:
        return _vector(x, ord, axis[0], keepdims)
    if len(axis) == 2:
        return _matrix(x, ord, axis, keepdims)
    raise ValueError("Improper number of dimensions to norm.")


def _vector(x, ord, axis, keepdims):
    ax = axis

    def absx():
        return _ufunc.absolute(x)

    if ord is None or ord == 2:
        return _ufunc.sqrt(_sumsq(x, ax, keepdims))
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    if ord == np.inf:  # NumPy's max starts at 0: an empty vector's inf-norm is 0
        return _reduce.amax(absx(), ax, None, keepdims, 0 if x.shape[ax] == 0 else None)
    if ord == -np.inf:
        return _reduce.amin(absx(), ax, None, keepdims)
    if ord == 0:
        nz = _ufunc.not_equal(x, 0)
        return _reduce.sum(nz, ax, x.dtype, None, keepdims)
    if ord == 1:
        return _reduce.sum(absx(), ax, None, None, keepdims)
    p = float(ord)
    s = _reduce.sum(_ufunc.power(absx(), p), ax, None, None, keepdims)
    return _ufunc.power(s, 1.0 / p)


def _matrix(x, ord, axis, keepdims):
    nd = x.ndim
    r0, c0 = (int(a) % nd for a in axis)
    if r0 == c0:
        raise ValueError("Duplicate axes given.")
    if ord in (2, -2, "nuc"):
        raise NotImplementedError(f"vp.linalg.norm: ord={ord!r} needs singular values, which "
                                  f"VulPy has not; use numpy.linalg.norm on x.numpy()")
    if ord is None or ord in ("fro", "f"):
        r = _ufunc.sqrt(_sumsq(x, (r0, c0), keepdims))
        return r
    if ord in (1, -1, np.inf, -np.inf):
        # 1: largest column sum (sum over rows, then max over columns)
        inner, outer = (r0, c0) if ord in (1, -1) else (c0, r0)
        s = _reduce.sum(_ufunc.absolute(x), inner, None, None, True)
        if ord in (1, np.inf):  # from 0, as NumPy's: no ValueError when `outer` is empty
            r = _reduce.amax(s, outer, None, True, 0 if x.shape[outer] == 0 else None)
        else:
            r = _reduce.amin(s, outer, None, True)
        if not keepdims:
            r = r.reshape(tuple(d for i, d in enumerate(r.shape) if i not in (r0, c0)))
        return r
    raise ValueError("Invalid norm order for matrices.")


NAMES = ("norm",)
