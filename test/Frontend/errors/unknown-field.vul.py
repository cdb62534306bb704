import vulpy as vp

class P:
    x: vp.float32

def main(p: vp.Buffer[P]):
    i = vp.global_id()
    p[i].y = 1.0

# Error class: an unknown struct field.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}unknown-field.vul.py:8:5: error: struct P has no field 'y'
# CHECK-NEXT: {{^}}    p[i].y = 1.0
# CHECK-NEXT: {{^}}    ^
# CHECK-NOT: {{.}}
