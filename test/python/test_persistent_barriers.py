"""The grid-barrier variants of persistent kernels (docs/persistent.md,
"Barrier variants"): @vp.kernel(persistent=True, barrier=NAME) picks one at
compile time. Every variant must count, diffuse, steer, stop, abort, time
out and run in slices exactly as the default one does; the bench
(bench/bench_persistent.py) times each on the H200."""
import time

import numpy as np
import pytest

import vulpy as vp
from persistent_common import (expected_count, lavapipe, make_count, make_heat, make_until_told,
                               skip_gpu_only)

# (barrier, nonprivate): every barrier with coherent buffers, and three
# with the buffers non-private (the Vulkan memory model's availability and
# visibility instead of coherent accesses): lean, the default and cg
VARIANTS = [(b, False) for b in vp._persistent.BARRIERS] + [("lean", True), ("flip", True),
                                                          ("cg", True)]
IDS = [b + ("+nonprivate" if np_ else "") for b, np_ in VARIANTS]


def make(barrier, nonprivate):
    return (make_count(barrier, nonprivate), make_heat(barrier, nonprivate),
            make_until_told(barrier, nonprivate))


KERNELS = {v: make(*v) for v in VARIANTS}


@pytest.fixture(autouse=True)
def _gpu_only(request):
    skip_gpu_only(request)


