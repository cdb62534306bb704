# Arithmetic with Python's meaning: // and % are floordiv and mod (floor
# semantics for negative operands, as VIR defines them), / is true division
# on floats, x ** n with a small constant n is multiplications (pow() of a
# negative base is undefined in GLSL), other powers are pow; unary - and +;
# literal-only expressions fold with Python's rules.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

def main(f: vp.Buffer[vp.float32], n: vp.Buffer[vp.int32]):
    i = vp.global_id()
    x = f[i]
    k = n[i]
    a = x + x - x * x / x
    b = k // 3
    c = k % 3
    d = x // 2.0
    e = x % 2.0
    p3 = x ** 3
    p0 = k ** 0
    pf = x ** 0.5
    pv = x ** x
    neg = -x + +x
    folded = (-7) // 2 + (-7) % 2 + 2 ** 10 + 7 / 2
    f[i] = a + d + e + p3 + pf + pv + neg + folded
    n[i] = b + c + p0

# CHECK: %a = sub %{{[0-9]+}}, %{{[0-9]+}} : f32
# CHECK: %b = floordiv %k, %{{[0-9]+}} : i32
# CHECK: %c = mod %k, %{{[0-9]+}} : i32
# CHECK: %d = floordiv %x, %{{[0-9]+}} : f32
# CHECK: %e = mod %x, %{{[0-9]+}} : f32
# x ** 3 = (x * x) * x
# CHECK-NEXT: %[[SQ:[0-9]+]] = mul %x, %x : f32
# CHECK-NEXT: %p3 = mul %x, %[[SQ]] : f32
# CHECK-NEXT: %p0 = const 1 : i32
# CHECK-NEXT: %[[HALF:[0-9]+]] = const 0.5 : f32
# CHECK-NEXT: %pf = pow %x, %[[HALF]] : f32
# CHECK: pow %x, %x : f32
# CHECK: %[[NX:[0-9]+]] = neg %x : f32
# CHECK-NEXT: %neg = add %[[NX]], %x : f32
# (-7)//2 + (-7)%2 + 2**10 + 7/2 = -4 + 1 + 1024 + 3.5
# CHECK-NEXT: %folded = const 1024.5 : f32
