"""Lesson 1 - convenience mode: NumPy in, NumPy out (docs/tutorials/01-convenience.md)."""
# The seed's first example: each call uploads, runs one kernel, downloads.
import numpy as np
import vulpy as vp

x = np.linspace(0.0, 1.0, 1_000_000, dtype=np.float32)
y = vp.sin(x) + vp.exp(x)      # two kernels; the `+` is NumPy's

print("devices:", [d["name"] for d in vp.list_devices()])
assert isinstance(y, np.ndarray) and y.dtype == np.float32
np.testing.assert_allclose(y, np.sin(x) + np.exp(x), rtol=1e-6)

# NumPy's rules: broadcasting, and promotion where Python scalars are weak.
a = np.arange(12, dtype=np.float32).reshape(3, 4)
b = np.array([1, 2, 3, 4], dtype=np.float32)
np.testing.assert_array_equal(vp.add(a, b), a + b)          # (3,4) + (4,)
assert vp.multiply(a, 0.5).dtype == np.float32               # float32 * Python float
assert vp.add(a.astype(np.int32), 1).dtype == np.int32

# Comparisons give bool arrays; vp.where picks elementwise.
np.testing.assert_array_equal(vp.where(a > 5, a, -a), np.where(a > 5, a, -a))
np.testing.assert_array_equal(vp.clip(a, 2, 9), np.clip(a, 2, 9))

# sync=False returns a handle; the GPU works while Python goes on.
h = vp.sqrt(x, sync=False)
r = h.wait()
np.testing.assert_allclose(r, np.sqrt(x), rtol=1e-6)

# Every ufunc is a kernel written in VulPy's kernel language; this is the
# GLSL vp.sqrt ran:
print(vp.sqrt.glsl)
print("lesson 1: OK")
