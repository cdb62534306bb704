import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    a[i] = i * 0.5

# Error class: an integer with a float literal.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}int-float.vul.py:5:12: error: '*' mixes u32 and a float literal
# CHECK-NEXT: {{^}}    a[i] = i * 0.5
# CHECK-NEXT: {{^}}           ^
# CHECK-NEXT: {{^}}  hint: convert the integer side: vp.float32(i)
# CHECK-NOT: {{.}}
