"""Complex values inside vp.jit: complex64 / complex128 arguments (resident
arrays and views, NumPy arrays, NumPy scalars), Python complex constants,
and complex results (new arrays, out= arrays and views, in place).

A traced complex value is its two parts (vulpy/_complex.py TracedComplex);
its ufuncs trace the formulas the eager ufuncs run, so a vp.jit function
gives the bits the same operations give one by one outside vp.jit, which
test_complex.py checks against NumPy to the edges. Here: bit equality with
the eager operations for every complex ufunc, NumPy's values and dtypes for
mixed operands, fusion into one kernel, and a TypeError naming the
operation for what a traced complex value does not take.
"""
import numpy as np
import pytest

import vulpy as vp
from vulpy import _complex
from conftest import needs_target

pytestmark = needs_target

C64, C128 = np.dtype(np.complex64), np.dtype(np.complex128)


def crand(shape, dt=C64, seed=0):
    r = np.random.default_rng(seed)
    return np.asarray(r.standard_normal(shape) + 1j * r.standard_normal(shape)).astype(dt)


def special(dt):
    """Random values with infinities, NaNs, signed zeros and huge parts."""
    f = np.finfo(_complex.float_of(dt))
    vals = np.array([0.0, -0.0, 1.0, -2.5, np.inf, -np.inf, np.nan, f.max / 4, f.tiny, 0.75])
    re, im = np.meshgrid(vals, vals)
    z = np.empty(re.size, C128)
    z.real, z.imag = re.ravel(), im.ravel()  # (re + 1j * im would make NaNs of 1j * inf)
    return np.concatenate([z, crand(28, C128, 3)]).astype(dt)


def same_bits(got, want, name):
    g = got.numpy() if isinstance(got, vp.ndarray) else np.asarray(got)
    w = want.numpy() if isinstance(want, vp.ndarray) else np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (name, g.dtype, w.dtype, g.shape, w.shape)
    if g.dtype.kind in "cf":  # NaN payloads aside: NaN where the other has NaN
        gv = g.view(g.real.dtype) if g.dtype.kind == "c" else g
        wv = w.view(w.real.dtype) if w.dtype.kind == "c" else w
        nan = np.isnan(gv)
        assert np.array_equal(nan, np.isnan(wv)), name
        assert np.array_equal(gv[~nan].view(np.uint8), wv[~nan].view(np.uint8)), name
    else:
        assert np.array_equal(g, w), name


UNARY = [n for n in _complex.SUPPORTED if n not in (
    "add", "subtract", "multiply", "divide", "equal", "not_equal", "cast", "where", "power",
    "less", "less_equal", "greater", "greater_equal", "maximum", "minimum", "fmax", "fmin",
    "float_power", "logical_and", "logical_or", "logical_xor")]
BINARY = ["add", "subtract", "multiply", "divide", "equal", "not_equal", "power", "less",
          "less_equal", "greater", "greater_equal", "maximum", "minimum", "fmax", "fmin",
          "float_power", "logical_and", "logical_or", "logical_xor"]


def _name(n):
    return {"conjugate": "conj"}.get(n, n)


@pytest.mark.parametrize("dt", [C64, C128])
@pytest.mark.parametrize("name", UNARY)
def test_unary_ufuncs_give_the_eager_bits(dt, name):
    """Every complex unary ufunc inside vp.jit: the bits of the eager call
    (special values included), in one kernel."""
    z = vp.asarray(special(dt))
    f = getattr(vp, _name(name))
    j = vp.jit(lambda a: f(a))
    same_bits(j(z), f(z), name)
    assert j.dispatches == 1, (name, j.dispatches)


@pytest.mark.parametrize("dt", [C64, C128])
@pytest.mark.parametrize("name", BINARY)
def test_binary_ufuncs_give_the_eager_bits(dt, name):
    a = special(dt)
    b = np.roll(a, 7)[::-1].copy()
    b[::5] = 2.0  # (an integer exponent for power: its multiply path)
    x, y = vp.asarray(a), vp.asarray(b)
    f = getattr(vp, name)
    same_bits(vp.jit(lambda p, q: f(p, q))(x, y), f(x, y), name)


