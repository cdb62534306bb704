"""Litmus tests of the grid barrier variants (issue 15, docs/persistent.md
"Barrier variants"): at least 10^5 barrier rounds a variant with every
cross-group read checked, the host <-> GPU message-passing litmus with each
variant, and the control snapshot's grid-uniformity where a step reads a
control word after a grid sync (the flip variants keep two snapshot banks:
group 0 writes the next one while slow groups may still read the current
one). On lavapipe the runs go in slices (max_seconds_per_dispatch=): each
dispatch gets a fresh loop budget."""
import time

import numpy as np
import pytest

import vulpy as vp
from persistent_common import (expected_count, lavapipe as _lavapipe, lavapipe_groups as _groups,
                               make_count, make_litmus, make_memsock_counter, memsock_frames_want,
                               run_litmus, skip_gpu_only)

# the tree barriers arrive in two levels only above 256 groups, which
# lavapipe never admits: "NAME@tree" runs NAME with the threshold at one
# group (VULPY_PERSISTENT_TREE=1), so that both levels run here
FORCED = ("cg-tree@tree", "flip-tree@tree")
BARRIERS = vp._persistent.BARRIERS + FORCED


def _name(barrier):
    return barrier.split("@")[0]


@pytest.fixture(autouse=True)
def _tree_threshold(request, monkeypatch):
    params = getattr(getattr(request.node, "callspec", None), "params", {})
    if str(params.get("barrier", "")).endswith("@tree"):
        monkeypatch.setenv("VULPY_PERSISTENT_TREE", "1")
    skip_gpu_only(request)
# the variants this file runs 10^5 rounds for: the default and the new ones
# (the older lean gets the same test with fewer rounds)
PROPOSED = ("flip", "cg", "cg-offpath", "flip-offpath", "cg-tree",
            "flip-tree") + FORCED + vp._persistent.EXPERIMENTS


def make(barrier):
    @vp.kernel(persistent=True, local_size_x=64, barrier=barrier)
    def rounds(data: vp.Buffer[vp.uint32], bad: vp.Buffer[vp.uint32], n: vp.uint32,
               steps: vp.uint32):
        # each step: every point written with t + 1, a grid sync, then every
        # point reads one a group further on (another group's, with two or
        # more groups) and counts what is not t + 1: a stale value (t) says
        # the barrier let a reader through early, t + 2 that a writer of
        # the next step passed the step boundary early
        for t in range(steps):
            for p in vp.grid_range(n):
                data[p] = t + 1
            vp.grid_sync()
            for p in vp.grid_range(n):
                q = (p + 64) % n
                if data[q] != t + 1:
                    bad[p] = bad[p] + 1

    @vp.kernel(persistent=True, local_size_x=64, barrier=barrier,
               control_words={"ctrl": ["mode"]})
    def uniform(seen: vp.Buffer[vp.uint32], ctrl: vp.Control, n: vp.uint32,
                steps: vp.uint32):
        # the control word read before and after a grid sync of the same
        # step, by every point: all the same value in a step
        for t in range(steps):
            for p in vp.grid_range(n):
                seen[t * 2 * n + p] = ctrl.mode
            vp.grid_sync()
            for p in vp.grid_range(n):
                seen[t * 2 * n + n + p] = ctrl.mode

    return rounds, uniform


KERNELS = {b: make(_name(b)) for b in BARRIERS}


