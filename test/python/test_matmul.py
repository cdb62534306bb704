"""vp.matmul / @ / @= / vp.dot / vp.vdot / vp.inner / vp.tensordot / vp.einsum
(issue 19): differential tests against NumPy over shapes (0-size, 1-D, broadcast
stacks), dtypes and views, and the GEMM kernels' tile configurations.

Tolerances (float results): |got - want| <= rtol * (|a| @ |b|) + atol, the
bound on a dot product's rounding error, with rtol 2e-6 * K for float32
(summation order differs from NumPy's: tiles of BK, then accumulated in
order) and 1e-14 * K for float64. Integers are exact, and wrap like NumPy's
(int32 products and sums modulo 2**32).
"""
import numpy as np
import pytest

import vulpy as vp
from conftest import needs_target
from vulpy import _gemm

pytestmark = needs_target

RNG = np.random.default_rng(19)


def _data(shape, dt, rng=RNG):
    dt = np.dtype(dt)
    if dt == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if dt.kind == "f":
        return rng.standard_normal(shape).astype(dt)
    if dt.kind == "u":
        return rng.integers(0, 50, shape).astype(dt)
    return rng.integers(-50, 50, shape).astype(dt)


def _close(got, want, a=None, b=None, k=1):
    got = np.asarray(got.numpy() if isinstance(got, vp.ndarray) else got)
    want = np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want)
        return
    rtol = (2e-6 if want.dtype == np.float32 else 1e-14) * max(k, 1)
    bound = np.abs(np.matmul(np.abs(a), np.abs(b))) if a is not None else np.abs(want)
    assert np.all(np.abs(got.astype(np.float64) - want) <= rtol * bound + 1e-6), \
        np.abs(got - want).max()


# ------------------------------------------------------------------ matmul

CASES = [  # (shape a, shape b)
    ((3, 4), (4, 5)), ((4,), (4, 5)), ((3, 4), (4,)), ((4,), (4,)),
    ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)),
    ((0, 4), (4, 3)), ((3, 0), (0, 2)), ((2, 0, 3, 4), (4, 1)), ((3, 4), (4, 0)),
    ((1, 1), (1, 1)), ((70, 33), (33, 65)), ((5, 130, 9), (9, 129)),
]


@pytest.mark.parametrize("sa,sb", CASES, ids=str)
def test_matmul_shapes_numpy_and_resident(sa, sb):
    a, b = _data(sa, np.float32), _data(sb, np.float32)
    want = np.matmul(a, b)
    got = vp.matmul(a, b)  # convenience mode: NumPy in -> NumPy out
    assert isinstance(got, (np.ndarray, np.generic))
    k = sa[-1]
    a2 = a.reshape((1,) + sa) if len(sa) == 1 else a
    b2 = b.reshape(sb + (1,)) if len(sb) == 1 else b
    _close(got, want, a2, b2, k) if want.ndim else _close(got, want, k=k)
    r = vp.asarray(a) @ vp.asarray(b)
    assert isinstance(r, vp.ndarray)
    _close(r, want, a2, b2, k) if want.ndim else _close(r, want, k=k)


@pytest.mark.parametrize("dt", ["float32", "float64", "int32", "uint32", "int64", "uint64",
                                "bool"])
def test_matmul_dtypes(dt):
    a, b = _data((2, 9, 7), dt), _data((7, 6), dt)
    want = np.matmul(a, b)
    got = vp.matmul(vp.asarray(a), vp.asarray(b))
    assert got.dtype == want.dtype
    _close(got, want, a.astype(np.float64), b.astype(np.float64), 7)
    got = vp.matmul(vp.asarray(a).transpose(0, 2, 1).transpose(0, 2, 1), vp.asarray(b.T).T)
    _close(got, want, a.astype(np.float64), b.astype(np.float64), 7)


def test_mixed_dtypes_promote_like_numpy():
    a, b = _data((4, 5), np.int32), _data((5, 3), np.float32)
    want = a @ b
    got = vp.asarray(a) @ vp.asarray(b)
    assert got.dtype == want.dtype == np.float64
    _close(got, want, a, b, 5)


