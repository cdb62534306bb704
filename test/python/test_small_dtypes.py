"""int8, uint8, int16, uint16 and float16 (issue 19) against NumPy.

Resident arrays of the small dtypes are stored at their own size (1 or 2
bytes an element) where the device has 8/16-bit storage and the type's
arithmetic feature, else packed in 32-bit words (lib/Transforms/lower_arrays/,
"small types emulated in words"); every test here runs both ways (`mode`: the
emulated one tells the compiler the device lacks storage8/int8/storage16/
int16/float16, as test_jit's fallback test does). On the array path the
small types are computed in 32 bits and narrowed when stored
(lower-small-types, lib/Transforms/small_types.c): integer results wrap as NumPy's,
float16 results are rounded to nearest even as NumPy's (which computes
float16 in float32 too), so results are compared bit for bit, except
float16 transcendental functions (NumPy's float32 libm vs the device's:
1 float16 ulp) and float16 sums (summation order: float32 accumulators).
"""
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target

SMALL = [np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16, np.float16)]
OTHER = [np.dtype(t) for t in (np.bool_, np.int32, np.uint32, np.int64, np.float32,
                               np.float64)]
INTS = [d for d in SMALL if d.kind in "iu"]
F16 = np.dtype(np.float16)
LACK = ("storage8", "int8", "storage16", "int16", "float16")
SETTINGS = settings(max_examples=10, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])


@pytest.fixture(params=["native", "emulated", "gpu-lowering", "gpu-emulated"])
def mode(request, ctx, monkeypatch):
    """'native': the device's 8/16-bit storage; 'emulated': u32 words;
    'gpu-*': lowered as for a GPU (on lavapipe the lowering is the CPU
    device's: the vec4 planner then reads 4 bytes / 4 half-words at once)."""
    if request.param.startswith("gpu"):
        monkeypatch.setattr(ctx, "_vp_cpu_lowering", False, raising=False)
    if request.param.endswith("emulated"):
        from vulpy import _engine
        names = vp._native.ext().feature_names()
        lack = sum(1 << i for i, n in enumerate(names) if n in LACK)
        monkeypatch.setattr(ctx, "_vp_feature_masks", (lack, _engine._masks(ctx)[1]))
    else:
        for f in ("storage8", "int8", "storage16", "int16", "float16"):
            if not ctx.has(f):
                pytest.skip(f"the device lacks {f}")
    return request.param


def same(got, want, what=""):
    """Bit-exact equality (NaNs: anywhere NumPy has one; their payloads
    are the device's)."""
    got = got.numpy() if isinstance(got, vp.ndarray) else np.asarray(got)
    want = np.asarray(want)
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != NumPy's {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    if want.dtype.kind == "f":
        nan = np.isnan(want)
        assert np.array_equal(np.isnan(got), nan), f"{what}: NaNs differ"
        got, want = got[~nan], want[~nan]
        u = np.dtype(f"u{want.dtype.itemsize}")
        bad = got.view(u) != want.view(u)
        assert not bad.any(), f"{what}: {got[bad][:6]} != NumPy's {want[bad][:6]}"
    else:
        assert np.array_equal(got, want), f"{what}: {got} != NumPy's {want}"


def values(dt, n, seed=0):
    """n values of dt covering its range: extremes, zero, -1, wrap-around
    neighbours; float16 with subnormals, +-0, +-inf, NaN."""
    r = np.random.default_rng(seed)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        edge = np.array([info.min, info.max, 0, 1, info.max - 1, info.min + 1] +
                        ([-1, -2] if dt.kind == "i" else [2, 3]), np.int64)
        x = np.concatenate([edge, r.integers(info.min, int(info.max) + 1, max(n, 1))])
        return x[:n].astype(dt)
    edge = np.array([0.0, -0.0, 1.0, -1.0, 65504, -65504, 6e-8, -6e-8, 6.1e-5, 1e-6,
                     np.inf, -np.inf, np.nan, 0.5, 2049, 0.1], np.float16)
    x = np.concatenate([edge, (r.standard_normal(max(n, 1)) *
                               np.exp2(r.uniform(-20, 14, max(n, 1)))).astype(np.float16)])
    return x[:n]


