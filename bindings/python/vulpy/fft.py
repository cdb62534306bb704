"""vp.fft: numpy.fft's transforms on the device.

    x = vp.asarray(np.random.rand(1 << 20).astype(np.complex64))
    X = vp.fft.fft(x)                 # resident in, resident out
    y = vp.fft.ifft(X)                # round trip
    Y = vp.fft.rfft2(np.ones((64, 64), np.float32))   # NumPy in, NumPy out

fft, ifft, fft2, ifft2, fftn, ifftn, rfft, irfft, rfft2, irfft2, rfftn,
irfftn with NumPy's arguments (n= / s=, axis= / axes=, norm= "backward",
"ortho" or "forward", and NumPy 2's out=: an array of the result's shape
it is cast into by 'same_kind') and NumPy 2's dtypes: complex64 stays complex64,
float32 becomes complex64, float64 and integers complex128 (complex128
needs the device's float64). Lengths are any positive integers: powers of
small primes run as mixed-radix FFTs, lengths with a prime factor above 13
as Bluestein's algorithm (more work and about one more digit of rounding).

The transforms are VkFFT's (https://github.com/DTolm/VkFFT, Debian's
libvkfft-dev), recorded on the array's context like any other operation
(runtime/fft.c): no host round trip. Plans (VkFFT's generated shaders,
compiled by the in-process glslang) are cached per context and shape: the
first transform of a new shape pays for compiling them. Python here is
NumPy's argument handling and layout: the axes to transform are made the
trailing ones (a copy when they are not), at most three at a time (one
when the batch exceeds the device's workgroup count), n= / s=
crop or zero-pad, and norm= scales afterwards (one more elementwise pass
where a scale applies). rfft takes the first n//2 + 1 outputs of the
complex transform of its real input and irfft the real part of the inverse
transform of the Hermitian-extended spectrum: simple, and about twice the
work of dedicated real transforms.

Accuracy (tested against numpy.fft): relative error of the result
(max |error| / max |exact|) within 1e-5 for complex64 and 1e-12 for
complex128, for the sizes the tests draw (1 to a few thousand, primes
included).
"""
import math
import operator

import numpy as np

from . import _array, _complex, _context, _native, _ufunc
from . import _errors

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
           "rfftn", "irfftn", "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_C64, _C128 = np.dtype(np.complex64), np.dtype(np.complex128)
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_NORMS = (None, "backward", "ortho", "forward")


# ------------------------------------------------------------- arguments
def _check_norm(fname, norm):
    if norm not in _NORMS:
        raise ValueError(f"vp.fft.{fname}: norm={norm!r}; it must be \"backward\", \"ortho\" "
                         f"or \"forward\" (or None)")
    return norm or "backward"


def _axis(fname, axis, ndim, what="axis"):
    try:
        ax = operator.index(axis)
    except TypeError:
        raise TypeError(f"vp.fft.{fname}: {what}={axis!r} is not an integer") from None
    if not -ndim <= ax < ndim:
        raise _errors.AxisError(f"vp.fft.{fname}: {what}={axis} is out of bounds for an "
                                      f"array of dimension {ndim}")
    return ax % ndim


def _length(fname, n, what="n"):
    try:
        v = operator.index(n)
    except TypeError:
        raise TypeError(f"vp.fft.{fname}: {what}={n!r} is not an integer") from None
    if v < 1:
        raise ValueError(f"vp.fft.{fname}: {what}={v}: the number of data points must be >= 1")
    return v


