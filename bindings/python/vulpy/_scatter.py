"""ufunc.at on the device (issue 19): np.add.at / np.subtract.at, the
unbuffered in-place a[indices] += b in which a repeated index counts once
per occurrence (a[indices] += b counts it once).

The element positions come from VulPy's own indexing of an arange of a's
size (so slices, integer arrays, masks, negative indices and NumPy's
IndexError all follow a[indices]); each value is then added by a kernel
with one atomic add per value, in the kernel language (SOURCE, below).
32- and 64-bit integers and float32 add with atomic_add; float64 with a
compare-exchange loop on the element's bits (a uint64 copy of a's bits,
written back); int8 / int16 / uint8 / uint16 / bool in an int32 copy and
float16 in a float32 copy, cast back after (integers wrap as NumPy's, a
float16 sum rounds once where NumPy rounds each addition). The order of the
additions is the GPU's, so float sums may differ from NumPy's in the last
bits (as CuPy's scatter_add). docs/python-api.md, "Convenience mode: ufuncs".
"""
import math

import numpy as np

from . import _array

_I32, _U32 = np.dtype(np.int32), np.dtype(np.uint32)
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_WIDE = {"b": _I32, "i1": _I32, "i2": _I32, "u1": _I32, "u2": _I32, "f2": _F32}

SOURCE = r'''
import vulpy as vp


@vp.kernel(local_size_x=256)
def add(a: vp.Buffer, idx: vp.Buffer[vp.uint32], v: vp.Buffer, n: vp.uint32):
    i = vp.global_id()
    if i < n:
        vp.atomic_add(a, idx[i], v[i])


@vp.kernel(local_size_x=256)
def bits_in(a: vp.Buffer[vp.float64], u: vp.Buffer[vp.uint64], n: vp.uint32):
    i = vp.global_id()
    if i < n:
        u[i] = vp.bitcast(a[i], vp.uint64)


@vp.kernel(local_size_x=256)
def bits_out(u: vp.Buffer[vp.uint64], a: vp.Buffer[vp.float64], n: vp.uint32):
    i = vp.global_id()
    if i < n:
        a[i] = vp.bitcast(u[i], vp.float64)


@vp.kernel(local_size_x=256)
def add_f64(u: vp.Buffer[vp.uint64], idx: vp.Buffer[vp.uint32], v: vp.Buffer[vp.float64],
            n: vp.uint32):
    # a retry only follows another invocation's success on the element, so
    # the loop ends (lavapipe's 65,535 back-edges are never near: it runs
    # a few workgroups at once)
    i = vp.global_id()
    if i < n:
        j = idx[i]
        old = vp.atomic_load(u, j)
        done = False
        while not done:
            new = vp.bitcast(vp.bitcast(old, vp.float64) + v[i], vp.uint64)
            prev = vp.atomic_compare_exchange(u, j, old, new)
            done = prev == old
            old = prev
'''
_NS = None


def _kernels():
    global _NS
    if _NS is None:
        import linecache
        name = "<vulpy-scatter>"
        linecache.cache[name] = (len(SOURCE), None, SOURCE.splitlines(True), name)
        ns = {"__name__": "_vulpy_scatter"}
        exec(compile(SOURCE, name, "exec"), ns)
        _NS = ns
    return _NS


def at(uf, a, indices, b):
    """uf.at(a, indices, b) for uf add or subtract (Ufunc.at)."""
    name = uf.name
    if name not in ("add", "subtract"):
        raise NotImplementedError(f"vp.{name}.at is not supported (at is: add, subtract)")
    if not isinstance(a, _array.ndarray):
        if isinstance(b, _array.ndarray) or isinstance(indices, _array.ndarray):
            raise TypeError(f"vp.{name}.at: a is a NumPy array and an operand is resident; "
                            f"make a resident (vp.asarray) or b NumPy")
        return uf.np.at(a, indices, b)
    if b is None:
        raise TypeError(f"vp.{name}.at: second operand needed for ufunc")
    _array.check_writable(a, f"vp.{name}.at")
    ops, ctx, dt = _array._ops, a._ctx, np.dtype(a.dtype)
    if dt.kind == "c":
        raise TypeError(f"vp.{name}.at: complex arrays are not supported")
    if name == "subtract" and dt.kind == "b":
        raise TypeError("numpy boolean subtract, the `-` operator, is not supported, use the "
                        "bitwise_xor, the `^` operator, or the logical_xor function instead.")
    if a.size >= 2 ** 32:
        raise ValueError(f"vp.{name}.at: an array of 2^32 elements or more is not supported")
    bd = b.dtype if hasattr(b, "dtype") else None
    rdt = np.result_type(dt, bd if bd is not None else b)
    if not np.can_cast(rdt, dt, "same_kind"):
        raise TypeError(f"Cannot cast ufunc '{name}' output from {rdt!r} to {dt!r} with "
                        f"casting rule 'same_kind'")
    pos = ops.arange(a.size, dtype=_U32, context=ctx).reshape(a.shape)[indices]
    pos = pos if isinstance(pos, _array.ndarray) else ops.asarray(np.asarray(pos, _U32),
                                                                   context=ctx)
    n = pos.size
    if n == 0:
        return None
    wide = _WIDE.get(dt.str[1:] if dt.kind != "b" else "b", dt)
    v = b if isinstance(b, _array.ndarray) else ops.asarray(np.asarray(b), context=ctx)
    v = ops.broadcast_to(v.astype(rdt), pos.shape).astype(dt if dt.kind != "b" else _I32)
    v = v.astype(wide) if v.dtype != wide else v
    if name == "subtract":
        v = ops.negative(v)
    v = v.ravel().copy() if not v.contiguous else v.ravel()
    pos = pos.ravel().copy() if not pos.contiguous else pos.ravel()
    t = a if (a.contiguous and dt == wide) else a.astype(wide)
    ks = _kernels()
    groups = math.ceil(n / 256)
    if wide == _F64:
        u = ops.empty(t.shape, np.uint64, context=ctx).ravel()
        flat = t.ravel()
        m = flat.size
        ks["bits_in"](flat, u, n=m, dispatch=(math.ceil(m / 256) * 256,))
        ks["add_f64"](u, pos, v, n=n, dispatch=(groups * 256,))
        ks["bits_out"](u, flat, n=m, dispatch=(math.ceil(m / 256) * 256,))
    else:
        ks["add"](t.ravel(), pos, v, n=n, dispatch=(groups * 256,))
    if t is not a:
        a[...] = (t != 0) if dt.kind == "b" else t.astype(dt)
    return None
