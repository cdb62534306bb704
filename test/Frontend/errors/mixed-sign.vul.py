import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    k = 3
    u[i] = i + k

# Error class: signed with unsigned.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}mixed-sign.vul.py:6:12: error: '+' mixes unsigned (u32) and signed (i32) operands
# CHECK-NEXT: {{^}}    u[i] = i + k
# CHECK-NEXT: {{^}}           ^
# CHECK-NEXT: {{^}}  hint: convert one side explicitly, e.g. vp.uint32(...)
# CHECK-NOT: {{.}}
