"""a[mask] where the mask covers every axis of a (issue 19): one stream
compaction on the device (_compact_kernels.py: count per tile, scan of the
tile counts, scatter), one 4-byte read back of the total in between.

It replaces, for that case, the array path's route (a cumsum of the mask
into an int32 array as long as the mask, the count read back, a scatter
that reads the mask, the cumsum and the data again): per element this
reads the mask twice and the data once and writes only the selected
elements, where the cumsum route also wrote and read 4 bytes of positions
per element through a multi-level tiled scan. Elements move as their raw
32-bit words (one or two per element), so every dtype whose storage is 4
or 8 bytes takes it; other dtypes (the 8/16-bit ones), masks on leading
axes only, and arrays of 2^31 elements or more return None (the caller
takes the array path).
"""
import numpy as np

from . import _array
from ._launch import Recorder as _Rec, rows_grid as _grid

_nd = _array.ndarray
_U32 = np.dtype(np.uint32)


def mask_select(a, m):
    """a[m] for a resident a and a mask m (resident or NumPy) of a's shape,
    or None where this path does not apply."""
    from . import _compact_kernels as K
    n = a.size
    itemsize = _array.storage_dtype(a.dtype).itemsize
    if a.ndim == 0 or tuple(m.shape) != tuple(a.shape) or itemsize not in (4, 8) or \
            n >= 2**31 - K.T or a.dtype.kind == "c":
        return None
    ctx = a._ctx
    if not isinstance(m, _nd):
        m = _array.asarray(np.ascontiguousarray(m, dtype=bool), context=ctx)
    elif m._ctx is not ctx:
        raise _array.mixed_contexts("vp.ndarray.__getitem__", ctx, m._ctx)
    if n == 0:
        return _array.empty((0,), a.dtype, memory=a.memory, context=ctx)
    x = a if a.contiguous else a.copy()
    return _compact(m, x, a.dtype, a.memory, itemsize // 4)


def mask_indices(m):
    """numpy.flatnonzero of a resident bool array m: the int64 flat
    indices of its true elements (one compaction; every length takes the
    same kernels)."""
    from . import _compact_kernels as K
    if m.size >= 2**31 - K.T:
        return None
    if m.size == 0:
        return _array.empty((0,), np.int64, context=m._ctx)
    return _compact(m, m, np.dtype(np.int64), m.memory, 0)


def _compact(m, x, dtype, memory, words):
    """The true elements of mask m (resident bool, x's shape) of x in
    order, as a new 1-D array of dtype: W = words 32-bit words each, or
    their flat indices (words 0, dtype int64)."""
    from . import _compact_kernels as K
    ctx, n = m._ctx, m.size
    mk = m if m.contiguous else m.copy()
    ntiles = -(-n // K.T)
    counts = _array.empty((ntiles,), _U32, context=ctx)
    offs = _array.empty((ntiles + 1,), _U32, context=ctx)
    g = _grid(ntiles)
    rec = _Rec(ctx)
    rec(K.count, (mk._buf, counts._buf), g, n=n, ntiles=ntiles, gx=g[0])
    rec(K.offsets, (counts._buf, offs._buf), (1, 1), ntiles=ntiles, run=-(-ntiles // K.L))
    rec.run()
    total = int(offs[ntiles:].numpy()[0])  # 4 bytes: the result's length
    out = _array.empty((total,), dtype, memory=memory, context=ctx)
    if total:
        rec = _Rec(ctx)
        rec(K.scatter, (mk._buf, x._buf, offs._buf, out._buf), g, n=n, ntiles=ntiles,
            gx=g[0], words=words)
        rec.run()
    return out
