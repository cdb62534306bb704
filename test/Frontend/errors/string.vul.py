import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    s = "hello"

# Error class: a string value.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}string.vul.py:5:9: error: strings are not supported in kernels
# CHECK-NEXT: {{^}}    s = "hello"
# CHECK-NEXT: {{^}}        ^
# CHECK-NEXT: {{^}}  hint: kernels compute numbers; strings may appear only as docstrings and assert messages
# CHECK-NOT: {{.}}
