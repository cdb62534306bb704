"""CuPy's kernel names a user ports first: vp.ElementwiseKernel (the
operation in the kernel language), vp.fuse (vp.jit by cupy.fuse's name) and
vp.testing (cupy.testing's array assertions). Values against NumPy."""
import numpy as np
import pytest

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target

A = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5
B = np.array([2.0, -1.0, 0.5], np.float32)

squared_diff = vp.ElementwiseKernel("float32 x, float32 y", "float32 z",
                                    "z = (x - y) * (x - y)", "squared_diff")


def test_typed_kernel_broadcasts_and_takes_out():
    a, b = vp.asarray(A), vp.asarray(B)
    got = squared_diff(a, b)
    assert isinstance(got, vp.ndarray) and got.dtype == np.float32 and got.shape == (2, 3)
    np.testing.assert_array_equal(got.numpy(), (A - B) * (A - B))
    out = vp.full((2, 3), 7.0, np.float32)
    assert squared_diff(a, b, out) is out
    np.testing.assert_array_equal(out.numpy(), (A - B) * (A - B))
    view = vp.zeros((2, 6), np.float32)[:, ::2]  # a strided out= view: written through
    squared_diff(a, b, view)
    np.testing.assert_array_equal(view.numpy(), (A - B) * (A - B))
    # NumPy in, NumPy out (convenience mode); a typed parameter converts
    h = squared_diff(A.astype(np.float64), B)
    assert isinstance(h, np.ndarray) and h.dtype == np.float32
    np.testing.assert_array_equal(h, (A - B) * (A - B))


def test_type_placeholders_and_scalars():
    axpy = vp.ElementwiseKernel("T x, T y, T a", "T z", "z = a * x + y", "axpy")
    for dt in (np.float32, np.float64, np.int32, np.int16, np.uint8):
        x = (np.arange(5) % 3).astype(dt)
        y = np.arange(5, dtype=dt)
        got = axpy(vp.asarray(x), vp.asarray(y), 2)
        assert got.dtype == dt, dt
        np.testing.assert_array_equal(got.numpy(), (dt(2) * x + y).astype(dt))
    with pytest.raises(TypeError, match="type T is bound to float32 and to int32"):
        axpy(vp.asarray(A), vp.asarray(np.ones((2, 3), np.int32)), 1)
    with pytest.raises(TypeError, match="cannot tell type T of x"):
        axpy(1.0, 2.0, 3.0, size=4)


def test_statements_several_outputs_bool_and_index():
    k = vp.ElementwiseKernel("T x", "T y, bool neg, int32 j", """
if x < 0:
    y = -x * 2
else:
    y = x
neg = x < 0
j = vp.int32(i) * 10
""", "multi")
    a = vp.asarray(A)
    y, neg, j = k(a)
    np.testing.assert_array_equal(y.numpy(), np.where(A < 0, -A * 2, A))
    assert neg.dtype == np.bool_
    np.testing.assert_array_equal(neg.numpy(), A < 0)
    np.testing.assert_array_equal(j.numpy(), np.arange(6).reshape(2, 3) * 10)
    one = vp.ElementwiseKernel("bool p, float32 x", "float32 y", "y = x if p else -x", "pick",
                               return_tuple=True)
    r = one(vp.asarray(A > 0), vp.asarray(A))
    assert isinstance(r, tuple) and len(r) == 1
    np.testing.assert_array_equal(r[0].numpy(), np.where(A > 0, A, -A))


def test_raw_parameters_size_and_preamble():
    rev = vp.ElementwiseKernel("raw T x", "T y", "y = x[_ind.size() - 1 - i]", "rev")
    h = np.arange(7, dtype=np.float32) * 1.5
    np.testing.assert_array_equal(rev(vp.asarray(h), size=7).numpy(), h[::-1])
    pre = vp.ElementwiseKernel("float32 x", "float32 y", "y = tenfold(x) + OFFSET", "pre",
                               preamble="OFFSET = 0.5\n\ndef tenfold(v: vp.float32) -> vp.float32:"
                                        "\n    return v * 10.0\n")
    np.testing.assert_array_equal(pre(vp.asarray(A)).numpy(), A * 10 + 0.5)
    acc = vp.ElementwiseKernel("float32 x", "float32 y", "y += x", "accumulate", no_return=True)
    o = vp.asarray(np.ones((2, 3), np.float32))
    assert acc(vp.asarray(A), o) is None
    np.testing.assert_array_equal(o.numpy(), A + 1)


