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
    np.testing.assert_array_equal(a.numpy(), np.full_like(x, 3j))
    r = vp.zeros(3, np.float32)
    with pytest.raises(TypeError, match="imaginary"):
        r[0:2] = vp.asarray(crand(2))


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
    with pytest.raises(TypeError, match="out="):
        vp.add(vp.asarray(x), vp.asarray(y), out=vp.empty((2, 5), np.float32))
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
def _twice(x):
    return x * 2


@pytest.mark.parametrize("call,name", [
    (lambda a: a.prod(), "vp.prod"), (lambda a: vp.sqrt(a), "vp.sqrt"),
    (lambda a: a < a, "vp.less"), (lambda a: vp.maximum(a, a), "vp.maximum"),
    (lambda a: vp.hypot(a, a), "vp.hypot"), (lambda a: a @ a, "vp.matmul"),
    (lambda a: vp.square(a), "vp.square"),
    (lambda a: a ** 2, "vp.power"), (lambda a: vp.log(a), "vp.log"),
    (lambda a: vp.cumprod(a), "vp.cumprod"), (lambda a: a.max(), ""),
    (lambda a: _twice(a), "vp.jit _twice"),
])
def test_unsupported_raises_naming_op_and_dtype(call, name):
    a = vp.asarray(crand(3))
    with pytest.raises(TypeError) as e:
        call(a)
    assert "complex64" in str(e.value) and name in str(e.value)


def test_unsupported_with_complex_scalar():
    f = vp.asarray(np.ones(3, np.float32))
    with pytest.raises(TypeError, match="vp.power: complex"):
        f ** 1j
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
    # assignment through an index array stays refused (no silent half write)
    with pytest.raises(TypeError, match="complex"):
        x[vp.asarray(idx)] = 1j


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
