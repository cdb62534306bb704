"""NumPy-tolerance accuracy of the precise math on this device (issue 20):
every transcendental ufunc, float32 and float64 - 20 unary functions and
arctan2 and power, 44 sets - measured by test/python/test_math_accuracy.py's
`measure` (dense grids, log-uniform magnitudes over the whole domain with
subnormals, +-0, inf, NaN, FLT_MIN / FLT_TRUE_MIN, points next to multiples
of pi/2; references NumPy float64 for float32, long double and mpmath for
float64) and held to that test's bounds: NumPy's tolerances (tanh float32
2 ULP, expm1 and sinh float64 1 ULP, otherwise 4 ULP float32 / 8 ULP
float64).

On a device that flushes float32 subnormals (NVIDIA) the default context
takes the float32 helpers' subnormal-safe paths (VP_DENORM_EMULATE,
docs/math.md "Subnormals"): the records' backend says which mode ran. The
float32 sets are measured again with VULPY_DENORM=default (the device's own
handling, what VulPy did before) as the before/after in one run, and the
suite records what the device does with subnormals in plain arithmetic and
compares (the part precise mode leaves to the device).

Printed, and in the records:

    accuracy: 44/44 sets pass (the 40 unary sets: 40/40) [...]

A set over its tolerance is also an ERROR record (bench/run.py exits
non-zero).

    bash bench/device/suites.sh --suites accuracy
    .venv/bin/python bench/run.py --suite accuracy --quick --no-report
"""
import os
import sys
import time
import types
from pathlib import Path

import numpy as np

from benchlib import Recorder, vulpy

ROOT = Path(__file__).resolve().parents[1]


def _accuracy_module():
    """test/python/test_math_accuracy.py without pytest's conftest (which
    turns validation on): its pytest part sees a stub."""
    sys.path.insert(0, str(ROOT / "test" / "python"))
    stub = types.ModuleType("conftest")
    stub.needs_target = lambda f: f
    saved = sys.modules.get("conftest")
    sys.modules["conftest"] = stub
    try:
        import test_math_accuracy as tma
    finally:
        if saved is None:
            sys.modules.pop("conftest", None)
        else:
            sys.modules["conftest"] = saved
    return tma


def _mode(c):
    if getattr(c, "denorm_emulate", False):
        return "subnormals emulated (VP_DENORM_EMULATE)"
    if 32 in tuple(getattr(c, "denorm_preserve", ()) or ()):
        return "DenormPreserve f32"
    return "device subnormals"


def _context(vp, env, index):
    old = os.environ.pop("VULPY_DENORM", None)
    os.environ["VULPY_DENORM"] = env
    try:
        return vp.Context(device_index=index)
    finally:
        os.environ.pop("VULPY_DENORM", None)
        if old is not None:
            os.environ["VULPY_DENORM"] = old


def _arithmetic(vp, c, rec, path):
    """What the device does with float32 subnormals in the operations precise
    mode leaves to it (docs/math.md): 1 = kept as NumPy keeps them, 0 =
    flushed. The operands come from buffers, so nothing folds."""
    s = np.float32(2.0 ** -140)
    x = vp.asarray(np.full(64, s, np.float32), context=c)
    one = vp.asarray(np.ones(64, np.float32), context=c)
    zero = vp.asarray(np.zeros(64, np.float32), context=c)
    cases = {
        "x * 1": (lambda: vp.multiply(x, one), s),
        "x + 0": (lambda: vp.add(x, zero), s),
        "x - 0": (lambda: vp.subtract(x, zero), s),
        "x / 1": (lambda: vp.divide(x, one), s),
        "-x": (lambda: vp.negative(x), -s),
        "abs(x)": (lambda: vp.absolute(x), s),
        "maximum(x, 0)": (lambda: vp.maximum(x, zero), s),
        "minimum(x, 1)": (lambda: vp.minimum(x, one), s),
        "sign(x)": (lambda: vp.sign(x), np.float32(1)),
        "floor(-x)": (lambda: vp.floor(vp.negative(x)), np.float32(-1)),
        "x > 0": (lambda: vp.greater(x, zero), True),
        "x != 0": (lambda: vp.not_equal(x, zero), True),
        "2^-70 * 2^-70": (lambda: vp.multiply(vp.asarray(np.full(64, 2.0 ** -70, np.float32),
                                                         context=c),
                                              vp.asarray(np.full(64, 2.0 ** -70, np.float32),
                                                         context=c)), s),
    }
    for case, (fn, want) in cases.items():
        try:
            got = np.asarray(fn().numpy())
            kept = bool(np.all(got == want))
        except Exception as e:  # noqa: BLE001 - a record, not a crash
            rec.error(f"subnormals in arithmetic: {case}", 64, path, e)
            continue
        rec.value(f"subnormals in arithmetic: {case}", 64, path, 1.0 if kept else 0.0, "kept")


