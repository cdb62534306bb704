"""Creation and shape operations on resident arrays (issue 19): eye,
identity, reshape, ravel, swapaxes, moveaxis, expand_dims, squeeze,
broadcast_to, flip (and fliplr/flipud), split (array_split, hsplit, vsplit),
concatenate, stack, hstack, vstack, dstack, column_stack, roll, tile, repeat,
pad. docs/python-api.md, "Shape operations, more ufuncs, statistics", says
which are views and how each copy runs.

Where NumPy returns a view, so does VulPy (strided_view over the same
buffer, _indexing.py); the rest make a new array and fill it on the device
with array-path copies through the views of source and destination
(_copy_many: one compile and one submission for several slabs), or a
gather (array.take) with index vectors NumPy computes on the host from the
shape alone. With no resident operand these are NumPy's own functions.
"""
import builtins
import operator

import numpy as np

from . import _array, _arrayops, _context, _graph, _indexing, _reduce, _stats, _ufunc
from . import _errors

_nd = _array.ndarray


def _traced(a):
    """Whether `a` is a vp.jit tracer (the view-like operations trace to
    array.reshape / array.transpose / array.broadcast)."""
    return isinstance(a, _graph.Traced)


def _resident(*xs):
    return builtins.any(isinstance(x, _nd) for x in xs)


def _axis(axis, ndim, name):
    return _errors.axis(axis, ndim, f"vp.{name}: axis")


def _axes(axis, ndim, name):
    items = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    out = tuple(_axis(a, ndim, name) for a in items)
    if len(set(out)) != len(out):
        raise ValueError(f"vp.{name}: repeated axis")
    return out


_strides = _array.elem_strides
_view = _indexing.strided_view


def _new(shape, dtype, like):
    """A new resident array on `like`'s context and memory kind whose every
    element the caller writes."""
    return _array._result(tuple(shape), np.dtype(dtype), like.memory, like._ctx)


def _copy_into(dst, src):
    """dst[...] = src on the device (a view of a new array; src resident or
    NumPy, broadcast to dst's shape)."""
    if dst.size:
        _arrayops.assign(dst, src)


def _float_pair(d, s):
    """(dst, src) of a complex dst as their float views (parts as a
    trailing axis of 2): the copy moves both parts of every element; src
    (NumPy data, a scalar, a real or complex array) is made dst's dtype
    first (the caller has checked the casting)."""
    C = _arrayops.COMPLEX
    if not isinstance(s, _nd):
        s = _array.asarray(np.asarray(s, d.dtype), context=d._ctx)
    elif s.dtype != d.dtype:
        s = s.astype(d.dtype)
    return C.fview(d), C.fview(s)


def _copy_many(pairs, name):
    """dst[...] = src for every (dst, src) pair in one array function (one
    compile, one submission; `fuse` makes a kernel per store). The dsts are
    disjoint views of one new array; the srcs do not overlap them."""
    pairs = [(d, s) for d, s in pairs if d.size]
    if pairs and pairs[0][0].dtype.kind == "c":
        pairs = [_float_pair(d, s) for d, s in pairs]
    if len(pairs) <= 1 or all(_arrayops.runs(d, s) for d, s in pairs):
        # one kernel for every length, offset and step (run-time views)
        for d, s in pairs:
            _arrayops.assign(d, s)
        return
    c = _arrayops.Call(name)
    for d, s in pairs:
        c.note(d)
        c.note(s)
    for d, s in pairs:
        v = c.g.broadcast(c.g.convert(c.operand(s, d.dtype), d.dtype), d.shape)
        b = c.g.buffer(("r", id(d._buf)), _array.storage_dtype(d.dtype), _arrayops.extent(d),
                       d._buf, "out")
        c.bind[b.name] = d._buf
        c.g.store(b, v, d._offset, d._estrides)
    c.run(lambda: None)


# ---------------------------------------------------------------- creation
def matrix_args(fname, N, M, k):
    """(N, M, k) of eye / tri: ints, M None meaning N; negative sizes a
    ValueError naming vp.<fname>."""
    N = operator.index(N)
    M = N if M is None else operator.index(M)
    if N < 0 or M < 0:
        raise ValueError(f"vp.{fname}: negative dimensions are not allowed ({N}, {M})")
    return N, M, operator.index(k)


def eye(N, M=None, k=0, dtype=np.float32, *, memory=None, context=None, device=None):
    """vp.eye(N, M=None, k=0, dtype=float32, *, memory=None, context=None,
    device=None):
    a resident N x M array (M None: square) with ones on diagonal k and
    zeros elsewhere (numpy.eye; VulPy's default dtype is float32, like
    vp.zeros; memory=, context= and device= as for vp.zeros). The ones are
    one fill of a strided view."""
    context = _context.with_device(device, context, "vp.eye")
    N, M, k = matrix_args("eye", N, M, k)
    out = _array.zeros((N, M), dtype, memory=memory, context=context)
    start = k if k >= 0 else -k * M
    n = builtins.max(0, builtins.min(M - k, N) if k >= 0 else builtins.min(N + k, M))
    if n > 0:
        diag = _nd(out._buf, (n,), out.dtype, out._ctx, start, (M + 1,), False)
        _arrayops.fill(diag, 1)
    return out


