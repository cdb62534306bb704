"""vp.sum(x) and the other full reductions of a whole resident array run one
kernel over a dynamic extent (tensor<?xT>, the length a push constant): one
compile serves every length, the grid comes from the length at each call
(the compile's grid ops, Compiled.grid), and the answers are NumPy's for
lengths around every boundary of the kernel (the vec4 tail, the workgroup,
the 64 x 256 tile, the group cap), prefixes of a longer buffer included
(the lanes past n of the last vec4 are left out)."""
import math

import numpy as np
import pytest

import vulpy as vp
from vulpy import _engine, _reduce
from conftest import needs_target

pytestmark = needs_target

KINDS = ["sum", "prod", "min", "max", "mean", "argmin", "argmax", "any", "all"]
LENGTHS = [1, 2, 3, 4, 5, 7, 8, 255, 256, 257, 1023, 1024, 1025, 4099, 16383, 16384, 16385,
           65536 * 4 + 3, 1_000_003]


def _dtypes(ctx):
    out = [np.float32, np.int32, np.uint32, np.bool_]
    if ctx.has("float64"):
        out.append(np.float64)
    if ctx.has("int64"):
        out += [np.int64, np.uint64]
    return [np.dtype(d) for d in out]


def _data(dt, n, seed=0):
    r = np.random.default_rng(seed)
    if dt.kind == "f":
        return r.standard_normal(n).astype(dt)
    if dt == np.bool_:
        return r.random(n) < 0.999  # mostly True: all() and any() both have work
    lo = -3 if dt.kind == "i" else 0
    return r.integers(lo, 4, n).astype(dt)


def _check(kind, got, want, dt, n):
    got = np.asarray(got)
    assert got.dtype == np.asarray(want).dtype, (kind, dt, n, got.dtype)
    if got.dtype.kind == "f":
        tol = 1e-9 if dt == np.float64 else 3e-5
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(1.0, np.sqrt(n)),
                                   err_msg=f"{kind} {dt} n={n}")
    else:
        assert got == want, (kind, dt, n, got, want)


def _ok(kind, dt):
    # what the kernel accumulates (bool sums, integer means: composed elsewhere)
    return not (dt == np.bool_ and kind in ("sum", "prod", "mean")) and \
        not (kind == "mean" and dt.kind in "iu")


@pytest.mark.parametrize("kind", KINDS)
def test_every_length_matches_numpy(ctx, kind):
    for dt in _dtypes(ctx):
        if not _ok(kind, dt):
            continue
        base = _data(dt, LENGTHS[-1], seed=len(kind))
        if kind == "prod" and dt.kind == "f":
            base = (1 + base / 1e4).astype(dt)  # a product that stays finite
        v = vp.asarray(base)
        for n in LENGTHS:
            h = base[:n]
            with np.errstate(all="ignore"):
                want = getattr(np, kind)(h)
            # the prefix view reads n elements of a longer buffer; the copy
            # is a whole buffer of exactly n
            _check(kind, getattr(vp, kind)(v[:n]).numpy(), want, dt, n)
            if n in (5, 257, 16385):
                _check(kind, getattr(vp, kind)(vp.asarray(h)).numpy(), want, dt, n)


@pytest.fixture
def compiled_texts(ctx, compiled_texts):
    """conftest's compiled_texts (the array VIR texts handed to
    _engine.compile from here on, the view plans dropped first), the
    context's reduction plans dropped too, so that calls compile."""
    ctx.__dict__.pop("_vp_reduce_plans", None)
    return compiled_texts


def test_one_compile_serves_every_length(ctx, compiled_texts):
    calls = compiled_texts
    for n in (10, 11, 1000, 1001, 70000, 300_001):
        x = vp.asarray(np.arange(n, dtype=np.float32))
        assert float(vp.sum(x)) == pytest.approx(n * (n - 1) / 2, rel=1e-6)
        assert float(vp.max(x)) == n - 1
    # one compile per kind (sum, max), none per length
    assert len(calls) == 2, len(calls)
    assert all("tensor<?xf32>" in t for t in calls)


