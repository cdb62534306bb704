import vulpy as vp

class P:
    x: vp.float32
    n: vp.uint32

def main(p: vp.Buffer[P]):
    i = vp.global_id()
    p[i] = P(1.0)
    p[i] = P(1.0, 2, 3)
    p[i] = P(x=1.0, y=2)
    p[i] = P(1.0, x=2.0)
    p[i] = P(x=1.5, n=2.5)

# Error class: building a struct by a call: a field missing (no defaults),
# too many, unknown or given twice, a value of the wrong type.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}struct-call.vul.py:9:12: error: P() needs every field; 'n' is missing
# CHECK-NEXT: {{^}}    p[i] = P(1.0)
# CHECK-NEXT: {{^}}           ^
# CHECK-NEXT: {{^}}  hint: a struct built by a call has no default values
# CHECK-NEXT: {{.*}}struct-call.vul.py:10:22: error: P() takes 2 fields, got 3
# CHECK: {{.*}}struct-call.vul.py:11:21: error: struct P has no field 'y'
# CHECK: {{.*}}struct-call.vul.py:12:19: error: P() gets field 'x' twice
# CHECK: {{.*}}struct-call.vul.py:13:23: error: field 'n' of P: float literal 2.5 where u32 is expected