def test_int32_overflow_wraps_like_numpy():
    a = RNG.integers(-2**31, 2**31, (17, 40), dtype=np.int64).astype(np.int32)
    b = RNG.integers(-2**31, 2**31, (40, 11), dtype=np.int64).astype(np.int32)
    with np.errstate(over="ignore"):
        want = a @ b
    np.testing.assert_array_equal(vp.matmul(a, b), want)
    u = a.view(np.uint32)
    np.testing.assert_array_equal(vp.matmul(u, b.view(np.uint32)), u @ b.view(np.uint32))


@pytest.mark.parametrize("view", ["T", "T_both", "step", "neg", "offset", "broadcast"])
def test_views_as_operands(view):
    base = _data((12, 10), np.float32)
    x = vp.asarray(base)
    if view == "T":
        va, na, vb, nb = x.T, base.T, x[:, :7], base[:, :7]
    elif view == "T_both":
        va, na, vb, nb = x[:, :8].T, base[:, :8].T, x[:4, :5].T, base[:4, :5].T
        va, na = va[:, :5], na[:, :5]
    elif view == "step":
        va, na, vb, nb = x[::2, 1::3], base[::2, 1::3], x[1:4, ::2], base[1:4, ::2]
        va, na = va[:, :3], na[:, :3]
    elif view == "neg":
        va, na, vb, nb = x[::-1], base[::-1], x[:, ::-1].T, base[:, ::-1].T
        vb, nb = vb[:, :4], nb[:, :4]
    elif view == "offset":
        va, na, vb, nb = x[3:7, 2:6], base[3:7, 2:6], x[5:9, 1:10], base[5:9, 1:10]
    else:
        va, na = vp.broadcast_to(x[0], (3, 10)), np.broadcast_to(base[0], (3, 10))
        vb, nb = x.T[:, 2:5], base.T[:, 2:5]
    want = na @ nb
    _close(va @ vb, want, na, nb, na.shape[-1])


def test_transposed_views_are_not_copied(monkeypatch):
    """A transposed (or sliced) operand is read in place: no copy, no cast."""
    a, b = _data((20, 16), np.float32), _data((24, 20), np.float32)
    x, y = vp.asarray(a), vp.asarray(b)
    calls = []
    for name in ("copy", "astype"):
        orig = getattr(vp.ndarray, name)
        monkeypatch.setattr(vp.ndarray, name,
                            lambda self, *a, _o=orig, _n=name, **k: calls.append(_n) or
                            _o(self, *a, **k))
    r = x.T @ y.T
    r2 = x[::2].T @ y[:10, 3:13]
    assert calls == []
    _close(r, a.T @ b.T, a.T, b.T, 20)
    _close(r2, a[::2].T @ b[:10, 3:13], a[::2].T, b[:10, 3:13], 10)


