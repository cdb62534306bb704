import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    x = i or 5

# Error class: and/or on numbers.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}or-non-bool.vul.py:5:9: error: and/or need bool operands, not u32
# CHECK-NEXT: {{^}}    x = i or 5
# CHECK-NEXT: {{^}}        ^
# CHECK-NEXT: {{^}}  hint: compare explicitly (x != 0); Python's `or` would return the operand itself
# CHECK-NOT: {{.}}