@pytest.mark.parametrize("barrier", BARRIERS)
def test_grid_barrier_litmus_rounds(barrier):
    # launches of `steps` steps in slices (a fresh loop budget a slice on
    # lavapipe) until `want` steps ran; on lavapipe with two groups on a
    # loaded machine a parked thread can make the other spin past its
    # limit: a launch that times out (the safe failure: an error, never a
    # wrong value) is not counted, and must still have no bad read
    rounds = KERNELS[barrier][0]
    want = 100_000 if barrier in PROPOSED else 10_000
    groups = _groups()
    n = 64 * 2 * (groups or 8)
    steps = 2500 if _lavapipe() else 20_000
    done, timeouts, admitted = 0, 0, set()
    while done < want:
        data = vp.zeros(n, np.uint32)
        bad = vp.zeros(n, np.uint32)
        h = rounds(data, bad, n=n, steps=steps, sync=False, groups=groups,
                   max_seconds_per_dispatch=0.005)
        timed_out = False
        try:
            h.wait(timeout=600)
        except vp.PersistentError as e:
            assert "timed out" in str(e)
            timeouts += 1
            timed_out = True
            assert timeouts <= 50, f"{timeouts} launches timed out ({done} steps done)"
        else:
            assert h.steps == steps
            # two barriers a step (the step boundary and the sync), and the
            # entry one of each dispatch
            assert h.barriers >= 2 * steps
            np.testing.assert_array_equal(data.numpy(), np.full(n, steps, np.uint32))
            done += steps
            admitted.add(h.admitted)
        b = bad.numpy()
        assert int(b.sum()) == 0, (f"bad reads at points {np.nonzero(b)[0][:8]} after "
                                   f"{'a timeout' if timed_out else 'a whole run'}, "
                                   f"{h.admitted} groups, {h.steps} steps")
    if groups and groups > 1:
        assert max(admitted) >= 1


def make_late(barrier):
    @vp.kernel(persistent=True, local_size_x=64, barrier=barrier)
    def late(data: vp.Buffer[vp.uint32], bad: vp.Buffer[vp.uint32],
             sink: vp.Buffer[vp.uint32], n: vp.uint32, steps: vp.uint32, delay: vp.uint32):
        # as `rounds`, but group 1 dawdles before its writes of step 3, so
        # group 0 waits at that step's grid sync long enough to time out
        for t in range(steps):
            for p in vp.grid_range(n):
                if t == 3 and vp.workgroup_id() == 1 and vp.local_id() == 0:
                    acc = p
                    for i in range(delay):
                        acc = acc * 1664525 + 1013904223
                        acc = acc * 22695477 + 1
                        acc = acc * 1103515245 + 12345
                        acc = acc * 134775813 + 1
                        acc = acc * 214013 + 2531011
                        acc = acc * 69069 + 1
                        acc = acc * 1664525 + 1013904223
                        acc = acc * 22695477 + 1
                    sink[0] = acc
                data[p] = t + 1
            vp.grid_sync()
            for p in vp.grid_range(n):
                q = (p + 64) % n
                if data[q] != t + 1:
                    bad[p] = bad[p] + 1
    return late


@pytest.mark.parametrize("barrier", BARRIERS)
def test_a_group_that_times_out_leaves_instead_of_passing(barrier, monkeypatch):
    # a short spin limit and a group that arrives late: the group that
    # waits times out. It must leave (every group of the run then leaves),
    # never pass the barrier and read what the late group has not written
    # yet (the flip barrier once did: a wait that timed out kept the value
    # of its own arrival, without the abort bit)
    # (200 polls: on lavapipe the first 64 are one read-modify-write each,
    # the rest 32 in a row, ~1 us: a ~0.15 ms wait, well short of the late
    # group's ~ms of work)
    monkeypatch.setenv("VULPY_PERSISTENT_SPIN", "200")
    late = make_late(_name(barrier))
    groups = _groups() or 8
    n = 64 * 2 * groups
    timeouts = 0
    for _ in range(6):
        data = vp.zeros(n, np.uint32)
        bad = vp.zeros(n, np.uint32)
        h = late(data, bad, vp.zeros(4, np.uint32), n=n, steps=6, delay=50_000, sync=False,
                 groups=groups)
        try:
            h.wait(timeout=60)
        except vp.PersistentError as e:
            assert "timed out" in str(e)
            timeouts += 1
            if "loop budget" in str(e):
                continue  # a spin the budget cut short: the error says "wrong"
        assert int(bad.numpy().sum()) == 0


