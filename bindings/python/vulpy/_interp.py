"""Interpolation and finite differences a CuPy user reaches for (issue 19):
interp and gradient, composed of the vp ufuncs, searchsorted and views
(resident in -> resident out; NumPy in -> NumPy's own function). The
formulas and their special cases are NumPy's (numpy/_core/src/multiarray/
compiled_base.c's interp, numpy/lib/_function_base_impl.py's gradient), so
the results match NumPy's to the rounding of the device's arithmetic.
"""
import operator

import numpy as np

from . import _array, _reduce, _shapeops, _sort, _ufunc

_nd = _array.ndarray
_res = _shapeops._resident  # any operand resident


def _f64(ctx):
    return "float64" in ctx.info["features"]


def _up(x, ctx, dtype):
    """x as a resident array of dtype on ctx (uploaded or cast as needed)."""
    if not isinstance(x, _nd):
        return _array.asarray(np.asarray(x, dtype=dtype), context=ctx)
    return x if x.dtype == dtype else x.astype(dtype)


def interp(x, xp, fp, left=None, right=None, period=None):
    """vp.interp(x, xp, fp, left=None, right=None, period=None):
    numpy.interp on the device: the piecewise-linear interpolant of the
    points (xp, fp) at x. xp must be increasing (not checked, as NumPy);
    x below xp[0] gives `left` (default fp[0]), above xp[-1] `right`
    (default fp[-1]); a NaN x gives NaN; `period=` wraps x and xp as NumPy
    does. The result is float64, as NumPy's (float32 on a device without
    float64); complex fp is a TypeError. One searchsorted and a few
    elementwise kernels.

        >>> vp.interp(vp.asarray([0.5, 2.5]), vp.asarray([0.0, 1.0, 3.0]),
        ...           vp.asarray([0.0, 10.0, 30.0])).tolist()
        [5.0, 25.0]"""
    if not _res(x, xp, fp):
        return np.interp(x, xp, fp, left, right, period)
    ctx = _array.common_context("vp.interp", (x, xp, fp))
    for name, a in (("fp", fp), ("xp", xp), ("x", x)):
        if np.dtype(getattr(a, "dtype", np.asarray(a).dtype)).kind == "c":
            raise TypeError(f"vp.interp: complex {name} is not supported (complex arrays do "
                            f"arithmetic only); interpolate .real and .imag separately")
    dt = np.dtype(np.float64 if _f64(ctx) else np.float32)
    xs, xps, fps = _up(x, ctx, dt), _up(xp, ctx, dt), _up(fp, ctx, dt)
    if xps.ndim != 1 or fps.ndim != 1:
        raise ValueError("vp.interp: data points must be 1-D sequences")
    if xps.shape[0] != fps.shape[0]:
        raise ValueError("vp.interp: fp and xp are not of the same length")
    if xps.shape[0] == 0:
        raise ValueError("vp.interp: array of sample points is empty")
    if period is not None:
        if period == 0:
            raise ValueError("vp.interp: period must be a non-zero value")
        period = abs(float(period))
        left = right = None
        xs = _ufunc.remainder(xs, period)
        xps = _ufunc.remainder(xps, period)
        order = _sort.argsort(xps)
        xps, fps = xps[order], fps[order]
        xps = _shapeops.concatenate([xps[-1:] - period, xps, xps[:1] + period])
        fps = _shapeops.concatenate([fps[-1:], fps, fps[:1]])
    n = xps.shape[0]
    lo = fps[:1] if left is None else _up(np.asarray(left), ctx, dt)
    hi = fps[-1:] if right is None else _up(np.asarray(right), ctx, dt)
    if n == 1:  # NumPy's special case: a NaN x compares neither way and gets fp[0]
        return _ufunc.where(xs < xps[0], lo, _ufunc.where(xs > xps[0], hi, fps[0]))
    # j: xp[j] <= x < xp[j + 1], kept inside [0, n - 2] for the gathers
    j = _sort.searchsorted(xps, xs, side="right") - 1
    j = _ufunc.clip(j, 0, n - 2)
    x0, x1, y0, y1 = xps[j], xps[j + 1], fps[j], fps[j + 1]
    slope = (y1 - y0) / (x1 - x0)
    r = slope * (xs - x0) + y0
    # NumPy: a NaN from an infinite slope is retried from the right end,
    # then equal neighbours give their value
    r = _ufunc.where(_ufunc.isnan(r), slope * (xs - x1) + y1, r)
    r = _ufunc.where(_ufunc.isnan(r) & (y0 == y1), y0, r)
    r = _ufunc.where(xs == x0, y0, r)            # an exact sample point
    r = _ufunc.where(xs == xps[-1], fps[-1], r)  # the last one (j would be n - 1)
    r = _ufunc.where(xs < xps[0], lo, _ufunc.where(xs > xps[-1], hi, r))
    return _ufunc.where(_ufunc.isnan(xs), xs, r)


