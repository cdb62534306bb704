"""NumPy's block-building and functional helpers, the window functions and
i0 (issue 19), as compositions of the device operations: block (nested
concatenate), choose (a where per choice), piecewise (boolean-mask
assignment), apply_along_axis / apply_over_axes (a Python loop over views,
as CuPy's), sort_complex (a lexsort of the parts), bartlett / blackman /
hamming / hanning / kaiser (creation functions) and i0 (Clenshaw's
recurrence on NumPy's Chebyshev coefficients, elementwise on the device).

Resident in -> resident out; NumPy in -> NumPy's own function.
test_numpyfuncs.py checks each against NumPy.
"""
import builtins
import collections.abc
import itertools

import numpy as np

from . import _array, _numeric, _reduce, _shapeops, _sort, _ufunc

_nd = _array.ndarray
_res = _shapeops._resident


def _as(x, dt):
    """x as dtype dt (x itself when it already is)."""
    return x if x.dtype == dt else x.astype(dt)


# ------------------------------------------------------------------ block

def _block_depth(x, where=()):
    """(list depth, index path of the first leaf) of np.block's argument,
    with NumPy's errors for tuples, empty lists and mismatched depths."""
    if isinstance(x, tuple):
        raise TypeError(f"arrays{''.join(f'[{i}]' for i in where)} is a tuple. Only lists can "
                        f"be used to arrange blocks, and np.block does not allow implicit "
                        f"conversion from tuple to ndarray.")
    if not isinstance(x, list):
        return 0, where
    if not x:
        raise ValueError(f"List at arrays{''.join(f'[{i}]' for i in where)} cannot be empty")
    first = None
    for i, e in enumerate(x):
        d, path = _block_depth(e, where + (i,))
        if first is None:
            first = (d, path)
        elif d != first[0]:
            raise ValueError(f"List depths are mismatched. First element was at depth "
                             f"{len(first[1])}, but there is an element at depth {len(path)} "
                             f"(arrays{''.join(f'[{j}]' for j in path)})")
    return first[0] + 1, first[1]


def _leaves(x):
    if isinstance(x, list):
        for e in x:
            yield from _leaves(e)
    else:
        yield x


def block(arrays):
    """vp.block(arrays): numpy.block on the device: an array assembled from
    nested lists of blocks (the innermost lists joined along the last axis,
    the next ones along the one before, ...; blocks get leading axes of
    length 1 up to the result's ndim). Any resident block makes the result
    resident (NumPy blocks are uploaded); NumPy's errors for tuples, empty
    lists and mismatched depths."""
    depth, _ = _block_depth(arrays)
    leaves = list(_leaves(arrays))
    if not builtins.any(isinstance(b, _nd) for b in leaves):
        return np.block(arrays)
    ctx = next(b for b in leaves if isinstance(b, _nd))._ctx
    ndim = builtins.max([depth] + [np.ndim(b) for b in leaves])

    def leaf(b):
        if not isinstance(b, _nd):
            b = np.asarray(b)
            return _array.asarray(b.reshape((1,) * (ndim - b.ndim) + b.shape), context=ctx)
        return b.reshape((1,) * (ndim - b.ndim) + b.shape) if b.ndim < ndim else b

    def join(x, level):
        if not isinstance(x, list):
            return leaf(x)
        parts = [join(e, level + 1) for e in x]
        return _shapeops.concatenate(parts, axis=level - depth)

    if depth == 0:
        return leaf(arrays).copy()
    return join(arrays, 0)


# ----------------------------------------------------------------- choose

