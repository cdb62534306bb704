"""Indexing resident arrays and vp.jit tracers, NumPy's way
(docs/python-api.md, "Indexing and views", is the reference).

Basic indexing gives a strided *view* of the same buffer (no copy, no
kernel); an integer array is a gather (array.take); a boolean mask a
stream compaction or a cumsum kernel with the count read back; writes are
a store through the view, a scatter or a select. Views carry an element
offset and element strides (vp.ndarray._offset, _estrides), which every
array-path operation reads and writes through. Indices out of range raise
IndexError when the index array is on the host; resident index arrays are
clamped on reads and dropped on writes (the GPU cannot raise).
"""
import math
import operator

import numpy as np

from . import _array, _arrayops, _engine, _graph
from . import _errors

_BOOL = np.dtype(np.bool_)
_I32 = np.dtype(np.int32)


class _Basic:
    """The view a basic index makes: shape, element offset, element strides,
    and where the advanced (array) indices sit."""

    def __init__(self, shape, offset, strides):
        self.shape, self.offset, self.strides = list(shape), offset, list(strides)


def _expand(key, ndim):
    """key as a list of entries, Ellipsis expanded."""
    if not isinstance(key, tuple):
        key = (key,)
    used = sum(1 for k in key if k is not None and k is not Ellipsis and
               not (_is_mask(k)))
    used += sum(np.ndim(k) for k in key if _is_mask(k))
    out = []
    seen = False
    for k in key:
        if k is Ellipsis:
            if seen:
                raise IndexError("an index can only have a single ellipsis ('...')")
            seen = True
            out.extend([slice(None)] * max(ndim - used, 0))
        else:
            out.append(k)
    if used > ndim:
        raise IndexError(f"too many indices for array: array is {ndim}-dimensional, but "
                         f"{used} were indexed")
    if not seen:  # an ellipsis already stood for the missing dims
        out.extend([slice(None)] * (ndim - used))
    return out


def _host_masks(entries, shape):
    """entries with each NumPy boolean array (or list of bools) beside other
    indices replaced by its nonzero() integer arrays, as NumPy's
    x[:, mask] is x[:, mask.nonzero()[0]]; a mask whose shape differs from
    the axes it covers is NumPy's IndexError."""
    out = []
    d = 0
    for k in entries:
        if k is None:
            out.append(k)
            continue
        m = k if isinstance(k, np.ndarray) else np.asarray(k) if isinstance(k, list) else None
        if m is None or m.dtype != _BOOL or m.ndim == 0 or \
                (isinstance(k, list) and not _is_mask(k)):
            out.append(k)
            d += 1
            continue
        for j, n in enumerate(m.shape):
            if shape[d + j] != n and n != 0:  # (NumPy: a mask axis of length 0 selects nothing)
                raise IndexError(f"boolean index did not match indexed array along axis {d + j}; "
                                 f"size of axis is {shape[d + j]} but size of corresponding "
                                 f"boolean axis is {n}")
        out.extend(m.nonzero())
        d += m.ndim
    return out


def _is_array_index(k):
    # a 0-d NumPy integer array is an integer (x[np.array(1)] drops the axis)
    return isinstance(k, (list, np.ndarray, _array.ndarray, _graph.Traced)) and \
        not np.isscalar(k) and not (isinstance(k, np.ndarray) and k.ndim == 0)


def _is_mask(k):
    if isinstance(k, (_array.ndarray, _graph.Traced, np.ndarray)):
        return k.dtype == _BOOL
    if isinstance(k, list) and k and all(isinstance(e, bool) for e in k):
        return True
    return isinstance(k, (bool, np.bool_))  # x[True]: NumPy's 0-d mask


def _basic(shape, offset, strides, entries):
    """Applies the basic entries; array entries keep their dim and are
    returned with the dim they index."""
    v = _Basic([], offset, [])
    adv = []
    d = 0
    for k in entries:
        if k is None:
            v.shape.append(1)
            v.strides.append(0)
            continue
        if _is_array_index(k):
            adv.append((len(v.shape), k))
            v.shape.append(shape[d])
            v.strides.append(strides[d])
            d += 1
            continue
        if isinstance(k, slice):
            start, stop, step = k.indices(shape[d])
            n = len(range(start, stop, step))
            v.offset += start * strides[d] if n else 0
            v.shape.append(n)
            # one element or none: any stride will do (x[::2**63] needs no 2**63)
            v.strides.append(strides[d] * step if n > 1 else strides[d])
            d += 1
            continue
        try:  # operator.index: an integer only (np.float32(1), "1" and 1.0 are not)
            i = operator.index(k) if not isinstance(k, (bool, np.bool_)) else None
        except TypeError:
            i = None
        if i is None:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis "
                             "(`None`) and integer or boolean arrays are valid indices")
        if not -shape[d] <= i < shape[d]:
            raise IndexError(f"index {i} is out of bounds for axis {d} with size {shape[d]}")
        v.offset += (i % shape[d]) * strides[d]
        d += 1
    return v, adv


