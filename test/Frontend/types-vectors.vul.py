# Vector types and constructors: components from scalars and vectors, a splat,
# conversion between element types, truncation (vec3(vec4)), swizzle reads in
# the xyzw/rgba/stpq sets, and vector-scalar arithmetic.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

def main(out: vp.Buffer[vp.vec4], iout: vp.Buffer[vp.ivec2], flags: vp.Buffer[vp.uvec3]):
    i = vp.global_id()
    a = vp.vec2(1.0, 2)
    b = vp.vec4(a, 3.0, 4.0)
    c = vp.vec3(b)
    s = vp.vec4(0.5)
    u = vp.uvec3(i, i + 1, 7)
    d = vp.dvec2(a)
    iv = vp.ivec2(b.xy)
    m = vp.bvec2(True, i > 3)
    col = b.rgb
    tex = b.st
    out[i] = vp.vec4(c * 2.0 + col, 1.0) + s * b.w + vp.vec4(vp.float32(d.x))
    iout[i] = iv
    flags[i] = u + vp.uvec3(vp.uint32(m.y))

# CHECK: %[[ONE:[0-9]+]] = const 1.0 : f32
# CHECK-NEXT: %[[TWO:[0-9]+]] = const 2.0 : f32
# CHECK-NEXT: %a = construct %[[ONE]], %[[TWO]] : vec2<f32>
# CHECK: %b = construct %a, %{{[0-9]+}}, %{{[0-9]+}} : vec4<f32>
# CHECK-NEXT: %c = swizzle %b.xyz : vec3<f32>
# CHECK-NEXT: %[[H:[0-9]+]] = const 0.5 : f32
# CHECK-NEXT: %s = construct %[[H]] : vec4<f32>
# CHECK: %u = construct %i, %{{[0-9]+}}, %{{[0-9]+}} : vec3<u32>
# CHECK-NEXT: %d = cast %a : vec2<f64>
# CHECK-NEXT: %[[XY:[0-9]+]] = swizzle %b.xy : vec2<f32>
# CHECK-NEXT: %iv = cast %[[XY]] : vec2<i32>
# CHECK: %m = construct %{{[0-9]+}}, %{{[0-9]+}} : vec2<bool>
# CHECK-NEXT: %col = swizzle %b.xyz : vec3<f32>
# CHECK-NEXT: %tex = swizzle %b.xy : vec2<f32>
# CHECK: mul %c, %{{[0-9]+}} : vec3<f32>
# CHECK: %[[W:[0-9]+]] = extract %b[3] : f32
# CHECK-NEXT: mul %s, %[[W]] : vec4<f32>
# CHECK: buffer.store @out[%i]
# CHECK: buffer.store @iout[%i], %iv
# CHECK: buffer.store @flags[%i]
