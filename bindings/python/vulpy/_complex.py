"""Complex arrays (complex64, complex128) on the device: storage, .real /
.imag, and the arithmetic that issue 19 asks for (docs/python-api.md,
"Complex dtypes and `vp.fft`", is the reference).

A complex array is stored as NumPy stores it, interleaved (real, imag)
pairs. Its float view (`fview`) is a float32 (float64) resident array of
shape + (2,) over the same buffer; `.real` and `.imag` are fview[..., 0]
and fview[..., 1]. Arithmetic (SUPPORTED) is the float ufuncs on those
views: no kernel is complex, so every device that runs float kernels runs
these (a complex multiply is six kernels; sqrt, log and reciprocal are
written for NumPy's branches and special values, below; products such as
matmul are four real GEMMs, in _matmul). Dtypes follow NumPy
(ufunc.resolve_dtypes, NEP 50); any other operation on a complex operand
raises TypeError naming it (never a result with the imaginary part
dropped). Division by a complex divisor is NumPy's (Smith's method).
"""
import numpy as np

from . import _array, _arrayops, _context, _graph, _indexing

C64, C128 = np.dtype(np.complex64), np.dtype(np.complex128)
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_BOOL = np.dtype(np.bool_)

# the vp ufuncs that take complex operands (their NumPy names)
SUPPORTED = ("add", "subtract", "multiply", "divide", "negative", "positive", "conjugate",
             "absolute", "exp", "equal", "not_equal", "cast", "where", "square", "reciprocal",
             "sqrt", "log", "log2", "log10", "isnan", "isinf", "isfinite", "power",
             "sinh", "cosh", "tanh", "sin", "cos", "tan", "less", "less_equal", "greater",
             "greater_equal", "maximum", "minimum", "fmax", "fmin", "sign", "log1p", "expm1",
             "exp2", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "rint",
             "float_power", "logical_and", "logical_or", "logical_xor", "logical_not")
_LOGICAL = ("logical_and", "logical_or", "logical_xor", "logical_not")


unsupported = _arrayops.complex_unsupported  # the TypeError for an operation on complex


def is_complex(x):
    t = type(x)
    if t is complex:
        return True
    if t is float or t is int or t is bool:
        return False
    if t is _array.ndarray or t is np.ndarray:
        return x.dtype.kind == "c"
    if t is list or t is tuple:  # z + [1j, 2]
        return np.asarray(x).dtype.kind == "c"
    return t is TracedComplex or isinstance(x, np.complexfloating)


def involved(args, out):
    """True when a ufunc call has a complex operand or a complex out=."""
    for a in args:
        if is_complex(a):
            return True
    o = out[0] if type(out) is tuple and len(out) == 1 else out
    return o is not None and is_complex(o)


def float_of(dt):
    """The component dtype of complex dtype dt."""
    return _F32 if np.dtype(dt) == C64 else _F64


def fview(z):
    """The float view of complex resident array z: shape z.shape + (2,),
    the same buffer (a view, or the whole buffer when z is)."""
    st = None if z._estrides is None else tuple(2 * s for s in z._estrides) + (1,)
    return _array.view_of(z, _array.ndarray(z._buf, z.shape + (2,), float_of(z.dtype), z._ctx,
                                            2 * z._offset, st, z._whole))


def from_fview(f, dt):
    """The complex array over a C-contiguous whole float array f of shape
    (..., 2)."""
    return _array.ndarray(f._buf, f.shape[:-1], np.dtype(dt), f._ctx)


def parts(z):
    """(real, imag) views of complex resident array z."""
    f = fview(z)
    return f[..., 0], f[..., 1]


# ------------------------------------------------------------- components
def _key(x):
    """_arrayops.dtype_key, with a Python complex weak too (NEP 50)."""
    return complex if type(x) is complex else _arrayops.dtype_key(x)


def _re_im(x, fdt, ctx):
    """(re, im) of operand x at component dtype fdt: resident arrays or
    NumPy scalars of fdt; im None where it is zero (a real operand)."""
    if not isinstance(x, _array.ndarray) and np.ndim(x):  # NumPy arrays, lists
        x = _array.asarray(np.asarray(x), context=ctx)
    if isinstance(x, _array.ndarray):
        if x.dtype.kind == "c":
            re, im = parts(x)
            if re.dtype != fdt:
                re, im = re.astype(fdt), im.astype(fdt)
            return re, im
        return (x if x.dtype == fdt else x.astype(fdt)), None
    v = np.asarray(x).item()
    if isinstance(v, complex):
        return fdt.type(v.real), fdt.type(v.imag)
    return fdt.type(v), None


def _resident(x):
    """x is an array of the device: resident, or traced (the fused path, a
    function vp.jit traces)."""
    return isinstance(x, (_array.ndarray, _graph.Traced, TracedComplex))


def _ufunc(name):
    from . import _ufunc as u
    return getattr(u, name)


def _op(name, x, y=None, dst=None):
    """vp.<name>(x[, y]) on resident components (NumPy's own on scalars),
    into dst when given."""
    args = (x,) if y is None else (x, y)
    if not any(_resident(a) for a in args):
        return _kept(getattr(np, name)(*args), dst)
    f = _ufunc(name)
    if isinstance(dst, _Slot):
        return _kept(f(*args), dst)
    if dst is not None and np.broadcast_shapes(*(_shape_of(a) for a in args)) != dst.shape:
        return _kept(f(*args), dst)  # a broadcast result: out= must have the operands' shape
    return f(*args, out=dst) if dst is not None else f(*args)


def _put(dst, v):
    """dst[...] = v (None = 0)."""
    if isinstance(dst, _Slot):
        dst.value = v
        return
    if v is None:
        v = 0
    if _resident(v):
        if v is not dst:
            _arrayops.assign(dst, v)
    elif np.ndim(v):  # a NumPy array or list: broadcast into dst
        _arrayops.assign(dst, _array.asarray(np.asarray(v), context=dst._ctx))
    else:
        _arrayops.fill(dst, v)


def _kept(r, dst):
    """r, also put into dst when given."""
    if dst is not None:
        _put(dst, r)
    return r


def _add(x, y, dst=None):
    if x is None or y is None:
        return _kept(y if x is None else x, dst)
    return _op("add", x, y, dst)


def _sub(x, y, dst=None):
    if y is None:
        return _kept(x, dst)
    if x is None:
        return _op("negative", y, None, dst)
    return _op("subtract", x, y, dst)


def _mul(x, y):
    return None if x is None or y is None else _op("multiply", x, y)


def _div(x, y, dst=None):
    if x is None:
        return _kept(None, dst)
    return _op("divide", x, y, dst)


# ------------------------------------------------------------- ufuncs
def _shape_of(x):
    s = getattr(x, "shape", None)
    return () if s is None else tuple(s)


def ufunc(uf, args, out, context, sync):
    """The call of vulpy Ufunc `uf` with a complex operand or out=."""
    name = {"true_divide": "divide", "conj": "conjugate"}.get(uf.name, uf.name)
    o = out[0] if type(out) is tuple and len(out) == 1 else out
    if any(isinstance(a, (_graph.Traced, TracedComplex)) for a in args):  # inside vp.jit
        return _traced_ufunc(uf, name, args, out)
    args = tuple(np.asarray(a) if isinstance(a, (list, tuple)) else a for a in args)
    if name not in SUPPORTED:
        dt = next((np.asarray(a).dtype if not _resident(a) else a.dtype) for a in
                  tuple(args) + ((o,) if o is not None else ()) if is_complex(a))
        raise unsupported(f"vp.{uf.name}", dt)
    if not sync:
        raise TypeError(f"vp.{uf.name}: sync=False is not supported with complex operands")
    if len(args) != uf.nin:
        raise TypeError(f"vp.{uf.name} takes {uf.nin} input(s), got {len(args)}")
    ctx = _array.common_context(f"vp.{uf.name}", tuple(args) + (o,))
    host = ctx is None  # NumPy in, NumPy out (convenience mode)
    if ctx is None:
        ctx = _context.resolve(context)
    if name == "cast":
        rdt = o.dtype
    elif name == "where":  # x and y promote (NEP 50: Python scalars are weak)
        rdt = np.result_type(*(k if isinstance(k, np.dtype) else k(0)
                               for k in (_key(a) for a in args[1:])))
    else:
        try:
            rdt = uf.np.resolve_dtypes(tuple(_key(a) for a in args) + (None,))[-1]
        except Exception as e:
            raise TypeError(f"vp.{uf.name}: no loop for these operands: {e}") from None
    try:
        shape = np.broadcast_shapes(*(_shape_of(a) for a in args))
    except ValueError:
        raise ValueError(f"vp.{uf.name}: operands could not be broadcast together with shapes "
                         f"{' '.join(str(_shape_of(a)) for a in args)}") from None
    if rdt.kind == "c" and not ctx.has("float64") and rdt == C128:
        ctx.require("float64", f"vp.{uf.name} on complex128")
    # where the result goes: out= (resident of the result's dtype and shape), else new
    res = None
    if o is not None:
        if not _resident(o) and not host:
            raise TypeError(f"vp.{uf.name}: out= must be a resident array when an operand is")
        if o.dtype != rdt:
            raise _array.out_dtype_error(f"vp.{uf.name}", o, rdt)
        if tuple(o.shape) != shape:
            raise _array.out_shape_error(f"vp.{uf.name}", o, shape)
        if _resident(o) and not any(_array.overlaps(o, a) for a in args):
            res = o
    if res is None:
        res = _array._result(shape, rdt, (o.memory if _resident(o) else ctx.default_memory),
                             ctx)
    _compute(name, args, res, ctx)
    if o is not None and o is not res:
        if _resident(o):
            _assign(o, res)
        else:
            np.copyto(o, res.numpy())
        return o
    return res.numpy() if host else res


def _compute(name, args, res, ctx):
    """Writes vp.<name>(*args) into the new resident array res."""
    rdt = res.dtype
    if name == "where":
        _where(args, *parts(res), float_of(rdt), ctx)
        return
    # the components' dtype: that of the operands' complex promotion
    if name in ("cast", "float_power"):  # (float_power: in complex128)
        cdt = rdt
    elif len(args) == 2:
        cdt = np.add.resolve_dtypes((_key(args[0]), _key(args[1]), None))[-1]
    else:
        cdt = np.negative.resolve_dtypes((_key(args[0]), None))[-1]
    fdt = float_of(cdt)
    comps = [_re_im(a, fdt, ctx) for a in args]
    if name not in _UNFUSED and _fused(name, args, comps, res, fdt):
        return
    _formula(name, args, comps, res, fdt)


# ------------------------------------------------------------- inside vp.jit
# A complex array in a function vp.jit traces is a TracedComplex: its two
# parts, traced real arrays. Its ufuncs are the formulas above (_formula,
# what the eager ufuncs run) on the parts, so the function becomes real
# kernels that fuse like any other; vp.jit reads a complex argument's parts
# and stores a complex result's parts through the interleaved buffer
# (vulpy/_jit.py).
def _tkey(x):
    """The resolve_dtypes key of a ufunc operand inside vp.jit."""
    if type(x) is TracedComplex:
        return complex if x.weak else x.dtype
    if hasattr(x, "pyval"):  # a weak Python scalar argument (_jit._WeakScalar)
        return _BOOL if isinstance(x.pyval, (bool, np.bool_)) else type(x.pyval)
    if isinstance(x, _graph.Traced):
        return x.dtype
    return _key(x)


def _tshape(x):
    return tuple(x.shape) if isinstance(x, (_graph.Traced, TracedComplex)) else \
        tuple(np.shape(x))


def _traced_parts(x, fdt):
    """(re, im) of operand x inside vp.jit at component dtype fdt: traced
    arrays, NumPy arrays (constants of the function) or NumPy scalars; im
    None where it is zero."""
    if type(x) is TracedComplex:
        return x._cast(x.re, fdt), x._cast(x.im, fdt)
    if hasattr(x, "pyval"):  # weak: takes the parts' dtype where it is used
        return x, None
    if isinstance(x, _graph.Traced):
        return (x if x.dtype == fdt else x.astype(fdt)), None
    if isinstance(x, _array.ndarray):
        return _re_im(x, fdt, x._ctx)  # (the trace refuses it, naming it)
    h = np.asarray(x)
    if h.ndim == 0:
        v = h.item()
        return (fdt.type(v.real), fdt.type(v.imag)) if isinstance(v, complex) else \
            (fdt.type(v), None)
    if h.dtype.kind == "c":
        return h.real.astype(fdt), h.imag.astype(fdt)
    return h.astype(fdt), None


def _traced_ufunc(uf, name, args, out):
    """vp.<uf.name>(*args) with a complex operand inside vp.jit: the
    formula traced on the parts."""
    if out is not None:
        raise TypeError(f"vp.{uf.name}: out= inside vp.jit; return the result instead")
    if len(args) != uf.nin:
        raise TypeError(f"vp.{uf.name} takes {uf.nin} input(s), got {len(args)}")
    anchor = next(a.re if type(a) is TracedComplex else a for a in args
                  if isinstance(a, (_graph.Traced, TracedComplex)))
    if type(anchor) is not TracedComplex and not isinstance(anchor, _graph.Traced):
        anchor = anchor.anchor
    if name not in SUPPORTED or name == "cast":
        dt = next(_tkey(a) for a in args if is_complex(a))
        raise unsupported(f"vp.jit: vp.{uf.name}", dt if isinstance(dt, np.dtype) else C128)
    keys = tuple(_tkey(a) for a in args)
    if name == "where":
        rdt = np.result_type(*(k if isinstance(k, np.dtype) else k(0) for k in keys[1:]))
    else:
        try:
            rdt = uf.np.resolve_dtypes(keys + (None,))[-1]
        except Exception as e:
            raise TypeError(f"vp.{uf.name}: no loop for these operands: {e}") from None
    try:
        shape = np.broadcast_shapes(*(_tshape(a) for a in args))
    except ValueError:
        raise ValueError(f"vp.{uf.name}: operands could not be broadcast together with shapes "
                         f"{' '.join(str(_tshape(a)) for a in args)}") from None
    if name == "float_power":
        cdt = rdt
    elif len(args) == 2 or name == "where":
        cdt = np.result_type(np.add.resolve_dtypes((keys[-2], keys[-1], None))[-1], C64)
    else:
        cdt = np.result_type(np.negative.resolve_dtypes((keys[0], None))[-1], C64)
    fdt = float_of(cdt)
    if name == "where":
        c, x, y = args
        if is_complex(c):
            c = _ufunc("not_equal")(c, 0)
        (xr, xi), (yr, yi) = _traced_parts(x, fdt), _traced_parts(y, fdt)
        z = fdt.type(0)
        w = _ufunc("where")
        return TracedComplex(w(c, xr, yr), w(c, z if xi is None else xi, z if yi is None else yi),
                             rdt, shape, anchor)
    comps = [_traced_parts(a, fdt) for a in args]
    if rdt.kind == "c":
        slots = (_Slot(shape), _Slot(shape))
        _formula(name, args, comps, slots, fdt)
        # of Python scalars only (a complex argument times 2): weak too, as
        # Python's own arithmetic keeps them
        weak = all(a.weak if type(a) is TracedComplex else
                   hasattr(a, "pyval") or type(a) in (bool, int, float, complex) for a in args)
        return TracedComplex(slots[0].value, slots[1].value, rdt, shape, anchor, weak)
    slot = _Slot(shape)
    _formula(name, args, comps, slot, fdt)
    return _traced_full(slot.value, rdt, shape, anchor)


def _traced_full(v, dt, shape, anchor):
    """v (a traced array, NumPy data or None = 0) as a traced array of
    dtype dt and this shape."""
    if not isinstance(v, _graph.Traced):
        return anchor._vp_like(0 if v is None else v, dt, shape)
    if hasattr(v, "pyval"):  # a weak scalar argument's part: its push constant as dt
        v = v.wrap(v.value_as(dt))
    if v.dtype != dt:
        v = v.astype(dt)
    if tuple(v.shape) != tuple(shape):
        v = _array._ops.broadcast_to(v, shape)
    return v


class TracedComplex:
    """A complex64 / complex128 array inside a function vp.jit traces: its
    real and imaginary parts `re` and `im`, each a traced real array that
    broadcasts to `shape` (or a constant; im None: zero). It takes what a
    complex vp.ndarray takes inside vp.jit: the ufuncs and operators of
    the complex support list, .real / .imag / .conj(), indexing, reshape /
    transpose, astype, sum / mean / cumsum, any / all."""

    __slots__ = ("re", "im", "dtype", "shape", "anchor", "weak")
    _vp_traced = True
    __hash__ = None

    def __array__(self, dtype=None, copy=None):
        # (np.asarray of it must not make an object array)
        raise TypeError("vp.jit: this operation needs the values of a traced complex array "
                        "(numpy.asarray of it), which do not exist while vp.jit traces the "
                        "function; it is not supported inside vp.jit (run it outside, on the "
                        "result)")

    def _vp_like(self, value, dtype, shape):
        """vp.zeros_like / ones_like / full_like / empty_like of it."""
        dt = self.dtype if dtype is None else np.dtype(dtype)
        shape = self.shape if shape is None else shape
        if dt.kind != "c":
            return self.anchor._vp_like(value, dt, shape)
        v = complex(value) if np.ndim(value) == 0 else np.asarray(value, dt)
        f = float_of(dt)
        return TracedComplex(self.anchor._vp_like(np.real(v), f, shape),
                             self.anchor._vp_like(np.imag(v), f, shape), dt,
                             self.anchor._vp_like(0, f, shape).shape, self.anchor)

    def __init__(self, re, im, dtype, shape, anchor, weak=False):
        self.re, self.im, self.dtype = re, im, np.dtype(dtype)
        self.shape, self.anchor = tuple(shape), anchor  # (anchor: a traced array of the trace)
        self.weak = weak  # a Python complex argument: weak in promotion (NEP 50)

    @staticmethod
    def _cast(p, fdt):
        if p is None:
            return None
        if isinstance(p, _graph.Traced):
            return p if hasattr(p, "pyval") or p.dtype == fdt else p.astype(fdt)
        return np.asarray(p).astype(fdt)[()] if np.ndim(p) == 0 else np.asarray(p).astype(fdt)

    def part(self, k):
        """Part k (0: real, 1: imaginary) as a traced array of this
        array's shape and component dtype."""
        return _traced_full(self.re if k == 0 else self.im, float_of(self.dtype), self.shape,
                            self.anchor)

    def _map(self, f):
        """f applied to both parts (a view-like operation)."""
        re, im = f(self.part(0)), f(self.part(1))
        return TracedComplex(re, im, self.dtype, re.shape, self.anchor)

    def __repr__(self):
        return f"<traced {self.dtype.name} array, shape {self.shape}>"

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return int(np.prod(self.shape, dtype=np.int64))

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    def _no_value(self, what):
        raise TypeError(f"vp.jit: {what} of a traced complex array: its value does not exist "
                        f"while the function is traced (use vp.where for a choice)")

    def __bool__(self):
        self._no_value("bool()")

    def __complex__(self):
        self._no_value("complex()")

    def __float__(self):
        self._no_value("float()")

    def __iter__(self):
        self._no_value("iteration")

    def item(self):
        self._no_value(".item()")

    @property
    def real(self):  # (of a Python complex argument: a weak float, as Python's)
        return self.re if hasattr(self.re, "pyval") else self.part(0)

    @property
    def imag(self):
        return self.im if hasattr(self.im, "pyval") else self.part(1)

    def conj(self):
        return ufunc(_Named("conjugate", 1, np.conjugate), (self,), None, None, True)

    conjugate = conj

    def __getitem__(self, key):
        return self._map(lambda p: p[key])

    def __setitem__(self, key, value):
        raise TypeError("vp.jit: an assignment into a traced array (x[...] = v); build the "
                        "result with vp.where, or pass out= to the call")

    def reshape(self, *shape):
        return self._map(lambda p: p.reshape(*shape))

    def ravel(self):
        return self._map(lambda p: p.ravel())

    flatten = ravel

    def transpose(self, *axes):
        return self._map(lambda p: p.transpose(*axes))

    @property
    def T(self):
        return self._map(lambda p: p.T)

    def copy(self):
        return self

    def astype(self, dtype):
        dt = np.dtype(dtype)
        if dt == _BOOL:  # NumPy's: nonzero, either part
            return _ufunc("not_equal")(self, 0)
        if dt.kind != "c":
            raise TypeError(f"astype: {self.dtype.name} to {dt.name} would drop the imaginary "
                            f"part; take .real (or abs()) first")
        f = float_of(dt)
        return TracedComplex(self._cast(self.re, f), self._cast(self.im, f), dt, self.shape,
                             self.anchor)

    def _vp_reduce(self, kind, axis, dtype, keepdims):
        """vp.<kind>(this, axis, dtype=, keepdims=) (_reduce.reduce's hook)."""
        if kind in ("any", "all"):
            return getattr(_array._ops, kind)(_ufunc("not_equal")(self, 0), axis,
                                              keepdims=keepdims)
        if kind not in ("sum", "mean", "cumsum"):
            raise TypeError(f"vp.jit: vp.{kind} of a traced {self.dtype.name} array is not "
                            f"supported (sum, mean, cumsum, any and all are; run it outside "
                            f"vp.jit)")
        z = self if dtype is None else self.astype(dtype)
        if dtype is not None and np.dtype(dtype).kind != "c":
            raise TypeError(f"vp.{kind}: dtype={np.dtype(dtype).name} of a {self.dtype.name} "
                            f"array would drop the imaginary part; take .real first")
        kw = {} if kind == "cumsum" else {"keepdims": keepdims}
        re, im = (getattr(_array._ops, kind)(z.part(k), axis, **kw) for k in (0, 1))
        return TracedComplex(re, im, z.dtype, re.shape, self.anchor)

    def sum(self, axis=None, dtype=None, keepdims=False):
        return self._vp_reduce("sum", axis, dtype, keepdims)

    def mean(self, axis=None, dtype=None, keepdims=False):
        return self._vp_reduce("mean", axis, dtype, keepdims)

    def cumsum(self, axis=None, dtype=None):
        return self._vp_reduce("cumsum", axis, dtype, False)

    def prod(self, axis=None, dtype=None, keepdims=False):
        return self._vp_reduce("prod", axis, dtype, keepdims)

    def max(self, axis=None, keepdims=False):
        return self._vp_reduce("max", axis, None, keepdims)

    def min(self, axis=None, keepdims=False):
        return self._vp_reduce("min", axis, None, keepdims)

    def any(self, axis=None, keepdims=False):
        return self._vp_reduce("any", axis, None, keepdims)

    def all(self, axis=None, keepdims=False):
        return self._vp_reduce("all", axis, None, keepdims)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        f = getattr(_array._ops, ufunc.__name__, None)
        if method != "__call__" or kwargs or not callable(f):
            raise TypeError(f"vp.jit: numpy.{ufunc.__name__} (method {method!r}) of a traced "
                            f"complex array is not supported; call vp.{ufunc.__name__}")
        return f(*inputs)

    def __matmul__(self, other):
        raise TypeError("vp.jit: matmul (@) of traced complex arrays is not supported inside "
                        "vp.jit; run it outside (complex matmul runs eagerly on the device)")

    __rmatmul__ = __matmul__

    # NumPy functions of it (vp.reshape(z), ... call them for arrays that are
    # not resident): the view-like ones of each part (traced), those with a
    # complex hook here, and a clear TypeError for the rest
    _VIEWS = ("reshape", "ravel", "transpose", "swapaxes", "moveaxis", "expand_dims", "squeeze",
              "broadcast_to", "flip")
    _HOOKED = ("real", "imag", "conj", "conjugate", "angle", "sum", "mean", "cumsum", "any",
               "all", "where", "round", "around")

    def __array_function__(self, func, types, args, kwargs):
        name = func.__name__
        if name in ("ndim", "shape", "size"):
            return getattr(self, name)
        if name in ("iscomplexobj", "isrealobj"):
            return name == "iscomplexobj"
        if name in self._VIEWS and args and args[0] is self:
            return self._map(lambda p: func(p, *args[1:], **kwargs))
        if name in self._HOOKED:
            return getattr(_array._ops, name)(*args, **kwargs)
        if name in ("concatenate", "stack") and args:  # the parts joined, each (traced)
            items = list(args[0])
            dt = np.result_type(*(_tkey(x) if type(x) is TracedComplex or
                                  isinstance(x, _graph.Traced) else np.asarray(x).dtype
                                  for x in items), C64)
            f = float_of(dt)

            def part(x, k):
                if type(x) is TracedComplex:
                    return x.astype(dt).part(k)
                if isinstance(x, _graph.Traced):
                    return x.astype(f) if k == 0 else _array.zeros_like(x, dtype=f)
                h = np.asarray(x)
                return (h.real if k == 0 else h.imag).astype(f)
            re, im = (func([part(x, k) for x in items], *args[1:], **kwargs) for k in (0, 1))
            return TracedComplex(re, im, dt, re.shape, self.anchor)
        raise TypeError(f"vp.jit: {name} of a traced {self.dtype.name} array is not supported "
                        f"inside vp.jit (complex values there take ufuncs, operators, "
                        f"indexing, reshape / transpose, astype, sum / mean / cumsum, any / "
                        f"all, real / imag / conj / angle and round); run it outside vp.jit")


