import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    a[i] = total
    total = 1.0

# Error class: reading a variable before it is assigned.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}undefined-variable.vul.py:5:12: error: 'total' is read before it is assigned
# CHECK-NEXT: {{^}}    a[i] = total
# CHECK-NEXT: {{^}}           ^
# CHECK-NEXT: {{^}}  hint: assign it first; a name assigned anywhere in a function is that function's variable
# CHECK-NOT: {{.}}
