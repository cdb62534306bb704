"""vp.ElementwiseKernel: CuPy's user-defined elementwise kernel, with the
operation written in VulPy's kernel language (Python syntax) instead of
CUDA C (docs/python-api.md, "CuPy's kernel classes").

    squared_diff = vp.ElementwiseKernel(
        "float32 x, float32 y", "float32 z", "z = (x - y) * (x - y)", "squared_diff")
    z = squared_diff(a, b)          # a, b resident (or NumPy) arrays, broadcast

Parameters are CuPy's: `in_params` and `out_params` are comma-separated
"TYPE NAME" pairs, TYPE a dtype name (float32, int64, bool, ...) or a type
placeholder (one name such as T, bound to the dtype of the first argument
that has it), `raw TYPE NAME` an array the operation indexes itself. The
operation sees each input as its element (a raw one as the whole array),
each output as its element (read: the output's current value; what the
operation leaves in it is stored), `i` as the flat index and `_ind.size()`
as the element count. Arrays broadcast as in CuPy; outputs may be passed
after the inputs. The kernel is generated once per argument dtypes (source
registered in linecache under "<vp.ElementwiseKernel NAME>", so an error
names the operation's line).
"""
import linecache
import re
import textwrap

import numpy as np

from . import _array

_nd = _array.ndarray
_COUNT = 0
# elements per dispatch of a generated elementwise kernel: 65,535 workgroups
# of 64 (vp.kernel's default local size), what every device takes in x
BLOCK = 65535 * 64


class _Param:
    __slots__ = ("name", "type", "raw")

    def __init__(self, name, type_, raw):
        self.name, self.type, self.raw = name, type_, raw


def _parse_params(text, what):
    """CuPy's parameter list: 'T x, raw float32 y' -> [_Param]."""
    out = []
    for part in (p.strip() for p in text.split(",")) if text.strip() else ():
        words = part.split()
        raw = bool(words) and words[0] == "raw"
        if raw:
            words = words[1:]
        if len(words) != 2 or not words[1].isidentifier() or not words[0].isidentifier():
            raise ValueError(f"vp.ElementwiseKernel: {what}: cannot read {part!r} (expected "
                             f"'TYPE NAME' or 'raw TYPE NAME')")
        type_, name = words
        try:
            t = np.dtype(type_)
        except TypeError:
            t = None  # a type placeholder
        if t is not None and type_ not in np.sctypeDict:
            t = None
        out.append(_Param(name, t if t is not None else type_, raw))
    names = [p.name for p in out]
    if len(set(names)) != len(names):
        raise ValueError(f"vp.ElementwiseKernel: {what}: a parameter name is repeated")
    return out


def _scalar(k, p, a, dt):
    """Scalar argument `a` of parameter p as its push constant of dtype dt
    (a Python scalar as NumPy converts it, a NumPy one by same_kind
    casting); TypeError naming kernel k and p otherwise."""
    try:
        return np.asarray(a, dt)[()] if type(a) in (bool, int, float) else \
            np.asarray(a).astype(dt, casting="same_kind")[()]
    except (TypeError, ValueError, OverflowError):
        raise TypeError(f"vp.{type(k).__name__} {k.name}: {p.name} is {dt}; cannot take "
                        f"{a!r}") from None


def _module(k, lines, first=None):
    """Kernel-language module `lines` of kernel object k registered in
    linecache (so the frontend reads it as a file's) and run: its namespace.
    A SyntaxError names the operation's line (its first line is line
    `first` of the module) or the preamble, or the expressions (first
    None)."""
    text = "\n".join(lines)
    kind = type(k).__name__
    filename = f"<vp.{kind} {k.name} #{_COUNT}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    ns = {"vp": _array._ops}
    try:
        code = compile(text, filename, "exec")
    except SyntaxError as e:
        where = "an expression" if first is None else \
            f"line {e.lineno - first + 1} of the operation" if e.lineno >= first else \
            "the preamble"
        raise SyntaxError(f"vp.{kind} {k.name}: {where} is not kernel-language (Python) "
                          f"source: {e.msg}: {(e.text or '').strip()!r} (CUDA C, as CuPy "
                          f"takes, is not read: write it as Python)") from None
    exec(code, ns)
    return ns