def _traced_operators():
    def binop(name):
        return (lambda self, other: _ufunc(name)(self, other),
                lambda self, other: _ufunc(name)(other, self))
    for op, name in (("add", "add"), ("sub", "subtract"), ("mul", "multiply"),
                     ("truediv", "divide"), ("pow", "power")):
        f, rf = binop(name)
        setattr(TracedComplex, f"__{op}__", f)
        setattr(TracedComplex, f"__r{op}__", rf)
    for op, name in (("eq", "equal"), ("ne", "not_equal"), ("lt", "less"),
                     ("le", "less_equal"), ("gt", "greater"), ("ge", "greater_equal")):
        setattr(TracedComplex, f"__{op}__", binop(name)[0])
    for op, name in (("neg", "negative"), ("pos", "positive"), ("abs", "absolute")):
        setattr(TracedComplex, f"__{op}__", (lambda n: lambda self: _ufunc(n)(self))(name))


_traced_operators()


# ------------------------------------------------------------- one kernel
# A complex ufunc is a formula of many real ufuncs on the parts (below). Run
# one by one they are tens of dispatches, each compiled for the shape of the
# parts (strided views, the array path). So the formula is traced by vp.jit
# instead, once per operation and operand pattern: the parts (resident
# views) and scalar parts (NumPy scalars of the parts' dtype: push
# constants, no trace per value) are its arguments, the result's parts its
# out=; it then runs as one kernel, compiled once per shape, with every
# float instruction NoContraction as eager ones are (docs/runtime.md), so
# the bits are those of the ufuncs one by one. A pattern the trace cannot
# take (a part that stays a constant, say) runs the ufuncs one by one.
_UNFUSED = ("cast", "where")
_FUSED = {}  # (name, dtypes, parts pattern, exponent) -> the vp.jit function
_UNFUSABLE = set()  # those keys with the shapes whose trace failed


class _Slot:
    """A result part while a formula is traced: what the formula puts into
    it is kept, nothing is written."""

    __slots__ = ("shape", "value")

    def __init__(self, shape):
        self.shape, self.value = shape, None


class _NotFusable(Exception):
    pass


def _fused(name, args, comps, res, fdt):
    """vp.<name> as one kernel into res; False when the pattern does not
    fuse (the caller runs the ufuncs one by one)."""
    pattern, xs = [], []
    for part in (p for c in comps for p in c):
        if part is None:
            pattern.append(None)
        elif _resident(part):
            pattern.append(part.dtype)
            xs.append(part)
        else:
            pattern.append("s")
            xs.append(fdt.type(part))
    if not any(isinstance(p, np.dtype) for p in pattern):
        return False
    power = name in ("power", "float_power")
    w = args[1] if power else None
    wkey = (_small_int(w), _resident(w) or np.ndim(w) != 0) if power else None
    key = (name, res.dtype, fdt, tuple(pattern), wkey)
    shapes = (key, tuple(res.shape)) + tuple(tuple(x.shape) for x in xs if _resident(x))
    if shapes in _UNFUSABLE:
        return False
    f = _FUSED.get(key)
    if f is None:
        f = _FUSED[key] = _array._ops.jit(_tracer(name, pattern, res.dtype, fdt, w, wkey))
    outs = parts(res) if res.dtype.kind == "c" else (res,)
    try:
        f(*xs, out=outs)
    except _NotFusable:  # (raised by the trace: nothing ran)
        _UNFUSABLE.add(shapes)
        return False
    return True


def _tracer(name, pattern, rdt, fdt, w, wkey):
    """The function vp.jit traces: the parts in, the formula, the result's
    parts out. An error inside the trace (an op the trace does not take)
    is _NotFusable: the caller runs the ufuncs one by one instead."""
    cplx = rdt.kind == "c"

    def formula(*xs):
        it = iter(xs)
        flat = [None if p is None else next(it) for p in pattern]
        comps = list(zip(flat[0::2], flat[1::2]))
        shape = np.broadcast_shapes(*(tuple(x.shape) for x in xs
                                      if getattr(x, "shape", None) is not None))
        slots = (_Slot(shape), _Slot(shape)) if cplx else (_Slot(shape),)
        # the exponent: its value matters only through wkey (an int below
        # 100 multiplies; an array decides per element)
        wv = None if w is None else (comps[1][0] if wkey[1] else w)
        try:
            _formula(name, (None, wv), comps, slots if cplx else slots[0], fdt)
        except Exception as e:
            raise _NotFusable(name) from e
        if not all(isinstance(s.value, _graph.Traced) and s.value.shape is not None and
                   tuple(s.value.shape) == shape for s in slots):
            raise _NotFusable(name)  # (a constant part, or one a broadcast would fill)
        return tuple(s.value for s in slots) if cplx else slots[0].value

    formula.__name__ = f"complex_{name}"
    return formula