def _axes_s(fname, shape, s, axes, one=False):
    """NumPy's (s, axes) rules: the axes (normalized, distinct) and the
    length along each."""
    ndim = len(shape)
    if axes is None:
        if s is None:
            axes = list(range(ndim))
        else:
            s = list(s)
            if len(s) > ndim:
                raise ValueError(f"vp.fft.{fname}: s={tuple(s)} has more entries than the "
                                 f"array has dimensions ({ndim})")
            axes = list(range(ndim - len(s), ndim))
    else:
        if isinstance(axes, (int, np.integer)):
            axes = [axes]
        axes = [_axis(fname, a, ndim, "axis" if one else "axes") for a in axes]
    if len(set(axes)) != len(axes):
        raise ValueError(f"vp.fft.{fname}: axes={tuple(axes)} repeats an axis (not supported)")
    if s is None:
        s = [shape[a] for a in axes]
    else:
        s = list(s)
        if len(s) != len(axes):
            raise ValueError(f"vp.fft.{fname}: s={tuple(s)} and axes={tuple(axes)} differ in "
                             f"length")
        s = [shape[a] if v == -1 else v for v, a in zip(s, axes)]
    s = [_length(fname, v, "n" if one else "s") for v in s]
    if not axes and ndim == 0:
        raise ValueError(f"vp.fft.{fname}: a 0-d array has no axis to transform")
    return s, axes


# ------------------------------------------------------------- device plumbing
def _resident(x, fname, context):
    """(resident array, host?) for input x."""
    if isinstance(x, _array.ndarray):
        if context is not None and _context.resolve(context) is not x._ctx:
            raise ValueError(f"vp.fft.{fname}: context= differs from the array's context")
        return x, False
    h = np.asarray(x)
    if h.dtype == object or h.dtype.kind not in "biufc":
        raise TypeError(f"vp.fft.{fname}: {h.dtype.name} input is not supported")
    return _array.asarray(h, context=context), True


def _setup(fname, a, s, axes, norm, context, one, real=False):
    """A transform's checked arguments: (x resident, host?, s, axes, norm,
    the complex dtype it runs in); real: the input must not be complex."""
    norm = _check_norm(fname, norm)
    x, host = _resident(a, fname, context)
    if real and x.dtype.kind == "c":
        raise TypeError(f"vp.fft.{fname}: the input is {x.dtype.name}; real transforms take "
                        f"real input (use vp.fft.fft{'n' if fname != 'rfft' else ''})")
    s, axes = _axes_s(fname, x.shape, s, axes, one)
    dt = x.dtype
    if dt.kind == "c":
        cdt = dt if dt in (_C64, _C128) else _C128
    else:
        cdt = _C64 if dt == _F32 or (dt.kind == "f" and dt.itemsize < 4) else _C128
    if cdt == _C128 and not x._ctx.has("float64"):
        x._ctx.require("float64", f"vp.fft.{fname} on complex128 (float64 or integer input)")
    return x, host, s, axes, norm, cdt


def _view(a, shape, offset, strides):
    return _array.ndarray(a._buf, tuple(shape), a.dtype, a._ctx, offset, tuple(strides), False)


_estrides = _array.elem_strides


def _resized(fname, a, cdt, axes, s, copy=True):
    """A contiguous complex array: `a` converted to cdt, cropped or
    zero-padded along `axes` to lengths `s` (NumPy's n= / s=); `a` itself
    when it is that already and copy=False."""
    shape = list(a.shape)
    for ax, n in zip(axes, s):
        shape[ax] = n
    ctx = a._ctx
    if all(a.shape[ax] == n for ax, n in zip(axes, s)):
        if a.dtype == cdt and not copy and a._whole:
            return a
        return a.copy() if a.dtype == cdt else a.astype(cdt)
    # the common part of a, as a view, into zeros (growing) or a new array
    st = _estrides(a)
    cshape = [min(d, n) for d, n in zip(a.shape, shape)]
    src = _view(a, cshape, a._offset, st) if cshape != list(a.shape) else a
    if any(n > d for d, n in zip(a.shape, shape)):
        out = _array.zeros(tuple(shape), cdt, memory=a.memory, context=ctx)
    else:
        out = _array._result(tuple(shape), cdt, a.memory, ctx)
    if 0 in cshape:
        return out
    dst = out if cshape == shape else _view(out, cshape, 0, _estrides(out))
    _complex.assign(dst, src)
    return out


def _permuted(a, perm):
    """A contiguous copy of complex array a with its axes in order perm."""
    st = _estrides(a)
    v = _view(a, [a.shape[p] for p in perm], a._offset, [st[p] for p in perm])
    return _complex.materialize(v)