def test_out_and_inplace():
    a, b = _data((6, 5), np.float32), _data((5, 6), np.float32)
    x, y = vp.asarray(a), vp.asarray(b)
    o = vp.zeros((6, 6), np.float32)
    assert vp.matmul(x, y, out=o) is o
    _close(o, a @ b, a, b, 5)
    o64 = vp.zeros((6, 6), np.float64)  # same_kind cast into out=
    vp.matmul(x, y, out=o64)
    np.testing.assert_allclose(o64.numpy(), (a @ b).astype(np.float64), rtol=1e-5, atol=1e-5)
    h = np.zeros((6, 6), np.float32)
    assert vp.matmul(a, b, out=h) is h
    _close(h, a @ b, a, b, 5)
    p, q = _data((6, 5), np.bool_), _data((5, 6), np.bool_)
    oi = vp.zeros((6, 6), np.int32)  # bool result (computed in int32) cast into int32 out=
    vp.matmul(vp.asarray(p), vp.asarray(q), out=oi)
    np.testing.assert_array_equal(oi.numpy(), np.matmul(p, q, out=np.zeros((6, 6), np.int32)))
    ov = vp.zeros((6, 12), np.float32)[:, ::2]  # a strided out= view
    vp.matmul(x, y, out=ov)
    _close(ov, a @ b, a, b, 5)
    s = _data((6, 6), np.float32)
    z = vp.asarray(s)
    z @= y.T @ x.T  # @= with the result of a's shape; b shares no memory with a
    _close(z, s @ (b.T @ a.T), s, np.abs(b.T) @ np.abs(a.T), 6 * 5)
    z2 = vp.asarray(s)
    z2 @= z2  # b is a: through a temporary
    _close(z2, s @ s, s, s, 6)
    with pytest.raises(ValueError, match=r"a @= b needs a result of a's shape \(6, 6\)"):
        z2 @= vp.zeros((6, 3), np.float32)
    with pytest.raises(ValueError, match=r"shapes \(6, 6\) and \(5, 5\) do not match"):
        z2 @= vp.zeros((5, 5), np.float32)
    v = vp.asarray(s[0])
    v @= z  # 1-D @= 2-D keeps the shape: allowed, as NumPy's
    _close(v, s[0] @ z.numpy(), s[0], z.numpy(), 6)
    with pytest.raises(ValueError, match=r"out= has shape \(6, 5\), the result has shape "
                                         r"\(6, 6\)"):
        vp.matmul(x, y, out=vp.zeros((6, 5), np.float32))
    with pytest.raises(TypeError, match="cannot cast the result \\(float32\\) into out= of "
                                        "dtype int32"):
        vp.matmul(x, y, out=vp.zeros((6, 6), np.int32))


def test_shape_errors_name_both_shapes():
    with pytest.raises(ValueError, match=r"shapes \(2, 3\) and \(4, 5\) do not match"):
        vp.matmul(vp.zeros((2, 3)), vp.zeros((4, 5)))
    with pytest.raises(ValueError, match=r"shapes \(3,\) and \(4,\)"):
        vp.matmul(np.zeros(3), np.zeros(4))
    with pytest.raises(ValueError, match=r"stack dimensions of shapes \(2, 3, 4\) and "
                                         r"\(3, 4, 5\) do not broadcast"):
        vp.matmul(vp.zeros((2, 3, 4)), vp.zeros((3, 4, 5)))
    with pytest.raises(ValueError, match="scalar"):
        vp.matmul(vp.zeros((2, 3)), 2.0)
    with pytest.raises(ValueError, match=r"shapes \(2, 3\) and \(2, 3\) not aligned"):
        vp.dot(vp.zeros((2, 3)), vp.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"shapes \(2, 3\) and \(4,\)"):
        vp.tensordot(np.zeros((2, 3)), np.zeros(4), axes=1)
    with pytest.raises(ValueError, match=r"shapes \(2, 3\) and \(5,\)"):
        vp.vdot(np.zeros((2, 3)), np.zeros(5))


# ------------------------------------------------------------------ hypothesis

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@st.composite
def _mm_case(draw):
    m, k, n = (draw(st.integers(0, 40)) for _ in range(3))
    nb = draw(st.integers(0, 2))
    batch = [draw(st.integers(1, 3)) for _ in range(nb)]
    # each operand's stack: broadcast (1), missing, or full
    ba = [draw(st.sampled_from([1, d])) for d in batch][draw(st.integers(0, nb)):]
    bb = [draw(st.sampled_from([1, d])) for d in batch][draw(st.integers(0, nb)):]
    one_a = draw(st.booleans()) and not ba
    one_b = draw(st.booleans()) and not bb
    sa = (k,) if one_a else tuple(ba) + (m, k)
    sb = (k,) if one_b else tuple(bb) + (k, n)
    dt = draw(st.sampled_from([np.float32, np.float32, np.int32, np.float64]))
    ta = draw(st.booleans())  # a transposed view of a stored transpose
    tb = draw(st.booleans())
    step = draw(st.booleans())  # every other row of a larger array
    return sa, sb, dt, ta, tb, step, draw(st.integers(0, 2**31 - 1))


