import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    d = {1: 2}

# Error class: a dict.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}dict.vul.py:5:9: error: dicts are not supported in kernels (no dynamic memory on the GPU)
# CHECK-NEXT: {{^}}    d = {1: 2}
# CHECK-NEXT: {{^}}        ^
# CHECK-NEXT: {{^}}  hint: use a vector (vp.vec4(...)), a buffer or vp.Shared[T, N]
# CHECK-NOT: {{.}}
