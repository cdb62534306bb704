# The seed's kernel-decorator example, exactly as the product description
# writes it: vp.var locals, x[:] whole-value store, .xyz/.w swizzles, scalar
# parameters as push constants, and the dispatch guard (no bounds check of its
# own, so `_vp_count` keeps it safe for any N).
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir - | FileCheck %s
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir - | vulpy-opt - > /dev/null
import vulpy as vp

@vp.kernel(local_size_x=64)
def push_particles(
    pos: vp.Buffer[vp.vec4],
    vel: vp.Buffer[vp.vec4],
    n:   vp.uint32,
    dt:  vp.float32,
):
    i    = vp.global_id()
    x    = vp.var(pos[i].xyz)
    v    = vp.var(vel[i].xyz)
    x[:] = x + v * dt
    pos[i] = vp.vec4(x, pos[i].w)

# CHECK: buffer @pos : vec4<f32>[] binding(0, 0) readwrite
# CHECK: buffer @vel : vec4<f32>[] binding(0, 1) readonly
# CHECK: push @pc { n: u32 {{.*}}, dt: f32 {{.*}}, _vp_count: vec3<u32>
# CHECK-LABEL: kernel @push_particles local_size(64, 1, 1)
# CHECK-NEXT: local @x : vec3<f32>
# CHECK-NEXT: local @v : vec3<f32>
# The guard: ids past the dispatch count return at once.
# CHECK-NEXT: %[[GID:[0-9]+]] = global_id : vec3<u32>
# CHECK-NEXT: %[[CNT:[0-9]+]] = push.load @pc._vp_count : vec3<u32>
# CHECK-NEXT: %[[PAST:[0-9]+]] = ge %[[GID]], %[[CNT]] : vec3<bool>
# CHECK-NEXT: %[[ANY:[0-9]+]] = any %[[PAST]] : bool
# CHECK-NEXT: if %[[ANY]]
# CHECK-NEXT: return
# CHECK-NEXT: }
# CHECK-NEXT: %[[G:[0-9]+]] = global_id : vec3<u32> loc(16:12)
# CHECK-NEXT: %i = extract %[[G]][0] : u32 loc(16:12)
# CHECK-NEXT: %[[P:[0-9]+]] = buffer.load @pos[%i] : vec4<f32> loc(17:19)
# CHECK-NEXT: %[[PX:[0-9]+]] = swizzle %[[P]].xyz : vec3<f32>
# CHECK-NEXT: local.store @x, %[[PX]] loc(17:5)
# CHECK-NEXT: %[[V:[0-9]+]] = buffer.load @vel[%i] : vec4<f32>
# CHECK-NEXT: %[[VX:[0-9]+]] = swizzle %[[V]].xyz : vec3<f32>
# CHECK-NEXT: local.store @v, %[[VX]]
# CHECK-NEXT: %[[X1:[0-9]+]] = local.load @x : vec3<f32>
# CHECK-NEXT: %[[V1:[0-9]+]] = local.load @v : vec3<f32>
# CHECK-NEXT: %[[DT:[0-9]+]] = push.load @pc.dt : f32
# CHECK-NEXT: %[[VDT:[0-9]+]] = mul %[[V1]], %[[DT]] : vec3<f32>
# CHECK-NEXT: %[[SUM:[0-9]+]] = add %[[X1]], %[[VDT]] : vec3<f32>
# CHECK-NEXT: local.store @x, %[[SUM]] loc(19:5)
# CHECK-NEXT: %[[X2:[0-9]+]] = local.load @x : vec3<f32>
# CHECK-NEXT: %[[W:[0-9]+]] = buffer.load @pos[%i].w : f32
# CHECK-NEXT: %[[NEW:[0-9]+]] = construct %[[X2]], %[[W]] : vec4<f32>
# CHECK-NEXT: buffer.store @pos[%i], %[[NEW]] loc(20:5)
# CHECK-NEXT: }
