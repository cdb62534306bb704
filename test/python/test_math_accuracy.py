"""The precise math helpers' accuracy on the device, through the real
pipeline: every transcendental ufunc, float32 and float64, on dense and
random inputs over the whole range (huge arguments, denormals, +-0, inf,
nan, points next to multiples of pi/2), compared with a careful reference:

- float32: NumPy's float64 function of the same input (within 1 ULP of
  float64: 2^-29 float32 ULPs);
- float64: mpmath at 120 bits on a sample of each input set, and, where
  NumPy's long double has a 64-bit mantissa (x86), long double libm on all
  of it (within about 2^-11 float64 ULPs).

The test fails past 4 ULP (float32) or 8 ULP (float64), the bounds of
docs/math.md. Run as a script it prints the markdown table of max ULP per
function (and, for float32, of GLSL's built-ins through --fast-math on the
same device) and, with --write, puts it into docs/math.md:

    .venv/bin/python test/python/test_math_accuracy.py --write
"""
import sys
import zlib
from pathlib import Path

import numpy as np

if __name__ == "__main__":  # run as a script: the same set-up as conftest.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bindings" / "python"))

import vulpy as vp  # noqa: E402

F32, F64 = np.dtype(np.float32), np.dtype(np.float64)
BOUND = {F32: 4.0, F64: 8.0}
# NumPy's own tolerances where they are tighter than the bounds above
# (issue 20: tanh float32 was 3 ULP on the H200's fused path, expm1 and
# sinh float64 2.6 / 2.5 ULP on lavapipe; all three now go through
# vp_expm1_df, hi + lo, and round once)
TIGHT = {("tanh", F32): 2.0, ("expm1", F64): 1.0, ("sinh", F64): 1.0}
LONG_OK = np.finfo(np.longdouble).nmant >= 63
MP_SAMPLE = 1500  # float64 points per input set checked with mpmath

# name: (NumPy / VulPy ufunc, domain kind, dense range (lo, hi))
UNARY = {
    "sin": ("trig", (-10, 10)), "cos": ("trig", (-10, 10)), "tan": ("trig", (-10, 10)),
    "arcsin": ("unit", (-1, 1)), "arccos": ("unit", (-1, 1)), "arctan": ("all", (-4, 4)),
    "sinh": ("exp", (-5, 5)), "cosh": ("exp", (-5, 5)), "tanh": ("exp", (-3, 3)),
    "arcsinh": ("all", (-5, 5)), "arccosh": ("ge1", (1, 5)), "arctanh": ("unit", (-1, 1)),
    "exp": ("exp", (-5, 5)), "exp2": ("exp2", (-5, 5)), "expm1": ("exp", (-2, 2)),
    "log": ("pos", (0.5, 2)), "log2": ("pos", (0.5, 2)), "log10": ("pos", (0.5, 2)),
    "log1p": ("log1p", (-0.9, 2)), "cbrt": ("all", (-10, 10)),
}
BINARY = ["arctan2", "power"]
NAMES = list(UNARY) + BINARY


def _info(dt):
    fi = np.finfo(dt)
    return fi, (fi.nmant + 1), int(np.log2(float(fi.tiny)))


def _logu(rng, n, lo, hi, dt, neg=True):
    """n values of log-uniform magnitude in [2^lo, 2^hi), random signs if neg."""
    with np.errstate(over="ignore"):
        m = np.ldexp(1.0 + rng.random(n), rng.integers(lo, hi, n)).astype(dt)
    if neg:
        m = np.where(rng.random(n) < 0.5, -m, m)
    return m.astype(dt)


def _specials(dt):
    fi = np.finfo(dt)
    v = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, np.pi, np.pi / 2, -np.pi / 2, 1e-30,
         float(fi.tiny), float(fi.smallest_subnormal), -float(fi.smallest_subnormal),
         float(fi.max), -float(fi.max), np.inf, -np.inf, np.nan, 0.99999, 1.00001, 88.7, -88.7,
         89.5, -104.0, 709.7, -745.0, 710.5]
    with np.errstate(over="ignore"):
        return np.array(v, np.float64).astype(dt)


