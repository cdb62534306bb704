"""Devices and contexts: vp.list_devices, vp.Context selection, errors."""
import os
import subprocess
import sys

import pytest

import vulpy as vp
from conftest import ROOT, needs_ext

pytestmark = needs_ext


def test_list_devices_describes_each_device():
    devs = vp.list_devices()
    assert devs, "lavapipe at least"
    for d in devs:
        assert d["kind"] in ("dgpu", "igpu", "cpu", "virtual", "other")
        assert isinstance(d["name"], str) and d["name"]
        assert {"index", "vendor", "memory", "features", "limits", "uma"} <= set(d)
        assert all(isinstance(f, str) for f in d["features"])
        assert d["memory"]["heaps"] and d["memory"]["types"]


def test_default_context_is_lazy_and_shared(ctx):
    assert vp.default_context() is ctx
    assert isinstance(ctx.name, str)
    assert ctx.kind in ("dgpu", "igpu", "cpu", "virtual", "other")
    assert "float32" not in ctx.features  # features are the optional ones
    assert repr(ctx).startswith("<vp.Context")


def test_context_by_index_and_kind():
    devs = vp.list_devices()
    c = vp.Context(device_index=0)
    assert c.index == 0 and c.name == devs[0]["name"]
    c2 = vp.Context(kind=devs[0]["kind"])
    assert c2.kind == devs[0]["kind"]
    any_ctx = vp.Context(kind="any")
    assert any_ctx.name


def test_missing_device_index_is_a_clear_error():
    n = len(vp.list_devices())
    with pytest.raises(vp.VulkanError) as e:
        vp.Context(device_index=n + 3)
    assert str(n + 3) in str(e.value)


def test_missing_kind_is_a_clear_error():
    kinds = {d["kind"] for d in vp.list_devices()}
    missing = next(k for k in ("dgpu", "igpu", "cpu", "virtual") if k not in kinds)
    with pytest.raises(vp.VulkanError) as e:
        vp.Context(kind=missing)
    assert missing in str(e.value)


def test_bad_selectors_name_the_argument():
    with pytest.raises(ValueError, match="kind must be one of"):
        vp.Context(kind="gpu")
    with pytest.raises(TypeError, match="device_index"):
        vp.Context(device_index="0")
    with pytest.raises(ValueError, match="at most one"):
        vp.Context(device_index=0, kind="cpu")


def test_vulpy_device_environment_variable():
    """VULPY_DEVICE picks the default context's device (a fresh process)."""
    name = vp.list_devices()[0]["name"]
    code = "import vulpy as vp; print(vp.default_context().name)"
    env = dict(os.environ, VULPY_DEVICE="0", PYTHONPATH=str(ROOT / "bindings" / "python"))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == name
    env["VULPY_DEVICE"] = "no-such-device-xyz"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode != 0
    assert "no-such-device-xyz" in out.stderr


def test_require_names_the_missing_feature(ctx):
    with pytest.raises(vp.FeatureError, match="no_such_feature"):
        ctx.require("no_such_feature", "this test")


def test_default_memory_is_a_kind(ctx):
    assert ctx.default_memory in vp.MEMORY_KINDS
    if ctx.uma:
        assert ctx.default_memory == "device"
