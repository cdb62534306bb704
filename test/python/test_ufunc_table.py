"""The one ufunc table (issue 14, "One array path, NumPy semantics written
once"): include/vulpy/ir/ufuncs.def lists NumPy's ufuncs, every vp ufunc is
one entry of it, every call (eager, resident operator, vp.jit) records one
`array.ufunc NAME` op, and the C pass lower-ufuncs gives NumPy's answers.
Comparisons of a signed and an unsigned 64-bit operand (NumPy's (int64,
uint64) loops) were a compile error before the table and are exact now."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import vulpy as vp
from conftest import needs_target
from vulpy import _native, _ufunc

pytestmark = needs_target

CMP = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")


def test_every_table_entry_is_a_vp_ufunc():
    table = _native.ext().ufuncs()
    # the Python list of names (import vulpy loads no extension) is the C table's
    from vulpy import _ufunc
    assert tuple(tuple(e) for e in table) == _ufunc._TABLE
    assert len(table) == len({n for n, _ in table}) > 60
    for name, nin in table:
        uf = getattr(vp, name)
        assert uf.nin == nin and uf.np is getattr(np, name), name


@pytest.mark.parametrize("name", ["maximum", "floor_divide", "power", "sign", "left_shift"])
def test_a_call_records_one_array_ufunc(ctx, name):
    uf = getattr(vp, name)
    a = np.arange(1, 9, dtype=np.int32) if name in ("floor_divide", "power", "left_shift") else \
        np.linspace(-2, 2, 8).astype(np.float32)
    args = (a,) * uf.nin
    np.testing.assert_array_equal(uf(*args, context=ctx), getattr(np, name)(*args))
    vir = uf.last_compiled.array_vir
    assert vir.count("array.ufunc") == 1 and f"array.ufunc {name} " in vir


def test_jit_records_array_ufunc(ctx):
    f = vp.jit(lambda a, b: vp.maximum(a, b) // 2)
    a = vp.asarray(np.arange(10, dtype=np.int64), context=ctx)
    b = vp.asarray(np.full(10, 4, np.int64), context=ctx)
    if not ctx.has("int64"):
        pytest.skip("no int64")
    np.testing.assert_array_equal(f(a, b).numpy(), np.maximum(np.arange(10), 4) // 2)
    assert "array.ufunc maximum" in f.array_vir and "array.ufunc floor_divide" in f.array_vir


EDGES = [0, 1, -1, 2**31 - 1, -2**31, 2**32, 2**62, 2**63 - 1, -2**63]
UEDGES = [0, 1, 2**31, 2**32 - 1, 2**63 - 1, 2**63, 2**64 - 1]


@pytest.mark.parametrize("name", CMP)
def test_signed_vs_unsigned_64_edges(ctx, name):
    if not ctx.has("int64"):
        pytest.skip("no int64")
    i = np.array([e for e in EDGES for _ in UEDGES], np.int64)
    u = np.array([e for _ in EDGES for e in UEDGES], np.uint64)
    uf, ref = getattr(vp, name), getattr(np, name)
    np.testing.assert_array_equal(uf(i, u, context=ctx), ref(i, u))
    np.testing.assert_array_equal(uf(u, i, context=ctx), ref(u, i))
    # resident operands, and a 32-bit signed operand (loop int64 x uint64)
    ri, ru = vp.asarray(i, context=ctx), vp.asarray(u, context=ctx)
    np.testing.assert_array_equal(uf(ri, ru).numpy(), ref(i, u))
    i32 = np.clip(i, -2**31, 2**31 - 1).astype(np.int32)
    np.testing.assert_array_equal(uf(i32, u, context=ctx), ref(i32, u))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(-2**63, 2**63 - 1), st.integers(0, 2**64 - 1)),
                min_size=1, max_size=40), st.sampled_from(CMP))
def test_signed_vs_unsigned_64_random(pairs, name):
    ctx = vp.default_context()
    if not ctx.has("int64"):
        pytest.skip("no int64")
    i = np.array([p[0] for p in pairs], np.int64)
    u = np.array([p[1] for p in pairs], np.uint64)
    np.testing.assert_array_equal(getattr(vp, name)(i, u), getattr(np, name)(i, u))


@pytest.mark.parametrize("name", ["hypot", "fmod", "gcd", "fabs"])
def test_more_ufuncs_compile_once_for_every_size(ctx, name):
    """The ufuncs of issue 19 are entries of the table like the others, so
    they take the dynamic-extent path too: one compile serves every size
    (they compiled once per shape on the static array path before)."""
    from vulpy import _compiler
    dt = np.int32 if name == "gcd" else np.float32
    uf, ref = getattr(vp, name), getattr(np, name)
    before = None
    for n in (5, 17, 1000, 4099):
        a = (np.arange(n) % 97 - 40).astype(dt)
        b = (np.arange(n) % 13 + 1).astype(dt)
        args = (a, b)[:uf.nin]
        got = uf(*args, context=ctx)
        want = ref(*args)
        if name == "hypot":
            np.testing.assert_allclose(got, want, rtol=4e-7)
        else:
            np.testing.assert_array_equal(got, want)
        ra = [vp.asarray(x, context=ctx) for x in args]
        got = uf(*ra).numpy()
        np.testing.assert_allclose(got, want, rtol=4e-7) if name == "hypot" else \
            np.testing.assert_array_equal(got, want)
        if before is None:
            before = _compiler.stats["compiled"]
    assert _compiler.stats["compiled"] == before