def _view(a, b):
    st = tuple(b.strides)
    shape = tuple(b.shape)
    # a unit axis's stride does not matter (NumPy's C-contiguous flag): the
    # transpose of a 1 x n array is all of it, in order
    contiguous = b.offset == 0 and all(
        s == c or d == 1 for s, c, d in zip(st, _graph.c_strides(shape), shape))
    n = math.prod(shape)
    # all of the array's elements (x[...], x[None]): still all of the buffer
    whole = a._whole and contiguous and n == a._size
    return _array.view_of(a, _array.ndarray(a._buf, shape, a.dtype, a._ctx, b.offset,
                                            None if contiguous else st, whole))


def strided_view(a, shape, offset, strides):
    """A view of resident `a` (element offset and strides into its buffer)."""
    return _view(a, _Basic(shape, offset, strides))


def _host_index(k, dim):
    """A host index array as int32 (int64 when needed), bounds checked."""
    h = np.asarray(k)
    if isinstance(k, (list, tuple)) and not h.size:
        h = h.astype(_I32)  # x[[]]: NumPy's empty integer index
    if h.dtype == _BOOL:
        raise IndexError("boolean index arrays mixed with other indices are not supported")
    if h.dtype.kind not in "iu":
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    if h.size:
        lo, hi = int(h.min()), int(h.max())
        if lo < -dim or hi >= dim:
            bad = lo if lo < -dim else hi
            raise IndexError(f"index {bad} is out of bounds for axis with size {dim}")
    if h.dtype != _I32 and (not h.size or (-2**31 <= int(h.min()) and int(h.max()) < 2**31)):
        h = h.astype(_I32)
    return h


# ---------------------------------------------------------------- reading


def _basic_key(key):
    """Whether key is basic indexing only (ints, slices, None, ...): a view."""
    for k in (key if isinstance(key, tuple) else (key,)):
        if not (k is None or k is Ellipsis or isinstance(k, slice) or
                (isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)))):
            return False
    return True


def _complex_get(a, key):
    """x[key] of a complex x with integer-array or mask indices: the same
    key on x's float view (real and imaginary parts as a trailing axis of
    2), so each element's two parts move together, then seen as complex
    again (the gathers have no complex path of their own)."""
    f = _arrayops.COMPLEX.fview(a)
    if _is_mask(key) and not isinstance(key, tuple):
        r = getitem(f, key)
    else:
        r = getitem(f, (key if isinstance(key, tuple) else (key,)) + (slice(None),))
    if not (r.contiguous and r._offset == 0 and r._whole):
        r = r.copy()
    return _arrayops.COMPLEX.from_fview(r, a.dtype)


def getitem(a, key):
    if type(key) is slice and type(a) is _array.ndarray and a.shape:
        if len(a.shape) == 1:  # x[i:j:k] of a 1-D array: _basic and _view in short
            start, stop, step = key.indices(a.shape[0])
            n = len(range(start, stop, step))
            es = a._estrides[0] if a._estrides is not None else 1
            off = a._offset + start * es if n else a._offset
            st = es * step if n > 1 else es
            contiguous = off == 0 and st == 1
            return _array.view_of(a, _array.ndarray(
                a._buf, (n,), a.dtype, a._ctx, off, None if contiguous else (st,),
                a._whole and contiguous and n == a._size))
        # x[i:j:k] of a resident array: one slice entry, then every axis
        b, _ = _basic(a.shape, a._offset, _array.elem_strides(a),
                      (key,) + (slice(None),) * (len(a.shape) - 1))
        return _view(a, b)
    if type(key) is tuple and type(a) is _array.ndarray and len(key) <= len(a.shape) and all(
            type(k) is slice or type(k) is int for k in key):
        # x[1:-1, 2:], x[0, :]: slices and ints only, every axis
        b, _ = _basic(a.shape, a._offset, _array.elem_strides(a),
                      key + (slice(None),) * (len(a.shape) - len(key)))
        return _view(a, b)
    if isinstance(key, tuple) and len(key) == 1 and _is_mask(key[0]):
        key = key[0]  # x[(mask,)] is x[mask]
    if isinstance(a, _array.ndarray) and a.dtype.kind == "c" and not _basic_key(key):
        return _complex_get(a, key)
    if _is_mask(key) and not isinstance(key, tuple):
        return _mask_get(a, key)
    entries = _host_masks(_expand(key, a.ndim), a.shape)
    b, adv = _basic(a.shape, a._offset, _array.elem_strides(a), entries)
    if adv and _adv_apart(entries):
        b, adv = _adv_first(b, adv)
    view = _view(a, b)
    if not adv:
        return view
    return _gather(view, adv)


