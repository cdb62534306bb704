import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    xs = [1.0, 2.0]

# Error class: a list.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}dynamic-list.vul.py:5:10: error: lists are not supported in kernels (no dynamic memory on the GPU)
# CHECK-NEXT: {{^}}    xs = [1.0, 2.0]
# CHECK-NEXT: {{^}}         ^
# CHECK-NEXT: {{^}}  hint: use a vector (vp.vec4(...)), a buffer or vp.Shared[T, N]
# CHECK-NOT: {{.}}
