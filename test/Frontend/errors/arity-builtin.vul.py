import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    a[i] = vp.sin(1.0, 2.0)

# Error class: wrong arity of a built-in.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}arity-builtin.vul.py:5:12: error: sin() takes 1 argument, got 2
# CHECK-NEXT: {{^}}    a[i] = vp.sin(1.0, 2.0)
# CHECK-NEXT: {{^}}           ^
# CHECK-NOT: {{.}}
