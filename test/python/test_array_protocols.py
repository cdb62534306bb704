"""NumPy's protocols on resident arrays (issue 19): np.<function>(x) runs on
the device (a vp.ndarray back, NumPy's values) or raises a TypeError naming
the function - never a silent download; NumPy ufuncs likewise; np.asarray /
np.array stay explicit conversions; repr/str show the values like NumPy
(abbreviated with '...') with the memory kind; format(); pickle and
deepcopy keep dtype, shape and memory kind; the buffer protocol."""
import copy
import pickle
import re
import sys

import numpy as np
import pytest

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target

A = np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5
B = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)

# (NumPy function, args built from the NumPy operands): VulPy runs these on the device
ON_DEVICE = [
    ("sum", lambda a, b: (a,), {}), ("sum", lambda a, b: (a, 1), {}),
    ("sum", lambda a, b: (a,), {"axis": 0, "keepdims": True}),
    ("prod", lambda a, b: (a, 0), {}), ("mean", lambda a, b: (a,), {}),
    ("mean", lambda a, b: (a, -1), {}), ("min", lambda a, b: (a,), {}),
    ("max", lambda a, b: (a, 0), {}), ("amin", lambda a, b: (a, 1), {}),
    ("amax", lambda a, b: (a,), {}), ("argmin", lambda a, b: (a,), {}),
    ("argmax", lambda a, b: (a, 1), {}), ("any", lambda a, b: (a > 0,), {}),
    ("all", lambda a, b: (a > -6,), {}), ("cumsum", lambda a, b: (a, 1), {}),
    ("cumprod", lambda a, b: (b, 0), {}), ("var", lambda a, b: (a,), {}),
    ("std", lambda a, b: (a, 0), {"ddof": 1}), ("where", lambda a, b: (a > 0, a, b), {}),
    ("clip", lambda a, b: (a, -1, 2), {}), ("transpose", lambda a, b: (a,), {}),
    ("take", lambda a, b: (a, [0, 2], 1), {}), ("reshape", lambda a, b: (a, (4, 3)), {}),
    ("ravel", lambda a, b: (a,), {}), ("copy", lambda a, b: (a,), {}),
    ("zeros_like", lambda a, b: (a,), {}), ("ones_like", lambda a, b: (a,), {}),
    ("full_like", lambda a, b: (a, 2.5), {}),
    ("dot", lambda a, b: (a, b.T), {}), ("dot", lambda a, b: (a, b[0]), {}),
    ("dot", lambda a, b: (a[1], b[2]), {}),
    # issue 19's shape ops and statistics (were refused by name before)
    ("concatenate", lambda a, b: ([a, b],), {}), ("stack", lambda a, b: ([a, b],), {}),
    ("median", lambda a, b: (a,), {}), ("linalg.norm", lambda a, b: (a,), {}),
    ("outer", lambda a, b: (a, b), {}),
    # issue 19's sorting and searching (were refused by name before)
    ("sort", lambda a, b: (a,), {}), ("sort", lambda a, b: (b, 0), {}),
    ("argsort", lambda a, b: (a,), {"axis": None}), ("unique", lambda a, b: (a,), {}),
    ("searchsorted", lambda a, b: (a[0], b[1]), {}),
    # issue 19's differences and matrix shapes (were refused by name before)
    ("diff", lambda a, b: (a,), {}), ("trace", lambda a, b: (a,), {}),
    ("tril", lambda a, b: (a, 1), {}), ("nan_to_num", lambda a, b: (a,), {}),
    # issue 19's linear algebra (refused by name before the GEMM kernels)
    ("matmul", lambda a, b: (a, b.T), {}), ("einsum", lambda a, b: ("ij->i", a), {}),
    ("einsum", lambda a, b: ("ij,kj->ik", a, b), {}), ("tensordot", lambda a, b: (a, b.T, 1), {}),
    ("inner", lambda a, b: (a, b), {}), ("vdot", lambda a, b: (a, b), {}),
]
# metadata: answered without touching the data
META = [("shape", (3, 4)), ("ndim", 2), ("size", 12)]
# NumPy functions VulPy has not (yet): a TypeError naming the function
REFUSED = [
    # (lexsort, partition, linalg.det, interp, convolve were here: they run on
    # the device now, and so do polyval, rot90, kron, corrcoef, cov)
    # (unwrap, vander, trim_zeros, polyfit, linalg.cond / pinv / matrix_rank too)
    ("linalg.eigvals", lambda a, b: (a[:, :3],)),
]


def _np(name):
    f = np
    for part in name.split("."):
        f = getattr(f, part)
    return f


