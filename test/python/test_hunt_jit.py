"""A hunt for silent wrong answers in vp.jit (traced array functions) and
vp.random, called as a CuPy / NumPy user would: each jitted function is
compared with the same function run eagerly on NumPy arrays (dtypes by
NEP 50, in-place operators, out= aliasing an argument, several results,
scalar arguments and what the function returns of them), and vp.random
with numpy.random.Generator(Philox) (bit identity where the docs claim
it, argument errors where NumPy raises).

Each test named after a bug fails on the code before its fix."""
import warnings

import numpy as np
import pytest

import vulpy as vp

from conftest import needs_target

pytestmark = [pytest.mark.usefixtures("ctx"), needs_target]

# one shape and a few dtypes for everything: each new kernel costs a compile
X8 = np.arange(-4, 4, dtype=np.int8)
XF = np.linspace(-1, 1, 8, dtype=np.float32)
V1 = np.arange(8, dtype=np.float32)


def _np(x):
    return x.numpy() if isinstance(x, vp.ndarray) else np.asarray(x)


def _same(got, want, what=""):
    """dtype, shape and values (NaN where NaN) of NumPy's answer."""
    got, want = _np(got), np.asarray(want)
    assert got.dtype == want.dtype, (what, got.dtype, want.dtype)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    np.testing.assert_array_equal(got, want, err_msg=str(what))


# ---------------------------------------------------------------- NEP 50


def test_weak_scalar_arithmetic_stays_weak():
    """Bug: Python arithmetic on a scalar argument (`n + 1`, `-s`, `2.0 * s`)
    was traced as a strong int64 / float64 value, so `x * (n + 1)` of an
    int8 x was int64 and `x * -s` of a float32 x float64 (with float64
    rounding). Eager NumPy computes n + 1 in Python: a weak Python scalar,
    the result int8 / float32."""
    xv, fv = vp.asarray(X8), vp.asarray(XF)
    f = vp.jit(lambda x, n: x * (n + 1) - (n > 2))
    for n in (2, 3, -5):  # one trace; n's value is a push constant
        _same(f(xv, n), X8 * (n + 1) - (n > 2), n)
    g = vp.jit(lambda x, s: x * -s + abs(s) / 3)
    for s in (2.0, -0.5):
        _same(g(fv, s), XF * -s + abs(s) / 3, s)
    h = vp.jit(lambda x, n: x + (n - 200))  # Python's n - 200, then int8
    _same(h(xv, 300), X8 + 100)
    with pytest.raises(OverflowError):  # NumPy: 300 out of bounds for int8
        h(xv, 500)


def test_scalar_argument_returned_is_this_calls_value():
    """Bug: a function returning a scalar argument (or Python arithmetic on
    one) returned its value at the first call on every later call: the
    trace kept it as a constant."""
    f = vp.jit(lambda x, s: (x * s, s, s * 2))
    fv = vp.asarray(XF)
    for s in (2.0, -0.5):
        r = f(fv, s)
        _same(r[0], XF * s)
        assert r[1:] == (s, s * 2), (r[1:], s)


def test_python_bool_argument():
    """Bug: a Python bool argument was a TypeError ("no loop for (int8,
    bool)"); NumPy's x * True is x (bool is the lowest kind)."""
    f = vp.jit(lambda x, b: x * b)
    xv = vp.asarray(X8)
    _same(f(xv, True), X8 * True)
    _same(f(xv, False), X8 * False)


def test_int_literal_out_of_range_is_overflow_error():
    """Bug: an integer literal outside the array's dtype was written into
    the kernel wrapped: `x + 1000` of an int8 x gave x - 24, `u + (-1)` of a
    uint64 u gave u + 2^64 - 1. NumPy raises OverflowError (Python integer
    out of bounds); comparisons stay exact (x < 1000 is all True)."""
    xv = vp.asarray(X8)
    with pytest.raises(OverflowError):
        vp.jit(lambda x: x + 1000)(xv)
    with pytest.raises(OverflowError):
        vp.jit(lambda x: x + (-1))(vp.asarray(np.arange(3, dtype=np.uint64)))
    _same(vp.jit(lambda x: (x < 1000) & (x != -1000))(xv), (X8 < 1000) & (X8 != -1000))
    # numpy.where casts a Python int as it is in NumPy 2.3 (1000 is int8's
    # -24) and refuses it later: eager and vp.jit do what this NumPy does
    try:
        want = np.where(X8 > 0, X8, 1000)
    except OverflowError:
        want = None
    for f in (lambda x: vp.where(x > 0, x, 1000), vp.jit(lambda x: vp.where(x > 0, x, 1000))):
        if want is None:
            with pytest.raises(OverflowError):
                f(xv)
        else:
            _same(f(xv), want)
    _same(vp.jit(lambda x: x + 100)(xv), X8 + 100)


def test_int_argument_compare_beyond_dtype():
    """Bug: x < n of a uint8 / int8 x with a Python int argument n outside
    the dtype (n = 300, -1) was an OverflowError (n cast to x's dtype);
    NumPy 2 compares exactly: x_u8 < 300 all True, x_u8 == -1 all False.
    One trace serves every n (a push constant), in range or not."""
    u8 = np.arange(250, 256, dtype=np.uint8)
    f = vp.jit(lambda x, n: ((x < n), (n >= x), (x == n), (x != n)))
    uv = vp.asarray(u8)
    for n in (252, 300, -1, 255, 256, 2 ** 70):
        want = (u8 < n, n >= u8, u8 == n, u8 != n)
        for got, w in zip(f(uv, n), want):
            _same(got, w, n)
    i8 = vp.asarray(X8)
    for n in (-129, -4, 127, 128):
        _same(f(i8, n)[0], X8 < n, n)


def test_zero_literal_keeps_0d_shape():
    """Bug: a float zero literal next to a 0-d value made the result 1-d:
    vp.jit(lambda b: b.mean() > 0)(b) and x * 0.0 of a 0-d x had shape (1,)
    where NumPy's is () (the zero is read from a captured one-element
    buffer, which np.ascontiguousarray made 1-d)."""
    b = np.arange(-3, 3, dtype=np.int64).reshape(2, 3)
    _same(vp.jit(lambda b: vp.where(b.mean() > 0, 1, 0))(vp.asarray(b)),
          np.where(b.mean() > 0, 1, 0))
    _same(vp.jit(lambda b: (b.sum() * 0.0, b.max() >= 0.0))(vp.asarray(b))[1], b.max() >= 0.0)
    z = np.float32(-3)
    _same(vp.jit(lambda x: x * 0.0)(vp.asarray(z)), np.asarray(z) * 0.0)


@pytest.mark.parametrize("s", [3, 2.5, np.float32(2.5), np.float64(0.5), np.int8(-3),
                               np.uint8(200), np.int64(7)])
def test_scalar_arguments_promote_as_numpy(s):
    """Python scalars are weak, NumPy scalars strong (NEP 50), as arguments
    of a jitted function (found right)."""
    f = vp.jit(lambda a, t: a * t + t)
    for x in (X8, XF):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = x * s + s
        _same(f(vp.asarray(x), s), want, (x.dtype, s))


def test_returned_dict_and_namedtuple_hold_arrays():
    """Bug: a function returning a dict ({"y": a * 2}) gave the caller the
    dict with the trace's Tracer objects in it (no result computed; using
    one was a TracingError), and a namedtuple result was a TypeError from
    rebuilding it. Eager returns the dict / namedtuple of arrays."""
    import collections

    P = collections.namedtuple("P", "u v")
    xv = vp.asarray(V1)
    r = vp.jit(lambda a: {"y": a * 2, "z": (a + 1, 3)})(xv)
    assert list(r) == ["y", "z"]
    _same(r["y"], V1 * 2)
    _same(r["z"][0], V1 + 1)
    assert r["z"][1] == 3
    p = vp.jit(lambda a: P(a * 2, a - 1))(xv)
    assert isinstance(p, P)
    _same(p.u, V1 * 2)
    _same(p.v, V1 - 1)


def test_jit_function_called_inside_jit_is_inlined():
    """Bug: a vp.jit function called from another one was a TypeError
    (cannot use an argument of type Tracer); now it traces into the
    caller, as calling the plain function would."""
    inner = vp.jit(lambda a, n: a * n)
    outer = vp.jit(lambda a: inner(a, 2) + inner(a[::-1], 3))
    _same(outer(vp.asarray(V1)), V1 * 2 + V1[::-1] * 3)
    _same(inner(vp.asarray(V1), 2), V1 * 2)  # and on its own still


