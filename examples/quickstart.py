"""The quick-start (`make run`): the first example of the product description,
checked against NumPy, with the device, the time and the GLSL it ran.

    x = np.linspace(0.0, 1.0, 1_000_000, dtype=np.float32)
    y = vp.sin(x) + vp.exp(x)   # GPU-accelerated, returns NumPy array
"""
import sys
import time

import numpy as np

import vulpy as vp


def main():
    ctx = vp.default_context()
    print(f"device: {ctx.name} ({ctx.kind}, Vulkan {ctx.info['api_version']}, "
          f"driver {ctx.info['driver_name']})")

    x = np.linspace(0.0, 1.0, 1_000_000, dtype=np.float32)
    t0 = time.perf_counter()
    y = vp.sin(x) + vp.exp(x)   # first call: compiles two kernels (then cached)
    t1 = time.perf_counter()
    y = vp.sin(x) + vp.exp(x)
    t2 = time.perf_counter()
    want = np.sin(x) + np.exp(x)
    t3 = time.perf_counter()

    err = float(np.max(np.abs(y - want) / np.maximum(np.abs(want), 1e-30)))
    ok = isinstance(y, np.ndarray) and y.dtype == np.float32 and err < 1e-5
    print(f"y = vp.sin(x) + vp.exp(x) on {x.size:,} float32: first call {1e3 * (t1 - t0):.1f} ms "
          f"(compiles), then {1e3 * (t2 - t1):.2f} ms; NumPy {1e3 * (t3 - t2):.2f} ms")
    print(f"max relative difference from NumPy: {err:.2e} -> {'OK' if ok else 'MISMATCH'}")
    print()
    print("The GLSL that vp.sin ran (python -m vulpy emit-glsl shows any kernel's):")
    print(vp.sin.glsl)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
