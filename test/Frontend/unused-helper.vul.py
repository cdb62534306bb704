# A helper the kernel never calls is checked but leaves nothing behind: not
# itself, not the specializations of other helpers it calls, not the
# module constants it reads; the buffers' access is the kernel's alone.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

SCALE = 3.0

def sq(x):
    return x * x

def unused(a, out):
    out[0] = sq(SCALE) + sq(2.0)
    return a

def main(inp: vp.Buffer[vp.float32], out: vp.Buffer[vp.float32]):
    i = vp.global_id().x
    out[i] = sq(inp[i])

# CHECK: buffer @inp : f32[] binding(0, 0) readonly
# CHECK-NEXT: buffer @out : f32[] binding(0, 1) writeonly
# CHECK-NOT: const @SCALE
# CHECK-LABEL: kernel @main
# CHECK-LABEL: func @sq(%x: f32) -> f32
# CHECK-NOT: func
# CHECK-NOT: unused
