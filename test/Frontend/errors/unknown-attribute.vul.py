import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    a[i] = vp.sine(1.0)

# Error class: an unknown vp attribute.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}unknown-attribute.vul.py:5:12: error: vulpy has no attribute 'sine'
# CHECK-NEXT: {{^}}    a[i] = vp.sine(1.0)
# CHECK-NEXT: {{^}}           ^
# CHECK-NEXT: {{^}}  hint: did you mean 'vp.sin'?
# CHECK-NOT: {{.}}
