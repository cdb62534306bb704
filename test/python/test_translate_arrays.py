"""One array-function compile (issue 14, "One array path"): vp.jit and the
eager array API hand their array VIR to vtg_compile_array (lib/Target/
array.c), the call `vulpy-translate --arrays` makes, so the command line
repeats any of their compiles: the GLSL it prints for a function's
.array_vir is the function's .glsl, text for text."""
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import vulpy as vp
from conftest import needs_target

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("VULPY_BUILD", ROOT / "build"))
TRANSLATE = BUILD / "bin" / "vulpy-translate"

pytestmark = [needs_target, pytest.mark.skipif(not TRANSLATE.exists(),
                                               reason="vulpy-translate is not built")]


def _translate(text, *flags, to="glsl"):
    r = subprocess.run([str(TRANSLATE), "--from=vir", "--arrays", f"--to={to}", *flags, "-"],
                       input=text, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def _flags(ctx, fuse=True, fast_math=False):
    f = []
    if ctx.kind == "cpu":
        f.append("--cpu-device")
    if not fuse:
        f.append("--no-fuse")
    if fast_math:
        f.append("--fast-math")
    return f


CASES = [
    ("sin+exp", lambda a, b: vp.sin(a) + vp.exp(a), {}),
    ("where", lambda a, b: vp.where(a > b, vp.sin(a), vp.cos(b)), {}),
    ("sum", lambda a, b: (a * b).sum(), {}),
    ("unfused", lambda a, b: vp.sqrt(a * a + b * b), {"fuse": False}),
    ("fast", lambda a, b: vp.exp(a) - b, {"fast_math": True}),
    ("minimum+floordiv", lambda a, b: vp.minimum(a, b) // 3.0, {}),
]


@pytest.mark.parametrize("name,fn,opts", CASES, ids=[c[0] for c in CASES])
def test_jit_compile_repeats_from_command_line(ctx, name, fn, opts):
    a = vp.asarray(np.linspace(-1, 1, 1000, dtype=np.float32))
    b = vp.asarray(np.linspace(1, 2, 1000, dtype=np.float32))
    f = vp.jit(fn, **opts)
    f(a, b)
    assert f.array_vir.startswith("module ") and "array @" in f.array_vir
    assert _translate(f.array_vir, *_flags(ctx, **opts)) == f.glsl
    # the lowered module too
    lowered = _translate(f.array_vir, *_flags(ctx, **opts), to="vir")
    assert "array.launch @" in lowered and lowered.count("kernel @") == len(
        {n for n, *_ in f._last.compiled.launches})


def test_eager_array_path_repeats_from_command_line(ctx):
    """An eager ufunc on a strided view runs on the array path: its compile
    is the same call."""
    x = vp.asarray(np.arange(64, dtype=np.float32))
    r = vp.sin(x[::2])
    np.testing.assert_allclose(r.numpy(), np.sin(np.arange(0, 64, 2, dtype=np.float32)),
                               rtol=1e-6, atol=1e-6)
    # the ufunc's last array-path compile (not a search of the engine's
    # cache: a plan an earlier test made serves the call without touching
    # it, and later compiles may have evicted its entry)
    comp = vp.sin.last_compiled
    assert comp is not None and comp.label == "vp.sin"
    assert _translate(comp.array_vir, *_flags(ctx)) == comp.glsl


def test_bad_reduce_groups_is_an_error_of_the_pass():
    """lower-arrays checks reduce_groups itself: every caller gets the same
    answer (vulpy-translate names its flag first)."""
    text = ("buffer @x : f32[1024] binding(0, 0) readonly\n"
            "buffer @s : f32[1] binding(0, 1) writeonly\n"
            "array @f {\n  %x = array.load @x : tensor<1024xf32>\n"
            "  %s = array.sum %x axes(0) : tensor<f32>\n  array.store @s, %s\n}\n")
    r = subprocess.run([str(TRANSLATE), "--from=vir", "--arrays", "--to=glsl",
                        "--reduce-groups=100", "-"], input=text, capture_output=True, text=True)
    assert r.returncode == 2 and "--reduce-groups must be a power of two" in r.stderr
    from vulpy import _native
    with pytest.raises(ValueError, match="reduce_groups must be 0 or a power of two"):
        _native.ext().jit_compile(text, "t", reduce_groups=100)
    assert "glsl" in _native.ext().jit_compile(text, "t", reduce_groups=128)["kernels"]["f_k0"]