def test_numpy_scalar_argument_is_a_0d_array():
    """Bug: a NumPy scalar argument (or vp.sqrt of a Python scalar) inside
    vp.jit had shape None: s.sum(), s.ndim, s.reshape(1, 1), s[None] were
    TypeErrors (object of type 'NoneType' has no len()); NumPy treats it as
    a 0-d array."""
    s = np.float64(0.5)
    f = vp.jit(lambda x, s: (s.sum() * x, s.reshape(1, 1), s[None] + s.ndim,
                             vp.sqrt(2.0 * s).max(keepdims=True)))
    r = f(vp.asarray(V1), s)
    _same(r[0], np.sum(s) * V1)
    _same(r[1], np.reshape(s, (1, 1)))
    _same(r[2], np.asarray(s)[None] + 0)
    _same(r[3], np.max(np.sqrt(2.0 * np.asarray(s)), keepdims=True))


def test_complex_value_inside_jit():
    """Bug: x * 1j (or a complex argument, a captured complex array) inside
    vp.jit was TypeError: 'NoneType' object is not callable from deep in
    the complex path. Complex values now trace (test_jit_complex.py): NumPy's
    values and dtypes."""
    xv = vp.asarray(V1)
    for f, args in ((lambda a: a * 1j, ()), (lambda a, c: a + c, (2 + 1j,)),
                    (lambda a: a + np.array([1j], np.complex64), ())):
        got = vp.jit(f)(xv, *args)
        want = f(V1, *args)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)


# ---------------------------------------------------------------- in place


def test_augmented_assignment_to_argument_is_tracing_error():
    """Bug: `a += 1` on an argument inside vp.jit left the caller's array
    unchanged (the tracer rebound the name), where the same function run
    eagerly updates it in place. Now a TracingError: return the result and
    pass out= for an in-place update."""
    def f(a):
        a += 1
        return a

    xv = vp.asarray(V1)
    with pytest.raises(vp.TracingError, match="in-place"):
        vp.jit(f)(xv)

    def g(a):  # a view of a computed value: NumPy writes the value's memory
        b = a * 2
        v = b[1:]
        v += 1
        return b

    with pytest.raises(vp.TracingError, match="in-place"):
        vp.jit(g)(xv)


def test_augmented_assignment_casts_as_numpy():
    """Bug: `b += y` on a computed value gave NumPy's promotion of b + y
    (int32 += 1.5 a float64 array, float32 += float64 a float64 array);
    NumPy keeps b's dtype (same_kind casting: int32 += float is its
    UFuncTypeError) and shape."""
    xv = vp.asarray(V1)

    def f(a):
        b = a.astype(np.int32)
        b += 1.5
        return b

    with pytest.raises(TypeError):
        vp.jit(f)(xv)

    def g(a, y):
        b = a * 1
        b += y
        return b

    y = np.full(8, 0.1)
    want = V1 * 1
    want += y
    _same(vp.jit(g)(xv, vp.asarray(y)), want)


def test_augmented_assignment_of_computed_values():
    """In place on values the function computed: every name bound to the
    value sees the update, a copy does not (found right after the fix)."""
    def f(a, n):
        b = a * 2
        c = b
        d = b.copy()
        b += 1
        n += 1  # a Python int: n = n + 1
        b //= n
        return b, c, d

    want_b = (V1 * 2 + 1) // 3
    r = vp.jit(f)(vp.asarray(V1), 2)
    _same(r[0], want_b)
    _same(r[1], want_b)
    _same(r[2], V1 * 2)


