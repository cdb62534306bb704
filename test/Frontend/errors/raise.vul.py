import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    raise ValueError("x")

# Error class: raise.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}raise.vul.py:5:5: error: exceptions (try/raise) are not supported in kernels
# CHECK-NEXT: {{^}}    raise ValueError("x")
# CHECK-NEXT: {{^}}    ^
# CHECK-NEXT: {{^}}  hint: check conditions with if; report failures through a buffer
# CHECK-NOT: {{.}}
