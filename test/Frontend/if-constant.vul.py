# An `if` whose condition the frontend folds to a constant (a module-level
# constant, a comparison of constants, a literal) keeps only the branch it
# takes, in its place: no `if (false)` in the VIR or the GLSL. Both branches
# are still checked (errors/if-constant-dead.vul.py). A taken branch that
# ends in a return keeps its `if`: what follows would be code that never runs.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=glsl --no-dispatch-guard - | FileCheck %s --check-prefix=GLSL
import vulpy as vp

DEBUG = False
MODE = 2

def main(out: vp.Buffer[vp.float32], n: vp.uint32):
    i = vp.global_id()
    if DEBUG:
        out[i] = 100.0
    if MODE == 2:
        out[i] = 2.0
    elif MODE == 3:
        out[i] = 3.0
    else:
        y = 5.0
        out[i] = y
    if not DEBUG:
        out[i] += 1.0
    else:
        out[i] += 7.0
    if i < n:
        if MODE != 2:
            out[i] = 9.0
    if True:
        return
    out[i] = 4.0

# CHECK-LABEL: kernel @main
# CHECK-NOT: local @y
# CHECK-NOT: const false
# CHECK-NOT: 100.0
# CHECK: %[[TWO:[0-9]+]] = const 2.0 : f32
# CHECK-NEXT: buffer.store @out[%i], %[[TWO]]
# CHECK-NOT: 3.0
# CHECK-NOT: 5.0
# CHECK: const 1.0 : f32
# CHECK-NOT: 7.0
# CHECK: %[[N:[0-9]+]] = push.load @pc.n : u32
# CHECK-NEXT: %[[C:[0-9]+]] = lt %i, %[[N]] : bool
# CHECK-NEXT: if %[[C]] loc(28:5) {
# CHECK-NEXT: }
# CHECK-NEXT: %[[T:[0-9]+]] = const true : bool
# CHECK-NEXT: if %[[T]] loc(31:5) {
# CHECK-NEXT: return
# CHECK-NEXT: }
# CHECK-NEXT: const 4.0
# CHECK-NEXT: buffer.store @out[%i]
# CHECK-NEXT: }

# GLSL-LABEL: void main() {
# GLSL-NOT: if (false)
# GLSL-NOT: 100.0
# GLSL: out_[i] = 2.0;
# GLSL-NEXT: // if-constant.vul.py:25
# GLSL-NEXT: out_[i] = out_[i] + 1.0;
# GLSL-NOT: 3.0
# GLSL-NOT: 7.0
# GLSL: if (true) {
# GLSL-NEXT: // if-constant.vul.py:32
# GLSL-NEXT: return;
# GLSL-NEXT: }
