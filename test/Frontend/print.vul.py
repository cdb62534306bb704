# vp.print (issue 20): a record appended to the hidden ring _vp_print (word 0
# the cursor, claimed with atomic.add, written only when it fits).
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

def main(a: vp.Buffer[vp.float32]):
    i = vp.global_id()
    vp.print("a =", a[i])

# CHECK: buffer @_vp_print : u32[] binding(0, 1) readwrite
# CHECK: %[[OLD:[0-9]+]] = atomic.add @_vp_print[%{{[0-9]+}}], %{{[0-9]+}} device relaxed : u32
# CHECK: buffer.len @_vp_print
# CHECK: %[[FITS:[0-9]+]] = le %{{[0-9]+}}, %{{[0-9]+}} : bool
# CHECK-NEXT: if %[[FITS]]
# CHECK: buffer.store @_vp_print
