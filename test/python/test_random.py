"""vp.random (issue 19): the Philox stream against NumPy's, sample for sample,
and the other methods by statistics with a fixed seed (so nothing flakes).

Bit-identical to NumPy's Generator(Philox(seed)): bit_generator.random_raw,
random() in float64 and float32, across calls (a partly used block, the
buffered 32-bit half) and through .state. Not bit-identical (parallel
methods, docs/python-api.md "Random numbers"): standard_normal (Box-Muller),
normal, uniform, exponential, integers: tested for their distribution.
"""
import math
import os
import re

import numpy as np
import pytest

import vulpy as vp
from conftest import ROOT, needs_target

pytestmark = needs_target

SEEDS = [0, 1, 12345, 2**63 + 7, [1, 2, 3]]


def _np_gen(seed, **kw):
    return np.random.Generator(np.random.Philox(seed, **kw))


def _vp_gen(seed, **kw):
    return vp.random.Generator(vp.random.Philox(seed, **kw))


def _host(x):
    assert isinstance(x, vp.ndarray)
    return x.numpy()


# ------------------------------------------------------------ bit identity
@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n", [0, 1, 3, 4, 5, 17, 1000, 4099])
def test_random_raw_matches_numpy(seed, n):
    want = np.random.Philox(seed).random_raw(n)
    got = _host(vp.random.Philox(seed).random_raw(n))
    assert got.dtype == np.uint64 and got.shape == (n,)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n", [0, 1, 2, 7, 8, 9, 33, 1001])
def test_random_matches_numpy(seed, dtype, n):
    want = _np_gen(seed).random(n, dtype=dtype)
    got = _host(_vp_gen(seed).random(n, dtype=dtype))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


# calls that leave a block partly used and a 32-bit half buffered, mixed
CALLS = [("f32", 3), ("f64", 5), ("raw", 2), ("f32", 1), ("f32", 6), ("f64", 1),
         ("f32", 9), ("raw", 7), ("f32", 0), ("f64", 0), ("f32", 2), ("raw", 1),
         ("f32", 13), ("f64", 4)]


def _call(gen, kind, n, raw):
    if kind == "raw":
        return raw(n)
    return gen.random(n, dtype=np.float32 if kind == "f32" else np.float64)


@pytest.mark.parametrize("seed", [7, 2**40 + 3])
def test_consecutive_calls_continue_numpys_stream(seed):
    ng, vg = _np_gen(seed), _vp_gen(seed)
    for kind, n in CALLS:
        want = _call(ng, kind, n, ng.bit_generator.random_raw)
        got = _host(_call(vg, kind, n, vg.bit_generator.random_raw))
        np.testing.assert_array_equal(got, want, err_msg=f"{kind}({n})")
        st, nst = vg.bit_generator.state, ng.bit_generator.state
        for f in ("buffer_pos", "has_uint32", "uinteger"):
            assert st[f] == nst[f], (kind, n, f)
        for f in ("counter", "key"):
            np.testing.assert_array_equal(st["state"][f], nst["state"][f])
        np.testing.assert_array_equal(st["buffer"], nst["buffer"])


def test_key_and_counter_arguments():
    for kw in ({"key": 0x1234_5678_9ABC_DEF0_1111}, {"seed": 5, "counter": 2**64 - 2},
               {"key": [3, 4], "counter": [2**64 - 1, 2**64 - 1, 2**64 - 1, 5]}):
        want = np.random.Philox(**kw).random_raw(23)
        got = _host(vp.random.Philox(**kw).random_raw(23))  # counter carries across words
        np.testing.assert_array_equal(got, want, err_msg=str(kw))


def test_state_moves_between_numpy_and_vulpy():
    vg, ng = _vp_gen(99), _np_gen(99)
    vg.random(5, dtype=np.float32)
    ng.random(5, dtype=np.float32)
    # VulPy -> NumPy
    other = np.random.Generator(np.random.Philox())
    other.bit_generator.state = vg.bit_generator.state
    np.testing.assert_array_equal(other.random(11, dtype=np.float32),
                                  ng.random(11, dtype=np.float32))
    # NumPy -> VulPy
    vg.bit_generator.state = ng.bit_generator.state
    np.testing.assert_array_equal(_host(vg.random(6, dtype=np.float32)),
                                  ng.random(6, dtype=np.float32))
    np.testing.assert_array_equal(_host(vg.random(3)), ng.random(3))


def test_advance_and_jumped_match_numpy():
    vb, nb = vp.random.Philox(8), np.random.Philox(8)
    vb.random_raw(3)
    nb.random_raw(3)
    assert vb.advance(2**70 + 5) is vb
    nb.advance(2**70 + 5)
    np.testing.assert_array_equal(_host(vb.random_raw(9)), nb.random_raw(9))
    vj, nj = vb.jumped(2), nb.jumped(2)
    np.testing.assert_array_equal(_host(vj.random_raw(9)), nj.random_raw(9))
    np.testing.assert_array_equal(_host(vb.random_raw(2)), nb.random_raw(2))  # unchanged