@pytest.mark.parametrize("barrier", BARRIERS)
def test_control_word_is_grid_uniform_within_a_step(barrier):
    # On a loaded 2-core machine lavapipe's second group can be descheduled
    # long enough for a barrier to time out (or a spin to spend the loop
    # budget): the safe failure, an error. Such a launch is not counted, but
    # the steps it finished must still be uniform; one launch must finish.
    uniform = KERNELS[barrier][1]
    groups = _groups()
    n = 64 * 2 * (groups or 8)
    steps = 2000
    failures = []
    for _ in range(5):
        ctrl = vp.ControlBuffer(["mode"])
        seen = vp.zeros(steps * 2 * n, np.uint32)
        h = uniform(seen, ctrl, n=n, steps=steps, sync=False, groups=groups)
        v = 0
        deadline = time.monotonic() + 120
        while not h.done and time.monotonic() < deadline:
            v += 1
            ctrl["mode"] = v   # the host changes it often, but leaves the CPU
            time.sleep(0.0002)  # to lavapipe's group threads (a spinning host
            # starved one of two groups on a 2-core machine: barrier timeouts)
        try:
            h.wait(timeout=120)
        except vp.PersistentError as e:
            assert "timed out" in str(e) or "loop budget" in str(e), str(e)
            failures.append(str(e))
            # after a timeout, the steps before the last one published all
            # ended in every group; after the loop budget ran out any loop
            # may have been cut short (the error says the results are
            # wrong): no step to check
            done = 0 if "loop budget" in str(e) else max(0, h.steps - 1)
        else:
            done = steps
        rows = seen.numpy().reshape(steps, 2 * n)[:done]
        for t, row in enumerate(rows):   # each step: one value in both phases
            assert (row == row[0]).all(), (t, np.unique(row))
        # the host only counts up
        assert (np.diff(rows[:, 0].astype(np.int64)) >= 0).all()
        if done == steps:
            break
    else:
        pytest.fail(f"no launch of 5 finished: {failures}")
    # and the steps saw it change
    assert len(np.unique(rows[:, 0])) > 1


@pytest.mark.parametrize("barrier", PROPOSED)
def test_message_passing_litmus_both_ways(barrier):
    # test_persistent.py's litmus (GPU -> host: payload then flag; host ->
    # GPU: a counter the steps must never see decrease) with each variant.
    # A launch may end before a loaded host's first write lands (the full
    # suite on 2 cores): those are counted; most launches must see writes
    rounds, violations, blind, launches = run_litmus(make_litmus(_name(barrier)))
    assert violations == 0
    assert rounds >= 100_000
    assert blind * 2 < launches, f"{blind} of {launches} launches never saw a host write"


def test_flip_glsl_has_one_atomic_arrival_and_no_second_release():
    # the flip barrier's waiting path: one atomicAdd on word 96 by each
    # leader, no reset of word 2 and no second (release) add by a last
    # arriver (the lean barrier's); cg: workgroup-scope fences around
    # barrier(), and the only device-scope fence of a barrier is the
    # leader's acquire after the wait
    flip = KERNELS["flip"][0].glsl
    cg = KERNELS["cg"][0].glsl
    lean = KERNELS["lean"][0].glsl
    assert "_vp_grid[2u]" in lean
    for text in (flip, cg):
        body = text[text.find("for ("):]
        assert "_vp_grid[2u]" not in body
        assert body.count("atomicAdd(_vp_grid[96u]") == 2   # one a barrier, two barriers
    body = cg[cg.find("for ("):]
    assert "gl_SemanticsRelease" in body and "gl_SemanticsAcquireRelease" not in body
    assert body.count("memoryBarrierBuffer()") == 2          # one a barrier, in the leader
    assert body.count("groupMemoryBarrier()") >= 6


