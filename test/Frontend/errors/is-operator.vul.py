import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    if i is None:
        pass

# Error class: is.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}is-operator.vul.py:5:8: error: 'is' is not supported in kernels
# CHECK-NEXT: {{^}}    if i is None:
# CHECK-NEXT: {{^}}       ^
# CHECK-NEXT: {{^}}  hint: compare values with == or !=
# CHECK-NOT: {{.}}
