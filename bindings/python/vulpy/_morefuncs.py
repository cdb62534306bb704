"""More NumPy functions a CuPy user reaches for (issue 19), as compositions
of the device operations (vp ufuncs, reductions, take / setitem, shape
operations): insert, delete, resize, compress, extract, put, the array
API's cumulative_sum / cumulative_prod / unstack / unique_all /
unique_counts / unique_inverse / unique_values / matrix_transpose,
isposinf, isneginf, fix, sinc, diagflat, rollaxis, row_stack, dsplit,
tril_indices_from, triu_indices_from, diag_indices_from, ix_, iscomplex,
isreal, iscomplexobj, isrealobj, may_share_memory, shares_memory, and the
polynomial helpers polyadd, polysub, polymul, polyder, polyint.

Resident in -> resident out (NumPy in -> NumPy's own function). Where a
function's result shape depends on data NumPy would read (delete's and
insert's index lists, given as resident arrays), those indices are read
back (small). test_morefuncs.py checks each against NumPy.
"""
import builtins
import collections
import operator

import numpy as np

from . import _array, _graph, _reduce, _shapeops, _ufunc

_nd = _array.ndarray
_res = _shapeops._resident


def _asnd(x, ctx):
    return x if isinstance(x, _nd) else _array.asarray(np.asarray(x), context=ctx)


def _host(x):
    """Small index data as NumPy (a resident array is read back)."""
    return x.numpy() if isinstance(x, _nd) else x


def _along(ndim, axis, idx):
    return (slice(None),) * axis + (idx,)


def _take(a, idx, axis):
    from . import _indexing
    return _indexing.take(a, _array.asarray(np.asarray(idx, np.int64), context=a._ctx), axis)


def delete(arr, obj, axis=None):
    """vp.delete(arr, obj, axis=None): numpy.delete on the device: arr
    without the entries obj (an int, a slice, integer indices or a boolean
    mask; NumPy's errors) along axis (None: the flattened array)."""
    if not _res(arr):
        return np.delete(arr, _host(obj), axis)
    a = arr
    if axis is None:
        a, axis = a.ravel(), 0
    else:
        axis = _shapeops._axis(axis, a.ndim, "delete")
    n = a.shape[axis]
    keep = np.delete(np.arange(n), _host(obj))  # NumPy's rules and errors on the indices
    return _take(a, keep, axis)


def insert(arr, obj, values, axis=None):
    """vp.insert(arr, obj, values, axis=None): numpy.insert on the device:
    values inserted before the index or indices obj along axis (None: the
    flattened array); a scalar obj inserts values as a block, a sequence
    one value (or slice) each, as NumPy's."""
    if not _res(arr, values):
        return np.insert(arr, _host(obj), values, axis)
    ctx = _array.common_context("vp.insert", (arr, values))
    a = _asnd(arr, ctx)
    if axis is None:
        a, axis = a.ravel(), 0
    else:
        axis = _shapeops._axis(axis, a.ndim, "insert")
    n = a.shape[axis]
    obj = _host(obj)
    vals = _asnd(values, ctx)
    if isinstance(obj, slice):
        obj = np.arange(*obj.indices(n))
    idx = np.asarray(obj)
    if idx.ndim == 0 or idx.size == 1 and idx.ndim == 1 and not isinstance(obj, (list, tuple)):
        # a block: values with at least arr's dims, its first axis moved to `axis`
        v = vals
        while v.ndim < a.ndim:
            v = v.reshape((1,) + tuple(v.shape))
        v = _shapeops.moveaxis(v, 0, axis)
        numnew = v.shape[axis]
        where = np.insert(np.arange(n), idx.item() if idx.ndim else int(idx),
                          -1 - np.arange(numnew))
    else:
        v = vals
        numnew = idx.size
        where = np.insert(np.arange(n), idx, -1 - np.arange(numnew))
    old = np.flatnonzero(where >= 0)
    new = np.empty(numnew, np.int64)
    new[-1 - where[where < 0]] = np.flatnonzero(where < 0)
    shape = list(a.shape)
    shape[axis] = n + numnew
    dt = a.dtype
    out = _array.empty(tuple(shape), dt, context=ctx)
    if n:
        out[_along(a.ndim, axis, _array.asarray(old, context=ctx))] = a
    if numnew:
        out[_along(a.ndim, axis, _array.asarray(new, context=ctx))] = \
            v if v.dtype == dt else v.astype(dt)
    return out


