import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    u[i] = -i

# Error class: negating an unsigned value.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}unsigned-negate.vul.py:5:12: error: negating an unsigned value (u32)
# CHECK-NEXT: {{^}}    u[i] = -i
# CHECK-NEXT: {{^}}           ^
# CHECK-NEXT: {{^}}  hint: convert to a signed type first: vp.int32(i)
# CHECK-NOT: {{.}}
