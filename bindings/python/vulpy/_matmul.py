"""Linear algebra on the GPU (issue 19): vp.matmul and `@` / `@=`, vp.dot,
vp.vdot, vp.inner, vp.tensordot, vp.einsum, with NumPy's semantics
(docs/python-api.md, "Linear algebra", has the dtypes, views and einsum's
subscripts).

Every product becomes one batched GEMM (_gemm.gemm) over strided views:
an operand's axes are permuted (a view, no copy) and grouped into the
batch, row and contraction axes of the GEMM; a group whose axes cannot be
merged into one stride is the only case that copies (to a contiguous
array, on the device). Batch dimensions that do not merge into one stride
become a host loop of dispatches. einsum contracts pairwise left to
right: letters only one operand has are summed first (vp.sum), diagonals
are strided views, each contraction is a batched GEMM.
"""
import builtins
import itertools
import operator

import numpy as np

from . import _array, _arrayops, _context, _coopmat, _engine, _errors, _gemm, _graph, \
    _indexing, _reduce, _ufunc

_nd = _array.ndarray
_BOOL = np.dtype(np.bool_)


# ---------------------------------------------------------------- helpers

def _compute_dtype(rdt, name):
    """The dtype the GEMM runs in for result dtype rdt."""
    if rdt in _gemm.DTYPES:
        return rdt
    if rdt == _BOOL:
        return np.dtype(np.int32)
    if rdt.kind == "i" and rdt.itemsize < 4:
        return np.dtype(np.int32)
    if rdt.kind == "u" and rdt.itemsize < 4:
        return np.dtype(np.uint32)
    if rdt.kind == "f" and rdt.itemsize < 4:
        return np.dtype(np.float32)
    raise TypeError(f"vp.{name}: dtype {rdt.name} is not supported (supported: "
                    f"{', '.join(d.name for d in _gemm.DTYPES)}, bool)")


def _operand(x, name, k):
    """A resident array or a NumPy array of operand k."""
    if isinstance(x, _nd):
        return x
    a = np.asarray(x)
    if a.dtype.kind not in "biufc":
        raise TypeError(f"vp.{name}: operand {k} has dtype {a.dtype.name}, which VulPy's "
                        f"linear algebra does not support")
    return a


def _dev(x, cdt, ctx):
    """x as a resident array of dtype cdt (no copy when it is one)."""
    if isinstance(x, _nd):
        return x if x.dtype == cdt else x.astype(cdt)
    # ascontiguousarray makes a 0-d array 1-d: keep x's shape (einsum's ',ij')
    return _array.asarray(np.ascontiguousarray(x, dtype=cdt).reshape(np.shape(x)), context=ctx)


_strides = _array.elem_strides


def _any_complex(*xs):
    return builtins.any(getattr(x, "dtype", None) is not None and x.dtype.kind == "c"
                        for x in xs)


def _complex_product(name, fn, ops, out=None, dtype=None, conj_first=False):
    """fn (a real product of one or two operands: matmul, tensordot,
    einsum, ...) of complex operands, from real products of their parts:
    (ar + i ai)(br + i bi) = ar br - ai bi + i (ar bi + ai br), four real
    GEMMs (one per nonzero pair; a real operand has no imaginary part);
    conj_first conjugates the first operand (vdot). The result is complex
    (NumPy's result_type, or dtype=) and goes into out= when given."""
    from . import _complex
    resident = builtins.any(isinstance(x, _nd) for x in ops) or isinstance(out, _nd)
    ctx = _array.common_context(f"vp.{name}", tuple(ops) + (out,)) or _context.resolve(None)
    rdt = np.result_type(*[x.dtype for x in ops]) if dtype is None else np.dtype(dtype)
    if rdt.kind != "c":
        raise TypeError(f"vp.{name}: cannot cast complex operands to {rdt.name} (dtype=)")
    if rdt == np.dtype(np.complex128):
        ctx.require("float64", f"vp.{name} on complex128")
    fdt = _complex.float_of(rdt)
    parts = [_complex._re_im(x, fdt, ctx) for x in ops]
    if conj_first and parts[0][1] is not None:
        parts[0] = (parts[0][0], _ufunc.negative(parts[0][1]))

    def acc(total, term, sign=1):
        if term is None:
            return total
        if total is None:
            return term if sign > 0 else _ufunc.negative(term)
        return (_ufunc.add if sign > 0 else _ufunc.subtract)(total, term)

    if len(parts) == 1:
        (xr, xi), = parts
        re, im = fn(xr), (fn(xi) if xi is not None else None)
    else:
        (ar, ai), (br, bi) = parts
        re = acc(fn(ar, br), fn(ai, bi) if ai is not None and bi is not None else None, -1)
        im = acc(fn(ar, bi) if bi is not None else None, fn(ai, br) if ai is not None else None)
    res = _array._result(tuple(re.shape), rdt, re.memory, ctx)
    dre, dim = _complex.parts(res)
    _complex._put(dre, re)
    _complex._put(dim, im)
    out = _check_out(name, out, tuple(res.shape), rdt, resident)
    return _deliver(res, out, resident, _complex._assign)


def _merge(shape, strides):
    """(size, stride) of axes merged into one, or None when they cannot be."""
    size, stride = 1, 0
    for d, s in zip(shape, strides):
        if d == 1:
            continue
        if size == 1:
            size, stride = d, s
        elif stride == s * d:
            size, stride = size * d, s
        else:
            return None
    return size, stride


