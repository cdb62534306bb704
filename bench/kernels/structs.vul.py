# Structs: a buffer of Particle (std430: vec3 members aligned to 16 bytes)
# updated in place; the CUDA translation must pad its struct the same way.
import vulpy as vp


class Particle:
    pos: vp.vec3
    mass: vp.float32
    vel: vp.vec3
    id: vp.uint32


class PushConstants:
    dt: vp.float32
    g: vp.float32


def main(p: vp.Buffer[Particle]):
    i = vp.global_id()
    v = p[i].vel
    v.y = v.y - pc.g * pc.dt
    p[i].vel = v
    p[i].pos = p[i].pos + v * pc.dt
    p[i].mass = p[i].mass * 0.5 + vp.float32(p[i].id)
