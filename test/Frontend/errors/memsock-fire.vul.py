import vulpy as vp

def main(pipe: vp.MemSock[vp.float32], n: vp.uint32):
    p = vp.global_id()
    def kw(*, i: vp.uint32):
        pipe[p] = 1.0
    pipe.fire(kw, i=1)

# Error class: a fire body's parameters are plain (the payload fields).
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}memsock-fire.vul.py:5:5: error: a fire body takes at most 64 plain parameters, the payload fields
# CHECK-NEXT: {{^}}    def kw(*, i: vp.uint32):
# CHECK-NEXT: {{^}}    ^
# CHECK-NOT: {{.}}