def test_augmented_assignment_after_a_copy_that_reshapes():
    """cumsum() (axis None), flatten() and take() reshape their input
    inside: no view the user holds, so a later y += 1 of that input is
    allowed (and their results do not see it), where ravel() is a view
    (a TracingError, as the view would see the update in NumPy)."""
    def f(a):
        y = a * 2
        c = y.cumsum()
        fl = y.flatten()
        t = vp.take(y, [0, 5])
        y += 1
        fl += 5
        return y, c, fl, t

    x = V1.reshape(2, 4)
    r = vp.jit(f)(vp.asarray(x))
    for got, want in zip(r, ((x * 2) + 1, (x * 2).cumsum(), (x * 2).ravel() + 5,
                             np.take(x * 2, [0, 5]))):
        _same(got, want)

    def g(a):
        y = a * 2
        r = y.ravel()
        y += 1
        return r

    with pytest.raises(vp.TracingError, match="view"):
        vp.jit(g)(vp.asarray(x))

    def h(a):  # views that are gone (temporaries) do not count
        y = a * 2
        first = y[0] + 0
        col = y[:, None] * 1
        y += 1
        return y, first, col

    r = vp.jit(h)(vp.asarray(x))
    for got, want in zip(r, (x * 2 + 1, x[0] * 2, (x * 2)[:, None])):
        _same(got, want)


# ---------------------------------------------------------------- out=


@pytest.mark.parametrize("fuse", [True, False])
def test_out_aliasing_argument_read_by_another_result(fuse):
    """Bug: f = lambda a: (a + 1, a * 2) called f(a, out=(a, o)) gave o =
    (a + 1) * 2: the two results are two kernels and the second read a
    after the first had written it (vulpy-opt --fuse splits them with no
    copy). NumPy (and eager) compute both from a's values before the
    call: o = a * 2."""
    f = vp.jit(lambda a: (a + 1, a * 2), fuse=fuse)
    av, o = vp.asarray(V1), vp.empty(8, np.float32)
    f(av, out=(av, o))
    _same(av, V1 + 1)
    _same(o, V1 * 2)
    g = vp.jit(lambda a, b: (b + 1, a * 2), fuse=fuse)  # a written by the other result
    av, o = vp.asarray(V1), vp.empty(8, np.float32)
    g(av, vp.asarray(V1[::-1].copy()), out=(av, o))
    _same(av, V1[::-1] + 1)
    _same(o, V1 * 2)
    h = vp.jit(lambda a, b: (a + b, a - b), fuse=fuse)  # halves of one array
    av = vp.asarray(V1)
    h(av[:4], av[4:], out=(av[:4], av[4:]))
    _same(av, np.concatenate([V1[:4] + V1[4:], V1[:4] - V1[4:]]))


def test_out_in_place_without_hazard_runs_in_place():
    """Each result from its own argument, in place: no copy is needed (the
    hazard check stays quiet) and the answer is right."""
    k = vp.jit(lambda a, b: (a + 1, b + 1))
    av = vp.asarray(V1)
    k(av[:4], av[4:], out=(av[:4], av[4:]))
    _same(av, V1 + 1)
    assert k._last.hazard == ()


def test_float_argument_beyond_float32_is_inf():
    """Bug: x * s of a float32 x with s = 1e300 (a Python float) was a
    TypeError (the push constant cannot hold 1e300); NumPy casts the weak
    scalar to float32: inf, so x * 1e300 is [nan (0 * inf), inf, ...]."""
    f = vp.jit(lambda x, s: x * s)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = V1 * 1e300
        got = f(vp.asarray(V1), 1e300)
    np.testing.assert_array_equal(_np(got), want)
    _same(f(vp.asarray(V1), 0.5), V1 * 0.5)


def test_closure_values_are_read_at_the_trace():
    """As the docs say: a global number or NumPy array the function reads
    is read when it is traced; a later change is not seen until a new
    signature traces again (found as documented)."""
    box = {"k": 2.0}
    f = vp.jit(lambda a: a * box["k"])
    xv = vp.asarray(V1)
    _same(f(xv), V1 * 2)
    box["k"] = 3.0
    _same(f(xv), V1 * 2)
    _same(f(vp.asarray(V1[:4])), V1[:4] * 3)  # another shape: traced again


# ---------------------------------------------------------------- vp.random


def _gens(**kw):
    return (vp.random.Generator(vp.random.Philox(**kw)),
            np.random.Generator(np.random.Philox(**kw)))


@pytest.mark.parametrize("how", ["normal", "exponential"])
def test_random_negative_zero_scale_is_value_error(how):
    """Bug: normal(0, -0.0) and exponential(-0.0) (and an array scale with
    a -0.0) returned samples; NumPy checks the sign bit (NaN aside) and
    raises ValueError for -0.0. A NaN scale is accepted by both."""
    g, n = _gens(seed=1)
    call = {"normal": lambda r, s: r.normal(0.0, s, 3),
            "exponential": lambda r, s: r.exponential(s, 3)}[how]
    for s in (-0.0, np.array([1.0, -0.0, 2.0])):
        with pytest.raises(ValueError):
            call(n, s)
        with pytest.raises(ValueError):
            call(g, s)
    call(g, np.nan)
    call(n, np.nan)
    call(g, np.array([0.0, np.nan, 1.0]))


def test_random_philox_bit_identity():
    """The docs' claim, checked (found right): random_raw, random() float64
    and float32 in odd sizes one after the other, across a counter word
    carry, after advance(), and the state after each call."""
    g, n = _gens(key=[1, 2], counter=2 ** 128 - 2)  # words (2^64 - 2, 2^64 - 1, 0, 0)
    for size in (5, 3, 16, 1, 9):
        np.testing.assert_array_equal(g.bit_generator.random_raw(size).numpy(),
                                      n.bit_generator.random_raw(size))
        np.testing.assert_array_equal(g.random(size, dtype=np.float32).numpy(),
                                      n.random(size, dtype=np.float32))
        np.testing.assert_array_equal(g.random((size, 2)).numpy(), n.random((size, 2)))
    g.bit_generator.advance(2 ** 64 + 3)
    n.bit_generator.advance(2 ** 64 + 3)
    np.testing.assert_array_equal(g.random(7, dtype=np.float32).numpy(),
                                  n.random(7, dtype=np.float32))
    a, b = g.bit_generator.state, n.bit_generator.state
    np.testing.assert_array_equal(a["state"]["counter"], b["state"]["counter"])
    assert (a["buffer_pos"], a["has_uint32"], a["uinteger"]) == \
        (b["buffer_pos"], b["has_uint32"], b["uinteger"])


def test_random_integers_at_dtype_limits():
    """integers() at the ends of int8 .. uint64 stays in range, endpoint=
    includes the top (found right)."""
    g = vp.random.default_rng(11)
    for dt in (np.int8, np.uint8, np.int64, np.uint64):
        info = np.iinfo(dt)
        top = g.integers(int(info.max) - 3, int(info.max), 600, dtype=dt, endpoint=True).numpy()
        assert top.dtype == dt and set(top.tolist()) == set(range(int(info.max) - 3,
                                                                int(info.max) + 1))
        low = g.integers(int(info.min), int(info.min) + 3, 600, dtype=dt).numpy()
        assert set(low.tolist()) == set(range(int(info.min), int(info.min) + 3))


def test_random_parameter_broadcasting():
    """normal / uniform with array loc, scale, low, high broadcast to size,
    each position its own parameters (found right: 5 standard errors)."""
    g = vp.random.default_rng(3)
    loc, scale = np.array([0.0, 10.0, -10.0]), np.array([[1.0], [5.0]])
    z = g.normal(loc, scale, size=(4000, 2, 3)).numpy()
    se = scale / np.sqrt(4000)
    assert np.all(np.abs(z.mean(axis=0) - loc) < 5 * se)
    assert np.all(np.abs(z.std(axis=0) / scale - 1) < 5 / np.sqrt(2 * 4000))
    u = g.uniform(loc, loc + scale, size=(4000, 2, 3), dtype=np.float32).numpy()
    assert u.dtype == np.float32 and np.all(u >= loc) and np.all(u < loc + scale)


def test_big_endian_numpy_data_is_its_values():
    """Bug: NumPy data in the other byte order ('>f4', '>u2', '>i8') was a
    TypeError naming its own dtype ("float32 is not supported on the GPU")
    in vp.asarray, as an operand beside a resident array (the array path)
    and in vp.jit; NumPy and CuPy take its values."""
    for dt in (">f4", ">i8", ">u2", ">f8"):
        b = (np.arange(7) * 3 - 4).astype(dt)
        want = b.astype(np.dtype(dt).newbyteorder("="))
        x = vp.asarray(b)
        assert x.dtype == want.dtype
        _same(x, want)
        _same(vp.asarray(b[::-2]), want[::-2])
        _same(x + b, want + want)
        _same(vp.jit(lambda p, q: p * 2 + q)(b, x), want * 2 + want)
        y = vp.zeros(7, want.dtype)
        y[...] = b
        _same(y, want)


