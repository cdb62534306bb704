# Invocation ids: global_id() is the x id, global_id(axis) one axis, and
# .xyz/.xy/.y on the call the vector or a component; the same forms for
# local_id, workgroup_id and num_workgroups; local_index and the subgroup ids
# are u32.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

def main(out: vp.Buffer[vp.uvec4]):
    i = vp.global_id()
    y = vp.global_id(1)
    g = vp.global_id().xyz
    gy = vp.global_id().y
    l = vp.local_id().xy
    w = vp.workgroup_id(2)
    n = vp.num_workgroups().x
    li = vp.local_index()
    sid = vp.subgroup_id()
    ssz = vp.subgroup_size()
    lane = vp.subgroup_lane()
    nsg = vp.num_subgroups()
    out[i] = vp.uvec4(g.x + y + gy, l, w + n + li + sid + ssz + lane + nsg)

# CHECK: %[[G0:[0-9]+]] = global_id : vec3<u32>
# CHECK-NEXT: %i = extract %[[G0]][0] : u32
# CHECK-NEXT: %[[G1:[0-9]+]] = global_id : vec3<u32>
# CHECK-NEXT: %y = extract %[[G1]][1] : u32
# CHECK-NEXT: %[[G2:[0-9]+]] = global_id : vec3<u32>
# CHECK-NEXT: %g = swizzle %[[G2]].xyz : vec3<u32>
# CHECK-NEXT: %[[G3:[0-9]+]] = global_id : vec3<u32>
# CHECK-NEXT: %gy = extract %[[G3]][1] : u32
# CHECK-NEXT: %[[L:[0-9]+]] = local_id : vec3<u32>
# CHECK-NEXT: %l = swizzle %[[L]].xy : vec2<u32>
# CHECK-NEXT: %[[W:[0-9]+]] = workgroup_id : vec3<u32>
# CHECK-NEXT: %w = extract %[[W]][2] : u32
# CHECK-NEXT: %[[N:[0-9]+]] = num_workgroups : vec3<u32>
# CHECK-NEXT: %n = extract %[[N]][0] : u32
# CHECK-NEXT: %li = local_index : u32
# CHECK-NEXT: %sid = subgroup_id : u32
# CHECK-NEXT: %ssz = subgroup_size : u32
# CHECK-NEXT: %lane = subgroup_lane : u32
# CHECK-NEXT: %nsg = num_subgroups : u32
