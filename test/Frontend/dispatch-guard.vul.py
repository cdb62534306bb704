# The dispatch guard (on by default): a hidden push field _vp_count, the
# dispatch's invocation counts, last in the push block (a block of its own
# when the kernel has no push constants), and an early return for any id past
# it, so dispatch=N runs exactly N invocations.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir - | FileCheck %s
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s --check-prefix=OFF
import vulpy as vp

def main(a: vp.Buffer[vp.float32]):
    a[vp.global_id()] = 0.0

# CHECK: push @pc { _vp_count: vec3<u32>
# CHECK-LABEL: kernel @main
# CHECK-NEXT: %[[G:[0-9]+]] = global_id : vec3<u32>
# CHECK-NEXT: %[[C:[0-9]+]] = push.load @pc._vp_count : vec3<u32>
# CHECK-NEXT: %[[P:[0-9]+]] = ge %[[G]], %[[C]] : vec3<bool>
# CHECK-NEXT: %[[A:[0-9]+]] = any %[[P]] : bool
# CHECK-NEXT: if %[[A]]
# CHECK-NEXT: return
# OFF-NOT: push
# OFF-NOT: _vp_count
