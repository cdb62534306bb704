"""complex64 / complex128 resident arrays (issue 19), differentially against
NumPy: creation and bit-exact download, .real / .imag views, vp.real /
imag / conj / abs / angle, + - * / and exp with NumPy's promotion (arrays,
Python and NumPy scalars, broadcasting, strided views, out=, in place),
and a TypeError naming the operation and the dtype for everything else.

Tolerances (relative to the largest exact magnitude): complex64 2e-6
(a few float32 roundings: the multiply and divide are the textbook
formulas), complex128 1e-14.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target

SETTINGS = settings(max_examples=15, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])
C64, C128 = np.dtype(np.complex64), np.dtype(np.complex128)
TOL = {C64: 2e-6, C128: 1e-14, np.dtype(np.float32): 2e-6, np.dtype(np.float64): 1e-14}


def crand(shape, dt=C64, seed=0):
    r = np.random.default_rng(seed)
    return np.asarray(r.standard_normal(shape) + 1j * r.standard_normal(shape)).astype(dt)


def close(got, want, name=""):
    want = np.asarray(want)
    assert isinstance(got, vp.ndarray), f"{name}: {type(got).__name__}"
    assert got.shape == want.shape, (name, got.shape, want.shape)
    assert got.dtype == want.dtype, (name, got.dtype, want.dtype)
    g = got.numpy()
    if want.dtype == np.bool_:
        np.testing.assert_array_equal(g, want, err_msg=name)
        return
    scale = max(float(np.abs(want).max(initial=0.0)), 1e-30)
    err = float(np.abs(g - want).max(initial=0.0)) / scale
    assert err <= TOL[want.dtype], f"{name}: relative error {err}"


# ---------------------------------------------------------------- storage
@pytest.mark.parametrize("dt", [C64, C128])
def test_roundtrip_bit_exact(dt):
    x = crand((3, 5), dt)
    x[0, 0] = complex(np.inf, -0.0)
    x[0, 1] = complex(np.nan, 1.5)
    a = vp.asarray(x)
    assert a.dtype == dt and a.shape == (3, 5) and a.itemsize == dt.itemsize
    assert a.get().tobytes() == x.tobytes()
    assert a.numpy().tobytes() == x.tobytes()
    assert np.asarray(a).tobytes() == x.tobytes()
    h = vp.asarray(x, memory="host")
    assert h.numpy_view().tobytes() == x.tobytes()
    out = np.empty_like(x)
    assert a.get(out=out) is out and out.tobytes() == x.tobytes()
    # a strided view downloads its elements
    assert a[:, ::2].numpy().tobytes() == x[:, ::2].tobytes()


def test_creation():
    assert vp.zeros((2, 3), np.complex64).numpy().tobytes() == np.zeros((2, 3), C64).tobytes()
    assert vp.empty(4, np.complex128).dtype == C128
    f = vp.full((2, 2), 1 - 2j)
    assert f.dtype == C64  # Python complex data is complex64, as Python floats are float32
    np.testing.assert_array_equal(f.numpy(), np.full((2, 2), 1 - 2j, C64))
    np.testing.assert_array_equal(vp.full(3, 2 + 1j, np.complex128).numpy(),
                                  np.full(3, 2 + 1j))
    assert vp.asarray([1j, 2.0]).dtype == C64
    assert vp.asarray(np.array([1j])).dtype == C128  # NumPy data keeps its dtype
    np.testing.assert_array_equal(vp.ones(2, np.complex64).numpy(), np.ones(2, C64))
    z = vp.zeros_like(vp.asarray(crand(3)))
    assert z.dtype == C64 and not z.numpy().any()
    assert "complex64" in repr(f)


def test_copy_fill_views_and_assignment():
    x = crand((4, 6))
    a = vp.asarray(x)
    c = a[:, 1::2].copy()  # a strided copy, through the float view
    np.testing.assert_array_equal(c.numpy(), x[:, 1::2])
    a[1:3, :2] = 7 - 1j
    x[1:3, :2] = 7 - 1j
    a[0] = vp.asarray(x[3])
    x[0] = x[3]
    a[2, ::3] = 2.5  # a real value into complex elements
    x[2, ::3] = 2.5
    np.testing.assert_array_equal(a.numpy(), x)
    a.fill(3j)
    x = np.full_like(x, 3j)
    np.testing.assert_array_equal(a.numpy(), x)
    r = vp.zeros(3, np.float32)
    with pytest.raises(TypeError, match="imaginary"):
        r[0:2] = vp.asarray(crand(2))
    # lists and NumPy arrays as values (a list was a ValueError of .item()),
    # a value with leading unit axes; one that does not broadcast is
    # NumPy's ValueError
    a[1, :3] = [1 + 2j, 3, -4j]
    x[1, :3] = [1 + 2j, 3, -4j]
    a[3] = x[2:3][None]
    x[3] = x[2:3][None]
    np.testing.assert_array_equal(a.numpy(), x)
    for value in (crand(3), vp.asarray(crand((2, 6))), [1j, 2j]):
        with pytest.raises(ValueError, match="could not broadcast input array"):
            a[0] = value


# ---------------------------------------------------------------- parts
@pytest.mark.parametrize("dt", [C64, C128])
def test_real_imag_conj_abs_angle(dt):
    x = crand((3, 4), dt, seed=1)
    a = vp.asarray(x)
    close(a.real, x.real, "real")
    close(a.imag, x.imag, "imag")
    close(vp.real(a), np.real(x), "vp.real")
    close(vp.imag(a), np.imag(x), "vp.imag")
    close(vp.conj(a), np.conj(x), "conj")
    close(a.conj(), x.conj(), ".conj()")
    close(vp.conjugate(a), np.conjugate(x), "conjugate")
    close(abs(a), np.abs(x), "abs")
    close(vp.abs(a), np.abs(x), "vp.abs")
    close(vp.angle(a), np.angle(x), "angle")
    close(vp.angle(a, deg=True), np.angle(x, deg=True), "angle deg")
    close(-a, -x, "negative")
    close(+a, +x, "positive")
    close(vp.exp(a), np.exp(x), "exp")
    # NumPy's own names on resident arrays run on the device
    close(np.conj(a), np.conj(x), "np.conj")
    close(np.abs(a), np.abs(x), "np.abs")
    close(np.real(a), np.real(x), "np.real")
    close(np.exp(a), np.exp(x), "np.exp")
    # real and imag are views: writes show in the array
    a.real = 0.5
    a.imag[1] = -2.0
    x.real = 0.5
    x.imag[1] = -2.0
    np.testing.assert_array_equal(a.numpy(), x)


def test_parts_of_real_arrays():
    f = np.arange(4, dtype=np.float32) - 1.5
    a = vp.asarray(f)
    assert a.real is a
    close(a.imag, np.zeros(4, np.float32), "imag of real")
    close(vp.conj(a), np.conj(f), "conj of real")
    close(vp.angle(a), np.angle(f).astype(np.float32), "angle of real")
    np.testing.assert_array_equal(vp.real(f), f)  # NumPy in, NumPy out


@pytest.mark.parametrize("dt", [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.uint64],
                         ids=lambda d: np.dtype(d).name)
def test_angle_of_integers_takes_numpys_dtype(dt):
    """numpy.angle of integers is arctan2(0, z): the Python 0 takes z's
    dtype, so int8 gives float16 and int16 float32 (VulPy gave float64)."""
    x = np.array([-6, 0, 3, -1, 1]).astype(dt)
    for deg in (False, True):
        want = np.angle(x, deg=deg)
        got = vp.angle(vp.asarray(x), deg=deg)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-3)


# ---------------------------------------------------------------- arithmetic
OPS = {"add": lambda a, b: a + b, "subtract": lambda a, b: a - b,
       "multiply": lambda a, b: a * b, "divide": lambda a, b: a / b}
OPERANDS = ["c64", "c128", "f32", "f64", "i32", "py_complex", "py_float", "np_c64",
            "np_c128", "np_f64"]


def operand(kind, shape, seed):
    r = np.random.default_rng(seed)
    if kind in ("c64", "c128"):
        return crand(shape, C64 if kind == "c64" else C128, seed)
    if kind in ("f32", "f64"):
        return np.asarray(r.standard_normal(shape) + 3.0).astype(
            np.float32 if kind == "f32" else np.float64)
    if kind == "i32":
        return np.asarray(r.integers(1, 9, shape)).astype(np.int32)
    return {"py_complex": 1.5 - 2.25j, "py_float": -0.75, "np_c64": np.complex64(2 + 1j),
            "np_c128": np.complex128(-1 + 0.5j), "np_f64": np.float64(1.25)}[kind]


@SETTINGS
@given(op=st.sampled_from(sorted(OPS)), ka=st.sampled_from(OPERANDS),
       kb=st.sampled_from(OPERANDS), shapes=st.sampled_from([((3, 4), (3, 4)), ((3, 4), (4,)),
                                                            ((1, 4), (3, 1)), ((), (5,))]),
       strided=st.booleans())
def test_binary_promotion(op, ka, kb, shapes, strided):
    """Every pairing NumPy resolves, against NumPy: dtype and values."""
    a, b = operand(ka, shapes[0], 1), operand(kb, shapes[1], 2)
    if not any(np.asarray(v).dtype.kind == "c" for v in (a, b)):
        b = operand("c64", shapes[1], 2)
    if not isinstance(a, np.ndarray) and not isinstance(b, np.ndarray):
        a = operand("c64", shapes[0], 1)
    want = OPS[op](a, b)

    def res(v):
        if not isinstance(v, np.ndarray):
            return v
        if strided and v.ndim and v.shape[-1] > 1:
            big = np.repeat(v, 2, axis=-1)
            return vp.asarray(big)[..., ::2]
        return vp.asarray(v)

    got = OPS[op](res(a), res(b))
    close(got, want, f"{ka} {op} {kb}")
    close(getattr(vp, op)(res(a), res(b)), want, f"vp.{op}")
    close(getattr(np, op)(res(a), res(b)), want, f"np.{op}")


def test_promotion_table():
    c = vp.asarray(crand(3))
    assert (c + vp.asarray(np.ones(3, np.float32))).dtype == C64
    assert (c + vp.asarray(np.ones(3, np.float64))).dtype == C128
    assert (c + vp.asarray(np.ones(3, np.int32))).dtype == C128
    assert (c * 2.0).dtype == C64 and (c * 2j).dtype == C64
    assert (c * np.complex128(1j)).dtype == C128
    f = vp.asarray(np.ones(3, np.float32))
    assert (f * 1j).dtype == C64 and (f + np.complex64(1)).dtype == C64


def test_out_inplace_and_numpy_in():
    x, y = crand((2, 5), seed=3), crand((2, 5), seed=4)
    a, b = vp.asarray(x), vp.asarray(y)
    out = vp.empty((2, 5), np.complex64)
    assert vp.multiply(a, b, out=out) is out
    close(out, x * y, "out=")
    a *= b  # out= is an operand: read as it was
    close(a, x * y, "in place *")
    a /= 2j
    close(a, x * y / 2j, "in place /")
    c = vp.asarray(x)
    c[:, 1:] -= c[:, :-1]  # overlapping views
    want = x.copy()
    want[:, 1:] -= x[:, :-1].copy()
    close(c, want, "overlap")
    # NumPy's same_kind rule: complex into float32 out= is its TypeError,
    # complex64 into complex128 a cast
    with pytest.raises(TypeError, match="Cannot cast ufunc 'add' output"):
        vp.add(vp.asarray(x), vp.asarray(y), out=vp.empty((2, 5), np.float32))
    o128 = vp.empty((2, 5), np.complex128)
    assert vp.add(vp.asarray(x), vp.asarray(y), out=o128) is o128
    np.testing.assert_allclose(o128.numpy(), (x + y).astype(np.complex128), rtol=1e-6)
    # NumPy in, NumPy out
    r = vp.multiply(x, y)
    assert isinstance(r, np.ndarray) and r.dtype == C64
    np.testing.assert_allclose(r, x * y, rtol=1e-6)
    assert (vp.asarray(x) == vp.asarray(x)).numpy().all()
    close(vp.asarray(x) != vp.asarray(y), x != y, "!=")
    close(vp.asarray(x) == 1.5, x == 1.5, "== real")


@pytest.mark.parametrize("dt", [C64, C128])
def test_astype(dt):
    x = crand(6, dt)
    a = vp.asarray(x)
    other = C128 if dt == C64 else C64
    close(a.astype(other), x.astype(other), "complex -> complex")
    f = np.linspace(-1, 1, 6).astype(np.float32)
    close(vp.asarray(f).astype(dt), f.astype(dt), "real -> complex")
    close(vp.asarray(np.arange(6, dtype=np.int32)).astype(dt), np.arange(6).astype(dt), "int")
    with pytest.raises(TypeError, match=f"{dt.name} to float32 would drop the imaginary"):
        a.astype(np.float32)


# ---------------------------------------------------------------- unsupported
@vp.jit
def _floor_twice(x):  # (complex values trace; vp.floor takes none)
    return vp.floor(x) * 2


@pytest.mark.parametrize("call,name", [
    (lambda a: vp.cbrt(a), "vp.cbrt"), (lambda a: vp.arctan2(a, a), "vp.arctan2"),
    (lambda a: vp.logaddexp(a, a), "vp.logaddexp"), (lambda a: vp.floor(a), "vp.floor"),
    (lambda a: vp.hypot(a, a), "vp.hypot"),
    (lambda a: vp.floor_divide(a, a), "vp.floor_divide"),
    (lambda a: vp.fmod(a, a), "vp.fmod"), (lambda a: vp.copysign(a, a), "vp.copysign"),
    (lambda a: vp.deg2rad(a), "vp.deg2rad"), (lambda a: vp.spacing(a), "vp.spacing"),
    (lambda a: _floor_twice(a), "vp.jit: vp.floor"),
])
def test_unsupported_raises_naming_op_and_dtype(call, name):
    a = vp.asarray(crand(3))
    with pytest.raises(TypeError) as e:
        call(a)
    assert "complex64" in str(e.value) and name in str(e.value)


def test_unsupported_with_complex_scalar():
    f = vp.asarray(np.ones(3, np.float32))
    with pytest.raises(TypeError, match="vp.fmod: complex"):
        vp.fmod(f, 1j)
    with pytest.raises(TypeError, match="complex"):
        f.fill(1j)
    with pytest.raises(TypeError, match="imaginary"):
        vp.full(3, 1 + 1j, np.float32)
    with pytest.raises(TypeError, match="vp.asarray: complex128 data into float32"):
        vp.asarray(np.array([1j]), np.float32)
    with pytest.raises(TypeError, match="set: complex64"):
        f.set(crand(3))


@pytest.mark.parametrize("dt", [C64, C128])
def test_gathers_move_both_parts(dt):
    """Integer-array and mask indexing of complex arrays (x[idx], x[mask],
    take, take_along_axis, compress) gather real and imaginary parts
    together (they were refused: the gathers had no complex path)."""
    if dt == C128 and not vp.default_context().has("float64"):
        pytest.skip("complex128 needs float64")
    h = crand((3, 4), dt, seed=3)
    x = vp.asarray(h)
    idx = np.array([2, 0, 2, -1])
    mask = h.real > 0
    cases = [
        (lambda m, a: a[idx], "a[idx]"), (lambda m, a: a[:, [3, 1]], "a[:, list]"),
        (lambda m, a: a[[0, 2], [1, 3]], "two index arrays"),
        (lambda m, a: a[[0, 1], 1:3], "index array then slice"),
        (lambda m, a: a[..., [3, 1]], "ellipsis"), (lambda m, a: a[[]], "empty"),
        (lambda m, a: a[mask], "host mask"), (lambda m, a: a[::-1, 1:][[0, 2]], "view first"),
        (lambda m, a: m.take(a, [5, 0, 11]), "take flat"),
        (lambda m, a: m.take(a, [0, 2], axis=1), "take axis"),
        (lambda m, a: m.compress([True, False, True], a, axis=0), "compress"),
        (lambda m, a: m.take_along_axis(a, np.argsort(h.real, axis=1), axis=1),
         "take_along_axis"),
    ]
    for f, name in cases:
        want = f(np, h)
        got = f(vp, x)
        assert isinstance(got, vp.ndarray), name
        assert got.dtype == want.dtype and got.shape == want.shape, (name, got.shape, want.shape)
        np.testing.assert_array_equal(got.numpy(), want, err_msg=name)
    # resident indices and masks; np.take on a resident array
    np.testing.assert_array_equal(x[vp.asarray(idx)].numpy(), h[idx])
    np.testing.assert_array_equal(x[vp.real(x) > 0].numpy(), h[mask])
    np.testing.assert_array_equal(np.take(x, vp.asarray(idx), axis=0).numpy(), h[idx])


_SET_CASES = [  # (key, value), on a (5, 6) array; duplicates where NumPy writes last
    (np.array([1, 3, 1, -1, 3]), (5, 6)), (np.array([1, 3, 1, -1, 3]), (6,)),
    (np.array([4, 0]), 2 + 3j), (np.array([2]), 1.5), (np.array([], np.int64), 1j),
    ((slice(None), np.array([0, 2, 0, 5])), (5, 4)),
    ((slice(None), np.array([[0, 2], [0, 5]])), (5, 2, 2)),
    ((np.array([0, 1, 0]), np.array([2, 3, 2])), (3,)),
    ((np.array([0, 1, 0]), np.array([2, 3, 2])), "float32"),
    ((1, np.array([2, 3, 2])), (3,)), ((np.array([[0], [1]]), np.array([2, 3, 2])), (2, 3)),
    ((np.array([4, 0]), slice(1, 3)), (2, 2)), ((slice(1, None, 2), np.array([1, 1])), 7j),
    ((Ellipsis, np.array([5, 0, 5])), (5, 3)), ("mask", 5 - 1j), ("mask", "count"),
    ("row mask", (6,)), ((slice(None, None, -1), np.array([-2, 0])), (5, 2)),
]


@pytest.mark.parametrize("dt", [C64, C128])
def test_index_and_mask_assignment_write_both_parts(dt):
    """x[idx] = v, x[i, j] = v, x[:, idx] = v, x[mask] = v of complex x
    (they were refused: the scatters have no complex path): NumPy's result
    with host and resident keys and values, complex, real and scalar values
    broadcast, and NumPy's last write where an index repeats."""
    if dt == C128 and not vp.default_context().has("float64"):
        pytest.skip("complex128 needs float64")
    h0 = crand((5, 6), dt, seed=5)
    mask = h0.real > 0
    for key, val in _SET_CASES:
        key = {"mask": mask, "row mask": mask[:, 0]}.get(key, key) if isinstance(key, str) \
            else key
        if val == "count":
            val = crand(int(mask.sum()), dt, seed=6)
        elif val == "float32":
            val = np.array([1.5, -2, 3], np.float32)
        elif isinstance(val, tuple):
            val = crand(val, dt, seed=7)
        want = h0.copy()
        want[key] = val
        for res_key in (False, True):
            k = key
            if res_key:  # resident index arrays and masks
                k = tuple(vp.asarray(e) if isinstance(e, np.ndarray) and
                          not (e.dtype == np.bool_ and isinstance(key, tuple)) else e
                          for e in key) if isinstance(key, tuple) else vp.asarray(key)
            for res_val in (False, True):
                x = vp.asarray(h0)
                x[k] = vp.asarray(val) if res_val and isinstance(val, np.ndarray) else val
                np.testing.assert_array_equal(x.numpy(), want,
                                              err_msg=f"{key!r} = {type(val).__name__}")
    # vp.put (last write wins, as numpy.put), the value cast from complex128
    x, want = vp.asarray(h0), h0.copy()
    vp.put(x, [3, 1, 3], np.array([1j, 2, 3 - 1j]))
    np.put(want, [3, 1, 3], np.array([1j, 2, 3 - 1j]))
    np.testing.assert_array_equal(x.numpy(), want)
    # the value overlaps the target: read as it was
    x, want = vp.asarray(h0), h0.copy()
    x[np.array([0, 1])] = x[np.array([1, 0])]
    want[np.array([0, 1])] = want[np.array([1, 0])]
    np.testing.assert_array_equal(x.numpy(), want)
    with pytest.raises(IndexError, match="out of bounds"):
        vp.asarray(h0)[np.array([5])] = 1j