def test_empty_arrays_and_errors():
    e = squared_diff(vp.zeros((0, 3), np.float32), vp.asarray(B))
    assert e.shape == (0, 3)
    with pytest.raises(SyntaxError, match="line 1 of the operation is not kernel-language"):
        vp.ElementwiseKernel("float32 x", "float32 y", "y = x > 0 ? x : 0;", "c_ternary")(
            vp.asarray(A))
    with pytest.raises(vp.CompileError, match="unknown name 'nope'"):
        vp.ElementwiseKernel("float32 x", "float32 y", "y = nope + x", "bad")(vp.asarray(A))
    with pytest.raises(ValueError, match="cannot read 'float32'"):
        vp.ElementwiseKernel("float32", "float32 y", "y = 1", "k")
    with pytest.raises(ValueError, match="both an input and an output"):
        vp.ElementwiseKernel("float32 x", "float32 x", "x = 1", "k")
    with pytest.raises(TypeError, match="takes 2 inputs"):
        squared_diff(vp.asarray(A))
    with pytest.raises(ValueError, match="could not be broadcast"):
        squared_diff(vp.asarray(A), vp.asarray(np.ones(4, np.float32)))
    with pytest.raises(ValueError, match="output shape"):
        squared_diff(vp.asarray(A), vp.asarray(B), vp.zeros(3, np.float32))
    with pytest.raises(NotImplementedError, match="CUDA"):
        vp.ElementwiseKernel("float32 x", "float32 y", "y = x", "k", loop_prep="int k = 0;")


def test_fuse_is_jit():
    @vp.fuse
    def f(x, y):
        return x * y + 1

    @vp.fuse(kernel_name="sq_diff")
    def g(x, y):
        return (x - y) ** 2

    a, b = vp.asarray(A), vp.asarray(B)
    np.testing.assert_array_equal(f(a, b).numpy(), A * B + 1)
    np.testing.assert_array_equal(g(a, b).numpy(), (A - B) ** 2)
    assert g.dispatches == 1 and "sq_diff" in g.glsl
    with pytest.raises(ValueError, match="kernel_name must be an identifier"):
        vp.fuse(kernel_name="a b")(lambda x: x)


def test_testing_assertions_take_resident_arrays():
    a = vp.asarray(A)
    vp.testing.assert_allclose(vp.sin(a), np.sin(A), rtol=1e-6)
    vp.testing.assert_array_equal(a, A, strict=True)
    vp.testing.assert_array_almost_equal(a + 1e-8, A)
    vp.testing.assert_array_less(a, A + 1)
    vp.testing.assert_array_list_equal([a, a * 2], [A, A * 2])
    vp.testing.assert_array_almost_equal_nulp(a, A)
    vp.testing.assert_array_max_ulp(a, A)
    with pytest.raises(AssertionError):
        vp.testing.assert_allclose(a, A + 1e-3, rtol=1e-6)
    with pytest.raises(AssertionError):
        vp.testing.assert_array_equal(a, A.astype(np.float64), strict=True)
    with pytest.raises(AssertionError, match="List size is different"):
        vp.testing.assert_array_list_equal([a], [A, A])


l2norm = vp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = math.sqrt(a)", "0", "l2norm")


@pytest.mark.parametrize("shape, axis, keepdims", [
    ((1000,), None, False), ((37, 300), 1, False), ((37, 300), 0, True), ((5, 6, 7), (0, 2), False),
    ((3, 5000), None, True), ((4, 0), 1, False), ((0,), None, False), ((70000, 2), 1, False)])
def test_reduction_kernel_axes_match_numpy(shape, axis, keepdims):
    """A user-defined reduction along any axes (several workgroups per line
    and more lines than one dispatch's 65,535 rows included)."""
    h = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    got = l2norm(vp.asarray(h), axis=axis, keepdims=keepdims)
    want = np.sqrt((h.astype(np.float64) ** 2).sum(axis=axis, keepdims=keepdims))
    assert isinstance(got, vp.ndarray) and got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(got.numpy(), want, rtol=2e-5)


