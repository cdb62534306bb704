"""A hunt for silent wrong answers in the eager elementwise path, the
operators and the reductions, called as a CuPy user would, differentially
against NumPy (hypothesis where it fits): special values (inf, NaN, -0.0,
subnormals, huge and tiny quotients), every dtype, views and aliased out=,
and vp.jit fusing the same expressions (it must equal the eager result).

Each test named after a bug fails on the code before its fix."""
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import vulpy as vp

from conftest import divides_correctly, needs_target

pytestmark = [pytest.mark.usefixtures("ctx"), needs_target]

SETTINGS = settings(max_examples=12, deadline=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))


def _np(x):
    return x.numpy() if isinstance(x, vp.ndarray) else np.asarray(x)


def _same(got, want, what="", ulps=0):
    """Bit-for-bit NumPy: dtype, shape, values, NaN where NaN, zero signs;
    with `ulps`, finite values within that many units in the last place."""
    got, want = _np(got), np.asarray(want)
    assert got.dtype == want.dtype, (what, got.dtype, want.dtype)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    if want.dtype.kind == "f":
        near = (got == want) & (np.signbit(got) == np.signbit(want))
        if ulps:
            with np.errstate(all="ignore"):
                near |= np.isfinite(want) & (np.abs(got.astype(np.float64) - want) <=
                                             ulps * np.spacing(np.abs(want)).astype(np.float64))
        bad = ~(near | (np.isnan(got) & np.isnan(want)))
        assert not bad.any(), (what, np.argwhere(bad)[:5].tolist(), got[bad][:5], want[bad][:5])
    else:
        np.testing.assert_array_equal(got, want, err_msg=str(what))


def _want(f, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args)


def _div_ulps():
    """0 where float division is correctly rounded: lavapipe's, and every
    device with a fused fma, where vp_divf refines the quotient (docs/math.md);
    2 on other drivers, which divide to ~2 ULP as Vulkan allows: a result
    built on a quotient may then be off by that much."""
    return 0 if divides_correctly(vp.default_context()) else 2


def _ftz(x):
    """x with float32 subnormals as +-0 where the device flushes them in
    arithmetic (NVIDIA; Context.flushes_subnormals, docs/math.md): NumPy's
    answer on the numbers such a device computes with."""
    x = np.array(x, copy=True)
    if x.dtype == np.float32 and vp.default_context().flushes_subnormals:
        sub = (x != 0) & (np.abs(x) < np.finfo(np.float32).tiny)
        x[sub] = np.copysign(np.float32(0), x[sub])
    return x


def _want_ftz(f, *args):
    """NumPy on flushed float32 inputs, its result flushed (see _ftz)."""
    return _ftz(np.asarray(_want(f, *[_ftz(a) for a in args])))


def _got_ftz(x):
    """A device result with float32 subnormals as +-0 where the device
    flushes them: a subnormal passed through without arithmetic (fmod(x,
    inf) is x) is the zero that flushed arithmetic on it would give."""
    return _ftz(_np(x))


# -------------------------------------------- float floor_divide / remainder

SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 1.5, -1.5, 3.0, -3.0, 2.5,
           1e30, -1e30, 1e-40, -1e-40, 1.5e-45, 3.4e38, 1e-30]
SPECIAL64 = SPECIAL + [1e300, -1e300, 5e-324, 1e-300, 2.0 ** 60 + 1]


def _float_pairs(dtype):
    vals = SPECIAL64 if dtype == np.float64 else SPECIAL
    v = np.array(vals, dtype)
    return np.repeat(v, len(v)), np.tile(v, len(v))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["floor_divide", "remainder", "fmod"])
def test_float_floordiv_mod_specials(dtype, name):
    """Bug: float // and % through the GLSL helpers gave NaN for an infinite
    divisor (NumPy: -1.5 // inf == -1, -1.5 % inf == inf), for a subnormal
    divisor (a / b overflowed: 2.5 % 1e-40), a huge quotient in float64
    (1e30 % 2.5 was -7e13, NumPy 1.0) and -0.0 for -1.5 // -3.0 (NumPy +0)."""
    a, b = _float_pairs(dtype)
    want = _want_ftz(getattr(np, name), a, b)
    _same(_got_ftz(getattr(vp, name)(vp.asarray(a), vp.asarray(b))), want, name,
          ulps=_div_ulps() if name == "floor_divide" else 0)


