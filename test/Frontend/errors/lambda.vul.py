import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    f = lambda x: x

# Error class: lambda.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}lambda.vul.py:5:9: error: lambda is not supported in kernels
# CHECK-NEXT: {{^}}    f = lambda x: x
# CHECK-NEXT: {{^}}        ^
# CHECK-NEXT: {{^}}  hint: define a helper function with def
# CHECK-NOT: {{.}}
