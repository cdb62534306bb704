"""vp.unique(..., axis=k) (issue 19): the unique slices along an axis, on
the device (docs/python-api.md, "Sorting", says what it returns and how
NaN rows differ from NumPy).

NumPy sorts the slices (flattened to rows of m elements) as structured
values, lexicographically; here the same order comes from m stable
argsorts, from the last column to the first (an LSD sort of the rows),
composed into one permutation. Then as in _sort.unique: a row starts a
new value where it differs from the row before it, a boolean-mask
compaction takes the first of each run, the inverse is a cumsum scattered
back through the permutation. m sorts: meant for narrow slices.
"""
import numpy as np

from . import _array
from . import _errors

_nd = _array.ndarray
_I64 = np.dtype(np.int64)


def unique_axis(ar, return_index, return_inverse, return_counts, axis, equal_nan):
    import sys

    from . import _reduce, _shapeops, _ufunc
    # vp.argsort through the package: _sort dispatches axis= here, so
    # importing it back would close an import cycle (test_layers.py)
    argsort = sys.modules[__package__].argsort
    host = not isinstance(ar, _nd)
    if host:
        ar = _array.asarray(np.asarray(ar))
    ax = _norm_axis(axis, ar.ndim)
    ctx = ar._ctx
    moved = _shapeops.moveaxis(ar, ax, 0)
    rest = tuple(moved.shape[1:])
    n = moved.shape[0]
    m = int(np.prod(rest, dtype=np.int64))
    rows = moved.reshape(n, m)
    if n == 0:
        uniq = _shapeops.moveaxis(rows.reshape((0,) + rest), 0, ax).copy()
        res = [uniq]
        for want in (return_index, return_inverse, return_counts):
            if want:
                res.append(_array.empty((0,), _I64, context=ctx))
    else:
        perm = _array.arange(n, dtype=_I64, context=ctx)
        for c in range(m - 1, -1, -1):  # least significant column first
            key = rows[:, c][perm]
            perm = perm[argsort(key, kind="stable")]
        srt = rows[perm]
        if n > 1 and m > 0:
            head = _reduce.any(_ufunc.not_equal(srt[1:], srt[:-1]), 1)
        else:
            head = _array.zeros((max(n - 1, 0),), np.bool_, context=ctx)
        mask = _shapeops.concatenate([_array.ones((1,), np.bool_, context=ctx), head])
        first = srt[mask]
        k = first.shape[0]
        res = run_results(_shapeops.moveaxis(first.reshape((k,) + rest), 0, ax).copy(), mask,
                          perm, (n,), return_index, return_inverse, return_counts)
    if host:
        res = [r.numpy() for r in res]
    return res[0] if len(res) == 1 else tuple(res)


def run_results(first, mask, perm, inv_shape, return_index, return_inverse, return_counts):
    """[first, then as asked: the index, the inverse (of shape inv_shape)
    and the counts] of unique, from `mask` (True where a run of equal
    values starts in the sorted order) and `perm` (the sorting
    permutation: sorted position -> input position)."""
    from . import _reduce, _shapeops, _stats, _ufunc
    ctx, n = mask._ctx, mask.shape[0]
    res = [first]
    if return_index:
        res.append(perm[mask])
    if return_inverse:
        ids = _ufunc.subtract(_reduce.cumsum(mask, 0, _I64), 1)
        inv = _array.empty((n,), _I64, context=ctx)
        inv[perm] = ids
        res.append(inv.reshape(inv_shape))
    if return_counts:
        starts = _stats.flatnonzero(mask)
        ends = _shapeops.concatenate([starts[1:], _array.full((1,), n, _I64, context=ctx)])
        res.append(_ufunc.subtract(ends, starts))
    return res


def _norm_axis(axis, ndim):
    import operator
    try:
        a = operator.index(axis)
    except TypeError:
        raise TypeError(f"vp.unique: axis= must be an int or None, got {axis!r}") from None
    if not -ndim <= a < ndim:
        raise _errors.AxisError(a, ndim)
    return a % ndim
