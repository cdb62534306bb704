# Assignment: a name assigned once at the top level is an SSA value named
# after it; names assigned again, in branches, or made with vp.var are VIR
# locals of the same name. Types come from the first value or an annotation;
# a declaration without a value makes the local; x[:] = v stores the whole
# value; a = b = v assigns both.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

def main(out: vp.Buffer[vp.float32]):
    i = vp.global_id()
    once = out[i] * 2.0
    count = 0
    count = count + 1
    acc: vp.float64 = 0
    total: vp.float32
    total = once
    if i > 4:
        late = 1.0
    v = vp.var(vp.vec2(1.0, 2.0))
    v[:] = v * once
    a = b = once + 1.0
    acc += a + b
    out[i] = total + vp.float32(acc) + v.x + vp.float32(count)

# CHECK-LABEL: kernel @main
# CHECK-NEXT: local @count : i32
# CHECK-NEXT: local @acc : f64
# CHECK-NEXT: local @total : f32
# CHECK-NEXT: local @late : f32
# CHECK-NEXT: local @v : vec2<f32>
# CHECK: %[[L:[0-9]+]] = buffer.load @out[%i] : f32
# CHECK-NEXT: %[[TWO:[0-9]+]] = const 2.0 : f32
# CHECK-NEXT: %once = mul %[[L]], %[[TWO]] : f32
# CHECK-NEXT: %[[Z:[0-9]+]] = const 0 : i32
# CHECK-NEXT: local.store @count, %[[Z]]
# CHECK-NEXT: %[[C:[0-9]+]] = local.load @count : i32
# CHECK-NEXT: %[[ONE:[0-9]+]] = const 1 : i32
# CHECK-NEXT: %[[C1:[0-9]+]] = add %[[C]], %[[ONE]] : i32
# CHECK-NEXT: local.store @count, %[[C1]]
# The literal 0 takes the annotated type:
# CHECK-NEXT: %[[Z64:[0-9]+]] = const 0.0 : f64
# CHECK-NEXT: local.store @acc, %[[Z64]]
# CHECK-NEXT: local.store @total, %once
# CHECK: if %{{[0-9]+}}
# CHECK-NEXT: %[[LATE:[0-9]+]] = const 1.0 : f32
# CHECK-NEXT: local.store @late, %[[LATE]]
# CHECK: local.store @v, %{{[0-9]+}}
# CHECK-NEXT: %[[V:[0-9]+]] = local.load @v : vec2<f32>
# CHECK-NEXT: %[[VV:[0-9]+]] = mul %[[V]], %once : vec2<f32>
# CHECK-NEXT: local.store @v, %[[VV]]
# a = b = once + 1.0: one value, two names
# CHECK: %a = add %once, %{{[0-9]+}} : f32
# CHECK-NEXT: %[[ACC:[0-9]+]] = local.load @acc : f64
# CHECK-NEXT: %[[AB:[0-9]+]] = add %a, %a : f32
# CHECK-NEXT: %[[AB64:[0-9]+]] = cast %[[AB]] : f64
# CHECK-NEXT: add %[[ACC]], %[[AB64]] : f64
# CHECK: local.load @v.x : f32
