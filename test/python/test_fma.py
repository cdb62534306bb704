"""The VP_FMA_FUSED specialization constant: detection, VULPY_FMA, pipelines.

The precise math helpers branch on `layout(constant_id = 2046) const bool
VP_FMA_FUSED` (docs/math.md); the runtime sets it for every pipeline to the
context's info["fma_fused"] (docs/runtime.md). lavapipe's fma() is a
multiply and an add, so it is detected as unfused and the helpers keep their
exact Dekker paths (test_math_accuracy.py measures those). Forcing the fused
path there (VULPY_FMA=fused) runs the fused code on an unfused fma: the
error-free products lose their tails and the three-part sin/cos reduction
its first exact step, so results are only close, not within 4 ULP. What
these tests can show on lavapipe: the constant reaches every kind of
pipeline (the two settings give different bits), the fused code runs and
stays close to the truth. Its accuracy on a fused device is measured by
build/bin/math_ulp (the CPU, fused fma) and bench/bench_mathcost.py on a GPU.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import pytest

import vulpy as vp
from conftest import ROOT, needs_ext

pytestmark = needs_ext

LLVMPIPE = 13  # VK_DRIVER_ID_MESA_LLVMPIPE


def _probe(fma_env, code):
    """Runs `code` in a fresh process with VULPY_FMA=fma_env; its last line
    of output is JSON."""
    env = dict(os.environ)
    env.pop("VULPY_FMA", None)
    if fma_env is not None:
        env["VULPY_FMA"] = fma_env
    with tempfile.TemporaryDirectory() as tmp:  # a file: @vp.kernel reads its source
        script = os.path.join(tmp, "probe.py")
        with open(script, "w") as f:
            f.write(code)
        r = subprocess.run([sys.executable, script], env=env, capture_output=True, text=True,
                           timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_detected_per_device(ctx):
    for d in vp.list_devices():
        assert isinstance(d["fma_fused"], bool) and isinstance(d["driver_id"], int)
        if d["kind"] == "cpu" or d["driver_id"] == LLVMPIPE:
            assert d["fma_fused"] is False, d["name"]


INFO = """
import json, vulpy as vp
c = vp.Context(kind="cpu")
print(json.dumps([c.fma_fused, [d["fma_fused"] for d in vp.list_devices() if d["kind"] == "cpu"]]))
"""


@pytest.mark.parametrize("env,want", [(None, False), ("auto", False), ("unfused", False),
                                      ("fused", True), ("bogus", False)])
def test_vulpy_fma_overrides_the_context(env, want):
    if not any(d["kind"] == "cpu" for d in vp.list_devices()):
        pytest.skip("needs lavapipe")
    ctx_fused, listed = _probe(env, INFO)
    assert ctx_fused is want
    assert listed == [False] * len(listed)  # the device's own value is unchanged


# sin (vp_sincos's reduction), division-based and two_prod-based helpers
# (arctan2 via vp_div, log2 via vp_log2_df, cbrt), through ufuncs, a jit
# expression, a @vp.kernel and a raw GLSL kernel that declares the constant.
PATHS = r"""
import json, numpy as np, vulpy as vp
c = vp.Context(kind="cpu")
k = np.arange(1, 2001, dtype=np.float64)
x = np.float32(k * (np.pi / 2) + 1e-3 * np.sin(k))           # near multiples of pi/2
p = np.float32(np.linspace(0.1, 50.0, 2000))
out = {}
a = vp.asarray(x, context=c)
out["sin"] = vp.sin(a).numpy().tolist()
out["cos"] = vp.cos(a).numpy().tolist()
P = vp.asarray(p, context=c)
out["log2"] = vp.log2(P).numpy().tolist()
out["cbrt"] = vp.cbrt(P).numpy().tolist()
out["arctan2"] = vp.arctan2(P, P + 1).numpy().tolist()
out["jit"] = vp.jit(lambda u, v: vp.where(u > v, vp.sin(u), vp.cos(v)))(a, P).numpy().tolist()

@vp.kernel
def kpow(u: vp.Buffer[vp.float32], v: vp.Buffer[vp.float32], o: vp.Buffer[vp.float32]):
    i = vp.global_id()
    o[i] = u[i] ** v[i]

o = vp.zeros(2000, context=c)
kpow(P, vp.asarray(p * np.float32(0.1), context=c), o, dispatch=2000)
out["kernel_pow"] = o.numpy().tolist()

GLSL = '''#version 450
layout(local_size_x = 64) in;
layout(constant_id = 2046) const bool VP_FMA_FUSED = false;
layout(std430, binding = 0) buffer B { float b[]; };
void main() { if (gl_GlobalInvocationID.x == 0u) b[0] = VP_FMA_FUSED ? 1.0 : 2.0; }
'''
g = vp.kernel(GLSL, buffers=1, push=[])
b = vp.zeros(1, context=c)
g(b, dispatch=1, context=c)
out["raw"] = float(b.numpy()[0])
out["fused"] = c.fma_fused
print(json.dumps(out))
"""


def _ulp(got, ref):
    got = np.asarray(got, np.float32)
    return np.abs(got.astype(np.float64) - ref) / np.spacing(np.abs(ref).astype(np.float32)).astype(np.float64)


@pytest.fixture(scope="module")
def both():
    if not any(d["kind"] == "cpu" for d in vp.list_devices()):
        pytest.skip("needs lavapipe")
    return _probe("unfused", PATHS), _probe("fused", PATHS)


def test_every_pipeline_gets_the_constant(both):
    unfused, fused = both
    assert (unfused["fused"], fused["fused"]) == (False, True)
    assert (unfused["raw"], fused["raw"]) == (2.0, 1.0)  # raw GLSL reads it too
    # the fused paths, run on lavapipe's unfused fma, give other bits: the
    # constant reached the ufunc, jit and @vp.kernel pipelines
    for name in ("sin", "cos", "log2", "cbrt", "jit", "kernel_pow"):
        assert unfused[name] != fused[name], name


def test_unfused_paths_stay_exact(both):
    unfused, _ = both
    k = np.arange(1, 2001, dtype=np.float64)
    x = np.float32(k * (np.pi / 2) + 1e-3 * np.sin(k)).astype(np.float64)
    p = np.float32(np.linspace(0.1, 50.0, 2000)).astype(np.float64)
    assert _ulp(unfused["sin"], np.sin(x)).max() <= 4
    assert _ulp(unfused["cos"], np.cos(x)).max() <= 4
    assert _ulp(unfused["log2"], np.log2(p)).max() <= 4
    assert _ulp(unfused["cbrt"], np.cbrt(p)).max() <= 4


def test_fused_paths_run_close_on_an_unfused_fma(both):
    # Looser bounds: on lavapipe the "fused" code loses the exact tails
    # (up to ~2^-24 relative in a product, k ulp(pi/2) in the reduction).
    _, fused = both
    k = np.arange(1, 2001, dtype=np.float64)
    x = np.float32(k * (np.pi / 2) + 1e-3 * np.sin(k)).astype(np.float64)
    p = np.float32(np.linspace(0.1, 50.0, 2000)).astype(np.float64)
    np.testing.assert_allclose(fused["sin"], np.sin(x), atol=1e-3)
    np.testing.assert_allclose(fused["cos"], np.cos(x), atol=1e-3)
    np.testing.assert_allclose(fused["log2"], np.log2(p), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(fused["cbrt"], np.cbrt(p), rtol=1e-5)
    np.testing.assert_allclose(fused["arctan2"], np.arctan2(p, np.float32(p + 1)), rtol=1e-5)
    np.testing.assert_allclose(fused["kernel_pow"], p ** (np.float32(p * np.float32(0.1))).astype(np.float64), rtol=1e-4)