def _grouped(x, groups):
    """x (resident) with its axes in `groups` (lists of axes) each merged
    into one axis: (x', sizes, strides); x' is x or a contiguous copy of x
    in the groups' axis order when a group does not merge (or a stride is
    negative)."""
    st = _strides(x)
    out = [_merge([x.shape[a] for a in g], [st[a] for a in g]) for g in groups]
    if builtins.any(o is None for o in out) or builtins.any(s < 0 for s in st) or \
            builtins.any(o[1] < 0 for o in out if o is not None):
        order = [a for g in groups for a in g]
        x = _indexing.transpose(x, order).copy() if order else x.copy()
        st = _strides(x)
        pos, out = 0, []
        for g in groups:
            idx = list(range(pos, pos + len(g)))
            pos += len(g)
            out.append(_merge([x.shape[a] for a in idx], [st[a] for a in idx]))
    return x, [o[0] for o in out], [o[1] for o in out]


def _bmm(ctx, cdt, a, ga, b, gb, oshape, out=None):
    """The batched GEMM C[z] = A[z] @ B[z] of resident a and b whose axes
    are grouped as ga = (batch axes, row axes, k axes) and gb = (batch
    axes, k axes, column axes) (lists of axis lists; the batch groups'
    sizes agree or are broadcast per axis, see _matmul_core). Result:
    a contiguous resident array of shape `oshape` (batch, rows, columns in
    that order), or `out` (a resident array of cdt with that shape) written
    in place."""
    a, (bz_a, m, k), (abt, asm, ask) = _grouped(a, ga)
    b, (bz_b, k2, n), (bbt, bsk, bsn) = _grouped(b, gb)
    assert k == k2
    bz = builtins.max(bz_a, bz_b)
    if bz_a == 1:
        abt = 0
    if bz_b == 1:
        bbt = 0
    if bz == 1 and m == 1 and n == 1 and k:
        # one row times one column (tensordot, inner, einsum 'i,i'): the
        # inner product, a reduction (_inner_product), not a GEMM
        r = _inner_product(ctx, *(_array.ndarray(x._buf, (k,), cdt, ctx, x._offset,
                                                 None if sk == 1 else (sk,), False)
                                  for x, sk in ((a, ask), (b, bsk))), cdt)
        if out is None:
            return r.reshape(tuple(oshape))
        _write_real(out, r.reshape(out.shape))
        return out
    c = out if out is not None else _array._result(tuple(oshape), cdt, _mem(a, b), ctx)
    if c.size == 0:
        return c
    c2, (bz_c, m2, n2), (cbt, csm, csn) = _grouped(c, [list(range(c.ndim - 2)), [c.ndim - 2],
                                                    [c.ndim - 1]]) \
        if c.ndim >= 2 else (c, [1, m, n], [0, 0, 0])
    assert c2 is c, "the result must be writable in place"
    _gemm.gemm(ctx, cdt, m, n, k, bz, (a._buf, a._offset, (asm, ask, abt)),
               (b._buf, b._offset, (bsk, bsn, bbt)), (c._buf, c._offset, (csm, csn, cbt)))
    return c


def _mem(a, b):
    return a.memory if isinstance(a, _nd) else b.memory


def _overlaps(out, xs):
    return builtins.any(isinstance(x, _nd) and x._buf is out._buf for x in xs)


def _deliver(r, out, resident, write):
    """The public result from r (resident): r written into out when given
    (out already checked; a resident out by write(out, r)), else r when an
    operand was resident, else r downloaded (a NumPy scalar when 0-d)."""
    if out is not None:
        if isinstance(out, _nd):
            if out is not r:  # a GEMM may have written into out already
                write(out, r)
        else:
            out[...] = r.numpy()
        return out
    if resident:
        return r
    h = r.numpy()
    return h if h.ndim else h[()]


def _write_real(out, r):
    """out[...] = r for a real resident out, cast to out's dtype."""
    if r.dtype != out.dtype:
        r = r.astype(out.dtype)
    if r.dtype == _BOOL:
        _ufunc.logical_and(r, True, out=out)
    else:
        _ufunc.multiply(r, 1, out=out)


def _finish(name, r, rdt, cdt, out, resident, oshape):
    """The public result: r (resident, cdt) converted to rdt, written into
    out when given, downloaded when no operand was resident."""
    if rdt != cdt:
        r = _ufunc.not_equal(r, 0) if rdt == _BOOL else r.astype(rdt)
    return _deliver(r, out, resident, _write_real)


def _check_out(name, out, oshape, rdt, resident, casting="same_kind"):
    """out= (a 1-tuple unwrapped) checked against the result's shape and
    dtype (the cast under `casting`)."""
    out = out[0] if isinstance(out, tuple) and len(out) == 1 else out
    if out is None:
        return None
    if not isinstance(out, (_nd, np.ndarray)):
        raise TypeError(f"vp.{name}: out= must be a vp.ndarray or a NumPy array, not "
                        f"{type(out).__name__}")
    if isinstance(out, np.ndarray) and resident:
        raise TypeError(f"vp.{name}: out= must be a resident vp.ndarray when an operand is "
                        f"resident")
    if tuple(out.shape) != tuple(oshape):
        raise _array.out_shape_error(f"vp.{name}", out, oshape)
    if isinstance(out, _nd):
        _array.check_writable(out, f"vp.{name}")
    elif not out.flags.writeable:
        raise ValueError(f"vp.{name}: out= is a read-only NumPy array")
    if not np.can_cast(rdt, out.dtype, casting):
        raise TypeError(f"vp.{name}: cannot cast the result ({rdt.name}) into out= of dtype "
                        f"{out.dtype.name} (casting={casting!r})")
    return out


# ---------------------------------------------------------------- matmul