def test_repeated_indices_leave_one_write_per_element():
    """A complex scatter writes the two parts separately, so where an index
    repeats, two values could each win one part (on a GPU, whose writes
    race; lavapipe happens to write in order): _last_writes keeps, for each
    element, only the value NumPy writes last."""
    from vulpy import _indexing
    h0 = crand((5, 6), C64, seed=8)
    a = vp.asarray(h0)
    for key, vshape in [((np.array([1, 3, 1, -4, 3]),), (5, 6)),
                        ((slice(None), np.array([[0, 2], [0, 5]])), (5, 2, 2)),
                        ((np.array([0, 1, 0]), np.array([2, 3, 2])), (3,)),
                        ((1, np.array([2, 3, 2])), (3,)),
                        ((np.array([[0], [1]]), np.array([2, 3, 2])), (2, 3)),
                        ((np.array([4, 4]), slice(None), np.newaxis), (2, 6, 1))]:
        val = crand(vshape, C64, seed=9)
        parts = val.view(np.float32).reshape(vshape + (2,))
        k2, v2 = _indexing._last_writes(a, key, parts)
        flat = np.ravel_multi_index(
            [np.where(e < 0, e + a.shape[j], e) for j, e in enumerate(k2)
             if isinstance(e, np.ndarray)],
            [a.shape[j] for j, e in enumerate(k2) if isinstance(e, np.ndarray)])
        assert np.unique(flat).size == flat.size, key  # each element once
        want, got = h0.copy(), h0.copy()
        want[key] = val
        f = got.view(np.float32).reshape(5, 6, 2)
        f[tuple(k2) + (slice(None),)] = v2
        np.testing.assert_array_equal(got, want, err_msg=repr(key))


