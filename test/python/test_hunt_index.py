"""A hunt for wrong answers in indexing, views and aliasing, called as a
CuPy user would, differentially against NumPy (hypothesis where it fits):
integers beside integer arrays, 0-d index arrays, boolean masks beside
other indices, reshape/ravel of views and writes through them, and the
checks NumPy makes on a Python scalar stored into an array.

Each test named after a bug fails on the code before its fix."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import vulpy as vp

from conftest import needs_target

pytestmark = [pytest.mark.usefixtures("ctx"), needs_target]

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))
DTYPES = [np.bool_, np.int8, np.uint16, np.int32, np.float16, np.float32]


def _data(shape, dt):
    a = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    if np.dtype(dt) == np.bool_:
        return a % 3 == 0
    return (a * 7 % 23 - (5 if np.dtype(dt).kind != "u" else 0)).astype(dt)


def _same(got, want, what=""):
    got = got.numpy() if isinstance(got, vp.ndarray) else np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.shape, want.shape)
    np.testing.assert_array_equal(got, want, err_msg=str(what))


def _outcome(f):
    try:
        return f()
    except (IndexError, ValueError, TypeError, OverflowError) as e:
        return type(e)


# --------------------------------------------------------------- mixed keys

APART = [(0, slice(None), [1, 2]), (0, slice(None), [[1], [2]]), (0, None, [1, 2]),
         (0, Ellipsis, [2, 0]), ([1, 2], slice(None), 0), ([0, 1], slice(None), [1, 2]),
         ([[0], [3]], slice(1, None), [1, 2]), ([0, 2], None, 1, slice(None)),
         (slice(None), [0, 1], None, [2, 0]), (-1, slice(None, None, -2), [-1, 0, 0])]


@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_integer_apart_from_an_index_array_puts_the_index_dims_first(dt):
    """Bug: x[0, :, [1, 2]] of a (4, 5, 3) array gave shape (5, 2) (the
    integer dropped its axis and the array indexed in place; inside vp.jit
    too), x[0, None, [1, 2]] (1, 2, 3). NumPy: the integer is an advanced
    index too, and advanced indices separated by a slice, ... or None put
    their broadcast dims first: (2, 5) and (2, 1, 3)."""
    x = _data((4, 5, 3), dt)
    xv = vp.asarray(x)
    for k in APART:
        _same(xv[k], x[k], k)
    if np.dtype(dt) == np.float32:
        for k in APART[:4]:
            f = vp.jit(lambda t, k=k: t[k] * 1)
            _same(f(x), x[k] * 1, ("jit", k))


def test_index_assignment_on_any_axis_with_numpys_value_layout():
    """Bug: x[0, :, [1, 2]] = v, x[:, [0, 2]] = v and x[i, j] = v raised
    "an integer array is supported on the first axis". NumPy: index arrays
    on any axes, the value broadcast to the indexing result (index dims
    first when the indices are apart); with resident index arrays, one out
    of its axis's range drops that write (as for one index array)."""
    x = _data((4, 5, 3), np.int32)
    keys = [(slice(None), [0, 2]), (slice(1, None), [0, 2]), (0, slice(None), [1, 2]),
            (slice(None), 1, [0, 2]), (Ellipsis, [2, 0, 1]), (slice(None), [[1], [3]]),
            (slice(None, None, -1), [0, -1]), ([0, 2], None, 1, slice(None)),
            ([0, 2], [1, 4]), ([0, -1], slice(None), [2, 0]), (slice(None), [0, -1], [2, 0]),
            ([[0], [3]], [1, 2]), (slice(None, None, -1), [0, 4], [2, 1]), (0, [0, 1], [2, 0])]
    for k in keys:
        shape = x[k].shape
        val = (np.arange(int(np.prod(shape))) * 10 + 1).reshape(shape).astype(np.int32)
        for v in (val, val[-1:] if val.ndim else val, np.int32(7)):
            want, got = x.copy(), vp.asarray(x)
            want[k] = v
            got[k] = v
            _same(got, want, (k, v))
        resident = tuple(vp.asarray(np.array(e)) if isinstance(e, list) else e for e in k)
        want, got = x.copy(), vp.asarray(x)
        want[k] = val
        got[resident] = val
        _same(got, want, ("resident", k))
    view = x[:, ::2]
    got = vp.asarray(x)
    got[:, ::2][[1, 3], [0, 1]] = got[[1, 2], [2, 3]]  # through a view, reading itself
    view[[1, 3], [0, 1]] = x[[1, 2], [2, 3]]
    _same(got, x)
    got = vp.asarray(x)
    got[vp.asarray(np.array([0, 9, -5, 1])), vp.asarray(np.array([1, 0, 1, -6]))] = -1
    want = x.copy()
    want[0, 1] = -1
    _same(got, want)


