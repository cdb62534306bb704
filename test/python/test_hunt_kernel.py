"""A hunt for silent wrong answers (and internal errors) in the kernel
language's integer and mixed-type arithmetic, differentially against NumPy
and CPython with the semantics docs/language.md states: small kernels
o[i] = a[i] OP b[i] over every scalar type, at edge values (0, -1, MIN, MAX,
shift counts past the width, zero divisors, NaN, halves), and vp.jit on the
same expressions.

Each test named after a bug fails on the code before its fix."""
import math
import re
import types
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import vulpy as vp

from conftest import needs_target

pytestmark = [pytest.mark.usefixtures("ctx"), needs_target]

SETTINGS = settings(max_examples=10, deadline=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
SMALL = [np.int8, np.int16, np.uint8, np.uint16]
FLOATS = [np.float16, np.float32, np.float64]


def _want(f, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray(f(*args))


def _same(got, want, what=""):
    """NumPy's dtype and values, NaN where NaN (zero signs not compared)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (what, got.dtype, want.dtype)
    bad = got != want
    if want.dtype.kind == "f":
        bad &= ~(np.isnan(got) & np.isnan(want))
    assert not bad.any(), (what, [(i, got[i], want[i]) for i in np.argwhere(bad)[:6, 0]])


def _edges(dt):
    """0, 1, -1, MIN, MAX and their neighbours, the width and around it."""
    if np.dtype(dt).kind == "f":
        return np.array([0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 1.0, -1.0, 3.0, 7.0, -7.0,
                         np.inf, -np.inf, np.nan, 100.0, 1e-3], dt)
    ii = np.iinfo(dt)
    v = {0, 1, 2, 3, 7, 100, ii.max, ii.max - 1, ii.min, ii.min + 1, ii.bits - 1, ii.bits, ii.bits + 1}
    if ii.min < 0:
        v |= {-1, -2, -3, -7, -ii.bits}
    return np.array(sorted(v), dt)


def _pairs(dt):
    v = _edges(dt)
    return np.repeat(v, len(v)), np.tile(v, len(v))


def _run(k, *args, out_dtype=None):
    o = np.zeros(len(args[0]), out_dtype or args[0].dtype)
    k(*args, o, dispatch=len(args[0]))
    return o


# ----------------------------------------------------------------- kernels
# Generic buffers: one kernel, compiled once per element type.

@vp.kernel
def k_min(a: vp.Buffer, b: vp.Buffer, o: vp.Buffer):
    i = vp.global_id()
    o[i] = min(a[i], b[i])


@vp.kernel
def k_max(a: vp.Buffer, b: vp.Buffer, o: vp.Buffer):
    i = vp.global_id()
    o[i] = max(a[i], b[i])


@vp.kernel
def k_abs(a: vp.Buffer, o: vp.Buffer):
    i = vp.global_id()
    o[i] = abs(a[i])


@vp.kernel
def k_sign(a: vp.Buffer, o: vp.Buffer):
    i = vp.global_id()
    o[i] = vp.sign(a[i])


@vp.kernel
def k_floor(a: vp.Buffer, o: vp.Buffer):
    i = vp.global_id()
    o[i] = vp.floor(a[i])


@vp.kernel
def k_trunc(a: vp.Buffer, o: vp.Buffer):
    i = vp.global_id()
    o[i] = vp.trunc(a[i])


@vp.kernel
def k_round(a: vp.Buffer, o: vp.Buffer):
    i = vp.global_id()
    o[i] = vp.round(a[i])


@vp.kernel
def k_sqrt(a: vp.Buffer, o: vp.Buffer):
    i = vp.global_id()
    o[i] = vp.sqrt(a[i])


@vp.kernel
def k_sin(a: vp.Buffer, o: vp.Buffer):
    i = vp.global_id()
    o[i] = vp.sin(a[i])


# ------------------------------------------------- small types: built-ins

@pytest.mark.parametrize("dt", SMALL + [np.float16])
@pytest.mark.parametrize("name", ["min", "max"])
def test_small_type_min_max(dt, name):
    """Bug: min(a[i], b[i]) and max(...) on int8/int16/uint8/uint16/float16
    buffers raised CompileError "internal error: SPIR-V validation failed
    (a VulPy bug): Invalid use of 8- or 16-bit result" (glslang declares no
    Int16/Float16 capability for a GLSL.std.450 call); NumPy's minimum and
    maximum answer."""
    a, b = _pairs(dt)
    if np.dtype(dt).kind == "f":  # NaN operands are GLSL's (docs/language.md)
        keep = ~np.isnan(a) & ~np.isnan(b)
        a, b = a[keep], b[keep]
    k, f = (k_min, np.minimum) if name == "min" else (k_max, np.maximum)
    _same(_run(k, a, b), _want(f, a, b), (name, dt))


@pytest.mark.parametrize("dt", [np.int8, np.int16])
@pytest.mark.parametrize("name", ["abs", "sign"])
def test_small_int_abs_sign(dt, name):
    """Bug: abs(a[i]) and vp.sign(a[i]) on int8/int16 raised the same
    internal SPIR-V validation error; NumPy: abs(-128) == -128 (wraps),
    sign(-7) == -1."""
    v = _edges(dt)
    k, f = (k_abs, np.abs) if name == "abs" else (k_sign, np.sign)
    _same(_run(k, v), _want(f, v), (name, dt))


@pytest.mark.parametrize("name", ["abs", "floor", "trunc", "round", "sqrt", "sign"])
def test_float16_builtins(name):
    """Bug: abs, floor, trunc, vp.round, sqrt, sign of a float16 value raised
    the internal SPIR-V validation error; NumPy's float16 answer (rint for
    vp.round, half to even; sign(nan) is nan)."""
    v = _edges(np.float16)
    if name == "sqrt":
        v = v[~(v < 0)]
    k = {"abs": k_abs, "floor": k_floor, "trunc": k_trunc, "round": k_round, "sqrt": k_sqrt,
         "sign": k_sign}[name]
    f = {"round": np.rint}.get(name, getattr(np, name))
    _same(_run(k, v), _want(f, v), name)


def test_float16_sin():
    """Bug: vp.sin of a float16 value raised the internal SPIR-V validation
    error. Within one float16 ulp of sin computed in float32 and rounded
    once. (That was NumPy's float16 sin until NumPy's AVX512_SPR loop: on
    such a CPU np.sin(float16(4.375)) is 1 ulp off it, -0.943 against
    -0.944, and VulPy's -0.944 was 2 ulp from NumPy's.)"""
    v = np.linspace(-6, 6, 97).astype(np.float16)
    got, want = _run(k_sin, v), np.sin(v.astype(np.float32)).astype(np.float16)
    assert got.dtype == np.float16
    np.testing.assert_array_max_ulp(got, want, maxulp=1)


@pytest.mark.parametrize("dt", FLOATS)
def test_float_sign_nan(dt):
    """Bug: vp.sign(x) of a float64 NaN was 0.0 (lavapipe's sign(double));
    NumPy's sign(nan) is nan, as the float32 kernel already gave."""
    v = _edges(dt)
    _same(_run(k_sign, v), _want(np.sign, v), dt)


# ------------------------------------------------- integer // % << >> and compares

@vp.kernel
def k_floordiv(a: vp.Buffer, b: vp.Buffer, o: vp.Buffer):
    i = vp.global_id()
    o[i] = a[i] // b[i]


@vp.kernel
def k_mod(a: vp.Buffer, b: vp.Buffer, o: vp.Buffer):
    i = vp.global_id()
    o[i] = a[i] % b[i]


@vp.kernel
def k_shl(a: vp.Buffer, b: vp.Buffer, o: vp.Buffer):
    i = vp.global_id()
    o[i] = a[i] << b[i]


@vp.kernel
def k_shr(a: vp.Buffer, b: vp.Buffer, o: vp.Buffer):
    i = vp.global_id()
    o[i] = a[i] >> b[i]


@vp.kernel
def k_cmp(a: vp.Buffer, b: vp.Buffer, o: vp.Buffer[vp.uint32]):
    i = vp.global_id()
    x = a[i]
    y = b[i]
    o[i] = (vp.uint32(x < y) | vp.uint32(x <= y) << 1 | vp.uint32(x == y) << 2
            | vp.uint32(x > y) << 3 | vp.uint32(x >= y) << 4 | vp.uint32(x != y) << 5)


def _cmp_bits(a, b):
    bits = [a < b, a <= b, a == b, a > b, a >= b, a != b]
    return sum(x.astype(np.uint32) << k for k, x in enumerate(bits)).astype(np.uint32)


@pytest.mark.parametrize("dt", INTS)
@pytest.mark.parametrize("name", ["floor_divide", "remainder"])
def test_int_floordiv_mod_by_zero(dt, name):
    """Bug: an integer // or % by zero gave garbage: int32 -7 // 0 was -1 and
    -7 % 0 was -7, uint32 5 // 0 and 5 % 0 were 4294967295 (C leaves it
    undefined; lavapipe's all ones). NumPy (and the array level) give 0, and
    docs/language.md now says so. The other pairs check Python's floor and
    sign of the divisor at MIN, MAX and -1 (MIN // -1 wraps to MIN)."""
    a, b = _pairs(dt)
    k = k_floordiv if name == "floor_divide" else k_mod
    _same(_run(k, a, b), _want(getattr(np, name), a, b), (name, dt))


@pytest.mark.parametrize("dt", INTS)
def test_int_shifts_past_width(dt):
    """Shift counts of the width and more, and negative ones, give NumPy's
    answer (0, or -1 for a negative value shifted right)."""
    a, b = _pairs(dt)
    _same(_run(k_shl, a, b), _want(np.left_shift, a, b), ("<<", dt))
    _same(_run(k_shr, a, b), _want(np.right_shift, a, b), (">>", dt))


@pytest.mark.parametrize("dt", INTS + FLOATS)
def test_compares_edges(dt):
    """All six comparisons at MIN, MAX, -1, 0 (64-bit: the sign bit, which
    Mesa 22.3 read as unsigned for int64 made from int32) and NaN."""
    a, b = _pairs(dt)
    _same(_run(k_cmp, a, b, out_dtype=np.uint32), _cmp_bits(a, b), dt)


@pytest.mark.parametrize("dt", INTS)
@SETTINGS
@given(data=st.data())
def test_int_ops_hypothesis(dt, data):
    """Random pairs (zero divisors and wide shift counts included)."""
    ii = np.iinfo(dt)
    ints = st.integers(int(ii.min), int(ii.max))
    a = np.array(data.draw(st.lists(ints, min_size=1, max_size=40)), dt)
    b = np.array(data.draw(st.lists(st.one_of(ints, st.integers(0, ii.bits + 2)),
                                    min_size=len(a), max_size=len(a))), dt)
    for k, f in [(k_floordiv, np.floor_divide), (k_mod, np.remainder), (k_shl, np.left_shift),
                 (k_shr, np.right_shift)]:
        _same(_run(k, a, b), _want(f, a, b), (f.__name__, dt))
    _same(_run(k_cmp, a, b, out_dtype=np.uint32), _cmp_bits(a, b), ("cmp", dt))


# ------------------------------------------------------------- control flow

@vp.kernel
def k_range_wraps(a: vp.Buffer[vp.int32]):
    i = vp.global_id()
    for j in range(2147483640, 2147483647, 2):
        a[i] ^= j


@vp.kernel
def k_range_near_max(a: vp.Buffer[vp.int32]):
    i = vp.global_id()
    for j in range(2147483641, 2147483647, 2):
        a[i] ^= j
    for j in range(-2147483642, -2147483648, -3):
        a[i] += j


def test_range_wrapping_stop_is_an_error():
    """Bug: for j in range(2147483640, 2147483647, 2) ran on after its last
    value 2147483646 (j += 2 wrapped to a negative number, still < stop) until
    lavapipe's loop cut-off, and stored garbage: -2147352586 for a[i] = 0,
    where Python's loop (the XOR of 2147483640, ...42, ...44, ...46) gives 0.
    Now a CompileError naming the stop and the step."""
    with pytest.raises(vp.CompileError, match="range\\(\\) stop 2147483647 with step 2 wraps"):
        k_range_wraps(np.zeros(4, np.int32), dispatch=4)


def test_range_near_max_stops():
    """Loops whose last step lands exactly on the type's end stop in time."""
    a = np.arange(-3, 5, dtype=np.int32)
    want = a.astype(np.int64)
    for j in range(2147483641, 2147483647, 2):
        want ^= j
    want += sum(range(-2147483642, -2147483648, -3))
    want = want.astype(np.int32)  # int32 wrap-around of the sum, as the kernel
    k_range_near_max(a, dispatch=len(a))
    _same(a, want)


@vp.kernel
def k_control(a: vp.Buffer[vp.int32], o: vp.Buffer[vp.int32]):
    i = vp.global_id()
    n = a[i]
    s = vp.var(0)
    for j in range(n, -10, -3):
        s += j
    k = vp.var(0)
    while True:
        k += 1
        if k % 3 == 0:
            continue
        if k > n + 5:
            break
        s += k
    h = vp.Local[vp.int32, 4]
    for j in range(8):
        h[j % 4] += j * n
    o[i] += (s if n > 0 else (-s if n < -3 else s * 2)) - h[n % 4]
    if n == 7:
        return
    o[i] -= n // -4


def _control(n, o):
    s = sum(range(n, -10, -3))
    k = 0
    while True:
        k += 1
        if k % 3 == 0:
            continue
        if k > n + 5:
            break
        s += k
    h = [0] * 4
    for j in range(8):
        h[j % 4] += j * n
    o += (s if n > 0 else (-s if n < -3 else s * 2)) - h[n % 4]
    return o if n == 7 else o - n // -4


def test_control_flow():
    """while True/break/continue, range with a negative step, nested
    ternaries, a private array with a negative-number index (n % 4 is
    Python's), o[i] += ..., an early return: Python's answers."""
    a = np.arange(-12, 13, dtype=np.int32)
    o = np.arange(len(a), dtype=np.int32) * 7
    want = np.array([_control(int(n), int(x)) for n, x in zip(a, o)], np.int32)
    k_control(a, o, dispatch=len(a))
    _same(o, want)


@vp.kernel
def k_wide_index(a: vp.Buffer[vp.float32], o: vp.Buffer[vp.float32], n: vp.int64, m: vp.int16):
    i: vp.uint64 = vp.uint64(vp.global_id())
    j: vp.int16 = vp.int16(vp.global_id())
    o[i] = a[i] + a[n] + a[m] * 10.0 + a[j] * 100.0


def test_buffer_index_of_64_and_16_bits():
    """Bug: a buffer indexed by a uint64 local or an int64/int16 push
    constant gave "internal error: the generated GLSL does not compile (a
    VulPy bug): '[]' : scalar integer expression required" (GLSL indexes
    with 32-bit integers; found by fuzz_translate)."""
    a = np.arange(8, dtype=np.float32)
    o = vp.zeros(8, np.float32)
    k_wide_index(vp.asarray(a), o, n=5, m=2, dispatch=8)
    np.testing.assert_array_equal(o.numpy(), a + a[5] + a[2] * 10 + a * 100)


@vp.kernel
def k_literal_calls(h: vp.Buffer[vp.float16], w: vp.Buffer[vp.int8]):
    i = vp.global_id()
    h[i] = h[i] * max(1.5, 2.0) - abs(-0.25)
    w[i] = w[i] * max(3, 2.5) + min(-1, 4)


def test_abs_min_max_of_literals_adapt_like_literals():
    """`h[i] * max(1.5, 2.0)` with a float16 buffer was an f32 product and
    its store a compile error ('f32 does not fit f16 without narrowing'),
    though `h[i] * (1.5 + 0.5)` compiled: abs/min/max of literals now fold
    to a literal (Python's value: max(3, 2.5) is the int 3), which adapts."""
    h = np.array([1.0, -2.5, 0.125, 60000.0], np.float16)
    w = np.array([1, -7, 42, 100], np.int8)
    hv, wv = vp.asarray(h), vp.asarray(w)
    k_literal_calls(hv, wv, dispatch=4)
    _same(hv.numpy(), _want(lambda: h * np.float16(2.0) - np.float16(0.25)))  # 60000 -> inf
    _same(wv.numpy(), _want(lambda: w * np.int8(3) + np.int8(-1)))


@vp.kernel
def k_literal_choice(h: vp.Buffer[vp.float16], w: vp.Buffer[vp.int8]):
    i = vp.global_id()
    x = h[i]
    h[i] = x * (2.0 if x < 0.0 else 0.5) - (0.1 if x > 1.0 else -0.1)
    w[i] = 100 if x > 0.0 else -100


def test_conditional_choice_of_literals_adapts():
    """`o[i] = 5.0 if c else 3.0` with a float16 o, and `x * (2.0 if c
    else 0.5)` with a float16 x, were compile errors (the choice was an f32
    select); the choice of two literals now takes the type it meets, each
    literal rounded once to it (0.1 as float16, not through float32)."""
    h = np.array([-3.0, 0.25, 2.0, 7.5], np.float16)
    hv, wv = vp.asarray(h), vp.zeros(4, np.int8)
    k_literal_choice(hv, wv, dispatch=4)
    f16 = np.float16
    want = h * np.where(h < 0, f16(2.0), f16(0.5)) - np.where(h > 1, f16(0.1), f16(-0.1))
    _same(hv.numpy(), want)
    _same(wv.numpy(), np.where(h > 0, 100, -100).astype(np.int8))


def _kept(*inputs):
    """The elements to compare with NumPy: all, but where the device flushes
    float32 subnormals (NVIDIA; README, "float32 subnormals in plain
    arithmetic follow the device") not those with a subnormal float32
    input, whose result is the device's: an instruction reads it as 0,
    while an identity the driver folds away (x + -0.0, x - 0.0) keeps it
    (both seen on an H100)."""
    keep = np.ones(np.shape(inputs[0]), bool)
    if vp.default_context().flushes_subnormals:
        for a in inputs:
            a = np.asarray(a)
            if a.dtype == np.float32:
                keep &= ~((a != 0) & (np.abs(a) < np.finfo(np.float32).tiny))
    return keep


_ZERO_EXPRS = ["x / 0.0", "x / -0.0", "x * 0.0", "0.0 * x", "x * -0.0", "x + 0.0", "x - -0.0",
               "0.0 - x", "-0.0 - x", "x + -0.0", "x - 0.0", "0.0 / x", "-0.0 / x", "x % 0.0",
               "x // 0.0", "x / vp.float32(0)", "x / vp.float32(False)", "x * Z", "-(0.0 - x)",
               "0.0 % x", "-0.0 % x", "0.0 // x", "-0.0 // x", "vp.fma(x, 0.0, 1.5)",
               "vp.fma(0.0, x, x)", "vp.fma(x, -0.0, -0.0)"]
# NumPy's side of the expressions (fma with a zero factor: the product is
# exact, so a * b + c)
_NP = types.SimpleNamespace(float32=np.float32, float64=np.float64, fma=lambda a, b, c: a * b + c)
Z = 0.0
_ZERO_SRC = "\n".join(
    ["import vulpy as vp", "Z = 0.0", ""] +
    [line for k, e in enumerate(_ZERO_EXPRS) for line in (
        "@vp.kernel",
        f"def z{k}(a: vp.Buffer[vp.float32], o: vp.Buffer[vp.float32], "
        f"d: vp.Buffer[vp.float64], p: vp.Buffer[vp.float64]):",
        "    i = vp.global_id()", "    x = a[i]", f"    o[i] = {e}", "    y = d[i]",
        "    p[i] = " + re.sub(r"\bx\b", "y", e).replace("vp.float32", "vp.float64"), "")])


@pytest.fixture(scope="module")
def zero_kernels(tmp_path_factory):
    import importlib.util
    path = tmp_path_factory.mktemp("zero") / "zero_kernels.py"
    path.write_text(_ZERO_SRC)
    spec = importlib.util.spec_from_file_location("zero_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("k", range(len(_ZERO_EXPRS)), ids=_ZERO_EXPRS)
def test_arithmetic_with_a_constant_zero_is_ieee(zero_kernels, k):
    """x / 0.0 gave 0 (NumPy: inf, nan, -inf), x * 0.0 gave 0 for inf and
    NaN, x + 0.0 kept -0.0, 0.0 - x gave -0.0 for +0.0, 0.0 / x gave 0 for 0
    and NaN, x % 0.0 gave x: llvmpipe's shortcuts for a constant +0.0
    operand (whatever the float controls say). The GLSL now spells these
    ops without a zero operand; NumPy's values and zero signs in float32 and
    float64."""
    expr = _ZERO_EXPRS[k]
    h = np.array([5.0, 0.0, -0.0, -7.0, np.inf, -np.inf, np.nan, 1e-40, 3e38], np.float32)
    for dt, f in ((np.float32, "o"), (np.float64, "p")):
        x = h.astype(dt)
        a, o = vp.asarray(h), vp.zeros(len(h), np.float32)
        d, p = vp.asarray(x if dt == np.float64 else h.astype(np.float64)), vp.zeros(len(h), np.float64)
        getattr(zero_kernels, f"z{k}")(a, o, d, p, dispatch=len(h))
        got = (o if f == "o" else p).numpy()
        with np.errstate(all="ignore"):
            want = np.asarray(eval(expr, {"x": x, "Z": dt(0.0), "vp": _NP}), dt)
        keep = _kept(x)
        got, want = got[keep], want[keep]
        nan = np.isnan(want)
        assert np.array_equal(np.isnan(got), nan), (expr, dt, got, want)
        assert np.array_equal(got[~nan], want[~nan]), (expr, dt, got, want)
        assert np.array_equal(np.signbit(got[~nan]), np.signbit(want[~nan])), (expr, dt, got, want)


def test_jit_division_by_a_folded_false():
    """vp.jit of x / isnan(i) with an integer i (isnan folds to False, the
    divisor to the constant 0.0) gave 0 on lavapipe; NumPy: inf / nan."""
    x = vp.asarray(np.array([5, 0, 7], np.uint64))
    i = vp.asarray(np.array([1, 2, 3], np.int8))
    got = vp.jit(lambda a, b: vp.divide(a, vp.isnan(b)))(x, i).numpy()
    with np.errstate(all="ignore"):
        want = np.divide(x.numpy(), np.isnan(i.numpy()))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64])
