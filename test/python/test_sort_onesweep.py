"""The onesweep radix sort (bindings/python/vulpy/_sort_onesweep.py; issue
19), differentially against NumPy, beside the reduce-then-scan sort it
falls back to.

On lavapipe the onesweep path runs when asked for (vp._sort.SORT_PATH or
VULPY_SORT=onesweep). Its decoupled look-back waits on other workgroups,
which lavapipe's CPU threads may not let finish within its loop budget:
then a workgroup gives up and the safe path sorts again; the result must be
exact either way. With LP_NUM_THREADS=1 (a subprocess) lavapipe runs the
workgroups one after another in tile-id order, so no look-back waits and
the onesweep result itself is checked (last_path == "onesweep").

Sizes sit around the tile size (64 x 16 = 1024 keys with lavapipe's
8-lane subgroups; 4096 with 32 lanes): all-equal keys, sorted, reversed,
NaNs (payloads kept), -0.0 / +0.0 (input order kept), integer extremes,
rows (axis=), argsort equal to NumPy's kind='stable'.
"""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import vulpy as vp
from vulpy import _sort, _sort_onesweep
from conftest import needs_target

pytestmark = needs_target

SETTINGS = settings(max_examples=12, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
DTYPES = [np.float32, np.float64, np.int32, np.uint32, np.int64, np.uint64, np.bool_]


# The configurations the tests run: (VULPY_ONESWEEP spec, HIST_TILES) and
# the dtypes each is checked with. Each configuration and key kind compiles
# its own kernels, and lavapipe takes seconds a kernel (most of this file's
# time: it lowers their barriers to coroutines), so every test draws from
# these pairs only and each kernel compiles once in a run. The default runs
# every key kind; the others run float32 (32-bit words, where ksh, sharev
# and ipt apply) and int64 (64-bit words). Every switch of the template is
# on in one of them and off in another: lb 8 / 1 / 3 (a look-back of three
# words a step), scan 1 / 0, ksh 1 / 0, sharev, defer and w1 0 / 1 (w1: a
# look-back that waits on the nearest word alone, not rereading lb), mk 1 / 0
# (the ids masked to their ranges), bt 1 / 0 (the ranking's bit tests as
# ballot predicates and selects, or as shifted bits) and lbf 1 / 0 (a
# look-back step's words added without a branch, from the first unpublished
# and INC words, or one by one with branches) and aor 0 / 1 (a round's peers
# by the 8 ballots, or by atomic xors into a shared word per digit between
# subgroup barriers: float32's in the tile's sorted-key array, which the
# 64 x 32 tile makes big enough, as on NVIDIA; int64's in an array of their
# own); the tile
# 64 x 16 / 64 x 32 / 64 x 6 (lavapipe's 8-lane subgroups); histogram chunks of 16, 1
# and 2 tiles put chunk boundaries inside the sizes below. The second has
# the settings of the retired variant 2, with aor.
DEFAULT = ("3", 16)
V2 = ("3:lb=1,scan=0,ksh=0,aor=1,ipt=32", 1)
OTHER = ("3:ipt=6,lb=3,ksh=0,sharev=1,defer=1,w1=1,mk=0,bt=0,lbf=0", 2)
CONFIGS = [(DEFAULT, DTYPES), (V2, [np.float32, np.int64]), (OTHER, [np.float32, np.int64])]
VARIANTS = [v for v, _ in CONFIGS]
PAIRS = [(v, dt) for v, dts in CONFIGS for dt in dts]


class variant:
    """with variant((spec, chunk), path): the onesweep variant `spec`
    with HIST_TILES = chunk (and the sort path `path`) while the block runs."""

    def __init__(self, v=DEFAULT, path="onesweep"):
        self.v, self.path = v, path

    def __enter__(self):
        o = _sort_onesweep
        self.saved = (o.VARIANT, o.HIST_TILES, _sort.SORT_PATH)
        (o.VARIANT, o.HIST_TILES), _sort.SORT_PATH = self.v, self.path

    def __exit__(self, *exc):
        o = _sort_onesweep
        o.VARIANT, o.HIST_TILES, _sort.SORT_PATH = self.saved


def tile(dt, v=DEFAULT):
    sg = vp.default_context().info["limits"]["subgroup_size"]
    lanes, ipt = _sort_onesweep.shape("uint64" if np.dtype(dt).itemsize == 8 else "uint32", sg,
                                      _sort_onesweep.settings(v[0]))
    return lanes * ipt


def pattern(dt, n, kind, rng):
    dt = np.dtype(dt)
    if dt.kind == "b":
        a = rng.integers(0, 2, n).astype(bool)
    elif dt.kind == "f":
        a = rng.choice(np.array([0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 1.5, -1.5,
                                 1e-30, -1e30], dt), n)
        m = rng.random(n) < 0.5
        a[m] = rng.standard_normal(int(m.sum())).astype(dt)
        if n:  # a NaN with a payload of its own must keep it
            bits = a[:1].view(np.uint32 if dt.itemsize == 4 else np.uint64)
            bits[0] = 0x7FC00123 if dt.itemsize == 4 else 0xFFF8000000000123
    else:
        info = np.iinfo(dt)
        a = rng.choice(np.array([info.min, info.max, 0, 1, info.max - 1, info.min + 1], dt), n)
        m = rng.random(n) < 0.5
        a[m] = rng.integers(int(info.min), int(info.max), int(m.sum()), dtype=dt,
                            endpoint=True)
    if kind == "equal":
        a[:] = a[0] if n else a
    elif kind == "sorted":
        a = np.sort(a, kind="stable")
    elif kind == "reversed":
        a = np.sort(a, kind="stable")[::-1].copy()
    return a


def bits(x):
    x = np.asarray(x)
    return x.view(np.uint8) if x.dtype == np.bool_ else x.view(f"u{x.dtype.itemsize}")


def check(h, path, axis=-1, v=DEFAULT):
    with variant(v, path):
        got = vp.sort(vp.asarray(h), axis=axis).numpy()
        ran = _sort.last_path
        idx = vp.argsort(vp.asarray(h), axis=axis).numpy()
    want = np.sort(h, axis=axis, kind="stable")
    assert np.array_equal(bits(got), bits(want)), (h.dtype, h.shape, path)
    assert np.array_equal(idx, np.argsort(h, axis=axis, kind="stable")), (h.dtype, h.shape, path)
    return ran


@SETTINGS
@given(st.sampled_from(PAIRS), st.sampled_from([-1, 0, 1]), st.integers(-3, 3),
       st.sampled_from(["random", "equal", "sorted", "reversed"]), st.integers(0, 2 ** 31))
def test_onesweep_matches_numpy_near_tile_sizes(pair, k, off, kind, seed):
    v, dt = pair
    rng = np.random.default_rng(seed)
    n = max(0, (k + 1) * tile(dt, v) + off) if k >= 0 else 1 + off % 3
    h = pattern(dt, n, kind, rng)
    ran = check(h, "onesweep", v=v)
    assert n == 0 or ran in ("onesweep", "onesweep->rts")
    check(h, "rts")


@SETTINGS
@given(st.sampled_from(PAIRS), st.integers(1, 4), st.integers(1, 3000), st.integers(0, 2 ** 31),
       st.booleans())
def test_onesweep_rows(pair, rows, n, seed, first_axis):
    v, dt = pair
    # several rows: tiles never cross a row; the look-back stops at a row's
    # first tile; per-row histograms (histogram chunks never cross a row
    # either)
    rng = np.random.default_rng(seed)
    h = pattern(dt, rows * n, "random", rng).reshape(rows, n)
    if first_axis:
        check(np.ascontiguousarray(h.T), "onesweep", axis=0, v=v)
    else:
        check(h, "onesweep", v=v)


@pytest.mark.parametrize("v", VARIANTS, ids=[v[0] for v in VARIANTS])
def test_histogram_chunks_and_tile_sizes(v):
    # the sizes where the histogram chunks (HIST_TILES tiles of a row) and
    # the tiles end, keys and payloads, one row and two
    rng = np.random.default_rng(3)
    t, chunk = tile(np.float32, v), v[1]
    for n in (chunk * t + 1, 3 * chunk * t - 1, 17 * t):
        h = pattern(np.float32, n, "random", rng)
        assert check(h, "onesweep", v=v) in ("onesweep", "onesweep->rts")
    h = pattern(np.float32, 2 * n, "random", rng).reshape(2, n)
    check(h, "onesweep", v=v)


@pytest.mark.parametrize("spec", ["4", "x", "3:lb=0", "3:lanes=100", "3:ipt", "3:bogus=1",
                                  "3:ipt=-2", "2", "3:pack=1", "3:hco=8"])
def test_bad_variant_names_the_variable(spec):
    with variant((spec, 16)):
        with pytest.raises(ValueError, match="VULPY_ONESWEEP"):
            vp.sort(vp.asarray(np.arange(3000, dtype=np.float32)))


def test_variant_settings():
    o = _sort_onesweep
    assert sorted(o.VARIANTS) == [3]
    assert o.settings("3") == o.VARIANTS[3]
    assert o.settings("3:lb=4,ipt=12") == dict(o.VARIANTS[3], lb=4, ipt=12)
    assert o.shape("uint32", 32, o.settings("3:ipt=12,lanes=128")) == (128, 12)
    assert o.shape("uint64", 32, o.settings("3:ipt=12")) == (256, 8)   # 32-bit keys only
    assert o.shape("uint32", 8, o.settings("3")) == (64, 16)


def test_profile_lists_the_dispatches():
    # _sort.PROFILE (the bench's breakdown): one GPU time per dispatch, named
    if not vp.default_context().info["limits"].get("timestamps"):
        pytest.skip("the device writes no timestamps")
    _sort.PROFILE = True
    try:
        with variant(path="rts"):
            vp.sort(vp.asarray(np.arange(5000, 0, -1).astype(np.uint32)))
    finally:
        _sort.PROFILE = False
    names = [name for name, _ in _sort.last_times]
    assert names == ["hist", "col_scan", "scatter"] * 4, names  # 3 tiles: one scan level
    assert all(ms > 0 for _, ms in _sort.last_times)


def _sort_onesweep_array():
    from vulpy import _array  # the module sort_rows allocates its buffers with
    return _array


def test_wrong_subgroup_size_gives_up(monkeypatch):
    # kernels built for another subgroup size than the device runs must not
    # return a wrong order: they report it, and the caller sorts again; and
    # they write no key (their ranks are wrong, so a key's place could lie
    # outside its row): the buffers the passes write keep their fill
    v = DEFAULT
    ctx = vp.default_context()
    real = ctx.info["limits"]["subgroup_size"]
    other = 16 if real != 16 else 8
    keys = vp.asarray(np.arange(3000, 0, -1).astype(np.uint32).reshape(1, 3000))
    made, result = [], _sort_onesweep_array()._result
    sentinel = np.uint32(0xDEADBEEF)

    def filled(shape, dtype, mem, c):
        r = result(shape, dtype, mem, c)
        if tuple(shape) == keys.shape:
            r[...] = sentinel
            made.append(r)
        return r

    with variant(v):
        monkeypatch.setattr(_sort_onesweep_array(), "_result", filled)
        assert _sort_onesweep.sort_rows(keys, True, False, "uint32", 0, 32, _sort._Rec,
                                        _sort._grid, sg=other) is None
        monkeypatch.undo()
        # the passes' key and payload buffers (2 + 2), and argsort's int64
        # positions where the device has int64
        assert len(made) >= 4
        for r in made:
            assert np.all(r.numpy() == sentinel)
        got = _sort_onesweep.sort_rows(keys, True, False, "uint32", 0, 32, _sort._Rec,
                                       _sort._grid)
    if got is not None:  # (None: a look-back ran out of lavapipe's budget)
        assert np.array_equal(got[0].numpy()[0], np.arange(1, 3001, dtype=np.uint32))


def test_auto_path_on_lavapipe_is_the_safe_one():
    # lavapipe gives no forward progress between workgroups: the runtime
    # must not pick the look-back sort there by itself
    if vp.default_context().kind != "cpu":
        pytest.skip("the check is about CPU devices")
    vp.sort(vp.asarray(np.arange(5000, 0, -1).astype(np.float32)))
    assert _sort.last_path == "rts"


def test_bad_path_names_the_variable():
    _sort.SORT_PATH = "fast"
    try:
        with pytest.raises(ValueError, match="VULPY_SORT"):
            vp.sort(vp.asarray(np.arange(3.0, dtype=np.float32)))
    finally:
        _sort.SORT_PATH = None


# one lavapipe thread (a subprocess): workgroups run in tile-id order,
# nothing waits, so the onesweep result itself is the one checked (no
# fallback). Each variant: every key mode its kernels have, sizes around
# the tile (1024 keys here), several tiles in 1 and 3 rows, and one
# size of more than 16 tiles (one row): histogram chunks of the default
# 16 tiles end inside it and look-back walks pass more than 8 tiles.
_ALL = "(np.float32, np.uint32, np.int32, np.float64, np.int64, np.uint64, np.bool_)"
_TWO = "(np.float32, np.int64)"


def _setup(v):
    """The subprocess's lines that select configuration v."""
    return f"o.HIST_TILES = {v[1]}; o.VARIANT = {v[0]!r}"


_SEQUENTIAL = [
    # (what it checks, setup, dtypes, sizes): CONFIGS, each with its dtypes
    ("variant 3 (the default)", _setup(DEFAULT), _ALL, "(1, 1023, 1024, 1025, 5000, 17500)"),
    ("variant 2's settings", _setup(V2), _TWO, "(1, 1025, 2048, 5000, 17500)"),
    ("ipt=6 tiles, lb=3, sharev, defer, w1", _setup(OTHER), _TWO,
     "(1, 383, 385, 1537, 4000, 17500)"),
    # the look-back's other branch: no tile but a row's first publishes an
    # inclusive prefix, so each tile adds the aggregates of all tiles before
    # it in its row (a sequential run otherwise finds the inclusive prefix
    # of the tile just before), lb words a step (lb=3: steps that end past
    # the row's first tile, whose reads are clamped to it)
    ("aggregate chain, lb=8", "o.PUBLISH_INCLUSIVE = False; " + _setup(DEFAULT), _TWO,
     "(1, 1023, 5000, 17500)"),
    ("aggregate chain, lb=3", "o.PUBLISH_INCLUSIVE = False; " + _setup(OTHER), "(np.float32,)",
     "(1, 1023, 5000, 17500)"),
]


@pytest.mark.parametrize("what,setup,dtypes,sizes", _SEQUENTIAL, ids=[c[0] for c in _SEQUENTIAL])
def test_onesweep_itself_sequential_lavapipe(what, setup, dtypes, sizes):
    if vp.default_context().kind != "cpu":
        pytest.skip("LP_NUM_THREADS is lavapipe's")
    _run_sequential("from vulpy import _sort_onesweep as o; " + setup, dtypes, sizes)


def _run_sequential(setup, dtypes, sizes):
    code = setup + "\n" + textwrap.dedent("""
        import numpy as np, vulpy as vp
        from vulpy import _sort
        rng = np.random.default_rng(7)
        for dt in DTYPES:
            for n in SIZES:
                if np.dtype(dt).kind == "f":
                    h = rng.standard_normal(n).astype(dt)
                    h[::7] = -0.0; h[1::7] = 0.0; h[2::11] = np.nan
                elif np.dtype(dt).kind == "b":
                    h = rng.integers(0, 2, n).astype(bool)
                else:
                    i = np.iinfo(dt)
                    h = rng.integers(int(i.min), int(i.max), n, dtype=dt, endpoint=True)
                    h[::5] = i.min; h[1::5] = i.max
                # (3 rows: tiles never cross a row; the look-back stops at a
                # row's first tile; per-row histograms)
                for x in (h, h.reshape(1, n).repeat(3, 0))[:1 if n > 10000 else 2]:
                    got = vp.sort(vp.asarray(x)).numpy()
                    assert _sort.last_path == "onesweep", (dt, n, _sort.last_path)
                    w = np.sort(x, kind="stable")
                    v = "u%d" % w.dtype.itemsize
                    assert np.array_equal(got.view(v), w.view(v)), (dt, n)
                    idx = vp.argsort(vp.asarray(x)).numpy()
                    assert _sort.last_path == "onesweep", (dt, n, _sort.last_path)
                    assert np.array_equal(idx, np.argsort(x, kind="stable")), (dt, n)
        print("ok")
    """).replace("SIZES", sizes)
    # The time is lavapipe compiling the kernels (seconds each, one thread):
    # the dtypes split between two processes, one a core (the shader cache
    # in XDG_CACHE_HOME is shared, and safe to share).
    names = [d.strip() for d in dtypes.strip("()").split(",") if d.strip()]
    env = dict(os.environ, LP_NUM_THREADS="1", VULPY_SORT="onesweep")
    procs = [subprocess.Popen([sys.executable, "-c",
                               code.replace("DTYPES", "(" + ", ".join(part) + ",)")],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for part in (names[0::2], names[1::2]) if part]
    try:
        results = [p.communicate(timeout=600) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    for p, (out, err) in zip(procs, results):
        assert p.returncode == 0 and "ok" in out, out[-3000:] + err[-3000:]


def test_plans_are_bounded_and_keyed_by_shape():
    # a context keeps one plan per call shape (_sort_onesweep._plan), at
    # most _PLANS of them; each size still sorts right
    ctx = vp.default_context()
    with variant(DEFAULT):
        ctx._plans.clear()
        for n in range(1, _sort_onesweep._PLANS + 6):
            h = np.arange(n, 0, -1).astype(np.uint32)
            np.testing.assert_array_equal(vp.sort(vp.asarray(h)).numpy(), np.sort(h))
        assert len(ctx._plans) == _sort_onesweep._PLANS
        assert all(k[0] == "onesweep" for k in ctx._plans)
