import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    break

# Error class: break outside a loop.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}break-outside-loop.vul.py:5:5: error: 'break' outside a loop
# CHECK-NEXT: {{^}}    break
# CHECK-NEXT: {{^}}    ^
# CHECK-NOT: {{.}}
