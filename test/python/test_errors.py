"""Failures that are not the caller's: a lost device, a missing extension,
bad input to the C layer. None may crash the interpreter."""
import os
import subprocess
import sys

import numpy as np
import pytest

import vulpy as vp
from conftest import ROOT, needs_ext

pytestmark = needs_ext


def test_device_lost_raises_and_later_calls_fail_cleanly():
    ctx = vp.Context()
    a = vp.asarray(np.arange(16, dtype=np.float32), context=ctx)
    ctx._native.inject_fault("vkQueueSubmit", -4)  # VK_ERROR_DEVICE_LOST
    with pytest.raises(vp.DeviceLostError) as e:
        a.fill(1.0)
        vp.zeros(4, context=ctx).buffer.fill(0)
    assert ctx.lost
    assert ctx.name in str(e.value) or "lost" in str(e.value).lower()
    with pytest.raises(vp.DeviceLostError):
        a.fill(2.0)
    with pytest.raises(vp.VulkanError):
        ctx.synchronize()


def test_out_of_memory_is_an_exception(ctx):
    with pytest.raises((vp.VulkanError, MemoryError)):
        vp.empty(1 << 46, np.uint8 if False else np.float32, context=ctx)


def test_import_without_extension_still_dumps_ast(tmp_path):
    """python -m vulpy dump-ast needs no C extension."""
    pkg = tmp_path / "vulpy"
    pkg.mkdir()
    src = ROOT / "bindings" / "python" / "vulpy"
    for f in src.glob("*.py"):
        (pkg / f.name).write_text(f.read_text())
    kernel = tmp_path / "k.vul.py"
    kernel.write_text("def main():\n    pass\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    env.pop("VULPY_EXTENSION", None)  # make test-sanitize names its extension there
    out = subprocess.run([sys.executable, "-m", "vulpy", "dump-ast", str(kernel)], env=env,
                         capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert '"_vulpy_ast":1' in out.stdout  # the compact dump
    code = "import vulpy as vp\ntry:\n    vp.zeros(3)\nexcept vp.ExtensionMissingError as e:\n" \
           "    print('missing:', 'make build' in str(e))\n"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         cwd=tmp_path)
    assert out.stdout.strip() == "missing: True", out.stderr


def test_c_layer_checks_its_arguments(ctx):
    ext = vp._native.ext()
    b = ext.Buffer(ctx._native, 64, "host")
    with pytest.raises(ValueError, match="does not fit"):
        b.upload(np.zeros(100, np.float32))
    with pytest.raises(ValueError, match="memory must be one of"):
        ext.Buffer(ctx._native, 64, "vram")
    with pytest.raises(TypeError, match="Context"):
        ext.Buffer("not a context", 64)
    with pytest.raises(ValueError):
        ext.manifest_parse("vulpy_manifest: [unclosed")
