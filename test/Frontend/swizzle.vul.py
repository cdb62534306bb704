# Swizzles: reads in the xyzw, rgba and stpq sets (one component is an
# extract, several a swizzle), and writes: one component through the member
# path, several as inserts and a whole-vector store, on locals and buffers.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

def main(v: vp.Buffer[vp.vec4]):
    i = vp.global_id()
    c = v[i]
    a = c.wzyx
    b = c.rg
    s = c.q
    p = vp.var(c)
    p.x = s
    p.zw = b
    v[i].y = a.x
    v[i].xz = p.xz

# CHECK: %a = swizzle %c.wzyx : vec4<f32>
# CHECK-NEXT: %b = swizzle %c.xy : vec2<f32>
# CHECK-NEXT: %s = extract %c[3] : f32
# CHECK-NEXT: local.store @p, %c
# CHECK-NEXT: local.store @p.x, %s
# CHECK-NEXT: %[[P:[0-9]+]] = local.load @p : vec4<f32>
# CHECK-NEXT: %[[B0:[0-9]+]] = extract %b[0] : f32
# CHECK-NEXT: %[[I0:[0-9]+]] = insert %[[P]][2], %[[B0]] : vec4<f32>
# CHECK-NEXT: %[[B1:[0-9]+]] = extract %b[1] : f32
# CHECK-NEXT: %[[I1:[0-9]+]] = insert %[[I0]][3], %[[B1]] : vec4<f32>
# CHECK-NEXT: local.store @p, %[[I1]]
# CHECK-NEXT: %[[AX:[0-9]+]] = extract %a[0] : f32
# CHECK-NEXT: buffer.store @v[%i].y, %[[AX]]
# CHECK-NEXT: %[[PL:[0-9]+]] = local.load @p : vec4<f32>
# CHECK-NEXT: %[[XZ:[0-9]+]] = swizzle %[[PL]].xz : vec2<f32>
# CHECK-NEXT: %[[OLD:[0-9]+]] = buffer.load @v[%i] : vec4<f32>
# CHECK: buffer.store @v[%i], %{{[0-9]+}}
