"""Lesson 6 - shared memory and barriers: a workgroup tree reduction
(docs/tutorials/06-shared-memory.md).

    python examples/lesson06_shared_memory.py [--size 1000000] [--steps 20] [--png FILE]

--size is the number of float32 values summed, --steps the calls timed,
--png draws the tree of kernel 4 for a 16-wide workgroup.
Exits non-zero when a sum disagrees with NumPy's.
"""
import argparse
import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

import vulpy as vp

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--size", type=int, default=1_000_000, help="values summed")
ap.add_argument("--steps", type=int, default=20, help="calls timed")
ap.add_argument("--png", help="draw kernel 4's tree here")
args = ap.parse_args()

TILE = 256                        # invocations per workgroup


# Harris's kernel 4: each invocation adds two values while loading, then the
# workgroup halves the live range in shared memory, with a barrier between
# levels, until tile[0] holds the workgroup's sum.
@vp.kernel(local_size_x=TILE)
def block_sum(x: vp.Buffer[vp.float32], partial: vp.Buffer[vp.float32], n: vp.uint32):
    tile = vp.Shared[vp.float32, TILE]
    lid = vp.local_index()
    i = vp.workgroup_id() * (2 * TILE) + lid
    a = vp.var(0.0)
    if i < n:
        a[:] = x[i]
    if i + TILE < n:
        a[:] = a + x[i + TILE]
    tile[lid] = a
    vp.barrier()                  # every invocation's value is in tile
    s = vp.var(vp.uint32(TILE // 2))
    while s > 0:
        if lid < s:
            tile[lid] = tile[lid] + tile[lid + s]
        vp.barrier()              # this level is done before the next reads it
        s[:] = s >> 1
    if lid == 0:
        partial[vp.workgroup_id()] = tile[0]


# Harris's kernel 1 for comparison: interleaved addressing, one value loaded
# per invocation, and a modulo test that leaves most lanes of a warp idle.
@vp.kernel(local_size_x=TILE)
def block_sum_interleaved(x: vp.Buffer[vp.float32], partial: vp.Buffer[vp.float32],
                          n: vp.uint32):
    tile = vp.Shared[vp.float32, TILE]
    lid = vp.local_index()
    i = vp.workgroup_id() * TILE + lid
    tile[lid] = x[i] if i < n else 0.0
    vp.barrier()
    s = vp.var(vp.uint32(1))
    while s < TILE:
        if lid % (2 * s) == 0:
            tile[lid] = tile[lid] + tile[lid + s]
        vp.barrier()
        s[:] = s << 1
    if lid == 0:
        partial[vp.workgroup_id()] = tile[0]


# The modern form of Harris's "unroll the last warp": a subgroup (warp) adds
# its values in registers, so shared memory holds one value per subgroup and
# the workgroup needs a single barrier.
@vp.kernel(local_size_x=TILE)
def block_sum_subgroup(x: vp.Buffer[vp.float32], partial: vp.Buffer[vp.float32],
                       n: vp.uint32):
    tile = vp.Shared[vp.float32, TILE]
    lid = vp.local_index()
    i = vp.workgroup_id() * (2 * TILE) + lid
    a = vp.var(0.0)
    if i < n:
        a[:] = x[i]
    if i + TILE < n:
        a[:] = a + x[i + TILE]
    s = vp.subgroup_add(a)
    if vp.subgroup_lane() == 0:
        tile[vp.subgroup_id()] = s
    vp.barrier()
    if lid == 0:
        t = vp.var(0.0)
        for k in range(vp.num_subgroups()):
            t[:] = t + tile[k]
        partial[vp.workgroup_id()] = t


def gpu_sum(xv, kernel=block_sum, per_group=2 * TILE):
    """Sums a resident float32 array: one pass per level, until one value is left."""
    while xv.size > 1:
        groups = -(-xv.size // per_group)
        partial = vp.empty(groups, dtype=np.float32)
        kernel(xv, partial, groups=(groups, 1, 1), n=xv.size)
        xv = partial
    return float(xv.numpy()[0])


rng = np.random.default_rng(6)
x = rng.random(args.size, dtype=np.float32)
xv = vp.asarray(x)
want = float(np.sum(x, dtype=np.float64))
s4 = gpu_sum(xv)
s1 = gpu_sum(xv, block_sum_interleaved, TILE)
# A tree of float32 additions: the error grows with log2(n), not with n.
tol = 4 * np.log2(args.size) * np.finfo(np.float32).eps * want
assert abs(s4 - want) <= tol, (s4, want)
assert abs(s1 - want) <= tol, (s1, want)
ctx = vp.default_context()
SUBGROUPS = ctx.has("subgroup_arithmetic")
if SUBGROUPS:
    ss = gpu_sum(xv, block_sum_subgroup)
    assert abs(ss - want) <= tol, (ss, want)
print(f"sum of {args.size:,} float32: {s4:.6f} (kernel 4), {s1:.6f} (kernel 1), "
      f"float64 NumPy {want:.6f}")

# Small integers add exactly in float32 while every partial sum stays below
# 2**24, so this sum must match NumPy's bit for bit: a missing barrier (a
# level reading tile before the level below wrote it) shows up here.
k = np.arange(args.size) % 16
xi = (k if args.size * 15 < 2**24 else k == 0).astype(np.float32)
assert gpu_sum(vp.asarray(xi)) == float(xi.sum(dtype=np.float64))
if SUBGROUPS:
    assert gpu_sum(vp.asarray(xi), block_sum_subgroup) == float(xi.sum(dtype=np.float64))
print(f"sum of small integers: exact ({xi.sum(dtype=np.float64):,.0f})")

# The shared array as GLSL declares it, and the barrier it becomes.
glsl = block_sum.glsl
print([ln.strip() for ln in glsl.splitlines()
       if ("shared " in ln or "barrier" in ln) and not ln.lstrip().startswith("//")])


def timed(fn, steps):
    fn()
    t = time.perf_counter()
    for _ in range(steps):
        fn()
    return (time.perf_counter() - t) / steps


t4 = timed(lambda: gpu_sum(xv), args.steps)
t1 = timed(lambda: gpu_sum(xv, block_sum_interleaved, TILE), args.steps)
ts = timed(lambda: gpu_sum(xv, block_sum_subgroup), args.steps) if SUBGROUPS else float("nan")
tv = timed(lambda: float(vp.sum(xv)), args.steps)
tn = timed(lambda: float(np.sum(x)), args.steps)
print(f"device: {vp.default_context().name}")
print(f"{args.size:,} floats: kernel 4 {t4 * 1e3:.3f} ms, kernel 1 {t1 * 1e3:.3f} ms "
      f"({t1 / t4:.2f}x slower), subgroups {ts * 1e3:.3f} ms, vp.sum {tv * 1e3:.3f} ms, numpy {tn * 1e3:.3f} ms")

# The picture: kernel 4's tree for a 16-wide workgroup (32 values), each row
# one level of tile between two barriers, computed as the kernel does.
PLOT = r"""
import sys, numpy as np, matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
levels = np.load(sys.argv[1]); T = levels.shape[1]
fig, ax = plt.subplots(figsize=(8, 3.6), dpi=100)
for r, row in enumerate(levels):
    live = T if r == 0 else T >> r
    for c in range(T):
        on = c < live
        ax.add_patch(plt.Rectangle((c, -r - 0.4), 0.9, 0.8, color="#9ecae1" if on else "0.93"))
        if on:
            ax.text(c + 0.45, -r, f"{row[c]:g}", ha="center", va="center", fontsize=7)
    if r + 1 < len(levels):
        s = T >> (r + 1)
        for c in range(s):
            for src in (c, c + s):
                ax.annotate("", xy=(c + 0.45, -r - 1 + 0.4), xytext=(src + 0.45, -r - 0.4),
                            arrowprops=dict(arrowstyle="->", lw=0.6, color="0.4"))
        ax.text(T + 0.2, -r - 0.5, "barrier", fontsize=7, color="firebrick", va="center")
ax.text(-0.3, 0, "tile after load\n(x[i] + x[i+16])", ha="right", va="center", fontsize=7)
ax.set_xlim(-4, T + 2); ax.set_ylim(-len(levels) + 0.3, 0.7); ax.axis("off")
ax.set_title("kernel 4, sequential addressing: lanes 0..s-1 add tile[lid + s], s = 8, 4, 2, 1",
             fontsize=9)
fig.tight_layout(); fig.savefig(sys.argv[2])
"""
if args.png:
    T = 16
    vals = np.arange(2 * T, dtype=np.float32) % 5
    tile = vals[:T] + vals[T:]            # first add during load
    levels = [tile.copy()]
    s = T // 2
    while s > 0:
        tile[:s] = tile[:s] + tile[s:2 * s]
        levels.append(tile.copy())
        s >>= 1
    assert levels[-1][0] == vals.sum()
    tmp = tempfile.mkdtemp()
    atexit.register(shutil.rmtree, tmp, True)
    npy = os.path.join(tmp, "levels.npy")
    np.save(npy, np.array(levels))
    try:
        import matplotlib  # noqa: F401
        py = sys.executable
    except ImportError:    # the .venv has none: Debian's python3-matplotlib draws it
        py = "/usr/bin/python3"
    subprocess.run([py, "-c", PLOT, npy, args.png], check=True)
    print("wrote", args.png)
print("lesson 6: OK")