def test_jit_division_by_an_integer_that_is_zero(dt):
    """vp.jit of x / (i - i) (an integer NIR folds to 0, then a float
    division by a constant zero) gave 0 on lavapipe; complex too (found by a
    differential sweep of complex expressions). NumPy: inf, -inf, nan."""
    x = np.array([1.5, -2.0, 0.0, np.inf, -0.0], dt)
    i = np.array([3, -4, 5, 6, 7], np.int32)
    fs = (lambda a, b: a / (b - b), lambda a, b: a / ((b * 0) & b),
          lambda a, b: a / (b ^ b).astype(np.float64), lambda a, b: a % (b - b))
    for k, f in enumerate(fs):
        if np.dtype(dt).kind == "c" and k == 3:
            continue  # (no complex remainder)
        got = vp.jit(f)(vp.asarray(x), vp.asarray(i)).numpy()
        with np.errstate(all="ignore"):
            want = f(x, i)
        assert got.dtype == want.dtype, k
        np.testing.assert_array_equal(got, want, err_msg=str(k))


@vp.kernel
def k_zero_vec(a: vp.Buffer[vp.vec4], o: vp.Buffer[vp.vec4], p: vp.Buffer[vp.vec4],
               q: vp.Buffer[vp.vec4], r: vp.Buffer[vp.vec4], s: vp.Buffer[vp.vec4]):
    i = vp.global_id()
    x = a[i]
    o[i] = x * 0.0
    p[i] = x + 0.0
    q[i] = 0.0 - x
    r[i] = x / 0.0
    s[i] = x * -0.0


