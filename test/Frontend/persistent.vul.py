# A persistent kernel (docs/persistent.md): no dispatch guard; the time loop's
# body starts with persistent.step; grid_range loops run from
# persistent.group_id * L + local_index by persistent.num_groups * L (2-D:
# x fastest); named control words read the grid-uniform snapshot
# (persistent.control); vp.grid_sync() is persistent.grid_sync.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir - | FileCheck %s
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir - | vulpy-opt --lower-persistent --verify-each | FileCheck %s --check-prefix=LOW
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=glsl - | FileCheck %s --check-prefix=GLSL
import vulpy as vp


@vp.kernel(persistent=True, local_size_x=32, control_words={"ctrl": ["mode"]})
def main(a: vp.Buffer[vp.float32], b: vp.Buffer[vp.float32], ctrl: vp.Control, n: vp.uint32,
         steps: vp.uint32):
    for t in range(steps):
        for p in vp.grid_range(n):
            if ctrl.mode == 1:
                b[p] = a[p] + 1.0
            else:
                b[p] = a[p] * 2.0
        vp.grid_sync()
        for x, y in vp.grid_range(n, 2):
            a[x + y * 0] = b[x]

# CHECK-NOT: _vp_count
# CHECK-LABEL: kernel @main local_size(32, 1, 1)
# CHECK-NOT: global_id
# CHECK: for %t = %{{[0-9]+}} to %{{[0-9]+}} step %{{[0-9]+}} loc(15:5) {
# CHECK-NEXT: persistent.step loc(15:5)
# CHECK: %[[L:[0-9]+]] = const 32 : u32 loc(16:18)
# CHECK-NEXT: %[[G:[0-9]+]] = persistent.group_id : u32
# CHECK-NEXT: %[[NG:[0-9]+]] = persistent.num_groups : u32
# CHECK-NEXT: %[[LI:[0-9]+]] = local_index : u32
# CHECK-NEXT: %[[GL:[0-9]+]] = mul %[[G]], %[[L]] : u32
# CHECK-NEXT: %[[START:[0-9]+]] = add %[[GL]], %[[LI]] : u32
# CHECK-NEXT: %[[STRIDE:[0-9]+]] = mul %[[NG]], %[[L]] : u32
# CHECK-NEXT: for %p = %[[START]] to %{{[0-9]+}} step %[[STRIDE]] loc(16:9) {
# CHECK: persistent.control @ctrl[%{{[0-9]+}}] device acquire : u32 loc(17:16)
# CHECK: persistent.grid_sync loc(21:9)
# CHECK: %[[NX:[0-9]+]] = push.load @pc.n : u32 loc(22:35)
# CHECK: %x = rem %{{[0-9]+}}, %[[NX]] : u32
# CHECK-NEXT: %y = div %{{[0-9]+}}, %[[NX]] : u32

# LOW: buffer @_vp_grid : u32[] binding(0, 3) readwrite coherent
# LOW: buffer @_vp_host : u32[] binding(0, 4) readwrite coherent
# LOW: shared @_vp_psh : array<u32, 4>
# LOW-LABEL: kernel @main
# LOW-NOT: persistent.
# LOW: atomic.add @_vp_grid[%{{[0-9]+}}], %{{[0-9]+}} device acq_rel
# LOW: atomic.or @_vp_grid[%{{[0-9]+}}], %{{[0-9]+}} device acq_rel
# LOW: for %t =
# The step boundary's snapshot of the control word: relaxed (a value, not a
# flag guarding a payload; the generation's release publishes it).
# LOW: atomic.load @ctrl[%{{[0-9]+}}] device relaxed
# LOW-NOT: persistent.

# GLSL: layout(std430, set = 0, binding = 3) coherent buffer _vp_grid_buf { uint _vp_grid[]; };
# GLSL: shared uint _vp_psh[4];
# GLSL: for (uint t =
# GLSL: barrier();
# the default barrier (flip): every leader adds once (acq_rel) to the word
# alone at word 96 and polls it; no arrival counter at word 2
# GLSL-NOT: _vp_grid[2u]
# GLSL: atomicAdd(_vp_grid[96u], {{.*}}, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
# GLSL-NOT: _vp_grid[2u]
# GLSL: atomicLoad(_vp_grid[96u], gl_ScopeDevice, 0, 0);
# GLSL-NOT: _vp_grid[2u]
