"""Bounded slices of a persistent program (docs/persistent.md, "Bounded
slices"): with max_seconds_per_dispatch= the dispatch ends at a step boundary
once its time is spent and the runtime relaunches it from that step, so a run
survives a watchdog (Windows TDR, amdgpu). Results must be bit-identical to
one unbounded dispatch; steering, stop(), wait(timeout=) and the steps count
keep working across slices. Slices here are a few milliseconds so that a
short run on lavapipe takes several.
"""
import time

import numpy as np
import pytest

import vulpy as vp
from persistent_common import (heat_reference, make_heat, make_memsock_counter,
                               memsock_frames_want)

SLICE = 0.002


@vp.kernel(persistent=True, local_size_x=64)
def count(acc: vp.Buffer[vp.uint32], n: vp.uint32, steps: vp.uint32):
    for p in vp.grid_range(n):           # before the time loop: runs once, not per slice
        acc[p] = acc[p] + 5
    vp.grid_sync()
    for t in range(steps):
        for p in vp.grid_range(n):
            acc[p] = acc[p] * 3 + t
        vp.grid_sync()
    for p in vp.grid_range(n):           # after it: runs once, in the last slice
        acc[p] = acc[p] + 7


def expected_count(n, steps, start=0):
    v = np.full(n, start + 5, np.uint64)
    for t in range(steps):
        v = (v * 3 + t) & 0xFFFFFFFF
    return ((v + 7) & 0xFFFFFFFF).astype(np.uint32)


def _sliced(kernel, *args, min_dispatches=3, tries=4, **kw):
    """Runs until the run took at least `min_dispatches` slices (a loaded
    machine may run a whole short program in one); returns the handle."""
    for _ in range(tries):
        fresh = [a() if callable(a) else a for a in args]
        h = kernel(*fresh, sync=False, max_seconds_per_dispatch=SLICE, **kw)
        h.wait(timeout=120)
        if h.dispatches >= min_dispatches:
            return h, fresh
    pytest.skip(f"the run never took {min_dispatches} slices")


def test_for_loop_in_slices_matches_one_dispatch_and_runs_the_rest_once():
    n, steps = 200, 3000
    h, (a,) = _sliced(count, lambda: vp.zeros(n, np.uint32), n=n, steps=steps)
    assert h.steps == steps and h.mode == "persistent"
    np.testing.assert_array_equal(a.numpy(), expected_count(n, steps))
    one = vp.zeros(n, np.uint32)
    h1 = count(one, n=n, steps=steps, sync=False)
    h1.wait(timeout=120)
    assert h1.dispatches == 1
    assert one.numpy().tobytes() == a.numpy().tobytes()


def test_numpy_arguments_stay_on_the_device_across_slices():
    n, steps = 100, 3000
    for _ in range(4):
        host = np.zeros(n, np.uint32)
        h = count(host, n=n, steps=steps, sync=False, max_seconds_per_dispatch=SLICE)
        h.wait(timeout=120)
        if h.dispatches >= 2:
            break
    np.testing.assert_array_equal(host, expected_count(n, steps))


heat = make_heat()


def test_heat_2d_in_slices_against_numpy_and_bit_identical_to_one_dispatch():
    ny, nx, steps, alpha = 12, 20, 2500, np.float32(0.05)
    rng = np.random.default_rng(7)
    u0 = rng.random((ny, nx), dtype=np.float32)
    h, (u, v) = _sliced(heat, lambda: vp.asarray(u0.ravel()),
                        lambda: vp.zeros(nx * ny, np.float32),
                        nx=nx, ny=ny, alpha=float(alpha), steps=steps)
    assert h.steps == steps
    ref = heat_reference(u0, steps, alpha)
    np.testing.assert_allclose(u.numpy().reshape(ny, nx), ref, rtol=1e-5, atol=1e-6)
    one = vp.asarray(u0.ravel())
    heat(one, vp.zeros(nx * ny, np.float32), nx=nx, ny=ny, alpha=float(alpha), steps=steps)
    assert one.numpy().tobytes() == u.numpy().tobytes()


# `while not ctrl.stop` (persistent_common's until_told tests `== 0`)
@vp.kernel(persistent=True, local_size_x=64, control_words={"ctrl": ["stop", "rate"]})
def until_told(acc: vp.Buffer[vp.uint32], ctrl: vp.Control, n: vp.uint32):
    while not ctrl.stop:
        for p in vp.grid_range(n):
            acc[p] = acc[p] + ctrl.rate
        vp.grid_sync()


