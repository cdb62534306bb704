import vulpy as vp

def f(x: vp.float32) -> vp.float32:
    return x

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    a[i] = f(1.0, 2.0)
    a[i] = f()

# Error class: wrong arity of a helper.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}arity-helper.vul.py:8:12: error: f() takes 1 argument, got 2
# CHECK-NEXT: {{^}}    a[i] = f(1.0, 2.0)
# CHECK-NEXT: {{^}}           ^
# CHECK-NEXT: {{.*}}arity-helper.vul.py:9:12: error: f() is missing the argument 'x'
# CHECK-NEXT: {{^}}    a[i] = f()
# CHECK-NEXT: {{^}}           ^
# CHECK-NOT: {{.}}
