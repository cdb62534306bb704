"""Lavapipe's loop budget in user kernels: an error, not a wrong answer.

Lavapipe ends every loop of an invocation silently after 65,535 back-edges
in all (ctx.limits['max_loop_iterations']); after that every loop runs
once. A @vp.kernel whose loop count is a runtime value gets the loop-canary
pass there (lib/Transforms/loop_canary.c): a cut loop raises vp.KernelError
naming the kernel's file:line. Kernels with short constant loops only are
compiled as before (no hidden record).
"""
import time

import numpy as np
import pytest

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target


@pytest.fixture(scope="module")
def lavapipe():
    ctx = vp.default_context()
    if ctx.limits.get("max_loop_iterations") is None:
        pytest.skip("the device does not cut long loops")
    return ctx


@vp.kernel
def loop_sum(a: vp.Buffer[vp.float32], out: vp.Buffer[vp.float32], n: vp.int32):
    acc = 0.0
    for j in range(n):
        acc += a[j]
    out[vp.global_id()] = acc


LINE = loop_sum.fn.__code__.co_firstlineno + 1  # the def line, after the decorator


@vp.kernel
def short_loops(a: vp.Buffer[vp.float32], out: vp.Buffer[vp.float32]):
    acc = 0.0
    for j in range(16):
        acc += a[j]
    out[vp.global_id()] = acc


def test_runtime_loop_past_budget_raises(lavapipe):
    """Bug: a kernel summing 70000 ones with `for j in range(n)` (n a push
    constant) returned 65535 on lavapipe with no error; NumPy's answer is
    70000. Now vp.KernelError names the loop budget and the kernel."""
    a = np.ones(70000, np.float32)
    out = np.zeros(2, np.float32)
    with pytest.raises(vp.KernelError, match="ended this kernel's loops early") as e:
        loop_sum(a, out, n=70000, dispatch=2)
    assert f"{__file__}:{LINE}:" in str(e.value)
    assert "max_loop_iterations" in str(e.value)
    assert e.value.kind == "loop budget" and e.value.line == LINE
    # a resident array: the same (no fast path around the check)
    with pytest.raises(vp.KernelError, match="loops early"):
        loop_sum(vp.asarray(a), vp.zeros(2, vp.float32), n=70000, dispatch=2)


def test_runtime_loop_within_budget(lavapipe):
    a = np.ones(70000, np.float32)
    out = np.zeros(2, np.float32)
    loop_sum(a, out, n=1000, dispatch=2)
    np.testing.assert_array_equal(out, [1000, 1000])
    r = vp.zeros(2, vp.float32)
    for _ in range(2):  # later calls (the fast path's turn) too
        loop_sum(vp.asarray(a), r, n=1000, dispatch=2)
    np.testing.assert_array_equal(r.numpy(), [1000, 1000])
    assert any(b["name"] == "_vp_assert" for b in loop_sum.loop_program().buffers)


def test_sync_false_raises_at_wait(lavapipe):
    a = np.ones(70000, np.float32)
    h = loop_sum(a, np.zeros(2, np.float32), n=70000, dispatch=2, sync=False)
    with pytest.raises(vp.KernelError, match="loops early"):
        h.wait()


@vp.kernel(local_size_x=64)
def spin(x: vp.Buffer[vp.float32], n: vp.uint32):
    s = x[vp.global_id()]
    for k in range(n):
        s = s * 0.999 + 1.0
    x[vp.global_id()] = s


def test_sync_false_wait_timeout_sees_the_gpu(lavapipe):
    """Bug (CI, 2026-12-04): the Handle of a canary-checked call had no
    ticket, so wait(timeout=0.05) blocked until the kernel ended and .done
    was True while the GPU still ran. Here 2^16 invocations of 60000 steps
    (about 1 s on a 2-core lavapipe) under a 10 ms wait."""
    x = vp.zeros(1 << 16, vp.float32)
    spin(x, n=10, dispatch=1 << 16)  # compiled and warm
    h = spin(x, n=60000, dispatch=1 << 16, sync=False)
    assert not h.done
    t0 = time.perf_counter()
    with pytest.raises(vp.TimeoutError):
        h.wait(timeout=0.01)
    assert time.perf_counter() - t0 < 0.3
    h.wait()
    assert h.done
    assert float(x.numpy()[0]) > 900  # s -> 1000 (the fixed point of s*0.999+1)


def test_short_constant_loops_unchanged(lavapipe):
    prog = short_loops.loop_program()
    assert [b["name"] for b in prog.buffers] == ["a", "out"]
    out = np.zeros(4, np.float32)
    short_loops(np.ones(16, np.float32), out, dispatch=4)
    np.testing.assert_array_equal(out, 16)


def test_debug_mode_checks_loops_too(lavapipe):
    k = vp.kernel(debug=True)(loop_sum.fn)
    with pytest.raises(vp.KernelError, match="loops early"):
        k(np.ones(70000, np.float32), np.zeros(2, np.float32), n=70000, dispatch=2)
    out = np.zeros(2, np.float32)
    k(np.ones(70000, np.float32), out, n=500, dispatch=2)
    np.testing.assert_array_equal(out, 500)


def test_compiled_file_raises(lavapipe, tmp_path):
    """Bug: vp.compile of a .vul.py kernel with `for j in range(n)` summed
    65535 of 70000 ones on lavapipe with no error; NumPy's answer is 70000."""
    src = tmp_path / "loops.vul.py"
    src.write_text(
        "import vulpy as vp\n"
        "\n"
        "def main(a: vp.Buffer[vp.float32], out: vp.Buffer[vp.float32], n: vp.int32):\n"
        "    acc = 0.0\n"
        "    for j in range(n):\n"
        "        acc += a[j]\n"
        "    out[vp.global_id()] = acc\n")
    sh = vp.compile(str(src))
    assert sh.buffer_names == ["a", "out"]
    sh.allocate(out=2)
    sh.upload("a", np.ones(70000, np.float32))
    sh.run(dispatch=2, n=1000)
    np.testing.assert_array_equal(sh.download("out"), 1000)
    with pytest.raises(vp.KernelError, match="loops early") as e:
        sh.run(dispatch=2, n=70000)
    assert str(e.value).startswith(f"{src}:3:1: error:")


@vp.kernel
def row_sums(a: vp.Buffer[vp.float32, 2], o: vp.Buffer[vp.float32], n: vp.int32):
    i = vp.global_id(0)
    h, w = a.shape
    if i < h:
        acc = 0.0
        for j in range(n):
            acc += a[i, j]
        o[i] = acc


@pytest.mark.parametrize("debug", [False, True])
def test_nd_views_keep_their_layout(lavapipe, debug):
    """Bug: debug mode bound an N-d buffer's view as a plain buffer (not the
    whole buffer its push-block offset and strides describe): a strided
    view raised ValueError ("not contiguous"), an offset view x[2:] raised a
    false KernelError "index 32 is out of bounds (length 32)". NumPy's
    answer: the views' row sums. (On lavapipe a kernel with a runtime loop
    now takes that path without debug mode too.)"""
    k = vp.kernel(debug=True)(row_sums.fn) if debug else row_sums
    h = np.arange(48, dtype=np.float32).reshape(6, 8)
    for view in (np.s_[::2, 1::2], np.s_[2:]):
        want = h[view][:, :4].sum(axis=1)
        o = vp.zeros(len(want), vp.float32)
        k(vp.asarray(h)[view], o, n=4, dispatch=len(want))
        np.testing.assert_array_equal(o.numpy(), want)


def test_correlate_past_budget_raises(lavapipe):
    """Bug: vp.correlate(vp.ones(70000), vp.ones(70000), 'valid') gave
    [65535.] on lavapipe with no error (its kernel loops len(v) times an
    invocation); NumPy's answer is [70000.]. The kernel keeps the canary:
    one dispatch of all 70000 taps (windows of that size) raises
    vp.KernelError; the default windows (_convolve.TAPS_PER_CALL, 32768
    taps a dispatch) give NumPy's answer."""
    from vulpy import _convolve
    saved, _convolve.TAPS_PER_CALL = _convolve.TAPS_PER_CALL, 70000
    try:
        with pytest.raises(vp.KernelError, match="loops early"):
            vp.correlate(vp.ones(70000), vp.ones(70000), "valid")
    finally:
        _convolve.TAPS_PER_CALL = saved
    np.testing.assert_array_equal(vp.correlate(vp.ones(70000), vp.ones(70000), "valid").numpy(),
                                  np.correlate(np.ones(70000), np.ones(70000), "valid"))
    np.testing.assert_array_equal(vp.correlate(vp.ones(7000), vp.ones(7000), "valid").numpy(),
                                  np.correlate(np.ones(7000), np.ones(7000), "valid"))