def identity(n, dtype=np.float32, *, memory=None, context=None):
    """vp.identity(n, dtype=float32, *, memory=None, context=None):
    vp.eye(n): the n x n identity matrix, resident; memory= and context= as
    for vp.zeros."""
    return eye(n, dtype=dtype, memory=memory, context=context)


# ---------------------------------------------------------------- views
def reshape(a, newshape=None, order="C", *, shape=None, copy=None):
    """vp.reshape(a, newshape=None, order='C', *, shape=None, copy=None):
    numpy.reshape: a view of a contiguous resident array (a copy of a
    strided view, as NumPy). order='F' reads and places the elements with
    the first index fastest (a.T reshaped to the reversed shape, then
    transposed back); 'A' is 'F' for a Fortran-contiguous a that is not
    C-contiguous, else 'C'. copy=True always copies, copy=False raises
    ValueError where a copy is needed."""
    shape = newshape if shape is None else shape
    if shape is None:
        raise TypeError("vp.reshape: give the new shape")
    if not isinstance(a, _nd) and not _traced(a):
        return np.reshape(a, shape, order=order, copy=copy)
    shape = (shape,) if np.ndim(shape) == 0 else tuple(shape)
    if _order(a, order, "reshape") == "C":
        r = a.reshape(shape)
    else:
        rev = tuple(range(a.ndim))[::-1]
        r = _transpose(_transpose(a, rev).reshape(shape[::-1]), tuple(range(len(shape)))[::-1])
    if _traced(a):
        return r
    if copy is False and not _shares_buffer(r, a):
        raise ValueError("Unable to avoid creating a copy while reshaping.")
    return r.copy() if copy and _shares_buffer(r, a) else r


def ravel(a, order="C"):
    """vp.ravel(a, order='C'): numpy.ravel: a 1-D view (a copy where the
    elements are not one run of the buffer in that order). order='F': the
    first index fastest; 'A': 'F' for a Fortran-contiguous a that is not
    C-contiguous; 'K': the axes in the order of their strides in memory
    (largest first, by magnitude; each read in its own direction), as
    NumPy's."""
    if not isinstance(a, _nd) and not _traced(a):
        return np.ravel(a, order=order)
    order = _order(a, order, "ravel", keep=True)
    if order == "F":
        return _transpose(a, tuple(range(a.ndim))[::-1]).ravel()
    if order == "K" and a.ndim > 1:
        st = [abs(x) for x in _array.elem_strides(a)]
        perm = tuple(sorted(range(a.ndim), key=lambda i: -st[i]))
        return _transpose(a, perm).ravel()
    return a.ravel()


def _shares_buffer(r, a):
    return r._buf is a._buf


def _order(a, order, what, keep=False):
    """reshape's / ravel's order= as 'C' or 'F' (ravel: 'K' kept, as the
    memory order; a traced array is C-ordered): 'A' is 'F' where a is
    Fortran-contiguous and not C-contiguous (NumPy's rule)."""
    if order is None:
        order = "C"
    allowed = ("C", "F", "A", "K") if keep else ("C", "F", "A")
    if not isinstance(order, str) or order.upper() not in allowed:
        raise ValueError(f"vp.{what}: order must be one of {', '.join(map(repr, allowed))} "
                         f"(got {order!r})")
    order = order.upper()
    if order in ("A", "K") and (_traced(a) or _array.c_contiguous(a)):
        return "C"
    if order == "A":
        st = _array.elem_strides(a)
        f = np.cumprod((1,) + tuple(a.shape[:-1])).tolist()
        return "F" if all(x == y or d == 1 for x, y, d in zip(st, f, a.shape)) else "C"
    return order


def swapaxes(a, axis1, axis2):
    """vp.swapaxes(a, axis1, axis2): numpy.swapaxes: a view with the two
    axes exchanged (AxisError for an axis out of range)."""
    if not isinstance(a, _nd) and not _traced(a):
        return np.swapaxes(a, axis1, axis2)
    i, j = _axis(axis1, a.ndim, "swapaxes"), _axis(axis2, a.ndim, "swapaxes")
    perm = list(range(a.ndim))
    perm[i], perm[j] = perm[j], perm[i]
    return _transpose(a, perm)


