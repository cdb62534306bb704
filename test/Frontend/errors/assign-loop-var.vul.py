import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    for k in range(4):
        k = 2

# Error class: assignment to the loop variable.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}assign-loop-var.vul.py:6:9: error: cannot assign to the loop variable 'k'
# CHECK-NEXT: {{^}}        k = 2
# CHECK-NEXT: {{^}}        ^
# CHECK-NEXT: {{^}}  hint: use another name; range() sets 'k' on every iteration
# CHECK-NOT: {{.}}