def _exec(y, axes, inverse, owned=True):
    """Transforms contiguous whole complex array y over `axes`; returns the
    result in y's axis order. An `owned` y (a copy made here) may be
    transformed in place; otherwise (the caller's array) the first
    transform reads y and writes a new array (VkFFT out of place), or
    works on a transposing copy."""
    axes = [a for a in axes if y.shape[a] > 1]  # a length-1 transform is the identity
    if not axes or y.size == 0:
        return y if owned else y.copy()
    ext = _native.ext()
    if not hasattr(ext, "fft_exec"):
        raise RuntimeError("vp.fft: this build has no FFT (VkFFT's header, Debian's "
                           "libvkfft-dev, was missing when the extension was built)")
    nd = y.ndim
    order = list(range(nd))  # order[i]: the original axis at position i of y
    todo = sorted(axes)
    dbl = y.dtype == _C128
    # VkFFT dispatches a multi-dimensional plan's batch along one workgroup
    # count: past the device's (65,535 on most) every output was garbage
    # (a (65536, 2, 3) fft2: NaN and wrong values, no error). One axis at a
    # time then, as 1-D plans fold any batch into their dispatch.
    most = min(y._ctx.limits["max_workgroup_count"])
    while todo:
        group, todo = todo[-3:], todo[:-3]
        if len(group) > 1 and y.size // math.prod(y.shape[g] for g in group) > most:
            group, todo = group[-1:], todo + group[:-1]
        pos = [order.index(g) for g in group]
        rest = [i for i in range(nd) if i not in pos]
        perm = rest + pos
        if perm != list(range(nd)):
            y = _permuted(y, perm)
            order = [order[p] for p in perm]
            owned = True
        sizes = [y.shape[i] for i in range(nd - len(group), nd)]
        # a length-1 dimension between the transformed ones changes no stride
        sizes_eff = [n for n in sizes if n > 1]
        batch = y.size // math.prod(sizes_eff)
        if owned:
            ext.fft_exec(y._buf, sizes_eff, batch, dbl, inverse)
        else:
            out = _array._result(y.shape, y.dtype, y.memory, y._ctx)
            ext.fft_exec(out._buf, sizes_eff, batch, dbl, inverse, y._buf)
            y, owned = out, True
    if order != list(range(nd)):
        inv = [order.index(i) for i in range(nd)]
        y = _permuted(y, inv)
    return y


def _scale(y, fname, norm, n, inverse):
    """Applies norm= to transform result y (n: the transform's size)."""
    if norm == "ortho":
        f = 1.0 / math.sqrt(n)
    elif (norm == "backward") == inverse:
        f = 1.0 / n
    else:
        return y
    if y.size:
        fv = _complex.fview(y) if y.dtype.kind == "c" else y
        _ufunc.multiply(fv, fv.dtype.type(f), out=fv)
    return y


def _c2c(fname, a, s, axes, norm, inverse, context, one=False):
    x, host, s, axes, norm, cdt = _setup(fname, a, s, axes, norm, context, one)
    y = _resized(fname, x, cdt, axes, s, copy=False)
    y = _exec(y, axes, inverse, owned=y is not x)
    y = _scale(y, fname, norm, math.prod(s), inverse)
    return y.numpy() if host else y


def _into(fname, r, out):
    """r, or r written into out= (NumPy 2's out argument of the transforms:
    an array of r's shape, r cast into it by 'same_kind'); a resident r
    goes into a NumPy out by a download, a NumPy r into a resident out by
    an upload."""
    if out is None:
        return r
    if not isinstance(out, (np.ndarray, _array.ndarray)):
        raise TypeError(f"vp.fft.{fname}: out must be a vp.ndarray or numpy.ndarray, got "
                        f"{type(out).__name__}")
    if tuple(out.shape) != tuple(r.shape):
        raise ValueError(f"vp.fft.{fname}: out= has shape {tuple(out.shape)}; the result has "
                         f"{tuple(r.shape)}")
    if not np.can_cast(r.dtype, out.dtype, "same_kind"):
        raise TypeError(f"vp.fft.{fname}: cannot cast the {np.dtype(r.dtype).name} result into "
                        f"out='s {np.dtype(out.dtype).name} (rule 'same_kind')")
    if isinstance(out, np.ndarray):
        np.copyto(out, r.numpy() if isinstance(r, _array.ndarray) else r, casting="same_kind")
    else:
        _array._ops._numeric.copyto(out, r, casting="same_kind")
    return out


