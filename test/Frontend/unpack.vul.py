# Tuple unpacking: a vector into names, and tuples (a, b = b, a swaps: the
# right side is evaluated first).
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

def main(v: vp.Buffer[vp.vec3], out: vp.Buffer[vp.float32]):
    i = vp.global_id()
    x, y, z = v[i]
    a = vp.var(x)
    b = vp.var(y)
    a, b = b, a
    out[i] = a - b + z

# CHECK: %[[V:[0-9]+]] = buffer.load @v[%i] : vec3<f32>
# CHECK-NEXT: %x = extract %[[V]][0] : f32
# CHECK-NEXT: %y = extract %[[V]][1] : f32
# CHECK-NEXT: %z = extract %[[V]][2] : f32
# CHECK: %[[B:[0-9]+]] = local.load @b : f32
# CHECK-NEXT: %[[A:[0-9]+]] = local.load @a : f32
# CHECK-NEXT: local.store @a, %[[B]]
# CHECK-NEXT: local.store @b, %[[A]]
