# if / elif / else: an elif is an if in the else region; a number as a
# condition is compared with zero (Python's truth test); pass is nothing.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

def main(out: vp.Buffer[vp.int32]):
    i = vp.global_id()
    r = vp.var(0)
    if i < 10:
        r = 1
    elif i < 20:
        r = 2
    else:
        pass
    if i % 2:
        r += 10
    out[i] = r

# CHECK: %[[C1:[0-9]+]] = lt %i, %{{[0-9]+}} : bool
# CHECK-NEXT: if %[[C1]] loc(9:5) {
# CHECK-NEXT: %[[ONE:[0-9]+]] = const 1 : i32
# CHECK-NEXT: local.store @r, %[[ONE]]
# CHECK-NEXT: } else {
# CHECK-NEXT: %[[TWENTY:[0-9]+]] = const 20 : u32
# CHECK-NEXT: %[[C2:[0-9]+]] = lt %i, %[[TWENTY]] : bool
# CHECK-NEXT: if %[[C2]] loc(11:5) {
# CHECK-NEXT: %[[TWO:[0-9]+]] = const 2 : i32
# CHECK-NEXT: local.store @r, %[[TWO]]
# CHECK-NEXT: }
# CHECK-NEXT: }
# CHECK: %[[M:[0-9]+]] = mod %i, %{{[0-9]+}} : u32
# CHECK-NEXT: %[[Z:[0-9]+]] = const 0 : u32
# CHECK-NEXT: %[[T:[0-9]+]] = ne %[[M]], %[[Z]] : bool
# CHECK-NEXT: if %[[T]]
