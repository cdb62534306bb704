import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    return 1

# Error class: a kernel returning a value.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}kernel-return-value.vul.py:5:12: error: a kernel returns nothing; write results to a buffer
# CHECK-NEXT: {{^}}    return 1
# CHECK-NEXT: {{^}}           ^
# CHECK-NOT: {{.}}
