import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    g = (x for x in range(4))
    t = [k for k in range(3)]

# Error class: generators and comprehensions.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}generator.vul.py:5:9: error: comprehensions and generators are not supported in kernels
# CHECK-NEXT: {{^}}    g = (x for x in range(4))
# CHECK-NEXT: {{^}}        ^
# CHECK-NEXT: {{^}}  hint: write a for loop over range(...)
# CHECK-NEXT: {{.*}}generator.vul.py:6:9: error: comprehensions and generators are not supported in kernels
# CHECK-NEXT: {{^}}    t = [k for k in range(3)]
# CHECK-NEXT: {{^}}        ^
# CHECK-NEXT: {{^}}  hint: write a for loop over range(...)
# CHECK-NOT: {{.}}