def _matmul_core(name, a, b, out, dtype):
    resident = isinstance(a, _nd) or isinstance(b, _nd) or isinstance(out, _nd)
    ctx = _array.common_context(f"vp.{name}", (a, b, out)) or _context.resolve(None)
    sa, sb = tuple(a.shape), tuple(b.shape)
    if not sa or not sb:
        raise ValueError(f"vp.{name}: operand {0 if not sa else 1} is a scalar (shape "
                         f"{sa if not sa else sb}); matmul needs at least one dimension "
                         f"(use vp.multiply or *)")
    rdt = np.result_type(a.dtype, b.dtype) if dtype is None else np.dtype(dtype)
    for x in (a, b):  # dtype= casts the operands (NumPy's casting='same_kind')
        if not np.can_cast(x.dtype, rdt, "same_kind"):
            raise TypeError(f"vp.{name}: cannot cast an operand of dtype {x.dtype.name} to "
                            f"{rdt.name} (dtype=) with casting='same_kind'")
    cdt = _compute_dtype(rdt, name)
    a2 = sa if len(sa) >= 2 else (1,) + sa
    b2 = sb if len(sb) >= 2 else sb + (1,)
    if a2[-1] != b2[-2]:
        raise ValueError(f"vp.{name}: shapes {sa} and {sb} do not match: the last axis of "
                         f"the first ({a2[-1]}) differs from the "
                         f"{'first' if len(sb) == 1 else 'second-to-last'} axis of the second "
                         f"({b2[-2]})")
    try:
        batch = np.broadcast_shapes(a2[:-2], b2[:-2])
    except ValueError:
        raise ValueError(f"vp.{name}: the stack dimensions of shapes {sa} and {sb} do not "
                         f"broadcast ({a2[:-2]} against {b2[:-2]})") from None
    m, k, n = a2[-2], a2[-1], b2[-1]
    oshape = batch + ((m,) if len(sa) >= 2 else ()) + ((n,) if len(sb) >= 2 else ())
    out = _check_out(name, out, oshape, rdt, resident)
    if not batch and m == 1 and n == 1:
        # two vectors (also a row times a column: tensordot, inner, einsum
        # 'i,i'): a reduction, not a GEMM
        r = _inner_product(ctx, *(x.reshape(-1) if isinstance(x, _nd) else np.ravel(x)
                                  for x in (a, b)), cdt)
        return _finish(name, r.reshape(oshape) if oshape else r, rdt, cdt, out, resident,
                       oshape)
    if len(sa) == 2 and len(sb) == 1 and not _matvec_gemm(ctx.kind, k):
        # a matrix times a vector: a row-wise reduction
        return _finish(name, _matvec(ctx, a, b, cdt), rdt, cdt, out, resident, oshape)
    r = _float16_coopmat(ctx, a, b, rdt, m, n, k)
    if r is not None:  # tensor cores: float32 accumulation, rounded to float16 as NumPy's
        return _finish(name, r, rdt, np.dtype(np.float32), out, resident, oshape)
    A, B = _dev(a, cdt, ctx), _dev(b, cdt, ctx)
    A = A.reshape(a2) if len(sa) < 2 else A
    B = B.reshape(b2) if len(sb) < 2 else B
    # broadcast batch axes: views with stride 0
    A = _broadcast_batch(A, batch)
    B = _broadcast_batch(B, batch)
    nb = len(batch)
    # out= of the compute dtype, its own memory and every axis kept: written in place
    direct = isinstance(out, _nd) and out.dtype == cdt == rdt and out.ndim == nb + 2 and \
        not _overlaps(out, (A, B)) and builtins.all(s >= 0 for s in _strides(out))
    cview = out if direct else None
    r = _bmm_batched(ctx, cdt, A, B, nb, batch, m, n, cview)
    if cview is not None:
        return out
    r = r.reshape(oshape) if r.shape != oshape else r
    return _finish(name, r, rdt, cdt, out, resident, oshape)


_inner_texts = {}


def _inner_vir(cdt):
    """The array VIR of the inner product of two vectors of dtype cdt of
    any length (a dynamic extent: the length the push field n): their
    product summed in cdt (wrapping as NumPy's integer dot does), fused
    into one full-reduction kernel."""
    text = _inner_texts.get(cdt)
    if text is None:
        text = _inner_texts[cdt] = _graph.whole_reduction(
            "dot", "sum", [("xa", cdt, cdt), ("xb", cdt, cdt)], cdt, cdt,
            lambda g, v: g.op("mul", v, cdt))
    return text


def _inner_product(ctx, a, b, cdt):
    """sum(a * b) of two vectors of equal length in dtype cdt, a 0-d
    resident array: one kernel over a dynamic extent (one compile for every
    length; the operands' elements multiplied and summed as vp.sum sums, a
    tree), where the GEMM path ran one workgroup over k. A view is copied
    to a contiguous vector first."""
    A, B = (_dev(x, cdt, ctx) for x in (a, b))
    A, B = (x if x._estrides is None and x._offset == 0 else x.copy() for x in (A, B))
    k = A.size
    if k == 0:  # NumPy: the empty sum
        return _array.zeros((), cdt, memory=_mem(A, B), context=ctx)
    _graph.require_features(ctx, (cdt,), "vp.dot")
    comp = _engine.compile(_inner_vir(cdt), ctx, label="vp.dot")
    return _reduce.run_whole(comp, {"xa": A._buf, "xb": B._buf}, "out", {"n": k}, cdt, ctx,
                             _mem(A, B))