@pytest.mark.parametrize("dt", [C64, C128])
def test_joins_and_rolls_move_both_parts(dt):
    """concatenate (and stack, hstack, vstack, append on it) and roll of
    complex arrays: the slab copies run on the float views (they were
    refused); real and NumPy inputs are made complex first, as NumPy's
    result_type says."""
    if dt == C128 and not vp.default_context().has("float64"):
        pytest.skip("complex128 needs float64")
    h = crand((3, 4), dt, seed=5)
    x = vp.asarray(h)
    r = np.arange(4, dtype=np.float32)[None]
    cases = [
        (lambda m, a: m.concatenate([a, a]), "concatenate"),
        (lambda m, a: m.concatenate([a[:, ::-1], a], 1), "views, axis 1"),
        (lambda m, a: m.concatenate([a, a], axis=None), "axis None"),
        (lambda m, a: m.concatenate([a[:0], a, h[:1]]), "empty and NumPy parts"),
        (lambda m, a: m.concatenate([a, r if m is np else vp.asarray(r)]), "a real part"),
        (lambda m, a: m.stack([a, a], 1), "stack"), (lambda m, a: m.hstack([a, a]), "hstack"),
        (lambda m, a: m.vstack([a, a[1:]]), "vstack"), (lambda m, a: m.append(a, a, 0), "append"),
        (lambda m, a: m.roll(a, 1), "roll flat"), (lambda m, a: m.roll(a, -3, axis=1), "roll"),
        (lambda m, a: m.roll(a, (1, 2), axis=(0, 1)), "roll two axes"),
        (lambda m, a: m.tile(a, 2), "tile"), (lambda m, a: m.pad(a, 1), "pad"),
    ]
    for f, name in cases:
        want = f(np, h)
        got = f(vp, x)
        assert isinstance(got, vp.ndarray), name
        assert got.dtype == want.dtype and got.shape == want.shape, (name, got.dtype, want.dtype)
        np.testing.assert_array_equal(got.numpy(), want, err_msg=name)
    np.testing.assert_array_equal(np.concatenate([x, x]).numpy(), np.concatenate([h, h]))
    out = vp.zeros((6, 4), dt)
    assert vp.concatenate([x, x], out=out) is out
    np.testing.assert_array_equal(out.numpy(), np.concatenate([h, h]))


@pytest.mark.parametrize("dt", [C64, C128])
def test_sort_argsort_in_numpys_order(dt):
    """vp.sort / argsort / ndarray.sort of complex arrays (they raised):
    lexicographic by real then imaginary part, NaNs in NumPy's order
    (a NaN imaginary part after every value without one, then NaN real
    parts, then both), argsort equal to NumPy's kind='stable'."""
    if dt == C128 and not vp.default_context().has("float64"):
        pytest.skip("complex128 needs float64")
    rng = np.random.default_rng(11)
    parts = np.array([0.0, -0.0, 1.5, -1.5, np.inf, -np.inf, np.nan, 2.0])
    h = np.empty((3, 5, 7), dt)  # parts set apart (1j * nan would make the real part NaN too)
    h.real, h.imag = rng.choice(parts, (3, 5, 7)), rng.choice(parts, (3, 5, 7))
    h[0, 0, :3] = crand(3, dt)
    x = vp.asarray(h)
    for ax in (-1, 0, 1, None):
        for got, want in ((vp.sort(x, axis=ax), np.sort(h, axis=ax)),
                          (np.sort(x, axis=ax), np.sort(h, axis=ax)),
                          (vp.argsort(x, axis=ax), np.argsort(h, axis=ax, kind="stable"))):
            assert got.dtype == want.dtype and got.shape == want.shape, ax
            np.testing.assert_array_equal(got.numpy(), want, err_msg=str(ax))
    v = h[:, ::2, ::-1]
    np.testing.assert_array_equal(vp.sort(vp.asarray(v), axis=1).numpy(), np.sort(v, axis=1))
    y = vp.asarray(h)
    y.sort(axis=0)
    np.testing.assert_array_equal(y.numpy(), np.sort(h, axis=0))
    assert isinstance(vp.sort(h[0]), np.ndarray)   # NumPy in, NumPy out
    np.testing.assert_array_equal(vp.sort(h[0]), np.sort(h[0]))


