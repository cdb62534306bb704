"""The grid-barrier variants of persistent kernels (docs/persistent.md,
"Barrier variants"): @vp.kernel(persistent=True, barrier=NAME) picks one at
compile time. Every variant must count, diffuse, steer, stop, abort, time
out and run in slices exactly as the default one does; the bench
(bench/bench_persistent.py) times each on the H200."""
import time

import numpy as np
import pytest

import vulpy as vp

# (barrier, nonprivate): every barrier with coherent buffers, and two with
# the buffers non-private (the Vulkan memory model's availability and
# visibility instead of coherent accesses)
VARIANTS = [(b, False) for b in vp._persistent.BARRIERS] + [("lean", True), ("packed", True),
                                                          ("cg", True)]
IDS = [b + ("+nonprivate" if np_ else "") for b, np_ in VARIANTS]


def make(barrier, nonprivate):
    @vp.kernel(persistent=True, local_size_x=64, barrier=barrier, nonprivate=nonprivate)
    def count(acc: vp.Buffer[vp.uint32], n: vp.uint32, steps: vp.uint32):
        for t in range(steps):
            for p in vp.grid_range(n):
                acc[p] = acc[p] + 1
            vp.grid_sync()
            for p in vp.grid_range(n):
                acc[p] = acc[p] * 2

    @vp.kernel(persistent=True, local_size_x=64, barrier=barrier, nonprivate=nonprivate)
    def heat(u: vp.Buffer[vp.float32], v: vp.Buffer[vp.float32], nx: vp.uint32,
             ny: vp.uint32, alpha: vp.float32, steps: vp.uint32):
        for t in range(steps):
            for x, y in vp.grid_range(nx, ny):
                i = y * nx + x
                if x == 0 or y == 0 or x == nx - 1 or y == ny - 1:
                    v[i] = u[i]
                else:
                    v[i] = u[i] + alpha * (u[i - 1] + u[i + 1] + u[i - nx] + u[i + nx] -
                                           4.0 * u[i])
            vp.grid_sync()
            for p in vp.grid_range(nx * ny):
                u[p] = v[p]

    @vp.kernel(persistent=True, local_size_x=64, barrier=barrier, nonprivate=nonprivate,
               control_words={"ctrl": ["stop", "rate"]})
    def until_told(acc: vp.Buffer[vp.uint32], ctrl: vp.Control, n: vp.uint32):
        while ctrl.stop == 0:
            for p in vp.grid_range(n):
                acc[p] = acc[p] + ctrl.rate
            vp.grid_sync()

    return count, heat, until_told


KERNELS = {v: make(*v) for v in VARIANTS}


def expected_count(steps):
    v = 0
    for _ in range(steps):
        v = (v + 1) * 2
    return v


@pytest.mark.parametrize("barrier", VARIANTS, ids=IDS)
@pytest.mark.parametrize("groups", [1, 2, 16])
def test_counting_program(barrier, groups):
    count = KERNELS[barrier][0]
    n = 1000
    a = vp.zeros(n, np.uint32)
    h = count(a, n=n, steps=9, groups=groups, sync=False)
    h.wait(timeout=60)
    assert h.steps == 9 and h.barriers == 1 + 2 * 9
    np.testing.assert_array_equal(a.numpy(), np.full(n, expected_count(9), np.uint32))


@pytest.mark.parametrize("barrier", VARIANTS, ids=IDS)
def test_heat_is_bit_identical_to_the_stepped_form_and_across_variants(barrier):
    heat = KERNELS[barrier][1]
    ny, nx, steps = 16, 24, 80
    u0 = np.random.default_rng(9).random(nx * ny, dtype=np.float32)
    out = []
    for mode in ("persistent", "stepped"):
        u = vp.asarray(u0)
        heat(u, vp.zeros(nx * ny, np.float32), nx=nx, ny=ny, alpha=0.23, steps=steps,
             mode=mode)
        out.append(u.numpy().tobytes())
    u = vp.asarray(u0)
    KERNELS[("lean", False)][1](u, vp.zeros(nx * ny, np.float32), nx=nx, ny=ny, alpha=0.23,
                       steps=steps)
    assert out[0] == out[1] == u.numpy().tobytes()
    assert out[0] != u0.tobytes()


@pytest.mark.parametrize("barrier", VARIANTS, ids=IDS)
def test_while_loop_steered_and_stopped_by_control_words(barrier):
    until_told = KERNELS[barrier][2]
    n = 64
    ctrl = vp.ControlBuffer(["stop", "rate"])
    ctrl["rate"] = 3
    a = vp.zeros(n, np.uint32)
    h = until_told(a, ctrl, n=n, sync=False)
    deadline = time.monotonic() + 30
    while h.steps < 5 and not h.done and time.monotonic() < deadline:
        time.sleep(0)
    ctrl["stop"] = 1
    h.wait(timeout=60)
    assert h.steps >= 5
    np.testing.assert_array_equal(a.numpy(), np.full(n, 3 * h.steps, np.uint32))