def _adv_apart(entries):
    """True when the advanced indices (integer arrays, and with them the
    integers) are separated by a slice, `...` or None: NumPy then puts the
    broadcast index dims first (x[0, :, [1, 2]] has shape (2, n))."""
    pos = [j for j, k in enumerate(entries) if _is_array_index(k) or
           (k is not None and not isinstance(k, slice) and k is not Ellipsis)]
    return pos[-1] - pos[0] + 1 != len(pos)


def _adv_first(b, adv):
    """The view b with its advanced (array-indexed) axes moved to the front."""
    first = [p for p, _ in adv]
    order = first + [d for d in range(len(b.shape)) if d not in first]
    moved = _Basic([b.shape[d] for d in order], b.offset, [b.strides[d] for d in order])
    return moved, [(j, k) for j, (_, k) in enumerate(adv)]


def _adv_group(adv, name):
    pos = [p for p, _ in adv]
    if pos != list(range(pos[0], pos[0] + len(pos))):
        raise IndexError(f"{name}: integer-array indices on axes that are not next to each other "
                         f"are not supported (NumPy moves their dims to the front)")
    return pos[0], len(pos)


def _gather(view, adv):
    """view[..., idx, ...]: array.take along the advanced axes (merged into
    one when there are several, adjacent)."""
    if len(adv) == 1 and adv[0][0] == 0:
        r = _gather_rows(view, adv[0][1])
        if r is not None:
            return r
    k, n = _adv_group(adv, "indexing")
    try:
        np.broadcast_shapes(*(np.shape(i) for _, i in adv))
    except ValueError:
        raise IndexError("shape mismatch: indexing arrays could not be broadcast together with "
                         "shapes " + " ".join(str(np.shape(i)) for _, i in adv)) from None
    c = _arrayops.Call("take")
    c.note(view)
    for _, i in adv:
        c.note(i)
    v = c.array(view)
    dims = view.shape[k:k + n]
    idx = None
    wide = _I32 if int(np.prod(dims, dtype=np.int64)) < 2**31 else np.dtype(np.int64)
    for j, (_, i) in enumerate(adv):
        iv = _index_value(c, i, dims[j])
        if n > 1 and iv.dtype.itemsize < wide.itemsize:
            iv = c.g.cast(iv, wide)  # i * (product of the later dims) must not wrap
        if n > 1:
            # negative indices wrap per axis before they are combined
            if iv.dtype.kind == "i":
                dimc = c.g.const(dims[j], iv.dtype)
                neg = c.g.op("lt", [iv, c.g.const(0, iv.dtype)], _BOOL)
                iv = c.g.op("select", [neg, c.g.op("add", [iv, dimc], iv.dtype), iv], iv.dtype)
            mult = int(np.prod(dims[j + 1:], dtype=np.int64))
            term = iv if mult == 1 else c.g.op("mul", [iv, c.g.const(mult, iv.dtype)], iv.dtype)
            if idx is not None and idx.dtype != term.dtype:
                dt = np.promote_types(idx.dtype, term.dtype)
                idx, term = c.g.cast(idx, dt), c.g.cast(term, dt)
            idx = term if idx is None else c.g.op("add", [idx, term], term.dtype)
        else:
            idx = iv
    if n > 1:
        merged = view.shape[:k] + (int(np.prod(dims, dtype=np.int64)),) + view.shape[k + n:]
        v = c.g.reshape(v, merged)
    r = c.g.take(v, idx, k)
    return c.run(c.result(r))


# x[idx] of a C-contiguous resident x by one 1-D index array along axis 0
# (a 1-D take, or rows of a matrix): one kernel for every shape, the take
# over a dynamic extent (ops.def), compiled once per dtype and index dtype
_ROW_INDEX = frozenset(np.dtype(t) for t in (np.int32, np.int64, np.uint32, np.uint64))
_rows_texts = {}


