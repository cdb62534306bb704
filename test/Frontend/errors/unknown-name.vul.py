import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    a[i] = sinn(1.0)

# Error class: an unknown name.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}unknown-name.vul.py:5:12: error: unknown name 'sinn'
# CHECK-NEXT: {{^}}    a[i] = sinn(1.0)
# CHECK-NEXT: {{^}}           ^
# CHECK-NEXT: {{^}}  hint: did you mean 'sin'?
# CHECK-NOT: {{.}}