def unary_inputs(name, dt, n):
    """Dense, random and special inputs covering the function's whole domain."""
    rng = np.random.default_rng(zlib.crc32(f"{name}-{dt.name}".encode()))
    kind, (lo, hi) = UNARY[name]
    fi, p, emin = _info(dt)
    emax = int(np.log2(float(fi.max)))
    dense = np.linspace(lo, hi, n, dtype=dt)
    span = {"trig": (emin - fi.nmant, emax + 1, True), "all": (emin - fi.nmant, emax + 1, True),
            "unit": (-40, 0, True), "exp": (-40, 7 if dt == F32 else 10, True),
            "exp2": (-40, 8 if dt == F32 else 11, True), "pos": (emin - fi.nmant, emax + 1, False),
            "ge1": (0, emax + 1, False), "log1p": (-60, emax + 1, False)}[kind]
    lo2, hi2, neg = span
    parts = [dense, _logu(rng, n, lo2, hi2, dt, neg), _specials(dt)]
    if kind == "log1p":
        parts.append(-rng.random(n // 4).astype(dt))  # (-1, 0)
    if kind == "trig":  # next to multiples of pi/2: the hardest reductions
        k = np.concatenate([np.arange(1, 4096), rng.integers(1, 2**40, 2048) * 1.0])
        t = (k.astype(np.longdouble) * np.longdouble(np.pi / 2)).astype(dt)
        t = t[np.isfinite(t)]
        parts += [t, np.nextafter(t, dt.type(np.inf)), np.nextafter(t, dt.type(0)), -t]
    x = np.concatenate([a.astype(dt) for a in parts])
    return x


def binary_inputs(name, dt, n):
    rng = np.random.default_rng(zlib.crc32(f"{name}-{dt.name}".encode()))
    fi, p, emin = _info(dt)
    emax = int(np.log2(float(fi.max)))
    sp = np.array([0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, 3.0, -3.0, np.inf, -np.inf, np.nan,
                   1e-30, 1e30, float(fi.smallest_subnormal), float(fi.tiny)], np.float64)
    a, b = np.meshgrid(sp, sp)
    xs, ys = [a.ravel().astype(dt)], [b.ravel().astype(dt)]
    if name == "arctan2":
        xs.append(_logu(rng, n, -60, 60, dt))
        ys.append(_logu(rng, n, -60, 60, dt))
        xs.append((rng.random(n) * 4 - 2).astype(dt))
        ys.append((rng.random(n) * 4 - 2).astype(dt))
    else:
        # x log-uniform, y such that |y log2 x| runs up to and past overflow
        x = _logu(rng, n, -emax, emax, dt, neg=False)
        l2 = np.abs(np.log2(x.astype(np.float64)))
        y = (rng.random(n) * 2 - 1) * (emax + 20) / np.maximum(l2, 1e-3)
        xs.append(x)
        ys.append(y.astype(dt))
        xs.append((1 + (rng.random(n) - 0.5) * 1e-3).astype(dt))  # near 1, large exponents
        ys.append(((rng.random(n) - 0.5) * 1e5).astype(dt))
        xs.append(-_logu(rng, n, -10, 10, dt, neg=False))  # negative bases, integer exponents
        ys.append(np.floor((rng.random(n) - 0.5) * 40).astype(dt))
    return np.concatenate(xs), np.concatenate(ys)


# ------------------------------------------------------------ references

def _np_ref(name, args, wide):
    f = getattr(np, name)
    with np.errstate(all="ignore"):
        return f(*[a.astype(wide) for a in args])


def _mp_ref(name, args, mp):
    """The function at 120 bits as an mpf (NaN as None)."""
    a = [mp.mpf(float(v)) if np.isfinite(v) else float(v) for v in args]
    try:
        if any(isinstance(v, float) and np.isnan(v) for v in a):
            return None
        if name == "arctan2":
            y, x = a
            return mp.atan2(y, x) if all(isinstance(v, type(mp.mpf(1))) for v in a) else None
        if name == "power":
            x, y = a
            if not all(isinstance(v, type(mp.mpf(1))) for v in a):
                return None
            if x < 0 and y != mp.floor(y):
                return None
            if x == 0 and y < 0:
                return None
            return mp.power(x, y)
        (x,) = a
        if not isinstance(x, type(mp.mpf(1))):
            return None
        f = {"sin": mp.sin, "cos": mp.cos, "tan": mp.tan, "arcsin": mp.asin, "arccos": mp.acos,
             "arctan": mp.atan, "sinh": mp.sinh, "cosh": mp.cosh, "tanh": mp.tanh,
             "arcsinh": mp.asinh, "arccosh": mp.acosh, "arctanh": mp.atanh, "exp": mp.exp,
             "exp2": lambda v: mp.power(2, v), "expm1": mp.expm1, "log": mp.log,
             "log2": lambda v: mp.log(v, 2), "log10": mp.log10, "log1p": mp.log1p,
             "cbrt": lambda v: mp.sign(v) * mp.cbrt(abs(v))}[name]
        r = f(x)
        return r if mp.im(r) == 0 else None
    except (ValueError, ZeroDivisionError):
        return None


def ulp_errors(got, ref, dt):
    """|got - ref| in ULPs of dt at ref (ref in float64 or long double): 0 for
    equal values or two NaNs, inf for a NaN or inf where none belongs."""
    fi, p, emin = _info(dt)
    ref = np.asarray(ref)
    wide = ref.dtype
    g = got.astype(wide)
    big = np.abs(ref) > wide.type(fi.max)
    rounded = np.where(big, np.copysign(np.inf, ref), ref).astype(dt).astype(wide)
    with np.errstate(all="ignore"):
        _, e = np.frexp(np.where(np.isfinite(ref) & ~big, ref, 1))
        ulp = np.ldexp(wide.type(1), np.maximum(e - 1, emin) - p + 1)
        err = np.abs(g - ref) / ulp
        # beyond the largest finite value: inf is right; a finite answer
        # counts in ULPs of the largest value
        top = np.ldexp(wide.type(1), int(np.log2(float(fi.max))) - p + 1)
        err = np.where(big, np.where(np.isinf(g) & (np.sign(g) == np.sign(ref)), 0,
                                     np.abs(g - ref) / top), err)
    nan_r, nan_g = np.isnan(ref), np.isnan(g)
    err = np.where(nan_r | nan_g, np.where(nan_r & nan_g, 0, np.inf), err)
    err = np.where(np.isinf(g) & ~big & ~np.isinf(rounded), np.inf, err)
    err = np.where(g == rounded, 0, err)
    return err


def _mp_errors(name, args, got, dt, idx):
    import mpmath as mp
    mp.mp.prec = 120
    fi, p, emin = _info(dt)
    out = []
    for i in idx:
        r = _mp_ref(name, [a[i] for a in args], mp)
        gv = float(got[i])
        if r is None:
            out.append(0.0 if np.isnan(gv) else np.inf)
            continue
        rf = float(r)  # overflow gives inf: compare as float
        if np.isinf(rf) or abs(rf) > fi.max:
            out.append(0.0 if np.isinf(gv) and np.sign(gv) == np.sign(rf) else
                       float(abs(mp.mpf(gv) - r) / mp.ldexp(1, int(np.log2(fi.max)) - p + 1)))
            continue
        if not np.isfinite(gv):
            out.append(np.inf)
            continue
        e = max(int(mp.floor(mp.log(abs(r), 2))) if r != 0 else emin, emin)
        out.append(float(abs(mp.mpf(gv) - r) / mp.ldexp(1, e - p + 1)))
    return np.array(out)


def dense_inputs(name, dt, n):
    """Only the ordinary range (GLSL's built-ins promise nothing beyond it)."""
    if name in UNARY:
        lo, hi = UNARY[name][1]
        return [np.linspace(lo, hi, n, dtype=dt)]
    rng = np.random.default_rng(3)
    if name == "arctan2":
        return [(rng.random(n) * 4 - 2).astype(dt), (rng.random(n) * 4 - 2).astype(dt)]
    return [(0.5 + rng.random(n) * 3.5).astype(dt), (rng.random(n) * 8 - 4).astype(dt)]


def have_mpmath():
    try:
        import mpmath  # noqa: F401
        return True
    except ImportError:
        return False


def measure(name, dt, n=1 << 16, fast=False, dense=False, context=None):
    """(max ULP, worst argument(s), points) of vp.<name> on the device: over
    the whole range, or (dense) only the ordinary one. `context`: where it
    runs (the default context when None). Without mpmath (a bench machine),
    float64 is checked against long double alone where that is wider."""
    if dense:
        args = dense_inputs(name, dt, n)
    elif name in UNARY:
        args = [unary_inputs(name, dt, n)]
    else:
        args = list(binary_inputs(name, dt, n))
    f = getattr(vp, name)
    dev = args if context is None else [vp.asarray(a, context=context) for a in args]
    if fast:
        got = np.asarray(vp.jit(lambda *a: f(*a), fast_math=True)(*dev))
    else:
        got = np.asarray(f(*dev))
    assert got.dtype == dt
    if dt == F32:
        err = ulp_errors(got, _np_ref(name, args, np.float64), dt)
    else:
        # long double where it is wider (x86); plain float64 NumPy is exact
        # only for the special values (inf, nan arguments), which mpmath skips
        err = ulp_errors(got, _np_ref(name, args, np.longdouble if LONG_OK else np.float64), dt)
        if LONG_OK and not have_mpmath():
            i = int(np.argmax(err))
            return float(err[i]), tuple(a[i] for a in args), got.size
        finite = np.all([np.isfinite(a) for a in args], axis=0)
        rng = np.random.default_rng(7)
        worst = np.argsort(np.where(finite, err, -1))[-50:]
        idx = np.unique(np.concatenate([worst, rng.integers(0, got.size, MP_SAMPLE)]))
        idx = idx[finite[idx]]
        mpe = _mp_errors(name, args, got, dt, idx)
        if LONG_OK:
            err[idx] = np.maximum(err[idx], mpe)
        else:
            keep = ~finite
            keep[idx] = True
            err[idx] = mpe
            err, args = err[keep], [a[keep] for a in args]
    i = int(np.argmax(err))
    return float(err[i]), tuple(a[i] for a in args), got.size


# ------------------------------------------------------------ the test

def _cases():
    import pytest
    return [pytest.param(name, dt, id=f"{name}-{dt.name}") for name in NAMES for dt in (F32, F64)]


try:
    import pytest
    from conftest import needs_target

    @needs_target
    @pytest.mark.parametrize("name,dt", _cases())
    def test_max_ulp(ctx, name, dt):
        if dt == F64 and not ctx.has("float64"):
            pytest.skip("the device has no float64")
        err, at, n = measure(name, dt)
        bound = TIGHT.get((name, dt), BOUND[dt])
        assert err <= bound, (f"vp.{name}({dt.name}): {err:.2f} ULP at {at} "
                              f"(bound {bound:.0f}, {n} points)")

    @needs_target
    def test_ulp_measure_can_fail(ctx):
        """The measurement sees an error: sin shifted by 8 ULP is 8 ULP off."""
        x = np.linspace(0.1, 1, 1000, dtype=np.float32)
        ref = np.sin(x.astype(np.float64))
        got = ref.astype(np.float32)  # correctly rounded
        bad = (got.view(np.int32) + 8).view(np.float32)
        assert ulp_errors(got, ref, F32).max() <= 0.51
        assert 7.4 < ulp_errors(bad, ref, F32).max() < 8.6
        assert ulp_errors(np.array([np.nan], np.float32), np.array([1.0]), F32)[0] == np.inf
        assert ulp_errors(np.array([np.inf], np.float32), np.array([1e39]), F32)[0] == 0
except ImportError:  # run as a script, without pytest's conftest
    pass


# ------------------------------------------------------------ the table

BEGIN = "<!-- BEGIN generated by test/python/test_math_accuracy.py -->"
END = "<!-- END generated -->"


def table():
    ctx = vp.default_context()
    f64 = ctx.has("float64")
    rows = ["| function | float32 max ULP | float64 max ULP | ordinary range | "
            "float32 there: ours | GLSL built-in (--fast-math) |",
            "| --- | --- | --- | --- | --- | --- |"]
    builtin = {"sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
               "arcsinh", "arccosh", "arctanh", "exp", "exp2", "log", "log2", "arctan2", "power"}
    for name in NAMES:
        a = measure(name, F32)[0]
        b = f"{measure(name, F64)[0]:.2f}" if f64 else "n/a"
        rng = UNARY[name][1] if name in UNARY else ((-2, 2) if name == "arctan2" else "x in [0.5, 4], y in [-4, 4]")
        rng = f"[{rng[0]}, {rng[1]}]" if isinstance(rng, tuple) else rng
        d = measure(name, F32, dense=True)[0]
        c = f"{measure(name, F32, fast=True, dense=True)[0]:.3g}" if name in builtin else "(no built-in)"
        rows.append(f"| {name} | {a:.2f} | {b} | {rng} | {d:.2f} | {c} |")
        print(rows[-1], file=sys.stderr)
    return (f"Device: {ctx.name}.\n\n"
            + "\n".join(rows) + "\n")


def main(argv):
    t = table()
    if "--write" in argv:
        doc = Path(__file__).resolve().parents[2] / "docs" / "math.md"
        s = doc.read_text()
        i, j = s.index(BEGIN) + len(BEGIN), s.index(END)
        doc.write_text(s[:i] + "\n" + t + s[j:])
    print(t)


if __name__ == "__main__":
    main(sys.argv[1:])
