"""Views whose elements are offset + i * step of their buffer (x[1:], x[::2],
x[::-1], rows a[2:5], a column a[:, 1]) run one kernel over a dynamic
extent with a run-time view (`array.load @b at(%off, %step)`, the offset
and step push constants): the ufuncs on them and into them (out=), and the
copies and fills that write them (copy, astype, x[i:j] = y, x[i:j] = 3,
concatenate, roll, pad). One compile serves every length, offset and step;
the answers are NumPy's, overlapping in-place forms included (NumPy reads
the inputs as they were before the call)."""
import math

import numpy as np
import pytest

import vulpy as vp
from conftest import needs_target
from test_dynamic_reduce import _dtypes  # the real dtypes this device has

pytestmark = needs_target


def _data(dt, n, seed=0):
    r = np.random.default_rng(seed)
    if dt.kind == "f":
        return r.standard_normal(n).astype(dt)
    if dt == np.bool_:
        return r.random(n) < 0.5
    lo = -50 if dt.kind == "i" else 0
    return r.integers(lo, 50, n).astype(dt)


# (name, view): 1-D views of a buffer of 23 elements
VIEWS = [("x[1:]", lambda x: x[1:]), ("x[:-1]", lambda x: x[:-1]), ("x[::2]", lambda x: x[::2]),
         ("x[1::3]", lambda x: x[1::3][:6]), ("x[::-1]", lambda x: x[::-1]),
         ("x[-2::-2]", lambda x: x[-2::-2][:11]), ("x[5:17]", lambda x: x[5:17])]


def _same(got, want, what):
    got = got.numpy() if isinstance(got, vp.ndarray) else np.asarray(got)
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want, err_msg=what)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "maximum", "less"])
def test_binary_ufuncs_on_views_match_numpy(ctx, name):
    f, nf = getattr(vp, name), getattr(np, name)
    for dt in _dtypes(ctx):
        if dt == np.bool_ and name == "subtract":
            continue  # NumPy has no such bool loop
        h, k = _data(dt, 23, 1), _data(dt, 23, 2)
        x, y = vp.asarray(h), vp.asarray(k)
        for (na, va), (nb, vb) in zip(VIEWS, VIEWS[2:] + VIEWS[:2]):
            a, b = va(h), vb(k)
            m = min(a.size, b.size)
            with np.errstate(all="ignore"):
                want = nf(a[:m], b[:m])
            _same(f(va(x)[:m], vb(y)[:m]), want, f"{name} {dt} {na} {nb}")
            # a view with a whole array and a Python scalar
            _same(f(va(x)[:m], vp.asarray(b[:m].copy())), want, f"{name} {dt} {na} whole")
        with np.errstate(all="ignore"):
            want = nf(h[3:], 2)
        _same(f(x[3:], 2), want, f"{name} {dt} scalar")


def test_out_views_match_numpy(ctx):
    for dt in _dtypes(ctx):
        if dt == np.bool_:
            continue
        h, k = _data(dt, 23, 3), _data(dt, 23, 4)
        for no, vo in VIEWS:
            z = _data(dt, 23, 5)
            zv = vp.asarray(z)
            o = vo(z)
            m = o.size
            vp.add(vp.asarray(h)[:m], vp.asarray(k)[-m:], out=vo(zv))
            o[...] = h[:m] + k[-m:]  # writes z through the same view
            _same(zv, z, f"{dt} out={no}")  # the elements outside the view untouched
        # a prefix view as out= (offset 0): nothing past it written
        z = _data(dt, 23, 6)
        zv = vp.asarray(z)
        vp.multiply(zv[:5], 3, out=zv[:5])
        z[:5] *= 3
        _same(zv, z, f"{dt} prefix out=")


def test_a_view_call_leaves_no_plan_for_whole_arrays(ctx):
    """Bug: a call into an out= view recorded the fast plan of its
    signature (ufunc, dtypes, shape, out given), push constants included:
    the next calls with a whole out= of that shape (in Python, then in C)
    wrote through the view's offset and step instead (vp.negative(a,
    out=o) left o untouched after vp.negative(a, out=big[9:10]))."""
    for dt in (np.float32, np.int32):
        h = np.arange(1, 6, dtype=dt)
        a = vp.asarray(h)
        big = vp.zeros(40, dt)
        vp.negative(a, out=big[30:35])
        vp.add(a, 1, out=big[::8])
        for _ in range(3):  # the Python plan, then the C launcher
            o = vp.zeros(5, dt)
            vp.negative(a, out=o)
            _same(o, -h, f"{dt} negative into a whole out=")
            vp.add(a, 1, out=o)
            _same(o, h + 1, f"{dt} add into a whole out=")
            _same(vp.negative(a), -h, f"{dt} negative, a new result")
        want = np.zeros(40, dt)
        want[30:35] = -h
        want[::8] = h + 1
        _same(big, want, f"{dt} the view calls")


