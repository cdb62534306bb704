# Annotated classes are structs (std430) usable as buffer elements: whole
# loads, member paths in one load or store (parts[i].pos.w), and fields of a
# struct value.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

class Particle:
    """A docstring is allowed."""
    pos: vp.vec4
    vel: vp.vec3
    mass: vp.float32

def main(parts: vp.Buffer[Particle]):
    i = vp.global_id()
    p = parts[i]
    m = p.mass
    parts[i].vel = p.vel * 0.5
    parts[i].pos.w = m + parts[i].pos.x

# CHECK: struct @Particle { pos: vec4<f32> {{.*}}, vel: vec3<f32> {{.*}}, mass: f32
# CHECK: buffer @parts : @Particle[] binding(0, 0) readwrite
# CHECK: %p = buffer.load @parts[%i] : @Particle
# CHECK-NEXT: %m = extract %p[2] : f32
# CHECK-NEXT: %[[V:[0-9]+]] = extract %p[1] : vec3<f32>
# CHECK-NEXT: %[[H:[0-9]+]] = const 0.5 : f32
# CHECK-NEXT: %[[VH:[0-9]+]] = mul %[[V]], %[[H]] : vec3<f32>
# CHECK-NEXT: buffer.store @parts[%i].vel, %[[VH]]
# CHECK-NEXT: %[[X:[0-9]+]] = buffer.load @parts[%i].pos.x : f32
# CHECK-NEXT: %[[S:[0-9]+]] = add %m, %[[X]] : f32
# CHECK-NEXT: buffer.store @parts[%i].pos.w, %[[S]]
