# Slices of vectors with constant bounds (Python's rules: negative bounds,
# omitted bounds, steps, reversed): a swizzle; and slice assignment, a
# swizzle store. x[:] stays the whole value.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

def main(v: vp.Buffer[vp.vec4], o: vp.Buffer[vp.vec2]):
    i = vp.global_id().x
    a = v[i]
    b = a[0:2]
    c = a[2:]
    d = a[-3:-1]
    e = a[::2]
    f = a[::-1]
    g = a[1:3][::-1]
    o[i] = b + c + d + e + g
    w = vp.var(a)
    w[1:3] = b
    w[:] = f
    v[i] = w
    v[i][0:2] = c

# CHECK: %b = swizzle %a.xy : vec2<f32> loc(10:9)
# CHECK: %c = swizzle %a.zw : vec2<f32> loc(11:9)
# CHECK: %d = swizzle %a.yz : vec2<f32> loc(12:9)
# CHECK: %e = swizzle %a.xz : vec2<f32> loc(13:9)
# CHECK: %f = swizzle %a.wzyx : vec4<f32> loc(14:9)
# CHECK: %[[YZ:[0-9]+]] = swizzle %a.yz : vec2<f32> loc(15:9)
# CHECK: %g = swizzle %[[YZ]].yx : vec2<f32> loc(15:9)
# CHECK: %[[W:[0-9]+]] = local.load @w : vec4<f32> loc(18:5)
# CHECK: %[[B0:[0-9]+]] = extract %b[0] : f32 loc(18:5)
# CHECK: %[[W1:[0-9]+]] = insert %[[W]][1], %[[B0]] : vec4<f32> loc(18:5)
# CHECK: %[[B1:[0-9]+]] = extract %b[1] : f32 loc(18:5)
# CHECK: %[[W2:[0-9]+]] = insert %[[W1]][2], %[[B1]] : vec4<f32> loc(18:5)
# CHECK: local.store @w, %[[W2]] loc(18:5)
# CHECK: local.store @w, %f loc(19:5)
# CHECK: %[[V:[0-9]+]] = buffer.load @v[%i] : vec4<f32> loc(21:5)
# CHECK: insert %[[V]][0]
