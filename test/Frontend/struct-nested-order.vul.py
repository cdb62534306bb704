# A struct whose field is another struct class declared later in the
# source: the module declares the inner struct first (the GLSL, CUDA and HIP
# printed from it need types before their use).
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

class Outer:
    x: vp.float32
    inner: Inner

class Inner:
    a: vp.float32
    b: vp.vec2

def main(o: vp.Buffer[Outer]):
    i = vp.global_id()
    o[i].inner.a = o[i].x

# CHECK: struct @Inner { a: f32 {{.*}}, b: vec2<f32>
# CHECK-NEXT: struct @Outer { x: f32 {{.*}}, inner: @Inner
