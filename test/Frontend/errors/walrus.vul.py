import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    if (k := i) > 2:
        pass

# Error class: the walrus operator.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}walrus.vul.py:5:9: error: the walrus operator := is not supported
# CHECK-NEXT: {{^}}    if (k := i) > 2:
# CHECK-NEXT: {{^}}        ^
# CHECK-NOT: {{.}}