@pytest.mark.parametrize("dt", [C64, C128])
def test_where_on_parts(dt):
    """vp.where / np.where with complex x or y (it raised): a real where per
    part; x and y promote as NumPy (Python scalars weak), the condition
    broadcasts and may be complex itself (nonzero is true)."""
    if dt == C128 and not vp.default_context().has("float64"):
        pytest.skip("complex128 needs float64")
    h = crand((3, 4), dt, seed=7)
    c = h.real > 0
    r = np.arange(4, dtype=np.float32)
    x, dc = vp.asarray(h), vp.asarray(c)
    cases = [
        (np.where(c, h, h * 2), vp.where(dc, x, x * 2)),
        (np.where(c, h, 1j), vp.where(dc, x, 1j)),
        (np.where(c, h, r), vp.where(dc, x, vp.asarray(r))),
        (np.where(c, r, 2 + 1j), vp.where(dc, vp.asarray(r), 2 + 1j)),
        (np.where(c, h, 0), vp.where(c, x, 0)),
        (np.where(c, h, 0), np.where(dc, x, 0)),
        (np.where(c[0], h, 0), vp.where(dc[0], x, 0)),
        (np.where(h, h, 5), vp.where(x, x, 5)),
        (np.where(c[:, ::-1], h[:, ::-1], h), vp.where(dc[:, ::-1], x[:, ::-1], x)),
    ]
    for i, (want, got) in enumerate(cases):
        assert isinstance(got, vp.ndarray) and got.dtype == want.dtype, (i, got.dtype, want.dtype)
        np.testing.assert_array_equal(got.numpy(), want, err_msg=str(i))
    out = vp.zeros((3, 4), dt)
    assert vp.where(dc, x, 0, out=out) is out
    np.testing.assert_array_equal(out.numpy(), np.where(c, h, 0))


@pytest.mark.parametrize("shape", [(3, 0), (0,), (0, 4), (2, 0, 3)])
def test_empty_complex_arithmetic(shape):
    """Complex arithmetic on empty arrays gives NumPy's empty results (the
    component views of a (3, 0) complex array have a zero stride, and the
    writes into them were refused as writes into a broadcast view)."""
    z = (np.ones(shape) + 1j * np.ones(shape)).astype(np.complex64)
    x = vp.asarray(z)
    for got, want in ((x * x, z * z), (x + 1j, z + 1j), (x / x, z / z), (x - z, z - z),
                      (vp.conjugate(x), np.conjugate(z)), (vp.sum(x * x, -1), np.sum(z * z, -1))):
        assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape)
        np.testing.assert_array_equal(got.numpy(), want)


# ---------------------------------------------------------------- sqrt, log & co
_BIG = {C64: 3e38, C128: 1.7e308}


def _special(dt):
    """Values at the edges: zeros of both signs, infinities, NaNs, |z| that
    overflows with finite parts, subnormals, |z| near 1."""
    inf, nan, b = np.inf, np.nan, _BIG[dt]
    v = [0, -0.0, 1, -1, 1j, -1j, inf, -inf, nan, complex(inf, nan), complex(-inf, nan),
         complex(nan, inf), complex(nan, -inf), complex(-inf, 1), complex(inf, -1),
         complex(1, inf), complex(-1, -inf), complex(-0.0, -0.0), complex(0, -0.0),
         complex(-2, 0), complex(-2, -0.0), complex(1e-45, 0), complex(0, 1e-45),
         complex(-b, b), complex(b, 1), complex(b, -b), complex(-b, -1), 1 + 1e-4j,
         0.6 + 0.8j, complex(nan, 0), complex(0, nan), complex(-1e-30, 1e-30)]
    return np.array(v, dt)


def _wide(n, dt, seed):
    r = np.random.default_rng(seed)
    mag = np.exp(r.uniform(-30, 30, (2, n)))
    return (r.standard_normal(n) * mag[0] + 1j * r.standard_normal(n) * mag[1]).astype(dt)


def _parts_close(got, want, rtol, name, atol=0.0):
    """Real and imaginary parts each within rtol of NumPy's (relative to
    the element's magnitude: a part that cancels to near 0, as log|z| at
    |z| = 1, is not held to its own few digits), with NaN where NumPy has
    NaN and infinities equal."""
    with np.errstate(all="ignore"):
        mag = np.abs(want)
    for part in ("real", "imag"):
        g, w = getattr(got, part), getattr(want, part)
        with np.errstate(all="ignore"):
            ok = np.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True) | \
                (np.isfinite(g) & np.isfinite(w) & (np.abs(g - w) <= rtol * mag + atol))
        assert ok.all(), (name, part, [(i, got[i], want[i]) for i in np.flatnonzero(~ok)[:5]])


@pytest.mark.parametrize("dt", [C64, C128])
@pytest.mark.parametrize("name", ["sqrt", "log", "log2", "log10", "reciprocal"])
def test_sqrt_log_reciprocal_match_numpy_to_the_edges(dt, name):
    """NumPy's principal branches, signed zeros and C99's special values;
    sqrt and log of a z whose |z| overflows (finite parts) stay finite."""
    z = np.concatenate([_wide(400, dt, 3), _special(dt)])
    with np.errstate(all="ignore"):
        want = getattr(np, name)(z)
    got = getattr(vp, name)(vp.asarray(z))
    assert isinstance(got, vp.ndarray) and got.dtype == want.dtype
    _parts_close(got.numpy(), want, 4e-6 if dt == C64 else 1e-13, name)
    # NumPy in, NumPy out; a strided view
    h = crand((4, 6), dt, 5)
    with np.errstate(all="ignore"):
        w2 = getattr(np, name)(h[:, ::2])
    g2 = getattr(vp, name)(h[:, ::2])
    assert isinstance(g2, np.ndarray)
    _parts_close(g2, w2, 4e-6 if dt == C64 else 1e-13, name + " numpy in")
    g3 = getattr(vp, name)(vp.asarray(h)[:, ::2])
    _parts_close(g3.numpy(), w2, 4e-6 if dt == C64 else 1e-13, name + " view")


@pytest.mark.parametrize("dt", [C64, C128])
def test_log_near_the_unit_circle(dt):
    """|z| near 1: log|z| near 0 keeps its accuracy (log1p of (M-1)(M+1) +
    m*m, not log of hypot)."""
    r = np.random.default_rng(11)
    th = r.uniform(0, 2 * np.pi, 4000)
    rad = 1 + r.standard_normal(4000) * np.exp(r.uniform(-20, 0, 4000))
    z = (rad * np.exp(1j * th)).astype(dt)
    want = np.log(z)
    got = vp.log(vp.asarray(z)).numpy()
    err = np.abs(got - want) / np.abs(want)
    assert err.max() <= (1e-6 if dt == C64 else 1e-15), err.max()


@pytest.mark.parametrize("dt", [C64, C128])
def test_square_and_classification(dt):
    z = np.concatenate([crand(50, dt, 9), _special(dt)[:21]])
    x = vp.asarray(z)
    tol = 4e-6 if dt == C64 else 1e-13
    with np.errstate(all="ignore"):
        want = np.square(z)
    _parts_close(vp.square(x).numpy(), want, tol, "square")
    out = vp.empty(z.shape, dt)
    assert vp.square(x, out=out) is out
    _parts_close(out.numpy(), want, tol, "square out=")
    for name in ("isnan", "isinf", "isfinite"):
        close(getattr(vp, name)(x), getattr(np, name)(z), name)
        np.testing.assert_array_equal(getattr(vp, name)(z), getattr(np, name)(z), err_msg=name)
    y = x.copy()
    vp.sqrt(y, out=y)  # in place
    with np.errstate(all="ignore"):
        _parts_close(y.numpy(), np.sqrt(z), tol, "sqrt in place")


# ---------------------------------------------------------------- products
PRODUCTS = [  # (name, vp call, NumPy call, operand shapes)
    ("matmul", lambda a, b: a @ b, lambda a, b: a @ b, ((5, 7), (7, 3))),
    ("matmul batched", vp.matmul, np.matmul, ((2, 1, 4, 6), (3, 6, 2))),
    ("matmul vector", vp.matmul, np.matmul, ((6,), (6, 4))),
    ("dot", vp.dot, np.dot, ((3, 5), (5,))),
    ("dot nd", vp.dot, np.dot, ((2, 3, 4), (2, 4, 5))),
    ("vdot", vp.vdot, np.vdot, ((3, 4), (12,))),
    ("inner", vp.inner, np.inner, ((3, 5), (2, 5))),
    ("tensordot", lambda a, b: vp.tensordot(a, b, ([0, 2], [1, 0])),
     lambda a, b: np.tensordot(a, b, ([0, 2], [1, 0])), ((3, 4, 5), (5, 3, 2))),
    ("einsum", lambda a, b: vp.einsum("ij,kj->ki", a, b),
     lambda a, b: np.einsum("ij,kj->ki", a, b), ((4, 3), (5, 3))),
    ("matvec", vp.matvec, np.matvec, ((2, 4, 5), (5,))),
    ("vecmat", vp.vecmat, np.vecmat, ((4,), (3, 4, 5))),
    ("einsum one", lambda a, b: vp.einsum("ij->j", a) + vp.einsum("ii", b[:3, :3]),
     lambda a, b: np.einsum("ij->j", a) + np.einsum("ii", b[:3, :3]), ((4, 3), (3, 4))),
]


