import vulpy as vp

def f(x: vp.float32) -> vp.float32:
    if x > 0.0:
        return x

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    a[i] = f(1.0)

# Error class: a helper that can end without a value.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}missing-return.vul.py:3:1: error: helper 'f' can reach its end without returning a value
# CHECK-NEXT: {{^}}def f(x: vp.float32) -> vp.float32:
# CHECK-NEXT: {{^}}^
# CHECK-NEXT: {{^}}  hint: end every path with `return ...`
# CHECK-NOT: {{.}}
