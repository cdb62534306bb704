"""vp.convolve and vp.correlate (issue 19): NumPy's 1-D discrete linear
convolution and cross-correlation on the device, by a direct kernel
(_convolve_kernels.py: one invocation an output element). Modes 'full',
'same' and 'valid' select NumPy's slices of the full result (correlate's
'same' is centred as NumPy centres it, which differs from convolve's when
v is the longer). float32 stays float32; float64 (and integer and bool
input, as float64 sums: exact while they stay below 2^53, then cast to
NumPy's result dtype) needs the device's float64. Complex input is a
TypeError. Resident in -> resident out; NumPy in -> NumPy's function."""
import numpy as np

from . import _array, _shapeops

_nd = _array.ndarray
_res = _shapeops._resident
_MODES = ("full", "same", "valid")

# the most taps one dispatch sums on a device that cuts long loops
# (ctx.limits['max_loop_iterations'], lavapipe: 65,535 back-edges an
# invocation, some of them the loop canary's); tests set a small one
TAPS_PER_CALL = 32768


def _run(name, a, v, mode, shift_same):
    ctx = _array.common_context(f"vp.{name}", (a, v))
    a = a if isinstance(a, _nd) else _array.asarray(np.asarray(a), context=ctx)
    v = v if isinstance(v, _nd) else _array.asarray(np.asarray(v), context=ctx)
    if mode not in _MODES:
        raise ValueError(f"vp.{name}: mode must be one of 'full', 'same', 'valid', "
                         f"got {mode!r}")
    if name == "convolve":  # numpy.convolve takes 0-d operands as 1-D (correlate does not)
        a, v = (x.reshape(1) if x.ndim == 0 else x for x in (a, v))
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError(f"vp.{name}: object too deep for desired array (a and v must be "
                         f"1-D, got shapes {a.shape} and {v.shape})")
    if a.size == 0:
        raise ValueError(f"vp.{name}: a cannot be empty")
    if v.size == 0:
        raise ValueError(f"vp.{name}: v cannot be empty")
    want = np.result_type(a.dtype, v.dtype)
    if want.kind == "c":
        raise TypeError(f"vp.{name}: complex input is not supported (complex arrays do "
                        f"arithmetic only); convolve .real and .imag separately")
    work = np.dtype(np.float32) if want == np.float32 else np.dtype(np.float64)
    if work == np.float64 and "float64" not in ctx.info["features"]:
        raise TypeError(f"vp.{name}: {want} input is computed in float64, which this device "
                        f"lacks; convert to float32 first")
    from . import _convolve_kernels as K
    na, nv = a.size, v.size
    full = na + nv - 1
    if mode == "full":
        nout, shift = full, 0
    elif mode == "same":
        nout, shift = max(na, nv), shift_same(na, nv)
    else:
        nout, shift = max(na, nv) - min(na, nv) + 1, min(na, nv) - 1
    x = (a if a.dtype == work else a.astype(work))
    y = (v if v.dtype == work else v.astype(work))
    x = x if x.contiguous else x.copy()
    y = y if y.contiguous else y.copy()
    if nv > na:  # full[i] is symmetric in a and v: the taps loop over the shorter
        x, y, na, nv = y, x, nv, na
    out = _array.empty((nout,), work, context=ctx)
    kern = K.conv_f32 if work == np.float32 else K.conv_f64
    # windows of taps [j0, j1), each a dispatch adding to `out`, so that no
    # invocation loops past the device's budget (lavapipe: 65,535
    # back-edges; a direct sum of 70000 taps raised vp.KernelError)
    step = nv if ctx.limits.get("max_loop_iterations") is None else TAPS_PER_CALL
    block = 65535 * 64  # outputs a dispatch (the x workgroup count every device takes)
    for j0 in range(0, nv, step):
        for k0 in range(0, nout, block):
            kern(x, y, out, na=na, nv=nv, nout=nout, shift=shift, j0=j0,
                 j1=min(nv, j0 + step), acc=int(j0 > 0), k0=k0, dispatch=min(block, nout - k0),
                 context=ctx)
    return out if out.dtype == want else out.astype(want)


def convolve(a, v, mode="full"):
    """vp.convolve(a, v, mode='full'): numpy.convolve on the device: the
    discrete linear convolution of two 1-D arrays, (a * v)[n] =
    sum_m a[m] v[n - m]; mode 'full' (length len(a) + len(v) - 1), 'same'
    (max(len(a), len(v)), centred as NumPy) or 'valid' (where they overlap
    fully). A direct kernel, O(len(a) * len(v)); sums in float32 for
    float32 input, else float64 (the device's float64; integer results
    exact below 2^53). The summation order differs from NumPy's: results
    agree to rounding.

        >>> vp.convolve(vp.asarray([1.0, 2.0, 3.0]), vp.asarray([0.0, 1.0, 0.5])).tolist()
        [0.0, 1.0, 2.5, 4.0, 1.5]"""
    if not _res(a, v):
        return np.convolve(a, v, mode)
    return _run("convolve", a, v, mode, lambda na, nv: (min(na, nv) - 1) // 2)


def correlate(a, v, mode="valid"):
    """vp.correlate(a, v, mode='valid'): numpy.correlate on the device: the
    cross-correlation c[k] = sum_n a[n + k] v[n] of two 1-D real arrays,
    NumPy's modes and centring ('valid' by default); the convolution of a
    with v reversed, by the same kernel (see vp.convolve)."""
    if not _res(a, v):
        return np.correlate(a, v, mode)
    if isinstance(v, _nd) and v.ndim == 1:
        vr = v[::-1]
    else:
        vr = np.asarray(v)[::-1] if np.ndim(v) == 1 else v
    return _run("correlate", a, vr, mode,
                lambda na, nv: (nv - 1) // 2 if na >= nv else na // 2)
