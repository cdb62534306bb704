import vulpy as vp

def fact(n: vp.uint32) -> vp.uint32:
    if n == 0:
        return 1
    return n * fact(n - 1)

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    u[i] = fact(i)

# Error class: recursion.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}recursion.vul.py:6:16: error: 'fact' calls itself (directly or through other helpers)
# CHECK-NEXT: {{^}}    return n * fact(n - 1)
# CHECK-NEXT: {{^}}               ^
# CHECK-NEXT: {{^}}  hint: recursion is not supported on the GPU; write a loop
# CHECK-NOT: {{.}}