# Rows of k in [lo, hi) stay a GEMM: the reduction gives each such row a
# workgroup of 256 invocations (lower-arrays' cooperative rows start at
# 64). On lavapipe it was up to 5x slower than the GEMM for k in [64, 256)
# (65536 x 64: 1136 ms against 224); shorter rows (an invocation each) and
# longer ones were 1.5-30x faster. On an H100 the GEMM won only at k = 64
# with many rows (524288 x 64: 360 us against 595), the reduction from
# k = 100 on (1.1-1.6x; bench/notes/python.md).
_MATVEC_GEMM = (64, 96)
_MATVEC_GEMM_CPU = (64, 256)


def _matvec_gemm(kind, k):
    """Whether A @ x with rows of k runs as a GEMM on a device of `kind`
    (Context.kind) rather than as a row reduction."""
    lo, hi = _MATVEC_GEMM_CPU if kind == "cpu" else _MATVEC_GEMM
    return lo <= k < hi


def _matvec(ctx, a, b, cdt):
    """A (m, k) @ x (k,) in dtype cdt, a resident (m,) array: sum(A * x,
    axis=1) as one kernel (the product fused into a reduction along the
    rows: a workgroup per row when k >= 64, read along k), where the GEMM
    ran tiles of which one column was used. Views of A (transposed,
    strided) are read in place."""
    A, x = _dev(a, cdt, ctx), _dev(b, cdt, ctx)
    m, k = A.shape
    if m == 0 or k == 0:
        return _array.zeros((m,), cdt, memory=_mem(A, x), context=ctx)
    c = _arrayops.Call("matvec", context=ctx)
    c.note(A)
    c.note(x)
    va, vx = c.operand(A), c.operand(x)
    p = c.g.op("mul", [va, vx], cdt)
    s = _row_split(m, k) if ctx.kind != "cpu" or SPLIT_ON_CPU else 1
    if s > 1:
        # few long rows: each row cut into s pieces, a workgroup each, then
        # the pieces summed (a second, small kernel)
        p = c.g.reduce("sum", c.g.reshape(p, (m, s, k // s)), (2,), False, cdt)
    r = c.g.reduce("sum", p, (1,), False, cdt)
    return c.run(c.result(r), True)


# A @ x with fewer rows than this many workgroups fill a GPU (an H100 has
# 132 multiprocessors) cuts its rows (_row_split): 64 rows of 2^19 took
# 299 us on an H100 against cuBLAS's 82 (bench/notes/python.md). Not on a
# CPU device, whose few cores one workgroup per row keeps busy (lavapipe:
# 16 x 65536 took 7.4 ms split against 4.1).
_SPLIT_ROWS = 2048
SPLIT_ON_CPU = False  # tests: the split on lavapipe too


def _row_split(m, k):
    """The pieces s each row of A (m, k) is cut into for A @ x: a power of
    two dividing k, the rows times s at most _SPLIT_ROWS, pieces of 4096
    elements or more; 1 (no split) for rows that already fill the GPU."""
    s = 1
    while m * s * 2 <= _SPLIT_ROWS and k % (s * 2) == 0 and k // (s * 2) >= 4096:
        s *= 2
    return s


def _float16_coopmat(ctx, a, b, rdt, m, n, k):
    """float16 @ float16 on cooperative matrices (vulpy._coopmat) when the
    device has them and both operands are resident matrices of a shape the
    kernels take; else None (the float32 GEMM). A view (transposed,
    strided, sliced) is first copied to a contiguous matrix on the device:
    m k + k n halves moved against 2 m n k flops."""
    if rdt.name != "float16" or not (isinstance(a, _nd) and isinstance(b, _nd)):
        return None
    if a.ndim != 2 or b.ndim != 2 or a.dtype != rdt or b.dtype != rdt:
        return None
    if not _coopmat.uses_coopmat(ctx, m, n, k):
        return None
    a = a if a.contiguous else a.copy()
    b = b if b.contiguous else b.copy()
    return _coopmat.run_buffers(ctx, a._buf, b._buf, m, n, k, a.memory)


def _broadcast_batch(x, batch):
    """x (..., r, c) with its stack axes broadcast to `batch` (a view)."""
    nb = len(batch)
    extra = nb - (x.ndim - 2)
    st = _strides(x)
    shape = (1,) * extra + tuple(x.shape)
    st = [0] * extra + st
    for i in range(nb):
        if shape[i] != batch[i]:
            st[i] = 0
    newshape = tuple(batch) + tuple(x.shape[-2:])
    if newshape == tuple(x.shape) and st == _strides(x):
        return x
    return _indexing.strided_view(x, newshape, x._offset, st)


def _bmm_batched(ctx, cdt, A, B, nb, batch, m, n, cview):
    """A (batch, m, k) @ B (batch, k, n): batch axes that merge run as one
    dispatch's grid z, the others as a host loop."""
    c = cview if cview is not None else \
        _array._result(tuple(batch) + (m, n), cdt, _mem(A, B), ctx)
    if c.size == 0:
        return c
    sa, sb, sc = _strides(A), _strides(B), _strides(c)
    # merge batch axes from the innermost while all three operands agree
    inner = nb
    while inner > 0:
        g = list(range(inner - 1, nb))
        if builtins.all(_merge([x.shape[i] for i in g], [s[i] for i in g]) is not None
                        for x, s in ((A, sa), (B, sb), (c, sc))):
            inner -= 1
        else:
            break
    outer = list(range(inner))
    for idx in itertools.product(*[range(batch[i]) for i in outer]):
        oa, ob, oc = (x._offset + builtins.sum(i * s[d] for i, d in zip(idx, outer))
                      for x, s in ((A, sa), (B, sb), (c, sc)))
        g = list(range(inner, nb))
        za, zb, zc = (_merge([x.shape[i] for i in g], [s[i] for i in g]) if g else (1, 0)
                      for x, s in ((A, sa), (B, sb), (c, sc)))
        _gemm.gemm(ctx, cdt, m, n, A.shape[-1], builtins.max(za[0], zb[0], zc[0]),
                   (A._buf, oa, (sa[-2], sa[-1], za[1] if za[0] > 1 else 0)),
                   (B._buf, ob, (sb[-2], sb[-1], zb[1] if zb[0] > 1 else 0)),
                   (c._buf, oc, (sc[-2], sc[-1], zc[1] if zc[0] > 1 else 0)))
    return c


def _prepare(name, a, b):
    """Operands as resident/NumPy arrays; a negative-stride resident view
    is copied (the GEMM takes non-negative strides)."""
    return tuple(x.copy() if isinstance(x, _nd) and builtins.any(s < 0 for s in _strides(x))
                 else x for x in (_operand(a, name, 0), _operand(b, name, 1)))


def matmul(x1, x2, /, out=None, *, dtype=None, casting="same_kind", order="K", subok=True):
    """vp.matmul(x1, x2, /, out=None, *, dtype=None, casting='same_kind', order='K',
    subok=True):
    numpy.matmul on the GPU (tiled GEMM kernels): 1-D operands are
    promoted to a row / column and the axis removed again, stacks of
    matrices broadcast. NumPy in -> NumPy out; resident in -> resident out.
    Transposed and strided views are read in place."""
    if casting != "same_kind" or order not in ("K", "C", "A"):
        raise NotImplementedError("vp.matmul: casting= other than 'same_kind' and order= "
                                  "other than 'K' are not supported")
    a, b = _prepare("matmul", x1, x2)
    if _any_complex(a, b) or (dtype is not None and np.dtype(dtype).kind == "c"):
        return _complex_product("matmul", lambda x, y: _matmul_core("matmul", x, y, None, None),
                                (a, b), out, dtype)
    return _matmul_core("matmul", a, b, out, dtype)


# ---------------------------------------------------------------- dot & co

def dot(a, b, out=None):
    """numpy.dot on the GPU: scalars multiply, 1-D . 1-D is the inner
    product, N-D . 1-D sums over the last axes, N-D . M-D (M >= 2) sums the
    last axis of a with the second-to-last of b (one batched GEMM).
    NumPy in -> NumPy out, resident in -> resident out. Inside a kernel,
    vp.dot(u, v) is the kernel language's vector dot product."""
    if np.isscalar(a) or np.isscalar(b) or np.ndim(a) == 0 or np.ndim(b) == 0:
        # numpy.dot makes a Python scalar an array (int64, float64): no weak
        # scalar, so int8 . 3 is int64 (a weak 3 would wrap in int8)
        a, b = (np.asarray(v) if isinstance(v, (int, float, complex)) else v for v in (a, b))
        return _ufunc.multiply(a, b, out=out) if out is not None else _ufunc.multiply(a, b)
    a, b = _prepare("dot", a, b)
    sa, sb = tuple(a.shape), tuple(b.shape)
    kb = sb[0] if len(sb) == 1 else sb[-2]
    if sa[-1] != kb:
        raise ValueError(f"vp.dot: shapes {sa} and {sb} not aligned: {sa[-1]} (dim "
                         f"{len(sa) - 1}) != {kb} (dim {0 if len(sb) == 1 else len(sb) - 2})")
    if _any_complex(a, b):
        return _complex_product("dot", dot, (a, b), out)
    if len(sb) <= 2:
        return _matmul_core("dot", a, b, out, None)
    # a (..., k) . b (..., k, n): tensordot over (a's last, b's second-to-last)
    return _tensordot_core("dot", a, b, [len(sa) - 1], [len(sb) - 2], out)


def vdot(a, b):
    """vp.vdot(a, b):
    numpy.vdot on the GPU: the dot product of the flattened operands
    (complex: the first operand conjugated, as NumPy's). Returns a 0-d resident array for
    resident operands, a NumPy scalar otherwise."""
    a, b = _prepare("vdot", a, b)
    na, nb = int(np.prod(a.shape)), int(np.prod(b.shape))
    if na != nb:
        raise ValueError(f"vp.vdot: operands of shapes {tuple(a.shape)} and {tuple(b.shape)} "
                         f"have different sizes ({na} and {nb})")
    ra = a.reshape(-1) if isinstance(a, _nd) else np.ravel(a)
    rb = b.reshape(-1) if isinstance(b, _nd) else np.ravel(b)
    if _any_complex(ra, rb):  # the first operand conjugated, as numpy.vdot
        return _complex_product("vdot", lambda x, y: _matmul_core("vdot", x, y, None, None),
                                (ra, rb), conj_first=True)
    return _matmul_core("vdot", ra, rb, None, None)


def inner(a, b):
    """numpy.inner on the GPU: sums over the last axes; the result's shape
    is a.shape[:-1] + b.shape[:-1]."""
    if np.isscalar(a) or np.isscalar(b) or np.ndim(a) == 0 or np.ndim(b) == 0:
        return _ufunc.multiply(a, b)
    a, b = _prepare("inner", a, b)
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"vp.inner: shapes {tuple(a.shape)} and {tuple(b.shape)} not aligned: "
                         f"last axes {a.shape[-1]} != {b.shape[-1]}")
    if _any_complex(a, b):
        return _complex_product("inner", inner, (a, b))
    return _tensordot_core("inner", a, b, [a.ndim - 1], [b.ndim - 1], None)


def _summed_axis(axis, ndim):
    """tensordot's axis in range(ndim); checked before it wraps (axis 3 of
    a 3-d operand is NumPy's IndexError; AxisError is an IndexError)."""
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise _errors.AxisError(axis, ndim)
    return axis % ndim


def tensordot(a, b, axes=2):
    """numpy.tensordot on the GPU: sums the products over a's axes[0] and
    b's axes[1] (an int N: a's last N with b's first N); the result's axes
    are a's others then b's others. One GEMM over permuted views."""
    a, b = _prepare("tensordot", a, b)
    if isinstance(axes, (int, np.integer)):
        nax = operator.index(axes)
        if nax < 0 or nax > a.ndim or nax > b.ndim:
            raise ValueError(f"vp.tensordot: axes={nax} for operands of shapes "
                             f"{tuple(a.shape)} and {tuple(b.shape)}")
        xa, xb = list(range(a.ndim - nax, a.ndim)), list(range(nax))
    else:
        try:
            xa, xb = axes
        except (TypeError, ValueError):
            raise ValueError("vp.tensordot: axes must be an int or a pair of axis "
                             "sequences") from None
        xa = [xa] if isinstance(xa, (int, np.integer)) else list(xa)
        xb = [xb] if isinstance(xb, (int, np.integer)) else list(xb)
        if len(xa) != len(xb):
            raise ValueError("vp.tensordot: shape-mismatch for sum (axes lists of different "
                             "lengths)")
        xa = [_summed_axis(x, a.ndim) for x in xa]
        xb = [_summed_axis(x, b.ndim) for x in xb]
    for i, j in zip(xa, xb):
        if a.shape[i] != b.shape[j]:
            raise ValueError(f"vp.tensordot: shape-mismatch for sum: shapes {tuple(a.shape)} "
                             f"and {tuple(b.shape)}, axis {i} ({a.shape[i]}) against axis {j} "
                             f"({b.shape[j]})")
    if _any_complex(a, b):
        return _complex_product("tensordot", lambda x, y: tensordot(x, y, (xa, xb)), (a, b))
    return _tensordot_core("tensordot", a, b, xa, xb, None)


def _tensordot_core(name, a, b, xa, xb, out):
    resident = isinstance(a, _nd) or isinstance(b, _nd) or isinstance(out, _nd)
    ctx = _array.common_context(f"vp.{name}", (a, b, out)) or _context.resolve(None)
    rdt = np.result_type(a.dtype, b.dtype)
    cdt = _compute_dtype(rdt, name)
    fa = [i for i in range(a.ndim) if i not in xa]
    fb = [i for i in range(b.ndim) if i not in xb]
    oshape = tuple(a.shape[i] for i in fa) + tuple(b.shape[i] for i in fb)
    out = _check_out(name, out, oshape, rdt, resident)
    A, B = _dev(a, cdt, ctx), _dev(b, cdt, ctx)
    m = int(np.prod([a.shape[i] for i in fa], dtype=np.int64))
    n = int(np.prod([b.shape[i] for i in fb], dtype=np.int64))
    c = _array._result((m, n), cdt, _mem(A, B), ctx)
    if c.size:
        c = _bmm(ctx, cdt, A, [[], fa, xa], B, [[], xb, fb], (m, n), out=c)
    return _finish(name, c.reshape(oshape), rdt, cdt, out, resident, oshape)


# ---------------------------------------------------------------- einsum

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _parse(subscripts, shapes):
    """(input letter lists, output letter list) with '...' expanded."""
    s = subscripts.replace(" ", "")
    if "->" in s:
        ins, outs = s.split("->", 1)
        if "->" in outs:
            raise ValueError(f"vp.einsum: subscripts {subscripts!r} have more than one '->'")
    else:
        ins, outs = s, None
    terms = ins.split(",")
    if len(terms) != len(shapes):
        raise ValueError(f"vp.einsum: subscripts {subscripts!r} name {len(terms)} operands, "
                         f"{len(shapes)} given")
    used = set(c for c in s if c.isalpha())
    spare = [c for c in _LETTERS if c not in used]
    ell_nd = 0
    for t, sh in zip(terms, shapes):
        if "..." in t:
            ell_nd = builtins.max(ell_nd, len(sh) - (len(t) - 3))
    ell = spare[:ell_nd]
    res = []
    for t, sh in zip(terms, shapes):
        if "..." in t:
            pre, post = t.split("...", 1)
            nd = len(sh) - len(pre) - len(post)
            if nd < 0:
                raise ValueError(f"vp.einsum: operand of shape {sh} has fewer dimensions than "
                                 f"subscripts {t!r}")
            letters = list(pre) + ell[ell_nd - nd:] + list(post)
        else:
            letters = list(t)
        for c in letters:
            if not c.isalpha():
                raise NotImplementedError(f"vp.einsum: subscripts {subscripts!r}: character "
                                          f"{c!r} is not a letter")
        if len(letters) != len(sh):
            raise ValueError(f"vp.einsum: subscripts {t!r} name {len(letters)} axes, the "
                             f"operand has {len(sh)} (shape {sh})")
        res.append(letters)
    if outs is None:
        counts = {}
        for L in res:
            for c in L:
                counts[c] = counts.get(c, 0) + 1
        out = ell + sorted(c for c, n in counts.items() if n == 1 and c not in ell)
    else:
        if "..." in outs:
            pre, post = outs.split("...", 1)
            out = list(pre) + ell + list(post)
        else:
            out = list(outs)
            if ell_nd and builtins.any(ell):
                raise ValueError(f"vp.einsum: subscripts {subscripts!r}: output has no '...' "
                                 f"for the broadcast axes")
        for c in out:
            if not c.isalpha():
                raise NotImplementedError(f"vp.einsum: subscripts {subscripts!r}: character "
                                          f"{c!r} is not a letter")
            if not builtins.any(c in L for L in res):
                raise ValueError(f"vp.einsum: output subscript {c!r} in {subscripts!r} is not "
                                 f"in any operand")
        if len(set(out)) != len(out):
            raise ValueError(f"vp.einsum: output subscripts {subscripts!r} repeat a letter")
    return res, out


def _diagonal(x, letters):
    """x with repeated letters taken as diagonals (a strided view)."""
    if len(set(letters)) == len(letters):
        return x, letters
    st = _strides(x)
    new, shape, strides = [], [], []
    for i, c in enumerate(letters):
        if c in new:
            j = new.index(c)
            if shape[j] != x.shape[i]:
                raise ValueError(f"vp.einsum: repeated subscript {c!r} on axes of different "
                                 f"lengths ({shape[j]} and {x.shape[i]})")
            strides[j] += st[i]
        else:
            new.append(c)
            shape.append(x.shape[i])
            strides.append(st[i])
    return _indexing.strided_view(x, shape, x._offset, strides), new


def _sum_out(x, letters, keep, cdt):
    """x summed over its letters not in `keep`."""
    axes = tuple(i for i, c in enumerate(letters) if c not in keep)
    if not axes:
        return x, letters
    if x.size == 0 or builtins.any(x.shape[i] == 0 for i in axes):
        shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
        return _array.zeros(shape, cdt, context=x._ctx), [c for c in letters if c in keep]
    r = _reduce.sum(x, axis=axes, dtype=cdt)
    return r, [c for c in letters if c in keep]


def _contract(ctx, cdt, a, la, b, lb, keep):
    """The product of a (letters la) and b (letters lb) summed over the
    letters in both that `keep` lacks: (result, its letters)."""
    batch = [c for c in la if c in lb and c in keep]
    summed = [c for c in la if c in lb and c not in keep]
    fa = [c for c in la if c not in lb]
    fb = [c for c in lb if c not in la]
    for c in batch + summed:
        if a.shape[la.index(c)] != b.shape[lb.index(c)]:
            raise ValueError(f"vp.einsum: subscript {c!r} has lengths "
                             f"{a.shape[la.index(c)]} and {b.shape[lb.index(c)]}")
    ia = lambda cs: [la.index(c) for c in cs]  # noqa: E731
    ib = lambda cs: [lb.index(c) for c in cs]  # noqa: E731
    oshape = [a.shape[i] for i in ia(batch)] + [a.shape[i] for i in ia(fa)] + \
        [b.shape[i] for i in ib(fb)]
    if not summed:
        # nothing to sum: a broadcast elementwise product ('ij,ij->ij', outer
        # products with batches), not a GEMM with K = 1 per output element
        pa = _indexing.transpose(a, ia(batch) + ia(fa)).copy()
        pb = _indexing.transpose(b, ib(batch) + ib(fb)).copy()
        nb, nfa, nfb = len(batch), len(fa), len(fb)
        pa = pa.reshape(tuple(pa.shape) + (1,) * nfb)
        pb = pb.reshape(tuple(pb.shape[:nb]) + (1,) * nfa + tuple(pb.shape[nb:]))
        return _ufunc.multiply(pa, pb), batch + fa + fb
    bz = int(np.prod([a.shape[i] for i in ia(batch)], dtype=np.int64))
    m = int(np.prod([a.shape[i] for i in ia(fa)], dtype=np.int64))
    n = int(np.prod([b.shape[i] for i in ib(fb)], dtype=np.int64))
    c = _array._result((bz, m, n), cdt, a.memory, ctx)
    if c.size:
        _bmm(ctx, cdt, a, [ia(batch), ia(fa), ia(summed)], b, [ib(batch), ib(summed), ib(fb)],
             (bz, m, n), out=c)
    return c.reshape(tuple(oshape)), batch + fa + fb


def _sublist_form(first, rest):
    """NumPy's interleaved form (op, sublist, op, sublist, ..., [output
    sublist]) as (subscripts string, operands): subscript k is letter
    'a' + k below 26, 'A' + k - 26 below 52; Ellipsis is '...'."""
    args = (first,) + tuple(rest)
    ops, subs = list(args[0::2]), list(args[1::2])
    outsub = None
    if len(args) % 2:
        outsub = ops.pop()
    if len(subs) != len(ops) or not ops:
        raise ValueError("vp.einsum: the sublist form needs an operand and a sublist each "
                         "(einsum(a, [0, 1], b, [1, 2], [0, 2]))")

    def letters(sub, what):
        try:
            items = list(sub)
        except TypeError:
            raise TypeError(f"vp.einsum: {what} must be a list of ints (or Ellipsis), "
                            f"got {sub!r}") from None
        text = []
        for k in items:
            if k is Ellipsis:
                text.append("...")
                continue
            if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
                raise TypeError(f"vp.einsum: {what} holds {k!r}; subscripts are ints in "
                                f"[0, 52) or Ellipsis")
            if not 0 <= k < 52:
                raise ValueError(f"vp.einsum: subscript {k} in {what} is not within the "
                                 f"valid range [0, 52)")
            text.append(chr(ord("a") + k) if k < 26 else chr(ord("A") + k - 26))
        return "".join(text)

    spec = ",".join(letters(sb, f"sublist {i}") for i, sb in enumerate(subs))
    if outsub is not None:
        spec += "->" + letters(outsub, "the output sublist")
    return spec, ops


def einsum(subscripts, *operands, out=None, dtype=None, order="K", casting="safe",
           optimize=False):
    """vp.einsum(subscripts, *operands, out=None, dtype=None, order='K', casting='safe',
    optimize=False):
    numpy.einsum on the GPU (module docstring; complex operands, one or
    two of them, by four real einsums of their parts): each
    pairwise contraction is one batched GEMM, sums over letters that one
    operand alone has are reductions, repeated letters are diagonal views.
    NumPy in -> NumPy out; resident in -> resident out."""
    if not isinstance(subscripts, str):  # einsum(a, [0, 1], b, [1, 2], [0, 2])
        subscripts, operands = _sublist_form(subscripts, operands)
    if not operands:
        raise ValueError("vp.einsum: no operands")
    ops = [_operand(x, "einsum", k) for k, x in enumerate(operands)]
    resident = builtins.any(isinstance(x, _nd) for x in ops) or isinstance(out, _nd)
    ctx = _array.common_context("vp.einsum", tuple(ops) + (out,)) or _context.resolve(None)
    letters, outl = _parse(subscripts, [tuple(np.shape(x)) for x in ops])
    if casting not in ("no", "equiv", "safe", "same_kind", "unsafe"):
        raise ValueError(f"vp.einsum: casting must be one of 'no', 'equiv', 'safe', "
                         f"'same_kind', or 'unsafe' (got {casting!r})")
    rdt = np.result_type(*[x.dtype for x in ops]) if dtype is None else np.dtype(dtype)
    for x in ops:  # numpy.einsum casts the operands to dtype= under casting=
        if not np.can_cast(x.dtype, rdt, casting):
            raise TypeError(f"vp.einsum: cannot cast an operand of dtype {x.dtype.name} to "
                            f"{rdt.name} (dtype=) with casting={casting!r}")
    if rdt.kind == "c":  # one or two operands: the real einsum of the parts
        if len(ops) > 2:
            raise TypeError(f"vp.einsum: complex operands are supported with one or two "
                            f"operands ({len(ops)} given); contract them in pairs")
        return _complex_product("einsum", lambda *xs: einsum(subscripts, *xs), ops, out, rdt)
    cdt = _compute_dtype(rdt, "einsum")
    sizes = {}
    for x, L in zip(ops, letters):
        for c, d in zip(L, x.shape):
            if sizes.setdefault(c, d) != d:
                if d != 1 and sizes[c] != 1:
                    raise ValueError(f"vp.einsum: subscript {c!r} in {subscripts!r} has "
                                     f"lengths {sizes[c]} and {d}")
                if sizes[c] == 1:
                    sizes[c] = d
    oshape = tuple(sizes[c] for c in outl)
    out = _check_out("einsum", out, oshape, rdt, resident, casting)
    xs = []
    for x, L in zip(ops, letters):
        x = _dev(x, cdt, ctx)
        x = x.copy() if builtins.any(s < 0 for s in _strides(x)) else x
        # length-1 axes broadcast against the others' lengths (NumPy does so with '...')
        st = _strides(x)
        if builtins.any(d != sizes[c] for c, d in zip(L, x.shape)):
            x = _indexing.strided_view(x, [sizes[c] for c in L], x._offset,
                                       [0 if d != sizes[c] else s for c, d, s in
                                        zip(L, x.shape, st)])
        x, L = _diagonal(x, L)
        xs.append((x, L))
    # sum out letters no other operand and not the output have
    for i, (x, L) in enumerate(xs):
        others = set(outl)
        for j, (_, L2) in enumerate(xs):
            if j != i:
                others.update(L2)
        xs[i] = _sum_out(x, L, others, cdt)
    x, L = xs[0]
    for j in range(1, len(xs)):
        y, L2 = xs[j]
        keep = set(outl)
        for _, L3 in xs[j + 1:]:
            keep.update(L3)
        x, L = _contract(ctx, cdt, x, L, y, L2, keep)
    x, L = _sum_out(x, L, set(outl), cdt)
    r = _indexing.transpose(x, [L.index(c) for c in outl]) if L != outl else x
    if r.ndim and not r.contiguous:
        r = r.copy()
    return _finish("einsum", r, rdt, cdt, out, resident, oshape)


# ---------------------------------------------------------------- operators

def matmul_op(self, other):
    """a @ b."""
    if not isinstance(other, (_nd, np.ndarray, list, tuple)) and not np.isscalar(other):
        return NotImplemented
    return matmul(self, other)


def rmatmul_op(self, other):
    """b @ a, where b is not a vp.ndarray."""
    if not isinstance(other, (_nd, np.ndarray, list, tuple)) and not np.isscalar(other):
        return NotImplemented
    return matmul(other, self)


def imatmul_op(self, other):
    """a @= b: NumPy allows it when the result has a's shape and its dtype
    casts to a's ('same_kind'); the product goes through a temporary when
    b shares a's buffer."""
    other = _operand(other, "matmul", 1)
    sa, sb = tuple(self.shape), tuple(other.shape)
    try:
        a2 = sa if len(sa) >= 2 else (1,) + sa
        b2 = sb if len(sb) >= 2 else sb + (1,)
        r_shape = np.broadcast_shapes(a2[:-2], b2[:-2]) + \
            ((a2[-2],) if len(sa) >= 2 else ()) + ((b2[-1],) if len(sb) >= 2 else ())
    except (ValueError, IndexError):
        r_shape = None  # matmul below names the mismatch
    if r_shape is not None and a2[-1] == b2[-2] and tuple(r_shape) != sa:
        raise ValueError(f"vp.matmul: a @= b needs a result of a's shape {tuple(self.shape)} "
                         f"(b has shape {tuple(other.shape)})")
    return matmul(self, other, out=self)


NAMES = ("matmul", "dot", "vdot", "inner", "tensordot", "einsum")
