"""The kernel of vp.convolve / vp.correlate (_convolve.py), in VulPy's own
kernel language: one invocation per output element, a dot product of the
overlap of `a` and `v` (direct convolution, O(len(a) * len(v)) work). The
output element k is element k + shift of the full convolution
full[i] = sum_j a[i - j] * v[j]; a call sums the taps j in [j0, j1) and,
with acc, adds what `out` holds (the caller splits long sums into such
windows), for the outputs from k0 on (the caller dispatches at most 65,535
workgroups of 64 at a time, what every device takes in x). Loops: at most
j1 - j0 back-edges an invocation (lavapipe ends
an invocation's loops after 65,535 in all, which the caller's windows
stay under; a cut loop would raise vp.KernelError: LOOP_CANARY)."""
import vulpy as vp

# len(v) comes with the call: checked on lavapipe like a user kernel's loops
# (_kernel.py, PyKernel; lib/Transforms/loop_canary.c)
LOOP_CANARY = True


@vp.kernel(local_size_x=64)
def conv_f32(a: vp.Buffer[vp.float32], v: vp.Buffer[vp.float32], out: vp.Buffer[vp.float32],
             na: vp.uint32, nv: vp.uint32, nout: vp.uint32, shift: vp.uint32,
             j0: vp.uint32, j1: vp.uint32, acc: vp.uint32, k0: vp.uint32):
    k = vp.global_id() + k0
    if k >= nout:
        return
    i = k + shift
    lo = j0
    if i + 1 > na + lo:
        lo = i + 1 - na
    hi = min(j1, i + 1)
    s = vp.float32(0.0)
    for j in range(lo, hi):
        s += a[i - j] * v[j]
    if acc != 0:
        s += out[k]
    out[k] = s


@vp.kernel(local_size_x=64)
def conv_f64(a: vp.Buffer[vp.float64], v: vp.Buffer[vp.float64], out: vp.Buffer[vp.float64],
             na: vp.uint32, nv: vp.uint32, nout: vp.uint32, shift: vp.uint32,
             j0: vp.uint32, j1: vp.uint32, acc: vp.uint32, k0: vp.uint32):
    k = vp.global_id() + k0
    if k >= nout:
        return
    i = k + shift
    lo = j0
    if i + 1 > na + lo:
        lo = i + 1 - na
    hi = min(j1, i + 1)
    s = vp.float64(0.0)
    for j in range(lo, hi):
        s += a[i - j] * v[j]
    if acc != 0:
        s += out[k]
    out[k] = s
