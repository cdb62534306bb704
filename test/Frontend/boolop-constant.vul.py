# `and` / `or` whose left side the frontend folds to a constant (a module
# constant's test, a literal) short-circuit at compile time, as Python's do
# at run time: `True or x` and `False and x` are the constant (x is dropped
# after it is translated: errors/boolop-constant-dead.vul.py), `True and x`
# and `False or x` are x. An `if` on the first pair then keeps only the
# branch it takes (if-constant.vul.py); a right side that loads is not run
# twice. A constant right side decides nothing: `x or True` keeps x.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=glsl --no-dispatch-guard - | FileCheck %s --check-prefix=GLSL
import vulpy as vp

FULL = 1
SAFE = False

def main(out: vp.Buffer[vp.float32], m: vp.uint32):
    i = vp.global_id()
    if FULL != 0 or i < m:
        out[i] = 1.0
    if SAFE and out[i] > 0.0:
        out[i] = 2.0
    if FULL == 1 and i < m:
        out[i] = 3.0
    if SAFE or out[i] > 4.0:
        out[i] = 5.0
    if i < m or True:
        out[i] = 6.0

# CHECK-LABEL: kernel @main
# CHECK-NOT: push.load @pc.m
# CHECK: %[[ONE:[0-9]+]] = const 1.0 : f32
# CHECK-NEXT: buffer.store @out[%i], %[[ONE]]
# CHECK-NOT: 2.0
# CHECK: %[[M:[0-9]+]] = push.load @pc.m : u32
# CHECK-NEXT: %[[C:[0-9]+]] = lt %i, %[[M]] : bool
# CHECK-NEXT: if %[[C]]
# CHECK-NEXT: const 3.0
# CHECK: %[[X:[0-9]+]] = buffer.load @out[%i] : f32
# CHECK-NEXT: %[[F:[0-9]+]] = const 4.0 : f32
# CHECK-NEXT: %[[G:[0-9]+]] = gt %[[X]], %[[F]] : bool
# CHECK-NEXT: if %[[G]]
# CHECK-NEXT: const 5.0
# CHECK: push.load @pc.m
# CHECK: lor
# CHECK: const 6.0

# GLSL-LABEL: void main() {
# GLSL-NOT: true
# GLSL-NOT: false
# GLSL: out_[i] = 1.0;
# GLSL-NOT: 2.0
# GLSL: if (i < pc.m) {
# GLSL: out_[i] = 3.0;
# GLSL: if (out_[i] > 4.0) {
