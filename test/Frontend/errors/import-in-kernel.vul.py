import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    import math

# Error class: import inside a kernel.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}import-in-kernel.vul.py:5:5: error: imports belong at module level
# CHECK-NEXT: {{^}}    import math
# CHECK-NEXT: {{^}}    ^
# CHECK-NOT: {{.}}
