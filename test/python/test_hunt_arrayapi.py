"""Issues 19 and 14, a hunt for silent wrong answers: issue 19's shape,
data-movement and algorithm functions (reshape ... pad, eye, sort, unique,
nonzero, searchsorted, matmul, einsum, tensordot, linalg.norm, fft) as a
CuPy user calls them, differentially against NumPy with hypothesis over
every real dtype, empty and 0-d arrays, size-1 and negative axes, and
non-contiguous inputs (x[::2], x.T, x[:, 1:], broadcast views); then the
bad arguments each must refuse with a Python exception, never a crash or
garbage. Each regression test names the bug it pins.
"""
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target

SETTINGS = settings(max_examples=10, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# every real dtype VulPy stores (complex: docs/python-api.md, "Complex dtypes")
DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
          np.uint64, np.float16, np.float32, np.float64]
VIEWS = ("contiguous", "step", "transpose", "offset", "broadcast")


def values(rng, shape, dt):
    """Small values of dt (ties likely), with NaN, -0.0 and inf for floats."""
    dt = np.dtype(dt)
    if dt.kind == "b":
        return rng.integers(0, 2, shape).astype(dt)
    lo = 0 if dt.kind == "u" else -9
    a = rng.integers(lo, 10, shape).astype(dt)
    if dt.kind == "f" and a.size:
        flat = a.reshape(-1)
        for v in (np.nan, -0.0, np.inf, -np.inf):
            flat[rng.integers(0, a.size)] = v
    return a


@st.composite
def cases(draw, min_dims=0, max_dims=3, dts=DTYPES, views=VIEWS):
    """(host array, its resident twin): the same values, the resident one
    built as the view kind drawn (strided, transposed, offset, stride-0)."""
    dt = draw(st.sampled_from(dts))
    nd = draw(st.integers(min_dims, max_dims))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=nd, max_size=nd)))
    if draw(st.integers(0, 3)):  # mostly non-empty
        shape = tuple(max(d, 1) for d in shape)
    view = draw(st.sampled_from(views)) if nd else "contiguous"
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if view == "broadcast":
        one = tuple(1 if i == 0 else d for i, d in enumerate(shape))
        h = np.broadcast_to(values(rng, one, dt), shape)
        return h, vp.broadcast_to(vp.asarray(np.ascontiguousarray(h[:1])), shape)
    h = values(rng, shape, dt)
    if view == "step":
        big = np.zeros(shape[:-1] + (2 * shape[-1] + 1,), dt)
        big[..., 1::2] = h
        return h, vp.asarray(big)[..., 1::2]
    if view == "transpose":
        return h, vp.asarray(np.ascontiguousarray(h.T)).T
    if view == "offset":
        big = np.zeros(shape[:-1] + (shape[-1] + 1,), dt)
        big[..., 1:] = h
        return h, vp.asarray(big)[..., 1:]
    return h, vp.asarray(h)


def same(got, want, name="", rtol=0.0, atol=0.0):
    """got (resident, or a list/tuple of them) equals NumPy's want: shape,
    dtype and values (NaN where NaN; -0.0 vs 0.0 not told apart)."""
    if isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)) and len(got) == len(want), name
        for g, w in zip(got, want):
            same(g, w, name, rtol, atol)
        return
    want = np.asarray(want)
    assert isinstance(got, vp.ndarray), (name, type(got).__name__)
    assert got.shape == want.shape, (name, got.shape, want.shape)
    assert got.dtype == want.dtype, (name, got.dtype, want.dtype)
    if rtol or atol:
        np.testing.assert_allclose(got.numpy(), want, rtol=rtol, atol=atol, err_msg=name)
    else:
        np.testing.assert_array_equal(got.numpy(), want, err_msg=name)


def axis_of(draw, nd):
    return draw(st.integers(-nd, nd - 1))


# ------------------------------------------------------------------ views and copies
@SETTINGS
@given(case=cases(), data=st.data())
def test_view_functions(case, data):
    h, x = case
    nd = h.ndim
    same(vp.reshape(x, (-1,)), np.reshape(h, (-1,)), "reshape")
    same(vp.ravel(x), np.ravel(h), "ravel")
    same(vp.expand_dims(x, -1), np.expand_dims(h, -1), "expand_dims")
    same(vp.squeeze(x), np.squeeze(h), "squeeze")
    same(vp.flip(x), np.flip(h), "flip")
    same(vp.broadcast_to(x, (2,) + h.shape), np.broadcast_to(h, (2,) + h.shape),
         "broadcast_to")
    if nd:
        a, b = axis_of(data.draw, nd), axis_of(data.draw, nd)
        same(vp.swapaxes(x, a, b), np.swapaxes(h, a, b), "swapaxes")
        same(vp.moveaxis(x, a, b), np.moveaxis(h, a, b), "moveaxis")
        same(vp.flip(x, a), np.flip(h, a), "flip axis")
        n = h.shape[a]
        pts = sorted(data.draw(st.lists(st.integers(-1, n + 1), max_size=3)))
        same(vp.split(x, pts, axis=a), np.split(h, pts, axis=a), "split points")
        k = data.draw(st.integers(1, 4))
        same(vp.array_split(x, k, axis=a), np.array_split(h, k, axis=a), "array_split")