@pytest.mark.parametrize("name,f,npf,shapes", PRODUCTS, ids=[p[0] for p in PRODUCTS])
@pytest.mark.parametrize("kinds", ["c64 c64", "c64 f32", "f32 c128", "c128 c128"])
def test_products_of_complex_operands(name, f, npf, shapes, kinds):
    """matmul / @ / dot / vdot (the first operand conjugated) / inner /
    tensordot / einsum on complex operands, mixed with real ones: four real
    GEMMs of the parts, NumPy's result dtype, resident in -> resident out."""
    dts = {"c64": C64, "c128": C128, "f32": np.dtype(np.float32)}
    ka, kb = (dts[k] for k in kinds.split())
    a = crand(shapes[0], C128, 1).astype(ka) if ka.kind == "c" else \
        np.random.default_rng(1).standard_normal(shapes[0]).astype(ka)
    b = crand(shapes[1], C128, 2).astype(kb) if kb.kind == "c" else \
        np.random.default_rng(2).standard_normal(shapes[1]).astype(kb)
    want = npf(a, b)
    got = f(vp.asarray(a), vp.asarray(b))
    tol = 1e-5 if C64 in (ka, kb) or ka == np.float32 and kb != C128 else 1e-12
    assert isinstance(got, vp.ndarray), type(got)
    assert got.dtype == np.asarray(want).dtype, (got.dtype, np.asarray(want).dtype)
    g = got.numpy()
    np.testing.assert_allclose(g, want, rtol=tol, atol=tol * np.abs(want).max(), err_msg=name)


def test_products_numpy_in_out_and_in_place():
    a, b = crand((4, 4), C64, 3), crand((4, 4), C64, 4)
    got = vp.matmul(a, b)  # NumPy in, NumPy out
    assert isinstance(got, np.ndarray)
    np.testing.assert_allclose(got, a @ b, rtol=1e-5, atol=1e-5 * np.abs(a @ b).max())
    v = vp.vdot(a, b)
    assert np.isscalar(v) and isinstance(v, np.complex64)
    np.testing.assert_allclose(v, np.vdot(a, b), rtol=1e-5)
    x = vp.asarray(a)
    out = vp.zeros((4, 4), C128)
    assert vp.matmul(x, vp.asarray(b), out=out) is out  # complex64 product into complex128
    np.testing.assert_allclose(out.numpy(), a @ b, rtol=1e-5, atol=1e-5 * np.abs(a @ b).max())
    x @= x  # out= overlaps both operands: NumPy's result
    np.testing.assert_allclose(x.numpy(), a @ a, rtol=1e-5, atol=1e-5 * np.abs(a @ a).max())
    y = vp.asarray(a)
    np.testing.assert_allclose(np.matmul(y, y).numpy(), a @ a, rtol=1e-5,
                               atol=1e-5 * np.abs(a @ a).max())
    t = vp.asarray(a).T  # a transposed view, and .conj().T (the Hermitian transpose)
    h = vp.conj(vp.asarray(a)).T @ vp.asarray(b)
    np.testing.assert_allclose(h.numpy(), a.conj().T @ b, rtol=1e-5,
                               atol=1e-5 * np.abs(a.conj().T @ b).max())
    np.testing.assert_allclose((t @ t).numpy(), a.T @ a.T, rtol=1e-5,
                               atol=1e-5 * np.abs(a.T @ a.T).max())
    with pytest.raises(ValueError, match="do not match"):
        vp.asarray(a) @ vp.asarray(crand((3, 2)))
    with pytest.raises(TypeError, match="vp.matmul: cannot cast complex operands to float32"):
        vp.matmul(vp.asarray(a), vp.asarray(b), dtype=np.float32)
    with pytest.raises(TypeError, match="one or two operands"):
        vp.einsum("ij,jk,kl", vp.asarray(a), vp.asarray(a), vp.asarray(a))


@pytest.mark.parametrize("kw", [{}, {"axis": 1}, {"axis": (1, 2)}, {"ord": 1, "axis": (0, 2)},
                                {"ord": -np.inf, "axis": (2, 1)}, {"ord": 3, "axis": 0},
                                {"ord": 0, "axis": -1}, {"ord": "fro", "axis": (0, 1),
                                                         "keepdims": True}])
@pytest.mark.parametrize("dt", [C64, C128])
def test_norm_of_complex_is_the_norm_of_abs(kw, dt):
    z = crand((3, 4, 5), dt, 8)
    want = np.linalg.norm(z, **kw)
    got = vp.linalg.norm(vp.asarray(z), **kw)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype)
    tol = 2e-6 if dt == C64 else 1e-14
    np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol * np.abs(want).max())


def test_norm_of_complex_matrix_refuses_singular_value_norms():
    m = vp.asarray(crand((3, 3)))
    for ord in (2, -2, "nuc"):
        with pytest.raises(TypeError, match=f"ord={ord!r} of a complex matrix"):
            vp.linalg.norm(m, ord)


# ---------------------------------------------------------------- power
@pytest.mark.parametrize("dt", [C64, C128])
def test_power_matches_numpy(dt):
    """z ** w as numpy.power: a scalar integer exponent (|n| < 100) by
    repeated squaring (negative: the reciprocal), other exponents as
    exp(w log z), array exponents, real bases with complex exponents,
    z ** 0 = 1 and 0 ** w (0 for a positive real part of w, else NaN)."""
    tol = 4e-6 if dt == C64 else 1e-12
    # where float32 subnormals flush, a subnormal integer power is scaled
    # and rounded once (z ** 99 of -0.348 + 0.069j: -1e-45 + 1e-45j, the
    # correctly rounded answer; NumPy's products give -3e-45 + 1e-45j), and
    # a subnormal part of exp(w log z) (z ** 100, z ** 2.5) flushes to a
    # zero (docs/math.md)
    atol = np.finfo(np.float32).tiny if dt == C64 and \
        vp.default_context().flushes_subnormals else 0.0
    z = np.concatenate([crand(200, dt, 12), np.array([0, -0.0, 1, 1j, -1, 2 - 3j], dt)])
    x = vp.asarray(z)
    with np.errstate(all="ignore"):
        for w in (2, 3, 0, 1, -1, -2, 7, 2.0, 99, -5, 0.5, 2.5, 1j, 1 + 1j, -0.5 + 2j, 100,
                  np.float32(3)):
            want = z ** w
            got = x ** w
            assert got.dtype == want.dtype, (w, got.dtype, want.dtype)
            _parts_close(got.numpy(), want, tol * (1 + 5 * abs(w)), f"z ** {w}", atol)
        wv = crand(z.shape, dt, 13)
        wv[:3] = 0
        wv[-6:] = [1 + 1j, -1 + 1j, 0.5j, 0, 2, -2]
        _parts_close(vp.power(x, vp.asarray(wv)).numpy(), z ** wv, 1e-4 if dt == C64 else 1e-10,
                     "array exponent")
        f = np.abs(z.real).astype(float_of(dt))
        _parts_close((vp.asarray(f) ** 1j).numpy(), f ** 1j, tol, "real ** 1j")
        _parts_close((2.0 ** x).numpy(), 2.0 ** z, tol * 10, "2 ** z")
    # Gaussian integers: integer powers multiply, so they are exact as NumPy's
    g = (np.arange(-3, 4)[:, None] + 1j * np.arange(-2, 3)[None, :]).astype(dt).ravel()
    for n in (2, 3, 5, 7):
        np.testing.assert_array_equal((vp.asarray(g) ** n).numpy(), g ** n, err_msg=str(n))
    y = x.copy()
    y **= 2
    _parts_close(y.numpy(), z ** 2, tol, "**=")
    assert isinstance(vp.power(z, 3), np.ndarray)  # NumPy in, NumPy out


def float_of(dt):
    return np.float32 if np.dtype(dt) == C64 else np.float64


# ---------------------------------------------------------------- trigonometric
def _trig_special(dt):
    inf, nan = np.inf, np.nan
    big = 100 if dt == C64 else 720  # past cosh's overflow; the products are finite or not
    return np.array([0, -0.0, 1j, -1j, complex(0, inf), complex(inf, 0), complex(inf, 1),
                     complex(-inf, 1), complex(1, inf), complex(nan, 0), complex(0, nan),
                     complex(big, 1), complex(-big, 1e-30), complex(big, 2), complex(30, 1),
                     complex(-30, 2), complex(1, 30), complex(2, -big), complex(0, np.pi / 2),
                     complex(1e-30, 1e-30), complex(9.5, 0.5), complex(-25, 1)], dt)