def moveaxis(a, source, destination):
    """vp.moveaxis(a, source, destination):
    numpy.moveaxis: a view."""
    if not isinstance(a, _nd) and not _traced(a):
        return np.moveaxis(a, source, destination)
    src = _axes(source, a.ndim, "moveaxis")
    dst = _axes(destination, a.ndim, "moveaxis")
    if len(src) != len(dst):
        raise ValueError("`source` and `destination` arguments must have the same number of "
                         "elements")
    order = [n for n in range(a.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _transpose(a, order)


def _transpose(a, perm):
    if _traced(a):
        return a.transpose(*perm) if perm else a
    return _indexing.transpose(a, perm)


def expand_dims(a, axis):
    """vp.expand_dims(a, axis):
    numpy.expand_dims: a view with new size-1 axes."""
    if not isinstance(a, _nd) and not _traced(a):
        return np.expand_dims(a, axis)
    nd = a.ndim + (len(axis) if isinstance(axis, (tuple, list)) else 1)
    axes = _axes(axis, nd, "expand_dims")
    if _traced(a):
        it = iter(a.shape)
        return a.reshape(tuple(1 if d in axes else next(it) for d in range(nd)))
    it_shape, it_st = iter(a.shape), iter(_strides(a))
    shape, st = [], []
    for d in range(nd):
        if d in axes:
            shape.append(1)
            st.append(0)
        else:
            shape.append(next(it_shape))
            st.append(next(it_st))
    return _view(a, shape, a._offset, st)


def squeeze(a, axis=None):
    """vp.squeeze(a, axis=None):
    numpy.squeeze: a view without (the given) size-1 axes."""
    if not isinstance(a, _nd) and not _traced(a):
        return np.squeeze(a, axis)
    if axis is None:
        axes = tuple(d for d, n in enumerate(a.shape) if n == 1)
    else:
        axes = _axes(axis, a.ndim, "squeeze")
        for d in axes:
            if a.shape[d] != 1:
                raise ValueError("cannot select an axis to squeeze out which has size not equal "
                                 "to one")
    keep = [d for d in range(a.ndim) if d not in axes]
    if _traced(a):
        return a.reshape(tuple(a.shape[d] for d in keep))
    st = _strides(a)
    return _view(a, [a.shape[d] for d in keep], a._offset, [st[d] for d in keep])


def broadcast_to(a, shape, subok=False):
    """vp.broadcast_to(a, shape, subok=False):
    numpy.broadcast_to: a view with stride 0 along the broadcast axes,
    read-only as NumPy's: a write into it, or into any view of it (b[0]),
    raises ValueError (_array.check_writable). subok has no meaning for
    resident arrays."""
    if not isinstance(a, _nd) and not _traced(a):
        return np.broadcast_to(a, shape, subok=subok)
    shape = (operator.index(shape),) if np.ndim(shape) == 0 else tuple(
        operator.index(s) for s in shape)
    if _traced(a):
        try:
            ok = np.broadcast_shapes(tuple(a.shape), shape) == shape
        except ValueError:
            ok = False
        if not ok:
            raise ValueError(f"vp.broadcast_to: cannot broadcast shape {tuple(a.shape)} to "
                             f"{shape}")
        a._t.stamp()
        return type(a)(a._t.g.broadcast(a._v, shape), a._t)
    if len(shape) < a.ndim or builtins.any(s < 0 for s in shape):
        raise ValueError(f"vp.broadcast_to: cannot broadcast a non-scalar to a scalar array"
                         if not shape else f"vp.broadcast_to: cannot broadcast shape {a.shape} "
                         f"to {shape}")
    pad = len(shape) - a.ndim
    st = _strides(a)
    out_st = [0] * pad
    for d, n in enumerate(a.shape):
        if n == shape[pad + d]:
            out_st.append(st[d])
        elif n == 1:
            out_st.append(0)
        else:
            raise ValueError(f"operands could not be broadcast together with remapped shapes "
                             f"[original->remapped]: {a.shape} and requested shape {shape}")
    # read-only as NumPy's, its views too, even where it repeats nothing
    return _array.mark_readonly(_view(a, shape, a._offset, out_st))


def broadcast_arrays(*args, subok=False):
    """vp.broadcast_arrays(*args, subok=False):
    numpy.broadcast_arrays: the arguments broadcast against each other, as
    a tuple of views (no copy; stride 0 along the broadcast axes). The
    views are read-only, as NumPy's future ones (NumPy 2 warns on a write):
    a write raises ValueError; write into a copy. An argument that needs no
    broadcasting comes back as itself, as in NumPy. NumPy arrays in: NumPy's
    broadcast_arrays. Raises ValueError for shapes that do not broadcast.

        >>> x, y = vp.broadcast_arrays(vp.arange(3), vp.arange(2)[:, None])
        >>> x.shape, y.shape
        ((2, 3), (2, 3))"""
    if not builtins.any(isinstance(a, _nd) for a in args):
        return tuple(np.broadcast_arrays(*args, subok=subok))
    ctx = _array.common_context("vp.broadcast_arrays", args)
    arrs = [a if isinstance(a, _nd) else _array.asarray(np.asarray(a), context=ctx) for a in args]
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrs))
    except ValueError:
        raise ValueError("vp.broadcast_arrays: shape mismatch: the arguments' shapes "
                         + ", ".join(str(a.shape) for a in arrs)
                         + " cannot be broadcast to a single shape") from None
    return tuple(a if a.shape == shape else broadcast_to(a, shape) for a in arrs)


