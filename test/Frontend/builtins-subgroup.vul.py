# Subgroup operations: reductions and scans, vote (all/any), ballot, elect,
# broadcast (a constant lane) and the shuffles.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

def main(f: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32]):
    i = vp.global_id()
    x = f[i]
    n = u[i]
    s = vp.subgroup_add(x) + vp.subgroup_mul(x) + vp.subgroup_min(x) + vp.subgroup_max(x)
    b = vp.subgroup_and(n) | vp.subgroup_or(n) | vp.subgroup_xor(n)
    scan = vp.subgroup_inclusive_add(x) + vp.subgroup_exclusive_add(x)
    vote = vp.subgroup_all(x > 0.0) and vp.subgroup_any(x < 0.0)
    mask = vp.subgroup_ballot(x > 1.0)
    leader = vp.subgroup_elect()
    bc = vp.subgroup_broadcast(x, 0) + vp.subgroup_broadcast_first(x)
    sh = (vp.subgroup_shuffle(x, n) + vp.subgroup_shuffle_xor(x, 1)
          + vp.subgroup_shuffle_up(x, 1) + vp.subgroup_shuffle_down(x, 2))
    if leader and vote:
        f[i] = s + scan + bc + sh
    u[i] = b + mask.x

# CHECK: subgroup.add %x : f32
# CHECK: subgroup.mul %x : f32
# CHECK: subgroup.min %x : f32
# CHECK: subgroup.max %x : f32
# CHECK: subgroup.and %n : u32
# CHECK: subgroup.or %n : u32
# CHECK: subgroup.xor %n : u32
# CHECK: subgroup.inclusive_add %x : f32
# CHECK: subgroup.exclusive_add %x : f32
# CHECK: subgroup.all %{{[0-9]+}} : bool
# The right side of `and` is a subgroup op: it is not hoisted out of the if.
# CHECK: if %{{[0-9]+}}
# CHECK: subgroup.any %{{[0-9]+}} : bool
# CHECK: %mask = subgroup.ballot %{{[0-9]+}} : vec4<u32>
# CHECK: %leader = subgroup.elect : bool
# CHECK: %[[Z:[0-9]+]] = const 0 : u32
# CHECK-NEXT: subgroup.broadcast %x, %[[Z]] : f32
# CHECK: subgroup.broadcast_first %x : f32
# CHECK: subgroup.shuffle %x, %n : f32
# CHECK: subgroup.shuffle_xor %x, %{{[0-9]+}} : f32
# CHECK: subgroup.shuffle_up %x, %{{[0-9]+}} : f32
# CHECK: subgroup.shuffle_down %x, %{{[0-9]+}} : f32