# ------------------------------------------------------------ memory
@pytest.mark.parametrize("dt", SMALL, ids=lambda d: d.name)
@pytest.mark.parametrize("n", [1, 3, 5, 4097])
def test_roundtrip_bit_exact(dt, n, ctx):
    a = values(dt, n)
    x = vp.asarray(a)
    assert x.dtype == dt and x.nbytes == a.nbytes and x.itemsize == dt.itemsize
    assert x.numpy().tobytes() == a.tobytes()
    h = vp.asarray(a, memory="host")
    assert h.numpy_view().tobytes() == a.tobytes()
    assert h.numpy_view().dtype == dt


@pytest.mark.parametrize("dt", SMALL, ids=lambda d: d.name)
def test_creation(dt, mode):
    for n in (1, 3, 5, 4097):
        same(vp.zeros(n, dt), np.zeros(n, dt), f"zeros {n}")
        same(vp.ones(n, dt), np.ones(n, dt), f"ones {n}")
        same(vp.full(n, 7, dt), np.full(n, 7, dt), f"full {n}")
        assert vp.empty(n, dt).dtype == dt
    same(vp.arange(5, dtype=dt), np.arange(5, dtype=dt), "arange")
    same(vp.arange(2, 100, 7, dtype=dt), np.arange(2, 100, 7, dtype=dt), "arange step")
    same(vp.full((2, 3), -1 if dt.kind != "u" else 200, dt),
         np.full((2, 3), -1 if dt.kind != "u" else 200, dt), "full 2-D")


# ------------------------------------------------------------ casts
def _castable(a, to):
    """NumPy's float -> int is undefined out of range (and for NaN/inf):
    the values of a that every target holds."""
    if a.dtype.kind == "f" and to.kind in "iu":
        info = np.iinfo(to)
        a = a[np.isfinite(a)]
        a = np.trunc(a.astype(np.float64))
        a = a[(a >= info.min) & (a <= info.max)]
    return a


@pytest.mark.parametrize("src", SMALL + OTHER, ids=lambda d: d.name)
def test_astype_every_pair(src, mode):
    if src.kind == "b":
        a = np.array([True, False, True, True, False])
    elif src.kind == "f" and src.itemsize > 2:
        r = np.random.default_rng(3)
        a = np.concatenate([[0.0, -0.0, 0.5, -0.5, 1.5, 2.5, 127.9, -128.9, 255.5, 65519.0,
                             65520.0, 1e-7, 3e-8, np.inf, -np.inf, np.nan, 1 + 2 ** -11 + 2 ** -30],
                            r.standard_normal(101) * 300]).astype(src)
    elif src.kind == "f":
        a = values(src, 301)
    else:
        a = values(src, 301) if src in SMALL else np.concatenate(
            [np.array([0, 1, -1 if src.kind == "i" else 2, 127, 128, 255, 256, 32767, 32768,
                       65535, 65536, 70000], np.int64).astype(src),
             np.random.default_rng(4).integers(0, 1 << 20, 50).astype(src)])
    for to in SMALL + OTHER:
        if src not in SMALL and to not in SMALL:
            continue
        b = _castable(a, to)
        with np.errstate(all="ignore"):
            want = b.astype(to)
        same(vp.asarray(b).astype(to), want, f"{src.name} -> {to.name}")


def test_float64_to_float16_rounds_once(ctx):
    """float64 -> float16 is one correct rounding (NumPy's double->half),
    not float64 -> float32 -> float16: 1 + 2**-11 + 2**-40 is 1.001, not 1.0."""
    d = np.array([1 + 2 ** -11 + 2 ** -40, 1 + 2 ** -11, -(1 + 2 ** -11 + 2 ** -40),
                  2 ** -25 + 2 ** -50, 65519.99, 65520.0], np.float64)
    with np.errstate(over="ignore"):
        same(vp.asarray(d).astype(np.float16), d.astype(np.float16), "f64 -> f16")