def _store_type(dt):
    """The buffer element type of dtype dt in a kernel (bool: a 32-bit word)."""
    return "uint32" if dt == np.bool_ else dt.name


class ElementwiseKernel:
    """vp.ElementwiseKernel(in_params, out_params, operation, name='kernel',
    reduce_dims=True, preamble='', no_return=False, return_tuple=False,
    loop_prep='', after_loop='', options=()): cupy.ElementwiseKernel with
    `operation` in the kernel language (Python statements: `z = x * y + 1`,
    `if x > 0:` blocks, math.* and vp.* built-ins, calls of the functions
    `preamble` defines) instead of CUDA C; docs/python-api.md. `name`
    names the kernel; `preamble` is kernel-language source put before it
    (helper functions, constants). `no_return` makes a call return None,
    `return_tuple` a tuple even for one output. `reduce_dims`, `loop_prep`,
    `after_loop` and `options` are CuPy's (CUDA loop parts and compiler
    options): `reduce_dims` is accepted (arrays are flattened anyway), the
    others must be empty. Call it with the inputs, then optionally the
    outputs, and `size=` when no input is an array."""

    def __init__(self, in_params, out_params, operation, name="kernel", reduce_dims=True,
                 preamble="", no_return=False, return_tuple=False, loop_prep="", after_loop="",
                 options=()):
        if loop_prep or after_loop or options:
            raise NotImplementedError("vp.ElementwiseKernel: loop_prep=, after_loop= and "
                                      "options= are CUDA's; write the operation in the kernel "
                                      "language")
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"vp.ElementwiseKernel: name must be an identifier, got {name!r}")
        self.in_params = _parse_params(in_params, "in_params")
        self.out_params = _parse_params(out_params, "out_params")
        if not self.out_params:
            raise ValueError("vp.ElementwiseKernel: out_params is empty (at least one output)")
        if any(p.raw for p in self.out_params):
            raise NotImplementedError("vp.ElementwiseKernel: raw outputs are not supported")
        clash = {p.name for p in self.in_params} & {p.name for p in self.out_params}
        if clash:
            raise ValueError(f"vp.ElementwiseKernel: {sorted(clash)[0]!r} is both an input and "
                             f"an output")
        self.nin, self.nout = len(self.in_params), len(self.out_params)
        self.nargs = self.nin + self.nout
        self.operation, self.name, self.preamble = operation, name, preamble
        self.reduce_dims, self.no_return, self.return_tuple = reduce_dims, no_return, return_tuple
        self._kernels = {}

    def __repr__(self):
        return f"<vp.ElementwiseKernel {self.name}>"

    # ------------------------------------------------------------ types
    def _bind_types(self, args, outs):
        """The dtype of every parameter: declared, or the placeholder's
        binding (the first argument with it, inputs then outputs)."""
        bound = {}
        for p, a in zip(self.in_params + self.out_params, args + outs):
            if a is None or isinstance(p.type, np.dtype):
                continue
            dt = getattr(a, "dtype", None)
            if not isinstance(dt, np.dtype):
                continue  # a Python scalar: takes the placeholder's type from an array
            if bound.setdefault(p.type, dt) != dt:
                raise TypeError(f"vp.{type(self).__name__} {self.name}: type {p.type} is bound "
                                f"to {bound[p.type]} and to {dt} (argument {p.name})")
        types = []
        for p in self.in_params + self.out_params:
            if isinstance(p.type, np.dtype):
                types.append(p.type)
            elif p.type in bound:
                types.append(bound[p.type])
            else:
                raise TypeError(f"vp.{type(self).__name__} {self.name}: cannot tell type "
                                f"{p.type} of {p.name} (no array argument has it)")
            if types[-1].kind not in "biuf":
                raise TypeError(f"vp.{type(self).__name__} {self.name}: {p.name} is "
                                f"{types[-1]}; the kernel language has numbers and bools "
                                f"(no complex type: split complex data into .real and .imag)")
        return types

    # ------------------------------------------------------------ calling
    def __call__(self, *args, size=None, block_size=None, stream=None):
        ops = _array._ops
        if stream is not None:
            raise ValueError(f"vp.ElementwiseKernel {self.name}: stream= is not supported "
                             f"(VulPy runs in submission order)")
        if len(args) not in (self.nin, self.nargs):
            raise TypeError(f"vp.ElementwiseKernel {self.name}: takes {self.nin} inputs (and "
                            f"optionally {self.nout} outputs), got {len(args)} arguments")
        ins = list(args[:self.nin])
        outs = list(args[self.nin:]) or [None] * self.nout
        resident = any(isinstance(a, _nd) for a in args)
        ctx = _array.common_context(f"vp.ElementwiseKernel {self.name}", args) if resident \
            else None
        for p, o in zip(self.out_params, outs):
            if o is not None and not isinstance(o, (_nd, np.ndarray)):
                raise TypeError(f"vp.ElementwiseKernel {self.name}: output {p.name} must be an "
                                f"array, got {type(o).__name__}")
        res_outs = tuple(o for o in outs if isinstance(o, _nd))
        if res_outs:
            # an input that overlaps an output is read as it was before the
            # call (NumPy's rule for ufuncs): a copy (a kernel cannot bind
            # one memory as a buffer it reads and one it writes)
            ins = [a.copy() if isinstance(a, _nd) and
                   any(o._buf is a._buf and _array.overlaps(o, a) for o in res_outs) else a
                   for a in ins]
        types = self._bind_types(ins, outs)
        # the shape: the non-raw array inputs and the given outputs, broadcast
        shapes = [tuple(np.shape(a)) for p, a in zip(self.in_params, ins)
                  if not p.raw and (isinstance(a, (_nd, np.ndarray)))]
        shapes += [tuple(o.shape) for o in outs if o is not None]
        if shapes:
            try:
                shape = np.broadcast_shapes(*shapes)
            except ValueError:
                raise ValueError(f"vp.ElementwiseKernel {self.name}: operands could not be "
                                 f"broadcast together with shapes "
                                 f"{' '.join(map(str, shapes))}") from None
            if size is not None and int(size) != int(np.prod(shape)):
                raise ValueError(f"vp.ElementwiseKernel {self.name}: size={size} is not the "
                                 f"arrays' size {int(np.prod(shape))}")
        elif size is None:
            raise ValueError(f"vp.ElementwiseKernel {self.name}: size= is needed when no "
                             f"input or output is an array")
        else:
            shape = (int(size),)
        for o in outs:
            if o is not None and tuple(o.shape) != shape:
                raise ValueError(f"vp.ElementwiseKernel {self.name}: output shape {o.shape} "
                                 f"is not the broadcast shape {shape}")
        n = int(np.prod(shape, dtype=np.int64))
        if n >= 2 ** 32:
            raise ValueError(f"vp.ElementwiseKernel {self.name}: {n} elements (at most "
                             f"2**32 - 1)")
        bufs, kw, kinds = [], {}, []  # the kernel's buffers in order, its push constants
        for p, a, dt in zip(self.in_params, ins, types[:self.nin]):
            if isinstance(a, (_nd, np.ndarray)) or p.raw:
                x = a if isinstance(a, _nd) else ops.asarray(np.asarray(a, dt), context=ctx)
                if x.dtype != dt:
                    x = x.astype(dt)
                if dt == np.bool_:
                    x = x.astype(np.uint32)
                if not p.raw:
                    if tuple(x.shape) != shape or not x.flags.c_contiguous:
                        x = ops.ascontiguousarray(ops.broadcast_to(x, shape))
                elif not x.flags.c_contiguous:
                    x = ops.ascontiguousarray(x)
                bufs.append(x.reshape(-1) if x.ndim != 1 else x)
                kinds.append("raw" if p.raw else "array")
            else:  # a scalar: a push constant of the parameter's type
                kw[p.name] = _scalar(self, p, a, dt)
                kinds.append("scalar")
        results = []
        for p, o, dt in zip(self.out_params, outs, types[self.nin:]):
            sdt = np.dtype(_store_type(dt))
            if o is None:
                r = ops.zeros(shape, sdt, context=ctx)
            elif isinstance(o, np.ndarray) or o.dtype != sdt or not o.flags.c_contiguous:
                r = ops.asarray(np.asarray(o) if isinstance(o, np.ndarray) else o, context=ctx)
                r = ops.ascontiguousarray(r.astype(sdt))
            else:
                r = o
            results.append(r)
            bufs.append(r.reshape(-1) if r.ndim != 1 else r)
        if n:
            k = self._kernel(tuple(types), tuple(kinds))
            for i0 in range(0, n, BLOCK):
                k(*bufs, **kw, _vp_n=n, _vp_i0=i0, dispatch=min(BLOCK, n - i0))
        finals = []
        for p, o, r, dt in zip(self.out_params, outs, results, types[self.nin:]):
            v = r.astype(dt) if r.dtype != dt else r
            if o is not None and o is not r:  # the caller's out: written back
                if isinstance(o, np.ndarray):
                    np.copyto(o, v.numpy())
                else:
                    o[...] = v
                v = o
            finals.append(v if resident or isinstance(v, np.ndarray) else v.numpy())
        if self.no_return:
            return None
        if len(finals) == 1 and not self.return_tuple:
            return finals[0]
        return tuple(finals)

    # ------------------------------------------------------------ the kernel
    def _kernel(self, types, kinds):
        key = (types, kinds)
        k = self._kernels.get(key)
        if k is None:
            k = self._kernels[key] = self._compile(types, kinds)
        return k

    def _compile(self, types, kinds):
        global _COUNT
        _COUNT += 1
        params, loads = [], []
        for p, dt, kind in zip(self.in_params, types, kinds):
            st = _store_type(dt)
            if kind == "raw":
                params.append(f"{p.name}: vp.Buffer[vp.{st}]")
            elif kind == "array":
                params.append(f"_vp_in_{p.name}: vp.Buffer[vp.{st}]")
                loads.append(f"{p.name} = _vp_in_{p.name}[i] != vp.uint32(0)" if dt == np.bool_
                             else f"{p.name} = _vp_in_{p.name}[i]")
            else:
                params.append(f"{p.name}: vp.{dt.name}")
        stores = []
        for p, dt in zip(self.out_params, types[self.nin:]):
            st = _store_type(dt)
            params.append(f"_vp_out_{p.name}: vp.Buffer[vp.{st}]")
            if dt == np.bool_:
                loads.append(f"{p.name} = _vp_out_{p.name}[i] != vp.uint32(0)")
                stores.append(f"_vp_out_{p.name}[i] = vp.uint32(1) if {p.name} else vp.uint32(0)")
            else:
                loads.append(f"{p.name}: vp.{dt.name} = _vp_out_{p.name}[i]")
                stores.append(f"_vp_out_{p.name}[i] = {p.name}")
        op = textwrap.dedent(self.operation.replace("\t", "    ")).strip("\n")
        op = re.sub(r"\b_ind\s*\.\s*size\s*\(\s*\)", "_vp_n", op)
        pre = textwrap.dedent(self.preamble).strip("\n")
        # dispatched in blocks from element _vp_i0 (the device's workgroup
        # count in x, 65,535 on lavapipe and many GPUs, bounds one dispatch)
        lines = ["import math", "import vulpy as vp", "", *pre.splitlines(), "",
                 f"def {self.name}("
                 f"{', '.join(params + ['_vp_n: vp.uint32', '_vp_i0: vp.uint32'])}):",
                 "    i = vp.global_id() + _vp_i0", "    if i < _vp_n:"]
        lines += [f"        {s}" for s in loads]
        first = len(lines) + 1  # the operation's first line in the file
        lines += ["        " + line if line.strip() else "" for line in op.splitlines()]
        lines += [f"        {s}" for s in stores] + [""]
        return _array._ops.kernel(_module(self, lines, first)[self.name])


