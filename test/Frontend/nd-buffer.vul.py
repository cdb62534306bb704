# N-d buffers: `a: vp.Buffer[T, N]` is a flat storage buffer whose shape,
# strides and first element (in elements) are hidden push fields; a[y, x]
# is offset + y * strides[0] + x * strides[1] (u32); a.shape is a uvecN,
# a.ndim the constant N, len(a) the first extent; a 1-D one is strided too.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

def main(a: vp.Buffer[vp.float32, 2], v: vp.Buffer[vp.int32, 1], b: vp.Buffer[vp.float32, 3]):
    x = vp.global_id(0)
    y = vp.global_id(1)
    h, w = a.shape
    if y < h and x < w:
        a[y, x] = a[y, x] * 2.0 + vp.float32(a.ndim + len(v))
        v[vp.int32(x)] = vp.int32(b.shape[2])
        b[0, y, x] += 1.0

# CHECK: push @pc { _vp_shape_a: vec2<u32> {{[^,]*}}, _vp_strides_a: vec2<u32> {{[^,]*}}, _vp_offset_a: u32 {{[^,]*}}, _vp_shape_v: u32 {{[^,]*}}, _vp_strides_v: u32 {{[^,]*}}, _vp_offset_v: u32 {{[^,]*}}, _vp_shape_b: vec3<u32> {{[^,]*}}, _vp_strides_b: vec3<u32> {{[^,]*}}, _vp_offset_b: u32
# CHECK: %[[S:[0-9]+]] = push.load @pc._vp_shape_a : vec2<u32>
# CHECK-NEXT: %h = extract %[[S]][0] : u32
# CHECK-NEXT: %w = extract %[[S]][1] : u32
# CHECK: %[[O:[0-9]+]] = push.load @pc._vp_offset_a : u32
# CHECK-NEXT: %[[S0:[0-9]+]] = push.load @pc._vp_strides_a.x : u32
# CHECK-NEXT: %[[T0:[0-9]+]] = mul %y, %[[S0]] : u32
# CHECK-NEXT: %[[A0:[0-9]+]] = add %[[O]], %[[T0]] : u32
# CHECK-NEXT: %[[S1:[0-9]+]] = push.load @pc._vp_strides_a.y : u32
# CHECK-NEXT: %[[T1:[0-9]+]] = mul %x, %[[S1]] : u32
# CHECK-NEXT: %[[I:[0-9]+]] = add %[[A0]], %[[T1]] : u32
# CHECK-NEXT: buffer.load @a[%[[I]]] : f32
# len(v) is its extent; a.ndim is 2
# CHECK: %[[LV:[0-9]+]] = push.load @pc._vp_shape_v : u32
# CHECK-NEXT: %[[ND:[0-9]+]] = const 2 : u32
# CHECK-NEXT: add %[[ND]], %[[LV]] : u32
# CHECK: %[[SB:[0-9]+]] = push.load @pc._vp_shape_b : vec3<u32>
# CHECK-NEXT: extract %[[SB]][2] : u32
# a signed index is converted to u32
# CHECK: cast %{{[0-9]+}} : u32
# CHECK: push.load @pc._vp_strides_v : u32
# CHECK: buffer.store @v[
# CHECK: push.load @pc._vp_strides_b.z : u32
