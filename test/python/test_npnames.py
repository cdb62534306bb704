"""The NumPy and CuPy names a user types first that need no kernel
(vulpy/_npnames.py): NumPy's constants, scalar types and dtype functions as
NumPy's own objects, dtype questions about resident arrays answered without
a download, CuPy's asnumpy / get_array_module, and helpers whose results
are resident. Before, `vp.pi`, `vp.inf`, `vp.newaxis`, `vp.complex64`,
`vp.asnumpy`, `vp.copy`, ... were AttributeErrors and `np.can_cast(x, ...)`,
`np.copy(x)`, `np.save(f, x)` of a resident x were refusals."""
import io
import math

import numpy as np
import pytest

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target

H = np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5

NUMPY_OBJECTS = ["pi", "e", "euler_gamma", "inf", "nan", "newaxis", "complex64", "complex128",
                 "csingle", "cdouble", "intp", "uintp", "int_", "half", "single", "double", "byte",
                 "ubyte", "short", "ushort", "intc", "uintc", "longlong", "ulonglong", "generic",
                 "number", "integer", "signedinteger", "unsignedinteger", "inexact", "floating",
                 "complexfloating", "dtype", "finfo", "iinfo", "promote_types", "issubdtype",
                 "isdtype", "typename", "mintypecode", "s_", "index_exp"]


@pytest.mark.parametrize("name", NUMPY_OBJECTS)
def test_numpy_objects_are_numpys(name):
    a, b = getattr(vp, name), getattr(np, name)
    assert a is b or (isinstance(a, float) and (a == b or (a != a and b != b)))


def test_dtype_questions_of_resident_arrays():
    x = vp.asarray(H)
    i8 = vp.asarray(np.array([1, 2], np.int8))
    assert vp.result_type(x, 1) == np.result_type(H, 1)
    assert vp.result_type(i8, np.float16) == np.result_type(np.int8, np.float16)
    for f in (vp, np):  # np.<name> on a resident array comes to vp's
        assert f.can_cast(x, np.float64) and not f.can_cast(x, np.int32)
        assert f.can_cast(x, np.int32, casting="unsafe")
        assert f.min_scalar_type(x) == np.float32
        assert f.common_type(x, i8) is np.common_type(H, np.zeros(1, np.int8))
        assert f.ndim(x) == 2 and f.shape(x) == (3, 4) and f.size(x) == 12 and f.size(x, 1) == 4
    assert not vp.isscalar(x) and not vp.isscalar(vp.asarray(np.float32(1))) and vp.isscalar(2.5)
    assert vp.min_scalar_type(300) == np.min_scalar_type(300)


def test_asnumpy_and_get_array_module():
    x = vp.asarray(H)
    r = vp.asnumpy(x)
    assert type(r) is np.ndarray and r.dtype == H.dtype
    np.testing.assert_array_equal(r, H)
    out = np.empty_like(H)
    assert vp.asnumpy(x, out=out) is out
    np.testing.assert_array_equal(out, H)
    assert vp.asnumpy([1, 2]).tolist() == [1, 2]
    assert vp.asnumpy(x, order="F").flags.f_contiguous
    with pytest.raises(ValueError, match="blocking"):
        vp.asnumpy(x, blocking=False)
    with pytest.raises(ValueError, match="shape"):
        vp.asnumpy(x, out=np.empty(3))
    with pytest.raises(ValueError, match="read-only"):  # NumPy's, for a broadcast view
        vp.asnumpy(x, out=np.broadcast_to(np.zeros(4, np.float32), H.shape))
    assert vp.get_array_module(x, H) is vp and vp.get_array_module(H, 1.0) is np
    xp = vp.get_array_module(x)
    np.testing.assert_allclose(xp.sin(x).numpy(), np.sin(H), rtol=1e-6)