def test_expressions_match_numpy_and_fuse():
    z, w = crand(64, C64, 1), crand(64, C64, 2)
    x = np.random.default_rng(3).standard_normal(64).astype(np.float32)
    zv, wv, xv = vp.asarray(z), vp.asarray(w), vp.asarray(x)
    cases = [
        (lambda a, b, c: a * b + c, lambda a, b, c: a * b + c),
        (lambda a, b, c: (a - 1j) / (b + c), lambda a, b, c: (a - 1j) / (b + c)),
        (lambda a, b, c: vp.exp(a * 1j) * c + abs(b), lambda a, b, c: np.exp(a * 1j) * c + abs(b)),
        (lambda a, b, c: a.conj() * b - a.real + 2 * c * 1j,
         lambda a, b, c: a.conj() * b - a.real + 2 * c * 1j),
        (lambda a, b, c: vp.where(c > 0, a, b * 2), lambda a, b, c: np.where(c > 0, a, b * 2)),
    ]
    for k, (f, ref) in enumerate(cases):
        j = vp.jit(f)
        got = j(zv, wv, xv)
        want = ref(z, w, x)
        assert got.dtype == want.dtype, k
        np.testing.assert_allclose(got.numpy(), want, rtol=3e-6, atol=1e-6, err_msg=str(k))
        assert j.dispatches == 1, (k, j.dispatches)


def test_real_results_and_several_results():
    z = crand(32, C128, 4)
    zv = vp.asarray(z)
    r = vp.jit(lambda a: (abs(a), a.real, a.imag * 2, vp.angle(a), a == a.conj(), a * 2))(zv)
    want = (np.abs(z), z.real, z.imag * 2, np.angle(z), z == z.conj(), z * 2)
    for k, (g, w) in enumerate(zip(r, want)):
        assert g.dtype == w.dtype, k
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-14, err_msg=str(k))


@pytest.mark.parametrize("other, kind", [
    (np.float32(0.5), "np32"), (np.float64(0.5), "np64"), (2.5, "weak float"), (3, "weak int"),
    (np.complex64(2 - 1j), "npc64"), (np.complex128(2 - 1j), "npc128"), (1.5 - 2j, "python"),
    (np.arange(8, dtype=np.int16), "int16"), (np.arange(8) % 2 == 0, "bool"),
    (np.linspace(0, 1, 8, dtype=np.float64), "f64")])
def test_promotion_with_every_operand_kind(other, kind):
    """NumPy's dtypes (NEP 50: Python scalars are weak) and values, with the
    other operand an argument of each kind."""
    z = crand(8, C64, 5)
    zv = vp.asarray(z)
    o = vp.asarray(other) if isinstance(other, np.ndarray) else other
    for f in (lambda a, b: a * b, lambda a, b: b - a, lambda a, b: a / (b + 1)):
        got = vp.jit(f)(zv, o)
        want = f(z, other)
        assert got.dtype == want.dtype, (kind, got.dtype, want.dtype)
        np.testing.assert_allclose(got.numpy(), want, rtol=2e-6, atol=1e-6, err_msg=kind)


def test_scalar_arguments_are_push_constants():
    """A NumPy complex scalar is an argument of the trace (its parts pushed
    at each call), not a constant of it."""
    zv = vp.asarray(crand(8, C64, 6))
    j = vp.jit(lambda a, s: a * s)
    for s in (np.complex64(1 + 2j), np.complex64(-3 + 0.5j)):
        np.testing.assert_allclose(j(zv, s).numpy(), zv.numpy() * s, rtol=2e-6)
    assert len(j._cache) == 1


def test_numpy_arguments_give_numpy_results():
    z, w = crand((3, 4), C128, 7), crand((3, 4), C128, 8)
    got = vp.jit(lambda a, b: a * b - 1j)(z, w)
    assert isinstance(got, np.ndarray) and got.dtype == C128
    np.testing.assert_allclose(got, z * w - 1j, rtol=1e-14)
    # a host complex argument with a resident real one: a resident result
    x = vp.asarray(np.ones((3, 4), np.float64))
    r = vp.jit(lambda a, b: a + b)(z, x)
    assert isinstance(r, vp.ndarray)
    np.testing.assert_allclose(r.numpy(), z + 1, rtol=1e-14)


