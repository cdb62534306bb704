import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    for k in range(n, 0, -1):
        pass

# Error class: a negative step over unsigned bounds.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}range-negative-unsigned.vul.py:5:26: error: a negative step needs a signed loop variable; the bounds are u32
# CHECK-NEXT: {{^}}    for k in range(n, 0, -1):
# CHECK-NEXT: {{^}}                         ^
# CHECK-NEXT: {{^}}  hint: count down with signed bounds, e.g. range(vp.int32(n) - 1, -1, -1)
# CHECK-NOT: {{.}}
