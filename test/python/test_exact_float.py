"""Float arithmetic as written (docs/runtime.md, "Float arithmetic as
written"): the kernels VulPy compiles with precise math get
SignedZeroInfNanPreserve where the device offers it, and NoContraction on
every float instruction.

Bug: without either, lavapipe's NIR folded float arithmetic as fast math
does. In vp.jit and @vp.kernel, x - x gave 0 for inf and NaN (NumPy NaN),
and (x + 1e20) - 1e20 gave x (NumPy 0.0 for every |x| < 4e12, float32).
On the H200 (NVIDIA 580, with SignedZeroInfNanPreserve alone) (x + 1e20)
- 1e20 was still x. Eager ufuncs were right only because each operation is
its own kernel.
The patch itself is checked with spirv-val by test/unit/Runtime/
test_denorm.c; lit Runtime/exact-float.test runs it through vulpy-run.
"""
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import vulpy as vp
from conftest import divides_correctly, needs_ext, needs_target

pytestmark = [needs_ext, needs_target]

FLOATS = [np.float16, np.float32, np.float64]
SPECIAL = [0.0, -0.0, 1.0, -2.5, 3.0, np.inf, -np.inf, np.nan, 1e-3, 7.0]
# a constant c with (1 + c) - c == 0 in the type (c's spacing is over 2)
BIG = {np.float16: 4096.0, np.float32: 1e20, np.float64: 1e300}


def _np(x):
    return x.get() if hasattr(x, "get") else np.asarray(x)


def _same(got, want, what=""):
    """Bit-for-bit NumPy: dtype, shape, values, NaN where NaN, zero signs."""
    got, want = _np(got), np.asarray(want)
    assert got.dtype == want.dtype, (what, got.dtype, want.dtype)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    bad = ~(((got == want) & (np.signbit(got) == np.signbit(want))) |
            (np.isnan(got) & np.isnan(want)))
    assert not bad.any(), (what, np.argwhere(bad)[:5].tolist(), got[bad][:5], want[bad][:5])


def _want(f, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args)


def _needs(dt):
    c = vp.default_context()
    if dt == np.float64 and "float64" not in c.info["features"]:
        pytest.skip("no float64 on this device")
    if dt == np.float16 and "float16" not in c.info["features"]:
        pytest.skip("no float16 arithmetic on this device")
    return c


def _cases(dt):
    big = dt(BIG[dt])
    return [("x - x", lambda a: a - a),
            ("(x + big) - big", lambda a: (a + big) - big),
            ("(x - big) + big", lambda a: (a - big) + big),
            ("x + (-x)", lambda a: a + (-a)),
            ("(x * 2) - x - x", lambda a: (a * dt(2)) - a - a)]


@pytest.mark.parametrize("dt", FLOATS)
def test_jit_keeps_the_arithmetic_as_written(dt):
    _needs(dt)
    x = np.array(SPECIAL, dt)
    xv = vp.asarray(x)
    for name, f in _cases(dt):
        _same(vp.jit(f)(xv), _want(f, x), "jit " + name)
        _same(f(xv), _want(f, x), "eager " + name)


