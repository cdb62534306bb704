import vulpy as vp

def main(a: vp.Buffer[vp.int32], n: vp.uint32):
    i = vp.global_id()
    if i - 5 < 0:
        a[i] = 1
    if 0 <= n - i:
        a[i] = 2
    if vp.int32(i) - 5 < 0:
        a[i] = 3
    if i > 0:
        a[i] = 4

# An ordered comparison of an unsigned value with the literal 0 that cannot
# go either way (x < 0, 0 > x: never; x >= 0, 0 <= x: always) is a warning:
# Python's `i - 5` goes negative, a uint32 wraps. Signed operands and
# `i > 0` are meaningful and get none.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir - 2>&1 >/dev/null | FileCheck --strict-whitespace %s
# CHECK: {{.*}}unsigned-compare.vul.py:5:8: warning: this comparison of an unsigned value (u32) with 0 is always False: unsigned integers wrap below 0 instead of going negative
# CHECK-NEXT: {{^}}    if i - 5 < 0:
# CHECK-NEXT: {{^}}       ^
# CHECK-NEXT: {{^}}  hint: compare in a signed type, e.g. vp.int32(i) - 5 < 0, or compare before subtracting: i < 5
# CHECK-NEXT: {{.*}}unsigned-compare.vul.py:7:8: warning: this comparison of an unsigned value (u32) with 0 is always True
# CHECK-NEXT: {{^}}    if 0 <= n - i:
# CHECK-NEXT: {{^}}       ^
# CHECK-NEXT: {{^}}  hint: compare in a signed type, e.g. vp.int32(i) - 5 < 0, or compare before subtracting: i < 5
# CHECK-NOT: {{.}}