def test_float16_every_bit_pattern(mode):
    """All 65536 float16 values to float32 and back, exactly."""
    h = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
    f = vp.asarray(h).astype(np.float32)
    same(f, h.astype(np.float32), "f16 -> f32")
    same(f.astype(np.float16), h, "f32 -> f16")
    # every float32 rounding case around each float16: halfway points, ties to even
    hf = h[np.isfinite(h)].astype(np.float32)
    mid = np.concatenate([np.nextafter(hf, np.float32(np.inf)),
                          np.nextafter(hf, np.float32(-np.inf)),
                          (hf.astype(np.float64) * (1 + 2 ** -11)).astype(np.float32)])
    with np.errstate(over="ignore"):
        same(vp.asarray(mid).astype(np.float16), mid.astype(np.float16), "f32 -> f16 ties")


# ------------------------------------------------------------ ufuncs
BINARY = ["add", "subtract", "multiply", "floor_divide", "remainder", "minimum", "maximum",
          "less", "less_equal", "greater", "greater_equal", "equal", "not_equal"]
INT_ONLY = ["bitwise_and", "bitwise_or", "bitwise_xor"]


def _nonzero_divisor(op, b):
    if op in ("floor_divide", "remainder") and b.dtype.kind in "iu":
        b = b.copy()
        b[b == 0] = 1
    return b


@pytest.mark.parametrize("op", BINARY + INT_ONLY + ["divide", "power"])
@pytest.mark.parametrize("dt", SMALL, ids=lambda d: d.name)
def test_binary_same_dtype(op, dt, mode):
    if op in INT_ONLY and dt.kind == "f":
        pytest.skip("integer-only")
    n = 37
    a, b = values(dt, n, 1), values(dt, n, 2)[::-1].copy()
    b = _nonzero_divisor(op, b)
    if op == "power":
        if dt.kind == "f":
            a, b = np.abs(a), (b % 4).astype(dt)
        else:
            b = (b % 9).astype(dt)  # NumPy refuses negative integer powers
    if dt == F16 and op in ("floor_divide", "remainder"):
        # finite divisors, quotients below 2**11: the float32 loops these
        # run in differ from NumPy for infinite divisors and huge quotients
        # (a float32 issue, README "Limitations")
        b = np.where(np.isfinite(b) & (np.abs(b) > 1e-3), b, np.float16(3))
        a = np.where(np.abs(a.astype(np.float32) / b) < 2048, a, np.float16(5))
    if dt.kind in "iu" and op in ("floor_divide", "remainder"):
        # NumPy leaves MIN // -1 to C (it warns); everything else is defined
        bad = (a == np.iinfo(dt).min) & (b == -1) if dt.kind == "i" else np.zeros(n, bool)
        b[bad] = 1
    with np.errstate(all="ignore"):
        want = getattr(np, op)(a, b)
    got = getattr(vp, op)(vp.asarray(a), vp.asarray(b))
    if dt == F16 and op in ("power", "divide", "remainder", "floor_divide"):
        np.testing.assert_allclose(got.numpy().astype(np.float64), want.astype(np.float64),
                                   rtol=1e-3, atol=0, equal_nan=True, err_msg=op)
        assert got.dtype == want.dtype
    else:
        same(got, want, f"{op} {dt.name}")


@pytest.mark.parametrize("dt", SMALL, ids=lambda d: d.name)
def test_wraparound_and_sign_extension(dt, mode):
    if dt.kind == "f":
        a = np.array([60000, -60000, 1e-7, 6e-8], np.float16)
        with np.errstate(over="ignore"):
            same(vp.asarray(a) * 2, a * 2, "f16 overflow to inf / subnormals")
        return
    info = np.iinfo(dt)
    a = np.array([info.max, info.min, info.max - 3, 0], dt)
    x = vp.asarray(a)
    same(x + 1, a + dt.type(1), "max + 1 wraps")
    same(x - 1, a - dt.type(1), "min - 1 wraps")
    same(x * x, a * a, "square wraps")
    same(-x, -a, "negative")
    same(~x, ~a, "invert")
    same(vp.absolute(x), np.absolute(a), "abs(min) wraps")
    same(x.astype(np.int32), a.astype(np.int32), "sign extension")


