import vulpy as vp


@vp.kernel(persistent=True)
def main(a: vp.Buffer[vp.float32], n: vp.uint32, steps: vp.uint32):
    i = vp.global_id().x
    if i < n:
        vp.grid_sync()
    for t in range(steps):
        for p in vp.grid_range(n):
            a[p] = 1.0
        vp.grid_sync()
        if a[0] > 2.0:
            return
        for k in range(3):
            vp.grid_sync()
    for p in vp.grid_range(n):
        vp.grid_sync()
    for p in vp.grid_range(n, 2):
        a[p] = 0.0
    q = vp.grid_range(n)
    x = vp.grid_sync() + 1

# Misuse of the persistent constructs, each with its place: a grid sync
# under an `if` on a run-time value (non-uniform control flow; reported when
# the condition is translated, after the scan's errors: an `if` on a
# compile-time constant is fine, persistent-constant-if.vul.py), a return
# inside the time loop, a
# grid sync in a nested loop, one in a grid_range loop, a 2-D grid_range with
# one target name, grid_range outside a for, grid_sync inside an expression.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s
# CHECK: {{.*}}persistent-misuse.vul.py:14:13: error: return inside a persistent kernel's time loop
# CHECK: {{^}}  hint: leave the loop with break (every invocation must leave together) or let the host stop it (handle.stop())
# CHECK: {{.*}}persistent-misuse.vul.py:16:13: error: vp.grid_sync() under non-uniform control flow
# CHECK: {{^}}  hint: every invocation must reach a grid sync: call it as a statement of the kernel body or of its time loop's body, not under if, a nested loop or an expression (an `if` on a compile-time constant is fine)
# CHECK: {{.*}}persistent-misuse.vul.py:18:9: error: vp.grid_sync() inside a grid_range loop: not every invocation reaches it the same number of times
# CHECK: {{^}}  hint: end the grid_range loop first, then call vp.grid_sync()
# CHECK: {{.*}}persistent-misuse.vul.py:22:9: error: vp.grid_sync() under non-uniform control flow
# CHECK: {{.*}}persistent-misuse.vul.py:8:9: error: vp.grid_sync() under non-uniform control flow
# CHECK: {{.*}}persistent-misuse.vul.py:19:9: error: vp.grid_range() with 2 extents yields 2 indexes; the loop names 1
# CHECK: {{.*}}persistent-misuse.vul.py:21:9: error: vp.grid_range() makes a loop: write `for p in vp.grid_range(n):`
# CHECK: {{.*}}persistent-misuse.vul.py:22:9: error: this call returns nothing
# CHECK-NOT: error:
