import vulpy as vp

class PushConstants:
    N: vp.uint32

def main(a: vp.Buffer[vp.float32]):
    i = vp.global_id()
    a[i] = vp.float32(pc.M)

# Error class: an unknown push constant.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}unknown-push.vul.py:8:23: error: no push constant named 'M'
# CHECK-NEXT: {{^}}    a[i] = vp.float32(pc.M)
# CHECK-NEXT: {{^}}                      ^
# CHECK-NEXT: {{^}}  hint: declare it in `class PushConstants:` as M: vp.uint32 (or its type)
# CHECK-NOT: {{.}}