@SETTINGS
@given(case=cases(), data=st.data())
def test_copy_functions(case, data):
    h, x = case
    nd = h.ndim
    s = data.draw(st.integers(-7, 7))
    same(vp.roll(x, s), np.roll(h, s), "roll")
    reps = tuple(data.draw(st.lists(st.integers(0, 3), max_size=3)))
    same(vp.tile(x, reps), np.tile(h, reps), "tile")
    r = data.draw(st.integers(0, 3))
    same(vp.repeat(x, r), np.repeat(h, r), "repeat")
    pw = data.draw(st.integers(0, 2))
    same(vp.pad(x, pw), np.pad(h, pw), "pad constant")
    same(vp.pad(x, pw, constant_values=3), np.pad(h, pw, constant_values=3), "pad value")
    if nd:
        a = axis_of(data.draw, nd)
        same(vp.roll(x, s, axis=a), np.roll(h, s, axis=a), "roll axis")
        same(vp.repeat(x, r, axis=a), np.repeat(h, r, axis=a), "repeat axis")
        counts = data.draw(st.lists(st.integers(0, 3), min_size=h.shape[a], max_size=h.shape[a]))
        same(vp.repeat(x, counts, axis=a), np.repeat(h, counts, axis=a), "repeat counts")
        same(vp.concatenate([x, x[::-1]], axis=a), np.concatenate([h, h[::-1]], axis=a),
             "concatenate")
        same(vp.concatenate([x, h], axis=None), np.concatenate([h, h], axis=None),
             "concatenate None")
        st_ax = data.draw(st.integers(-nd - 1, nd))
        same(vp.stack([x, x], axis=st_ax), np.stack([h, h], axis=st_ax), "stack")
        same(vp.hstack([x, x]), np.hstack([h, h]), "hstack")
        same(vp.vstack([x, x]), np.vstack([h, h]), "vstack")
        if 0 not in h.shape:
            mode = data.draw(st.sampled_from(["edge", "wrap", "reflect", "symmetric"]))
            same(vp.pad(x, pw, mode=mode), np.pad(h, pw, mode=mode), "pad " + mode)
            mode = data.draw(st.sampled_from(["maximum", "minimum"]))
            if h.dtype.kind != "f":  # NaN handling of max/min: the reductions' tests
                same(vp.pad(x, pw, mode=mode), np.pad(h, pw, mode=mode), "pad " + mode)


@SETTINGS
@given(n=st.integers(0, 5), m=st.one_of(st.none(), st.integers(0, 5)), k=st.integers(-6, 6),
       dt=st.sampled_from(DTYPES))
def test_eye(n, m, k, dt):
    same(vp.eye(n, m, k, dtype=dt), np.eye(n, m, k, dtype=dt), "eye")
    same(vp.identity(n, dtype=dt), np.identity(n, dtype=dt), "identity")


# ------------------------------------------------------------------ sorting and searching
@SETTINGS
@given(case=cases(), data=st.data())
def test_sort_argsort(case, data):
    h, x = case
    ax = axis_of(data.draw, h.ndim) if h.ndim else None
    # stable: NumPy's kind='stable' is the order VulPy's radix sort gives
    same(vp.sort(x, axis=ax), np.sort(h, axis=ax, kind="stable"), "sort")
    same(vp.argsort(x, axis=ax, kind="stable"), np.argsort(h, axis=ax, kind="stable"),
         "argsort")
    same(vp.sort(x, axis=None), np.sort(h, axis=None, kind="stable"), "sort None")


@SETTINGS
@given(case=cases())
def test_unique_nonzero(case):
    h, x = case
    same(vp.unique(x), np.unique(h), "unique")
    same(vp.unique(x, return_index=True, return_inverse=True, return_counts=True),
         np.unique(h, return_index=True, return_inverse=True, return_counts=True), "unique all")
    if h.ndim:
        same(vp.nonzero(x), np.nonzero(h), "nonzero")
    same(vp.argwhere(x), np.argwhere(h), "argwhere")
    same(vp.flatnonzero(x), np.flatnonzero(h), "flatnonzero")


@SETTINGS
@given(case=cases(min_dims=1, max_dims=1), probe=cases(), side=st.sampled_from(["left", "right"]),
       data=st.data())
def test_searchsorted(case, probe, side, data):
    h, _ = case
    v, _ = probe
    v = v.astype(h.dtype)
    s = np.sort(h, kind="stable")
    same(vp.searchsorted(vp.asarray(s), vp.asarray(v), side=side),
         np.searchsorted(s, v, side=side), "searchsorted")
    order = np.argsort(h, kind="stable")
    same(vp.searchsorted(vp.asarray(h), vp.asarray(v), side=side, sorter=vp.asarray(order)),
         np.searchsorted(h, v, side=side, sorter=order), "searchsorted sorter")


# ------------------------------------------------------------------ products
_PROD_DTS = [np.int8, np.uint8, np.int16, np.int32, np.uint32, np.int64, np.uint64,
             np.float32, np.float64]


def _tol(dt):
    return (1e-5, 1e-5) if np.dtype(dt) == np.float32 else (1e-12, 1e-12) if \
        np.dtype(dt).kind == "f" else (0, 0)