def test_cg_offpath_acquires_with_a_load_and_writes_host_counters_rarely():
    # cg-offpath: no device-scope fence in the time loop; the leaders'
    # acquire after each wait is one acquire load of word 96 (before, the
    # back end dropped an acquire load whose value was unused); no atomic
    # add on the host's barrier counter (word 6) anywhere (flip-offpath
    # neither: the counters every 64 barriers), where cg fences and adds
    cg, off, flipoff = (KERNELS[b][0].glsl for b in ("cg", "cg-offpath", "flip-offpath"))
    load = "atomicLoad(_vp_grid[96u], gl_ScopeDevice, gl_StorageSemanticsBuffer, " \
           "gl_SemanticsAcquire)"
    body = off[off.find("for ("):]
    assert "memoryBarrierBuffer()" not in body
    assert body.count(load) == 2                                  # one a barrier
    assert load not in cg and "atomicAdd(_vp_host[6u]" in cg
    assert "atomicAdd(_vp_host[6u]" not in off and "atomicAdd(_vp_host[6u]" not in flipoff


@pytest.mark.parametrize("barrier", ("flip", "cg", "cg-offpath", "flip-offpath", "cg-tree",
                                     "flip-tree") + FORCED + vp._persistent.EXPERIMENTS)
def test_memsock_frames_from_the_time_loop(barrier):
    # a MemSock fired from the time loop (lower-memsock runs before
    # lower-persistent; a frame's arrival count is the admitted groups)
    # with each new barrier: every frame, in order, with the right values
    count = make_memsock_counter(_name(barrier))
    n, steps, every = 512, 40, 5
    want = memsock_frames_want(n, steps, every)
    got = {}
    ctx = vp.default_context()
    pipe = vp.MemSock(dtype=vp.float32, frame_shape=(n,), payload={"step": vp.uint32})
    pipe.on("message", lambda frame, step: got.__setitem__(step, frame.copy()))
    pipe.open(ctx, capacity=len(want) + 1, policy="block")
    dev = vp.asarray(np.arange(n, dtype=np.float32))
    h = count(dev, pipe, n=n, first=0, last=steps, every=every, sync=False, groups=_groups())
    h.wait(timeout=120)
    pipe.close()
    assert h.steps == steps
    assert sorted(got) == sorted(want)
    for s in want:
        np.testing.assert_array_equal(got[s], want[s])


@pytest.mark.parametrize("barrier", FORCED)
def test_tree_barrier_stop_and_abort(barrier):
    # the two-level arrival with group 0's stop bits added to the barrier
    # word apart from its cluster arrival: a stop ends the loop at a step
    # boundary with every group agreeing (the counts match a whole number
    # of steps), an abort ends the run with an error
    count = make_count(_name(barrier))
    n = 64 * 2 * (_groups() or 8)
    a = vp.zeros(n, np.uint32)
    h = count(a, n=n, steps=20000, sync=False, groups=_groups())
    deadline = time.monotonic() + 30
    while h.steps < 3 and not h.done and time.monotonic() < deadline:
        time.sleep(0)
    h.stop()
    h.wait(timeout=60)
    assert 3 <= h.steps < 20000
    np.testing.assert_array_equal(a.numpy(), np.full(n, expected_count(h.steps), np.uint32))
    h = count(vp.zeros(n, np.uint32), n=n, steps=20000, sync=False, groups=_groups())
    h.abort()
    with pytest.raises(vp.PersistentError, match="aborted"):
        h.wait(timeout=60)


@pytest.mark.parametrize("bad", ["x", "-1", "1.5"])
def test_tree_threshold_is_checked(bad, monkeypatch):
    monkeypatch.setenv("VULPY_PERSISTENT_TREE", bad)
    with pytest.raises(ValueError, match="VULPY_PERSISTENT_TREE"):
        KERNELS["cg-tree"][0](vp.zeros(64, np.uint32), vp.zeros(64, np.uint32), n=64, steps=1)