PROMOTIONS = [(np.uint8, np.uint8), (np.int8, np.uint8), (np.int16, np.float16),
              (np.uint16, np.int8), (np.uint8, np.float16), (np.int8, np.float32),
              (np.uint16, np.int32), (np.float16, np.float64), (np.int8, np.bool_),
              (np.uint8, np.int64), (np.float16, np.float32), (np.uint16, np.uint32)]


@pytest.mark.parametrize("da,db", PROMOTIONS, ids=lambda d: np.dtype(d).name)
def test_promotion(da, db, mode):
    """NumPy's result dtypes (and values) for mixed operands."""
    a = values(np.dtype(da), 9, 5) if np.dtype(da) in SMALL else np.arange(9).astype(da)
    b = values(np.dtype(db), 9, 6) if np.dtype(db) in SMALL else np.arange(9).astype(db)
    for op in ("add", "multiply", "maximum", "less"):
        with np.errstate(all="ignore"):
            want = getattr(np, op)(a, b)
        same(getattr(vp, op)(vp.asarray(a), vp.asarray(b)), want, f"{op} {da} {db}")


@pytest.mark.parametrize("dt", SMALL, ids=lambda d: d.name)
def test_python_scalars_are_weak(dt, mode):
    """NEP 50 (NumPy >= 2): u8 + 1 stays uint8, f16 * 2.5 stays float16;
    a Python int the dtype cannot hold is an OverflowError as in NumPy."""
    assert int(np.__version__.split(".")[0]) >= 2
    a = values(dt, 11, 7)
    x = vp.asarray(a)
    with np.errstate(all="ignore"):
        same(x + 1, a + 1, "+ 1")
        same(x * 3, a * 3, "* 3")
        same(x - 2, a - 2, "- 2")
        same(x * 2.5, a * 2.5, "* 2.5 (int -> float64, float16 stays)")
        same(x < 5, a < 5, "< 5")
    if dt.kind in "iu":
        with pytest.raises(OverflowError):
            np.add(a, 1 << 20)
        with pytest.raises(OverflowError):
            vp.add(x, 1 << 20)


@pytest.mark.parametrize("dt", SMALL, ids=lambda d: d.name)
def test_unary(dt, mode):
    a = values(dt, 41, 8)
    x = vp.asarray(a)
    with np.errstate(all="ignore"):
        for op in ("negative", "absolute", "sign", "square", "isnan", "isinf", "isfinite",
                   "logical_not"):
            same(getattr(vp, op)(x), getattr(np, op)(a), op)
        if dt == F16:
            for op in ("floor", "ceil", "trunc", "rint", "sqrt"):
                same(getattr(vp, op)(x), getattr(np, op)(a), op)
            for op in ("sin", "exp", "log", "tanh"):
                # the float32 function rounded to float16 (NumPy's own
                # float16 loops are not always that: its tanh(8.0) is 0.9985,
                # not 1.0), the device's float32 libm vs NumPy's: 2 ulps
                got = getattr(vp, op)(x).numpy()
                want = getattr(np, op)(a.astype(np.float32)).astype(np.float16)
                assert got.dtype == np.float16 == getattr(np, op)(a).dtype
                g64, w64 = got.astype(np.float64), want.astype(np.float64)
                tol = 2 * np.spacing(np.abs(want)).astype(np.float64)
                ok = (np.abs(g64 - w64) <= tol) | (np.isnan(g64) & np.isnan(w64)) | (g64 == w64)
                assert ok.all(), (op, a[~ok], got[~ok], want[~ok])
        else:
            same(vp.invert(x), np.invert(a), "invert")


