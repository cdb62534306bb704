"""Array-level VIR from Python: the graph that vp.jit's tracer and the eager
array API (reductions, indexing, strided views) record, printed as the text
of one `array` function (docs/fusion.md).

A Graph holds buffers (each bound, when the graph runs, to a vulpy Buffer),
push-constant scalars, and a list of VIR lines; a Value is one SSA value of
it: a tensor (shape is a tuple) or a scalar (shape is None). Everything
after the text - the ufuncs' expansion (array.ufunc: lower-ufuncs,
include/vulpy/ir/ufuncs.def), fusion, lowering, code generation - is the C
compiler's (vulpy._vulpy.jit_compile), the small dtypes' 32-bit arithmetic
too (lower-small-types). The only logic here is NumPy's dtype rules
(numpy's own resolve_dtypes) and broadcasting.
"""
import math

import numpy as np

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_I32, _U32 = np.dtype(np.int32), np.dtype(np.uint32)
_I64, _U64 = np.dtype(np.int64), np.dtype(np.uint64)
_U8 = np.dtype(np.uint8)
_BOOL = np.dtype(np.bool_)

VTYPE = {_F32: "f32", _F64: "f64", _I32: "i32", _U32: "u32", _I64: "i64", _U64: "u64",
         _BOOL: "bool", _U8: "u8", np.dtype(np.int8): "i8", np.dtype(np.int16): "i16",
         np.dtype(np.uint16): "u16", np.dtype(np.float16): "f16"}
FEATURE = {_F64: "float64", _I64: "int64", _U64: "int64"}


def require_features(ctx, dts, who):
    """vp.FeatureError unless ctx has the 64-bit features of dtypes dts."""
    for dt in dts:
        feat = FEATURE.get(dt)
        if feat is not None and not ctx.has(feat):
            ctx.require(feat, f"{who} on {dt.name}")
# issue 19: the small dtypes are recorded at their own types and computed in
# 32 bits by the C pass lower-small-types (lib/Transforms/small_types.c);
# a push-constant field of one is its 32-bit type (WIDE).
WIDE = {np.dtype(np.float16): _F32, np.dtype(np.int8): _I32, np.dtype(np.int16): _I32,
        _U8: _U32, np.dtype(np.uint16): _U32}


def vtype(dt):
    try:
        return VTYPE[np.dtype(dt)]
    except KeyError:
        raise TypeError(f"dtype {np.dtype(dt).name} is not supported on the GPU") from None


# The dynamic extent (tensor<?xT>): a rank-1 shape whose element count is the
# push field n, given at each run, so one compile serves every size (the
# eager ufuncs: docs/fusion.md, "Dynamic extent").
DYN = ("?",)


def whole_reduction(name, kind, loads, rdt, out_elem, combine=None):
    """The array VIR of reduction `kind` (result dtype rdt) over whole
    arrays of any length: `loads` are (buffer, storage dtype, dtype) read
    as tensors of the dynamic extent n (a push field), `combine(g, values)`
    the value reduced (default: the one load), the 0-d result stored into
    buffer `out` (elements out_elem). One compile serves every n."""
    g = Graph(name)
    g.push.append(("n", _U32))
    vals = [g.load(g.buffer((b,), st, None, None, b), dt, DYN) for b, st, dt in loads]
    v = combine(g, vals) if combine is not None else vals[0]
    g.store(g.buffer(("out",), out_elem, 1, None, "out"), g.reduce(kind, v, (0,), False, rdt))
    return g.text()


def bshape(*shapes):
    """The common shape of broadcast operands (DYN only with DYN)."""
    if all(s == shapes[0] for s in shapes):
        return tuple(shapes[0])
    return np.broadcast_shapes(*shapes)


def tensor_type(shape, dt):
    return "tensor<" + "".join(f"{d}x" for d in shape) + vtype(dt) + ">"


def literal(value, dt):
    """VIR literal text of a Python value at dtype dt."""
    dt = np.dtype(dt)
    if dt == _BOOL:
        return "true" if value else "false"
    if dt.kind == "f":
        v = float(np.asarray(value, dt))
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        r = repr(v)
        return r if ("." in r or "e" in r) else r + ".0"
    return str(int(np.asarray(value).astype(dt)))


