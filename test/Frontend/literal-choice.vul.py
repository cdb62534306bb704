# `a if cond else b` of two number literals takes its type where it is used,
# as the literals would (docs/language.md, "Typing rules"): beside a float16
# value it is an f16 select, stored into an int8 buffer an i8 one, negated
# literal by literal, converted literal by literal by a cast; on its own
# (a local) it has a literal's own type, f32 or i32; with a typed module
# constant in it, the constant's type. A literal that does not
# fit the type it meets is the usual error.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
# RUN: %dump-ast %S/Inputs/literal-choice-error.vul.py | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s --check-prefix=ERR
import vulpy as vp

D: vp.float64 = 0.1

def main(h: vp.Buffer[vp.float16], w: vp.Buffer[vp.int8], u: vp.Buffer[vp.uint32],
         g: vp.Buffer[vp.float64]):
    i = vp.global_id()
    x = h[i]
    a = x * (2.0 if x < 0.0 else 0.5)
    b = x + -(1.0 if a > x else 3.0)
    k = 7 if a > x else 9
    h[i] = a + b
    w[i] = 3 if x > 0.0 else -3
    u[i] = vp.uint32(2.7 if x > 0.0 else 5.0) + vp.uint32(k)
    m = D if x > 0.0 else 0.25
    g[i] = m

# CHECK: %[[TWO:[0-9]+]] = const 2.0 : f16
# CHECK-NEXT: %[[HALF:[0-9]+]] = const 0.5 : f16
# CHECK-NEXT: %[[S1:[0-9]+]] = select %{{[0-9]+}}, %[[TWO]], %[[HALF]] : f16
# CHECK-NEXT: %a = mul %x, %[[S1]] : f16
# CHECK: %[[M1:[0-9]+]] = const -1.0 : f16
# CHECK-NEXT: %[[M3:[0-9]+]] = const -3.0 : f16
# CHECK-NEXT: %[[S2:[0-9]+]] = select %{{[0-9]+}}, %[[M1]], %[[M3]] : f16
# CHECK-NEXT: %b = add %x, %[[S2]] : f16
# CHECK: %k = select %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i32
# CHECK: %[[P3:[0-9]+]] = const 3 : i8
# CHECK-NEXT: %[[N3:[0-9]+]] = const -3 : i8
# CHECK-NEXT: select %{{[0-9]+}}, %[[P3]], %[[N3]] : i8
# CHECK: %[[TWOU:[0-9]+]] = const 2 : u32
# CHECK-NEXT: %[[FIVEU:[0-9]+]] = const 5 : u32
# CHECK-NEXT: select %{{[0-9]+}}, %[[TWOU]], %[[FIVEU]] : u32

# ERR: literal-choice-error.vul.py:7:12: error: store to 'u': literal -1 does not fit u32
# a typed module constant keeps its type (float64 here, not a literal's float32):
# CHECK: %m = select %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : f64
