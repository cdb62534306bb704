"""Lesson 3 - fusion with vp.jit, and reductions (docs/tutorials/03-fusion.md).

    python examples/lesson03_fusion.py [--size 1000000] [--steps 20]

--size is the number of float32 elements, --steps the calls timed.
Exits non-zero when a result disagrees with NumPy.
"""
import argparse
import time

import numpy as np

import vulpy as vp

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--size", type=int, default=1_000_000, help="elements")
ap.add_argument("--steps", type=int, default=20, help="calls timed")
args = ap.parse_args()
n = args.size

rng = np.random.default_rng(3)
a = rng.random(n, dtype=np.float32)
b = rng.random(n, dtype=np.float32)
av, bv = vp.asarray(a), vp.asarray(b)
ctx = vp.default_context()

# 1. Three ufuncs and a where: four kernels, each reading and writing memory.
y_ufuncs = vp.where(av > bv, vp.sin(av), vp.cos(bv))

# 2. The same expression traced once and fused: one kernel.
f = vp.jit(lambda a, b: vp.where(a > b, vp.sin(a), vp.cos(b)))
y = f(av, bv)
assert f.dispatches == 1
want = np.where(a > b, np.sin(a), np.cos(b))
np.testing.assert_allclose(y.numpy(), want, rtol=2e-6, atol=2e-7)
np.testing.assert_array_equal(y.numpy(), y_ufuncs.numpy())   # same math, same bits
print(f"where(a > b, sin(a), cos(b)) on {n:,} floats: {f.dispatches} dispatch (fused)")

# What fusion did: the traced ops, now one array.kernel that loads a and b
# once and stores once.
print(f.fused_vir[f.fused_vir.index("array @jit"):])

# 3. Reductions: NumPy's names and axes; a trailing reduction fuses too.
m = av.reshape(1000, -1) if n % 1000 == 0 else av.reshape(1, -1)
row_max = vp.max(m, axis=1)
np.testing.assert_array_equal(row_max.numpy(), a.reshape(m.shape).max(axis=1))
energy = vp.jit(lambda x: (vp.sin(x) ** 2).sum())
e = float(energy(av))
assert energy.dispatches == 1
e_np = float(np.sum(np.sin(a.astype(np.float64)) ** 2))
assert abs(e - e_np) <= 1e-5 * e_np, (e, e_np)
print(f"sum(sin(x)**2): {e:.3f} in {energy.dispatches} dispatch (NumPy float64: {e_np:.3f})")
print(f"mean {float(av.mean()):.6f} (NumPy {a.mean():.6f})")
assert abs(float(av.mean()) - a.mean()) < 1e-6


# 4. What it saves: dispatches and memory traffic.
def timed(fn):
    fn()
    t = time.perf_counter()
    for _ in range(args.steps):
        fn()
    return (time.perf_counter() - t) / args.steps


unfused = vp.jit(lambda a, b: vp.where(a > b, vp.sin(a), vp.cos(b)), fuse=False)
out = vp.empty_like(av)
d0 = ctx.stats()["dispatches"]
unfused(av, bv, out=out)
print(f"fuse=False: {ctx.stats()['dispatches'] - d0} dispatches a call")
t_fused = timed(lambda: f(av, bv, out=out))
t_unfused = timed(lambda: unfused(av, bv, out=out))
t_ufuncs = timed(lambda: vp.where(av > bv, vp.sin(av), vp.cos(bv)))
t_numpy = timed(lambda: np.where(a > b, np.sin(a), np.cos(b)))
print(f"device: {ctx.name}")
print(f"{n:,} floats: vp.jit {t_fused * 1e3:.2f} ms, fuse=False {t_unfused * 1e3:.2f} ms "
      f"({t_unfused / t_fused:.1f}x), ufuncs {t_ufuncs * 1e3:.2f} ms, numpy {t_numpy * 1e3:.2f} ms")
print("lesson 3: OK")
