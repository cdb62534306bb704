import vulpy as vp


def main(a: vp.Buffer[vp.uint32]):
    vp.subgroup_barrier(1)
    a[vp.global_id()] = 1

# vp.subgroup_barrier() takes no arguments: an error at the call's column.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s
# CHECK: subgroup-barrier-args.vul.py:5:5: error: subgroup_barrier() takes 0 arguments, got 1
