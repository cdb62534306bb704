"""Kernels: @vp.kernel on a Python function, vp.kernel(GLSL_SOURCE, ...) for
raw GLSL, and the call path they share with vp.compile's shaders
(docs/python-api.md, "Kernels", is the reference).

A call binds buffers positionally (resident arrays, NumPy arrays, control
buffers) and push constants by keyword - or, for @vp.kernel functions, every
argument as Python binds it (positionally in parameter order, or by
keyword) - then dispatches (dispatch=N or a
grid, groups=, sync=False -> vp.Handle, after= a handle to host-wait for).
NumPy arguments are uploaded before and written back after (unless the
kernel only reads them). A resident view binds its own bytes (a copy in
and out where its offset is not aligned); a strided view, the same memory
bound twice with one binding written, and a read-only NumPy array the
kernel writes are ValueErrors naming the parameters.
"""
import difflib
import functools
import inspect

import numpy as np

from . import (_array, _astjson, _compiler, _context, _debug, _hostarray, _memsock, _native,
               _stream, _persistent, _structs, _types)
from ._launch import Handle, Program
from ._types import VIR_SPELLINGS, entry_dtype, python_name


def _grid(label, dispatch, groups):
    if dispatch is not None and groups is not None:
        raise TypeError(f"{label}: give dispatch= or groups=, not both")
    if dispatch is None and groups is None:
        raise TypeError(f"{label}: say how many invocations: dispatch=N, dispatch=(nx, ny[, nz]) "
                        f"or groups=(gx, gy, gz)")
    val = dispatch if dispatch is not None else groups
    what = "dispatch" if dispatch is not None else "groups"
    if isinstance(val, (int, np.integer)) and not isinstance(val, bool):
        dims = (int(val), 1, 1)
    elif isinstance(val, (tuple, list)) and 1 <= len(val) <= 3 and \
            all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in val):
        dims = tuple(int(v) for v in val) + (1,) * (3 - len(val))
    else:
        raise TypeError(f"{label}: {what}= must be an int or a tuple of 1 to 3 ints, got {val!r}")
    if any(d < 0 or d > 0xFFFFFFFF for d in dims):
        raise ValueError(f"{label}: {what}= values must be in 0..2**32-1, got {val!r}")
    return dims, groups is not None


def _check_elem(label, b, dtype, nbytes):
    """TypeError unless an array of `dtype` can back manifest buffer `b`."""
    bname, btype, elem_size = b["name"], b["type"], b["elem_size"]
    want = entry_dtype(b)
    if want is None:  # a struct: checked by the caller against the layout
        return
    have = _array.storage_dtype(dtype) if dtype != np.dtype(np.bool_) or btype != "bool" \
        else np.dtype(np.uint32)
    if dtype == np.dtype(np.bool_) and btype == "bool":
        return
    if have != want:
        raise TypeError(f"{label}: buffer '{bname}' is vp.Buffer[vp.{python_name(btype)}] "
                        f"({want.name} elements) but got an array of {dtype.name}")
    if elem_size and nbytes % elem_size and b["lanes"] > 1:
        raise ValueError(f"{label}: buffer '{bname}' holds {python_name(btype)} elements "
                         f"({elem_size} bytes each) but the array has {nbytes} bytes")


def launch(prog, args, push, dispatch, groups, sync, context, label, whole=()):
    """Binds `args` to prog's buffers, packs `push`, dispatches."""
    bdefs = prog.buffers
    if any(type(a) is _memsock.MemSock for a in args):
        return _memsock_launch(prog, args, push, dispatch, groups, sync, context, label)
    if len(args) != len(bdefs):
        names = ", ".join(b["name"] for b in bdefs)
        raise TypeError(f"{label} takes {len(bdefs)} buffer(s) ({names}), got {len(args)}")
    ctx = context
    for a in args:
        c = getattr(a, "_ctx", None)
        if c is not None:
            if ctx is None:
                ctx = c
            elif c is not ctx:
                raise _array.mixed_contexts(label, ctx, c)
    ctx = _context.resolve(ctx)
    grid, by_groups = _grid(label, dispatch, groups)
    data = prog.packer.pack(push)
    binds, back, scratch, views = [], [], [], []
    _check_aliasing(label, args, bdefs)
    want = prog.__dict__.get("_want")
    if want is None:  # per buffer: the storage dtype an array must have
        want = prog._want = [entry_dtype(b) if b["lanes"] == 1 else None for b in bdefs]
    for k, (a, b, w) in enumerate(zip(args, bdefs, want)):
        if b["type"][0] == "@" and hasattr(a, "dtype") and not hasattr(a, "_control"):
            # a struct buffer: the array's layout must be the struct's std430 one
            _structs.check_struct_array(label, b, a.dtype, prog.manifest,
                                        prog.__dict__.setdefault("_struct_dtypes", {}))
        if type(a) is _array.ndarray:
            if a._sdtype is not w and a._sdtype != w:
                _check_elem(label, b, a.dtype, a.nbytes)
            if not a._whole and b["access"] != "readonly":
                # a broadcast view (N-d buffers take strided views): its shared
                # elements would be written by several invocations
                _array.check_writable(a, f"{label}: buffer '{b['name']}'")
            # an N-d buffer (in `whole`) binds the view's whole Buffer: its
            # offset and strides travel in the push block (_nd_push)
            binds.append(a._buf if a._whole or k in whole else _bind_view(label, b, a, ctx, views))
        elif isinstance(a, np.ndarray):
            if a.dtype.fields is None:
                _check_elem(label, b, a.dtype, a.nbytes)
            if b["access"] != "readonly" and not a.flags.writeable:
                raise ValueError(f"{label}: buffer '{b['name']}' is written by the kernel but "
                                 f"got a read-only NumPy array; pass a writable copy "
                                 f"(np.array(x)) to see the results")
            host = a
            if a.dtype == np.dtype(np.bool_):
                host = a.astype(np.uint32)
            host = np.ascontiguousarray(host)
            # a kernel may read an element many times: VRAM, not host memory
            buf = ctx._scratch(ctx.default_memory, max(host.nbytes, 16))
            if host.nbytes:
                buf.upload(host)
            scratch.append(buf)
            # a pooled buffer may be larger: bind the array's bytes, so that
            # the kernel's buffer length (len(), debug mode's bounds checks,
            # robust access) is the array's (issue 20)
            binds.append((buf, 0, host.nbytes) if host.nbytes and buf.size != host.nbytes
                         else buf)
            if b["access"] != "readonly":
                back.append((a, host, buf))
        elif hasattr(a, "_control"):  # a ControlBuffer
            if b["type"] not in ("u32", "i32"):
                raise TypeError(f"{label}: buffer '{b['name']}' is vp.Buffer[vp."
                                f"{python_name(b['type'])}]; a ControlBuffer is uint32 words")
            binds.append(a.buffer)
        elif isinstance(a, _native.ext().Buffer):
            binds.append(a)
        else:
            raise TypeError(f"{label}: buffer '{b['name']}' must be a vp.ndarray, a NumPy array "
                            f"or a vp.ControlBuffer, not {type(a).__name__}")
    kern = prog.native(ctx)
    ticket = None
    if grid[0] and grid[1] and grid[2]:  # an empty grid runs nothing
        ticket = kern.dispatch(binds, data, grid[0], grid[1], grid[2], by_groups, sync)
    if not sync:
        # a written view bound as a copy goes back now, as a GPU copy queued
        # after the kernel (eager), not at wait(): work on the array after
        # this call (y += 1, another kernel) then comes after the kernel's
        # writes, in queue order as on a CUDA stream, and a handle dropped
        # unwaited loses none of them
        # (struct elements, which the array ops do not take, still go back
        # at wait(), as bytes)
        later = [v for v in views if v[0].dtype.names is not None]
        for a, own, _ in views:
            if a.nbytes and a.dtype.names is None:
                _array._ops._arrayops.assign(a, own)
        views[:] = later

    def finish():
        for a, own, isz in views:  # written views: their elements go back
            if a.nbytes:
                a._buf.copy_from(own._buf, a._offset * isz, 0, a.nbytes)
        for a, host, buf in back:
            buf.download(host)
            if host is not a:
                np.copyto(a, host.astype(a.dtype) if a.dtype != host.dtype else host)
        for buf in scratch:
            ctx._release(buf)
        return None

    if sync:
        finish()
        return None
    return Handle(ticket, finish)


def _params(fn):
    """fn's parameters (none where inspect cannot read its signature)."""
    try:
        return inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return ()


def _param_kind(p):
    """(generic, buffer) of parameter p: annotated with a bare vp.Buffer;
    annotated vp.Buffer[...], vp.Buffer, vp.Control or vp.MemSock[...] (an
    argument bound as a buffer, not a push constant)."""
    ann = p.annotation
    if isinstance(ann, str):  # from __future__ import annotations
        last = ann.split("[")[0].split(".")[-1]
        return last == "Buffer" and "[" not in ann, last in ("Buffer", "Control", "MemSock")
    generic = ann is _types.Buffer
    return generic, generic or ann is _types.Control or isinstance(
        ann, (_types._BufferAnnotation, _memsock._MemSockAnnotation)) or ann is _memsock.MemSock


def _generic_params(fn):
    """[(position among the buffer arguments, name)] of the parameters
    annotated with a bare vp.Buffer (generic kernels, lib/Frontend/generic.c)."""
    out, k = [], 0
    for p in _params(fn):
        generic, buffer = _param_kind(p)
        if generic:
            out.append((k, p.name))
        k += buffer
    return out