def _gather_rows_vir(dt, it):
    key = (dt, it)
    text = _rows_texts.get(key)
    if text is None:
        u32 = np.dtype(np.uint32)
        g = _graph.Graph("take")
        g.push.append(("n", u32))
        rows, inner = g.scalar(u32, "r"), g.scalar(u32, "b")
        st = _array.storage_dtype(dt)
        x = g.load(g.buffer(("x",), st, None, None, "x"), dt, _graph.DYN)
        i = g.load(g.buffer(("i",), it, None, None, "i"), it, _graph.DYN)
        r = g._value(dt, _graph.DYN, f"array.take {x.name}, {i.name}, {rows.name}, "
                     f"{inner.name} axes(0)")
        g.store(g.buffer(("out",), st, None, None, "out"), r)
        text = _rows_texts[key] = g.text()
    return text


def _gather_rows(x, i):
    """x[i] for a C-contiguous resident x (offset 0) and a 1-D index array i
    (host: bounds-checked; resident: int32/int64/uint32/uint64, clamped as
    the static take clamps), or None where the static take serves it (a
    view, a small or complex dtype, another index, an empty result, a CPU
    device past CPU_VIEW_MAX elements: a division per element)."""
    if type(x) is not _array.ndarray or x._estrides is not None or x._offset or not x.ndim or \
            x.dtype.kind == "c" or x.dtype.itemsize < 4 and x.dtype != _BOOL or np.ndim(i) != 1:
        return None
    ctx = x._ctx
    if isinstance(i, _array.ndarray):
        if i.dtype not in _ROW_INDEX or i._ctx is not ctx or i._estrides is not None or i._offset:
            return None
        iv = i
    else:
        h = _host_index(i, x.shape[0])
        if h.dtype not in _ROW_INDEX:
            return None
        iv = None
    inner = math.prod(x.shape[1:])
    count = (i.shape[0] if iv is not None else h.shape[0])
    n = count * inner
    if not n or n >= 2**32 or x._size >= 2**32 or (n > _array.CPU_VIEW_MAX and ctx.kind == "cpu") or \
            (n > _array.SEGMENTS_MAX and ctx.kind != "cpu"):
        return None
    if iv is None:
        iv = _array.asarray(h, context=ctx)
    plans = ctx.__dict__.setdefault("_vp_take_plans", {})
    key = (x.dtype, iv.dtype)
    comp = plans.get(key)
    if comp is None:
        _graph.require_features(ctx, (x.dtype, iv.dtype), "indexing")
        comp = plans[key] = _engine.compile(_gather_rows_vir(x.dtype, iv.dtype), ctx, "vp.take")
    out = _array._result((count,) + x.shape[1:], x.dtype, x._buf.kind, ctx)  # written whole
    comp.run(ctx, {"x": x._buf, "i": iv._buf, "out": out._buf},
             {"n": n, "r": x.shape[0], "b": inner}, None)
    return out


def _index_value(c, i, dim):
    """The graph value of index array `i` (resident or host) for an axis of
    length `dim`: host arrays bounds-checked (_host_index), resident ones
    of 8 or 16 bits widened to int32, so that a negative index wraps by the
    axis length rather than by that length wrapped to the index's dtype
    (int8 -1 on an axis of 600 read row 87)."""
    if not isinstance(i, _array.ndarray):
        return c.array(_host_index(i, dim))
    if i.dtype == _BOOL:
        raise IndexError("a resident boolean mask beside other indices is not supported: "
                         "pass it as a NumPy array (it is then its nonzero()) or index with "
                         "the mask alone (x[mask])")
    if i.dtype.kind not in "iu":
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    iv = c.array(i)
    return c.g.cast(iv, _I32) if iv.dtype.itemsize < 4 else iv


def _mask_prefix(a, mask):
    m = mask if isinstance(mask, _array.ndarray) else np.asarray(mask, dtype=bool)
    if tuple(m.shape) != tuple(a.shape[:m.ndim]):
        if m.ndim <= a.ndim and all(n in (0, d) for n, d in zip(m.shape, a.shape)):
            # NumPy's rule: a mask axis of length 0 matches any length and
            # selects nothing (x of shape (2, 2), mask (2, 0): x[mask] is
            # empty): the all-False mask of a's shape
            return np.zeros(a.shape[:m.ndim], bool)
        raise IndexError(f"boolean index did not match indexed array: array shape {a.shape}, "
                         f"mask shape {m.shape}")
    return m


def _positions(a, m):
    """(cumsum of the flattened mask as a resident int32 array, count)."""
    c = _arrayops.Call("mask_positions")
    c.note(a)
    c.note(m)
    mv = c.array(m)
    M = int(np.prod(m.shape, dtype=np.int64))
    flat = c.g.reshape(mv, (M,))
    cs = c.g.scan("cumsum", c.g.cast(flat, _I32), 0, _I32)
    pos = _array.empty((M,), _I32, context=c.context_())
    cum = c.run(c.result(cs, pos))
    count = int(cum[M - 1:].numpy()[0]) if M else 0
    return cum, count


