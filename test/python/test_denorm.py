"""DenormPreserve for precise-math kernels: the choice, VULPY_DENORM, the
patched pipelines and their cache keys (docs/runtime.md, docs/math.md).

NVIDIA's Vulkan driver flushes float32 subnormals unless a shader declares
the SPIR-V execution mode DenormPreserve; the runtime adds it to the kernels
VulPy compiled with precise math wherever the device reports
shaderDenormPreserveFloat32 (VULPY_DENORM=auto). lavapipe reports no
support (it keeps subnormals without being asked), so here auto leaves the
modules alone, `preserve` is an error, and the patched path is run through
the runtime's testing hook (Context(force_denorm=...), validation off: the
layer rightly objects to a mode the device does not report, which one test
shows). The patch itself is checked with spirv-val by test/unit/Runtime/
test_denorm.c; what a flushing device gains is measured by the mathcost
benchmark (bench/bench_mathcost.py) on the GPU.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import pytest

import vulpy as vp
from conftest import needs_ext, needs_target

pytestmark = [needs_ext, needs_target]

F16, F32, F64 = 1, 2, 4  # VRT_DENORM_* (include/vulpy/runtime.h)

EXP32 = '''import vulpy as vp


@vp.kernel
def k(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32]):
    i = vp.global_id()
    y[i] = vp.exp(x[i])
'''
LOG64 = '''import vulpy as vp


@vp.kernel
def k(x: vp.Buffer[vp.float64], y: vp.Buffer[vp.float64]):
    i = vp.global_id()
    y[i] = vp.log(x[i])
'''


def _cpu():
    if not any(d["kind"] == "cpu" for d in vp.list_devices()):
        pytest.skip("needs lavapipe")


def _load(tmp_path, text, name, **kw):
    """The @vp.kernel `k` of a module written to a file (kernels read their
    source)."""
    import importlib.util
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return vp.kernel(**kw)(mod.k.fn) if kw else mod.k


def _probe(env, code):
    """Runs `code` in a fresh process with VULPY_DENORM=env (None: unset);
    its last line of output is JSON."""
    e = dict(os.environ)
    e.pop("VULPY_DENORM", None)
    if env is not None:
        e["VULPY_DENORM"] = env
    r = subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_auto_keeps_lavapipe_as_it_is(ctx):
    _cpu()
    for d in vp.list_devices():
        assert isinstance(d["denorm_support"], tuple) and isinstance(d["denorm_preserve"], tuple)
        assert set(d["denorm_preserve"]) <= set(d["denorm_support"]) | {16, 64}
        if d["kind"] == "cpu":
            # lavapipe reports no DenormPreserve: auto adds nothing
            assert d["denorm_support"] == () and d["denorm_preserve"] == (), d["name"]
    c = vp.Context(kind="cpu")
    assert c.denorm_preserve == ()
    assert "DenormPreserve for precise math: none" in c._native.describe(True)


def test_auto_on_a_precise_kernel_adds_nothing_on_lavapipe(tmp_path):
    _cpu()
    c = vp.Context(kind="cpu")
    k = _load(tmp_path, EXP32, "exp32")
    prog = k.program()
    assert prog.precise
    assert prog.native(c).stats["denorm_preserve"] == ()


INFO = """
import json, vulpy as vp
try:
    c = vp.Context(kind="cpu")
    print(json.dumps({"preserve": list(c.denorm_preserve), "fma": c.fma_fused}))
except vp.VulkanError as e:
    print(json.dumps({"error": str(e)}))
