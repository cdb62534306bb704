# Methods of struct classes: a helper with self first, named Class_method.
# A method that changes self returns the new self and the call stores it
# back where the object came from (a buffer element, a local); a method
# that only reads self takes it by value; Class.method(obj) works too;
# structs are locals and helper arguments.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

class Particle:
    pos: vp.vec2
    vel: vp.vec2
    mass: vp.float32

    def step(self, dt):
        self.vel.y -= 9.81 * dt
        self.pos += self.vel * dt

    def energy(self):
        return 0.5 * self.mass * vp.dot(self.vel, self.vel)

def scaled(p: Particle, k):
    return Particle(p.pos, p.vel, p.mass * k)

def main(p: vp.Buffer[Particle], e: vp.Buffer[vp.float32], dt: vp.float32):
    i = vp.global_id()
    p[i].step(dt)
    q = scaled(p[i], 2.0)
    q.step(dt)
    e[i] = q.energy() + Particle.energy(p[i])

# CHECK-LABEL: kernel @main
# CHECK: local @q : @Particle
# CHECK: %[[P:[0-9]+]] = buffer.load @p[%i] : @Particle
# CHECK-NEXT: %[[DT:[0-9]+]] = push.load @pc.dt : f32
# CHECK-NEXT: %[[NEW:[0-9]+]] = call @Particle_step(%[[P]], %[[DT]]) : @Particle
# CHECK-NEXT: buffer.store @p[%i], %[[NEW]]
# CHECK: call @scaled(
# CHECK: local.store @q,
# CHECK: %[[Q:[0-9]+]] = local.load @q : @Particle
# CHECK: %[[NQ:[0-9]+]] = call @Particle_step(%[[Q]], %{{[0-9]+}}) : @Particle
# CHECK-NEXT: local.store @q, %[[NQ]]
# CHECK: call @Particle_energy(%{{[0-9]+}}) : f32
# CHECK: call @Particle_energy(%{{[0-9]+}}) : f32
# CHECK-LABEL: func @Particle_step(%self: @Particle, %dt: f32) -> @Particle
# CHECK: local.store @self, %self
# CHECK: local.store @self.vel.y,
# CHECK: local.store @self.pos,
# CHECK: %[[S:[0-9]+]] = local.load @self : @Particle
# CHECK-NEXT: return %[[S]]
# CHECK-LABEL: func @Particle_energy(%self: @Particle) -> f32
# CHECK: extract %self[2] : f32