def test_views_of_2d_arrays(ctx):
    h = np.arange(48, dtype=np.float32).reshape(6, 8)
    a = vp.asarray(h)
    _same(a[2:5] * 2, h[2:5] * 2, "rows")
    _same(a[:, 3] + 1, h[:, 3] + 1, "column")
    _same(a[4] - a[1], h[4] - h[1], "row - row")
    _same(a[::2, ::-1] * 3, h[::2, ::-1] * 3, "not collapsible")
    _same(a[1:3].reshape(16) + a[3:5].reshape(16), h[1:3].reshape(16) + h[3:5].reshape(16),
          "reshaped rows")
    b = vp.asarray(h.copy())
    b[2:4] += 1  # rows written through their view
    g = h.copy()
    g[2:4] += 1
    _same(b, g, "rows in place")
    b[:, 0] = b[:, 7]
    g[:, 0] = g[:, 7]
    _same(b, g, "column copy")


def test_overlapping_in_place_forms_read_the_old_values(ctx):
    """NumPy computes as if the inputs were copied first; the run-time view
    kernel reads and writes in no set order, so an input that overlaps out=
    other than element for element is copied first (v[1:] += v[:-1] gave
    v[9] == 24 once; NumPy 17)."""
    h = np.arange(10, dtype=np.float32)
    v = vp.asarray(h)
    v[1:] += v[:-1]
    g = h.copy()
    g[1:] += g[:-1].copy()
    _same(v, g, "v[1:] += v[:-1]")
    v = vp.asarray(h)
    vp.add(v[:-1], v[1:], out=v[1:])
    g = h.copy()
    np.add(h[:-1], h[1:], out=g[1:])
    _same(v, g, "add out= shifted")
    v = vp.asarray(h)
    vp.negative(v[::-1], out=v)
    _same(v, -h[::-1], "reversed into itself")
    v = vp.asarray(h)
    v[::-1] = v
    _same(v, h[::-1].copy(), "v[::-1] = v")
    v = vp.asarray(h)
    v[2:] = v[:-2]
    g = h.copy()
    g[2:] = h[:-2]
    _same(v, g, "v[2:] = v[:-2]")
    v = vp.asarray(h)
    v[::2] *= 2  # the same view in and out: element for element
    g = h.copy()
    g[::2] *= 2
    _same(v, g, "v[::2] *= 2")


def test_copies_and_fills_match_numpy(ctx):
    for dt in _dtypes(ctx):
        h = _data(dt, 23, 7)
        x = vp.asarray(h)
        for nv, f in VIEWS:
            _same(f(x).copy(), f(h).copy(), f"{dt} {nv}.copy()")
            for to in (np.float32, np.int32):
                with np.errstate(all="ignore"):
                    want = f(h).astype(to)
                _same(f(x).astype(to), want, f"{dt} {nv}.astype({to.__name__})")
            y = vp.asarray(h)
            g = h.copy()
            f(y)[...] = 1
            f(g)[...] = 1
            _same(y, g, f"{dt} {nv}[...] = 1")
            y.fill(0)
            g.fill(0)
            f(y)[...] = f(x)[::-1]
            f(g)[...] = f(h)[::-1]
            _same(y, g, f"{dt} {nv}[...] = view")
        _same(vp.concatenate([x[1:], x[::-2], x]), np.concatenate([h[1:], h[::-2], h]),
              f"{dt} concatenate")
        _same(vp.roll(x, 5), np.roll(h, 5), f"{dt} roll")
        _same(vp.roll(x[::2], -3), np.roll(h[::2], -3), f"{dt} roll of a view")
        _same(vp.pad(x[2:], 3), np.pad(h[2:], 3), f"{dt} pad")
        if dt != np.bool_:
            _same(vp.diff(x), np.diff(h), f"{dt} diff")


def _workload(x, y):
    r = [x[1:] - x[:-1], x[::2] + 1, x[::-1] * x[::-1], x[1:].copy(), x[::3].copy(),
         x[::2].astype(np.int32), vp.concatenate([x, x[1:]]),
         vp.roll(x, 3)]
    y[2:] = 0.5
    y[1:] = x[:-1]
    vp.multiply(y[::2], 2, out=y[::2])
    return r + [y]