def _along(a, axis, s):
    """a[..., s, ...] with s on `axis`."""
    key = [slice(None)] * a.ndim
    key[axis] = s
    return a[tuple(key)]


def _bcast(v, axis, ndim):
    """A 1-D array shaped to broadcast along `axis` of an ndim array."""
    shape = [1] * ndim
    shape[axis] = v.shape[0]
    return v.reshape(tuple(shape))


def gradient(f, *varargs, axis=None, edge_order=1):
    """vp.gradient(f, *varargs, axis=None, edge_order=1):
    numpy.gradient on the device: second-order central differences inside,
    first- or second-order (edge_order) one-sided ones at the ends, along
    each axis (all by default). varargs: one spacing for every axis, one per
    axis, each a scalar or the 1-D coordinates along that axis (uneven
    spacing takes NumPy's three-point formula). Float input keeps its dtype;
    integer input gives float64 (float32 on a device without float64);
    bool input is NumPy's TypeError. One axis: an array; several: a tuple, as NumPy 2.

        >>> vp.gradient(vp.asarray([1.0, 2.0, 4.0, 7.0])).tolist()
        [1.0, 1.5, 2.5, 3.0]"""
    if not _res(f, *varargs):
        return np.gradient(f, *varargs, axis=axis, edge_order=edge_order)
    ctx = _array.common_context("vp.gradient", (f,) + varargs)
    f = f if isinstance(f, _nd) else _array.asarray(np.asarray(f), context=ctx)
    nd = f.ndim
    if axis is None:
        axes = list(range(nd))
    else:
        ax = (axis,) if np.ndim(axis) == 0 else tuple(axis)
        axes = []
        for a in ax:
            a = operator.index(a)
            if not -nd <= a < nd:
                raise np.exceptions.AxisError(a, nd)
            axes.append(a % nd)
        if len(set(axes)) != len(axes):
            raise ValueError("vp.gradient: repeated axis")
    if edge_order not in (1, 2):
        raise ValueError("vp.gradient: 'edge_order' greater than 2 not supported"
                         if edge_order > 2 else "vp.gradient: edge_order must be 1 or 2")
    nv = len(varargs)
    if nv == 0:
        spacing = [1.0] * len(axes)
    elif nv == 1 and np.ndim(varargs[0]) == 0:
        spacing = [varargs[0]] * len(axes)
    elif nv == len(axes):
        spacing = list(varargs)
    else:
        raise TypeError("vp.gradient: invalid number of arguments")
    kind = f.dtype.kind
    if kind == "b":  # NumPy keeps bool and its subtraction refuses
        raise TypeError("vp.gradient: numpy boolean subtract, the `-` operator, is not "
                        "supported (convert f to an integer or float dtype first)")
    if kind == "c":
        raise TypeError("vp.gradient: complex input is not supported (complex arrays do "
                        "arithmetic only)")
    odt = f.dtype if kind == "f" else np.dtype(np.float64 if _f64(ctx) else np.float32)
    g = f if f.dtype == odt else f.astype(odt)
    outs = []
    for a, h in zip(axes, spacing):
        n = f.shape[a]
        if np.ndim(h) == 1:  # NumPy: evenly spaced coordinates take the uniform formula
            x = _up(h, ctx, odt) if not isinstance(h, _nd) or h.dtype.kind != "f" else h
            if x.shape[0] == n and n > 1:
                d = x[1:] - x[:-1]
                if bool(_reduce.all(d == d[0])):
                    h = float(d[0].numpy())
        if n < edge_order + 1:
            raise ValueError("vp.gradient: shape of the array too small to calculate a "
                             "numerical gradient, at least (edge_order + 1) elements are "
                             "required")
        if np.ndim(h) == 0:
            h = float(h) if not isinstance(h, _nd) else float(h.numpy())
            inner = (_along(g, a, slice(2, None)) - _along(g, a, slice(None, -2))) / (2.0 * h)
            if edge_order == 1:
                first = (_along(g, a, slice(1, 2)) - _along(g, a, slice(0, 1))) / h
                last = (_along(g, a, slice(-1, None)) - _along(g, a, slice(-2, -1))) / h
            else:  # NumPy's coefficients, divided first
                first = (-1.5 / h * _along(g, a, slice(0, 1)) + 2.0 / h * _along(g, a, slice(1, 2))
                         - 0.5 / h * _along(g, a, slice(2, 3)))
                last = (0.5 / h * _along(g, a, slice(-3, -2)) - 2.0 / h * _along(g, a, slice(-2, -1))
                        + 1.5 / h * _along(g, a, slice(-1, None)))
        else:
            x = _up(h, ctx, odt) if not isinstance(h, _nd) or h.dtype.kind != "f" else h
            if x.ndim != 1:
                raise ValueError("vp.gradient: distances must be either scalars or 1d")
            if x.shape[0] != n:
                raise ValueError("vp.gradient: when 1d, distances must match the length of "
                                 "the corresponding dimension")
            if x.dtype != odt:
                x = x.astype(odt)
            dx = x[1:] - x[:-1]
            dx1, dx2 = dx[:-1], dx[1:]
            ca = _bcast(-dx2 / (dx1 * (dx1 + dx2)), a, nd)
            cb = _bcast((dx2 - dx1) / (dx1 * dx2), a, nd)
            cc = _bcast(dx1 / (dx2 * (dx1 + dx2)), a, nd)
            inner = (ca * _along(g, a, slice(None, -2)) + cb * _along(g, a, slice(1, -1))
                     + cc * _along(g, a, slice(2, None)))
            if edge_order == 1:
                first = (_along(g, a, slice(1, 2)) - _along(g, a, slice(0, 1))) / dx[0]
                last = (_along(g, a, slice(-1, None)) - _along(g, a, slice(-2, -1))) / dx[-1]
            else:
                d1, d2 = dx[0], dx[1]
                a0 = -(2.0 * d1 + d2) / (d1 * (d1 + d2))
                b0 = (d1 + d2) / (d1 * d2)
                c0 = -d1 / (d2 * (d1 + d2))
                first = (a0 * _along(g, a, slice(0, 1)) + b0 * _along(g, a, slice(1, 2))
                         + c0 * _along(g, a, slice(2, 3)))
                d1, d2 = dx[-2], dx[-1]
                a1 = d2 / (d1 * (d1 + d2))
                b1 = -(d2 + d1) / (d1 * d2)
                c1 = (2.0 * d2 + d1) / (d2 * (d1 + d2))
                last = (a1 * _along(g, a, slice(-3, -2)) + b1 * _along(g, a, slice(-2, -1))
                        + c1 * _along(g, a, slice(-1, None)))
        out = _shapeops.concatenate([first, inner, last], axis=a)
        outs.append(out if out.dtype == odt else out.astype(odt))
    return outs[0] if len(outs) == 1 else tuple(outs)