def test_reduction_kernel_types_outputs_and_scalars():
    h = np.random.default_rng(2).standard_normal(1 << 18).astype(np.float32)
    x = vp.asarray(h)
    mx = vp.ReductionKernel("T x", "T y", "x", "max(a, b)", "y = a", "-math.inf", "mymax")
    assert float(mx(x)) == h.max()
    count = vp.ReductionKernel("T x, T t", "int64 n, bool some", "1 if x > t else 0", "a + b",
                               "n = vp.int64(a)\nsome = a > 0", "0", "count_above",
                               reduce_type="int32")
    n, some = count(x, 1.5)
    assert n.dtype == np.int64 and int(n) == int((h > 1.5).sum()) and bool(some)
    n, some = count(x, 100.0)
    assert int(n) == 0 and not bool(some)
    out = vp.zeros((), np.float32)
    assert l2norm(x, out) is out
    np.testing.assert_allclose(float(out), np.sqrt((h.astype(np.float64) ** 2).sum()), rtol=1e-5)
    hn = l2norm(h.reshape(512, 512), axis=0)  # NumPy in, NumPy out
    assert isinstance(hn, np.ndarray) and hn.shape == (512,)
    flags = vp.ReductionKernel("bool p", "int32 y", "vp.int32(1) if p else vp.int32(0)", "a + b",
                               "y = a", "0", "count_true")
    assert int(flags(vp.asarray(h > 0))) == int((h > 0).sum())


def test_reduction_kernel_errors():
    x = vp.asarray(A)
    with pytest.raises(SyntaxError, match="not kernel-language"):
        vp.ReductionKernel("T x", "T y", "x", "a > b ? a : b", "y = a", "0", "c")(x)
    with pytest.raises(ValueError, match="output y has shape"):
        l2norm(x, vp.zeros(3, np.float32))
    with pytest.raises(NotImplementedError, match="identity=None"):
        vp.ReductionKernel("T x", "T y", "x", "a + b", "y = a", None, "k")
    with pytest.raises(vp.AxisError if hasattr(vp, "AxisError") else np.exceptions.AxisError):
        l2norm(x, axis=2)


def test_complex_parameters_are_refused_by_name():
    z = vp.asarray(np.ones(3, np.complex64))
    with pytest.raises(TypeError, match="x is complex64; the kernel language has numbers"):
        vp.ElementwiseKernel("T x", "T y", "y = x * 2", "c")(z)
    with pytest.raises(TypeError, match="x is complex64"):
        l2norm(z)


def test_more_elements_than_one_grid_row():
    """Past 65,535 workgroups of 64 (4,194,240 elements: lavapipe's and
    many GPUs' limit in x) the kernel was a VulkanError; it is dispatched in
    blocks now."""
    n = 9_000_003
    h = np.arange(n, dtype=np.float32)
    k = vp.ElementwiseKernel("float32 x", "float32 y", "y = x * 2", "dbl")
    np.testing.assert_array_equal(k(vp.asarray(h)).numpy(), h * 2)
    rev = vp.ElementwiseKernel("raw T x", "T y", "y = x[_ind.size() - 1 - i]", "rev")
    np.testing.assert_array_equal(rev(vp.asarray(h), size=n).numpy(), h[::-1])


def test_outputs_overlapping_inputs_read_them_as_they_were():
    """An output that overlaps an input (the same array, a shifted view of
    it: a ValueError from the launcher, two buffers over one memory) is
    computed from the input as it was (NumPy's rule), raw inputs too."""
    h = np.arange(10, dtype=np.float32)
    inc = vp.ElementwiseKernel("T x", "T y", "y = x + 1", "inc")
    v = vp.asarray(h)
    inc(v[:-1], v[1:])
    want = h.copy()
    want[1:] = h[:-1] + 1
    np.testing.assert_array_equal(v.numpy(), want)
    w = vp.asarray(h)
    inc(w, w)  # in place
    np.testing.assert_array_equal(w.numpy(), h + 1)
    rev = vp.ElementwiseKernel("raw T x", "T y", "y = x[_ind.size() - 1 - i]", "rev_inplace")
    r = vp.asarray(h)
    rev(r, r)
    np.testing.assert_array_equal(r.numpy(), h[::-1])
