import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    a[i] = vp.max(*a)

# Error class: star arguments.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}starred.vul.py:5:19: error: *arguments are not supported in kernels
# CHECK-NEXT: {{^}}    a[i] = vp.max(*a)
# CHECK-NEXT: {{^}}                  ^
# CHECK-NOT: {{.}}
