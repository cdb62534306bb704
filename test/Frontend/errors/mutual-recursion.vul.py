import vulpy as vp

def even(n: vp.int32) -> bool:
    return True if n == 0 else odd(n - 1)

def odd(n: vp.int32) -> bool:
    return False if n == 0 else even(n - 1)

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    u[i] = vp.uint32(even(5))

# Error class: mutual recursion.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}mutual-recursion.vul.py:7:33: error: 'even' calls itself (directly or through other helpers)
# CHECK-NEXT: {{^}}    return False if n == 0 else even(n - 1)
# CHECK-NEXT: {{^}}                                ^
# CHECK-NEXT: {{^}}  hint: recursion is not supported on the GPU; write a loop
# CHECK-NOT: {{.}}
