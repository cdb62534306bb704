import vulpy as vp

def main(pipe: vp.MemSock[vp.float32], n: vp.uint32, src: vp.Buffer[vp.float32]):
    p = vp.global_id()
    def body(i: vp.uint32):
        pipe[p] = 1.0
    for k in range(n):
        pipe.fire(body, i=k)
    if p < n:
        pipe.fire(body, i=p)
    m = src[0]
    if m > 1.0:
        pipe.fire(body, i=1)

# The fires' control flow must be the same in every invocation: conditions
# on push constants and loop counters with such bounds are; conditions on
# invocation ids or memory are not (lower-memsock's check, with places).
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=glsl - 2>&1 | FileCheck %s
# CHECK-NOT: memsock-divergent.vul.py:8
# CHECK: memsock-divergent.vul.py:10:9: error: pipe.fire inside control flow that differs between invocations: every invocation of the grid must reach each fire
# CHECK: hint: fire under conditions on push constants, constants and loop counters with such bounds; guard the body's stores instead
# CHECK: memsock-divergent.vul.py:13:9: error: pipe.fire inside control flow that differs
