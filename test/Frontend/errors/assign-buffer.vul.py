import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    a = 3

# Error class: assignment to a buffer parameter.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}assign-buffer.vul.py:5:5: error: cannot assign to buffer 'a' itself
# CHECK-NEXT: {{^}}    a = 3
# CHECK-NEXT: {{^}}    ^
# CHECK-NEXT: {{^}}  hint: store an element: a[i] = ...
# CHECK-NOT: {{.}}
