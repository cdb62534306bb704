# A MemSock parameter is two buffers (the frames, write-only and coherent,
# and its ring words, `pipe_ring`); pipe.fire(body, **payload) is a
# memsock.fire op whose region is the body inlined in the kernel's scope,
# its first operand the payload signature; the seed's module-level body
# reads the kernel's names. The GLSL is the lowered protocol.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=glsl - | FileCheck %s --check-prefix=GLSL
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=cuda - | FileCheck %s --check-prefix=CUDA
import vulpy as vp

class PushConstants:
    nx: vp.uint32
    t: vp.uint32
    snap_interval: vp.uint32

def pipe_body(snap_idx: vp.uint32):
    pipe[snap_idx * pc.nx + p] = efield[p]

def main(efield: vp.Buffer[vp.float32], pipe: vp.MemSock[vp.float32]):
    p = vp.global_id()
    t = pc.t
    if t % pc.snap_interval == 0:
        pipe.fire(pipe_body, snap_idx=t)

# CHECK: buffer @efield : f32[] binding(0, 0) readonly
# CHECK: buffer @pipe : f32[] binding(0, 1) writeonly coherent
# CHECK: buffer @pipe_ring : u32[] binding(0, 2) readwrite coherent
# CHECK: kernel @main
# CHECK: %t = push.load @pc.t : u32
# CHECK: if %{{.*}} loc(22:5) {
# CHECK-NEXT: %[[SIG:.*]] = const 3192741786 : u32 loc(23:9)
# CHECK-NEXT: memsock.fire @pipe, %[[SIG]], %t loc(23:9) {
# CHECK:        %[[I:.*]] = add %{{.*}}, %p : u32 loc(17:10)
# CHECK-NEXT:   %[[E:.*]] = buffer.load @efield[%p] : f32 loc(17:34)
# CHECK-NEXT:   buffer.store @pipe[%[[I]]], %[[E]] loc(17:5)
# CHECK-NEXT: }

# GLSL: layout(std430, set = 0, binding = 1) coherent writeonly buffer pipe_buf { float pipe[]; };
# GLSL: layout(std430, set = 0, binding = 2) coherent buffer pipe_ring_buf { uint pipe_ring[]; };
# GLSL: shared uint _vp_pipe_wg[2];
# GLSL: if (vp_mod(t, pc.snap_interval) == 0u) {
# GLSL: if (pipe_ring[0u] == 1263750486u) {
# GLSL: bool leader = gl_LocalInvocationIndex == 0u;
# GLSL: uint seq = pipe_ring[6u] + fire;
# GLSL: atomicCompSwap(pipe_ring[
# GLSL: barrier();
# GLSL: if (_vp_pipe_wg[0u] != 0u) {
# GLSL: if ({{.*}} < frame_elems) {
# GLSL-NEXT: uint at = frame_base + {{.*}};
# GLSL-NEXT: pipe[at] = {{.*}};
# GLSL: uint arrived = atomicAdd(pipe_ring[{{.*}}], 1u);
# GLSL: memoryBarrier(gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
# GLSL-NEXT: atomicStore(pipe_ring[{{.*}}], {{.*}} * 2u, gl_ScopeQueueFamily, 0, 0);
# GLSL: memoryBarrier(gl_ScopeQueueFamily, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
# GLSL-NEXT: atomicMax(pipe_ring[7u], {{.*}}, gl_ScopeQueueFamily, 0, 0);
# GLSL: uint canary_trips = pipe_ring[16u];

# CUDA: __global__ void main_kernel(const float *efield, float *pipe, uint *pipe_ring, PushConstants pc) {
# CUDA: if (pipe_ring[0u] == 1263750486u) {
# CUDA: barrier();
