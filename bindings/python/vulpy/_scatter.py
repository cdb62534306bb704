"""ufunc.at on the device (issue 19): np.add.at, subtract.at,
multiply.at, maximum.at, minimum.at, the unbuffered in-place a[indices]
op= b in which a repeated index counts once per occurrence (a[indices] +=
b counts it once).

The element positions are the index array itself for a 1-D a (negative
indices wrapped, NumPy's IndexError), else VulPy's own indexing of an
arange of a's size (so slices, integer arrays, masks, negative indices and
NumPy's IndexError all follow a[indices]); each value is then applied by a kernel
with one atomic per value, in the kernel language (SOURCE, CAS, below):
integers add / max / min with atomic_add / max / min, float32 adds with
atomic_add; the rest (integer products, float products, float max / min,
float64 sums) by a compare-exchange loop on the element's bits (floats: a
uint32 / uint64 view of a's buffer, ndarray.view); int8 / int16 / uint8 /
uint16 / bool in an int32 copy and float16 in a float32 copy, cast back
after (integers wrap as NumPy's, a float16 sum rounds once where NumPy
rounds each operation). The order of the
additions is the GPU's, so float sums may differ from NumPy's in the last
bits (as CuPy's scatter_add). docs/python-api.md, "Convenience mode: ufuncs".
"""
import math

import numpy as np

from . import _array

_I32, _U32 = np.dtype(np.int32), np.dtype(np.uint32)
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_WIDE = {"b": _I32, "i1": _I32, "i2": _I32, "u1": _I32, "u2": _I32, "f2": _F32}

SOURCE = r"""
import vulpy as vp


@vp.kernel(local_size_x=256)
def add(a: vp.Buffer, idx: vp.Buffer[vp.uint32], v: vp.Buffer, n: vp.uint32,
        i0: vp.uint32):
    i = vp.global_id() + i0
    if i < n:
        vp.atomic_add(a, idx[i], v[i])


@vp.kernel(local_size_x=256)
def maximum(a: vp.Buffer, idx: vp.Buffer[vp.uint32], v: vp.Buffer, n: vp.uint32,
            i0: vp.uint32):
    i = vp.global_id() + i0
    if i < n:
        vp.atomic_max(a, idx[i], v[i])


@vp.kernel(local_size_x=256)
def minimum(a: vp.Buffer, idx: vp.Buffer[vp.uint32], v: vp.Buffer, n: vp.uint32,
            i0: vp.uint32):
    i = vp.global_id() + i0
    if i < n:
        vp.atomic_min(a, idx[i], v[i])
"""

# compare-exchange on an element's bits: a retry only follows another
# invocation's success on that element, so the loop ends (lavapipe's
# 65,535 back-edges are never near: it runs a few workgroups at once).
# @F@ the value type, @U@ the word the bits live in (@F@ itself for
# integers), @EXPR@ NumPy's op of the element f and the value w
CAS = r"""
@vp.kernel(local_size_x=256)
def cas_@NAME@(u: vp.Buffer[vp.@U@], idx: vp.Buffer[vp.uint32], v: vp.Buffer[vp.@F@],
               n: vp.uint32, i0: vp.uint32):
    i = vp.global_id() + i0
    if i < n:
        j = idx[i]
        w = v[i]
        old = vp.atomic_load(u, j)
        done = False
        while not done:
            f = @IN@
            new = @OUT@
            prev = vp.atomic_compare_exchange(u, j, old, new)
            done = prev == old
            old = prev
"""

# NumPy's add, multiply, maximum, minimum (a NaN operand wins)
_EXPR = {"add": "f + w", "multiply": "f * w",
         "maximum": "vp.select(f >= w or vp.isnan(f), f, w)",
         "minimum": "vp.select(f <= w or vp.isnan(f), f, w)"}
_WORD = {"float32": "uint32", "float64": "uint64"}
_NS = {}