# ------------------------------------------------------------- complex transforms
def fft(a, n=None, axis=-1, norm=None, out=None, *, context=None):
    """vp.fft.fft(a, n=None, axis=-1, norm=None): the 1-D discrete Fourier
    transform along `axis`, as numpy.fft.fft (n= crops or zero-pads).
    Resident in -> resident out; NumPy in -> NumPy out.
    out= takes the result (NumPy 2's out)."""
    r = _c2c("fft", a, None if n is None else [n], [axis], norm, False, context, True)
    return _into("fft", r, out)


def ifft(a, n=None, axis=-1, norm=None, out=None, *, context=None):
    """vp.fft.ifft: the inverse of fft, as numpy.fft.ifft.
    out= takes the result (NumPy 2's out)."""
    r = _c2c("ifft", a, None if n is None else [n], [axis], norm, True, context, True)
    return _into("ifft", r, out)


def fftn(a, s=None, axes=None, norm=None, out=None, *, context=None):
    """vp.fft.fftn(a, s=None, axes=None, norm=None): the N-D transform, as
    numpy.fft.fftn (all axes by default; the last len(s) with s= alone).
    out= takes the result (NumPy 2's out)."""
    return _into("fftn", _c2c("fftn", a, s, axes, norm, False, context), out)


def ifftn(a, s=None, axes=None, norm=None, out=None, *, context=None):
    """vp.fft.ifftn: the inverse of fftn, as numpy.fft.ifftn.
    out= takes the result (NumPy 2's out)."""
    return _into("ifftn", _c2c("ifftn", a, s, axes, norm, True, context), out)


def fft2(a, s=None, axes=(-2, -1), norm=None, out=None, *, context=None):
    """vp.fft.fft2: fftn over axes (-2, -1), as numpy.fft.fft2.
    out= takes the result (NumPy 2's out)."""
    return _into("fft2", _c2c("fft2", a, s, axes, norm, False, context), out)


def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None, *, context=None):
    """vp.fft.ifft2: the inverse of fft2, as numpy.fft.ifft2.
    out= takes the result (NumPy 2's out)."""
    return _into("ifft2", _c2c("ifft2", a, s, axes, norm, True, context), out)


# ------------------------------------------------------------- real transforms
def _half(y, axis, m):
    """A contiguous copy of the first m entries of complex y along axis."""
    if y.shape[axis] == m:
        return y
    shape = list(y.shape)
    shape[axis] = m
    return _complex.materialize(_view(y, shape, 0, _estrides(y)))