def _f32_near_half_steps(n, rng):
    """float32s over float16's range and past it: random bits, ties (the 13
    bits a float16 drops exactly half), float16's subnormals and their ties,
    the overflow edge (65504, 65519.99, 65520), zeros, inf and NaN."""
    e = rng.integers(95, 146, n).astype(np.uint32)  # 2^-32 .. 2^18
    m = rng.integers(0, 1 << 23, n).astype(np.uint32)
    m[::3] = (m[::3] & ~np.uint32(0x1FFF)) | 0x1000   # ties at normal float16s
    bits = (e << 23) | m
    bits[1::2] |= np.uint32(0x80000000)
    y = bits.view(np.float32).copy()
    k = np.arange(n // 4, dtype=np.float32)
    y[:n // 4] = np.where(k % 2 == 0, (k + 0.5), k + 0.25) * np.float32(2.0 ** -24)  # subnormal ties
    edge = [65504.0, 65519.99, 65520.0, -65520.0, 7e4, 0.0, -0.0, np.inf, -np.inf, np.nan,
            2.0 ** -25, 2.0 ** -25 * 1.0000001, -(2.0 ** -25), 2.0 ** -14, 2.0 ** -14 * (1 - 2.0 ** -12)]
    y[-len(edge):] = edge
    return y


def test_jit_rounds_each_float16_step():
    # Bug: a fused float16 chain widened each step's float16 result back
    # with float(float16_t(y)); the H200's compiler drops that pair, so the
    # chain kept float32 intermediates: (x + 4096) - 4096 was x, NumPy 0.0.
    # The widening is now the rounding spelled in integer ops.
    _needs(np.float16)
    rng = np.random.default_rng(5)
    y = _f32_near_half_steps(1 << 16, rng)
    one = np.float16(1)
    f = vp.jit(lambda v: v.astype(np.float16) * one)
    _same(f(vp.asarray(y)), _want(lambda v: v.astype(np.float16) * one, y), "round to half")
    a = rng.integers(0, 1 << 16, 1 << 16, dtype=np.uint16).view(np.float16)
    b = rng.integers(0, 1 << 16, 1 << 16, dtype=np.uint16).view(np.float16)
    av, bv = vp.asarray(a), vp.asarray(b)
    for name, g in [("(a + b) - b", lambda p, q: (p + q) - q),
                    ("(a * b) * 1", lambda p, q: (p * q) * one),
                    ("(a - b) * b", lambda p, q: (p - q) * q)]:
        _same(vp.jit(g)(av, bv), _want(g, a, b), name)


KERNELS = '''import vulpy as vp


@vp.kernel
def sub_self(a: vp.Buffer[vp.float32], o: vp.Buffer[vp.float32]):
    i = vp.global_id()
    o[i] = a[i] - a[i]


@vp.kernel
def add_sub(a: vp.Buffer[vp.float32], o: vp.Buffer[vp.float32], big: vp.float32):
    i = vp.global_id()
    o[i] = (a[i] + 1e20) - 1e20 + (a[i] - big) + big
'''


def test_kernel_keeps_the_arithmetic_as_written(tmp_path):
    """@vp.kernel: o[i] = a[i] - a[i] was 0 for inf and NaN, and
    (a + 1e20) - 1e20 was a (lavapipe)."""
    import importlib.util
    path = tmp_path / "exact_kernels.py"
    path.write_text(KERNELS)
    spec = importlib.util.spec_from_file_location("exact_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    x = np.array(SPECIAL, np.float32)
    o = np.zeros_like(x)
    mod.sub_self(x, o, dispatch=x.size)
    _same(o, _want(lambda a: a - a, x), "a[i] - a[i]")
    big = np.float32(1e20)
    mod.add_sub(x, o, big=big, dispatch=x.size)
    _same(o, _want(lambda a: ((a + big) - big) + (a - big) + big, x), "(a + 1e20) - 1e20")


def test_what_each_kernel_gets():
    """The device says what it offers; a precise kernel's pipeline says what
    it got; fast math gets neither."""
    c = vp.default_context()
    info = c.info
    assert isinstance(info["inf_nan_preserve"], tuple)
    f = vp.jit(lambda a: a - a)
    x = vp.asarray(np.ones(4, np.float32))
    f(x)
    stats = [k.stats for k in c._kernels.values()
             if hasattr(k, "stats") and isinstance(k.stats, dict) and "no_contraction" in k.stats]
    assert stats, "no pipeline made"
    if 32 in info["inf_nan_preserve"]:
        assert any(s["inf_nan_preserve"] == (32,) for s in stats), stats
    assert any(s["no_contraction"] >= 1 for s in stats), stats
    if info["driver_id"] == 13:  # VK_DRIVER_ID_MESA_LLVMPIPE: lavapipe offers every width
        assert info["inf_nan_preserve"] == (16, 32, 64)


_OPS = ["+", "-", "*", "/"]


def _tree(depth):
    leaf = st.sampled_from(["a", "b", "c"])
    if depth == 0:
        return leaf
    sub = _tree(depth - 1)
    return st.one_of(leaf, st.tuples(st.sampled_from(_OPS), sub, sub))


def _eval(e, a, b, c):
    if e == "a":
        return a
    if e == "b":
        return b
    if e == "c":
        return c
    op, l, r = e
    x, y = _eval(l, a, b, c), _eval(r, a, b, c)
    return {"+": lambda: x + y, "-": lambda: x - y, "*": lambda: x * y, "/": lambda: x / y}[op]()


_VALUES = st.one_of(st.sampled_from([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 3.0, 1e20,
                                     -1e20, 0.5, 1e-20]),
                    st.floats(-1e6, 1e6, allow_nan=False, width=32))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(e=_tree(3), av=st.lists(_VALUES, min_size=1, max_size=16), bv=st.data(),
       cv=st.sampled_from([0.5, 3.0, 1e20, -7.25, 1e-20]))
def test_jit_expressions_are_numpy_bit_for_bit(e, av, bv, cv):
    """Random + - * / trees over two arrays and a constant, float32, against
    NumPy bit for bit, on a device that divides correctly rounded and keeps
    subnormals (lavapipe; devices with a fused fma divide correctly rounded
    too, but NVIDIA flushes float32 subnormals: docs/math.md)."""
    c = vp.default_context()
    if not divides_correctly(c) or c.info["denorm_flush"]:
        pytest.skip("division within ~2 ULP or subnormals flushed on this driver")
    assume("'a'" in repr(e) or "'b'" in repr(e) or e in ("a", "b"))
    a = np.array(av, np.float32)
    b = np.array(bv.draw(st.lists(_VALUES, min_size=a.size, max_size=a.size)), np.float32)
    k = np.float32(cv)
    want = _want(lambda: _eval(e, a, b, k))
    if np.ndim(want) == 0:
        want = np.full(a.shape, want, np.float32)
    got = vp.jit(lambda x, y: _eval(e, x, y, k))(vp.asarray(a), vp.asarray(b))
    _same(got, np.asarray(want, np.float32), repr(e))
