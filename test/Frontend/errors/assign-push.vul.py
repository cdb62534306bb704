import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    n = 3

# Error class: assignment to a push constant.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}assign-push.vul.py:5:5: error: cannot assign to push constant 'n'
# CHECK-NEXT: {{^}}    n = 3
# CHECK-NEXT: {{^}}    ^
# CHECK-NEXT: {{^}}  hint: push constants are read-only; copy it: my_n = n
# CHECK-NOT: {{.}}