def _rfftn(fname, a, s, axes, norm, context, one=False):
    x, host, s, axes, norm, cdt = _setup(fname, a, s, axes, norm, context, one, real=True)
    y = _resized(fname, x, cdt, axes, s)
    y = _exec(y, axes, False)
    y = _half(y, axes[-1], s[-1] // 2 + 1)
    y = _scale(y, fname, norm, math.prod(s), False)
    return y.numpy() if host else y


def _irfftn(fname, a, s, axes, norm, context, n_given, one=False):
    x, host, s0, axes, norm, cdt = _setup(fname, a, s, axes, norm, context, one)
    shp = x.shape
    if not n_given:
        s0[-1] = 2 * (shp[axes[-1]] - 1)
        if s0[-1] < 1:
            raise ValueError(f"vp.fft.{fname}: the last axis has {shp[axes[-1]]} point(s); the "
                             f"output would have {s0[-1]} (give n= / s=)")
    last, n = axes[-1], s0[-1]
    h = n // 2 + 1
    # the first h points of the last axis (cropped or zero-padded), the
    # other axes at their s= lengths
    half = _resized(fname, x, cdt, axes, s0[:-1] + [h])
    # NumPy's order: the complex inverse over the other axes, then the real
    # one over the last (the Hermitian extension below is along it alone)
    half = _exec(half, axes[:-1], True)
    shape = list(half.shape)
    shape[last] = n
    full = _array._result(tuple(shape), cdt, half.memory, half._ctx)
    st = _estrides(full)
    fh = list(shape)
    fh[last] = h
    _complex.assign(_view(full, fh, 0, st), half)
    m = n - h  # X[n-k] = conj(X[k]) for k = 1 .. m
    if m:
        hs = _estrides(half)
        src_shape = list(half.shape)
        src_shape[last] = m
        src = _view(half, src_shape, m * hs[last], [(-v if i == last else v)
                                                    for i, v in enumerate(hs)])
        dst_shape = list(shape)
        dst_shape[last] = m
        _complex.assign(_view(full, dst_shape, h * st[last], st), _complex.conjugate(src))
    y = _exec(full, [last], True)
    y = _scale(y, fname, norm, math.prod(s0), True)
    r = _complex.parts(y)[0]
    r = r.copy()
    return r.numpy() if host else r


def rfft(a, n=None, axis=-1, norm=None, out=None, *, context=None):
    """vp.fft.rfft(a, n=None, axis=-1, norm=None): the transform of real
    input, the n//2 + 1 non-negative frequencies, as numpy.fft.rfft.
    out= takes the result (NumPy 2's out)."""
    r = _rfftn("rfft", a, None if n is None else [n], [axis], norm, context, True)
    return _into("rfft", r, out)


def irfft(a, n=None, axis=-1, norm=None, out=None, *, context=None):
    """vp.fft.irfft: the inverse of rfft (real output of length n,
    2 * (m - 1) by default), as numpy.fft.irfft.
    out= takes the result (NumPy 2's out)."""
    r = _irfftn("irfft", a, None if n is None else [n], [axis], norm, context,
                n is not None, True)
    if getattr(a, "dtype", None) == np.float16 and r.dtype == np.float32:
        # numpy.fft.irfft (and hfft) of float16 input is float16 (its
        # result_type(a.real.dtype, 1.0)); irfftn / irfft2 are float32
        r = r.astype(np.float16)
    return _into("irfft", r, out)


def rfftn(a, s=None, axes=None, norm=None, out=None, *, context=None):
    """vp.fft.rfftn: the N-D transform of real input (half the last axis),
    as numpy.fft.rfftn. out= takes the result (NumPy 2's out)."""
    return _into("rfftn", _rfftn("rfftn", a, s, axes, norm, context), out)


def irfftn(a, s=None, axes=None, norm=None, out=None, *, context=None):
    """vp.fft.irfftn: the inverse of rfftn, as numpy.fft.irfftn.
    out= takes the result (NumPy 2's out)."""
    return _into("irfftn", _irfftn("irfftn", a, s, axes, norm, context, s is not None), out)


def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None, *, context=None):
    """vp.fft.rfft2: rfftn over axes (-2, -1), as numpy.fft.rfft2.
    out= takes the result (NumPy 2's out)."""
    return _into("rfft2", _rfftn("rfft2", a, s, axes, norm, context), out)


def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None, *, context=None):
    """vp.fft.irfft2: the inverse of rfft2, as numpy.fft.irfft2.
    out= takes the result (NumPy 2's out)."""
    return _into("irfft2", _irfftn("irfft2", a, s, axes, norm, context, s is not None), out)


_SWAPPED = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}


def hfft(a, n=None, axis=-1, norm=None, out=None, *, context=None):
    """vp.fft.hfft(a, n=None, axis=-1, norm=None): the transform of a
    signal with Hermitian symmetry (its n//2 + 1 first values given), real
    output of length n (2 * (m - 1) by default), as numpy.fft.hfft:
    irfft of the conjugate with the opposite normalization.
    out= takes the result (NumPy 2's out)."""
    _check_norm("hfft", norm)
    x, host = _resident(a, "hfft", context)
    if n is None:
        n = (x.shape[_axis("hfft", axis, x.ndim)] - 1) * 2
    r = irfft(_complex.conjugate(x) if x.dtype.kind == "c" else x, n, axis, _SWAPPED[norm])
    return _into("hfft", r.numpy() if host else r, out)


