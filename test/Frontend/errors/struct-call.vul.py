import vulpy as vp

class P:
    x: vp.float32

def main(p: vp.Buffer[P]):
    i = vp.global_id()
    p[i] = P(1.0)

# Error class: calling a struct class.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}struct-call.vul.py:8:12: error: struct P cannot be built by a call
# CHECK-NEXT: {{^}}    p[i] = P(1.0)
# CHECK-NEXT: {{^}}           ^
# CHECK-NEXT: {{^}}  hint: load one from a buffer, or assign its fields one by one
# CHECK-NOT: {{.}}
