import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    a[a[i]] = 1.0

# Error class: a float index.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}index-float.vul.py:5:7: error: an index must be an integer scalar, not f32
# CHECK-NEXT: {{^}}    a[a[i]] = 1.0
# CHECK-NEXT: {{^}}      ^
# CHECK-NEXT: {{^}}  hint: convert it: vp.uint32(a[i])
# CHECK-NOT: {{.}}
