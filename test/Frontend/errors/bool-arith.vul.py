import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    x = (i > 3) + 1

# Error class: arithmetic on bool.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}bool-arith.vul.py:5:9: error: arithmetic on bool ('+'): Python treats True as 1; VulPy does not
# CHECK-NEXT: {{^}}    x = (i > 3) + 1
# CHECK-NEXT: {{^}}        ^
# CHECK-NEXT: {{^}}  hint: convert first: vp.uint32(i > 3)
# CHECK-NOT: {{.}}