def test_copy_and_ascontiguousarray():
    x = vp.asarray(H)
    for c in (vp.copy(x), np.copy(x)):
        assert isinstance(c, vp.ndarray) and c._buf is not x._buf
        np.testing.assert_array_equal(c.numpy(), H)
    assert type(vp.copy(H)) is np.ndarray  # NumPy in, NumPy out
    v = x[:, ::2]
    c = vp.ascontiguousarray(v)
    assert isinstance(c, vp.ndarray) and c.flags.c_contiguous
    np.testing.assert_array_equal(c.numpy(), H[:, ::2])
    # np.ascontiguousarray is a conversion, as np.asarray: NumPy's array
    assert type(np.ascontiguousarray(v)) is np.ndarray
    assert vp.ascontiguousarray(x) is x
    d = vp.ascontiguousarray(x, dtype=np.float64)
    assert d.dtype == np.float64 and np.array_equal(d.numpy(), H)
    assert vp.ascontiguousarray(vp.asarray(np.float32(2))).shape == (1,)  # as NumPy's


@pytest.mark.parametrize("make", [lambda m: m.tril_indices(4), lambda m: m.tril_indices(3, 1, 5),
                                  lambda m: m.triu_indices(4, -1), lambda m: m.diag_indices(3, 3)])
def test_index_tuples_are_resident(make):
    got, want = make(vp), make(np)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert isinstance(g, vp.ndarray) and g.dtype == w.dtype
        np.testing.assert_array_equal(g.numpy(), w)


def test_grids_fromfunction_frombuffer():
    g = vp.mgrid[0:3, 1:7:2]
    assert isinstance(g, vp.ndarray)
    np.testing.assert_array_equal(g.numpy(), np.mgrid[0:3, 1:7:2])
    np.testing.assert_allclose(vp.mgrid[0:1:5j].numpy(), np.mgrid[0:1:5j])
    for g, w in zip(vp.ogrid[0:2, 0:3], np.ogrid[0:2, 0:3]):
        assert isinstance(g, vp.ndarray)
        np.testing.assert_array_equal(g.numpy(), w)
    f = vp.fromfunction(lambda i, j: i * 10 + j, (2, 3), dtype=np.int32)
    assert isinstance(f, vp.ndarray)
    np.testing.assert_array_equal(f.numpy(), np.fromfunction(lambda i, j: i * 10 + j, (2, 3),
                                                             dtype=np.int32))
    b = np.arange(5, dtype=np.int16).tobytes()
    r = vp.frombuffer(b, np.int16, count=3, offset=2)
    np.testing.assert_array_equal(r.numpy(), np.frombuffer(b, np.int16, 3, 2))


def test_save_and_load():
    x = vp.asarray(H)
    for save in (vp.save, np.save):  # np.save of a resident array comes to vp.save
        f = io.BytesIO()
        save(f, x)
        f.seek(0)
        r = vp.load(f)
        assert isinstance(r, vp.ndarray) and r.dtype == H.dtype
        np.testing.assert_array_equal(r.numpy(), H)
    f = io.BytesIO()
    np.savez(f, a=H, b=np.arange(3))
    f.seek(0)
    d = vp.load(f)
    assert set(d) == {"a", "b"} and isinstance(d["a"], vp.ndarray)
    np.testing.assert_array_equal(d["b"].numpy(), np.arange(3))


def test_numpy2_spellings_and_concatenation_helpers():
    """NumPy 2's other names (asanyarray, astype, bitwise_not / invert,
    bitwise_left_shift / right_shift, concat, permute_dims, ufunc) and r_ /
    c_ (items concatenated; slices as arange / linspace)."""
    x = vp.asarray(H)
    i = vp.asarray(np.array([1, -2, 7], np.int8))
    assert vp.bitwise_not is vp.invert and vp.bitwise_invert is vp.invert
    np.testing.assert_array_equal(vp.bitwise_left_shift(i, 2).numpy(), np.left_shift(i.numpy(), 2))
    np.testing.assert_array_equal(vp.concat([x, x], axis=1).numpy(), np.concat([H, H], axis=1))
    np.testing.assert_array_equal(vp.permute_dims(x, (1, 0)).numpy(), H.T)
    assert isinstance(vp.sin, vp.ufunc) and isinstance(vp.asanyarray([1.5]), vp.ndarray)
    for f in (vp, np):  # np.astype of a resident array comes to vp's
        r = f.astype(x, np.int32)
        assert isinstance(r, vp.ndarray) and r.dtype == np.int32
        np.testing.assert_array_equal(r.numpy(), H.astype(np.int32))
    assert vp.astype(x, np.float32, copy=False) is x and x.astype(np.float32, copy=False) is x
    assert vp.astype(x, np.float32) is not x
    a = vp.asarray(np.arange(3.0))
    np.testing.assert_array_equal(vp.r_[a, 1:4, 7].numpy(), np.r_[np.arange(3.0), 1:4, 7])
    np.testing.assert_allclose(vp.r_[0:1:5j].numpy(), np.r_[0:1:5j])
    np.testing.assert_array_equal(vp.c_[a, a].numpy(), np.c_[np.arange(3.0), np.arange(3.0)])
    with pytest.raises(NotImplementedError, match="string directives"):
        vp.r_["0,2", a]