def resize(a, new_shape):
    """vp.resize(a, new_shape): numpy.resize: a new array of new_shape
    filled with a's elements repeated in order (zeros when a is empty)."""
    if not _res(a):
        return np.resize(a, new_shape)
    shape = (new_shape,) if np.ndim(new_shape) == 0 else tuple(new_shape)
    shape = tuple(operator.index(s) for s in shape)
    if builtins.any(s < 0 for s in shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    total = int(np.prod(shape, dtype=np.int64))
    flat = a.ravel()
    if flat.size == 0 or total == 0:
        return _array.zeros(shape, a.dtype, context=a._ctx)
    return _take(flat, np.arange(total) % flat.size, 0).reshape(shape)


def compress(condition, a, axis=None, out=None):
    """vp.compress(condition, a, axis=None, out=None): numpy.compress:
    the slices of a along axis (None: flattened) where condition (1-D,
    possibly shorter than the axis) is true."""
    if not _res(condition, a):
        return np.compress(condition, a, axis, out)
    c = np.asarray(_host(condition))
    if c.ndim != 1:
        raise ValueError("condition must be a 1-d array")
    x = a.ravel() if axis is None or a.ndim == 0 else a  # NumPy: a 0-d a is 1-D
    ax = 0 if axis is None else _shapeops._axis(axis, x.ndim, "compress")
    keep = np.flatnonzero(c)
    if keep.size and keep[-1] >= x.shape[ax]:
        raise IndexError(f"index {keep[-1]} is out of bounds for axis {ax} with size "
                         f"{x.shape[ax]}")
    r = _take(x, keep, ax)
    if out is not None:
        from . import _numeric
        _numeric.copyto(out, r)
        return out
    return r


def extract(condition, arr):
    """vp.extract(condition, arr): numpy.extract: arr's elements where
    condition is true (both flattened; condition's length may be shorter)."""
    if not _res(condition, arr):
        return np.extract(condition, arr)
    ctx = _array.common_context("vp.extract", (condition, arr))
    c = _asnd(condition, ctx).ravel()
    x = _asnd(arr, ctx).ravel()
    from . import _stats
    idx = _stats.flatnonzero(c)
    return x[idx]


def put(a, ind, v, mode="raise"):
    """vp.put(a, ind, v, mode='raise'): numpy.put on the device: a.flat[ind]
    = v (v repeated over ind; mode 'raise', 'wrap' or 'clip' as NumPy's).
    a must be a resident array (written in place)."""
    if not isinstance(a, _nd):
        return np.put(a, _host(ind), _host(v), mode)
    ind = np.asarray(_host(ind), np.int64).ravel()
    n = a.size
    if mode == "raise":
        bad = (ind < -n) | (ind >= n)
        if bad.any():
            raise IndexError(f"index {ind[bad][0]} is out of bounds for axis 0 with size {n}")
        ind = np.where(ind < 0, ind + n, ind)
    elif mode == "wrap":
        ind = ind % n if n else ind
    elif mode == "clip":
        ind = np.clip(ind, 0, n - 1)
    else:
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    if ind.size == 0:
        return None
    vals = _asnd(v, a._ctx).ravel()
    if vals.size == 0:
        return None
    vals = _take(vals, np.arange(ind.size) % vals.size, 0)
    from . import _numeric
    flat = a.reshape((n,)) if a.contiguous else None
    if flat is None:
        raise ValueError("vp.put: a must be contiguous (NumPy writes a.flat; take a copy, "
                         "put into it, and copy back)")
    # last write wins for repeated indices, as NumPy's sequential loop
    last = {int(i): k for k, i in enumerate(ind)}
    pos = np.fromiter(last.keys(), np.int64, len(last))
    src = np.fromiter(last.values(), np.int64, len(last))
    flat[_array.asarray(pos, context=a._ctx)] = _numeric._asnd(
        _take(vals, src, 0), a._ctx).astype(a.dtype)
    return None


def cumulative_sum(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    """vp.cumulative_sum(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    the array API's running sum (NumPy 2.1): vp.cumsum of x along axis
    (required unless x is 1-D or 0-d), in dtype when given, into out when
    given; include_initial=True puts a 0 first along axis."""
    return _cumulative("cumulative_sum", _reduce.cumsum, 0, x, axis, dtype, out,
                       include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    """vp.cumulative_prod(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    the array API's running product: vp.cumprod of x along axis (required
    unless x is 1-D or 0-d), in dtype when given, into out when given;
    include_initial=True puts a 1 first along axis."""
    return _cumulative("cumulative_prod", _reduce.cumprod, 1, x, axis, dtype, out,
                       include_initial)


def _cumulative(name, scan, init, x, axis, dtype, out, include_initial):
    if not isinstance(x, _nd):
        return getattr(np, name)(x, axis=axis, dtype=dtype, out=out,
                                 include_initial=include_initial)
    if x.ndim == 0:
        x = x.reshape((1,))
    if axis is None:
        if x.ndim > 1:
            raise ValueError(f"For arrays which have more than one dimension ``axis`` "
                             f"argument is required.")
        axis = 0
    axis = _shapeops._axis(axis, x.ndim, name)
    r = scan(x, axis=axis, dtype=dtype)
    if include_initial:
        shape = list(r.shape)
        shape[axis] = 1
        first = _array.full(tuple(shape), init, r.dtype, context=x._ctx)
        r = _shapeops.concatenate([first, r], axis=axis)
    if out is not None:
        from . import _numeric
        _numeric.copyto(out, r)
        return out
    return r


def unstack(x, /, *, axis=0):
    """vp.unstack: the views x[..., i, ...] along axis, as a tuple."""
    if not isinstance(x, _nd):
        return np.unstack(x, axis=axis)
    if x.ndim == 0:
        raise ValueError("Input array must be at least 1-d.")
    axis = _shapeops._axis(axis, x.ndim, "unstack")
    return tuple(x[_along(x.ndim, axis, i)] for i in range(x.shape[axis]))


def matrix_transpose(x, /):
    """vp.matrix_transpose(x, /): numpy.matrix_transpose: x with its last two
    axes swapped, a view (ValueError below two dimensions, as NumPy's)."""
    from . import linalg
    return linalg.matrix_transpose(x)


UniqueAllResult = collections.namedtuple("UniqueAllResult",
                                         ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = collections.namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = collections.namedtuple("UniqueInverseResult",
                                             ["values", "inverse_indices"])


def _unique(x, **kw):
    from . import _sort
    return _sort.unique(x, equal_nan=False, **kw)


def unique_all(x):
    """vp.unique_all (the array API's): values (sorted), the index of each
    one's first occurrence, the inverse indices (x's shape), the counts."""
    if not isinstance(x, _nd):
        return np.unique_all(x)
    v, i, inv, c = _unique(x, return_index=True, return_inverse=True, return_counts=True)
    return UniqueAllResult(v, i, inv.reshape(tuple(x.shape)), c)


def unique_counts(x):
    """vp.unique_counts(x): the array API's unique_counts on the device: the
    distinct values of x (sorted) and how often each occurs, as NumPy's
    UniqueCountsResult(values, counts)."""
    if not isinstance(x, _nd):
        return np.unique_counts(x)
    return UniqueCountsResult(*_unique(x, return_counts=True))


def unique_inverse(x):
    """vp.unique_inverse: values (sorted) and the inverse indices (x's shape)."""
    if not isinstance(x, _nd):
        return np.unique_inverse(x)
    v, inv = _unique(x, return_inverse=True)
    return UniqueInverseResult(v, inv.reshape(tuple(x.shape)))


def unique_values(x):
    """vp.unique_values(x): the array API's unique_values on the device: the
    distinct values of x (sorted here; NumPy's order is unspecified)."""
    if not isinstance(x, _nd):
        return np.unique_values(x)
    return _unique(x)


def isposinf(x, out=None):
    """vp.isposinf(x, out=None): numpy.isposinf on the device: a bool array,
    True where x is +inf (isinf and not signbit); written into out when given."""
    return _inf_sign("isposinf", x, out, False)


def isneginf(x, out=None):
    """vp.isneginf(x, out=None): numpy.isneginf on the device: a bool array,
    True where x is -inf (isinf and signbit); written into out when given."""
    return _inf_sign("isneginf", x, out, True)


def _inf_sign(name, x, out, neg):
    if not _res(x, out):
        return getattr(np, name)(x, out)
    if x.dtype.kind == "c":
        raise TypeError(f"This operation is not supported for complex values because it "
                        f"would be ambiguous.")
    s = _ufunc.signbit(x)
    r = _ufunc.logical_and(_ufunc.isinf(x), s if neg else _ufunc.logical_not(s))
    if out is not None:
        from . import _numeric
        _numeric.copyto(out, r)
        return out
    return r


def fix(x, out=None):
    """vp.fix(x, out=None): numpy.fix on the device: x rounded toward zero,
    keeping x's dtype (integers unchanged); written into out when given."""
    if not _res(x, out):
        return np.fix(x, out)
    r = _ufunc.trunc(x)
    if r.dtype != x.dtype and x.dtype.kind in "iub":
        r = r.astype(x.dtype)
    if out is not None:
        from . import _numeric
        _numeric.copyto(out, r)
        return out
    return r


def sinc(x):
    """vp.sinc: sin(pi x) / (pi x), 1 at 0 (NumPy's formula: pi * x with
    0 replaced by 1e-20)."""
    if not _res(x):
        return np.sinc(x)
    if x.dtype.kind in "iub":
        x = x.astype(np.float64)
    y = _ufunc.multiply(np.pi, _ufunc.where(_ufunc.equal(x, 0), np.asarray(1.0e-20, x.dtype)
                                            if x.dtype.kind == "f" else 1.0e-20, x))
    return _ufunc.divide(_ufunc.sin(y), y)


def diagflat(v, k=0):
    """vp.diagflat(v, k=0): numpy.diagflat on the device: a 2-D array with the
    flattened input v on diagonal k (k > 0 above the main one, k < 0 below)."""
    if not _res(v):
        return np.diagflat(v, k)
    from . import _numeric
    return _numeric.diag(v.ravel(), k)


def rollaxis(a, axis, start=0):
    """vp.rollaxis: axis rolled back until it lies before start (a view)."""
    if not _res(a):
        return np.rollaxis(a, axis, start)
    n = a.ndim
    axis = _shapeops._axis(axis, n, "rollaxis")
    if start < 0:
        start += n
    if not 0 <= start < n + 1:
        raise np.exceptions.AxisError(f"'start' arg requires {-n} <= start < {n + 1}, but "
                                      f"{start} was passed in")
    if axis < start:
        start -= 1
    if axis == start:
        return a[...]
    axes = list(range(n))
    axes.remove(axis)
    axes.insert(start, axis)
    return a.transpose(axes)


def row_stack(tup, *, dtype=None, casting="same_kind"):
    """vp.row_stack(tup, *, dtype=None, casting='same_kind'): vp.vstack of the
    arrays in tup (dtype and casting as vstack's); NumPy 2 deprecates the
    name, and this warns as it does (DeprecationWarning)."""
    import warnings
    warnings.warn("`row_stack` alias is deprecated. Use `np.vstack` directly.",
                  DeprecationWarning, stacklevel=2)
    return _shapeops.vstack(tup, dtype=dtype, casting=casting)


def dsplit(ary, indices_or_sections):
    """vp.dsplit(ary, indices_or_sections): numpy.dsplit: ary (3 or more
    dimensions) split along its third axis into views, by a number of
    equal sections or a list of split indices (indices_or_sections)."""
    if not _res(ary):
        return np.dsplit(ary, indices_or_sections)
    if ary.ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return _shapeops.split(ary, indices_or_sections, 2)


def _indices_from(name, arr, *args):
    a = arr
    if not isinstance(a, _nd):
        return getattr(np, name)(a, *args)
    if a.ndim != 2 and name != "diag_indices_from":
        raise ValueError("input array must be 2-d")
    host = getattr(np, name)(np.empty(tuple(a.shape), np.bool_), *args)
    return tuple(_array.asarray(h, context=a._ctx) for h in host)


def tril_indices_from(arr, k=0):
    """vp.tril_indices_from(arr, k=0): numpy.tril_indices_from: the (row,
    column) indices of the lower triangle of the 2-D array arr, diagonal
    offset k, as resident index arrays."""
    return _indices_from("tril_indices_from", arr, k)


def triu_indices_from(arr, k=0):
    """vp.triu_indices_from(arr, k=0): numpy.triu_indices_from: the (row,
    column) indices of the upper triangle of the 2-D array arr, diagonal
    offset k, as resident index arrays."""
    return _indices_from("triu_indices_from", arr, k)


def diag_indices_from(arr):
    """vp.diag_indices_from(arr): numpy.diag_indices_from: the indices of the
    main diagonal of the square n-d array arr, as resident index arrays."""
    return _indices_from("diag_indices_from", arr)


def ix_(*args):
    """vp.ix_: the open mesh of 1-D sequences (resident views reshaped so
    that they broadcast against each other; booleans become indices)."""
    if not _res(*args):
        return np.ix_(*args)
    ctx = _array.common_context("vp.ix_", args)
    out = []
    nd = len(args)
    for k, x in enumerate(args):
        x = _asnd(x, ctx)
        if x.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if x.dtype == np.bool_:
            from . import _stats
            x = _stats.flatnonzero(x)
        out.append(x.reshape((1,) * k + (x.shape[0],) + (1,) * (nd - k - 1)))
    return tuple(out)


def iscomplexobj(x):
    """vp.iscomplexobj(x): numpy.iscomplexobj: True when x's dtype is complex
    (a Python bool, from the metadata: nothing is read back)."""
    return np.dtype(x.dtype).kind == "c" if isinstance(x, _nd) else np.iscomplexobj(x)


def isrealobj(x):
    """vp.isrealobj(x): numpy.isrealobj: True when x's dtype is not complex
    (a Python bool, from the metadata: nothing is read back)."""
    return not iscomplexobj(x)


def iscomplex(x):
    """vp.iscomplex(x): numpy.iscomplex on the device: a resident bool array,
    True where x's imaginary part is nonzero (all False for a real dtype)."""
    if not isinstance(x, _nd):
        return np.iscomplex(x)
    if x.dtype.kind != "c":
        return _array.zeros(tuple(x.shape), np.bool_, context=x._ctx)
    from . import _complex
    return _ufunc.not_equal(_complex.imag(x), 0)


def real_if_close(a, tol=100):
    """vp.real_if_close(a, tol=100): numpy.real_if_close: a's real part (a
    view) when every imaginary part is below tol (tol > 1: that many of
    the dtype's machine epsilons), else a itself; real input is returned as
    it is. One value is read back (the decision), as NumPy's result dtype
    depends on the values."""
    if not isinstance(a, _nd):
        return np.real_if_close(a, tol)
    if a.dtype.kind != "c":
        return a
    from . import _complex
    if tol > 1:
        tol = np.finfo(a.dtype).eps * tol
    small = _reduce.all(_ufunc.less(_ufunc.absolute(_complex.imag(a)), tol))
    return _complex.real(a) if bool(small) else a


def isreal(x):
    """vp.isreal(x): numpy.isreal on the device: a resident bool array, True
    where x's imaginary part is zero (all True for a real dtype)."""
    if not isinstance(x, _nd):
        return np.isreal(x)
    return _ufunc.logical_not(iscomplex(x))


def may_share_memory(a, b, /, max_work=None):
    """vp.may_share_memory(a, b, /, max_work=None): numpy.may_share_memory for
    resident arrays: True when a and b are views of one buffer whose byte
    ranges overlap (NumPy's bounds test; max_work is accepted and unused);
    a host array never shares a device buffer (False)."""
    if not (isinstance(a, _nd) or isinstance(b, _nd)):
        return np.may_share_memory(a, b, max_work)
    return isinstance(a, _nd) and isinstance(b, _nd) and _array.overlaps(a, b)


def shares_memory(a, b, /, max_work=None):
    """vp.shares_memory(a, b, /, max_work=None): numpy.shares_memory for
    resident arrays: True when a and b have a byte in common (exact: each
    element's bytes compared on the host; max_work is accepted and unused)."""
    if not (isinstance(a, _nd) or isinstance(b, _nd)):
        return np.shares_memory(a, b, max_work)
    if not may_share_memory(a, b):
        return False

    def touched(x):
        isz = x._sdtype.itemsize
        st = np.asarray(_array.elem_strides(x), np.int64)
        idx = np.indices(tuple(x.shape)).reshape(x.ndim, -1)
        first = x._offset + (st[:, None] * idx).sum(0)
        return set((first[:, None] * isz + np.arange(isz)).ravel().tolist())
    return bool(touched(a) & touched(b))


def _poly1d_in(name, *ps):
    if not _res(*ps):
        return None
    ctx = _array.common_context(f"vp.{name}", ps)
    out = []
    for p in ps:
        p = _asnd(p, ctx)
        if p.ndim == 0 and name in ("polyadd", "polysub", "polymul"):
            p = p.reshape(1)  # NumPy's atleast_1d there
        if p.ndim != 1:
            raise ValueError(f"vp.{name}: coefficients must be 1-D (poly1d is not supported)")
        out.append(p)
    return out


def polyadd(a1, a2):
    """vp.polyadd(a1, a2): numpy.polyadd on the device: the sum of the
    polynomials a1 and a2 (1-D coefficient arrays, highest power first; the
    shorter is padded with leading zeros)."""
    ps = _poly1d_in("polyadd", a1, a2)
    if ps is None:
        return np.polyadd(a1, a2)
    a, b = ps
    n = builtins.max(a.shape[0], b.shape[0])
    dt = np.result_type(a.dtype, b.dtype)

    def pad(p):
        return p.astype(dt) if p.shape[0] == n else _shapeops.concatenate(
            [_array.zeros((n - p.shape[0],), dt, context=p._ctx), p.astype(dt)])
    return _ufunc.add(pad(a), pad(b))


def polysub(a1, a2):
    """vp.polysub(a1, a2): numpy.polysub on the device: the difference a1 - a2
    of two polynomials (1-D coefficient arrays, highest power first)."""
    ps = _poly1d_in("polysub", a1, a2)
    if ps is None:
        return np.polysub(a1, a2)
    return polyadd(ps[0], _ufunc.negative(ps[1]))


def polymul(a1, a2):
    """vp.polymul(a1, a2): numpy.polymul on the device: the product of the
    polynomials a1 and a2 (1-D coefficients, highest power first), by
    vp.convolve."""
    ps = _poly1d_in("polymul", a1, a2)
    if ps is None:
        return np.polymul(a1, a2)
    from . import _convolve
    return _convolve.convolve(*ps)


def polyder(p, m=1):
    """vp.polyder(p, m=1): numpy.polyder on the device: the m-th derivative of
    the polynomial p (1-D coefficients, highest power first; a constant's
    derivative is empty, as NumPy's)."""
    ps = _poly1d_in("polyder", p)
    if ps is None:
        return np.polyder(p, m)
    m = operator.index(m)
    if m < 0:
        raise ValueError("Order of derivative must be positive (see polyint)")
    p = ps[0]
    for _ in range(m):  # NumPy's: p[:-1] * arange(n, 0, -1) (a constant's is empty)
        n = p.shape[0] - 1
        p = _ufunc.multiply(p[:-1] if n > 0 else p[:0],
                            _array.asarray(np.arange(n, 0, -1), context=p._ctx))
    return p


def polyint(p, m=1, k=None):
    """vp.polyint(p, m=1, k=None): numpy.polyint on the device: the m-th
    antiderivative of the polynomial p (1-D coefficients, highest power
    first), with integration constants k (a scalar or m values; default 0)."""
    ps = _poly1d_in("polyint", p)
    if ps is None:
        return np.polyint(p, m, k)
    m = operator.index(m)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    ks = np.zeros(m) if k is None else np.atleast_1d(np.asarray(_host(k), dtype=float))
    if ks.size == 1 and m > 1:
        ks = ks[0] * np.ones(m)
    if ks.size < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    p = ps[0]
    for i in range(m):
        n = p.shape[0]
        q = _ufunc.true_divide(p, _array.asarray(np.arange(n, 0, -1).astype(np.float64),
                                                 context=p._ctx))
        p = _shapeops.concatenate([q, _array.asarray(np.asarray([ks[i]], q.dtype),
                                                     context=p._ctx)])
    return p


NAMES = ("delete", "insert", "resize", "compress", "extract", "put", "cumulative_sum",
         "cumulative_prod", "unstack", "matrix_transpose", "unique_all", "unique_counts",
         "unique_inverse", "unique_values", "isposinf", "isneginf", "fix", "sinc", "diagflat",
         "rollaxis", "row_stack", "dsplit", "tril_indices_from", "triu_indices_from",
         "diag_indices_from", "ix_", "iscomplex", "isreal", "iscomplexobj", "isrealobj",
         "may_share_memory", "shares_memory", "polyadd", "polysub", "polymul", "polyder",
         "polyint", "real_if_close")


# ---------------------------------------------------------------- NumPy 2 gufuncs

def _gufunc_out(name, r, out):
    """A gufunc's result written into out where given (NumPy's casting)."""
    if out is None:
        return r
    if isinstance(out, tuple):
        if len(out) != 1:
            raise TypeError(f"vp.{name}: out must be one array (or a tuple of one)")
        out = out[0]
    if not isinstance(out, _nd):
        raise TypeError(f"vp.{name}: out must be a vp.ndarray, got "
                        f"{type(out).__module__}.{type(out).__name__}")
    if tuple(out.shape) != tuple(r.shape):
        raise ValueError(f"vp.{name}: out has shape {tuple(out.shape)}, the result "
                         f"{tuple(r.shape)}")
    from . import _numeric
    _numeric.copyto(out, r, casting="same_kind")
    return out


def vecdot(x1, x2, /, out=None, *, axis=-1):
    """vp.vecdot(x1, x2, /, out=None, *, axis=-1): numpy.vecdot (NumPy 2's
    gufunc, (n),(n)->()) on the device: sum(conj(x1) * x2) over `axis` of
    the broadcast operands (vp.linalg.vecdot's), written into out when
    given. NumPy in -> NumPy out."""
    traced = _traced("vecdot", x1, x2, out)
    if not traced and not _res(x1, x2, out):
        return np.vecdot(x1, x2, out=out, axis=axis)
    from . import linalg
    return _gufunc_out("vecdot", linalg.vecdot(x1, x2, axis=axis), out)


def _traced(name, x1, x2, out, traces=True):
    """Whether an operand is one of vp.jit's tracers (which NumPy's gufunc
    would hand straight back here: a RecursionError); out= there, or a
    function without a traced form (traces=False), is a TypeError."""
    if not (_graph.is_traced(x1) or _graph.is_traced(x2)):
        return False
    if not traces:
        raise TypeError(f"vp.{name} is not supported inside vp.jit (vp.matmul is not traced); "
                        f"call it outside the function")
    if out is not None:
        raise TypeError(f"vp.{name}: out= inside vp.jit; return the result instead")
    return True


def _mat_vec(name, x1, x2, out, mat_first):
    """(matrix stack, vector stack) of matvec (mat_first) / vecmat, resident
    on one context, each checked for its least number of dimensions."""
    ctx = _array.common_context(f"vp.{name}", (x1, x2, out))
    y1, y2 = _asnd(x1, ctx), _asnd(x2, ctx)
    a, v = (y1, y2) if mat_first else (y2, y1)
    if a.ndim < 2 or v.ndim < 1:
        least = "x1 must have at least 2 dimensions and x2 at least 1" if mat_first else \
            "x1 must have at least 1 dimension and x2 at least 2"
        raise ValueError(f"vp.{name}: {least}, got {y1.ndim} and {y2.ndim}")
    return a, v


def matvec(x1, x2, /, out=None):
    """vp.matvec(x1, x2, /, out=None): numpy.matvec (NumPy 2.2's gufunc,
    (m,n),(n)->(m)) on the device: the matrix-vector products of the
    stacks x1 (..., m, n) and x2 (..., n), broadcast over the leading axes,
    by vp.matmul; written into out when given."""
    if not _traced("matvec", x1, x2, out, False) and not _res(x1, x2, out):
        return np.matvec(x1, x2, out=out)
    a, v = _mat_vec("matvec", x1, x2, out, True)
    from . import _matmul
    return _gufunc_out("matvec", _matmul.matmul(a, v[..., None])[..., 0], out)


def vecmat(x1, x2, /, out=None):
    """vp.vecmat(x1, x2, /, out=None): numpy.vecmat (NumPy 2.2's gufunc,
    (n),(n,m)->(m)) on the device: conj(x1) times the matrices x2, the
    stacks broadcast, by vp.matmul; written into out when given."""
    if not _traced("vecmat", x1, x2, out, False) and not _res(x1, x2, out):
        return np.vecmat(x1, x2, out=out)
    a, v = _mat_vec("vecmat", x1, x2, out, False)
    if v.dtype.kind == "c":
        from . import _complex
        v = _complex.conjugate(v)
    from . import _matmul
    return _gufunc_out("vecmat", _matmul.matmul(v[..., None, :], a)[..., 0, :], out)


# keywords NumPy passes to these gufuncs that ndarray.__array_ufunc__ forwards
vecdot._ufunc_kwargs = frozenset(("axis",))


def _bit_axis(name, a, axis):
    """a's data as (array with the packed/unpacked axis last, the axis)."""
    if axis is None:
        return a.reshape(-1), None
    ax = operator.index(axis)
    if not -a.ndim <= ax < a.ndim:
        raise np.exceptions.AxisError(ax, a.ndim)
    return _shapeops.moveaxis(a, ax % a.ndim, -1), ax % a.ndim


def _bit_weights(bitorder, name):
    if bitorder not in ("big", "little"):
        raise ValueError(f"'order' must be either 'little' or 'big' (vp.{name}: got "
                         f"bitorder={bitorder!r})")
    w = np.array([128, 64, 32, 16, 8, 4, 2, 1], np.uint8)
    return w if bitorder == "big" else w[::-1].copy()


def packbits(a, /, axis=None, bitorder="big"):
    """vp.packbits(a, /, axis=None, bitorder='big'): numpy.packbits on the
    device: each run of 8 elements of a (integers or bools; nonzero is 1)
    along axis (the flattened a for None) packed into one uint8, the last
    byte padded with zero bits; bitorder 'big' puts the first element in
    the top bit, 'little' in the bottom one. NumPy in -> NumPy out.

        >>> vp.packbits(vp.asarray(np.array([1, 0, 1, 1, 0, 0, 0, 1, 1]))).numpy()
        array([177, 128], dtype=uint8)
    """
    if not _res(a):
        return np.packbits(a, axis=axis, bitorder=bitorder)
    if np.dtype(a.dtype).kind not in "biu":
        raise TypeError(f"Expected an input array of integer or boolean data type "
                        f"(vp.packbits: got {np.dtype(a.dtype).name})")
    w = _bit_weights(bitorder, "packbits")
    x, ax = _bit_axis("packbits", a, axis)
    n = x.shape[-1]
    bits = _ufunc.not_equal(x, 0).astype(np.uint8)
    pad = (-n) % 8
    if pad:
        z = _array.zeros(tuple(x.shape[:-1]) + (pad,), np.uint8, context=a._ctx)
        bits = _shapeops.concatenate([bits, z], axis=-1)
    groups = bits.reshape(tuple(x.shape[:-1]) + ((n + pad) // 8, 8))
    w = _array.asarray(w, context=a._ctx)
    r = _reduce.sum(_ufunc.multiply(groups, w), axis=-1, dtype=np.uint8)
    return r if ax is None else _shapeops.moveaxis(r, -1, ax)


def unpackbits(a, /, axis=None, count=None, bitorder="big"):
    """vp.unpackbits(a, /, axis=None, count=None, bitorder='big'):
    numpy.unpackbits on the device: each uint8 of a along axis (the
    flattened a for None) as 8 uint8 0 / 1 elements, top bit first for
    'big'; count keeps that many of them (negative: drops them from the
    end; past the end: pads with zeros). NumPy in -> NumPy out.

        >>> vp.unpackbits(vp.asarray(np.array([177], np.uint8))).numpy()
        array([1, 0, 1, 1, 0, 0, 0, 1], dtype=uint8)
    """
    if not _res(a):
        return np.unpackbits(a, axis=axis, count=count, bitorder=bitorder)
    if np.dtype(a.dtype) != np.uint8:
        raise TypeError(f"Expected an input array of unsigned byte data type (vp.unpackbits: "
                        f"got {np.dtype(a.dtype).name})")
    _bit_weights(bitorder, "unpackbits")
    x, ax = _bit_axis("unpackbits", a, axis)
    shifts = np.arange(7, -1, -1, dtype=np.uint8) if bitorder == "big" else \
        np.arange(8, dtype=np.uint8)
    s = _array.asarray(shifts, context=a._ctx)
    bits = _ufunc.bitwise_and(_ufunc.right_shift(x[..., None], s), np.uint8(1))
    total = x.shape[-1] * 8
    bits = bits.reshape(tuple(x.shape[:-1]) + (total,))
    if count is not None:
        c = operator.index(count)
        if c < 0 and -c > total:
            raise ValueError("-count larger than number of elements")
        c = c if c >= 0 else total + c
        if c <= total:
            bits = bits[..., :c]
        else:
            z = _array.zeros(tuple(x.shape[:-1]) + (c - total,), np.uint8, context=a._ctx)
            bits = _shapeops.concatenate([bits, z], axis=-1)
    return bits if ax is None else _shapeops.moveaxis(bits, -1, ax)
