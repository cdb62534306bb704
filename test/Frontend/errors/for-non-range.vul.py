import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    for x in a:
        pass

# Error class: for over something else.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}for-non-range.vul.py:5:14: error: for loops run over range(...) only
# CHECK-NEXT: {{^}}    for x in a:
# CHECK-NEXT: {{^}}             ^
# CHECK-NEXT: {{^}}  hint: write for i in range(n): ... and index the data with i
# CHECK-NOT: {{.}}