@pytest.mark.parametrize("kind", ["sum", "prod", "min", "max", "argmin", "argmax", "any",
                                  "all", "mean"])
def test_lanes_past_the_end_are_left_out(ctx, kind):
    # the elements after the prefix hold what would change every answer:
    # NaN (sum, min, max, mean), 0 (prod, all), a huge value (argmax)
    for rem in (1, 2, 3):
        n = 8 + rem
        h = np.linspace(1, 2, 16).astype(np.float32)
        h[n:] = {"prod": 0.0, "all": 0.0, "argmax": 1e30, "argmin": -1e30,
                 "any": 1.0}.get(kind, np.nan)
        if kind == "any":
            h[:n] = 0.0
        v = vp.asarray(h)
        with np.errstate(all="ignore"):
            want = getattr(np, kind)(h[:n])
        _check(kind, getattr(vp, kind)(v[:n]).numpy(), want, np.dtype(np.float32), n)


def test_nan_and_ties_like_numpy(ctx):
    h = np.ones(70001, np.float32)
    h[[5, 40000]] = np.nan
    v = vp.asarray(h)
    assert np.isnan(float(vp.sum(v))) and np.isnan(float(vp.max(v)))
    assert int(vp.argmax(v)) == 5 and int(vp.argmin(v)) == 5  # the first NaN
    h = np.zeros(70001, np.float32)
    h[[17, 300, 69999]] = 3.0
    assert int(vp.argmax(vp.asarray(h))) == 17  # the first of equal maxima