def _make(shape, dt, transposed, step, rng):
    """A resident view of `shape` and its NumPy twin: stored transposed
    (last two axes) and/or taken with a step."""
    full = list(shape)
    if step and shape:
        full[0] = 2 * shape[0]
    host = _data(tuple(full), dt, rng)
    if transposed and len(shape) >= 2:
        store = np.ascontiguousarray(np.swapaxes(host, -1, -2))
        x = vp.asarray(store)
        x = vp.swapaxes(x, -1, -2)
        host = np.swapaxes(store, -1, -2)
    else:
        x = vp.asarray(host)
    if step and shape:
        x, host = x[::2], host[::2]
    return x, host


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(_mm_case())
def test_matmul_differential(case):
    """Shapes with 0-size axes, 1-D operands and broadcast stacks; float32,
    float64, int32; transposed and stepped views read in place."""
    sa, sb, dt, ta, tb, step, seed = case
    rng = np.random.default_rng(seed)
    x, a = _make(sa, dt, ta, step, rng)
    y, b = _make(sb, dt, tb, False, rng)
    want = np.matmul(a, b)
    got = vp.matmul(x, y)
    k = sa[-1]
    a2 = a.reshape((1,) + a.shape) if a.ndim == 1 else a
    b2 = b.reshape(b.shape + (1,)) if b.ndim == 1 else b
    bound = np.matmul(np.abs(a2).astype(np.float64), np.abs(b2).astype(np.float64))
    if a.ndim == 1:
        bound = bound[..., 0, :]
    if b.ndim == 1:
        bound = bound[..., 0]
    got = got.numpy() if isinstance(got, vp.ndarray) else got
    assert got.shape == want.shape and got.dtype == want.dtype
    if want.dtype.kind == "i":
        np.testing.assert_array_equal(got, want)
    else:
        rtol = (2e-6 if want.dtype == np.float32 else 1e-14) * max(k, 1)
        assert np.all(np.abs(got - want) <= rtol * bound + 1e-6)


@st.composite
def _dot_case(draw):
    na = draw(st.integers(1, 3))
    nb = draw(st.integers(1, 3))
    k = draw(st.integers(0, 9))
    sa = tuple(draw(st.integers(0, 4)) for _ in range(na - 1)) + (k,)
    sb = (k,) if nb == 1 else tuple(draw(st.integers(0, 4)) for _ in range(nb - 2)) + \
        (k, draw(st.integers(0, 5)))
    return sa, sb, draw(st.sampled_from([np.float32, np.int32]))


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(_dot_case())
def test_dot_inner_tensordot_differential(case):
    sa, sb, dt = case
    a, b = _data(sa, dt), _data(sb, dt)
    kb = len(sb) - 2 if len(sb) > 1 else 0
    for name, args, kw in (("dot", (a, b), {}), ("tensordot", (a, b),
                                                 {"axes": ([len(sa) - 1], [kb])}),
                           ("inner", (a, np.moveaxis(b, kb, -1)), {})):
        want = getattr(np, name)(*args, **kw)
        got = getattr(vp, name)(*(vp.asarray(x) for x in args), **kw)
        assert isinstance(got, vp.ndarray), name
        g = got.numpy()
        assert g.shape == np.shape(want) and g.dtype == np.asarray(want).dtype, name
        np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-4, err_msg=name)


