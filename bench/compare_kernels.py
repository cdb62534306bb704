"""The VulPy kernels of bench_compare.py, in a module of their own: VulPy's
frontend resolves `vp` through the function's module, so this module
imports vulpy, and bench_compare imports it only once VulPy is usable."""
import vulpy as vp


def vk_copy(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32]):
    i = vp.global_id()
    y[i] = x[i]


def vk_sinexp(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32]):
    i = vp.global_id()
    y[i] = vp.sin(x[i]) + vp.exp(x[i])


def vk_copy4(x: vp.Buffer[vp.vec4], y: vp.Buffer[vp.vec4]):
    i = vp.global_id()
    y[i] = x[i]


def vk_sinexp4(x: vp.Buffer[vp.vec4], y: vp.Buffer[vp.vec4]):
    i = vp.global_id()
    v = x[i]
    y[i] = vp.sin(v) + vp.exp(v)


def vk_tiny(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32], a: vp.float32):
    i = vp.global_id()
    y[i] = a * x[i]
