# while with a condition region, `while True` as a loop left by break, and
# break/continue inside for and while.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

def main(out: vp.Buffer[vp.uint32]):
    i = vp.global_id()
    x = vp.var(i)
    steps = vp.var(vp.uint32(0))
    while x != 1:
        if x % 2 == 0:
            x //= 2
            continue
        x = 3 * x + 1
        steps += 1
    while True:
        steps += 1
        if steps > 1000:
            break
    for k in range(4):
        if k == 2:
            break
    out[i] = steps

# CHECK: while loc(10:5) {
# CHECK-NEXT: %[[X:[0-9]+]] = local.load @x : u32
# CHECK-NEXT: %[[ONE:[0-9]+]] = const 1 : u32
# CHECK-NEXT: %[[C:[0-9]+]] = ne %[[X]], %[[ONE]] : bool
# CHECK-NEXT: condition %[[C]]
# CHECK-NEXT: } do {
# CHECK: continue loc(13:13)
# CHECK: loop loc(16:5) {
# CHECK: break loc(19:13)
# CHECK: for %k
# CHECK: break loc(22:13)