def test_savez_fromiter_printoptions():
    x = vp.asarray(H)
    f = io.BytesIO()
    vp.savez_compressed(f, x, b=x[0])
    f.seek(0)
    with np.load(f) as z:
        np.testing.assert_array_equal(z["arr_0"], H)
        np.testing.assert_array_equal(z["b"], H[0])
    r = vp.fromiter((k * k for k in range(5)), np.int16)
    assert isinstance(r, vp.ndarray) and r.numpy().tolist() == [0, 1, 4, 9, 16]
    with vp.printoptions(precision=2):
        assert "0.33" in str(vp.asarray(np.array([1 / 3])))
    assert vp.ndindex is np.ndindex and vp.iterable(x)


def test_chkfinite_isfortran_text_and_raw_files(tmp_path):
    x = vp.asarray(H)
    assert vp.asarray_chkfinite(x) is x
    np.testing.assert_array_equal(vp.asarray_chkfinite([1.0, 2.0]).numpy(), [1.0, 2.0])
    for bad in (np.array([1.0, np.inf]), np.array([np.nan], np.float32)):
        with pytest.raises(ValueError, match="infs or NaNs"):
            vp.asarray_chkfinite(vp.asarray(bad))
    assert not vp.isfortran(x) and vp.isfortran(x.T) == np.isfortran(H.T)
    vp.savetxt(tmp_path / "a.txt", x, fmt="%.2f")
    r = vp.loadtxt(tmp_path / "a.txt", dtype=np.float32)
    assert isinstance(r, vp.ndarray)
    np.testing.assert_array_equal(r.numpy(), H)
    H.tofile(tmp_path / "a.bin")
    r = vp.fromfile(tmp_path / "a.bin", dtype=np.float32, count=5)
    np.testing.assert_array_equal(r.numpy(), H.ravel()[:5])


def test_einsum_path_from_shapes():
    """vp.einsum_path (and np.einsum_path of resident operands) plans from
    the shapes alone: NumPy's path and report, usable as vp.einsum's
    optimize=."""
    a = np.arange(24.0).reshape(2, 3, 4)
    b = np.arange(20.0).reshape(4, 5)
    c = np.arange(10.0).reshape(5, 2)
    va, vb, vc = vp.asarray(a), vp.asarray(b), vp.asarray(c)
    want = np.einsum_path("ijk,kl,lm->ijm", a, b, c, optimize="optimal")
    for f in (vp, np):
        got = f.einsum_path("ijk,kl,lm->ijm", va, vb, vc, optimize="optimal")
        assert got[0] == want[0] and got[1] == want[1]
    r = vp.einsum("ijk,kl,lm->ijm", va, vb, vc, optimize=want[0])
    np.testing.assert_allclose(r.numpy(), np.einsum("ijk,kl,lm->ijm", a, b, c), rtol=1e-12)


# --- vp.vectorize: pyfunc compiled as a kernel-language helper

SCALE = 2.5


def _piecewise(x, y):
    if x > y:
        return (x - y) * SCALE
    return math.sin(x) * 0.5


def _clamp5(k):
    return k if k < 5 else 5