def test_one_compile_serves_every_length_offset_and_step(ctx, compiled_texts):
    texts = compiled_texts
    seen = None
    for n in (40, 41, 97, 1000, 1003, 4099):
        h = np.random.default_rng(n).random(n).astype(np.float32)
        x, y = vp.asarray(h), vp.asarray(np.zeros(n, np.float32))
        got = _workload(x, y)
        g = np.zeros(n, np.float32)
        g[2:] = 0.5
        g[1:] = h[:-1]
        g[::2] *= 2
        want = [h[1:] - h[:-1], h[::2] + 1, h[::-1] * h[::-1], h[1:], h[::3],
                h[::2].astype(np.int32), np.concatenate([h, h[1:]]), np.roll(h, 3), g]
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a.numpy(), b, err_msg=f"n={n}")
        if seen is None:
            seen = len(set(texts))
            assert seen and all("tensor<?x" in t for t in texts), texts
        assert len(set(texts)) == seen, f"n={n}: a compile per length"
    assert any(" at(" in t for t in texts)


def test_random_view_sequences_match_numpy(ctx):
    """A seeded random sequence of ufuncs, copies, fills, astype and where
    on views of every real dtype (steps of either sign, lengths 1..39, the
    same array as input and out= a third of the time, whole arrays of the
    same shapes between them): each result NumPy's, bit for bit. Plans and
    launchers that one call leaves for the next are part of what it
    checks (a fuzz of this kind found the stale out= view plan, which the
    whole-array negative after each view call here catches too)."""
    import random
    rng = random.Random(11)
    dts = [np.float32, np.int32, np.uint32, np.bool_] + \
        ([np.float64] if ctx.has("float64") else []) + \
        ([np.int64, np.uint64] if ctx.has("int64") else [])
    ops = ["add", "subtract", "multiply", "maximum", "less", "negative", "copy", "assign",
           "fill", "astype", "where"]

    def view(n):
        a = rng.randrange(0, n)
        b = rng.randrange(a, n + 1)
        s = rng.choice([1, 1, 2, 3, -1, -2])
        if s < 0:
            return slice(b - 1 if b > a else None, a - 1 if a > 0 else None, s)
        return slice(a, b, s)

    def data(dt, n, seed):
        h = np.random.default_rng(seed).random(n) * 20 - 5
        if dt == np.bool_:
            return h > 5
        return (np.abs(h) if np.dtype(dt).kind == "u" else h).astype(dt)

    for it in range(400):
        dt = rng.choice(dts)
        n = rng.randrange(1, 40)
        h, g = data(dt, n, it), data(dt, n, it + 1000)
        x, y = vp.asarray(h), vp.asarray(g)
        s1 = view(n)
        m = len(range(*s1.indices(n)))
        s2 = rng.choice([slice(k, k + m) for k in range(0, n - m + 1)] +
                        ([slice(m - 1, None, -1)] if m else []))
        same = rng.random() < 0.3
        op = rng.choice(ops)
        H, G = h.copy(), (h if same else g).copy()
        X, Y = x, (x if same else y)
        what = (it, op, np.dtype(dt).name, n, s1, s2, same)
        with np.errstate(all="ignore"):
            if op in ("add", "subtract", "multiply", "maximum", "less"):
                if dt == np.bool_ and op == "subtract":
                    continue
                if rng.random() < 0.5 and op != "less":
                    getattr(np, op)(H[s1], G[s2], out=H[s1])
                    getattr(vp, op)(X[s1], Y[s2], out=X[s1])
                    pairs = [(X, H)] + ([] if same else [(Y, G)])
                else:
                    pairs = [(getattr(vp, op)(X[s1], Y[s2]), getattr(np, op)(H[s1], G[s2]))]
                    # the same call on whole arrays of that shape, after it
                    pairs.append((getattr(vp, op)(vp.asarray(H[s1].copy()),
                                                  vp.asarray(G[s2].copy())),
                                  getattr(np, op)(H[s1], G[s2])))
            elif op == "negative":
                if dt in (np.bool_, np.uint32, np.uint64):
                    continue
                np.negative(G[s2], out=H[s1])
                vp.negative(Y[s2], out=X[s1])
                o, w = vp.zeros(m, dt), np.zeros(m, dt)
                vp.negative(X[s1].copy(), out=o)  # whole arrays of that shape next
                np.negative(H[s1], out=w)
                pairs = [(X, H), (o, w)]
            elif op == "copy":
                pairs = [(X[s1].copy(), H[s1].copy())]
            elif op == "assign":
                H[s1] = G[s2].copy()
                X[s1] = Y[s2]
                pairs = [(X, H)]
            elif op == "fill":
                H[s1] = 3
                X[s1] = 3
                pairs = [(X, H)]
            elif op == "astype":
                pairs = [(X[s1].astype(np.float32), H[s1].astype(np.float32))]
            else:
                c = H[s1] > 2 if dt != np.bool_ else H[s1]
                cv = X[s1] > 2 if dt != np.bool_ else X[s1]
                pairs = [(vp.where(cv, X[s1], Y[s2]), np.where(c, H[s1], G[s2]))]
        for got, want in pairs:
            _same(got, want, str(what))


