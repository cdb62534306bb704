import vulpy as vp

MODE = 1

def main(a: vp.Buffer[vp.float32], n: vp.uint32):
    i = vp.global_id()
    if i < n:
        y = 5.0
    a[i] = y
    a[i] += y
    for k in range(n):
        z = a[k]
    a[i] = z
    if MODE == 2:
        w = 1.0
    a[i] = w
    both = 0.0
    if i < 3:
        e = 1.0
    else:
        e = 2.0
    a[i] = e
    if i < 4:
        r = 1.0
    else:
        return
    a[i] = r
    while True:
        t = a[i]
        if t > 0.0:
            break
    a[i] = t
    u: vp.float32
    a[i] = u
    s = 0.0
    while s < 4.0:
        s += 1.0
        q = s
    a[i] = q

# A name read where, on some path, no assignment to it ran: a warning at its
# first read (Python raises UnboundLocalError there); `e` (both branches),
# `r` (the other branch returns) and `t` (assigned before the loop's only
# break) are assigned on every path and get none.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir - 2>&1 >/dev/null | FileCheck --strict-whitespace %s
# CHECK: {{.*}}unassigned.vul.py:9:12: warning: 'y' may be read before it is assigned: on a path to this read no assignment to it runs (Python raises UnboundLocalError there; the GPU reads an undefined value)
# CHECK-NEXT: {{^}}    a[i] = y
# CHECK-NEXT: {{^}}           ^
# CHECK-NEXT: {{^}}  hint: assign 'y' before the branch or loop that sets it
# CHECK-NEXT: {{.*}}unassigned.vul.py:13:12: warning: 'z' may be read before it is assigned
# CHECK: {{.*}}unassigned.vul.py:16:12: warning: 'w' may be read before it is assigned
# CHECK: {{.*}}unassigned.vul.py:34:12: warning: 'u' may be read before it is assigned
# CHECK: {{.*}}unassigned.vul.py:39:12: warning: 'q' may be read before it is assigned
# CHECK-NEXT: {{^}}    a[i] = q
# CHECK-NEXT: {{^}}           ^
# CHECK-NEXT: {{^}}  hint: assign 'q' before the branch or loop that sets it
# CHECK-NOT: {{.}}
