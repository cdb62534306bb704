# vp.subgroup_barrier(): the lanes of a subgroup meet, and what they wrote
# before it is seen after it: the op subgroup.barrier, GLSL's
# subgroupBarrier() (basic subgroup support), CUDA's __syncwarp over the
# active lanes, HIP's wave barrier between wavefront-scope fences. Like
# barrier(), it keeps every invocation of a guarded dispatch running (the
# dispatch guard predicates the buffer accesses instead of returning early).
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir - | FileCheck %s
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=glsl - | FileCheck %s --check-prefix=GLSL
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=cuda - | FileCheck %s --check-prefix=CUDA
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=hip - | FileCheck %s --check-prefix=HIP
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=spirv - -o %t.spv && spirv-val --target-env vulkan1.2 %t.spv
import vulpy as vp

@vp.kernel(local_size_x=64)
def peers(d: vp.Buffer[vp.uint32], out: vp.Buffer[vp.uint32]):
    # the lanes of a subgroup with the same 4-bit digit, by an atomic or
    # into a mask per digit (CUB's WARP_MATCH_ATOMIC_OR)
    masks = vp.Shared[vp.uint32, 4 * 16]
    w = vp.subgroup_id() & vp.uint32(3)
    x = d[vp.global_id()] & vp.uint32(15)
    masks[w * vp.uint32(16) + x] = vp.uint32(0)
    vp.subgroup_barrier()
    vp.atomic_or(masks[w * vp.uint32(16) + x], vp.uint32(1) << vp.subgroup_lane())
    vp.subgroup_barrier()
    out[vp.global_id()] = masks[w * vp.uint32(16) + x]

# CHECK: subgroup.barrier
# CHECK: atomic.or
# CHECK: subgroup.barrier
# CHECK-NOT: return
# GLSL: #extension GL_KHR_shader_subgroup_basic : require
# GLSL: subgroupBarrier();
# GLSL: atomicOr(
# GLSL: subgroupBarrier();
# CUDA: __device__ inline void subgroupBarrier() { __syncwarp(__activemask()); }
# CUDA: subgroupBarrier();
# HIP: __builtin_amdgcn_wave_barrier();
# HIP: subgroupBarrier();