def test_zero_d_index_array_is_an_integer():
    """Bug: x[np.array(1)] gave shape (1, 5) and x[0, np.array(2)] shape (1,).
    NumPy: a 0-d integer array indexes as an integer, (5,) and ()."""
    x = _data((4, 5), np.int32)
    xv = vp.asarray(x)
    for k in [np.array(1), (np.array(1), slice(None)), (0, np.array(2)),
              (slice(None), np.array(-1)), np.int64(-1)]:
        _same(xv[k], x[k], k)
    want, got = x.copy(), vp.asarray(x)
    want[np.array(2)] = 9
    got[np.array(2)] = 9
    _same(got, want)


def test_host_boolean_mask_beside_other_indices():
    """Bug: x[:, mask], x[..., mask], x[1, [True, False, ...]] and
    x[(resident_mask,)] raised "boolean index arrays mixed with other
    indices are not supported".
    NumPy: the mask is its nonzero() indices; a mask of the wrong length is
    an IndexError naming the axis."""
    x = _data((4, 5, 3), np.float32)
    m5 = np.array([True, False, True, False, True])
    keys = [(slice(None), m5), (Ellipsis, np.array([True, False, True])),
            (1, [True, False, True, False, True]), (np.ones((4, 5), bool), 1),
            (slice(None), np.zeros((5, 3), bool)), ([True, False, True, False],)]
    for k in keys:
        _same(vp.asarray(x)[k], x[k], k)
        want, got = x.copy(), vp.asarray(x)
        want[k] = -1
        got[k] = -1
        _same(got, want, k)
    with pytest.raises(IndexError, match="axis 1"):
        vp.asarray(x)[:, np.ones(4, bool)]
    m = x > 30
    _same(vp.asarray(x)[(vp.asarray(m),)], x[m])  # a resident mask alone in a tuple
    want, got = x.copy(), vp.asarray(x)
    want[(m,)] = 0
    got[(vp.asarray(m),)] = 0
    _same(got, want)


def test_index_errors_as_numpy():
    """Bug: x[[0, 1], [1, 2, 3]] was a ValueError, x[[]] and vp.take(x, [])
    an IndexError ("must be of integer type"). NumPy: IndexError (shape mismatch) and an
    empty result (an empty list is an integer index)."""
    x = _data((4, 5), np.float32)
    xv = vp.asarray(x)
    with pytest.raises(IndexError, match="shape mismatch"):
        xv[[0, 1], [1, 2, 3]]
    _same(xv[[]], x[[]])
    _same(xv[:, []], x[:, []])
    _same(vp.take(xv, [], axis=0), np.take(x, [], axis=0))
    _same(xv.take([]), x.take([]))
    got = vp.asarray(x)
    got[[]] = 5
    _same(got, x)


@settings(SETTINGS, max_examples=80)
@given(st.lists(st.one_of(st.integers(-5, 4), st.none(), st.just(Ellipsis),
                          st.builds(slice, st.none() | st.integers(-6, 6),
                                    st.none() | st.integers(-6, 6),
                                    st.sampled_from([None, 1, -1, 2, -2])),
                          st.lists(st.integers(-4, 3), min_size=1, max_size=3)),
                min_size=1, max_size=4))
def test_mixed_keys_read_as_numpy(key):
    """Integers, slices, None, ... and integer lists in any order read as
    NumPy's (values, shape, or the same exception type)."""
    x = _data((4, 3, 2), np.int32)
    key = tuple(key)
    want = _outcome(lambda: x[key])
    got = _outcome(lambda: vp.asarray(x)[key])
    if isinstance(want, type):
        # several arrays apart, or a second Ellipsis: an IndexError either way
        assert got is want or (want is not IndexError and got is IndexError), (key, got, want)
    elif isinstance(got, type):
        arrays = [k for k in key if isinstance(k, list)]
        assert got is IndexError and len(arrays) > 1, (key, got)  # documented limit
    else:
        _same(got, want, key)


