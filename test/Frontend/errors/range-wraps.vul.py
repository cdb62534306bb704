import vulpy as vp

def main(a: vp.Buffer[vp.int32], n: vp.int32):
    i = vp.global_id()
    for k in range(2147483640, 2147483647, 2):
        a[i] += k
    for k in range(n, 2147483647, 4):
        a[i] += k
    for k in range(-2147483640, -2147483648, -3):
        a[i] += k
    for k in range(2147483641, 2147483647, 2):
        a[i] += k
    for k in range(n, 2147483647):
        a[i] += k

# Error class: a constant range() stop whose loop would step its variable
# past the type's end (C's j += step wraps and the loop runs on; Python's
# range has no end). The last two loops stop in time.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}range-wraps.vul.py:5:32: error: range() stop 2147483647 with step 2 wraps the i32 loop variable past its maximum
# CHECK-NEXT: {{^}}    for k in range(2147483640, 2147483647, 2):
# CHECK-NEXT: {{^}}                               ^
# CHECK-NEXT: {{^}}  hint: keep the stop at least |step| - 1 inside the type's range, or use a wider type
# CHECK-NEXT: {{.*}}range-wraps.vul.py:7:23: error: range() stop 2147483647 with step 4 wraps the i32 loop variable past its maximum
# CHECK: {{.*}}range-wraps.vul.py:9:33: error: range() stop -2147483648 with step -3 wraps the i32 loop variable past its minimum
# CHECK-NOT: error