@pytest.mark.parametrize("dt", [C64, C128])
@pytest.mark.parametrize("name", ["sin", "cos", "tan", "sinh", "cosh", "tanh"])
def test_trigonometric_match_numpy(dt, name):
    """sin, cos, tan, sinh, cosh, tanh of complex arrays: C99's formulas
    (sinh x cos y + i cosh x sin y, ...; tanh by Kahan's, with its far
    branch), cosh's overflow scaled away where the product is finite, and
    C99's special values, against NumPy."""
    r = np.random.default_rng(14)
    mag = np.exp(r.uniform(-8, 3, (2, 300)))
    z = (r.standard_normal(300) * mag[0] + 1j * r.standard_normal(300) * mag[1]).astype(dt)
    z = np.concatenate([z, _trig_special(dt)])
    with np.errstate(all="ignore"):
        want = getattr(np, name)(z)
    got = getattr(vp, name)(vp.asarray(z))
    assert got.dtype == want.dtype
    _parts_close(got.numpy(), want, 1.6e-5 if dt == C64 else 4e-13, name)
    h = crand((3, 4), dt, 15)
    _parts_close(getattr(vp, name)(h), getattr(np, name)(h), 1.6e-5 if dt == C64 else 4e-13,
                 name + " numpy in")


# ---------------------------------------------------------------- ordering
@pytest.mark.parametrize("dt", [C64, C128])
def test_ordering_is_numpys_lexicographic(dt):
    """<, <=, >, >=, maximum, minimum, fmax, fmin of complex operands:
    NumPy's lexicographic order (real part, then imaginary), with its NaN
    rules (a NaN imaginary part spoils the real-part test; maximum and
    minimum propagate a NaN, fmax and fmin take the other operand), every
    pair of edge values, scalars and real operands."""
    vals = np.array([0, 1, -1, 1j, -1j, 1 + 1j, 1 - 1j, np.nan, complex(1, np.nan),
                     complex(np.nan, 1), complex(np.inf, 0), complex(-np.inf, 1),
                     complex(1, np.inf), 2, 2 + 0.5j, -0.0], dt)
    a, b = np.repeat(vals, len(vals)), np.tile(vals, len(vals))
    x, y = vp.asarray(a), vp.asarray(b)
    for name in ("less", "less_equal", "greater", "greater_equal", "maximum", "minimum",
                 "fmax", "fmin"):
        with np.errstate(invalid="ignore"):
            want = getattr(np, name)(a, b)
        got = getattr(vp, name)(x, y)
        assert got.dtype == want.dtype, name
        np.testing.assert_array_equal(got.numpy(), want, err_msg=name)  # NaNs match NaNs
    r = np.float32([0.5, 1, 2, np.nan] * 4)[:len(vals)].astype(float_of(dt))
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal((x < 1).numpy(), a < 1)
        np.testing.assert_array_equal((1.5 >= x).numpy(), 1.5 >= a)
        np.testing.assert_array_equal(vp.maximum(vp.asarray(vals), vp.asarray(r)).numpy(),
                                      np.maximum(vals, r))


_EDGES = [0.0, -0.0, 1.0, -1.5, 3.0, np.inf, -np.inf, np.nan, 89.0, 88.5, 710.0, -200.0]


def _same(got, want):
    """Equal values, NaN where NumPy has NaN, zeros of the same sign, and
    finite values within 1e-5 relative (a few roundings of the parts)."""
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        nan = np.isnan(w)
        assert np.array_equal(np.isnan(g), nan)
        exact = ~nan & (~np.isfinite(w) | (w == 0))
        assert np.array_equal(g[exact], w[exact])
        assert np.array_equal(np.signbit(g[exact]), np.signbit(w[exact]))
        rest = ~nan & ~exact
        np.testing.assert_allclose(g[rest], w[rest], rtol=1e-5, atol=0)


@pytest.mark.parametrize("dt", [C64, C128])
@pytest.mark.parametrize("name", ["exp", "exp2", "expm1", "sign", "sinh", "cosh", "tanh", "sin",
                                  "cos", "tan"])
def test_exp_family_and_sign_special_values(dt, name):
    """exp (C99 cexp: exp(inf + 0j) is inf + 0j, not inf + NaNj; exp(x)
    past its overflow scaled so that a product with a small sine stays
    finite; x = -inf gives +-0), exp2 = exp(z ln 2), expm1 (NumPy's
    nc_expm1), sign (z / |z|, NumPy 2's rules for infinities), and the
    trigonometric and hyperbolic functions (an infinite x with an infinite
    or NaN y: sinh(inf + inf j) was nan + nan j, NumPy's inf + nan j) on
    every pair of edge values, against NumPy."""
    if dt == C128 and not vp.default_context().has("float64"):
        pytest.skip("complex128 needs float64")
    z = np.array([complex(a, b) for a in _EDGES for b in _EDGES], dt)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(z)
    got = getattr(vp, name)(vp.asarray(z))
    assert got.dtype == want.dtype
    _same(got.numpy(), want)


@pytest.mark.parametrize("dt", [C64, C128])
def test_log1p_keeps_small_arguments(dt):
    """log1p(z) = (log|1 + z|, atan2(y, 1 + x)) with log1p's accuracy where
    |z| is small (NumPy's log(hypot(1 + x, y)) is 0 for z = 1e-10 in
    complex64), against mpmath at 60 digits."""
    if dt == C128 and not vp.default_context().has("float64"):
        pytest.skip("complex128 needs float64")
    import mpmath as mp
    rng = np.random.default_rng(11)
    mag = 10.0 ** rng.uniform(-12, 3, 300)
    z = (mag * np.exp(1j * rng.uniform(-np.pi, np.pi, 300))).astype(dt)
    z = np.concatenate([z, np.array([-1 + 1e-3j, -0.5 + 0.5j, 1e-10, -1e-10j, 3j], dt)])
    got = vp.log1p(vp.asarray(z)).numpy()
    tol = 4e-7 if dt == C64 else 1e-15
    with mp.workdps(60):
        for a, g in zip(z, got):
            w = mp.log1p(mp.mpc(float(a.real), float(a.imag)))
            assert abs(complex(g) - complex(w)) <= tol * max(abs(complex(w)), 1e-300) * 4, \
                (a, g, complex(w))
    with np.errstate(all="ignore"):  # away from 0, NumPy's (edge values)
        e = np.array([complex(a, b) for a in _EDGES[:8] for b in _EDGES[:8]], dt)
        _same(vp.log1p(vp.asarray(e)).numpy(), np.log1p(e))


@pytest.mark.parametrize("dt", [C64, C128])
def test_round_rounds_both_parts(dt):
    """vp.round / vp.around / ndarray.round of complex: each part half to
    even at `decimals` (it raised); NumPy in gives NumPy out; out=."""
    if dt == C128 and not vp.default_context().has("float64"):
        pytest.skip("complex128 needs float64")
    h = (crand((4, 5), dt, seed=12) * 10).astype(dt)
    h[0, :3] = [0.5 + 1.5j, -2.5 - 0.5j, complex(np.nan, np.inf)]
    x = vp.asarray(h)
    for d in (0, 1, -1):
        got = vp.round(x, d)
        assert got.dtype == dt
        np.testing.assert_array_equal(got.numpy(), np.round(h, d))
    np.testing.assert_array_equal(vp.around(h, 1), np.round(h, 1))
    out = vp.empty((4, 5), dt)
    assert vp.round(x[:, ::-1], 1, out=out) is out
    np.testing.assert_array_equal(out.numpy(), np.round(h[:, ::-1], 1))


def _nan_classes(dt, seed):
    r = np.random.default_rng(seed)
    z = (r.integers(-2, 2, 40) + 1j * r.integers(-2, 2, 40)).astype(dt)
    z[[3, 7]] = complex(np.nan, 1)
    z[9], z[11], z[12] = complex(1, np.nan), np.nan, complex(np.nan, -np.inf)
    return z


