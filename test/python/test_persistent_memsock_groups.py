"""A MemSock fired from inside a persistent kernel's time loop (the FDTD
application streams its slices this way, docs/fdtd.md), beside
test_persistent_memsock.py: with more groups dispatched than discovery
admits, every frame is still published (the arrival count is the admitted
groups), and a fire that depends on the group id is refused."""
import numpy as np
import pytest

import vulpy as vp
from conftest import needs_target

pytestmark = needs_target


@vp.kernel(persistent=True, local_size_x=64)
def counter(a: vp.Buffer[vp.float32], pipe: vp.MemSock[vp.float32], n: vp.uint32,
            steps: vp.uint32, every: vp.uint32):
    for t in range(steps):
        for p in vp.grid_range(n):
            a[p] = a[p] + 1.0
        vp.grid_sync()
        if (t + 1) % every == 0:
            def body(step: vp.uint32, total: vp.float32):
                for q in vp.grid_range(n):
                    pipe[q] = a[q] * 2.0

            pipe.fire(body, step=t + 1, total=a[0] * vp.float32(n))
        vp.grid_sync()


@vp.kernel(persistent=True, local_size_x=64)
def by_group(a: vp.Buffer[vp.float32], pipe: vp.MemSock[vp.float32], steps: vp.uint32):
    for t in range(steps):
        if vp.workgroup_id() == 0:
            def body(step: vp.uint32, total: vp.float32):
                pipe[0] = a[0]

            pipe.fire(body, step=t, total=0.0)
        vp.grid_sync()


def _pipe(n, capacity):
    pipe = vp.MemSock(dtype=vp.float32, frame_shape=(n,),
                      payload={"step": vp.uint32, "total": vp.float32})
    pipe.open(capacity=capacity, policy="skip")
    return pipe


def _drain(pipe):
    out = []
    while True:
        try:
            frame, payload = pipe.next(timeout=0)
        except TimeoutError:
            return out
        out.append((frame.copy(), payload.step, payload.total))


@pytest.mark.parametrize("groups", [1, 3])
def test_fire_inside_the_time_loop(groups):
    """Frames of a persistent run: one every 3 steps, in order, each the
    state of its step; with several groups dispatched each frame is
    published once every admitted group wrote its part (lavapipe admits
    what runs together, often fewer than dispatched)."""
    n, steps, every = 300, 30, 3
    a = vp.zeros(n, np.float32)
    pipe = _pipe(n, steps // every + 1)
    h = counter(a, pipe, n=n, steps=steps, every=every, groups=groups, sync=False)
    h.wait(timeout=120)
    got = _drain(pipe)
    assert pipe.stats["dropped"] == 0 and pipe.stats["gpu_timeouts"] == 0
    pipe.close()
    assert [s for _, s, _ in got] == list(range(every, steps + 1, every)), h.admitted
    for frame, s, total in got:
        assert np.array_equal(frame, np.full(n, 2.0 * s, np.float32))
        assert total == s * n
    assert np.array_equal(a.numpy(), np.full(n, steps, np.float32))


def test_fire_that_depends_on_the_group_id_is_refused():
    a = vp.zeros(10, np.float32)
    pipe = _pipe(1, 4)
    with pytest.raises(vp.CompileError, match="differs between invocations"):
        by_group(a, pipe, steps=3)
    pipe.close()

