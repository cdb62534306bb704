import vulpy as vp


@vp.kernel
def main(a: vp.Buffer[vp.float32], n: vp.uint32):
    for p in vp.grid_range(n):
        a[p] = 1.0
    vp.grid_sync()

# vp.grid_sync() needs @vp.kernel(persistent=True) (a grid_range loop alone
# does not: it is a plain grid-stride loop).
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s
# CHECK: {{.*}}persistent-not-declared.vul.py:8:5: error: vp.grid_sync() in a kernel that is not persistent
# CHECK: {{^}}  hint: declare it: @vp.kernel(persistent=True); a grid sync needs every workgroup resident, which only a persistent launch arranges
# CHECK-NOT: error:
