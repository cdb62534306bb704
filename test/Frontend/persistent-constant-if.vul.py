# A vp.grid_sync() under an `if` whose condition is a compile-time constant
# (a module constant, `MODE == 2`) is right: the frontend keeps only the
# taken branch (if-constant.vul.py), so every invocation reaches the sync;
# a time loop may stand in such a branch too. The branch not taken is
# dropped with its syncs. An `if` on a run-time value stays an error
# (errors/persistent-misuse.vul.py).
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir - | FileCheck %s
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir - | vulpy-opt --lower-persistent --verify-each | FileCheck %s --check-prefix=LOW
import vulpy as vp

SYNC = True
MODE = 2


@vp.kernel(persistent=True, local_size_x=32)
def main(a: vp.Buffer[vp.float32], n: vp.uint32, steps: vp.uint32):
    if MODE == 2:
        for t in range(steps):
            for p in vp.grid_range(n):
                a[p] += 1.0
            if SYNC:
                vp.grid_sync()
            if not SYNC:
                vp.grid_sync()
                vp.grid_sync()
            for p in vp.grid_range(n):
                a[p] *= 2.0
            vp.grid_sync()
    else:
        for k in range(3):
            vp.grid_sync()

# CHECK-LABEL: kernel @main
# CHECK: for %t = %{{[0-9]+}} to %{{[0-9]+}} step %{{[0-9]+}} loc(18:9) {
# CHECK-NEXT: persistent.step loc(18:9)
# CHECK: persistent.grid_sync loc(22:17)
# CHECK-NOT: persistent.grid_sync loc(24
# CHECK-NOT: persistent.grid_sync loc(25
# CHECK: persistent.grid_sync loc(28:13)
# CHECK-NOT: persistent.grid_sync
# LOW-NOT: persistent.
