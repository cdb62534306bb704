# Thread-private arrays: `h = vp.Local[T, N]` is a local of type array<T, N>,
# zeroed where it is declared (a for loop of local.store_at); a run-time
# index is clamped (min for unsigned, clamp for signed) and reaches the
# element with local.load_at / local.store_at; a constant index is a
# constant (negative ones count from the end); paths go into the element.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

def main(data: vp.Buffer[vp.uint32], hist: vp.Buffer[vp.uint32], s: vp.Buffer[vp.int32]):
    i = vp.global_id()
    h = vp.Local[vp.uint32, 8]
    v = vp.Local[vp.vec2, 2]
    for k in range(vp.uint32(16)):
        b = data[i * 16 + k] % 8
        h[b] += 1
    v[1].y = 2.0
    h[0] += vp.uint32(v[-1].y) + len(h)
    j = s[i]
    s[i] = vp.int32(h[j])
    for k2 in range(vp.uint32(8)):
        hist[i * 8 + k2] = h[k2]

# CHECK-LABEL: kernel @main
# CHECK: local @h : array<u32, 8>
# CHECK: local @v : array<vec2<f32>, 2>
# CHECK: %[[Z:[0-9]+]] = const 0 : u32
# CHECK: for %[[K:[0-9]+]] = {{.*}} {
# CHECK-NEXT: local.store_at @h[%[[K]]], %[[Z]]
# CHECK: %[[ZV:[0-9]+]] = construct %{{[0-9]+}} : vec2<f32>
# CHECK: for %[[K2:[0-9]+]] = {{.*}} {
# CHECK-NEXT: local.store_at @v[%[[K2]]], %[[ZV]]
# h[b] += 1: one clamped index, a load and a store
# CHECK: %[[SEVEN:[0-9]+]] = const 7 : u32
# CHECK-NEXT: %[[B:[0-9]+]] = min %{{[0-9]+}}, %[[SEVEN]] : u32
# CHECK-NEXT: %[[OLD:[0-9]+]] = local.load_at @h[%[[B]]] : u32
# CHECK: local.store_at @h[%[[B]]], %{{[0-9]+}}
# CHECK: local.store_at @v[%{{[0-9]+}}].y, %{{[0-9]+}}
# v[-1].y is v[1].y; len(h) is the constant 8
# CHECK: %[[ONE:[0-9]+]] = const 1 : u32
# CHECK-NEXT: local.load_at @v[%[[ONE]]].y : f32
# CHECK: const 8 : u32
# a signed index is clamped into [0, 7]
# CHECK: %[[J:[0-9]+]] = clamp %j, %{{[0-9]+}}, %{{[0-9]+}} : i32
# CHECK-NEXT: local.load_at @h[%[[J]]] : u32
