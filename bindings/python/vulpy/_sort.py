"""Sorting and searching (issue 19): vp.sort, vp.argsort, ndarray.sort /
ndarray.argsort, vp.unique, vp.searchsorted, on the device
(docs/python-api.md, "Sorting", is the reference).

sort and argsort are a stable LSD radix sort with 8-bit digits, all passes
in one recording: onesweep (_sort_onesweep.py; discrete GPUs) or
reduce-then-scan (_sort_kernels.py; lavapipe, and the fallback when a
onesweep workgroup gives up waiting); _path() chooses. The sorted axis is
moved last and copied C-contiguous; each row is sorted on its own. unique
and searchsorted compose the sort with the array path (a stable argsort, a
gather, a boolean-mask compaction, a cumsum) and one binary search kernel.
NumPy in -> NumPy out; resident in -> resident out.
"""
import os

import numpy as np

from . import (_array, _arrayops, _errors, _indexing, _launch, _reduce, _setops, _shapeops,
               _sort_kernels, _sort_onesweep, _ufunc)

_nd = _array.ndarray
_I64 = np.dtype(np.int64)
_U32 = np.dtype(np.uint32)
# dtype -> (key word, mode, key bits); bool is a uint32 word 0 / 1
_KEYS = {np.dtype(np.float32): ("uint32", 2, 32), np.dtype(np.float64): ("uint64", 2, 64),
         np.dtype(np.int32): ("uint32", 1, 32), np.dtype(np.int64): ("uint64", 1, 64),
         np.dtype(np.uint32): ("uint32", 0, 32), np.dtype(np.uint64): ("uint64", 0, 64),
         np.dtype(np.bool_): ("uint32", 0, 4)}
# issue 19: the small dtypes sort (and search) as their 32-bit widening
_WIDENED = {np.dtype(t): np.dtype(w) for t, w in (
    (np.int8, np.int32), (np.int16, np.int32), (np.uint8, np.uint32), (np.uint16, np.uint32),
    (np.float16, np.float32))}
_grid = _launch.rows_grid


# PROFILE (bench/bench_sort.py's breakdown): the sort's recordings carry
# GPU timestamps, and after each sort last_times lists (kernel name, GPU
# ms) per dispatch, in order
PROFILE = False
last_times = []


class _Rec(_launch.Recorder):
    """A recording of the sort's dispatches (one submission); with
    PROFILE, run() leaves their GPU times in last_times."""

    def __init__(self, ctx):
        super().__init__(ctx, PROFILE and ctx.info["limits"].get("timestamps", False))

    def run(self):
        global last_times
        self.rec.run()
        if self.prof:
            last_times = list(zip(self.names, (ns / 1e6 for ns in self.rec.times())))


# which radix sort runs (issue 19; docs/python-api.md, "Sorting"): "onesweep",
# "rts" (reduce-then-scan) or "auto" (onesweep on discrete GPUs). SORT_PATH
# (tests) overrides VULPY_SORT; last_path says what ran ("onesweep", "rts",
# or "onesweep->rts" when a workgroup gave up waiting).
SORT_PATH = None
last_path = None


def _path(ctx, n, word):
    want = SORT_PATH or os.environ.get("VULPY_SORT", "auto") or "auto"
    if want not in ("auto", "onesweep", "rts"):
        raise ValueError(f"VULPY_SORT must be 'auto', 'onesweep' or 'rts' (got {want!r})")
    lim = ctx.info["limits"]
    sg = lim.get("subgroup_size") or 0
    # the kernels are built for one subgroup size: a device that may pick
    # another per pipeline (Intel: 8-32, AMD RDNA: 32/64) is not able
    fixed = lim.get("min_subgroup_size", sg) == sg == lim.get("max_subgroup_size", sg)
    able = (all(ctx.has(f) for f in ("subgroup_ballot", "subgroup_shuffle",
                                     "subgroup_arithmetic"))
            and sg in (8, 16, 32) and fixed and n < 1 << 30)  # 30-bit counts in status words
    if want == "rts" or not able:
        return "rts"
    return "onesweep" if want == "onesweep" or ctx.kind == "dgpu" else "rts"


