"""What the device's compiler does to float arithmetic that NumPy computes
op by op (docs/runtime.md, "Float arithmetic as written"; docs/math.md):
constant reassociation per width and per path (vp.jit literal, a push
constant, @vp.kernel), float16 rounding between operations, and division
by a divisor past Vulkan's defined range (|b| > 2^126 in float32). Prints
one line per case: the device's values, NumPy's, and whether they agree bit
for bit (NaN equal to NaN).

    bash bench/device/probes.sh 120 'bench/probes/float_exact.py'   (H200)
    .venv/bin/python bench/probes/float_exact.py                      (here)
"""
import os
import sys
import tempfile
import warnings

import numpy as np

import vulpy as vp

warnings.simplefilter("ignore")

KERNELS = '''import vulpy as vp


@vp.kernel
def add_sub16(a: vp.Buffer[vp.float16], o: vp.Buffer[vp.float16], big: vp.float16):
    i = vp.global_id()
    o[i] = (a[i] + big) - big


@vp.kernel
def div32(a: vp.Buffer[vp.float32], b: vp.Buffer[vp.float32], o: vp.Buffer[vp.float32]):
    i = vp.global_id()
    o[i] = a[i] / b[i]
'''


def same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    return bool(np.all((got == want) | (np.isnan(got) & np.isnan(want))))


def show(name, got, want):
    got = np.asarray(got)
    print(f"{name:42s} {'same' if same(got, want) else 'DIFFERENT'}  device {got.tolist()}  "
          f"numpy {np.asarray(want).tolist()}")


def main():
    c = vp.default_context()
    print("device", c.info["name"], "driver", c.info["driver_id"], "inf_nan_preserve",
          c.info["inf_nan_preserve"], "features", [f for f in c.info["features"]
                                                   if "16" in f or "float" in f])
    x16 = np.array([1.0, -2.5, 3.0, 7.0, 0.5], np.float16)
    big16 = np.float16(4096.0)
    show("jit f16 (x + 4096) - 4096, literal", vp.jit(lambda a: (a + big16) - big16)(vp.asarray(x16)),
         (x16 + big16) - big16)
    show("jit f16 x + 4096 (one op)", vp.jit(lambda a: a + big16)(vp.asarray(x16)), x16 + big16)
    show("eager f16 (x + 4096) - 4096", (vp.asarray(x16) + big16) - big16, (x16 + big16) - big16)
    x32 = x16.astype(np.float32)
    big32 = np.float32(1e20)
    show("jit f32 (x + 1e20) - 1e20", vp.jit(lambda a: (a + big32) - big32)(vp.asarray(x32)),
         (x32 + big32) - big32)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "float_exact_kernels.py")
        with open(path, "w") as f:
            f.write(KERNELS)
        sys.path.insert(0, d)
        import float_exact_kernels as k
        o = np.zeros_like(x16)
        k.add_sub16(x16, o, big=big16, dispatch=x16.size)
        show("kernel f16 (a + big) - big, push constant", o, (x16 + big16) - big16)
        a = np.array([3.4e38, 3.4e38, 1.0, 1e38, 6.0], np.float32)
        b = np.array([3.4e38, 1.7e38, 2e38, 9e37, 3.0], np.float32)
        o32 = np.zeros_like(a)
        k.div32(a, b, o32, dispatch=a.size)
        show("kernel f32 a / b, |b| > 2^126", o32, a / b)
        show("eager f32 a / b, |b| > 2^126", vp.asarray(a) / vp.asarray(b), a / b)
        show("eager f32 a // b, |b| > 2^126", vp.asarray(a) // vp.asarray(b), a // b)


if __name__ == "__main__":
    main()
