"""Lesson 2 - resident arrays: data stays on the device (docs/tutorials/02-resident.md).

    python examples/lesson02_resident.py [--size 16] [--steps 5]

--size is the MiB moved to and from each memory kind, --steps the copies timed.
Exits non-zero when a result disagrees with NumPy.
"""
import argparse
import time

import numpy as np

import vulpy as vp

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--size", type=int, default=16, help="MiB copied per memory kind")
ap.add_argument("--steps", type=int, default=5, help="copies timed")
args = ap.parse_args()

ctx = vp.default_context()
x = np.linspace(0.0, 1.0, 1_000_000, dtype=np.float32)

# The seed's resident example.
xv = vp.asarray(x)             # one upload
yv = vp.empty_like(xv)
vp.sin(xv, out=yv)             # no transfer at all
if yv.mappable:
    result = yv.numpy_view()   # NumPy data pointer == Vulkan buffer pointer
print("memory kind:", yv.memory, "| mappable:", yv.mappable)

if yv.mappable:
    assert result.__array_interface__["data"][0] == yv.buffer.address
    # the view is live: the next dispatch shows in it without another copy,
    # once it ran (ufuncs on resident arrays return before their work runs;
    # a view taken before the call is plain memory: synchronize, then read)
    vp.cos(xv, out=yv)
    ctx.synchronize()
    np.testing.assert_allclose(result, np.cos(x), rtol=1e-6, atol=1e-7)
else:
    result = yv.numpy()               # device memory on a discrete GPU: copy out

# Operators on resident arrays return resident arrays; out= reuses memory.
zv = xv * 2.0 + 1.0
assert isinstance(zv, vp.ndarray)
zv += xv                              # in place: same buffer
np.testing.assert_allclose(zv.numpy(), x * 3 + 1, rtol=1e-6)

# The four memory kinds (they collapse on unified-memory devices).
for kind in vp.MEMORY_KINDS:
    a = vp.zeros(1024, memory=kind)
    print(f"{kind:>7}: mappable={a.mappable}")

# Reshape and ravel are views of the same buffer.
m = vp.arange(12, dtype=np.float32).reshape(3, 4)
assert m.ravel().buffer is m.buffer

# Slicing makes strided views of the same buffer, as NumPy's does; views are
# ufunc inputs and out= targets, and assignments write through them.
v = m[1:, ::2]                 # rows 1-2, every other column: no copy
assert v.buffer is m.buffer and not v.contiguous
m[0, :] = 0                    # one kernel writes through the view
vp.multiply(m[:, 1], 10.0, out=m[:, 1])
big = m[m > 5]                 # a boolean mask gathers (a new array)
want = np.arange(12, dtype=np.float32).reshape(3, 4)
want[0, :] = 0
want[:, 1] *= 10
np.testing.assert_array_equal(m.numpy(), want)
np.testing.assert_array_equal(v.numpy(), want[1:, ::2])
np.testing.assert_array_equal(big.numpy(), want[want > 5])

# Page-aligned host memory is imported with no copy (VK_EXT_external_memory_host).
if ctx.has("external_memory_host"):
    host = vp.aligned_empty(4096, np.float32)
    host[:] = 1.0
    hv = vp.asarray(host, memory="host")
    vp.multiply(hv, 3.0, out=hv)      # the GPU writes the NumPy array's own pages
    assert (host == 3.0).all()

# What each memory kind costs to fill from NumPy and to read back.
host = np.ones(args.size << 18, np.float32)          # --size MiB
back = np.empty_like(host)
print(f"device: {ctx.name}")
for kind in vp.MEMORY_KINDS:
    a = vp.empty(host.shape, dtype=np.float32, memory=kind)
    a.set(host)
    t = time.perf_counter()
    for _ in range(args.steps):
        a.set(host)                                   # upload
    t_up = (time.perf_counter() - t) / args.steps
    t = time.perf_counter()
    for _ in range(args.steps):
        a.get(out=back)                               # download, no allocation
    t_down = (time.perf_counter() - t) / args.steps
    assert (back == 1.0).all()
    print(f"{kind:>7}: upload {host.nbytes / t_up / 1e9:.1f} GB/s, "
          f"download {host.nbytes / t_down / 1e9:.1f} GB/s ({args.size} MiB)")
print("lesson 2: OK")
