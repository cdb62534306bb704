import vulpy as vp
import random

K = 1 << -1
L = 2 ** 64
M = (-8.0) ** 0.5
N = vp.uint32(1) + vp.int32(2)
O = vp.uint8(300)
P: vp.vec2 = 1.0
Q = ~1.5
R = 1 << 70

def main(a: vp.Buffer[vp.float32]):
    i = vp.global_id()
    z = K + L + M + N + O + P + Q + R
    a[i] = 99999999999999999999999
    a[0] = 2.5e39
    x = 2.5e39
    m = random.random
    r = randint

from random import randint
# Error classes of module constants and literals: a negative shift, a value
# past 64 bits, a fractional power of a negative number, mixed types, a typed
# constant out of range, a non-scalar annotation, ~ on a float, a literal
# past 64 bits, float literals past float32 (printed as written, not as
# 2.5000000000000001e+39), another module, another module's value. Each constant is reported
# once, at its definition.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s
# CHECK: {{.*}}module-constants.vul.py:4:5: error: negative shift count
# CHECK: {{.*}}module-constants.vul.py:5:5: error: constant expression does not fit 64 bits
# CHECK: {{.*}}module-constants.vul.py:6:5: error: a negative number to a fractional power is complex
# CHECK: {{.*}}module-constants.vul.py:7:5: error: constant expression mixes u32 and i32
# CHECK: {{.*}}module-constants.vul.py:8:14: error: the constant does not fit u8
# CHECK: {{.*}}module-constants.vul.py:9:4: error: a module constant must be a scalar, not vec2<f32>
# CHECK: {{.*}}module-constants.vul.py:10:5: error: ~ needs an integer, not a float
# CHECK: {{.*}}module-constants.vul.py:11:5: error: constant expression does not fit 64 bits
# CHECK: {{.*}}module-constants.vul.py:16:12: error: integer literal does not fit 64 bits
# CHECK: {{.*}}module-constants.vul.py:17:12: error: store to 'a': literal 2.5e+39 does not fit f32
# CHECK: {{^}}  hint: use a wider type, e.g. vp.float64(...)
# CHECK: {{.*}}module-constants.vul.py:18:9: error: float literal 2.5e+39 does not fit float32, the type of a literal on its own
# CHECK: {{^}}  hint: give it a type: vp.float64(...)
# CHECK: {{.*}}module-constants.vul.py:19:9: error: 'random' is a module; kernels read attributes of vulpy and math only
# CHECK: {{^}}  hint: import the number itself: from random import NAME
# CHECK: {{.*}}module-constants.vul.py:20:9: error: 'randint' is a module-level value that is not a compile-time constant
# CHECK: {{^}}  hint: kernels see numbers, struct classes and functions of their module; pass other data in a buffer
# CHECK-NOT: error:
