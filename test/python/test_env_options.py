"""Issue 14: the runtime reads no environment; the VULPY_* variables reach
it as context options, parsed once in C (lib/RuntimeEnv) for the extension,
the tools and the tests alike.

Each variable is set in this process (the extension reads the environment
when a Context is made) and its effect checked on the context: the device,
the wait, the copy threads, fma, the pipeline cache folder; an explicit
argument wins; a bad value raises VulkanError naming the variable; the
Python layer's own uses (vp.Context's docstring, _context.env_options) see
the same reading. The runtime library itself is checked for getenv by
ctest (runtime.no_getenv).
"""
import os
import subprocess
import sys

import numpy as np
import pytest

import vulpy as vp
from conftest import ROOT, needs_ext
from vulpy import _context

pytestmark = needs_ext

VARS = ("VULPY_DEVICE", "VULPY_WAIT", "VULPY_SPIN_US", "VULPY_COPY_THREADS", "VULPY_FMA",
        "VULPY_DENORM", "VULPY_PREWARM", "VULPY_STREAM_QUEUES", "VULPY_EXPORT_SEMAPHORES",
        "VULPY_CACHE_DIR", "VULPY_VULKAN_LIBRARY", "VULPY_STAGING_SLOTS", "VULPY_STAGING_MIB",
        "VULPY_UPLOAD_IMPORT_MIB")


@pytest.fixture
def env(monkeypatch):
    for v in VARS:
        monkeypatch.delenv(v, raising=False)
    return monkeypatch


def test_env_options_reads_every_variable(env):
    base = _context.env_options()
    assert base["device"] is None and base["wait"] == "default" and base["prewarm"] is True
    env.setenv("VULPY_DEVICE", "cpu")
    env.setenv("VULPY_WAIT", "spin")
    env.setenv("VULPY_SPIN_US", "250")
    env.setenv("VULPY_COPY_THREADS", "3")
    env.setenv("VULPY_FMA", "fused")
    env.setenv("VULPY_DENORM", "emulate")
    env.setenv("VULPY_PREWARM", "0")
    env.setenv("VULPY_STREAM_QUEUES", "0")
    env.setenv("VULPY_EXPORT_SEMAPHORES", "0")
    env.setenv("VULPY_CACHE_DIR", "/somewhere")
    env.setenv("VULPY_STAGING_SLOTS", "8")
    env.setenv("VULPY_STAGING_MIB", "16")
    assert base["upload_import_mib"] == 0
    env.setenv("VULPY_UPLOAD_IMPORT_MIB", "32")
    o = _context.env_options()
    assert (o["staging_slots"], o["staging_mib"]) == (8, 16)
    assert o["upload_import_mib"] == 32
    assert o["device"] == "cpu" and _context.env_device() == "cpu"
    assert (o["wait"], o["spin_us"], o["copy_threads"]) == ("spin", 250, 3)
    assert (o["fma"], o["denorm"]) == ("fused", "emulate")
    assert o["prewarm"] is False and o["stream_queues"] is False
    assert o["export_semaphores"] is False and o["cache_dir"] == "/somewhere"


@pytest.mark.parametrize("var,value,text", [
    ("VULPY_WAIT", "fast", "VULPY_WAIT='fast' is not one of default, spin-block, block, spin"),
    ("VULPY_SPIN_US", "ten", "VULPY_SPIN_US='ten' is not a whole number"),
    ("VULPY_COPY_THREADS", "0", "VULPY_COPY_THREADS='0' is not a whole number of at least 1"),
    ("VULPY_DENORM", "keep", "VULPY_DENORM='keep' is not one of preserve, emulate, default, auto"),
    ("VULPY_STREAM_QUEUES", "none", "VULPY_STREAM_QUEUES='none' is not one of 0, 1"),
    ("VULPY_UPLOAD_IMPORT_MIB", "5000", "VULPY_UPLOAD_IMPORT_MIB='5000' is more than 4096"),
])
def test_bad_values_name_the_variable(env, var, value, text):
    env.setenv(var, value)
    with pytest.raises(vp.VulkanError, match=text.replace("(", r"\(")):
        vp.Context()
    with pytest.raises(vp.VulkanError, match=var):
        _context.env_options()


