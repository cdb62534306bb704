"""The compiler's warnings reach Python as vp.CompileWarning (issue 20's
silent wrong answers): a kernel that reads a name assigned only in one
branch computes with an undefined value where Python would raise
UnboundLocalError; until 2026-12-07 the frontend's warnings were dropped on
the way to Python (compile_ast freed them)."""
import warnings

import numpy as np
import pytest

import vulpy as vp

from conftest import needs_target  # noqa: F401


def _compile_warnings(fn):
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        fn.program()
    return [str(w.message) for w in got if issubclass(w.category, vp.CompileWarning)]


def test_name_set_in_one_branch_warns_at_its_read():
    @vp.kernel
    def one_branch(a: vp.Buffer[vp.float32], n: vp.uint32):
        i = vp.global_id().x
        if i < n:
            y = 5.0
        a[i] = y

    msgs = _compile_warnings(one_branch)
    assert len(msgs) == 1, msgs
    m = msgs[0]
    assert "test_compile_warnings.py:" in m and "warning: 'y' may be read before it is assigned" in m
    assert "UnboundLocalError" in m and "a[i] = y" in m and "^" in m
    assert "hint: assign 'y' before the branch or loop that sets it" in m
    assert issubclass(vp.CompileWarning, UserWarning)


def test_loop_only_name_warns_and_every_path_does_not():
    @vp.kernel
    def loop_only(a: vp.Buffer[vp.float32], n: vp.uint32):
        i = vp.global_id().x
        for k in range(n):
            z = a[k]
        a[i] = z

    @vp.kernel
    def every_path(a: vp.Buffer[vp.float32], n: vp.uint32):
        i = vp.global_id().x
        if i < n:
            y = 1.0
        else:
            y = 2.0
        while True:
            t = a[i] + y
            if t > 0.0:
                break
        a[i] = t

    msgs = _compile_warnings(loop_only)
    assert len(msgs) == 1 and "'z' may be read before it is assigned" in msgs[0], msgs
    assert _compile_warnings(every_path) == []


def test_the_kernel_still_runs_where_every_read_is_assigned():
    # the warning does not stop the kernel: on the invocations that assign
    # y first, the result is right
    @vp.kernel
    def guarded(a: vp.Buffer[vp.float32], n: vp.uint32):
        i = vp.global_id().x
        if i < n:
            y = a[i] * 2.0
        if i < n:
            a[i] = y

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", vp.CompileWarning)
        a = vp.asarray(np.arange(8, dtype=np.float32))
        guarded(a, 8, dispatch=8)
    np.testing.assert_array_equal(a.numpy(), np.arange(8, dtype=np.float32) * 2)


def test_library_kernels_compile_without_warnings():
    # vp.sort's onesweep template (constant ifs pruned, many reassigned
    # names) and an eager ufunc: a library kernel that warned would show
    # every user a warning about code that is not theirs
    with warnings.catch_warnings():
        warnings.simplefilter("error", vp.CompileWarning)
        from vulpy import _sort_onesweep as so
        for word, vals in (("uint32", 0), ("uint32", 1), ("uint64", 1)):
            ns = so.kernels(word, 2 if word == "uint32" else 1, 4, 32, vals, cfg=so.settings("3"))
            for k in ("ohist", "oscan", "onesweep"):
                ns[k].program()
        x = vp.asarray(np.random.default_rng(0).standard_normal(3000).astype(np.float32))
        np.testing.assert_array_equal(vp.sort(x).numpy(), np.sort(x.numpy()))
        np.testing.assert_allclose((vp.sin(x) + 1.0).numpy(), np.sin(x.numpy()) + 1.0,
                                   rtol=1e-6, atol=1e-6)


def test_unsigned_compared_with_zero_warns_and_the_signed_form_is_right():
    # Python's i - 5 goes negative; a uint32 wraps, so `i - 5 < 0` never
    # holds: every element below took the else branch without a word
    @vp.kernel
    def wraps(a: vp.Buffer[vp.int32]):
        i = vp.global_id().x
        if i - 5 < 0:
            a[i] = 1
        else:
            a[i] = 2

    @vp.kernel
    def signed(a: vp.Buffer[vp.int32]):
        i = vp.global_id().x
        if vp.int32(i) - 5 < 0:
            a[i] = 1
        else:
            a[i] = 2

    msgs = _compile_warnings(wraps)
    assert len(msgs) == 1, msgs
    assert "comparison of an unsigned value (u32) with 0 is always False" in msgs[0]
    assert "if i - 5 < 0:" in msgs[0] and "vp.int32(i) - 5 < 0" in msgs[0]
    assert _compile_warnings(signed) == []
    a = vp.zeros(8, dtype=np.int32)
    signed(a, dispatch=8)
    np.testing.assert_array_equal(a.numpy(), np.where(np.arange(8) < 5, 1, 2))
