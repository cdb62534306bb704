"""Index helpers a CuPy user reaches for: take_along_axis, put_along_axis,
unravel_index, ravel_multi_index, indices, rot90, fill_diagonal
(docs/python-api.md, "More NumPy functions", is the reference).

Each is composed from the array path: a gather or scatter through
integer-array indexing (_indexing), views (flip, transpose) and ufuncs on
int64 index arrays. Resident in -> resident out; NumPy in -> NumPy's own
function. The index arrays built from shapes alone (aranges) are small
host arrays; the data never leaves the device. Where NumPy raises for an
index out of range and the index is resident, one bool is read back (the
GPU gather would clamp, the scatter drop).
"""
import operator

import numpy as np

from . import _array, _indexing, _reduce, _shapeops, _ufunc

_nd = _array.ndarray
_I64 = np.dtype(np.int64)
_res = _shapeops._resident


def _asnd(x, ctx):
    return x if isinstance(x, _nd) else _array.asarray(np.asarray(x), context=ctx)


def _any_out_of_range(idx, n):
    """True when resident int index array idx has a value outside [-n, n)
    (one bool read back)."""
    if idx.size == 0:
        return False
    return bool(_reduce.any(_ufunc.logical_or(_ufunc.less(idx, -n),
                                              _ufunc.greater_equal(idx, n))))


def _along_axis_index(arr, indices, axis, name):
    """NumPy's fancy index for *_along_axis: the other axes as aranges
    shaped to broadcast against `indices` on `axis`."""
    if np.dtype(indices.dtype).kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    if indices.ndim != arr.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    ax = _shapeops._axis(axis, arr.ndim, name)
    n = arr.shape[ax]
    if isinstance(indices, _nd) and _any_out_of_range(indices, n):
        raise IndexError(f"vp.{name}: an index is out of bounds for axis {ax} with size {n}")
    key = []
    for d in range(arr.ndim):
        if d == ax:
            key.append(indices)
        else:
            shape = [1] * arr.ndim
            shape[d] = arr.shape[d]
            key.append(np.arange(arr.shape[d], dtype=np.int64).reshape(shape))
    return tuple(key)


def take_along_axis(arr, indices, axis=-1):
    """vp.take_along_axis(arr, indices, axis=-1):
    numpy.take_along_axis on the GPU: arr[..., indices, ...] pairing
    `indices` with the other axes' positions (the other axes broadcast
    between arr and indices), e.g. with the result of argsort. `indices`
    is an integer array of arr's ndim; axis=None takes from the flattened
    arr with 1-D `indices`. The result has arr's dtype and the broadcast
    shape.

        >>> x = vp.asarray(np.array([[3, 1, 2], [9, 7, 8]], np.float32))
        >>> vp.take_along_axis(x, vp.argsort(x, axis=1), axis=1).numpy()
        array([[1., 2., 3.], [7., 8., 9.]], dtype=float32)
    """
    if not _res(arr, indices):
        return np.take_along_axis(arr, indices, axis)
    ctx = _array.common_context("vp.take_along_axis", (arr, indices))
    arr = _asnd(arr, ctx)
    indices = indices if isinstance(indices, _nd) else np.asarray(indices)
    if axis is None:
        if indices.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        arr, axis = arr.reshape(-1), 0
    return arr[_along_axis_index(arr, indices, axis, "take_along_axis")]


def put_along_axis(arr, indices, values, axis):
    """vp.put_along_axis(arr, indices, values, axis):
    numpy.put_along_axis on the GPU, in place: arr[..., indices, ...] =
    values (values broadcast to the index's shape; converted to arr's
    dtype); returns None. arr must be resident (or NumPy, then NumPy's
    own function writes it); a non-contiguous view is written through.
    axis=None writes the flattened arr, which must then be contiguous.
    Where an index repeats, which value lands is unspecified (NumPy: the
    last).

        >>> x = vp.zeros((2, 3), np.float32)
        >>> vp.put_along_axis(x, np.array([[2], [0]]), 5.0, axis=1)
        >>> x.numpy()
        array([[0., 0., 5.], [5., 0., 0.]], dtype=float32)
    """
    if not isinstance(arr, _nd):
        if _res(indices, values):
            raise TypeError("vp.put_along_axis: arr is a NumPy array but indices or values "
                            "is resident; write a resident arr (vp.asarray) instead")
        return np.put_along_axis(arr, indices, values, axis)
    _array.check_writable(arr, "put_along_axis")
    indices = indices if isinstance(indices, _nd) else np.asarray(indices)
    target = arr
    if axis is None:
        if indices.ndim != 1:
            raise ValueError("when axis=None, `indices` must have a single dimension.")
        if not arr.contiguous:
            raise NotImplementedError("vp.put_along_axis(axis=None) on a non-contiguous view; "
                                      "pass a contiguous arr or an axis")
        target, axis = arr.reshape(-1), 0
    target[_along_axis_index(target, indices, axis, "put_along_axis")] = values


