import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    with vp.var(1) as x:
        pass

# Error class: with.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}with.vul.py:5:5: error: with statements are not supported in kernels
# CHECK-NEXT: {{^}}    with vp.var(1) as x:
# CHECK-NEXT: {{^}}    ^
# CHECK-NOT: {{.}}