def _mask_get(a, mask):
    m = _mask_prefix(a, mask)
    from . import _compact  # a mask over every axis: one device compaction
    r = _compact.mask_select(a, m)
    if r is not None:
        return r
    cum, count = _positions(a, m)
    M = cum.shape[0]
    rest = a.shape[m.ndim:]
    c = _arrayops.Call("compress")
    c.note(a)
    c.note(m)
    mv = c.g.reshape(c.array(m), (M,))
    cv = c.array(cum)
    xv = c.g.reshape(c.array(a), (M,) + rest)
    one = c.g.const(1, _I32)
    idx = c.g.op("select", [mv, c.g.op("sub", [cv, one], _I32),
                            c.g.const(count, _I32)], _I32)
    res = _array.empty((count,) + rest, a.dtype, memory=a.memory, context=a._ctx)
    if count:
        b = c.g.buffer(("r", id(res._buf)), _array.storage_dtype(res.dtype),
                       _arrayops.extent(res), res._buf, "out")
        c.bind[b.name] = res._buf
        c.g.scatter(b, (count,) + rest, idx, xv)
        c.run(lambda: None)
    return res


# ---------------------------------------------------------------- writing


def _unaliased(target, value, elementwise):
    """`value`, or a copy of it where writing `target` would change what is
    still to be read (NumPy: `x[1:] = x[:-1]` reads x as it was). An
    elementwise write of the very same view is safe; a scatter or masked
    write that reads a value overlapping its target is not."""
    if type(value) is not _array.ndarray or value._buf is not target._buf:
        return value
    hazard = _array.write_hazard(target, value) if elementwise else \
        _array.overlaps(target, value)
    return value.copy() if hazard else value


def checked_scalar(value, dtype):
    """A Python scalar about to be stored in an array of `dtype`, checked as
    NumPy's x[...] = value and x.fill(value) check it: an int out of the
    dtype's range is an OverflowError (not wrapped: u8[0] = 300 is not 44),
    a float into an integer array truncates (NaN and inf raise), a complex
    into a real array is a TypeError (into bool, its truth), a number past
    a float dtype's range is inf."""
    if isinstance(value, np.generic) or not isinstance(value, (int, float, complex)) or \
            isinstance(value, bool):
        return value
    dt = np.dtype(dtype)
    if isinstance(value, complex) and dt.kind != "c":
        if dt == _BOOL:
            return bool(value)
        name = "int" if dt.kind in "iu" else "float"
        raise TypeError(f"{name}() argument must be a string or a real number, not 'complex'")
    if dt.kind == "f" and not isinstance(value, complex):
        with np.errstate(over="ignore"):  # f32[0] = 2**200 is inf, as NumPy's
            return float(dt.type(value))
    if dt.kind not in "iu":
        return value
    if isinstance(value, float):
        value = int(value)  # NaN: ValueError, inf: OverflowError, as NumPy's
    info = np.iinfo(dt)
    if not info.min <= value <= info.max:
        raise OverflowError(f"Python integer {value} out of bounds for {dt.name}")
    return value


def _complex_parts_value(value, a):
    """`value` for an assignment into complex `a`'s float view: an array
    of value's shape + (2,) (its real and imaginary parts), as a.dtype."""
    if isinstance(value, _array.ndarray):
        if value.dtype != a.dtype:
            value = value.astype(a.dtype)  # a real value gains a zero imaginary part
        return _arrayops.COMPLEX.fview(value)
    h = np.asarray(value)
    if h.dtype.kind not in "biufc":
        raise TypeError(f"index assignment: cannot assign a {h.dtype.name} value to a "
                        f"{a.dtype.name} array")
    h = np.ascontiguousarray(h, a.dtype)
    return h.view(_arrayops.COMPLEX.float_of(a.dtype)).reshape(h.shape + (2,))


def _complex_set(a, key, value):
    """x[key] = value of a complex x with integer-array or mask indices: the
    same key on x's float view (the parts as a trailing axis of 2) with the
    value's parts, so each element's two parts are written together (the
    scatters have no complex path of their own)."""
    f = _arrayops.COMPLEX.fview(a)
    v = _complex_parts_value(value, a)
    if _is_mask(key) and not isinstance(key, tuple):
        setitem(f, key, v)
        return
    key, v = _last_writes(a, key if isinstance(key, tuple) else (key,), v)
    setitem(f, key + (slice(None),), v)


