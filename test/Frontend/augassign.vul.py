# Augmented assignment on locals, buffer elements, struct members, vector
# components and swizzles; the target's index is computed once.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

def main(a: vp.Buffer[vp.uint32], v: vp.Buffer[vp.vec4]):
    i = vp.global_id()
    n = vp.uint32(1)
    n += 2
    n <<= 1
    n //= 3
    a[i * 2] += n
    v[i].x *= 2.0
    v[i].yz -= vp.vec2(1.0, 1.0)
    w = vp.var(v[i])
    w.w %= 2.0

# CHECK: %[[N:[0-9]+]] = local.load @n : u32
# CHECK-NEXT: %[[TWO:[0-9]+]] = const 2 : u32
# CHECK-NEXT: %[[N2:[0-9]+]] = add %[[N]], %[[TWO]] : u32
# CHECK-NEXT: local.store @n, %[[N2]]
# CHECK: shl %{{[0-9]+}}, %{{[0-9]+}} : u32
# CHECK: floordiv %{{[0-9]+}}, %{{[0-9]+}} : u32
# CHECK: %[[IX:[0-9]+]] = mul %i, %{{[0-9]+}} : u32
# CHECK-NEXT: %[[OLD:[0-9]+]] = buffer.load @a[%[[IX]]] : u32
# CHECK-NEXT: %[[NV:[0-9]+]] = local.load @n : u32
# CHECK-NEXT: %[[SUM:[0-9]+]] = add %[[OLD]], %[[NV]] : u32
# CHECK-NEXT: buffer.store @a[%[[IX]]], %[[SUM]]
# CHECK-NEXT: %[[X:[0-9]+]] = buffer.load @v[%i].x : f32
# CHECK: buffer.store @v[%i].x
# CHECK: %[[YZ:[0-9]+]] = swizzle %{{[0-9]+}}.yz : vec2<f32>
# CHECK: %[[D:[0-9]+]] = sub %[[YZ]], %{{[0-9]+}} : vec2<f32>
# CHECK-NEXT: %[[OLDV:[0-9]+]] = buffer.load @v[%i] : vec4<f32>
# CHECK-NEXT: %[[D0:[0-9]+]] = extract %[[D]][0] : f32
# CHECK-NEXT: %[[I1:[0-9]+]] = insert %[[OLDV]][1], %[[D0]] : vec4<f32>
# CHECK-NEXT: %[[D1:[0-9]+]] = extract %[[D]][1] : f32
# CHECK-NEXT: %[[I2:[0-9]+]] = insert %[[I1]][2], %[[D1]] : vec4<f32>
# CHECK-NEXT: buffer.store @v[%i], %[[I2]]
# CHECK: %[[WW:[0-9]+]] = local.load @w.w : f32
# CHECK: mod %[[WW]], %{{[0-9]+}} : f32
# CHECK: local.store @w.w