def test_while_loop_in_slices_steered_and_ended_by_a_control_word():
    n = 64
    ctrl = vp.ControlBuffer(["stop", "rate"])
    ctrl["rate"] = 3
    a = vp.zeros(n, np.uint32)
    h = until_told(a, ctrl, n=n, sync=False, max_seconds_per_dispatch=SLICE)
    deadline = time.monotonic() + 60
    while h.dispatches < 3 and not h.done and time.monotonic() < deadline:
        time.sleep(0.001)
    at = h.steps
    ctrl["rate"] = 5                      # steering, seen at a step boundary of some slice
    while h.dispatches < 6 and not h.done and time.monotonic() < deadline:
        time.sleep(0.001)
    ctrl["stop"] = 1
    h.wait(timeout=60)
    done = h.steps
    assert h.dispatches >= 3 and done > at
    got = a.numpy()
    assert (got == got[0]).all()
    # every step added 3 or 5: k steps of 3 then done - k of 5, k >= at
    k = (5 * done - int(got[0])) // 2
    assert at <= k <= done and 3 * k + 5 * (done - k) == int(got[0])


@vp.kernel(persistent=True, local_size_x=64)
def tick(acc: vp.Buffer[vp.uint32], n: vp.uint32, steps: vp.uint32):
    for t in range(steps):
        for p in vp.grid_range(n):
            acc[p] = acc[p] + 1
        vp.grid_sync()


def test_stop_and_wait_timeout_across_slices():
    n = 64
    a = vp.zeros(n, np.uint32)
    h = tick(a, n=n, steps=10**7, sync=False, max_seconds_per_dispatch=SLICE)
    with pytest.raises(vp.TimeoutError):
        h.wait(timeout=0.0)
    deadline = time.monotonic() + 60
    while h.dispatches < 4 and time.monotonic() < deadline:
        time.sleep(0.001)
    h.stop()
    h.wait(timeout=60)
    assert h.dispatches >= 4 and 0 < h.steps < 10**7
    np.testing.assert_array_equal(a.numpy(), np.full(n, h.steps, np.uint32))


def test_slices_give_each_dispatch_a_fresh_loop_budget():
    # 1000 steps of 100 grid-stride iterations: 100,000 back-edges, past
    # lavapipe's 65,535 in one dispatch (an error, test_persistent.py);
    # in slices of a few ms each dispatch stays under it
    if vp.default_context().info.get("driver_name") != "llvmpipe":
        pytest.skip("the loop budget is lavapipe's")
    n, steps = 6400, 1000
    a = vp.zeros(n, np.uint32)
    with pytest.raises(vp.PersistentError, match="loop budget"):
        tick(a, n=n, steps=steps)
    b = vp.zeros(n, np.uint32)
    h = tick(b, n=n, steps=steps, sync=False, max_seconds_per_dispatch=SLICE)
    h.wait(timeout=120)
    assert h.dispatches >= 2
    np.testing.assert_array_equal(b.numpy(), np.full(n, steps, np.uint32))


@vp.kernel(persistent=True, local_size_x=64)
def carried(acc: vp.Buffer[vp.uint32], n: vp.uint32, steps: vp.uint32):
    s = 0
    for t in range(steps):
        s = s + 1
        for p in vp.grid_range(n):
            acc[p] = vp.uint32(s)
        vp.grid_sync()


def test_a_kernel_that_cannot_resume_says_why():
    a = vp.zeros(64, np.uint32)
    with pytest.raises(vp.PersistentError, match="variable carries a value"):
        carried(a, n=64, steps=10, max_seconds_per_dispatch=1.0)
    # unbounded it runs
    carried(a, n=64, steps=10)
    np.testing.assert_array_equal(a.numpy(), np.full(64, 10, np.uint32))


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), "1", True])
def test_max_seconds_per_dispatch_is_checked(bad):
    a = vp.zeros(8, np.uint32)
    with pytest.raises(ValueError, match="max_seconds_per_dispatch"):
        tick(a, n=8, steps=1, max_seconds_per_dispatch=bad)


# u = u / 2 + t a step, u fired every `every`-th step (persistent_common)
streamed = make_memsock_counter()


def test_memsock_frames_keep_coming_across_slices():
    n, steps, every = 256, 1500, 50
    want = memsock_frames_want(n, steps, every)
    for _ in range(4):
        got = {}
        pipe = vp.MemSock(dtype=vp.float32, frame_shape=(n,), payload={"step": vp.uint32})
        pipe.on("message", lambda frame, step: got.__setitem__(step, frame.copy()))
        pipe.open(vp.default_context(), capacity=len(want) + 1, policy="block")
        u = vp.asarray(np.arange(n, dtype=np.float32))
        h = streamed(u, pipe, n=n, first=0, last=steps, every=every, sync=False,
                     max_seconds_per_dispatch=SLICE)
        h.wait(timeout=120)
        pipe.close()
        if h.dispatches >= 2:
            break
    else:
        pytest.skip("the run never took 2 slices")
    assert h.steps == steps
    assert sorted(got) == sorted(want)
    for s in want:
        np.testing.assert_array_equal(got[s], want[s])


def test_progress_across_slices(capsys):
    n, steps = 64, 3000
    a = vp.zeros(n, np.uint32)
    h = tick(a, n=n, steps=steps, sync=False, max_seconds_per_dispatch=SLICE)
    h.wait(timeout=120, progress=steps)
    assert f"{steps}/{steps}" in capsys.readouterr().err
    np.testing.assert_array_equal(a.numpy(), np.full(n, steps, np.uint32))
