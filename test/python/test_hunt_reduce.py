"""Wrong-answer hunt on the reductions and scans (issue 19): differential
tests against NumPy over VulPy's dtypes, views and argument forms; one
test per bug found (its docstring says what the user saw and NumPy's
answer), and the names completed here: initial= / where=, nanargmin,
nanargmax, nanmedian, nancumsum, nancumprod, vp.positive."""
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target

SETTINGS = settings(max_examples=12, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
DTYPES = ["bool", "int8", "uint8", "int16", "int32", "uint32", "int64", "uint64", "float16",
          "float32", "float64"]


def _values(dt):
    dt = np.dtype(dt)
    if dt.kind == "b":
        return st.booleans()
    if dt.kind == "f":
        return st.sampled_from([-3.0, -1.5, -0.0, 0.0, 0.5, 2.0, 7.0, np.nan, np.inf])
    return st.integers(-6 if dt.kind == "i" else 0, 6)


def _same(got, want, rtol=1e-5):
    got = got.numpy() if isinstance(got, vp.ndarray) else got
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.dtype, want.dtype,
                                                                 got.shape, want.shape)
    if want.dtype.kind in "fc":
        tol = 1e-2 if want.dtype == np.float16 else rtol
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


def _both(f, a, *args, **kw):
    """NumPy's answer or exception type, VulPy's on NumPy and resident input."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            want = getattr(np, f)(a, *args, **kw)
        except (ValueError, TypeError) as e:
            for x in (a, vp.asarray(a)):
                with pytest.raises(type(e)):
                    getattr(vp, f)(x, *args, **kw)
            return
        for x in (a, vp.asarray(a)):
            _same(getattr(vp, f)(x, *args, **kw), want)


@st.composite
def _case(draw, dtypes=DTYPES):
    dt = draw(st.sampled_from(dtypes))
    nd = draw(st.integers(0, 3))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=nd, max_size=nd)))
    a = draw(hnp.arrays(np.dtype(dt), shape, elements=_values(dt)))
    axes = [None] + list(range(-nd, nd)) + ([(0, nd - 1)] if nd >= 2 else [])
    return a, draw(st.sampled_from(axes)), draw(st.booleans())


# ----------------------------------------------------------------- the bugs
def test_scan_refuses_a_tuple_axis():
    """Bug: vp.cumsum(a, axis=(0, 1)) (and cumprod) returned the running sum
    along axis 0 alone, silently. NumPy: TypeError (a scan takes one axis)."""
    a = np.arange(12).reshape(3, 4)
    for f in ("cumsum", "cumprod", "nancumsum", "nancumprod"):
        with pytest.raises(TypeError):
            getattr(np, f)(a, axis=(0, 1))
        for x in (a, vp.asarray(a)):
            with pytest.raises(TypeError, match="axis"):
                getattr(vp, f)(x, axis=(0, 1))


def test_axis_must_be_an_integer():
    """Bug: vp.sum(a, axis=1.0) and axis=True reduced along axis 1 (int()
    took them). NumPy: TypeError for a float or bool axis."""
    a = np.arange(6).reshape(2, 3)
    for axis in (1.0, np.float64(1), True):
        for f in ("sum", "max", "argmax", "cumsum", "mean"):
            with pytest.raises(TypeError):
                getattr(np, f)(a, axis=axis)
            with pytest.raises(TypeError):
                getattr(vp, f)(vp.asarray(a), axis=axis)
    _same(vp.sum(vp.asarray(a), axis=np.int64(1)), np.sum(a, axis=1))


@pytest.mark.parametrize("f", ["sum", "prod", "cumsum", "cumprod", "nansum", "nanprod"])
@pytest.mark.parametrize("dt", ["bool", "int8", "int32", "float32"])
def test_bool_accumulator(f, dt):
    """Bug: vp.sum(a, dtype=bool) (prod, cumsum, cumprod too) raised an
    internal CompileError ('array.sum accumulates in a number type').
    NumPy adds bools as logical or and multiplies them as logical and:
    np.sum([0, 2, 0], dtype=bool) is True."""
    a = np.array([[0, 2, 0, 1], [0, 0, 0, 0], [3, 1, 1, 2]], dt)
    for axis in (None, 0, 1):
        _both(f, a, axis=axis, dtype=bool)


@pytest.mark.parametrize("odt", ["int8", "uint8", "int32", "int64", "bool"])
def test_mean_integer_dtype(odt):
    """Bug: vp.mean(a, dtype=np.int8) raised an internal CompileError
    ('array.mean result must be float'). NumPy: the sum in int8 over the
    count, cast back to int8: np.mean(np.int8([100, 100, 1]), dtype=np.int8)
    is -18 (the int8 sum wraps)."""
    a = np.array([[100, 100, 1, 7], [-3, 5, 0, 9], [1, 1, 1, 2]], np.int8)
    for axis in (None, 0, 1):
        _both("mean", a, axis=axis, dtype=odt)
        _both("nanmean", a.astype(np.float32), axis=axis, dtype=odt)


def test_numpy_out_of_another_shape():
    """Bug: vp.sum(a, axis=0, out=np.zeros((3, 4))) for a (3, 4) array wrote
    the row of sums into every row of out (np.copyto broadcast it). NumPy:
    ValueError (out must have the result's shape)."""
    a = np.ones((3, 4), np.float32)
    for f in ("sum", "mean", "min", "argmax", "median", "ptp", "nansum", "nanmax"):
        for shape in ((3, 4), (1, 4)):
            with pytest.raises(ValueError):
                getattr(np, f)(a, axis=0, out=np.zeros(shape, getattr(np, f)(a).dtype))
            with pytest.raises(ValueError):
                getattr(vp, f)(a, axis=0, out=np.zeros(shape, getattr(np, f)(a).dtype))


# ----------------------------------------------- the differential hunt, kept
@pytest.mark.parametrize("f", ["sum", "prod", "mean", "min", "max", "argmin", "argmax", "all",
                               "any", "nansum", "nanprod", "nanmax", "nanmin", "nanmean",
                               "ptp", "count_nonzero", "std", "var", "nanstd", "nanvar",
                               "median", "nanmedian"])
def test_reductions_match_numpy(f):
    """Every dtype, empty / 0-d / size-1 axes, every axis form, keepdims,
    NaN and inf and signed zeros placed anywhere (argmin/argmax: the first
    NaN, the first extreme)."""
    @SETTINGS
    @given(_case())
    def run(c):
        a, axis, keepdims = c
        if f in ("argmin", "argmax") and isinstance(axis, tuple):
            axis = None
        if f in ("std", "var", "nanstd", "nanvar", "median", "nanmedian", "ptp") and \
                a.dtype == np.bool_:
            a = a.astype(np.int8)
        _both(f, a, axis=axis, keepdims=keepdims)
    run()


@pytest.mark.parametrize("f", ["cumsum", "cumprod", "nancumsum", "nancumprod"])
def test_scans_match_numpy(f):
    """Scans over every dtype but float16 (its running value is rounded to
    float16 at each step in NumPy: see docs/python-api.md)."""
    @SETTINGS
    @given(_case([d for d in DTYPES if d != "float16"]))
    def run(c):
        a, axis, _ = c
        if isinstance(axis, tuple):
            axis = None
        _both(f, a, axis=axis)
    run()


def test_views():
    """Transposed, negative-stride, sliced and broadcast views."""
    base = (np.arange(60) % 7 - 3).astype(np.float32).reshape(3, 4, 5)
    x = vp.asarray(base)
    views = [lambda b: b.T, lambda b: b[::-1, :, ::-2], lambda b: b.transpose(1, 0, 2)[:, 1:],
             lambda b: b[1]]
    for v in views:
        for f in ("sum", "argmax", "cumsum", "nanmedian", "mean", "min"):
            for axis in (None, 0, -1):
                _same(getattr(vp, f)(v(x), axis=axis), getattr(np, f)(v(base), axis=axis))
    b = np.broadcast_to(base[0, 0], (3, 5))
    _same(vp.sum(vp.broadcast_to(x[0, 0], (3, 5)), axis=0), np.sum(b, axis=0))


def test_integer_accumulation_dtypes_and_wrap():
    """NumPy's accumulator dtypes (sum of int8 is int64, of uint8 uint64,
    of bool int64; mean of ints float64) and integer overflow wrapping."""
    for dt in ("int8", "uint8", "int16", "int32", "uint32", "int64", "uint64"):
        a = np.full(7, np.iinfo(dt).max - 3, dt)
        for f in ("sum", "prod", "cumsum", "cumprod"):
            _both(f, a)
            _both(f, a, dtype=dt)
        _both("mean", a)
    _both("sum", np.ones(5, bool))


# --------------------------------------------------- initial= and where=
@pytest.mark.parametrize("f", ["sum", "prod", "min", "max", "amin", "amax", "nansum",
                               "nanprod", "nanmin", "nanmax"])
def test_initial_and_where(f):
    """initial= and where= as NumPy has them: masked-out elements skipped,
    initial combined (and alone for an empty slice), min/max refusing a
    mask without an initial."""
    @SETTINGS
    @given(_case(["int8", "uint8", "int32", "int64", "float32", "float64", "bool"]),
           st.data())
    def run(c, data):
        a, axis, keepdims = c
        if a.dtype == np.bool_ and f.startswith("nan"):
            a = a.astype(np.int32)
        mask = data.draw(hnp.arrays(np.bool_, a.shape))
        for kw in ({"where": mask}, {"initial": 3}, {"where": mask, "initial": 2},
                   {"initial": 2.5}, {"where": mask[..., :1] if a.ndim else mask,
                                      "initial": 1}):
            _both(f, a, axis=axis, keepdims=keepdims, **kw)
    run()


@pytest.mark.parametrize("f", ["mean", "var", "std", "any", "all", "nanmean", "nanvar",
                               "nanstd"])
def test_where(f):
    @SETTINGS
    @given(_case(["int8", "int32", "float32", "float64"]), st.data())
    def run(c, data):
        a, axis, keepdims = c
        mask = data.draw(hnp.arrays(np.bool_, a.shape))
        _both(f, a, axis=axis, keepdims=keepdims, where=mask)
    run()


def test_where_errors():
    a = np.arange(6.0).reshape(2, 3)
    with pytest.raises(ValueError, match="initial"):
        vp.min(vp.asarray(a), where=np.ones(a.shape, bool))
    with pytest.raises(TypeError, match="bool"):
        vp.sum(vp.asarray(a), where=np.ones(a.shape, int))
    with pytest.raises(ValueError, match="broadcast"):
        vp.sum(vp.asarray(a), where=np.ones((4, 3), bool))
    with pytest.raises(OverflowError):
        vp.max(np.int8([1, 2]), initial=1000)
    # NumPy dispatch hands the keywords on
    _same(np.sum(vp.asarray(a), initial=5, where=a > 1), np.sum(a, initial=5, where=a > 1))


# ------------------------------------------------------------ the new names
def test_nanargmin_nanargmax():
    a = np.array([[np.nan, 2.0, 1.0, 1.0], [3.0, np.nan, 3.0, -np.inf],
                  [np.nan, np.nan, 0.5, np.nan]], np.float32)
    for f in ("nanargmin", "nanargmax"):
        for axis in (None, 0, 1, -1):
            for kd in (False, True):
                _both(f, a, axis=axis, keepdims=kd)
        _both(f, np.arange(6, dtype=np.int32).reshape(2, 3), axis=1)
        for bad in (np.full((2, 3), np.nan), np.array([[1.0, np.nan], [np.nan, np.nan]])):
            with pytest.raises(ValueError, match="All-NaN"):
                getattr(np, f)(bad, axis=1)
            with pytest.raises(ValueError, match="All-NaN"):
                getattr(vp, f)(vp.asarray(bad), axis=1)
        o = vp.zeros((4,), np.int64)
        assert getattr(vp, f)(vp.asarray(a), axis=0, out=o) is o
        _same(o, getattr(np, f)(a, axis=0))


def test_nanmedian():
    rng = np.random.default_rng(5)
    for shape in ((7,), (3, 5), (2, 3, 4), (4, 80)):
        a = rng.standard_normal(shape).astype(np.float32)
        a.ravel()[::3] = np.nan
        a[..., 0] = np.nan
        for axis in (None, 0, -1, (0, a.ndim - 1)):
            for kd in (False, True):
                _both("nanmedian", a, axis=axis, keepdims=kd)
    _both("nanmedian", np.full((2, 3), np.nan), axis=1)
    _both("nanmedian", np.arange(7, dtype=np.int16))


def test_positive():
    a = np.array([-0.0, 1.5, -2.0, np.nan], np.float32)
    for x in (a, vp.asarray(a)):
        r = vp.positive(x)
        _same(r, np.positive(a))
        assert np.signbit(np.asarray(r.numpy() if isinstance(r, vp.ndarray) else r))[0]
    _same(np.positive(vp.asarray(a)), a)
    _same(+vp.asarray(np.int8([3, -4])), np.int8([3, -4]))
    with pytest.raises(TypeError):
        vp.positive(vp.asarray(np.array([True])))


def test_methods_take_initial_and_where():
    """ndarray.sum/prod/min/max(initial=, where=), mean/any/all/var/std(where=),
    as numpy.ndarray's methods."""
    a = np.array([[1.0, -2.0, 3.5], [0.25, 4.0, -1.0]], np.float32)
    m = np.array([[True, False, True], [False, True, True]])
    x = vp.asarray(a)
    for name, kw in (("sum", {"initial": 1.5, "where": m}), ("prod", {"where": m}),
                     ("min", {"initial": 0.0, "where": m}), ("max", {"initial": 9.0}),
                     ("mean", {"where": m}), ("any", {"where": m}), ("all", {"where": m}),
                     ("var", {"where": m}), ("std", {"where": m})):
        for axis in (None, 1):
            _same(getattr(x, name)(axis=axis, **kw), getattr(a, name)(axis=axis, **kw))


def test_initial_and_where_trace_in_jit():
    """Inside vp.jit, initial= and where= are recorded like any other op."""
    a = np.arange(6.0).reshape(2, 3)
    m = a > 1
    cases = [(lambda x, w: vp.sum(x * 2, axis=1, initial=1.0, where=w),
              np.sum(a * 2, axis=1, initial=1.0, where=m)),
             (lambda x, w: vp.mean(x, axis=1, where=w), np.mean(a, axis=1, where=m)),
             (lambda x, w: vp.max(x, axis=0, initial=-1.0, where=w),
              np.max(a, axis=0, initial=-1.0, where=m))]
    for fn, want in cases:
        _same(vp.jit(fn)(vp.asarray(a), vp.asarray(m)), want)


def test_argmax_out_dtype():
    """Bug: vp.argmax(x, out=vp.zeros((), np.float32)) wrote the index cast
    to float32. NumPy: TypeError for an out= whose dtype does not cast
    safely to int64 (float32, float64, uint64); int8..int64 and bool it takes."""
    a = np.arange(12.0).reshape(3, 4)
    for f in ("argmin", "argmax", "nanargmin", "nanargmax"):
        for dt in (np.float32, np.float64, np.uint64):
            with pytest.raises(TypeError):
                getattr(np, f)(a, axis=0, out=np.zeros(4, dt))
            for o in (np.zeros(4, dt), vp.zeros(4, dt)):
                with pytest.raises(TypeError):
                    getattr(vp, f)(vp.asarray(a), axis=0, out=o)
        for dt in (np.int64, np.int32):
            o = vp.zeros(4, dt)
            getattr(vp, f)(vp.asarray(a), axis=0, out=o)
            _same(o, getattr(np, f)(a, axis=0, out=np.zeros(4, dt)))


def test_float16_median_of_large_values():
    """Bug: vp.median(np.float16([65504, 65504])) was inf: the two middle
    values were added in float16. NumPy: 65504.0 (np.mean of the two adds
    float16 in float32). (NumPy's nanmedian of short float16 slices goes
    through np.ma.median, which adds in float16 and gives -inf for
    [-65504, -60000]; vp.nanmedian gives median's answer, as NumPy's own
    nanmedian does for slices of 600 or more.)"""
    for a in (np.float16([65504, 65504]), np.float16([[-65504, -60000, 7, 1]] * 3),
              np.float16([60000, 65504, 1, 65504] * 20)):
        for axis in (None, -1):
            _both("median", a, axis=axis)
    a = np.float16([-65504, -60000, np.nan] * 300)
    _both("nanmedian", a)


@pytest.mark.parametrize("dt", ["complex64", "complex128"])
def test_complex_sum_mean_cumsum(dt):
    """sum, mean, cumsum, var and std of complex arrays (the reductions of
    the float view; var = var(real) + var(imag)), prod and cumprod
    (pairwise products): every axis form, keepdims, views, NumPy and
    resident input, initial= and where=; the NaN-skipping ones leave out
    an element with a NaN in either part (numpy.isnan's complex NaN)."""
    rng = np.random.default_rng(3)
    for shape in ((), (0,), (5,), (3, 4), (2, 0, 3), (2, 3, 4)):
        z = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
        nd = len(shape)
        for axis in [None] + list(range(-nd, nd)) + ([(0, nd - 1)] if nd >= 2 else []):
            for kd in (False, True):
                _both("sum", z, axis=axis, keepdims=kd)
                _both("mean", z, axis=axis, keepdims=kd)
                _both("var", z, axis=axis, keepdims=kd)
                _both("std", z, axis=axis, keepdims=kd, ddof=1)
                _both("prod", z / np.abs(z) if z.size else z, axis=axis, keepdims=kd)
            if not isinstance(axis, tuple):
                _both("cumsum", z, axis=axis)
                _both("cumprod", z / np.abs(z) if z.size else z, axis=axis)
        if nd >= 2:
            _same(vp.sum(vp.asarray(z).T, axis=0), np.sum(z.T, axis=0))
            _same(vp.prod(vp.asarray(z).T, axis=0), np.prod(z.T, axis=0))
            _same(vp.var(vp.asarray(z).T, axis=0), np.var(z.T, axis=0))
    z = (rng.standard_normal((4, 5)) + 1j * rng.standard_normal((4, 5))).astype(dt)
    z[0, 1], z[2, 3], z[3] = complex(np.nan, 1), complex(1, np.nan), np.nan
    w = np.arange(20).reshape(4, 5) % 3 > 0
    for f in ("nansum", "nanmean", "nancumsum", "nanvar", "nanstd"):
        for axis in (None, 0, 1):
            _both(f, z, axis=axis)
    for f in ("nanmean", "nanvar", "var", "std"):
        _both(f, z if f.startswith("nan") else z[:3], axis=1, where=w[:3 if f[0] != "n" else 4])
    _both("nanvar", z, axis=0, ddof=1, keepdims=True)
    with np.errstate(invalid="ignore"):
        u = z[:3] / np.abs(z[:3])
    _both("prod", u, axis=1, where=w[:3], initial=2 - 1j)
    _both("prod", u, axis=None, initial=1j)
    _same(vp.prod(vp.asarray(np.ones((3, 2000), dt) * np.exp(1j * 1e-3)), axis=1),
          np.prod(np.ones((3, 2000), dt) * np.exp(1j * 1e-3), axis=1), 1e-4)
    for f in ("nanprod", "nancumprod"):
        _both(f, z, axis=1)
    with pytest.raises(TypeError, match="imaginary"):
        vp.var(vp.asarray(z), dtype=np.float32)
    # a complex dtype= is the result's dtype, real input too (it was the
    # parts' real dtype)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    for f in ("var", "std"):
        _both(f, z[:3], axis=1, dtype=dt)
        _both(f, x, axis=0, dtype=dt)
        _both(f, x, dtype=dt)


@pytest.mark.parametrize("dt", ["complex64", "complex128"])
def test_complex_order_reductions(dt):
    """max / min / amax / ptp / argmax / argmin and the NaN-skipping ones of
    complex arrays: NumPy's lexicographic order, a NaN propagating (max)
    or skipped (nanmax: fmax.reduce), the first index of the extreme or of
    the first NaN, all-NaN slices (NaN, or nanargmax's ValueError), every
    axis form and keepdims, NumPy and resident input."""
    rng = np.random.default_rng(4)
    for shape in ((), (7,), (3, 5)):
        z = (rng.integers(-2, 3, shape) + 1j * rng.integers(-2, 3, shape)).astype(dt)
        cases = [z]
        if z.size > 2:  # ties (small integers), a NaN in one part, an all-NaN array
            z.flat[0] = 0j  # zeros for any / all
            zn = z.copy()
            zn.flat[1], zn.flat[-1] = complex(1, np.nan), np.nan
            cases += [zn, np.full(shape, np.nan, dt)]
        nd = len(shape)
        for x in cases:
            for f in ("max", "min", "amax", "ptp", "argmax", "argmin", "nanmax", "nanmin",
                      "nanargmax", "nanargmin", "any", "all"):
                forms = [(None, False), (None, True)] + [(a, a == 0) for a in range(-nd, nd)] + \
                    ([((0, nd - 1), False)] if nd >= 2 and "arg" not in f else [])
                for axis, kd in forms:
                    _both(f, x, axis=axis, keepdims=kd)


@pytest.mark.parametrize("dt", ["int8", "int32", "float32", "int64"])
def test_reducing_the_only_long_axis_of_a_transposed_view(ctx, dt):
    # a 1x3000 array's transpose reduced along axis 0 has one output element:
    # lower-arrays read it as vec4s for a full reduction while its tiled
    # kernel read scalars, and every reduction raised a CompileError
    a = (np.arange(3000) % 3).astype(dt).reshape(1, 3000)
    x = vp.asarray(a)
    for v, w in ((x.T, a.T), (vp.swapaxes(x.reshape(1, 1, 3000), 0, -1), a.reshape(1, 1, 3000).swapaxes(0, -1))):
        for name in ("sum", "max", "any", "all", "count_nonzero", "argmax", "mean", "prod", "std"):
            got = getattr(vp, name)(v, axis=0)
            want = getattr(np, name)(w, axis=0)
            got = got.get() if hasattr(got, "get") else got
            np.testing.assert_allclose(got, want, rtol=1e-5, err_msg=name)
            assert np.asarray(got).shape == np.asarray(want).shape, name


def test_float16_moments_past_65504_elements(ctx):
    # the count was a float16 (inf past 65504): vp.nanmean of 70000 values
    # was 0 (sum / inf), vp.var whose sum of squares overflowed was NaN
    # (inf / inf) where NumPy's is inf; counts now divide in float32, as
    # NumPy divides by its intp counts in float64
    r = np.random.default_rng(7)
    a = (r.standard_normal(70000) * 0.3 + 0.5).astype(np.float16)
    b = a.copy()
    b[3] = np.nan
    x, y = vp.asarray(a), vp.asarray(b)
    for got, want in ((vp.var(x), np.var(a)), (vp.std(x), np.std(a)),
                      (vp.nanmean(y), np.nanmean(b)), (vp.nanvar(y), np.nanvar(b)),
                      (vp.nanstd(y), np.nanstd(b)), (vp.mean(x, where=x > 0), np.mean(a, where=a > 0))):
        got = got.get()
        assert got.dtype == np.float16 == want.dtype
        np.testing.assert_allclose(got, want, rtol=2e-3)
    with np.errstate(over="ignore"):
        big = (r.standard_normal(70000) * 300).astype(np.float16)
        want = np.var(big)
    assert np.isinf(want) and np.isinf(vp.var(vp.asarray(big)).get())
    assert np.isinf(vp.var(vp.asarray(big), where=vp.asarray(big) != 0).get())


def test_reductions_cast_into_out_as_numpy(ctx):
    # NumPy's reductions cast into out= unsafely (np.sum(floats, out=int64)
    # truncates); VulPy raised TypeError for a NumPy out= (copyto's
    # same_kind), and vp.std into a resident float32 out= of a float64
    # result (sqrt's out= does not cast; NumPy's same_kind does)
    a = np.array([[0.6, 0.7, 2.5], [-1.5, 3.25, 0.5]])
    x = vp.asarray(a)
    for name in ("sum", "prod", "max", "min", "mean", "var", "cumsum", "argmax", "nansum"):
        for odt in (np.int64, np.int32, np.float32):
            shape = (2, 3) if name == "cumsum" else (2,)
            want = np.zeros(shape, odt)
            try:
                getattr(np, name)(a, axis=1, out=want)
            except TypeError:  # argmax into a float32 out=: NumPy's error too
                for out in (np.zeros(shape, odt), vp.zeros(shape, odt)):
                    with pytest.raises(TypeError):
                        getattr(vp, name)(x, axis=1, out=out)
                continue
            for out in (np.zeros(shape, odt), vp.zeros(shape, odt)):
                got = getattr(vp, name)(x, axis=1, out=out)
                assert got is out, name
                np.testing.assert_array_equal(got.get() if isinstance(got, vp.ndarray) else got,
                                              want, err_msg=f"{name} {np.dtype(odt).name}")
    i = vp.asarray(np.array([[1, 2, 4], [3, 5, 9]], np.int32))
    want = np.std(i.get(), axis=1, out=np.zeros(2, np.float32))
    for out in (np.zeros(2, np.float32), vp.zeros(2, np.float32)):
        got = vp.std(i, axis=1, out=out)
        np.testing.assert_allclose(got.get() if isinstance(got, vp.ndarray) else got, want,
                                   rtol=1e-6)
    for out in (np.zeros(2, np.int64), vp.zeros(2, np.int64)):
        with pytest.raises(TypeError):  # NumPy: sqrt cannot cast float64 into int64
            vp.std(i, axis=1, out=out)


def test_weights_summing_to_zero_raise_as_numpy(ctx):
    # vp.average with weights summing to 0 (or empty) gave NaN; NumPy
    # raises ZeroDivisionError (one value read back, as CuPy does)
    a = vp.asarray(np.array([[1.0, 2.0], [3.0, 4.0]]))
    for w, axis in ((np.array([1.0, -1.0]), 1), (np.array([[1.0, 1.0], [2.0, -2.0]]), 1),
                    (np.zeros(0), None)):
        x = a if w.size else vp.asarray(np.zeros(0))
        with pytest.raises(ZeroDivisionError, match="Weights sum to zero"):
            np.average(x.get(), axis=axis, weights=w)
        with pytest.raises(ZeroDivisionError, match="Weights sum to zero"):
            vp.average(x, axis=axis, weights=vp.asarray(w))
    for dt in (np.int8, np.bool_, np.complex128):  # NumPy weights beside a resident array
        with pytest.raises(ZeroDivisionError, match="Weights sum to zero"):
            vp.average(vp.asarray(np.zeros(0, dt)), axis=0, weights=np.zeros(0))
    w = np.array([[1.0, 1.0], [2.0, -1.0]])
    np.testing.assert_allclose(vp.average(a, axis=1, weights=vp.asarray(w)).get(),
                               np.average(a.get(), axis=1, weights=w))


def test_complex_reduction_into_a_real_dtype_names_the_dropped_part(ctx):
    # vp.sum(complex, dtype=float64) said "dtype complex64 is not supported
    # on the GPU" (cumsum: "complex64 operands are not supported" while its
    # own list named cumsum); NumPy warns and drops the imaginary part, as
    # astype does, which VulPy refuses with the same reason
    x = vp.asarray((np.arange(5) + 1j).astype(np.complex64))
    for name in ("sum", "mean", "prod", "cumsum", "cumprod", "nansum"):
        with pytest.raises(TypeError, match=r"vp\.\w+: dtype=float64 of a complex64 array "
                           "would drop the imaginary part"):
            getattr(vp, name)(x, dtype=np.float64)
        np.testing.assert_allclose(getattr(vp, name)(x, dtype=np.complex128).get(),
                                   getattr(np, name)(x.get(), dtype=np.complex128), rtol=1e-6)


# --- ufunc.reduceat (session 44): NumPy's segments, dtypes and errors

_REDUCEAT = ["add", "multiply", "maximum", "minimum", "fmax", "fmin", "logical_and",
             "logical_or", "bitwise_and", "bitwise_or", "bitwise_xor"]


@pytest.mark.parametrize("name", _REDUCEAT)
@given(data=st.data())
@settings(max_examples=4, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
def test_reduceat_is_numpys(name, data):
    """vp.<ufunc>.reduceat against numpy's over 2-D arrays, either axis,
    indices with repeats, decreasing pairs (a lone element), the last
    segment running to the end, and no indices at all."""
    dt = data.draw(st.sampled_from(["int8", "int32", "bool"] if name.startswith("bitwise")
                                   else ["float32", "int8", "bool"]))
    shape = (3, data.draw(st.integers(1, 9)))
    axis = data.draw(st.sampled_from([1, -1, 0]))
    n = shape[axis]
    idx = data.draw(st.lists(st.integers(0, n - 1), max_size=6))
    rng = np.random.default_rng(len(idx) + n)
    h = (rng.standard_normal(shape) * 3).astype(dt) if dt == "float32" else \
        rng.integers(-3 if dt != "bool" else 0, 4 if dt != "bool" else 2, shape).astype(dt)
    uf = getattr(vp, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = getattr(np, name).reduceat(h, np.array(idx, np.int64), axis=axis)
    got = uf.reduceat(vp.asarray(h), idx, axis=axis)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5)


def test_reduceat_errors_and_forms():
    """NumPy's IndexError for an index out of [0, n), NotImplementedError
    naming the ufunc for one without a device reduce, out=, NumPy in /
    NumPy out, resident indices."""
    h = np.arange(10, dtype=np.float32)
    x = vp.asarray(h)
    for bad in ([10], [-1], [2, 11]):
        with pytest.raises(IndexError, match="out-of-bounds in add.reduceat"):
            vp.add.reduceat(x, bad)
    with pytest.raises(NotImplementedError, match="subtract.reduceat"):
        vp.subtract.reduceat(x, [0, 2])
    out = vp.zeros(3, np.float32)
    assert vp.add.reduceat(x, [0, 5, 2], out=out) is out
    np.testing.assert_array_equal(out.numpy(), np.add.reduceat(h, [0, 5, 2]))
    r = vp.minimum.reduceat(h, np.array([3, 1]))
    assert isinstance(r, np.ndarray)
    np.testing.assert_array_equal(r, np.minimum.reduceat(h, [3, 1]))
    np.testing.assert_array_equal(
        vp.add.reduceat(x, vp.asarray(np.array([1, 4], np.int32))).numpy(),
        np.add.reduceat(h, [1, 4]))
    r = np.add.reduceat(x, [1, 4])  # NumPy's method on a resident array stays resident
    assert isinstance(r, vp.ndarray)
    np.testing.assert_array_equal(r.numpy(), np.add.reduceat(h, [1, 4]))
