"""Float32 subnormals where the device flushes them: the precise helpers'
subnormal-safe paths (the specialization constant VP_DENORM_EMULATE,
docs/math.md "Subnormals", docs/runtime.md).

NVIDIA's Vulkan driver flushes float32 subnormals and reports no
shaderDenormPreserveFloat32, so DenormPreserve cannot be asked for there;
the float32 helpers then read subnormal arguments and write subnormal
results by their bits. lavapipe keeps subnormals, so here the paths are
forced with VULPY_DENORM=emulate and checked against NumPy's tolerances
(tests below: every affected function on subnormal inputs over the whole
range, +-0, FLT_MIN, FLT_TRUE_MIN, and inputs whose results are subnormal).
That the paths survive a real flush (inputs read as 0, results flushed,
compares too) is checked on the CPU by ctest target.math_ulp_ftz (x86 FTZ
and DAZ bits), and on a GPU by the `accuracy` bench suite.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import vulpy as vp
from conftest import needs_ext, needs_target
from test_math_accuracy import F32, TIGHT, ulp_errors

pytestmark = [needs_ext, needs_target]

# f(x) for the whole subnormal range (and +-0): x itself, 1, pi/2, a log, a cube root
UNARY = ["sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh",
         "arctanh", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "cbrt", "arccosh"]
EDGES = [0, 1, 2, 3, 0x7fffff, 0x7ffffe, 0x400000, 0x800000, 0x800001]  # bits: 0, TRUE_MIN.., FLT_MIN
FLT_MIN, TRUE_MIN = np.finfo(np.float32).tiny, np.finfo(np.float32).smallest_subnormal


def _bound(name):
    return TIGHT.get((name, F32), 4.0)


def _cpu():
    if not any(d["kind"] == "cpu" for d in vp.list_devices()):
        pytest.skip("needs lavapipe")


def _context(env):
    """A lavapipe context made with VULPY_DENORM=env (None: unset)."""
    old = os.environ.pop("VULPY_DENORM", None)
    if env is not None:
        os.environ["VULPY_DENORM"] = env
    try:
        return vp.Context(kind="cpu")
    finally:
        os.environ.pop("VULPY_DENORM", None)
        if old is not None:
            os.environ["VULPY_DENORM"] = old


@pytest.fixture(scope="module")
def emu():
    _cpu()
    c = _context("emulate")
    assert c.denorm_emulate and c.denorm_preserve == ()
    return c


def _run(c, name, *args):
    f = getattr(vp, name)
    return f(*[vp.asarray(np.asarray(a, np.float32), context=c) for a in args]).numpy()


def _check(c, name, *args):
    args = [np.asarray(a, np.float32) for a in args]
    got = _run(c, name, *args)
    with np.errstate(all="ignore"):
        ref = getattr(np, name)(*[a.astype(np.float64) for a in args])
    err = ulp_errors(got, ref, F32)
    i = int(np.argmax(err))
    mode = "VP_DENORM_EMULATE" if c.denorm_emulate else "the device's subnormals"
    assert err[i] <= _bound(name), (f"vp.{name} ({mode}): {err[i]:.3g} ULP at "
                                    f"{tuple(float(a[i]) for a in args)}: got {got[i]!r}, "
                                    f"want {ref[i]!r}")


def _subnormals(step=97):
    """Every `step`-th float32 subnormal, both signs, and the edges."""
    m = np.arange(1, 1 << 23, step, dtype=np.uint32)
    b = np.concatenate([m, m | 0x80000000, np.array(EDGES, np.uint32),
                        np.array(EDGES, np.uint32) | 0x80000000])
    return b.view(np.float32)


# ------------------------------------------------------------ the choice

def test_choice_on_lavapipe():
    """auto and default leave lavapipe alone (it keeps subnormals); emulate
    forces the paths; the device list says what auto chooses."""
    _cpu()
    for env in (None, "auto", "default"):
        assert not _context(env).denorm_emulate, env
    for d in vp.list_devices():
        assert isinstance(d["denorm_emulate"], bool)
        if d["kind"] == "cpu" and "llvmpipe" in d["name"]:
            assert d["denorm_emulate"] is False
    c = _context("emulate")
    assert c.denorm_emulate
    assert "float32 subnormals emulated" in c._native.describe(True)


def test_the_constant_reaches_precise_pipelines_only(tmp_path):
    """VP_DENORM_EMULATE is true in the pipelines of precise kernels on an
    emulating context, false for the same SPIR-V asked without precise math
    and on a plain context; the pipelines have their own cache keys.
    (fast_math kernels are the ones not asked with precise math:
    test_denorm.py::test_only_precise_kernels_ask.)"""
    _cpu()
    from vulpy import _native
    glsl = """#version 450
