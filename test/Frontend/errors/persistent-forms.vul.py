import vulpy as vp


@vp.kernel(persistent=1)
def main(a: vp.Buffer[vp.float32], n: vp.uint32, steps: vp.uint32):
    for t in range(steps):
        for p in vp.grid_range(n):
            a[p] = 1.0
            vp.grid_sync()
    for p in vp.grid_range(n, n, n, n):
        a[p] = 0.0
    for a[0] in vp.grid_range(n):
        pass
    for q in vp.grid_range(1.5):
        pass

# The forms of persistent=, grid_range's extents and targets.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s
# CHECK: {{.*}}persistent-forms.vul.py:4:23: error: persistent must be True or False
# CHECK: {{.*}}persistent-forms.vul.py:9:13: error: vp.grid_sync() in a kernel that is not persistent
# CHECK: {{.*}}persistent-forms.vul.py:10:14: error: vp.grid_range() takes 1 to 3 extents (nx[, ny[, nz]]), got 4
# CHECK: {{.*}}persistent-forms.vul.py:12:9: error: a grid_range loop's targets are names
# CHECK: {{.*}}persistent-forms.vul.py:14:28: error: vp.grid_range() extent nx: float literal 1.5 where u32 is expected
# CHECK-NOT: error:
