import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    v = vp.vec2(1.0, 2.0)
    if v > 1.0:
        pass

# Error class: a vector as a condition.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}vector-condition.vul.py:6:8: error: a vec2<bool> is not a condition
# CHECK-NEXT: {{^}}    if v > 1.0:
# CHECK-NEXT: {{^}}       ^
# CHECK-NEXT: {{^}}  hint: reduce it: vp.any(...) or vp.all(...)
# CHECK-NOT: {{.}}