def _shape_arg(dims, name):
    try:
        dims = tuple(operator.index(d) for d in (dims if np.iterable(dims) else (dims,)))
    except TypeError:
        raise TypeError(f"vp.{name}: `{'shape' if name == 'unravel_index' else 'dims'}` must "
                        f"be a sequence of integers, got {dims!r}") from None
    if any(d < 0 for d in dims):
        raise ValueError(f"vp.{name}: dimensions must be non-negative, got {dims}")
    return dims


def _order_strides(dims, order, name):
    if order not in ("C", "F"):
        raise ValueError(f"vp.{name}: order must be 'C' or 'F', got {order!r}")
    strides, s = [0] * len(dims), 1
    for d in (range(len(dims) - 1, -1, -1) if order == "C" else range(len(dims))):
        strides[d] = s
        s *= dims[d]
    return strides, s


def unravel_index(indices, shape, order="C"):
    """vp.unravel_index(indices, shape, order='C'):
    numpy.unravel_index on the GPU: the tuple of int64 coordinate arrays
    (one per dimension of `shape`, each of indices' shape) of the flat
    `indices` (integers in [0, prod(shape))) in an array of that shape,
    C (row-major) or F order. Out-of-range indices raise ValueError (for
    resident indices one bool is read back).

        >>> r, c = vp.unravel_index(vp.asarray(np.array([1, 5])), (2, 3))
        >>> r.numpy(), c.numpy()
        (array([0, 1]), array([1, 2]))
    """
    if not isinstance(indices, _nd):
        return np.unravel_index(indices, shape, order=order)
    dims = _shape_arg(shape, "unravel_index")
    strides, size = _order_strides(dims, order, "unravel_index")
    if np.dtype(indices.dtype).kind not in "iub":
        raise TypeError(f"only int indices permitted, got {indices.dtype.name}")
    idx = indices.astype(_I64)
    if idx.size and bool(_reduce.any(_ufunc.logical_or(_ufunc.less(idx, 0),
                                                       _ufunc.greater_equal(idx, size)))):
        raise ValueError(f"vp.unravel_index: an index is out of bounds for array with size "
                         f"{size}")
    return tuple(_ufunc.remainder(_ufunc.floor_divide(idx, s), d) if d else idx * 0
                 for d, s in zip(dims, strides))


_MODES = ("raise", "wrap", "clip")


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """vp.ravel_multi_index(multi_index, dims, mode='raise', order='C'):
    numpy.ravel_multi_index on the GPU: the int64 flat indices into an
    array of shape `dims` of the coordinate arrays in `multi_index` (one
    integer array per dimension; they broadcast). mode 'raise' (an
    out-of-range coordinate raises ValueError; resident coordinates cost
    one bool read back), 'wrap' or 'clip', one for all dimensions or a
    sequence of one per dimension.

        >>> r, c = vp.asarray(np.array([0, 1])), vp.asarray(np.array([2, 1]))
        >>> vp.ravel_multi_index((r, c), (2, 3)).numpy()
        array([2, 4])
    """
    multi_index = tuple(multi_index)
    if not _res(*multi_index):
        return np.ravel_multi_index(multi_index, dims, mode=mode, order=order)
    dims = _shape_arg(dims, "ravel_multi_index")
    if len(multi_index) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    if len(modes) != len(dims) or any(m not in _MODES for m in modes):
        raise ValueError(f"vp.ravel_multi_index: mode must be one of {_MODES} (or a sequence of "
                         f"them, one per dimension), got {mode!r}")
    strides, _ = _order_strides(dims, order, "ravel_multi_index")
    ctx = _array.common_context("vp.ravel_multi_index", multi_index)
    coords = [_asnd(c, ctx) for c in multi_index]
    for c in coords:
        if np.dtype(c.dtype).kind not in "iub":
            raise TypeError(f"only int indices permitted, got {c.dtype.name}")
    shape = np.broadcast_shapes(*(tuple(c.shape) for c in coords))
    out = _array.zeros(shape, _I64, context=ctx)
    for c, d, s, m in zip(coords, dims, strides, modes):
        c = c.astype(_I64)
        if m == "wrap":
            c = _ufunc.remainder(c, d) if d else c
        elif m == "clip":
            c = _ufunc.clip(c, 0, max(d - 1, 0))
        elif c.size and bool(_reduce.any(_ufunc.logical_or(_ufunc.less(c, 0),
                                                           _ufunc.greater_equal(c, d)))):
            raise ValueError("invalid entry in coordinates array")
        out = _ufunc.add(out, _ufunc.multiply(c, s))
    return out