def run(ctx):
    rec = Recorder("accuracy", getattr(ctx, "device_label", "local"))
    vp = vulpy()
    tma = _accuracy_module()
    c = vp.default_context()
    fma = "fused fma" if c.fma_fused else "unfused fma"
    path = f"{fma}, {_mode(c)}"
    n = 1 << (12 if ctx.quick else 16)
    f64 = c.has("float64")
    mp = tma.have_mpmath()
    ref64 = ("long double" if tma.LONG_OK else "float64") + (" + mpmath" if mp else "")
    rec.value("subnormals: VP_DENORM_EMULATE", 0, path, 1.0 if c.denorm_emulate else 0.0, "on",
              preserve=list(c.denorm_preserve), support=list(c.info.get("denorm_support", ())),
              env=os.environ.get("VULPY_DENORM", "auto"))
    passed, total, unary_passed, unary_total = 0, 0, 0, 0
    failed = []
    t0 = time.perf_counter()
    for name in tma.NAMES:
        for dt in (tma.F32, tma.F64):
            label = f"max ULP: {name} {dt.name}"
            bound = tma.TIGHT.get((name, dt), tma.BOUND[dt])
            total += 1
            unary_total += name in tma.UNARY
            if dt == tma.F64 and not f64:
                rec.skip(label, n, path, "the device has no float64")
                failed.append(f"{name} {dt.name} (no float64)")
                continue
            try:
                err, at, npts = tma.measure(name, dt, n=n, context=c)
            except Exception as e:  # noqa: BLE001 - a record, not a crash
                rec.error(label, n, path, e)
                failed.append(f"{name} {dt.name} (error)")
                continue
            ok = err <= bound
            rec.value(label, npts, path, err, "ULP", bound=bound, passed=ok,
                      worst_at=[float(a) for a in at],
                      reference="NumPy float64" if dt == tma.F32 else ref64)
            if ok:
                passed += 1
                unary_passed += name in tma.UNARY
            else:
                failed.append(f"{name} {dt.name} {err:.3g} ULP")
                rec.error(f"over NumPy's tolerance: {name} {dt.name}", npts, path,
                          f"{err:.4g} ULP at {[float(a) for a in at]} (tolerance {bound:g} ULP)")
    summary = (f"accuracy: {passed}/{total} sets pass (the {unary_total} unary sets: "
               f"{unary_passed}/{unary_total}) [{c.name}; {path}; float64 reference {ref64}; "
               f"{n} random inputs a set; {time.perf_counter() - t0:.0f} s]")
    if failed:
        summary += " failed: " + ", ".join(failed)
    print(summary, flush=True)
    rec.value("sets within NumPy's tolerance", total, path, float(passed), f"of {total} sets",
              unary=f"{unary_passed}/{unary_total}", failed=failed, summary=summary,
              goal={"op": ">=", "target": float(total), "issue": 20})

    # before/after: the float32 sets as the device handles subnormals itself
    # (VULPY_DENORM=default), where this context emulates
    if c.denorm_emulate:
        c2 = _context(vp, "default", c.index)
        path2 = f"{fma}, {_mode(c2)} (VULPY_DENORM=default)"
        before = 0
        for name in tma.NAMES:
            try:
                err, at, npts = tma.measure(name, tma.F32, n=n, context=c2)
            except Exception as e:  # noqa: BLE001
                rec.error(f"max ULP, VULPY_DENORM=default: {name} float32", n, path2, e)
                continue
            ok = err <= tma.TIGHT.get((name, tma.F32), tma.BOUND[tma.F32])
            before += ok
            rec.value(f"max ULP, VULPY_DENORM=default: {name} float32", npts, path2, err, "ULP",
                      passed=ok)
        line = (f"accuracy, VULPY_DENORM=default (no emulation): {before}/{len(tma.NAMES)} "
                f"float32 sets pass")
        print(line, flush=True)
        rec.value("float32 sets within NumPy's tolerance, VULPY_DENORM=default", 0, path2,
                  float(before), f"of {len(tma.NAMES)} sets", summary=line)
    _sweeps(vp, tma, c, rec, path)
    _arithmetic(vp, c, rec, path)
    return rec.records


def _sweeps(vp, tma, c, rec, path):
    """Every 97th float32 subnormal of both signs (and the edges: 0,
    FLT_TRUE_MIN, the largest subnormal, FLT_MIN) through each unary
    function, and exp/exp2 where the result is subnormal: the inputs a
    flushing device gets wrong without VP_DENORM_EMULATE."""
    m = np.arange(1, 1 << 23, 97, dtype=np.uint32)
    edges = np.array([0, 1, 2, 0x7fffff, 0x800000, 0x800001], np.uint32)
    sub = np.concatenate([m, m | 0x80000000, edges, edges | 0x80000000]).view(np.float32)
    sets = [(name, sub) for name in tma.UNARY]
    sets += [("exp", np.linspace(-104.5, -87.0, 100001, dtype=np.float32)),
             ("exp2", np.linspace(-151.0, -125.5, 100001, dtype=np.float32))]
    passed = 0
    for name, x in sets:
        label = f"subnormal sweep: {name}" + (" (subnormal results)" if x is not sub else "")
        try:
            got = getattr(vp, name)(vp.asarray(x, context=c)).numpy()
        except Exception as e:  # noqa: BLE001
            rec.error(label, len(x), path, e)
            continue
        with np.errstate(all="ignore"):
            ref = getattr(np, name)(x.astype(np.float64))
        err = tma.ulp_errors(got, ref, tma.F32)
        i = int(np.argmax(err))
        bound = tma.TIGHT.get((name, tma.F32), tma.BOUND[tma.F32])
        ok = err[i] <= bound
        passed += ok
        rec.value(label, len(x), path, float(err[i]), "ULP", bound=bound, passed=bool(ok),
                  worst_at=float(x[i]))
        if not ok:
            rec.error(f"over NumPy's tolerance: {label}", len(x), path,
                      f"{err[i]:.4g} ULP at {float(x[i])!r}: got {float(got[i])!r}, "
                      f"want {float(ref[i])!r}")
    line = f"accuracy: {passed}/{len(sets)} float32 subnormal sweeps pass [{path}]"
    print(line, flush=True)
    rec.value("float32 subnormal sweeps within NumPy's tolerance", 0, path, float(passed),
              f"of {len(sets)} sweeps", summary=line)