# --------------------------------------------------------------- reshape of views

@pytest.mark.parametrize("dt", DTYPES, ids=lambda d: np.dtype(d).name)
def test_reshape_of_a_view_is_a_view(dt):
    """Bug: x[2:4].reshape(8) and x[1:3].ravel() copied (every view with an
    offset or strides did), so writes through them never reached x:
    r = x[2:4].reshape(8); r[:] = 0 left x as it was. NumPy: a view wherever
    strides can show the elements in the new shape (x.T.reshape(2, 2, 6)
    too), a copy only where they cannot (x[::2].reshape(12))."""
    x = _data((6, 4), dt)
    zero = np.zeros((), dt)[()]
    makers = [lambda a: a[2:4].reshape(8), lambda a: a[1:3].ravel(),
              lambda a: a.T.reshape(2, 2, 6), lambda a: a[:, 1:3].reshape(6, 2, 1),
              lambda a: a[::-1].reshape(3, 2, 4), lambda a: a.reshape(4, 6)[:, 1:3],
              lambda a: a[1:2, 1:2].reshape(()), lambda a: a[::2].reshape(12),
              lambda a: a[:, :1].ravel(), lambda a: a.T.reshape(-1)]
    for j, make in enumerate(makers):
        want, got = x.copy(), vp.asarray(x)
        rw, rg = make(want), make(got)
        _same(rg, rw, j)
        if np.dtype(dt) != np.bool_:  # resident bools are 4-byte words
            assert rg.strides == rw.strides or not np.shares_memory(rw, want), j
        rw[...] = zero
        rg[...] = zero
        _same(got, want, j)


@vp.kernel(local_size_x=64)
def _add_one(x: vp.Buffer[vp.float32]):
    i = vp.global_id()
    if i < len(x):
        x[i] = x[i] + 1.0


def test_kernel_writes_through_a_reshaped_view():
    """Bug: a kernel given x[2:4].reshape(-1) wrote a copy (reshape copied
    an offset view); x was unchanged. The reshaped view now binds x's own
    elements; a strided result is the clear ValueError of any strided view."""
    h = np.arange(24, dtype=np.float32).reshape(6, 4)
    v = vp.asarray(h)
    _add_one(v[2:4].reshape(-1), dispatch=8)
    h[2:4] += 1
    _add_one(v[1:3].ravel(), dispatch=8)
    h[1:3] += 1
    _same(v, h)
    with pytest.raises(ValueError, match="strided view"):
        _add_one(v.T.reshape(2, 2, 6), dispatch=24)
    r = np.reshape(v[2:4], (8,), copy=False)  # NumPy's view, no "cannot avoid a copy"
    assert r.buffer is v.buffer


# --------------------------------------------------------------- stored scalars

def test_stored_python_scalars_checked_as_numpy():
    """Bug: u8[:] = 300 stored 44, u8[[0]] = -1 255, i32[0] = 1e10
    -2147483648, u8[mask] = -2.7 254, i32[[0, 1]] = 1+2j and
    f32[mask] = 1+1j stored 1 (the imaginary part dropped silently),
    u8.fill(300) 44, and f32[0] = 2**200 was a TypeError (a push constant
    cannot hold it). NumPy: OverflowError for an int outside the dtype's
    range (a float truncates first: NaN ValueError, inf OverflowError),
    TypeError for a complex into a real array; into bool a complex is its
    truth; past a float dtype's range, inf."""
    x8 = np.arange(6, dtype=np.uint8).reshape(2, 3)
    mask = x8 > 2
    for key in [np.s_[:], np.s_[0], [0], mask]:
        for v, err in [(300, OverflowError), (-1, OverflowError), (-2.7, OverflowError),
                       (1e10, OverflowError), (float("nan"), ValueError),
                       (float("inf"), OverflowError), (1 + 2j, TypeError)]:
            with pytest.raises(err):
                x8.copy()[key] = v  # NumPy's own answer
            with pytest.raises(err):
                vp.asarray(x8)[key] = v
        for v in [255, 2.7, -0.5, True]:
            want, got = x8.copy(), vp.asarray(x8)
            want[key] = v
            got[key] = v
            _same(got, want, (key, v))
    with pytest.raises(OverflowError):
        vp.asarray(x8).fill(300)
    f = np.zeros(4, np.float32)
    for key in [np.s_[:], [0, 1], f == 0]:
        with pytest.raises(TypeError):
            vp.asarray(f)[key] = 1 + 1j
    for key in [np.s_[:], [0], f == 0]:  # past float32's range: inf, as NumPy's
        for v in [2**200, -1e300]:
            want, got = f.copy(), vp.asarray(f)
            with np.errstate(over="ignore"):
                want[key] = v
            got[key] = v
            _same(got, want, (key, v))
    b = np.zeros(3, bool)
    for key in [np.s_[:], [0, 2]]:
        want, got = b.copy(), vp.asarray(b)
        want[key] = 1 + 2j
        got[key] = 1 + 2j
        _same(got, want)