def test_flip_diff_nan_to_num_isclose_trace():
    """vp.flip, vp.diff, vp.nan_to_num and vp.isclose inside vp.jit were
    TracingErrors (numpy.<name> is not supported in vp.jit); they are
    slices and ufuncs, so they trace and fuse (one kernel each here)."""
    h = np.array([[1.0, np.nan, np.inf, 0.5], [-np.inf, 2.5, -1.0, 1e-7]], np.float32)
    x = vp.asarray(h)
    cases = [(lambda a: vp.flip(a), np.flip),
             (lambda a: vp.flip(a, 1) * 2, lambda a: np.flip(a, 1) * 2),
             (lambda a: vp.diff(a), np.diff), (lambda a: vp.diff(a, 2), lambda a: np.diff(a, 2)),
             (lambda a: vp.diff(a, axis=0), lambda a: np.diff(a, axis=0)),
             (lambda a: vp.diff(a > 0), lambda a: np.diff(a > 0)),
             (lambda a: vp.nan_to_num(a), np.nan_to_num),
             (lambda a: vp.nan_to_num(a, nan=-1.0, posinf=9.0, neginf=-9.0),
              lambda a: np.nan_to_num(a, nan=-1.0, posinf=9.0, neginf=-9.0)),
             (lambda a: vp.isclose(a, a + 1e-6), lambda a: np.isclose(a, a + np.float32(1e-6))),
             (lambda a: vp.isclose(a, a, equal_nan=True),
              lambda a: np.isclose(a, a, equal_nan=True)),
             (lambda a: vp.isclose(a, 1.0), lambda a: np.isclose(a, 1.0))]
    for k, (f, ref) in enumerate(cases):
        j = vp.jit(f)
        with np.errstate(all="ignore"):
            got, want = j(x).numpy(), ref(h)
        assert got.dtype == want.dtype, k
        np.testing.assert_array_equal(got, want, err_msg=str(k))
        assert j.dispatches == 1, (k, j.dispatches)
    # prepend= / append= (a TracingError until the trace had concatenate):
    # concatenated first, a scalar broadcast to one slice, NumPy's dtype
    for f, ref in ((lambda a: vp.diff(a, prepend=0), lambda a: np.diff(a, prepend=0)),
                   (lambda a: vp.diff(a, axis=0, append=a[:1] * 2),
                    lambda a: np.diff(a, axis=0, append=a[:1] * 2)),
                   (lambda a: np.diff(a, 2, prepend=np.float32(1), append=0.5),
                    lambda a: np.diff(a, 2, prepend=np.float32(1), append=0.5))):
        with np.errstate(all="ignore"):
            got, want = vp.jit(f)(x).numpy(), ref(h)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    with pytest.raises(vp.TracingError, match="copy=False"):
        vp.jit(lambda a: vp.nan_to_num(a, copy=False))(x)
    z = (h + 1j).astype(np.complex64)
    np.testing.assert_array_equal(vp.jit(lambda a: vp.flip(a, 0))(vp.asarray(z)).numpy(),
                                  np.flip(z, 0))