def test_view_calls_after_the_first_skip_planning(ctx, monkeypatch):
    """A ufunc call with views, and a copy or fill of a view, plan once per
    signature (dtypes, storage, which steps are 1: x[3:4] is a unit step,
    x[::2] is not); later calls with another
    length, offset, step or scalar take the plan (no _apply, no graph) and
    still match NumPy - including a read-only out= refused, an int scalar
    out of the loop's range refused, and a 2-D view that does not collapse
    to one step, which goes the long way."""
    from vulpy import _arrayops, _ufunc
    ctx._ufast.clear()
    h = np.arange(64, dtype=np.float32)
    hi = np.arange(64, dtype=np.int32)
    x, xi = vp.asarray(h), vp.asarray(hi)
    y = vp.asarray(np.zeros(64, np.float32))
    # first calls: planned
    (x[1:] - x[:-1]).numpy(), (x[::2] * 2.5).numpy(), (xi[3:] + 7).numpy()
    vp.add(x[:-1], x[1:], out=y[1:]), x[1:].copy(), y[::2].fill(1.0)
    (x[::-1] * 0.5).numpy(), x[::2].copy(), y[1:5].fill(2.0), (x[3:4] * 2.0).numpy()
    y[...] = 0
    calls = []
    apply, call = _ufunc._apply, _arrayops.Call

    def planning(what, real):
        def f(*a, **k):
            calls.append((what, a[1] if what == "apply" else a[0]))
            return real(*a, **k)
        return f

    monkeypatch.setattr(_ufunc, "_apply", planning("apply", apply))
    monkeypatch.setattr(_arrayops, "Call", planning("graph", call))
    for a, b in ((5, 50), (0, 63), (17, 18), (2, 64)):
        _same(x[a + 1:b] - x[a:b - 1], h[a + 1:b] - h[a:b - 1], "the plan")
        _same(x[a:b:3] * -1.5, h[a:b:3] * np.float32(-1.5), "the plan")
        _same(x[b - 1:a:-2] * 0.25, h[b - 1:a:-2] * np.float32(0.25), "the plan")
        _same(xi[a:b] + (b - a), hi[a:b] + np.int32(b - a), "the plan")
        g = np.zeros(64, np.float32)
        y[...] = 0
        vp.add(x[a:b - 1], x[a + 1:b], out=y[a + 1:b])
        g[a + 1:b] = h[a:b - 1] + h[a + 1:b]
        _same(y, g, "the plan")
        _same(x[a:b:2].copy(), h[a:b:2], "the plan")
        y[a:b:3].fill(b)
        g[a:b:3] = b
        _same(y, g, "the plan")
    # the empty results (x[17:17:-2] * 0.25) plan: nothing to launch
    assert all(what == "apply" and any(getattr(a, "size", 1) == 0 for a in args)
               for what, args in calls), calls
    monkeypatch.undo()
    with pytest.raises(OverflowError):
        xi[1:] + 2**40
    ro = vp.broadcast_to(x[:1], (8,))
    with pytest.raises(ValueError, match="read-only"):
        vp.add(x[:8], x[8:16], out=ro)
    m = vp.asarray(np.arange(48, dtype=np.float32).reshape(6, 8))
    _same(m[1:5, 2:6] + 1, np.arange(48, dtype=np.float32).reshape(6, 8)[1:5, 2:6] + 1, "the plan")


_BLOCKS = [((5, 7), (7,)), ((5, 7), (5, 1)), ((3, 4, 5), (4, 1)), ((3, 4, 5), (1, 4, 5)),
           ((3, 4, 5), (3, 1, 1)), ((3, 4, 5), (5,)), ((6, 8), (1, 8)), ((2, 1, 9), (2, 1, 1)),
           ((4, 1), (1, 6))]