def _formula(name, args, comps, res, fdt):
    """Writes vp.<name> of the parts `comps` (res: the result, or for a
    complex one its parts as a pair) through the ufuncs on the parts."""
    if isinstance(res, tuple):  # traced: the result's parts
        (dre, dim), rdt = res, np.result_type(fdt, np.complex64)
    elif isinstance(res, _Slot):  # traced: a real result
        dre = dim = rdt = None
    else:
        rdt = res.dtype
        dre, dim = parts(res) if rdt.kind == "c" else (None, None)
    if name == "cast":
        (ar, ai), = comps
        if rdt.kind != "c":
            raise TypeError(f"astype: {args[0].dtype.name} to {rdt.name} would drop the "
                            f"imaginary part; take .real (or abs()) first")
        _put(dre, ar)
        _put(dim, ai)
        return
    if name in ("add", "subtract"):
        (ar, ai), (br, bi) = comps
        f = _add if name == "add" else _sub
        f(ar, br, dre)
        f(ai, bi, dim)
    elif name == "multiply":
        (ar, ai), (br, bi) = comps
        _sub(_mul(ar, br), _mul(ai, bi), dre)
        _add(_mul(ar, bi), _mul(ai, br), dim)
    elif name == "divide":
        (ar, ai), (br, bi) = comps
        if bi is None:
            _div(ar, br, dre)
            _div(ai, br, dim)
        else:
            _divide(ar, fdt.type(0) if ai is None else ai, br, bi, dre, dim, fdt)
    elif name in ("negative", "positive", "conjugate"):
        (ar, ai), = comps
        _sub(None, ar, dre) if name == "negative" else _put(dre, ar)
        if name == "positive":
            _put(dim, ai)
        elif ai is None:
            _put(dim, None)
        else:
            _op("negative", ai, None, dim)
    elif name == "absolute":
        (ar, ai), = comps
        if ai is None:
            _op("absolute", ar, None, res)
        else:
            _op("hypot", ar, ai, res)
    elif name in ("exp", "exp2"):
        (ar, ai), = comps
        if name == "exp2":  # exp(z ln 2), NumPy's nc_exp2
            ln2 = fdt.type(np.log(2.0))
            ar = _op("multiply", ar, ln2)
            ai = None if ai is None else _op("multiply", ai, ln2)
        if ai is None:
            _op("exp", ar, None, dre)
            _put(dim, None)
        else:
            _exp(ar, ai, dre, dim, fdt)
    elif name in ("equal", "not_equal"):
        (ar, ai), (br, bi) = comps
        z = fdt.type(0)
        re = _op(name, ar, br)
        im = _op(name, ai if ai is not None else z, bi if bi is not None else z)
        _op("logical_and" if name == "equal" else "logical_or", re, im, res)
    elif name == "square":  # (x*x - y*y, x*y + y*x), NumPy's nc_square
        (ar, ai), = comps
        _sub(_mul(ar, ar), _mul(ai, ai), dre)
        _add(_mul(ar, ai), _mul(ai, ar), dim)
    elif name in _LOGICAL:
        # NumPy's truth of a complex value: either part nonzero (NaN is true)
        truth = [_op("not_equal", r, fdt.type(0)) if i is None else
                 _op("logical_or", _op("not_equal", r, fdt.type(0)),
                     _op("not_equal", i, fdt.type(0))) for r, i in comps]
        _op(name, truth[0], truth[1] if len(truth) == 2 else None, res)
    elif name in _ORDER:
        (ar, ai), (br, bi) = comps
        z = fdt.type(0)
        ai, bi = (z if v is None else v for v in (ai, bi))
        _order(name, ar, ai, br, bi, res)
    elif name in ("maximum", "minimum", "fmax", "fmin"):
        (ar, ai), (br, bi) = comps
        z = fdt.type(0)
        ai, bi = (z if v is None else v for v in (ai, bi))
        ge = _order("greater_equal" if name in ("maximum", "fmax") else "less_equal",
                    ar, ai, br, bi)
        # maximum / minimum: a where a has a NaN or a >= b (<= b), else b
        # (NaNs propagate); fmax / fmin: a where b has a NaN or a >= b
        nan = _op("logical_or", _op("isnan", ar if name in ("maximum", "minimum") else br),
                  _op("isnan", ai if name in ("maximum", "minimum") else bi))
        pick = _op("logical_or", nan, ge)
        _op_where(pick, ar, br, dre)
        _op_where(pick, ai, bi, dim)
    elif name in ("power", "float_power"):
        (ar, ai), (br, bi) = comps
        re, im = _power(args[1], ar, ai, br, bi, fdt)
        _put(dre, re)
        _put(dim, im)
    elif name in ("isnan", "isinf", "isfinite"):
        (ar, ai), = comps
        re = _op(name, ar)
        if ai is None:
            _put(res, re)
        else:
            _op("logical_and" if name == "isfinite" else "logical_or", re, _op(name, ai), res)
    else:
        (ar, ai), = comps
        ai = fdt.type(0) if ai is None else ai
        if name in ("reciprocal", "sqrt", "log", "log2", "log10"):
            _tiny_scaled(name, ar, ai, dre, dim, fdt)
        elif name in ("sinh", "cosh", "tanh"):
            _HYPERBOLIC[name](ar, ai, dre, dim, fdt)
        elif name == "sign":
            _sign(ar, ai, dre, dim, fdt)
        elif name == "log1p":
            _log1p(ar, ai, dre, dim, fdt)
        elif name == "expm1":
            _expm1(ar, ai, dre, dim, fdt)
        elif name in _INVERSE:
            _inverse(name, ar, ai, dre, dim, fdt)
        elif name == "rint":  # each part, half to even
            _op("rint", ar, None, dre)
            _op("rint", ai, None, dim)
        elif name in ("sin", "cos", "tan"):
            # sin z = -i sinh(iz), cos z = cosh(iz), tan z = -i tanh(iz), iz = -y + ix
            f = _HYPERBOLIC[{"sin": "sinh", "cos": "cosh", "tan": "tanh"}[name]]
            re, im = f(_op("negative", ai), ar, None, None, fdt)
            if name == "cos":
                _put(dre, re)
                _put(dim, im)
            elif name == "tan":  # -i (re + i im) = im - i re
                _put(dre, im)
                _op("negative", re, None, dim)
            else:  # sin; (inf or NaN, +-inf) gives (NaN, +inf), NumPy's
                hit = _op("logical_and", _op("logical_not", _op("isfinite", ar)),
                          _op("isinf", ai))
                _put(dre, im)
                _op_where(hit, fdt.type(np.inf), _op("negative", re), dim)
        else:  # pragma: no cover - SUPPORTED lists the names above
            raise unsupported(f"vp.{name}", rdt)


_ORDER = ("less", "less_equal", "greater", "greater_equal")


def _order(name, ar, ai, br, bi, dst=None):
    """NumPy's lexicographic complex comparison (CLT, CLE, CGT, CGE in its
    loops): (ar < br and neither imaginary part NaN) or (ar == br and ai <
    bi), <= / > / >= alike."""
    strict = {"less_equal": "less", "greater_equal": "greater"}.get(name, name)
    first = _op("logical_and", _op(strict, ar, br),
                _op("logical_not", _op("logical_or", _op("isnan", ai), _op("isnan", bi))))
    return _op("logical_or", first, _op("logical_and", _op("equal", ar, br), _op(name, ai, bi)),
               dst)


def _op_where(c, a, b, dst=None):
    w = _ufunc("where")
    if isinstance(dst, _Slot):
        return _kept(w(c, a, b), dst)
    if dst is not None and np.broadcast_shapes(*(_shape_of(v) for v in (c, a, b))) == dst.shape:
        return w(c, a, b, out=dst)
    return _kept(w(c, a, b), dst)


def _divide(ar, ai, br, bi, dre, dim, fdt, back=None):
    """(ar + i ai) / (br + i bi) as NumPy's loop (Smith's method, so |b|^2
    never overflows or underflows): where |br| >= |bi|, r = bi/br, s =
    1/(br + bi r), ((ar + ai r) s, (ai - ar r) s); else r = br/bi, s =
    1/(bi + br r), ((ar r + ai) s, (ai r - ar) s); a zero divisor gives
    (ar/|br|, ai/|br|), NumPy's infinities and NaNs. Into dre, dim when
    given; returns the parts. back (an int array): the divisor is (br + i
    bi) 2^-back, given scaled into the normal range (_int_power_scaled);
    its parts are first rounded to the subnormal grid that divisor has
    (vp.ldexp down and up again, from the bits: a part below 2^-150 becomes
    0, the zero divisor's answer where both do), and s is scaled back (inf
    where NumPy's 1/den overflows) before it multiplies."""
    one = fdt.type(1)
    if back is not None:
        nback = _op("negative", back)
        br = _op("ldexp", _op("ldexp", br, nback), back)
        bi = _op("ldexp", _op("ldexp", bi, nback), back)
    abr, abi = _op("absolute", br), _op("absolute", bi)
    big = _op("greater_equal", abr, abi)
    r = _op_where(big, _op("divide", bi, br), _op("divide", br, bi))
    den = _op_where(big, _op("add", br, _op("multiply", bi, r)),
                    _op("add", bi, _op("multiply", br, r)))
    s = _op("divide", one, den)
    times_r = times_s = None
    if _flushing(fdt, ar, ai, br, bi):
        # r and s = 1/den may be subnormal where NumPy's quotient is not
        up = fdt.type(2.0 ** 64)
        times_r = _times_subnormal(_op("divide", _op("multiply", _op_where(big, bi, br), up),
                                       _op_where(big, br, bi)), r, fdt)
        if back is None:
            times_s = _times_subnormal(_op("divide", up, den), s, fdt)
    if back is not None:
        s = _op("ldexp", s, back)
    times_r = times_r or (lambda x: _op("multiply", x, r))
    times_s = times_s or (lambda x: _op("multiply", x, s))
    re, im = _divide_by_s(ar, ai, big, times_r, times_s)
    zero = _op("logical_and", _op("equal", abr, fdt.type(0)), _op("equal", abi, fdt.type(0)))
    return (_op_where(zero, _op("divide", ar, abr), re, dre),
            _op_where(zero, _op("divide", ai, abr), im, dim))


def _divide_by_s(ar, ai, big, times_r, times_s):
    """Smith's numerators times s: ((ar + ai r) s, (ai - ar r) s) where
    big, else ((ar r + ai) s, (ai r - ar) s)."""
    re = _op_where(big, _op("add", ar, times_r(ai)), _op("add", times_r(ar), ai))
    im = _op_where(big, _op("subtract", ai, times_r(ar)), _op("subtract", times_r(ai), ar))
    return times_s(re), times_s(im)


# Tests set it to take _times_subnormal's path on a device that keeps subnormals.
FORCE_SCALED_RATIO = False


def _flushing(fdt, *parts):
    """Whether a complex64 division runs where float32 subnormals flush
    (Context.flushes_subnormals: NVIDIA), read from its resident parts."""
    if fdt != np.float32:
        return False
    for p in parts:
        # a resident array's context, or a tracer's (the fused path)
        ctx = getattr(p, "_ctx", None) or getattr(getattr(p, "_t", None), "ctx", None)
        if ctx is not None:
            return FORCE_SCALED_RATIO or ctx.flushes_subnormals
    return False


def _tiny_scaled(name, x, y, dre, dim, fdt):
    """reciprocal, sqrt, log, log2, log10 of a tiny z: where both parts
    are below 2^-60 (complex128: 2^-600), z is taken as z' = z 2^64
    (2^700; vp.ldexp, which reads a float32 subnormal from its bits) and
    the answer scaled back: 1/z = 2^64 / z', sqrt z = 2^-32 sqrt z', log z
    = log z' - 64 log 2 (the angle is z''s). |z| of subnormal parts lost
    their digits in hypot (sqrt(1e-45 + 1e-45j) was 3.7e-23 + 1.9e-23j,
    NumPy 4.1e-23 + 1.7e-23j), and a device that flushes float32
    subnormals reads them as 0 in every float operation (on the H200
    sqrt(1e-45 + 0j) was 0, NumPy 3.7e-23; log -inf, NumPy -103.3;
    reciprocal NaN, NumPy inf)."""
    wide = np.dtype(fdt) == np.float64
    k = 700 if wide else 64
    lim = fdt.type(2.0 ** (-600 if wide else -60))
    tiny = _op("logical_and", _op("less", _op("absolute", x), lim),
               _op("less", _op("absolute", y), lim))
    sx = _op_where(tiny, _op("ldexp", x, k), x)
    sy = _op_where(tiny, _op("ldexp", y, k), y)
    if name == "reciprocal":
        back = _op_where(tiny, k, 0)
        if _flushing(fdt, x, y):
            # a z past 2^64 where float32 subnormals flush: 1/z is below
            # 2^-126 for z past 2^126, and read as 0 (1/(3e38 + 1j) was 0,
            # NumPy 3.3e-39): z' = z 2^-64, 1/z = 2^-64 / z', the answer
            # made from the bits by vp.ldexp; not where Smith's denominator
            # M + m (m / M) overflows (NumPy's answer is then +-0: 1/(-3e38 +
            # 3e38j) is -0 - 0j there)
            ax, ay = _op("absolute", x), _op("absolute", y)
            big, sm = _op("maximum", ax, ay), _op("minimum", ax, ay)
            huge = _op("logical_and", _op("greater_equal", big, fdt.type(2.0 ** 64)),
                       _op("isfinite", _op("add", big, _op("multiply", sm,
                                                           _op("divide", sm, big)))))
            sx = _op_where(huge, _op("ldexp", x, -k), sx)
            sy = _op_where(huge, _op("ldexp", y, -k), sy)
            back = _op_where(huge, -k, back)
        re, im = _reciprocal(sx, sy, None, None, fdt)
        _op("ldexp", re, back, dre)
        _op("ldexp", im, back, dim)
        return
    if name == "sqrt":
        re, im = _sqrt(sx, sy, None, None, fdt)
        back = _op_where(tiny, -k // 2, 0)
        _op("ldexp", re, back, dre)
        _op("ldexp", im, back, dim)
        return
    re, im = _log(sx, sy, None, None, fdt, name)
    _op("subtract", re, _op_where(tiny, fdt.type(k * np.log(2.0) * _LOG_SCALE[name]),
                                  fdt.type(0)), dre)
    _kept(im, dim)


def _times_subnormal(q, v, fdt):
    """x * v as NumPy's loop rounds it, for a factor v of Smith's method
    (the ratio r = bi/br, or s = 1/den) that may be subnormal, where float32
    subnormals flush: such a device reads a subnormal v as 0, so a normal
    quotient lost a part ((-8.4e31+2.3e-34j) / (1.2e-21-5.1e20j) gave real
    -0, NumPy -4.06e-31; (3e38+3e38j) / 3e38 needs s = 1/3e38). `q` is v
    times 2^64, computed as such (normal down to 2^-190); where v is below
    2^-126 it is rounded to the subnormal grid (multiples of 2^-85 scaled:
    |q| + 2^-62 lies in [2^-62, 2^-61), whose spacing that is, so adding and
    subtracting it rounds as NumPy's v was rounded, ties to even), the
    product taken and scaled back by 2^-64 (exact where the product is
    normal; a subnormal product flushes as any result does, docs/math.md)."""
    down, grid = fdt.type(2.0 ** -64), fdt.type(2.0 ** -62)
    aq = _op("absolute", q)
    tiny = _op("less", aq, grid)
    qr = _op("copysign", _op("subtract", _op("add", aq, grid), grid), q)

    def times(x):
        return _op_where(tiny, _op("multiply", _op("multiply", x, qr), down), _op("multiply", x, v))
    return times


def _reciprocal(x, y, dre, dim, fdt):
    """1 / (x + iy) by Smith's algorithm (no overflow of x*x + y*y): where
    |x| >= |y|, r = y/x, d = x + y r, 1/z = (1/d, -r/d); else r = x/y,
    d = x r + y, 1/z = (r/d, -1/d). Into dre, dim when given; returns the
    parts."""
    big = _op("greater_equal", _op("absolute", x), _op("absolute", y))
    r = _op_where(big, _op("divide", y, x), _op("divide", x, y))
    d = _op_where(big, _op("add", x, _op("multiply", y, r)), _op("add", _op("multiply", x, r), y))
    one = fdt.type(1)
    re = _op_where(big, _op("divide", one, d), _op("divide", r, d), dre)
    return re, _op("negative", _op_where(big, _op("divide", r, d), _op("divide", one, d)), None,
                   dim)


def _exp_parts(x, fdt):
    """(cosh x, sinh x) without their overflow where the product with a
    cosine or sine would be finite: returns (h, c, s) with cosh x = c h,
    sinh x = s h, h = exp(|x| / 2) where |x| is past the overflow of cosh
    (c = h / 2, s = sign(x) h / 2 there), else h = 1."""
    thr = fdt.type(np.log(np.finfo(fdt).max) - 1)
    ax = _op("absolute", x)
    big = _op("greater", ax, thr)
    h = _op_where(big, _op("exp", _op("multiply", ax, fdt.type(0.5))), fdt.type(1))
    half = _op("multiply", h, fdt.type(0.5))
    c = _op_where(big, half, _op("cosh", x))
    s = _op_where(big, _op("copysign", half, x), _op("sinh", x))
    return h, c, s


def _sinh(x, y, dre, dim, fdt):
    """sinh(x + iy) = sinh x cos y + i cosh x sin y (C99 csinh's formula;
    past cosh's overflow as (sinh x / h cos y) h). A zero y keeps its zero
    imaginary part, a zero x with an infinite or NaN y its zero real part
    (glibc's csinh, NumPy's)."""
    h, c, s = _exp_parts(x, fdt)
    re = _op("multiply", _op("multiply", s, _op("cos", y)), h)
    im = _op("multiply", _op("multiply", c, _op("sin", y)), h)
    z = fdt.type(0)
    bad_y = _op("logical_not", _op("isfinite", y))
    re = _op_where(_op("logical_and", _op("equal", x, z), bad_y), x, re)  # (+-0, NaN)
    im = _op_where(_op("equal", y, z), y, im)
    re, im = _inf_x_nonfinite_y(x, bad_y, re, im, fdt)
    return _kept(re, dre), _kept(im, dim)


def _inf_x_nonfinite_y(x, bad_y, re, im, fdt):
    """sinh and cosh of (+-inf, +-inf or NaN) (bad_y: y is not finite):
    (+inf, NaN), NumPy's."""
    hit = _op("logical_and", _op("isinf", x), bad_y)
    return (_op_where(hit, fdt.type(np.inf), re), _op_where(hit, fdt.type(np.nan), im))


def _cosh(x, y, dre, dim, fdt):
    """cosh(x + iy) = cosh x cos y + i sinh x sin y (C99 ccosh's formula;
    past cosh's overflow as (cosh x / h cos y) h); the zero imaginary
    parts and infinities as glibc's ccosh (NumPy's)."""
    h, c, s = _exp_parts(x, fdt)
    re = _op("multiply", _op("multiply", c, _op("cos", y)), h)
    im = _op("multiply", _op("multiply", s, _op("sin", y)), h)
    z = fdt.type(0)
    bad_y = _op("logical_not", _op("isfinite", y))
    y0 = _op("equal", y, z)
    # a zero y: sinh(x) y's sign (y where x is NaN); a zero x with an
    # infinite or NaN y: +0 (glibc's ccosh, NumPy's)
    im = _op_where(y0, _op("multiply", y, _op("copysign", fdt.type(1), x)), im)
    im = _op_where(_op("logical_and", _op("equal", x, z), bad_y), z, im)
    im = _op_where(_op("logical_and", _op("isnan", x), y0), y, im)
    re, im = _inf_x_nonfinite_y(x, bad_y, re, im, fdt)
    return _kept(re, dre), _kept(im, dim)


def _tanh(x, y, dre, dim, fdt):
    """tanh(x + iy) by Kahan's formula (C99 ctanh, NumPy's npy_ctanh): t =
    tan y, b = 1 + t^2, s = sinh x, r = sqrt(1 + s^2); tanh z = (b r s +
    i t) / (1 + b s^2). Past |x| = 9 (float32) / 22 (float64) tanh x is
    +-1 to the last bit: (copysign(1, x), 4 sin y cos y exp(-2|x|))."""
    one = fdt.type(1)
    t = _op("tan", y)
    b = _op("add", one, _op("multiply", t, t))
    sh = _op("sinh", x)
    r = _op("sqrt", _op("add", one, _op("multiply", sh, sh)))
    d = _op("add", one, _op("multiply", b, _op("multiply", sh, sh)))
    re = _op("divide", _op("multiply", _op("multiply", b, r), sh), d)
    im = _op("divide", t, d)
    ax = _op("absolute", x)
    far = _op("greater_equal", ax, fdt.type(9 if fdt == _F32 else 22))
    e = _op("exp", _op("multiply", ax, fdt.type(-2)))
    im_far = _op("multiply", _op("multiply", _op("multiply", _op("sin", y), _op("cos", y)),
                                 fdt.type(4)), e)
    re = _op_where(far, _op("copysign", one, x), re)
    im = _op_where(far, im_far, im)
    z = fdt.type(0)
    re = _op_where(_op("equal", x, z), x, re)
    im = _op_where(_op("equal", y, z), y, im)
    # a non-finite y: (+-1, +-0) where x is infinite, NaNs where x is
    # finite and nonzero (C99's, NumPy's)
    bad_y = _op("logical_not", _op("isfinite", y))
    inf_x = _op("logical_and", _op("isinf", x), bad_y)
    fin_x = _op("logical_and", _op("logical_and", _op("isfinite", x), _op("not_equal", x, z)),
                bad_y)
    re = _op_where(fin_x, fdt.type(np.nan), re)
    im = _op_where(inf_x, _op("copysign", z, y), _op_where(fin_x, fdt.type(np.nan), im))
    return _kept(re, dre), _kept(im, dim)


_HYPERBOLIC = {"sinh": _sinh, "cosh": _cosh, "tanh": _tanh}


def _cmul(p, q):
    """(ar + i ai)(br + i bi) on parts (None: a zero part)."""
    (ar, ai), (br, bi) = p, q
    return _sub(_mul(ar, br), _mul(ai, bi)), _add(_mul(ar, bi), _mul(ai, br))


def _small_int(w):
    """The exponent w as an int when it is a scalar whose value is an
    integer below 100 in magnitude (npy_cpow multiplies then), else None."""
    if _resident(w) or np.ndim(w) != 0:
        return None
    v = complex(np.asarray(w).item())
    if v.imag != 0 or not np.isfinite(v.real) or v.real != int(v.real) or abs(v.real) >= 100:
        return None
    return int(v.real)


def _int_power(a, n, fdt):
    """a ** n for an int n, 0 < |n| < 100, as npy_cpow: a itself (n = 1),
    a a (2), a (a a) (3), else 1 times a^(2^j) for each set bit j of |n|
    (repeated squaring, the product started from 1 + 0j as NumPy's is:
    it decides the NaNs of infinite parts), then 1 / that where n < 0."""
    if n == 1:
        return a
    if n == 2:
        return _cmul(a, a)
    if n == 3:
        return _cmul(a, _cmul(a, a))
    acc = _squarings(a, abs(n), fdt)
    return acc if n > 0 else _divide(fdt.type(1), fdt.type(0), *acc, None, None, fdt)


def _squarings(a, k, fdt):
    """npy_cpow's loop: 1 + 0j times a^(2^j) for each set bit j of k."""
    acc, p = (fdt.type(1), fdt.type(0)), a
    while True:
        if k & 1:
            acc = _cmul(acc, p)
        k >>= 1
        if not k:
            break
        p = _cmul(p, p)
    return acc


def _scale_small(a, fdt):
    """(z', s) with z' = z 2^s, for the integer powers where float32
    subnormals flush (complex64 on NVIDIA): where both parts of z are below
    1 in magnitude (subnormal ones too), s puts the larger part of z' in
    [1/2, 1) (from log2 of that part times 2^64, which vp.ldexp reads from
    the bits of a subnormal), so |z'|^|n| stays normal for |n| < 100; s = 0
    for parts of 1 and more, zeros, infinities and NaNs. z^n (n > 0) fell
    below 2^-126 there and read as 0 (z ** 99 of |z| = 0.4 was 0, NumPy
    4e-40), and 1 / z^|n| took a flushed z^|n| (z ** -5 of a tiny z was
    +inf, NumPy -2.5e38); a power of two changes no bit of a product of
    normal numbers, and vp.ldexp scales the answer back (a subnormal from
    its bits)."""
    x, y = a
    m = _op("ldexp", _op("maximum", _op("absolute", x), _op("absolute", y)), 64)
    small = _op("logical_and", _op("greater", m, fdt.type(0)), _op("less", m, fdt.type(2.0 ** 64)))
    e = _op("floor", _op("log2", _op_where(small, m, fdt.type(1))))
    sc = _op_where(small, _op("subtract", fdt.type(63), e), fdt.type(0)).astype(np.int32)
    return (_op("ldexp", x, sc), _op("ldexp", y, sc)), sc


def _int_power_scaled(a, n, fdt):
    """_int_power of z = a (parts) on z' = z 2^s (_scale_small), scaled
    back: z'^n 2^(-s n) by vp.ldexp for n > 0; for n < 0 NumPy's loop for
    |n| and 1 / that by _divide with back = s |n|."""
    a, sc = _scale_small(a, fdt)
    up = _op("multiply", sc, np.int32(abs(n)))  # the scale of z'^|n|
    if n < 0:
        return _divide(fdt.type(1), fdt.type(0), *_squarings(a, -n, fdt), None, None, fdt,
                       back=up)
    down = _op("negative", up)
    return tuple(_op("ldexp", v, down) for v in _int_power(a, n, fdt))


def _int_power_each(a, br, fdt):
    """_int_power with each element's own n = br (an integer below 100 in
    magnitude where the caller uses the result): the powers of the set
    bits of |n| multiplied in where a bit is set, n = 1, 2, 3 unrolled."""
    one = fdt.type(1)
    k = _op("absolute", br)
    sc = up = None
    if _flushing(fdt, *a) and _resident(a[0]):  # scaled as _int_power_scaled
        a, sc = _scale_small(a, fdt)
        n_ = _op_where(_op("less", k, fdt.type(100)), k, fdt.type(0)).astype(np.int32)
        up = _op("multiply", sc, n_)
    acc, p = (one, fdt.type(0)), a
    for j in range(7):  # |n| < 100 < 2^7
        bit = _op("equal", _op("remainder", _op("floor", _op("multiply", k, fdt.type(2.0 ** -j))),
                                          fdt.type(2)), one)
        m = _cmul(acc, p)
        acc = tuple(_op_where(bit, mv, av) for mv, av in zip(m, acc))
        if j < 6:
            p = _cmul(p, p)
    inv = _divide(one, fdt.type(0), *acc, None, None, fdt, back=up)
    if sc is not None:
        acc = tuple(_op("ldexp", v, _op("negative", up)) for v in acc)
    neg = _op("less", br, fdt.type(0))
    acc = tuple(_op_where(neg, iv, av) for iv, av in zip(inv, acc))
    a2 = _cmul(a, a)
    for n, v in ((3, _cmul(a, a2)), (2, a2), (1, a)):
        if sc is not None:
            v = tuple(_op("ldexp", vv, _op("multiply", sc, np.int32(-n))) for vv in v)
        at = _op("equal", br, fdt.type(n))
        acc = tuple(_op_where(at, vv, av) for vv, av in zip(v, acc))
    return acc


def _power(w, ar, ai, br, bi, fdt):
    """(ar + i ai) ** (br + i bi) as numpy.power (npy_cpow): z ** 0 is 1;
    0 ** w is 0 where w has a positive real part, else NaN; an exponent
    that is an integer n, |n| < 100, by _int_power (elementwise for an
    array exponent); else exp(w log z)."""
    z = fdt.type(0)
    ai = z if ai is None else ai  # (0 * inf is NaN in NumPy's products too)
    n = _small_int(w)
    if n == 0:
        return fdt.type(1), None
    zero_a = _op("logical_and", _op("equal", ar, z), _op("equal", ai, z))
    if n is not None:
        scaled = n != 1 and _flushing(fdt, ar, ai) and _resident(ar)
        re, im = (_int_power_scaled if scaled else _int_power)((ar, ai), n, fdt)
        at0 = z if n > 0 else fdt.type(np.nan)
        return _op_where(zero_a, at0, re), _op_where(zero_a, at0, im)
    br = z if br is None else br
    bi = z if bi is None else bi
    integral = _op("logical_and", _op("equal", bi, z), _op("logical_and", _op(
        "equal", br, _op("trunc", br)), _op("less", _op("absolute", br), fdt.type(100))))
    some = all_ = False
    if _resident(w) or np.ndim(w) != 0:
        # a NumPy exponent says on the host which paths its elements need
        some, all_ = (True, False) if _resident(integral) else \
            (bool(np.any(integral)), bool(np.all(integral)))
    if not all_:
        lr, li = _log(ar, ai, None, None, fdt, "log")
        tr = _op("subtract", _op("multiply", br, lr), _op("multiply", bi, li))
        ti = _op("add", _op("multiply", br, li), _op("multiply", bi, lr))
        # a NaN made here (inf * 0: z ** inf of a real z) has x86's sign,
        # the set sign bit of its default NaN, which cexp copies into a zero
        # part (NumPy's 0.5 ** inf is 0 - 0j; NVIDIA's NaN has no sign bit:
        # 0 + 0j); -|t| sets it with integer operations on every device
        fresh = _op("logical_not", _op("logical_or", _op("logical_or", _op("isnan", ar),
                                                                _op("isnan", ai)),
                                       _op("logical_or", _op("isnan", br), _op("isnan", bi))))
        tr, ti = (_op_where(_op("logical_and", fresh, _op("isnan", t)),
                            _op("negative", _op("absolute", t)), t) for t in (tr, ti))
        re, im = _exp(tr, ti, None, None, fdt)  # cexp(w log z), NumPy's, special values included
    if some:
        ire, iim = _int_power_each((ar, ai), br, fdt)
        re, im = (ire, iim) if all_ else (_op_where(integral, ire, re), _op_where(integral, iim, im))
    at0 = _op_where(_op("greater", br, z), z, fdt.type(np.nan))
    re, im = _op_where(zero_a, at0, re), _op_where(zero_a, at0, im)
    zero_b = _op("logical_and", _op("equal", br, z), _op("equal", bi, z))
    return _op_where(zero_b, fdt.type(1), re), _op_where(zero_b, z, im)


def _sqrt(x, y, dre, dim, fdt):
    """The principal square root (C99 csqrt, NumPy's): t = sqrt((|x| + |z|)
    / 2); x >= 0: (t, y / 2t), x < 0: (|y| / 2t, copysign(t, y)); z = 0
    gives (0, y) and an infinite y (inf, y) whatever x is. |x| + |z| that
    overflows is halved before it is added; one that is subnormal is not
    (sqrt(s) * sqrt(1/2), so a tiny z keeps its root). Where |z| itself
    overflows (finite parts), the root is 2 sqrt(z / 4)."""
    x, y, big = _scaled(x, y, fdt, 0.25)
    ax = _op("absolute", x)
    r = _op("hypot", x, y)
    s = _op("add", ax, r)
    half = fdt.type(0.5)
    t = _op_where(_op("isinf", s),
                  _op("sqrt", _op("add", _op("multiply", ax, half), _op("multiply", r, half))),
                  _op("multiply", _op("sqrt", s), fdt.type(np.sqrt(0.5))))
    d = _op("add", t, t)
    neg = _op("less", x, fdt.type(0))
    re = _op_where(neg, _op("divide", _op("absolute", y), d), t)
    im = _op_where(neg, _op("copysign", t, y), _op("divide", y, d))
    zero = _op("equal", t, fdt.type(0))
    iy = _op("isinf", y)
    re = _op_where(iy, fdt.type(np.inf), _op_where(zero, fdt.type(0), re))
    im = _op_where(_op("logical_or", iy, zero), y, im)
    two = _op_where(big, fdt.type(2), fdt.type(1))
    return _op("multiply", re, two, dre), _op("multiply", im, two, dim)


def _scaled(x, y, fdt, k):
    """(x k, y k, big) where |x + iy| overflows with finite parts (big),
    else (x, y, big)."""
    big = _op("logical_and", _op("isinf", _op("hypot", x, y)),
              _op("logical_and", _op("isfinite", x), _op("isfinite", y)))
    k = fdt.type(k)
    return (_op_where(big, _op("multiply", x, k), x), _op_where(big, _op("multiply", y, k), y),
            big)


_LOG_SCALE = {"log": 1.0, "log2": 1.0 / np.log(2.0), "log10": 1.0 / np.log(10.0)}


def _log(x, y, dre, dim, fdt, name):
    """log(x + iy) = (log|z|, atan2(y, x)), scaled for log2 / log10. Near
    |z| = 1 (0.5 < |z| < 2) log|z| is log1p((M - 1)(M + 1) + m m) / 2
    (M the larger of |x|, |y|, m the smaller; M - 1 is exact there), which
    keeps log|z| accurate where it is near 0. Where |z|
    overflows (finite parts), log|z| = log|z / 2| + log 2."""
    th = _op("arctan2", y, x)
    x, y, big = _scaled(x, y, fdt, 0.5)
    r = _op("hypot", x, y)
    near = _op("logical_and", _op("greater", r, fdt.type(0.5)), _op("less", r, fdt.type(2)))
    one = fdt.type(1)
    ax, ay = _op("absolute", x), _op("absolute", y)
    big_, small = _op("maximum", ax, ay), _op("minimum", ax, ay)
    h = _op("add", _op("multiply", _op("subtract", big_, one), _op("add", big_, one)),
            _op("multiply", small, small))
    lr = _op_where(near, _op("multiply", _op("log1p", h), fdt.type(0.5)), _op("log", r))
    lr = _op("add", lr, _op_where(big, fdt.type(np.log(2.0)), fdt.type(0)))
    k = _LOG_SCALE[name]
    if k == 1.0:
        return _kept(lr, dre), _kept(th, dim)
    if np.dtype(fdt) == np.float32:
        # the angle scaled through 2^64 (vp.ldexp reads a subnormal from its
        # bits): atan2(1e-38, 1) is subnormal, and a device that flushes
        # read it as 0 in the product (log2's imaginary part 1.44e-38 was 0)
        return (_op("multiply", lr, fdt.type(k), dre),
                _op("ldexp", _op("multiply", _op("ldexp", th, 64), fdt.type(k)), -64, dim))
    return _op("multiply", lr, fdt.type(k), dre), _op("multiply", th, fdt.type(k), dim)


def _exp(x, y, dre, dim, fdt):
    """exp(x + iy) = exp(x) (cos y + i sin y) as C99 cexp (NumPy's
    npy_cexp): past the overflow of exp(x), exp(x/2) twice, so a product
    with a small cosine or sine stays finite; a zero y gives (exp x, y);
    x = +inf with an infinite or NaN y (inf, NaN), x = -inf (0, +-0)."""
    thr = fdt.type(np.log(np.finfo(fdt).max) - 1)
    big = _op("greater", x, thr)
    h = _op_where(big, _op("exp", _op("multiply", x, fdt.type(0.5))), fdt.type(1))
    e = _op("exp", x)
    m = _op_where(big, h, e)
    re = _op("multiply", _op("multiply", m, _op("cos", y)), h)
    im = _op("multiply", _op("multiply", m, _op("sin", y)), h)
    z = fdt.type(0)
    yfin = _op("isfinite", y)
    pinf = _op("logical_and", _op("equal", x, fdt.type(np.inf)), _op("logical_not", yfin))
    ninf = _op("logical_and", _op("equal", x, fdt.type(-np.inf)), _op("logical_not", yfin))
    re = _op_where(pinf, fdt.type(np.inf), _op_where(ninf, z, re))
    im = _op_where(ninf, _op("copysign", z, y), im)
    y0 = _op("equal", y, z)
    return _op_where(y0, e, re, dre), _op_where(y0, y, im, dim)


def _sign(x, y, dre, dim, fdt):
    """z / |z| (NumPy 2's complex sign): 0 for 0, NaN for a NaN part
    unless the other is infinite; where |z| is infinite, +-1 along an
    infinite part (NaN when both are), else along the imaginary axis."""
    a = _op("hypot", x, y)
    one, z, nan = fdt.type(1), fdt.type(0), fdt.type(np.nan)
    inf, xinf = _op("isinf", a), _op("isinf", x)
    re = _op_where(xinf, _op_where(_op("isinf", y), nan, _op("copysign", one, x)), z)
    im = _op_where(xinf, _op_where(_op("isinf", y), nan, z),
                   _op_where(_op("greater", y, z), one, -one))
    zero = _op("equal", a, z)
    re = _op_where(inf, re, _op_where(zero, z, _op("divide", x, a)))
    im = _op_where(inf, im, _op_where(zero, z, _op("divide", y, a)))
    nan_a = _op("isnan", a)
    _op_where(nan_a, nan, re, dre)
    _op_where(nan_a, nan, im, dim)


def _log1p(x, y, dre, dim, fdt):
    """log(1 + z): (log|1 + z|, atan2(y, 1 + x)); where |z| < 1/2,
    log|1 + z| is log1p(x (2 + x) + y y) / 2, which keeps a small z's
    digits (NumPy's log(hypot(1 + x, y)) loses them: 0 for z = 1e-10 in
    complex64), elsewhere _log's real part of 1 + z."""
    one, half = fdt.type(1), fdt.type(0.5)
    x1 = _op("add", x, one)
    _op("arctan2", y, x1, dim)
    lr, _ = _log(x1, y, None, None, fdt, "log")
    small = _op("less", _op("hypot", x, y), half)
    t = _op("add", _op("multiply", x, _op("add", x, fdt.type(2))), _op("multiply", y, y))
    _op_where(small, _op("multiply", _op("log1p", t), half), lr, dre)


def _expm1(x, y, dre, dim, fdt):
    """exp(z) - 1 as NumPy's nc_expm1: (expm1(x) cos y - 2 sin^2(y/2),
    exp(x) sin y), which keeps a small z's digits."""
    a = _op("sin", _op("multiply", y, fdt.type(0.5)))
    _op("subtract", _op("multiply", _op("expm1", x), _op("cos", y)),
        _op("multiply", _op("multiply", a, a), fdt.type(2)), dre)
    _op("multiply", _op("exp", x), _op("sin", y), dim)


_INVERSE = ("arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh")


def _far(x, y, fdt):
    """Where |x + iy| is past 2^(p/2 + 1) (p the mantissa bits), infinite
    or NaN: there asinh z and acosh z are log(2z) to the last bit (the next
    term is 1/(4 z^2)), and the formulas below would overflow."""
    t = fdt.type(2.0 ** ((np.finfo(fdt).nmant + 1) // 2 + 1))
    return _op("logical_not", _op("less_equal", _op("hypot", x, y), t))


def _log2z(x, y, fdt):
    """log(2z) as parts (_log: no overflow of |z|)."""
    lr, li = _log(x, y, None, None, fdt, "log")
    return _op("add", lr, fdt.type(np.log(2.0))), li


def _asinh(x, y, fdt):
    """asinh(x + iy): Kahan's formula ("Branch cuts for complex elementary
    functions") from the principal roots s1 = sqrt(1 - w), s2 = sqrt(1 + w)
    of w = iz: asin w = (atan2(Re w, Re(s1 s2)), asinh(Im(conj(s1) s2))),
    asinh z = -i asin(iz); far out (and for infinities and NaNs) log(2z)
    on the right half plane, -log(-2z) on the left (asinh is odd); a zero
    y gives (asinh x, y). C99's special values follow."""
    one = fdt.type(1)
    wr, wi = _op("negative", y), x  # w = iz
    s1r, s1i = _sqrt(_op("subtract", one, wr), _op("negative", wi), None, None, fdt)
    s2r, s2i = _sqrt(_op("add", one, wr), wi, None, None, fdt)
    ar = _op("arctan2", wr, _op("subtract", _op("multiply", s1r, s2r), _op("multiply", s1i, s2i)))
    ai = _op("arcsinh", _op("subtract", _op("multiply", s1r, s2i), _op("multiply", s1i, s2r)))
    re, im = ai, _op("negative", ar)  # -i (ar + i ai)
    neg = _op("signbit", x)
    sx = _op_where(neg, _op("negative", x), x)
    sy = _op_where(neg, _op("negative", y), y)
    fr, fi = _log2z(sx, sy, fdt)
    fr = _op_where(neg, _op("negative", fr), fr)
    fi = _op_where(neg, _op("negative", fi), fi)
    far = _far(x, y, fdt)
    re, im = _op_where(far, fr, re), _op_where(far, fi, im)
    y0 = _op("equal", y, fdt.type(0))
    return _op_where(y0, _op("arcsinh", x), re), _op_where(y0, y, im)


def _acosh(x, y, fdt):
    """acosh(x + iy) by Kahan's formula: t1 = sqrt(z - 1), t2 = sqrt(z + 1),
    (asinh(Re(conj(t1) t2)), 2 atan2(Im t1, Re t2)); far out log(2z) (the
    principal log: its imaginary part is acosh's there too); a zero x with
    a NaN y gives (NaN, pi/2), as C99's."""
    one = fdt.type(1)
    t1r, t1i = _sqrt(_op("subtract", x, one), y, None, None, fdt)
    t2r, t2i = _sqrt(_op("add", x, one), y, None, None, fdt)
    re = _op("arcsinh", _op("add", _op("multiply", t1r, t2r), _op("multiply", t1i, t2i)))
    im = _op("multiply", _op("arctan2", t1i, t2r), fdt.type(2))
    fr, fi = _log2z(x, y, fdt)
    far = _far(x, y, fdt)
    re, im = _op_where(far, fr, re), _op_where(far, fi, im)
    zn = _op("logical_and", _op("equal", x, fdt.type(0)), _op("isnan", y))
    return re, _op_where(zn, fdt.type(np.pi / 2), im)


def _atanh(x, y, fdt):
    """atanh(x + iy): (copysign(log1p(4|x| / ((1 - |x|)^2 + y^2)) / 4, x),
    atan2(2y, (1 - x)(1 + x) - y^2) / 2) (FreeBSD's catanh), with (ln 2 -
    log|y|) / 2 for the real part where |x| = 1 and |y| < eps (where y^2
    underflows); a zero x keeps its zero; far out (|z| past 2^(p+1)) and
    for infinities the series' first term, (Re 1/z, copysign(pi/2, y))."""
    one, z = fdt.type(1), fdt.type(0)
    ax, ay = _op("absolute", x), _op("absolute", y)
    d = _op("add", _op("square", _op("subtract", one, ax)), _op("multiply", y, y))
    re = _op("multiply", _op("log1p", _op("divide", _op("multiply", ax, fdt.type(4)), d)),
             fdt.type(0.25))
    edge = _op("logical_and", _op("equal", ax, one), _op("less", ay, fdt.type(np.finfo(fdt).eps)))
    flush = _flushing(fdt, x, y)
    if flush:
        # 4|x| / d below 2^-100 where float32 subnormals flush: log1p(t) / 4
        # is t / 4 there, taken as 4|x| 2^64 / d scaled back by vp.ldexp
        # (atanh(1e-20 + 1e10j)'s real part 1e-40 read as 0)
        ts = _op("divide", _op("ldexp", ax, 66), d)
        re = _op_where(_op("less", ts, fdt.type(2.0 ** -36)), _op("ldexp", ts, -66), re)
    re = _op_where(edge, _op("multiply", _op("subtract", fdt.type(np.log(2.0)), _op("log", ay)),
                             fdt.type(0.5)), re)
    re = _op("copysign", re, x)
    im = _op("multiply", _op("arctan2", _op("multiply", y, fdt.type(2)),
                             _op("subtract", _op("multiply", _op("subtract", one, x),
                                                 _op("add", one, x)),
                                 _op("multiply", y, y))), fdt.type(0.5))
    q = fdt.type(0.25)  # x / |z|^2 = (x/4) / |z/4|^2 / 4: no overflow of |z|
    xs, ys = _op("multiply", x, q), _op("multiply", y, q)
    r = _op("hypot", xs, ys)
    far = _op("greater", r, fdt.type(2.0 ** (np.finfo(fdt).nmant - 1)))
    if flush:  # x / |z|^2 is below 2^-126 past |z| = 2^126: its last factor 2^64 q by vp.ldexp
        inv = _op("ldexp", _op("divide", _op("divide", xs, r), _op("ldexp", r, -64)), -66)
    else:
        inv = _op("multiply", _op("divide", _op("divide", xs, r), r), q)
    re_far = _op_where(_op("isinf", r), _op("copysign", z, x), inv)
    im_far = _op_where(_op("isnan", y), y, _op("copysign", fdt.type(np.pi / 2), y))
    re = _op_where(_op("equal", x, z), x, _op_where(far, re_far, re))
    return re, _op_where(far, im_far, im)


def _inverse(name, x, y, dre, dim, fdt):
    """The inverse trigonometric and hyperbolic functions into dre, dim:
    arcsin z = -i asinh(iz), arctan z = -i atanh(iz) (iz = -y + ix),
    arccos z = -i acosh(z) where y has no sign bit, i acosh(z) where it
    has (C99's identities, with their special values)."""
    if name == "arcsinh":
        re, im = _asinh(x, y, fdt)
    elif name == "arccosh":
        re, im = _acosh(x, y, fdt)
    elif name == "arctanh":
        re, im = _atanh(x, y, fdt)
    elif name == "arccos":
        a, b = _acosh(x, y, fdt)
        neg = _op("signbit", y)
        re = _op_where(neg, _op("negative", b), b)
        im = _op_where(neg, a, _op("negative", a))
    else:
        a, b = (_asinh if name == "arcsin" else _atanh)(_op("negative", y), x, fdt)
        re, im = b, _op("negative", a)  # -i (a + ib)
        # (+-inf, NaN): C99 leaves a sign open that glibc takes from the NaN
        # (NumPy's arcsin is NaN + copysign(inf, y) i, arctan copysign(pi/2,
        # x) + copysign(0, y) i); the formulas' NaN signs differ by device
        hit = _op("logical_and", _op("isinf", x), _op("isnan", y))
        if name == "arcsin":
            im = _op_where(hit, _op("copysign", fdt.type(np.inf), y), im)
        else:
            re = _op_where(hit, _op("copysign", fdt.type(np.pi / 2), x), re)
            im = _op_where(hit, _op("copysign", fdt.type(0), y), im)
    _put(dre, re)
    _put(dim, im)


def around(a, decimals=0, out=None):
    """vp.around of complex a: each part rounded (half to even) to
    `decimals`, as np.round does; NumPy in gives NumPy out."""
    rnd = _ufunc("around")
    if type(a) is TracedComplex:  # inside vp.jit
        if out is not None:
            raise TypeError("vp.around: out= inside vp.jit; return the result instead")
        return a._map(lambda p: rnd(p, decimals))
    host = not _resident(a)
    x = _array.asarray(a) if host else a
    r = _array.empty(x.shape, x.dtype, context=x._ctx)
    (re, im), (dre, dim) = parts(x), parts(r)
    rnd(re, decimals, out=dre)
    rnd(im, decimals, out=dim)
    if out is not None:
        _put(out, r)
        return out
    return r.numpy() if host else r


def _where(args, dre, dim, fdt, ctx):
    """vp.where(c, x, y) with a complex x or y: the parts, each a real
    where into the result's part (a complex condition: nonzero is true)."""
    c, x, y = args
    if is_complex(c):
        c = ufunc(_ufunc("not_equal"), (c, 0), None, None, True)
    if isinstance(c, np.ndarray) and c.ndim:
        c = _array.asarray(c, context=ctx)
    (xr, xi), (yr, yi) = _re_im(x, fdt, ctx), _re_im(y, fdt, ctx)
    z = fdt.type(0)
    w = _ufunc("where")
    for dst, a, b in ((dre, xr, yr), (dim, z if xi is None else xi, z if yi is None else yi)):
        if np.broadcast_shapes(*(_shape_of(v) for v in (c, a, b))) == dst.shape and \
                any(_resident(v) for v in (c, a, b)):
            w(c, a, b, out=dst)
        else:
            _put(dst, w(c, a, b) if any(_resident(v) for v in (c, a, b)) else
                 _array.asarray(np.broadcast_to(np.where(c, a, b), dst.shape), context=ctx))


def _assign(dst, src):
    """dst[...] = src for a complex (or real) resident dst."""
    if dst.dtype.kind != "c":
        if is_complex(src):
            raise TypeError(f"assignment: {np.asarray(src).dtype.name if not _resident(src) else src.dtype.name} "
                            f"into {dst.dtype.name} would drop the imaginary part; assign .real")
        _arrayops.assign(dst, src)
        return
    _arrayops.check_assign_shape(np.shape(src), dst.shape)
    fdt = float_of(dst.dtype)
    dre, dim = parts(dst)
    sre, sim = _re_im(src, fdt, dst._ctx)
    if _resident(sre) and _array.overlaps(dst, sre):
        # an overlapping source is read as it was (NumPy's rule)
        sre = sre.copy()
        sim = sim.copy() if _resident(sim) else sim
    _put(dre, sre)
    _put(dim, sim)


# ------------------------------------------------------------- array-path hooks
def materialize(z):
    """A C-contiguous copy of complex view z."""
    f = _arrayops.materialize(fview(z))
    return from_fview(f, z.dtype)


assign = fill = _assign  # a[...] = src and a.fill(value) for a complex resident array or view


def astype(a, dt, memory=None):
    """a.astype(dt) where a or dt is complex."""
    dt = np.dtype(dt)
    if a.dtype.kind == "c" and dt == np.dtype(np.bool_):  # NumPy's: nonzero, either part
        return ufunc(_ufunc("not_equal"), (a, 0), None, None, True)
    if a.dtype.kind == "c" and dt.kind != "c":
        raise TypeError(f"astype: {a.dtype.name} to {dt.name} would drop the imaginary part; "
                        f"take .real (or abs()) first")
    out = _array._result(a.shape, dt, _array.check_memory(memory or a.memory), a._ctx)
    _assign(out, a)
    return out


# ------------------------------------------------------------- functions
def real(x):
    """vp.real(x): the real part; a view of a resident complex array (as
    NumPy's), the array itself for a real one. NumPy in, NumPy out."""
    if type(x) is TracedComplex:
        return x.real
    if not _resident(x):
        return np.real(x)
    return parts(x)[0] if x.dtype.kind == "c" else x


def imag(x):
    """vp.imag(x): the imaginary part; a view of a resident complex array
    (as NumPy's), zeros for a real one. NumPy in, NumPy out."""
    if type(x) is TracedComplex:
        return x.imag
    if not _resident(x):
        return np.imag(x)
    if isinstance(x, _graph.Traced):  # a real traced array: zeros like it
        return _array.zeros_like(x)
    if x.dtype.kind == "c":
        return parts(x)[1]
    # read-only, as NumPy's (a write into it would be lost): zeros seen
    # through a broadcast view, which no write path takes
    z = _array.zeros((1,) * max(x.ndim, 1), x.dtype, memory=x.memory, context=x._ctx)
    return _array.mark_readonly(_indexing.strided_view(z, x.shape, 0, (0,) * x.ndim),
                                ("the imaginary part of a real array", "a copy"))


def conjugate(x, out=None):
    """vp.conjugate(x) (vp.conj): the complex conjugate, elementwise; a
    copy of a real operand (bool becomes int8: numpy.conjugate has no bool
    loop). NumPy in, NumPy out."""
    if not is_complex(x):
        if _resident(x):
            if out is not None:
                _arrayops.assign(out, x)
                return out
            return x.astype(np.int8) if x.dtype == np.bool_ else x.copy()
        return np.conjugate(x, out=out)
    return ufunc(_Named("conjugate", 1, np.conjugate), (x,), out, None, True)


conj = conjugate


def angle(z, deg=False):
    """vp.angle(z, deg=False): the argument of each element, arctan2(imag,
    real), in radians (degrees with deg=True), as numpy.angle."""
    if type(z) is TracedComplex:
        from . import _ufunc as u
        a = u.arctan2(z.part(1), z.part(0))
        return u.multiply(a, a.dtype.type(180.0 / np.pi)) if deg else a
    if not _resident(z):
        za = np.asarray(z)
        if za.ndim == 0:
            return np.angle(za, deg)
        r = angle(_array.asarray(za), deg)
        return r.numpy()
    from . import _ufunc as u
    if z.dtype.kind == "c":
        re, im = parts(z)
        a = u.arctan2(im, re)
    else:
        # NumPy's arctan2(0, z): the weak Python 0 takes z's dtype, so
        # int8/uint8 give float16, int16 float32 (this was float64)
        a = u.arctan2(0, z)
    if deg:
        a = u.multiply(a, a.dtype.type(180.0 / np.pi))
    return a


class _Named:
    """The little a Ufunc needs to be for ufunc() above."""

    def __init__(self, name, nin, np_ufunc):
        self.name, self.nin, self.np = name, nin, np_ufunc


# ------------------------------------------------------------- ndarray attributes
# x.real = v and x.imag = v (the getters are real() and imag() above)
def set_real(a, value):
    if a.dtype.kind == "c":
        _put(parts(a)[0], value)
    else:
        a[...] = value


def set_imag(a, value):
    if a.dtype.kind != "c":
        raise TypeError(f"array of {a.dtype.name} has no imaginary part to set")
    _put(parts(a)[1], value)