def _bind_call(label, kinds, args, push):
    """A call bound as Python binds one: `kinds` is [(name, is_buffer)] in
    the function's parameter order; `args` the positional arguments. The
    usual form - every buffer positionally, push constants by keyword - is
    returned as it is; otherwise positional arguments take the parameters in
    order and any parameter may come by keyword (k(x, 2.0, n=8),
    k(x=xv, a=2.0)). Returns (buffers in order, push constants by name)."""
    nbuf = sum(b for _, b in kinds)
    if len(args) == nbuf and not any(b and n in push for n, b in kinds):
        return args, push
    names = [n for n, _ in kinds]
    if len(args) > len(kinds):
        raise TypeError(f"{label} takes {len(kinds)} argument(s) ({', '.join(names)}), "
                        f"got {len(args)} positional")
    bound = dict(zip(names, args))
    push = dict(push)
    for n in bound:
        if n in push:
            raise TypeError(f"{label} got multiple values for argument '{n}'")
    buffers, missing = [], []
    for n, is_buffer in kinds:
        if not is_buffer:
            continue
        if n in bound:
            buffers.append(bound.pop(n))
        elif n in push:
            buffers.append(push.pop(n))
        else:
            missing.append(n)
    if missing:
        raise TypeError(f"{label} takes {nbuf} buffer(s) ({', '.join(n for n, b in kinds if b)})"
                        f", got {len(buffers)}: missing {', '.join(map(repr, missing))}")
    push.update(bound)
    return tuple(buffers), push


def _generic_scalars(fn):
    """Names of the parameters annotated vp.Scalar (generic scalars,
    lib/Frontend/generic.c)."""
    out = []
    for p in _params(fn):
        ann = p.annotation
        if ann is _types.Scalar or (isinstance(ann, str) and ann.split(".")[-1] == "Scalar"):
            out.append(p.name)
    return out


def _scalar_dtype(label, name, value, elems):
    """The dtype of generic scalar `name` for a call with `value`: a NumPy
    scalar's own; for a Python number the first generic buffer's element
    type (`elems`, in parameter order), else int32 / float32 as for a
    literal. A float value for an integer buffer type is an error rather
    than a silent truncation."""
    if isinstance(value, (np.generic, np.ndarray)) and np.ndim(value) == 0:
        dt = np.asarray(value).dtype
        if dt.kind not in "iuf":
            raise TypeError(f"{label}: generic scalar '{name}' takes a number, got a {dt.name}")
        return dt
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{label}: generic scalar '{name}' takes a number, got "
                        f"{type(value).__name__}")
    if elems:
        dt = np.dtype(elems[0])
        if isinstance(value, float) and dt.kind in "iu":
            raise TypeError(f"{label}: generic scalar '{name}' follows the buffers' element "
                            f"type ({dt.name}), but got the float {value!r}; pass an int, or "
                            f"a NumPy scalar of the type you mean (np.float32({value!r}))")
        return dt
    return np.dtype(np.int32) if isinstance(value, int) else np.dtype(np.float32)


def _nd_params(fn):
    """[(position among the buffer arguments, name, N)] of the parameters
    annotated vp.Buffer[T, N] (N-d buffers, lib/Frontend/ndbuf.c)."""
    out, k = [], 0
    for p in _params(fn):
        ann = p.annotation
        if isinstance(ann, _types._BufferAnnotation) and ann.kind == "Buffer":
            if isinstance(ann.elem, tuple) and len(ann.elem) == 2 and isinstance(ann.elem[1], int):
                out.append((k, p.name, ann.elem[1]))
            k += 1
        elif ann is _types.Buffer or ann is _types.Control:
            k += 1
    return out


def _nd_push(label, nd, buffers):
    """The hidden push constants of N-d buffers: the shape, the strides and
    the first element, in elements, of each argument (a vp.ndarray view
    keeps its own; a NumPy array is uploaded C-contiguous). Strides are
    stored as uint32 (two's complement for a negative one)."""
    from ._graph import c_strides
    out = {}
    for k, name, n in nd:
        if k >= len(buffers):
            continue  # launch reports the count
        a = buffers[k]
        shape = tuple(getattr(a, "shape", ()))
        if len(shape) != n:
            raise TypeError(f"{label}: buffer '{name}' is vp.Buffer[T, {n}]; "
                            f"got an array of {len(shape)} dimension(s) {shape}")
        if type(a) is _array.ndarray:
            strides = _array.elem_strides(a)
            offset = a._offset
        else:
            strides, offset = c_strides(shape), 0
        one = (lambda t: t[0]) if n == 1 else tuple
        out[f"_vp_shape_{name}"] = one(tuple(shape))
        out[f"_vp_strides_{name}"] = one(tuple(s & 0xFFFFFFFF for s in strides))
        out[f"_vp_offset_{name}"] = offset
    return out


def _bind_view(label, b, a, ctx, views):
    """What binds resident view `a` to buffer `b`: its own bytes, as a
    bound range (Buffer, offset, size), where its offset is a multiple of
    the device's minStorageBufferOffsetAlignment; else a new array holding
    a copy of the view's elements (written back by the caller's finish when
    the kernel writes `b`). Binding a's whole Buffer would expose (and
    write) the elements before the view."""
    if not _array.c_contiguous(a):
        raise ValueError(f"{label}: buffer '{b['name']}' got a strided view (shape "
                         f"{a.shape}, strides {a.strides}) that is not contiguous; a kernel "
                         f"binds contiguous memory: pass a contiguous copy (x.copy()) and "
                         f"assign the result back, or declare the parameter "
                         f"vp.Buffer[T, {len(a.shape)}] (an N-d buffer takes strided views)")
    isz = a._sdtype.itemsize
    align = ctx.info["limits"]["min_storage_buffer_offset_alignment"] or 1
    if a.nbytes and (a._offset * isz) % align == 0:
        return (a._buf, a._offset * isz, a.nbytes)
    own = _array.empty(a.shape, a.dtype, memory=a.memory, context=a._ctx)
    if a.nbytes:
        own._buf.copy_from(a._buf, 0, a._offset * isz, a.nbytes)
    if b["access"] != "readonly":
        views.append((a, own, isz))
    return own._buf


