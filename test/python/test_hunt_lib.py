"""Wrong-answer hunt on the library functions beyond the plain ufuncs and
reductions (wave 17): searching and sorting, order statistics, linalg,
fft, differential against NumPy over VulPy's dtypes, empty and 0-d input,
NaN / inf / -0.0, negative axes and keepdims. One test per bug found (its
docstring says what the user saw and NumPy's answer); the rest hold what
was checked and found right, with few kernels (the dtypes and shapes are
shared between the tests so that lavapipe compiles each kernel once)."""
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target

SETTINGS = settings(max_examples=3, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
DTYPES = ["bool", "uint8", "int64", "float32", "float64"]
# The dtypes of the tests that sort (sort, unique, median, quantile):
# lavapipe compiles a dtype's sort kernels in seconds.
SORTED = ["int64", "float32"]
SPECIAL = [-3.0, -1.5, -0.0, 0.0, 0.5, 2.0, 2.0, 7.0, np.nan, np.inf, -np.inf]


def _values(dt):
    dt = np.dtype(dt)
    if dt.kind == "b":
        return st.booleans()
    if dt.kind == "f":
        return st.sampled_from(SPECIAL)
    return st.integers(-4 if dt.kind == "i" else 0, 4)


def _arrays(dt):
    """One fixed shape: each example then reuses the kernels (lavapipe
    compiles each new shape's); test_edge_shapes has the empty and 0-d."""
    return hnp.arrays(dt, (4, 6), elements=_values(dt))


def _same(got, want, rtol=None, zeros=False):
    """got (a vp result, tuple or scalar) is NumPy's want: the dtype and
    shape, exact for integers and indices, within rtol for floats (NaN
    where NumPy has NaN; the sign of each zero too where zeros=)."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w, rtol, zeros)
        return
    got = got.numpy() if isinstance(got, vp.ndarray) else got
    got, want = np.asarray(got), np.asarray(want)
    assert (got.shape, got.dtype) == (want.shape, want.dtype)
    if want.dtype.kind in "fc":
        if rtol is None:
            rtol = {2: 1e-2, 4: 1e-5, 8: 1e-5, 16: 1e-12}[want.dtype.itemsize]
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol, equal_nan=True)
        if zeros:
            np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    else:
        np.testing.assert_array_equal(got, want)


def _both(f, a, *args, rtol=None, zeros=False, **kw):
    """f(np) and f(vp) on a (resident for vp) give the same answer, or the
    same exception type."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            want = f(np)(a, *args, **kw)
        except (ValueError, TypeError) as e:
            with pytest.raises(type(e)):
                f(vp)(vp.asarray(a), *args, **kw)
            return
        _same(f(vp)(vp.asarray(a), *args, **kw), want, rtol, zeros)


# ------------------------------------------------------------ bugs found
@pytest.mark.parametrize("name", ["argmax", "argmin", "count_nonzero", "ptp", "sum", "max",
                                  "cumsum", "cumprod"])
def test_axis_minus_one_of_a_0d_array(name):
    """Bug: vp.argmax(x, axis=-1) (argmin, count_nonzero, ptp, sum, max,
    any, ...) of a 0-d x raised AxisError, and vp.cumsum(x, axis=0) or
    axis=-1 raised IndexError('tuple index out of range'); NumPy takes
    axis 0 or -1 of a 0-d array: np.argmax(np.array(3.0), axis=-1) is 0,
    np.cumsum(np.array(3.0), axis=0) is array([3.]). Axes 1 and -2 stay an
    AxisError."""
    a = np.array(3.0)
    for axis in (0, -1):
        _both(lambda m: getattr(m, name), a, axis=axis)
    for axis in (1, -2):
        with pytest.raises(np.exceptions.AxisError):
            getattr(vp, name)(vp.asarray(a), axis=axis)


def test_norm_inf_of_empty_is_zero():
    """Bug: vp.linalg.norm(np.zeros(0), np.inf) raised ValueError('zero-size
    array to reduction operation max which has no identity'), and so did
    the matrix norms ord=1 / inf whose max runs over an empty axis
    (np.zeros((0, 3)) with ord=inf); NumPy's max there starts at 0: 0.0
    (and [0., 0., 0.] along axis 0). -inf and -1 stay NumPy's ValueError."""
    for a in (np.zeros(0), np.zeros((0, 3)), np.zeros((3, 0)), np.zeros((2, 0, 3))):
        for o in (np.inf, -np.inf, 1, -1):
            for axis in (None, 0, -1, (0, -1), (-1, 0)):
                _both(lambda m: m.linalg.norm, a, o, axis)


def test_norm_axis_out_of_range():
    """Bug: vp.linalg.norm(x, axis=(0, -3)) of a 2-d x was the norm over
    axes (0, 1) (7.416 for np.arange(6.).reshape(2, 3)) and axis=(0, 2) a
    'Duplicate axes given.' ValueError; NumPy raises AxisError for both,
    and for axis=0 of a 0-d array (which VulPy reduced)."""
    x = np.arange(6.0).reshape(2, 3)
    for o in (None, 1, np.inf, "fro"):
        for axis in ((0, -3), (-3, 0), (0, 2), (2, 0)):
            with pytest.raises(np.exceptions.AxisError):
                vp.linalg.norm(vp.asarray(x), o, axis)
    for o in (None, 1, np.inf, 0):
        for axis in (2, -3):
            with pytest.raises(np.exceptions.AxisError):
                vp.linalg.norm(vp.asarray(x), o, axis)
        with pytest.raises(np.exceptions.AxisError):
            vp.linalg.norm(vp.asarray(np.array(2.0)), o, 0)


def test_tensordot_axis_out_of_range():
    """Bug: vp.tensordot(x, x, (3, 3)) of a 3-d x summed over axis 0 (3 %
    3; likewise -4 and [0, 5]) and returned a (3, 4, 3, 4) array; NumPy
    raises IndexError (tuple index out of range). VulPy raises AxisError,
    which is an IndexError."""
    x = np.arange(24.0).reshape(2, 3, 4)
    for axes in ((3, 3), (-4, -4), ([0, 5], [0, 2]), ([1], [-4])):
        with pytest.raises(IndexError):
            np.tensordot(x, x, axes)
        with pytest.raises(IndexError):
            vp.tensordot(vp.asarray(x), vp.asarray(x), axes)


def test_transpose_axis_out_of_range():
    """Bug: vp.transpose(x, (0, 3)) of a resident 2-d x was x itself
    ((2, 3): 3 wrapped to 1) and (-3, 0) the transpose (3, 2); x.T-style
    x.transpose(0, 2) said "axes don't match array"; so did vp.jit's
    traced vp.transpose. NumPy raises AxisError for each."""
    x = vp.asarray(np.arange(6.0).reshape(2, 3))
    for axes in ((0, 3), (-3, 0), (0, 2)):
        with pytest.raises(np.exceptions.AxisError):
            vp.transpose(x, axes)
        with pytest.raises(np.exceptions.AxisError):
            x.transpose(*axes)
    with pytest.raises(np.exceptions.AxisError):
        vp.jit(lambda a: vp.transpose(a, (-3, 0)) + 1)(x)
    _same(vp.transpose(x, (-1, -2)), np.arange(6.0).reshape(2, 3).T)


# ------------------------------------------------------ checked and right
@pytest.mark.parametrize("dt", SORTED)
@SETTINGS
@given(data=st.data())
def test_sort_argsort_stable_nan_last_and_zero_ties(dt, data):
    """Stable sort / argsort put NaN last and keep -0.0 / 0.0 and every
    other tie in input order, along any axis and flattened."""
    a = data.draw(_arrays(dt))
    axis = data.draw(st.sampled_from([None, -1, 0]))
    _both(lambda m: m.sort, a, axis=axis, stable=True, zeros=True)
    _both(lambda m: m.argsort, a, axis=axis, stable=True)


@pytest.mark.parametrize("dt", DTYPES)
@SETTINGS
@given(data=st.data())
def test_argmax_argmin_first_of_ties_and_nan(dt, data):
    """argmax / argmin: the first of equal extremes, the first NaN where
    there is one, keepdims, negative axes."""
    a = data.draw(_arrays(dt))
    axis = data.draw(st.sampled_from([None, -1, 0]))
    keepdims = data.draw(st.booleans())
    _both(lambda m: m.argmax, a, axis=axis, keepdims=keepdims)
    _both(lambda m: m.argmin, a, axis=axis, keepdims=keepdims)
    _both(lambda m: m.count_nonzero, a, axis=axis, keepdims=keepdims)


@pytest.mark.parametrize("dt", SORTED)
@SETTINGS
@given(data=st.data())
def test_searchsorted_sides_sorter_and_nan(dt, data):
    """searchsorted on data with NaNs (sorted last) and -0.0, both sides,
    with and without sorter=."""
    a = data.draw(hnp.arrays(dt, 12, elements=_values(dt)))
    v = data.draw(hnp.arrays(dt, 6, elements=_values(dt)))
    order = np.argsort(a, kind="stable")
    for side in ("left", "right"):
        _both(lambda m: m.searchsorted, np.sort(a), v, side=side)
        _both(lambda m: (lambda x, y, **kw: m.searchsorted(
            x, y, sorter=order if m is np else vp.asarray(order), **kw)), a, v, side=side)


@pytest.mark.parametrize("dt", SORTED)
@SETTINGS
@given(data=st.data())
def test_unique_index_inverse_counts(dt, data):
    """unique's values, first indices, inverse and counts (NaNs collapsed
    by default, kept apart with equal_nan=False)."""
    a = data.draw(_arrays(dt))
    _both(lambda m: m.unique, a, return_index=True, return_inverse=True, return_counts=True)
    _both(lambda m: m.unique, a, return_counts=True, equal_nan=False)
    _both(lambda m: m.unique, a, axis=0, return_inverse=True, return_counts=True)


@pytest.mark.parametrize("dt", DTYPES)
def test_nonzero_family(dt):
    """nonzero / flatnonzero / argwhere / count_nonzero(axis tuple) on
    2-d, 1-d, empty and 0-d input."""
    for shape in [(4, 5), (7,), (0, 3), ()]:
        a = np.resize(np.array([0, 1, 2, 0, 3, 0, 0], dt), shape)
        for name in ("nonzero", "flatnonzero", "argwhere"):
            _both(lambda m: getattr(m, name), a)
        if a.ndim == 2:
            _both(lambda m: m.count_nonzero, a, axis=(0, -1), keepdims=True)


@pytest.mark.parametrize("dt", SORTED)
@SETTINGS
@given(data=st.data())
def test_order_statistics(dt, data):
    """quantile / percentile (linear), median, nanmedian, ptp, average
    (weights, returned=) and diff (n, prepend/append) along axes."""
    a = data.draw(hnp.arrays(dt, (2, 3, 4), elements=_values(dt)))
    axis = data.draw(st.sampled_from([None, -1, 0, (0, -1)]))
    keepdims = data.draw(st.booleans())
    _both(lambda m: m.quantile, a, [0.0, 0.3, 1.0], axis=axis, keepdims=keepdims)
    _both(lambda m: m.percentile, a, 37.5, axis=axis, keepdims=keepdims)
    _both(lambda m: m.median, a, axis=axis, keepdims=keepdims)
    _both(lambda m: m.nanmedian, a, axis=axis)
    _both(lambda m: m.ptp, a, axis=axis, keepdims=keepdims)
    _both(lambda m: m.average, a, axis=axis, returned=True, keepdims=keepdims)
    if axis is None or isinstance(axis, tuple):
        return
    w = np.arange(1, a.shape[axis] + 1, dtype=np.float32)
    _both(lambda m: m.average, a, axis=axis, weights=w, returned=True)
    _both(lambda m: m.diff, a, n=2, axis=axis)
    _both(lambda m: m.diff, a, axis=axis, prepend=1)


def test_order_statistics_of_extreme_integers():
    """median / quantile / ptp / diff of int64 and uint64 past 2**53 and of
    int8's ends compute in NumPy's types (float64 for the interpolation,
    wrap-around for ptp and diff)."""
    for a in (np.array([2**63 - 1, -2**63, 2**62 + 1, 2**53 + 1, -1, 0], np.int64),
              np.array([2**64 - 1, 2**63, 2**53 + 1, 0, 1, 2**53], np.uint64)):
        _both(lambda m: m.median, a)
        _both(lambda m: m.quantile, a, [0.0, 0.37, 1.0])
        _both(lambda m: m.ptp, a)
        _both(lambda m: m.diff, a)


def test_clip_with_a_min_above_a_max():
    """clip with a_min > a_max gives a_max everywhere (NumPy's order:
    minimum(maximum(a, a_min), a_max)); NaN passes through."""
    a = np.array([-3.0, -0.0, 0.5, 2.0, np.nan, np.inf])
    _both(lambda m: m.clip, a, 3, 1)
    _both(lambda m: m.clip, np.arange(-2, 4, dtype=np.int32), 3, 1)


NORM_ORDS = [None, "fro", np.inf, -np.inf, 0, 1, -1, 2, -2, 3, 0.5]


@pytest.mark.parametrize("dt", ["int32", "float32", "float64"])
def test_linalg_norm_every_order(dt):
    """vp.linalg.norm: every vector order along an axis, the matrix orders
    VulPy has (fro, 1, -1, inf, -inf) over axis pairs in either order,
    keepdims; empty and 0-d input."""
    a = (np.random.default_rng(0).standard_normal((2, 3, 4)) * 3).astype(dt)
    for o in NORM_ORDS:
        for kd in (False, True):
            _both(lambda m: m.linalg.norm, a[0, 0], ord=o, keepdims=kd)
            _both(lambda m: m.linalg.norm, a, ord=o, axis=-1, keepdims=kd)
            if o in ("fro", np.inf, -np.inf, 1, -1):
                _both(lambda m: m.linalg.norm, a, ord=o, axis=(2, 0), keepdims=kd)
    _both(lambda m: m.linalg.norm, a)
    _both(lambda m: m.linalg.norm, np.zeros((0, 3), dt), axis=0)
    _both(lambda m: m.linalg.norm, np.array(-2, dt))


@pytest.mark.parametrize("dt", ["float64"])
def test_products_trace_diagonal(dt):
    """outer / inner / vdot / tensordot (int, pair and negative axes),
    trace / diagonal with offsets past the edge and swapped axes; int8
    wraps as in NumPy."""
    r = np.random.default_rng(1)
    x = (r.standard_normal((2, 3, 4)) * 3).astype(dt)
    y = (r.standard_normal((4, 3, 2)) * 3).astype(dt)
    _both(lambda m: m.outer, x[0], y[0])
    _both(lambda m: m.inner, x, y[:, 0, 0])
    _both(lambda m: m.vdot, x, y)
    _both(lambda m: m.tensordot, x, y, ([0, 1], [2, 1]))
    _both(lambda m: m.tensordot, x, y, ([-1], [0]))
    _both(lambda m: m.tensordot, x, y.reshape(3, 4, 2), 2)
    for off in (-3, 0, 2):
        _both(lambda m: m.trace, x, off)
        _both(lambda m: m.trace, x, off, -1, 1)
        _both(lambda m: m.diagonal, x, off, 2, 0)
    _both(lambda m: m.vdot, np.full(10, 100, np.int8), np.full(10, 100, np.int8))


@pytest.mark.parametrize("dt", ["float32", "complex128"])
def test_fft_sizes_norms_and_dtypes(dt):
    """fft / ifft / rfft / irfft with n above, below and equal to an odd
    axis, each norm=, along axis 0; fftn / rfftn / irfftn with s= and
    axes= in any order; float32 stays complex64 / float32."""
    r = np.random.default_rng(2)
    a = r.standard_normal((5, 7))
    if dt.startswith("complex"):
        a = a + 1j * r.standard_normal((5, 7))
    a = a.astype(dt)
    real = ("rfft", "rfftn") if dt.startswith("float") else ()
    rows = ((None, 3, (4, 9), (1, 0)), ("forward", 10, (3,), (0,)))
    for norm, n, s, axes in rows if real else rows[1:]:
        for fn in ("fft", "ifft", "irfft") + real[:1]:
            _both(lambda m: getattr(m.fft, fn), a, n=n, axis=0, norm=norm)
        for fn in ("fftn", "irfftn") + real[1:]:
            _both(lambda m: getattr(m.fft, fn), a, s=s, axes=axes, norm=norm)
    for axes in (None, 0, (-1,)):
        _both(lambda m: m.fft.fftshift, a, axes=axes)
        _both(lambda m: m.fft.ifftshift, a, axes=axes)


def test_fftfreq():
    """fftfreq / rfftfreq for even, odd and one-point n and several d."""
    for n in (1, 2, 7, 8):
        for d in (1.0, 0.3, 3):
            _same(vp.fft.fftfreq(n, d), np.fft.fftfreq(n, d))
            _same(vp.fft.rfftfreq(n, d), np.fft.rfftfreq(n, d))


@pytest.mark.parametrize("dt", ["int64", "float32"])
def test_edge_shapes(dt):
    """Empty and 0-d input through sort, argsort, unique, searchsorted,
    count_nonzero, median, quantile, ptp (ValueError on an empty axis, as
    NumPy) and argmax."""
    for a in (np.zeros((0, 3), dt), np.array(-0.0 if dt == "float32" else 5, dt)):
        axis = None if a.ndim == 0 else 0
        _both(lambda m: m.sort, a, axis=axis)
        _both(lambda m: m.argsort, a, axis=axis)
        _both(lambda m: m.unique, a, return_index=True, return_inverse=True,
              return_counts=True)
        _both(lambda m: m.searchsorted, a.ravel(), np.arange(3, dtype=dt))
        _both(lambda m: m.count_nonzero, a, axis=axis)
        _both(lambda m: m.median, a, axis=axis)
        if a.size:  # NumPy's quantile of nothing is an IndexError
            _both(lambda m: m.quantile, a, 0.5, axis=axis)
        _both(lambda m: m.ptp, a, axis=axis)
        _both(lambda m: m.argmax, a, axis=axis)


# --- session 44: 0-d and empty operands NumPy takes (a fuzz over the coverage table's
# calls with 0-d, empty, reversed and re-typed operands)

def _same_as_numpy(got, want):
    got = got.numpy() if isinstance(got, vp.ndarray) else np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("call", [
    lambda m, a, b: m.repeat(a, 2, axis=0), lambda m, a, b: m.repeat(a, 3, axis=-1),
    lambda m, a, b: m.compress([True], a, axis=0), lambda m, a, b: m.convolve(a, b),
    lambda m, a, b: m.polyadd(a, b), lambda m, a, b: m.polysub(b, a),
    lambda m, a, b: m.polymul(a, b)])
def test_zero_d_operands_numpy_takes_as_1d(call):
    """np.repeat / np.compress with axis=0 or -1, np.convolve and np.polyadd /
    polysub / polymul take a 0-d operand as 1-D of one element; vp raised
    AxisError or ValueError ('coefficients must be 1-D', 'object too deep')."""
    a, b = np.array(0.25, np.float32), np.array(1.5, np.float32)
    _same_as_numpy(call(vp, vp.asarray(a), vp.asarray(b)), call(np, a, b))


def test_zero_d_refusals_stay_numpys():
    """What NumPy refuses on 0-d operands vp refuses too: repeat on axis 1,
    linalg.vecdot (vp returned the product), correlate."""
    a = vp.asarray(np.array(1.5, np.float32))
    with pytest.raises(np.exceptions.AxisError):
        vp.repeat(a, 2, axis=1)
    with pytest.raises(ValueError, match="enough dimensions"):
        vp.linalg.vecdot(a, a)
    with pytest.raises(ValueError):
        vp.correlate(a, a)


@pytest.mark.parametrize("shape, axis", [((0, 3), 1), ((3, 0), 1), ((0, 3), (0, 1)),
                                         ((2, 0, 3), (0, 2))])
def test_vector_norm_with_an_empty_axis(shape, axis):
    """vp.linalg.vector_norm of an array with a zero-length axis raised
    'cannot reshape array of size 0 into shape (0, -1)'; NumPy: zeros (or
    an empty result)."""
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    _same_as_numpy(vp.linalg.vector_norm(vp.asarray(x), axis=axis),
                   np.linalg.vector_norm(x, axis=axis))


def test_bool_indices_unravel_and_ravel():
    """np.unravel_index / np.ravel_multi_index take bool indices (a safe
    cast to intp); vp raised 'only int indices permitted, got bool'."""
    i = np.array([True, False, True])
    for g, w in zip(vp.unravel_index(vp.asarray(i), (2, 3)), np.unravel_index(i, (2, 3))):
        _same_as_numpy(g, w)
    _same_as_numpy(vp.ravel_multi_index((vp.asarray(i), vp.asarray(i)), (2, 3)),
                   np.ravel_multi_index((i, i), (2, 3)))


def test_random_module_functions_are_the_generators():
    """vp.random.<distribution>(...) after vp.random.seed(s) draws what
    vp.random.default_rng(s).<distribution>(...) draws, with the method's
    signature (the module functions are built from the Generator's)."""
    import inspect
    for name, args in [("beta", (2.0, 3.0)), ("standard_exponential", ()),
                       ("integers", (0, 9)), ("gamma", (2.0,))]:
        vp.random.seed(7)
        got = getattr(vp.random, name)(*args, size=6).numpy()
        want = getattr(vp.random.default_rng(7), name)(*args, size=6).numpy()
        np.testing.assert_array_equal(got, want)
        params = list(inspect.signature(getattr(vp.random.Generator, name)).parameters)[1:]
        assert list(inspect.signature(getattr(vp.random, name)).parameters) == params
    assert vp.random.ranf is vp.random.sample is vp.random.random_sample


def test_gradient_of_bool_is_numpys_type_error():
    """np.gradient keeps a bool array bool and its subtraction raises
    TypeError; vp.gradient returned float64 zeros and ones."""
    b = np.array([True, False, True, True])
    with pytest.raises(TypeError):
        np.gradient(b)
    with pytest.raises(TypeError, match="boolean subtract"):
        vp.gradient(vp.asarray(b))
