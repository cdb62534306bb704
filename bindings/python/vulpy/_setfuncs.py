"""Set operations on 1-D arrays: isin, union1d, intersect1d, setdiff1d,
setxor1d (docs/python-api.md, "More NumPy functions").

NumPy's own algorithms, on the device sort (_sort): unique, a stable
argsort, searchsorted, and boolean-mask compactions (each reads back its
count, as unique does). Resident in -> resident out; NumPy in -> NumPy's
own function. The inputs are flattened, as NumPy's.
"""
import numpy as np

from . import _array, _shapeops, _sort, _ufunc

_nd = _array.ndarray
_res = _shapeops._resident


def _flat(x, ctx):
    x = x if isinstance(x, _nd) else _array.asarray(np.asarray(x), context=ctx)
    return x.reshape(-1)


def _joined(a, b):
    """concatenate((a, b)) in NumPy's result dtype."""
    dt = np.result_type(a.dtype, b.dtype)
    return _shapeops.concatenate([a.astype(dt), b.astype(dt)])


def _true(ctx):
    return _array.ones((1,), np.bool_, context=ctx)


def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """vp.isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    numpy.isin on the GPU: a bool array of element's shape, True where the
    element is among test_elements (flattened); invert=True negates it.
    The test elements are sorted on the device and each element found by
    binary search (kind is accepted and ignored: 'sort' and 'table' give
    the same answer). NaN is never found (NaN != NaN), as NumPy's.

        >>> vp.isin(vp.asarray(np.array([1, 2, 3, 4])), [2, 4]).numpy()
        array([False,  True, False,  True])
    """
    if not _res(element, test_elements):
        return np.isin(element, test_elements, assume_unique=assume_unique, invert=invert,
                       kind=kind)
    if kind not in (None, "sort", "table"):
        raise ValueError(f"Invalid kind: '{kind}'. Please use None, 'sort' or 'table'.")
    ctx = _array.common_context("vp.isin", (element, test_elements))
    el = element if isinstance(element, _nd) else _array.asarray(np.asarray(element),
                                                                   context=ctx)
    test = _sort.sort(_flat(test_elements, ctx))
    if test.size == 0 or el.size == 0:
        return _array.full(tuple(el.shape), bool(invert), np.bool_, context=ctx)
    pos = _sort.searchsorted(test, el)
    found = _ufunc.equal(test[_ufunc.minimum(pos, test.size - 1)], el)
    return _ufunc.logical_not(found) if invert else found


def union1d(ar1, ar2):
    """vp.union1d(ar1, ar2):
    numpy.union1d on the GPU: the sorted unique values in either
    (flattened) array, in their NumPy result dtype.

        >>> vp.union1d(vp.asarray(np.array([3, 1])), [2, 1]).numpy()
        array([1, 2, 3])
    """
    if not _res(ar1, ar2):
        return np.union1d(ar1, ar2)
    ctx = _array.common_context("vp.union1d", (ar1, ar2))
    return _sort.unique(_joined(_flat(ar1, ctx), _flat(ar2, ctx)))


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """vp.intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    numpy.intersect1d on the GPU: the sorted unique values in both
    (flattened) arrays; with return_indices=True also the int64 indices
    of their first occurrences in ar1 and ar2. assume_unique=True skips
    the unique step (the inputs must then be unique, as NumPy's).

        >>> vp.intersect1d(vp.asarray(np.array([1, 3, 4, 3])), [3, 1, 2, 1]).numpy()
        array([1, 3])
    """
    if not _res(ar1, ar2):
        return np.intersect1d(ar1, ar2, assume_unique, return_indices)
    ctx = _array.common_context("vp.intersect1d", (ar1, ar2))
    a, b = _flat(ar1, ctx), _flat(ar2, ctx)
    if not assume_unique:
        if return_indices:
            a, ind1 = _sort.unique(a, return_index=True)
            b, ind2 = _sort.unique(b, return_index=True)
        else:
            a, b = _sort.unique(a), _sort.unique(b)
    aux = _joined(a, b)
    if return_indices:
        order = _sort.argsort(aux, kind="stable")
        aux = aux[order]
    else:
        aux = _sort.sort(aux)
    if aux.size < 2:
        common = aux[:0]
        mask = None
    else:
        mask = _ufunc.equal(aux[1:], aux[:-1])
        common = aux[:-1][mask]
    if not return_indices:
        return common
    if mask is None:
        empty = _array.empty((0,), np.int64, context=ctx)
        return common, empty, empty.copy()
    i1 = order[:-1][mask]
    i2 = _ufunc.subtract(order[1:][mask], a.size)
    if not assume_unique:
        i1, i2 = ind1[i1], ind2[i2]
    return common, i1, i2


def setdiff1d(ar1, ar2, assume_unique=False):
    """vp.setdiff1d(ar1, ar2, assume_unique=False):
    numpy.setdiff1d on the GPU: the unique values of ar1 (flattened) that
    are not in ar2, sorted, in ar1's dtype; with assume_unique=True ar1's
    values in their order.

        >>> vp.setdiff1d(vp.asarray(np.array([5, 1, 3, 1])), [3]).numpy()
        array([1, 5])
    """
    if not _res(ar1, ar2):
        return np.setdiff1d(ar1, ar2, assume_unique)
    ctx = _array.common_context("vp.setdiff1d", (ar1, ar2))
    a = _flat(ar1, ctx) if assume_unique else _sort.unique(_flat(ar1, ctx))
    b = _flat(ar2, ctx) if assume_unique else _sort.unique(_flat(ar2, ctx))
    keep = isin(a, b, assume_unique=True, invert=True)
    return a[keep] if a.size else a  # ar1's dtype, as NumPy's


def setxor1d(ar1, ar2, assume_unique=False):
    """vp.setxor1d(ar1, ar2, assume_unique=False):
    numpy.setxor1d on the GPU: the sorted unique values in exactly one of
    the (flattened) arrays.

        >>> vp.setxor1d(vp.asarray(np.array([1, 2, 3])), [2, 3, 4]).numpy()
        array([1, 4])
    """
    if not _res(ar1, ar2):
        return np.setxor1d(ar1, ar2, assume_unique)
    ctx = _array.common_context("vp.setxor1d", (ar1, ar2))
    a, b = _flat(ar1, ctx), _flat(ar2, ctx)
    if not assume_unique:
        a, b = _sort.unique(a), _sort.unique(b)
    aux = _sort.sort(_joined(a, b))
    if aux.size == 0:
        return aux
    inner = _ufunc.not_equal(aux[1:], aux[:-1])
    flag = _shapeops.concatenate([_true(ctx), inner, _true(ctx)])
    return aux[_ufunc.logical_and(flag[1:], flag[:-1])]


NAMES = ("isin", "union1d", "intersect1d", "setdiff1d", "setxor1d")