layout(local_size_x = 64) in;
layout(constant_id = 2045) const bool VP_DENORM_EMULATE = false;
layout(std430, binding = 0) buffer B { float b[]; };
void main() { if (gl_GlobalInvocationID.x == 0u) b[0] = VP_DENORM_EMULATE ? 1.0 : 2.0; }
"""
    prog = vp.kernel(glsl, buffers=1, push=[])._prog
    cache = str(tmp_path / "cache")
    ext = _native.ext()
    res = {}
    for label, force in (("plain", 0), ("emulate", 16)):
        c = ext.Context("cpu", 1, cache, force_denorm=force)
        for precise in (False, True):
            k = ext.Kernel(c, prog.artifacts["spirv"], prog.artifacts["manifest"], None, True,
                           precise)
            buf = ext.Buffer(c, 4, "host")
            k.dispatch([buf], prog.packer.pack({}), 1, 1, 1, False, True)
            out = np.zeros(1, np.float32)
            buf.download(out)
            res[label, precise] = (float(out[0]), k.stats["denorm_emulate"], k.stats["cache_path"])
        assert c.info()["denorm_emulate"] is (force == 16)
        assert c.take_validation() == []
    assert res["emulate", True][:2] == (1.0, True)
    for key in (("plain", False), ("plain", True), ("emulate", False)):
        assert res[key][:2] == (2.0, False), key
    # on disk: the emulating pipeline its own file, the other the plain one's
    assert res["emulate", True][2] not in ("", res["plain", False][2])
    assert res["emulate", False][2] == res["plain", False][2] != ""


def test_vulpy_denorm_emulate_in_a_fresh_process():
    _cpu()
    code = ("import json, numpy as np, vulpy as vp\n"
            "c = vp.Context(kind='cpu')\n"
            "x = vp.asarray(np.array([1e-45, -1e-45, 1e-40, 0.0], np.float32), context=c)\n"
            "print(json.dumps([c.denorm_emulate, vp.log(x).numpy().tolist()]))\n")
    env = dict(os.environ, VULPY_DENORM="emulate")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    emulate, logs = json.loads(r.stdout.strip().splitlines()[-1])
    assert emulate is True
    with np.errstate(all="ignore"):
        want = np.log(np.array([1e-45, -1e-45, 1e-40, 0.0], np.float32).astype(np.float64))
    np.testing.assert_allclose(logs[0], want[0], rtol=1e-6)
    assert np.isnan(logs[1]) and logs[3] == -np.inf
    np.testing.assert_allclose(logs[2], want[2], rtol=1e-6)


# ------------------------------------------------------------ accuracy

@pytest.mark.parametrize("name", UNARY)
def test_subnormal_inputs_whole_range(emu, name):
    """Every 97th subnormal of both signs, +-0, TRUE_MIN, the largest
    subnormal, FLT_MIN: within NumPy's tolerance."""
    _check(emu, name, _subnormals())


@pytest.mark.parametrize("name", UNARY)
def test_subnormal_inputs_hypothesis(emu, name):
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    bits = st.one_of(st.integers(1, (1 << 23) - 1), st.sampled_from(EDGES))
    word = st.tuples(bits, st.booleans()).map(lambda t: t[0] | (0x80000000 if t[1] else 0))

    @settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
    @given(hnp.arrays(np.uint32, st.integers(1, 48), elements=word))
    def run(b):
        _check(emu, name, b.view(np.float32))

    run()


@pytest.mark.parametrize("name,lo,hi", [("exp", -104.5, -87.0), ("exp2", -151.0, -125.5)])
def test_subnormal_results(emu, name, lo, hi):
    """exp and exp2 where the result is subnormal (and the boundaries: the
    last normal, the smallest subnormal, 0), from the integer rounding."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    edges = np.array([np.log(np.float64(FLT_MIN)), np.log(np.float64(TRUE_MIN)), -103.97208,
                      -87.33655, -87.336544, -126.0, -149.0, -149.5, -150.0, -150.1],
                     np.float64).astype(np.float32)
    _check(emu, name, np.concatenate([np.linspace(lo, hi, 20001, dtype=np.float32), edges]))

    @settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
    @given(hnp.arrays(np.float32, st.integers(1, 64),
                      elements=st.floats(lo, hi, width=32, allow_nan=False)))
    def run(x):
        _check(emu, name, x)

    run()


def test_power_subnormals(emu):
    """pow with subnormal bases (negative ones with integer exponents), with
    subnormal exponents (0, inf and negative bases included), and with
    results below FLT_MIN."""
    rng = np.random.default_rng(5)
    sub = _subnormals(step=4099)
    x1, y1 = sub[sub > 0], rng.uniform(-1.2, 1.0, (sub > 0).sum())
    x2, y2 = sub[sub < 0], np.floor(rng.uniform(-1, 2, (sub < 0).sum()))
    b = np.array([0.0, -0.0, 0.5, 2.0, -2.0, 1.0, np.inf, -np.inf, 1e-30, 1e30], np.float32)
    x3, y3 = np.repeat(b, 6), np.tile(np.array([TRUE_MIN, -TRUE_MIN, FLT_MIN / 2, -FLT_MIN / 3,
                                                 FLT_MIN, 0.0], np.float32), len(b))
    x4 = rng.uniform(0.01, 50, 4000).astype(np.float32)
    y4 = ((-126.0 - rng.uniform(0, 24, 4000)) / np.log2(x4.astype(np.float64))).astype(np.float32)
    _check(emu, "power", np.concatenate([x1, x2, x3, x4]), np.concatenate([y1, y2, y3, y4]))


def test_arctan2_subnormals(emu):
    """atan2 with subnormal operands (either or both, either sign) and with
    ratios below FLT_MIN (subnormal results)."""
    rng = np.random.default_rng(6)
    sub = _subnormals(step=2053)
    n = len(sub)
    other = (rng.choice([-1.0, 1.0], n) * 2.0 ** rng.uniform(-126, 60, n)).astype(np.float32)
    y = np.concatenate([sub, other, sub, rng.permutation(sub),
                        (2.0 ** rng.uniform(-126, -60, 4000)).astype(np.float32)])
    x = np.concatenate([other, sub, rng.permutation(sub), sub,
                        (rng.choice([-1.0, 1.0], 4000) * 2.0 ** rng.uniform(20, 127, 4000))
                        .astype(np.float32)])
    _check(emu, "arctan2", y, x)


def test_arctan2_tiny_operands_on_the_default_path(ctx):
    """Not the emulation: lavapipe's own path (unfused fma). atan2 of two
    tiny operands went through vp_div, whose Dekker residual underflowed
    (atan2(-2.67e-42, 2.56e-40): 5886 ULP); operands below 2^-80 are now
    scaled first."""
    rng = np.random.default_rng(8)
    sub = _subnormals(step=1021)
    y = np.concatenate([[-2.67227617e-42, -9.50220489e-42], rng.permutation(sub),
                        (2.0 ** rng.uniform(-126, -80, 2000)).astype(np.float32)])
    x = np.concatenate([[2.55641681e-40, 9.04250555e-07], sub,
                        (rng.choice([-1.0, 1.0], 2000) * 2.0 ** rng.uniform(-126, 30, 2000))])
    _check(ctx, "arctan2", y.astype(np.float32), x.astype(np.float32))