@st.composite
def operand(draw, shape, dt, view):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    lo = 0 if np.dtype(dt).kind == "u" else -5
    h = rng.integers(lo, 6, shape).astype(dt)
    if view == "transpose" and len(shape) >= 2:
        return h, vp.asarray(np.ascontiguousarray(np.swapaxes(h, -1, -2))).swapaxes(-1, -2)
    if view == "step" and shape:
        big = np.zeros(shape[:-1] + (2 * shape[-1],), dt)
        big[..., ::2] = h
        return h, vp.asarray(big)[..., ::2]
    return h, vp.asarray(h)


@SETTINGS
@given(dt=st.sampled_from(_PROD_DTS), m=st.integers(0, 4), k=st.integers(0, 4),
       n=st.integers(0, 4), b=st.sampled_from([(), (1,), (2,), (2, 1)]),
       va=st.sampled_from(["contiguous", "transpose", "step"]),
       vb=st.sampled_from(["contiguous", "transpose", "step"]), data=st.data())
def test_products(dt, m, k, n, b, va, vb, data):
    rtol, atol = _tol(dt)
    ha, xa = data.draw(operand(b + (m, k), dt, va))
    hb, xb = data.draw(operand((k, n), dt, vb))
    same(vp.matmul(xa, xb), np.matmul(ha, hb), "matmul", rtol, atol)
    same(xa @ xb, ha @ hb, "@", rtol, atol)
    hv, xv = data.draw(operand((k,), dt, vb))
    same(vp.matmul(xa, xv), np.matmul(ha, hv), "matmul mv", rtol, atol)
    same(vp.matmul(xv, xb), np.matmul(hv, hb), "matmul vm", rtol, atol)
    same(vp.dot(xv, xv), np.asarray(np.dot(hv, hv)), "dot vv", rtol, atol)
    same(vp.dot(xa, xb), np.dot(ha, hb), "dot", rtol, atol)
    same(vp.outer(xa, xv), np.outer(ha, hv), "outer", rtol, atol)
    same(vp.einsum("...ij,jk->...ik", xa, xb), np.einsum("...ij,jk->...ik", ha, hb), "einsum",
         rtol, atol)
    same(vp.einsum("...ij->...j", xa), np.einsum("...ij->...j", ha), "einsum sum", rtol, atol)
    same(vp.tensordot(xa, xb, axes=1), np.tensordot(ha, hb, axes=1), "tensordot", rtol, atol)
    if dt in (np.float32, np.float64):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            for o in (None, 1, 2, np.inf, -np.inf, 0) if k else (None, 1, 2, 0):
                same(vp.linalg.norm(xv, ord=o), np.asarray(np.linalg.norm(hv, ord=o)),
                     f"norm {o}", 1e-5, 1e-5)
            if m and k:  # NumPy's matrix norms need a non-empty matrix
                for o in (None, "fro", 1, -1, np.inf, -np.inf):
                    same(vp.linalg.norm(xa, ord=o, axis=(-2, -1)),
                         np.linalg.norm(ha, ord=o, axis=(-2, -1)), f"norm {o}", 1e-5, 1e-5)


# ------------------------------------------------------------------ bad arguments
def _raises(exc, fn, *words):
    """fn() raises exc (a Python exception, not a crash) whose message
    contains each of words."""
    with pytest.raises(exc) as e:
        fn()
    for w in words:
        assert w in str(e.value), (w, str(e.value))


def test_bad_arguments_raise():
    x = vp.asarray(np.arange(12, dtype=np.float32).reshape(3, 4))
    _raises(np.exceptions.AxisError, lambda: vp.swapaxes(x, 0, 2), "axis")
    _raises(np.exceptions.AxisError, lambda: vp.moveaxis(x, 0, -3), "axis")
    _raises(np.exceptions.AxisError, lambda: vp.expand_dims(x, 3), "axis")
    _raises(np.exceptions.AxisError, lambda: vp.concatenate([x, x], axis=2), "axis")
    _raises(np.exceptions.AxisError, lambda: vp.roll(x, 1, axis=-3), "axis")
    _raises(np.exceptions.AxisError, lambda: vp.sort(x, axis=2), "axis")
    _raises(ValueError, lambda: vp.squeeze(x, 0), "size")
    _raises(ValueError, lambda: vp.reshape(x, (5, 3)), "reshape")
    _raises(ValueError, lambda: vp.concatenate([x, x.T]), "dimension")
    _raises(ValueError, lambda: vp.stack([x, x.T]), "same shape")
    _raises(ValueError, lambda: vp.broadcast_to(x, (3, 5)), "(3, 5)")
    _raises(ValueError, lambda: vp.split(x, 3, axis=1), "equal division")
    _raises(ValueError, lambda: vp.tile(x, -1), "negative")
    _raises(ValueError, lambda: vp.repeat(x, [1, 2], axis=0))
    _raises(ValueError, lambda: vp.pad(x, -1), "negative")
    _raises(ValueError, lambda: vp.eye(-1), "negative")
    _raises(ValueError, lambda: vp.matmul(x, x), "shapes")
    _raises(ValueError, lambda: vp.dot(x, x), "aligned")
    _raises(ValueError, lambda: vp.einsum("ij,jk->ik", x, x), "'j'")
    _raises(ValueError, lambda: vp.tensordot(x, x, axes=([0], [1])), "shape-mismatch")
    _raises(ValueError, lambda: vp.searchsorted(x[0], 1, side="middle"), "side")
    _raises(ValueError, lambda: vp.searchsorted(x[0], 1, sorter=[0, 1]), "sorter")
    _raises(ValueError, lambda: vp.sort(x, kind="bogo"), "kind")
    _raises(TypeError, lambda: vp.eye(2, dtype=object), "dtype")
    _raises(ValueError, lambda: vp.fft.fft(x, n=0), "n=0")
    _raises(ValueError, lambda: vp.linalg.norm(x, ord="bogus"))


