"""vp.compile: a .vul.py file as a shader with named, resident buffers.

    shader = vp.compile("my_kernel.vul.py", local_size_x=256, context=ctx)
    shader.allocate(pos=pos_array, vel=vel_array)   # sizes the buffers, moves no data
    shader.upload("pos", pos_array)
    shader.run(dispatch=N, N=N, dt=0.001)
    shader.download("pos")                           # -> ndarray
    shader.buffer("pos")                             # the resident array

Buffers of struct types take NumPy structured arrays whose layout is the
struct's std430 layout (shader.dtype(name) builds that dtype); a mismatch is
an error that shows both layouts.
"""
import os

import numpy as np

from . import (_array, _astjson, _compiler, _context, _debug, _memsock, _native, _persistent,
               _structs)
from ._kernel import _Inspect, _check_elem, _nd_push, launch
from ._launch import Program


_MEMSOCK_RING = object()  # a MemSock's ring binding: the pipe binds it


class Shader(_Inspect):
    """A compiled .vul.py kernel with its buffers: what vp.compile(path,
    local_size_x, local_size_y, local_size_z, context=..., kernel=...,
    fast_math=..., memory=..., debug=...) returns (help(vp.compile) says
    what each argument means). Methods: allocate(name=array, ...),
    upload(name, array), run(dispatch=N, **push), download(name),
    buffer(name), dtype(name) (a struct buffer's NumPy dtype)."""

    def __init__(self, path, local_size_x=None, local_size_y=None, local_size_z=None,
                 context=None, kernel=None, fast_math=False, memory=None, debug=None):
        self.path = os.fspath(path)
        self.context = _context.resolve(context)
        self.memory = _array.check_memory(memory, self.context)
        opts = {k: v for k, v in (("local_size_x", local_size_x), ("local_size_y", local_size_y),
                                  ("local_size_z", local_size_z)) if v is not None}
        self.fast_math = fast_math
        self.debug = _debug.check_flag("vp.compile", debug)  # debug mode (issue 20)
        self._dkw = {"asserts": True} if self.debug else {}
        if self.context.limits.get("max_loop_iterations") is not None:
            # lavapipe: loops it ends early raise vp.KernelError (loop_canary.c)
            self._dkw["loop_canary"] = True
        self._kernel, self._opts, self._doc = kernel, opts, None
        arts = _compiler.compile_file(self.path, kernel, opts, self._document,
                                      fast_math=fast_math, **self._dkw)
        self._prog = Program(arts, f"shader {os.path.basename(self.path)}",
                             precise=not fast_math)
        self._prog.native(self.context)  # build the pipeline now: errors show here
        self._bufs = {}
        self._specs = {b["name"]: b for b in self._prog.buffers if b["name"] not in _debug.HIDDEN}

    def _artifacts(self):
        return self._prog.artifacts

    def _document(self):
        if self._doc is None:
            self._doc = _astjson.dump_file(self.path, self._kernel, self._opts)
        return self._doc

    def _extra(self, target):
        return _compiler.compile_file(self.path, self._kernel, self._opts, self._document,
                                      targets=(target,), fast_math=self.fast_math,
                                      **self._dkw)[target]

    @property
    def buffer_names(self):
        """The kernel's buffers, in binding order (a persistent kernel's
        hidden ones left out: each run makes its own)."""
        return [b["name"] for b in self._prog.buffers
                if b["name"] not in _persistent.HIDDEN + _debug.HIDDEN]

    @property
    def push_names(self):
        return list(self._prog.packer.names)

    def _spec(self, name):
        try:
            return self._specs[name]
        except KeyError:
            raise KeyError(f"{self._prog.label} has no buffer {name!r} (buffers: "
                           f"{', '.join(self.buffer_names)})") from None

    def dtype(self, name):
        """The NumPy dtype of one element of buffer `name` (a structured
        dtype with the std430 layout for struct buffers)."""
        return _structs.buffer_dtype(self._spec(name))

    def _check(self, name, arr):
        b = self._spec(name)
        if b["type"].startswith("@"):
            _structs.check_struct_array(self._prog.label, b, arr.dtype, self._prog.manifest,
                                        self.__dict__.setdefault("_struct_dtypes", {}),
                                        f"shader.dtype({name!r})")
        else:
            _check_elem(self._prog.label, b, arr.dtype, arr.nbytes)

    def allocate(self, **arrays):
        """Sizes buffers like the given arrays (NumPy or resident), or to a
        given element count (an int); no data moves. Returns self."""
        for name, a in arrays.items():
            b = self._spec(name)
            if isinstance(a, (int, np.integer)) and not isinstance(a, bool):
                dt = self.dtype(name)
                shape = (int(a),) if not dt.shape else (int(a),) + dt.shape
                dt = dt.base if not dt.names else dt
                arr_like = np.empty(0, dt)
            else:
                arr_like = a if isinstance(a, (np.ndarray, _array.ndarray)) else np.asarray(a)
                shape = arr_like.shape
                self._check(name, arr_like)
            dt = arr_like.dtype
            if dt.names:  # struct buffers: an ndarray of the structured dtype
                n = int(np.prod(shape, dtype=np.int64))
                buf = _native.ext().Buffer(self.context._native,
                                           max(16, n * dt.itemsize + 15 & ~15), self.memory)
                self._bufs[name] = _array.ndarray(buf, shape, dt, self.context)
            else:
                self._bufs[name] = _array.empty(shape, dt, memory=self.memory,
                                                context=self.context)
            del b
        return self

    def upload(self, name, array):
        """Copies a NumPy array into buffer `name` (allocating it first if
        allocate() did not)."""
        a = np.asarray(array)
        if name not in self._bufs:
            self.allocate(**{name: a})
        dst = self._bufs[name]
        self._check(name, a)
        if a.nbytes != dst.nbytes:
            raise ValueError(f"{self._prog.label}: upload of {a.nbytes} bytes into buffer "
                             f"'{name}' of {dst.nbytes} bytes (allocate() sized it)")
        if not a.nbytes:
            return
        if dst.contiguous or _array.c_contiguous(dst):
            # a bound view (bind(name, x[100:200])) gets its own bytes, at
            # its offset in the buffer, not the buffer's first ones
            dst._buf.upload(np.ascontiguousarray(a).view(np.uint8).reshape(-1),
                            dst._offset * dst.itemsize)
        else:  # a strided view (an N-d buffer): element by element
            dst.set(np.ascontiguousarray(a).reshape(dst.shape))

    def download(self, name):
        """A NumPy copy of buffer `name`."""
        b = self.buffer(name)
        return np.array(b.view()) if hasattr(b, "_control") else b.numpy()

    def buffer(self, name):
        """The resident array behind buffer `name`."""
        self._spec(name)
        try:
            return self._bufs[name]
        except KeyError:
            raise KeyError(f"{self._prog.label}: buffer {name!r} is not allocated yet; call "
                           f"allocate({name}=...) or upload({name!r}, ...)") from None

    def bind(self, name, array):
        """Uses an existing resident array (or, for a vp.Control parameter,
        a vp.ControlBuffer; for a vp.MemSock[T] parameter, an open
        vp.MemSock) as buffer `name`."""
        if type(array) is _memsock.MemSock:
            if name not in self.buffer_names or name + "_ring" not in self.buffer_names:
                raise KeyError(f"{self._prog.label} has no vp.MemSock parameter {name!r}")
            self._bufs[name] = array
            self._bufs[name + "_ring"] = _MEMSOCK_RING  # bound with the pipe
            return
        if hasattr(array, "_control"):
            b = self._spec(name)
            if b["type"] not in ("u32", "i32"):
                raise TypeError(f"{self._prog.label}: buffer '{name}' is not uint32 words; "
                                f"a ControlBuffer binds to a vp.Control parameter")
            self._bufs[name] = array
            return
        if not isinstance(array, _array.ndarray):
            raise TypeError(f"bind() takes a vp.ndarray or a vp.ControlBuffer, not "
                            f"{type(array).__name__}")
        self._check(name, array)
        self._bufs[name] = array

    def run(self, dispatch=None, *, groups=None, sync=True, **push):
        """Dispatches with the allocated buffers and push constants by name."""
        missing = [n for n in self.buffer_names if n not in self._bufs]
        if missing:
            raise RuntimeError(f"{self._prog.label}: buffer(s) {', '.join(missing)} not "
                               f"allocated; call allocate() or upload() first")
        if _persistent.is_persistent(self._prog):
            args = [self._bufs[n] for n in self.buffer_names]
            return _persistent.call(self._prog, args, push, dispatch, groups, sync, self.context,
                                    lambda: _persistent.stepped_program(self),
                                    kernel_launch=launch)
        args = [self._bufs[n] for n in self.buffer_names if self._bufs[n] is not _MEMSOCK_RING]
        whole = ()
        nd = self._nd_buffers(args)
        if nd:
            # N-d buffers: their hidden shape / strides / offset come from
            # the bound arrays (a name given explicitly still wins)
            push = dict(_nd_push(self._prog.label, nd, args), **push)
            whole = {k for k, _, _ in nd}
        if self.debug or _debug.has_hidden(self._prog):
            return _debug.launch(launch, self._prog, args, push, dispatch, groups, sync,
                                 self.context, self._prog.label, self.path, whole=whole)
        return launch(self._prog, args, push, dispatch, groups, sync, self.context,
                      self._prog.label, whole=whole)

    def _nd_buffers(self, args):
        """[(position in args, name, N)] of the kernel's N-d buffers
        (vp.Buffer[T, N]): those with a hidden `_vp_shape_NAME` push field."""
        nd = self.__dict__.get("_nd")
        if nd is None:
            shapes = {f["name"]: f["lanes"] for f in self._prog.manifest["push"]}
            names = [n for n in self.buffer_names if self._bufs.get(n) is not _MEMSOCK_RING]
            nd = self._nd = [(k, n, shapes["_vp_shape_" + n])
                             for k, n in enumerate(names) if "_vp_shape_" + n in shapes]
        return [x for x in nd if x[0] < len(args)]

    def __repr__(self):
        return f"<vp.Shader {self.path}: buffers {self.buffer_names}, push {self.push_names}>"