def _last_writes(a, key, v):
    """(key, v) for x[key] = v with each element of x written once, by the
    value NumPy writes last there: where the index arrays name an element
    more than once, they are flattened to the last occurrence of each and
    the value's index dims with them. A float scatter lets one of the
    duplicates win; a complex one writes its two parts separately, so two
    duplicates could leave one's real part beside the other's imaginary
    part. Resident index arrays are read to the host for the check."""
    entries = _host_masks(_expand(key, a.ndim), a.shape)
    arrays = [(j, k) for j, k in enumerate(entries) if _is_array_index(k)]
    if not arrays:
        return key, v
    dims = [a.shape[_axis_of(entries, j)] for j, _ in arrays]
    hosts = [np.asarray(k.numpy() if isinstance(k, _array.ndarray) else k) for _, k in arrays]
    if any(h.dtype.kind not in "iu" for h in hosts):
        return key, v  # (not indices: the scatter raises NumPy's error)
    try:
        hosts = np.broadcast_arrays(*hosts)
    except ValueError:
        return key, v  # (the scatter raises NumPy's shape mismatch)
    wrapped = []
    for h, d in zip(hosts, dims):
        h = h.astype(np.int64)
        h = np.where(h < 0, h + d, h)
        if h.size and (h.min() < 0 or h.max() >= d):
            return key, v  # (the scatter raises NumPy's IndexError)
        wrapped.append(h)
    flat = np.asarray(np.ravel_multi_index(wrapped, dims)).ravel()
    if np.unique(flat).size == flat.size:
        return key, v
    _, first_rev = np.unique(flat[::-1], return_index=True)
    keep = np.sort(flat.size - 1 - first_rev)
    # the result's shape R, and where the index dims B sit in it (k)
    r = np.lib.stride_tricks.as_strided(np.zeros(1, np.uint8), a.shape, (0,) * a.ndim)
    rshape = r[tuple(_fill_arrays(entries, wrapped))].shape
    b = wrapped[0].shape
    if _adv_apart(entries):
        k = 0
    else:
        first = arrays[0][0]
        k = sum(1 for e in entries[:first] if e is None or isinstance(e, slice))
    want = rshape[:k] + (flat.size,) + rshape[k + len(b):] + (2,)
    pick = (slice(None),) * k + (keep,)
    if isinstance(v, _array.ndarray):
        full = _array.empty(tuple(rshape) + (2,), v.dtype, context=a._ctx)
        _arrayops.assign(full, v)
        v = getitem(full.reshape(want), pick)
    else:
        v = np.ascontiguousarray(np.broadcast_to(v, tuple(rshape) + (2,))).reshape(want)[pick]
    out = list(entries)
    for (j, _), h in zip(arrays, wrapped):
        out[j] = h.ravel()[keep]
    return tuple(out), v


def _axis_of(entries, j):
    """The axis of x that entry j of an expanded key indexes."""
    return sum(1 for e in entries[:j] if e is not None)


def _fill_arrays(entries, hosts):
    """entries with the index arrays replaced by the host arrays, in order."""
    it = iter(hosts)
    return [next(it) if _is_array_index(e) else e for e in entries]


def setitem(a, key, value):
    _array.check_writable(a, "index assignment")
    value = checked_scalar(value, a.dtype)
    if isinstance(key, tuple) and len(key) == 1 and _is_mask(key[0]):
        key = key[0]  # x[(mask,)] = v is x[mask] = v
    if a.dtype.kind == "c" and not _basic_key(key):
        return _complex_set(a, key, value)
    if _is_mask(key) and not isinstance(key, tuple):
        return _mask_set(a, key, _unaliased(a, value, False))
    entries = _host_masks(_expand(key, a.ndim), a.shape)
    b, adv = _basic(a.shape, a._offset, _array.elem_strides(a), entries)
    # where NumPy's result has the index dims (the value broadcasts to it)
    k = 0 if adv and _adv_apart(entries) else _adv_group(adv, "index assignment")[0] \
        if adv else 0
    if adv:
        b, adv = _adv_first(b, adv)  # the scatter indexes the view's first axis
    view = _view(a, b)
    if not adv:
        _arrayops.assign(view, _unaliased(view, value, True))
        return
    value = _unaliased(a, value, False)
    idx = [_unaliased(a, i, False) for _, i in adv]
    if len(idx) > 1 and 0 in _index_shape(idx):
        return  # nothing to write (the merged target of an empty axis spans -stride..0)
    c = _arrayops.Call("scatter")
    c.note(view)
    for i in idx:
        c.note(i)
    c.note(value)
    if len(idx) == 1:
        iv = _index_value(c, idx[0], view.shape[0])
        shape, offset, strides = view.shape, view._offset, view._estrides
    else:
        iv, shape, offset, strides = _merged_target(c, view, idx)
    vv = c.g.convert(c.operand(value, view.dtype), view.dtype)
    rest = tuple(shape[1:])
    ni = len(iv.shape)
    vshape = rest[:k] + tuple(iv.shape) + rest[k:]  # NumPy's result shape
    try:
        np.broadcast_shapes(vv.shape or (), vshape)
    except ValueError:
        raise ValueError(f"shape mismatch: value array of shape {vv.shape} could not be "
                         f"broadcast to indexing result of shape {vshape}") from None
    vv = c.g.broadcast(vv, vshape)
    if k:  # x[:, idx] = v: the index dims first, as the view has them
        vv = c.g.transpose(vv, tuple(range(k, k + ni)) + tuple(range(k)) +
                           tuple(range(k + ni, len(vshape))))
    bsym = c.g.buffer(("r", id(view._buf)), _array.storage_dtype(view.dtype),
                      _arrayops.extent(view), view._buf, "out")
    c.bind[bsym.name] = view._buf
    c.g.scatter(bsym, shape, iv, vv, offset, strides)
    c.run(lambda: None)