# ------------------------------------------------------------------ regressions (each failed before its fix)
def test_reshape_float_shape_is_a_type_error():
    """x.reshape((2.9, 6)) was int()'s (2, 6), a silent reshape; NumPy
    refuses a float dimension."""
    x = vp.asarray(np.arange(12, dtype=np.float32))
    for shape in ((2.9, 6), (3.0, 4), 12.0):
        with pytest.raises(TypeError, match="integer"):
            x.reshape(shape)
        with pytest.raises(TypeError, match="integer"):
            vp.reshape(x, shape)
    same(x.reshape(np.int64(3), 4), np.arange(12, dtype=np.float32).reshape(3, 4))


def test_split_zero_sections_is_a_value_error():
    """vp.split(x, 0) was a ZeroDivisionError; NumPy's ValueError."""
    x = vp.asarray(np.arange(6, dtype=np.int32))
    for f in (vp.split, vp.array_split):
        with pytest.raises(ValueError, match="number sections must be larger than 0"):
            f(x, 0)


@pytest.mark.parametrize("resident", [False, True])
def test_searchsorted_sorter_out_of_range(resident):
    """A sorter index outside [0, a.size) was clamped by the gather: a
    silent wrong insertion point. NumPy: ValueError."""
    h = np.arange(12, dtype=np.float32)
    x = vp.asarray(h)
    for bad in ([*range(11), 12], [*range(11), -1]):
        s = vp.asarray(np.array(bad)) if resident else bad
        with pytest.raises(ValueError, match="Sorter index out of range"):
            vp.searchsorted(x, 3.5, sorter=s)
    with pytest.raises(TypeError, match="sorter"):
        vp.searchsorted(x, 3.5, sorter=np.arange(12.0))
    perm = np.random.default_rng(0).permutation(12)
    hs = h[perm]
    s = np.argsort(hs, kind="stable")
    same(vp.searchsorted(vp.asarray(hs), vp.asarray(h), sorter=vp.asarray(s) if resident else s),
         np.searchsorted(hs, h, sorter=s))


def test_numpy_creation_like_resident():
    """np.eye / np.ones / np.full / np.identity(..., like=x) raised
    TypeError (NumPy passes order= and device=, which vp's have not), and
    vp.ones(n, dtype=None) made int64 ones. dtype=None is no dtype= (one
    rule, docs/python-api.md): vp's float32; through NumPy's names with
    like=, NumPy's own dtype (np.zeros / np.empty / np.arange(3.0, like=x)
    were float32)."""
    x = vp.asarray(np.zeros(2, np.float32))
    same(np.eye(3, 4, 1, like=x), np.eye(3, 4, 1))
    same(np.eye(3, dtype=np.int8, like=x), np.eye(3, dtype=np.int8))
    same(np.identity(2, like=x), np.identity(2))
    same(np.ones((2, 3), like=x), np.ones((2, 3)))
    same(np.full(3, 7, like=x), np.full(3, 7))
    for f in (vp.ones, vp.zeros, vp.empty, vp.eye, vp.identity, vp.tri):
        assert f(3, dtype=None).dtype == f(3).dtype == np.float32
    same(vp.ones(3, dtype=None), np.ones(3, dtype=np.float32))
    same(np.zeros((2, 3), like=x), np.zeros((2, 3)))
    same(np.empty(0, like=x), np.empty(0))
    for args in ((3.0,), (1, 7, 2), (0, 1, 0.25), (np.float32(3),), (2, 5, np.float32(0.5))):
        same(np.arange(*args, like=x), np.arange(*args))
    same(np.full(2, 2.5, like=x), np.full(2, 2.5))
    with pytest.raises(NotImplementedError, match="order='F'"):
        np.ones(3, order="F", like=x)


@pytest.mark.parametrize("dt", [np.int8, np.uint16, np.float16, np.float32, np.bool_])
def test_dot_python_scalar_is_an_array(dt):
    """vp.dot(int8 array, 3) was int8 (3 taken as a weak scalar: 100 * 3
    wrapped to 44); numpy.dot makes a Python scalar an int64 / float64
    array, so the product is int64 (float64)."""
    h = np.array([100, 1, 0], dtype=dt)
    x = vp.asarray(h)
    for s in (3, 2.5, True, np.int8(3), np.float32(2)):
        same(vp.dot(x, s), np.dot(h, s), f"dot {s!r}")
        same(vp.dot(s, x), np.dot(s, h), f"dot {s!r}")