def test_the_options_reach_the_context(env):
    env.setenv("VULPY_WAIT", "spin")
    env.setenv("VULPY_COPY_THREADS", "3")
    c = vp.Context()
    assert c.wait == "spin" and c.copy_threads == 3
    # the other fma path than the device's own
    fused = vp.Context().fma_fused
    env.setenv("VULPY_FMA", "unfused" if fused else "fused")
    assert vp.Context().fma_fused is (not fused)
    # an explicit argument wins over the variable
    assert vp.Context(wait="block", copy_threads=2).wait == "block"
    assert vp.Context(wait="block", copy_threads=2).copy_threads == 2
    x = vp.asarray(np.arange(8, dtype=np.float32), context=c)
    np.testing.assert_array_equal((x + x).numpy(), np.arange(8, dtype=np.float32) * 2)


def test_device_selector(env):
    devs = vp.list_devices()
    env.setenv("VULPY_DEVICE", str(len(devs) - 1))
    assert vp.Context().name == devs[-1]["name"]
    env.setenv("VULPY_DEVICE", "no-such-device-env")
    with pytest.raises(vp.VulkanError) as e:
        vp.Context()
    assert "no Vulkan device matches 'no-such-device-env'" in str(e.value)
    assert "options from the environment: VULPY_DEVICE=no-such-device-env" in str(e.value)
    assert vp.Context(device_index=0).name == devs[0]["name"]  # an argument wins


def test_pipeline_cache_folder(env, tmp_path):
    """VULPY_CACHE_DIR places the runtime's pipeline cache (pipelines/...)."""
    env.setenv("VULPY_CACHE_DIR", str(tmp_path))
    c = vp.Context()
    x = vp.asarray(np.arange(16, dtype=np.float32), context=c)
    np.testing.assert_allclose(vp.sin(x).numpy(), np.sin(np.arange(16, dtype=np.float32)),
                               rtol=1e-6)
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any("pipelines" in p.parts for p in files), files
    # cache_dir="" (an argument): no disk cache, whatever the variable says
    before = len(files)
    c2 = vp.Context(cache_dir="")
    y = vp.asarray(np.arange(16, dtype=np.float32) + 1, context=c2)
    vp.cos(y).numpy()
    assert len([p for p in tmp_path.rglob("*") if p.is_file() and "pipelines" in p.parts]) == \
        len([p for p in files if "pipelines" in p.parts])
    assert before == len(files)


def test_vulkan_library_in_a_fresh_process():
    """VULPY_VULKAN_LIBRARY reaches the loader (the first open is the
    process's): a missing file is the clear "no loader" error."""
    code = "import vulpy as vp\ntry:\n    vp.list_devices()\nexcept vp.VulkanError as e:\n" \
           "    print(e)\n"
    env = dict(os.environ, VULPY_VULKAN_LIBRARY="/nonexistent/libvulkan.so.1",
               PYTHONPATH=os.path.dirname(os.path.dirname(vp.__file__)))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120)
    assert "cannot load the Vulkan loader (/nonexistent/libvulkan.so.1)" in out.stdout, out


def test_kernel_cache_folder_is_the_runtime_reading(env):
    """The Python kernel cache sits in the folder the runtime's reading of
    VULPY_CACHE_DIR / XDG_CACHE_HOME / HOME gives (lib/RuntimeEnv through
    env_options): one reading, both caches side by side."""
    from vulpy import _compiler
    env.delenv("VULPY_NO_DISK_CACHE", raising=False)
    env.setenv("VULPY_CACHE_DIR", "/somewhere/else")
    assert _compiler.cache_dir() == os.path.join("/somewhere/else", "kernels")
    assert _context.env_options()["cache_dir"] == "/somewhere/else"
    env.delenv("VULPY_CACHE_DIR")
    env.setenv("XDG_CACHE_HOME", "/xdg")
    assert _compiler.cache_dir() == "/xdg/vulpy/kernels"
    env.delenv("XDG_CACHE_HOME")
    env.setenv("HOME", "/home/u")
    assert _compiler.cache_dir() == "/home/u/.cache/vulpy/kernels"
    env.setenv("VULPY_NO_DISK_CACHE", "1")
    assert _compiler.cache_dir() is None
