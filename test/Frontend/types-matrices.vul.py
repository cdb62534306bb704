# Matrices (mat2, mat3, mat4): constructors from columns, from scalars (column order) and from one
# scalar (the diagonal); @ for matrix-matrix, matrix-vector and vector-matrix
# products; m[c] is a column; transpose().
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

def main(mats: vp.Buffer[vp.mat4], out: vp.Buffer[vp.vec4]):
    i = vp.global_id()
    m = mats[i]
    ident = vp.mat2(1.0)
    r = vp.mat2(vp.vec2(0.0, 1.0), vp.vec2(-1.0, 0.0))
    q = vp.mat2(1.0, 2.0, 3.0, 4.0)
    v = m @ out[i]
    w = out[i] @ m
    rr = r @ q @ ident
    col = m[2]
    e = m[1][3]
    n = vp.mat3(2.0)
    t = n @ vp.vec3(1.0, 2.0, 3.0)
    out[i] = v + w + col * e + vp.vec4(rr[0], 0.0, 0.0) + vp.transpose(m)[0] + vp.vec4(t, 0.0)

# CHECK: %m = buffer.load @mats[%i] : mat4<f32>
# CHECK: %[[Z:[0-9]+]] = const 0.0 : f32
# CHECK-NEXT: %[[C0:[0-9]+]] = construct %{{[0-9]+}}, %[[Z]] : vec2<f32>
# CHECK-NEXT: %[[C1:[0-9]+]] = construct %[[Z]], %{{[0-9]+}} : vec2<f32>
# CHECK-NEXT: %ident = construct %[[C0]], %[[C1]] : mat2<f32>
# CHECK: %r = construct %{{[0-9]+}}, %{{[0-9]+}} : mat2<f32>
# CHECK: %q = construct %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : mat2<f32>
# CHECK: %v = matmul %m, %{{[0-9]+}} : vec4<f32>
# CHECK: %w = matmul %{{[0-9]+}}, %m : vec4<f32>
# CHECK: %[[RQ:[0-9]+]] = matmul %r, %q : mat2<f32>
# CHECK-NEXT: %rr = matmul %[[RQ]], %ident : mat2<f32>
# CHECK-NEXT: %col = extract %m[2] : vec4<f32>
# CHECK-NEXT: %[[C:[0-9]+]] = extract %m[1] : vec4<f32>
# CHECK-NEXT: %e = extract %[[C]][3] : f32
# CHECK: %n = construct %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}} : mat3<f32>
# CHECK: %t = matmul %n, %{{[0-9]+}} : vec3<f32>
# CHECK: extract %rr[0] : vec2<f32>
# CHECK: %[[T:[0-9]+]] = transpose %m : mat4<f32>
# CHECK-NEXT: extract %[[T]][0] : vec4<f32>
