# The dispatch guard in a kernel that calls vp.barrier(): no early return
# (barrier() must be reached by the whole workgroup), but a flag in_range
# that predicates the buffer accesses: loads read element 0 and give zero
# out of range, stores and atomics sit in `if in_range`, an atomic's old
# value comes through a local; a helper recomputes the flag.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir - | FileCheck %s
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=glsl - | FileCheck %s --check-prefix=GLSL
# RUN: %dump-ast %s > %t.json && vulpy-translate --from=ast --to=spirv %t.json -o %t.spv && spirv-val --target-env vulkan1.2 %t.spv
import vulpy as vp

def put(dst: vp.Buffer[vp.uint32], i: vp.uint32, v: vp.uint32):
    dst[i] = v

def main(a: vp.Buffer[vp.float32], cnt: vp.Buffer[vp.uint32], order: vp.Buffer[vp.uint32]):
    t = vp.Shared[vp.float32, 64]
    t[vp.local_index()] = a[vp.global_id()]
    vp.barrier()
    a[vp.global_id()] = t[63 - vp.local_index()]
    old = vp.atomic_add(cnt[0], 1)
    put(order, vp.global_id(), old)

# CHECK-LABEL: kernel @main
# CHECK-NOT: return
# CHECK: %[[A:[0-9]+]] = any
# CHECK-NEXT: %[[R:[0-9]+]] = lnot %[[A]] : bool
# CHECK-NOT: return
# CHECK: select %[[R]]
# CHECK-NEXT: buffer.load @a
# CHECK-NEXT: const 0.0
# CHECK-NEXT: select %[[R]]
# CHECK-NEXT: shared.store @t
# CHECK-NEXT: barrier
# CHECK: if %[[R]] loc
# CHECK-NEXT: buffer.store @a
# CHECK: local.store @_vp_old0
# CHECK-NEXT: if %[[R]] loc
# CHECK-NEXT: atomic.add @cnt
# CHECK-NEXT: local.store @_vp_old0
# CHECK: local.load @_vp_old0
# CHECK-NEXT: global_id
# CHECK-NEXT: extract
# CHECK-NEXT: call @put
# CHECK-NOT: return
# CHECK-LABEL: func @put
# CHECK: %[[HA:[0-9]+]] = any
# CHECK-NEXT: %[[HR:[0-9]+]] = lnot %[[HA]] : bool
# CHECK-NEXT: if %[[HR]] loc
# CHECK-NEXT: buffer.store @order

# GLSL-LABEL: void main() {
# GLSL-NOT: return
# GLSL: bool [[R:t[0-9]+]] = !any(greaterThanEqual(gl_GlobalInvocationID, pc._vp_count));
# GLSL-NEXT: //
# GLSL-NEXT: t[gl_LocalInvocationIndex] = [[R]] ? a[[[R]] ? gl_GlobalInvocationID.x : 0u] : 0.0;
# GLSL-NOT: return
# GLSL: barrier();
# GLSL-NOT: return
# GLSL: if ([[R]]) {
# GLSL-NEXT: a[gl_GlobalInvocationID.x] =
