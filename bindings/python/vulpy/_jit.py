"""Fusion mode: vp.jit traces a Python function into one array function and
runs it as few kernels as fusion allows (docs/fusion.md).

    f = vp.jit(lambda a, b: vp.where(a > b, vp.sin(a), vp.cos(b)))
    out = f(xv, xv * 0.5)          # one dispatch
    print(f.glsl)                  # the shader it became

On the first call with a new signature (each argument's dtype and shape,
and the view of a resident array; a Python scalar's type, not its value)
the function runs once on Tracers: every ufunc, operator, reduction,
indexing and shape operation on them records an array op in a
_graph.Graph, with the Python line that made it. The graph's VIR goes to
the C compiler (fuse, lower-arrays, GLSL, SPIR-V), and the result is
cached per signature; later calls bind the arguments and dispatch.

The tracer is the only compiler logic in Python: it records, it does not
optimize. A Python `if` on a traced value, or a NumPy function the array
level does not have, is a TracingError that names it and the line.
"""
import inspect
import operator
import os
import threading
import weakref

import numpy as np

from . import (_array, _arrayops, _complex, _context, _engine, _errors, _graph, _indexing,
               _npfunc, _reduce, _shapeops, _ufunc)
from ._launch import Handle

_BOOL = np.dtype(np.bool_)
_PKG = os.path.dirname(os.path.abspath(__file__))


class TracingError(TypeError):
    """vp.jit could not trace the function: a Python `if`/`while`/`bool()`
    on a traced array (data-dependent control flow), an unsupported NumPy
    function, or a value with a data-dependent shape (boolean-mask
    indexing). The message says what and where."""


def _user_frame():
    """(file, line, col) of the innermost frame outside the vulpy package."""
    f = inspect.currentframe()
    while f is not None:
        fn = os.path.abspath(f.f_code.co_filename)
        if not fn.startswith(_PKG + os.sep):
            col = 0
            try:
                pos = inspect.getframeinfo(f).positions
                col = (pos.col_offset or 0) if pos else 0
            except Exception:
                pass
            return f.f_code.co_filename, f.f_lineno, col
        f = f.f_back
    return "<unknown>", 0, 0


def _where():
    file, line, _ = _user_frame()
    return f"{file}:{line}"


class _Trace:
    """The graph being recorded, and the trace-time state."""

    local = threading.local()

    def __init__(self, name, file):
        self.g = _graph.Graph(name, source_file=file)
        self.file = file
        self.consts = []  # (buffer name, resident array) captured NumPy constants
        self.ctx = None  # the context the traced call runs on
        self.zeros = {}  # (dtype, bits) -> the Value of a captured +-0.0 (one buffer each)
        self.weak = []  # _WeakScalars of Python arithmetic on scalar arguments (_weak_expr)
        self.copies = {}  # id -> a Tracer that is a copy (x.copy()): in place is allowed
        # (weak reference, source value name) of each Tracer made by a view op
        # (slice, transpose, reshape): x += 1 is refused while a view of x
        # the function still holds exists (NumPy's view would see it)
        self.views = []

    def copy_of(self, x):
        """A copy of tracer x: another Tracer of the same value (values do
        not change; x += 1 on either rebinds that one only)."""
        c = Tracer(x._v, self)
        if self.views and self.views[-1][0]() is c:
            self.views.pop()  # (made right after its view op: a copy is no view)
        self.copies[id(c)] = c
        return c

    def viewed(self, name, d):
        """Whether a live Tracer views value `name` (through view ops); d is
        _defs of the graph."""
        live = []
        found = False
        for ref, src in self.views:
            v = ref()
            if v is None:
                continue
            live.append((ref, src))
            n = v._v.name
            while not found and n is not None:
                op, args = d.get(n, ("", ()))
                n = args[0] if op in _VIEW_OPS[1:-1] and args else None
                found = n == name
        self.views = live
        return found

    def stamp(self):
        """Stamps the next ops with the user's line (GLSL comments show it)."""
        file, line, col = _user_frame()
        self.g.loc = (os.path.basename(file), line, col + 1) if line else None


def _active():
    return getattr(_Trace.local, "trace", None)


def _binop(name):
    """The (x op y, y op x) methods of ufunc vp.<name> on tracers."""
    def op(self, other):
        return getattr(_ufunc, name)(self, other)

    def rop(self, other):
        return getattr(_ufunc, name)(other, self)

    return op, rop


_VIEW_OPS = ("array.load", "array.slice", "array.transpose", "array.reshape",
             "array.broadcast")


def _defs(g):
    """name -> (op, operand names) of graph g's values."""
    d = {}
    for line in g.lines:
        if line.startswith("%") and " = " in line:
            name, rest = line.split(" = ", 1)
            words = rest.rsplit(" : ", 1)[0].split()
            d[name] = (words[0], [w.rstrip(",") for w in words[1:] if w.startswith("%")])
    return d


def _inplace(name):
    """Operator x op= y on tracers. Eager NumPy writes x's memory, which an
    argument, a view or another name may share; a trace cannot write an
    argument (the caller's array) and its views are values, not memory: an
    in-place update of an argument, of a view (of anything), or of a value
    a view was taken of is a TracingError. A value the function computed
    and nothing views takes the result (every name bound to this tracer
    sees it, as they would see the update in NumPy)."""
    def iop(self, other):
        if type(self) is not Tracer:
            return NotImplemented  # a weak scalar: n += 1 is n = n + 1, as in Python
        r = getattr(_ufunc, name)(self, other)
        np_name = name
        if tuple(r.shape) != tuple(self.shape):
            raise ValueError(f"{_where()}: non-broadcastable output operand with shape "
                             f"{tuple(self.shape)} doesn't match the broadcast shape "
                             f"{tuple(r.shape)} (in-place {np_name})")
        if r.dtype != self.dtype:
            if not np.can_cast(r.dtype, self.dtype, "same_kind"):
                raise TypeError(f"{_where()}: Cannot cast ufunc '{np_name}' output from "
                                f"dtype('{r.dtype}') to dtype('{self.dtype}') with casting "
                                f"rule 'same_kind' (in-place operator)")
            r = r.astype(self.dtype)
        d = _defs(self._t.g)
        mine = self._v.name
        op = d.get(mine, ("",))[0]
        viewed = self._t.viewed(mine, d)  # (a view the function still holds)
        if id(self) in self._t.copies:  # x.copy(), x.astype(x.dtype): its own memory
            op = ""
        if op in _VIEW_OPS or viewed:
            what = "an argument (or a captured array)" if op == "array.load" else \
                "a value a view was taken of" if viewed else "a view"
            raise TracingError(
                f"{_where()}: in-place {np_name} (an augmented assignment like x += y) of "
                f"{what} inside vp.jit: the trace cannot write that memory; return the "
                f"result (x = x + y) and pass out= to the call for an in-place update")
        self._v = r._v
        return self

    return iop


def _delegate(f):
    """A method that is f(self, ...) (a reduction): x.sum(0) is vp.sum(x, 0)."""
    def m(self, *args, **kwargs):
        return f(self, *args, **kwargs)

    m.__name__, m.__doc__ = f.__name__, f.__doc__
    return m


class Tracer(_graph.Traced):
    """A traced array inside vp.jit: behaves like a vp.ndarray for every
    operation the array level has; its data does not exist yet."""

    __slots__ = ("__weakref__",)
    __array_priority__ = 200

    def __init__(self, v, t):
        super().__init__(v, t)
        if v is not None and t is not None:  # a view op's result: noted (_Trace.views)
            last = t.g.lines[-1] if t.g.lines else ""
            if last.startswith(v.name + " = array."):
                words = last.split(" = ", 1)[1].split(None, 2)
                if words[0] in _VIEW_OPS[1:-1] and len(words) > 1:
                    t.views.append((weakref.ref(self), words[1].rstrip(",")))

    def wrap(self, v):
        return Tracer(v, self._t)

    # ------------------------------------------------------------ attributes
    @property
    def shape(self):
        # () for a scalar value (a NumPy scalar argument, vp.sqrt of one):
        # a 0-d array to the user, as NumPy's scalars are
        return self._v.shape if self._v.shape is not None else ()

    @property
    def dtype(self):
        return self._v.dtype

    def _tensor(self):
        """This value as a tensor (a scalar value as a 0-d one), for the
        array ops that take tensors (reductions, reshape, indexing)."""
        v = self._v
        return v if v.shape is not None else self._t.g.broadcast(v, ())

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

    def __repr__(self):
        return f"<vp.jit tracer {self.dtype.name}{list(self.shape)}>"

    # ------------------------------------------------------------ no data yet
    def _no_value(self, what):
        raise TracingError(
            f"{_where()}: {what} of a traced array: its value is not known while vp.jit "
            f"traces (data-dependent control flow); use vp.where(cond, a, b) instead of "
            f"if/else on arrays")

    def __bool__(self):
        self._no_value("bool() (a Python if, while, and, or, not)")

    def __float__(self):
        self._no_value("float()")

    def __int__(self):
        self._no_value("int()")

    def __index__(self):
        self._no_value("use as an index")

    def __iter__(self):
        raise TracingError(f"{_where()}: iterating over a traced array is not supported in "
                           f"vp.jit (index it, or use array operations)")

    def item(self):
        self._no_value("item()")

    def tolist(self):
        self._no_value("tolist()")

    def numpy(self):
        self._no_value("numpy()")

    def __array__(self, dtype=None, copy=None):
        # (np.asarray(tracer) must not silently make an object array)
        raise TracingError(f"{_where()}: this operation needs the values of a traced array "
                           f"(numpy.asarray of it), which do not exist while vp.jit traces the "
                           f"function; it is not supported inside vp.jit (run it outside, on "
                           f"the result)")

    # ------------------------------------------------------------ NumPy protocols
    @staticmethod
    def _vp_trace_ufunc(uf, args, out):
        """What a vp ufunc does when an operand is a Tracer (Ufunc.__call__
        looks this up on its operands' types): the call is recorded."""
        if out is not None:
            raise TracingError(f"{_where()}: out= inside vp.jit; return the result instead")
        return trace_ufunc(uf, args)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        f = _npfunc.ufunc(ufunc.__name__)
        if method != "__call__" or f is None or kwargs.get("out") is not None:
            raise TracingError(f"{_where()}: numpy.{ufunc.__name__}"
                               f"{'.' + method if method != '__call__' else ''} is not "
                               f"supported in vp.jit")
        kwargs.pop("out", None)
        # the keywords the vp function takes go on to it (np.add(a, b,
        # dtype=...), np.vecdot(a, b, axis=0) were dropped silently: the
        # wrong dtype, the wrong axis); any other is an error
        known = {"where", "dtype", "casting"} if hasattr(f, "_dtype_where") else set()
        known |= getattr(f, "_ufunc_kwargs", frozenset())
        extra = sorted(set(kwargs) - known)
        if extra:
            raise TracingError(f"{_where()}: numpy.{ufunc.__name__}(..., "
                               f"{', '.join(k + '=' for k in extra)}) is not supported in vp.jit")
        return f(*inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        name = func.__name__
        mine = {"where": _ufunc.where, "clip": _ufunc.clip, "transpose": transpose,
                "reshape": reshape, "take": _indexing.take, "real": _complex.real,
                "imag": _complex.imag, "conj": _complex.conjugate,
                "conjugate": _complex.conjugate, "angle": _complex.angle,
                "iscomplexobj": lambda x: x.dtype.kind == "c",
                "isrealobj": lambda x: x.dtype.kind != "c", "ndim": lambda x: x.ndim,
                "shape": lambda x: tuple(x.shape), "size": lambda x: x.size}
        mine.update({n: getattr(_reduce, n) for n in _reduce.NAMES})
        # (std / var / round and numpy.linalg.norm trace as vp's do)
        mine.update({"std": _reduce.std, "var": _reduce.var, "round": _ufunc.around,
                     "around": _ufunc.around})
        if name == "norm" and getattr(func, "__module__", "").startswith("numpy.linalg"):
            from . import linalg
            mine["norm"] = linalg.norm
        mine.update(TRACED_FUNCTIONS)
        f = mine.get(name)
        if f is None:
            raise TracingError(f"{_where()}: numpy.{name} is not supported in vp.jit "
                               f"(the array level has ufuncs, where, reductions, cumsum, "
                               f"indexing, reshape and transpose)")
        return f(*args, **kwargs)

    # ------------------------------------------------------------ shape ops
    def reshape(self, *shape):
        return reshape(self, *shape)

    def transpose(self, *axes):
        if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
            axes = axes[0]
        return transpose(self, axes or None)

    @property
    def T(self):
        return transpose(self)

    def _vp_like(self, value, dtype, shape):
        """vp.zeros_like / ones_like / full_like / empty_like (zeros) of
        this tracer: `value` as dtype (this one's by default), broadcast to
        shape (this one's by default)."""
        t = self._t
        t.stamp()
        dt = self.dtype if dtype is None else np.dtype(dtype)
        _array.check_dtype(dt, "vp.full_like inside vp.jit")
        shape = tuple(self.shape) if shape is None else \
            ((operator.index(shape),) if np.ndim(shape) == 0 else
             tuple(operator.index(n) for n in shape))
        if isinstance(value, Tracer):
            raise TracingError(f"{_where()}: vp.full_like's fill value is a traced array; "
                               f"use vp.broadcast_to(value, shape)")
        if dt.kind == "c" or np.iscomplexobj(value):
            raise TypeError(f"{_where()}: vp.full_like inside vp.jit makes real arrays only")
        with np.errstate(all="ignore"):  # (NumPy's cast: full_like(x, 1e10) of int32 wraps)
            v = np.asarray(value).astype(dt)[()] if np.ndim(value) == 0 else \
                np.broadcast_to(np.asarray(value).astype(dt), shape)
        if np.ndim(v):
            return Tracer(t.g.broadcast(_capture(t, np.asarray(v)), shape), t)
        return Tracer(t.g.broadcast(_trace_value(t, v, dt), shape), t)

    def astype(self, dtype):
        if np.dtype(dtype) == self.dtype:
            return self._t.copy_of(self)
        self._t.stamp()
        return Tracer(self._t.g.convert(self._v, dtype), self._t)

    def ravel(self):
        return reshape(self, -1)

    def take(self, indices, axis=None, mode="raise"):
        return _indexing.take(self, indices, axis, mode=mode)

    def flatten(self):  # a copy in NumPy (ravel is the view)
        return self._t.copy_of(reshape(self, -1))

    def copy(self):
        return self._t.copy_of(self)

    def __getitem__(self, key):
        return _getitem(self, key)

    def __setitem__(self, key, value):
        raise TracingError(f"{_where()}: assigning into a traced array is not supported in "
                           f"vp.jit (build the result with vp.where, or return it)")

    # ------------------------------------------------------------ operators
    __add__, __radd__ = _binop("add")
    __sub__, __rsub__ = _binop("subtract")
    __mul__, __rmul__ = _binop("multiply")
    __truediv__, __rtruediv__ = _binop("divide")
    __floordiv__, __rfloordiv__ = _binop("floor_divide")
    __mod__, __rmod__ = _binop("remainder")
    __rpow__ = _binop("power")[1]

    def __pow__(self, other):
        # NumPy's fast_scalar_power, as the resident operator takes it
        fast = _array._fast_power(self, other)
        return getattr(_ufunc, fast)(self) if fast else _ufunc.power(self, other)
    __and__, __rand__ = _binop("bitwise_and")
    __or__, __ror__ = _binop("bitwise_or")
    __xor__, __rxor__ = _binop("bitwise_xor")
    __lshift__, __rlshift__ = _binop("left_shift")
    __rshift__, __rrshift__ = _binop("right_shift")

    def __divmod__(self, other):
        return self // other, self % other

    # in place (x += y): NumPy's ufunc(x, y, out=x), the result cast to x's
    # dtype (same_kind) and of x's shape; the tracer takes the new value
    __iadd__ = _inplace("add")
    __isub__ = _inplace("subtract")
    __imul__ = _inplace("multiply")
    __itruediv__ = _inplace("divide")
    __ifloordiv__ = _inplace("floor_divide")
    __imod__ = _inplace("remainder")
    __ipow__ = _inplace("power")
    __iand__ = _inplace("bitwise_and")
    __ior__ = _inplace("bitwise_or")
    __ixor__ = _inplace("bitwise_xor")
    __ilshift__ = _inplace("left_shift")
    __irshift__ = _inplace("right_shift")

    def __rdivmod__(self, other):
        return other // self, other % self

    __lt__ = _binop("less")[0]
    __le__ = _binop("less_equal")[0]
    __gt__ = _binop("greater")[0]
    __ge__ = _binop("greater_equal")[0]
    __eq__ = _binop("equal")[0]
    __ne__ = _binop("not_equal")[0]
    __hash__ = None

    def __neg__(self):
        return _ufunc.negative(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return _ufunc.absolute(self)

    def __invert__(self):
        return _ufunc.invert(self)

    # ------------------------------------------------------------ reductions
    sum = _delegate(_reduce.sum)
    prod = _delegate(_reduce.prod)
    mean = _delegate(_reduce.mean)
    min = _delegate(_reduce.amin)
    max = _delegate(_reduce.amax)
    argmin = _delegate(_reduce.argmin)
    argmax = _delegate(_reduce.argmax)
    any = _delegate(_reduce.any)
    all = _delegate(_reduce.all)
    cumsum = _delegate(_reduce.cumsum)
    cumprod = _delegate(_reduce.cumprod)
    var = _delegate(_reduce.var)
    std = _delegate(_reduce.std)


class _WeakScalar(Tracer):
    """A Python scalar argument: weak in NumPy's promotion (NEP 50), a push
    constant of the loop's dtype wherever it is used. Python arithmetic on
    such scalars (`n + 1`, `-s`, `2.0 * s`, `n > 0`) gives a Python scalar
    in eager code, weak too: here another _WeakScalar, whose value the host
    computes at each call with Python's own operators (`fn`), never a
    strong int64 / float64 array."""

    __slots__ = ("pyval", "param", "fields", "idx", "fn")

    def __init__(self, pyval, param, t, idx=None, fn=None):
        super().__init__(None, t)
        self.pyval, self.param, self.fields = pyval, param, {}
        self.idx, self.fn = idx, fn  # an argument's index, or the host function of args

    @property
    def dtype(self):
        return np.asarray(self.pyval).dtype

    @property
    def shape(self):
        return ()

    def value_as(self, dt):
        dt = np.dtype(dt)
        v = self.fields.get(dt)
        if v is None:
            v = self._t.g.scalar(dt, f"{self.param}_{_graph.vtype(dt)}")
            self.fields[dt] = v
        return v

    def eval(self, args):
        """This scalar's Python value in the call with arguments `args`."""
        if self.fn is None:
            return args[self.idx]
        v = self.fn(args)
        if type(v) is not type(self.pyval):  # 2 ** n: an int, then a float for n < 0
            raise TypeError(f"vp.jit: a Python scalar expression of the arguments was "
                            f"{type(self.pyval).__name__} when traced and is "
                            f"{type(v).__name__} now ({v!r}), which NumPy promotes "
                            f"differently; pass it as an argument instead")
        return v


def _is_weak(x):
    return isinstance(x, _WeakScalar) or type(x) in (bool, int, float)


def _weak_expr(pyop, operands):
    """A _WeakScalar for pyop(*operands) (operands: _WeakScalars and Python
    scalars), computed on the host at each call."""
    t = next(o._t for o in operands if isinstance(o, _WeakScalar))
    vals = lambda args: [o.eval(args) if isinstance(o, _WeakScalar) else o  # noqa: E731
                         for o in operands]
    pyval = pyop(*(o.pyval if isinstance(o, _WeakScalar) else o for o in operands))
    w = _WeakScalar(pyval, f"weak__{len(t.weak)}", t, fn=lambda args: pyop(*vals(args)))
    t.weak.append(w)
    return w


def _weak_binop(name, pyop):
    """Operator `name` of a _WeakScalar: Python's own when the other operand
    is weak too (the result a Python scalar, as in eager code), else the
    traced ufunc."""
    top, trop = _binop(name)

    def op(self, other):
        return _weak_expr(pyop, (self, other)) if _is_weak(other) else top(self, other)

    def rop(self, other):
        return _weak_expr(pyop, (other, self)) if _is_weak(other) else trop(self, other)

    return op, rop


for _name, _pyop in (("add", operator.add), ("sub", operator.sub), ("mul", operator.mul),
                     ("truediv", operator.truediv), ("floordiv", operator.floordiv),
                     ("mod", operator.mod), ("pow", operator.pow), ("and", operator.and_),
                     ("or", operator.or_), ("xor", operator.xor), ("lshift", operator.lshift),
                     ("rshift", operator.rshift)):
    _uf = {"sub": "subtract", "mul": "multiply", "truediv": "divide", "floordiv": "floor_divide",
           "mod": "remainder", "pow": "power", "and": "bitwise_and", "or": "bitwise_or",
           "xor": "bitwise_xor", "lshift": "left_shift", "rshift": "right_shift"}.get(_name, _name)
    _op, _rop = _weak_binop(_uf, _pyop)
    setattr(_WeakScalar, f"__{_name}__", _op)
    setattr(_WeakScalar, f"__r{_name}__", _rop)
for _name, _pyop, _uf in (("lt", operator.lt, "less"), ("le", operator.le, "less_equal"),
                          ("gt", operator.gt, "greater"), ("ge", operator.ge, "greater_equal"),
                          ("eq", operator.eq, "equal"), ("ne", operator.ne, "not_equal")):
    setattr(_WeakScalar, f"__{_name}__", _weak_binop(_uf, _pyop)[0])
for _name, _pyop in (("neg", operator.neg), ("pos", operator.pos), ("abs", operator.abs),
                     ("invert", operator.invert)):
    setattr(_WeakScalar, f"__{_name}__",
            (lambda f: lambda self: _weak_expr(f, (self,)))(_pyop))
_WeakScalar.__hash__ = None
del _name, _pyop, _uf, _op, _rop


# ---------------------------------------------------------------- ufuncs


def _key(x):
    if isinstance(x, _WeakScalar):
        # a Python bool is NumPy's bool (eager: _arrayops.dtype_key)
        return _BOOL if isinstance(x.pyval, (bool, np.bool_)) else type(x.pyval)
    if isinstance(x, Tracer):
        return x.dtype
    return _arrayops.dtype_key(x)


def _trace_value(t, x, dt):
    """A graph value of operand x (as dtype dt when it is a constant)."""
    if isinstance(x, _WeakScalar):
        return x.value_as(dt)
    if isinstance(x, Tracer):
        return x._v
    if isinstance(x, _array.ndarray):
        raise TracingError(f"{_where()}: a resident array that is not an argument (a global or "
                           f"a closure variable) is used in vp.jit; pass it as an argument")
    a = np.asarray(x)
    if a.ndim == 0:
        if np.dtype(dt).kind == "f" and a.item() == 0:
            # a float ±0.0 is read from a buffer, not written as a literal:
            # drivers without SignedZeroInfNanPreserve (lavapipe) fold
            # x * 0.0 to 0, 0.0 / x to 0, x + 0.0 to x and x / 0.0 to
            # garbage, which NumPy (and eager, whose scalars are push
            # constants) does not
            z = np.asarray(a.item(), dtype=dt)
            key = (z.dtype, z.tobytes())
            if key not in t.zeros:  # one buffer per signed zero, however often it is used
                t.zeros[key] = _capture(t, z)
            return t.zeros[key]
        return t.g.const(a.item(), dt)
    return _capture(t, a)


def _capture(t, a):
    """A NumPy array constant of the traced function: uploaded once, bound
    at every call."""
    shape = np.shape(a)  # (np.ascontiguousarray makes a 0-d array 1-d: x.sum() > 0.0 was (1,))
    a = np.ascontiguousarray(a)
    _array.check_dtype(a.dtype, "vp.jit constant")
    ctx = t.ctx if t.ctx is not None else _context.resolve(None)
    r = _array.asarray(a, context=ctx)
    sd = _array.storage_dtype(r.dtype)
    b = t.g.buffer(("c", id(r._buf)), sd, max(a.size, 1), r._buf, "k")
    t.consts.append((b.name, r))
    return t.g.load(b, a.dtype, shape)


# More NumPy functions that trace (issue 19: the view-like shape operations)
TRACED_FUNCTIONS = {n: getattr(_shapeops, n) for n in _shapeops.TRACED}


# ... and those written here with slices and ufuncs (they fuse like any other)
def _axes_of(axis, nd, what):
    if axis is None:
        return tuple(range(nd))
    axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
    return tuple(_errors.axis(a, nd, what) for a in axes)


def _flip(m, axis=None):
    """numpy.flip of a traced array: a view with reversed axes."""
    axes = _axes_of(axis, m.ndim, "vp.flip")
    return m[tuple(slice(None, None, -1) if d in axes else slice(None) for d in range(m.ndim))]


def _diff(a, n=1, axis=-1, prepend=np._NoValue, append=np._NoValue):
    """numpy.diff of a traced array: n rounds of a[1:] - a[:-1] along axis
    (bool: !=, as NumPy's); prepend= / append= are concatenated first
    (a scalar broadcast to one slice of the axis, as NumPy's)."""
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n!r}")
    if a.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    ax = _errors.axis(axis, a.ndim, "vp.diff")
    ends = []
    for x in (prepend, append):
        if x is None or x is np._NoValue:
            ends.append(None)
            continue
        if np.ndim(x) == 0:
            shape = tuple(1 if d == ax else s for d, s in enumerate(a.shape))
            x = _shapeops.broadcast_to(x, shape) if isinstance(x, Tracer) else \
                np.broadcast_to(np.asanyarray(x), shape)
        ends.append(x)
    if ends[0] is not None or ends[1] is not None:
        a = _concatenate([e for e in (ends[0], a, ends[1]) if e is not None], ax)
    for _ in range(n):
        hi = tuple(slice(1, None) if d == ax else slice(None) for d in range(a.ndim))
        lo = tuple(slice(None, -1) if d == ax else slice(None) for d in range(a.ndim))
        a = _ufunc.not_equal(a[hi], a[lo]) if a.dtype == _BOOL else _ufunc.subtract(a[hi], a[lo])
    return a


def _nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """numpy.nan_to_num of a traced real array: NaN, +inf and -inf replaced
    (by 0.0 and the dtype's largest and most negative values by default)."""
    if not copy:
        raise TracingError(f"{_where()}: vp.nan_to_num(copy=False) inside vp.jit changes its "
                           f"argument in place; return the result instead")
    if x.dtype.kind == "c":
        raise TracingError(f"{_where()}: vp.nan_to_num of a complex value inside vp.jit")
    if x.dtype.kind != "f":
        return x
    fi = np.finfo(x.dtype)
    pos = np.asarray(fi.max if posinf is None else posinf, x.dtype)[()]
    neg = np.asarray(fi.min if neginf is None else neginf, x.dtype)[()]
    r = _ufunc.where(_ufunc.isnan(x), np.asarray(nan, x.dtype)[()], x)
    r = _ufunc.where(_ufunc.logical_and(_ufunc.isinf(r), _ufunc.greater(r, 0)), pos, r)
    return _ufunc.where(_ufunc.logical_and(_ufunc.isinf(r), _ufunc.less(r, 0)), neg, r)


def _isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """numpy.isclose with a traced operand: |a - b| <= atol + rtol * |b| in
    the result type of (a, b, 1.0); infinities close only to an equal
    infinity, NaN only to NaN with equal_nan."""
    def key(x):
        if isinstance(x, _WeakScalar):
            return type(x.pyval)(0)
        return x.dtype if isinstance(x, Tracer) else np.asarray(x).dtype
    dt = np.result_type(key(a), key(b), 1.0)

    def conv(x):
        if isinstance(x, _WeakScalar):
            return _ufunc.add(x, dt.type(0))
        if isinstance(x, Tracer):
            return x if x.dtype == dt else x.astype(dt)
        return np.asarray(x, dt)
    a, b = conv(a), conv(b)
    finite = _ufunc.logical_and(_ufunc.isfinite(a), _ufunc.isfinite(b))
    near = _ufunc.less_equal(_ufunc.absolute(_ufunc.subtract(a, b)),
                             _ufunc.add(dt.type(atol), _ufunc.multiply(dt.type(rtol),
                                                                       _ufunc.absolute(b))))
    r = _ufunc.where(finite, near, _ufunc.equal(a, b))
    if equal_nan:
        r = _ufunc.logical_or(r, _ufunc.logical_and(_ufunc.isnan(a), _ufunc.isnan(b)))
    return r


def _concatenate(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    """numpy.concatenate with traced arrays: each piece gathered along the
    axis by a constant index array and chosen by a constant mask (vp.take
    and vp.where: the joins fuse with what surrounds them)."""
    if out is not None:
        raise TracingError(f"{_where()}: out= inside vp.jit; return the result instead")
    arrays = list(arrays)
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    tc = next((a for a in arrays if isinstance(a, _complex.TracedComplex)), None)
    if tc is not None:  # complex pieces: the parts joined (_complex.TracedComplex)
        return tc.__array_function__(np.concatenate, (), (arrays, axis),
                                     {"dtype": dtype, "casting": casting})
    nd = {np.ndim(a) if not isinstance(a, Tracer) else a.ndim for a in arrays}
    if len(nd) != 1 or 0 in nd:
        raise ValueError("all the input arrays must have the same number of dimensions, "
                         "and at least one")
    nd = nd.pop()
    if axis is None:
        return _concatenate([a.ravel() if isinstance(a, Tracer) else np.ravel(a)
                             for a in arrays], 0, None, dtype, casting)
    ax = _errors.axis(axis, nd, "vp.concatenate")
    shapes = [tuple(a.shape) if isinstance(a, Tracer) else np.shape(a) for a in arrays]
    for s in shapes[1:]:
        if any(s[d] != shapes[0][d] for d in range(nd) if d != ax):
            raise ValueError(f"all the input array dimensions except for the concatenation "
                             f"axis must match exactly ({shapes[0]} and {s})")
    dt = np.dtype(dtype) if dtype is not None else np.result_type(
        *(a.dtype if isinstance(a, Tracer) else np.asarray(a).dtype for a in arrays))
    for a in arrays:
        src = a.dtype if isinstance(a, Tracer) else np.asarray(a).dtype
        if not np.can_cast(src, dt, casting):
            raise TypeError(f"Cannot cast array data from {src!r} to {dt!r} according to the "
                            f"rule {casting!r}")
    sizes = [s[ax] for s in shapes]
    total = sum(sizes)
    pos = np.arange(total)
    view = [1] * nd
    view[ax] = total
    r, off = None, 0
    for a, n in zip(arrays, sizes):
        if n == 0:
            continue
        a = a.astype(dt) if isinstance(a, Tracer) else np.asarray(a, dt)
        piece = _indexing.take(a, np.clip(pos - off, 0, n - 1).astype(np.int64), axis=ax) \
            if isinstance(a, Tracer) else np.take(a, np.clip(pos - off, 0, n - 1), axis=ax)
        r = piece if r is None else _ufunc.where(
            ((pos >= off) & (pos < off + n)).reshape(view), piece, r)
        off += n
    if r is None:  # every piece empty along the axis
        a = next(x for x in arrays if isinstance(x, Tracer))
        return a.astype(dt)
    return r


def _stack(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    """numpy.stack with traced arrays: a new axis each, then concatenated."""
    arrays = list(arrays)
    if not arrays:
        raise ValueError("need at least one array to stack")
    tc = next((a for a in arrays if isinstance(a, _complex.TracedComplex)), None)
    if tc is not None:
        return tc.__array_function__(np.stack, (), (arrays, axis),
                                     {"dtype": dtype, "casting": casting})
    shapes = {tuple(a.shape) if isinstance(a, Tracer) else np.shape(a) for a in arrays}
    if len(shapes) != 1:
        raise ValueError("all input arrays must have the same shape")
    nd = len(shapes.pop()) + 1
    ax = _errors.axis(axis, nd, "vp.stack")
    return _concatenate([_shapeops.expand_dims(a, ax) if isinstance(a, Tracer) else
                         np.expand_dims(a, ax) for a in arrays], ax, out, dtype, casting)


TRACED_FUNCTIONS.update({"flip": _flip, "diff": _diff, "nan_to_num": _nan_to_num,
                         "isclose": _isclose, "concatenate": _concatenate, "stack": _stack})


_CMP_FLIP = {"less": "greater", "less_equal": "greater_equal", "greater": "less",
             "greater_equal": "less_equal", "equal": "equal", "not_equal": "not_equal"}


def trace_ufunc(uf, args, exact=True):
    t = next(a._t for a in args if isinstance(a, Tracer))
    t.stamp()
    if exact and uf.name in _CMP_FLIP and len(args) == 2:
        k = next((i for i, a in enumerate(args)
                  if isinstance(a, _WeakScalar) and type(a.pyval) is int), None)
        x = args[1 - k] if k is not None else None
        if isinstance(x, Tracer) and not isinstance(x, _WeakScalar) and x.dtype.kind in "iu":
            return _int_compare(uf, x, args[k], k)
    keys = tuple(_key(a) for a in args)
    if uf.name == "cast":
        raise TracingError("cast while tracing")
    loop_in, out_dt = uf.resolve(keys)
    for k, (a, dt) in enumerate(zip(args, loop_in)):
        v = a.pyval if isinstance(a, _WeakScalar) else a
        if uf.name == "power" and k == 1 and type(v) is int and v < 0 and \
                np.dtype(dt).kind in "iu":
            raise ValueError(f"{_where()}: Integers to negative integer powers are not allowed.")
        if type(a) is int and np.dtype(dt).kind in "iu" and \
                not np.iinfo(dt).min <= a <= np.iinfo(dt).max:
            # NumPy's OverflowError, not a literal that wraps (numpy.where:
            # the installed NumPy's cast, _arrayops.python_int)
            try:
                _arrayops.python_int(uf.name, a, np.dtype(dt), k)
            except OverflowError as e:
                raise OverflowError(f"{_where()}: {e}") from None
    vals = [_trace_value(t, a, dt) for a, dt in zip(args, loop_in)]
    return Tracer(_graph.apply_ufunc(t.g, uf, vals, loop_in, out_dt), t)




def _int_compare(uf, x, w, k):
    """x op n of an integer array x and a Python int argument n (k: n's
    operand position), exact as NumPy 2 makes it for any n (x_u8 < 300 is
    all True, x_u8 == -1 all False; not the OverflowError of n cast to
    x's dtype): the comparison with n clamped to x's range, replaced by
    the decided answer where n is outside it (all on the host, per call)."""
    lo, hi = int(np.iinfo(x.dtype).min), int(np.iinfo(x.dtype).max)
    name = uf.name if k == 1 else _CMP_FLIP[uf.name]  # as x op n
    inside = _weak_expr(lambda v: lo <= v <= hi, (w,))
    clamped = _weak_expr(lambda v: min(max(v, lo), hi), (w,))
    answer = _weak_expr(lambda v: {"less": v > hi, "less_equal": v > hi, "greater": v < lo,
                                   "greater_equal": v < lo, "equal": False,
                                   "not_equal": True}[name], (w,))
    cmp = trace_ufunc(uf, (x, clamped) if k == 1 else (clamped, x), exact=False)
    return _ufunc.where(inside, cmp, answer)


def _getitem(t, key):
    """tracer[key]: basic indexing traces to array.slice, one integer-array
    index to array.take (_indexing.py parses the key as for resident arrays)."""
    ix = _indexing
    if ix._is_mask(key) or (isinstance(key, tuple) and any(ix._is_mask(k) for k in key)):
        raise TracingError(f"{_where()}: boolean-mask indexing inside vp.jit has a data-dependent "
                           f"shape; use vp.where(mask, x, 0) (or index outside vp.jit)")
    tr = t._t
    tr.stamp()
    entries = ix._expand(key, t.ndim)
    b, adv = ix._basic(t.shape, 0, list(_graph.c_strides(t.shape)), entries)
    if adv and ix._adv_apart(entries):  # t[0, :, idx]: NumPy puts idx's dims first
        b, adv = ix._adv_first(b, adv)
    v = t._tensor()
    if (tuple(b.shape), b.offset, tuple(b.strides)) != (t.shape, 0, _graph.c_strides(t.shape)):
        v = tr.g.slice(v, tuple(b.shape), b.offset, tuple(b.strides))
    if not adv:
        return Tracer(v, tr)
    k, n = ix._adv_group(adv, "indexing")
    if n != 1:
        raise TracingError(f"{_where()}: several integer-array indices inside vp.jit are not "
                           f"supported; index one axis at a time")
    i = adv[0][1]
    if isinstance(i, Tracer):
        iv = i._v
        if iv.dtype.kind in "iu" and iv.dtype.itemsize < 4:  # wrap -1 by the axis, not mod 256
            iv = tr.g.cast(iv, np.dtype(np.int32))
    else:
        iv = _capture(tr, ix._host_index(i, b.shape[k]))
    return Tracer(tr.g.take(v, iv, k), tr)


# ---------------------------------------------------------------- shape ops


def reshape(a, *shape):
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
        shape = tuple(shape[0])
    if not isinstance(a, Tracer):
        return a.reshape(*shape)
    n = a.size
    shape = tuple(int(s) for s in shape)
    if -1 in shape:
        rest = int(np.prod([s for s in shape if s != -1], dtype=np.int64))
        shape = tuple(n // rest if s == -1 and rest else s for s in shape)
    if int(np.prod(shape, dtype=np.int64)) != n:
        raise ValueError(f"cannot reshape array of size {n} into shape {shape}")
    a._t.stamp()
    return Tracer(a._t.g.reshape(a._tensor(), shape), a._t)


def transpose(a, axes=None):
    if not isinstance(a, Tracer):
        return _indexing.transpose(a, axes)
    nd = a.ndim
    axes = tuple(reversed(range(nd))) if axes is None else \
        tuple(_errors.axis(x, nd, "vp.transpose") for x in axes)
    if sorted(axes) != list(range(nd)):
        raise ValueError("axes don't match array")
    if axes == tuple(range(nd)):
        return a
    a._t.stamp()
    return Tracer(a._t.g.transpose(a._v, axes), a._t)


# ---------------------------------------------------------------- vp.jit


class _Entry:
    """One traced and compiled signature."""

    __slots__ = ("compiled", "params", "outputs", "structure", "consts", "ctx_key", "hazard",
                 "elementwise", "fast", "weak")


def _complex_load(t, b, dt, shape, offset, estrides):
    """The TracedComplex of a complex array in buffer b (of its component
    dtype): the parts at element 2 * offset (+ 1), the strides doubled."""
    st = tuple(2 * s for s in (_graph.c_strides(shape) if estrides is None else estrides))
    fdt = _complex.float_of(dt)
    re, im = (Tracer(t.g.load(b, fdt, shape, 2 * offset + j, st), t) for j in (0, 1))
    return _complex.TracedComplex(re, im, dt, shape, re)


def _sig_of(x):
    if isinstance(x, _array.ndarray):
        return ("r", x.dtype.str, x.shape, x._offset, x._estrides, x._ctx._native)
    if isinstance(x, np.ndarray) or isinstance(x, (list, tuple)) and x and \
            all(isinstance(e, (int, float, bool)) for e in x):
        a = np.asarray(x)
        return ("n", a.dtype.str, a.shape)
    if isinstance(x, np.generic):
        return ("g", x.dtype.str)
    if isinstance(x, (bool, int, float, complex)):
        return ("s", type(x).__name__)
    try:
        hash(x)
    except TypeError:
        raise TypeError(f"vp.jit: cannot use an argument of type {type(x).__name__} "
                        f"(arrays, scalars and hashable constants are)") from None
    return ("k", type(x).__name__, x)


class JitFunction:
    """What vp.jit returns (make it with vp.jit(fn, fuse=..., context=...,
    fast_math=...), whose arguments it keeps): call it like the function.
    Attributes of the last signature it ran: .vir (the traced array VIR,
    before fusion), .fused_vir, .lowered_vir, .glsl (its kernels),
    .dispatches (kernel launches per call)."""

    def __init__(self, fn, fuse=True, context=None, fast_math=False):
        self.fn = fn
        self.fuse = fuse
        self.fast_math = fast_math
        self.context = context
        self._cache = {}
        self._last = None
        self._lock = threading.Lock()
        # Launcher.ufunc of the last signature that qualified (_plan_fast):
        # the warm call of an elementwise function on whole resident arrays
        # with out= is checked and dispatched in C
        self._fast = None
        self.__name__ = getattr(fn, "__name__", "jit")
        self.__doc__ = getattr(fn, "__doc__", None)
        try:
            self._params = list(inspect.signature(fn).parameters)
        except (TypeError, ValueError):
            self._params = []

    def __repr__(self):
        return f"<vp.jit {self.__name__}>"

    # ------------------------------------------------------------ inspection
    def _need(self):
        if self._last is None:
            raise AttributeError(f"vp.jit {self.__name__}: call it first (the code depends on "
                                 f"the arguments' dtypes and shapes)")
        return self._last.compiled

    @property
    def vir(self):
        """The traced array function (before fusion)."""
        return self._need().vir

    @property
    def array_vir(self):
        """The array VIR handed to the C compiler (with the Python lines
        as locations): `vulpy-translate --from=vir --arrays --to=glsl` on
        it repeats this compile from the command line (docs/fusion.md)."""
        return self._need().array_vir

    @property
    def fused_vir(self):
        """After `vulpy-opt --fuse`."""
        return self._need().fused_vir

    @property
    def lowered_vir(self):
        """After lower-arrays: the kernels and their launches."""
        return self._need().lowered_vir

    @property
    def glsl(self):
        return self._need().glsl

    @property
    def dispatches(self):
        return self._need().dispatches

    # ------------------------------------------------------------ calling
    def __call__(self, *args, out=None, sync=True):
        """Runs the function. out= (a resident array, or a tuple of them, one
        per array the function returns, views allowed) receives the results
        instead of new arrays and is returned; sync=False returns a Handle."""
        fast = self._fast
        if fast is not None and out is not None:
            r = fast(args, out, sync)
            if r is not NotImplemented:
                return r
        if any(isinstance(a, Tracer) for a in args):
            # called inside another vp.jit function: traced into it (inlined)
            if out is not None:
                raise TracingError(f"{_where()}: out= inside vp.jit; return the result instead")
            return self.fn(*args)
        if any(type(a) is np.ndarray and not a.dtype.isnative for a in args):
            # '>f4' NumPy data: its values, in the GPU's byte order
            args = tuple(a.astype(a.dtype.newbyteorder("=")) if type(a) is np.ndarray and
                         not a.dtype.isnative else a for a in args)
        outs = _outs(out, self.__name__)
        ctx = _array.common_context(f"vp.jit {self.__name__}", args + outs) or \
            _context.resolve(self.context)
        if outs:
            # an argument that overlaps an out= array other than element for
            # element is read as it was before the call (NumPy's rule): a copy
            args = _array.unalias(args, outs)
        # (the context too: a trace's captured constants live on its context,
        # which they keep alive, so its id is not reused while cached)
        sig = tuple(_sig_of(a) for a in args) + (("ctx", id(ctx)),)
        groups = _engine.reduce_groups()  # VULPY_REDUCE_GROUPS changes the lowering
        if groups:
            sig += (("reduce_groups", groups),)
        if outs:
            sig += (("out",) + tuple(_out_sig(o, args) for o in outs),)
        e = self._lookup(sig, args, ctx, outs)
        if e.hazard:
            # the function reads an argument that is also out= other than
            # element for element (a[::-1], a.sum(), ...): the kernels would
            # read what they already wrote, so they get a copy of it
            # (the signature cannot tell the copies from the arguments: a
            # mark of its own)
            args = tuple(a.copy() if i in e.hazard else a for i, a in enumerate(args))
            sig += (("copied",) + e.hazard,)
            e = self._lookup(sig, args, ctx, outs)
        self._last = e
        r = self._run(e, args, ctx, sync, outs)
        if outs and not e.hazard:
            if e.fast is False:
                e.fast = self._plan_fast(e, args, ctx, outs)
            if e.fast is not None:
                self._fast = e.fast
        return r

    def _plan_fast(self, e, args, ctx, outs):
        """Launcher.ufunc, the C path of the next call like this one, when
        the call qualifies: one out= array, every argument a whole resident
        array of its shape, the traced function elementwise (loads and
        stores without views, no array op: so an argument that is also
        out= is read element for element), one kernel with no push
        constants binding the arguments then out=, in order. Launcher.ufunc
        checks each operand's type, dtype, shape and context and returns
        NotImplemented for anything else (then __call__ runs). None: the
        call does not qualify."""
        if any(x.dtype.kind == "c" for x in args + outs if hasattr(x, "dtype")):
            return None  # (complex operands: their parts are views of the buffers)
        if len(outs) != 1 or e.structure != ("out", 0) or not e.elementwise or e.consts or \
                any(p[0] != "r" for p in e.params) or not e.outputs or e.outputs[0][3] != 0:
            return None
        o = outs[0]
        if not o._whole or any(a._whole is not True or a.shape != o.shape for a in args):
            return None
        comp = e.compiled
        if len(comp.launches) != 1 or comp.launches[0][3] != 1:
            return None
        name, gx, gy, _ = comp.launches[0]
        prog = comp.programs[name]
        want = [p[1] for p in e.params] + [e.outputs[0][0]]
        if [b["name"] for b in prog.buffers] != want or prog.packer.names:
            return None
        from . import _native
        launcher = _native.ext().Launcher(prog.native(ctx), _array.ndarray, Handle, tuple(
            a.dtype for a in args) + (o.dtype,), (), 0)
        launcher.as_ufunc(b"", gx, gy, tuple(o.shape))
        return launcher.ufunc

    def _lookup(self, sig, args, ctx, outs):
        e = self._cache.get(sig)
        if e is None:
            with self._lock:
                e = self._cache.get(sig)
                if e is None:
                    e = self._trace(args, ctx, outs)
                    self._cache[sig] = e
        return e

    def _name(self, i):
        n = self._params[i] if i < len(self._params) else f"arg{i}"
        return n if n.isidentifier() and n.isascii() else f"arg{i}"

    def _trace(self, args, ctx, outs=()):
        name = self.__name__ if self.__name__.isidentifier() else "jit"
        file = getattr(getattr(self.fn, "__code__", None), "co_filename", None)
        t = _Trace(name if name != "<lambda>" else "jit", file)
        t.ctx = ctx  # (the captured constants live on the call's context)
        params = []
        tracers = []
        code = getattr(self.fn, "__code__", None)
        if code is not None:  # loads and stores: the function's line
            t.g.loc = (os.path.basename(code.co_filename), code.co_firstlineno, 1)
        for i, a in enumerate(args):
            pname = self._name(i)
            if isinstance(a, _array.ndarray) and a.dtype.kind == "c":
                # the parts through the interleaved buffer (_complex.TracedComplex)
                fdt = _complex.float_of(a.dtype)
                b = t.g.buffer(("p", i), fdt, 2 * _arrayops.extent(a), None, pname)
                params.append(("r", b.name))
                tracers.append(_complex_load(t, b, a.dtype, a.shape, a._offset, a._estrides))
            elif isinstance(a, _array.ndarray):
                sd = _array.storage_dtype(a.dtype)
                b = t.g.buffer(("p", i), sd, _arrayops.extent(a), None, pname)
                params.append(("r", b.name))
                tracers.append(Tracer(t.g.load(b, a.dtype, a.shape, a._offset, a._estrides), t))
            elif isinstance(a, (np.ndarray, list, tuple)) and sig_is_array(a):
                h = np.asarray(a)
                _array.check_dtype(h.dtype, f"vp.jit {self.__name__} argument {pname}")
                if h.dtype.kind == "c":  # uploaded as it is: (real, imag) pairs
                    b = t.g.buffer(("p", i), _complex.float_of(h.dtype), 2 * max(h.size, 1),
                                   None, pname)
                    params.append(("n", b.name, h.dtype))
                    tracers.append(_complex_load(t, b, h.dtype, h.shape, 0, None))
                    continue
                sd = np.dtype(np.uint8) if h.dtype == _BOOL else h.dtype
                b = t.g.buffer(("p", i), sd, max(h.size, 1), None, pname)
                params.append(("n", b.name, h.dtype))
                tracers.append(Tracer(t.g.load(b, h.dtype, h.shape), t))
            elif isinstance(a, np.complexfloating):  # its parts: two push constants
                fdt = _complex.float_of(a.dtype)
                re, im = (Tracer(t.g.scalar(fdt, f"{pname}_{p}"), t) for p in ("re", "im"))
                params.append(("gc", pname, a.dtype))
                tracers.append(_complex.TracedComplex(re, im, a.dtype, (), re))
            elif isinstance(a, np.generic):  # (before float: np.float64 is one, but strong)
                v = t.g.scalar(a.dtype, pname)
                params.append(("g", pname, a.dtype))
                tracers.append(Tracer(v, t))
            elif isinstance(a, (bool, int, float)):
                w = _WeakScalar(a, pname, t, idx=i)
                params.append(("s", w))
                tracers.append(w)
            elif isinstance(a, complex):  # two weak floats, pushed at each call
                re, im = (_WeakScalar(float(getattr(a, f)), f"{pname}_{f}", t,
                                      fn=lambda args, i=i, f=f: float(getattr(args[i], f)))
                          for f in ("real", "imag"))
                t.weak += [re, im]
                params.append(("k",))
                tracers.append(_complex.TracedComplex(re, im, np.complex128, (), re, weak=True))
            else:
                params.append(("k",))
                tracers.append(a)
        prev = _active()
        _Trace.local.trace = t
        try:
            result = self.fn(*tracers)
        finally:
            _Trace.local.trace = prev
        results = []
        resident = any(isinstance(a, _array.ndarray) for a in args)

        def collect(r):
            if isinstance(r, _WeakScalar):  # this call's value (an argument's, n + 1's)
                return ("weak", r)
            if isinstance(r, _complex.TracedComplex):
                if r.anchor._t is not t:
                    raise TracingError(f"vp.jit {self.__name__}: returns a value of another trace")
                if code is not None:
                    t.g.loc = (os.path.basename(code.co_filename), code.co_firstlineno, 1)
                k = len(results)
                results.append(self._store_complex(t, r, k, outs, args, resident))
                return ("out", k)
            if isinstance(r, Tracer):
                if r._t is not t:
                    raise TracingError(f"vp.jit {self.__name__}: returns a value of another trace")
                if code is not None:
                    t.g.loc = (os.path.basename(code.co_filename), code.co_firstlineno, 1)
                v = r._v
                shape = v.shape if v.shape is not None else ()
                dt = v.dtype
                k = len(results)
                if outs and k < len(outs) and outs[k].dtype.kind == "c" and \
                        not isinstance(r, _WeakScalar):
                    # a real result into a complex out=: its real part (imaginary 0)
                    results.append(self._store_complex(
                        t, _complex.TracedComplex(r, None, outs[k].dtype, shape, r), k, outs,
                        args, resident))
                    return ("out", k)
                if outs:
                    if k >= len(outs):
                        raise ValueError(f"vp.jit {self.__name__}: out= has {len(outs)} "
                                         f"array(s), the function returns more")
                    b = self._store_out(t, v, shape, outs[k], args)
                    results.append((b.name, shape, dt, k))
                    return ("out", k)
                # resident results are stored as resident arrays are; NumPy
                # results as NumPy's bytes
                sd = _array.storage_dtype(dt) if resident else \
                    (np.dtype(np.uint8) if dt == _BOOL else dt)
                b = t.g.buffer(("o", k), sd, max(int(np.prod(shape, dtype=np.int64)), 1),
                               None, "out")
                t.g.store(b, v)
                results.append((b.name, shape, dt, None))
                return ("out", k)
            if isinstance(r, (tuple, list)):
                return (type(r), [collect(x) for x in r])
            if isinstance(r, dict):  # {"y": a * 2}: the values collected, the keys kept
                return ("dict", type(r), [(k, collect(x)) for k, x in r.items()])
            if isinstance(r, (set, frozenset)) and any(isinstance(x, Tracer) for x in r):
                raise TracingError(f"vp.jit {self.__name__}: returns traced arrays in a "
                                   f"{type(r).__name__}; return a tuple, list or dict")
            return ("const", r)

        structure = collect(result)
        if outs and len(results) != len(outs):
            raise ValueError(f"vp.jit {self.__name__}: out= has {len(outs)} array(s), the "
                             f"function returns {len(results)}")
        e = _Entry()
        e.params, e.outputs, e.structure, e.consts = params, results, structure, t.consts
        e.weak = t.weak
        e.hazard = _inplace_hazard(t.g, params, args, outs)
        e.elementwise = _elementwise(t.g)
        e.fast = False  # not planned yet (__call__)
        if e.hazard:  # never run: __call__ copies those arguments and traces again
            e.compiled = None
            return e
        e.compiled = _engine.compile(t.g.text(), ctx, f"vp.jit {self.__name__}", self.fuse,
                                     self.fast_math)
        return e

    def _store_complex(self, t, r, k, outs, args, resident):
        """Stores TracedComplex r, result k, through the interleaved buffer of
        out= array k or of a new result: the entry of e.outputs."""
        shape, dt = r.shape, r.dtype
        if outs:
            if k >= len(outs):
                raise ValueError(f"vp.jit {self.__name__}: out= has {len(outs)} array(s), the "
                                 f"function returns more")
            o = outs[k]
            if tuple(o.shape) != tuple(shape):
                raise _array.out_shape_error(f"vp.jit {self.__name__}", o, shape)
            if o.dtype.kind != "c":
                raise TypeError(f"vp.jit {self.__name__}: cannot store a {dt.name} result into "
                                f"out= of dtype {o.dtype.name} (same_kind casting)")
            fdt = _complex.float_of(o.dtype)
            alias = _alias(o, args)
            key = ("p", alias) if alias is not None else ("out", id(o))
            count, offset, estrides, dt = 2 * _arrayops.extent(o), o._offset, o._estrides, o.dtype
        else:
            fdt = _complex.float_of(dt)
            key = ("o", k)
            count, offset, estrides = 2 * max(int(np.prod(shape, dtype=np.int64)), 1), 0, None
        # the imaginary part through a buffer of its own, bound to the same
        # memory: stores into two buffers fuse into one kernel
        bufs = (t.g.buffer(key, fdt, count, None, "out"),
                t.g.buffer(key + ("im",), fdt, count, None, "out"))
        st = tuple(2 * s for s in (_graph.c_strides(shape) if estrides is None else estrides))
        for j in (0, 1):
            p = r.part(j)
            v = p._v if p.dtype == fdt else t.g.convert(p._v, fdt)
            t.g.store(bufs[j], v, 2 * offset + j, st)
        return ((bufs[0].name, bufs[1].name), shape, dt, k if outs else None)

    def _store_out(self, t, v, shape, o, args):
        """Stores traced value v into the out= array o (through its view):
        the buffer is the argument's own when o shares one with an argument,
        so fusion sees the in-place update."""
        if tuple(o.shape) != tuple(shape):
            raise _array.out_shape_error(f"vp.jit {self.__name__}", o, shape)
        if o.dtype != v.dtype:
            if not np.can_cast(v.dtype, o.dtype, "same_kind"):
                raise TypeError(f"vp.jit {self.__name__}: cannot store a {v.dtype.name} result "
                                f"into out= of dtype {o.dtype.name} (same_kind casting)")
            v = t.g.convert(v, o.dtype)
        sd = _array.storage_dtype(o.dtype)
        alias = _alias(o, args)
        key = ("p", alias) if alias is not None else ("out", id(o))
        b = t.g.buffer(key, sd, _arrayops.extent(o), None, "out")
        t.g.store(b, v, o._offset, o._estrides)
        return b

    def gpu_times(self, *args, iters=10, out=None):
        """GPU nanoseconds per call, `iters` calls (for benchmarks): the
        kernels' own time, measured with timestamps."""
        t = self.timer(*args, out=out)
        return [t() for _ in range(iters)]

    def timer(self, *args, out=None, repeat=1):
        """For benchmarks: a function that runs this call's kernels
        `repeat` times back to back (one recording with timestamps, made
        here) and returns their GPU nanoseconds per call. The arguments
        stay bound to it: NumPy arguments are uploaded once; a new result
        array is made once."""
        ctx = next((a._ctx for a in args if isinstance(a, _array.ndarray)), None) or \
            _context.resolve(self.context)
        self(*args, out=out)
        e = self._last
        bind, push, scratch, results = self._bind(e, args, ctx, _outs(out, self.__name__))
        run = e.compiled.timer(ctx, bind, push, repeat)
        return lambda keep=(scratch, results): run()

    def _run(self, e, args, ctx, sync, outs=()):
        bind, push, scratch, results = self._bind(e, args, ctx, outs)
        # a small resident result the host cannot map (a 0-d sum on a
        # discrete GPU's device memory) is copied into a host-visible
        # mirror in the same submission (_arrayops.Call._mirrored)
        mres = next((r for r in results if isinstance(r, _array.ndarray) and r.contiguous and
                     0 < r.nbytes <= _reduce.MIRROR_MAX and not r._buf.mapped), None)
        rb = None
        if mres is not None:
            m = ctx._scratch("cached", _array._padded(mres.nbytes))
            rb = (m, 0, mres._buf, 0, mres.nbytes)
        ticket = e.compiled.run(ctx, bind, push, sync, rb)

        def finish():
            if rb is not None:
                mres._mirror = (m, mres._buf.last_use)
            outs = []
            for r in results:
                if isinstance(r, tuple):
                    buf, shape, dt, sd, n = r
                    h = np.empty(shape, sd)
                    if n:
                        buf.download(h)
                    outs.append(h.view(np.bool_) if dt == _BOOL else h)
                else:
                    outs.append(r)
            for b in scratch:
                ctx._release(b)
            return _rebuild(e.structure, outs, args)

        return finish() if sync else Handle(ticket, finish)

    def _push_weak(self, w, a, push):
        """The push constants of weak scalar w (of value a): one per dtype
        it is used at."""
        for dt in w.fields:
            if dt in _graph.WIDE:  # small dtypes: NumPy's value (or its OverflowError)
                try:
                    v = np.array(a, dtype=dt)
                except OverflowError as e:
                    what = f"argument {w.param}" if w.fn is None else \
                        "a Python scalar expression of the arguments"
                    raise OverflowError(f"vp.jit {self.__name__}: {what}: {e}") from None
                push[f"{w.param}_{_graph.vtype(dt)}"] = v.item()
                continue
            if dt.kind == "f":  # NumPy's cast: 1e300 is inf in float32, not an error
                with np.errstate(over="ignore"):
                    v = float(np.asarray(a, dtype=dt))
            else:
                v = int(bool(a)) if dt == _BOOL else int(a)
            push[f"{w.param}_{_graph.vtype(dt)}"] = v

    def _bind(self, e, args, ctx, outs):
        """Buffers and push constants of one call: (bind, push, scratch,
        results)."""
        bind, push, scratch = {}, {}, []
        resident = None
        for p, a in zip(e.params, args):
            kind = p[0]
            if kind == "r":
                bind[p[1]] = a._buf
                resident = a if resident is None else resident
            elif kind == "n":
                h = np.ascontiguousarray(np.asarray(a, dtype=p[2]))
                buf = ctx._scratch("host" if not ctx.uma else "device", max(h.nbytes, 16))
                if h.size:
                    buf.upload(h.view(np.uint8) if h.dtype == _BOOL else h)
                scratch.append(buf)
                bind[p[1]] = buf
            elif kind == "s":
                self._push_weak(p[1], a, push)
            elif kind == "g":
                push[p[1]] = a.item() if p[2] != _BOOL else int(a)
            elif kind == "gc":
                push[f"{p[1]}_re"], push[f"{p[1]}_im"] = float(a.real), float(a.imag)
        for w in e.weak:
            self._push_weak(w, w.eval(args), push)
        for name, r in e.consts:
            bind[name] = r._buf
        results = []
        for name, shape, dt, k in e.outputs:
            names = name if type(name) is tuple else (name,)  # (a complex result's parts)
            if k is not None:
                buf = outs[k]._buf
                results.append(outs[k])
            elif resident is not None:
                r = _array._result(tuple(shape), dt, resident.memory, ctx)  # written whole
                buf = r._buf
                results.append(r)
            else:
                n = int(np.prod(shape, dtype=np.int64))
                sd = np.dtype(np.uint8) if dt == _BOOL else dt
                buf = ctx._scratch("cached" if not ctx.uma else "device", max(n * sd.itemsize, 16))
                scratch.append(buf)
                results.append((buf, shape, dt, sd, n))
            for n in names:
                bind[n] = buf
        return bind, push, scratch, results


def _outs(out, name):
    """out= as a tuple of resident arrays."""
    if out is None:
        return ()
    outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    for o in outs:
        if not isinstance(o, _array.ndarray):
            raise TypeError(f"vp.jit {name}: out= must be resident vp.ndarray(s), got "
                            f"{type(o).__name__}")
        _array.check_writable(o, f"vp.jit {name}")
    return outs


def _alias(o, args):
    """The index of the resident argument whose buffer (and element type)
    out= array o shares, or None."""
    for i, a in enumerate(args):
        if isinstance(a, _array.ndarray) and a._buf is o._buf and \
                _array.storage_dtype(a.dtype) == _array.storage_dtype(o.dtype):
            return i
    return None


def _inplace_hazard(g, params, args, outs):
    """The indices of the resident arguments that overlap an out= array and
    whose values reach a store through anything but elementwise ops (a
    slice, a transpose, a reduction, a gather, a broadcast), or reach a
    store into other memory than their own, or two stores: the fused
    kernels would read elements another invocation (or an earlier kernel:
    the stores of several results are kernels in program order, each
    reading the buffers again) already wrote. Empty when every such
    argument is only read element for element by the one store into its
    own memory (in place is then safe, and __call__ has copied every other
    overlap already)."""
    found = ()
    for i, (p, a) in enumerate(zip(params, args)):
        if p[0] != "r" or not any(_array.overlaps(o, a) for o in outs):
            continue
        src = "@" + p[1]
        own = {"@" + q[1] for q, b in zip(params, args)
               if q[0] == "r" and b._buf is a._buf}  # the buffers bound to a's memory
        tainted = {}  # name -> its shape (the tensor type without the dtype)
        stores = 0
        for line in g.lines:
            if line.startswith("array.store "):
                target = line.split()[1].rstrip(",")
                value = line[line.rindex(", %") + 2:].split()[0]
                if value in tainted:
                    stores += 1
                    if stores > 1 or target not in own:
                        found += (i,)
                        break
                continue
            if not line.startswith("%") or " = " not in line:
                continue
            name, rest = line.split(" = ", 1)
            body, ty = rest.rsplit(" : ", 1)
            shape = ty.split()[0].rsplit("x", 1)[0]
            words = body.split()
            op = words[0]
            if op == "array.load":
                if words[1] == src:
                    tainted[name] = shape
                continue
            uses = [w.rstrip(",") for w in words[1:] if w.startswith("%")]
            if any(u in tainted for u in uses):
                # array.ufunc broadcasts an operand of another shape
                if op.startswith("array.") and (op != "array.ufunc" or any(
                        tainted.get(u, shape) != shape for u in uses)):
                    found += (i,)
                    break
                tainted[name] = shape
    return found


def _elementwise(g):
    """Whether every op of graph g is elementwise: loads and stores without
    a view, and no array-level op (broadcast, reduction, reshape, gather,
    ...): the same element of every buffer is read and written by one
    invocation. (array.ufunc is elementwise here: its tensor operands
    could only differ in shape after an array-level op.)"""
    for line in g.lines:
        body = line.split(" = ", 1)[1] if line.startswith("%") and " = " in line else line
        op = body.split(None, 1)[0] if body.strip() else ""
        if op in ("array.load", "array.store"):
            if " offset(" in body or " strides(" in body:
                return False
        elif op.startswith("array.") and op != "array.ufunc":
            return False
    return True


def _out_sig(o, args):
    return (o.dtype.str, o.shape, o._offset, o._estrides, _alias(o, args))


def sig_is_array(a):
    return isinstance(a, np.ndarray) or all(isinstance(e, (int, float, bool)) for e in a)


def _rebuild(s, outs, args):
    kind = s[0]
    if kind == "out":
        return outs[s[1]]
    if kind == "const":
        return s[1]
    if kind == "weak":
        return s[1].eval(args)
    if kind == "dict":
        return s[1]((k, _rebuild(x, outs, args)) for k, x in s[2])
    items = [_rebuild(x, outs, args) for x in s[1]]
    return kind(*items) if hasattr(kind, "_fields") else kind(items)  # (a namedtuple)


def jit(fn=None, *, fuse: bool = True, context=None, fast_math: bool = False) -> "JitFunction":
    """vp.jit(fn=None, *, fuse=True, context=None, fast_math=False): fusion
    mode. Returns a JitFunction; use it as `@vp.jit` or `@vp.jit(...)`.

    On the first call per signature (each argument's dtype and shape, the
    view of a resident array, a Python scalar's type) `fn` runs once on
    tracers: every ufunc, operator, reduction, indexing and shape operation
    is recorded as array-level VIR, which the C compiler fuses, lowers to
    kernels and caches; every later call binds the arguments and
    dispatches (as few kernels as fusion allows: often one).

        fn         the function: array arguments (resident vp.ndarray or
                   NumPy arrays) and Python scalars (push constants: no
                   retrace when their values change); it returns an array
                   or a tuple of arrays.
        fuse       False runs one kernel per array op (for comparison).
        context    the vp.Context to run on (None: the arguments' context,
                   else vp.default_context()).
        fast_math  True uses the device's built-in sin/exp/... instead of
                   the precise helpers (docs/math.md).

    Calling the result: f(*args, out=None, sync=True). Resident arguments
    give resident results, NumPy arguments NumPy results; out= (a resident
    array or a tuple of them) receives the results; sync=False returns a
    vp.Handle. After a call, f.glsl, f.vir, f.fused_vir and f.dispatches
    show what it became.

    Dtypes: those of the arguments, with NumPy's promotion (NEP 50: a
    Python scalar is weak); float64 / int64 need the device's features.

    Errors: vp.TracingError (a TypeError) for a Python `if`/`while` on a
    traced value, a NumPy function the array level has not, or a
    data-dependent shape, naming the line; TypeError when `fn` is not
    callable or an argument's type cannot be traced; ValueError for shapes
    that do not broadcast; vp.FeatureError for a dtype the device lacks.

    Example:
        f = vp.jit(lambda a, b: vp.where(a > b, vp.sin(a), vp.cos(b)))
        x = vp.asarray(np.linspace(0, 1, 1024, dtype=np.float32))
        y = f(x, x * 0.5)                 # one dispatch, resident result
        print(f.dispatches, y.numpy()[:3])
    """
    if fn is None:
        return lambda f: JitFunction(f, fuse, context, fast_math)
    if not callable(fn):
        raise TypeError(f"vp.jit expects a function, got {type(fn).__name__}")
    return JitFunction(fn, fuse, context, fast_math)


def fuse(*args, kernel_name=None):
    """vp.fuse(fn=None, *, kernel_name=None): cupy.fuse's spelling of
    vp.jit (`@vp.fuse`, `@vp.fuse()`, `@vp.fuse(kernel_name="f")`): the
    function traced and fused into as few kernels as the array level
    allows, its kernels named after `kernel_name` when given (else the
    function's name). Everything else is vp.jit's (its docstring)."""
    def make(f):
        if not callable(f):
            raise TypeError(f"vp.fuse expects a function, got {type(f).__name__}")
        j = JitFunction(f)
        if kernel_name is not None:
            if not isinstance(kernel_name, str) or not kernel_name.isidentifier():
                raise ValueError(f"vp.fuse: kernel_name must be an identifier, got "
                                 f"{kernel_name!r}")
            j.__name__ = kernel_name
        return j
    if len(args) > 1:
        raise TypeError("vp.fuse takes one function")
    return make(args[0]) if args else make