def _memory_of(a):
    """What identifies a buffer argument's memory for the aliasing check:
    the resident array (its Buffer and byte span), the NumPy array
    (np.may_share_memory decides), a ControlBuffer's or a raw Buffer; None
    for anything else (launch raises its own error for those)."""
    if type(a) is _array.ndarray:
        return a
    if isinstance(a, np.ndarray):
        return a
    if hasattr(a, "_control"):
        return a.buffer
    if isinstance(a, _native.ext().Buffer):
        return a
    return None


def _share(x, y):
    if type(x) is _array.ndarray and type(y) is _array.ndarray:
        return _array.overlaps(x, y)
    if type(x) is _array.ndarray or type(y) is _array.ndarray:
        # a raw Buffer or a ControlBuffer's Buffer against an array
        arr, other = (x, y) if type(x) is _array.ndarray else (y, x)
        return arr._buf is other
    if isinstance(x, np.ndarray) and isinstance(y, np.ndarray):
        return np.may_share_memory(x, y)
    return x is y


def _check_aliasing(label, args, bdefs):
    """ValueError naming both parameters when one memory is bound twice and
    the kernel writes one of the two bindings."""
    keys = [id(a._buf) if type(a) is _array.ndarray else None for a in args]
    if None not in keys and len(set(keys)) == len(keys):
        return  # the common call: resident arrays, each on its own Buffer
    mems = [(_memory_of(a), b) for a, b in zip(args, bdefs)]
    for j in range(1, len(mems)):
        mj, bj = mems[j]
        if mj is None:
            continue
        for i in range(j):
            mi, bi = mems[i]
            if mi is None or (bi["access"] == "readonly" and bj["access"] == "readonly"):
                continue
            if _share(mi, mj):
                raise ValueError(f"{label}: buffers '{bi['name']}' and '{bj['name']}' are the "
                                 f"same memory and the kernel writes "
                                 f"'{bi['name'] if bi['access'] != 'readonly' else bj['name']}'"
                                 f"; the invocations would see each other's writes in no "
                                 f"defined order. Pass a copy of one of them")


def _memsock_launch(prog, args, push, dispatch, groups, sync, context, label):
    """launch() with vp.MemSock arguments: each binds its frames and its ring
    (two manifest buffers); the pipes number the dispatch's fires before it
    and deliver them after it (docs/memsock.md)."""
    bdefs, flat, pipes = prog.buffers, [], []
    for a in args:
        if type(a) is _memsock.MemSock:
            flat.extend(a._bind(context, bdefs, len(flat), label))
            pipes.append(a)
            context = context or a._ctx
        else:
            flat.append(a)
    begun = []
    try:
        for p in pipes:
            p._begin()
            begun.append(p)
        h = launch(prog, flat, push, dispatch, groups, sync, context, label)
    except BaseException:
        for p in begun:
            p._native.end_dispatch()
        raise
    if sync:
        _memsock_end(pipes)
        return None
    inner = h._finish if hasattr(h, "_finish") else None
    return Handle(h._ticket, lambda: (inner and inner(), _memsock_end(pipes))[0])


def _memsock_end(pipes):
    err = None
    for p in pipes:
        try:
            p._end()
        except BaseException as e:  # every pipe ends; the first error is raised
            err = err or e
    if err is not None:
        raise err


def _fast_path(prog, buffers, bound):
    """After a call that went the Python way: the Launcher for the
    context of its resident arrays (the extension does the next such calls
    whole), or None while no call has shown a context, or when the program
    needs the Python path for every call. A kernel bound to a context gets
    the launcher of that context only."""
    ctx = next((a._ctx for a in buffers if type(a) is _array.ndarray), None)
    if ctx is None or (bound is not None and bound is not ctx):
        return None
    launcher = prog.launcher(ctx)
    return launcher if launcher is not None else False


class _Inspect:
    """The inspection attributes every compiled kernel has (from its
    _artifacts() and _extra(target))."""

    @property
    def glsl(self):
        """The GLSL 450 source it compiles to (readable, Python names kept)."""
        return self._artifacts()["glsl"]

    @property
    def vir(self):
        """The VIR (VulPy IR) text."""
        return self._artifacts().get("vir")

    @property
    def spirv(self):
        """The SPIR-V binary (bytes)."""
        return self._artifacts()["spirv"]

    @property
    def manifest(self):
        """The manifest (YAML): bindings, push constants, local size, features."""
        return self._artifacts()["manifest"]

    @property
    def cuda(self):
        """A self-contained CUDA translation (.cu source)."""
        return self._extra("cuda")

    @property
    def hip(self):
        """A self-contained HIP translation."""
        return self._extra("hip")


