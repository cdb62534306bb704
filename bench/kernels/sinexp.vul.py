# The benchmark's kernel, y = sin(x) + exp(x), float32: its CUDA translation
# is timed against the Vulkan dispatch of the same VIR at a large size.
import vulpy as vp


@vp.kernel(local_size_x=256)
def sinexp(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32]):
    i = vp.global_id()
    y[i] = vp.sin(x[i]) + vp.exp(x[i])
