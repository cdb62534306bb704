import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    m = vp.mat2(1.0)
    r = m * m

# Error class: * between matrices.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}matrix-mul.vul.py:6:9: error: '*' is not defined for mat2<f32> and mat2<f32>
# CHECK-NEXT: {{^}}    r = m * m
# CHECK-NEXT: {{^}}        ^
# CHECK-NEXT: {{^}}  hint: use @ for matrix products
# CHECK-NOT: {{.}}
