import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    print(i)

# Error class: print().
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}print.vul.py:5:5: error: print() is not available in kernels
# CHECK-NEXT: {{^}}    print(i)
# CHECK-NEXT: {{^}}    ^
# CHECK-NEXT: {{^}}  hint: use vp.print(...): it prints after the dispatch
# CHECK-NOT: {{.}}
