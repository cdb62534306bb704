import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    s = f"{i}"

# Error class: an f-string.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}fstring.vul.py:5:9: error: strings are not supported in kernels
# CHECK-NEXT: {{^}}    s = f"{i}"
# CHECK-NEXT: {{^}}        ^
# CHECK-NOT: {{.}}