def choose(a, choices, out=None, mode="raise"):
    """vp.choose(a, choices, out=None, mode='raise'): numpy.choose on the
    device: choices[a[i]][i] with a and every choice broadcast together.
    mode 'raise' checks the indices (two small read-backs: their minimum
    and maximum) and raises NumPy's ValueError; 'wrap' takes them modulo
    len(choices), 'clip' clips them to [0, len(choices) - 1]. The result
    dtype is numpy.result_type of the choices; out= receives it."""
    if isinstance(choices, _nd):
        choices = [choices[i] for i in range(choices.shape[0])]
    elif not isinstance(choices, (list, tuple)):
        choices = list(choices)
    if not _res(a, out, *choices):
        return np.choose(a, choices, out=out, mode=mode)
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"choose: mode must be one of 'raise', 'wrap' or 'clip' (got {mode!r})")
    n = len(choices)
    if n == 0:
        raise ValueError("choose: choices must not be empty (a 0-length sequence)")
    ctx = next(x for x in (a, out, *choices) if isinstance(x, _nd))._ctx
    idx = a if isinstance(a, _nd) else _array.asarray(np.asarray(a), context=ctx)
    if idx.dtype.kind not in "biu":
        raise TypeError(f"choose: the index array must be of an integer type, not "
                        f"{idx.dtype.name} (numpy.choose casts it with casting='safe')")
    if idx.dtype.kind == "b":
        idx = idx.astype(np.int64)
    cs = [c if isinstance(c, _nd) else _array.asarray(np.asarray(c), context=ctx)
          for c in choices]
    dt = np.result_type(*[c.dtype for c in cs])
    shape = np.broadcast_shapes(idx.shape, *[c.shape for c in cs])
    if mode == "wrap":
        idx = _ufunc.remainder(idx, n)
    elif mode == "clip":
        idx = _ufunc.clip(idx, 0, n - 1)
    elif idx.size:
        lo, hi = int(_reduce.min(idx)), int(_reduce.max(idx))
        if lo < 0 or hi >= n:
            raise ValueError(f"choose: invalid entry in choice array: index {lo if lo < 0 else hi} "
                             f"with {n} choices (mode='raise')")
    r = _as(cs[0], dt)
    for k in range(1, n):
        r = _ufunc.where(_ufunc.equal(idx, k), _as(cs[k], dt), r)
    if r.shape != shape or n == 1:  # (one choice: still a new array of the broadcast shape)
        r = _shapeops.broadcast_to(r, shape).copy()
    if out is not None:
        if not isinstance(out, _nd) or out.shape != shape:
            raise ValueError(f"choose: out= must be a resident array of the result's shape "
                             f"{shape} (got {getattr(out, 'shape', type(out).__name__)})")
        _numeric.copyto(out, r, casting="same_kind")
        return out
    return r


# -------------------------------------------------------------- piecewise

def piecewise(x, condlist, funclist, *args, **kw):
    """vp.piecewise(x, condlist, funclist, *args, **kw): numpy.piecewise on
    the device: where condlist[i] holds, funclist[i] (a value, or a function
    called on x[condlist[i]] with *args, **kw) - later conditions win; one
    function more than conditions is the value where none holds; elsewhere
    0. Each condition is a boolean mask of x's shape (a mask read costs a
    small read-back of its count, as vp's boolean indexing)."""
    given = condlist if isinstance(condlist, (list, tuple)) else [condlist]
    if not _res(x, *given):
        return np.piecewise(x, condlist, funclist, *args, **kw)
    if not isinstance(x, _nd):
        ctx = next(c for c in given if isinstance(c, _nd))._ctx
        x = _array.asarray(np.asarray(x), context=ctx)
    n2 = len(funclist)
    if isinstance(condlist, _nd):
        conds = [condlist] if condlist.ndim == x.ndim else \
            [condlist[i] for i in range(condlist.shape[0])]
    elif np.isscalar(condlist) or (x.ndim != 0 and not isinstance(condlist[0], (list, np.ndarray,
                                                                                _nd))):
        conds = [condlist]
    else:
        conds = list(condlist)
    masks = []
    for i, c in enumerate(conds):
        m = c if isinstance(c, _nd) else _array.asarray(np.asarray(c, dtype=bool), context=x._ctx)
        if m.dtype != np.bool_:
            m = m.astype(np.bool_)
        if m.shape != x.shape:
            raise IndexError(f"piecewise: condition {i} has shape {m.shape}, but x has shape "
                             f"{x.shape} (each condition is a boolean mask of x)")
        masks.append(m)
    n = len(masks)
    if n == n2 - 1:  # the last function: where no condition holds
        other = masks[0] if n else None
        for m in masks[1:]:
            other = _ufunc.logical_or(other, m)
        masks.append(_ufunc.logical_not(other) if n else
                     _array.full(x.shape, True, np.bool_, context=x._ctx))
    elif n != n2:
        raise ValueError(f"with {n} condition(s), either {n} or {n + 1} functions are expected")
    y = _array.zeros_like(x)
    for m, f in zip(masks, funclist):
        if not isinstance(f, collections.abc.Callable):
            y[m] = f
            continue
        vals = x[m]
        if vals.size:
            y[m] = f(vals, *args, **kw)
    return y