def test_acquire_polls_run_stepped_on_lavapipe_and_nowhere_else():
    # cgx-acqpoll polls with acquire loads, which lavapipe miscompiles
    # (runs ended early with wrong results, no error): the runtime finds
    # them in the GLSL and runs the kernel stepped there (auto) or refuses
    # it (mode='persistent'); the others poll relaxed
    for b in vp._persistent.BARRIERS:
        prog = KERNELS[(b, False)][0].program()
        assert vp._persistent.acquire_polls(prog) == (b == "cgx-acqpoll"), b
    b = "cgx-acqpoll"
    count = KERNELS[(b, False)][0]
    a = vp.zeros(1000, np.uint32)
    h = count(a, n=1000, steps=9, groups=2, sync=False)
    h.wait(timeout=60)
    np.testing.assert_array_equal(a.numpy(), np.full(1000, expected_count(9), np.uint32))
    if lavapipe():
        assert h.mode == "stepped" and "acquire polls" in h.why
        with pytest.raises(vp.PersistentError, match="acquire loads"):
            count(a, n=1000, steps=9, groups=2, mode="persistent")
    else:
        assert h.mode == "persistent"


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
    np.testing.assert_array_equal(a.numpy(), np.full(n, expected_count(h.steps),
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
        np.testing.assert_array_equal(a.numpy(), np.full(n, expected_count(50),
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
    np.testing.assert_array_equal(a.numpy(), np.full(n, expected_count(steps),
                                                     np.uint32))


def test_unknown_barrier_is_a_value_error_naming_it():
    with pytest.raises(ValueError, match="barrier="):
        @vp.kernel(persistent=True, barrier="fastest")
        def k(acc: vp.Buffer[vp.uint32]):
            vp.grid_sync()
    # a retired experiment or variant (docs/persistent.md, "Barrier
    # variants": the eight cgx-* / flipx-* that measured no gain, and
    # padded, packed, scoped, cg-early, cg-acq and cg-quiet, retired
    # 2026-12-05) is an unknown name like any other
    for name in ("cgx-fadd", "padded", "packed", "scoped", "cg-early", "cg-acq", "cg-quiet"):
        assert name not in vp._persistent.BARRIERS
        with pytest.raises(ValueError, match=f"barrier=.*not '{name}'"):
            @vp.kernel(persistent=True, barrier=name)
            def k2(acc: vp.Buffer[vp.uint32]):
                vp.grid_sync()


def test_variants_print_different_glsl():
    texts = {v: KERNELS[v][0].glsl for v in VARIANTS}
    assert len(set(texts.values())) == len(VARIANTS)
    # the flip variants poll word 96 of the grid words, the lean one word 3
    assert "_vp_grid[96u]" in texts[("flip", False)]
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
    h = count(a, n=64, steps=1, groups="cores", sync=False)
    h.wait(timeout=60)
    assert h.steps == 1 and "groups dispatched" in h.why
    if vp.default_context().info.get("driver_name") == "llvmpipe":
        assert h.groups == 1 and "lavapipe: one group" in h.why
    else:
        assert "rule 'cores'" in h.why


def test_group_rules():
    # the H200's numbers: 132 SMs holding 8 groups of 256 each
    rule = vp._persistent.groups_by_rule
    assert rule("resident", 132, 8, 256, 1 << 16)[0] == 1056
    assert rule("cores", 132, 8, 256, 1 << 16)[0] == 132
    # "work": a group per 4 x 256 points, within [cores, resident]
    assert rule("work", 132, 8, 256, 1 << 16)[0] == 132          # the 64K-cell grid
    assert rule("work", 132, 8, 256, 1 << 26)[0] == 1056         # the 2^26-cell grid
    assert rule("work", 132, 8, 256, 300 * 1024)[0] == 300
    assert rule("work", 132, 8, 256, 300 * 1024 + 1)[0] == 301
    n, why = rule("work", 132, 8, 256, 0)   # no data argument: what the cores hold
    assert n == 1056 and "no data arguments" in why
    n, why = rule("work", 0, 0, 256, 1 << 26)   # no core count from the driver
    assert n == 1056 and "no core count" in why
    assert vp._persistent.DEFAULT_GROUP_RULE == "work"
    work = vp._persistent.work_of
    assert work([np.zeros(7, np.float32), vp.zeros(300, np.uint32)]) == 300
    assert work([vp.ControlBuffer(["a"])]) == 0


def test_group_rule_names_are_checked(monkeypatch):
    count = KERNELS[("lean", False)][0]
    with pytest.raises(ValueError, match="groups= must be a positive int or one of 'work'"):
        count(vp.zeros(64, np.uint32), n=64, steps=1, groups="many")
    monkeypatch.setenv("VULPY_PERSISTENT_GROUPS", "many")
    with pytest.raises(ValueError, match="VULPY_PERSISTENT_GROUPS must be a group count"):
        count(vp.zeros(64, np.uint32), n=64, steps=1)
    monkeypatch.setenv("VULPY_PERSISTENT_GROUPS", "cores")
    count(vp.zeros(64, np.uint32), n=64, steps=1)


def test_every_compile_path_lowers_with_the_default_barrier(tmp_path):
    # @vp.kernel (barrier_passes) and vp.compile / emit-glsl / vulpy-translate
    # (the frontend's pipeline, VIR_BACKEND_PIPELINE; the lit test
    # Frontend/persistent.vul.py checks vulpy-translate's GLSL) agree on the
    # default: the same GLSL with and without barrier="flip"
    assert vp._persistent.DEFAULT_BARRIER == "flip"
    assert vp._persistent.barrier_passes(None) == "lower-memsock,lower-persistent-flip"
    plain = SHADER.replace(', barrier="lean", nonprivate=True', "")
    glsl = {}
    for name, src in (("default", plain), ("flip", plain.replace("64)", '64, barrier="flip")')),
                      ("lean", plain.replace("64)", '64, barrier="lean")'))):
        (tmp_path / name).mkdir()
        path = tmp_path / name / "k.vul.py"
        path.write_text(src)
        glsl[name] = vp.compile(str(path)).glsl.replace(str(path), "k.vul.py")
    assert glsl["default"] == glsl["flip"] != glsl["lean"]


SHADER = '''import vulpy as vp


@vp.kernel(persistent=True, local_size_x=64, barrier="lean", nonprivate=True)
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
    # lean: an arrival on word 2, no word 96 (the default flip's barrier word)
    assert "atomicAdd(_vp_grid[2u]" in sh.glsl and "_vp_grid[96u]" not in sh.glsl
    assert "nonprivate buffer acc_buf" in sh.glsl
    sh.allocate(acc=np.zeros(100, np.uint32))
    h = sh.run(n=100, steps=9, sync=False)
    h.wait(timeout=60)
    np.testing.assert_array_equal(sh.download("acc"), np.full(100, 18, np.uint32))
    # the frontend checks the decorator's keywords and names their place
    path.write_text(SHADER.replace('"lean"', '"fastest"'))
    with pytest.raises(vp.CompileError, match=r"tick.vul.py:4:\d+: error: barrier= must be "
                                              r"one of 'lean', .*'flip-tree'"):
        vp.compile(str(path))
    path.write_text(SHADER.replace("nonprivate=True", "nonprivate=1"))
    with pytest.raises(vp.CompileError, match=r"tick.vul.py:4:\d+: error: nonprivate= must be "
                                              r"True or False"):
        vp.compile(str(path))