def test_size_shapes_and_out():
    g, ng = _vp_gen(3), _np_gen(3)
    x = g.random((3, 5))
    assert isinstance(x, vp.ndarray) and x.shape == (3, 5)
    np.testing.assert_array_equal(x.numpy(), ng.random((3, 5)))
    s = g.random()
    assert s.shape == () and float(s) == ng.random()
    out = vp.empty((2, 4), np.float32)
    r = g.random(dtype=np.float32, out=out)
    assert r is out
    np.testing.assert_array_equal(out.numpy(), ng.random((2, 4), dtype=np.float32))
    big = vp.zeros(20, np.float32)  # a contiguous view into a larger array
    g.random(dtype=np.float32, out=big[3:15])
    np.testing.assert_array_equal(big.numpy()[3:15], ng.random(12, dtype=np.float32))
    assert not big.numpy()[:3].any() and not big.numpy()[15:].any()
    z = vp.empty(6, np.float64)
    assert g.standard_normal(out=z) is z


def test_large_random_float32_matches_numpy():
    n = (1 << 20) + 5
    np.testing.assert_array_equal(_host(_vp_gen(11).random(n, dtype=np.float32)),
                                  _np_gen(11).random(n, dtype=np.float32))


def test_two_d_grid_fold(monkeypatch):
    # past the device's x workgroup limit (65535 groups on lavapipe: 2^28
    # float32 samples need 2^25 invocations) the kernels run on a 2-D grid;
    # a limit of 3 groups (192 invocations) checks that fold on small sizes
    monkeypatch.setattr(vp.random, "_GRID_X_GROUPS", 3)
    for n in (192 * 8, 192 * 8 + 8, 5000):
        np.testing.assert_array_equal(_host(_vp_gen(n).random(n, dtype=np.float32)),
                                      _np_gen(n).random(n, dtype=np.float32))
    np.testing.assert_array_equal(_host(vp.random.Philox(4).random_raw(3001)),
                                  np.random.Philox(4).random_raw(3001))
    monkeypatch.setattr(vp.random, "_GRID_X_GROUPS", None)
    want = _host(_vp_gen(9).standard_normal(4096, dtype=np.float32))
    monkeypatch.setattr(vp.random, "_GRID_X_GROUPS", 1)
    np.testing.assert_array_equal(_host(_vp_gen(9).standard_normal(4096, dtype=np.float32)),
                                  want)


