# The typing rules (docs/language.md, "Types"): an int literal takes the
# other operand's type (u32, i64, f32...), else int32; a float literal takes
# the other operand's float type (f64 here), else float32; typed operands of
# one kind widen (i32 + i64 -> i64, f32 * f64 -> f64).
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

def main(d: vp.Buffer[vp.float64], w: vp.Buffer[vp.int64], n: vp.uint32, s: vp.int32, f: vp.float32):
    i = vp.global_id()
    a = n + 1
    b = s * 2
    c = w[i] - 3
    e = d[i] * 0.5
    g = f * 0.5
    h = 7
    k = 2.5
    m = s + w[i]
    p = f * d[i]
    q = d[i] + 1
    d[i] = e + vp.float64(g) + vp.float64(k) + p + q
    w[i] = c + vp.int64(a) + vp.int64(b) + vp.int64(h) + m

# CHECK: %[[N:[0-9]+]] = push.load @pc.n : u32
# CHECK-NEXT: %[[ONE:[0-9]+]] = const 1 : u32
# CHECK-NEXT: %a = add %[[N]], %[[ONE]] : u32
# CHECK: %[[TWO:[0-9]+]] = const 2 : i32
# CHECK-NEXT: %b = mul %{{[0-9]+}}, %[[TWO]] : i32
# CHECK: %[[THREE:[0-9]+]] = const 3 : i64
# CHECK-NEXT: %c = sub %{{[0-9]+}}, %[[THREE]] : i64
# CHECK: %[[H64:[0-9]+]] = const 0.5 : f64
# CHECK-NEXT: %e = mul %{{[0-9]+}}, %[[H64]] : f64
# CHECK: %[[H32:[0-9]+]] = const 0.5 : f32
# CHECK-NEXT: %g = mul %{{[0-9]+}}, %[[H32]] : f32
# CHECK-NEXT: %h = const 7 : i32
# CHECK-NEXT: %k = const 2.5 : f32
# CHECK: %[[S64:[0-9]+]] = cast %{{[0-9]+}} : i64
# CHECK-NEXT: %m = add %[[S64]], %{{[0-9]+}} : i64
# CHECK: %[[F64:[0-9]+]] = cast %{{[0-9]+}} : f64
# CHECK-NEXT: %p = mul %[[F64]], %{{[0-9]+}} : f64
# CHECK: %[[ONE64:[0-9]+]] = const 1.0 : f64
# CHECK-NEXT: %q = add %{{[0-9]+}}, %[[ONE64]] : f64
