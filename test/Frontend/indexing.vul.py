# Indexing: buffers (any integer index; literals are u32), vectors with a
# constant index (negative counts from the end) or a run-time one, writes
# through a run-time vector index (a select per component), matrix columns,
# and signed indices.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

def main(a: vp.Buffer[vp.vec4], m: vp.Buffer[vp.mat3], o: vp.Buffer[vp.float32], j: vp.int32):
    i = vp.global_id()
    v = a[i]
    first = v[0]
    last = v[-1]
    dyn = v[i % 4]
    w = vp.var(v)
    w[i % 4] = 0.0
    col = m[i][1]
    o[j] = first + last + dyn + w.x + col.z + a[0].y

# CHECK: %first = extract %v[0] : f32
# CHECK-NEXT: %last = extract %v[3] : f32
# CHECK: %[[K:[0-9]+]] = mod %i, %{{[0-9]+}} : u32
# CHECK-NEXT: %dyn = extract_dyn %v, %[[K]] : f32
# CHECK: %[[K2:[0-9]+]] = mod %i, %{{[0-9]+}} : u32
# CHECK-NEXT: %[[Z:[0-9]+]] = const 0.0 : f32
# CHECK-NEXT: %[[OLD:[0-9]+]] = local.load @w : vec4<f32>
# CHECK-NEXT: %[[E0:[0-9]+]] = extract %[[OLD]][0] : f32
# CHECK-NEXT: %[[I0:[0-9]+]] = const 0 : u32
# CHECK-NEXT: %[[Q0:[0-9]+]] = eq %[[K2]], %[[I0]] : bool
# CHECK-NEXT: %[[S0:[0-9]+]] = select %[[Q0]], %[[Z]], %[[E0]] : f32
# CHECK: %[[NEW:[0-9]+]] = construct %[[S0]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : vec4<f32>
# CHECK-NEXT: local.store @w, %[[NEW]]
# CHECK-NEXT: %col = buffer.load @m[%i][1] : vec3<f32>
# CHECK: buffer.load @a[%{{[0-9]+}}].y : f32
# CHECK: %[[J:[0-9]+]] = push.load @pc.j : i32
# CHECK-NEXT: buffer.store @o[%[[J]]]