def test_block_broadcasts_match_numpy(ctx):
    """x - m, m * x, vp.maximum(x, m, out=z) where m broadcasts as one run
    of axes (a row, a column, a plane; x - x.mean(axis=0)) read m through
    at(%off, %step, %div, %mod): every dtype against NumPy, m a whole array
    or a strided view, either operand order, out= a whole array or a view;
    (4, 1) + (1, 6) broadcasts both ways (the array path), as does
    (3, 4, 5) + (3, 1, 5) (two runs)."""
    r = np.random.default_rng(5)
    for dt in _dtypes(ctx):
        sub, nsub = (vp.add, np.add) if dt == np.bool_ else (vp.subtract, np.subtract)
        for shp, bs in _BLOCKS + [((3, 4, 5), (3, 1, 5))]:
            h = (r.random(shp) * 50).astype(dt)
            b = (r.random(bs) * 50 + 1).astype(dt)
            x, m = vp.asarray(h), vp.asarray(b)
            what = f"{dt.name} {shp} {bs}"
            _same(sub(x, m), nsub(h, b), what)
            _same(m * x, b * h, what)
            z = vp.asarray(np.zeros(np.broadcast_shapes(shp, bs), dt))
            vp.maximum(x, m, out=z)
            _same(z, np.maximum(h, b), what)
        # the broadcast operand a strided view; out= a view
        big = (r.random((4, 20)) * 9).astype(dt)
        hx = (r.random((3, 10)) * 9).astype(dt)
        bv, x = vp.asarray(big), vp.asarray(hx)
        _same(x + bv[1, ::2], hx + big[1, ::2], f"{dt.name} row view")
        _same(sub(bv[::-1, 3][:3].reshape(3, 1), x), nsub(big[::-1, 3][:3].reshape(3, 1), hx),
              f"{dt.name} column view")
        o = vp.asarray(np.zeros((3, 20), dt))
        ho = np.zeros((3, 20), dt)
        vp.add(x[:, ::-1], bv[2, 5:15], out=o[:, 10:])
        ho[:, 10:] = hx[:, ::-1] + big[2, 5:15]
        _same(o, ho, f"{dt.name} out= view")
        # in place, the broadcast operand a row of out= itself (copied first)
        sub(x, x[0], out=x)
        _same(x, nsub(hx, hx[0]), f"{dt.name} x -= x[0]")
    # past _array.CPU_VIEW_MAX elements a CPU device takes the array path
    h = r.random((600, 500)).astype(np.float32)
    x = vp.asarray(h)
    _same(x - x[3], h - h[3], "600 x 500")
    _same(x / vp.asarray(h[:, 7:8] + 1), h / (h[:, 7:8] + 1), "600 x 500")


def test_block_broadcasts_compile_once(ctx, compiled_texts):
    """x - m over a new number of rows, columns or planes each call is one
    compile per layout, not one per shape."""
    seen = None
    for n in (3, 4, 7, 30, 61):
        h = np.arange(n * 6, dtype=np.float32).reshape(n, 6)
        x = vp.asarray(h)
        m = vp.asarray(h.mean(axis=0, dtype=np.float32))
        s = vp.asarray(h.sum(axis=1, keepdims=True))
        _same(x - m, h - h.mean(axis=0, dtype=np.float32), f"n={n}")
        _same(x / s, h / h.sum(axis=1, keepdims=True), f"n={n}")
        h3 = np.arange(n * 12, dtype=np.float32).reshape(2, n, 6)
        _same(vp.asarray(h3) * vp.asarray(h3[1, :, :1]), h3 * h3[1, :, :1], f"n={n}")
        if seen is None:
            seen = len(set(texts := [t for t in compiled_texts if "array @" in t]))
            assert seen >= 2 and all(" at(" in t for t in texts), compiled_texts
        texts = [t for t in compiled_texts if "array @" in t]
        assert len(set(texts)) == seen, f"n={n}: a compile per shape"


def test_block_broadcasts_after_the_first_skip_planning(ctx, monkeypatch):
    """After one call per layout, x - m, x / s, m * x and vp.add(x, one,
    out=z) with a one-element resident array take the plan (_view_fast) at
    any shape, and match NumPy; (4, 1) + (1, 6) is still the array path."""
    from vulpy import _ufunc
    ctx._ufast.clear()
    r = np.random.default_rng(9)

    def calls(n, k):
        h = r.random((n, k)).astype(np.float32)
        x, m, s = vp.asarray(h), vp.asarray(h[0]), vp.asarray(h[:, 1:2] + 1)
        one = vp.asarray(np.float32([2.5]))
        z = vp.asarray(np.zeros((n, k), np.float32))
        vp.add(x, one, out=z)
        return [(x - m, h - h[0]), (x / s, h / (h[:, 1:2] + 1)), (m * x, h[0] * h),
                (z, h + np.float32(2.5)), (one * x, np.float32(2.5) * h)]

    for got, want in calls(3, 5):
        _same(got, want, "first")
    seen = []
    apply = _ufunc._apply
    def spy(*a, **k):
        seen.append(a[0].name)
        return apply(*a, **k)

    monkeypatch.setattr(_ufunc, "_apply", spy)
    for n, k in ((4, 7), (9, 2), (2, 3), (17, 33)):
        for got, want in calls(n, k):
            _same(got, want, f"{n}x{k}")
    assert not seen, seen
    a, b = vp.asarray(np.ones((4, 1), np.float32)), vp.asarray(np.ones((1, 6), np.float32))
    _same(a + b, np.full((4, 6), 2, np.float32), "both ways")
    assert seen == ["add"]


def test_two_axis_views_match_numpy(ctx):
    """Views that take two axis terms (x[1:-1, 2:], x[::2, ::-1], x.T, a
    column of a strided view) as operands, as out= and as the destination
    and source of copies and assignments read and write through
    at(%off, %step, %div, %mod, %step2, %div2, %mod2): every dtype against
    NumPy, a 5-point stencil step into an interior view, and a 3-D view
    that needs three terms (the array path)."""
    r = np.random.default_rng(11)
    for dt in _dtypes(ctx):
        h = (r.random((7, 9)) * 40).astype(dt)
        x = vp.asarray(h)
        add, nadd = vp.add, np.add
        for ka, kb in (((slice(1, -1), slice(2, None)), (slice(1, -1), slice(None, -2))),
                       ((slice(None, -1, 2), slice(None, None, -1)),
                        (slice(1, None, 2), slice(None))),
                       ((slice(None), slice(3, 4)), (slice(None), slice(None, 1)))):
            _same(add(x[ka], x[kb]), nadd(h[ka], h[kb]), f"{dt.name} {ka} {kb}")
        _same(x.T * x.T, h.T * h.T, f"{dt.name} x.T")
        _same(x.T.copy(), h.T.copy(), f"{dt.name} x.T.copy()")
        _same(x[1:, ::2].astype(np.float64), h[1:, ::2].astype(np.float64), f"{dt.name} astype")
        o, g = vp.asarray(np.zeros((9, 11), dt)), np.zeros((9, 11), dt)
        vp.maximum(x[::-1, 1:], x[:, :-1], out=o[1:8, 2:10])
        g[1:8, 2:10] = np.maximum(h[::-1, 1:], h[:, :-1])
        _same(o, g, f"{dt.name} out= a two-axis view")
        o[2:5, ::3] = x[:3, 1:5]
        g[2:5, ::3] = h[:3, 1:5]
        _same(o, g, f"{dt.name} assign a two-axis view")
        o[1:8, 0] = x[:, 8]
        g[1:8, 0] = h[:, 8]
        _same(o, g, f"{dt.name} a column into a column")
    # a stencil step of the heat equation (float32), in place into the interior
    u = r.random((34, 34)).astype(np.float32)
    uv = vp.asarray(u)
    for _ in range(3):
        new = (uv[1:-1, 2:] + uv[1:-1, :-2] + uv[2:, 1:-1] + uv[:-2, 1:-1]) * np.float32(0.25)
        uv[1:-1, 1:-1] = new
        u[1:-1, 1:-1] = (u[1:-1, 2:] + u[1:-1, :-2] + u[2:, 1:-1] + u[:-2, 1:-1]) * \
            np.float32(0.25)
    np.testing.assert_allclose(uv.numpy(), u, rtol=1e-6)
    h3 = r.random((4, 5, 6)).astype(np.float32)
    x3 = vp.asarray(h3)
    _same(x3[::2, 1:, ::2] + 1, h3[::2, 1:, ::2] + np.float32(1), "three terms")


def test_two_axis_views_compile_once(ctx, compiled_texts):
    """A stencil over a new grid size each call compiles once."""
    seen = None
    for n in (6, 7, 10, 33):
        u = np.arange(n * (n + 1), dtype=np.float32).reshape(n, n + 1)
        uv = vp.asarray(u)
        uv[1:-1, 1:-1] = uv[1:-1, 2:] + uv[:-2, 1:-1] * 0.5
        g = u.copy()
        g[1:-1, 1:-1] = u[1:-1, 2:] + u[:-2, 1:-1] * np.float32(0.5)
        _same(uv, g, f"n={n}")
        _same(uv.T.copy(), g.T.copy(), f"n={n} T")
        texts = [t for t in compiled_texts if "array @" in t]
        if seen is None:
            seen = len(set(texts))
            assert seen and all(" at(" in t for t in texts), texts
        assert len(set(texts)) == seen, f"n={n}: a compile per shape"


def test_broadcast_copies_match_numpy_and_compile_once(ctx, compiled_texts):
    """vp.tile, vp.repeat with one count, x[...] = row, x[:, 1:3] = column
    and broadcast_to(...).copy() copy a broadcast view (run_store with a
    source broadcast to the destination): every dtype against NumPy, and
    one compile per dtype and layout over every shape."""
    r = np.random.default_rng(13)
    for dt in _dtypes(ctx):
        for n in (3, 5):
            h = (r.random((n, 4)) * 30).astype(dt)
            x = vp.asarray(h)
            what = f"{dt.name} n={n}"
            _same(vp.tile(x, (2, 3)), np.tile(h, (2, 3)), what)
            _same(vp.tile(x[0], 3), np.tile(h[0], 3), what)
            _same(vp.repeat(x, 3, axis=0), np.repeat(h, 3, axis=0), what)
            _same(vp.repeat(x[:, ::-1], 2, axis=1), np.repeat(h[:, ::-1], 2, axis=1), what)
            _same(vp.broadcast_to(x[1], (n, 4)).copy(), np.broadcast_to(h[1], (n, 4)).copy(),
                  what)
            y, g = vp.asarray(np.zeros((n, 4), dt)), np.zeros((n, 4), dt)
            y[...] = x[2]
            g[...] = h[2]
            _same(y, g, what)
            y[:, 1:3] = x[:, :1]
            g[:, 1:3] = h[:, :1]
            _same(y, g, what)
    ctx._ufast.clear()
    seen = None
    for n in (3, 4, 9, 17):
        h = np.arange(n * 5, dtype=np.float32).reshape(n, 5)
        x = vp.asarray(h)
        _same(vp.tile(x, (2, 2)), np.tile(h, (2, 2)), f"n={n}")
        _same(vp.repeat(x, 2, axis=1), np.repeat(h, 2, axis=1), f"n={n}")
        texts = [t for t in compiled_texts if "array @" in t]
        if seen is None:
            seen = len(set(texts))
            assert seen and all(" at(" in t for t in texts), texts
        assert len(set(texts)) == seen, f"n={n}: a compile per shape"


