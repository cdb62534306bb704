# Comparisons, including chained ones: a < b < c is (a < b) and (b < c) with b
# evaluated once; a pure right side becomes land, one that loads memory runs
# only when the left side holds (a local and an if). Vector comparisons give
# bool vectors.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

def main(a: vp.Buffer[vp.float32], v: vp.Buffer[vp.vec3], out: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    inside = 0 <= i < n
    chain = 0.0 < a[i] <= 1.0 < a[i + 1]
    eq = v[i] == v[0]
    out[i] = vp.uint32(inside) + vp.uint32(chain) + vp.uint32(vp.all(eq))

# CHECK: %[[Z:[0-9]+]] = const 0 : u32
# CHECK-NEXT: %[[C1:[0-9]+]] = le %[[Z]], %i : bool
# CHECK-NEXT: %[[N:[0-9]+]] = push.load @pc.n : u32
# CHECK-NEXT: %[[C2:[0-9]+]] = lt %i, %[[N]] : bool
# CHECK-NEXT: %inside = land %[[C1]], %[[C2]] : bool
# CHECK: %[[A:[0-9]+]] = buffer.load @a[%i] : f32
# CHECK: %[[D1:[0-9]+]] = lt %{{[0-9]+}}, %[[A]] : bool
# CHECK-NEXT: local.store @_vp_and{{[0-9]+}}, %[[D1]]
# CHECK-NEXT: if %[[D1]]
# CHECK: le %[[A]], %{{[0-9]+}} : bool
# CHECK: buffer.load @a[%{{[0-9]+}}] : f32
# CHECK: %chain = local.load @_vp_and{{[0-9]+}} : bool
# CHECK: %eq = eq %{{[0-9]+}}, %{{[0-9]+}} : vec3<bool>
# CHECK: all %eq : bool
