import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    x = vp.var(0)
    vp.atomic_add(x, 1)

# Error class: an atomic on something that is not memory.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}atomic-target.vul.py:6:19: error: atomic_add() works on a buffer or shared-array element
# CHECK-NEXT: {{^}}    vp.atomic_add(x, 1)
# CHECK-NEXT: {{^}}                  ^
# CHECK-NEXT: {{^}}  hint: write atomic_add(buf, i, value) or atomic_add(buf[i], value)
# CHECK-NOT: {{.}}
