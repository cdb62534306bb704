"""Float32 ops that are exact on subnormals on every device (issue 14, "no
silent wrong answers"; docs/math.md, "Subnormals"): abs, negative, sign,
minimum, maximum, fmin, fmax, clip, copysign, fabs, signbit, floor, ceil,
where, in eager ufuncs, vp.jit and kernels; and sqrt of a subnormal.

A device that flushes float32 subnormals (NVIDIA: Context.flushes_subnormals)
reads a subnormal as +-0 in every float instruction and flushes subnormal
results, so -x, abs(x), min(a, b), sign(x), floor(x) of a subnormal came out
0 there. The back end prints these ops as helpers that work on the bits
(vp_negf, vp_fabsf, vp_signf) or, under the specialization constant
VP_DENORM_EMULATE, compare integer keys (vp_minf, vp_maxf, vp_clampf) and
test the exponent field (vp_floorf, vp_ceilf).

lavapipe keeps subnormals, so the values below pass there with or without
the helpers: what fails there without them is the GLSL the tests read
(test_*_glsl) and, on the CPU with the x86 FTZ/DAZ bits, ctest
target.math_ulp_ftz. The value tests are the proof on a flushing device:
on the H200 run `pytest test/python/test_denorm_exact.py test/python/test_ufunc.py`.
"""
import os

import numpy as np
import pytest

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target

F32 = np.dtype(np.float32)
EDGES = [1, 2, 3, 0x400000, 0x7ffffe, 0x7fffff, 0x800000, 0x800001]  # TRUE_MIN .. FLT_MIN+


def _values(step=4099):
    """Subnormals of both signs over the whole range, the edges, +-0, a few
    normals, +-inf and NaN, as float32."""
    m = np.concatenate([np.arange(1, 1 << 23, step, dtype=np.uint32), np.array(EDGES, np.uint32)])
    b = np.concatenate([m, m | 0x80000000]).view(np.float32)
    more = np.array([0.0, -0.0, 1.0, -1.0, 2.5, -3.5, 1e30, -1e-30, np.inf, -np.inf, np.nan],
                    np.float32)
    return np.concatenate([b, more])


def _pairs():
    """x, y: every value against a shuffled copy and against its neighbour."""
    x = _values()
    rng = np.random.default_rng(14)
    y = x[rng.permutation(x.size)]
    return np.concatenate([x, x]), np.concatenate([y, np.roll(x, 1)])


def _cpu():
    if not any(d["kind"] == "cpu" for d in vp.list_devices()):
        pytest.skip("needs lavapipe")


@pytest.fixture(scope="module")
def emu():
    """A lavapipe context with VULPY_DENORM=emulate: the pipelines take the
    VP_DENORM_EMULATE paths a flushing device takes."""
    _cpu()
    old = os.environ.pop("VULPY_DENORM", None)
    os.environ["VULPY_DENORM"] = "emulate"
    try:
        c = vp.Context(kind="cpu")
    finally:
        os.environ.pop("VULPY_DENORM", None)
        if old is not None:
            os.environ["VULPY_DENORM"] = old
    assert c.denorm_emulate and not c.flushes_subnormals
    return c


@pytest.fixture(params=["default", "emulate"])
def anyctx(request, ctx):
    """The test session's context (the H200 there) and the emulating one."""
    return ctx if request.param == "default" else request.getfixturevalue("emu")


def same_bits(got, want, what):
    """Bit for bit, NaNs of any payload alike; +-0 must match too."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, what
    if want.dtype != F32:
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    nan = np.isnan(want)
    bad = (got.view(np.uint32) != want.view(np.uint32)) & ~(nan & np.isnan(got))
    if bad.any():
        i = np.flatnonzero(bad)[:5]
        raise AssertionError(f"{what}: {bad.sum()} of {want.size} differ: got {got[i]!r} "
                             f"want {want[i]!r}")


def _sign_agnostic_zero(x, y, name):
    """Positions where NumPy's choice between +0 and -0 is its loop's, not
    IEEE's (min/max of +0 and -0): left out of the bit comparison."""
    if name in ("minimum", "maximum", "fmin", "fmax"):
        return (x == 0) & (y == 0)
    return np.zeros(x.shape, bool)


UNARY = ["absolute", "negative", "sign", "fabs", "signbit", "floor", "ceil", "trunc", "rint"]
BINARY = ["minimum", "maximum", "fmin", "fmax", "copysign"]


@pytest.mark.parametrize("name", UNARY)
def test_unary_bit_for_bit(anyctx, name):
    x = _values()
    want = getattr(np, name)(x)
    f = getattr(vp, name)
    same_bits(f(vp.asarray(x, context=anyctx)).numpy(), want, f"vp.{name} (resident)")
    if anyctx is not vp.default_context():
        return
    same_bits(f(x), want, f"vp.{name} (NumPy in)")