def test_dot_is_numpy_dot_on_the_host_and_the_vector_dot_in_kernels():
    a, b = _data((3, 4, 5), np.float32), _data((2, 5, 6), np.float32)
    _close(vp.dot(a, b), np.dot(a, b), k=5)
    np.testing.assert_allclose(vp.dot(vp.asarray(a), vp.asarray(b)).numpy(), np.dot(a, b),
                               rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(vp.asarray(a).dot(vp.asarray(b[0])).numpy(), a.dot(b[0]),
                               rtol=1e-5, atol=1e-5)
    assert vp.dot.__vp_kernel_builtin__ == "dot"

    @vp.kernel
    def vdot4(x: vp.Buffer[vp.vec4], y: vp.Buffer[vp.float32]):
        i = vp.global_id()
        acc = vp.var(0.0)  # the kernel language's vp.var, beside the host's numpy var
        acc += vp.dot(x[i], x[i])
        y[i] = acc

    x = np.arange(16, dtype=np.float32).reshape(4, 4)
    y = np.zeros(4, np.float32)
    vdot4(x, y, dispatch=4)
    np.testing.assert_allclose(y, (x * x).sum(1))
    np.testing.assert_allclose(vp.var(x), np.var(x), rtol=1e-6)  # host vp.var is numpy's


def test_vdot():
    a, b = _data((3, 4), np.float32), _data((2, 6), np.float32)
    got = vp.vdot(a, b)
    assert np.isscalar(got) or np.ndim(got) == 0
    np.testing.assert_allclose(got, np.vdot(a, b), rtol=1e-5)
    r = vp.vdot(vp.asarray(a), vp.asarray(b))
    assert isinstance(r, vp.ndarray) and r.shape == ()
    np.testing.assert_allclose(r.numpy(), np.vdot(a, b), rtol=1e-5)
    i = _data((5, 5), np.int64)
    assert vp.vdot(i, i) == np.vdot(i, i)


# ------------------------------------------------------------------ einsum

EINSUM = [
    ("ij,jk->ik", [(4, 5), (5, 3)]), ("ij,jk", [(4, 5), (5, 3)]),
    ("bij,bjk->bik", [(2, 4, 5), (2, 5, 3)]), ("bij,jk->bik", [(2, 4, 5), (5, 3)]),
    ("ij,kj->ik", [(4, 5), (3, 5)]), ("ji,jk->ik", [(5, 4), (5, 3)]),
    ("ij->ji", [(4, 5)]), ("ijk->kij", [(2, 3, 4)]), ("ii->", [(5, 5)]), ("ii", [(5, 5)]),
    ("ii->i", [(5, 5)]), ("bii->b", [(3, 4, 4)]), ("ij->i", [(4, 5)]), ("ij->j", [(4, 5)]),
    ("ij->", [(4, 5)]), ("i->", [(7,)]), ("i,i->", [(7,), (7,)]), ("i,i", [(7,), (7,)]),
    ("i,j->ij", [(4,), (3,)]), ("i,j", [(4,), (3,)]), ("ij,ij->ij", [(3, 4), (3, 4)]),
    ("ij,ij->", [(3, 4), (3, 4)]), ("ij,j->i", [(4, 5), (5,)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]), ("...ij,jk", [(2, 3, 4), (4, 5)]),
    ("i...->...", [(3, 2, 4)]), ("ijk,ikl->jl", [(2, 3, 4), (2, 4, 5)]),
    ("ij,jk,kl->il", [(3, 4), (4, 5), (5, 2)]), ("ab,cd->abcd", [(2, 3), (4, 1)]),
    ("iij,jk->ik", [(3, 3, 4), (4, 2)]), ("ij,jk->", [(3, 4), (4, 5)]),
    ("bi,bi->b", [(4, 6), (4, 6)]), ("ij,kl->", [(2, 3), (4, 5)]),
    ("i,j->ij", [(0,), (3,)]), ("ij,jk->ik", [(0, 3), (3, 2)]), ("ij,jk->ik", [(2, 0), (0, 3)]),
    ("ij,ij->ij", [(0, 4), (0, 4)]), ("ii->", [(0, 0)]), ("bij,bjk->bik", [(0, 2, 3), (0, 3, 4)]),
]


@pytest.mark.parametrize("subs,shapes", EINSUM, ids=[e[0] for e in EINSUM])
@pytest.mark.parametrize("dt", [np.float32, np.int32])
def test_einsum(subs, shapes, dt):
    ops = [_data(s, dt) for s in shapes]
    want = np.einsum(subs, *ops)
    got = vp.einsum(subs, *[vp.asarray(o) for o in ops])
    assert isinstance(got, vp.ndarray)
    g = got.numpy()
    assert g.shape == np.shape(want) and g.dtype == np.asarray(want).dtype
    np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-4)
    h = vp.einsum(subs, *ops)  # NumPy in -> NumPy out
    assert not isinstance(h, vp.ndarray)
    np.testing.assert_allclose(h, want, rtol=1e-5, atol=1e-4)