def test_einsum_and_tensordot_host_scalar_operands():
    """einsum(',ij->ij', 2, x) raised "axes don't match array": a host 0-d
    operand became 1-d on upload (np.ascontiguousarray)."""
    h = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = vp.asarray(h)
    same(vp.einsum(",ij->ij", 2, x), np.einsum(",ij->ij", 2, h))
    same(vp.einsum("ij,->ji", x, np.int8(2)), np.einsum("ij,->ji", h, np.int8(2)))
    same(vp.tensordot(2, x, 0), np.tensordot(2, h, 0))
    same(vp.tensordot(x, np.float32(2), 0), np.tensordot(h, np.float32(2), 0))


@pytest.mark.parametrize("odt", [np.int32, np.bool_, np.float64, np.float16])
def test_concatenate_out_casting(odt):
    """vp.concatenate([f32, f32], out=int32 array) truncated silently
    (the cast was checked against the inputs' own dtype); NumPy checks the
    inputs against out='s dtype under casting='same_kind' (TypeError)."""
    h = np.array([1.5, 2.5, -0.5], np.float32)
    x = vp.asarray(h)
    ok = np.can_cast(np.float32, odt, "same_kind")
    for fv, fn in ((lambda o: vp.concatenate([x, x], out=o), lambda o: np.concatenate([h, h], out=o)),
                   (lambda o: vp.stack([x, x], out=o.reshape(2, 3)),
                    lambda o: np.stack([h, h], out=o.reshape(2, 3)))):
        o = vp.zeros(6, odt)
        if ok:
            fv(o)
            want = np.zeros(6, odt)
            fn(want)
            same(o, want)
        else:
            with pytest.raises(TypeError, match="cannot cast float32"):
                fv(o)
            np.testing.assert_array_equal(o.numpy(), np.zeros(6, odt))  # untouched
        o = vp.zeros(6, odt)
        vp.concatenate([x, x], out=o, casting="unsafe")
        same(o, np.concatenate([h, h]).astype(odt))
    with pytest.raises(TypeError, match="not both"):
        vp.concatenate([x, x], out=vp.zeros(6, odt), dtype=odt)


def test_numpy_reshape_copy_and_broadcast_to_subok():
    """np.reshape(x, s, copy=...) raised "order='C' only" (copy= was not
    read) and np.broadcast_to(x, s, subok=False) a TypeError."""
    h = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = vp.asarray(h)
    r = np.reshape(x, (4, 3), copy=True)
    r[0, 0] = 99
    assert x.numpy()[0, 0] == 0  # a copy
    r = np.reshape(x, (4, 3), copy=False)
    r[0, 0] = 7
    assert x.numpy()[0, 0] == 7  # a view
    with pytest.raises(ValueError, match="copy"):
        np.reshape(x.T, (12,), copy=False)
    same(np.reshape(x.T, (12,), copy=True), np.reshape(x.numpy().T, (12,)))
    same(np.broadcast_to(x, (2, 3, 4), subok=False), np.broadcast_to(x.numpy(), (2, 3, 4)))


@pytest.mark.parametrize("casting", ["safe", "same_kind", "unsafe"])
@pytest.mark.parametrize("odt", [np.int32, np.float16, np.float32, np.float64])
def test_einsum_casting(casting, odt):
    """vp.einsum ignored casting=: a float32 result went into a float16
    out= under the default casting='safe' (NumPy: TypeError), and
    casting='unsafe' into an int32 out= was refused; dtype= was not
    checked against the operands either."""
    h = np.arange(6, dtype=np.float32).reshape(2, 3) + 0.5
    x = vp.asarray(h)
    for call in (lambda m, a, o: m.einsum("ij,kj->ik", a, a, out=o, casting=casting),
                 lambda m, a, o: m.einsum("ij,kj->ik", a, a, dtype=o.dtype, casting=casting)):
        try:
            want = call(np, h, np.zeros((2, 2), odt))
        except TypeError:
            with pytest.raises(TypeError, match="cast"):
                call(vp, x, vp.zeros((2, 2), odt))
            continue
        same(call(vp, x, vp.zeros((2, 2), odt)), want)


@pytest.mark.parametrize("axis", [-1, 0, None])
def test_argsort_zero_d(axis):
    """vp.argsort of a 0-d array raised AxisError; NumPy's argsort sees a
    0-d array as 1-d (array([0])), while its sort refuses axis=-1/0."""
    h = np.array(3.0, np.float32)
    for a in (h, vp.asarray(h)):
        got = vp.argsort(a, axis=axis)
        assert got.shape == (1,) and got.dtype == np.int64 and got.tolist() == [0]
        if axis is not None:
            with pytest.raises(np.exceptions.AxisError):
                vp.sort(a, axis=axis)


