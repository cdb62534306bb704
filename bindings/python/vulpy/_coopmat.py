"""float16 GEMM with float32 accumulation on cooperative matrices (tensor
cores), issue 19; the fallback elsewhere. docs/python-api.md, "Linear
algebra", "Cooperative matrices", is the reference: the feature, the
kernels and TILES' options (suffixes c, b, g8), VULPY_COOPMAT_VARIANT, why
NV and not KHR.

available(ctx) is the capability probe. matmul_f16_words(a, b, m, n, k)
multiplies float16 matrices given as their bits (two halves to a uint32
word: `x.view(np.uint32)`) into a resident float32 m x n array: a variant
of TILES (GLSL from _coopmat_tiled.py; variant= or $VULPY_COOPMAT_VARIANT
forces one, else the first of ORDER that takes the shape), or (the
fallback) unpackHalf2x16 to float32 and the float32 GEMM (_gemm).
SPIRV-Cross (2021) cannot read a cooperative-matrix module, so its
manifest is written here rather than reflected.
"""
import os

import numpy as np

from . import _array, _context, _gemm, _native
from . import _coopmat_tiled as _tiled
from ._launch import Program, grid_2d
from ._kernel import kernel

FEATURE = "cooperative_matrix"

# The tiled kernels (vulpy/_coopmat_tiled.py; M any size, N and K multiples
# of 8): name -> Tile(bm, bn, bk, subgroups down, across, shared buffers).
TILES = {
    "t128x128": _tiled.Tile(128, 128, 32, 2, 2, 2),    # 4 subgroups of 64 x 64
    "t128x128s8": _tiled.Tile(128, 128, 32, 2, 4, 2),  # 8 subgroups of 64 x 32
    "t128x128k64": _tiled.Tile(128, 128, 64, 2, 4, 1),  # K steps of 64, one buffer
    "t128x256": _tiled.Tile(128, 256, 32, 2, 4, 1),    # 8 subgroups of 64 x 64
    "t256x128": _tiled.Tile(256, 128, 32, 4, 2, 1),    # 8 subgroups of 64 x 64
    # wave 10's experiments (bench/probes/coopmat_ab.py; the suffixes c, b, g8:
    # docs/python-api.md, "Cooperative matrices")
    "t128x256b": _tiled.Tile(128, 256, 32, 2, 4, 1, b_one=True),
    "t128x256c": _tiled.Tile(128, 256, 32, 2, 4, 1, shape=True),
    "t128x256cb": _tiled.Tile(128, 256, 32, 2, 4, 1, shape=True, b_one=True),
    "t128x256g8": _tiled.Tile(128, 256, 32, 2, 4, 1, group=8),
    "t128x256cbg8": _tiled.Tile(128, 256, 32, 2, 4, 1, shape=True, b_one=True, group=8),
    "t128x128cb": _tiled.Tile(128, 128, 32, 2, 2, 2, shape=True, b_one=True),
    "t256x128cb": _tiled.Tile(256, 128, 32, 4, 2, 1, shape=True, b_one=True),
}
VARIANTS = TILES  # name -> its Tile
# What runs without a choice: DEFAULT where it takes the shape, else the
# next of ORDER that does (else the fallback). ENV (or variant=) forces one
# variant; a shape it does not take then runs the fallback.
DEFAULT = "t128x128"
ORDER = (DEFAULT,)
ENV = "VULPY_COOPMAT_VARIANT"

# the fallback's first step: float16 bits (2 per word) -> float32
_UNPACK_GLSL = """#version 450
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) readonly buffer W { uint w[]; };
layout(set = 0, binding = 1) writeonly buffer F { vec2 f[]; };
layout(push_constant) uniform P { uint words; uint row; } pc;
void main() {
  uint i = gl_GlobalInvocationID.y * pc.row + gl_GlobalInvocationID.x;
  if (i < pc.words)
    f[i] = unpackHalf2x16(w[i]);
}
"""

_progs = {}


def available(ctx=None):
    """Whether the device can run the cooperative-matrix kernel."""
    ctx = _context.resolve(ctx)
    return bool(ctx.has(FEATURE))


# the per-shape programs (Tile.shape) kept at most; the oldest goes first
SHAPED_KEEP = 32


def _coop_program(variant=DEFAULT, shape=None):
    """The program of `variant`; a Tile.shape kernel is compiled for
    shape = (m, n, k) (other variants ignore it)."""
    tile = VARIANTS[variant]
    shape = tuple(shape) if tile.shape and shape is not None else None
    if tile.shape and shape is None:
        raise ValueError(f"vp.matmul float16: coopmat variant {variant!r} is compiled per "
                         f"shape; pass shape=(m, n, k)")
    pk = (variant, shape) if shape else variant
    p = _progs.get(pk)
    if p is None:
        glsl, man = _tiled.glsl(tile, shape), _tiled.manifest(tile)
        key = ("coopmat", "nv", "tiled", tile, shape, 1)
        label = f"vp.matmul float16 (coopmat {variant})"
        spirv = _native.ext().glsl_to_spirv(glsl, label)
        p = Program({"glsl": glsl, "spirv": spirv, "manifest": man, "key": key}, label)
        if shape:
            shaped = [q for q in _progs if isinstance(q, tuple)]
            for q in shaped[:max(0, len(shaped) + 1 - SHAPED_KEEP)]:
                del _progs[q]
        _progs[pk] = p
    return p


