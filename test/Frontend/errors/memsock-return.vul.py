import vulpy as vp

def main(pipe: vp.MemSock[vp.float32], n: vp.uint32):
    p = vp.global_id()
    if p >= n:
        return
    def body(i: vp.uint32):
        pipe[p] = 1.0
    pipe.fire(body, i=p)

# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=glsl - 2>&1 | FileCheck %s
# CHECK: memsock-return.vul.py:9:5: error: pipe.fire after a return that only some invocations take (line 6): every invocation of the grid must reach each fire
# CHECK: hint: guard the work with if instead of returning early
