"""A persistent kernel fires into a vp.MemSock from inside its time loop
(lesson 10): the fire's uniformity is judged on the kernel as written (the
time loop's counter and push constants), and the protocol counts the groups
that discovery admitted. Before, such a kernel did not compile ("pipe.fire
inside control flow that differs between invocations") and its launch
miscounted the pipe's two buffers."""
import numpy as np
import pytest

import vulpy as vp
from conftest import needs_ext, needs_target
from persistent_common import make_memsock_counter, memsock_frames_want

pytestmark = [needs_ext, needs_target]

N = 512


@pytest.fixture(scope="module")
def counter():
    return make_memsock_counter()


def _want(steps, every):
    return memsock_frames_want(N, steps, every)


@pytest.mark.parametrize("policy", ["block", "skip"])
def test_frames_from_a_persistent_time_loop(ctx, counter, policy):
    steps, every = 40, 5
    want = _want(steps, every)
    got = {}
    pipe = vp.MemSock(dtype=vp.float32, frame_shape=(N,), payload={"step": vp.uint32})
    pipe.on("message", lambda frame, step: got.__setitem__(step, frame.copy()))
    pipe.open(ctx, capacity=len(want) + 1, policy=policy)
    u = vp.asarray(np.arange(N, dtype=np.float32))
    h = counter(u, pipe, n=N, first=0, last=steps, every=every, sync=False)
    h.wait(timeout=120)
    pipe.close()
    assert h.steps == steps
    assert sorted(got) == sorted(want)
    for s in want:
        np.testing.assert_array_equal(got[s], want[s])
    st = pipe.stats
    assert st["delivered"] == st["published"] == len(want) and not st["dropped"]


def test_resumed_launches_continue_the_sequence(ctx, counter):
    """Two launches (first=0..20, 20..40) fire into one pipe: one sequence."""
    want = _want(40, 4)
    got = {}
    pipe = vp.MemSock(dtype=vp.float32, frame_shape=(N,), payload={"step": vp.uint32})
    pipe.on("message", lambda frame, step: got.__setitem__(step, frame.copy()))
    pipe.open(ctx, capacity=8, policy="block")
    u = vp.asarray(np.arange(N, dtype=np.float32))
    counter(u, pipe, n=N, first=0, last=20, every=4)
    counter(u, pipe, n=N, first=20, last=40, every=4)
    pipe.close()
    assert sorted(got) == sorted(want)
    for s in want:
        np.testing.assert_array_equal(got[s], want[s])


def test_stepped_form_with_a_pipe_is_a_clear_error(ctx, counter):
    pipe = vp.MemSock(dtype=vp.float32, frame_shape=(N,), payload={"step": vp.uint32})
    pipe.open(ctx, capacity=4)
    u = vp.zeros(N, np.float32)
    with pytest.raises(TypeError, match="stepped form cannot bind a vp.MemSock"):
        counter(u, pipe, n=N, first=0, last=4, every=2, mode="stepped")
    with pytest.raises(TypeError, match=r"takes 2 buffer\(s\) \(u, pipe\), got 1: missing 'pipe'"):
        counter(u, n=N, first=0, last=4, every=2)
    pipe.close()


def test_debug_mode_kernel_with_a_pipe(ctx):
    """debug=True kernels bind a MemSock too (the record buffers go after
    the pipe's two); before, the call was a TypeError miscounting the pipe.
    The bounds checks still work beside it."""
    @vp.kernel(local_size_x=64, debug=True)
    def k(u: vp.Buffer[vp.float32], pipe: vp.MemSock[vp.float32], t: vp.uint32,
          off: vp.uint32):
        i = vp.global_id()
        u[i + off] = u[i + off] + 1.0

        def body(step: vp.uint32):
            pipe[i] = u[i]
        pipe.fire(body, step=t)

    got = {}
    pipe = vp.MemSock(dtype=vp.float32, frame_shape=(256,), payload={"step": vp.uint32})
    pipe.on("message", lambda frame, step: got.__setitem__(step, frame.copy()))
    pipe.open(ctx, capacity=4)
    u = vp.zeros(256, np.float32)
    for t in range(3):
        k(u, pipe, dispatch=256, t=t, off=0)
    assert sorted(got) == [0, 1, 2]
    np.testing.assert_array_equal(got[2], np.full(256, 3, np.float32))
    with pytest.raises(vp.KernelError, match="out of bounds|index"):
        k(u, pipe, dispatch=256, t=3, off=1)
    pipe.close()
