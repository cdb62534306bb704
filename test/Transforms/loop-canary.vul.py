# loop-canary: lavapipe ends an invocation's loops silently after 65,535
# back-edges in all. A kernel whose loops may take that many (a runtime
# trip count, a while loop, a long constant one) gets a canary before every
# return and at the end of its body: a loop of _vp_assert[15] trips (the
# host writes 2) counted into a local; a short count claims the record with
# the kernel's line and writes kind 8. A kernel with short constant loops
# only is unchanged (no record).
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - > %t.vir
# RUN: vulpy-opt --loop-canary %t.vir | FileCheck %s
# RUN: vulpy-opt --loop-canary %t.vir > %t2.vir
# RUN: vulpy-translate --from=vir --to=glsl %t2.vir | FileCheck %s --check-prefix=GLSL
import vulpy as vp

def main(a: vp.Buffer[vp.float32], out: vp.Buffer[vp.float32], n: vp.int32):
    acc = 0.0
    if n < 0:
        return
    for j in range(n):
        acc += a[j]
    out[0] = acc

# CHECK: buffer @_vp_assert : u32[] binding(0, 2) readwrite
# CHECK-LABEL: kernel @main
# the early return: the canary before it
# CHECK: if %{{[0-9]+}} loc(16:5) {
# CHECK-NEXT: %[[W15:[0-9]+]] = const 15 : u32 loc(14:1)
# CHECK-NEXT: %[[N:[0-9]+]] = buffer.load @_vp_assert[%[[W15]]] : u32 loc(14:1)
# CHECK-NEXT: %[[Z:[0-9]+]] = const 0 : u32
# CHECK-NEXT: local.store @_vp_loop_canary, %[[Z]]
# CHECK: for %{{[0-9]+}} = %{{[0-9]+}} to %[[N]] step %{{[0-9]+}}
# CHECK: add %{{[0-9]+}}, %{{[0-9]+}} : u32
# CHECK: }
# CHECK-NEXT: %[[C:[0-9]+]] = local.load @_vp_loop_canary : u32
# CHECK-NEXT: %[[CUT:[0-9]+]] = ne %[[C]], %[[N]] : bool
# CHECK-NEXT: if %[[CUT]]
# CHECK: %[[LINE:[0-9]+]] = const 14 : u32
# CHECK-NEXT: %[[OLD:[0-9]+]] = atomic.cmpxchg @_vp_assert[%{{[0-9]+}}], %{{[0-9]+}}, %[[LINE]] device relaxed : u32
# CHECK: eq %[[OLD]], %{{[0-9]+}} : bool
# CHECK: %[[KIND:[0-9]+]] = const 8 : u32
# CHECK-NEXT: %[[W2:[0-9]+]] = const 2 : u32
# CHECK-NEXT: buffer.store @_vp_assert[%[[W2]]], %[[KIND]]
# CHECK: return
# the user's loop, then the canary at the end of the body
# CHECK: for %j = %{{[0-9]+}} to %{{[0-9]+}} step %{{[0-9]+}}
# CHECK: buffer.store @out
# CHECK-NEXT: const 15 : u32
# CHECK-NEXT: buffer.load @_vp_assert
# CHECK: atomic.cmpxchg @_vp_assert
# GLSL: _vp_assert
# GLSL: for (