@pytest.mark.parametrize("name", BINARY)
def test_binary_bit_for_bit(anyctx, name):
    x, y = _pairs()
    want = getattr(np, name)(x, y)
    got = getattr(vp, name)(vp.asarray(x, context=anyctx), vp.asarray(y, context=anyctx)).numpy()
    keep = ~_sign_agnostic_zero(x, y, name)
    same_bits(got[keep], want[keep], f"vp.{name}")
    z = ~keep  # +-0 against +-0: a zero either way
    assert (got[z] == 0).all(), name


def test_sqrt_of_subnormals(anyctx):
    """sqrt of a subnormal is a normal number: within GLSL's bound (NumPy's
    tolerance in test_ufunc.py, 3 ULP), NaN for a negative one, not 0."""
    x = _values()
    with np.errstate(invalid="ignore"):
        want = np.sqrt(x)
    got = vp.sqrt(vp.asarray(x, context=anyctx)).numpy()
    nan = np.isnan(want)
    assert np.isnan(got[nan]).all()
    g, w = got[~nan].view(np.int32).astype(np.int64), want[~nan].view(np.int32).astype(np.int64)
    sub = (x[~nan] != 0) & (np.abs(x[~nan]) < np.finfo(np.float32).tiny)
    assert (got[~nan][sub] > 0).all()
    assert (np.abs(g - w) <= 3).all(), np.flatnonzero(np.abs(g - w) > 3)[:5]


def test_division_by_a_huge_divisor(anyctx):
    """Bug: on the H200 (NVIDIA flushes float32 subnormals), a / b with |b|
    past 2^126 was 0: its division is a * (1 / b), and 1 / b is subnormal
    (3.4e38 / 3.4e38 gave 0, NumPy 1.0), in eager ufuncs, vp.jit and
    kernels. vp_divf scales such a divisor first where VP_DENORM_EMULATE is
    set (here: the emulating lavapipe context takes that path)."""
    a = np.array([3.4e38, 3.4e38, 1.0, 1e38, 6.0, -3e38, 2e38, 1e-30], F32)
    b = np.array([3.4e38, 1.7e38, 2e38, 9e37, 3.0, 1.5e38, -1e38, 1e38], F32)
    with np.errstate(all="ignore"):
        want = a / b
    av, bv = vp.asarray(a, context=anyctx), vp.asarray(b, context=anyctx)
    # quotients within Vulkan's division bound (~2 ULP off lavapipe), none 0
    for what, got in [("ufunc", vp.divide(av, bv).numpy()), ("operator", (av / bv).numpy()),
                      ("jit", vp.jit(lambda x, y: x / y)(av, bv).numpy())]:
        keep = np.abs(want) >= np.finfo(F32).tiny  # 1e-30 / 1e38 is subnormal: flushed
        np.testing.assert_allclose(got[keep], want[keep], rtol=3e-7, err_msg=what)


def test_ldexp_rounds_subnormal_results_once(anyctx):
    """vp.ldexp with a float32 result below 2^-126: NumPy's bits, every
    device. Bugs: the three power-of-two multiplications rounded twice once
    an intermediate product was subnormal (ldexp(2.7453535e-36, -15) was
    8.3781e-41 on lavapipe, NumPy 8.3782e-41), and a device that flushes
    gave 0; now rounded half to even from the bits. Subnormal inputs,
    zeros, infinities and NaN in the mix, eager and vp.jit."""
    r = np.random.default_rng(11)
    n = 60000
    a = (r.uniform(1, 2, n) * 2.0 ** r.integers(-126, 127, n)).astype(F32)
    a[:2000] = r.integers(1, 2 ** 23, 2000).astype(np.uint32).view(F32) * r.choice([1, -1], 2000)
    a[2000:2012] = [0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 3.4e38, -3.4e38,
                    1.1754942e-38, 2.7453535e-36, -2.0349142e-36]
    k = r.integers(-300, 300, n).astype(np.int32)
    k[2010:2012] = -15
    k[2012:4000] = r.integers(-160, -1, 1988)  # mostly subnormal results
    with np.errstate(all="ignore"):
        want = np.ldexp(a, k)
    x, e = vp.asarray(a, context=anyctx), vp.asarray(k, context=anyctx)
    same_bits(vp.ldexp(x, e).numpy(), want, "vp.ldexp")
    same_bits(vp.jit(lambda p, q: vp.ldexp(p, q))(x, e).numpy(), want, "vp.ldexp in vp.jit")
    assert want[2010] == np.float32(8.3782e-41)


def test_clip_where_and_operators(anyctx):
    x = _values()
    xv = vp.asarray(x, context=anyctx)
    tiny = np.float32(3e-41)
    for lo, hi in ((-tiny, tiny), (np.float32(-1e-39), np.float32(0.0)), (np.float32(0), np.inf)):
        want = np.clip(x, lo, hi)
        got = vp.clip(xv, lo, hi).numpy()
        keep = ~((x == 0) & ((lo == 0) | (hi == 0)))
        same_bits(got[keep], want[keep], f"vp.clip({lo}, {hi})")
    c = (x.view(np.uint32) & 1).astype(bool)
    same_bits(vp.where(vp.asarray(c, context=anyctx), xv, vp.negative(xv)).numpy(),
              np.where(c, x, -x), "vp.where")
    same_bits((-xv).numpy(), -x, "-x")
    same_bits(abs(xv).numpy(), np.abs(x), "abs(x)")


