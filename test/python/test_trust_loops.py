"""Library kernels never depend on long per-invocation loops (issue 20).

Lavapipe ends every loop of an invocation silently after ~65,535
back-edges in all; before the tiled scans and reductions, vp.cumsum of
2^16 elements or more gave zeros past index 65,535, a boolean mask over
2^16 or more resident elements selected nothing, and a reduction over a
long non-trailing axis was cut short. Each case is compared with NumPy.
"""
import numpy as np
import pytest

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target

SIZES = [(1 << 16) + 1, 1 << 20, 1 << 24]


@pytest.mark.parametrize("n", SIZES)
def test_cumsum_long_int(n):
    h = (np.arange(n, dtype=np.int32) % 7) - 3
    a = vp.asarray(h)
    r = vp.cumsum(a).numpy()
    np.testing.assert_array_equal(r, np.cumsum(h, dtype=r.dtype))


@pytest.mark.parametrize("n", SIZES[:2])
def test_cumsum_long_float(n):
    h = np.random.default_rng(1).random(n, dtype=np.float32)
    r = vp.cumsum(vp.asarray(h)).numpy()
    np.testing.assert_allclose(r, np.cumsum(h, dtype=np.float64), rtol=1e-4)


def test_cumsum_axis0_long_lines():
    h = np.random.default_rng(2).integers(-5, 5, (70000, 3)).astype(np.int32)
    r = vp.cumsum(vp.asarray(h), axis=0).numpy()
    np.testing.assert_array_equal(r, np.cumsum(h, axis=0, dtype=r.dtype))


def test_cumsum_three_levels():
    # 2^21 + 5 elements: two levels of tile totals above the input
    n = (1 << 21) + 5
    h = np.ones(n, np.int32)
    r = vp.cumsum(vp.asarray(h)).numpy()
    np.testing.assert_array_equal(r, np.arange(1, n + 1))


def test_cumprod_long():
    n = (1 << 16) + 3
    h = np.ones(n, np.float32)
    h[::1000] = 1.0001
    r = vp.cumprod(vp.asarray(h)).numpy()
    np.testing.assert_allclose(r, np.cumprod(h.astype(np.float64)), rtol=1e-4)


@pytest.mark.parametrize("n", SIZES)
def test_mask_long(n):
    h = np.arange(n, dtype=np.int32)
    a = vp.asarray(h)
    m = (a % 3) == 0
    r = a[m].numpy()
    np.testing.assert_array_equal(r, h[h % 3 == 0])


def test_mask_host_mask_long():
    n = (1 << 16) + 1
    h = np.arange(n, dtype=np.float32)
    a = vp.asarray(h)
    r = a[h > 100].numpy()
    np.testing.assert_array_equal(r, h[h > 100])


@pytest.mark.parametrize("kind", ["sum", "max", "min", "argmax", "argmin", "mean", "any"])
def test_reduce_long_axis0(kind):
    rng = np.random.default_rng(3)
    h = rng.integers(-1000, 1000, (70000, 3)).astype(np.int32)
    h[68000, 1] = 5000
    h[65999, 2] = -5000
    r = getattr(vp, kind)(vp.asarray(h), axis=0)
    r = r.numpy() if hasattr(r, "numpy") else np.asarray(r)
    e = getattr(np, kind)(h, axis=0)
    if kind == "mean":
        np.testing.assert_allclose(r, e, rtol=1e-5)
    else:
        np.testing.assert_array_equal(r, e)


def test_reduce_long_trailing_axis():
    # a workgroup per output: rows of 2^24 + 2^10 elements looped 65,540
    # times per invocation. The rows are a broadcast sum inside vp.jit,
    # so no buffer exceeds lavapipe's 128 MiB binding range.
    n = (1 << 24) + 1024
    col = np.array([[0.0], [1.0]], np.float32)
    row = np.zeros((1, n), np.float32)
    row[0, -1] = 2.0
    row[0, 5] = 1.5

    @vp.jit
    def f(c, r):
        return vp.argmax(c + r, axis=1), vp.sum(c + r, axis=1)

    am, s = f(vp.asarray(col), vp.asarray(row))
    np.testing.assert_array_equal(am.numpy(), [n - 1, n - 1])
    np.testing.assert_allclose(s.numpy(), [3.5, 3.5 + n], rtol=1e-6)


def test_limits_max_loop_iterations():
    ctx = vp.default_context() if hasattr(vp, "default_context") else vp.Context()
    lim = ctx.limits
    assert lim["max_storage_buffer_range"] > 0
    if "llvmpipe" in ctx.name.lower():
        assert lim["max_loop_iterations"] == 65535
    else:
        assert lim["max_loop_iterations"] is None


LONG_LOOP = '''
import vulpy as vp

def long_loop(x: vp.Buffer[vp.float32]):
    i = vp.global_id()
    s = 0.0
    for k in range(300):
        for j in range(300):
            s += 1.0
    x[i] = s
'''


def test_user_kernel_over_the_loop_limit_warns(tmp_path):
    from vulpy import _compiler
    out = _compiler.compile_source(LONG_LOOP, "long_loop.py", "long_loop", local_size=(64, 1, 1))
    assert int(out["loop_backedges"]) == 300 * 301
    ctx = vp.default_context()
    from vulpy import _launch
    prog = _launch.Program(out, "long_loop")
    if ctx.limits["max_loop_iterations"] is None:
        prog.native(ctx)
        return
    with pytest.warns(RuntimeWarning, match="ends loops silently"):
        prog.native(ctx)
    short = _compiler.compile_source(LONG_LOOP.replace("range(300)", "range(30)"),
                                     "short_loop.py", "long_loop", local_size=(64, 1, 1))
    assert int(short["loop_backedges"]) == 30 * 31