_RED_LOCAL = 256  # invocations of a reduction workgroup (a power of two)
_RED_ROWS = 65535  # rows (reduced lines) per dispatch: the y extent of the grid


class ReductionKernel:
    """vp.ReductionKernel(in_params, out_params, map_expr, reduce_expr,
    post_map_expr, identity, name='reduce_kernel', reduce_type=None,
    reduce_dims=True, preamble='', options=()): cupy.ReductionKernel with
    its expressions in the kernel language. `in_params` and `out_params`
    are ElementwiseKernel's (no raw ones); `name` names the kernels and
    `preamble` is kernel-language source before them. `map_expr` (of the
    inputs' elements, as in ElementwiseKernel) gives each element's value `b`;
    `reduce_expr` of `a` and `b` combines two values; `post_map_expr`
    (statements) sets the outputs from the result `a`; `identity` (an
    expression: "0", "-math.inf") starts each reduction; `reduce_type`
    (a dtype name, default the first output's type) is the type of `a`
    and `b`. Call it with the inputs (and optionally the outputs), `axis=`
    (None: all) and `keepdims=`. Each line is reduced by workgroups of 256
    invocations (a strided loop, then a tree in shared memory), partial
    results by a second kernel, so the order of combination is not
    NumPy's (float sums differ in rounding). `reduce_dims` is accepted;
    `options` must be empty."""

    def __init__(self, in_params, out_params, map_expr, reduce_expr, post_map_expr, identity,
                 name="reduce_kernel", reduce_type=None, reduce_dims=True, preamble="",
                 options=()):
        if options:
            raise NotImplementedError("vp.ReductionKernel: options= are CUDA compiler options")
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"vp.ReductionKernel: name must be an identifier, got {name!r}")
        if identity is None:
            raise NotImplementedError("vp.ReductionKernel: identity=None is not supported; "
                                      "give the reduction's identity (\"0\", \"-math.inf\")")
        self.in_params = _parse_params(in_params, "in_params")
        self.out_params = _parse_params(out_params, "out_params")
        if not self.in_params or not self.out_params:
            raise ValueError("vp.ReductionKernel: needs at least one input and one output")
        if any(p.raw for p in self.in_params + self.out_params):
            raise NotImplementedError("vp.ReductionKernel: raw parameters are not supported")
        self.nin, self.nout = len(self.in_params), len(self.out_params)
        self.map_expr, self.reduce_expr, self.post_map_expr = map_expr, reduce_expr, post_map_expr
        self.identity, self.name, self.preamble = str(identity), name, preamble
        self.reduce_type = None if reduce_type is None else np.dtype(reduce_type)
        self.reduce_dims = reduce_dims
        self._kernels = {}

    def __repr__(self):
        return f"<vp.ReductionKernel {self.name}>"

    _bind_types = ElementwiseKernel._bind_types

    def __call__(self, *args, out=None, axis=None, keepdims=False, stream=None):
        ops = _array._ops
        if stream is not None:
            raise ValueError(f"vp.ReductionKernel {self.name}: stream= is not supported")
        if len(args) not in (self.nin, self.nin + self.nout):
            raise TypeError(f"vp.ReductionKernel {self.name}: takes {self.nin} inputs (and "
                            f"optionally {self.nout} outputs), got {len(args)} arguments")
        ins = list(args[:self.nin])
        outs = list(args[self.nin:])
        if out is not None:
            if outs:
                raise TypeError(f"vp.ReductionKernel {self.name}: outputs given twice")
            outs = [out]
        outs = outs or [None] * self.nout
        if len(outs) != self.nout:
            raise TypeError(f"vp.ReductionKernel {self.name}: {self.nout} outputs, got "
                            f"{len(outs)}")
        resident = any(isinstance(a, _nd) for a in list(args) + [out])
        ctx = _array.common_context(f"vp.ReductionKernel {self.name}", tuple(args) + (out,)) \
            if resident else None
        types = self._bind_types(ins, outs)
        rt = self.reduce_type or types[self.nin]
        shapes = [tuple(np.shape(a)) for a in ins if isinstance(a, (_nd, np.ndarray))]
        if not shapes:
            raise ValueError(f"vp.ReductionKernel {self.name}: no input is an array")
        try:
            shape = np.broadcast_shapes(*shapes)
        except ValueError:
            raise ValueError(f"vp.ReductionKernel {self.name}: operands could not be broadcast "
                             f"together with shapes {' '.join(map(str, shapes))}") from None
        nd = len(shape)
        if axis is None:
            red = tuple(range(nd))
        else:
            from . import _errors
            axes = (axis,) if np.ndim(axis) == 0 else tuple(axis)
            red = tuple(sorted(_errors.axis(x, nd, f"vp.ReductionKernel {self.name}")
                               for x in axes))
            if len(set(red)) != len(red):
                raise ValueError(f"vp.ReductionKernel {self.name}: duplicate value in 'axis'")
        keep = tuple(d for d in range(nd) if d not in red)
        rows = int(np.prod([shape[d] for d in keep], dtype=np.int64))
        k_len = int(np.prod([shape[d] for d in red], dtype=np.int64))
        oshape = tuple(1 if d in red else shape[d] for d in range(nd)) if keepdims else \
            tuple(shape[d] for d in keep)
        for p, o in zip(self.out_params, outs):
            if o is not None and tuple(o.shape) != oshape:
                raise ValueError(f"vp.ReductionKernel {self.name}: output {p.name} has shape "
                                 f"{tuple(o.shape)}, the result {oshape}")
        if k_len >= 2 ** 32 or rows >= 2 ** 32:
            raise ValueError(f"vp.ReductionKernel {self.name}: too many elements")
        bufs, kw, kinds = [], {}, []
        perm = keep + red
        for p, a, dt in zip(self.in_params, ins, types[:self.nin]):
            if isinstance(a, (_nd, np.ndarray)):
                x = a if isinstance(a, _nd) else ops.asarray(np.asarray(a, dt), context=ctx)
                if x.dtype != dt:
                    x = x.astype(dt)
                if dt == np.bool_:
                    x = x.astype(np.uint32)
                x = ops.broadcast_to(x, shape)
                if perm != tuple(range(nd)):
                    x = ops.transpose(x, perm)
                x = ops.ascontiguousarray(x).reshape(-1)
                bufs.append(x)
                kinds.append("array")
            else:
                kw[p.name] = _scalar(self, p, a, dt)
                kinds.append("scalar")
        results = []
        for o, dt in zip(outs, types[self.nin:]):
            results.append(ops.zeros(max(rows, 1), np.dtype(_store_type(dt)), context=ctx))
        if rows:
            groups = 1 if k_len <= 8 * _RED_LOCAL else min(-(-k_len // (8 * _RED_LOCAL)), 1024)
            per = max(-(-k_len // groups), 1)
            rdt = np.dtype(_store_type(rt))
            part = ops.empty(rows * groups, rdt, context=ctx)
            k1, k2 = self._kernel(tuple(types), tuple(kinds), rt)
            for r0 in range(0, rows, _RED_ROWS):
                nr = min(_RED_ROWS, rows - r0)
                k1(*bufs, part, **kw, _vp_k=k_len, _vp_per=per, _vp_g=groups, _vp_row0=r0,
                   groups=(groups, nr, 1))
                k2(part, *results, _vp_g=groups, _vp_row0=r0, groups=(1, nr, 1))
        finals = []
        for p, o, r, dt in zip(self.out_params, outs, results, types[self.nin:]):
            v = (r if rows else r[:0]).reshape(oshape)
            if v.dtype != dt:
                v = v.astype(dt)
            if o is not None:
                if isinstance(o, np.ndarray):
                    np.copyto(o, v.numpy())
                else:
                    o[...] = v
                v = o
            finals.append(v if resident or isinstance(v, np.ndarray) else v.numpy())
        return finals[0] if len(finals) == 1 else tuple(finals)

    def _kernel(self, types, kinds, rt):
        key = (types, kinds, rt)
        k = self._kernels.get(key)
        if k is None:
            k = self._kernels[key] = self._compile(types, kinds, rt)
        return k

    def _compile(self, types, kinds, rt):
        global _COUNT
        _COUNT += 1
        L = _RED_LOCAL
        rts = _store_type(rt)
        params, loads = [], []
        for p, dt, kind in zip(self.in_params, types, kinds):
            if kind == "array":
                params.append(f"_vp_in_{p.name}: vp.Buffer[vp.{_store_type(dt)}]")
                loads.append(f"{p.name} = _vp_in_{p.name}[rk_at] != vp.uint32(0)"
                             if dt == np.bool_ else f"{p.name} = _vp_in_{p.name}[rk_at]")
            else:
                params.append(f"{p.name}: vp.{dt.name}")
        outs, stores = [], []
        for p, dt in zip(self.out_params, types[self.nin:]):
            outs.append(f"_vp_out_{p.name}: vp.Buffer[vp.{_store_type(dt)}]")
            if dt == np.bool_:
                stores.append(f"_vp_out_{p.name}[rk_m] = vp.uint32(1) if {p.name} else "
                              f"vp.uint32(0)")
                loads_o = f"{p.name} = False"
            else:
                stores.append(f"_vp_out_{p.name}[rk_m] = {p.name}")
                loads_o = f"{p.name} = vp.{dt.name}(0)"
            stores.insert(0, loads_o)
        post = textwrap.dedent(self.post_map_expr).strip("\n").splitlines()
        # the tree: shared memory halved each step (a uniform loop: every
        # invocation reaches every barrier)
        tree = ["    vp.barrier()", f"    rk_s = vp.uint32({L // 2})", "    while rk_s > 0:",
                "        if rk_lid < rk_s:",
                "            a = rk_tree[rk_lid]", "            b = rk_tree[rk_lid + rk_s]",
                f"            rk_tree[rk_lid] = vp.{rts}({self.reduce_expr})",
                "        vp.barrier()", "        rk_s = rk_s // vp.uint32(2)"]
        pre = textwrap.dedent(self.preamble).strip("\n")
        lines = ["import math", "import vulpy as vp", "", *pre.splitlines(), "",
                 f"@vp.kernel(local_size_x={L})",
                 f"def {self.name}_map({', '.join(params)}, _vp_part: vp.Buffer[vp.{rts}], "
                 f"_vp_k: vp.uint32, _vp_per: vp.uint32, _vp_g: vp.uint32, _vp_row0: vp.uint32):",
                 f"    rk_tree = vp.Shared[vp.{rts}, {L}]", "    rk_lid = vp.local_index()",
                 "    rk_gx = vp.workgroup_id().x",
                 "    rk_m = vp.workgroup_id().y + _vp_row0",
                 "    rk_j = rk_gx * _vp_per + rk_lid",
                 "    rk_end = min(rk_gx * _vp_per + _vp_per, _vp_k)",
                 f"    a = vp.{rts}({self.identity})",
                 "    while rk_j < rk_end:",
                 "        rk_at = rk_m * _vp_k + rk_j",
                 *[f"        {s}" for s in loads],
                 f"        b = vp.{rts}({self.map_expr})",
                 f"        a = vp.{rts}({self.reduce_expr})",
                 f"        rk_j += vp.uint32({L})",
                 "    rk_tree[rk_lid] = a", *tree,
                 "    if rk_lid == 0:",
                 "        _vp_part[rk_m * _vp_g + rk_gx] = rk_tree[0]", "",
                 f"@vp.kernel(local_size_x={L})",
                 f"def {self.name}_final(_vp_part: vp.Buffer[vp.{rts}], {', '.join(outs)}, "
                 f"_vp_g: vp.uint32, _vp_row0: vp.uint32):",
                 f"    rk_tree = vp.Shared[vp.{rts}, {L}]", "    rk_lid = vp.local_index()",
                 "    rk_m = vp.workgroup_id().y + _vp_row0",
                 f"    a = vp.{rts}({self.identity})",
                 "    rk_j = rk_lid",
                 "    while rk_j < _vp_g:",
                 "        b = _vp_part[rk_m * _vp_g + rk_j]",
                 f"        a = vp.{rts}({self.reduce_expr})",
                 f"        rk_j += vp.uint32({L})",
                 "    rk_tree[rk_lid] = a", *tree,
                 "    if rk_lid == 0:",
                 "        a = rk_tree[0]",
                 *[f"        {s}" for s in stores[:self.nout]],
                 *["        " + line if line.strip() else "" for line in post],
                 *[f"        {s}" for s in stores[self.nout:]], ""]
        ns = _module(self, lines)
        return ns[f"{self.name}_map"], ns[f"{self.name}_final"]
