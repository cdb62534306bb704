import vulpy as vp

FULL = 1

def main(a: vp.Buffer[vp.float32]):
    i = vp.global_id()
    if FULL != 0 or a[i] > undefined_name:
        a[i] = 1.0

# The right side of an `or` a constant left side decides is still checked
# (the frontend drops it after translating it: boolop-constant.vul.py).
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}boolop-constant-dead.vul.py:7:28: error: unknown name 'undefined_name'
# CHECK-NEXT: {{^}}    if FULL != 0 or a[i] > undefined_name:
# CHECK-NEXT: {{^}}                           ^
# CHECK-NOT: {{.}}