def indices(dimensions, dtype=int, sparse=False):
    """vp.indices(dimensions, dtype=int, sparse=False):
    numpy.indices on the GPU: a resident array of shape (len(dimensions),
    *dimensions) whose i-th slice holds the i-th coordinate of each
    position (dtype int64 by default); with sparse=True a tuple of
    arrays of shape (1, .., d_i, .., 1) instead.

        >>> vp.indices((2, 3))[1].numpy()
        array([[0, 1, 2], [0, 1, 2]])
    """
    dims = _shape_arg(dimensions, "indices")
    dt = np.dtype(dtype)
    n = len(dims)
    parts = []
    for i, d in enumerate(dims):
        shape = (1,) * i + (d,) + (1,) * (n - i - 1)
        parts.append(_array.arange(d, dtype=dt).reshape(shape))
    if sparse:
        return tuple(parts)
    if n == 0:
        return _array.empty((0,), dt)
    return _shapeops.stack([_shapeops.broadcast_to(p, dims) for p in parts])


def rot90(m, k=1, axes=(0, 1)):
    """vp.rot90(m, k=1, axes=(0, 1)):
    numpy.rot90 on the GPU: m rotated by 90 degrees k times in the plane
    of `axes` (from the first axis towards the second); a view of m (flip
    and transpose), as NumPy's.

        >>> vp.rot90(vp.asarray(np.array([[1, 2], [3, 4]]))).numpy()
        array([[2, 4], [1, 3]])
    """
    if not isinstance(m, _nd):
        return np.rot90(m, k, axes)
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == m.ndim:
        raise ValueError("Axes must be different.")
    if not (-m.ndim <= axes[0] < m.ndim and -m.ndim <= axes[1] < m.ndim):
        raise ValueError(f"Axes={axes} out of range for array of ndim={m.ndim}.")
    k = operator.index(k) % 4
    if k == 0:
        return m[...]
    if k == 2:
        return _shapeops.flip(_shapeops.flip(m, axes[0]), axes[1])
    perm = list(range(m.ndim))
    a0, a1 = axes[0] % m.ndim, axes[1] % m.ndim
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return _indexing.transpose(_shapeops.flip(m, axes[1]), perm)
    return _shapeops.flip(_indexing.transpose(m, perm), axes[1])


def fill_diagonal(a, val, wrap=False):
    """vp.fill_diagonal(a, val, wrap=False):
    numpy.fill_diagonal on the GPU, in place: a[i, i, ..., i] = val for
    every i (a is at least 2-D; beyond 2-D all dimensions are equal). An
    array `val` is used in flat order and repeated as NumPy's a.flat
    assignment does; wrap=True continues a tall matrix's diagonal after
    every N+1 rows, as NumPy's. Returns None.

        >>> x = vp.zeros((3, 3), np.int32)
        >>> vp.fill_diagonal(x, 7)
        >>> x.numpy()
        array([[7, 0, 0], [0, 7, 0], [0, 0, 7]], dtype=int32)
    """
    if not isinstance(a, _nd):
        if isinstance(val, _nd):
            raise TypeError("vp.fill_diagonal: a is a NumPy array but val is resident; "
                            "fill a resident a (vp.asarray) instead")
        return np.fill_diagonal(a, val, wrap)
    _array.check_writable(a, "fill_diagonal")
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    shape = tuple(a.shape)
    if a.ndim == 2:
        step = shape[1] + 1
        end = None if wrap else shape[1] * shape[1]
    else:
        if len(set(shape)) != 1:
            raise ValueError("All dimensions of input must be of equal length")
        step = 1 + int(np.cumprod(shape[:-1]).sum())
        end = None
    flat = np.arange(a.size, dtype=np.int64)[:end:step]
    if flat.size == 0:
        return
    key = np.unravel_index(flat, shape)
    if isinstance(val, _nd) or np.ndim(val) > 0:
        v = val if isinstance(val, _nd) else np.asarray(val)
        if v.size == 0:
            return
        val = _indexing.take(v.reshape(-1) if isinstance(v, _nd) else _asnd(v.ravel(), a._ctx),
                             np.arange(flat.size) % v.size)
    a[key] = val


NAMES = ("take_along_axis", "put_along_axis", "unravel_index", "ravel_multi_index", "indices",
         "rot90", "fill_diagonal")