def test_einsum_views_and_out():
    a = _data((6, 8), np.float32)
    x = vp.asarray(a)
    want = np.einsum("ij,kj->ik", a[::2, 1:7], a[1::2, :6])
    got = vp.einsum("ij,kj->ik", x[::2, 1:7], x[1::2, :6])
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-5)
    o = vp.zeros((3, 3), np.float32)
    assert vp.einsum("ij,kj->ik", x[::2, 1:7], x[1::2, :6], out=o) is o
    np.testing.assert_allclose(o.numpy(), want, rtol=1e-5, atol=1e-5)


def test_einsum_errors_name_the_subscripts():
    a = np.zeros((2, 3), np.float32)
    # the sublist form was refused here; it is NumPy's now (test_quantile_unique_fft_helpers.py)
    np.testing.assert_array_equal(vp.einsum(a, [0, 1], a.T, [1, 2]).shape, (2, 2))
    with pytest.raises(NotImplementedError, match=r"subscripts 'i1,jk': character '1'"):
        vp.einsum("i1,jk", a, a.T)
    with pytest.raises(ValueError, match="subscript 'j' in 'ij,jk->ik' has lengths 3 and 2"):
        vp.einsum("ij,jk->ik", a, a)
    with pytest.raises(ValueError, match="output subscript 'z'"):
        vp.einsum("ij->z", a)
    with pytest.raises(ValueError, match="name 2 operands, 1 given"):
        vp.einsum("ij,jk", a)


# ------------------------------------------------------------------ NumPy dispatch

def test_numpy_functions_on_resident_arrays():
    a, b = _data((4, 5), np.float32), _data((5, 3), np.float32)
    x, y = vp.asarray(a), vp.asarray(b)
    for name, args in (("matmul", (x, y)), ("dot", (x, y)), ("einsum", ("ij,jk->ik", x, y)),
                       ("tensordot", (x, y, 1)), ("inner", (x, y.T)), ("vdot", (x, x))):
        got = getattr(np, name)(*args)
        nargs = [v.numpy() if isinstance(v, vp.ndarray) else v for v in args]
        want = getattr(np, name)(*nargs)
        assert isinstance(got, vp.ndarray), name
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-5, err_msg=name)
    got = a @ y  # NumPy on the left: np.matmul -> vp.ndarray.__array_ufunc__
    assert isinstance(got, vp.ndarray)
    np.testing.assert_allclose(got.numpy(), a @ b, rtol=1e-5, atol=1e-5)


# ------------------------------------------------------------------ the kernels

@pytest.mark.parametrize("cfg", sorted(_gemm.CONFIGS))
def test_every_tile_configuration(cfg):
    """Each configuration on edges that are not multiples of its tile, with
    vec4 (aligned) and scalar (odd K) loads, and a transposed operand."""
    prev = _gemm.set_config(cfg)
    try:
        for (m, k, n) in ((131, 20, 67), (33, 9, 70)):
            a, b = _data((m, k), np.float32), _data((k, n), np.float32)
            _close(vp.matmul(a, b), a @ b, a, b, k)
            _close(vp.matmul(vp.asarray(a.T.copy()).T, b), a @ b, a, b, k)
    finally:
        _gemm.set_config(prev)
    with pytest.raises(ValueError, match="unknown GEMM configuration 'nope'"):
        _gemm.set_config("nope")