@pytest.mark.parametrize("dt", [np.float32, np.int8, np.uint64])
def test_sort_many_short_rows(dt):
    """vp.sort(x, axis=1) of a (2**17 + 1, 2) array raised VulkanError
    (the radix sort gave every row a tile and 256 histogram words: 128 MiB,
    over lavapipe's binding limit; (2**20, 1) wanted 1 GiB). Now two sorts
    of the whole array (keys, then row numbers) once the histograms would
    not fit one binding."""
    from vulpy import _sort
    limit = vp.default_context().limits["max_storage_buffer_range"]
    rows = min(limit // 1024 + 1, 2**20)
    h = np.random.default_rng(1).integers(0, 9, (rows, 2)).astype(dt)
    if h.dtype.kind == "f":
        h[::7, 0] = np.nan
        h[::5, 1] = -0.0
    x = vp.asarray(h)
    if rows == limit // 1024 + 1:
        assert _sort._many_rows(x)
    same(vp.sort(x, axis=1), np.sort(h, axis=1, kind="stable"))
    same(vp.argsort(x, axis=-1), np.argsort(h, axis=-1, kind="stable"))
    same(vp.argsort(x.T, axis=0), np.argsort(h.T, axis=0, kind="stable"))
    x.sort(axis=1)
    same(x, np.sort(h, axis=1, kind="stable"))


@pytest.mark.parametrize("fn,shape,axes", [("fft2", (65536, 2, 3), (-2, -1)),
                                           ("fftn", (2, 65537, 2), (0, 2)),
                                           ("ifftn", (65537, 2, 2, 2), (1, 2, 3)),
                                           ("rfft2", (65536, 2, 4), (-2, -1))])
def test_fft_multi_axis_large_batch(fn, shape, axes):
    """A 2-D / 3-D transform with a batch of 65,536 or more (the device's
    workgroup-count limit) returned garbage and NaN without an error
    (VkFFT's multi-dimensional plan dispatches its batch along one
    workgroup count); now such groups go one axis at a time."""
    rng = np.random.default_rng(0)
    h = rng.standard_normal(shape).astype(np.float32)
    if fn != "rfft2":
        h = (h + 1j * rng.standard_normal(shape)).astype(np.complex64)
    got = getattr(vp.fft, fn)(vp.asarray(h), axes=axes)
    want = getattr(np.fft, fn)(h, axes=axes)
    assert got.shape == want.shape and got.dtype == want.dtype
    g = got.numpy()
    assert np.isfinite(g).all()
    assert np.abs(g - want).max() <= 1e-5 * np.abs(want).max()


@pytest.mark.parametrize("dt", [np.float32, np.int32, np.float64])
def test_matmul_past_the_workgroup_counts(dt):
    """A tall matmul, (2**22 + 65) x 2 @ 2 x 3 (a point cloud times a
    matrix), raised VulkanError: 65,538 workgroups in y, one per 64 rows of
    C. The GEMM now dispatches C in blocks of at most the device's counts;
    here the counts are made small (_gemm.GRID_GROUPS) so that small
    products cross several blocks in x, y and z, with vec4 and strided
    operands."""
    from vulpy import _gemm
    rng = np.random.default_rng(0)
    a = rng.integers(-5, 6, (3, 300, 20)).astype(dt)
    b = rng.integers(-5, 6, (3, 20, 260)).astype(dt)
    xa, xb = vp.asarray(a), vp.asarray(b)
    old = _gemm.GRID_GROUPS
    _gemm.GRID_GROUPS = (2, 2, 2)
    try:
        same(vp.matmul(xa, xb), np.matmul(a, b))
        same(vp.matmul(xa[:, 1:, :], xb[:, :, 3:]), np.matmul(a[:, 1:, :], b[:, :, 3:]))
        same(vp.matmul(xb.swapaxes(1, 2), xa.swapaxes(1, 2)),
             np.matmul(b.swapaxes(1, 2), a.swapaxes(1, 2)))
        same(vp.matmul(xa[0], xb[0, :, 0]), np.matmul(a[0], b[0, :, 0]))
    finally:
        _gemm.GRID_GROUPS = old


def test_uniform_range_checks_like_numpy():
    """Generator.uniform(0, inf) returned inf samples and uniform([1.],
    [0.]) samples from the reversed range (its docstring said NumPy does
    not check arrays; it does): NumPy raises OverflowError for a range
    high - low that is not finite and ValueError for a negative one,
    numbers and arrays alike."""
    for low, high, exc in ((0.0, np.inf, OverflowError), (-1e308, 1e308, OverflowError),
                           (0.0, np.nan, OverflowError), ([0.0], [np.inf], OverflowError),
                           (2.0, 1.0, ValueError), ([1.0], [0.0], ValueError),
                           (np.array([0.0, 1.0]), np.array([1.0, 0.5]), ValueError)):
        with pytest.raises(exc):
            np.random.default_rng(0).uniform(low, high)
        g = vp.random.default_rng(0)
        before = g.bit_generator.state
        with pytest.raises(exc, match="Generator.uniform"):
            g.uniform(low, high)
        with pytest.raises(exc, match="Generator.uniform"):
            g.uniform(vp.asarray(np.asarray(low, np.float64)),
                      vp.asarray(np.asarray(high, np.float64)))
        assert str(g.bit_generator.state) == str(before)  # a failed call draws nothing
    u = vp.random.default_rng(0).uniform([0.0, 5.0], [1.0, 6.0], size=(1000, 2)).numpy()
    assert (u[:, 0] >= 0).all() and (u[:, 0] < 1).all() and (u[:, 1] >= 5).all()


def test_roll_array_shift_and_axis():
    """vp.roll(x, np.array([1, 2]), axis=(0, 1)) raised "only integer
    scalar arrays can be converted to a scalar index"; NumPy takes arrays
    for shift and axis as it takes sequences."""
    h = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = vp.asarray(h)
    for s, a in ((np.array([1, 2]), (0, 1)), (1, np.array([0, 2])), (np.array([-1, 5]), [2, 2]),
                 (np.int64(2), np.int8(-1)), ([1, 2], 1)):
        same(vp.roll(x, s, a), np.roll(h, s, a), f"roll {s} {a}")


@pytest.mark.parametrize("src", [np.int32, np.float32])
@pytest.mark.parametrize("dt", [np.float64, np.int8, np.float16, np.bool_, np.int64, np.uint8])
def test_matmul_dtype_casting(src, dt):
    """vp.matmul(x, y, dtype=) did not check the operands' cast: float32
    operands with dtype=int8 were truncated silently, int32 ones with
    dtype=bool made a bool product; NumPy casts under 'same_kind'
    (UFuncTypeError otherwise)."""
    h = np.arange(6, dtype=src).reshape(2, 3) - 2
    x = vp.asarray(h)
    try:
        want = np.matmul(h, h.T, dtype=dt)
    except TypeError:
        with pytest.raises(TypeError, match="same_kind"):
            vp.matmul(x, x.T, dtype=dt)
        return
    same(vp.matmul(x, x.T, dtype=dt), want)


def test_reshape_ravel_flatten_orders_as_numpy():
    """order='F' / 'A' / 'K' of reshape, ravel and flatten raised
    NotImplementedError ("order='C' only"); now NumPy's, on contiguous
    arrays and on views (transposed, stepped, reversed, permuted), through
    vp.<f>, the methods and np.<f>, and inside vp.jit."""
    r = np.random.default_rng(0)
    a = r.standard_normal((2, 3, 4)).astype(np.float32)
    x = vp.asarray(a)
    views = [(a, x), (a.T, x.T), (a[:, ::2], x[:, ::2]), (a[::-1, :, 1:], x[::-1, :, 1:]),
             (a.transpose(1, 0, 2), x.transpose(1, 0, 2)),
             (a[:, :, ::-1].transpose(2, 0, 1), x[:, :, ::-1].transpose(2, 0, 1)),
             (np.zeros((0, 3), np.float32), vp.asarray(np.zeros((0, 3), np.float32)))]
    for h, v in views:
        for order in "CFAK":
            for want, got in ((np.ravel(h, order), vp.ravel(v, order)), (h.ravel(order), v.ravel(order)),
                              (h.flatten(order), v.flatten(order)),
                              (np.ravel(h, order=order), np.ravel(v, order=order))):
                same(got, want)
            if order == "K":
                continue
            for shp in ((-1,), (h.size // 2, 2) if h.size % 2 == 0 else (-1, 1), (1, -1)):
                want = np.reshape(h, shp, order=order)
                for got in (vp.reshape(v, shp, order=order), v.reshape(shp, order=order),
                            np.reshape(v, shp, order=order)):
                    same(got, want)
    assert x.T.ravel("F")._buf is x._buf  # a view, as NumPy's
    f = x.flatten("F")
    f[0] = 99
    assert x.numpy()[0, 0, 0] == a[0, 0, 0]  # flatten copies
    with pytest.raises(ValueError, match="order must be one of 'C', 'F', 'A' \\(got 'X'\\)"):
        x.reshape(-1, order="X")
    with pytest.raises(ValueError, match="order must be one of 'C', 'F', 'A', 'K'"):
        vp.ravel(x, "Q")
    g = vp.jit(lambda t: vp.reshape(t, (4, 6), order="F") * 2)
    same(g(x), np.reshape(a, (4, 6), order="F") * 2)


def test_flags_as_numpy():
    """x.flags was an AttributeError (CuPy and NumPy code reads
    x.flags.c_contiguous / x.flags['F_CONTIGUOUS'] before handing memory
    on); now NumPy's contiguity and writeable flags on arrays and views."""
    a = np.arange(24.0).reshape(2, 3, 4)
    x = vp.asarray(a)
    pairs = [(a, x), (a.T, x.T), (a[:, ::2], x[:, ::2]), (a[1], x[1]), (a[:, :1, :], x[:, :1, :]),
             (a[0, 0, 1:], x[0, 0, 1:]), (a[:, 0, :].T, x[:, 0, :].T),
             (np.zeros((0, 3)), vp.asarray(np.zeros((0, 3)))),
             (np.broadcast_to(a, (2, 2, 3, 4)), vp.broadcast_to(x, (2, 2, 3, 4)))]
    for h, v in pairs:
        for key in ("C_CONTIGUOUS", "F_CONTIGUOUS", "WRITEABLE", "C", "F", "ALIGNED"):
            assert v.flags[key] == h.flags[key], (key, h.shape, h.strides)
        assert (v.flags.c_contiguous, v.flags.f_contiguous, v.flags.forc, v.flags.fnc) == \
            (h.flags.c_contiguous, h.flags.f_contiguous, h.flags.forc, h.flags.fnc)
    assert x.flags.owndata and not x[1].flags.owndata
    assert "C_CONTIGUOUS : True" in repr(x.flags)
    with pytest.raises(KeyError, match="Unknown flag"):
        x.flags["BOGUS"]


@pytest.mark.parametrize("dt", [np.int8, np.uint8, np.int32, np.int64, np.float16, np.bool_])
def test_vecdot_keeps_the_operand_dtype(dt):
    """vp.vecdot / vp.linalg.vecdot of integers were int64 / uint64 (the
    sum's widening; NumPy's dot loops keep int8 and wrap), float16 products
    were rounded each before the sum (11.22 where NumPy's HALF_dot, summing
    in float32, gives 11.27), bools were summed (NumPy: any(a and b))."""
    r = np.random.default_rng(3)
    a = (r.standard_normal((3, 40)) * 30).astype(dt)
    b = (r.standard_normal(40) * 30).astype(dt)
    want = np.vecdot(a, b)
    for f in (vp.vecdot, vp.linalg.vecdot):
        got = f(vp.asarray(a), vp.asarray(b))
        assert got.dtype == want.dtype, (f, got.dtype, want.dtype)
        if dt == np.float16:  # NumPy adds in order, VulPy pairwise: one float16 rounding apart
            np.testing.assert_allclose(got.numpy().astype(np.float32), want.astype(np.float32),
                                       rtol=2e-3, atol=0.02)
        else:
            np.testing.assert_array_equal(got.numpy(), want)


def test_concatenate_complex_into_a_real_dtype_names_the_dropped_part():
    # casting='unsafe' into a real dtype said "complex64 operands are not
    # supported" (concatenate supports them); it is astype's refusal
    a = vp.asarray(np.array([1 + 2j, 3 - 1j], np.complex64))
    with pytest.raises(TypeError, match="complex64 into float32 would drop the imaginary part"):
        vp.concatenate([a, a], dtype=np.float32, casting="unsafe")
    same(vp.concatenate([a, a], dtype=np.complex128), np.concatenate([a.numpy()] * 2,
                                                                     dtype=np.complex128))


def test_pad_median_of_bools_is_not_rounded():
    # mode='median' / 'mean' of a bool array rounded the statistic like an
    # integer array's (a median of 0.5 became False); NumPy rounds integer
    # arrays only, and 0.5 is True as a bool
    for a in ([True, False], [True, False, False, True], [False, True, True]):
        h = np.array(a)
        for mode in ("median", "mean"):
            same(vp.pad(vp.asarray(h), 2, mode=mode), np.pad(h, 2, mode=mode))


@pytest.mark.parametrize("est", ["auto", "fd", "doane", "rice", "scott", "sqrt", "sturges"])
def test_histogram_bin_estimators_as_numpy(est):
    """bins='auto' and NumPy's other estimators raised NotImplementedError;
    now NumPy's bin-width rules (edges and counts equal to NumPy's), with a
    range= that drops values, integers (width at least 1), constant data
    (fd's zero width: one bin), NaN / inf data (NumPy's ValueError)."""
    r = np.random.default_rng(0)
    for a in (r.standard_normal(1000), (r.standard_normal(500) * 50).astype(np.int32),
              r.exponential(size=777).astype(np.float32), np.array([5.0, 5.0, 5.0]),
              np.array([-100, 100], np.int8), np.zeros(0, np.float32)):
        for kw in ({}, {"range": (0, 2)}):
            want = np.histogram(a, bins=est, **kw)
            got = vp.histogram(vp.asarray(a), bins=est, **kw)
            same(got[0], want[0])
            same(got[1], want[1], rtol=1e-12)
    with pytest.raises(ValueError, match="not finite"):
        vp.histogram(vp.asarray(np.array([1.0, np.nan])), bins=est)
    with pytest.raises(TypeError, match="weighted data"):
        vp.histogram(vp.asarray(np.ones(3)), bins=est, weights=vp.asarray(np.ones(3)))
    with pytest.raises(ValueError, match="not a valid estimator"):
        vp.histogram(vp.asarray(np.ones(3)), bins="bogus")


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.uint8, np.int8, np.float16,
                                np.bool_])
def test_pad_linear_ramp_as_numpy(dt):
    """vp.pad(mode='linear_ramp') raised NotImplementedError on resident
    arrays; now NumPy's linspace per slab, in NumPy's type (float64 for one
    or two end values, the array's float type for a per-axis table), and
    NumPy's error for an empty axis. (NumPy's step == 0 test reads the
    uninitialized pad areas of later axes, zeros here, so a float element
    may differ from NumPy's in its last bit.)"""
    r = np.random.default_rng(0)
    for shape in ((7,), (3, 4), (2, 3, 4)):
        a = (r.standard_normal(shape) * 20).astype(dt)
        nd = len(shape)
        for pw in (2, [(1, 3)] * nd, 0):
            for ev in (0, 7, [(1, -2)] * nd, 2.5, (2, -1)):
                want = np.pad(a, pw, mode="linear_ramp", end_values=ev)
                got = vp.pad(vp.asarray(a), pw, mode="linear_ramp", end_values=ev)
                if np.dtype(dt).kind == "f":
                    same(got, want, rtol=1e-6 if dt != np.float64 else 1e-14,
                         atol=1e-6 if dt != np.float64 else 1e-14)
                else:
                    same(got, want)
    for mode in ("linear_ramp", "mean", "maximum", "median"):  # (the statistics said
        # "stat_length of 0 yields no value")
        with pytest.raises(ValueError, match="can't extend empty axis 0"):
            vp.pad(vp.asarray(np.zeros((0, 3), dt)), 1, mode=mode)
