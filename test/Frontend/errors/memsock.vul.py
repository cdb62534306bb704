import vulpy as vp

def outer(k: vp.uint32):
    pipe[k] = 1.0

def main(pipe: vp.MemSock[vp.float32], bad: vp.MemSock[vp.vec2], n: vp.uint32):
    p = vp.global_id()
    pipe[p] = 1.0
    def body(i: vp.uint32, x: vp.float32):
        pipe[p] = vp.float32(i) + x
        y = pipe[p]
        pipe.fire(body, i=1, x=2.0)
    def untyped(i):
        pipe[p] = 1.0
    def wide(d: vp.float64):
        pipe[p] = 1.0
    pipe.fire(body, 1)
    pipe.fire(nothing, i=1)
    pipe.fire(body, i=1, x=2.0, z=3)
    pipe.fire(body, i=1)
    pipe.fire(body, i=1.5, x=2.0)
    pipe.fire(untyped, i=1)
    pipe.fire(wide, d=1.0)
    pipe.fire(outer, k=n)
    pipe.fire(body, i=n, x=2.0)

# Error class: MemSock parameters, writes and fires (lib/Frontend/memsock.c).
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}memsock.vul.py:6:45: error: a MemSock's frames hold numbers (vp.float32, vp.int32, ...), not vec2<f32>
# CHECK-NEXT: {{^}}def main(pipe: vp.MemSock[vp.float32], bad: vp.MemSock[vp.vec2], n: vp.uint32):
# CHECK-NEXT: {{^}}                                            ^
# CHECK-NEXT: {{.*}}memsock.vul.py:8:5: error: MemSock 'pipe' is written only inside a fire body
# CHECK-NEXT: {{^}}    pipe[p] = 1.0
# CHECK-NEXT: {{^}}    ^
# CHECK-NEXT: {{^}}  hint: write the frame in a function and fire it: pipe.fire(body, field=value)
# CHECK-NEXT: {{.*}}memsock.vul.py:17:5: error: pipe.fire takes the body function and the payload by keyword: pipe.fire(body, field=value, ...)
# CHECK-NEXT: {{^}}    pipe.fire(body, 1)
# CHECK-NEXT: {{^}}    ^
# CHECK-NEXT: {{.*}}memsock.vul.py:18:15: error: pipe.fire's first argument must name a function defined in the kernel or at module level (the fire body)
# CHECK-NEXT: {{^}}    pipe.fire(nothing, i=1)
# CHECK-NEXT: {{^}}              ^
# CHECK-NEXT: {{.*}}memsock.vul.py:19:33: error: pipe.fire: 'z' is not a payload field of body()
# CHECK-NEXT: {{^}}    pipe.fire(body, i=1, x=2.0, z=3)
# CHECK-NEXT: {{^}}                                ^
# CHECK-NEXT: {{.*}}memsock.vul.py:20:5: error: pipe.fire: payload field 'x' has no value (pass x=...)
# CHECK-NEXT: {{^}}    pipe.fire(body, i=1)
# CHECK-NEXT: {{^}}    ^
# CHECK-NEXT: {{.*}}memsock.vul.py:21:23: error: payload field 'i': float literal 1.5 where u32 is expected
# CHECK-NEXT: {{^}}    pipe.fire(body, i=1.5, x=2.0)
# CHECK-NEXT: {{^}}                      ^
# CHECK-NEXT: {{^}}  hint: the value must be u32 here: write an integer, or convert: vp.uint32(...)
# CHECK-NEXT: {{.*}}memsock.vul.py:13:17: error: payload field 'i' has no type
# CHECK-NEXT: {{^}}    def untyped(i):
# CHECK-NEXT: {{^}}                ^
# CHECK-NEXT: {{^}}  hint: annotate it: i: vp.uint32 (payload fields are 32-bit numbers)
# CHECK-NEXT: {{.*}}memsock.vul.py:15:17: error: payload field 'd' is f64; payload fields are vp.uint32, vp.int32 or vp.float32
# CHECK-NEXT: {{^}}    def wide(d: vp.float64):
# CHECK-NEXT: {{^}}                ^
# CHECK-NEXT: {{.*}}memsock.vul.py:11:13: error: MemSock 'pipe' is write-only in a kernel (the host reads it)
# CHECK-NEXT: {{^}}        y = pipe[p]
# CHECK-NEXT: {{^}}            ^
# CHECK-NEXT: {{.*}}memsock.vul.py:12:9: error: a fire inside a fire body
# CHECK-NEXT: {{^}}        pipe.fire(body, i=1, x=2.0)
# CHECK-NEXT: {{^}}        ^
# CHECK-NOT: {{.}}
