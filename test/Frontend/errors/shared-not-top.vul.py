import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    if i < 4:
        t = vp.Shared[vp.float32, 64]

# Error class: a shared array declared in a branch.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}shared-not-top.vul.py:6:9: error: shared arrays are declared at the top level of the kernel
# CHECK-NEXT: {{^}}        t = vp.Shared[vp.float32, 64]
# CHECK-NEXT: {{^}}        ^
# CHECK-NEXT: {{^}}  hint: move `t = vp.Shared[...]` to the start of the kernel and pass it to helpers
# CHECK-NOT: {{.}}