def radix_sort(keys, values=False, copy_in=False):
    """Sorts every row of the C-contiguous resident 2-D array `keys` (a
    fresh copy the caller owns; with copy_in, an array left as it is: the
    recording copies it first) stably; returns (sorted keys, the row
    positions they came from as uint32 or int64, or None)."""
    global last_path
    rows, n = keys.shape
    ctx = keys._ctx
    word, mode, bits = _KEYS[np.dtype(keys.dtype)]
    if rows * n >= 1 << 32:
        raise NotImplementedError(f"vp.sort: {rows * n} elements; the radix sort indexes with "
                                  f"32-bit integers (fewer than 2**32 elements)")
    if word == "uint64":
        ctx.require("int64", f"vp.sort of {keys.dtype}")
    if _path(ctx, n, word) == "onesweep":
        r = _sort_onesweep.sort_rows(keys, values, copy_in, word, mode, bits, _Rec, _grid)
        if r is not None:
            last_path = "onesweep"
            return r
        last_path = "onesweep->rts"
    else:
        last_path = "rts"
    ns = _sort_kernels.kernels(word, mode)
    tile = 128 * (8 if word == "uint64" else 16)
    tpr = -(-n // tile)               # tiles per row
    ntiles = rows * tpr
    mem = keys.memory
    # every word of these is written by a pass before it is read: no zeroing
    other = _array._result(keys.shape, keys.dtype, mem, ctx)
    h = _array._result((ntiles * 256,), _U32, mem, ctx)
    # the column scan's levels: (buffer, entries per row); 32 entries of a
    # level sum to one of the next, until a row has at most 32
    levels = [(h, tpr)]
    while levels[-1][1] > 32:
        ln = -(-levels[-1][1] // 32)
        levels.append((_array._result((rows * ln * 256,), _U32, mem, ctx), ln))
    if values:
        va = _array._result(keys.shape, _U32, mem, ctx)
        vb = _array._result(keys.shape, _U32, mem, ctx)
    else:  # scatter's payload bindings, never touched (vals=0)
        va = _array.empty((4,), _U32, memory=mem, context=ctx)
        vb = _array.empty((4,), _U32, memory=mem, context=ctx)
    rec = _Rec(ctx)
    if copy_in:  # the copy in the sort's own submission (no submission of its own)
        src, keys = keys, _array._result(keys.shape, keys.dtype, mem, ctx)
        rec.rec.copy(keys._buf, 0, src._buf, 0, src.nbytes)
    tg, rg = _grid(ntiles), _grid(rows)
    kin, kout = keys, other
    for p in range(-(-bits // 8)):
        sh = 8 * p
        rec(ns["hist"], (kin, h), tg, n=n, tpr=tpr, ntiles=ntiles, gx=tg[0], sh=sh)
        for (src, slen), (dst, dlen) in zip(levels, levels[1:]):
            g = _grid(rows * dlen)
            rec(ns["col_reduce"], (src, dst), g, slen=slen, dlen=dlen, count=rows * dlen,
                gx=g[0])
        rec(ns["col_scan"], (levels[-1][0],), rg, n=n, tlen=levels[-1][1], rows=rows, gx=rg[0])
        for (src, slen), (dst, dlen) in reversed(list(zip(levels, levels[1:]))):
            g = _grid(rows * dlen)
            rec(ns["col_down"], (src, dst), g, slen=slen, dlen=dlen, count=rows * dlen,
                gx=g[0])
        rec(ns["scatter"], (kin, kout, vb, va, h), tg, n=n, tpr=tpr, ntiles=ntiles, gx=tg[0],
            sh=sh, vals=int(values), first=int(p == 0))
        if values:
            va, vb = vb, va
        kin, kout = kout, kin
    rec.run()
    return kin, (vb if values else None)


# ------------------------------------------------------------------ arguments
def _prep(a, name):
    if isinstance(a, _nd):
        return a
    return np.asarray(a)


def _check_kind(kind, stable, name):
    # NumPy reads the first letter (q, h, m, s); every kind is the stable
    # radix sort here
    if kind is not None and not (isinstance(kind, str) and kind[:1].lower() in "qhms" and kind):
        raise ValueError(f"sort kind must be one of 'quick', 'heap', or 'stable' (got {kind!r})")
    if stable is not None and kind is not None:
        raise ValueError("`kind` and `stable` parameters can't be provided at the same time. "
                         "Use only one of them.")


def _check_order(order, name):
    if order is not None:
        raise ValueError(f"{name}: order= sorts structured arrays by field; VulPy's arrays have "
                         f"no fields (order must be None)")


def _axis(a, axis):
    return None if axis is None else _errors.axis(axis, a.ndim)


def _rows(a, axis):
    """(2-D array with the axis last, shape with the axis last, copied):
    a C-contiguous copy of a, or a itself reshaped when it is C-contiguous
    already (copied = False: radix_sort copies it in its own recording)."""
    t = a.reshape(-1) if axis is None else a
    if axis is not None and axis != a.ndim - 1:
        t = a.transpose(tuple(d for d in range(a.ndim) if d != axis) + (axis,))
    copied = not t.contiguous
    x = t.copy() if copied else t
    shape = tuple(x.shape)
    n = shape[-1]
    rows = x.size // n if n else 0
    return x.reshape((rows, n)), shape, copied


def _back(r, shape, axis, ndim):
    """r (rows of the sorted axis) in the input's layout (a C-contiguous array)."""
    r = r.reshape(shape)
    if axis is None or axis == ndim - 1:
        return r
    perm = list(range(ndim - 1))
    perm.insert(axis, ndim - 1)
    return r.transpose(tuple(perm)).copy()


def _unsupported(dt, name):
    names = ", ".join(d.name for d in _KEYS)
    return TypeError(f"{name}: {np.dtype(dt).name} is not supported on the GPU (supported: "
                     f"{names})")


def _check_host(dt, name):
    """A NumPy input's dtype: one the device sorts (or widens), else TypeError."""
    if np.dtype(dt) not in _KEYS and np.dtype(dt) not in _WIDENED:
        raise _unsupported(dt, name)


def _many_rows(x):
    """Whether the rows of x are too many for radix_sort's per-row tiles:
    every row takes a whole tile and 256 histogram words per tile, so a
    (2**17, 2) array wanted 128 MiB of histograms (lavapipe's binding
    limit) and a (2**20, 1) one 1 GiB (a VulkanError)."""
    rows, n = x.shape
    dt = np.dtype(x.dtype)
    word = _KEYS[_WIDENED.get(dt, dt)][0]
    tile = 128 * (8 if word == "uint64" else 16)
    return rows > 1 and 1024 * rows * -(-n // tile) > x._ctx.limits["max_storage_buffer_range"]


def _sort_many_rows(x, values):
    """Every row of the C-contiguous 2-D x sorted stably as radix_sort
    does, by two sorts of the whole array seen as one row: the keys
    (positions p1), then the row numbers p1 // n in that order (stable:
    each row's keys stay in key order, ties in input order). Returns
    (sorted keys, int64 positions within the row, or None)."""
    rows, n = x.shape
    total = rows * n
    k1, p1 = radix_sort(x.reshape((1, total)), True, copy_in=True)
    p1 = (p1 if p1.dtype == _I64 else p1.astype(_I64)).reshape(total)
    rid = _ufunc.floor_divide(p1, n).astype(_U32)  # row numbers < 2**32 (radix_sort's bound)
    _, p2 = radix_sort(rid.reshape((1, total)), True)
    p2 = (p2 if p2.dtype == _I64 else p2.astype(_I64)).reshape(total)
    keys = _indexing.take(k1.reshape(total), p2).reshape((rows, n))
    if not values:
        return keys, None
    pos = _ufunc.remainder(_indexing.take(p1, p2), n)
    return keys, pos.reshape((rows, n))


def _sorted(a, axis, values, name="vp.sort"):
    """(sorted array, int64 indices or None) of resident a along axis."""
    dt = np.dtype(a.dtype)
    if dt not in _KEYS:
        # narrower numbers (should the array level have them) sort exactly
        # as their 32-bit widening
        wide = {"i": np.int32, "u": np.uint32, "f": np.float32}.get(dt.kind)
        if wide is None or dt.itemsize >= 4:
            raise _unsupported(dt, name)
        r, idx = _sorted(a.astype(wide), axis, values, name)
        return r.astype(dt), idx
    ndim = a.ndim
    x, shape, copied = _rows(a, axis)
    if x.size == 0:
        x = x if copied else x.copy()  # a new array, as NumPy's
        idx = _array.empty(shape, _I64, context=a._ctx) if values else None
        return _back(x, shape, axis, ndim), (idx if idx is None else _back(idx, shape, axis, ndim))
    if _many_rows(x):
        k, v = _sort_many_rows(x, values)
    else:
        k, v = radix_sort(x, values, copy_in=not copied)
    k = _array.ndarray(k._buf, tuple(x.shape), dt, a._ctx) if k.dtype != dt else k
    out = _back(k, shape, axis, ndim)
    if not values:
        return out, None
    v = v if v.dtype == _I64 else v.astype(_I64)  # (onesweep's last pass may write int64)
    return out, _back(v, shape, axis, ndim)


def _sort_call(name, a, axis, kind, order, stable, values):
    """vp.sort (values False: the sorted keys) or vp.argsort (values True:
    the indices) of `a`; NumPy in -> NumPy out (upload, sort on the
    device, download)."""
    a = _prep(a, name)
    name = f"vp.{name}"
    _check_kind(kind, stable, name)
    _check_order(order, name)
    host = not isinstance(a, _nd)
    if a.ndim == 0 and (values or axis is None):
        a = a.reshape(1)  # NumPy's argsort sees a 0-d array as 1-d (sort: axis=None only)
    if a.dtype.kind == "c":
        _axis(a, axis)  # NumPy's errors before any upload
        r = _complex_sorted(_array.asarray(a) if host else a, axis, values)
        return r.numpy() if host else r
    if host:
        _check_host(a.dtype, name)
        _axis(a, axis)  # NumPy's errors before the upload
        a = _array.asarray(a)
    r = _sorted(a, _axis(a, axis), values, name)[int(values)]
    return r.numpy() if host else r


def _complex_sorted(a, axis, values):
    """sort (values False) or argsort (True) of complex a along axis in
    NumPy's order: by real part, then imaginary part; values with a NaN
    imaginary part after all others (by real part), then NaN real parts
    (by imaginary part), then both NaN. A lexsort of (class, real, imag),
    stable; the sort then gathers both parts of each element together."""
    C = _arrayops.COMPLEX
    if axis is None:
        a, axis = a.reshape(-1), 0
    nd = a.ndim
    ax = _errors.axis(axis, nd)
    re, im = C.real(a), C.imag(a)
    cls = _ufunc.add(_ufunc.multiply(_ufunc.isnan(re).astype(np.int32), 2),
                     _ufunc.isnan(im).astype(np.int32))
    idx = lexsort((im, re, cls), axis=ax)
    if values:
        return idx
    moved = a.swapaxes(ax, nd - 1)
    n = moved.shape[-1]
    m = int(np.prod(moved.shape[:-1], dtype=np.int64))
    rid = _array.arange(m, dtype=np.int64, context=a._ctx).reshape(m, 1)
    rows = moved if moved.contiguous else moved.copy()
    r = rows.reshape(m, n)[rid, idx.swapaxes(ax, nd - 1).reshape(m, n)]
    r = r.reshape(moved.shape).swapaxes(ax, nd - 1)
    return r if r.contiguous else r.copy()


# ------------------------------------------------------------------ the API
def sort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False):
    """vp.sort(a, axis=-1, kind=None, order=None, *, stable=None,
    descending=False):
    numpy.sort on the GPU: a sorted copy along `axis` (None: flattened).
    Stable whatever `kind` says (a radix sort; NumPy's order: NaN last,
    -0.0 and 0.0 equal and left in input order). descending=True (the
    array API's): largest first, NaN first."""
    r = _sort_call("sort", a, axis, kind, order, stable, False)
    return _descending(r, axis) if descending else r


def argsort(a, axis=-1, kind=None, order=None, *, stable=None, descending=False):
    """vp.argsort(a, axis=-1, kind=None, order=None, *, stable=None,
    descending=False):
    numpy.argsort on the GPU: int64 indices that sort `a` along `axis`
    (None: flattened), those of NumPy's kind='stable'. descending=True
    (the array API's): the indices of the largest first, equal elements
    still in input order (stable), NaN first."""
    if not descending:
        return _sort_call("argsort", a, axis, kind, order, stable, True)
    # the stable ascending order of the reversed input, reversed, is the
    # stable descending order: index p of the reversed input is n - 1 - p
    a = _prep(a, "argsort")
    if axis is None or a.ndim == 0:
        a, axis = a.reshape(-1), 0
    ax = _axis(a, axis)
    j = _sort_call("argsort", _flip(a, ax), ax, kind, order, stable, True)
    return _array._ops._ufunc.subtract(a.shape[ax] - 1, _flip(j, ax))


def _flip(x, axis):
    f = np.flip if isinstance(x, np.ndarray) else _array._ops._shapeops.flip
    return f(x, axis)


def _descending(r, axis):
    """The ascending sort r (of axis `axis`, None: flattened) reversed."""
    return _flip(r, -1 if axis is None or r.ndim == 0 else axis) if r.ndim else r


def sort_in_place(self, axis=-1, kind=None, order=None, *, stable=None):
    """ndarray.sort: sorts in place along `axis` (stable; see vp.sort)."""
    _check_kind(kind, stable, "ndarray.sort")
    _check_order(order, "ndarray.sort")
    _array.check_writable(self, "ndarray.sort")
    if axis is None:  # NumPy's error
        raise TypeError("'NoneType' object cannot be interpreted as an integer")
    if self.dtype.kind == "c":
        r = _complex_sorted(self, axis, False)
    else:
        r = _sorted(self, _axis(self, axis), False)[0]
    if r.size:
        self[...] = r


# ------------------------------------------------------------------ searching
def searchsorted(a, v, side="left", sorter=None):
    """vp.searchsorted(a, v, side='left', sorter=None):
    numpy.searchsorted on the GPU: int64 insertion points of `v` into
    the sorted 1-D `a` (NumPy's order: NaN last). One binary search per
    element of v, in one dispatch."""
    resident = isinstance(a, _nd) or isinstance(v, _nd)
    ctx = a._ctx if isinstance(a, _nd) else v._ctx if isinstance(v, _nd) else None
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right' (got {side!r})")
    if not resident and np.result_type(np.asarray(a), np.asarray(v)).kind != "c":
        _check_host(np.result_type(np.asarray(a), np.asarray(v)), "vp.searchsorted")
    a = a if isinstance(a, _nd) else _array.asarray(np.asarray(a), context=ctx)
    if a.ndim != 1:
        raise ValueError("object too deep for desired array" if a.ndim > 1 else
                         "object of too small depth for desired array")
    if sorter is not None:
        s = sorter if isinstance(sorter, _nd) else np.asarray(sorter)
        if tuple(s.shape) != tuple(a.shape):
            raise ValueError("sorter.size must equal a.size")
        if s.dtype.kind not in "iu" and s.size:
            raise TypeError(f"vp.searchsorted: sorter= must hold integers, got {s.dtype.name}")
        # NumPy's check: an index outside [0, a.size) would be clamped by
        # the gather (a wrong answer); a resident sorter costs one flag read
        if s.size and bool(((s < 0) | (s >= a.size)).any()):
            raise ValueError("Sorter index out of range.")
        if not isinstance(s, _nd):
            s = _array.asarray(s.astype(np.int64), context=a._ctx)
        a = _indexing.take(a, s)
    scalar = not isinstance(v, _nd) and np.ndim(v) == 0
    vv = v if isinstance(v, _nd) else np.asarray(v)
    dt = np.result_type(a.dtype, vv.dtype)
    if dt.kind == "c":
        out = _complex_searchsorted(a, vv, dt, side)
        if not resident:
            r = out.numpy()
            return r[()] if scalar else r
        return out
    if dt == np.dtype(np.bool_):
        dt = _U32
    dt = _WIDENED.get(dt, dt)  # exact: the small dtypes' values and order are kept
    if dt not in _KEYS:
        raise _unsupported(dt, "vp.searchsorted")
    vv = vv if isinstance(vv, _nd) else _array.asarray(vv.astype(dt), context=a._ctx)
    a = a.astype(dt) if a.dtype != dt else (a if a.contiguous else a.copy())
    vv = vv.astype(dt) if vv.dtype != dt else (vv if vv.contiguous else vv.copy())
    shape = tuple(vv.shape)
    out = _array.empty(shape, _I64, context=a._ctx)
    if out.size:
        word, mode, _ = _KEYS[dt]
        ns = _sort_kernels.kernels(word, mode)
        rec = _Rec(a._ctx)
        g = _grid(-(-out.size // 64))
        if a.size == 0:
            out.fill(0)
        else:
            rec(ns["search"], (a, vv.reshape(-1), out), g, n=a.size, nv=out.size,
                right=int(side == "right"), gx=g[0])
            rec.run()
    if not resident:
        r = out.numpy()
        return r[()] if scalar else r
    return out


def _complex_searchsorted(a, v, dt, side):
    """searchsorted of complex v into the sorted complex 1-D a (NumPy's
    order, as _complex_sorted): a and v sorted together by (class, real,
    imaginary, side), where side puts each v before the a elements equal to
    it ('left') or after them ('right'); a v's insertion point is the
    number of a elements before it."""
    ctx = a._ctx
    v = v if isinstance(v, _nd) else _array.asarray(np.asarray(v, dt), context=ctx)
    shape = tuple(v.shape)
    n, m = a.size, v.size
    out = _array.zeros(shape, _I64, context=ctx)
    if m == 0 or n == 0:
        return out
    both = _shapeops.concatenate([a.astype(dt), v.reshape(-1).astype(dt)])
    C = _arrayops.COMPLEX
    re, im = C.real(both), C.imag(both)
    cls = _ufunc.add(_ufunc.multiply(_ufunc.isnan(re).astype(np.int32), 2),
                     _ufunc.isnan(im).astype(np.int32))
    tie = _array.zeros((n + m,), np.int32, context=ctx)
    if side == "left":
        tie[:n] = 1
    else:
        tie[n:] = 1
    order = lexsort((tie, im, re, cls), axis=0)
    isv = _ufunc.greater_equal(order, n)
    before = _reduce.cumsum(_ufunc.logical_not(isv).astype(np.int64))
    flat = out.reshape(-1)
    flat[_ufunc.subtract(order[isv], n)] = before[isv]
    return out


# ------------------------------------------------------------------ unique
def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None,
           *, equal_nan=True, sorted=True):
    """vp.unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None,
    *, equal_nan=True, sorted=True):
    numpy.unique on the GPU: the sorted unique values of the flattened
    array, or with axis=k the unique slices along axis k (_setops.py), and
    optionally the first index of each, the inverse (input shape) and the
    counts. NaNs count as one value (equal_nan=True, NumPy's default)."""
    if axis is not None:  # issue 19: unique slices along an axis (_setops.py)
        return _setops.unique_axis(ar, return_index, return_inverse, return_counts, axis, equal_nan)
    resident = isinstance(ar, _nd)
    if not resident:
        a_np = np.asarray(ar)
        if a_np.dtype.kind != "c":
            _check_host(a_np.dtype, "vp.unique")
        ar = _array.asarray(a_np)
    shape = tuple(ar.shape)
    flat = ar.reshape(-1)
    n = flat.size
    ctx = ar._ctx
    if n == 0:
        res = [flat.copy()]
        if return_index:
            res.append(_array.empty((0,), _I64, context=ctx))
        if return_inverse:
            res.append(_array.empty(shape, _I64, context=ctx))
        if return_counts:
            res.append(_array.empty((0,), _I64, context=ctx))
    else:
        want_perm = return_index or return_inverse
        if ar.dtype.kind == "c":  # NumPy's order; every value with a NaN part is one value
            perm = _complex_sorted(flat, 0, True)
            srt = _indexing.take(flat, perm)
            perm = perm if want_perm else None
        else:
            srt, perm = _sorted(flat, 0, want_perm)
        if n > 1:
            head = _ufunc.not_equal(srt[1:], srt[:-1])
            if np.dtype(ar.dtype).kind in "fc" and equal_nan:
                both = _ufunc.logical_and(_ufunc.isnan(srt[1:]), _ufunc.isnan(srt[:-1]))
                head = _ufunc.logical_and(head, _ufunc.logical_not(both))
            mask = _shapeops.concatenate([_array.ones((1,), np.bool_, context=ctx), head])
        else:
            mask = _array.ones((1,), np.bool_, context=ctx)
        res = _setops.run_results(srt[mask], mask, perm, shape, return_index, return_inverse,
                                  return_counts)
    if not resident:
        res = [r.numpy() for r in res]
    return res[0] if len(res) == 1 else tuple(res)


NAMES = ("sort", "argsort", "searchsorted", "unique")


# ------------------------------------------------------------------ partition
def _kth(kth, n, name):
    """kth as a list of ints, each checked against the axis length n as
    NumPy does (ValueError 'kth(=k) out of bounds (n)')."""
    ks = [kth] if np.ndim(kth) == 0 else list(np.asarray(kth).ravel())
    out = []
    for k in ks:
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
            raise TypeError(f"vp.{name}: kth must be an integer or a sequence of integers, "
                            f"got {k!r}")
        k = int(k)
        if not -n <= k < n:
            raise ValueError(f"vp.{name}: kth(={k}) out of bounds ({n})")
        out.append(k)
    return out


def _partition(name, a, kth, axis, kind, order, values):
    if kind != "introselect":
        raise ValueError(f"vp.{name}: kind must be 'introselect' (NumPy's only one), "
                         f"got {kind!r}")
    _check_order(order, f"vp.{name}")
    shape = np.shape(a) if not isinstance(a, _nd) else a.shape
    size = int(np.prod(shape, dtype=np.int64))
    if axis is None:
        n = size
    else:
        nd = len(shape)
        if nd == 0:
            raise ValueError(f"vp.{name}: a 0-d array cannot be partitioned along an axis "
                             f"(use axis=None)")
        if not -nd <= axis < nd:
            raise np.exceptions.AxisError(axis, nd)
        n = shape[axis]
    _kth(kth, n, name)
    return (argsort if values else sort)(a, axis=axis)


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """vp.partition(a, kth, axis=-1, kind='introselect', order=None):
    numpy.partition on the GPU. The result meets NumPy's contract - the
    element at each kth is the one a sort puts there, smaller ones before,
    larger ones after - by being fully sorted (the stable radix sort of
    vp.sort; CuPy's partition sorts too): the same kth values as NumPy, the
    other positions in sorted order where NumPy leaves them unordered.
    kth out of range is NumPy's ValueError. axis=None: flattened.

        >>> vp.partition(vp.asarray([3, 4, 2, 1]), 2)[2]
        3"""
    return _partition("partition", a, kth, axis, kind, order, False)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """vp.argpartition(a, kth, axis=-1, kind='introselect', order=None):
    numpy.argpartition on the GPU: int64 indices that partition `a` (see
    vp.partition: they fully sort it, ties in input order)."""
    return _partition("argpartition", a, kth, axis, kind, order, True)


def lexsort(keys, axis=-1):
    """vp.lexsort(keys, axis=-1): numpy.lexsort on the GPU: int64 indices
    that sort by the last key first, ties broken by the one before it, and
    so on (a sequence of same-shape arrays, or a 2-D+ array whose first axis
    indexes the keys). One stable argsort per key, last-but-one key first:
    the last key's order is the primary one, as NumPy's. Resident keys in:
    a resident result; NumPy keys: NumPy's lexsort."""
    if isinstance(keys, _nd):
        if keys.ndim == 0:
            raise TypeError("vp.lexsort: need a sequence of keys with len > 0")
        keys = [keys[i] for i in range(keys.shape[0])]
    elif isinstance(keys, (list, tuple)):
        keys = list(keys)
    else:
        return np.lexsort(keys, axis=axis)
    if not any(isinstance(k, _nd) for k in keys):
        return np.lexsort(keys, axis=axis)
    if not keys:
        raise TypeError("vp.lexsort: need a sequence of keys with len > 0")
    ctx = _array.common_context("vp.lexsort", keys)
    keys = [k if isinstance(k, _nd) else _array.asarray(np.asarray(k), context=ctx)
            for k in keys]
    shape = keys[0].shape
    if any(k.shape != shape for k in keys):
        raise ValueError("vp.lexsort: all keys need to be the same shape")
    if len(shape) == 0:  # NumPy: a 0-d int64 0 (after checking axis against 1-d)
        r = lexsort([k.reshape(1) for k in keys], axis)
        return r.reshape(())
    nd = len(shape)
    if not -nd <= axis < nd:
        raise np.exceptions.AxisError(axis, nd)
    ax = axis % nd
    # the sort axis last, the rest as rows: (rows, n)
    rows = [k.swapaxes(ax, nd - 1) for k in keys]
    moved = rows[0].shape
    n = moved[-1]
    m = int(np.prod(moved[:-1], dtype=np.int64))
    rows = [k.reshape(m, n) for k in rows]
    rid = _array.arange(m, dtype=np.int64, context=ctx).reshape(m, 1)
    # least significant key first; each stable sort of the next key, taken
    # in the order so far, keeps that order among its equal values
    idx = argsort(rows[0], axis=-1)
    for k in rows[1:]:
        idx = idx[rid, argsort(k[rid, idx], axis=-1)]
    return idx.reshape(moved).swapaxes(ax, nd - 1)