def broadcast_shapes(*shapes):
    """vp.broadcast_shapes(*shapes): numpy.broadcast_shapes, the shape the
    given shapes broadcast to (ValueError when they do not)."""
    return np.broadcast_shapes(*shapes)


def flip(m, axis=None):
    """vp.flip(m, axis=None):
    numpy.flip: a view with negative strides along the axes."""
    if not isinstance(m, _nd):
        return np.flip(m, axis)
    axes = range(m.ndim) if axis is None else _axes(axis, m.ndim, "flip")
    st, off = _strides(m), m._offset
    for d in axes:
        if m.shape[d] > 0:
            off += (m.shape[d] - 1) * st[d]
        st[d] = -st[d]
    return _view(m, m.shape, off, st)


def fliplr(m):
    """vp.fliplr(m): numpy.fliplr: flip(m, 1), a view with the columns
    reversed (m needs two dimensions or more: ValueError otherwise)."""
    if isinstance(m, _nd) and m.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return flip(m, 1)


def flipud(m):
    """vp.flipud(m): numpy.flipud: flip(m, 0), a view with the rows
    reversed (m needs a dimension or more: ValueError otherwise)."""
    if isinstance(m, _nd) and m.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return flip(m, 0)


def array_split(ary, indices_or_sections, axis=0):
    """vp.array_split(ary, indices_or_sections, axis=0):
    numpy.array_split: a list of views."""
    if not isinstance(ary, _nd):
        return np.array_split(ary, indices_or_sections, axis)
    ax = _axis(axis, ary.ndim, "array_split")
    n = ary.shape[ax]
    if np.ndim(indices_or_sections) == 0:
        sections = operator.index(indices_or_sections)
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.")
        each, extra = divmod(n, sections)
        sizes = [each + 1] * extra + [each] * (sections - extra)
        bounds = np.concatenate([[0], np.cumsum(sizes)]).tolist()
    else:
        bounds = [0] + [operator.index(i) for i in indices_or_sections] + [n]
    pre = (slice(None),) * ax
    return [ary[pre + (slice(bounds[i], bounds[i + 1]),)] for i in range(len(bounds) - 1)]


def split(ary, indices_or_sections, axis=0):
    """vp.split(ary, indices_or_sections, axis=0):
    numpy.split: a list of views; equal sections or split points."""
    if not isinstance(ary, _nd):
        return np.split(ary, indices_or_sections, axis)
    if np.ndim(indices_or_sections) == 0:
        ax = _axis(axis, ary.ndim, "split")
        sections = operator.index(indices_or_sections)
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.")
        if ary.shape[ax] % sections:
            raise ValueError("array split does not result in an equal division")
    return array_split(ary, indices_or_sections, axis)


def hsplit(ary, indices_or_sections):
    """vp.hsplit(ary, indices_or_sections):
    numpy.hsplit: split along axis 1 (axis 0 for 1-D)."""
    if not isinstance(ary, _nd):
        return np.hsplit(ary, indices_or_sections)
    if ary.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return split(ary, indices_or_sections, 1 if ary.ndim > 1 else 0)


def vsplit(ary, indices_or_sections):
    """vp.vsplit(ary, indices_or_sections):
    numpy.vsplit: split along axis 0 (2-D or more)."""
    if not isinstance(ary, _nd):
        return np.vsplit(ary, indices_or_sections)
    if ary.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return split(ary, indices_or_sections, 0)


# ---------------------------------------------------------------- copies
def _shape_dtype(x):
    if isinstance(x, _nd):
        return tuple(x.shape), x.dtype
    h = np.asarray(x)
    return h.shape, h.dtype


