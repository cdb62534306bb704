# loop-canary leaves a kernel alone whose loops are all constant and short
# (below the 65,000 back-edges it allows): no canary, no record.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - > %t.vir
# RUN: vulpy-opt --loop-canary %t.vir | FileCheck %s
import vulpy as vp

def main(a: vp.Buffer[vp.float32], out: vp.Buffer[vp.float32]):
    acc = 0.0
    for j in range(100):
        for k in range(600):
            acc += a[j + k]
    out[0] = acc

# CHECK-NOT: _vp_assert
# CHECK-NOT: _vp_loop_canary
# CHECK: kernel @main
# CHECK-NOT: _vp_assert
