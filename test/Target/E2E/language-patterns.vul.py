# The GLSL of the kernel-language patterns (docs/language.md): Python's math
# and round, a helper returning a tuple (a struct), a loop unrolled over a
# module tuple, a private array, a struct method that changes self.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=glsl - | FileCheck %s
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=spirv - -o %t.spv
import math
import vulpy as vp

W = (0.25, 0.5, 0.25)

class Body:
    pos: vp.vec2
    vel: vp.vec2

    def step(self, dt):
        self.pos += self.vel * dt

def split(x):
    return vp.floor(x), x - vp.floor(x)

def main(a: vp.Buffer[vp.float32], b: vp.Buffer[Body], k: vp.Buffer[vp.int32], dt: vp.float32):
    i = vp.global_id()
    hi, lo = split(a[i])
    acc = vp.var(0.0)
    for j, w in enumerate(W):
        acc += w * a[i + j]
    h = vp.Local[vp.int32, 4]
    h[k[i]] += 1
    b[i].step(dt)
    k[i] = round(acc * math.pi) + h[0]
    a[i] = hi + lo

# CHECK: struct _vp_ret_split {
# CHECK-NEXT:   float _0;
# CHECK-NEXT:   float _1;
# CHECK-NEXT: };
# CHECK: _vp_ret_split split(float x) {
# CHECK:   return _vp_ret_split(vp_floorf(x), x - vp_floorf(x));
# CHECK: Body Body_step(Body self, float dt) {
# CHECK:   self_{{[0-9]+}}.pos = self_{{[0-9]+}}.pos + self_{{[0-9]+}}.vel * dt;
# CHECK:   return self_{{[0-9]+}};
# CHECK: void main() {
# CHECK:   _vp_ret_split [[T:t[0-9]+]] = split(a[i]);
# CHECK-NEXT:   float hi = [[T]]._0;
# CHECK-NEXT:   float lo = [[T]]._1;
# CHECK:   acc = acc + 0.25 * a[i + 0u];
# CHECK-NEXT:   acc = acc + 0.5 * a[i + 1u];
# CHECK-NEXT:   acc = acc + 0.25 * a[i + 2u];
# CHECK:   int h[4];
# CHECK-NEXT:   for (uint [[L:t[0-9]+]] = 0u; [[L]] < 4u; [[L]]++) {
# CHECK-NEXT:     h[[[L]]] = 0;
# CHECK-NEXT:   }
# CHECK:   int [[X:t[0-9]+]] = clamp(k[i], 0, 3);
# CHECK-NEXT:   h[[[X]]] = h[[[X]]] + 1;
# CHECK:   b[i] = Body_step(b[i], pc.dt);
# CHECK:   k[i] = int(roundEven(acc * 3.1415927)) + h[0u];