# ------------------------------------------------------ apply_along_axis

def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """vp.apply_along_axis(func1d, axis, arr, *args, **kwargs):
    numpy.apply_along_axis on a resident arr: func1d(a 1-D view of arr
    along axis, *args, **kwargs) for every position of the other axes, the
    results (of one shape) stacked where the axis was. One Python call per
    slice (as NumPy's and CuPy's), each on a view: quick when func1d is one
    or two device operations on long slices, slow for many short ones."""
    if not isinstance(arr, _nd):
        return np.apply_along_axis(func1d, axis, arr, *args, **kwargs)
    nd = arr.ndim
    axis = _shapeops._axis(axis, nd, "apply_along_axis")
    dims = list(range(nd))
    view = arr.transpose(dims[:axis] + dims[axis + 1:] + [axis])
    inds = itertools.product(*[range(s) for s in view.shape[:-1]])
    try:
        ind0 = next(inds)
    except StopIteration:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0") from None

    def call(ind):
        r = func1d(view[ind], *args, **kwargs)
        return r if isinstance(r, _nd) else _array.asarray(np.asarray(r), context=arr._ctx)

    res = call(ind0)
    buff = _array.empty(view.shape[:-1] + res.shape, res.dtype, context=arr._ctx)
    bdims = list(range(buff.ndim))
    permute = bdims[:axis] + bdims[buff.ndim - res.ndim:] + bdims[axis:buff.ndim - res.ndim]
    buff[ind0] = res
    for ind in inds:
        buff[ind] = call(ind)
    return buff.transpose(permute)


def apply_over_axes(func, a, axes):
    """vp.apply_over_axes(func, a, axes): numpy.apply_over_axes on a
    resident a: func(a, axis) for each axis in turn, each result given back
    its reduced axis (keepdims) so that the next call sees a's ndim."""
    if not isinstance(a, _nd):
        return np.apply_over_axes(func, a, axes)
    val = a
    for axis in (axes if isinstance(axes, (list, tuple)) else [axes]):
        axis = axis + a.ndim if axis < 0 else axis
        res = func(val, axis)
        if res.ndim != val.ndim:
            res = _shapeops.expand_dims(res, axis)
            if res.ndim != val.ndim:
                raise ValueError("function is not returning an array of the correct shape")
        val = res
    return val


# ----------------------------------------------------------- sort_complex

def sort_complex(a):
    """vp.sort_complex(a): numpy.sort_complex on the device: a sorted along
    its last axis by real part, then imaginary part, as complex (complex64
    for int8 / int16 / uint8 / uint16 / complex64 input, complex128
    otherwise, float32 included: NumPy's rule). NaNs go last in NumPy's order: values with a NaN
    imaginary part after all others (by real part), then NaN real parts (by
    imaginary part), then both NaN: vp.sort's order of complex arrays."""
    if not isinstance(a, _nd):
        return np.sort_complex(a)
    if a.dtype.kind != "c":
        dt = np.complex64 if a.dtype.char in "bhBH" else np.complex128
        return _sort.sort(a, axis=-1).astype(dt)
    # complex: NumPy's order, NaNs included (vp.sort); a 0-d array has no
    # last axis (NumPy's AxisError, as for real input)
    return _sort.sort(a, axis=-1)


# ---------------------------------------------------------------- windows

