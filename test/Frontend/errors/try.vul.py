import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    try:
        a[i] = 1.0
    except Exception:
        pass

# Error class: try/except.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}try.vul.py:5:5: error: exceptions (try/raise) are not supported in kernels
# CHECK-NEXT: {{^}}    try:
# CHECK-NEXT: {{^}}    ^
# CHECK-NEXT: {{^}}  hint: check conditions with if; report failures through a buffer
# CHECK-NOT: {{.}}
