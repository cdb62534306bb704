# The GLSL of the kernel-language patterns that language-patterns.vul.py
# leaves out: an N-d buffer on a strided view (shape, strides and offset in
# the push block), a generic buffer and a generic scalar (vp.Scalar) typed by
# the call, a private array declared in a loop unrolled at compile time
# (zeroed again in each copy), and a struct with a struct field (declared
# after the struct it holds). test/Target/{CUDA,HIP}/language-patterns.test
# check the CUDA and HIP of this file and compile them.
# RUN: %python %S/../../Frontend/Inputs/dump_opts.py %s '{"buffer_dtypes": {"y": "float64"}, "scalar_dtypes": {"s": "float64"}}' | vulpy-translate --from=ast --to=glsl - | FileCheck %s
# RUN: %python %S/../../Frontend/Inputs/dump_opts.py %s '{"buffer_dtypes": {"y": "float64"}, "scalar_dtypes": {"s": "float64"}}' | vulpy-translate --from=ast --to=spirv - -o %t.spv
import vulpy as vp

class Inner:
    a: vp.float32
    b: vp.vec2

class Outer:
    x: vp.float32
    inner: Inner

def main(img: vp.Buffer[vp.float32, 2], y: vp.Buffer, s: vp.Scalar, o: vp.Buffer[Outer]):
    i = vp.global_id()
    h, w = img.shape
    acc = vp.var(0.0)
    for r in vp.static(range(2)):
        t = vp.Local[vp.float32, 3]
        for c in range(3):
            t[c] = img[r, c] * vp.float32(s)
        acc += t[0] + t[2]
    y[i] = s * y[i] + acc
    o[i].inner.b.x = vp.float32(h * w)

# CHECK: struct Inner {
# CHECK-NEXT:   float a;
# CHECK-NEXT:   vec2 b;
# CHECK-NEXT: };
# CHECK-NEXT: struct Outer {
# CHECK-NEXT:   float x;
# CHECK-NEXT:   Inner inner;
# CHECK-NEXT: };
# CHECK: layout(push_constant, std430) uniform PushConstants {
# CHECK-NEXT:   uvec2 _vp_shape_img;
# CHECK-NEXT:   uvec2 _vp_strides_img;
# CHECK-NEXT:   uint _vp_offset_img;
# CHECK-NEXT:   double s;
# CHECK: } pc;
# CHECK: readonly buffer img_buf { float img[]; };
# CHECK-NEXT: buffer y_buf { double y[]; };
# CHECK-NEXT: writeonly buffer o_buf { Outer o[]; };
# CHECK: void main() {
# CHECK:   uint h = pc._vp_shape_img.x;
# CHECK-NEXT:   uint w = pc._vp_shape_img.y;
# CHECK:   float t[3];
# CHECK-NEXT:   for (uint [[Z:t[0-9]+]] = 0u; [[Z]] < 3u; [[Z]]++) {
# CHECK-NEXT:     t[[[Z]]] = 0.0;
# CHECK-NEXT:   }
# CHECK:   for (int c = 0; c < 3; c++) {
# CHECK:     t[clamp(c, 0, 2)] = img[pc._vp_offset_img + 0u * pc._vp_strides_img.x + uint(c) * pc._vp_strides_img.y] * float(pc.s);
# CHECK:   acc = acc + (t[0u] + t[2u]);
# CHECK-NOT: float t[
# CHECK:   for (uint [[Z2:t[0-9]+]] = 0u; [[Z2]] < 3u; [[Z2]]++) {
# CHECK-NEXT:     t[[[Z2]]] = 0.0;
# CHECK-NEXT:   }
# CHECK:     t[clamp([[C:c_[0-9]+]], 0, 2)] = img[pc._vp_offset_img + 1u * pc._vp_strides_img.x + uint([[C]]) * pc._vp_strides_img.y] * float(pc.s);
# CHECK:   acc = acc + (t[0u] + t[2u]);
# CHECK:   y[i] = pc.s * y[i] + double(acc);
# CHECK:   o[i].inner.b.x = float(h * w);
