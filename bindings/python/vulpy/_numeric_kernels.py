"""Kernels of _numeric.py in VulPy's own kernel language.

frexp_f32: numpy.frexp of float32 by its bits alone, exact on every device.
A device that flushes float32 subnormals (NVIDIA, ctx.flushes_subnormals)
reads a subnormal operand of any float instruction, conversions to
float64 included, as 0, so frexp by log2 and ldexp gave m = 0, e = 0 for
them on the H200. Here no float instruction sees a subnormal: the
exponent and mantissa fields are moved as integers, and a subnormal's
mantissa field (an integer below 2^23) is converted to float32, exactly,
to find its leading bit (the converted value is a normal number)."""
import vulpy as vp


@vp.kernel(local_size_x=64)
def frexp_f32(x: vp.Buffer[vp.float32], m: vp.Buffer[vp.float32], e: vp.Buffer[vp.int32],
              n: vp.uint32, i0: vp.uint32):
    i = vp.global_id() + i0  # (dispatched in blocks of at most 65,535 workgroups)
    if i >= n:
        return
    b = vp.bitcast(x[i], vp.uint32)
    field = (b >> vp.uint32(23)) & vp.uint32(255)
    frac = b & vp.uint32(8388607)
    sign = b & vp.uint32(2147483648)
    mb = b  # zero (either sign), inf and NaN: x itself, exponent 0
    ex = vp.int32(0)
    if field == vp.uint32(0) and frac != vp.uint32(0):
        # x = frac * 2^-149; frac < 2^23 converts exactly to a normal float
        fb = vp.bitcast(vp.float32(frac), vp.uint32)
        ex = vp.int32(fb >> vp.uint32(23)) - 127 - 148
        mb = sign | vp.uint32(1056964608) | (fb & vp.uint32(8388607))
    elif field != vp.uint32(0) and field != vp.uint32(255):
        ex = vp.int32(field) - 126
        mb = sign | vp.uint32(1056964608) | frac
    m[i] = vp.bitcast(mb, vp.float32)
    e[i] = ex
