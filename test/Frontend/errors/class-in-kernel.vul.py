import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    class Q:
        x: vp.float32

# Error class: a class inside a kernel.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}class-in-kernel.vul.py:5:5: error: classes cannot be defined inside a kernel or helper
# CHECK-NEXT: {{^}}    class Q:
# CHECK-NEXT: {{^}}    ^
# CHECK-NEXT: {{^}}  hint: define struct classes at module level
# CHECK-NOT: {{.}}
