import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    a[i] = a[i] + i

# Error class: an integer with a float value.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}int-float-typed.vul.py:5:12: error: '+' mixes float (f32) and unsigned (u32) operands
# CHECK-NEXT: {{^}}    a[i] = a[i] + i
# CHECK-NEXT: {{^}}           ^
# CHECK-NEXT: {{^}}  hint: convert one side explicitly, e.g. vp.float32(...)
# CHECK-NOT: {{.}}
