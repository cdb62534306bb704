import vulpy as vp

total = 0

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    global total

# Error class: global.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}global.vul.py:7:5: error: global and nonlocal variables are not supported in kernels
# CHECK-NEXT: {{^}}    global total
# CHECK-NEXT: {{^}}    ^
# CHECK-NEXT: {{^}}  hint: share data through buffers or shared arrays
# CHECK-NOT: {{.}}