@pytest.mark.parametrize("dt", [C64, C128])
def test_unique_and_searchsorted_in_numpys_order(dt):
    """vp.unique and vp.searchsorted of complex values (they raised):
    NumPy's order (real part, then imaginary; NaN classes last); unique's
    equal_nan makes every value with a NaN part one value, as NumPy's; the
    index, inverse and counts; searchsorted's side= and sorter=, a real
    array searched for complex values, NumPy in and out."""
    if dt == C128 and not vp.default_context().has("float64"):
        pytest.skip("complex128 needs float64")
    z = _nan_classes(dt, 13)
    x = vp.asarray(z)
    for en in (True, False):
        want = np.unique(z, return_index=True, return_inverse=True, return_counts=True,
                         equal_nan=en)
        got = vp.unique(x, return_index=True, return_inverse=True, return_counts=True,
                        equal_nan=en)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape
            np.testing.assert_array_equal(g.numpy(), w)
    np.testing.assert_array_equal(vp.unique(z[::-1]), np.unique(z[::-1]))  # NumPy in
    a = np.sort(z)
    v = np.concatenate([z[:20], np.array([0.5j, -5, complex(5, np.nan), complex(np.nan, -3)],
                                         dt)]).reshape(4, 6)
    for side in ("left", "right"):
        want = np.searchsorted(a, v, side=side)
        got = vp.searchsorted(vp.asarray(a), vp.asarray(v), side=side)
        assert got.dtype == np.int64 and got.shape == (4, 6)
        np.testing.assert_array_equal(got.numpy(), want, err_msg=side)
        np.testing.assert_array_equal(vp.searchsorted(a, v[0], side=side),
                                      np.searchsorted(a, v[0], side=side))
        assert int(vp.searchsorted(vp.asarray(a), 1 + 1j, side=side)) == \
            np.searchsorted(a, 1 + 1j, side=side)
    s = np.argsort(z, kind="stable")
    np.testing.assert_array_equal(vp.searchsorted(x, vp.asarray(v), sorter=s).numpy(),
                                  np.searchsorted(z, v, sorter=s))
    r = np.sort(z.real)
    np.testing.assert_array_equal(vp.searchsorted(vp.asarray(r), vp.asarray(v)).numpy(),
                                  np.searchsorted(r, v))
    assert vp.searchsorted(x[:0], vp.asarray(v)).numpy().tolist() == [[0] * 6] * 4


_INVERSE = ["arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh"]
_INV_EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 1e-20, 3e38, 1e10, np.inf, -np.inf, np.nan]


@pytest.mark.parametrize("dt", [C64, C128])
@pytest.mark.parametrize("name", _INVERSE)
def test_inverse_functions_match_numpy(dt, name):
    """arcsin, arccos, arctan, arcsinh, arccosh, arctanh of complex values
    (they raised): Kahan's formulas for asinh and acosh, FreeBSD's for
    atanh, log(2z) far out, C99's identities for the others. Against NumPy
    (glibc's casin, ...) on every pair of edge values (signed zeros,
    infinities and NaNs as C99 gives them; 3e38 + 3e38j without overflow),
    and, within 3e-6 (complex64) / 1e-14 (complex128) of each element's
    magnitude, against NumPy in complex128 on values over 17 decades, near
    the unit circle, near +-1 and +-i (the branch points) and tiny ones."""
    if dt == C128 and not vp.default_context().has("float64"):
        pytest.skip("complex128 needs float64")
    edge = np.array([complex(a, b) for a in _INV_EDGES for b in _INV_EDGES], dt)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(edge)
    _same(getattr(vp, name)(vp.asarray(edge)).numpy(), want)
    r = np.random.default_rng(14)
    wide = r.standard_normal(200) * np.exp(r.uniform(-20, 20, 200)) + \
        1j * r.standard_normal(200) * np.exp(r.uniform(-20, 20, 200))
    unit = np.exp(1j * r.uniform(-np.pi, np.pi, 80)) * r.choice([1, 0.999, 1.001], 80)
    tiny = r.choice([1e-3, 1e-7, 1e-12], 80) * (r.standard_normal(80) + 1j * r.standard_normal(80))
    near = np.concatenate([p + tiny for p in (1, -1, 1j, -1j)] + [tiny])
    z = np.concatenate([wide, unit, near]).astype(dt)
    want = getattr(np, name)(z.astype(C128))
    got = getattr(vp, name)(vp.asarray(z)).numpy()
    assert got.dtype == dt
    tol = 3e-6 if dt == C64 else 1e-14
    err = np.abs(got - want) / np.maximum(np.abs(want), np.finfo(dt).tiny)
    assert err.max() <= tol, (name, z[err.argmax()], got[err.argmax()], want[err.argmax()])


@pytest.mark.parametrize("dt", [C64, C128])
def test_rint_and_float_power(dt):
    """vp.rint of complex rounds each part half to even; vp.float_power of
    complex operands is complex128 (NumPy's), scalars and arrays."""
    if not vp.default_context().has("float64"):
        pytest.skip("float_power is float64 / complex128")
    h = np.array([1.5 + 2.5j, -0.5 - 3.5j, 2 + 1j, complex(np.nan, -0.5)], dt)
    w = np.array([2, 0.5 + 1j, -1j, 1], dt)
    x = vp.asarray(h)
    _same(vp.rint(x).numpy(), np.rint(h))
    for args, nargs in (((x, vp.asarray(w)), (h, w)), ((x, 3), (h, 3)),
                        ((vp.asarray(np.array([2.0, 3.0], np.float32)), 1j),
                         (np.array([2.0, 3.0], np.float32), 1j))):
        got, want = vp.float_power(*args), np.float_power(*nargs)
        assert got.dtype == want.dtype == C128
        _same(got.numpy()[:3], want[:3])


def _bits_or_nan(got, want, what, z=None, n=None):
    """Each part bit for bit NumPy's, or NaN where NumPy's is NaN. With z
    and n (an integer power z ** n) on a complex64 context that flushes
    float32 subnormals: where NumPy's products pass below 2^-100 (|z| or
    |z|^|n|) its bits come from rounding on the subnormal grid, which the
    device cannot do in a product; VulPy scales z into the normal range
    there (docs/math.md), so those elements are held to NumPy's value
    within that rounding (relative to |z^n|, and for n < 0 half a unit of
    the grid over |z^n|^2) and to non-finite parts where NumPy's are."""
    if z is not None and got.dtype == C64 and vp.default_context().flushes_subnormals:
        tiny = np.finfo(np.float32).tiny
        with np.errstate(all="ignore"):
            mod = np.abs(z.astype(C128))
            # a part of NumPy's answer below 2^-126 beside a normal one
            # ((0.75 + 1e-30j) ** 99's imaginary part 5.6e-41) is a product
            # that flushes there, as every subnormal result (docs/math.md)
            sub = [(w != 0) & (np.abs(w) < tiny) for w in (want.real, want.imag)]
            normal = ((mod ** np.abs(n) > 2.0 ** -100) & (mod > 2.0 ** -100)) | (mod == 0) | \
                ~np.isfinite(mod)
            normal &= ~sub[0] & ~sub[1]
            # one part far below the other passes below 2^-126 inside the
            # products while |z^n| stays normal: NumPy's bits come through
            # a subnormal intermediate ((0.75 + 1e-30j) ** -98's imaginary
            # part -2.3e-16 is -7.5e-41 / |z^98|^2; the H100 flushed the
            # -7.5e-41), held to NumPy within 1e-5 of |z^n| as above
            small = np.minimum(np.abs(z.real), np.abs(z.imag)).astype(np.float64)
            normal &= ~((small > 0) & (n != 0) &
                        (np.abs(n) * small * mod ** (np.abs(n) - 1) < tiny))
            size = np.abs(want.astype(C128))
        for (g, w), sp in zip(((got.real, want.real), (got.imag, want.imag)), sub):
            fin = ~normal & np.isfinite(w)
            err = np.abs(g[fin].astype(np.float64) - w[fin])
            lim = 1e-5 * size[fin] + 8 * 2.0 ** -149 * np.where(n < 0, size ** 2, 1)[fin] + \
                np.where(sp, tiny, 0)[fin]
            assert (err <= lim).all(), (what, z[fin][err > lim][:3], g[fin][err > lim][:3])
            assert not np.isfinite(g[~normal & ~np.isfinite(w)]).any(), what
        got, want = got[normal], want[normal]
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        nan = np.isnan(w)
        assert np.array_equal(np.isnan(g), nan), what
        assert np.array_equal(g[~nan].view(f"u{g.itemsize}"), w[~nan].view(f"u{w.itemsize}")), \
            (what, g[~nan][g[~nan] != w[~nan]][:5], w[~nan][g[~nan] != w[~nan]][:5])


