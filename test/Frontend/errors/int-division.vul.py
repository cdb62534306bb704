import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    u[i] = i / 2

# Error class: / on integers.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}int-division.vul.py:5:12: error: '/' on integers (u32): Python's / makes a float
# CHECK-NEXT: {{^}}    u[i] = i / 2
# CHECK-NEXT: {{^}}           ^
# CHECK-NEXT: {{^}}  hint: use // for integer division, or convert first: vp.float32(i) / ...
# CHECK-NOT: {{.}}
