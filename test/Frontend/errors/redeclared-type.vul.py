import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    x = vp.var(1)
    x = 2.5

# Error class: a variable whose type changes.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}redeclared-type.vul.py:6:9: error: assignment to 'x' (i32 since line 5): float literal 2.5 where i32 is expected
# CHECK-NEXT: {{^}}    x = 2.5
# CHECK-NEXT: {{^}}        ^
# CHECK-NEXT: {{^}}  hint: the value must be i32 here: write an integer, or convert: vp.int32(...)
# CHECK-NOT: {{.}}
