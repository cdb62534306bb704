# return in a kernel is an early exit of the invocation (also from inside a
# loop); code after it in the same block is reported as never run.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - 2>&1 | FileCheck %s
import vulpy as vp

def main(out: vp.Buffer[vp.float32], n: vp.uint32):
    i = vp.global_id()
    if i >= n:
        return
    for k in range(8):
        if out[k] < 0.0:
            return
    out[i] = 1.0
    return
    out[i] = 2.0

# CHECK: {{.*}}return-early.vul.py:15:5: warning: this code is never run (it follows a return, break or continue)
# CHECK: if %{{[0-9]+}} loc(8:5) {
# CHECK-NEXT: return loc(9:9)
# CHECK-NEXT: }
# CHECK: for %k
# CHECK: return loc(12:13)
# CHECK: buffer.store @out[%i]
# CHECK-NEXT: return loc(14:5)
# CHECK-NEXT: }