def concatenate(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """vp.concatenate(arrays, axis=0, out=None, *, dtype=None, casting='same_kind'):
    numpy.concatenate: one new array (or out=), each input copied into
    its slab on the device. Inputs may mix resident and NumPy arrays (the
    NumPy ones are uploaded); the dtype is numpy.result_type of the inputs
    unless dtype= says."""
    arrays = list(arrays)
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    if not _resident(out, *arrays):
        return np.concatenate(arrays, axis, out, dtype=dtype, casting=casting)
    like = out if isinstance(out, _nd) else next(x for x in arrays if isinstance(x, _nd))
    if axis is None:
        arrays = [x.reshape(-1) if isinstance(x, _nd) else np.ravel(x) for x in arrays]
        axis = 0
    infos = [_shape_dtype(x) for x in arrays]
    nd = len(infos[0][0])
    if nd == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    ax = _axis(axis, nd, "concatenate")
    for i, (s, _) in enumerate(infos):
        if len(s) != nd:
            raise ValueError(f"all the input array dimensions except for the concatenation axis "
                             f"must match exactly, but along dimension 0, the array at index 0 "
                             f"has {nd} dimension(s) and the array at index {i} has {len(s)} "
                             f"dimension(s)")
        for d in range(nd):
            if d != ax and s[d] != infos[0][0][d]:
                raise ValueError(f"all the input array dimensions except for the concatenation "
                                 f"axis must match exactly, but along dimension {d}, the array "
                                 f"at index 0 has size {infos[0][0][d]} and the array at index "
                                 f"{i} has size {s[d]}")
    if out is not None and dtype is not None:
        raise TypeError("vp.concatenate: give out= or dtype=, not both (NumPy's rule)")
    shape = list(infos[0][0])
    shape[ax] = builtins.sum(s[ax] for s, _ in infos)
    if out is not None:
        if not isinstance(out, _nd) or tuple(out.shape) != tuple(shape):
            raise ValueError(f"vp.concatenate: out= must be a resident array of shape "
                             f"{tuple(shape)}")
        _array.check_writable(out, "vp.concatenate")
    # the inputs are cast to out='s dtype when there is one (float into an
    # int out= is NumPy's TypeError under 'same_kind', not a truncation)
    rdt = out.dtype if out is not None else np.dtype(dtype) if dtype is not None else \
        np.result_type(*[d for _, d in infos])
    for _, d in infos:
        if not np.can_cast(d, rdt, casting):
            raise TypeError(f"vp.concatenate: cannot cast {d.name} to {rdt.name} with "
                            f"casting={casting!r}" + (" (the dtype of out=)" if out is not None
                                                      else ""))
        if d.kind == "c" and rdt.kind != "c":  # casting='unsafe': astype's refusal
            raise TypeError(f"vp.concatenate: {d.name} into {rdt.name} would drop the "
                            f"imaginary part (NumPy warns and drops it); take .real first")
    res = out if out is not None else _new(shape, rdt, like)
    pre = (slice(None),) * ax
    start = 0
    pairs = []
    for x, (s, _) in zip(arrays, infos):
        if s[ax]:
            src = x
            if isinstance(src, _nd) and src._buf is res._buf:
                src = src.copy()
            pairs.append((res[pre + (slice(start, start + s[ax]),)], src))
        start += s[ax]
    _copy_many(pairs, "concatenate")
    return res


def _as_nd(x, ndmin):
    s, _ = _shape_dtype(x)
    if len(s) >= ndmin:
        return x
    if ndmin == 1:
        shape = (1,)
    elif ndmin == 2:
        shape = (1,) + s if len(s) == 1 else (1, 1)
    else:  # atleast_3d: (1, n, 1) for 1-D, (m, n, 1) for 2-D
        shape = (1, 1, 1) if not s else (1,) + s + (1,) if len(s) == 1 else s + (1,)
    return x.reshape(shape) if isinstance(x, _nd) else np.reshape(x, shape)


def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """vp.stack(arrays, axis=0, out=None, *, dtype=None, casting='same_kind'):
    numpy.stack: the inputs along a new axis (concatenate of views)."""
    arrays = list(arrays)
    if not arrays:
        raise ValueError("need at least one array to stack")
    if not _resident(out, *arrays):
        return np.stack(arrays, axis, out, dtype=dtype, casting=casting)
    shapes = {_shape_dtype(x)[0] for x in arrays}
    if len(shapes) != 1:
        raise ValueError("all input arrays must have the same shape")
    nd = len(next(iter(shapes))) + 1
    ax = _axis(axis, nd, "stack")
    ex = [expand_dims(x, ax) if isinstance(x, _nd) else np.expand_dims(x, ax) for x in arrays]
    if isinstance(out, _nd):
        _array.check_writable(out, "vp.stack")
    return concatenate(ex, ax, out, dtype=dtype, casting=casting)


def vstack(tup, *, dtype=None, casting="same_kind"):
    """vp.vstack(tup, *, dtype=None, casting='same_kind'):
    numpy.vstack: concatenate along axis 0 of the inputs made 2-D."""
    tup = list(tup)
    if not _resident(*tup):
        return np.vstack(tup, dtype=dtype, casting=casting)
    return concatenate([_as_nd(x, 2) for x in tup], 0, dtype=dtype, casting=casting)


def hstack(tup, *, dtype=None, casting="same_kind"):
    """vp.hstack(tup, *, dtype=None, casting='same_kind'):
    numpy.hstack: concatenate along axis 1 (axis 0 for 1-D inputs)."""
    tup = list(tup)
    if not _resident(*tup):
        return np.hstack(tup, dtype=dtype, casting=casting)
    arrs = [_as_nd(x, 1) for x in tup]
    ax = 0 if arrs and len(_shape_dtype(arrs[0])[0]) == 1 else 1
    return concatenate(arrs, ax, dtype=dtype, casting=casting)


def dstack(tup):
    """vp.dstack(tup):
    numpy.dstack: concatenate along axis 2 of the inputs made 3-D."""
    tup = list(tup)
    if not _resident(*tup):
        return np.dstack(tup)
    return concatenate([_as_nd(x, 3) for x in tup], 2)


def column_stack(tup):
    """vp.column_stack(tup):
    numpy.column_stack: 1-D inputs become columns; concatenate on axis 1."""
    tup = list(tup)
    if not _resident(*tup):
        return np.column_stack(tup)
    cols = []
    for x in tup:
        s, _ = _shape_dtype(x)
        if len(s) < 2:
            x = x.reshape((-1, 1)) if isinstance(x, _nd) else np.reshape(x, (-1, 1))
        cols.append(x)
    return concatenate(cols, 1)


def roll(a, shift, axis=None):
    """vp.roll(a, shift, axis=None):
    numpy.roll: a new array; along each axis two slab copies."""
    if not isinstance(a, _nd):
        return np.roll(a, shift, axis)
    if axis is None:
        return roll(a.reshape(-1), shift, 0).reshape(a.shape)
    # NumPy takes sequences and arrays (np.array([1, 2])) for both
    axes = tuple(np.ravel(axis).tolist()) if np.ndim(axis) else (axis,)
    shifts = tuple(np.ravel(shift).tolist()) if np.ndim(shift) else (shift,)
    if len(shifts) == 1 and len(axes) > 1:
        shifts = tuple(shifts) * len(axes)
    if len(axes) == 1 and len(shifts) > 1:
        axes = tuple(axes) * len(shifts)
    if len(shifts) != len(axes):
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    total = {}
    for s, ax in zip(shifts, axes):
        d = _axis(ax, a.ndim, "roll")
        total[d] = total.get(d, 0) + operator.index(s)
    cur = a
    for d, s in total.items():
        n = cur.shape[d]
        res = _new(cur.shape, cur.dtype, cur)
        if n and res.size:
            s %= n
            pre = (slice(None),) * d
            _copy_many([(res[pre + (slice(s, n),)], cur[pre + (slice(0, n - s),)]),
                        (res[pre + (slice(0, s),)], cur[pre + (slice(n - s, n),)])], "roll")
        elif res.size:
            _copy_into(res, cur)
        cur = res
    return cur if cur is not a else a.copy()


def tile(A, reps):
    """vp.tile(A, reps):
    numpy.tile: one copy of a broadcast view into the new array seen as
    (r0, d0, r1, d1, ...)."""
    if not isinstance(A, _nd):
        return np.tile(A, reps)
    reps = (operator.index(reps),) if np.ndim(reps) == 0 else tuple(
        operator.index(r) for r in reps)
    nd = builtins.max(len(reps), A.ndim)
    reps = (1,) * (nd - len(reps)) + reps
    shape = (1,) * (nd - A.ndim) + tuple(A.shape)
    if builtins.any(r < 0 for r in reps):
        raise ValueError("negative dimensions are not allowed")
    res = _new([r * s for r, s in zip(reps, shape)], A.dtype, A)
    if res.size:
        inter = []
        for r, s in zip(reps, shape):
            inter += [r, s]
        src = A.reshape(tuple(x for s in shape for x in (1, s)))
        _copy_into(res.reshape(tuple(inter)), src)
    return res


def repeat(a, repeats, axis=None):
    """vp.repeat(a, repeats, axis=None):
    numpy.repeat: a scalar count is one copy of a broadcast view; counts
    per element are a gather (vp.take) with the index vector NumPy makes
    from the counts (a resident `repeats` is read back first: the result's
    shape depends on it)."""
    if not isinstance(a, _nd):
        return np.repeat(a, repeats.numpy() if isinstance(repeats, _nd) else repeats, axis)
    if axis is None or a.ndim == 0:  # NumPy: a 0-d a repeats as 1-D
        a = a.reshape(-1)
        axis = 0 if axis is None else axis
    d = _axis(axis, a.ndim, "repeat")
    reps = repeats.numpy() if isinstance(repeats, _nd) else np.asarray(repeats)
    if reps.size == 0 and reps.dtype.kind == "f":  # repeats=[]
        reps = reps.astype(np.int64)
    if reps.dtype.kind not in "iub":
        raise TypeError(f"Cannot cast array data from dtype('{reps.dtype}') to dtype('int64') "
                        f"according to the rule 'safe'")
    if reps.size == 1:
        r = int(reps.reshape(-1)[0])
        if r < 0:
            raise ValueError("negative dimensions are not allowed")
        shape = list(a.shape)
        res = _new(shape[:d] + [shape[d] * r] + shape[d + 1:], a.dtype, a)
        if res.size:
            view = res.reshape(tuple(shape[:d + 1]) + (r,) + tuple(shape[d + 1:]))
            _copy_into(view, expand_dims(a, d + 1))
        return res
    idx = np.repeat(np.arange(a.shape[d]), reps)  # raises NumPy's errors
    if idx.size == 0:
        shape = list(a.shape)
        shape[d] = 0
        return _new(shape, a.dtype, a)
    return _indexing.take(a, idx.astype(np.int32), d)


_PAD_TAKE = ("edge", "wrap", "reflect", "symmetric")
_PAD_STAT = ("maximum", "minimum", "mean", "median")


def _pad_ramp(a, pw, end_values, kwargs):
    """numpy.pad's 'linear_ramp': axis after axis, each pad slab (spanning
    the other axes whole, as NumPy's) is np.linspace(end_value, edge,
    width, endpoint=False) along the axis (reversed on the right), computed
    as NumPy's linspace does - in the type of the edge and the end values
    (NumPy scalars: float64 unless both are narrower floats), i * step + start, or i / width * delta where some step is 0
    (one bool read back a side), floored for integers - then cast."""
    if kwargs:
        raise ValueError(f"unsupported keyword arguments for mode 'linear_ramp': {set(kwargs)}")
    nd = a.ndim
    ev = np.asarray(end_values)
    evs = np.broadcast_to(ev, (nd, 2)).tolist() if nd else []
    shape = [n + b + e for n, (b, e) in zip(a.shape, pw)]
    res = _new(shape, a.dtype, a)
    if not res.size:
        return res
    _copy_into(res[tuple(slice(b, b + n) for n, (b, _) in zip(a.shape, pw))], a)
    # linspace's type: NumPy hands one or two end values on as NumPy
    # scalars (int64 / float64: float64 for a float32 array too) and a
    # per-axis table as Python numbers (the array's own float type)
    strong = ev.size == 1 or (ev.size == 2 and ev.shape != (2, 1))
    dt = np.result_type(ev.dtype, a.dtype) if strong else np.dtype(a.dtype)
    if dt.kind not in "fc":
        dt = np.dtype(np.float64)
    if dt == np.float64 and not a._ctx.has("float64"):
        dt = np.dtype(np.float32)
    for d, ((b, e), (vb, ve)) in enumerate(zip(pw, evs)):
        pre = (slice(None),) * d
        for width, at, dst, end in ((b, b, slice(0, b), vb),
                                    (e, shape[d] - e - 1, slice(shape[d] - e, shape[d]), ve)):
            if not width:
                continue
            edge = res[pre + (slice(at, at + 1),)].astype(dt)
            i = _array.arange(width, dtype=dt, context=a._ctx).reshape(
                (1,) * d + (width,) + (1,) * (nd - d - 1))
            start = dt.type(end)
            delta = _ufunc.subtract(edge, start)
            step = _ufunc.divide(delta, dt.type(width))
            if bool(_reduce.any(_ufunc.equal(step, 0))):
                y = _ufunc.multiply(_ufunc.divide(i, dt.type(width)), delta)
            else:
                y = _ufunc.multiply(i, step)
            y = _ufunc.add(y, start)
            if a.dtype.kind in "iu":
                y = _ufunc.floor(y)
            if dst.start:  # the right ramp runs from the edge out
                y = y[pre + (slice(None, None, -1),)]
            _copy_into(res[pre + (dst,)], y.astype(a.dtype))
    return res


def _pad_stat(a, pw, mode, stat_length, kwargs):
    """numpy.pad's statistic modes: axis after axis, the statistic of the
    first (last) stat_length elements of the original area along the axis -
    over the already padded extent of the earlier axes and the original
    area of the later ones, as NumPy - broadcast into the pad slab. One
    reduction and one copy per slab; integer means round half to even."""
    if kwargs:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {set(kwargs)}")
    nd = a.ndim
    if stat_length is None:
        sl = [(n, n) for n in a.shape]
    else:
        sl = np.broadcast_to(np.asarray(stat_length), (nd, 2)).tolist() if nd else []
        if builtins.any(v < 0 for p in sl for v in p):
            raise ValueError("index can't contain negative values")
    shape = [n + b + e for n, (b, e) in zip(a.shape, pw)]
    res = _new(shape, a.dtype, a)
    if not res.size:
        return res
    _copy_into(res[tuple(slice(b, b + n) for n, (b, _) in zip(a.shape, pw))], a)
    stat = {"maximum": _reduce.amax, "minimum": _reduce.amin, "mean": _reduce.mean,
            "median": _stats.median}[mode]
    for d, ((b, e), (lb, la)) in enumerate(zip(pw, sl)):
        if not b and not e:
            continue
        n = a.shape[d]
        lb, la = builtins.min(lb, n), builtins.min(la, n)
        if (b and lb == 0) or (e and la == 0):
            raise ValueError("stat_length of 0 yields no value for padding")
        # earlier axes: their whole padded extent; later ones: the original area
        other = [slice(None)] * d + [None] + [slice(p, p + m) for (p, _), m in
                                              zip(pw[d + 1:], a.shape[d + 1:])]
        for width, lo, hi, dst in ((b, pw[d][0], pw[d][0] + lb, slice(0, b)),
                                   (e, pw[d][0] + n - la, pw[d][0] + n,
                                    slice(shape[d] - e, shape[d]))):
            if not width:
                continue
            src = res[tuple(other[:d]) + (slice(lo, hi),) + tuple(other[d + 1:])]
            v = stat(src, axis=d, keepdims=True)
            if a.dtype.kind in "iu" and mode in ("mean", "median"):
                # NumPy rounds an integer array's mean (not a bool array's:
                # a median of 0.5 is True there, rint made it False)
                v = _ufunc.rint(v)
            _copy_into(res[tuple(other[:d]) + (dst,) + tuple(other[d + 1:])], v)
    return res


def pad(array, pad_width, mode="constant", **kwargs):
    """vp.pad(array, pad_width, mode='constant', **kwargs):
    numpy.pad for mode='constant' (constant_values=, scalars or per-axis
    pairs; also 'empty', which zero-fills), and 'edge', 'wrap', 'reflect',
    'symmetric' (reflect_type='even'): a gather along each axis with the
    index vector numpy.pad gives for arange(n); 'maximum', 'minimum',
    'mean', 'median' (stat_length=): a reduction and a copy per slab;
    'linear_ramp' (end_values=): NumPy's linspace per slab. A callable
    mode raises NotImplementedError."""
    if not isinstance(array, _nd):
        return np.pad(array, pad_width, mode, **kwargs)
    a = array
    nd = a.ndim
    pw = np.asarray(pad_width)
    if pw.dtype.kind not in "iu":
        raise TypeError("`pad_width` must be of integral type.")
    pw = np.broadcast_to(pw, (nd, 2)).tolist() if nd else []
    if builtins.any(v < 0 for p in pw for v in p):
        raise ValueError("index can't contain negative values")
    if callable(mode):
        raise NotImplementedError("vp.pad: a callable mode is not supported on resident arrays")
    if mode in ("constant", "empty"):
        cv = kwargs.pop("constant_values", 0) if mode == "constant" else 0
        if kwargs:
            raise ValueError(f"unsupported keyword arguments for mode '{mode}': {set(kwargs)}")
        cvs = np.broadcast_to(np.asarray(cv), (nd, 2)).tolist() if nd else []
        shape = [n + b + e for n, (b, e) in zip(a.shape, pw)]
        res = _new(shape, a.dtype, a)
        if not res.size:
            return res
        inner = tuple(slice(b, b + n) for n, (b, _) in zip(a.shape, pw))
        _copy_into(res[inner], a)
        # NumPy pads axis after axis, each slab spanning the others whole:
        # the corners take the last axis's values
        for d, ((b, e), (vb, ve)) in enumerate(zip(pw, cvs)):
            pre = (slice(None),) * d
            if b:
                res[pre + (slice(0, b),)].fill(vb)
            if e:
                res[pre + (slice(shape[d] - e, shape[d]),)].fill(ve)
        return res
    if mode in _PAD_STAT or mode == "linear_ramp":
        for d, (b, e) in enumerate(pw):
            if a.shape[d] == 0 and (b or e):
                raise ValueError(f"can't extend empty axis {d} using modes other than "
                                 f"'constant' or 'empty'")
    if mode in _PAD_STAT:
        return _pad_stat(a, pw, mode, kwargs.pop("stat_length", None), kwargs)
    if mode == "linear_ramp":
        return _pad_ramp(a, pw, kwargs.pop("end_values", 0), kwargs)
    if mode not in _PAD_TAKE:
        raise NotImplementedError(f"vp.pad: mode={mode!r} is not supported on resident arrays "
                                  f"(constant, empty, edge, wrap, reflect, symmetric, maximum, "
                                  f"minimum, mean, median, linear_ramp are)")
    if kwargs.get("reflect_type", "even") != "even":
        raise NotImplementedError("vp.pad: reflect_type='odd' is not supported")
    cur = a
    for d, (b, e) in enumerate(pw):
        if not b and not e:
            continue
        idx = np.pad(np.arange(cur.shape[d]), (b, e), mode)  # NumPy's errors, e.g. empty axes
        cur = _indexing.take(cur, idx.astype(np.int32), d)
    return cur if cur is not a else a.copy()


# traced by vp.jit (Tracer.__array_function__): the view-like operations
TRACED = ("reshape", "ravel", "swapaxes", "moveaxis", "expand_dims", "squeeze", "broadcast_to")
NAMES = ("eye", "identity", "reshape", "ravel", "swapaxes", "moveaxis", "expand_dims",
         "squeeze", "broadcast_to", "flip", "fliplr", "flipud", "array_split", "split",
         "hsplit", "vsplit", "concatenate", "stack", "vstack", "hstack", "dstack",
         "column_stack", "roll", "tile", "repeat", "pad")
