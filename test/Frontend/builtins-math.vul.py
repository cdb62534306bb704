# The math built-ins, on scalars and vectors; a scalar next to a vector is
# splatted where VIR wants one type (clamp, mix, step, smoothstep); round is
# half to even (rint), as Python and NumPy round; Python's abs/min/max/pow
# work bare.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

def main(f: vp.Buffer[vp.float32], v: vp.Buffer[vp.vec3], k: vp.Buffer[vp.int32]):
    i = vp.global_id()
    x = f[i]
    a = v[i]
    s = (vp.sin(x) + vp.cos(x) + vp.tan(x) + vp.asin(x) + vp.acos(x) + vp.atan(x)
         + vp.atan2(x, 1.0) + vp.atan(x, 2.0) + vp.sinh(x) + vp.cosh(x) + vp.tanh(x)
         + vp.asinh(x) + vp.acosh(x) + vp.atanh(x) + vp.exp(x) + vp.exp2(x) + vp.log(x)
         + vp.log2(x) + vp.sqrt(x) + vp.inversesqrt(x) + vp.abs(x) + vp.sign(x)
         + vp.floor(x) + vp.ceil(x) + vp.trunc(x) + vp.round(x) + vp.fract(x)
         + vp.mod(x, 3.0) + vp.min(x, 1.0) + vp.max(x, 0.0, 2.0) + vp.clamp(x, 0.0, 1.0)
         + vp.mix(x, 1.0, 0.5) + vp.step(0.5, x) + vp.smoothstep(0.0, 1.0, x)
         + vp.fma(x, x, 1.0) + vp.pow(x, 2.5) + abs(x) + min(x, 3.0) + max(x, 4.0))
    d = vp.dot(a, a) + vp.length(a) + vp.distance(a, a)
    c = vp.cross(a, vp.normalize(a)) + vp.reflect(a, a) + vp.clamp(a, 0.0, 1.0) + vp.mix(a, a, 0.25)
    nan = vp.isnan(x) or vp.any(vp.isinf(a))
    ik = vp.abs(k[i]) + vp.min(k[i], 0) + vp.clamp(k[i], -1, 1) + vp.sign(k[i])
    f[i] = s + d + c.x + (1.0 if nan else 0.0)
    k[i] = ik

# CHECK: sin %x : f32
# CHECK: cos %x : f32
# CHECK: tan %x : f32
# CHECK: asin %x : f32
# CHECK: acos %x : f32
# CHECK: atan %x : f32
# CHECK: atan2 %x, %{{[0-9]+}} : f32
# CHECK: atan2 %x, %{{[0-9]+}} : f32
# CHECK: sinh %x
# CHECK: cosh %x
# CHECK: tanh %x
# CHECK: asinh %x
# CHECK: acosh %x
# CHECK: atanh %x
# CHECK: exp %x
# CHECK: exp2 %x
# CHECK: log %x
# CHECK: log2 %x
# CHECK: sqrt %x
# CHECK: inversesqrt %x
# CHECK: abs %x
# CHECK: sign %x
# CHECK: floor %x
# CHECK: ceil %x
# CHECK: trunc %x
# CHECK: rint %x
# CHECK: fract %x
# CHECK: mod %x, %{{[0-9]+}} : f32
# CHECK: min %x, %{{[0-9]+}} : f32
# CHECK: %[[M1:[0-9]+]] = max %x, %{{[0-9]+}} : f32
# CHECK-NEXT: max %[[M1]], %{{[0-9]+}} : f32
# CHECK: clamp %x, %{{[0-9]+}}, %{{[0-9]+}} : f32
# CHECK: mix %x, %{{[0-9]+}}, %{{[0-9]+}} : f32
# CHECK: step %{{[0-9]+}}, %x : f32
# CHECK: smoothstep %{{[0-9]+}}, %{{[0-9]+}}, %x : f32
# CHECK: fma %x, %x, %{{[0-9]+}} : f32
# CHECK: pow %x, %{{[0-9]+}} : f32
# CHECK: abs %x : f32
# CHECK: min %x
# CHECK: max %x
# CHECK: dot %a, %a : f32
# CHECK: length %a : f32
# CHECK: distance %a, %a : f32
# CHECK: %[[N:[0-9]+]] = normalize %a : vec3<f32>
# CHECK-NEXT: cross %a, %[[N]] : vec3<f32>
# CHECK: reflect %a, %a : vec3<f32>
# clamp(vec3, 0.0, 1.0): the bounds are splatted
# CHECK: %[[LO:[0-9]+]] = construct %{{[0-9]+}} : vec3<f32>
# CHECK: %[[HI:[0-9]+]] = construct %{{[0-9]+}} : vec3<f32>
# CHECK-NEXT: clamp %a, %[[LO]], %[[HI]] : vec3<f32>
# CHECK: mix %a, %a, %{{[0-9]+}} : vec3<f32>
# CHECK: isnan %x : bool
# CHECK: isinf %a : vec3<bool>
# CHECK: any %{{[0-9]+}} : bool
# CHECK: abs %{{[0-9]+}} : i32
# CHECK: min %{{[0-9]+}}, %{{[0-9]+}} : i32
# CHECK: clamp %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : i32
# CHECK: sign %{{[0-9]+}} : i32