def _floats(dtype):
    w = 32 if dtype == np.float32 else 64
    return st.floats(width=w, allow_nan=True, allow_infinity=True, allow_subnormal=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@SETTINGS
@given(data=st.data())
def test_float_divmod_hypothesis(dtype, data):
    """floor_divide, remainder, fmod and divmod on random floats, through
    the ufunc, the operators and vp.jit: all bit-identical to NumPy."""
    n = data.draw(st.integers(1, 40))
    a = np.array(data.draw(st.lists(_floats(dtype), min_size=n, max_size=n)), dtype)
    b = np.array(data.draw(st.lists(_floats(dtype), min_size=n, max_size=n)), dtype)
    av, bv = vp.asarray(a), vp.asarray(b)
    u = _div_ulps()
    _same(_got_ftz(av // bv), _want_ftz(np.floor_divide, a, b), "//", ulps=u)
    _same(_got_ftz(av % bv), _want_ftz(np.remainder, a, b), "%")
    _same(_got_ftz(vp.fmod(av, bv)), _want_ftz(np.fmod, a, b), "fmod")
    q, r = vp.divmod(av, bv)
    _same(_got_ftz(q), _want_ftz(np.floor_divide, a, b), "divmod q", ulps=u)
    _same(_got_ftz(r), _want_ftz(np.remainder, a, b), "divmod r")
    _same(_got_ftz(vp.jit(lambda x, y: x // y)(av, bv)), _want_ftz(np.floor_divide, a, b), "jit //", ulps=u)
    _same(_got_ftz(vp.jit(lambda x, y: x % y)(av, bv)), _want_ftz(np.remainder, a, b), "jit %")


# ------------------------------------- int32 widened to int64 (lavapipe)

INT_MIXED = [(np.int32, np.int64), (np.int8, np.int64), (np.int16, np.int64),
             (np.int32, np.uint64), (np.int8, np.uint64), (np.uint64, np.int32)]


@pytest.mark.parametrize("d1,d2", INT_MIXED)
def test_int32_widened_to_int64_compares_and_floors(d1, d2):
    """Bug: an int32 value widened to int64 in a kernel compared with a
    constant as if zero-extended on lavapipe (Mesa 22.3: int64_t(-128) < 0l
    was false), so int32 // int64 rounded toward zero (-128 // 3 gave -42,
    NumPy -43), int32 % int64 and int8 < uint64 were wrong (-128 < 1 False).
    The GLSL now spells the widening from the two words (vp_sext64)."""
    def ints(dt, n, seed):
        ii = np.iinfo(dt)
        r = np.random.default_rng(seed).integers(max(ii.min, -300), min(ii.max, 300), n).astype(dt)
        r[:4] = [ii.min, ii.max, 0, 1] if ii.min < 0 else [0, ii.max, 1, 2]
        return r
    a, b = ints(d1, 64, 1), ints(d2, 64, 2)
    av, bv = vp.asarray(a), vp.asarray(b)
    for name in ["less", "less_equal", "greater", "greater_equal", "equal", "not_equal"]:
        _same(getattr(vp, name)(av, bv), getattr(np, name)(a, b), name)
        _same(getattr(vp, name)(bv, av), getattr(np, name)(b, a), name + " swapped")
    if np.result_type(d1, d2).kind in "iu":
        nz = np.where(b == 0, 3, b).astype(d2)
        _same(av // vp.asarray(nz), a // nz, "//")
        _same(av % vp.asarray(nz), a % nz, "%")
        _same(vp.jit(lambda x, y: x // y)(av, vp.asarray(nz)), a // nz, "jit //")
    # a NumPy scalar is strong (NEP 50): int32 // np.int64(3) is int64
    _same(av // np.int64(3), a // np.int64(3), "// np.int64")


def test_int32_to_int64_in_a_kernel():
    """The same widening in a @vp.kernel (vp.int64 of an int32 element)."""
    @vp.kernel
    def k(a: vp.Buffer[vp.int32], o: vp.Buffer[vp.int64]):
        i = vp.global_id()
        x = vp.int64(a[i])
        o[i] = x // 3 + (100 if x < 0 else 0)

    a = np.array([-128, 127, 0, 1, -7, -8, -9, -2147483648], np.int32)
    o = np.zeros(a.size, np.int64)
    k(a, o, dispatch=a.size)
    want = a.astype(np.int64) // 3 + np.where(a < 0, 100, 0)
    np.testing.assert_array_equal(o, want)


# ------------------------------------------------- shifts and divmod operators

@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.uint32, np.int64, np.uint64])
def test_shift_operators(dtype):
    """Bug: x << y and x >> y on resident arrays (and vp.jit tracers) were a
    TypeError; NumPy's operators are left_shift / right_shift."""
    ii = np.iinfo(dtype)
    a = np.array([ii.min, ii.max, 0, 1, 5, ii.max // 3], dtype)
    s = np.array([0, 1, ii.bits - 1, ii.bits, ii.bits + 3, 2], dtype)
    av, sv = vp.asarray(a), vp.asarray(s)
    _same(av << sv, a << s, "<<")
    _same(av >> sv, a >> s, ">>")
    _same(av << 2, a << 2, "<< 2")
    _same(3 >> sv, 3 >> s, "3 >>")
    x = av.copy()
    x <<= sv
    _same(x, a << s, "<<=")
    x = av.copy()
    x >>= 1
    _same(x, a >> 1, ">>= 1")
    _same(vp.jit(lambda p, q: (p << q) ^ (p >> q))(av, sv), (a << s) ^ (a >> s), "jit")


def test_divmod_operator():
    """Bug: divmod(x, y) on resident arrays was a TypeError."""
    a = np.array([-7.5, 7.5, -0.0, 3.0, np.inf], np.float32)
    b = np.array([2.0, -2.0, 3.0, np.inf, 2.0], np.float32)
    q, r = divmod(vp.asarray(a), vp.asarray(b))
    wq, wr = _want(divmod, a, b)
    _same(q, wq, "q")
    _same(r, wr, "r")
    q, r = divmod(7, vp.asarray(np.array([2, -3, 5], np.int32)))
    _same(q, 7 // np.array([2, -3, 5], np.int32), "rq")
    _same(r, 7 % np.array([2, -3, 5], np.int32), "rr")
    f = vp.jit(lambda x, y: divmod(x, y)[0] * 10 + divmod(x, y)[1])
    _same(f(vp.asarray(a), vp.asarray(b)), _want(lambda x, y: (x // y) * 10 + x % y, a, b), "jit")


# ------------------------------------------------------ dtype= and where=

@pytest.mark.parametrize("dt", [np.int8, np.uint8, np.int32, np.float32])
def test_ufunc_dtype_and_where(dt):
    """Bug: vp.add(a, b, dtype=...) and where= were a TypeError (NumPy's
    ufunc keywords), through vp.add, np.add on resident arrays and vp.jit."""
    rng = np.random.default_rng(3)
    a = rng.integers(0, 120, (3, 8)).astype(dt)
    b = rng.integers(0, 120, (3, 8)).astype(dt)
    av, bv = vp.asarray(a), vp.asarray(b)
    for odt in [np.int16, np.int64, np.float64]:
        if not np.can_cast(dt, odt, "same_kind"):
            continue
        _same(vp.add(av, bv, dtype=odt), np.add(a, b, dtype=odt), f"dtype={odt}")
        _same(np.multiply(av, bv, dtype=odt), np.multiply(a, b, dtype=odt), f"np dtype={odt}")
        _same(vp.jit(lambda x, y: vp.add(x, y, dtype=odt))(av, bv), np.add(a, b, dtype=odt), "jit")
    with pytest.raises(TypeError):
        vp.add(vp.asarray(a.astype(np.float32)), bv, dtype=np.int32)
    mask = rng.integers(0, 2, (3, 8)).astype(bool)
    o = np.full((3, 8), 7, dt)
    ov = vp.asarray(o)
    _same(vp.add(av, bv, out=ov, where=vp.asarray(mask)), np.add(a, b, out=o.copy(), where=mask), "where")
    ov = vp.asarray(o)
    _same(np.subtract(av, bv, out=ov, where=mask[0]), np.subtract(a, b, out=o.copy(), where=mask[0]),
          "np where row")
    ov = vp.asarray(o)
    vp.add(av, bv, out=ov, where=False)
    _same(ov, o, "where=False")
    # a strided out= view
    big = np.zeros((6, 16), dt)
    bigv = vp.asarray(big)
    vp.add(av, bv, out=bigv[::2, ::2], where=mask)
    np.add(a, b, out=big[::2, ::2], where=mask)
    _same(bigv, big, "where into a view")


# ---------------------------------------- vp.jit fuses what eager computes

def test_around_in_jit():
    """Bug: vp.around / vp.round inside vp.jit raised TypeError ('NoneType'
    object is not callable: np.asarray of a tracer)."""
    a = np.array([1.25, 2.5, -0.5, 3.5, -7.45, 0.0], np.float32)
    i = np.array([-15, 25, 35, 44, 7, 0], np.int32)
    _same(vp.jit(lambda x: vp.around(x))(vp.asarray(a)), np.around(a), "0")
    _same(vp.jit(lambda x: vp.around(x, 1) * 2)(vp.asarray(a)), np.around(a, 1) * 2, "1")
    _same(vp.jit(lambda x: vp.round(x, -1) + vp.around(x))(vp.asarray(i)),
          np.around(i, -1) + np.around(i), "int")


_BIN = ["add", "subtract", "multiply", "floor_divide", "remainder", "maximum", "minimum",
        "true_divide", "less", "equal", "fmax", "copysign", "fmod", "left_shift",
        "right_shift", "bitwise_xor", "logical_and", "power"]
_UN = ["negative", "absolute", "square", "sign", "floor", "rint", "invert", "logical_not",
       "isnan", "signbit", "fabs"]


def _expr(rng, depth):
    if depth == 0 or rng.random() < 0.25:
        return ("leaf", rng.randrange(3))
    if rng.random() < 0.65:
        return ("bin", rng.choice(_BIN), _expr(rng, depth - 1), _expr(rng, depth - 1))
    return ("un", rng.choice(_UN), _expr(rng, depth - 1))


def _eval(e, m, leaves):
    if e[0] == "leaf":
        return leaves[e[1]]
    if e[0] == "bin":
        return getattr(m, e[1])(_eval(e[2], m, leaves), _eval(e[3], m, leaves))
    return getattr(m, e[1])(_eval(e[2], m, leaves))


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.uint32, np.int64,
                                   np.float16, np.float32, np.float64, np.bool_])
@settings(max_examples=6, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2 ** 32 - 1))
def test_jit_equals_eager_equals_numpy(dtype, seed):
    """Random expressions of exact ufuncs (no transcendental functions) on
    two arrays of one dtype (a strided view among them) and a weak Python
    scalar: eager on resident arrays is bit-identical to NumPy, vp.jit's
    fused kernel to eager."""
    import random
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    shape = rng.choice([(7,), (3, 5), (2, 3, 4), (0,), ()])
    dt = np.dtype(dtype)

    def make():
        if dt == np.bool_:
            return nrng.integers(0, 2, shape).astype(dt)
        if dt.kind == "f":
            x = (nrng.standard_normal(shape) * 4).astype(dt)
            if x.size:
                x.flat[0] = rng.choice([0.0, -0.0, np.inf, np.nan, 2.5])
            return x
        ii = np.iinfo(dt)
        return nrng.integers(max(ii.min, -60), min(ii.max, 60), shape).astype(dt)

    base = make()
    # the second operand is a view: every other row of a taller array
    tall = np.stack([make(), make()], axis=0) if shape else np.stack([make()])
    b = tall[0] if shape else tall[0]
    scalar = True if dt == np.bool_ else rng.choice([2, -3, 7, 0.5] if dt.kind == "f" else [2, 3, 7])
    e = _expr(rng, 3)
    try:
        want = _want(lambda: _eval(e, np, [base, b, scalar]))
    except Exception:
        return  # NumPy refuses (integer ** negative, bool - bool, ...)
    want = np.asarray(want)
    if want.dtype.kind not in "fiub":
        return
    av, tv = vp.asarray(base), vp.asarray(tall)
    bv = tv[0]
    got = _eval(e, vp, [av, bv, scalar])
    if "power" in repr(e) and want.dtype.kind == "f":
        np.testing.assert_allclose(_np(got), want, rtol=1e-5, equal_nan=True, err_msg=repr(e))
    elif not ("power" in repr(e) and (want < 0).any()):  # integer ** negative: documented 0
        _same(got, want, repr(e), ulps=_div_ulps() if "divide" in repr(e) else 0)
    jitted = vp.jit(lambda x, y: _eval(e, vp, [x, y, scalar]))(av, bv)
    _same(jitted, got, "jit " + repr(e), ulps=_div_ulps() if "divide" in repr(e) else 0)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_jit_float_zero_constants(dtype):
    """Bug: a literal 0.0 in a vp.jit body let lavapipe fold like fast math
    (no SignedZeroInfNanPreserve): x * 0.0 gave 0 for NaN, inf and
    negatives (NumPy NaN, NaN, -0.0), 0.0 / x gave 0 (NumPy NaN for 0 and
    NaN), x + 0.0 kept -0.0, and x / 0.0 gave garbage (2.7e36 for 0.0).
    Eager scalars are push constants and were right; vp.jit reads a float
    zero constant from a buffer now."""
    x = np.array([0.0, 1.0, -2.0, np.nan, np.inf, -0.0, -np.inf, 3.5], dtype)
    xv = vp.asarray(x)
    for name, f in [("x*0", lambda a: a * 0.0), ("0/x", lambda a: 0.0 / a),
                    ("x/0", lambda a: a / 0.0), ("x/-0", lambda a: a / -0.0),
                    ("x+0", lambda a: a + 0.0), ("1/(x*0)", lambda a: 1.0 / (a * 0.0)),
                    ("x*int 0", lambda a: a * 0), ("np zero", lambda a: a * np.float32(0))]:
        want = _want(f, x)
        _same(f(xv), want, "eager " + name)
        _same(vp.jit(f)(xv), want, "jit " + name)


# ------------------------------------------------------------- reductions

def test_std_var_numpy_out_for_a_resident_input():
    """Bug: vp.std / vp.var of a resident array with a NumPy out= raised
    TypeError from inside (vp.sqrt: out= must be a resident vp.ndarray);
    the other reductions take a NumPy out= as docs/python-api.md says."""
    x = np.arange(24, dtype=np.int8).reshape(4, 6) - 9
    xv = vp.asarray(x)
    for f in ("std", "var"):
        o = np.empty(6, np.float64)
        r = getattr(vp, f)(xv, axis=0, out=o, ddof=1)
        assert r is o
        np.testing.assert_allclose(o, getattr(np, f)(x, axis=0, ddof=1), rtol=1e-12)


_RED_DTYPES = [np.int8, np.uint8, np.int16, np.int32, np.uint32, np.int64, np.float16,
               np.float32, np.float64, np.bool_]


@pytest.mark.parametrize("dtype", _RED_DTYPES)
@settings(max_examples=4, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 2 ** 32 - 1))
def test_reductions_hypothesis(dtype, seed):
    """sum/prod/min/max/argmin/argmax/any/all/cumsum/mean/ptp/count_nonzero
    over a random axis (keepdims, a reversed or strided view, NaN and ±0 in
    floats): NumPy's dtype (int8 sums in int64), exact for integers and
    extrema, within rounding for float sums."""
    import random
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    shape = rng.choice([(7,), (3, 5), (2, 3, 4), (1, 6)])
    if dt == np.bool_:
        full = nrng.integers(0, 2, (2,) + shape).astype(dt)
    elif dt.kind == "f":
        full = (nrng.standard_normal((2,) + shape) * 3).astype(dt)
        full.flat[rng.randrange(full.size)] = rng.choice([np.nan, -0.0, 0.0, np.inf])
    else:
        ii = np.iinfo(dt)
        full = nrng.integers(ii.min, ii.max, (2,) + shape, endpoint=True).astype(dt)
    view = rng.choice(["whole", "reversed", "strided"])
    fv = vp.asarray(full)
    if view == "whole":
        x, xv = full[0], fv[0]
    elif view == "reversed":
        x, xv = full[1][..., ::-1], fv[1][..., ::-1]
    else:
        x, xv = full[:, 0], fv[:, 0]  # a row from each half: strided
    axis = rng.choice([None] + list(range(-x.ndim, x.ndim)))
    keep = rng.random() < 0.5
    for f in ["sum", "prod", "min", "max", "any", "all", "mean"]:
        if f == "mean" and dt == np.bool_:
            continue
        want = _want(lambda: getattr(np, f)(x, axis=axis, keepdims=keep))
        got = getattr(vp, f)(xv, axis=axis, keepdims=keep)
        if (dt.kind == "f" and f in ("sum", "prod")) or f == "mean":
            g = _np(got)
            assert g.dtype == want.dtype and g.shape == np.shape(want), (f, g.dtype, want.dtype)
            tol = 1e-2 if dt == np.float16 else 1e-5
            np.testing.assert_allclose(g, want, rtol=tol, atol=tol, equal_nan=True, err_msg=f)
        elif f in ("min", "max") and dt.kind == "f":
            g = _np(got)  # ±0 among equals may come back either way (NumPy's order too)
            assert g.dtype == want.dtype and g.shape == np.shape(want)
            np.testing.assert_array_equal(g, want, err_msg=f)
        else:
            _same(got, want, f)
    for f in ["argmin", "argmax", "cumsum", "count_nonzero", "ptp"]:
        if f == "ptp" and dt == np.bool_:
            continue
        ax = axis if axis is not None or f != "cumsum" else None
        want = _want(lambda: getattr(np, f)(x, axis=ax))
        got = getattr(vp, f)(xv, axis=ax)
        if dt.kind == "f" and f == "cumsum":
            np.testing.assert_allclose(_np(got), want, rtol=1e-2 if dt == np.float16 else 1e-5,
                                       atol=1e-2 if dt == np.float16 else 1e-5, equal_nan=True)
        else:
            _same(got, want, f)
    # a dtype= that narrows (wraps as NumPy's) and one that widens
    if dt.kind in "iu":
        _same(vp.sum(xv, axis=axis, dtype=np.int8), np.sum(x, axis=axis, dtype=np.int8), "sum int8")
        _same(vp.cumsum(xv, axis=axis if axis is not None else None, dtype=np.int16),
              np.cumsum(x, axis=axis, dtype=np.int16), "cumsum int16")


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.int32, np.uint32, np.int64,
                                   np.uint64])
def test_compare_with_out_of_range_python_int(dtype):
    """Bug: u8 < 300, u8 == -1, i32 > 2**40 raised OverflowError; NumPy 2
    decides them exactly (all True / all False), also reflected (300 > u8),
    through np.less on resident arrays, out= and vp.jit."""
    ii = np.iinfo(dtype)
    x = np.array([ii.min, 0, 1, ii.max], dtype)
    xv = vp.asarray(x)
    for s in [ii.max + 1, ii.min - 1, 2 ** 70, -2 ** 70]:
        for name in ["less", "less_equal", "greater", "greater_equal", "equal", "not_equal"]:
            _same(getattr(vp, name)(xv, s), getattr(np, name)(x, s), (name, s))
            _same(getattr(vp, name)(s, xv), getattr(np, name)(s, x), (s, name))
        _same(np.less(xv, s), np.less(x, s), ("np.less", s))
        o = vp.empty(4, np.bool_)
        vp.greater_equal(xv, s, out=o)
        _same(o, np.greater_equal(x, s), ("out=", s))
        _same(vp.jit(lambda a: (a < s) | (a == s))(xv), (x < s) | (x == s), ("jit", s))
    with pytest.raises(OverflowError):
        vp.add(xv, ii.max + 1)  # arithmetic keeps NumPy's error


@pytest.mark.parametrize("shape", [(), (3,), (2, 1)], ids=str)
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_python_float_past_the_loop_range_is_inf(shape):
    """Bug: `x < 1e40`, `x + 1e40` of a 0-d (or broadcast) float32 x raised
    TypeError (a push constant cannot hold 1e40); NumPy casts the Python
    float to the loop's inf, as the 1-d path already did."""
    x = np.array(np.full(shape, 1.5), np.float32)
    h = x.astype(np.float16)
    for arr, exprs in ((x, ["a < 1e40", "a != 1e40", "a + 1e40", "1e300 * a", "a > -1e300",
                            "a == 2 ** 200", "a - 2.5"]),
                       (h, ["a + 1e5", "a < 70000", "a * 1e10"])):
        v = vp.asarray(arr)
        for e in exprs:
            with np.errstate(all="ignore"):
                want = eval(e, {"a": arr})
            _same(eval(e, {"a": v}), want, (e, shape))
    if shape:
        yv = vp.asarray(np.ones((2, 3), np.float32))
        _same(vp.maximum(vp.asarray(x), 1e40) if shape == (3,) else yv * 1e300,
              np.maximum(x, np.float32(np.inf)) if shape == (3,) else np.full((2, 3), np.inf,
                                                                              np.float32), "b")


def test_inplace_operators_cast_same_kind():
    """Bug: x *= np.float64(2.0) on a float32 array, i32 += i64 and the
    like raised TypeError (out= of another dtype); NumPy casts the result
    back into x when same_kind allows. Views, overlap and strides too."""
    cases = [(np.float32, lambda x: x.__imul__(np.float64(2.5))),
             (np.float32, lambda x: x.__iadd__(np.ones(x.shape, np.float64) / 3)),
             (np.int32, lambda x: x.__iadd__(np.int64(2 ** 33 + 5))),
             (np.int16, lambda x: x.__imul__(np.arange(x.shape[-1], dtype=np.int64))),
             (np.uint8, lambda x: x.__isub__(np.uint16(300))),
             (np.float16, lambda x: x.__itruediv__(np.float32(3.0)))]
    for dt, op in cases:
        base = (np.arange(24) % 11 + 1).astype(dt).reshape(4, 6)
        for view in [lambda a: a, lambda a: a[1:, ::2], lambda a: a.T, lambda a: a[:, ::-1]]:
            want = base.copy()
            op(view(want))
            got = vp.asarray(base)
            op(view(got))
            _same(got, want, (dt, op))
    # what NumPy refuses stays refused
    with pytest.raises(TypeError):
        x = vp.asarray(np.arange(4, dtype=np.int32))
        x /= 2
    # an overlapping right side is read before the write, as NumPy's
    v, w = vp.asarray(np.arange(10, dtype=np.float32)), np.arange(10, dtype=np.float32)
    v[1:] += v[:-1].astype(np.float64)
    w[1:] += w[:-1].astype(np.float64)
    _same(v, w, "overlap")


# ------------------------------------------------- integers: NumPy's rules

_INTS = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]


@pytest.mark.parametrize("d1", _INTS)
@settings(max_examples=4, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_integer_ops_hypothesis(d1, data):
    """//, %, shifts, bitwise ops, power (exponents >= 0) and comparisons on
    random integers of d1 and a second dtype (mixed signedness and widths:
    NumPy's promotion), extremes and zero divisors included: bit-identical
    to NumPy (division by zero gives 0, as NumPy's result with its warning;
    INT_MIN // -1 wraps)."""
    d2 = data.draw(st.sampled_from(_INTS))
    if np.result_type(d1, d2).kind == "f":
        d2 = d1  # int64 with uint64 is float64 in NumPy: covered elsewhere
    n = data.draw(st.integers(1, 24))

    def ints(dt):
        ii = np.iinfo(dt)
        edge = st.sampled_from([ii.min, ii.max, 0, 1, -1 if ii.min < 0 else 2, ii.max // 2])
        return np.array(data.draw(st.lists(st.one_of(edge, st.integers(ii.min, ii.max)),
                                           min_size=n, max_size=n)), dt)

    a, b = ints(d1), ints(d2)
    av, bv = vp.asarray(a), vp.asarray(b)
    for name in ["floor_divide", "remainder", "bitwise_xor", "less", "greater_equal",
                 "subtract", "multiply", "maximum"]:
        _same(getattr(vp, name)(av, bv), _want(getattr(np, name), a, b), name)
    sh = (b.astype(np.int64) % 70).astype(d2)  # counts past the width included
    _same(av << vp.asarray(sh), _want(np.left_shift, a, sh), "<<")
    _same(av >> vp.asarray(sh), _want(np.right_shift, a, sh), ">>")
    e = (b.astype(np.int64) % 9).astype(d2)
    _same(vp.power(av, vp.asarray(e)), _want(np.power, a, e), "power")


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint16])
def test_integer_power_negative_exponent_is_documented(dtype):
    """docs/python-api.md: integer power with a resident array of negative
    exponents gives 1 / a**|n| truncated toward zero (NumPy raises
    ValueError, which needs the exponents on the host): 1 ** -2 is 1 and
    (-1) ** -1 is -1 (both were 0), others 0; a negative Python int
    exponent, or a NumPy exponent array holding one (it gave those values),
    is NumPy's ValueError on every path (the first call, the planned ones
    after it, out=, the C launcher, vp.jit); integer // and % by zero give
    0 (NumPy too, with a warning)."""
    a = np.array([2, 1, 0, 5], dtype)
    if np.dtype(dtype).kind == "i":
        a[0] = -1
        av = vp.asarray(a)
        n = np.array([-1, -2, -3, -1], dtype)
        _same(vp.power(av, vp.asarray(n)), np.array([-1, 1, 0, 0], dtype), "x ** -n")
        m = vp.asarray(np.array([-1, -1, 1, 1, 2, -2, 7], dtype))
        e = vp.asarray(np.array([-3, -4, -5, -(2 ** 7), -1, -1, -2], dtype))
        _same(vp.jit(lambda x, y: x ** y)(m, e), np.array([-1, 1, 1, 1, 0, 0, 0], dtype),
              "x ** -n in vp.jit")
        for call in (lambda: av ** n, lambda: vp.power(a, n), lambda: np.power(av, n),
                     lambda: vp.power(av, np.int16(-2))):
            with pytest.raises(ValueError, match="negative integer powers"):
                call()
        for k in range(3):  # planned after the first call: still refused
            _same(av ** 2, a ** 2, "x ** 2")
            for call in (lambda: av ** -1, lambda: vp.power(av, -2, out=vp.empty_like(av)),
                         lambda: vp.jit(lambda x: x ** -3)(av), lambda: vp.power(a, -1)):
                with pytest.raises(ValueError, match="negative integer powers"):
                    call()
                with pytest.raises(ValueError, match="negative integer powers"):
                    np.power(a, -1)
    _same(vp.asarray(a) // 0, np.zeros(4, dtype), "// 0")
    _same(vp.asarray(a) % vp.asarray(np.zeros(4, dtype)), np.zeros(4, dtype), "% 0")


def test_average_returned_sum_of_weights_with_nan():
    """Bug: vp.average(..., returned=True) gave NaN for the sum of weights
    wherever a slice of `a` held NaN or inf (weights broadcast as a*0 + 1);
    NumPy's sum of weights does not look at a's values."""
    x = np.array([[1.0, np.nan, np.inf, 2.0], [2, 3, 4, 5], [np.nan, 1, 1, 1]], np.float32)
    w = np.array([1.0, 2.0, 0.5, 3.0], np.float32)
    xv = vp.asarray(x)
    for ax in [None, 0, 1]:
        got = vp.average(xv, axis=ax, returned=True)
        want = np.average(x, axis=ax, returned=True)
        _same(got[0], want[0], ("avg", ax))
        _same(got[1], want[1], ("scl", ax))
    got = vp.average(xv, axis=1, weights=w, returned=True)
    want = np.average(x, axis=1, weights=w, returned=True)
    _same(got[0], want[0], "weighted avg", ulps=_div_ulps())
    _same(got[1], want[1], "weighted scl")
    f = vp.jit(lambda a: vp.average(a, axis=1, weights=w, returned=True)[1])
    _same(f(xv), want[1], "jit")


def test_clip_with_out_of_range_int_bounds():
    """Bug: vp.clip(u8, -5, 300) raised OverflowError (from vp.maximum);
    NumPy 2 clips nothing there. A bound on the far side stays an error."""
    for dt in [np.uint8, np.int8, np.uint16, np.int32]:
        ii = np.iinfo(dt)
        x = np.array([ii.min, 0, 7, ii.max], dt)
        xv = vp.asarray(x)
        for lo, hi in [(ii.min - 5, ii.max + 300), (ii.min - 1, 5), (3, ii.max + 1),
                       (ii.min - 1, None), (None, ii.max + 1)]:
            _same(vp.clip(xv, lo, hi), np.clip(x, lo, hi), (dt, lo, hi))


def test_float64_trunc_of_large_values():
    """Bug: Mesa 22.3's lavapipe returns a double of magnitude 2^31 or more
    from GLSL's trunc() as it is: vp.trunc(-867361737988.4036) was
    -867361737988.4036 (NumPy -867361737988.0), and float64 fmod, // and %
    built on it were wrong (fmod(-1e30, 1.152921504606847e18) was -0.0,
    NumPy -4.652781365027144e17). GLSL spells it with floor and ceil."""
    x = np.array([-867361737988.4036, 2.5, -2.5, 1e15 + 0.5, -4503599627370495.5, 3e9 + 0.5,
                  -3e9 - 0.5, 2.0**40 + 0.25, -0.5, 0.0, -0.0, np.nan, np.inf, -np.inf,
                  -1e30, 1e-30], np.float64)
    y = np.array([7.0, 7.0, -3.0, 1.152921504606847e18, 1e-40, -1e-40, 0.75, 3.0, 7.0, 1.0,
                  -1.0, 2.0, 5.0, 5.0, 1.152921504606847e18, 1e-40], np.float64)
    xv, yv = vp.asarray(x), vp.asarray(y)
    _same(vp.trunc(xv), _want(np.trunc, x), "trunc")
    _same(vp.jit(lambda a: vp.trunc(a * 1.0))(xv), _want(np.trunc, x), "jit trunc")
    for name in ["fmod", "floor_divide", "remainder"]:
        _same(getattr(vp, name)(xv, yv), _want(getattr(np, name), x, y), name)
    q, r = vp.divmod(xv, yv)
    _same(q, _want(np.floor_divide, x, y), "divmod q")
    _same(r, _want(np.remainder, x, y), "divmod r")
    ones = np.array([-1.0, -1.0, -1.0, -1.0])
    e = np.array([3000000001.0, 3e9, -3000000001.0, 2.0**52 + 1])
    _same(vp.power(vp.asarray(ones), vp.asarray(e)), _want(np.power, ones, e), "power")


_ODD = ["sin", "tan", "arcsin", "arctan", "sinh", "tanh", "arcsinh", "arctanh", "expm1",
        "log1p", "sqrt", "cbrt", "deg2rad", "rad2deg", "trunc", "ceil", "rint"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_functions_keep_the_sign_of_zero(dtype):
    """f(-0.0) is -0.0 for the functions that are odd (or increasing) at 0,
    in eager calls, NumPy in and vp.jit, as NumPy's (vp.sin and vp.expm1
    gave +0.0: their range reductions added +0 terms); tiny arguments keep
    their sign too."""
    if dtype == np.float64 and not vp.default_context().has("float64"):
        pytest.skip("no float64")
    x = np.array([-0.0, 0.0, -1e-30, 1e-30, -0.25], dtype)
    r = vp.asarray(x)
    for name in _ODD:
        want = _want(getattr(np, name), x)
        got = getattr(vp, name)(r).numpy()
        # the sign of a NaN is unspecified (IEEE 754 6.3): sqrt(-1e-30) is
        # -NaN on x86 (NumPy's) and +NaN on NVIDIA; allclose places the NaNs
        num = ~np.isnan(want)
        assert np.array_equal(np.signbit(got)[num], np.signbit(want)[num]), (name, got, want)
        assert np.allclose(got, want, rtol=1e-6, atol=0, equal_nan=True), (name, got, want)
    for name in ("sin", "expm1"):
        f = getattr(vp, name)
        assert np.signbit(f(x)[0]), name  # NumPy in
        assert np.signbit(vp.jit(lambda a: f(a) * 1)(r).numpy()[0]), name


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_power_at_one_two_and_minus_one_is_exact(dtype):
    # x ** 1 was not x (39 of 10,000 float32 values moved by an ULP), x ** 2
    # not x * x and x ** -1 not 1 / x (~10% each): vp_pow took 2^(y log2 x)
    # there too. C99's pow (and NumPy) give exactly those values, and
    # NumPy's loop gives them for a scalar exponent whatever its pow
    if dtype == np.float64 and not vp.default_context().has("float64"):
        pytest.skip("float64")
    r = np.random.default_rng(5)
    h = np.concatenate([r.standard_normal(4000) * 10, r.standard_normal(100) * 1e-19,
                        [0.0, -0.0, np.inf, -np.inf, np.nan, 3e38, -1e-30, 1.0]]).astype(dtype)
    x = vp.asarray(h)
    with np.errstate(all="ignore"):
        for e, want in ((1, h), (2, h * h), (-1, 1 / h), (0, np.ones_like(h))):
            for w in (e, float(e), np.full(h.shape, e, dtype)):
                _same(vp.power(x, w), want, f"x ** {w!r}")
        # a scalar 0.5 is sqrt (NumPy's loop), an array of 0.5 is pow: they
        # differ at -0.0 and -inf
        _same(vp.power(x, 0.5), np.power(h, 0.5), "x ** 0.5", ulps=1)
        _same(x ** 0.5, h ** 0.5, "x ** 0.5", ulps=1)
        halves = np.full(h.shape, 0.5, dtype)
        got = vp.power(x, halves).numpy()
        assert np.array_equal(got[-8:-4], np.power(h[-8:-4], halves[-8:-4]), equal_nan=True)
        assert np.array_equal(np.signbit(got[-8:-4]), [False, False, False, False])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_arctan2_and_complex_angles_of_huge_operands(dtype):
    """atan2(3e38, 3e38) is pi/4: the library's division (vp_div) of two
    operands past 2^126 gave 0 on NVIDIA (its a * (1 / b), with 1 / b
    subnormal and flushed), so vp.arctan2 read 0 and arccosh(3e38 + 3e38j)
    lost its imaginary part pi/4 (an H100 run); vp_div now scales such a
    divisor by 1/4 first where the device flushes, as vp_divf does."""
    if dtype == np.float64 and not vp.default_context().has("float64"):
        pytest.skip("no float64")
    big = np.finfo(dtype).max / 1.2
    y = np.array([big, -big, big, big / 3, 2.0, big], dtype)
    x = np.array([big, big, -big, big, big, 1e-30], dtype)
    want = np.arctan2(y, x)
    np.testing.assert_allclose(vp.arctan2(y, x), want, rtol=2e-7 if dtype == np.float32 else 1e-15)
    np.testing.assert_allclose(vp.jit(vp.arctan2)(vp.asarray(y), vp.asarray(x)).numpy(), want,
                               rtol=2e-7 if dtype == np.float32 else 1e-15)
    cdt = np.complex64 if dtype == np.float32 else np.complex128
    z = np.array([complex(3e38, 3e38), complex(3e38, -3e38)], cdt)
    got = vp.arccosh(vp.asarray(z)).numpy()
    np.testing.assert_allclose(got.imag, np.arccosh(z).imag, rtol=1e-6)


@pytest.mark.parametrize("src", ["float16", "float32", "float64"])
@pytest.mark.parametrize("dt", ["uint8", "uint16", "uint32", "uint64"])
def test_negative_floats_convert_to_unsigned_as_numpy(src, dt):
    # GLSL and CUDA leave a negative float's conversion to an unsigned type
    # undefined: lavapipe gave the maximum (255 for -12.3 as uint8, NumPy
    # 244) and NVIDIA 0. Every path converts through the signed type now.
    f = np.array([-12.3, -1.0, -0.5, -0.0, 3.7, 250.7, -200.9, -30000.2, 1e3, -1e3], src)
    want = f.astype(dt)
    _same(vp.asarray(f).astype(dt), want, "astype")
    _same(vp.asarray(np.repeat(f, 2))[::2].astype(dt), want, "astype of a view")
    _same(vp.jit(lambda a: a.astype(dt))(vp.asarray(f)), want, "vp.jit")
    x = vp.zeros(f.shape, dtype=dt)
    x[:] = vp.asarray(f)
    _same(x, want, "assignment")


def test_negative_float_to_unsigned_in_a_kernel():
    @vp.kernel
    def conv(x: vp.Buffer[vp.float32], o8: vp.Buffer[vp.uint8], o32: vp.Buffer[vp.uint32],
             o64: vp.Buffer[vp.uint64]):
        i = vp.global_id().x
        o8[i] = vp.uint8(x[i])
        o32[i] = vp.uint32(x[i])
        o64[i] = vp.uint64(x[i])

    f = np.array([-12.3, -1.0, -0.5, 7.9, -70000.0, 0.0, -3.0, 200.0], np.float32)
    o8, o32, o64 = np.zeros(8, np.uint8), np.zeros(8, np.uint32), np.zeros(8, np.uint64)
    conv(f, o8, o32, o64, dispatch=8)
    _same(o8, f.astype(np.uint8), "uint8")
    _same(o32, f.astype(np.uint32), "uint32")
    _same(o64, f.astype(np.uint64), "uint64")


@pytest.mark.parametrize("dt", ["int8", "int16", "int32", "int64", "uint8", "uint32", "uint64"])
def test_gcd_lcm_at_the_integer_limits(dt):
    # NumPy takes both on the magnitudes as unsigned (npy_gcdu / npy_lcmu)
    # and casts back: gcd(6, INT_MIN) is 2 (VulPy's abs(INT_MIN) stayed
    # negative: -2) and lcm(2, INT_MAX) wraps to -2 (VulPy's 2)
    import itertools
    i = np.iinfo(dt)
    vals = [0, 1, 2, 3, 6, 7, 64, i.max, i.max - 1]
    vals += [i.min, i.min + 1, -1, -2, -6, -64] if i.min < 0 else []
    p = np.array(list(itertools.product(vals, vals)), dtype=dt)
    a, b = p[:, 0], p[:, 1]
    for name in ("gcd", "lcm"):
        with np.errstate(all="ignore"):
            want = getattr(np, name)(a, b)
        _same(getattr(vp, name)(vp.asarray(a), vp.asarray(b)), want, name)
        _same(vp.jit(getattr(vp, name))(vp.asarray(a), vp.asarray(b)), want, name + " vp.jit")


def test_bool_array_squared_is_int8_as_numpy():
    # ndarray ** 2 is np.square (NumPy's fast_scalar_power): a bool array
    # gives int8 there; power(bool, 2) and ** 2.0 stay int64 / float64
    b = np.array([True, False, True])
    x = vp.asarray(b)
    _same(x ** 2, b ** 2, "**")
    _same(vp.jit(lambda t: t ** 2)(x), b ** 2, "vp.jit **")
    _same(vp.power(x, 2), np.power(b, 2), "power")
    _same(x ** 2.0, b ** 2.0, "** 2.0")


def test_round_of_bools_as_numpy():
    # np.round of a bool array is rint's float16; other decimals raise
    # (its multiply / divide cannot cast float64 back into bool). VulPy
    # returned the bools unchanged for every decimals.
    b = np.array([True, False, True])
    _same(vp.round(vp.asarray(b)), np.round(b), "round")
    _same(vp.asarray(b).round(), np.round(b), "ndarray.round")
    for d in (1, -1):
        with pytest.raises(TypeError):
            np.round(b, d)
        with pytest.raises(TypeError):
            vp.round(vp.asarray(b), d)


@pytest.mark.parametrize("dt", [np.int8, np.uint8, np.int32, np.int64, np.float32, np.float64,
                                np.bool_])
def test_ufunc_reduce_accumulate_outer_as_numpy(dt):
    """vp.add.reduce / .accumulate / .outer did not exist and np.add.reduce(x)
    of a resident x raised TypeError ("not implemented for vp.ndarray"):
    NumPy's methods on the device, axis=0 by default, against NumPy over
    axes, keepdims, dtype= and a NaN; bitwise reductions too."""
    r = np.random.default_rng(1)
    a = (r.standard_normal((3, 5, 4)) * 20).astype(dt)
    if np.dtype(dt).kind == "f":
        a[0, 0, 0] = np.nan
    x = vp.asarray(a)
    names = ["add", "multiply", "maximum", "minimum", "fmax", "fmin", "logical_and", "logical_or"]
    if np.dtype(dt).kind != "f":
        names += ["bitwise_and", "bitwise_or", "bitwise_xor"]
    for name in names:
        for kw in ({}, {"axis": 1}, {"axis": None}, {"axis": (0, 2)}, {"axis": -1, "keepdims": True}):
            with np.errstate(all="ignore"):
                want = getattr(np, name).reduce(a, **kw)
            ulps = 8 if name in ("add", "multiply") else 0  # the summation order
            for got in (getattr(vp, name).reduce(x, **kw), getattr(np, name).reduce(x, **kw)):
                _same(got, want, f"{name}.reduce {kw}", ulps)
    for name in ("add", "multiply"):
        for kw in ({}, {"axis": 2}, {"axis": 1, "dtype": np.float64}):
            with np.errstate(all="ignore"):
                want = getattr(np, name).accumulate(a, **kw)
            for got in (getattr(vp, name).accumulate(x, **kw), getattr(np, name).accumulate(x, **kw)):
                _same(got, want, f"{name}.accumulate {kw}", 8)
    scans = ["maximum", "minimum", "fmax", "fmin", "logical_and", "logical_or"]
    if np.dtype(dt).kind != "f":
        scans += ["bitwise_and", "bitwise_or", "bitwise_xor"]
    for name in scans:  # the running max & co. (scans; bitwise ones by recursive doubling)
        for axis in (0, 1, -1):
            want = getattr(np, name).accumulate(a, axis=axis)
            for got in (getattr(vp, name).accumulate(x, axis=axis),
                        getattr(np, name).accumulate(x, axis=axis)):
                _same(got, want, f"{name}.accumulate {axis}")
    for name in ("add", "maximum", "greater", "multiply"):
        want = getattr(np, name).outer(a[0], a[1, 2])
        _same(getattr(vp, name).outer(x[0], x[1, 2]), want, f"{name}.outer")
        _same(getattr(np, name).outer(x[0], x[1, 2]), want, f"np.{name}.outer")
    if np.dtype(dt).kind in "iu":
        e = np.zeros((0, 3), dt)
        _same(vp.bitwise_and.reduce(vp.asarray(e)), np.bitwise_and.reduce(e), "empty and")
    with pytest.raises(NotImplementedError, match="vp.subtract.reduce is not supported"):
        vp.subtract.reduce(x)
    with pytest.raises(TypeError, match="numpy.subtract.reduce is not implemented for vp.ndarray"):
        np.subtract.reduce(x)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.uint8, np.float16, np.int64,
                                np.bool_])
def test_running_max_min_scans_long_lines_views_and_nans(dt):
    """maximum / minimum / fmax / fmin / logical_or / logical_and .accumulate
    as array.cummax / cummin scans (they were log2(n) launches of the ufunc
    and a concatenate each): lines past a tile (1024) and past a tile of
    tiles, every axis of a 3-D array, strided and reversed views, NaNs
    where the NaN-propagating and NaN-ignoring ones differ, out= and dtype=."""
    r = np.random.default_rng(7)
    for shape, axis in (((70000,), 0), ((3, 2500), 1), ((2500, 3), 0), ((4, 5, 6), 1),
                        ((4, 5, 6), -1), ((1,), 0), ((0, 4), 1)):
        a = (r.standard_normal(shape) * 40).astype(dt)
        if np.dtype(dt).kind == "f" and a.size > 2000:
            a.flat[1500] = np.nan  # maximum: NaN from here on; fmax: ignored
            a.flat[:3] = np.nan    # fmax: NaN until the first number
        x = vp.asarray(a)
        for name in ("maximum", "minimum", "fmax", "fmin", "logical_or", "logical_and"):
            want = getattr(np, name).accumulate(a, axis=axis)
            _same(getattr(vp, name).accumulate(x, axis=axis), want, f"{name} {shape} {axis}")
    a = (r.standard_normal((40, 30)) * 40).astype(dt)
    x = vp.asarray(a)
    for view, hv in ((x[::-3, 1::2], a[::-3, 1::2]), (x.T, a.T)):
        for axis in (0, 1):
            _same(vp.maximum.accumulate(view, axis=axis), np.maximum.accumulate(hv, axis=axis),
                  f"view {axis}")
            _same(np.minimum.accumulate(view, axis=axis), np.minimum.accumulate(hv, axis=axis),
                  f"np view {axis}")
    if np.dtype(dt).kind != "b":
        o = vp.empty((40, 30), np.float64)
        assert vp.maximum.accumulate(x, axis=1, dtype=np.float64, out=o) is o
        _same(o, np.maximum.accumulate(a, axis=1, dtype=np.float64), "dtype= out=")


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int32, np.int64, np.uint32, np.uint64,
                                np.int8, np.uint16, np.float16, np.bool_])
def test_ufunc_at_adds_each_repeated_index(dt):
    """np.add.at(x, idx, b) of a resident x raised TypeError and vp.add.at
    did not exist: the unbuffered in-place op in which a repeated index
    counts once per occurrence (x[idx] += b counts it once), one atomic a
    value (compare-exchange loops on the bits for float products, max, min
    and float64 sums; small integers and float16 in a wider copy), for
    add, subtract, multiply, maximum, minimum. Against NumPy; float16 is
    computed in float32 and rounded once (NumPy rounds each of ~15)."""
    r = np.random.default_rng(0)
    a = (r.standard_normal(20) * 10).astype(dt)
    idx = r.integers(-20, 20, 300)
    if np.dtype(dt).kind == "f":
        b = (r.standard_normal(300) * 1.01).astype(dt)
        a[3], b[7] = np.nan, np.nan  # maximum / minimum: a NaN wins, as NumPy's
    else:
        b = r.integers(-3, 4, 300).astype(dt)
    for name in ("add", "subtract", "multiply", "maximum", "minimum"):
        if dt == np.bool_ and name == "subtract":
            with pytest.raises(TypeError, match="boolean subtract"):
                vp.subtract.at(vp.asarray(a), idx, vp.asarray(b))
            continue
        want = a.copy()
        with np.errstate(all="ignore"):
            getattr(np, name).at(want, idx, b)
        x, y = vp.asarray(a), vp.asarray(a)
        assert getattr(vp, name).at(x, idx, vp.asarray(b)) is None
        getattr(np, name).at(y, vp.asarray(idx), b)  # through __array_ufunc__
        for got in (x.numpy(), y.numpy()):
            if np.dtype(dt).kind == "f":  # the GPU's order of the operations
                tol = 0.15 if dt == np.float16 else 1e-4
                np.testing.assert_allclose(got.astype(float), want.astype(float), rtol=tol,
                                           atol=tol, err_msg=f"{name}.at")
            else:
                np.testing.assert_array_equal(got, want, err_msg=f"{name}.at")


def test_ufunc_at_indices_views_and_errors():
    """ufunc.at takes what a[indices] takes (tuples of arrays, slices),
    writes through a view, and gives NumPy's errors."""
    a = np.zeros((4, 5), np.float32)
    x = vp.asarray(a)
    for ind, b in (((np.array([0, 0, 3]), np.array([1, 1, 4])), 2.5),
                   (np.s_[1:3], np.arange(5, dtype=np.float32)), ([-1, -1, 0], 1.0)):
        np.add.at(a, ind, b)
        vp.add.at(x, ind, b)
        np.testing.assert_array_equal(x.numpy(), a)
    np.add.at(a[:, ::2], [0, 0, 1], 1)
    vp.add.at(x[:, ::2], [0, 0, 1], 1)
    np.testing.assert_array_equal(x.numpy(), a)
    i = vp.asarray(np.zeros(3, np.int32))
    with pytest.raises(TypeError, match="Cannot cast ufunc 'add' output"):
        vp.add.at(i, [0], 1.5)
    with pytest.raises(IndexError):
        vp.add.at(i, [5], 1)
    with pytest.raises(NotImplementedError, match="vp.divide.at is not supported"):
        vp.divide.at(i, [0], 2)
    # a 1-D a with one integer index array: the indices are the positions
    # (no arange of a's size), NumPy's and resident, every integer dtype,
    # negative ones wrapped, out of range NumPy's IndexError
    big = np.zeros(5000, np.float64)
    xb = vp.asarray(big)
    for idx in (np.array([4999, -1, -5000, 7, 7], np.int64), np.array([3, 3, 200], np.uint8),
                np.array([1, 2, 4998], np.uint64), np.array([-2, -2, 0], np.int16)):
        for ind in (idx, vp.asarray(idx), (idx,)):
            np.maximum.at(big, ind if not isinstance(ind, vp.ndarray) else idx, 1.5)
            np.add.at(big, ind if not isinstance(ind, vp.ndarray) else idx, 0.25)
            vp.maximum.at(xb, ind, 1.5)
            vp.add.at(xb, ind, 0.25)
            np.testing.assert_array_equal(xb.numpy(), big)
    for bad in (np.array([5000]), vp.asarray(np.array([-5001])), np.array([0, 9999], np.uint32)):
        with pytest.raises(IndexError, match="out of bounds"):
            vp.add.at(xb, bad, 1.0)
    with pytest.raises(ValueError, match="read-only|broadcast"):
        vp.add.at(vp.broadcast_to(i, (2, 3)), [0], 1)
    h = np.zeros(3)
    vp.add.at(h, [0, 0], 1.0)  # NumPy in: NumPy's own
    assert h.tolist() == [2.0, 0.0, 0.0]


@pytest.mark.parametrize("name", ["add", "maximum", "greater", "sqrt", "arctan2", "floor_divide",
                                  "logical_not", "bitwise_and"])
def test_out_of_another_dtype_and_casting_as_numpy(name):
    """out= of another dtype than the loop's was a TypeError ("VulPy does
    not cast into out="), casting= an unknown keyword: now NumPy's rules
    through its resolve_dtypes, the result computed in the loop's dtype and
    cast into out=, with where= keeping out='s other elements; NumPy's
    errors (its UFuncTypeError text) where the rule refuses."""
    r = np.random.default_rng(3)
    uf = getattr(np, name)
    ints = name == "bitwise_and"
    srcs = [np.int32, np.int8, np.uint16, np.bool_] if ints else \
        [np.int32, np.float16, np.float32, np.float64, np.bool_, np.int64]
    outs = [np.int64, np.int16, np.uint8, np.bool_] if ints else \
        [np.float64, np.float32, np.int64, np.int16, np.bool_, np.float16]
    for d1 in srcs:
        args = [(r.standard_normal((3, 4)) * 9).astype(d1) for _ in range(uf.nin)]
        argv = [vp.asarray(a) for a in args]
        for od in outs:
            for casting in ("same_kind", "unsafe", "safe", "no"):
                for where in (True, r.integers(0, 2, (3, 4)).astype(bool)):
                    start = (r.standard_normal((3, 4)) * 5).astype(od)
                    kw = {"casting": casting} if casting != "same_kind" else {}
                    kwv = dict(kw)
                    if where is not True:
                        kw["where"], kwv["where"] = where, vp.asarray(where)
                    o, ov = start.copy(), vp.asarray(start)
                    tag = (name, np.dtype(d1).name, np.dtype(od).name, casting)
                    try:
                        with np.errstate(all="ignore"):
                            uf(*args, out=o, **kw)
                    except TypeError:
                        with pytest.raises(TypeError):
                            getattr(vp, name)(*argv, out=ov, **kwv)
                        continue
                    assert getattr(vp, name)(*argv, out=ov, **kwv) is ov, tag
                    g = ov.numpy()
                    assert g.dtype == o.dtype, tag
                    if o.dtype.kind == "f":
                        np.testing.assert_allclose(g, o, rtol=2e-3, equal_nan=True,
                                                   err_msg=str(tag))
                    else:  # a float -> int cast of NaN or out of range: the device's own
                        ok = np.abs(o.astype(np.float64)) < 100
                        np.testing.assert_array_equal(g[ok], o[ok], err_msg=str(tag))
    with pytest.raises(ValueError, match="casting must be one of"):
        vp.add(vp.asarray(np.ones(2)), 1.0, casting="bogus")
    # through NumPy's own ufunc on resident arrays (__array_ufunc__)
    x = vp.asarray(np.arange(4, dtype=np.float32))
    o = vp.empty(4, np.float64)
    assert np.add(x, x, out=o, casting="safe") is o
    np.testing.assert_array_equal(o.numpy(), np.arange(4) * 2.0)
    with pytest.raises(TypeError, match="Cannot cast"):
        np.add(x, x, out=vp.empty(4, np.int32))