class _PyCall:
    """What KernelCall (the extension's base class, put before this one by
    _with_c_call) does, in Python: for a bare checkout without the
    extension, where every call fails anyway."""

    _fast = None

    def __call__(self, *buffers, **kw):
        fast = self._fast
        if fast:
            r = fast.call(buffers, kw)
            if r is not NotImplemented:
                return r
        return self._call(buffers, **kw)


@functools.lru_cache(maxsize=None)
def _with_c_call(cls):
    """`cls` with the extension's KernelCall first in its bases: a call then
    goes to the Launcher in `_fast` (made after the first call) with no
    Python frame; the Launcher declines what it does not handle, and
    self._call(buffers, **kw) - the Python path - runs. Made on the first
    vp.kernel(), not at import: `import vulpy` loads no compiled module."""
    if not _native.available():
        return cls
    return type(cls.__name__, (_native.ext().KernelCall, cls),
                {"__module__": cls.__module__, "__qualname__": cls.__qualname__,
                 "__doc__": cls.__doc__})


class PyKernel(_PyCall, _Inspect):
    """A kernel written as an annotated Python function (@vp.kernel)."""

    def __init__(self, fn, options, fast_math=False, context=None, debug=False,
                 dispatch_guard=True):
        self.fn = fn
        self.debug = debug  # debug mode: asserts, bounds checks, vp.KernelError
        # False: no guard of global_id against the dispatch=N count (the
        # kernel bounds itself; every invocation of the groups runs)
        self.dispatch_guard = bool(dispatch_guard)
        self.__name__ = getattr(fn, "__name__", "kernel")
        self.__doc__ = fn.__doc__
        self.__wrapped__ = fn
        self.options = dict(options)
        self.fast_math = fast_math
        self.context = context
        self._prog = None
        self._loop_prog = None  # lavapipe's variant with the loop-canary pass
        # the library's own kernels bound their loops themselves (a module of
        # them whose loops follow the data says LOOP_CANARY = True); persistent
        # kernels have their own hidden buffers and loop bookkeeping
        user = (getattr(fn, "__module__", None) or "").split(".")[0] != "vulpy"
        self._loop_checked = (user or getattr(fn, "__globals__", {}).get("LOOP_CANARY") is True) \
            and not self.options.get("persistent")
        self._doc = None
        # Decoration comes long before the first call in most programs: a
        # good moment to start glslang's one-time set-up (a no-op once
        # started, or with VULPY_PREWARM=0).
        _context._prewarm()
        self._fast = None  # the Launcher of the common call (made after a first call)
        self._generic = _generic_params(fn)  # generic buffers: one compile per dtype list
        self._gscalars = _generic_scalars(fn)  # vp.Scalar push constants: typed per call
        self._special = {}
        self._nd = _nd_params(fn)  # N-d buffers: shape, strides, offset in the push block

    def specialize(self, **dtypes):
        """The kernel compiled for these element types of its generic
        buffers (`a: vp.Buffer` without `[T]`) and types of its generic
        scalars (`s: vp.Scalar`), e.g. `k.specialize(x=np.float64, a=np.float64)`:
        what a call with such arguments runs; for inspection (`.glsl`, `.vir`).
        Each signature compiles once (then memory and disk caches)."""
        dts = {name: np.dtype(dt).name for name, dt in dtypes.items()}
        key = tuple(sorted(dts.items()))
        sub = self._special.get(key)
        if sub is None:
            opts = dict(self.options)
            bufs = {n: d for n, d in dts.items() if n not in self._gscalars}
            scal = {n: d for n, d in dts.items() if n in self._gscalars}
            if bufs:
                opts["buffer_dtypes"] = bufs
            if scal:
                opts["scalar_dtypes"] = scal
            sub = type(self)(self.fn, opts, self.fast_math, self.context, self.debug,
                             self.dispatch_guard)
            sub._generic, sub._gscalars = [], []
            self._special[key] = sub
        return sub

    def _for_args(self, buffers, push=None):
        dtypes, elems = {}, []
        label = f"kernel {self.__name__}()"
        for k, name in self._generic:
            if k < len(buffers):  # (a wrong count is launch's error)
                dt = getattr(buffers[k], "dtype", None)
                if dt is None:
                    raise TypeError(f"{label}: generic buffer '{name}' takes an "
                                    f"array, got {type(buffers[k]).__name__}")
                dtypes[name] = dt
                elems.append(dt)
        for name in self._gscalars:
            if push is None or name not in push:
                raise TypeError(f"{label}: generic scalar '{name}' (vp.Scalar) needs a value: "
                                f"{self.__name__}(..., {name}=...)")
            dtypes[name] = _scalar_dtype(label, name, push[name], elems)
        return self.specialize(**dtypes)

    def _document(self):
        if self._doc is None:
            # vp.Control parameters reach the frontend as they are: it makes
            # them coherent uint32 buffers whose words control_words names
            self._doc = _astjson.dump_function(self.fn, self.options)
        return self._doc

    def _artifacts(self):
        return self.program().artifacts

    def _extra(self, target):
        return _compiler.compile_function(self.fn, self.options, self._document,
                                          targets=(target,), fast_math=self.fast_math,
                                          **self._debug_kw())[target]

    def _debug_kw(self):
        kw = {"asserts": True} if self.debug else {}
        if not self.dispatch_guard:
            kw["dispatch_guard"] = False
        # a persistent kernel's barrier variant and memory model; always given,
        # so that the kernel cache's key names the passes (the default variant
        # may change between releases)
        kw["passes"] = _persistent.barrier_passes(self.options.get("barrier"),
                                                  self.options.get("nonprivate", False))
        return kw

    def program(self):
        """Compiles on first use (then from the memory and disk caches,
        looked up before the function's source is even parsed)."""
        if self._prog is None:
            arts = _compiler.compile_function(self.fn, self.options, self._document,
                                              fast_math=self.fast_math, **self._debug_kw())
            self._prog = Program(arts, f"kernel {self.__name__}()", precise=not self.fast_math)
        return self._prog

    def loop_program(self):
        """program() with the loop-canary pass (lib/Transforms/loop_canary.c),
        for devices that end an invocation's loops after
        ctx.limits['max_loop_iterations'] back-edges (lavapipe): a kernel
        whose loops may take that many gets the fault record, and a cut
        loop raises vp.KernelError instead of a wrong result."""
        if self._loop_prog is None:
            arts = _compiler.compile_function(self.fn, self.options, self._document,
                                              fast_math=self.fast_math, loop_canary=True,
                                              **self._debug_kw())
            self._loop_prog = Program(arts, f"kernel {self.__name__}()",
                                      precise=not self.fast_math)
            if self._prog is None and "vir" in arts and "_vp_loop_canary" not in arts["vir"]:
                # the pass changed nothing: program()'s code, one compile
                self._prog = self._loop_prog
        return self._loop_prog

    def _program_for(self, buffers, context):
        """The program a call runs: loop_program() where the call's context
        (as launch resolves it) cuts long loops, else program()."""
        if self._loop_checked:
            ctx = context
            if ctx is None:
                ctx = next((c for c in (getattr(a, "_ctx", None) for a in buffers)
                            if c is not None), None)
            if _context.resolve(ctx).limits.get("max_loop_iterations") is not None:
                return self.loop_program()
        return self._prog or self.program()

    def _call(self, buffers, dispatch=None, groups=None, sync=True, context=None, after=None,
              stream=None, **push):
        """The Python path: every check, every kind of argument, its errors
        (calls arrive here from _CallBase when its Launcher declines)."""
        kinds = self.__dict__.get("_kinds")
        if kinds is None:
            kinds = self._kinds = [(p.name, _param_kind(p)[1]) for p in _params(self.fn)]
        if kinds:  # positional push constants, buffers by keyword
            bound, push2 = _bind_call(f"kernel {self.__name__}()", kinds, buffers, push)
            if bound is not buffers:
                fast = self._fast
                if fast:  # the Launcher takes the call in its usual form
                    kw = dict(push2, dispatch=dispatch, groups=groups, context=context)
                    if sync is not True:
                        kw["sync"] = sync
                    for k, v in (("after", after), ("stream", stream)):
                        if v is not None:
                            kw[k] = v
                    r = fast.call(bound, {k: v for k, v in kw.items() if v is not None})
                    if r is not NotImplemented:
                        return r
                buffers, push = bound, push2
        if stream is not None:  # issue 18: as inside `with stream:`
            with _stream.using(stream, f"kernel {self.__name__}()"):
                return self._call(buffers, dispatch, groups, sync, context, after, **push)
        if after is not None:  # cross-device ordering: a host wait (issue 18)
            _hostarray.wait_after(after, f"kernel {self.__name__}()")
        if self._generic or self._gscalars:
            return self._for_args(buffers, push)._call(buffers, dispatch, groups, sync, context,
                                                       **push)
        prog = self._program_for(buffers, context or self.context)
        if _persistent.is_persistent(prog):  # one dispatch that owns its loop
            self._fast = False
            return _persistent.call(prog, buffers, push, dispatch, groups, sync,
                                    context or self.context,
                                    lambda: _persistent.stepped_program(self),
                                    kernel_launch=launch)
        if self._nd:  # always this path: the Launcher does not fill the hidden push fields
            push = dict(push, **_nd_push(prog.label, self._nd, buffers))
        if self.debug or _debug.has_hidden(prog):  # record / print rings bound: no fast path
            file = getattr(getattr(self.fn, "__code__", None), "co_filename", None)
            return _debug.launch(launch, prog, buffers, push, dispatch, groups, sync,
                                 context or self.context, prog.label, file,
                                 whole={k for k, _, _ in self._nd})
        r = launch(prog, buffers, push, dispatch, groups, sync, context or self.context,
                   prog.label, whole={k for k, _, _ in self._nd})
        if self._fast is None and not self._nd:
            # a kernel with a MemSock takes the Python path (the pipe's bookkeeping)
            self._fast = False if any(type(a) is _memsock.MemSock for a in buffers) else \
                _fast_path(prog, buffers, self.context)
        return r

    def __repr__(self):
        return f"<vp.kernel {self.__name__}>"


