import vulpy as vp

import numpy as np
table = np.zeros(4)

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    a[i] = table[0]

# Error class: a module-level value that is not a constant.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}module-value.vul.py:4:9: error: module-level 'table' is not a compile-time constant
# CHECK-NEXT: {{^}}table = np.zeros(4)
# CHECK-NEXT: {{^}}        ^
# CHECK-NEXT: {{^}}  hint: kernels read module-level numbers (literals and arithmetic on them); pass other data in a buffer
# CHECK-NOT: {{.}}
