# Structs built by calling their class: fields by name (any order) or in
# order, each converted to its field's type (literals adapt); the value is a
# `construct`, stored whole, read by field.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=glsl --no-dispatch-guard - | FileCheck %s --check-prefix=GLSL
import vulpy as vp

class Particle:
    pos: vp.vec4
    mass: vp.float32
    id: vp.uint32

def main(parts: vp.Buffer[Particle]):
    i = vp.global_id().x
    p = parts[i]
    q = Particle(mass=1, pos=p.pos * 2.0, id=i)
    r = Particle(q.pos, q.mass + 1.0, 7)
    parts[i] = r
    parts[i + 1] = Particle(vp.vec4(0.0), r.mass, i)

# CHECK-LABEL: kernel @main
# CHECK: %[[POS:[0-9]+]] = mul %{{[0-9]+}}, %{{[0-9]+}} : vec4<f32> loc(16:30)
# CHECK: %[[ONE:[0-9]+]] = const 1.0 : f32 loc(16:23)
# CHECK: %q = construct %[[POS]], %[[ONE]], %i : @Particle loc(16:9)
# CHECK: %[[M:[0-9]+]] = add %{{[0-9]+}}, %{{[0-9]+}} : f32 loc(17:25)
# CHECK: %[[SEVEN:[0-9]+]] = const 7 : u32 loc(17:39)
# CHECK: %r = construct %{{[0-9]+}}, %[[M]], %[[SEVEN]] : @Particle loc(17:9)
# CHECK: buffer.store @parts[%i], %r loc(18:5)
# CHECK: %[[C:[0-9]+]] = construct %{{[0-9]+}}, %{{[0-9]+}}, %i : @Particle loc(19:20)
# CHECK: buffer.store @parts[%{{[0-9]+}}], %[[C]] loc(19:5)

# GLSL: Particle q = Particle(p.pos * 2.0, 1.0, i);
