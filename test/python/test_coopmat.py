"""The float16 cooperative-matrix GEMM (vulpy._coopmat, _coopmat_tiled;
issue 19) on a device without cooperative matrices (lavapipe): which
variant a shape gets on a device that has them (a stand-in context), that
every shipped kernel compiles to valid SPIR-V that declares what it needs,
the index arithmetic of the tiled kernels against NumPy (an emulation that
evaluates the very expressions the GLSL holds), and the fallback's
results. The kernels themselves run on the H200: bench/probes/
coopmat_check.py."""
import shutil
import subprocess

import numpy as np
import pytest

import vulpy as vp
from vulpy import _coopmat, _coopmat_tiled as _tiled


class _Ctx:
    """A context as variant_for sees it: features and limits."""

    def __init__(self, coop=True, subgroup=32, shared=49152, groups=(2 ** 31 - 1, 65535, 65535)):
        self.coop = coop
        self.limits = {"subgroup_size": subgroup, "max_shared_memory": shared,
                       "max_workgroup_count": groups}

    def has(self, feature):
        return self.coop and feature == "cooperative_matrix"


@pytest.fixture(autouse=True)
def _no_env(monkeypatch):
    monkeypatch.delenv(_coopmat.ENV, raising=False)


@pytest.fixture
def stand_in(monkeypatch):
    """variant_for on _Ctx stand-ins (the probe asks them, not a device)."""
    monkeypatch.setattr(_coopmat, "available", lambda ctx=None: ctx.has("cooperative_matrix"))


def test_selection_default_and_ragged_shapes(stand_in):
    ctx = _Ctx()
    assert _coopmat.DEFAULT == "t128x128" and _coopmat.ORDER[0] == _coopmat.DEFAULT
    assert _coopmat.variant_for(ctx, 4096, 4096, 4096) == "t128x128"
    # the tiled kernels take any m and n, k multiples of 8 (the old ones not)
    assert _coopmat.variant_for(ctx, 100, 72, 40) == "t128x128"
    assert _coopmat.variant_for(ctx, 1, 8, 8) == "t128x128"
    assert _coopmat.variant_for(ctx, 100, 70, 40) is None  # n % 8
    assert _coopmat.variant_for(ctx, 100, 72, 36) is None  # k % 8
    assert _coopmat.variant_for(ctx, 0, 8, 8) is None
    assert _coopmat.uses_coopmat(ctx, 130, 136, 24)
    assert not _coopmat.uses_coopmat(_Ctx(coop=False), 4096, 4096, 4096)
    assert _coopmat.variant_for(_Ctx(subgroup=64), 4096, 4096, 4096) is None
    # a grid the device cannot launch: the fallback
    assert _coopmat.variant_for(_Ctx(groups=(65535, 4, 65535)), 1024, 128, 64) is None


def test_selection_forced(stand_in, monkeypatch):
    ctx = _Ctx()
    for v in _coopmat.VARIANTS:
        assert _coopmat.variant_for(ctx, 4096, 4096, 4096, v) == v
    # the retired 'smem' and 'direct' kernels are no variant
    assert set(_coopmat.VARIANTS) == set(_coopmat.TILES)
    with pytest.raises(ValueError, match="variant='smem'"):
        _coopmat.variant_for(ctx, 4096, 4096, 4096, "smem")
    # a forced variant that does not take the shape: the fallback, no other one
    small = _Ctx(shared=32768)
    assert _coopmat.variant_for(small, 256, 256, 64, "t128x128") is None
    assert _coopmat.variant_for(ctx, 128, 128, 36, "t128x256") is None
    monkeypatch.setenv(_coopmat.ENV, "t128x128k64")
    assert _coopmat.variant_for(ctx, 4096, 4096, 4096) == "t128x128k64"
    assert _coopmat.variant_for(ctx, 100, 72, 36) is None
    assert _coopmat.variant_for(ctx, 4096, 4096, 4096, "t128x256") == "t128x256"  # variant= wins
    monkeypatch.setenv(_coopmat.ENV, "nope")
    with pytest.raises(ValueError, match="VULPY_COOPMAT_VARIANT='nope'.*t128x128"):
        _coopmat.variant_for(ctx, 4096, 4096, 4096)
    with pytest.raises(ValueError, match="VULPY_COOPMAT_VARIANT"):  # also where none runs
        _coopmat.variant_for(_Ctx(coop=False), 4096, 4096, 4096)
    monkeypatch.delenv(_coopmat.ENV)
    with pytest.raises(ValueError, match="variant='huge'"):
        _coopmat.variant_for(ctx, 8, 8, 8, "huge")
    # another order: its first variant that takes the shape
    monkeypatch.setattr(_coopmat, "ORDER", ("t128x128", "t128x256"))
    assert _coopmat.variant_for(small, 256, 256, 64) == "t128x256"
    assert _coopmat.variant_for(ctx, 256, 256, 64) == "t128x128"
    assert _coopmat.variant_for(ctx, 100, 72, 36) is None


