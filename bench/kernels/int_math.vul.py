# Integer math: wrapping u32 multiply, shifts, xor, and Python's floor
# division and modulo on signed ints (the result sign follows the divisor):
# outputs must be bit-exact between the Vulkan and CUDA runs.
import vulpy as vp


def main(a: vp.Buffer[vp.int32], b: vp.Buffer[vp.int32], h: vp.Buffer[vp.uint32],
         q: vp.Buffer[vp.int32], r: vp.Buffer[vp.int32]):
    i = vp.global_id()
    x = vp.uint32(a[i])
    x = x * 2654435761
    x = x ^ (x >> 15)
    x = (x << 3) | (x >> 29)
    h[i] = x + i
    q[i] = a[i] // b[i]
    r[i] = a[i] % b[i]
