# The seed's kernel decorator example (push_particles), as a file.
import vulpy as vp


@vp.kernel(local_size_x=64)
def push_particles(
    pos: vp.Buffer[vp.vec4],
    vel: vp.Buffer[vp.vec4],
    n:   vp.uint32,
    dt:  vp.float32,
):
    i    = vp.global_id()
    x    = vp.var(pos[i].xyz)
    v    = vp.var(vel[i].xyz)
    x[:] = x + v * dt
    pos[i] = vp.vec4(x, pos[i].w)
