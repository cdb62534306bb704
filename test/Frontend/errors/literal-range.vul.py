import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    u[i] = -1
    small: vp.uint8 = 256
    big = 3000000000

# Error class: a literal that does not fit.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}literal-range.vul.py:5:12: error: store to 'u': literal -1 does not fit u32
# CHECK-NEXT: {{^}}    u[i] = -1
# CHECK-NEXT: {{^}}           ^
# CHECK-NEXT: {{^}}  hint: unsigned values cannot be negative; VulPy never wraps silently
# CHECK-NEXT: {{.*}}literal-range.vul.py:6:23: error: assignment to 'small': literal 256 does not fit u8
# CHECK-NEXT: {{^}}    small: vp.uint8 = 256
# CHECK-NEXT: {{^}}                      ^
# CHECK-NEXT: {{^}}  hint: use a wider type, e.g. vp.uint16(...)
# CHECK-NEXT: {{.*}}literal-range.vul.py:7:11: error: integer literal 3000000000 does not fit int32, the type of a literal on its own
# CHECK-NEXT: {{^}}    big = 3000000000
# CHECK-NEXT: {{^}}          ^
# CHECK-NEXT: {{^}}  hint: give it a type: vp.uint32(...), vp.int64(...) or vp.uint64(...)
# CHECK-NOT: {{.}}