def test_vectorize_def_lambda_broadcast_and_dtypes():
    """vp.vectorize (cupy.vectorize's idea: the function compiled, here in
    the kernel language): NumPy's output dtype and values, broadcasting,
    module constants, closures, int and bool arguments and results, NumPy in
    / NumPy out."""
    h = np.linspace(-2, 2, 9).astype(np.float32)
    x = vp.asarray(h)
    r = vp.vectorize(_piecewise)(x, np.float32(0.25))
    want = np.vectorize(_piecewise)(h, np.float32(0.25))
    assert isinstance(r, vp.ndarray) and r.dtype == want.dtype  # float64, as NumPy's
    np.testing.assert_allclose(r.numpy(), want, rtol=1e-6, atol=1e-7)  # computed in float32
    k = 3.0
    g = vp.vectorize(lambda a, b: a * b + k)
    np.testing.assert_allclose(g(x, x.reshape(9, 1)).numpy(), h * h.reshape(9, 1) + 3.0,
                               rtol=1e-6)
    r = g(np.arange(3.0), 2.0)
    assert type(r) is np.ndarray and r.tolist() == [3.0, 5.0, 7.0]
    i = vp.asarray(np.arange(8, dtype=np.int32))
    r = vp.vectorize(_clamp5)(i)
    assert r.dtype == np.int32 and r.numpy().tolist() == [0, 1, 2, 3, 4, 5, 5, 5]
    b = vp.vectorize(lambda a, m: a if m else -a)(x, x > 0.0)
    np.testing.assert_array_equal(b.numpy(), np.where(h > 0, h, -h))
    m = vp.vectorize(lambda a: a > 0.5)(x)
    assert m.dtype == np.bool_ and np.array_equal(m.numpy(), h > 0.5)
    r = vp.vectorize(_clamp5, otypes=[np.float32])(i)
    assert r.dtype == np.float32 and r.numpy().tolist() == [0, 1, 2, 3, 4, 5, 5, 5]


def test_vectorize_errors():
    x = vp.asarray(np.arange(3.0, dtype=np.float32))
    with pytest.raises(ValueError, match="size 0"):
        vp.vectorize(_clamp5)(vp.zeros(0))
    assert vp.vectorize(_clamp5, otypes=[np.int32])(vp.zeros(0, np.int32)).shape == (0,)
    with pytest.raises(NotImplementedError, match="signature"):
        vp.vectorize(_clamp5, signature="(n)->()")
    with pytest.raises(TypeError, match="complex"):
        vp.vectorize(_clamp5)(vp.asarray(np.ones(2, np.complex64)))
    with pytest.raises(vp.CompileError):  # a list is not in the kernel language
        vp.vectorize(lambda a: [a, a][0])(x)
    # two lambdas on one line: the same text is fine, different ones are not
    r1, r2 = vp.vectorize(lambda a: a + 1.0)(x), vp.vectorize(lambda a: a + 1.0)(x)
    assert r1.numpy().tolist() == r2.numpy().tolist() == [1.0, 2.0, 3.0]
    f1, f2 = vp.vectorize(lambda a: a + 1.0), vp.vectorize(lambda a: a - 1.0)
    with pytest.raises(TypeError, match="def function"):
        f1(x)


def test_text_of_arrays():
    """array2string / array_str / array_repr: NumPy's text of the values
    (vp.array_repr as repr() writes a resident array)."""
    x = vp.asarray(H / 3)
    for f in (vp, np):
        assert f.array2string(x, precision=2) == np.array2string(H / 3, precision=2)
        assert f.array_str(x, precision=3) == np.array_str(H / 3, precision=3)
    r = vp.array_repr(x, precision=3)
    assert r.startswith("vp.ndarray([[-1.833, -1.5  ,") and r.endswith(
        f"shape=(3, 4), dtype=float32, memory={x.memory!r})")
    assert vp.array_repr(x) == repr(x)
    assert vp.array2string(H) == np.array2string(H)


def test_layout_requirements():
    x = vp.asarray(H)
    f = vp.asfortranarray(x)
    assert f.flags.f_contiguous and not f.flags.c_contiguous and vp.isfortran(f)
    np.testing.assert_array_equal(f.numpy(), H)
    assert vp.asfortranarray(f) is f
    g = vp.asfortranarray(x, dtype=np.float64)
    assert g.dtype == np.float64 and g.flags.f_contiguous
    np.testing.assert_array_equal(g.numpy(), H)
    assert vp.asfortranarray(x[0]).flags.c_contiguous
    v = x[:, ::2]
    c = vp.require(v, requirements="C")
    assert c.flags.c_contiguous and c is not v
    np.testing.assert_array_equal(c.numpy(), H[:, ::2])
    assert vp.require(x, requirements=["C", "W"]) is x
    assert vp.require(x, requirements="F").flags.f_contiguous
    o = vp.require(x[1:], requirements="O")
    assert o.flags.owndata
    np.testing.assert_array_equal(o.numpy(), H[1:])
    assert vp.require(x, np.int32).dtype == np.int32
    with pytest.raises(ValueError, match="both C and Fortran"):
        vp.require(x, requirements="CF")
    with pytest.raises(KeyError, match="unknown requirement 'Q'"):
        vp.require(x, requirements="Q")
    h = vp.require(H, requirements="F")
    assert isinstance(h, np.ndarray) and h.flags.f_contiguous