def _index_shape(idx):
    try:
        return np.broadcast_shapes(*(np.shape(i) for i in idx))
    except ValueError:
        raise IndexError("shape mismatch: indexing arrays could not be broadcast together with "
                         "shapes " + " ".join(str(np.shape(i)) for i in idx)) from None


def _merged_target(c, view, idx):
    """x[i, j, ...] = v with the index arrays on the view's first len(idx)
    axes: those axes as one axis of element offsets (stride 1 from the
    lowest element they reach) and the combined index into it, each index
    wrapped by its own axis first; a resident index out of its axis's range
    makes the combined index out of range, so the write is dropped as for
    one index array. Returns (index, shape, offset, strides) for the
    scatter."""
    n = len(idx)
    dims, st = view.shape[:n], _array.elem_strides(view)
    lo = view._offset + sum(min(0, (d - 1) * s) for d, s in zip(dims, st[:n]))
    hi = view._offset + sum(max(0, (d - 1) * s) for d, s in zip(dims, st[:n]))
    span = hi - lo + 1
    try:
        np.broadcast_shapes(*(np.shape(i) for i in idx))
    except ValueError:
        raise IndexError("shape mismatch: indexing arrays could not be broadcast together with "
                         "shapes " + " ".join(str(np.shape(i)) for i in idx)) from None
    wide = _I32 if span + hi < 2**31 else np.dtype(np.int64)
    g = c.g
    total = bad = None
    for j, i in enumerate(idx):
        iv = _index_value(c, i, dims[j])
        iv = g.cast(iv, wide) if iv.dtype != wide else iv
        d = g.const(dims[j], wide)
        iv = g.op("select", [g.op("lt", [iv, g.const(0, wide)], _BOOL),
                             g.op("add", [iv, d], wide), iv], wide)
        if isinstance(i, _array.ndarray):
            out = g.op("lor", [g.op("lt", [iv, g.const(0, wide)], _BOOL),
                                      g.op("ge", [iv, d], _BOOL)], _BOOL)
            bad = out if bad is None else g.op("lor", [bad, out], _BOOL)
        term = g.op("mul", [iv, g.const(st[j], wide)], wide)
        total = term if total is None else g.op("add", [total, term], wide)
    total = g.op("add", [total, g.const(view._offset - lo, wide)], wide)
    if bad is not None:
        total = g.op("select", [bad, g.const(span, wide), total], wide)
    shape = (span,) + tuple(view.shape[n:])
    return total, shape, lo, (1,) + tuple(st[n:])


def _mask_set(a, mask, value):
    m = _mask_prefix(a, mask)
    rest = a.shape[m.ndim:]
    scalar = np.ndim(value) == 0 and not isinstance(value, _array.ndarray) or \
        (isinstance(value, _array.ndarray) and value.ndim == 0)
    if not scalar:
        cum, count = _positions(a, m)
    c = _arrayops.Call("mask_assign")
    c.note(a)
    c.note(m)
    c.note(value)
    mv = c.array(m)
    mb = c.g.broadcast(c.g.reshape(mv, tuple(m.shape) + (1,) * len(rest)), a.shape)
    xv = c.array(a)
    if scalar:
        vv = c.operand(value if not isinstance(value, _array.ndarray) else value, a.dtype)
        vv = c.g.cast(vv, a.dtype) if a.dtype != _BOOL else vv
    else:
        src = c.operand(value, a.dtype)
        src = c.g.cast(src, a.dtype)
        want = (count,) + rest
        try:
            np.broadcast_shapes(src.shape, want)
        except ValueError:
            raise ValueError(f"NumPy boolean array indexing assignment cannot assign "
                             f"{src.shape} input values to the {count} output values where the "
                             f"mask is true") from None
        src = c.g.broadcast(src, want)
        cv = c.g.reshape(c.array(cum), tuple(m.shape))
        j = c.g.op("max", [c.g.op("sub", [cv, c.g.const(1, _I32)], _I32), c.g.const(0, _I32)], _I32)
        vv = c.g.take(src, j, 0) if count else c.g.broadcast(c.g.const(0, a.dtype), a.shape)
    r = c.g.op("select", [mb, vv, xv], a.dtype)
    c.run(c.result(r, a))