@pytest.mark.slow
def test_more_blocks_than_the_x_workgroup_limit():
    # lavapipe allows 65535 workgroups along x (64 invocations each): one
    # block more takes the real 2-D grid (33.5M float32, about 15 s on lavapipe)
    gx = vp.default_context().info["limits"]["max_workgroup_count"][0]
    if gx > 65535:
        pytest.skip("this device's x limit needs more than 134 MB to pass")
    n = 8 * (gx * 64 + 1) + 3
    np.testing.assert_array_equal(_host(_vp_gen(3).random(n, dtype=np.float32)),
                                  _np_gen(3).random(n, dtype=np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vector_and_scalar_stores_agree(dtype):
    # n % 8 == 0 takes the vec4-store kernels, other n the scalar ones: the
    # same samples in the same places
    a = _host(_vp_gen(6).standard_normal(64, dtype=dtype))
    b = _host(_vp_gen(6).standard_normal(61, dtype=dtype))
    np.testing.assert_array_equal(a[:61], b)
    g = _vp_gen(6)
    g.random(3, dtype=dtype)
    c = _host(g.standard_normal(16, dtype=dtype))  # a partly used block is skipped
    np.testing.assert_array_equal(c, a[8:24] if dtype == np.float32 else a[4:20])


def test_uniform_is_numpys_formula_to_rounding():
    got = _host(_vp_gen(12).uniform(-2.0, 6.0, 1001))
    want = _np_gen(12).uniform(-2.0, 6.0, 1001)
    np.testing.assert_allclose(got, want, rtol=0, atol=2 * np.finfo(np.float64).eps * 6.0)


_U64, _M32 = np.uint64, np.uint64(0xFFFFFFFF)


def _philox4x32(x, k):
    """Philox4x32-10 (Random123's philox4x32_R) of counters x (four arrays
    of 32-bit words) under key k (two words), in uint64 NumPy arithmetic."""
    x = [np.asarray(v, dtype=_U64) for v in x]
    k0, k1 = _U64(k[0]), _U64(k[1])
    for _ in range(10):
        p0, p1 = _U64(0xD2511F53) * x[0], _U64(0xCD9E8D57) * x[2]
        x = [(p1 >> _U64(32)) ^ x[1] ^ k0, p1 & _M32, (p0 >> _U64(32)) ^ x[3] ^ k1, p0 & _M32]
        k0, k1 = (k0 + _U64(0x9E3779B9)) & _M32, (k1 + _U64(0xBB67AE85)) & _M32
    return x


def test_philox4x32_reference_known_answers():
    # Random123's kat_vectors for philox4x32_10: the reference below is the
    # published generator, so the float32 normals check against it
    kat = [([0, 0, 0, 0], [0, 0], [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]),
           ([0xffffffff] * 4, [0xffffffff] * 2, [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]),
           ([0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344], [0xa4093822, 0x299f31d0],
            [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1])]
    for ctr, key, want in kat:
        assert [int(v) for v in _philox4x32(ctr, key)] == want


def _normal32_words(seed, n, **kw):
    """docs/python-api.md's float32 normal words: for block g (counter
    D = C + g) and half j, Philox4x32-10 of (lo32 D, hi32 D, fold2,
    fold3 << 1 | j) under the folded key; four words per half."""
    full = np.random.Philox(seed, **kw).state
    st = full["state"]
    k0, k1 = (int(v) for v in st["key"])
    c = [int(v) for v in st["counter"]]
    # a fresh Philox has used its buffered block: the first one is counter + 1
    ctr = (c[0] | c[1] << 64 | c[2] << 128 | c[3] << 192) + (full["buffer_pos"] >= 4)
    key = ((k0 ^ (k1 >> 32)) & 0xFFFFFFFF, ((k0 >> 32) ^ k1) & 0xFFFFFFFF)
    halves = -(-n // 4)
    cols = []
    for t in range(halves):
        d = (ctr + t // 2) % 2**256
        d1, d2, d3 = (d >> 64) & (2**64 - 1), (d >> 128) & (2**64 - 1), d >> 192
        f2 = (d2 & 0xFFFFFFFF) ^ (d1 >> 32)
        f3 = ((d1 ^ (d2 >> 32) ^ d3 ^ (d3 >> 32)) & 0xFFFFFFFF) << 1 & 0xFFFFFFFF
        cols.append((d & 0xFFFFFFFF, (d >> 32) & 0xFFFFFFFF, f2, f3 | (t & 1)))
    x = _philox4x32(np.array(cols, dtype=np.uint64).T, key)
    return np.stack(x, axis=1).ravel()  # y0 y1 y2 y3 of each half, in order


def _box_muller_reference(seed, n, dtype, du=0.0, dtheta=0.0, **kw):
    """docs/python-api.md's Box-Muller, in float64 on the host: float32
    from the Philox4x32 words above, float64 from NumPy's raw Philox words
    (whole blocks from the start of the stream). du and dtheta move u1 and
    the angle (float32: in units of their 2^-24 steps), to check that the
    accuracy bounds below reject a wrong formula."""
    per = 8 if dtype == np.float32 else 4
    if dtype == np.float32:
        words = _normal32_words(seed, n, **kw)
        a, b = words[0::2], words[1::2]
        u1 = ((a >> np.uint64(8)).astype(np.float64) + 1.0 - du) * 2.0 ** -24
        m = (b >> np.uint64(8)).astype(np.int64)
        theta = (m >> 22) * (np.pi / 2) + ((m & 0x3FFFFF) - 2**21 + dtheta) * (
            np.pi / 2) * 2.0 ** -22
    else:
        words = np.random.Philox(seed, **kw).random_raw(-(-n // per) * 4)
        a, b = words[0::2], words[1::2]
        u1 = ((a >> np.uint64(11)).astype(np.float64) + 1.0) * 2.0 ** -53
        theta = (b >> np.uint64(11)).astype(np.float64) * 2.0 ** -53 * 2 * np.pi
    r = np.sqrt(-2.0 * np.log(u1))
    return np.stack([r * np.cos(theta), r * np.sin(theta)], axis=1).ravel()[:n]


@pytest.mark.parametrize("dtype,tol", [(np.float32, 2e-6), (np.float64, 1e-13)])
@pytest.mark.parametrize("n", [5, 12, 64, 1001])
def test_standard_normal_is_the_documented_box_muller(dtype, tol, n):
    got = _host(_vp_gen(21).standard_normal(n, dtype=dtype)).astype(np.float64)
    want = _box_muller_reference(21, n, dtype)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_float32_normals_across_a_counter_wrap():
    # the block counter's low word wraps to 0 inside the call (the kernels'
    # `wrap`): the blocks after it take the upper words' next fold
    for ctr in (2**64 - 3, 2**128 - 2, 2**32 - 1):
        got = _host(_vp_gen(4, counter=ctr).standard_normal(64, dtype=np.float32))
        want = _box_muller_reference(4, 64, np.float32, counter=ctr)
        np.testing.assert_allclose(got.astype(np.float64), want, rtol=2e-6, atol=2e-6)
    # jumped streams (2^128 blocks apart) are different samples
    a = _host(vp.random.Generator(vp.random.Philox(4).jumped()).standard_normal(
        64, dtype=np.float32))
    b = _host(_vp_gen(4).standard_normal(64, dtype=np.float32))
    assert not np.any(a == b)


# The float32 normal paths (random.NORMAL32_PATHS): v8, the exact math (the
# default off NVIDIA), and lean:v32/128 (NVIDIA's default). The other
# shapes and math were retired (bench/notes/random.md).
_PATHS32 = list(vp.random.NORMAL32_PATHS)
_DEFAULT32 = "v8"  # the exact path (VULPY_NORMAL32_PATH=v8)


def _normals32(monkeypatch, path, seed, n, counter=None, scaled=False):
    monkeypatch.setattr(vp.random, "_NORMAL32_PATH", path)
    g = _vp_gen(seed, counter=counter)
    g.random(3, dtype=np.float32)  # the call starts at a later block
    if scaled:
        return _host(g.normal(3.0, 2.0, n, dtype=np.float32))
    return _host(g.standard_normal(n, dtype=np.float32))


def test_float32_normal_paths_are_the_two_defaults():
    assert _PATHS32 == ["v8", "lean:v32/128"]


@pytest.mark.parametrize("n", [4, 8, 12, 1000, 4100, 70_004])
def test_float32_exact_path_is_the_documented_formula(monkeypatch, n):
    # random(3) used block 0: the normals start at block 1, eight a block
    got = _normals32(monkeypatch, _DEFAULT32, 31, n).astype(np.float64)
    np.testing.assert_allclose(got, _box_muller_reference(31, 8 + n, np.float32)[8:8 + n],
                               rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("path", _PATHS32)
def test_float32_normal_paths_fold_the_grid(monkeypatch, path):
    # past the x workgroup limit (here 1 group) the launches take a 2-D
    # grid whose rows the kernels fold back
    want = _normals32(monkeypatch, path, 9, 4104 * 3)
    monkeypatch.setattr(vp.random, "_GRID_X_GROUPS", 1)
    np.testing.assert_array_equal(_normals32(monkeypatch, path, 9, 4104 * 3), want)


@pytest.mark.parametrize("path", _PATHS32)
@pytest.mark.parametrize("n", [1, 3, 4099, 70_001])
def test_float32_normal_paths_agree_with_the_scalar_kernel(monkeypatch, path, n):
    # n not a multiple of 4 takes normal_f32 (scalar stores) of the path's
    # math: its samples are the path's first n of the next multiple of 4
    want = _normals32(monkeypatch, path, 77, n)
    got = _normals32(monkeypatch, path, 77, -(-n // 4) * 4)[:n]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("path", _PATHS32)
def test_float32_normal_paths_across_a_counter_wrap(monkeypatch, path):
    # seeds and a counter whose low word wraps inside the call; sizes that
    # end inside a group and inside a K x W stretch
    for seed, n, ctr in ((31, 4, None), (5, 1028, None), (2**63 + 7, 4 * 1031, None),
                         (4, 4 * 517, 2**64 - 40)):
        got = _normals32(monkeypatch, path, seed, n, ctr)
        assert np.isfinite(got).all()
        want = _box_muller_reference(seed, 8 + n, np.float32, counter=ctr)[8:8 + n]
        k, a = _accuracy(path)
        assert _within(got.astype(np.float64), want, k, a), (seed, n)


@pytest.mark.parametrize("path", ["v4", "fast", "gs", "lean", "lean:v8/64", "v16/128", "slow", ""])
def test_unknown_float32_normal_path_is_named(monkeypatch, path):
    monkeypatch.setattr(vp.random, "_NORMAL32_PATH", path)
    with pytest.raises(ValueError, match=f"no float32 normal path {re.escape(repr(path))}.*"
                                         f"VULPY_NORMAL32_PATH.*v8, lean:v32/128"):
        vp.random.default_rng(1).standard_normal(8, dtype=np.float32)
    with pytest.raises(ValueError, match="v8, lean:v32/128"):
        vp.random.default_rng(1).standard_normal(7, dtype=np.float32)


@pytest.mark.parametrize("env", _PATHS32)
def test_normal32_path_from_the_environment(monkeypatch, env):
    # VULPY_NORMAL32_PATH sets the default path at import; the child's
    # samples are this process's of that path (the same device)
    import subprocess
    import sys
    code = ("import vulpy as vp, numpy as np\n"
            "z = vp.random.default_rng(3).standard_normal(4 * 300, dtype=np.float32)\n"
            "print(vp.random._NORMAL32_PATH, z.numpy().tobytes().hex())\n")
    env_vars = dict(os.environ, VULPY_NORMAL32_PATH=env,
                    PYTHONPATH=str(ROOT / "bindings" / "python"))
    r = subprocess.run([sys.executable, "-c", code], env=env_vars, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    path, got = r.stdout.split()
    assert path == env
    monkeypatch.setattr(vp.random, "_NORMAL32_PATH", env)
    want = _host(vp.random.default_rng(3).standard_normal(4 * 300, dtype=np.float32))
    assert got == want.tobytes().hex()


# Accuracy of each path against the float64 Box-Muller of the same Philox
# words (docs/python-api.md's table): |z - ref| <= k ulp(ref) + a r, ulp
# the float32 spacing at |ref|. The exact math: k ulp alone (the angle's y
# and the polynomials are relative-accurate, so z near 0 is too); lean:
# cuRAND's built-in sin / cos add an absolute a r (2^-21.4 on NVIDIA,
# about 2^-22 on lavapipe; 2^-20 allowed).
_ACCURACY = {"v8": (4, 0.0), "lean:v32/128": (4, 2.0**-20)}


def _accuracy(path):
    """_ACCURACY's bound for this device: v8's polynomials round otherwise
    where the device takes the fused-fma paths (ctx.fma_fused: NVIDIA), so
    there its angle is within the lean path's absolute 2^-20 r of the
    reference (the H200: at most 8.8e-7 over 2^17 samples; 17 ulp at a z
    near 0, where 4 ulp alone failed). docs/python-api.md, "Random numbers"."""
    k, a = _ACCURACY[path]
    if path == "v8" and vp.default_context().fma_fused:
        a = 2.0**-20
    return k, a


def _within(got, want, k, a):
    """Whether every |got - want| <= k ulp(want) + a r (r of want's pair)."""
    r = np.repeat(np.hypot(want[0::2], want[1::2]), 2)[:len(want)]
    ulp = np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    return bool(np.all(np.abs(got - want) <= k * ulp + a * r))


@pytest.mark.parametrize("path", list(_ACCURACY))
def test_float32_normal_math_accuracy(monkeypatch, path):
    monkeypatch.setattr(vp.random, "_NORMAL32_PATH", path)
    n = 1 << 17
    got = _host(_vp_gen(21).standard_normal(n, dtype=np.float32)).astype(np.float64)
    want = _box_muller_reference(21, n, np.float32)
    k, a = _accuracy(path)
    assert _within(got, want, k, a), (path, np.max(np.abs(got - want)))
    # the bound rejects a wrong formula: u1 half a step off (large relative
    # error where u1 is near 1, r near 0) and an angle a few steps off
    # (absolute r 2^-21.4 a step: relative where z is near 0)
    assert not _within(_box_muller_reference(21, n, np.float32, du=0.5), want, k, a)
    assert not _within(_box_muller_reference(21, n, np.float32, dtheta=1 if a == 0 else 8),
                       want, k, a)


@pytest.mark.parametrize("path", _PATHS32)
def test_float32_normal_paths_are_deterministic(monkeypatch, path):
    # the same seed gives the same values (call after call, and a second
    # generator), the next call other values
    monkeypatch.setattr(vp.random, "_NORMAL32_PATH", path)
    g, h = _vp_gen(99), _vp_gen(99)
    a = _host(g.standard_normal(4 * 777, dtype=np.float32))
    np.testing.assert_array_equal(_host(h.standard_normal(4 * 777, dtype=np.float32)), a)
    np.testing.assert_array_equal(_host(_vp_gen(99).standard_normal(4 * 777, dtype=np.float32)),
                                  a)
    b = _host(g.standard_normal(4 * 777, dtype=np.float32))
    assert np.isfinite(a).all() and np.isfinite(b).all()
    assert np.mean(a == b) < 0.01


def test_float32_lean_normal_distribution(monkeypatch):
    # the lean math keeps the distribution (test_standard_normal_distribution's
    # moments and KS test, at alpha = 0.001)
    monkeypatch.setattr(vp.random, "_NORMAL32_PATH", "lean:v32/128")
    n = 200_000
    z = _host(vp.random.default_rng(2024).standard_normal(n, dtype=np.float32))
    se = 1 / math.sqrt(n)
    assert abs(z.mean()) < 5 * se
    assert abs(z.var() - 1.0) < 5 * math.sqrt(2.0) * se
    assert _ks_uniform(_norm_cdf(z.astype(np.float64))) < 1.95 / math.sqrt(n)
    assert np.abs(z).max() > 4.0


def test_normal32_exact_names_the_math():
    assert vp.random.normal32_exact("v8") is True
    assert vp.random.normal32_exact("lean:v32/128") is False
    assert vp.random.normal32_exact("lean") is None
    assert vp.random.normal32_exact("gs4/256/32") is None


@pytest.mark.parametrize("path", _PATHS32)
@pytest.mark.parametrize("n", [4, 12, 1000, 4099, (6, 6)])
def test_float32_normal_loc_scale_in_the_kernel(monkeypatch, path, n):
    # number loc and scale are applied in the kernel's store (n a multiple
    # of 4; else after standard_normal): loc + scale * z, rounded twice or
    # fused by the device (then within an ulp of the larger term); the
    # stream moves on as standard_normal's does
    monkeypatch.setattr(vp.random, "_NORMAL32_PATH", path)
    g, h = _vp_gen(13), _vp_gen(13)
    got = _host(g.normal(3.0, 2.0, n, dtype=np.float32)).astype(np.float64)
    z = _host(h.standard_normal(n, dtype=np.float32))
    want = (np.float32(3.0) + np.float32(2.0) * z).astype(np.float64)
    assert got.shape == want.shape
    assert np.all(np.abs(got - want) <= 2.0 ** -23 * (3.0 + 2.0 * np.abs(z)))
    np.testing.assert_array_equal(_host(g.standard_normal(8, dtype=np.float32)),
                                  _host(h.standard_normal(8, dtype=np.float32)))


# ------------------------------------------------------------ statistics
def _ks_uniform(x):
    """Kolmogorov-Smirnov statistic of x against U(0, 1)."""
    x = np.sort(x)
    n = len(x)
    i = np.arange(1, n + 1)
    return max(np.max(i / n - x), np.max(x - (i - 1) / n))


def _norm_cdf(x):
    return 0.5 * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0)))


# KS critical value at alpha = 0.001: 1.95 / sqrt(n). Fixed seeds: deterministic.
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_standard_normal_distribution(dtype):
    n = 200_000
    z = _host(vp.random.default_rng(2024).standard_normal(n, dtype=dtype))
    assert z.dtype == dtype and np.all(np.isfinite(z))
    se = 1 / math.sqrt(n)
    assert abs(z.mean()) < 5 * se
    assert abs(z.var() - 1.0) < 5 * math.sqrt(2.0) * se
    assert abs(np.mean(z ** 3)) < 5 * math.sqrt(15.0) * se      # skewness
    assert abs(np.mean(z ** 4) - 3.0) < 5 * math.sqrt(96.0) * se  # kurtosis
    assert _ks_uniform(_norm_cdf(z.astype(np.float64))) < 1.95 / math.sqrt(n)
    # the tails reach beyond 4 sigma (u1 near 0 is sampled)
    assert np.abs(z).max() > 4.0


def test_standard_normal_consumes_whole_blocks():
    g = _vp_gen(5)
    a = _host(g.standard_normal(5, dtype=np.float32))
    b = _host(g.standard_normal(3, dtype=np.float32))
    c = _host(_vp_gen(5).standard_normal(16, dtype=np.float32))
    np.testing.assert_array_equal(a, c[:5])
    np.testing.assert_array_equal(b, c[8:11])
    assert len(set(a.tolist()) | set(b.tolist())) == 8


def test_normal_loc_scale():
    n = 100_000
    z = _host(vp.random.default_rng(8).normal(3.0, 2.0, n))
    assert abs(z.mean() - 3.0) < 5 * 2.0 / math.sqrt(n)
    assert abs(z.std() - 2.0) < 5 * 2.0 * math.sqrt(0.5 / n)


def test_array_parameters_broadcast():
    g = vp.random.default_rng(17)
    loc = np.array([0.0, 10.0, -5.0])
    scale = vp.asarray(np.array([[1.0], [0.001]]))
    z = g.normal(loc, scale)  # the broadcast shape (2, 3)
    assert isinstance(z, vp.ndarray) and z.shape == (2, 3) and z.dtype == np.float64
    zh = z.numpy()
    assert np.all(np.abs(zh[1] - loc) < 0.01)  # scale 0.001 keeps row 1 near loc
    n = 50_000
    w = _host(g.normal([0.0, 100.0], 2.0, size=(n, 2), dtype=np.float32))
    assert w.shape == (n, 2) and abs(w[:, 1].mean() - 100.0) < 5 * 2.0 / math.sqrt(n)
    u = _host(g.uniform([0.0, 5.0], [1.0, 6.0], size=(n, 2)))
    assert u[:, 0].min() >= 0.0 and u[:, 0].max() < 1.0
    assert u[:, 1].min() >= 5.0 and u[:, 1].max() < 6.0
    e = _host(g.exponential(vp.asarray(np.array([1.0, 4.0])), size=(n, 2)))
    assert abs(e[:, 1].mean() - 4.0) < 5 * 4.0 / math.sqrt(n)
    with pytest.raises(ValueError, match="scale="):
        g.normal(0.0, [1.0, -1.0])
    with pytest.raises(ValueError, match="size="):
        g.normal([0.0, 1.0, 2.0], 1.0, size=(4, 2))
    with pytest.raises(ValueError, match="broadcast"):
        g.uniform([0.0, 1.0], [1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="loc="):
        g.normal("a")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_uniform_and_random_distribution(dtype):
    n = 200_000
    g = vp.random.default_rng(77)
    u = _host(g.uniform(-2.0, 6.0, n, dtype=dtype))
    assert u.dtype == dtype and u.min() >= -2.0 and u.max() < 6.0
    assert _ks_uniform((u.astype(np.float64) + 2.0) / 8.0) < 1.95 / math.sqrt(n)
    r = _host(g.random(n, dtype=dtype))
    assert r.min() >= 0.0 and r.max() < 1.0
    assert _ks_uniform(r.astype(np.float64)) < 1.95 / math.sqrt(n)


def test_exponential_distribution():
    n = 200_000
    e = _host(vp.random.default_rng(4).exponential(2.5, n))
    assert e.min() >= 0.0
    assert abs(e.mean() - 2.5) < 5 * 2.5 / math.sqrt(n)
    assert _ks_uniform(1.0 - np.exp(-e / 2.5)) < 1.95 / math.sqrt(n)


@pytest.mark.parametrize("low,high,endpoint", [(0, 10, False), (-5, 5, True), (3, 4, False),
                                               (0, 2**40, False), (-(2**63), 2**63 - 1, True)])
def test_integers_range_and_uniformity(low, high, endpoint):
    n = 100_000
    x = _host(vp.random.default_rng(31).integers(low, high, n, endpoint=endpoint))
    assert x.dtype == np.int64 and x.shape == (n,)
    top = high if endpoint else high - 1
    assert x.min() >= low and x.max() <= top
    span = top - low + 1
    if span <= 16:  # chi-square over the values, 0.1% critical values
        counts = np.bincount(x - low, minlength=span)
        assert len(counts) == span
        if span > 1:
            exp = n / span
            chi2 = ((counts - exp) ** 2 / exp).sum()
            crit = {9: 27.88, 10: 29.59}[span - 1]
            assert chi2 < crit
            assert x.max() == top and x.min() == low  # endpoints are reached
        else:
            assert np.all(x == low)
    else:  # uniform in [low, top]: KS on the scaled values
        u = (x.astype(np.float64) - float(low)) / float(span)
        assert _ks_uniform(u) < 1.95 / math.sqrt(n)


def test_integers_dtypes_and_one_argument():
    g = vp.random.default_rng(1)
    x = _host(g.integers(6, size=1000))
    assert x.min() >= 0 and x.max() <= 5 and set(x.tolist()) == set(range(6))
    for dt in (np.int32, np.uint32, np.uint64, np.uint8, np.int16):
        try:
            vp.empty(1, dt)
        except TypeError:  # a dtype this build does not have yet
            continue
        hi = 100 if np.dtype(dt).itemsize < 4 else 2**31 - 1
        y = _host(g.integers(0, hi, size=500, dtype=dt))
        assert y.dtype == dt and y.min() >= 0 and y.max() < hi
    big = _host(g.integers(2**63, 2**64, size=500, dtype=np.uint64))
    assert big.dtype == np.uint64 and big.min() >= 2**63


def test_legacy_helpers():
    vp.random.seed(10)
    a = _host(vp.random.rand(3, 4))
    vp.random.seed(10)
    np.testing.assert_array_equal(_host(vp.random.rand(3, 4)), a)
    np.testing.assert_array_equal(a, _np_gen(10).random((3, 4)))
    assert vp.random.randn(2, 3, dtype=np.float32).shape == (2, 3)
    assert vp.random.randint(5, size=4).shape == (4,)
    assert vp.random.default_rng(5).random(2).shape == (2,)
    g = vp.random.default_rng(5)
    assert vp.random.default_rng(g) is g


# ------------------------------------------------------------ errors
def test_errors_name_the_argument():
    g = vp.random.default_rng(0)
    with pytest.raises(ValueError, match="size="):
        g.random(-1)
    with pytest.raises(TypeError, match="size="):
        g.random(2.5)
    with pytest.raises(TypeError, match="size="):
        g.standard_normal((2, "a"))
    with pytest.raises(TypeError, match="dtype="):
        g.random(3, dtype=np.int32)
    with pytest.raises(TypeError, match="dtype="):
        g.standard_normal(3, dtype=np.float16)
    with pytest.raises(ValueError, match="low="):
        g.integers(5, 5)
    with pytest.raises(ValueError, match="low="):
        g.integers(5, 3, endpoint=True)
    with pytest.raises(TypeError, match="dtype="):
        g.integers(0, 5, dtype=np.float32)
    with pytest.raises(ValueError, match="does not fit"):
        g.integers(0, 2**40, dtype=np.int32)
    with pytest.raises(TypeError, match="low="):
        g.integers(1.5, 3)
    with pytest.raises(ValueError, match="low="):
        g.uniform(2.0, 1.0)
    with pytest.raises(ValueError, match="scale="):
        g.normal(0.0, -1.0)
    with pytest.raises(TypeError, match="out="):
        g.random(out=np.zeros(3))
    with pytest.raises(TypeError, match="out="):
        g.random(dtype=np.float32, out=vp.empty(3, np.float64))
    with pytest.raises(ValueError, match="size="):
        g.random(4, out=vp.empty(3, np.float64))
    with pytest.raises(ValueError, match="out="):
        g.random(out=vp.empty(8, np.float64)[::2])
    with pytest.raises(TypeError, match="bit_generator"):
        vp.random.Generator(np.random.Philox(0))
    with pytest.raises(ValueError, match="state="):
        vp.random.Philox(0).state = {"bit_generator": "PCG64"}
    # a failed call leaves the stream where it was
    np.testing.assert_array_equal(_host(g.random(3)), _np_gen(0).random(3))


def test_device_without_int64_is_a_feature_error(monkeypatch):
    # Philox needs 64-bit integers (shaderInt64): a device without them
    # refuses the kernels with vp.FeatureError naming int64
    ctx = vp.default_context()
    monkeypatch.setattr(ctx, "_features", ctx.features - {"int64"})
    monkeypatch.setattr(ctx, "_kernels", {})
    from vulpy import _random_kernels as rk
    for k in (rk.uniform_f32, rk.uniform_f32_v4):  # compiled, launched afresh
        monkeypatch.setattr(k, "_prog", None, raising=False)
        monkeypatch.setattr(k, "_fast", False, raising=False)
    with pytest.raises(vp.FeatureError, match="int64"):
        vp.random.default_rng(0).random(16, dtype=np.float32)


def test_float32_normal_default_path_per_device(monkeypatch):
    """Without VULPY_NORMAL32_PATH the default path is the device's:
    lean:v32/128 on NVIDIA (vendor 0x10de, cuRAND-class built-in sin / cos),
    the exact v8 elsewhere; a set path wins everywhere."""
    monkeypatch.setattr(vp.random, "_NORMAL32_PATH", None)

    class Dev:  # only the vendor id matters to the rule
        def __init__(self, vendor):
            self.info = {"vendor_id": vendor}

    assert vp.random._normal32_path(Dev(0x10DE)) == "lean:v32/128"
    assert vp.random._normal32_path(Dev(0x1002)) == "v8"
    ctx = vp.default_context()
    want = "lean:v32/128" if ctx.info["vendor_id"] == 0x10DE else "v8"
    assert vp.random._normal32_path(ctx) == want
    got = vp.random.default_rng(5).standard_normal(4096, dtype=np.float32).numpy()
    monkeypatch.setattr(vp.random, "_NORMAL32_PATH", want)
    ref = vp.random.default_rng(5).standard_normal(4096, dtype=np.float32).numpy()
    assert got.tobytes() == ref.tobytes()
    monkeypatch.setattr(vp.random, "_NORMAL32_PATH", "v8")
    assert vp.random._normal32_path(Dev(0x10DE)) == "v8"


def test_integers_of_dtype_bool(ctx):
    """Generator.integers(..., dtype=bool) draws from [0, 1] as NumPy's does
    (it was a TypeError); a range past [0, 1] is NumPy's ValueError."""
    g = vp.random.default_rng(7)
    x = g.integers(2, size=4000, dtype=bool)
    assert x.dtype == np.bool_ and x.shape == (4000,)
    h = x.numpy()
    assert 0.45 < h.mean() < 0.55, h.mean()
    y = g.integers(0, 1, size=64, dtype=np.bool_, endpoint=True).numpy()
    assert y.dtype == np.bool_ and y.any() and not y.all()
    assert not g.integers(0, 1, size=8, dtype=bool).numpy().any()  # [0, 1): all False
    with pytest.raises(ValueError):
        g.integers(0, 3, size=3, dtype=bool)
    with pytest.raises(ValueError):
        np.random.default_rng(0).integers(0, 3, size=3, dtype=bool)


def test_integers_with_arrays_of_bounds(ctx):
    """Generator.integers with arrays of bounds (they were a TypeError):
    NumPy's broadcasting of low, high and size=, each element in its own
    range and every value of a small range drawn; constant arrays draw
    the very values scalar bounds give (the same words); uint64 bounds
    past 2^63; NumPy's errors for bounds it refuses."""
    a = vp.random.default_rng(3).integers(5, 17, size=1000).numpy()
    b = vp.random.default_rng(3).integers(np.full(1000, 5), vp.asarray(np.int32(17))).numpy()
    np.testing.assert_array_equal(a, b)
    g = vp.random.default_rng(1)
    lo, hi = np.array([[0], [1], [-5]]), np.array([3, 20, 100])
    for endpoint in (False, True):
        x = g.integers(lo, vp.asarray(hi), size=(3000, 3, 3), endpoint=endpoint)
        assert x.shape == (3000, 3, 3) and x.dtype == np.int64
        h, top = x.numpy(), hi - 1 + endpoint
        for i in range(3):
            for j in range(3):
                col = h[:, i, j]
                assert col.min() >= lo[i, 0] and col.max() <= top[j], (i, j, endpoint)
                if top[j] - lo[i, 0] < 30:  # every value of a small range
                    assert len(np.unique(col)) == top[j] - lo[i, 0] + 1, (i, j)
    y = g.integers([[2, 7]], size=(4000, 2), dtype=np.int8).numpy()  # high=None: [0, low)
    assert y.dtype == np.int8 and set(np.unique(y[:, 0])) == {0, 1} and y[:, 1].max() == 6
    u = g.integers(np.array([0, 2**63], np.uint64), np.array([2**64 - 1] * 2, np.uint64),
                   size=(500, 2), dtype=np.uint64, endpoint=True).numpy()
    assert u.dtype == np.uint64 and (u[:, 1] >= 2**63).all() and (u[:, 0] < 2**63).any()
    assert g.integers([0, 0], [1, 2], dtype=bool).numpy().dtype == np.bool_
    for args, kw, err in [(([5, 6], [5, 7]), {}, ValueError), (([0, 0], [1, 3]), {"dtype": bool}, ValueError),
                          (([0, -1], [5, 3]), {"dtype": np.uint8}, ValueError),
                          (([0, 1], [3]), {"size": 3}, ValueError)]:
        with pytest.raises(err):
            np.random.default_rng(0).integers(*args, **kw)
        with pytest.raises(err, match="Generator.integers"):
            g.integers(*args, **kw)
    with pytest.raises(TypeError, match="low= must be integers"):  # as a float scalar is
        g.integers([1.5, 2], 3)


def test_permutation_shuffle_choice():
    # numpy.random.Generator's permutation / shuffle / choice (they were
    # AttributeErrors): permutations of every slice, NumPy's shapes,
    # scalars and errors, and choice's frequencies with p= within a few
    # standard deviations
    g = vp.random.default_rng(11)
    p = g.permutation(50)
    assert p.dtype == np.int64 and sorted(p.get().tolist()) == list(range(50))
    assert np.array_equal(vp.random.default_rng(11).permutation(50).get(), p.get())
    m = np.arange(24.0).reshape(6, 4)
    for axis in (0, 1, -1):
        r = g.permutation(vp.asarray(m), axis=axis).get()
        assert r.shape == m.shape
        assert np.array_equal(np.sort(r, axis=axis), m)  # slices moved whole
        assert np.array_equal(np.sort(r.sum(axis=axis)), np.sort(m.sum(axis=axis)))
    x, h = vp.asarray(np.arange(20)), np.arange(20)
    g.shuffle(x)
    g.shuffle(h)
    assert sorted(x.get().tolist()) == list(range(20)) == sorted(h.tolist())
    assert isinstance(g.choice(5), int) and 0 <= g.choice(5) < 5
    assert g.choice(5, (2, 3)).shape == (2, 3)
    assert g.choice(np.arange(6.0).reshape(3, 2), 4).shape == (4, 2)
    d = g.choice(100, 100, replace=False).get()
    assert sorted(d.tolist()) == list(range(100))
    w = np.array([0.1, 0.2, 0.3, 0.4])
    n = 200_000
    freq = np.bincount(g.choice(4, n, p=w).get(), minlength=4) / n
    assert np.all(np.abs(freq - w) < 5 * np.sqrt(w * (1 - w) / n)), freq
    # without replacement, a pair's first element is i with probability w_i
    first = np.array([g.choice(4, 2, replace=False, p=w).get()[0] for _ in range(400)])
    assert np.all(np.abs(np.bincount(first, minlength=4) / 400 - w) < 5 * np.sqrt(w * (1 - w) / 400))
    assert vp.random.choice(3, 2).shape == (2,) and vp.random.permutation(4).shape == (4,)
    for call in (lambda: g.choice(3, 4, replace=False), lambda: g.choice(3, p=[0.5, 0.5]),
                 lambda: g.choice(3, p=[0.5, 0.6, -0.1]), lambda: g.choice(0),
                 lambda: g.choice(3, 3, replace=False, p=[0.5, 0.5, 0.0]),
                 lambda: g.permutation(-1)):
        with pytest.raises(ValueError):
            call()


def test_generator_bytes_and_spawn():
    # numpy.random.Generator.bytes / spawn and Philox.spawn (before:
    # AttributeError): NumPy's bytes of the same stream, the stream moving on
    # as NumPy's; spawned generators matching NumPy's spawned ones
    g = vp.random.default_rng(5)
    n = np.random.Generator(np.random.Philox(5))
    assert g.bytes(9) == n.bytes(9)
    np.testing.assert_array_equal(g.random(5).numpy(), n.random(5))
    for c, d in zip(g.spawn(3), n.spawn(3)):
        assert isinstance(c, vp.random.Generator)
        np.testing.assert_array_equal(c.random(7).numpy(), d.random(7))
    np.testing.assert_array_equal(g.random(3).numpy(), n.random(3))
    for c, d in zip(vp.random.Philox(9).spawn(2), np.random.Philox(9).spawn(2)):
        np.testing.assert_array_equal(c.random_raw(4).numpy(), d.random_raw(4))
    with pytest.raises(TypeError, match="no SeedSequence"):
        vp.random.Generator(vp.random.Philox(key=5)).spawn(1)