@pytest.mark.parametrize("barrier", VARIANTS, ids=IDS)
def test_stop_and_abort(barrier):
    count = KERNELS[barrier][0]
    n = 64
    a = vp.zeros(n, np.uint32)
    h = count(a, n=n, steps=20000, sync=False)
    deadline = time.monotonic() + 30
    while h.steps < 3 and not h.done and time.monotonic() < deadline:
        time.sleep(0)
    h.stop()
    h.wait(timeout=60)
    assert 3 <= h.steps < 20000
    np.testing.assert_array_equal(a.numpy(), np.full(n, expected_count(h.steps) & 0xFFFFFFFF,
                                                     np.uint32))
    h = count(vp.zeros(n, np.uint32), n=n, steps=20000, sync=False)
    h.abort()
    with pytest.raises(vp.PersistentError, match="aborted"):
        h.wait(timeout=60)


@pytest.mark.parametrize("barrier", VARIANTS, ids=IDS)
def test_a_barrier_that_cannot_be_passed_times_out(barrier, monkeypatch):
    # two groups admitted, one of which never arrives: force it by a spin
    # limit of 1 poll with groups that lavapipe may not run together; the
    # run must end (timeout status) or pass, never hang or go wrong
    count = KERNELS[barrier][0]
    monkeypatch.setenv("VULPY_PERSISTENT_SPIN", "1")
    n = 500
    a = vp.zeros(n, np.uint32)
    h = count(a, n=n, steps=50, groups=2, sync=False)
    try:
        h.wait(timeout=60)
    except vp.PersistentError as e:
        assert "timed out" in str(e)
    else:
        np.testing.assert_array_equal(a.numpy(), np.full(n, expected_count(50) & 0xFFFFFFFF,
                                                         np.uint32))


@pytest.mark.parametrize("barrier", VARIANTS, ids=IDS)
def test_slices(barrier):
    count = KERNELS[barrier][0]
    n, steps = 128, 3000
    for _ in range(4):
        a = vp.zeros(n, np.uint32)
        h = count(a, n=n, steps=steps, sync=False, max_seconds_per_dispatch=0.002)
        h.wait(timeout=120)
        if h.dispatches >= 2:
            break
    else:
        pytest.skip("the run never took 2 slices")
    assert h.steps == steps
    np.testing.assert_array_equal(a.numpy(), np.full(n, expected_count(steps) & 0xFFFFFFFF,
                                                     np.uint32))


def test_unknown_barrier_is_a_value_error_naming_it():
    with pytest.raises(ValueError, match="barrier="):
        @vp.kernel(persistent=True, barrier="fastest")
        def k(acc: vp.Buffer[vp.uint32]):
            vp.grid_sync()


def test_variants_print_different_glsl():
    texts = {v: KERNELS[v][0].glsl for v in VARIANTS}
    assert len(set(texts.values())) == len(VARIANTS)
    # the padded variants poll word 96 of the grid words, the lean one word 3
    assert "_vp_grid[96u]" in texts[("padded", False)]
    assert "_vp_grid[96u]" not in texts[("lean", False)]


def test_nonprivate_buffers_and_fences_with_availability_and_visibility():
    lean = KERNELS[("lean", False)][0].glsl
    np_ = KERNELS[("lean", True)][0].glsl
    assert "coherent buffer acc_buf" in lean and "MakeAvailable" not in lean
    assert "nonprivate buffer acc_buf" in np_ and "coherent buffer acc_buf" not in np_
    # the hidden words stay coherent: the host reads and writes them
    assert "coherent buffer _vp_host_buf" in np_
    assert ("memoryBarrier(gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease"
            " | gl_SemanticsMakeAvailable | gl_SemanticsMakeVisible);") in np_
    assert "memoryBarrierBuffer()" not in np_
    assert "#pragma use_vulkan_memory_model" in np_


def test_nonprivate_is_checked():
    with pytest.raises(ValueError, match="nonprivate="):
        @vp.kernel(persistent=True, nonprivate="yes")
        def k(acc: vp.Buffer[vp.uint32]):
            vp.grid_sync()


def test_why_says_how_the_group_count_was_found():
    count = KERNELS[("lean", False)][0]
    a = vp.zeros(64, np.uint32)
    h = count(a, n=64, steps=1, sync=False)
    h.wait(timeout=60)
    assert "groups dispatched" in h.why and f"{h.groups} groups" in h.why
    if vp.default_context().info.get("driver_name") == "llvmpipe":
        assert "lavapipe: one group" in h.why
    h = count(a, n=64, steps=1, groups=2, sync=False)
    h.wait(timeout=60)
    assert "2 groups dispatched (asked for)" in h.why


SHADER = '''import vulpy as vp


@vp.kernel(persistent=True, local_size_x=64, barrier="packed", nonprivate=True)
def main(acc: vp.Buffer[vp.uint32], n: vp.uint32, steps: vp.uint32):
    for t in range(steps):
        for p in vp.grid_range(n):
            acc[p] = acc[p] + 2
        vp.grid_sync()
'''


def test_vul_py_file_decorator_picks_the_variant(tmp_path):
    path = tmp_path / "tick.vul.py"
    path.write_text(SHADER)
    sh = vp.compile(str(path))
    assert "_vp_grid[96u]" in sh.glsl and "nonprivate buffer acc_buf" in sh.glsl
    sh.allocate(acc=np.zeros(100, np.uint32))
    h = sh.run(n=100, steps=9, sync=False)
    h.wait(timeout=60)
    np.testing.assert_array_equal(sh.download("acc"), np.full(100, 18, np.uint32))
    path.write_text(SHADER.replace('"packed"', '"fastest"'))
    with pytest.raises(ValueError, match="barrier="):
        vp.compile(str(path))