def test_selection_respects_shared_memory(stand_in):
    small = _Ctx(shared=32768)
    t = _coopmat.TILES["t128x128"]
    assert t.shared_bytes > 32768
    assert _coopmat.variant_for(small, 256, 256, 64, "t128x128") is None
    assert _coopmat.variant_for(small, 256, 256, 64) is None  # ORDER has no other: the fallback
    assert _coopmat.variant_for(small, 256, 256, 64, "t128x256") == "t128x256"


@pytest.mark.parametrize("name", sorted(_coopmat.TILES))
def test_tiled_kernels_compile_and_validate(name, tmp_path):
    """glslang -> SPIR-V in process (validated by SPIRV-Tools there), the
    spirv-val tool where installed, the manifest parses and declares the
    features; a device without them refuses the pipeline by name."""
    t = _coopmat.TILES[name].check()
    assert t.shared_bytes <= 49152, "NVIDIA's Vulkan limit (maxComputeSharedMemorySize)"
    for shape in ([None] if not t.shape else [(4096, 4096, 4096), (130, 136, 40)]):
        _compiles_and_validates(name, t, shape, tmp_path)


def _compiles_and_validates(name, t, shape, tmp_path):
    p = _coopmat._coop_program(name, shape)
    words = p.artifacts["spirv"]
    assert words[:4] == b"\x03\x02\x23\x07"
    assert "cooperative_matrix" in p.manifest["features"]
    assert [b["name"] for b in p.manifest["buffers"]] == ["a", "b", "c"]
    assert p.manifest["local_size"][0] == t.invocations
    glsl = p.artifacts["glsl"]
    assert glsl.count("coopMatMulAddNV") == t.fm * t.fn * (t.bk // 16)
    assert glsl.count("barrier();") == 2
    zeroed = glsl.count("= uvec4(0u);")  # one per guarded global load
    if shape == (4096, 4096, 4096):  # whole tiles: constants, not one guard
        assert "const uint m = 4096u, n = 4096u, k = 4096u, ldc = 4096u;" in glsl
        assert zeroed == 0 and "pc." not in glsl.split("void main()")[1]
    else:
        assert zeroed > 0
    if shutil.which("spirv-val"):
        f = tmp_path / f"{name}.spv"
        f.write_bytes(words)
        r = subprocess.run(["spirv-val", "--target-env", "vulkan1.2", str(f)],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stdout + r.stderr
    ctx = vp.default_context()
    if not ctx.has("cooperative_matrix"):
        with pytest.raises(vp.FeatureError, match="cooperative_matrix"):
            p.native(ctx)


def test_every_variant_compiles():
    for v in _coopmat.VARIANTS:
        p = _coopmat._coop_program(v, (256, 256, 64))
        assert "GL_NV_cooperative_matrix" in p.artifacts["glsl"], v


def test_fallback_on_ragged_shapes_matches_numpy():
    """What a device without cooperative matrices runs (and the float32
    reference the tiled kernels must equal): integer-valued halves, so
    every product and sum is exact in float32 and the result equals NumPy's
    bit for bit."""
    rng = np.random.default_rng(5)
    for m, n, k in [(3, 8, 8), (130, 136, 40), (64, 200, 264)]:
        a = rng.integers(-4, 5, (m, k)).astype(np.float16)
        b = rng.integers(-4, 5, (k, n)).astype(np.float16)
        got = _coopmat.matmul_f16_words(a.view(np.uint32), b.view(np.uint32), m, n, k)
        np.testing.assert_array_equal(got.numpy(), a.astype(np.float32) @ b.astype(np.float32))


def _ints(rng, shape):
    """Integer-valued halves: every product and float32 sum is exact."""
    return rng.integers(-4, 5, shape).astype(np.float16)


@pytest.mark.parametrize("name", sorted(_coopmat.TILES))
def test_tiled_index_arithmetic_emulated(name):
    """_coopmat_tiled.emulate runs the kernel's schedule in NumPy with the
    very index formulas the GLSL prints (copies, guards, padded shared rows,
    fragment offsets, C offsets): on ragged shapes (partial tiles of M, N
    and K, one row, K shorter than a step) the padded output holds the
    product in its corner, zeros in the padding, and nothing unwritten."""
    t = _coopmat.TILES[name]
    rng = np.random.default_rng(11)
    shapes = [(1, 8, 8), (130, 136, 40), (t.bm, t.bn, 2 * t.bk), (t.bm + 3, 264, 104),
              # one dimension ragged at a time (a Tile.shape kernel drops the other guards)
              (2 * t.bm, 264, 2 * t.bk), (t.bm + 5, t.bn, 3 * t.bk), (t.bm, 2 * t.bn, 40)]
    if t.group:  # more tile rows than a group, the last group shorter
        shapes.append((t.group * t.bm + t.bm + 1, 2 * t.bn + 8, t.bk))
    for m, n, k in shapes:
        a, b = _ints(rng, (m, k)), _ints(rng, (k, n))
        c = _tiled.emulate(t, a, b)
        assert c.shape == t.padded(m, n)
        assert not np.isnan(c).any(), "an output element the kernel never writes"
        np.testing.assert_array_equal(c[:m, :n], a.astype(np.float32) @ b.astype(np.float32))
        assert not c[m:].any() and not c[:, n:].any()


def test_emulation_catches_an_index_error(monkeypatch):
    """The emulation fails when a formula is wrong (here B's fragment
    column is off by one uvec4), so the test above can fail."""
    t = _coopmat.TILES["t128x128"]
    good = _tiled.b_frag
    monkeypatch.setattr(_tiled, "b_frag", lambda *a: good(*a) + (1 if a[3] == 1 else 0))
    rng = np.random.default_rng(3)
    a, b = _ints(rng, (128, 32)), _ints(rng, (32, 128))
    c = _tiled.emulate(t, a, b)
    assert not np.array_equal(c, a.astype(np.float32) @ b.astype(np.float32))
    assert "+ 1u), 17u, false)" in _tiled.glsl(t)  # the GLSL prints the same (wrong) formula


def test_emulation_catches_a_dropped_guard(monkeypatch):
    """A Tile.shape kernel keeps only the guards its shape needs; were one
    dropped that a partial tile needs, the emulation (which loads without
    the guards the GLSL lacks) reads out of A or the wrong row: the
    dropped-guard tests above can fail."""
    t = _coopmat.TILES["t128x256cb"]
    rng = np.random.default_rng(4)
    for m, n, k in [(130, 256, 64), (128, 264, 64), (128, 256, 40)]:
        a, b = _ints(rng, (m, k)), _ints(rng, (k, n))
        np.testing.assert_array_equal(_tiled.emulate(t, a, b)[:m, :n],
                                      a.astype(np.float32) @ b.astype(np.float32))
        monkeypatch.setattr(_tiled, "guards", lambda t, shape: (False,) * 4)
        try:
            c = _tiled.emulate(t, a, b)
            assert not np.array_equal(c[:m, :n], a.astype(np.float32) @ b.astype(np.float32))
        except IndexError:
            pass
        monkeypatch.undo()
        assert "if (" in _tiled.glsl(t, (m, n, k)).split("for (uint t")[0]


def test_grouped_order_is_a_bijection():
    """tile_of with a group: every tile of C exactly once, for full and
    short last groups; the GLSL prints the same formula."""
    for group in (1, 3, 8):
        t = _tiled.Tile(128, 256, 32, 2, 4, 1, group=group)
        for gx, gy in [(1, 1), (16, 32), (5, 9), (3, 8), (7, 1)]:
            x, y = np.meshgrid(np.arange(gx), np.arange(gy))
            ty, tx = _tiled.tile_of(t, x.ravel(), y.ravel(), gx, gy)
            assert ty.min() >= 0 and tx.min() >= 0 and ty.max() < gy and tx.max() < gx
            assert len(set(zip(ty.tolist(), tx.tolist()))) == gx * gy, (group, gx, gy)
            if group > 1 and gy > group:  # the resident workgroups share tile rows
                assert ty[:group * 2].max() == group - 1 and tx[:group * 2].max() == 1
    t = _coopmat.TILES["t128x256cbg8"]
    E = _tiled._E
    ty, tx = _tiled.tile_of(t, E("gl_WorkGroupID.x"), E("gl_WorkGroupID.y"), 16, 32)
    assert f"uint ty = {ty}, tx = {tx};" in _tiled.glsl(t, (4096, 4096, 4096))
    assert _tiled.tile_of(_coopmat.TILES["t128x256"], 3, 5, 16, 32) == (5, 3)


def test_shaped_programs_cached_per_shape(monkeypatch):
    """A Tile.shape variant compiles once per (m, n, k), keeps at most
    SHAPED_KEEP of them, and cannot be asked for without a shape."""
    monkeypatch.setattr(_coopmat, "_progs", {})
    monkeypatch.setattr(_coopmat, "SHAPED_KEEP", 2)
    p1 = _coopmat._coop_program("t128x256c", (256, 256, 64))
    assert _coopmat._coop_program("t128x256c", (256, 256, 64)) is p1
    p2 = _coopmat._coop_program("t128x256c", (256, 264, 64))
    assert p2 is not p1 and "n = 264u" in p2.artifacts["glsl"]
    _coopmat._coop_program("t128x256c", (8, 8, 8))
    assert len(_coopmat._progs) == 2 and ("t128x256c", (256, 256, 64)) not in _coopmat._progs
    assert _coopmat._coop_program("t128x256", (8, 8, 8)) is _coopmat._coop_program("t128x256")
    with pytest.raises(ValueError, match="compiled per shape"):
        _coopmat._coop_program("t128x256c")


def test_glsl_prints_the_emulated_formulas():
    """The GLSL holds the emulated formulas' text (one definition, two uses)."""
    t = _coopmat.TILES["t128x128"]
    src = _tiled.glsl(t)
    E = _tiled._E
    assert f"coopMatLoadNV(fa1, As, {_tiled.a_frag(t, E('cur'), E('wm'), 1, 1)}, 5u, false)" in src
    assert f"coopMatLoadNV(fb3, Bs, {_tiled.b_frag(t, E('cur'), E('wn'), 3, 0)}, 17u, false)" in src
    assert "ldc, false);" in src and src.count("coopMatStoreNV") == t.fm * t.fn
    assert "uint m = pc.m, n = pc.n, k = pc.k, ldc = pc.ldc;" in src


class _Emulated:
    """A tiled program whose pipeline is the NumPy emulation: dispatch
    reads A and B back from the bound buffers, checks the push constants
    and the grid against the tile, and writes what the kernel would."""

    def __init__(self, real, tile, calls, shape):
        self.packer, self.tile, self.calls, self.shape = real.packer, tile, calls, shape

    def native(self, ctx):
        return self

    def dispatch(self, bufs, push, gx, gy, gz, groups, sync):
        import struct
        m, n, k, ldc = struct.unpack("<4I", bytes(push)[:16])
        assert (gx, gy, gz) == self.tile.groups(m, n) and ldc == self.tile.padded(m, n)[1]
        if self.tile.shape:  # compiled for this very shape
            assert self.shape == (m, n, k)
        a, b = np.empty(m * k, np.float16), np.empty(k * n, np.float16)
        bufs[0].download(a)
        bufs[1].download(b)
        c = _tiled.emulate(self.tile, a.reshape(m, k), b.reshape(k, n))
        assert bufs[2].size >= c.nbytes
        bufs[2].upload(np.ascontiguousarray(c))
        self.calls.append((m, n, k))


@pytest.fixture
def emulated(monkeypatch):
    """A device 'with' cooperative matrices whose tiled kernels are the
    emulation (what the Python around the kernel does, tested end to end)."""
    monkeypatch.setattr(_coopmat, "available", lambda ctx=None: True)
    monkeypatch.setattr(_coopmat, "_limits", lambda ctx: dict(
        subgroup_size=32, max_shared_memory=49152, max_workgroup_count=(2 ** 31 - 1, 65535, 65535)))
    real, calls = _coopmat._coop_program, []

    def program(v=_coopmat.DEFAULT, shape=None):
        t = _coopmat.VARIANTS[v]
        return _Emulated(real(v, shape), t, calls, shape)
    monkeypatch.setattr(_coopmat, "_coop_program", program)
    return calls


def test_matmul_float16_through_the_tiled_path(emulated):
    """vp.matmul of resident float16 matrices on the (emulated) tiled
    kernel: ragged shapes, the padded output cropped, the float32 result
    rounded to float16 as NumPy's result dtype says; integer-valued data,
    so NumPy's float16 product is exact and must match bit for bit."""
    rng = np.random.default_rng(7)
    for m, n, k in [(130, 136, 40), (128, 128, 64), (5, 24, 16)]:
        a, b = _ints(rng, (m, k)), _ints(rng, (k, n))
        got = vp.matmul(vp.asarray(a), vp.asarray(b))
        assert isinstance(got, vp.ndarray) and got.dtype == np.float16 and got.shape == (m, n)
        np.testing.assert_array_equal(got.numpy(), a @ b)
        assert emulated[-1] == (m, n, k)
    # matmul_f16_words: the float32 result, every variant of TILES forced
    a, b = _ints(rng, (70, 48)), _ints(rng, (48, 40))
    for v in _coopmat.TILES:
        got = _coopmat.matmul_f16_words(a.view(np.uint32), b.view(np.uint32), 70, 40, 48,
                                        variant=v)
        assert got.shape == (70, 40) and got.dtype == np.float32
        np.testing.assert_array_equal(got.numpy(), a.astype(np.float32) @ b.astype(np.float32))
    n0 = len(emulated)
    odd = _ints(rng, (70, 36))  # k % 8: the fallback (float32 GEMM), no coopmat dispatch
    got = vp.matmul(vp.asarray(odd), vp.asarray(_ints(rng, (36, 40))))
    assert got.dtype == np.float16 and len(emulated) == n0


@pytest.mark.parametrize("variant", [None, "t128x256cbg8", "t128x128cb"])
def test_matmul_float16_transposed_and_strided(emulated, monkeypatch, variant):
    """vp.matmul of float16 views (transposed, strided rows and columns, a
    column slice) on the (emulated) tiled kernels: the views are made
    contiguous on the device first; integer-valued data, so the float16
    result equals NumPy's bit for bit."""
    if variant:
        monkeypatch.setenv(_coopmat.ENV, variant)
    rng = np.random.default_rng(13)
    A = _ints(rng, (144, 80))
    B = _ints(rng, (160, 136))
    dA, dB = vp.asarray(A), vp.asarray(B)
    cases = [(dA.T, dB[:144, :], A.T, B[:144, :]),            # (80 x 144) @ (144 x 136)
             (dA[::2], dB.T[:80, ::2], A[::2], B.T[:80, ::2]),   # (72 x 80) @ (80 x 80)
             (dA[:, 8:72], dB[:64, :128:2], A[:, 8:72], B[:64, :128:2])]
    for da, db, a, b in cases:
        n0 = len(emulated)
        got = vp.matmul(da, db)
        assert got.dtype == np.float16 and got.shape == (a @ b).shape
        np.testing.assert_array_equal(got.numpy(), a @ b)
        assert len(emulated) == n0 + 1, "the tiled kernel ran"
