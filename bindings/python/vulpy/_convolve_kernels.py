"""The kernel of vp.convolve / vp.correlate (_convolve.py), in VulPy's own
kernel language: one invocation per output element, a dot product of the
overlap of `a` and `v` (direct convolution, O(len(a) * len(v)) work). The
output element k is element k + shift of the full convolution
full[i] = sum_j a[i - j] * v[j]. Loops: at most len(v) back-edges an
invocation (lavapipe ends an invocation's loops after 65,535 in all; the
runtime reports that as an error: LOOP_CANARY, vp.KernelError)."""
import vulpy as vp

# len(v) comes with the call: checked on lavapipe like a user kernel's loops
# (_kernel.py, PyKernel; lib/Transforms/loop_canary.c)
LOOP_CANARY = True


@vp.kernel(local_size_x=64)
def conv_f32(a: vp.Buffer[vp.float32], v: vp.Buffer[vp.float32], out: vp.Buffer[vp.float32],
             na: vp.uint32, nv: vp.uint32, nout: vp.uint32, shift: vp.uint32):
    k = vp.global_id()
    if k >= nout:
        return
    i = k + shift
    lo = vp.uint32(0)
    if i + 1 > na:
        lo = i + 1 - na
    hi = min(nv, i + 1)
    s = vp.float32(0.0)
    for j in range(lo, hi):
        s += a[i - j] * v[j]
    out[k] = s


@vp.kernel(local_size_x=64)
def conv_f64(a: vp.Buffer[vp.float64], v: vp.Buffer[vp.float64], out: vp.Buffer[vp.float64],
             na: vp.uint32, nv: vp.uint32, nout: vp.uint32, shift: vp.uint32):
    k = vp.global_id()
    if k >= nout:
        return
    i = k + shift
    lo = vp.uint32(0)
    if i + 1 > na:
        lo = i + 1 - na
    hi = min(nv, i + 1)
    s = vp.float64(0.0)
    for j in range(lo, hi):
        s += a[i - j] * v[j]
    out[k] = s