class Value:
    """One SSA value of a graph: a tensor (shape: tuple) or a scalar
    (shape None) of a NumPy dtype."""

    __slots__ = ("g", "name", "dtype", "shape")

    def __init__(self, g, name, dtype, shape):
        self.g, self.name, self.dtype, self.shape = g, name, dtype, shape

    def __repr__(self):
        return f"<{self.name} {self.dtype.name} {self.shape}>"


def is_traced(x):
    """Whether x is traced by vp.jit: a Traced array, or a complex one
    (_complex.TracedComplex, which marks itself with _vp_traced)."""
    return isinstance(x, Traced) or getattr(x, "_vp_traced", False)


class Traced:
    """A traced array: a Value of a Graph being recorded (vp.jit's Tracer,
    in vulpy/_jit.py, is the one kind). The op modules sit below the tracer
    in the import graph, so they test for this class and make their traced
    results with `wrap`, instead of importing _jit."""

    __slots__ = ("_v", "_t")

    def __init__(self, v, t):
        self._v, self._t = v, t

    def wrap(self, v):
        """A traced array of Value `v`, in the same trace as this one."""
        raise NotImplementedError


class BufferSym:
    """A module buffer of the graph; `source` says what it is bound to when
    the graph runs (the caller's business)."""

    __slots__ = ("name", "elem", "count", "source", "loaded", "stored")

    def __init__(self, name, elem, count, source):
        self.name, self.elem, self.count, self.source = name, elem, count, source
        self.loaded = self.stored = False