def test_small_integer_resident_index_arrays():
    """Bug: a resident int8 index -1 on an axis of 600 read row 87 (the
    wrap added 600 as an int8, 88), x[i, j] with uint8 i = 100 on a
    (600, 3) array read element 44 (100 * 3 wrapped in uint8), in eager
    reads, writes and vp.jit. NumPy: an index is a plain integer whatever
    its dtype: row 599 and element 301."""
    x = np.arange(600 * 3, dtype=np.float32).reshape(600, 3)
    xv = vp.asarray(x)
    f = vp.jit(lambda a, i: a[i] * 1)
    for dt in [np.int8, np.uint8, np.int16, np.uint16]:
        i = np.array([-1, 5, 100] if np.dtype(dt).kind == "i" else [1, 5, 100], dt)
        j = np.array([0, 2, 1], dt)
        iv, jv = vp.asarray(i), vp.asarray(j)
        _same(xv[iv], x[i], dt)
        _same(xv[iv, jv], x[i, j], dt)
        _same(xv[:, jv], x[:, j], dt)
        _same(f(xv, iv), x[i], dt)
        want, got = x.copy(), vp.asarray(x)
        want[i] = -7
        got[iv] = -7
        _same(got, want, dt)


def test_writes_into_a_broadcast_view_raise():
    """Bug: b = vp.broadcast_to(a, (16, 4)); b[...] = y wrote each element
    of `a` from 16 invocations in no set order, so `a` held whichever row
    of y came last (the last row on lavapipe; no defined one on a GPU)
    (likewise vp.add(b, 1, out=b) and b += 1 left a + 2 or a + 3 at random,
    then, after a first fix, a + 1 while b[...] = y stayed random). NumPy:
    broadcast_to's views are read-only; every write raises ValueError and
    leaves `a` as it was. So do VulPy's (index assignment, out=, in-place
    operators, fill), and the input stays unchanged."""
    h = np.arange(4, dtype=np.float32)
    y = np.arange(64, dtype=np.float32).reshape(16, 4)
    a = vp.asarray(h)
    b = vp.broadcast_to(a, (16, 4))
    nb = np.broadcast_to(h.copy(), (16, 4))
    writes = [
        ("setitem", lambda t, yy: t.__setitem__(Ellipsis, yy)),
        ("setitem row", lambda t, yy: t.__setitem__(0, 1.0)),
        ("setitem scatter", lambda t, yy: t.__setitem__(([0, 1], [1, 2]), 5.0)),
        ("out=", lambda t, yy: np.add(t, 1, out=t) if isinstance(t, np.ndarray)
         else vp.add(t, 1, out=t)),
        ("in-place", lambda t, yy: t.__iadd__(t[::-1])),
        ("fill", lambda t, yy: t.fill(3.0)),
    ]
    for name, w in writes:
        with pytest.raises(ValueError, match="read-only"):
            w(nb, y)
        with pytest.raises(ValueError, match="read-only"):
            w(b, vp.asarray(y))
        _same(a, h)
    # reading it stays a view of a; writing `a` shows through it
    _same(b * 2, nb * 2)
    a[1] = 9
    _same(b[:, 1], np.full(16, 9, np.float32))


