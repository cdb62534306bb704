import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    x = undefined1
    a[i] = 1.0
    y = i * 0.5
    z = vp.nope(1)
    u[i] = x

# Error class: several independent errors in one run.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}several-errors.vul.py:5:9: error: unknown name 'undefined1'
# CHECK-NEXT: {{^}}    x = undefined1
# CHECK-NEXT: {{^}}        ^
# CHECK-NEXT: {{.*}}several-errors.vul.py:7:9: error: '*' mixes u32 and a float literal
# CHECK-NEXT: {{^}}    y = i * 0.5
# CHECK-NEXT: {{^}}        ^
# CHECK-NEXT: {{^}}  hint: convert the integer side: vp.float32(i)
# CHECK-NEXT: {{.*}}several-errors.vul.py:8:9: error: vulpy has no attribute 'nope'
# CHECK-NEXT: {{^}}    z = vp.nope(1)
# CHECK-NEXT: {{^}}        ^
# CHECK-NOT: {{.}}
