# clamp-shared leaves an unsigned index alone when the ops that compute it
# keep it inside the array (vir_uint_upper_bound): `d & 255` into 256
# elements, `d % 64` into 64; `d & 511` into 256 and a plain `d` are clamped.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - > %t.vir
# RUN: vulpy-opt --clamp-shared %t.vir | vulpy-translate --from=vir --to=glsl - | FileCheck %s
import vulpy as vp

def main(out: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    h = vp.Shared[vp.uint32, 256]
    s = vp.Shared[vp.uint32, 64]
    h[n & vp.uint32(255)] = i
    s[n % vp.uint32(64)] = i
    vp.barrier()
    out[i] = h[n & vp.uint32(511)] + h[n] + s[(n >> vp.uint32(26))]

# CHECK: h[pc.n & 255u] = {{.*}};
# CHECK: s[pc.n % 64u] = {{.*}};
# CHECK: h[min(pc.n & 511u, 255u)]
# CHECK-SAME: h[min(pc.n, 255u)]
# CHECK-SAME: s[pc.n >> 26u]