class GLSLKernel(_PyCall, _Inspect):
    """A kernel from handwritten GLSL compute source, compiled in-process by
    glslang; its bindings and push constants are checked against what the
    caller declared, with SPIRV-Cross reflection."""

    def __init__(self, source, buffers=None, push=(), local_size=None, name="glsl kernel",
                 context=None):
        ext = _native.ext()
        self.source = source
        self.__name__ = name
        self.context = context
        spirv = ext.glsl_to_spirv(source, name)
        yaml = ext.reflect_spirv(spirv)
        man = ext.manifest_parse(yaml)
        self._check(man, buffers, push)
        self._arts = {"glsl": source, "spirv": spirv, "manifest": yaml, "key": None}
        self._prog = Program(self._arts, name, local_size)
        self._prog.key = ("glsl", hash(source), tuple(local_size or ()))
        self._fast = None

    def _check(self, man, buffers, push):
        label = self.__name__
        got = man["buffers"]
        if buffers is not None:
            names = None
            if isinstance(buffers, int):
                count = buffers
            else:
                names = list(buffers)
                count = len(names)
            if count != len(got):
                have = ", ".join(f"{b['name']} (binding {b['binding']})" for b in got) or "none"
                raise ValueError(f"{label}: declared buffers={count} but the shader has "
                                 f"{len(got)} storage buffer(s): {have}")
            if names:
                for i, (want, b) in enumerate(zip(names, got)):
                    if want != b["name"]:
                        raise ValueError(f"{label}: buffer {i} is named '{b['name']}' in the "
                                         f"shader (binding {b['binding']}), declared '{want}'")
        fields = man["push"]
        push = list(push or ())
        if len(push) != len(fields):
            have = ", ".join(f"{f['name']} ({python_name(f['type'])})" for f in fields) or "none"
            raise ValueError(f"{label}: declared {len(push)} push constant(s) but the shader's "
                             f"push block has {len(fields)}: {have}")
        for i, (decl, f) in enumerate(zip(push, fields)):
            if not (isinstance(decl, (tuple, list)) and len(decl) == 2):
                raise TypeError(f"{label}: push= wants (name, type) pairs, got {decl!r}")
            pname, ptype = decl
            tname = getattr(ptype, "__name__", ptype)
            tname = "bool" if tname == "bool_" else tname
            vir = VIR_SPELLINGS.get(tname, tname)
            if pname != f["name"]:
                raise ValueError(f"{label}: push constant {i} is '{f['name']}' "
                                 f"({python_name(f['type'])}) in the shader, declared '{pname}'")
            if vir != f["type"]:
                raise TypeError(f"{label}: push constant '{pname}' is "
                                f"{python_name(f['type'])} in the shader, declared {tname}")

    def _artifacts(self):
        return self._arts

    def _extra(self, target):
        raise NotImplementedError(f"{self.__name__}: raw GLSL kernels have no {target} "
                                  "translation (it is made from VIR)")

    @property
    def vir(self):
        return None

    def _call(self, buffers, dispatch=None, groups=None, sync=True, context=None, after=None,
              stream=None, **push):
        if stream is not None:  # issue 18: as inside `with stream:`
            with _stream.using(stream, self.__name__):
                return self._call(buffers, dispatch, groups, sync, context, after, **push)
        if after is not None:  # cross-device ordering: a host wait (issue 18)
            _hostarray.wait_after(after, self.__name__)
        r = launch(self._prog, buffers, push, dispatch, groups, sync,
                   context or self.context, self.__name__)
        if self._fast is None:
            self._fast = _fast_path(self._prog, buffers, self.context)
        return r

    def __repr__(self):
        return f"<vp.kernel {self.__name__} (GLSL)>"


