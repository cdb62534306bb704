"""vp.ControlBuffer: named words, atomic host access, the zero-copy view."""
import threading

import numpy as np
import pytest

import vulpy as vp
from conftest import needs_ext

pytestmark = needs_ext


def test_named_words(ctx):
    cb = vp.ControlBuffer(["mode", "hot_count"], words=16)
    assert cb.words == 16 and cb.names == ("mode", "hot_count")
    assert cb["mode"] == 0 and cb[15] == 0
    cb["mode"] = 3
    cb[5] = 0xFFFFFFFF
    assert cb["mode"] == 3 and cb[0] == 3 and cb[5] == 0xFFFFFFFF
    assert cb.add("hot_count", 5) == 0 and cb.add("hot_count", -2) == 5
    assert cb["hot_count"] == 3
    assert cb.index("hot_count") == 1
    assert cb.words_as_constants() == {"MODE": 0, "HOT_COUNT": 1}
    assert cb.to_dict() == {"mode": 3, "hot_count": 3}


def test_view_is_zero_copy(ctx):
    cb = vp.ControlBuffer(["a", "b"], words=8)
    v = cb.view()
    assert v.dtype == np.uint32 and v.shape == (8,)
    cb["b"] = 77
    assert v[1] == 77
    v[0] = 9
    assert cb["a"] == 9


def test_atomic_adds_from_threads(ctx):
    cb = vp.ControlBuffer(["n"])

    def work():
        for _ in range(2000):
            cb.add("n", 1)

    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert cb["n"] == 8000


def test_errors_name_the_problem(ctx):
    cb = vp.ControlBuffer(["mode"], words=4)
    with pytest.raises(KeyError, match="no control word 'mood'"):
        cb["mood"]
    with pytest.raises(IndexError, match="out of range"):
        cb[4]
    with pytest.raises(OverflowError):
        cb["mode"] = 1 << 32
    with pytest.raises(ValueError, match="duplicate"):
        vp.ControlBuffer(["a", "a"])
    with pytest.raises(ValueError, match="words=1"):
        vp.ControlBuffer(["a", "b"], words=1)
    with pytest.raises(TypeError, match="list of str"):
        vp.ControlBuffer("mode")