def _window(name, np_fn, args, memory, context):
    """A window of NumPy's formula (computed in float64 on the host, as
    vp.linspace's points) as a resident float32 array."""
    w = np_fn(*args).astype(np.float32)
    return _array.asarray(w, memory=memory, context=context)


def bartlett(M, *, memory=None, context=None):
    """vp.bartlett(M, *, memory=None, context=None): numpy.bartlett(M) (the
    triangular window) as a resident float32 array (float32, as vp.linspace:
    computed in float64, then rounded)."""
    return _window("bartlett", np.bartlett, (M,), memory, context)


def blackman(M, *, memory=None, context=None):
    """vp.blackman(M, *, memory=None, context=None): numpy.blackman(M) as a
    resident float32 array (computed in float64, then rounded)."""
    return _window("blackman", np.blackman, (M,), memory, context)


def hamming(M, *, memory=None, context=None):
    """vp.hamming(M, *, memory=None, context=None): numpy.hamming(M) as a
    resident float32 array (computed in float64, then rounded)."""
    return _window("hamming", np.hamming, (M,), memory, context)


def hanning(M, *, memory=None, context=None):
    """vp.hanning(M, *, memory=None, context=None): numpy.hanning(M) (the
    Hann window) as a resident float32 array (computed in float64, then
    rounded)."""
    return _window("hanning", np.hanning, (M,), memory, context)


def kaiser(M, beta, *, memory=None, context=None):
    """vp.kaiser(M, beta, *, memory=None, context=None): numpy.kaiser(M,
    beta) as a resident float32 array (computed in float64, then rounded)."""
    return _window("kaiser", np.kaiser, (M, beta), memory, context)


# --------------------------------------------------------------------- i0

# NumPy's (Cephes') Chebyshev coefficients of exp(-x) I0(x): on [0, 8] in
# x / 2 - 2, and of exp(-x) sqrt(x) I0(x) on (8, inf) in 32 / x - 2
_I0A = np.array(np.lib._function_base_impl._i0A, np.float64)
_I0B = np.array(np.lib._function_base_impl._i0B, np.float64)


def _chbevl(x, coef):
    b0 = _array.full_like(x, coef[0])
    b1 = b2 = _array.zeros_like(x)
    for c in coef[1:]:
        b2, b1 = b1, b0
        b0 = _ufunc.add(_ufunc.subtract(_ufunc.multiply(x, b1), b2), c.astype(x.dtype))
    return _ufunc.multiply(_ufunc.subtract(b0, b2), np.asarray(0.5, x.dtype))


def i0(x):
    """vp.i0(x): numpy.i0 on the device: the modified Bessel function of
    the first kind, order 0, elementwise (NumPy's Chebyshev expansions,
    evaluated with Clenshaw's recurrence in x's float dtype; integers and
    bools as float64; float16 in float32, rounded back: NumPy computes it
    in float16 and is off by up to ~1.5e-3 relative). Complex input is a
    TypeError, as NumPy's."""
    if not isinstance(x, _nd):
        return np.i0(x)
    if x.dtype.kind == "c":
        raise TypeError("i0 not supported for complex values")
    out_dt = x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)
    cdt = np.dtype(np.float32) if out_dt == np.float16 else out_dt
    a = _ufunc.absolute(_as(x, cdt))
    small = _ufunc.multiply(_ufunc.exp(a),
                            _chbevl(_ufunc.subtract(_ufunc.multiply(a, np.asarray(0.5, cdt)),
                                                    np.asarray(2.0, cdt)), _I0A))
    # (32 / a at a = 0 is inf: that branch is not taken there)
    big = _ufunc.divide(_ufunc.multiply(_ufunc.exp(a),
                                        _chbevl(_ufunc.subtract(_ufunc.divide(np.asarray(32.0, cdt),
                                                                              a),
                                                                np.asarray(2.0, cdt)), _I0B)),
                        _ufunc.sqrt(a))
    r = _ufunc.where(_ufunc.less_equal(a, np.asarray(8.0, cdt)), small, big)
    return _as(r, out_dt)