def test_views_of_a_broadcast_view_are_read_only():
    """Bug: b[0], b[:, 1] and b[0].reshape(2, 2) of b = vp.broadcast_to(x,
    (16, 4)) have no zero stride, so they stayed writable and wrote x
    through the broadcast; vp.broadcast_to(x, (1, 4)) repeats nothing and
    was writable too. NumPy: every view of a broadcast_to result is
    read-only. Each write raises and x is unchanged; views of x itself (and
    copies of the broadcast) stay writable."""
    h = np.arange(4, dtype=np.float32)
    x = vp.asarray(h)
    b = vp.broadcast_to(x, (16, 4))
    nb = np.broadcast_to(h, (16, 4))
    views = [lambda t: t[0], lambda t: t[:, 1], lambda t: t[0].reshape(2, 2),
             lambda t: t[3].ravel(), lambda t: t[2:3][0], lambda t: t[0][::-1],
             lambda t: t.T[1]]
    for f in views:
        with pytest.raises(ValueError, match="read-only"):
            f(nb)[...] = 5
        with pytest.raises(ValueError, match="read-only"):
            f(b)[...] = 5
        with pytest.raises(ValueError, match="read-only"):
            vp.add(f(b), 1, out=f(b))
        _same(f(b), f(nb))
    one = vp.broadcast_to(x, (1, 4))
    for t in (one, one[0]):
        with pytest.raises(ValueError, match="read-only"):
            t[...] = 7
        with pytest.raises(ValueError, match="read-only"):
            t.fill(7)
    _same(x, h)
    c = b.copy()
    c[0] = 9
    x[1:3] = 2
    _same(x, np.float32([0, 2, 2, 3]))
    _same(c[0], np.full(4, 9, np.float32))
    zc = vp.broadcast_to(vp.asarray(np.complex64([1 + 2j, 3])), (3, 2))
    with pytest.raises(ValueError, match="read-only"):
        zc[0].real[...] = 0


def _out_functions():
    """Every public vp function that takes out=, with arguments whose
    result has a leading axis of length > 1."""
    import inspect
    rng = np.random.default_rng(0)
    f32 = lambda *s: vp.asarray(rng.uniform(0.1, 0.9, s).astype(np.float32))  # noqa: E731
    i32 = lambda *s: vp.asarray(rng.integers(1, 9, s).astype(np.int32))  # noqa: E731
    ints = {"bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "invert", "left_shift",
            "right_shift", "lcm", "bitwise_count", "bitwise_not", "bitwise_invert",
            "bitwise_left_shift", "bitwise_right_shift"}
    cums = {"cumprod", "cumsum", "nancumprod", "nancumsum"}
    quantiles = {"quantile", "nanquantile", "percentile", "nanpercentile"}
    reductions = {"all", "amax", "amin", "any", "mean", "nanmax", "nanmean", "nanmin",
                  "nanprod", "nanstd", "nansum", "nanvar", "prod", "ptp", "std", "sum", "var",
                  "argmax", "argmin", "nanargmax", "nanargmin", "median", "nanmedian"}
    special = {
        "clip": lambda: ((f32(4, 3), 0.2, 0.5), {}),
        "concatenate": lambda: (([f32(2, 3), f32(2, 3)],), {}),
        "concat": lambda: (([f32(2, 3), f32(2, 3)],), {}),
        "stack": lambda: (([f32(3), f32(3)],), {}),
        "dot": lambda: ((f32(4, 2), f32(2, 3)), {}),
        "matmul": lambda: ((f32(4, 2), f32(2, 3)), {}),
        "matvec": lambda: ((f32(4, 3), f32(3)), {}),
        "vecmat": lambda: ((f32(4), f32(4, 3)), {}),
        "vecdot": lambda: ((f32(4, 3), f32(3)), {}),
        "outer": lambda: ((f32(4), f32(3)), {}),
        "einsum": lambda: (("ij,jk->ik", f32(4, 2), f32(2, 3)), {}),
        "take": lambda: ((f32(5, 3), vp.asarray(np.int32([0, 2, 1, 4]))), {}),
        "where": lambda: ((f32(4, 3) > 0.5, f32(4, 3), f32(4, 3)), {}),
        "trace": lambda: ((f32(3, 3, 4, 3),), {}),
        "ldexp": lambda: ((f32(4, 3), i32(4, 3)), {}),
        "compress": lambda: (([True, False, True, True], f32(4, 3)), {"axis": 0}),
        "cumulative_sum": lambda: ((f32(4, 3),), {"axis": 0}),
        "cumulative_prod": lambda: ((f32(4, 3),), {"axis": 0}),
        "divmod": lambda: ((f32(4, 3), f32(4, 3)), {}),
        "choose": lambda: ((vp.asarray(np.int64([[0, 1, 0], [1, 0, 1], [0, 0, 1], [1, 1, 0]])),
                            [f32(4, 3), f32(4, 3)]), {}),
    }
    out = []
    for name in sorted(dir(vp)):
        f = getattr(vp, name)
        if not callable(f) or isinstance(f, type) or name == "asnumpy":
            continue  # (vp.asnumpy's out= is a NumPy array: test_npnames.py)
        try:
            if "out" not in inspect.signature(f).parameters:
                continue
        except (TypeError, ValueError):
            continue
        if name in special:
            make = special[name]
        elif name in reductions:
            make = lambda: ((f32(5, 4, 3),), {"axis": 0})  # noqa: E731
        elif name in cums:
            make = lambda: ((f32(4, 3),), {"axis": 0})  # noqa: E731
        elif name in quantiles:
            make = lambda: ((f32(5, 4, 3), 0.5), {"axis": 0})  # noqa: E731
        else:
            make = (lambda nin, mk: lambda: (tuple(mk(4, 3) for _ in range(nin)), {}))(
                getattr(f, "nin", 1), i32 if name in ints else f32)
        out.append((name, make))
    return out


