"""Eager ufuncs on the array path with a dynamic extent (issue 14, "One
array path"): `a + b`, `vp.sin(x)`, `out=` compile array VIR whose arrays
are tensor<?xT> (the element count a push constant), so one compile serves
every size; the compile is vtg_compile_array, which `vulpy-translate
--arrays` repeats from the printed array VIR; results match NumPy at sizes
around the vec4 tail and the 2-D grid."""
import numpy as np
import pytest

import vulpy as vp
from conftest import needs_target
from test_translate_arrays import TRANSLATE, _flags, _translate

pytestmark = [needs_target, pytest.mark.skipif(not TRANSLATE.exists(),
                                               reason="vulpy-translate is not built")]

SIZES = (1, 3, 4, 6, 7, 263, 1031, 4099)


@pytest.mark.parametrize("dt", [np.float32, np.int32, np.uint32, np.float64])
def test_one_compile_serves_every_size(ctx, dt, monkeypatch):
    from vulpy import _engine
    texts = []
    real = _engine.compile

    def spy(text, c, label="vp.jit", **kw):
        texts.append((label, text))
        return real(text, c, label, **kw)

    monkeypatch.setattr(_engine, "compile", spy)
    if dt == np.float64 and not ctx.has("float64"):
        pytest.skip("no float64")
    for n in SIZES:
        rng = np.random.default_rng(n)
        ha = (rng.random(n) * 100).astype(dt)
        hb = (rng.random(n) * 100 + 1).astype(dt)
        a, b = vp.asarray(ha), vp.asarray(hb)
        np.testing.assert_array_equal((a + b).numpy(), ha + hb)
        np.testing.assert_array_equal((a * 3).numpy(), ha * dt(3))
        out = vp.empty(n, dtype=dt)
        vp.subtract(a, b, out=out)
        np.testing.assert_array_equal(out.numpy(), ha - hb)
    # a new size plans again (a dictionary lookup of the same text), but
    # every size has the one array function of dynamic extent
    for name in ("vp.add", "vp.multiply", "vp.subtract"):
        got = {t for label, t in texts if label == name}
        assert len(got) == 1, (name, got)
        assert "tensor<?x" in next(iter(got)) and "push @pc { n: u32" in next(iter(got))


def test_vec4_for_32_bit(ctx):
    """32-bit buffers are read and written as vec4s (H200 bandwidth)."""
    vp.sin(vp.asarray(np.arange(10, dtype=np.float32)))
    assert "vec4 " in vp.sin.glsl or "vec4[]" in vp.sin.glsl, vp.sin.glsl
    vp.add(vp.asarray(np.arange(10, dtype=np.int32)), 1)
    assert "ivec4" in vp.add.glsl


def test_numpy_semantics(ctx):
    """NaN-propagating min/max, integer division and remainder by zero, integer
    power: the array path's (one) definition, at several sizes."""
    for n in (5, 1001):
        rng = np.random.default_rng(n)
        f = rng.standard_normal(n).astype(np.float32)
        f[::7] = np.nan
        g = rng.standard_normal(n).astype(np.float32)
        np.testing.assert_array_equal(vp.maximum(vp.asarray(f), vp.asarray(g)).numpy(),
                                      np.maximum(f, g))
        np.testing.assert_array_equal(vp.minimum(vp.asarray(g), vp.asarray(f)).numpy(),
                                      np.minimum(g, f))
        i = rng.integers(-50, 50, n).astype(np.int32)
        j = rng.integers(-3, 4, n).astype(np.int32)
        with np.errstate(divide="ignore"):
            np.testing.assert_array_equal((vp.asarray(i) // vp.asarray(j)).numpy(), i // j)
            np.testing.assert_array_equal((vp.asarray(i) % vp.asarray(j)).numpy(), i % j)
        e = rng.integers(0, 5, n).astype(np.int32)
        np.testing.assert_array_equal(vp.power(vp.asarray(i), vp.asarray(e)).numpy(), i ** e)
        # unsigned: the divisor `d == 0 ? 1 : d` is plain C division
        # (CFamily's nonzero_unsigned), the result 0 where d is 0 (NumPy)
        u = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
        d = rng.integers(0, 4, n).astype(np.uint32)
        with np.errstate(divide="ignore"):
            np.testing.assert_array_equal((vp.asarray(u) // vp.asarray(d)).numpy(), u // d)
            np.testing.assert_array_equal((vp.asarray(u) % vp.asarray(d)).numpy(), u % d)
            np.testing.assert_array_equal((vp.asarray(u) // 0).numpy(), u // np.uint32(0))


def test_convenience_mode(ctx):
    for n in (7, 2048):
        x = np.linspace(-3, 3, n, dtype=np.float32)
        np.testing.assert_allclose(vp.exp(x), np.exp(x), rtol=1e-6)
        np.testing.assert_array_equal(vp.greater(x, 0.5), x > 0.5)


def test_compile_repeats_from_command_line(ctx):
    a = vp.asarray(np.linspace(-1, 1, 100, dtype=np.float32))
    b = vp.asarray(np.linspace(1, 2, 100, dtype=np.float32))
    for uf, args in ((vp.add, (a, b)), (vp.sin, (a,)), (vp.multiply, (a, 0.5)),
                     (vp.maximum, (a, b)), (vp.less, (a, b))):
        uf(*args)
        comp = uf.last_compiled
        assert _translate(comp.array_vir, *_flags(ctx)) == uf.glsl == comp.glsl


def test_array_compiles_persist_on_disk(ctx):
    """Array compiles go to the kernel cache's disk folder: a new process
    (here: emptied memory caches) loads them instead of compiling."""
    from vulpy import _compiler, _engine
    if not _compiler.cache_dir():
        pytest.skip("no disk cache")
    a = vp.asarray(np.arange(8, dtype=np.float32))
    vp.arctan(a)
    before = vp.arctan.last_compiled
    _engine._cache.clear()
    _compiler._memory.clear()
    hits = _compiler.stats["fast_disk_hits"]
    a = vp.asarray(np.arange(9, dtype=np.float32))  # a new shape: planned again
    r = vp.arctan(a).numpy()
    assert _compiler.stats["fast_disk_hits"] == hits + 1
    after = vp.arctan.last_compiled
    assert after is not before and after.glsl == before.glsl
    assert after.launches == before.launches and after.grids == before.grids
    assert after.grid(0, 9) == before.grid(0, 9) == (1, 1, 1)
    np.testing.assert_allclose(r, np.arctan(np.arange(9, dtype=np.float32)), rtol=1e-6)