class Graph:
    """An array function under construction. `name` names it (and its
    kernels: NAME_k0, ...)."""

    def __init__(self, name="f", source_file=None):
        self.name = name
        self.source_file = source_file
        self.lines = []
        self.buffers = []
        self.by_source = {}
        self.push = []  # (field, dtype)
        self._n = 0
        self.loc = None  # (file, line, col) stamped on the ops added next

    # ---------------------------------------------------------------- plumbing
    def _value(self, dtype, shape, text, hint=None):
        self._n += 1
        name = f"%{hint}{self._n}" if hint else f"%{self._n}"
        v = Value(self, name, np.dtype(dtype), None if shape is None else tuple(shape))
        ty = vtype(v.dtype) if v.shape is None else tensor_type(v.shape, v.dtype)
        self.lines.append(f"{name} = {text} : {ty}{self._loc()}")
        return v

    def _loc(self):
        if not self.loc:
            return ""
        file, line, col = self.loc
        return f" loc({_quote(file)}:{line}:{col})"

    def buffer(self, key, elem, count, source, name="b"):
        """The buffer symbol bound to `key` (made on first use, named
        `name`, or name0, name1, ... when taken)."""
        b = self.by_source.get(key)
        if b is None:
            # count None: an unsized buffer (read through a dynamic extent)
            b = BufferSym(self._fresh(name), np.dtype(elem),
                          None if count is None else max(int(count), 1), source)
            self.buffers.append(b)
            self.by_source[key] = b
        elif b.count is not None:
            b.count = max(b.count, int(count))
        return b

    def _fresh(self, prefix):
        names = {b.name for b in self.buffers}
        if not prefix.isidentifier():
            prefix = "b"
        if prefix not in names and not prefix[-1].isdigit():
            return prefix
        k = 0
        while f"{prefix}{k}" in names:
            k += 1
        return f"{prefix}{k}"

    # ---------------------------------------------------------------- leaves
    def load(self, buf, dtype, shape, offset=0, strides=None, at=None):
        """A tensor read from `buf` through a view (element offset and
        strides; None = C-contiguous), or, for shape DYN, through the
        run-time view `at` = (offset, step) of u32 scalar values (element
        i is buffer element offset + i * step)."""
        buf.loaded = True
        view = f" at({', '.join(v.name for v in at)})" if at else _view(shape, offset, strides)
        return self._value(dtype, shape, f"array.load @{buf.name}{view}")

    def store(self, buf, value, offset=0, strides=None, at=None):
        buf.stored = True
        value = self.broadcast(value, value.shape if value.shape is not None else ())
        view = f" at({', '.join(v.name for v in at)})" if at else \
            _view(value.shape, offset, strides)
        self.lines.append(f"array.store @{buf.name}{view}, {value.name}{self._loc()}")

    def scatter(self, buf, shape, idx, value, offset=0, strides=None):
        """target[idx[j], ...] = value[j, ...] along axis 0 of the view."""
        buf.stored = True
        view = _view(shape, offset, strides)
        dims = ", ".join(str(d) for d in shape)
        self.lines.append(f"array.scatter @{buf.name} shape({dims}){view}, {idx.name}, "
                          f"{value.name}{self._loc()}")

    def scalar(self, dtype, name=None):
        """A push-constant scalar (its value is given at each run); a small
        dtype's field is its 32-bit type (WIDE), the value already in range."""
        field = name or f"s{len(self.push)}"
        dtype = np.dtype(dtype)
        self.push.append((field, WIDE.get(dtype, dtype)))
        return self.cast(self._value(WIDE.get(dtype, dtype), None, f"push.load @pc.{field}"),
                         dtype)

    def const(self, value, dtype):
        return self._value(dtype, None, f"const {literal(value, dtype)}")

    # ---------------------------------------------------------------- ops
    def cast(self, v, dtype):
        """v as dtype (NumPy's astype); a small dtype's casts go through its
        32-bit type in C (lower-small-types)."""
        dtype = np.dtype(dtype)
        return v if v.dtype == dtype else self._value(dtype, v.shape, f"cast {v.name}")

    def convert(self, v, dtype):
        """v as dtype, where a conversion to bool is `v != 0` (NumPy's)."""
        dtype = np.dtype(dtype)
        if dtype == _BOOL and v.dtype != _BOOL:
            return self.op("ne", [v, self.const(0, v.dtype)], _BOOL)
        return self.cast(v, dtype)

    def broadcast(self, v, shape):
        shape = tuple(shape)
        if v.shape == shape:
            return v
        return self._value(v.dtype, shape, f"array.broadcast {v.name}")

    def op(self, name, args, dtype):
        """An elementwise VIR op; tensor operands are broadcast to their
        common shape, scalars stay scalars."""
        shapes = [a.shape for a in args if a.shape is not None]
        shape = bshape(*shapes) if shapes else None
        if shape is not None:
            args = [a if a.shape is None else self.broadcast(a, shape) for a in args]
        return self._value(dtype, shape, f"{name} " + ", ".join(a.name for a in args))

    def ufunc(self, name, args, dtype):
        """NumPy's ufunc `name` on operands at its loop dtypes, result
        `dtype`: `array.ufunc NAME`, which the C pass lower-ufuncs expands
        (include/vulpy/ir/ufuncs.def). Tensor operands broadcast to the
        result's shape there, where an op of the expansion needs it."""
        shapes = [a.shape for a in args if a.shape is not None]
        return self._value(dtype, bshape(*shapes) if shapes else None,
                           f"array.ufunc {name} " + ", ".join(a.name for a in args))

    def reshape(self, v, shape):
        return v if v.shape == tuple(shape) else \
            self._value(v.dtype, shape, f"array.reshape {v.name}")

    def transpose(self, v, axes):
        shape = tuple(v.shape[a] for a in axes)
        return self._value(v.dtype, shape,
                           f"array.transpose {v.name} axes({', '.join(map(str, axes))})")

    def slice(self, v, shape, offset, strides):
        return self._value(v.dtype, shape, f"array.slice {v.name}{_view(shape, offset, strides)}")

    def take(self, v, idx, axis):
        shape = v.shape[:axis] + idx.shape + v.shape[axis + 1:]
        return self._value(v.dtype, shape, f"array.take {v.name}, {idx.name} axes({axis})")

    def reduce(self, kind, v, axes, keepdims, dtype):
        dtype = np.dtype(dtype)
        axes = tuple(sorted(axes))
        shape = tuple(1 if i in axes else d for i, d in enumerate(v.shape)) if keepdims else \
            tuple(d for i, d in enumerate(v.shape) if i not in axes)
        return self._value(dtype, shape,
                           f"array.{kind} {v.name} axes({', '.join(map(str, axes))})")

    def reduce_segments(self, kind, v, length, inner, dtype):
        """array.KIND (a reduction or scan) of v, a tensor of the dynamic
        extent, in segments (ops.def): u32 scalar values `length` and
        `inner` (None: rows of `length`, inner 1; a scan takes both); the
        result is of the dynamic extent too."""
        extra = f", {length.name}" + (f", {inner.name}" if inner is not None else "")
        return self._value(np.dtype(dtype), DYN, f"array.{kind} {v.name}{extra} axes(0)")

    def scan(self, kind, v, axis, dtype):
        return self._value(np.dtype(dtype), v.shape, f"array.{kind} {v.name} axes({axis})")

    # ---------------------------------------------------------------- text
    def text(self):
        """The module: push block, buffers, the array function."""
        out = []
        if self.source_file:
            out.append(f"module {_quote(self.source_file)}")
        if self.push:
            fields = ", ".join(f"{n}: {vtype(dt)}" for n, dt in self.push)
            out.append(f"push @pc {{ {fields} }}")
        for k, b in enumerate(self.buffers):
            access = "readwrite" if b.loaded and b.stored else "readonly" if b.loaded else \
                "writeonly"
            count = "" if b.count is None else b.count
            out.append(f"buffer @{b.name} : {vtype(b.elem)}[{count}] binding(0, {k}) {access}")
        out.append(f"array @{self.name} {{")
        out.extend("  " + line for line in self.lines)
        out.append("}")
        return "\n".join(out) + "\n"