def _unpack_program():
    p = _progs.get("unpack")
    if p is None:
        p = kernel(_UNPACK_GLSL, buffers=2, push=[("words", "uint32"), ("row", "uint32")],
                   name="vp.matmul float16 unpack")
        _progs["unpack"] = p
    return p


def _words(x, rows, cols, what, ctx):
    """x as a resident uint32 array of rows * cols / 2 words."""
    if isinstance(x, np.ndarray) and x.dtype == np.float16:
        x = np.ascontiguousarray(x).view(np.uint32)
    if not isinstance(x, _array.ndarray):
        x = _array.asarray(np.ascontiguousarray(x, dtype=np.uint32), context=ctx)
    if x.dtype != np.uint32 or x.size * 2 != rows * cols:
        raise ValueError(f"vp.matmul float16: {what} must hold {rows} x {cols} float16 values "
                         f"as {rows * cols // 2} uint32 words (got {x.dtype.name}, "
                         f"{x.size} elements)")
    return x if x.contiguous else x.copy()


def _limits(ctx):
    return ctx.limits


def _takes(ctx, v, m, n, k):
    """Whether variant v runs an m x k @ k x n product on ctx."""
    lim = _limits(ctx)
    if lim.get("subgroup_size") != _tiled.SUBGROUP:  # the layouts assume 32 lanes
        return False
    tile = VARIANTS[v]
    shared = lim.get("max_shared_memory") or 16384
    maxg = lim.get("max_workgroup_count") or (65535, 65535, 65535)
    gx, gy, _ = tile.groups(m, n)
    return n % 8 == 0 and k % 8 == 0 and gx <= maxg[0] and gy <= maxg[1] and \
        tile.shared_bytes <= shared


def variant_for(ctx, m, n, k, variant=None):
    """The cooperative-matrix variant matmul_f16_words runs (None: the
    fallback): `variant` (or $VULPY_COOPMAT_VARIANT) when it takes the
    shape, else, with neither, the first of ORDER that does."""
    forced = variant or os.environ.get(ENV) or None
    if forced is not None and forced not in VARIANTS:
        src = "variant" if variant else f"${ENV}"
        raise ValueError(f"vp.matmul float16: {src}={forced!r} is not a cooperative-matrix "
                         f"variant (one of {', '.join(VARIANTS)})")
    if not available(ctx) or m <= 0 or n <= 0 or k <= 0:
        return None
    for v in ([forced] if forced else ORDER):
        if _takes(ctx, v, m, n, k):
            return v
    return None


def uses_coopmat(ctx, m, n, k):
    """Whether matmul_f16_words takes a cooperative-matrix kernel."""
    return variant_for(ctx, m, n, k) is not None


def run_buffers(ctx, abuf, bbuf, m, n, k, memory, variant=None):
    """The cooperative-matrix product of two row-major float16 buffers (any
    dtype's buffer holding the halves from element 0) into a new resident
    float32 array, or None when no variant takes this shape here."""
    v = variant_for(ctx, m, n, k, variant)
    if v is None:
        return None
    p, push, grid, (pm, pn) = launch_args(v, m, n, k)
    c = _array._result((pm, pn), np.dtype(np.float32), memory, ctx)
    p.native(ctx).dispatch([abuf, bbuf, c._buf], push, *grid, True, True)
    return c if (pm, pn) == (m, n) else c[:m, :n].copy()


def launch_args(v, m, n, k):
    """(program, push constants, workgroup grid, (rows, columns) of the
    float32 output buffer) of variant v for an m x k @ k x n product: the
    tiled kernels write whole tiles of a padded buffer, whose m x n corner
    is the product (_coopmat_tiled: edges)."""
    p = _coop_program(v, (m, n, k))
    tile = VARIANTS[v]
    pm, pn = tile.padded(m, n)
    return p, p.packer.pack({"m": m, "n": n, "k": k, "ldc": pn}), tile.groups(m, n), (pm, pn)


def matmul_f16_words(a, b, m, n, k, context=None, force_fallback=False, variant=None):
    """float16 (m x k) @ (k x n) -> resident float32 (m x n); a and b are
    the float16 data as uint32 words (or NumPy float16 arrays). Module
    docstring: which kernel runs."""
    if k % 2 or n % 2:
        raise ValueError(f"vp.matmul float16: k ({k}) and n ({n}) must be even (two halves "
                         f"to a word)")
    ctx = _context.resolve(context if context is not None else
                           (a._ctx if isinstance(a, _array.ndarray) else None))
    aw = _words(a, m, k, "a", ctx)
    bw = _words(b, k, n, "b", ctx)
    c = None if force_fallback else run_buffers(ctx, aw._buf, bw._buf, m, n, k, aw.memory,
                                                   variant)
    if c is not None:
        return c
    fa = _unpack(aw, (m, k), ctx)
    fb = _unpack(bw, (k, n), ctx)
    c = _array._result((m, n), np.dtype(np.float32), aw.memory, ctx)
    _gemm.gemm(ctx, np.float32, m, n, k, 1, (fa._buf, 0, (k, 1, 0)), (fb._buf, 0, (n, 1, 0)),
               (c._buf, 0, (n, 1, 0)))
    return c


def _unpack(w, shape, ctx):
    f = _array._result(tuple(shape), np.dtype(np.float32), w.memory, ctx)
    if w.size:
        gx, gy, row = grid_2d(ctx, w.size, 256)
        _unpack_program()(w, f, groups=(gx, gy, 1), words=w.size, row=row)
    return f