def test_concatenate_and_stack_trace():
    """vp.concatenate / vp.stack (np. too) inside vp.jit were TracingErrors;
    each piece is now a constant-index gather chosen by a constant mask, one
    fused kernel with what surrounds it; complex pieces join part by part."""
    h = np.arange(6, dtype=np.float32).reshape(2, 3)
    g = np.arange(4, dtype=np.int32).reshape(2, 2) * 10
    z = (h + 1j).astype(np.complex64)
    a, b, c = vp.asarray(h), vp.asarray(g), vp.asarray(z)
    cases = [(lambda x, y, w: vp.concatenate([x, y], axis=1),
              lambda x, y, w: np.concatenate([x, y], axis=1)),
             (lambda x, y, w: vp.concatenate([x, x * 2]) + 1,
              lambda x, y, w: np.concatenate([x, x * 2]) + 1),
             (lambda x, y, w: vp.concatenate([x, y], axis=None),
              lambda x, y, w: np.concatenate([x, y], axis=None)),
             (lambda x, y, w: np.concatenate((x, np.ones((2, 1), np.float32)), 1),
              lambda x, y, w: np.concatenate((x, np.ones((2, 1), np.float32)), 1)),
             (lambda x, y, w: vp.stack([x, x + 1], axis=1),
              lambda x, y, w: np.stack([x, x + 1], axis=1)),
             (lambda x, y, w: vp.concatenate([x, x[:, :0]], axis=1),
              lambda x, y, w: np.concatenate([x, x[:, :0]], axis=1)),
             (lambda x, y, w: vp.concatenate([x, w * 1j], axis=1),
              lambda x, y, w: np.concatenate([x, w * 1j], axis=1)),
             (lambda x, y, w: vp.stack([x, w], 0), lambda x, y, w: np.stack([x, w], 0))]
    for k, (f, ref) in enumerate(cases):
        j = vp.jit(f)
        got, want = j(a, b, c).numpy(), ref(h, g, z)
        assert got.dtype == want.dtype and got.shape == want.shape, (k, got.dtype, want.dtype)
        np.testing.assert_array_equal(got, want, err_msg=str(k))
        assert j.dispatches == 1, (k, j.dispatches)
    with pytest.raises(ValueError, match="must match exactly"):
        vp.jit(lambda x, y: vp.concatenate([x, y], axis=0))(a, b)
    with pytest.raises(ValueError, match="same shape"):
        vp.jit(lambda x, y: vp.stack([x, y]))(a, b)


def test_numpy_ufunc_keywords_and_vecdot_in_jit():
    # a NumPy ufunc on a tracer dropped its keywords silently:
    # np.add(a, a, dtype=np.float64) was float32, np.vecdot(a, b, axis=0)
    # summed axis -1; vp.vecdot / np.vecdot of tracers recursed until
    # RecursionError, vp.linalg.vecdot was a TracingError; matvec / vecmat
    # recursed too (now a TypeError naming them)
    rng = np.random.default_rng(0)
    h = rng.standard_normal((4, 5)).astype(np.float32)
    x = vp.asarray(h)
    cases = [(lambda m, a: m.add(a, a, dtype=np.float64)),
             (lambda m, a: m.multiply(a, 2, casting="unsafe", dtype=np.float16)),
             (lambda m, a: np.vecdot(a, a + 1, axis=0)),
             (lambda m, a: m.vecdot(a, a * 2, axis=-1)),
             (lambda m, a: (vp.linalg if m is vp else np.linalg).vecdot(a, a, axis=0))]
    for f in cases:
        got = vp.jit(lambda a, f=f: f(np, a))(x) if f is cases[2] else vp.jit(
            lambda a, f=f: f(vp, a))(x)
        want = f(np, h)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-3)
    hc = (h + 1j * h[::-1]).astype(np.complex64)
    got = vp.jit(lambda a: vp.vecdot(a, a * 2))(vp.asarray(hc))
    np.testing.assert_allclose(got.numpy(), np.vecdot(hc, hc * 2), rtol=1e-5)
    with pytest.raises(ValueError, match="core dimension"):
        vp.jit(lambda a: vp.vecdot(a, a[:, :1]))(x)
    for f in (lambda a: vp.matvec(a, a[0]), lambda a: np.vecmat(a[:, 0], a)):
        with pytest.raises(TypeError, match="not supported inside vp.jit"):
            vp.jit(f)(x)
    with pytest.raises(vp.TracingError, match="order="):
        vp.jit(lambda a: np.add(a, a, order="F"))(x)


def test_numpy_std_var_round_norm_trace():
    # np.std / np.var / np.round / np.around / np.linalg.norm of a tracer
    # were TracingErrors (numpy.<name> is not supported) while vp.std etc.
    # traced
    rng = np.random.default_rng(1)
    h = rng.standard_normal((4, 5)).astype(np.float32)
    x = vp.asarray(h)
    for f in (lambda a: np.std(a, axis=1, ddof=1), lambda a: np.var(a, axis=0, keepdims=True),
              lambda a: np.round(a, 2), lambda a: np.around(a, 1),
              lambda a: np.linalg.norm(a, axis=1)):
        got, want = vp.jit(f)(x), f(h)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)