def test_vector_arithmetic_with_a_constant_zero_is_ieee():
    """The vector forms of the constant-zero operands above (vec4 * 0.0
    gave all zeros on lavapipe): NumPy's values and zero signs."""
    h = np.array([[np.inf, -1.0, np.nan, 2.0], [-0.0, 0.0, -np.inf, 1e-40]], np.float32)
    a = vp.asarray(h)
    outs = [vp.zeros((2, 4), np.float32) for _ in range(5)]
    k_zero_vec(a, *outs, dispatch=2)
    with np.errstate(all="ignore"):
        wants = [h * np.float32(0.0), h + np.float32(0.0), np.float32(0.0) - h,
                 h / np.float32(0.0), h * np.float32(-0.0)]
    keep = _kept(h)
    for got, want in zip(outs, wants):
        got, want = got.numpy()[keep], want[keep]
        nan = np.isnan(want)
        assert np.array_equal(np.isnan(got), nan), (got, want)
        assert np.array_equal(got[~nan], want[~nan]) and \
            np.array_equal(np.signbit(got[~nan]), np.signbit(want[~nan])), (got, want)



@vp.kernel
def k_hypot_fmod(a: vp.Buffer[vp.float32], b: vp.Buffer[vp.float32], h: vp.Buffer[vp.float32],
                 f: vp.Buffer[vp.float32]):
    i = vp.global_id()
    h[i] = math.hypot(a[i], b[i])
    f[i] = math.fmod(a[i], b[i])