def test_jit(anyctx):
    x, y = _pairs()
    f = vp.jit(lambda a, b: vp.copysign(vp.maximum(vp.absolute(a), vp.minimum(a, -b)), b))
    got = f(vp.asarray(x, context=anyctx), vp.asarray(y, context=anyctx)).numpy()
    want = np.copysign(np.maximum(np.abs(x), np.minimum(x, -y)), y)
    keep = ~((x == 0) & (y == 0))
    same_bits(got[keep], want[keep], "vp.jit")


@vp.kernel
def exact_ops(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32], o: vp.Buffer[vp.float32]):
    i = vp.global_id()
    a = x[i]
    b = y[i]
    o[6 * i] = -a
    o[6 * i + 1] = abs(a)
    o[6 * i + 2] = vp.sign(a)
    o[6 * i + 3] = min(a, b)
    o[6 * i + 4] = max(a, b)
    o[6 * i + 5] = vp.clamp(a, min(b, 0.0), max(b, 0.0))


def test_kernel(anyctx):
    x, y = _pairs()
    keep = ~np.isnan(x) & ~np.isnan(y)  # GLSL's min/max/clamp leave NaN open
    x, y = x[keep], y[keep]
    o = vp.empty(6 * x.size, np.float32, context=anyctx)
    exact_ops(vp.asarray(x, context=anyctx), vp.asarray(y, context=anyctx), o, dispatch=x.size)
    got = o.numpy().reshape(-1, 6)
    lo, hi = np.minimum(y, np.float32(0)), np.maximum(y, np.float32(0))
    zz = (x == 0) & (y == 0)
    for k, (what, want, skip) in enumerate([
            ("-x", -x, None), ("abs", np.abs(x), None), ("sign", np.sign(x), x == 0),
            ("min", np.where(y < x, y, x), zz), ("max", np.where(x < y, y, x), zz),
            ("clamp", np.minimum(np.maximum(x, lo), hi), (x == 0) | (y == 0))]):
        m = np.ones(x.size, bool) if skip is None else ~skip
        same_bits(got[m, k], want[m].astype(np.float32), f"kernel {what}")
        assert (got[~m, k] == 0).all(), what


# ------------------------------------------------------------ the GLSL

def test_the_glsl_has_no_float_op_on_the_value(ctx):
    """What makes the values above right on a flushing device: -x, abs,
    sign are bit operations; min, max, clamp, floor, ceil branch on
    VP_DENORM_EMULATE to integer keys and exponent tests (the GLSL built-in
    where the constant is false, folded by the driver)."""
    f = vp.jit(lambda a, b: vp.clip(vp.sign(vp.floor(-vp.absolute(a)) + vp.ceil(b)), a, b) +
               vp.maximum(a, b))
    a = np.ones(8, np.float32)
    f(a, a)
    src = f.glsl
    for helper in ("vp_negf(", "vp_fabsf(", "vp_signf(", "vp_floorf(", "vp_ceilf(", "vp_maxf(",
                   "vp_minf("):
        assert helper in src, helper
    assert "floatBitsToUint(x) ^ 0x80000000u" in src and "& 0x7fffffffu" in src
    assert "if (VP_DENORM_EMULATE) return vp_keyf(b) < vp_keyf(a) ? b : a;" in src
    assert "layout(constant_id = 2045) const bool VP_DENORM_EMULATE = false;" in src
    main = src[src.index("void main()"):]
    for builtin in ("abs(", "sign(", "floor(", "ceil(", " max(", " min("):
        assert builtin not in main, builtin


def test_fast_math_keeps_the_builtins(ctx):
    """fast_math opts out (the device's default, as CUDA's --use_fast_math)."""
    f = vp.jit(lambda a: vp.maximum(-vp.absolute(a), vp.floor(a)), fast_math=True)
    f(np.ones(8, np.float32))
    assert "vp_negf" not in f.glsl and "vp_maxf" not in f.glsl and "VP_DENORM_EMULATE" not in f.glsl


def test_flushes_subnormals_says_what_the_device_does(ctx):
    """lavapipe keeps subnormals in every mode; a device that flushes says so
    (the H200: True), and test_ufunc.py's references follow it."""
    assert isinstance(ctx.flushes_subnormals, bool)
    assert ctx.flushes_subnormals == ctx.info["denorm_flush"]
    if 32 in ctx.denorm_preserve:
        assert not ctx.flushes_subnormals
    if ctx.info["driver_name"] and "llvmpipe" in ctx.info["driver_name"].lower():
        assert not ctx.flushes_subnormals
    # on a flushing device, plain arithmetic does flush: the property is true
    x = vp.asarray(np.array([1e-40, -1e-40], np.float32), context=ctx)
    kept = (x * np.float32(3)).numpy()
    assert (kept[0] == 0) == ctx.flushes_subnormals
