# Float math: the transcendental and rounding built-ins the back ends print
# differently (GLSL built-ins vs CUDA's sinf/expf/...), float32.
import vulpy as vp


def main(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32]):
    i = vp.global_id()
    v = x[i]
    a = vp.sin(v) * vp.cos(v) + vp.exp(-v * v) + vp.sqrt(vp.abs(v))
    b = vp.tanh(v) + vp.log(1.0 + v * v) + vp.atan2(v, 1.5) + vp.floor(v * 3.0) * 0.25
    c = vp.fma(v, 0.5, 1.0) + vp.clamp(v, -0.5, 0.5) + vp.pow(vp.abs(v) + 1.0, 1.5)
    y[i] = a + b - vp.mix(c, a, 0.25)
