"""VULPY_REDUCE_GROUPS: the cap on a full reduction's workgroups. It
changes the lowered kernel's group count (vp.jit and the vp.sum plan
both recompile when it changes), a bad value is a ValueError naming the
variable, and the sums stay right against NumPy at every cap and size
(sizes that are not multiples of the 64 x 256 tile included)."""
import numpy as np
import pytest

import vulpy as vp
from vulpy import _engine
from conftest import needs_target

pytestmark = needs_target

ENV = "VULPY_REDUCE_GROUPS"


def _groups(f):
    """The X group count of the (single) launch of vp.jit function f's last call."""
    (launch,) = f._last.compiled.launches
    return launch[1]


def test_cap_changes_the_group_count(ctx, monkeypatch):
    n = 1 << 22  # wants 256 groups of 64 x 256 elements
    x = vp.asarray(np.ones(n, np.float32))
    s = vp.empty((), np.float32)
    f = vp.jit(lambda v: vp.sum(v))
    seen = {}
    for cap in (64, 128, 256, 1024):
        monkeypatch.setenv(ENV, str(cap))
        f(x, out=s)
        assert float(s.numpy()) == n
        seen[cap] = _groups(f)
        assert f"const {seen[cap]} : u32" in f._last.compiled.lowered_vir
        assert f"_part : f32[{seen[cap]}]" in f._last.compiled.lowered_vir
    assert seen == {64: 64, 128: 128, 256: 256, 1024: 256}
    monkeypatch.delenv(ENV)
    f(x, out=s)
    assert _groups(f) == 256  # under both defaults (4096, 1024 on a CPU)


def test_glsl_shows_the_grid(ctx, monkeypatch):
    n = 1 << 22
    x = vp.asarray(np.ones(n, np.float32))
    s = vp.empty((), np.float32)
    f = vp.jit(lambda v: vp.sum(v))
    monkeypatch.setenv(ENV, "64")
    f(x, out=s)
    glsl = f._last.compiled.glsl
    assert "< 64u" in glsl  # the last workgroup reads the 64 partials
    assert float(s.numpy()) == n


def test_sum_plan_recompiles(ctx, monkeypatch):
    x = vp.asarray(np.arange(1 << 21, dtype=np.float32) % 7)
    want = float((np.arange(1 << 21) % 7).sum())
    caps = []
    for cap in (64, 128, 64):
        monkeypatch.setenv(ENV, str(cap))
        for _ in range(2):  # the second call runs the kept plan
            assert float(vp.sum(x)) == want
        plans = ctx.__dict__["_vp_reduce_plans"]
        # the plan of every length (a dynamic extent): its grid for x's
        key = next(k for k in plans if k[0] == "sum" and k[1] == x.dtype and k[-1] == cap)
        caps.append(plans[key][0].grid(0, x.size)[0])
    assert caps == [64, 128, 64]


@pytest.mark.parametrize("bad", ["100", "32", "65536", "0", "-64", "abc", "1e3"])
def test_bad_value_names_the_variable(ctx, monkeypatch, bad):
    monkeypatch.setenv(ENV, bad)
    with pytest.raises(ValueError, match=f"{ENV}=.*power of two from 64 to 32768"):
        vp.sum(np.ones(10, np.float32))
    x = vp.asarray(np.ones(10, np.float32))
    with pytest.raises(ValueError, match=ENV):
        vp.jit(lambda v: vp.sum(v))(x)


def test_empty_value_is_the_default(monkeypatch):
    monkeypatch.setenv(ENV, "")
    assert _engine.reduce_groups() == 0
    monkeypatch.setenv(ENV, "4096")
    assert _engine.reduce_groups() == 4096


def test_native_rejects_a_bad_cap(ctx):
    with pytest.raises(ValueError, match="reduce_groups"):
        vp._native.ext().jit_compile("", reduce_groups=100)


@pytest.mark.parametrize("cap", [64, 256, 2048, 32768])
def test_sums_match_numpy(ctx, monkeypatch, cap):
    monkeypatch.setenv(ENV, str(cap))
    rng = np.random.default_rng(cap)
    for n in (1, 3, 1000, 16385, 65536 * 4 + 5, 3_000_001, (1 << 22) + 7):
        h = rng.standard_normal(n).astype(np.float32)
        np.testing.assert_allclose(vp.sum(h), h.sum(dtype=np.float64), rtol=2e-5, atol=1e-3)
        np.testing.assert_allclose(float(vp.sum(vp.asarray(h))), h.sum(dtype=np.float64),
                                   rtol=2e-5, atol=1e-3)
        if n in (16385, 3_000_001):
            assert vp.argmax(h) == np.argmax(h) and vp.argmin(h) == np.argmin(h)
            i = rng.integers(-5, 5, n).astype(np.int32)
            assert int(vp.sum(i)) == int(i.sum())