def compile(path, local_size_x=None, local_size_y=None, local_size_z=None, *, context=None,
            kernel=None, fast_math=False, memory=None, debug=None):
    """vp.compile(path, local_size_x=None, local_size_y=None,
    local_size_z=None, *, context=None, kernel=None, fast_math=False,
    memory=None, debug=None): compiles the .vul.py file at `path` into a
    vp.Shader with named, resident buffers.

        local_size_x/y/z  the workgroup size (None: the file's own, else 64).
        context           the vp.Context (None: vp.default_context()).
        kernel            the entry function's name (None: main, or the only
                          @vp.kernel function).
        fast_math         True uses the device's built-in sin/exp/...
        memory            the memory kind of the buffers (vp.MEMORY_KINDS).
        debug             True (or VULPY_DEBUG=1): asserts and bounds checks,
                          the first failure of a run raised as vp.KernelError
                          (docs/errors.md).

    Errors: vp.CompileError (file:line:col: error: ...) for kernel code
    the compiler refuses, FileNotFoundError for a missing file,
    vp.FeatureError for a feature the device lacks.

    Example:
        shader = vp.compile("my_kernel.vul.py", local_size_x=256)
        shader.allocate(pos=pos_array)
        shader.run(dispatch=N, N=N, dt=0.001)
        pos = shader.download("pos")
    """
    return Shader(path, local_size_x, local_size_y, local_size_z, context=context, kernel=kernel,
                  fast_math=fast_math, memory=memory, debug=debug)
