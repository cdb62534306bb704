import vulpy as vp

def main(a, b: vp.Buffer[vp.float32]):
    i = vp.global_id()

# Error class: a kernel parameter without a type.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}kernel-param-type.vul.py:3:10: error: kernel parameter 'a' has no type
# CHECK-NEXT: {{^}}def main(a, b: vp.Buffer[vp.float32]):
# CHECK-NEXT: {{^}}         ^
# CHECK-NEXT: {{^}}  hint: annotate it: a: vp.Buffer[vp.float32] (a buffer) or a: vp.uint32 (a push constant)
# CHECK-NOT: {{.}}
