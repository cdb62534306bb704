import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    for k in range(4):
        pass
    u[i] = k

# Error class: the loop variable after its loop.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}loop-var-after-loop.vul.py:7:12: error: 'k' is a loop variable (line 5); it has no value after its loop
# CHECK-NEXT: {{^}}    u[i] = k
# CHECK-NEXT: {{^}}           ^
# CHECK-NEXT: {{^}}  hint: copy it to a variable inside the loop if you need it afterwards
# CHECK-NOT: {{.}}