def test_broadcast_object_and_in1d():
    x = vp.asarray(H)
    b = vp.broadcast(x, vp.asarray(np.ones((1, 4))), 2.0)
    nb = np.broadcast(H, np.ones((1, 4)), 2.0)
    assert (b.shape, b.size, b.ndim, b.nd, b.numiter) == (nb.shape, nb.size, nb.ndim, nb.nd,
                                                           nb.numiter)
    for v, w in zip(b.values, (H, np.ones((3, 4)), np.full((3, 4), 2.0))):
        np.testing.assert_array_equal(np.asarray(v.numpy() if isinstance(v, vp.ndarray) else v),
                                      w)
    with pytest.raises(ValueError):
        vp.broadcast(x, vp.asarray(np.ones(3)))
    with pytest.raises(TypeError, match="read every element back"):
        iter(b)
    t = np.array([-5.5, 0.5, 3.0], np.float32)
    got = vp.in1d(x, vp.asarray(t))
    assert isinstance(got, vp.ndarray)
    np.testing.assert_array_equal(got.numpy(), np.isin(H, t).ravel())
    np.testing.assert_array_equal(vp.in1d(x, t, invert=True).numpy(),
                                  np.isin(H, t, invert=True).ravel())


@pytest.mark.parametrize("roots", [[1.0, -2.0, 3.0], np.array([1.0, -2.0], np.float32),
                                   np.array([1, 2, 2], np.int32), [1 + 1j, 1 - 1j, 2.0],
                                   np.array([1 + 1j, 2], np.complex64), [0.5]])
def test_poly_from_roots(roots):
    r = np.asarray(roots)
    got = vp.poly(vp.asarray(r))
    want = np.poly(r)
    assert isinstance(got, vp.ndarray) and got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)
    assert vp.poly(vp.asarray(np.array([], np.float64))) == 1.0
    with pytest.raises(TypeError, match="eigenvalues"):
        vp.poly(vp.asarray(np.eye(2)))


@pytest.mark.parametrize("u, v", [([3.0, 5, 2, 1], [2.0, 1]), ([1.0, 3, 2], [1.0, 1]),
                                  ([1.0, 3], [1.0, 1, 5]), ([1.0, 3, 2, 0, 0.5], [0.5, 1, 5]),
                                  ([2.0, 4, 6], [2.0]), ([1 + 1j, 2, 3], [1j, 1])])
def test_polydiv_matches_numpy(u, v):
    q, r = vp.polydiv(vp.asarray(np.asarray(u)), np.asarray(v))
    wq, wr = np.polydiv(np.asarray(u), np.asarray(v))
    for g, w in ((q, wq), (r, wr)):
        assert isinstance(g, vp.ndarray) and g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-12, atol=1e-12)


def test_trapz_fromstring_genfromtxt(tmp_path):
    y = vp.asarray(H)
    np.testing.assert_allclose(vp.trapz(y).numpy(), np.trapezoid(H), rtol=1e-6)
    s = vp.fromstring("1 2 3.5", dtype=np.float32, sep=" ")
    assert isinstance(s, vp.ndarray)
    np.testing.assert_array_equal(s.numpy(), np.array([1, 2, 3.5], np.float32))
    p = tmp_path / "t.csv"
    p.write_text("1,2\n3,nan\n")
    g = vp.genfromtxt(p, delimiter=",")
    np.testing.assert_array_equal(g.numpy(), np.genfromtxt(p, delimiter=","))


def _triple(x):
    return x * 3


def test_vectorize_past_one_grid_row():
    """vp.vectorize of more than 65,535 x 64 elements was a VulkanError on
    lavapipe (and GPUs with that limit in x): dispatched in blocks now."""
    h = np.arange(9_000_003, dtype=np.float32)
    np.testing.assert_array_equal(vp.vectorize(_triple)(vp.asarray(h)).numpy(), h * 3)