def _quote(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _view(shape, offset, strides):
    s = ""
    if offset:
        s += f" offset({int(offset)})"
    if strides is not None and tuple(strides) != c_strides(shape):
        s += " strides(" + ", ".join(str(int(x)) for x in strides) + ")"
    return s


def view_at(g, k, code):
    """The run-time view of operand k (`o`: the output) of view code `code`
    (_array.view_code): its at(...) values, push fields o<k> and, per
    axis term, t<k>, d<k>, m<k> (the second term's with an `x` after:
    t<k>x ...) where the code does not make them constants: 'v' is a step of 1
    (contiguous from an offset, which lavapipe reads as whole vectors; a
    step known only at run time is a gather there), 'w' a step, 'R' a
    divisor of 1 (a row repeated), 'C' no modulus (the leading axes)."""
    u32 = np.dtype(np.uint32)
    o = g.scalar(u32, f"o{k}")
    if code == "v":
        return o, g.const(1, u32)
    codes = code[1:] if code[0] == "m" else code
    at = [o]
    for j, c in enumerate(codes):
        sfx = "x" if j else ""
        t = g.scalar(u32, f"t{k}{sfx}")
        if c == "w":
            return o, t
        d = g.const(1, u32) if c == "R" else g.scalar(u32, f"d{k}{sfx}")
        m = g.const(0xFFFFFFFF, u32) if c == "C" else g.scalar(u32, f"m{k}{sfx}")
        at += [t, d, m]
    return tuple(at)


def c_strides(shape):
    """Row-major strides in elements."""
    st, acc = [], 1
    for d in reversed(tuple(shape)):
        st.append(acc)
        acc *= d
    return tuple(reversed(st))


# ------------------------------------------------------------- the ufuncs
# Which VIR ops spell each NumPy ufunc is the C compiler's: Graph.ufunc
# records `array.ufunc NAME`, and the pass lower-ufuncs expands it
# (include/vulpy/ir/ufuncs.def, lib/Transforms/ufuncs.c). Here: NumPy's
# dtype resolution (the caller's), and where / cast.

def apply_ufunc(g, uf, args, loop_in, out_dt):
    """The graph value of ufunc `uf` (a vulpy Ufunc) on graph values
    `args`, whose loop dtypes numpy resolved as loop_in -> out_dt."""
    name = uf.name
    if name == "where":
        c, x, y = args
        return g.op("select", [g.convert(c, _BOOL), g.cast(x, out_dt), g.cast(y, out_dt)], out_dt)
    if name == "cast":
        return g.convert(args[0], out_dt)
    return g.ufunc(name, [g.cast(a, dt) for a, dt in zip(args, loop_in)], out_dt)