def test_every_out_function_refuses_a_broadcast_view():
    """Bug: vp.matmul, vp.dot, vp.concatenate, vp.stack and vp.jit took a
    broadcast view as out= and wrote each shared element from several
    invocations (x held a row chosen by the scheduler). Every public vp
    function with out= (130 of them) now raises NumPy's read-only
    ValueError and leaves the broadcast array unchanged."""
    funcs = _out_functions()
    assert len(funcs) > 100
    pairs = {"divmod", "modf", "frexp"}  # two outputs: out=(a, b), each checked
    for name, make in funcs:
        args, kw = make()
        r = getattr(vp, name)(*args, **kw)
        for k in (0, 1) if name in pairs else (None,):
            rk = r if k is None else r[k]
            assert isinstance(rk, vp.ndarray) and rk.ndim and rk.shape[0] > 1, name
            base = vp.asarray(np.arange(int(np.prod(rk.shape[1:])), dtype=np.float64)
                              .reshape(rk.shape[1:]).astype(rk.dtype))
            before = base.numpy()
            view = vp.broadcast_to(base, rk.shape)
            out = view if k is None else ((view, None) if k == 0 else (None, view))
            with pytest.raises(ValueError, match="read-only"):
                getattr(vp, name)(*args, out=out, **kw)
            _same(base, before, name)
    x = vp.asarray(np.arange(4, dtype=np.float32))
    b = vp.broadcast_to(x, (16, 4))
    with pytest.raises(ValueError, match="read-only"):
        vp.jit(lambda t: t * 2)(vp.ones((16, 4)), out=b)
    with pytest.raises(ValueError, match="ndarray.sort: .*read-only"):
        b.sort(axis=0)
    # a kernel's N-d buffer takes strided views: one it writes refuses a
    # broadcast view (x held the last row written), one it reads takes it
    with pytest.raises(ValueError, match="buffer 'o': the destination is read-only"):
        _fill_2d(b, dispatch=64)
    _same(x, np.arange(4, dtype=np.float32))
    got = vp.zeros((16, 4))
    _copy_2d(b, got, dispatch=64)
    _same(got, np.broadcast_to(np.arange(4, dtype=np.float32), (16, 4)))