# ---------------------------------------------------------------- take


def _wrap_or_clip(idx, n, mode):
    """take's mode='wrap' / 'clip' on host or resident indices: every
    result is in [0, n); an empty axis has no index to give (NumPy's
    IndexError unless there are no indices)."""
    resident = isinstance(idx, (_array.ndarray, _graph.Traced))
    if n == 0:
        if (math.prod(idx.shape) if resident else np.size(idx)):
            raise IndexError("vp.take: cannot do a non-empty take from an empty axis")
        return idx
    if not resident:
        idx = np.asarray(idx)
        return np.mod(idx, n) if mode == "wrap" else np.clip(idx, 0, n - 1)
    if mode == "wrap":
        return idx % n  # Python's modulo (vp.remainder): never negative for n > 0
    return _array._ops.clip(idx, 0, n - 1)


def take(a, indices, axis=None, out=None, mode="raise", *, context=None):
    """vp.take(a, indices, axis=None, out=None, mode='raise', *, context=None):
    numpy.take on the GPU: a gather (array.take) along `axis`, of the
    flattened array when axis is None. NumPy in -> NumPy out, resident in ->
    resident out; inside vp.jit it traces to array.take. mode='raise': an
    out-of-range host index raises IndexError; 'wrap' takes indices modulo
    the axis length, 'clip' clamps them to [0, n - 1] (negative ones too),
    as NumPy."""
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"vp.take: mode={mode!r}: expected 'raise', 'wrap' or 'clip'")
    host = not isinstance(a, (_array.ndarray, _graph.Traced))
    if host:
        a = _array.asarray(np.asarray(a), context=context)
    if isinstance(indices, (list, tuple)) or np.isscalar(indices):
        indices = np.asarray(indices)
        if not indices.size:
            indices = indices.astype(_I32)  # take(a, []): NumPy's empty integer index
    if axis is None:
        a = a.reshape(-1)
        ax = 0
    else:
        ax = int(axis)
        if not -a.ndim <= ax < a.ndim:
            raise _errors.AxisError(ax, a.ndim, "vp.take: axis")
        ax %= a.ndim
    idx = indices if isinstance(indices, (_array.ndarray, _graph.Traced)) or np.ndim(indices) \
        else int(indices)
    if mode != "raise":
        idx = _wrap_or_clip(idx, a.shape[ax], mode)
    r = a[(slice(None),) * ax + (idx,)]
    if isinstance(r, _graph.Traced):
        if out is not None:
            raise TypeError("vp.take: out= is not supported inside vp.jit (return the result)")
        return r
    if not isinstance(r, _array.ndarray):
        r = _array.asarray(r)
    if out is not None:
        if tuple(out.shape) != tuple(r.shape):
            raise ValueError(f"vp.take: out has shape {tuple(out.shape)}, the result "
                             f"{tuple(r.shape)}")
        if isinstance(out, np.ndarray):
            np.copyto(out, r.numpy(), casting="same_kind")
        else:
            out[...] = r
        return out
    return r.numpy() if host else r


# ---------------------------------------------------------------- transpose


def transpose(a, axes=None):
    """vp.transpose(a, axes=None):
    A transposed view (resident arrays: no copy)."""
    if _graph.is_traced(a):
        return a.transpose(axes)
    if isinstance(a, np.ndarray):
        return np.transpose(a, axes)
    nd = a.ndim
    axes = tuple(reversed(range(nd))) if axes is None else \
        tuple(_errors.axis(x, nd, "vp.transpose") for x in axes)  # x.T(-3, 0): NumPy's AxisError
    if sorted(axes) != list(range(nd)):
        raise ValueError("axes don't match array")
    st = _array.elem_strides(a)
    b = _Basic([a.shape[x] for x in axes], a._offset, [st[x] for x in axes])
    return _view(a, b)