def test_config_from_environment(monkeypatch):
    monkeypatch.setenv(_gemm.ENV, "64x64")
    assert _gemm.choose(4096, 4096, 4096) == "64x64"
    monkeypatch.setenv(_gemm.ENV, "huge")
    with pytest.raises(ValueError, match="VULPY_GEMM_CONFIG='huge'"):
        vp.matmul(np.ones((2, 2), np.float32), np.ones((2, 2), np.float32))
    monkeypatch.delenv(_gemm.ENV)
    assert _gemm.choose(4096, 4096, 4096) == _gemm.LARGE
    assert _gemm.choose(8, 8, 8) == _gemm.SMALL


def test_long_k_is_split_across_dispatches(monkeypatch):
    """The host splits K so no invocation loops more than K_STEPS_MAX times
    (lavapipe ends loops silently after ~65,535 back-edges): forced small
    here, the chunks accumulate into C."""
    monkeypatch.setattr(_gemm, "K_STEPS_MAX", 2)
    a, b = _data((9, 70), np.float32), _data((70, 5), np.float32)
    _close(vp.matmul(a, b), a @ b, a, b, 70)
    i, j = _data((9, 70), np.int32), _data((70, 5), np.int32)
    np.testing.assert_array_equal(vp.matmul(i, j), i @ j)


def test_kernel_source_is_the_kernel_language():
    src = _gemm.source("128x128", np.float32, "k", True, "n", True)
    assert "vp.Shared[vp.float32, 1024]" in src and "vp.barrier()" in src
    assert "av: vp.Buffer[vp.vec4]" in src and "vp.static(range(8))" in src
    assert src.count("acc_") >= 64


# ------------------------------------------------------------------ cooperative matrices

def test_coopmat_probe_and_fallback():
    """The cooperative-matrix float16 path: the probe follows the device's
    'cooperative_matrix' feature (lavapipe: absent), and without it the
    fallback (unpack to float32, then the float32 GEMM) gives NumPy's
    float32-accumulated product. The kernel itself compiles here (glslang)
    and declares the features it needs, so asking a device without them
    for its pipeline is a FeatureError naming cooperative_matrix."""
    from vulpy import _coopmat
    ctx = vp.default_context()
    assert _coopmat.available(ctx) == ctx.has("cooperative_matrix")
    a = _data((128, 64), np.float32).astype(np.float16)
    b = _data((64, 128), np.float32).astype(np.float16)
    want = a.astype(np.float32) @ b.astype(np.float32)
    if not ctx.has("cooperative_matrix"):
        assert not _coopmat.uses_coopmat(ctx, 128, 128, 64)
        with pytest.raises(vp.FeatureError, match="cooperative_matrix"):
            _coopmat._coop_program().native(ctx)
    got = _coopmat.matmul_f16_words(a.view(np.uint32), b.view(np.uint32), 128, 128, 64)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-4)
    got = _coopmat.matmul_f16_words(vp.asarray(a.view(np.uint32)), vp.asarray(b.view(np.uint32)),
                                    128, 128, 64, force_fallback=True)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-4)
    for v in _coopmat.VARIANTS:  # both compile here (glslang) and declare what they need
        p = _coopmat._coop_program(v, (128, 128, 64))
        assert "cooperative_matrix" in p.manifest["features"], v
        assert "GL_NV_cooperative_matrix" in p.artifacts["glsl"]
    with pytest.raises(ValueError, match="must hold 128 x 64 float16 values"):
        _coopmat.matmul_f16_words(a.view(np.uint32)[:10], b.view(np.uint32), 128, 128, 64)


