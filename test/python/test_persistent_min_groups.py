"""min_groups=: when occupancy discovery admits fewer groups than the
caller needs, the persistent dispatch leaves before the kernel's own code
runs (buffers untouched) and the stepped form runs instead, saying so
(docs/persistent.md, "Running it"). On lavapipe discovery admits at most
one group a worker thread, so asking for more than were dispatched always
falls back.
"""
import numpy as np
import pytest

import vulpy as vp
from persistent_common import expected_count, make_count


count = make_count()   # +1, a grid sync, *2 a step (persistent_common)


def test_too_few_groups_admitted_runs_stepped_and_says_why():
    n = 300
    a = vp.asarray(np.full(n, 3, np.uint32))
    # 2 groups dispatched can never admit 3: the persistent dispatch must
    # leave without touching `a` (else the counts below start from a later
    # value) and the stepped form run all 9 steps
    h = count(a, n=n, steps=9, groups=2, min_groups=3, sync=False)
    h.wait(timeout=60)
    assert h.mode == "stepped"
    assert "min_groups=3" in h.why and "discovery admitted" in h.why
    assert h.steps == 9
    np.testing.assert_array_equal(a.numpy(), np.full(n, expected_count(9, 3), np.uint32))


def test_enough_groups_admitted_stays_persistent():
    n = 300
    a = vp.zeros(n, np.uint32)
    h = count(a, n=n, steps=9, groups=1, min_groups=1, sync=False)
    h.wait(timeout=60)
    assert h.mode == "persistent" and h.admitted == 1 and h.steps == 9
    np.testing.assert_array_equal(a.numpy(), np.full(n, expected_count(9), np.uint32))


def test_sync_call_with_min_groups_falls_back_too():
    n = 64
    a = vp.zeros(n, np.uint32)
    count(a, n=n, steps=5, groups=1, min_groups=2)
    np.testing.assert_array_equal(a.numpy(), np.full(n, expected_count(5), np.uint32))


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_min_groups_must_be_a_positive_int(bad):
    a = vp.zeros(8, np.uint32)
    with pytest.raises(ValueError, match="min_groups="):
        count(a, n=8, steps=1, groups=1, min_groups=bad)
