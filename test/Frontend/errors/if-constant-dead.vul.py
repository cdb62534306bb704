import vulpy as vp

DEBUG = False

def main(a: vp.Buffer[vp.float32]):
    i = vp.global_id()
    if DEBUG:
        a[i] = undefined_name

# A branch a constant condition never takes is still checked (the frontend
# drops it after translating it: if-constant.vul.py).
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}if-constant-dead.vul.py:8:16: error: unknown name 'undefined_name'
# CHECK-NEXT: {{^}}        a[i] = undefined_name
# CHECK-NEXT: {{^}}               ^
# CHECK-NOT: {{.}}