def test_views_in_and_out():
    """Strided and offset complex views as arguments and as out=, a
    transposed one too; elements outside the out= view stay."""
    base = crand((6, 8), C64, 9)
    bv = vp.asarray(base)
    for key in ((slice(1, None, 2), slice(None, None, 3)), (slice(None), slice(5, 1, -1)),
                (2, slice(None))):
        got = vp.jit(lambda a: a * (1 + 1j) + a.conj())(bv[key])
        np.testing.assert_allclose(got.numpy(), base[key] * (1 + 1j) + base[key].conj(),
                                   rtol=2e-6, err_msg=str(key))
    got = vp.jit(lambda a: a.T * 2)(bv)
    np.testing.assert_allclose(got.numpy(), base.T * 2, rtol=2e-6)
    dst = vp.zeros((6, 8), C64)
    vp.jit(lambda a: a - 1j)(bv[::2, 1:4], out=dst[1::2, 2:5])
    want = np.zeros((6, 8), C64)
    want[1::2, 2:5] = base[::2, 1:4] - 1j
    np.testing.assert_array_equal(dst.numpy(), want)


def test_in_place_and_overlapping_out():
    """out= the argument itself, and out= overlapping it shifted (NumPy's
    rule: the argument is read as it was)."""
    z = crand(16, C64, 10)
    zv = vp.asarray(z)
    vp.jit(lambda a: a * a + 1)(zv, out=zv)
    np.testing.assert_allclose(zv.numpy(), z * z + 1, rtol=3e-6)
    v = vp.asarray(z)
    vp.jit(lambda a: a * 2j)(v[:-1], out=v[1:])
    want = z.copy()
    want[1:] = z[:-1] * 2j
    np.testing.assert_allclose(v.numpy(), want, rtol=2e-6)
    o = vp.empty(16, C128)  # a wider out=: same_kind
    vp.jit(lambda a: a + 1)(vp.asarray(z), out=o)
    np.testing.assert_allclose(o.numpy(), z.astype(C128) + 1, rtol=1e-7)


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
def test_reductions(axis):
    z = crand((5, 7), C128, 11)
    zv = vp.asarray(z)
    got = vp.jit(lambda a: (a.sum(axis), vp.mean(a * 2, axis=axis, keepdims=True),
                            (a - a).any(axis), vp.all(a, axis)))(zv)
    want = (z.sum(axis), np.mean(z * 2, axis=axis, keepdims=True), (z - z).any(axis),
            np.all(z, axis))
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == np.asarray(w).dtype and g.shape == np.shape(w), k
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-13, err_msg=str(k))
    c = vp.jit(lambda a: vp.cumsum(a[1]) * 1j)(zv)
    np.testing.assert_allclose(c.numpy(), np.cumsum(z[1]) * 1j, rtol=1e-13)


def test_shape_operations_and_like():
    z = crand((4, 6), C64, 12)
    zv = vp.asarray(z)
    f = (lambda a: (vp.reshape(a, (6, 4)), a.ravel()[::3], vp.transpose(a), a[None, 1],
                    vp.expand_dims(a, 0), vp.swapaxes(a, 0, 1), vp.broadcast_to(a[0], (2, 6)),
                    vp.zeros_like(a), vp.full_like(a, 2 - 1j), vp.ones_like(a, dtype=np.float32),
                    vp.round(a * 10), a.astype(C128), a.astype(bool)))
    want = (np.reshape(z, (6, 4)), z.ravel()[::3], z.T, z[None, 1], z[None], z.swapaxes(0, 1),
            np.broadcast_to(z[0], (2, 6)), np.zeros_like(z), np.full_like(z, 2 - 1j),
            np.ones_like(z, dtype=np.float32), np.round(z * 10), z.astype(C128), z.astype(bool))
    for k, (g, w) in enumerate(zip(vp.jit(f)(zv), want)):
        assert g.dtype == w.dtype and g.shape == w.shape, (k, g.dtype, w.dtype, g.shape)
        np.testing.assert_allclose(g.numpy(), w, rtol=2e-6, err_msg=str(k))


