import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    for k in range(0, 10, n):
        pass
    for k in range(0, 10, 0):
        pass

# Error class: a non-constant range step.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}range-step.vul.py:5:27: error: range() step must be a nonzero integer constant
# CHECK-NEXT: {{^}}    for k in range(0, 10, n):
# CHECK-NEXT: {{^}}                          ^
# CHECK-NEXT: {{^}}  hint: its sign decides the loop's direction; use a while loop for a step known only at run time
# CHECK-NEXT: {{.*}}range-step.vul.py:7:27: error: range() step must be a nonzero integer constant
# CHECK-NEXT: {{^}}    for k in range(0, 10, 0):
# CHECK-NEXT: {{^}}                          ^
# CHECK-NEXT: {{^}}  hint: its sign decides the loop's direction; use a while loop for a step known only at run time
# CHECK-NOT: {{.}}