def test_vector_products_take_no_gemm(monkeypatch):
    """vector . vector and matrix @ vector are reductions (one kernel each,
    docs/python-api.md, "Two vectors"), not GEMMs of one used column."""
    from vulpy import _gemm

    def no_gemm(*args, **kwargs):
        raise AssertionError("a GEMM for a vector product")
    monkeypatch.setattr(_gemm, "gemm", no_gemm)
    rng = np.random.default_rng(8)
    a, x = rng.standard_normal((70, 300)).astype(np.float32), rng.standard_normal(300)
    x = x.astype(np.float32)
    av, xv = vp.asarray(a), vp.asarray(x)
    _close((av @ xv).numpy(), a @ x, a, x.reshape(-1, 1), 300)
    _close(vp.dot(av.T.T, xv).numpy(), a @ x, a, x.reshape(-1, 1), 300)
    _close(vp.dot(xv, xv).numpy(), np.dot(x, x), k=300)
    # one row times one column through tensordot / inner / einsum, views too
    for got, want in ((vp.inner(xv, xv), np.inner(x, x)),
                      (vp.tensordot(xv, xv, axes=1), np.tensordot(x, x, axes=1)),
                      (vp.einsum("i,i->", xv, xv), np.einsum("i,i->", x, x)),
                      (vp.tensordot(av, av, axes=2), np.tensordot(a, a, axes=2)),
                      (vp.einsum("ij,ij->", av, av), np.einsum("ij,ij->", a, a))):
        _close(got.numpy(), want, k=300 * 70)
    _close(vp.einsum("ij,ji->", av, av.T).numpy(), np.einsum("ij,ji->", a, a.T), k=300 * 70)
    _close((xv.reshape(1, -1) @ xv.reshape(-1, 1)).numpy(), x.reshape(1, -1) @ x.reshape(-1, 1),
           k=300)
    b = rng.standard_normal((50, 20)).astype(np.float32)
    _close((vp.asarray(b) @ vp.asarray(x[:20])).numpy(), b @ x[:20], b,
           x[:20].reshape(-1, 1), 20)  # short rows: an invocation each
    with pytest.raises(AssertionError, match="GEMM"):
        xv @ av.T  # a vector times a matrix is still a GEMM
    with pytest.raises(AssertionError, match="GEMM"):
        # rows of 64..95 (every device kind; _matvec_gemm): GEMM
        vp.asarray(a[:10, :80]) @ vp.asarray(x[:80])


@pytest.mark.parametrize("m,k", [(1, 8192), (3, 65536), (5, 12288), (7, 8191), (33, 1 << 16)])
def test_few_long_rows_split(monkeypatch, m, k):
    """A @ x with few long rows cuts each row into pieces (a workgroup
    each, then the pieces summed: _matmul._row_split), on GPUs; forced here
    on lavapipe: NumPy's answers for float32, int32 (wrapping) and float64,
    a transposed view of A read in place, and the split's pieces."""
    from vulpy import _matmul
    monkeypatch.setattr(_matmul, "SPLIT_ON_CPU", True)
    s = _matmul._row_split(m, k)
    assert s == 1 if k % 2 else (s > 1 and k % s == 0 and m * s <= _matmul._SPLIT_ROWS)
    r = np.random.default_rng(m)
    a, x = r.standard_normal((m, k)), r.standard_normal(k)
    dts = [np.float32, np.int32] + ([np.float64] if vp.default_context().has("float64") else [])
    for dt in dts:
        A, X = (a * 50).astype(dt), (x * 50).astype(dt)
        want = A @ X
        for Av in (vp.asarray(A), vp.asarray(np.ascontiguousarray(A.T)).T):
            got = (Av @ vp.asarray(X)).numpy()
            assert got.dtype == want.dtype and got.shape == (m,)
            if dt == np.int32:
                np.testing.assert_array_equal(got, want)
            else:
                tol = 1e-4 if dt == np.float32 else 1e-10
                np.testing.assert_allclose(got, want, rtol=tol, atol=tol * 2500 * np.sqrt(k))


def test_matvec_gemm_rows_per_device_kind():
    """Which A @ x row lengths stay a GEMM: k in [64, 256) on a CPU device
    (lavapipe's measurements), [64, 96) on GPUs (an H100's: the reduction
    was 1.1-1.6x faster from k = 100 on); the rest are row reductions."""
    from vulpy import _matmul
    cpu = [k for k in range(1, 400) if _matmul._matvec_gemm("cpu", k)]
    gpu = [k for k in range(1, 400) if _matmul._matvec_gemm("dgpu", k)]
    assert cpu == list(range(64, 256)) and gpu == list(range(64, 96))
    assert _matmul._matvec_gemm("igpu", 100) is False