def ihfft(a, n=None, axis=-1, norm=None, out=None, *, context=None):
    """vp.fft.ihfft(a, n=None, axis=-1, norm=None): the inverse of hfft for
    real input (the n//2 + 1 non-negative frequencies), as
    numpy.fft.ihfft: the conjugate of rfft with the opposite
    normalization. out= takes the result (NumPy 2's out)."""
    _check_norm("ihfft", norm)
    x, host = _resident(a, "ihfft", context)
    r = _complex.conjugate(rfft(x, n, axis, _SWAPPED[norm]))
    return _into("ihfft", r.numpy() if host else r, out)


# ------------------------------------------------ helpers (issue 19)
# fftfreq / rfftfreq make n numbers from two: NumPy's own formula on the host
# (bit for bit its float64 values) uploaded as one resident array, as
# vp.arange does. fftshift / ifftshift are vp.roll (two slab copies per
# axis on the device) by NumPy's shifts.
def _freq_n(fname, n, d):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"vp.fft.{fname}: n should be an integer, got {n!r}")
    if n <= 0:  # NumPy divides by zero
        raise ValueError(f"vp.fft.{fname}: n must be positive, got {n}")
    return int(n)


def fftfreq(n, d=1.0, device=None, *, dtype=None, context=None):
    """numpy.fft.fftfreq: the sample frequencies [0, 1, ..., -1] / (d n),
    float64 (NumPy's values), as a resident array on `context` (or
    device=, the array API's name); dtype= (the array API's) rounds them to
    another float dtype."""
    n = _freq_n("fftfreq", n, d)
    return _array.asarray(np.fft.fftfreq(n, d), dtype,
                          context=_context.with_device(device, context, "vp.fft.fftfreq"))


def rfftfreq(n, d=1.0, device=None, *, dtype=None, context=None):
    """numpy.fft.rfftfreq: [0, 1, ..., n // 2] / (d n), float64, resident;
    device= and dtype= as fftfreq's."""
    n = _freq_n("rfftfreq", n, d)
    return _array.asarray(np.fft.rfftfreq(n, d), dtype,
                          context=_context.with_device(device, context, "vp.fft.rfftfreq"))


def _shift(fname, x, axes, sign):
    from . import _shapeops
    host = not isinstance(x, _array.ndarray)
    a = _array.asarray(np.asarray(x)) if host else x
    if axes is None:
        axes = tuple(range(a.ndim))
        shift = [sign * (dim // 2) for dim in a.shape]
    elif isinstance(axes, (int, np.integer)):
        _errors.axis(axes, a.ndim, f"vp.fft.{fname}: axes")
        shift = sign * (a.shape[axes] // 2)
    else:
        axes = tuple(operator.index(ax) for ax in axes)
        for ax in axes:
            _errors.axis(ax, a.ndim, f"vp.fft.{fname}: axes")
        shift = [sign * (a.shape[ax] // 2) for ax in axes]
    if a.dtype.kind == "c":  # roll the (..., 2) float view: the same moves
        axes_f = tuple(ax % a.ndim for ax in (axes if isinstance(axes, tuple) else (axes,)))
        r = _shapeops.roll(_complex.fview(a), shift, axes_f)
        r = _complex.from_fview(r if r.contiguous else r.copy(), a.dtype)
    else:
        r = _shapeops.roll(a, shift, axes)
    return r.numpy() if host else r


def fftshift(x, axes=None):
    """numpy.fft.fftshift: the zero frequency moved to the centre (a roll by
    n // 2 along each of `axes`, all by default). NumPy in -> NumPy out."""
    return _shift("fftshift", x, axes, 1)


def ifftshift(x, axes=None):
    """numpy.fft.ifftshift: fftshift's inverse (a roll by -(n // 2))."""
    return _shift("ifftshift", x, axes, -1)