@pytest.mark.parametrize("dt", [C64, C128])
def test_integer_powers_are_numpys_to_the_bit(dt):
    """An integer exponent below 100 in magnitude multiplies, as npy_cpow
    does, for a scalar and now for each element of an array exponent (it
    took exp(w log z) there: 1j ** 2 was -1 + 1.2e-16j, (inf + 1j) ** 4 was
    inf + nanj): the same products in the same order (n = 1, 2, 3 unrolled,
    the rest from 1 + 0j by repeated squaring, 1 / that for n < 0), so the
    same bits, special values and zero signs; 0 ** n is 0 (n > 0) or NaN."""
    if dt == C128 and not vp.default_context().has("float64"):
        pytest.skip("complex128 needs float64")
    v = [0.0, -0.0, 1.0, -1.0, 2.5, -3.0, 0.75, np.inf, np.nan, 1e30, 1e-30]
    z = np.concatenate([np.array([complex(a, b) for a in v for b in v], dt),
                        crand(40, dt, 21), np.array([1j, 1 + 1j, 3 - 2j, -2j], dt)])
    ns = np.array([1, 2, 3, -1, -2, -3, 4, 5, 7, -6, 12, 99, -98, 0], float_of(dt))
    zz, ww = np.broadcast_arrays(z[:, None], ns[None, :])
    x = vp.asarray(z)
    with np.errstate(all="ignore"):
        want = np.power(zz, ww)
        for w in (ww, vp.asarray(ww), ww.astype(dt)):  # on the host, resident, complex
            _bits_or_nan(vp.power(vp.asarray(zz), w).numpy(), want, type(w).__name__, zz,
                         ww.real)
        for n in ns:  # scalar exponents (np.power: the operator's fast paths aside)
            _bits_or_nan(vp.power(x, int(n)).numpy(), np.power(z, int(n)), f"z ** {n}", z,
                         np.full(z.shape, n))
        # integers beside other exponents, each element its own path
        mix = np.resize(np.array([2, 2.5, 100, -3, 1j, 99.0, 1 + 0j, -100], dt), z.shape)
        want = np.power(z, mix)
        for w in (mix, vp.asarray(mix)):
            got = vp.power(x, w).numpy()
            ints = (mix.imag == 0) & (np.abs(mix.real) < 100) & (mix.real == np.round(mix.real))
            _bits_or_nan(got[ints], want[ints], "integers of a mixed exponent", z[ints],
                         mix[ints].real)
            fin = ~ints & np.isfinite(want) & np.isfinite(z) & (np.abs(z) > 1e-20) & \
                (np.abs(z) < 1e20)
            # exp(w log z): a subnormal answer part flushes where the context
            # flushes float32 subnormals (docs/math.md; the H100: 1.6e-40 -> 0),
            # so within the smallest normal there
            flush = dt == C64 and vp.default_context().flushes_subnormals
            _parts_close(got[fin], want[fin], 1e-4 if dt == C64 else 1e-10, "the others",
                         atol=float(np.finfo(np.float32).tiny) if flush else 0.0)


@pytest.mark.parametrize("dt", [np.float32, np.float64, C64, C128])
def test_power_operator_fast_paths(dt):
    """x ** -1, x ** 2 and x ** 0.5 (Python scalars, float or complex x) are
    NumPy's reciprocal, square and sqrt, as NumPy's operator makes them
    ((-0.0) ** 0.5 is -0.0 and (-inf) ** 0.5 NaN where power gives 0.0 and
    inf; (-4 - 0j) ** 0.5 is -2j exactly), in place too; vp.power itself,
    np.float64(0.5) and an int array keep power's."""
    if np.dtype(dt) in (np.float64, C128) and not vp.default_context().has("float64"):
        pytest.skip("needs float64")
    h = np.array([-0.0, -np.inf, 4.0, -4.0, 0.0, 2.0, 1e-3], dt)
    if np.dtype(dt).kind == "c":
        h = h + np.array([-0.0, 0, 1, -0.0, 0, -3, 2], dt) * 1j
    x = vp.asarray(h)
    with np.errstate(all="ignore"):
        for s, f in ((-1, vp.reciprocal), (2, vp.square), (0.5, vp.sqrt)):
            y = vp.asarray(h)
            y **= s
            for got in ((x ** s).numpy(), y.numpy()):
                _bits_or_nan(got, f(x).numpy(), f"x ** {s!r} is {f.__name__}")
                if not (s == 2 and np.dtype(dt).kind == "c"):  # (NumPy's uses FMAs)
                    _same(got, h ** s)
        if np.dtype(dt).kind == "c":
            return
        # vp.power with a scalar: NumPy's loop makes 0.5 sqrt (reals only)
        _same(vp.power(x, 0.5).numpy(), np.power(h, 0.5))
        _same((x ** np.float64(0.5)).numpy(), h ** np.float64(0.5))
        _same(vp.power(x, np.full(h.shape, 0.5, dt)).numpy(), np.power(h, np.full(h.shape, 0.5)))
    i = np.arange(-3, 4)
    np.testing.assert_array_equal((vp.asarray(i) ** 2).numpy(), i ** 2)


@pytest.mark.parametrize("dt", [C64, C128])
def test_power_with_infinite_exponents(dt):
    """z ** +-inf is cexp(w log z) with cexp's special values, as NumPy's
    (it was NaN everywhere): 0 inside the unit circle, (inf, NaN) outside,
    and the other way round for -inf."""
    if dt == C128 and not vp.default_context().has("float64"):
        pytest.skip("complex128 needs float64")
    x = np.array([0.5 + 0.5j, -2, 2, 0.5, 3j], dt)
    for w in (np.inf, -np.inf):
        with np.errstate(all="ignore"):
            want = x ** w
        _same((vp.asarray(x) ** w).numpy(), want)


# ---------------------------------------------------------------- one kernel
_FUSED_UNARY = ["exp", "log", "sqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh", "arcsin",
                "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "expm1", "log1p", "exp2",
                "log2", "log10", "square", "reciprocal", "sign", "negative", "conjugate",
                "absolute", "isnan"]
_FUSED_BINARY = ["add", "subtract", "multiply", "divide", "power", "maximum", "fmin", "equal",
                 "less"]


@pytest.mark.parametrize("dt", [C64, C128])
def test_complex_ufuncs_are_one_kernel_with_the_same_bits(dt):
    """A complex ufunc runs its formula as one traced kernel (it was tens of
    dispatches, each compiled per shape): one dispatch each, and the bits
    of the real ufuncs run one by one (NoContraction keeps the driver from
    fusing what the formula does in steps), special values included, with
    array, view, real and scalar operands."""
    from vulpy import _complex
    if dt == C128 and not vp.default_context().has("float64"):
        pytest.skip("complex128 needs float64")
    edge = np.array([complex(a, b) for a in _EDGES[:8] for b in _EDGES[:8]], dt)
    z = np.concatenate([edge, crand(36, dt, 31)]).reshape(10, 10)
    w = np.concatenate([crand(36, dt, 32), edge]).reshape(10, 10)
    x = z.real.copy()
    ctx = vp.default_context()
    cases = [(f, (z,)) for f in _FUSED_UNARY] + [("exp", (z[:, ::2],))]
    cases += [(f, (z, w)) for f in _FUSED_BINARY]
    cases += [("multiply", (z, x)), ("divide", (x, z)), ("power", (z, np.real(w))),
              ("divide", (z.T, w[::-1])), ("multiply", (z, 1.5 - 2j)), ("power", (z, 2.5))]

    def run(f, ops):
        ops = [vp.asarray(o) if isinstance(o, np.ndarray) else o for o in ops]
        with np.errstate(all="ignore"):
            return getattr(vp, f)(*ops)

    fused = {}
    for f, ops in cases:
        run(f, ops)  # (the trace)
        before = ctx.stats()["dispatches"]
        fused[f, len(fused)] = run(f, ops).numpy()
        assert ctx.stats()["dispatches"] - before == 1, f
    real_fused = _complex._fused
    _complex._fused = lambda *a: False  # the ufuncs one by one
    try:
        for (f, k), got in fused.items():
            want = run(*cases[k]).numpy()
            assert got.dtype == want.dtype, f
            b = f"u{got.dtype.itemsize // (2 if got.dtype.kind == 'c' else 1)}" \
                if got.dtype.kind in "fc" else None
            if b is None:
                assert np.array_equal(got, want), f
            else:
                g, wv = got.view(b), want.view(b)
                nan = np.isnan(want.view(float_of(dt)) if got.dtype.kind == "c" else want)
                assert np.array_equal(g[~nan], wv[~nan]), (f, k)
                assert np.array_equal(np.isnan(got.view(float_of(dt)) if got.dtype.kind == "c"
                                               else got), nan), (f, k)
    finally:
        _complex._fused = real_fused


def test_kernel_past_the_devices_buffer_limit_is_an_error():
    """A kernel that binds more storage buffers than the device allows in
    one shader is a VulkanError naming the limit (lavapipe crashed at 41
    of its 32: a vp.jit of a complex power captured a buffer per zero
    constant; it now captures one per signed zero)."""
    lim = vp.default_context().info["limits"]["max_storage_buffers"]
    n = min(lim, 64) + 1
    xs = [vp.asarray(np.full(4, k, np.float32)) for k in range(n)]
    f = vp.jit(lambda *a: sum(a[1:], a[0]))
    with pytest.raises(vp.VulkanError, match="buffers"):
        f(*xs)
    ok = vp.jit(lambda *a: sum(a[1:], a[0]))(*xs[:8])
    np.testing.assert_array_equal(ok.numpy(), np.full(4, sum(range(8)), np.float32))