@given(data=st.data())
@SETTINGS
def test_hypothesis_elementwise(data, mode):
    """Random dtypes (a small one and any), shapes (broadcasting, empty,
    0-d, odd lengths), ops, and strided views."""
    da = data.draw(st.sampled_from(SMALL))
    db = data.draw(st.sampled_from(SMALL + OTHER[1:]))
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5))
    bshape = data.draw(hnp.broadcastable_shapes(shape, min_dims=0, max_dims=3, max_side=5))
    op = data.draw(st.sampled_from(["add", "subtract", "multiply", "maximum", "minimum",
                                    "greater", "equal", "where"]))
    n = int(np.prod(shape)) * 2 + 1
    a = values(da, n, data.draw(st.integers(0, 9)))[1:][::2][:int(np.prod(shape))].reshape(shape)
    b = (values(db, int(np.prod(bshape)), 3) if db in SMALL else
         np.arange(int(np.prod(bshape))).astype(db)).reshape(bshape)
    strided = data.draw(st.booleans()) and a.ndim > 0
    if strided:  # a view with an odd offset into a wider array
        wide = np.zeros(shape[:-1] + (2 * shape[-1] + 1,), da)
        wide[..., 1::2] = a
        xa = vp.asarray(wide)[..., 1::2]
    else:
        xa = vp.asarray(a)
    xb = vp.asarray(b)
    with np.errstate(all="ignore"):
        if op == "where":
            want = np.where(a > 0, a, b)
            got = vp.where(xa > 0, xa, xb)
        else:
            want = getattr(np, op)(a, b)
            got = getattr(vp, op)(xa, xb)
    same(got, want, f"{op} {da.name} {db.name} {shape} {bshape} strided={strided}")


@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64], ids=lambda d: d.__name__)
def test_fmod_zero_keeps_the_sign(dt, ctx):
    """C's fmod (NumPy's): a zero result has the dividend's sign; found by
    the float16 tests, the float32/float64 composition had it as +0.0."""
    a = np.array([-0.0, -1.5, 1.5, -3.0, 2.25, -2.25], dt)
    with np.errstate(all="ignore"):
        same(vp.fmod(vp.asarray(a), dt(0.75)), np.fmod(a, dt(0.75)), f"fmod {dt.__name__}")


# ------------------------------------------------------------ views, stores
@pytest.mark.parametrize("dt", SMALL, ids=lambda d: d.name)
def test_neighbours_untouched(dt, mode):
    """Writes into every other / every third element, at odd offsets, of
    byte- and half-word-sized arrays leave the elements between alone
    (in words, two invocations write bytes of one word)."""
    for n in (3, 5, 4097):
        base = values(dt, n, 9)
        src = values(dt, n, 10)
        for sl in (slice(1, None, 2), slice(0, None, 3), slice(2, n - 1), slice(None, None, -1)):
            x = vp.asarray(base)
            x[sl] = vp.asarray(src[sl])
            want = base.copy()
            want[sl] = src[sl]
            same(x, want, f"x[{sl}] = ... n={n}")
        x = vp.asarray(base)
        k = len(range(*slice(1, n, 2).indices(n)))
        vp.add(vp.asarray(src[:k]), vp.asarray(src[:k]), out=x[1::2])
        want = base.copy()
        with np.errstate(all="ignore"):
            want[1::2] = src[:k] + src[:k]
        same(x, want, f"out= odd view n={n}")
        x = vp.asarray(base)
        x[1::2] = 3
        want = base.copy()
        want[1::2] = 3
        same(x, want, f"fill odd view n={n}")


@pytest.mark.parametrize("dt", SMALL, ids=lambda d: d.name)
def test_copy_and_views(dt, mode):
    a = values(dt, 4097, 11)
    x = vp.asarray(a)
    same(x[1::2].copy(), a[1::2], "copy of an odd view")
    same(x[3:].copy(), a[3:], "offset 3")
    same((x[5:-2] + x[6:-1]), a[5:-2] + a[6:-1] if dt.kind != "f" else
         (a[5:-2] + a[6:-1]), "offset views")
    m = vp.asarray(a[:4096].reshape(64, 64))
    same(m.T.copy(), a[:4096].reshape(64, 64).T, "transpose")