def _kernels(key="base"):
    """The namespace of kernels for key: "base" (the atomics), or (op,
    dtype name) for a compare-exchange loop."""
    ns = _NS.get(key)
    if ns is None:
        import linecache
        if key == "base":
            src, tag = SOURCE, "scatter"
        else:
            op, f = key
            u = _WORD.get(f, f)
            flt = f in _WORD
            body = CAS.replace("@IN@", "vp.bitcast(old, vp.@F@)" if flt else "old")
            body = body.replace("@OUT@", f"vp.bitcast({_EXPR[op]}, vp.@U@)" if flt else _EXPR[op])
            src = "import vulpy as vp\n" + body
            src = src.replace("@NAME@", op).replace("@F@", f).replace("@U@", u)
            tag = f"scatter-{op}-{f}"
        name = f"<vulpy-{tag}>"
        linecache.cache[name] = (len(src), None, src.splitlines(True), name)
        ns = {"__name__": "_vulpy_" + tag.replace("-", "_")}
        exec(compile(src, name, "exec"), ns)
        _NS[key] = ns
    return ns


def _positions(a, indices, ops, ctx):
    """The flat element positions a[indices] reaches (uint32, resident).
    A 1-D a with one integer index array (NumPy's or resident): the
    indices themselves, negative ones wrapped, checked against a's length
    (NumPy's IndexError); anything else: VulPy's own indexing of an arange
    of a's size (slices, masks, several axes), which costs a's size in
    memory and one pass (a 10^7-element a took a 40 MB arange per call)."""
    key = indices[0] if isinstance(indices, tuple) and len(indices) == 1 else indices
    if a.ndim == 1 and isinstance(key, (np.ndarray, _array.ndarray)) and \
            np.dtype(key.dtype).kind in "iu":
        n = a.size
        if isinstance(key, np.ndarray):
            h = key.astype(np.int64)
            if h.size and (int(h.min()) < -n or int(h.max()) >= n):
                bad = int(h.min()) if int(h.min()) < -n else int(h.max())
                raise IndexError(f"index {bad} is out of bounds for axis 0 with size {n}")
            return ops.asarray(np.where(h < 0, h + n, h).astype(_U32), context=ctx)
        if key._ctx is not ctx:
            raise ValueError("vp.ufunc.at: the indices live in another vp.Context than a")
        k = key.astype(np.int64)
        if k.size:
            lo, hi = int(ops.min(k)), int(ops.max(k))
            if lo < -n or hi >= n:
                raise IndexError(f"index {lo if lo < -n else hi} is out of bounds for axis 0 "
                                 f"with size {n}")
        return ops.where(k < 0, k + n, k).astype(_U32)
    pos = ops.arange(a.size, dtype=_U32, context=ctx).reshape(a.shape)[indices]
    return pos if isinstance(pos, _array.ndarray) else ops.asarray(np.asarray(pos, _U32),
                                                                    context=ctx)


def at(uf, a, indices, b):
    """uf.at(a, indices, b) for uf add, subtract, multiply, maximum or
    minimum (Ufunc.at)."""
    name = uf.name
    if name not in ("add", "subtract", "multiply", "maximum", "minimum"):
        raise NotImplementedError(f"vp.{name}.at is not supported (at is: add, subtract, "
                                  f"multiply, maximum, minimum)")
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
    pos = _positions(a, indices, ops, ctx)
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
    op = "add" if name == "subtract" else name
    if wide.kind in "iu" and op != "multiply":
        # atomic add / max / min on the integer (int8 & co. in int32: a sum
        # wraps to the same low bits, a max or min is exact)
        k, target = _kernels()[op], t.ravel()
    elif wide.kind in "iu":
        k, target = _kernels((op, wide.name))[f"cas_{op}"], t.ravel()
    elif op == "add" and wide == _F32:
        k, target = _kernels()["add"], t.ravel()
    else:  # floats: compare-exchange on the bits (a uint view of the buffer)
        k, target = _kernels((op, wide.name))[f"cas_{op}"], t.ravel().view(_WORD[wide.name])
    block = 65535 * 256  # elements a dispatch (the x workgroup count every device takes)
    for i0 in range(0, n, block):
        k(target, pos, v, n=n, i0=i0, dispatch=(math.ceil(min(block, n - i0) / 256) * 256,))
    if t is not a:
        a[...] = (t != 0) if dt.kind == "b" else t.astype(dt)
    return None
