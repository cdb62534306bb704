# abs(), min(), max(), int() and float() of number literals fold to a literal with Python's
# value (min/max keep the operand they return: max(3, 2.5) is the int 3),
# so the result adapts to its partner like any literal (docs/language.md,
# "Typing rules", 7): h[i] * max(1.5, 2.0) with a float16 h is an f16
# multiply (it was an f32 one, and the store an error).
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

def main(h: vp.Buffer[vp.float16], u: vp.Buffer[vp.uint64], w: vp.Buffer[vp.int8]):
    i = vp.global_id()
    a = h[i] * max(1.5, 2.0)
    b = h[i] + abs(-0.25)
    c = u[i] + min(7, 18446744073709551615)
    d = w[i] * max(3, 2.5)
    e = u[i] | abs(-9223372036854775808)
    f = h[i] * float(2) + vp.float16(int(2.7))
    h[i] = a + b + f
    u[i] = c + e
    w[i] = d

# CHECK: %[[TWO:[0-9]+]] = const 2.0 : f16
# CHECK-NEXT: %a = mul %{{[0-9]+}}, %[[TWO]] : f16
# CHECK: %[[Q:[0-9]+]] = const 0.25 : f16
# CHECK-NEXT: %b = add %{{[0-9]+}}, %[[Q]] : f16
# CHECK: %[[SEVEN:[0-9]+]] = const 7 : u64
# CHECK-NEXT: %c = add %{{[0-9]+}}, %[[SEVEN]] : u64
# CHECK: %[[THREE:[0-9]+]] = const 3 : i8
# CHECK-NEXT: %d = mul %{{[0-9]+}}, %[[THREE]] : i8
# CHECK: %[[TOP:[0-9]+]] = const 9223372036854775808 : u64
# CHECK-NEXT: %e = or %{{[0-9]+}}, %[[TOP]] : u64
# Python's float(2) and int(2.7) are literals too (vp.float32(2) is typed):
# CHECK: %[[F2:[0-9]+]] = const 2.0 : f16
# CHECK-NEXT: mul %{{[0-9]+}}, %[[F2]] : f16