@pytest.mark.parametrize("name,args,kwargs", ON_DEVICE, ids=[c[0] for c in ON_DEVICE])
def test_numpy_function_runs_on_device(name, args, kwargs):
    want = _np(name)(*args(A, B), **kwargs)
    got = _np(name)(*args(vp.asarray(A), vp.asarray(B)), **kwargs)
    assert isinstance(got, vp.ndarray), f"np.{name} returned {type(got).__name__}"
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-5)
    assert got.dtype == np.asarray(want).dtype


@pytest.mark.parametrize("name,want", META)
def test_numpy_metadata(name, want):
    assert _np(name)(vp.asarray(A)) == want


@pytest.mark.parametrize("name,args", REFUSED, ids=[c[0] for c in REFUSED])
def test_numpy_function_refused_by_name(name, args):
    with pytest.raises(TypeError, match=rf"numpy\.{re.escape(name)}\b.*x\.numpy\(\)"):
        _np(name)(*args(vp.asarray(A), vp.asarray(B)))
    # the explicit way works and agrees with NumPy
    got = _np(name)(*args(vp.asarray(A).numpy(), np.asarray(vp.asarray(B))))
    want = _np(name)(*args(A, B))
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_explicit_conversions_still_work():
    x = vp.asarray(A)
    np.testing.assert_array_equal(np.asarray(x), A)
    np.testing.assert_array_equal(np.array(x), A)
    assert isinstance(np.asarray(x), np.ndarray)


def test_ufuncs_on_device_or_named_error():
    x = vp.asarray(A)
    got = np.sin(x)
    assert isinstance(got, vp.ndarray)
    np.testing.assert_allclose(got.numpy(), np.sin(A), rtol=1e-5, atol=1e-6)
    got = np.add(x, vp.asarray(B))
    assert isinstance(got, vp.ndarray)
    np.testing.assert_allclose(got.numpy(), A + B)
    # ufunc methods VulPy has run on the device (they raised); others are named
    got = np.add.reduce(x)
    assert isinstance(got, vp.ndarray)
    np.testing.assert_allclose(got.numpy(), np.add.reduce(A), rtol=1e-6)
    got = np.multiply.outer(x, x)
    assert isinstance(got, vp.ndarray)
    np.testing.assert_allclose(got.numpy(), np.multiply.outer(A, A), rtol=1e-6)
    with pytest.raises(TypeError, match=r"numpy\.divide\.at .*x\.numpy\(\)"):
        np.divide.at(x, [0, 0], 1)
    with pytest.raises(TypeError, match=r"numpy\.subtract\.reduce"):
        np.subtract.reduce(x)
    with pytest.raises(TypeError, match=r"numpy\.isnat"):
        np.isnat(x)
    got = np.heaviside(x - 0.5, 0.5)  # (was refused; on the device now)
    assert isinstance(got, vp.ndarray)
    np.testing.assert_array_equal(got.numpy(), np.heaviside(A - np.float32(0.5), 0.5))


# ------------------------------------------------------------------ display
def test_repr_small_shows_values_and_memory():
    x = vp.asarray(np.array([0.0, 1.0, 2.0], np.float32), memory="host")
    assert repr(x) == "vp.ndarray([0., 1., 2.], shape=(3,), dtype=float32, memory='host')"
    assert str(x) == str(np.array([0.0, 1.0, 2.0], np.float32))


def test_repr_large_abbreviates_like_numpy():
    a = np.arange(5000, dtype=np.float32)
    x = vp.asarray(a, memory="host")
    r = repr(x)
    # NumPy's own text for the values (its print threshold, its '...')
    assert r == ("vp.ndarray([0.000e+00, 1.000e+00, 2.000e+00, ..., 4.997e+03, 4.998e+03,\n"
                 "            4.999e+03], shape=(5000,), dtype=float32, memory='host')")
    assert str(x) == str(a)
    m = vp.asarray(np.arange(12, dtype=np.int32).reshape(3, 4), memory="host")
    assert repr(m) == ("vp.ndarray([[ 0,  1,  2,  3],\n"
                       "            [ 4,  5,  6,  7],\n"
                       "            [ 8,  9, 10, 11]], shape=(3, 4), dtype=int32, memory='host')")
    # the note on a line of its own past the line width, as NumPy's dtype=
    w = vp.asarray(np.arange(24, dtype=np.int32).reshape(2, 12) * 1000, memory="host")
    r = repr(w)
    assert r.endswith("]],\n           shape=(2, 12), dtype=int32, memory='host')"), r
    assert all(len(line) <= 75 for line in r.splitlines())
    v = vp.asarray(np.arange(2, dtype=np.int32), memory="host")
    assert repr(v) == "vp.ndarray([0, 1], shape=(2,), dtype=int32, memory='host')"


def test_repr_empty_and_0d():
    e = vp.zeros((0, 3))
    assert repr(e) == f"vp.ndarray([], shape=(0, 3), dtype=float32, memory={e.memory!r})"
    s = vp.sum(vp.asarray(np.array([1.5, 2.25], np.float32)))
    assert repr(s) == f"vp.ndarray(3.75, shape=(), dtype=float32, memory={s.memory!r})"


def test_format():
    x = vp.asarray(np.array([1.0, 2.25, 3.5], np.float32))
    assert f"{vp.sum(x):.2f}" == "6.75"
    assert f"{vp.sum(x)}" == str(np.float32(6.75))
    assert f"{x}" == str(x.numpy())
    with pytest.raises(TypeError, match="format"):
        f"{x:.2f}"


# ------------------------------------------------------------ copies
@pytest.mark.parametrize("memory", ["device", "host"])
def test_pickle_and_deepcopy_keep_dtype_shape_memory(memory):
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    x = vp.asarray(a, memory=memory)
    for y in (pickle.loads(pickle.dumps(x)), copy.deepcopy(x), copy.copy(x)):
        assert isinstance(y, vp.ndarray) and y is not x
        assert y.dtype == x.dtype and y.shape == x.shape and y.memory == x.memory
        np.testing.assert_array_equal(y.numpy(), a)
        assert y.buffer is not x.buffer
    b = vp.asarray(np.array([True, False]))
    assert pickle.loads(pickle.dumps(b)).numpy().tolist() == [True, False]


def test_buffer_protocol_host_visible():
    x = vp.asarray(np.arange(4, dtype=np.float32), memory="host")
    mv = x.__buffer__(0) if sys.version_info < (3, 12) else memoryview(x)
    assert mv.format == "f" and mv.shape == (4,) and mv.tolist() == [0.0, 1.0, 2.0, 3.0]
    x[1] = 7.0                    # the same bytes, no copy: a GPU write shows in mv
    x.context.synchronize()       # (once the GPU is done: mv is not a host read point)
    assert mv[1] == 7.0
    del x                         # the view keeps the mapping alive
    assert mv.tolist() == [0.0, 7.0, 2.0, 3.0]
    mv.release()
    d = vp.asarray(np.arange(4, dtype=np.float32), memory="device")
    if not d.mappable:
        with pytest.raises(ValueError, match="memory='device'"):
            d.__buffer__(0)


def test_contains_of_a_2d_array():
    """`3 in x` for a 2-D resident array raised 'can only convert an array of
    size 1 to a Python scalar' (Python's fallback compared rows); NumPy:
    (x == 3).any()."""
    h = np.arange(6.0).reshape(2, 3)
    x = vp.asarray(h)
    for v in (3, 7, 2.0, float("nan"), -0.0):
        assert (v in x) == (v in h)
    assert (1 in vp.asarray(np.array(1, np.int32))) is True


def test_equal_to_none_or_a_string_is_elementwise():
    """x == None, x != 'abc' are NumPy's all-False / all-True arrays; vp
    raised 'dtype object is not supported on the GPU'."""
    for dt in (np.int32, np.float32, np.bool_, np.uint8):
        h = np.arange(6).reshape(2, 3).astype(dt)
        x = vp.asarray(h)
        for other in (None, "abc", b"x"):
            np.testing.assert_array_equal((x == other).numpy(), h == other)
            np.testing.assert_array_equal((x != other).numpy(), h != other)
            np.testing.assert_array_equal((other == x).numpy(), other == h)


def test_truth_value_messages_are_numpys():
    """bool() of a multi-element or empty array raises NumPy's ValueError
    (vp said 'can only convert an array of size 1 to a Python scalar')."""
    with pytest.raises(ValueError, match="more than one element is ambiguous"):
        bool(vp.zeros(3))
    with pytest.raises(ValueError, match="empty array is ambiguous"):
        bool(vp.zeros(0))
    assert bool(vp.ones(1)) and not bool(vp.zeros((1, 1)))


def test_device_and_to_device():
    """The array API's x.device (the context, as x.context) and
    x.to_device(ctx): the array itself on its own context, a copy with the
    same values, dtype and shape on another; a stream is refused."""
    x = vp.asarray(A)
    assert x.device is x.context
    assert x.to_device(x.device) is x
    other = vp.Context()
    y = x.to_device(other)
    assert y.context is other and y is not x
    assert y.dtype == x.dtype and y.shape == x.shape
    np.testing.assert_array_equal(y.numpy(), A)
    with pytest.raises(ValueError, match="stream"):
        x.to_device(other, stream=1)