"""


@pytest.mark.parametrize("env", [None, "", "auto", "default"])
def test_vulpy_denorm_auto_and_default(env):
    _cpu()
    assert _probe(env, INFO) == {"preserve": [], "fma": False}


def test_vulpy_denorm_preserve_on_a_device_without_it_is_an_error():
    _cpu()
    out = _probe("preserve", INFO)
    assert "VULPY_DENORM=preserve" in out["error"]
    assert "cannot keep float32 subnormals" in out["error"]
    assert "shaderDenormPreserveFloat32 = false" in out["error"]
    assert "unset VULPY_DENORM" in out["error"]


def test_vulpy_denorm_unknown_value_is_an_error():
    _cpu()
    out = _probe("keep", INFO)
    assert "VULPY_DENORM='keep' is not one of preserve, emulate, default, auto" in out["error"]


def _native_ctx(force, cache, validation=0):
    from vulpy import _native
    return _native.ext().Context("cpu", validation, str(cache), force_denorm=force)


def _native_kernel(c, prog, preserve):
    from vulpy import _native
    return _native.ext().Kernel(c, prog.artifacts["spirv"], prog.artifacts["manifest"], None,
                                True, preserve)


def test_patched_pipeline_runs_and_has_its_own_keys(tmp_path):
    _cpu()
    prog = _load(tmp_path, EXP32, "exp32").program()
    cache = tmp_path / "cache"
    plain = _native_ctx(0, cache)
    forced = _native_ctx(F32, cache)
    assert plain.info()["denorm_preserve"] == () and forced.info()["denorm_preserve"] == (32,)

    a = _native_kernel(plain, prog, True)
    b = _native_kernel(forced, prog, True)
    raw = _native_kernel(forced, prog, False)  # the same words, not asked to keep
    assert a.stats["denorm_preserve"] == () and raw.stats["denorm_preserve"] == ()
    assert b.stats["denorm_preserve"] == (32,)
    # the disk key: the patched pipeline has its own file; the unpatched one
    # on the forced context is the plain context's pipeline
    assert b.stats["cache_path"] != a.stats["cache_path"]
    assert raw.stats["cache_path"] == a.stats["cache_path"]
    # the in-memory key: not a hit for the other choice, a hit for the same
    assert not raw.stats["memory_hit"]
    assert _native_kernel(forced, prog, True).stats["memory_hit"]
    assert forced.stats()["pipelines"] == 2

    # the patched module runs (lavapipe keeps subnormals either way)
    from vulpy import _native
    x = np.array([-100.0, -95.5, -88.0, 0.0, 1.0, -87.3], np.float32)
    xb = _native.ext().Buffer(forced, x.nbytes, "host")
    yb = _native.ext().Buffer(forced, x.nbytes, "host")
    xb.upload(x)
    b.dispatch([xb, yb], prog.packer.pack({}), len(x), 1, 1, False, True)
    y = np.zeros_like(x)
    yb.download(y)
    want = np.exp(x.astype(np.float64))
    assert y[0] > 0 and y[1] > 0  # subnormal results
    ulp = np.abs(y - want) / np.spacing(want.astype(np.float32)).astype(np.float64)
    assert ulp.max() <= 4, ulp


def test_widths_follow_the_module(tmp_path):
    """float64 is added only to modules that declare Float64 (the device's
    widths are independent, as lavapipe's and NVIDIA's are)."""
    _cpu()
    forced = _native_ctx(F16 | F32 | F64, tmp_path / "cache")
    p32 = _load(tmp_path, EXP32, "exp32").program()
    assert _native_kernel(forced, p32, True).stats["denorm_preserve"] == (32,)
    if "float64" not in vp.Context(kind="cpu").features:
        pytest.skip("no float64")
    p64 = _load(tmp_path, LOG64, "log64").program()
    assert _native_kernel(forced, p64, True).stats["denorm_preserve"] == (32, 64)


def test_the_layer_checks_the_mode(tmp_path):
    """Why auto is off on lavapipe: with validation on, the layer rejects
    DenormPreserve on a device that does not report it."""
    _cpu()
    prog = _load(tmp_path, EXP32, "exp32").program()
    forced = _native_ctx(F32, "", validation=1)
    _native_kernel(forced, prog, True)
    msgs = forced.take_validation()
    assert any("DenormPreserve" in m for m in msgs), msgs


def test_only_precise_kernels_ask(tmp_path, ctx):
    """@vp.kernel, vp.Shader, ufuncs and vp.jit ask for DenormPreserve with
    precise math; fast_math kernels and raw GLSL do not."""
    from vulpy import _engine
    assert _load(tmp_path, EXP32, "exp32").program().precise
    assert not _load(tmp_path, EXP32, "exp32f", fast_math=True).program().precise
    glsl = vp.kernel("""#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer B { float b[]; };
void main() { b[gl_GlobalInvocationID.x] = exp(b[gl_GlobalInvocationID.x]); }
""", buffers=1, push=[])
    assert not glsl._prog.precise
    shader = tmp_path / "s.vul.py"
    shader.write_text(EXP32)
    assert vp.Shader(str(shader))._prog.precise
    assert not vp.Shader(str(shader), fast_math=True)._prog.precise
    a = vp.asarray(np.linspace(-1, 1, 64, dtype=np.float32))
    vp.exp(a)
    assert vp.exp.last_program is not None and vp.exp.last_program.precise
    for fast in (False, True):
        vp.jit(lambda u: vp.exp(u) + 1, fast_math=fast)(a)
    # every compiled array function: precise unless compiled with fast_math
    # (the cache key's fourth part)
    seen = set()
    for key, c in list(_engine._cache.items()):
        for p in c.programs.values():
            assert p.precise is (not key[3]), key
            seen.add(p.precise)
    assert seen == {True, False}