@vp.kernel
def _fill_2d(o: vp.Buffer[vp.float32, 2]):
    i = vp.global_id(0)
    h, w = o.shape
    if i < h * w:
        o[i // w, i % w] = vp.float32(i)


@vp.kernel
def _copy_2d(a: vp.Buffer[vp.float32, 2], o: vp.Buffer[vp.float32, 2]):
    i = vp.global_id(0)
    h, w = o.shape
    if i < h * w:
        o[i // w, i % w] = a[i // w, i % w]


def test_transpose_axis_out_of_range_is_an_axis_error():
    """Bug: x.transpose(-3, 0) of a 2-D array returned x.T (the axis taken
    modulo ndim), x.transpose(0.0, 1) x itself, eager and in vp.jit. NumPy:
    AxisError (a ValueError and IndexError) and TypeError."""
    x = vp.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    for axes in [(-3, 0), (2, 1), (0, 3)]:
        with pytest.raises(np.exceptions.AxisError):
            x.transpose(axes)
        with pytest.raises(np.exceptions.AxisError):
            vp.jit(lambda t, axes=axes: vp.transpose(t, axes))(x)
    with pytest.raises(TypeError):
        x.transpose(0.0, 1)
    _same(x.transpose(-1, 0), x.numpy().T)


def test_non_integer_scalar_index_and_huge_step():
    """Bug: x[np.float32(1)] read row 1 and x[0, np.float16(2)] element 2
    (int() took any number), x["1"] was int()'s ValueError, and x[::2**63]
    failed in .numpy() with an OverflowError (a stride of 2**63 elements
    kept for a one-element axis). NumPy: IndexError for a non-integer
    index; x[::2**63] is x[:1]."""
    x = _data((5, 4), np.int32)
    xv = vp.asarray(x)
    for k in [np.float32(1), (0, np.float16(2)), "1", 1.0, np.array(1.0)]:
        with pytest.raises(IndexError):
            x[k]  # NumPy's own answer
        with pytest.raises(IndexError):
            xv[k]
        with pytest.raises(IndexError):
            xv[k] = 0
    for k in [np.s_[::2**63], np.s_[::-2**63], np.s_[1, ::2**40], np.s_[np.int64(1):np.uint8(3)]]:
        _same(xv[k], x[k], k)


def test_a_view_strided_only_along_unit_axes_is_contiguous(ctx):
    # NumPy's C-contiguous flag ignores the stride of an axis of length 1:
    # the transpose of a 1 x n array, x[:, None] and a row of it are the
    # buffer's elements in order (they were strided views, copied for
    # kernels and reductions)
    a = np.arange(12.0, dtype=np.float32).reshape(1, 12)
    x = vp.asarray(a)
    for v, w in ((x.T, a.T), (x[:, None], a[:, None]), (x[0:1, :5], a[0:1, :5])):
        assert w.flags.c_contiguous and v.contiguous
        np.testing.assert_array_equal(v.get(), w)
    assert x.T._whole and not x[0:1, :5]._whole
    y = vp.asarray(np.arange(12.0, dtype=np.float32).reshape(3, 4))
    assert not y[1:2].contiguous and not y.T.contiguous  # offset, strides


@pytest.mark.parametrize("mode", ["wrap", "clip"])
def test_take_wraps_and_clips_as_numpy(mode):
    # vp.take(mode='wrap' / 'clip') was a ValueError; NumPy wraps indices
    # modulo the axis length or clamps them (a negative one to 0 under clip)
    a = np.arange(24, dtype=np.float32).reshape(4, 6) * 1.5
    x = vp.asarray(a)
    i = np.array([-13, -7, -1, 0, 3, 5, 6, 11, 40])
    for axis in (None, 0, 1, -1):
        want = np.take(a, i, axis=axis, mode=mode)
        for idx in (i, vp.asarray(i), i.reshape(3, 3)):
            got = vp.take(x, idx, axis=axis, mode=mode)
            w = want if idx.ndim == 1 else np.take(a, i.reshape(3, 3), axis=axis, mode=mode)
            np.testing.assert_array_equal(got.numpy(), w, err_msg=f"{mode} {axis}")
        assert vp.take(a, -25, axis=axis, mode=mode).tolist() == \
            np.take(a, -25, axis=axis, mode=mode).tolist()
    f = vp.jit(lambda x, j: vp.take(x, j, axis=1, mode=mode))
    np.testing.assert_array_equal(f(x, vp.asarray(i)).numpy(), np.take(a, i, axis=1, mode=mode))
    e = vp.asarray(np.zeros((0,), np.float32))
    with pytest.raises(IndexError, match="non-empty take from an empty axis"):
        vp.take(e, [1], mode=mode)
    assert vp.take(e, np.zeros(0, np.int64), mode=mode).shape == (0,)