# ------------------------------------------------------------ reductions
@pytest.mark.parametrize("dt", SMALL, ids=lambda d: d.name)
def test_reductions(dt, mode):
    a = values(dt, 4097, 12)
    if dt == F16:
        a = a[np.isfinite(a)]
        a = a[np.abs(a) < 100]
    x = vp.asarray(a)
    for kind in ("min", "max", "argmin", "argmax"):
        same(getattr(vp, kind)(x), getattr(np, kind)(a), kind)
    m = a[:1000 * (len(a) // 1000)].reshape(-1, 10 if len(a) >= 10 else 1)
    xm = vp.asarray(m)
    for kind in ("min", "max", "argmin", "argmax"):
        same(getattr(vp, kind)(xm, axis=1), getattr(np, kind)(m, axis=1), f"{kind} axis 1")
        same(getattr(vp, kind)(xm, axis=0), getattr(np, kind)(m, axis=0), f"{kind} axis 0")
    if dt.kind in "iu":  # NumPy sums small ints in int64 / uint64: exact
        same(vp.sum(x), np.sum(a), "sum")
        same(vp.sum(xm, axis=0), np.sum(m, axis=0), "sum axis 0")
        same(vp.cumsum(x), np.cumsum(a), "cumsum")
        same(vp.prod(vp.asarray(a[:20])), np.prod(a[:20]), "prod (wraps in 64 bits)")
        got, want = vp.mean(x), np.mean(a)
        assert np.asarray(got).dtype == want.dtype == np.float64
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)
    else:  # float16: float32 accumulation, rounded (NumPy's order differs)
        for kind in ("sum", "mean"):
            got, want = getattr(vp, kind)(x), getattr(np, kind)(a)
            assert np.asarray(got).dtype == np.float16 == want.dtype, kind
            exact = getattr(np, kind)(a.astype(np.float64))
            assert abs(float(got) - exact) <= 2 ** -10 * abs(exact) + 1e-3, (kind, got, exact)
        got = vp.sum(xm, axis=1).numpy()
        np.testing.assert_allclose(got.astype(np.float64), m.astype(np.float64).sum(axis=1),
                                   rtol=2 ** -10, atol=1e-2)


def test_float16_special_reductions(mode):
    a = np.array([1.0, np.nan, -np.inf, 3.0], np.float16)
    x = vp.asarray(a)
    same(vp.max(x), np.max(a), "max with NaN")
    same(vp.min(vp.asarray(a[[0, 2, 3]])), np.min(a[[0, 2, 3]]), "min with -inf")
    same(vp.argmax(x), np.argmax(a), "argmax NaN")
    same(vp.sum(vp.asarray(np.full(8, 60000, np.float16))),
         np.float16(np.inf), "sum overflows to inf")


def test_emulation_is_what_ran(ctx, monkeypatch):
    """In the emulated mode the kernels read u32 words and write bytes
    with atomic and/or; natively they declare 8/16-bit buffers."""
    from vulpy import _engine
    f = vp.jit(lambda a, h: (a + 1, h * 2.0))
    a, h = np.arange(7, dtype=np.int8), np.arange(7, dtype=np.float16)
    f(a, h)
    assert set(ctx.small_dtypes.values()) == {"native"}
    assert "i8[" in f.lowered_vir and "f16[" in f.lowered_vir
    assert "atomic.or" not in f.lowered_vir
    names = vp._native.ext().feature_names()
    lack = sum(1 << i for i, n in enumerate(names) if n in LACK)
    monkeypatch.setattr(ctx, "_vp_feature_masks", (lack, _engine._masks(ctx)[1]))
    assert ctx.small_dtypes == dict.fromkeys(("int8", "uint8", "int16", "uint16", "float16"),
                                             "words")
    g = vp.jit(lambda a, h: (a + 1, h * 2.0))
    ra, rh = g(a, h)
    same(ra, a + 1, "emulated int8")
    same(rh, h * 2.0, "emulated float16")
    assert "i8[" not in g.lowered_vir and "f16[" not in g.lowered_vir
    assert "atomic.or" in g.lowered_vir and "atomic.and" in g.lowered_vir


def test_array_vir_carries_the_small_types(ctx):
    """The traced array VIR records ops at NumPy's dtypes (int8 add, a
    float16 maximum, float64 -> float16); the C pass lower-small-types
    computes them in 32 bits (lib/Transforms/small_types.c), so the text
    `vulpy-translate --arrays` is given holds no 32-bit arithmetic."""
    f = vp.jit(lambda a, h, d: (a + a, vp.maximum(h, h), d.astype(np.float16)))
    a = np.array([100, -100, 7], np.int8)
    h = np.array([-0.0, np.nan, 2.5], np.float16)
    d = np.array([1 + 2.0 ** -11 + 2.0 ** -40, 65519.0, -1e-8])
    ra, rh, rd = f(a, h, d)
    same(ra, a + a, "int8 wraps")
    same(rh, np.maximum(h, h), "float16 maximum")
    same(rd, d.astype(np.float16), "float64 -> float16 rounds once")
    assert re.search(r"array.ufunc add .* : tensor<3xi8>", f.vir), f.vir
    assert re.search(r"array.ufunc maximum .* : tensor<3xf16>", f.vir), f.vir
    assert "xi32>" not in f.vir and "xf32>" not in f.vir and "bitcast" not in f.vir, f.vir


# ------------------------------------------------------------ kernels
def test_kernel_small_buffers(ctx):
    """vp.Buffer[vp.int8] ... in a kernel: arithmetic at the type's own
    width where the device has it (wrapping as NumPy), float16 likewise."""
    for f in ("storage8", "int8", "storage16", "int16", "float16"):
        if not ctx.has(f):
            pytest.skip(f"the device lacks {f}")

    @vp.kernel
    def k(a: vp.Buffer[vp.int8], b: vp.Buffer[vp.uint8], c: vp.Buffer[vp.int16],
          d: vp.Buffer[vp.uint16], h: vp.Buffer[vp.float16], o: vp.Buffer[vp.int32]):
        i = vp.global_id().x
        if i < 5:
            a[i] = a[i] + vp.int8(100)
            b[i] = b[i] * vp.uint8(3)
            c[i] = c[i] - vp.int16(1)
            d[i] = d[i] + vp.uint16(1)
            h[i] = h[i] * vp.float16(2.0)
            o[i] = vp.int32(a[i])

    a = np.array([100, -100, 27, 1, -128], np.int8)
    b = np.arange(250, 255).astype(np.uint8)
    c = np.array([-32768, 0, 5, 7, 32767], np.int16)
    d = np.array([65535, 0, 1, 2, 65534], np.uint16)
    h = np.array([1, 60000, 1e-7, np.inf, -2], np.float16)
    xs = [vp.asarray(v) for v in (a, b, c, d, h, np.zeros(5, np.int32))]
    k(*xs, dispatch=5)
    with np.errstate(all="ignore"):
        same(xs[0], a + np.int8(100), "int8 kernel")
        same(xs[1], b * np.uint8(3), "uint8 kernel")
        same(xs[2], c - np.int16(1), "int16 kernel")
        same(xs[3], d + np.uint16(1), "uint16 kernel")
        same(xs[4], h * np.float16(2), "float16 kernel")
    same(xs[5], (a + np.int8(100)).astype(np.int32), "int8 sign extension")


def test_unsupported_dtype_message():
    with pytest.raises(TypeError, match="complex|not supported"):
        vp.zeros(3, np.float128 if hasattr(np, "float128") else np.complex256)


def test_jit_python_scalars(mode):
    """vp.jit with a Python scalar argument: NEP 50 at every call (u8 + 250
    wraps; u8 + 300 is NumPy's OverflowError, not a value that skips the
    narrowing); float16 + 0.1 rounds 0.1 to float16 first, as NumPy."""
    f = vp.jit(lambda a, s: a + s)
    a = np.arange(7, dtype=np.uint8) + np.uint8(10)
    same(f(a, 3), a + 3, "u8 + 3")
    same(f(a, 250), a + 250, "u8 + 250 wraps")
    with pytest.raises(OverflowError, match="300"):
        f(a, 300)
    h = values(F16, 9, 13)
    with np.errstate(all="ignore"):
        same(f(h, 0.1), h + 0.1, "f16 + 0.1")
    i = np.array([-128, 5, 127], np.int8)
    same(f(i, -1), i + np.int8(-1), "i8 - 1 wraps")