def test_like_functions_of_real_tracers():
    """Bug: vp.zeros_like / ones_like / full_like / empty_like of a traced
    array raised TypeError: 'NoneType' object is not callable."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    xv = vp.asarray(x)
    got = vp.jit(lambda a: (vp.zeros_like(a) + a, vp.ones_like(a, dtype=np.int16),
                            vp.full_like(a, -0.0) * a, vp.empty_like(a, shape=(4,)),
                            vp.full_like(a, [1, 2, 3]) * a))(xv)
    want = (np.zeros_like(x) + x, np.ones_like(x, dtype=np.int16), np.full_like(x, -0.0) * x,
            np.zeros(4, np.float32), np.full_like(x, [1, 2, 3]) * x)
    for k, (g, w) in enumerate(zip(got, want)):
        same_bits(g, w, str(k))
    with pytest.raises(TypeError, match="memory= and context="):
        vp.jit(lambda a: vp.zeros_like(a, memory="host"))(xv)


@pytest.mark.parametrize("f, what", [
    (lambda a: vp.floor(a), "vp.floor: complex64"),
    (lambda a: a.prod(), "vp.prod of a traced complex64"),
    (lambda a: vp.max(a), "vp.max of a traced complex64"),
    (lambda a: a.astype(np.float32), "would drop the imaginary part"),
    (lambda a: vp.tile(a, 2), "tile of a traced complex64"),
    (lambda a: a @ a, r"matmul \(@\) of traced complex"),
    (lambda a: vp.fft.fft(a), "needs the values of a traced complex array"),
    (lambda a: a if a else a, r"bool\(\) of a traced complex array"),
])
def test_unsupported_is_a_type_error_naming_it(f, what):
    zv = vp.asarray(crand(8, C64, 13))
    with pytest.raises(TypeError, match=what):
        vp.jit(f)(zv)


def test_complex_into_real_out_is_refused():
    zv = vp.asarray(crand(8, C64, 14))
    with pytest.raises(TypeError, match="cannot store a complex64 result into out= of dtype "
                                        "float32"):
        vp.jit(lambda a: a * 2)(zv, out=vp.empty(8, np.float32))


def test_numpy_asarray_of_a_tracer_names_the_problem():
    """What needs a traced array's values (np.asarray of it) says so instead
    of TypeError: 'NoneType' object is not callable."""
    xv = vp.asarray(np.arange(8, dtype=np.float32))
    with pytest.raises(TypeError, match="needs the values of a traced array"):
        vp.jit(lambda a: np.asarray(a) + 1)(xv)


def test_python_complex_arguments_are_weak_push_constants():
    """A Python complex argument is weak (NEP 50: complex64 * 2j stays
    complex64) and pushed at each call: new values are no new trace."""
    z = crand(8, C64, 15)
    x = np.arange(8, dtype=np.float32)
    zv, xv = vp.asarray(z), vp.asarray(x)
    f = vp.jit(lambda a, c: a * c + c.real)
    for c in (2j, 1 - 1j, 3.5 + 0j):
        got = f(zv, c)
        want = z * c + c.real
        assert got.dtype == want.dtype == C64
        np.testing.assert_allclose(got.numpy(), want, rtol=2e-6)
    assert len(f._cache) == 1
    g = vp.jit(lambda c, a: c * 2 + a * c.imag)  # Python's arithmetic of c stays weak
    got, want = g(1 + 3j, xv), (1 + 3j) * 2 + x * (1 + 3j).imag
    assert got.dtype == want.dtype == C64
    np.testing.assert_allclose(got.numpy(), want, rtol=2e-6)


def test_real_result_into_complex_out():
    """A real result stored into a complex out= (same_kind, as NumPy): its
    real part, imaginary 0. It was TypeError: dtype complex64 is not
    supported on the GPU."""
    x = np.arange(6, dtype=np.float32)
    z = vp.full(6, 5 + 5j, C64)
    vp.jit(lambda a: a * 2)(vp.asarray(x), out=z)
    np.testing.assert_array_equal(z.numpy(), (x * 2).astype(C64))
    w = vp.full(12, 5 + 5j, C128)
    vp.jit(lambda a: a > 1)(vp.asarray(x), out=w[::2])
    want = np.full(12, 5 + 5j, C128)
    want[::2] = x > 1
    np.testing.assert_array_equal(w.numpy(), want)