def _rule(n, cap):
    """lower-arrays' group count of a full reduction of n elements."""
    tiles = -(-n // (256 * 64))
    need = -(-n // (256 * 16384))
    return max(min(tiles, cap), need, 1)


@pytest.mark.parametrize("cap", [0, 64, 1024])
def test_grid_follows_the_rule(ctx, monkeypatch, cap):
    if cap:
        monkeypatch.setenv("VULPY_REDUCE_GROUPS", str(cap))
    else:
        monkeypatch.delenv("VULPY_REDUCE_GROUPS", raising=False)
    text = _reduce._dynamic_vir("sum", np.dtype(np.float32), np.dtype(np.float32))
    comp = _engine.compile(text, ctx, label="test")
    want_cap = cap or (1024 if ctx.kind == "cpu" else 4096)
    for n in (0, 1, 16383, 16384, 16385, 1 << 20, 64 * 16384 + 1, 4096 * 16384 + 1, 1 << 30,
              (1 << 32) - 1):
        assert comp.grid(0, n) == (_rule(n, want_cap), 1, 1), n
    # the partials buffer holds the most groups any n gets
    assert f"_part : f32[{max(want_cap, 1024)}]" in comp.lowered_vir
    with pytest.raises(ValueError, match="2\\^32"):
        comp.grid(0, 1 << 32)


def test_bad_grid_ops_are_a_value_error(ctx):
    g = vp._native.ext().launch_grid
    assert g([[["push.load", 0, 0, 0, 0], ["const", 1, 0, 0, 0]], [0, 1, 1]], 7) == (7, 1, 1)
    for bad in ([[["nosuchop", 0, 0, 0, 0]], [0, 0, 0]],
                [[["add", 0, 0, 0, 0]], [0, 0, 0]],  # an operand that is not earlier
                [[["const", 1, 0, 0, 0]], [0, 0, 5]],
                [[["const", 0, 0, 0, 0], ["div", 0, 0, 0, 0]], [1, 0, 0]],  # 0 / 0
                "not a grid"):
        with pytest.raises(ValueError):
            g(bad, 3)


def test_asynchronous_and_repeated_calls(ctx):
    xs = [vp.asarray(np.arange(n, dtype=np.float32)) for n in (3, 333, 3333)]
    hs = [vp.sum(x, sync=False) for x in xs]
    for n, h in zip((3, 333, 3333), hs):
        assert float(h.wait()) == n * (n - 1) / 2


# ------------------------------------------------- the inner product of vectors

def test_vector_products_match_numpy(ctx):
    """vp.dot / vdot / matmul / @ of two vectors: one reduction kernel over
    a dynamic extent (the product summed, a tree), NumPy's answer for every
    dtype, integers wrapping as NumPy's, views copied first."""
    dts = [np.float32, np.int32, np.uint32, np.int8, np.int16, np.float16, np.bool_]
    dts += [np.float64] if ctx.has("float64") else []
    dts += [np.int64] if ctx.has("int64") else []
    r = np.random.default_rng(3)
    for dt in map(np.dtype, dts):
        for n in (1, 3, 4, 5, 257, 16385, 70001):
            if dt.kind == "f":
                a, b = (r.standard_normal(n).astype(dt) for _ in range(2))
            elif dt == np.bool_:
                a, b = r.random(n) < 0.01, r.random(n) < 0.5
            else:  # large enough that int8..int32 products and sums wrap
                info = np.iinfo(dt)
                a, b = (r.integers(max(info.min, -(1 << 20)), min(info.max, 1 << 20), n)
                        .astype(dt) for _ in range(2))
            want = np.dot(a, b)
            av, bv = vp.asarray(a), vp.asarray(b)
            for got in (vp.dot(a, b), vp.dot(av, bv).numpy(), vp.vdot(av, bv).numpy(),
                        (av @ bv).numpy(), vp.matmul(a, b)):
                got = np.asarray(got)
                assert got.dtype == want.dtype, (dt, n, got.dtype)
                if dt.kind == "f":
                    tol = {2: 2e-2, 4: 3e-5, 8: 1e-12}[dt.itemsize]
                    np.testing.assert_allclose(got, want, rtol=tol,
                                               atol=tol * np.sqrt(n) * 4)
                else:
                    assert got == want, (dt, n, got, want)
    # views: a strided and an offset operand
    a = r.standard_normal(3003).astype(np.float32)
    av = vp.asarray(a)
    np.testing.assert_allclose(vp.dot(av[::3], av[1::3]).numpy(), np.dot(a[::3], a[1::3]),
                               rtol=1e-4)
    np.testing.assert_allclose(vp.dot(av[7:], av[:-7]).numpy(), np.dot(a[7:], a[:-7]),
                               rtol=1e-4)
    # the same array twice, out=, empty
    np.testing.assert_allclose(vp.dot(av, av).numpy(), np.dot(a, a), rtol=1e-4)
    o = vp.empty((), np.float32)
    assert vp.dot(av, av, out=o) is o
    np.testing.assert_allclose(o.numpy(), np.dot(a, a), rtol=1e-4)
    assert vp.dot(np.zeros(0, np.float32), np.zeros(0, np.float32)) == 0.0
    with pytest.raises(ValueError, match="not aligned"):
        vp.dot(av, av[1:])


def test_vector_product_compiles_once(ctx, compiled_texts):
    calls = compiled_texts
    for n in (100, 101, 5000, 5001):
        a = np.arange(n, dtype=np.float32) % 3
        assert float(vp.dot(vp.asarray(a), vp.asarray(a))) == float(np.dot(a, a))
    assert len(set(calls)) == 1 and "tensor<?xf32>" in calls[0]  # one text: one compile


def test_dtype_argument_takes_the_dynamic_kernel(ctx, compiled_texts):
    """vp.sum(x, dtype=...) and vp.count_nonzero(x) (an int64 sum of bools)
    of whole arrays: one compile for every length too, NumPy's answers."""
    texts = compiled_texts
    r = np.random.default_rng(4)
    for n in (999, 1000, 70001):
        h = r.integers(-3, 4, n).astype(np.int32)
        v = vp.asarray(h)
        assert int(vp.count_nonzero(v)) == np.count_nonzero(h)
        got = vp.sum(v, dtype=np.int32)
        assert got.dtype == np.int32 and int(got) == int(h.sum(dtype=np.int32))
        f = vp.asarray(h.astype(np.float32))
        if ctx.has("float64"):
            m = vp.mean(f, dtype=np.float64)
            assert m.dtype == np.float64
            np.testing.assert_allclose(float(m), h.mean(dtype=np.float64), rtol=1e-12)
    dyn = {t for t in texts if "tensor<?x" in t}
    assert len(dyn) == len(set(texts)), "a static-shape compile"
    assert len(dyn) <= 4  # count_nonzero's != and sum, sum(int32), mean(float64)


# ------------------------------------------------ one element broadcast
# A resident array of one element (vp.mean(x), shape () or (1,) or (1, 1))
# against a whole array: the element is read on the device by the ufunc's
# dynamic-extent kernel (no host read, no compile per length).

BINARY = ["add", "subtract", "multiply", "maximum", "minimum", "less", "equal", "power"]


@pytest.mark.parametrize("name", BINARY)
def test_one_element_operand_matches_numpy(ctx, name):
    f = getattr(vp, name)
    for dt in _dtypes(ctx):
        for n in (1, 3, 4, 5, 257, 4099):
            h = _data(dt, n, seed=n)
            one = _data(dt, 1, seed=n + 1)
            if name == "power" and dt.kind in "iu":
                h, one = np.abs(h) % 3, np.abs(one) % 3  # no negative powers
            if name in ("subtract", "power") and dt == np.bool_:
                continue  # NumPy has no such bool loop
            for shape in ((), (1,)):
                s = one.reshape(shape)
                with np.errstate(all="ignore"):
                    want = getattr(np, name)(h, s), getattr(np, name)(s, h)
                hv, sv = vp.asarray(h), vp.asarray(s)
                got = f(hv, sv).numpy(), f(sv, hv).numpy()
                for g, w in zip(got, want):
                    assert g.dtype == w.dtype and g.shape == w.shape, (name, dt, n, shape)
                    np.testing.assert_allclose(g, w, rtol=1e-6 if dt != np.float32 else 2e-6,
                                               err_msg=f"{name} {dt} n={n} {shape}")


def test_one_element_operand_compiles_once(ctx, compiled_texts):
    texts = compiled_texts
    for n in (10, 11, 1000, 1001, 70001):
        h = np.random.default_rng(n).random(n).astype(np.float32)
        x = vp.asarray(h)
        d = x - vp.mean(x)
        np.testing.assert_allclose(d.numpy(), h - h.mean(dtype=np.float32), atol=1e-6)
        q = vp.divide(x, vp.max(x).reshape((1,)))
        np.testing.assert_allclose(q.numpy(), h / h.max(), rtol=1e-6)
    # mean, subtract, max, divide: one text each, none per length
    sub = [t for t in texts if "array.ufunc subtract" in t]
    assert len(set(sub)) == 1 and "tensor<?xf32>" in sub[0] and "f32[1]" in sub[0], sub
    assert len(set(texts)) == 4, len(set(texts))


def test_one_element_operand_in_place_and_2d(ctx):
    h = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = vp.asarray(h)
    m = vp.asarray(np.array([[2.0]], np.float32))
    vp.multiply(x, m, out=x)  # the element read before any write: another buffer
    np.testing.assert_array_equal(x.numpy(), h * 2)
    # the element of the output's own buffer (shape (1,) seen as 0-d):
    # NumPy reads it before writing
    y = vp.asarray(np.array([3.0], np.float32))
    vp.add(y, y.reshape(()), out=y)
    assert y.numpy().tolist() == [6.0]
    # a view of one element (not at offset 0) takes the array path, right too
    v = vp.asarray(np.arange(8, dtype=np.int32))
    np.testing.assert_array_equal((v - v[5:6]).numpy(), np.arange(8) - 5)


def test_var_std_of_a_whole_array_compile_once(ctx, compiled_texts):
    texts = compiled_texts
    for n in (999, 1000, 1001, 65537):
        h = np.random.default_rng(n).standard_normal(n).astype(np.float32)
        x = vp.asarray(h)
        assert float(vp.var(x)) == pytest.approx(float(np.var(h)), rel=1e-5)
        assert float(vp.std(x, ddof=1)) == pytest.approx(float(np.std(h, ddof=1)), rel=1e-5)
        r = vp.var(x, keepdims=True)
        assert r.shape == (1,)
    # per length: nothing (the 0-d division and sqrt are one shape)
    before = len(set(texts))
    x = vp.asarray(np.ones(12345, np.float32))
    vp.var(x), vp.std(x)
    assert len(set(texts)) == before


# reductions over an axis (or a run of adjacent axes) of a C-contiguous
# array: one kernel for every shape, in segments (ops.def); rows a workgroup
# each when the axes are the trailing ones and long, else an invocation per
# output. (shape, axis): rows, lines, both edges of each form's budget, and
# shapes past it that take the static path (tiled)
AXIS_CASES = [((3, 64), 1), ((2, 1000), -1), ((1, 5000), 1), ((5, 257, 3), 1), ((1000, 7), 0),
              ((3, 4, 100), (1, 2)), ((9, 8, 7), (0, 1)), ((300, 65), 1), ((2, 3, 300), 2),
              ((1024, 3), 0), ((1025, 3), 0), ((4, 63), 1), ((6, 1), 1), ((1, 6), 0)]
# the edges of the outputs' budget (65535 rows; 65535 x 256 lines, past it
# the static path), for a few kinds and dtypes
BIG_CASES = [((65535, 64), 1), ((65536, 64), 1), ((70000, 2), 1)]


@pytest.mark.parametrize("kind", KINDS)
def test_axis_reductions_match_numpy(ctx, kind):
    """vp.KIND(x, axis=...) for every dtype and AXIS_CASES, keepdims and
    out= included, NaNs and ties among the values: NumPy's result, dtype
    and shape (float sums to a tolerance)."""
    rng = np.random.default_rng(len(kind))
    for dt in _dtypes(ctx):
        if not _ok(kind, dt) or (kind in ("argmin", "argmax") and dt == np.bool_):
            continue
        big = BIG_CASES if kind in ("sum", "argmax") and dt == np.float32 else []
        for shape, axis in AXIS_CASES + big:
            if kind in ("argmin", "argmax") and isinstance(axis, tuple):
                continue
            h = _data(dt, math.prod(shape), rng.integers(1000)).reshape(shape)
            if dt.kind == "f":
                h.ravel()[rng.integers(0, h.size, 2)] = np.nan
            x = vp.asarray(h)
            for keepdims in (False, True):
                with np.errstate(all="ignore"):
                    want = getattr(np, kind)(h, axis=axis, keepdims=keepdims)
                got = getattr(vp, kind)(x, axis=axis, keepdims=keepdims)
                assert got.shape == want.shape and got.dtype == want.dtype, \
                    (kind, dt, shape, axis, got.shape, got.dtype)
                g, what = got.numpy(), f"{kind} {dt} {shape} axis={axis}"
                if want.dtype.kind == "f" and kind in ("sum", "prod", "mean"):
                    np.testing.assert_allclose(g, want, rtol=2e-5 if dt == np.float32 else 1e-12,
                                               atol=1e-5, err_msg=what)
                else:
                    np.testing.assert_array_equal(g, want, err_msg=what)
            o = vp.empty(want.shape, want.dtype)
            assert getattr(vp, kind)(x, axis=axis, keepdims=True, out=o) is o
            np.testing.assert_allclose(o.numpy(), want, rtol=2e-5, atol=1e-5, err_msg=what)


def test_axis_reductions_compile_once_for_every_shape(ctx, compiled_texts):
    """After the first call of a kind, dtype and form (rows or lines; a CPU
    device takes rows of up to 1,024 elements as lines), new shapes and
    axes compile nothing: before, every new shape was a compile (25-30 ms
    a call on lavapipe)."""
    rng = np.random.default_rng(0)
    for dt in (np.float32, np.int32):
        for shape, axis in [((100, 333), 1), ((3, 2000), 1), ((100, 33), 1), ((7, 100, 5), 1),
                            ((300, 3), 0)]:
            x = vp.asarray(rng.integers(0, 9, shape).astype(dt))
            x.sum(axis=axis), x.max(axis=axis), x.argmax(axis=axis)
    first = len(compiled_texts)
    assert first == 2 * 3 * 2, first  # dtypes x kinds x forms
    assert all("tensor<?x" in t for t in compiled_texts)
    for k in range(4):
        for dt in (np.float32, np.int32):
            shape = (7 + 3 * k, 22 + k, 3 + k)
            h = rng.integers(0, 9, shape).astype(dt)
            x = vp.asarray(h)
            for axis in (0, 1, 2, (1, 2), (0, 1)):
                np.testing.assert_array_equal(x.sum(axis=axis).numpy(), h.sum(axis=axis))
                np.testing.assert_array_equal(x.max(axis=axis).numpy(), h.max(axis=axis))
            for axis in (0, 1, 2):
                np.testing.assert_array_equal(x.argmax(axis=axis).numpy(), h.argmax(axis=axis))
    assert len(compiled_texts) == first, compiled_texts[first][:400]


def test_axis_reductions_of_views_and_odd_layouts_take_the_static_path(ctx, compiled_texts):
    """A view, axes that are not adjacent, an empty axis and a small dtype
    keep the static kernels (and NumPy's answers)."""
    h = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    x = vp.asarray(h)
    for got, want in [(x[:, 1:].sum(axis=1), h[:, 1:].sum(axis=1)),
                      (x.T.sum(axis=0), h.T.sum(axis=0)),
                      (x.sum(axis=(0, 2)), h.sum(axis=(0, 2))),
                      (vp.zeros((3, 0)).sum(axis=1), np.zeros((3, 0), np.float32).sum(axis=1)),
                      (x.astype(np.int16).sum(axis=1), h.astype(np.int16).sum(axis=1))]:
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.numpy(), want)
    assert compiled_texts and not any("tensor<?x" in t and "axes(0)" in t and ", %" in t
                                      for t in compiled_texts)


@pytest.mark.parametrize("kind", ["cumsum", "cumprod"])
def test_axis_scans_match_numpy_and_compile_once(ctx, kind, compiled_texts):
    """vp.cumsum / vp.cumprod along an axis of a C-contiguous resident array
    whose lines have up to 1,024 elements (1-D arrays too): the scan in
    segments (ops.def), one invocation per line; NumPy's result and dtype
    for every dtype, and after the first call of a kind and dtype no
    compile at a new shape. Longer lines keep the static path's tiles."""
    rng = np.random.default_rng(9)
    for dt in _dtypes(ctx):
        for shape, axis in [((50,), 0), ((1024,), 0), ((1025,), 0), ((30, 40), 1), ((30, 40), 0),
                            ((3, 4, 5), 1), ((3, 4, 5), None), ((2000, 3), 0), ((7, 1), 1)]:
            if dt == np.bool_:
                h = rng.random(shape) < 0.5
            elif kind == "cumprod":
                h = (1 + rng.random(shape) / 64).astype(dt) if dt.kind == "f" else \
                    rng.integers(1, 3, shape).astype(dt)
            else:
                h = (rng.random(shape) * 8).astype(dt)
            want = getattr(np, kind)(h, axis=axis)
            got = getattr(vp, kind)(vp.asarray(h), axis=axis)
            assert got.shape == want.shape and got.dtype == want.dtype, (kind, dt, shape, axis)
            if want.dtype.kind == "f":
                np.testing.assert_allclose(got.numpy(), want, rtol=1e-5 if dt == np.float32 else 1e-12)
            else:
                np.testing.assert_array_equal(got.numpy(), want, err_msg=f"{kind} {dt} {shape}")
    compiled_texts.clear()
    for k in range(4):  # (products of 60-81 values near 1: no subnormals, which NVIDIA flushes)
        h = (0.75 + rng.random((60 + 7 * k, 20 + k)) / 2).astype(np.float32)
        for axis in (0, 1):
            np.testing.assert_allclose(getattr(vp, kind)(vp.asarray(h), axis=axis).numpy(),
                                       getattr(np, kind)(h, axis=axis), rtol=1e-5)
    assert not compiled_texts, compiled_texts[0]
