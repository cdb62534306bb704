import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    def g():
        pass

# Error class: a nested function.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}nested-def.vul.py:5:5: error: functions cannot be defined inside a kernel or helper
# CHECK-NEXT: {{^}}    def g():
# CHECK-NEXT: {{^}}    ^
# CHECK-NEXT: {{^}}  hint: define helpers at module level and call them
# CHECK-NOT: {{.}}