def test_math_hypot_and_fmod_edges():
    """math.hypot in a kernel was sqrt(x*x + y*y): inf for 3e38 and 1.0, 0
    for 1e-40 and 0 (C's hypot: 3e38, 1e-40), NaN for (inf, NaN) (C: inf);
    math.fmod's zero results had the sign +0.0 where C's has x's
    (fmod(-7.0, 1.0) is -0.0)."""
    x = np.array([3e38, 1e-40, np.inf, np.nan, -7.0, -0.0, 5.0, -2.5, 1e-45], np.float32)
    y = np.array([1.0, 0.0, np.nan, -np.inf, 1.0, 3e38, -np.inf, 0.5, 1e-45], np.float32)
    h, f = vp.zeros(len(x), np.float32), vp.zeros(len(x), np.float32)
    k_hypot_fmod(vp.asarray(x), vp.asarray(y), h, f, dispatch=len(x))
    with np.errstate(all="ignore"):
        want_h = np.array([math.hypot(p, q) for p, q in zip(x.tolist(), y.tolist())], np.float32)
        want_f = np.fmod(x, y)
    keep = _kept(x, y)
    want_h, want_f = want_h[keep], want_f[keep]
    np.testing.assert_allclose(h.numpy()[keep], want_h, rtol=2e-7)
    got_f = f.numpy()[keep]
    np.testing.assert_array_equal(got_f, want_f)
    num = ~np.isnan(want_f)  # (a NaN's sign bit is the device's)
    assert np.array_equal(np.signbit(got_f[num]), np.signbit(want_f[num])), (got_f, want_f)