# The keywords of @vp.kernel that go to the frontend as document options
# (docs/language.md): anything else is a TypeError, never silently ignored.
_OPTIONS = ("control_words", "helpers", "persistent", "barrier", "nonprivate")
_KEYWORDS = ("local_size_x", "local_size_y", "local_size_z", "buffers", "push", "fast_math",
             "context", "name", "debug", "dispatch_guard") + _OPTIONS


def _check_options(options):
    for key in options:
        if key in _OPTIONS:
            continue
        if key == "debug_asserts":
            raise TypeError("vp.kernel: debug_asserts= is not a keyword; use debug=True "
                            "(debug mode: asserts evaluated, every buffer and shared index "
                            "checked, the first failure raised as vp.KernelError; "
                            "docs/errors.md#kernelerror)")
        close = difflib.get_close_matches(key, _KEYWORDS, 1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise TypeError(f"vp.kernel: unknown keyword argument {key!r}{hint}; it takes "
                        f"{', '.join(_KEYWORDS)}")


def kernel(fn_or_source=None, *, local_size_x=None, local_size_y=None, local_size_z=None,
           buffers=None, push=None, fast_math=False, context=None, name=None, debug=None,
           dispatch_guard=True, **options):
    """Compiles a GPU kernel: a decorator on an annotated Python function,
    or a call on handwritten GLSL compute source.

        @vp.kernel(local_size_x=64)
        def saxpy(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32], a: vp.float32):
            i = vp.global_id()
            y[i] = a * x[i] + y[i]

        saxpy(xv, yv, dispatch=n, a=2.0)     # resident arrays or NumPy arrays
        print(saxpy.glsl)                    # the GLSL it became

        k = vp.kernel(GLSL_SOURCE, buffers=2, push=[("n", "uint32")])

    Arguments:
      fn_or_source   the Python function (the kernel language: docs/language.md)
                     or GLSL source text; omitted, vp.kernel(...) returns the
                     decorator.
      local_size_x, local_size_y, local_size_z
                     the workgroup size (default 64 x 1 x 1).
      buffers, push  GLSL only: the number of storage buffers, and the push
                     constants as (name, dtype) pairs in block order.
      fast_math      the device's built-in sin/exp/... instead of the precise
                     helpers (docs/math.md).
      context        the vp.Context to compile for (default: the default one).
      name           GLSL only: the kernel's name in messages.
      debug          debug mode (docs/errors.md, KernelError): bounds checks
                     on every buffer and shared access, asserts evaluated,
                     vp.print shown; default: VULPY_DEBUG.
      dispatch_guard Python kernels: True (default) guards the body with
                     global_id < the dispatch=N count, so the invocations of
                     the last, partial workgroup do nothing; False leaves the
                     guard out (every invocation of the dispatched groups
                     runs: for kernels dispatched with groups= or that bound
                     their own indexes; one compare and a select a buffer
                     access fewer in kernels with barriers).
      **options      the frontend's options of Python kernels (control_words,
                     helpers, persistent, barrier, nonprivate); an unknown
                     keyword is a TypeError naming the nearest valid one.

    Calling: buffers positionally (resident vp.ndarray, NumPy arrays,
    vp.ControlBuffer), push constants by keyword (a Python function's
    arguments may also come as Python binds them: saxpy(xv, yv, 2.0,
    dispatch=n) or saxpy(x=xv, y=yv, a=2.0, dispatch=n)), and the grid as
    dispatch=N, dispatch=(nx, ny[, nz]) or groups=(gx, gy, gz); sync=False
    returns a vp.Handle. Buffer element types are the annotations'
    (vp.Buffer[vp.float32], ...: float32, float64, int32, uint32, int64,
    uint64, bool, and vectors such as vp.vec4).

    Module constants: the numbers (and tuples of numbers) the function
    reads from its module, read when the kernel first compiles (its first
    call or .glsl), each with the type of its declaration
    (`D: vp.float64 = 0.1`, `S = np.float32(0.5)`); rebinding one later
    does not change the compiled kernel: decorate again (docs/language.md,
    Module constants).

    Errors: vp.CompileError (file:line:col: error: ... for kernels written
    in Python, the GLSL compiler's message for GLSL), TypeError for an
    argument of the wrong kind or element type or a missing grid, ValueError
    for a strided view, one memory bound twice where written, or a read-only
    NumPy array where the kernel writes, vp.FeatureError when the device
    lacks a feature the kernel needs. The module docstring of vulpy._kernel
    and docs/python-api.md say more."""
    local = {k: v for k, v in (("local_size_x", local_size_x), ("local_size_y", local_size_y),
                               ("local_size_z", local_size_z)) if v is not None}
    if isinstance(fn_or_source, str):
        if options:
            raise TypeError(f"vp.kernel(GLSL): unknown option {next(iter(options))!r}")
        if dispatch_guard is not True:
            raise TypeError("vp.kernel(GLSL): dispatch_guard= is for Python kernels (a GLSL "
                            "kernel's body is its own; VulPy adds no guard to it)")
        if debug:
            raise TypeError("vp.kernel(GLSL): debug=True needs a Python kernel (the bounds "
                            "checks are inserted into VulPy's IR)")
        ls = None
        if local:
            ls = (local.get("local_size_x", 1), local.get("local_size_y", 1),
                  local.get("local_size_z", 1))
        return _with_c_call(GLSLKernel)(fn_or_source, buffers, push, ls, name or "glsl kernel",
                                        context)
    if buffers is not None or push is not None:
        raise TypeError("buffers= and push= describe raw GLSL kernels; a Python kernel's "
                        "parameters say it")
    _check_options(options)
    if options.get("barrier") is not None or "nonprivate" in options:
        # a ValueError naming the keyword, here
        _persistent.barrier_passes(options.get("barrier"), options.get("nonprivate", False))
    opts = dict(local, **options)

    def wrap(fn):
        if not callable(fn):
            raise TypeError(f"vp.kernel expects a function or GLSL source, got {fn!r}")
        return _with_c_call(PyKernel)(fn, opts, fast_math, context,
                                      _debug.check_flag("vp.kernel", debug), dispatch_guard)

    return wrap(fn_or_source) if fn_or_source is not None else wrap