def test_random_nd_view_sequences_match_numpy(ctx):
    """A seeded random sequence over views of 1- to 3-D arrays of every real
    dtype: basic indices of slices (steps of either sign), integers and
    transposes; binary ufuncs of two such views broadcast against each
    other; copies; x[key] = a view of another array (a value with leading
    unit axes included); in-place operators whose two sides overlap in
    the same buffer (NumPy reads the right side as it was); ufuncs whose
    inputs broadcast to a larger out=. Each result is NumPy's, bit for bit
    (float sums of reductions aside, which are not here). The fuzz this
    test keeps found x[1:2] = ones((1, 1, 4)) and vp.add(row, 1, out=m)
    refused."""
    rng = np.random.default_rng(5)
    dts = [np.dtype(d) for d in (np.float32, np.int32, np.uint32, np.bool_, np.int16, np.uint8)] + \
        ([np.dtype(np.float64)] if ctx.has("float64") else []) + \
        ([np.dtype(np.int64)] if ctx.has("int64") else [])

    def key(shape):
        out = []
        for d in shape:
            c = rng.integers(0, 5)
            if c == 0:
                out.append(int(rng.integers(-d, d)))
            elif c == 1:
                out.append(slice(None))
            else:
                a = int(rng.integers(-d - 1, d + 1)) if rng.random() < 0.7 else None
                b = int(rng.integers(-d - 1, d + 1)) if rng.random() < 0.7 else None
                out.append(slice(a, b, int(rng.choice([1, 1, 2, 3, -1, -2]))))
        return tuple(out)

    def view(h, x):
        k = key(h.shape)
        if np.ndim(h[k]) == 0:
            return h, x
        h, x = h[k], x[k]
        if h.ndim >= 2 and rng.random() < 0.4:
            p = [int(i) for i in rng.permutation(h.ndim)]
            h, x = h.transpose(p), x.transpose(p)
        return h, x

    def data(dt, shape):
        if dt == np.bool_:
            return rng.random(shape) < 0.5
        if dt.kind == "f":
            return rng.standard_normal(shape).astype(dt)
        return rng.integers(0 if dt.kind == "u" else -50, 50, shape).astype(dt)

    checked = 0
    for it in range(500):
        dt = dts[int(rng.integers(0, len(dts)))]
        shape = tuple(int(rng.integers(1, 8)) for _ in range(int(rng.integers(1, 4))))
        H, K = data(dt, shape), data(dt, shape)
        X, Y = vp.asarray(H), vp.asarray(K)
        op = int(rng.integers(0, 5))
        what = (it, op, dt.name, shape)
        with np.errstate(all="ignore"):
            if op == 0:
                name = str(rng.choice(["add", "subtract", "multiply", "maximum", "less"]))
                if dt == np.bool_ and name == "subtract":
                    continue
                (h1, x1), (h2, x2) = view(H, X), view(K, Y)
                h2, x2 = (h2[..., None], x2[..., None]) if rng.random() < 0.2 else (h2, x2)
                try:
                    want = getattr(np, name)(h1, h2)
                except ValueError:
                    continue
                got = getattr(vp, name)(x1, x2)
                what += (name, h1.shape, h1.strides, h2.shape, h2.strides)
            elif op == 1:
                h1, x1 = view(H, X)
                want, got, what = h1.copy(), x1.copy(), what + ("copy", h1.shape, h1.strides)
            elif op == 2:
                k = key(shape)
                h2, x2 = view(K, Y)
                if rng.random() < 0.3:
                    h2, x2 = h2[None], x2[None]
                try:
                    H[k] = h2
                except (ValueError, TypeError):
                    continue
                X[k] = x2
                want, got, what = H, X, what + ("setitem", k, h2.shape, h2.strides)
            elif op == 3:
                if dt == np.bool_:
                    continue
                k1, k2 = key(shape), key(shape)
                if np.ndim(H[k1]) == 0:
                    continue
                try:
                    if np.broadcast_shapes(H[k1].shape, H[k2].shape) != H[k1].shape:
                        continue
                except ValueError:
                    continue
                t = H[k1]
                t += H[k2].copy()
                t = X[k1]
                t += X[k2]
                want, got, what = H, X, what + ("+=", k1, k2)
            else:
                if dt == np.bool_:
                    continue
                h1, x1 = view(H, X)
                oshape = tuple(int(rng.integers(1, 4)) for _ in range(int(rng.integers(0, 2)))) + \
                    h1.shape
                want = np.zeros(oshape, dt)
                got = vp.zeros(oshape, dt)
                np.multiply(h1, 3, out=want)
                vp.multiply(x1, 3, out=got)
                what += ("out=", h1.shape, h1.strides, oshape)
        _same(got, np.asarray(want), str(what))
        checked += 1
    assert checked > 250


def test_row_gathers_match_numpy_and_compile_once(ctx, compiled_texts):
    """x[idx] (and vp.take(x, idx, axis=0)) of a C-contiguous resident x by
    a 1-D index array, host or resident (int32, int64, uint32), negative
    indices included: the take over a dynamic extent (ops.def), NumPy's
    answer for every dtype and for 1-D to 3-D x; after the first call of a
    dtype and index dtype, new shapes and index lengths compile nothing
    (each was a compile)."""
    rng = np.random.default_rng(2)
    idts = [np.int32, np.int64, np.uint32] if ctx.has("int64") else [np.int32, np.uint32]
    for dt in _dtypes(ctx):
        for shape in [(1,), (50,), (50, 3), (20, 4, 5)]:
            h = _data(dt, math.prod(shape), 3).reshape(shape)
            x = vp.asarray(h)
            for idx in [np.array([0, -1, shape[0] // 2, 0]), rng.integers(-shape[0], shape[0], 17)]:
                for form in ["host"] + idts:
                    if form != "host" and np.dtype(form).kind == "u":
                        idx = idx % shape[0]
                    ii = idx if form == "host" else vp.asarray(idx.astype(form))
                    _same(x[ii], h[idx], f"{dt} {shape} {form} {idx}")
                _same(vp.take(x, vp.asarray(idx.astype(np.int32)), axis=0),
                      np.take(h, idx, axis=0), f"take {dt} {shape}")
    compiled_texts.clear()
    for k in range(5):
        n = 100 + 7 * k
        h = rng.random((n, 3 + k)).astype(np.float32)
        idx = rng.integers(-n, n, 30 + k).astype(np.int32)
        _same(vp.asarray(h)[vp.asarray(idx)], h[idx], f"new shape {k}")
    assert not compiled_texts, compiled_texts[0]
    with pytest.raises(IndexError, match="out of bounds"):
        vp.asarray(np.zeros(5, np.float32))[np.array([5])]
