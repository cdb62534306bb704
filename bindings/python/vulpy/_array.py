"""Resident arrays: vp.ndarray and the functions that make them
(docs/python-api.md, "Resident arrays", is the reference: memory kinds,
default dtypes, supported dtypes).

A vp.ndarray is a C-contiguous block in one Vulkan buffer of one memory
kind ('device', 'host', 'cached', 'rebar'), with a NumPy shape and dtype,
or a view of one (element offset and strides). Arrays stay on the device
across calls; `.numpy()` copies out, `.numpy_view()` maps host-visible
kinds. Buffers are padded to 16 bytes so kernels may read whole vec4s.
Default dtypes, one rule: Python data NumPy would make float64 is float32
here; data that carries a dtype keeps it (default_dtype). bool is stored
as one uint32 word per element; the small dtypes at their own size,
computed in 32 bits; complex as NumPy stores it (_complex.py).
"""
from __future__ import annotations

import math
import operator
import weakref
from typing import Optional, Sequence, Union

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from . import _context, _errors, _native, _npfunc, _structs
from ._graph import c_strides

# the public signatures' annotations (strings: nothing is evaluated at run time)
ShapeLike = Union[int, Sequence[int]]
Memory = Optional[str]  # one of MEMORY_KINDS, or None for the context's default
ContextLike = Optional["_context.Context"]

MEMORY_KINDS = ("device", "host", "cached", "rebar")
DTYPES = tuple(np.dtype(t) for t in (np.float32, np.float64, np.int32, np.uint32, np.int64,
                                     np.uint64, np.bool_))
# issue 19: the small real dtypes, stored natively (1 or 2 bytes an element)
DTYPES += tuple(np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16, np.float16))
# issue 19: complex64/complex128, stored as NumPy stores them (interleaved
# real, imag); arithmetic in _complex.py
DTYPES += (np.dtype(np.complex64), np.dtype(np.complex128))
_BOOL = np.dtype(np.bool_)
_U32 = np.dtype(np.uint32)
_F32 = np.dtype(np.float32)


def check_dtype(dtype, what="dtype"):
    """The np.dtype of `dtype` if VulPy supports it, else TypeError."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{what}: {dtype!r} is not a dtype") from None
    if not dt.isnative and dt.fields is None:  # '>f4': its values, in the GPU's byte order
        dt = dt.newbyteorder("=")
    if dt not in DTYPES:
        names = ", ".join(d.name for d in DTYPES)
        raise TypeError(f"{what}: {dt.name} is not supported on the GPU (supported: {names})")
    return dt


def storage_dtype(dt):
    """What one element is in the buffer: bool is a uint32 word."""
    return _U32 if dt == _BOOL else dt


def check_memory(memory, ctx=None):
    """The memory kind; None becomes the context's default_memory."""
    if memory is None and ctx is not None:
        return ctx.default_memory
    if memory not in MEMORY_KINDS:
        raise ValueError(f"memory must be one of {', '.join(map(repr, MEMORY_KINDS))}, "
                         f"not {memory!r}")
    return memory


_F64 = np.dtype(np.float64)
_C128 = np.dtype(np.complex128)


def default_dtype(inferred, *values):
    """The dtype of a creation function that was given no dtype, from
    NumPy's `inferred` one and the `values` it came from: float32 for
    Python float data that NumPy infers as float64 (see the module
    docstring), else `inferred`."""
    if inferred == _F64 and not any(isinstance(v, (np.ndarray, np.generic, ndarray))
                                    for v in values):
        return np.dtype(np.float32)
    # issue 19: Python complex data likewise is complex64
    if inferred == _C128 and not any(isinstance(v, (np.ndarray, np.generic, ndarray))
                                     for v in values):
        return np.dtype(np.complex64)
    return inferred


def _shape(shape):
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    try:
        shape = tuple(int(s) for s in shape)
    except TypeError:
        raise TypeError(f"shape must be an int or a tuple of ints, got {shape!r}") from None
    if any(s < 0 for s in shape):
        raise ValueError(f"negative dimensions are not allowed: {shape}")
    return shape


# NumPy's limit: an array's byte count fits a signed 64-bit integer.
_MAX_BYTES = (1 << 63) - 1


def _count(shape, itemsize, what):
    """The element count of `shape`, checked (ValueError naming `what`)
    so that count * itemsize fits 64 bits: the C layers take byte counts
    as uint64 and would wrap a larger one."""
    n = math.prod(shape)
    if n * itemsize > _MAX_BYTES:
        raise ValueError(f"{what}: shape {shape} is too big: {n} elements of {itemsize} bytes "
                         f"do not fit a 64-bit byte count")
    return n


def _padded(nbytes):
    return max(16, (nbytes + 15) & ~15)



_DEVICE_LOCAL, _HOST_CACHED = 0x1, 0x8       # VkMemoryPropertyFlagBits


def host_reads_fast(buf):
    """True when the host may read `buf`'s mapping at memory speed: host
    memory, or host-cached. Device-local memory mapped uncached (`'rebar'`
    on a discrete GPU: VRAM through the BAR) is write-combined for the CPU:
    reads cross PCIe one at a time, far slower than a DMA copy, so bulk
    reads of it go through a DMA copy instead (the runtime's downloads do;
    figures in bench/notes/python.md)."""
    f = buf.memory_flags
    return bool(buf.mapped) and (not f & _DEVICE_LOCAL or bool(f & _HOST_CACHED))


# x.to(ctx) through imported pages: from 1 MiB, and where a discrete GPU
# takes part (on CPU devices both paths are memcpys and the imports only
# add their cost; bench suite hostpages, bench/notes/python.md)
_TO_PAGES_MIN = 1 << 20
_TO_PAGES_KINDS = ("dgpu",)


def _to_through_pages(x, ctx, memory):
    """x.to(ctx) as two GPU copies through host pages imported into both
    contexts (no CPU copy), or None where a driver refuses the import (the
    caller then copies through NumPy). The copies are synchronous, so the
    second starts after the first is done; the pages are freed when the
    last import of them is (after its GPU work)."""
    ext = _native.ext()
    nbytes = x.nbytes
    try:
        pages = ext.HostMemory(nbytes)
        a = ext.Buffer.import_host(x._ctx._native, pages)
        b = ext.Buffer.import_host(ctx._native, pages)
    except (BufferError, OSError, ValueError, _errors.VulkanError):
        return None
    a.copy_from(x._buf, 0, 0, nbytes)
    out = _result(x.shape, x.dtype, memory, ctx)
    out._buf.copy_from(b, 0, 0, nbytes)
    return out


class _Unbound:
    def __getattr__(self, name):
        raise RuntimeError("vp.ndarray's operators and methods work once `import vulpy` has "
                           "finished (vulpy/__init__.py binds the op layer)")


# ndarray's operators and most of its methods are the op layer's functions
# (x + y is vp.add(x, y), x.sum() is vp.sum(x), x[k] is _indexing.getitem).
# The op modules make ndarrays, so they import this module and this module
# cannot import them (no import cycle: test/python/test_layers.py). The
# package's top, vulpy/__init__.py, hands itself over once with bind_ops()
# right after importing this module; the methods look the op modules up on
# it (`_ops._ufunc`, `_ops._reduce`, ...) when they run.
_ops = _Unbound()


def bind_ops(package):
    """Where ndarray's methods find the op modules: the vulpy package
    (also where np.<function>(x) finds vp.<function>: _npfunc)."""
    global _ops
    _ops = package
    _npfunc.bind(package)


def _fast_power(x, e):
    """NumPy's fast_scalar_power: a float or complex array ** the Python
    int -1 or 2, or the Python float 0.5, is vp.reciprocal / square / sqrt
    of it ((-0.0) ** 0.5 is sqrt's -0.0 where power gives 0.0; (-4-0j) **
    0.5 is -2j): the ufunc's name, else None. A bool array ** the Python
    int 2 is square too (NumPy's int8)."""
    if x.dtype.kind == "b" and type(e) is int and e == 2:
        return "square"
    if x.dtype.kind not in "fc":
        return None
    if type(e) is int:
        return {-1: "reciprocal", 2: "square"}.get(e)
    return "sqrt" if type(e) is float and e == 0.5 else None


def _binary(name):
    """The (x op y, y op x, x op= y) methods of ufunc vp.<name>."""
    def op(self, other):
        if name in ("equal", "not_equal") and (other is None or isinstance(other, (str, bytes))):
            # NumPy: no element equals None or a string (an object / str comparison)
            return full(self.shape, name == "not_equal", np.bool_, context=self._ctx)
        fast = name == "power" and _fast_power(self, other)
        if fast:
            return getattr(_ops._ufunc, fast)(self)
        return getattr(_ops._ufunc, name)(self, other)

    def rop(self, other):
        return getattr(_ops._ufunc, name)(other, self)

    def iop(self, other):
        fast = name == "power" and _fast_power(self, other)
        uf = getattr(_ops._ufunc, fast or name)
        if fast:
            uf(self, out=self)
            return self
        try:
            uf(self, other, out=self)
        except TypeError:
            # x += y where the result's dtype is wider (f32 *= np.float64(2),
            # i32 += i64): NumPy casts back into x when the cast is
            # same_kind; vp ufuncs' out= does not cast, so the operator does
            r = uf(self, other)
            if not (isinstance(r, ndarray) and r.dtype != self.dtype and
                    np.can_cast(r.dtype, self.dtype, "same_kind")):
                raise
            self[...] = r.astype(self.dtype)
        return self

    return op, rop, iop


class ndarray:
    """A resident array: data in a Vulkan buffer, kept there across calls.

    Make one with vp.asarray, vp.empty/zeros/ones/full/arange/linspace or
    the *_like functions (not with ndarray(...) itself). Arithmetic
    operators and vp ufuncs on resident arrays return resident arrays;
    `out=` writes into an existing one. Reductions (a.sum(), a.max(axis=0)),
    basic and advanced indexing, reshape, .T, astype and copy are methods;
    .numpy() (or np.asarray(a)) copies the data back to the host.

        x = vp.asarray(np.arange(8, dtype=np.float32))
        y = vp.sin(x) * 2 + 1        # resident: no copy back yet
        y[2:4] = 0.0                 # index assignment on the GPU
        print(y.numpy(), float(y.sum()))

    Attributes: shape, dtype, ndim, size, nbytes, memory (the memory kind:
    'device', 'host', 'cached', ...), base (True for views), context.
    Dtypes: bool, int32, uint32, int64, uint64, float32, float64 (64-bit
    types where the device has them; bool is stored as 32-bit words),
    complex64, complex128 (arithmetic, abs, exp, .real/.imag, vp.fft).

    Errors: TypeError for a dtype the GPU cannot hold or operands of
    different kinds, ValueError for shapes that do not broadcast or an
    index out of range (IndexError), vp.FeatureError for a 64-bit dtype on
    a device without it, vp.OutOfMemoryError when the allocation fails.
    Operands must live on one vp.Context."""

    __slots__ = ("_buf", "_ctx", "shape", "dtype", "_sdtype", "_size", "_offset", "_estrides",
                 "_whole", "_mirror", "__weakref__")
    __array_priority__ = 100

    def __init__(self, buf, shape, dtype, ctx, offset=0, strides=None, whole=True):
        """Made by VulPy (vp.asarray, vp.empty, views), not by users: `buf`
        is the vulpy._vulpy.Buffer, `shape` and `dtype` NumPy's, `ctx` the
        vp.Context; a view starts at element `offset` of the buffer with
        element `strides` (None: C-contiguous), and `whole` says whether it
        may be all of its buffer."""
        self._buf, self._ctx, self.shape, self.dtype = buf, ctx, shape, dtype
        self._sdtype = storage_dtype(dtype)
        self._size = math.prod(shape)
        # a strided view (basic slicing, .T): first element and strides in
        # elements of the buffer; strides None = C-contiguous (_indexing.py)
        self._offset = offset
        self._estrides = strides
        # True when the array is all of its buffer (element 0 on, every
        # element): what a kernel can bind as it is. Views made by indexing
        # say False unless they cover the whole array (_indexing._view).
        self._whole = whole and offset == 0 and strides is None
        # (host-visible Buffer, ticket): a copy of the data the GPU made in
        # the submission that wrote it, valid while the buffer's last use is
        # still that ticket (_arrayops.Call._mirrored)
        self._mirror = None

    @property
    def contiguous(self):
        """True when the array is the C-contiguous start of its buffer."""
        return self._offset == 0 and self._estrides is None

    @property
    def strides(self):
        """Strides in bytes, as NumPy's."""
        return tuple(x * self._sdtype.itemsize for x in elem_strides(self))

    @property
    def base(self):
        """None for an array that is all of its buffer; views (a prefix
        x[:n] included) say so with True."""
        return None if self._whole else True

    @property
    def flags(self):
        """NumPy's memory-layout flags of the array, read-only:
        c_contiguous / f_contiguous (the elements one run of the buffer in
        C / Fortran order, at any offset), owndata (all of its buffer, not a
        view), writeable (False for a broadcast view), aligned; also by
        NumPy's keys, x.flags['C_CONTIGUOUS']."""
        return Flags(self)

    # ------------------------------------------------------------ attributes
    @property
    def size(self):
        """Number of elements."""
        return self._size

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def nbytes(self):
        """Bytes of the elements (bool counts 4 bytes an element, as stored)."""
        return self._size * self._sdtype.itemsize

    @property
    def itemsize(self):
        return self._sdtype.itemsize

    @property
    def memory(self):
        """The memory kind: 'device', 'host', 'cached' or 'rebar'."""
        return self._buf.kind

    @property
    def context(self):
        """The vp.Context the array lives on."""
        return self._ctx

    @property
    def device(self):
        """The array API's name for .context: the vp.Context the array lives
        on."""
        return self._ctx

    def __array_namespace__(self, /, *, api_version=None):
        """The array API's namespace of this array: the vulpy module
        (api_version None or one of the standard's revisions, 2021.12 to
        2024.12; else ValueError)."""
        if api_version not in (None, "2021.12", "2022.12", "2023.12", "2024.12"):
            raise ValueError(f"__array_namespace__: api_version={api_version!r} is not one "
                             f"VulPy follows (2021.12 to 2024.12)")
        return _ops

    def to_device(self, device, /, *, stream=None):
        """The array API's to_device: x.to(device), this array on vp.Context
        `device` (a context, or what context= accepts): the array itself
        when it is there already, else a copy through host memory. `stream`
        must be None (each context's queue orders its copies)."""
        if stream is not None:
            raise ValueError("vp.ndarray.to_device: stream must be None (each context's queue "
                             "orders its copies)")
        return self.to(device)

    @property
    def buffer(self):
        """The underlying vulpy._vulpy.Buffer."""
        return self._buf

    @property
    def mappable(self):
        """True when numpy_view() works (the memory is host-visible)."""
        return self._buf.mapped

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d array")
        return self.shape[0]

    # ------------------------------------------------------------- to NumPy
    def numpy_view(self):
        """An ndarray over the same bytes: its data pointer is the Vulkan
        buffer's persistent mapping, so what a dispatch writes shows in the
        view without another call. Needs host-visible memory ('host',
        'cached', 'rebar'; 'device' only on unified-memory devices)."""
        if not self._buf.mapped:
            raise ValueError(
                f"numpy_view() needs memory the CPU can map; this array is in "
                f"memory={self.memory!r} on {self._ctx.name}, which is not host-visible. "
                f"Allocate it with memory='host', 'cached' or 'rebar' (or use .numpy() "
                f"for a copy)")
        if self.dtype == _BOOL:
            raise TypeError("resident bool arrays are stored as uint32 words, so there is no "
                            "zero-copy bool view; use .numpy(), or .view_words() for the words")
        return self._mapped(self.dtype)

    def _mapped(self, dt):
        """numpy_view's ndarray of the stored elements as dtype `dt` (of
        the storage's itemsize): the view's own elements, at its offset and
        strides."""
        if self._size == 0:
            return np.empty(self.shape, dt)
        if not self.contiguous:
            whole = np.frombuffer(self._buf, dt, self._buf.size // self.itemsize)
            return _strided(whole, self)
        return np.frombuffer(self._buf, dt, self._size).reshape(self.shape)

    # ------------------------------------------------------ DLPack, contexts
    def __dlpack_device__(self):
        """(device_type, device_id) as DLPack numbers them: (1, 0) = kDLCPU for
        memory the host can read (the mapping is what __dlpack__ hands out);
        (7, device index) = kDLVulkan for device-only memory, which
        __dlpack__ cannot export."""
        if self._buf.mapped:
            return (1, 0)
        if exportable(self._buf):  # CUDA imports it (_cuda.py)
            from . import _cuda
            dev = _cuda.dlpack_device(self)
            if dev is not None:
                return dev
        return (7, self._ctx.index)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule (kDLCPU, zero copy) over the array's persistent
        mapping, for np.from_dlpack / torch.from_dlpack. The host waits for
        pending GPU writes first (a host read point, like numpy_view());
        later GPU writes are not ordered with the consumer: call __dlpack__
        again (or vp.synchronize) after them. The capsule keeps the array
        alive. Device-only memory raises BufferError naming the memory kind
        (copy=True exports a host copy instead)."""
        v1 = max_version is not None and tuple(max_version)[:1] >= (1,)
        cuda = dl_device is not None and tuple(dl_device)[:1] == (2,)  # kDLCUDA
        if not copy and (cuda or (dl_device is None and exportable(self._buf))):
            # CUDA import of exportable memory (vulpy/_cuda.py); `stream` is
            # any CUDA stream: __dlpack__ waits for all of VulPy's work first
            from . import _cuda
            return _cuda.dlpack(self, dl_device, v1, _dlpack_cuda)
        if stream is not None:
            raise ValueError(f"__dlpack__: stream must be None for host (kDLCPU) memory, "
                             f"got {stream!r}")
        if dl_device is not None and tuple(dl_device) != (1, 0):
            raise BufferError(f"__dlpack__: can only export to the CPU (kDLCPU, (1, 0)), "
                              f"not dl_device={tuple(dl_device)!r}")
        if copy:
            return _dlpack_of(self.numpy(), versioned=v1, copied=True)
        if not self._buf.mapped:
            raise BufferError(
                f"__dlpack__: this array is in memory={self.memory!r} on {self._ctx.name}, "
                f"which the host cannot map, so there is no zero-copy DLPack export; allocate "
                f"it with memory='host', 'cached' or 'rebar', or pass copy=True")
        if self.dtype == _BOOL:
            raise BufferError("__dlpack__: resident bool arrays are stored as uint32 words, "
                              "so there is no zero-copy bool export; use .astype(np.uint8) "
                              "or copy=True")
        v = self.numpy_view()  # the buffer protocol waits for the GPU's writes
        return _dlpack_of(v, owner=(self, v), versioned=v1)

    def to(self, context, memory=None):
        """A copy of the array on another vp.Context (through host memory);
        the array itself when `context` is its own and memory= is unchanged.

        Where both devices import host memory (VK_EXT_external_memory_host)
        and one of them is a discrete GPU, the copy is one GPU copy into
        page-aligned host pages imported into both contexts, then one GPU
        copy out of them on the other device (1 MiB and more); otherwise a
        download into NumPy and an upload."""
        ctx = _context.resolve(context)
        if ctx is self._ctx:
            return self if memory in (None, self.memory) else self.copy(memory)
        mem = check_memory(memory, ctx) if memory is not None else \
            (self.memory if self.memory in ("device", "host") else None)
        if (self.contiguous and self.dtype != _BOOL and self.nbytes >= _TO_PAGES_MIN and
                (self._ctx.kind in _TO_PAGES_KINDS or ctx.kind in _TO_PAGES_KINDS) and
                self._ctx.has("external_memory_host") and ctx.has("external_memory_host")):
            r = _to_through_pages(self, ctx, check_memory(mem, ctx))
            if r is not None:
                return r
        # numpy() reads VRAM mapped uncached (rebar on a dGPU) by DMA: reads
        # through the mapping cross PCIe one at a time (host_reads_fast)
        fast = host_reads_fast(self._buf) and self.dtype != _BOOL
        if fast:
            # an upload from x's own mapping (a copy): asarray would import
            # these pages for memory='host' and the result would alias x
            out = _result(self.shape, self.dtype, check_memory(mem, ctx), ctx)
            if self._size:
                ctx._upload(out._buf, np.ascontiguousarray(self.numpy_view()), False)
            return out
        return asarray(self.numpy(), self.dtype, memory=mem, context=ctx)

    def view_words(self):
        """numpy_view of the stored words (uint32 for bool arrays; a view's
        own words, as numpy_view's)."""
        if self.dtype != _BOOL:
            return self.numpy_view()
        if not self._buf.mapped:
            return self.numpy_view()  # its ValueError naming the memory kinds
        return self._mapped(_U32)

    def numpy(self):
        """A NumPy copy of the data (works for every memory kind). One copy:
        a memcpy from the mapping for host-visible memory, or through the
        staging ring; large copies are split over the context's copy
        threads (which also share the page faults of the new array)."""
        if not self.contiguous:
            out = np.array(_strided_download(self))
            return out.astype(np.bool_) if self.dtype == _BOOL else out
        out = np.empty(self.shape, self._sdtype)
        if self._size:
            self._download(out)
        return out.astype(np.bool_) if self.dtype == _BOOL else out

    def _download(self, out):
        """Copies the (contiguous) data into ndarray `out`: from the readback
        mirror while the GPU has not used the buffer since it made it (a wait
        for that submission and a memcpy), else from the buffer (for memory
        the host cannot map: a copy submission through the staging ring)."""
        m = self._mirror
        if m is not None:
            if self._buf.last_use == m[1]:
                m[0].download(out)
                return
            self._mirror = None
        self._buf.download(out)

    def get(self, out=None):
        """A NumPy copy of the data, into `out` when given (a C-contiguous,
        writable ndarray of the same shape and dtype: no allocation, so no
        page faults). CuPy's spelling."""
        if out is None:
            return self.numpy()
        if not isinstance(out, np.ndarray):
            raise TypeError(f"get: out= must be a NumPy array, not {type(out).__name__}")
        if out.shape != self.shape or out.dtype != self.dtype:
            raise ValueError(f"get: out= is {out.dtype.name}{list(out.shape)}, the array is "
                             f"{self.dtype.name}{list(self.shape)}")
        if not out.flags.c_contiguous or not out.flags.writeable:
            raise ValueError("get: out= must be C-contiguous and writable")
        if not self.contiguous or self.dtype == _BOOL:
            np.copyto(out, self.numpy())
        elif self._size:
            self._download(out)
        return out

    def __array__(self, dtype=None, copy=None):
        if copy is False and self._buf.mapped and self.dtype != _BOOL and self.contiguous:
            a = self.numpy_view()
        else:
            a = self.numpy()
        return a if dtype is None else a.astype(dtype, copy=False)

    def tolist(self):
        return self.numpy().tolist()

    def item(self):
        if self._size != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return self.numpy().reshape(()).item()

    def __bool__(self):
        if self._size != 1:
            raise ValueError("The truth value of an empty array is ambiguous. Use `array.size > 0` "
                             "to check that an array is not empty." if self._size == 0 else
                             "The truth value of an array with more than one element is "
                             "ambiguous. Use a.any() or a.all()")
        return bool(self.item())

    def __contains__(self, value):
        return bool(_ops._reduce.any(self == value))

    def __float__(self):
        return float(self.item())

    def __complex__(self):
        return complex(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        # NumPy's: a 0-d integer array is an index (range(x), lst[x], ...)
        if self.ndim != 0 or np.dtype(self.dtype).kind not in "iu":
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return int(self.item())

    # ------------------------------------------------------------- shape views
    def reshape(self, *shape, order="C", copy=None):
        """A view with another shape (one dimension may be -1); order= and
        copy= as vp.reshape's."""
        if order != "C" or copy is not None:
            if len(shape) == 1 and np.ndim(shape[0]):
                shape = shape[0]
            return _ops._shapeops.reshape(self, shape, order, copy=copy)
        if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
            shape = shape[0] if np.ndim(shape[0]) else (shape[0],)
        # operator.index: a float (2.9) is NumPy's TypeError, not int()'s 2
        shape = tuple(operator.index(s) for s in shape)
        if shape.count(-1) > 1:
            raise ValueError("only one dimension can be -1")
        if -1 in shape:
            rest = 1
            for s in shape:
                if s != -1:
                    rest *= s
            if rest == 0 or self._size % rest:
                raise ValueError(f"cannot reshape array of size {self._size} into shape {shape}")
            shape = tuple(self._size // rest if s == -1 else s for s in shape)
        n = math.prod(shape)
        if n != self._size or any(s < 0 for s in shape):
            raise ValueError(f"cannot reshape array of size {self._size} into shape {shape}")
        if self.contiguous:
            return view_of(self, ndarray(self._buf, shape, self.dtype, self._ctx,
                                         whole=self._whole))
        st = nocopy_strides(self.shape, elem_strides(self), shape) if self._size else None
        if st is None:  # the elements are no strided view of the buffer: NumPy copies too
            return self.copy().reshape(shape)
        # a view (x[2:4].reshape(-1), x.T.reshape(2, 2, 6)): writes reach x, as NumPy's
        return _ops._indexing.strided_view(self, shape, self._offset, st)

    def ravel(self, order="C"):
        """A 1-D view of the same buffer when the elements are one C-ordered
        run of it (at any offset), else a copy, as NumPy's; order= as
        vp.ravel's."""
        if order != "C":
            return _ops._shapeops.ravel(self, order)
        if not self.contiguous:
            if not c_contiguous(self):
                return self.copy().ravel()
            return _ops._indexing.strided_view(self, (self._size,), self._offset, (1,))
        return view_of(self, ndarray(self._buf, (self._size,), self.dtype, self._ctx,
                                     whole=self._whole))

    def flatten(self, order="C"):
        """A 1-D copy (order= as vp.ravel's)."""
        r = self.ravel(order)
        return r.copy() if r._buf is self._buf else r

    # ------------------------------------------------------------- copies
    def copy(self, memory=None):
        """A new resident array with the same data (on the GPU)."""
        if not self.contiguous:
            c = _ops._arrayops.materialize(self)
            return c if memory in (None, c.memory) else c.copy(memory)
        out = _result(self.shape, self.dtype, check_memory(memory or self.memory), self._ctx)
        if self._size:
            out._buf.copy_from(self._buf, 0, 0, self.nbytes)
        return out

    def astype(self, dtype, memory=None, *, copy=True):
        """A converted copy (on the GPU) as `dtype`, in `memory` (default:
        this array's kind); copy=False returns the array itself when dtype
        and memory are already its own (NumPy's copy=)."""
        dt = check_dtype(dtype)
        if dt == self.dtype:
            if not copy and memory in (None, self.memory):
                return self
            return self.copy(memory)
        if dt.kind == "c" or self.dtype.kind == "c":  # issue 19 (_complex.py)
            return _ops._complex.astype(self, dt, memory)
        if not self.contiguous:
            return _ops._arrayops.astype(self, dt, memory)
        out = empty(self.shape, dt, memory=memory or self.memory, context=self._ctx)
        return _ops._ufunc.cast(self, out)

    def view(self, dtype=None, type=None):  # noqa: A002 (NumPy's name)
        """NumPy's ndarray.view: the same buffer seen as `dtype` (its bytes
        reinterpreted, no copy: writes through either show in both), or with
        dtype None a new array object over the same data. Another item size
        rescales the last axis, which must then be contiguous (NumPy's
        rule); a view whose byte offset or other strides are not whole
        elements of the new dtype is a ValueError.

        Errors: TypeError for bool to or from another dtype (a bool is a
        32-bit word on the device, not NumPy's byte) and for type= other
        than vp.ndarray; ValueError as NumPy for a last axis that does not
        divide into the new item size, or a 0-d array changing item size.

        Example:
            bits = vp.asarray(np.float32([1.0, -2.0])).view(np.uint32)"""
        if type is not None and type is not ndarray:
            raise TypeError(f"view: type= must be vp.ndarray (a resident array), got {type!r}")
        dt = self.dtype if dtype is None else check_dtype(dtype, "view")
        if (dt == _BOOL) != (self.dtype == _BOOL):
            raise TypeError(f"view: a bool array is 32-bit words on the device, not NumPy's "
                            f"bytes, so it cannot be seen as {dt.name if dt != _BOOL else 'bool'}"
                            f" (from {self.dtype.name}); use astype")
        _ops._graph.require_features(self._ctx, (dt,), "view")
        old, new = self._sdtype.itemsize, storage_dtype(dt).itemsize
        shape, st, off = tuple(self.shape), elem_strides(self), self._offset
        if old != new:
            if not shape:
                raise ValueError("Changing the dtype of a 0d array is only supported if the "
                                 "itemsize is unchanged")
            if shape[-1] != 1 and st[-1] != 1:
                raise ValueError("To change to a dtype of a different size, the last axis "
                                 "must be contiguous")
            if (shape[-1] * old) % new:
                raise ValueError("When changing to a larger dtype, its size must be a divisor "
                                 "of the total size in bytes of the last axis of the array.")
            if (off * old) % new or any((s * old) % new for s in st[:-1]):
                raise ValueError(f"view: the byte offset or strides of this view are not "
                                 f"whole {dt.name} elements; view a contiguous copy")
            shape = shape[:-1] + (shape[-1] * old // new,)
            st = [s * old // new for s in st[:-1]] + [1]
            off = off * old // new
        cs = list(c_strides(shape))
        strides = None if all(s == c or d == 1 for s, c, d in zip(st, cs, shape)) else tuple(st)
        v = ndarray(self._buf, shape, dt, self._ctx, off, strides, self._whole)
        return view_of(self, v)

    def fill(self, value):
        """Sets every element to `value`."""
        check_writable(self, "fill")
        value = _ops._indexing.checked_scalar(value, self.dtype)
        if not self._whole:  # a view (a prefix x[:n] too: the buffer fill rounds up to 16 bytes)
            _ops._arrayops.fill(self, value)
            return
        _fill(self, value)

    def set(self, array):
        """Copies a NumPy array of the same shape in (CuPy's spelling)."""
        a = np.asarray(array)
        if a.shape != self.shape:
            raise ValueError(f"set: shape {a.shape} does not match the array's {self.shape}")
        no_complex_drop(a.dtype, self.dtype, "set")
        if not self.contiguous:
            _ops._arrayops.assign(self, a)
            return
        c = np.ascontiguousarray(a, dtype=self._sdtype)
        if self._size:
            self._ctx._upload(self._buf, c, c is array)

    # ---------------------------------------------------------- printing, pickling
    def __repr__(self):
        # NumPy's layout (numpy's _array_repr_implementation): the values, then
        # the note on the last line, or on a line of its own when it would pass
        # the line width. The shape stays in the note: '...' hides it.
        prefix = "vp.ndarray("
        note = f"shape={self.shape}, dtype={self.dtype.name}, memory={self.memory!r})"
        if self._size == 0:
            return f"{prefix}[], {note}"
        body = np.array2string(self.numpy(), separator=", ", prefix=prefix, suffix=",")
        # continuation lines carry the prefix's indent already; the first does not
        last = len(body.rsplit("\n", 1)[-1]) + (0 if "\n" in body else len(prefix))
        if last + 2 + len(note) > np.get_printoptions()["linewidth"]:
            return f"{prefix}{body},\n{' ' * len(prefix)}{note}"
        return f"{prefix}{body}, {note}"

    def __str__(self):
        """The values as NumPy prints them (a download; '...' past NumPy's
        print threshold)."""
        return str(self.numpy())

    def __format__(self, spec):
        if self.shape == () or (spec and self._size == 1 and self.ndim == 0):
            return format(self.item(), spec)
        if not spec:
            return str(self)
        raise TypeError(f"unsupported format string {spec!r} for a vp.ndarray of shape "
                        f"{self.shape}: only 0-d arrays take a format spec (as NumPy)")

    def __reduce__(self):
        """Pickle as a NumPy copy of the values plus dtype and memory kind;
        unpickling uploads it again (to the default context)."""
        return (_rebuild, (self.numpy(), self.dtype, self.memory))

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def __buffer__(self, flags):
        """The buffer protocol (Python 3.12+: memoryview(x)): the persistent
        mapping of a host-visible array, no copy; ValueError naming the memory
        kind otherwise (numpy_view's)."""
        return memoryview(self.numpy_view())

    # ------------------------------------------------------------ operators
    # The operators and the methods below are the op layer's functions
    # (vp.add, vp.sum, indexing, ...), reached through `_ops` (see bind_ops):
    # x + y is vp.add(x, y), x += y is vp.add(x, y, out=x), x.sum(0) is
    # vp.sum(x, 0).
    __add__, __radd__, __iadd__ = _binary("add")
    __sub__, __rsub__, __isub__ = _binary("subtract")
    __mul__, __rmul__, __imul__ = _binary("multiply")
    __truediv__, __rtruediv__, __itruediv__ = _binary("divide")
    __floordiv__, __rfloordiv__, __ifloordiv__ = _binary("floor_divide")
    __mod__, __rmod__, __imod__ = _binary("remainder")
    __pow__, __rpow__, __ipow__ = _binary("power")
    __and__, __rand__, __iand__ = _binary("bitwise_and")
    __or__, __ror__, __ior__ = _binary("bitwise_or")
    __xor__, __rxor__, __ixor__ = _binary("bitwise_xor")
    __lshift__, __rlshift__, __ilshift__ = _binary("left_shift")
    __rshift__, __rrshift__, __irshift__ = _binary("right_shift")

    def __divmod__(self, other):
        return _ops._ufunc.floor_divide(self, other), _ops._ufunc.remainder(self, other)

    def __rdivmod__(self, other):
        return _ops._ufunc.floor_divide(other, self), _ops._ufunc.remainder(other, self)

    __lt__ = _binary("less")[0]
    __le__ = _binary("less_equal")[0]
    __gt__ = _binary("greater")[0]
    __ge__ = _binary("greater_equal")[0]
    __eq__ = _binary("equal")[0]
    __ne__ = _binary("not_equal")[0]
    __hash__ = None

    def __neg__(self):
        return _ops._ufunc.negative(self)

    def __pos__(self):
        return _ops._ufunc.positive(self)  # a copy; bool is NumPy's TypeError

    def __abs__(self):
        return _ops._ufunc.absolute(self)

    def __invert__(self):
        return _ops._ufunc.invert(self)

    def __matmul__(self, other):
        return _ops._matmul.matmul_op(self, other)

    def __rmatmul__(self, other):
        return _ops._matmul.rmatmul_op(self, other)

    def __imatmul__(self, other):
        return _ops._matmul.imatmul_op(self, other)

    # ------------------------------------------------------------ NumPy protocols
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """NumPy ufuncs on resident arrays run on the GPU when VulPy has them
        (np.sin(x) is vp.sin(x)); any other raises TypeError naming the ufunc
        (_npfunc), never a silent download."""
        if ufunc.nout == 2:  # np.divmod, np.modf: out= is a pair
            f = _npfunc.ufunc_two_out(ufunc.__name__)
            if method != "__call__" or f is None or set(kwargs) - {"out"}:
                return _npfunc.ufunc_unhandled(ufunc, method, inputs, kwargs)
            return f(*inputs, out=kwargs.get("out"))
        f = _npfunc.ufunc(ufunc.__name__)
        if method in ("reduce", "accumulate", "reduceat", "outer", "at") and f is not None and \
                hasattr(f, method):
            out = kwargs.get("out")
            if isinstance(out, tuple):
                kwargs["out"] = out[0] if len(out) == 1 else out
            try:
                return getattr(f, method)(*inputs, **kwargs)
            except NotImplementedError:
                return _npfunc.ufunc_unhandled(ufunc, method, inputs, kwargs)
        known = {"out", "where", "dtype", "casting"} if hasattr(f, "_dtype_where") else {"out"}
        known |= getattr(f, "_ufunc_kwargs", frozenset())
        if method != "__call__" or f is None or set(kwargs) - known:
            return _npfunc.ufunc_unhandled(ufunc, method, inputs, kwargs)
        out = kwargs.pop("out", None)
        if isinstance(out, tuple):
            if len(out) != 1:
                return NotImplemented
            out = out[0]
        return f(*inputs, out=out, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        """np.<function>(x) runs on the device (vp.<function>) or raises a
        TypeError naming it, never a silent download (_npfunc)."""
        return _npfunc.array_function(func, types, args, kwargs)

    # ------------------------------------------------------------ indexing
    def __getitem__(self, key):
        """Basic indexing (ints, slices, None, ...) gives a view; integer
        arrays and boolean masks gather into a new array (vulpy/_indexing.py)."""
        return _ops._indexing.getitem(self, key)

    def __setitem__(self, key, value):
        """x[key] = value on the GPU (a scalar, a NumPy or resident array)."""
        _ops._indexing.setitem(self, key, value)

    def take(self, indices, axis=None, out=None, mode="raise"):
        """vp.take(self, indices, axis, out, mode)."""
        return _ops._indexing.take(self, indices, axis, out, mode)

    def transpose(self, *axes):
        """A transposed view: x.transpose(), x.transpose(1, 0) or
        x.transpose((1, 0))."""
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            return _ops._indexing.transpose(self, axes[0])
        return _ops._indexing.transpose(self, axes if axes and axes[0] is not None else None)

    @property
    def T(self):
        """The transposed view (axes reversed)."""
        return _ops._indexing.transpose(self)

    def swapaxes(self, axis1, axis2):
        """vp.swapaxes(self, axis1, axis2): a view."""
        return _ops._shapeops.swapaxes(self, axis1, axis2)

    def squeeze(self, axis=None):
        """vp.squeeze(self, axis): a view without the length-1 axes."""
        return _ops._shapeops.squeeze(self, axis)

    def repeat(self, repeats, axis=None):
        """vp.repeat(self, repeats, axis)."""
        return _ops._shapeops.repeat(self, repeats, axis)

    def clip(self, min=None, max=None, out=None):  # noqa: A002 (NumPy's names)
        """vp.clip(self, min, max, out=out) (one bound may be None)."""
        return _ops._ufunc.clip(self, min, max, out=out)

    def compress(self, condition, axis=None, out=None):
        """vp.compress(condition, self, axis, out)."""
        return _ops._morefuncs.compress(condition, self, axis, out)

    def diagonal(self, offset=0, axis1=0, axis2=1):
        """vp.diagonal(self, offset, axis1, axis2): a view."""
        return _ops._numeric.diagonal(self, offset, axis1, axis2)

    def trace(self, offset=0, axis1=0, axis2=1, dtype=None, out=None):
        """vp.trace(self, offset, axis1, axis2, dtype, out)."""
        return _ops._numeric.trace(self, offset, axis1, axis2, dtype, out)

    def put(self, indices, values, mode="raise"):
        """vp.put(self, indices, values, mode): in place, None."""
        _ops._morefuncs.put(self, indices, values, mode)

    def choose(self, choices, out=None, mode="raise"):
        """vp.choose(self, choices, out, mode): self holds the indices."""
        return _ops._numpyfuncs.choose(self, choices, out, mode)

    @property
    def flat(self):
        """NumPy's flat iterator: x.flat[k] reads and x.flat[k] = v writes
        the elements in C order (k an int, a slice, an integer or bool
        array), through to x (views included); iterating downloads the
        values once."""
        return _Flat(self)

    @property
    def mT(self):  # noqa: N802 (NumPy's name)
        """The transpose of the last two axes (vp.matrix_transpose): a view."""
        return _ops._morefuncs.matrix_transpose(self)

    def byteswap(self, inplace=False):
        """ndarray.byteswap on the device: each element's bytes reversed
        (a uint8 view, reversed, viewed back); in place with inplace=True.
        bool arrays are 32-bit words on the device: TypeError."""
        if self.dtype == _BOOL:
            raise TypeError("byteswap: a bool array is 32-bit words on the device, not "
                            "NumPy's bytes")
        k = self.dtype.itemsize
        src = self if self.contiguous else self.copy()
        if self.dtype.kind == "c" and self._size:  # each part on its own, as NumPy's
            part = np.dtype(f"f{k // 2}")
            r = src.view(part).byteswap().view(self.dtype)
            if inplace:
                self[...] = r
                return self
            return r
        if k == 1 or self._size == 0:
            r = src.copy()
        else:
            parts = src.view(np.uint8).reshape(tuple(self.shape) + (k,))
            r = parts[..., ::-1].copy().reshape(tuple(self.shape[:-1]) +
                                                 ((self.shape[-1] * k,) if self.shape else
                                                  (k,))).view(self.dtype)
            r = r.reshape(self.shape)
        if inplace:
            self[...] = r
            return self
        return r

    def tobytes(self, order="C"):
        """The elements' bytes, as ndarray.tobytes (a download)."""
        return self.numpy().tobytes(order)

    def tofile(self, fid, sep="", format="%s"):  # noqa: A002 (NumPy's names)
        """ndarray.tofile of the downloaded values."""
        self.numpy().tofile(fid, sep, format)

    def dumps(self):
        """A pickle of the array (ndarray.dumps; pickle.loads gives it back,
        uploaded to the default context)."""
        import pickle
        return pickle.dumps(self)

    def dump(self, file):
        """Pickles the array into file (a path or a writable binary file)."""
        import pickle
        if isinstance(file, (str, bytes)) or hasattr(file, "__fspath__"):
            with open(file, "wb") as f:
                pickle.dump(self, f)
        else:
            pickle.dump(self, file)

    # ------------------------------------------------------------ reductions
    def sum(self, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
        """vp.sum(self, axis, dtype, out, keepdims, initial, where)."""
        return _ops._reduce.sum(self, axis, dtype, out, keepdims, initial, where)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=True):
        """vp.prod(self, axis, dtype, out, keepdims, initial, where)."""
        return _ops._reduce.prod(self, axis, dtype, out, keepdims, initial, where)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
        """vp.mean(self, axis, dtype, out, keepdims, where=where)."""
        return _ops._reduce.mean(self, axis, dtype, out, keepdims, where=where)

    def min(self, axis=None, out=None, keepdims=False, initial=None, where=True):
        """The smallest element (along `axis`): numpy.ndarray.min."""
        return _ops._reduce.amin(self, axis, out, keepdims, initial, where)

    def max(self, axis=None, out=None, keepdims=False, initial=None, where=True):
        """The largest element (along `axis`): numpy.ndarray.max."""
        return _ops._reduce.amax(self, axis, out, keepdims, initial, where)

    def argmin(self, axis=None, out=None, *, keepdims=False):
        """vp.argmin(self, axis, out, keepdims=...)."""
        return _ops._reduce.argmin(self, axis, out, keepdims=keepdims)

    def argmax(self, axis=None, out=None, *, keepdims=False):
        """vp.argmax(self, axis, out, keepdims=...)."""
        return _ops._reduce.argmax(self, axis, out, keepdims=keepdims)

    def any(self, axis=None, out=None, keepdims=False, *, where=True):
        """vp.any(self, axis, out, keepdims, where=where)."""
        return _ops._reduce.any(self, axis, out, keepdims, where=where)

    def all(self, axis=None, out=None, keepdims=False, *, where=True):
        """vp.all(self, axis, out, keepdims, where=where)."""
        return _ops._reduce.all(self, axis, out, keepdims, where=where)

    def cumsum(self, axis=None, dtype=None, out=None):
        """vp.cumsum(self, axis, dtype, out)."""
        return _ops._reduce.cumsum(self, axis, dtype, out)

    def cumprod(self, axis=None, dtype=None, out=None):
        """vp.cumprod(self, axis, dtype, out)."""
        return _ops._reduce.cumprod(self, axis, dtype, out)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
            mean=None, correction=None):
        """vp.var(self, axis, dtype, out, ddof, keepdims, where=where, mean=mean,
        correction=correction)."""
        return _ops._reduce.var(self, axis, dtype, out, ddof, keepdims, where=where, mean=mean,
                                correction=correction)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
            mean=None, correction=None):
        """vp.std(self, axis, dtype, out, ddof, keepdims, where=where, mean=mean,
        correction=correction)."""
        return _ops._reduce.std(self, axis, dtype, out, ddof, keepdims, where=where, mean=mean,
                                correction=correction)

    def ptp(self, axis=None, out=None, keepdims=False):
        """vp.ptp(self, axis, out, keepdims): max - min."""
        return _ops._stats.ptp(self, axis, out, keepdims)

    def nonzero(self):
        """vp.nonzero(self): a tuple of index arrays, one per dimension."""
        return _ops._stats.nonzero(self)

    def round(self, decimals=0, out=None):
        """vp.around(self, decimals, out)."""
        return _ops._ufunc.around(self, decimals, out)

    def dot(self, b, out=None):
        """vp.dot(self, b, out)."""
        return _ops._matmul.dot(self, b, out)

    def partition(self, kth, axis=-1, kind="introselect", order=None):
        """In place, as ndarray.partition: the kth element(s) where a sort
        would put them, smaller ones before (vp.partition, written back)."""
        check_writable(self, "partition")
        self[...] = _ops._sort.partition(self, kth, axis, kind, order)

    def argpartition(self, kth, axis=-1, kind="introselect", order=None):
        """vp.argpartition(self, kth, axis, kind, order)."""
        return _ops._sort.argpartition(self, kth, axis, kind, order)

    def searchsorted(self, v, side="left", sorter=None):
        """vp.searchsorted(self, v, side, sorter): self is the sorted array."""
        return _ops._sort.searchsorted(self, v, side, sorter)

    def sort(self, axis=-1, kind=None, order=None, *, stable=None):
        """Sorts in place along `axis` (stable; see vp.sort)."""
        _ops._sort.sort_in_place(self, axis, kind, order, stable=stable)

    def argsort(self, axis=-1, kind=None, order=None, *, stable=None):
        """vp.argsort(self, axis)."""
        return _ops._sort.argsort(self, axis, kind, order, stable=stable)

    # ------------------------------------------------------------ complex parts
    @property
    def real(self):
        """The real part (a view for complex arrays)."""
        return _ops._complex.real(self)

    @real.setter
    def real(self, value):
        _ops._complex.set_real(self, value)

    @property
    def imag(self):
        """The imaginary part (a view for complex arrays; zeros for real ones)."""
        return _ops._complex.imag(self)

    @imag.setter
    def imag(self, value):
        _ops._complex.set_imag(self, value)

    def conj(self):
        """vp.conjugate(self): the complex conjugate (a copy of the same dtype
        for real arrays, bool included, as ndarray.conj)."""
        return _ops._complex.conjugate(self) if self.dtype.kind == "c" else self.copy()

    conjugate = conj


def elem_strides(a):
    """The element strides of resident view `a` (C order when it has none
    of its own), as a list."""
    return list(a._estrides) if a._estrides is not None else list(c_strides(a.shape))


def nocopy_strides(shape, strides, newshape):
    """Element strides that show the elements of a (shape, strides) view in
    C order as `newshape`, or None when no strides can (then reshape copies).
    NumPy's _attempt_nocopy_reshape: each run of old axes that multiplies to
    a run of new axes must be contiguous within itself."""
    old = [(d, s) for d, s in zip(shape, strides) if d != 1]
    new = list(newshape)
    out = [1] * len(new)
    oi = ni = 0
    while ni < len(new) and oi < len(old):
        oj, nj = oi + 1, ni + 1
        np_, op = new[ni], old[oi][0]
        while np_ != op:
            if np_ < op:
                np_ *= new[nj]
                nj += 1
            else:
                op *= old[oj][0]
                oj += 1
        if any(old[k][1] != old[k + 1][0] * old[k + 1][1] for k in range(oi, oj - 1)):
            return None
        out[nj - 1] = old[oj - 1][1]
        for k in range(nj - 1, ni, -1):
            out[k - 1] = out[k] * new[k]
        ni, oi = nj, oj
    for k in range(ni, len(new)):  # trailing length-1 axes
        out[k] = out[ni - 1] if ni else 1
    return out


def c_contiguous(a):
    """True when the elements of view `a` are one C-ordered run of its
    buffer (at any offset)."""
    if a._estrides is None:
        return True
    return all(s == c or d == 1 for s, c, d in zip(a._estrides, c_strides(a.shape), a.shape))


def span(a):
    """(first, last) byte of a's buffer that the view `a` reaches, or None
    for an empty array."""
    if a._size == 0:
        return None
    lo = hi = a._offset
    if a._estrides is None:
        hi += a._size - 1
    else:
        for d, s in zip(a.shape, a._estrides):
            if s > 0:
                hi += (d - 1) * s
            else:
                lo += (d - 1) * s
    isz = a._sdtype.itemsize
    return lo * isz, (hi + 1) * isz - 1


def run_view(a):
    """(offset, step) when resident view `a`'s elements in C order are
    elements offset + i * step of its buffer (any 1-D view; an N-d one
    whose axes collapse into one: rows a[2:5], a[::2] of a C-contiguous
    array), else None. One kernel serves every such view (_array_vir's
    'v'): no compile per length or offset."""
    if a._estrides is None:
        return a._offset, 1
    step = span = None
    for d, st in zip(reversed(a.shape), reversed(a._estrides)):
        if d == 1:
            continue
        if step is None:
            step = st
        elif st != span:
            return None
        span = st * d
    if step is None:
        step = 1
    if not -2**31 <= step < 2**31 or a._offset >= 2**32:
        return None
    return a._offset, step


# A run-time view with divisors (a broadcast as a block, two axis terms)
# divides per element, and a CPU device (lavapipe) divides one lane at a
# time: past this extent the array path's kernel of constant shapes (a
# compile per shape, ~15 ms there) is the cheaper one (1024 x 1024 float32
# x - m: 9.2 ms against 4.2; bench/notes/python.md). GPUs divide by a
# uniform value at no visible cost (an H100's 4096 x 4096 x - m: 0.252 ms
# against the constant-shape kernel's 0.30). The ufuncs and run_store
# (_arrayops) both keep to it.
CPU_VIEW_MAX = 1 << 18
# Past SEGMENTS_MAX elements, reductions over axes other than the last,
# scans (_reduce._segments) and, on a GPU, row gathers
# (_indexing._gather_rows) take the static kernels of the shape (one
# compile per shape): there a line's constant trip count wins (an H100,
# sum(axis=0) of 1024 x 16384 float32: 0.091 ms static, 0.156 in segments;
# lavapipe 58 against 78-85 ms). Rows keep the segments at every size:
# they were faster (an H100: sum(axis=1) of 4096^2 0.058 against 0.077,
# 65535 x 256 0.116 against 0.125; lavapipe 65535 x 256 29-41 against 940
# ms; bench/notes/python.md).
SEGMENTS_MAX = 1 << 20


def view_code(a, oshape):
    """(code, push values) of resident `a` read (or written) as an operand
    of shape oshape, broadcast where its shape differs: output element i
    reads buffer element off + sum over axis terms of ((i / div) % mod) *
    step, at most two terms after axes that are contiguous with each other
    are merged (x[1:] and a[2:5] one term, x[1:-1, 2:] and x.T two; a row
    broadcast x - x.mean(axis=0) one with div 1, a column x / s of s
    (n, 1) one with no mod). code: 'v' (one term, step 1), 'w' (one term),
    'R', 'C', 'r' (one term: div 1 / no mod / both), 'm' and two of 'RCr'
    (two terms, the outer first). None when it takes more terms (the
    array path's static shapes)."""
    nd = len(oshape)
    if a.ndim > nd or a._offset >= 2**32:
        return None
    est = elem_strides(a)
    pad = nd - a.ndim
    terms, div, adj = [], 1, False  # terms [step, div, mod], inner first
    for ax in range(nd - 1, -1, -1):
        od = oshape[ax]
        if od == 1:
            continue
        st = est[ax - pad] if ax >= pad and a.shape[ax - pad] == od else 0
        if st == 0:
            adj = False
        elif adj and st == terms[-1][0] * terms[-1][2]:
            terms[-1][2] *= od  # contiguous with the axis inside it
        else:
            if len(terms) == 2:
                return None
            terms.append([st, div, od])
            adj = True
        div *= od
    if not terms:  # every axis broadcast: one element, read everywhere
        terms = [[0 if div > 1 else 1, 1, div]]  # (one element in all: step 1)
    vals = {}
    codes = ""
    for j, (st, d, m) in enumerate(reversed(terms)):
        if not -2**31 <= st < 2**31:
            return None
        lead = d * m == div  # the term reaches the outermost axis: i / d < m
        c = ("w" if lead else "R") if d == 1 else ("C" if lead else "r")
        codes += c
        sfx = "x" if j else ""
        vals[f"t{sfx}"] = st & 0xFFFFFFFF
        if c in "Cr":
            vals[f"d{sfx}"] = d
        if c in "Rr":
            vals[f"m{sfx}"] = m
    if codes == "w" and terms[0][0] == 1:
        codes, vals = "v", {}
    code = codes if len(codes) == 1 else "m" + codes
    vals["o"] = a._offset
    return code, vals


def put_view(values, k, vals):
    """view_code's push values of operand k (`o`: the output) into values."""
    for name, v in vals.items():
        values[name[0] + k + name[1:]] = v


def _same_view(a, b):
    if a.shape != b.shape or a._offset != b._offset or a._sdtype != b._sdtype:
        return False
    if a._estrides == b._estrides:
        return True
    return all(x == y or d == 1 for x, y, d in zip(elem_strides(a), elem_strides(b), a.shape))


def overlaps(a, b):
    """True when resident arrays a and b reach common bytes of one buffer
    (by byte range: interleaved views count as overlapping)."""
    if type(a) is not ndarray or type(b) is not ndarray or a._buf is not b._buf:
        return False
    ra, rb = span(a), span(b)
    return ra is not None and rb is not None and ra[0] <= rb[1] and rb[0] <= ra[1]


def write_hazard(out, a):
    """True when an elementwise write of `out` that reads `a` may read an
    element the write has already changed: the same buffer, overlapping
    bytes, and not the very same view (element i read, element i written,
    which is safe). NumPy's rule is then to compute as if `a` had been
    copied first; the callers copy it. A write into a broadcast view (a
    zero stride over a length > 1: element i written by several
    invocations) is never safe: one invocation may read what another
    already wrote (vp.add(b, 1, out=b) of b = vp.broadcast_to(x, (3, 4))
    added 1 to 3 at random)."""
    return overlaps(out, a) and (_repeats(out) or not _same_view(out, a))


def _repeats(a):
    """True when view `a` reaches some element more than once (stride 0).
    An empty view reaches none (a complex array of shape (3, 0) had its
    component views refused as broadcast ones)."""
    return (a._estrides is not None and 0 not in a.shape
            and any(s == 0 and d > 1 for d, s in zip(a.shape, a._estrides)))


# Arrays NumPy calls read-only although no stride of theirs is zero: a view
# of a vp.broadcast_to view (b[0] of b = vp.broadcast_to(x, (16, 4)) is x's
# elements, once each) and broadcast_to's own result when it repeats nothing
# (shape (1, 4)). id -> weakref; an entry goes when its array does (the
# callback runs before the id can be reused).
_READONLY = {}  # id -> (weakref, (what the array is, what to write into instead))
_BROADCAST = ("a broadcast view or a view of one", "a copy or into the array it broadcasts")


def mark_readonly(a, why=_BROADCAST):
    """Marks resident array `a` read-only (check_writable refuses writes);
    `why` is (what it is, what to write into instead), for the error."""
    k = id(a)
    _READONLY[k] = (weakref.ref(a, lambda _r, k=k: _READONLY.pop(k, None)), why)
    return a


def readonly(a):
    """True when writes into `a` raise: a zero stride over a length > 1, or
    a view of a broadcast view (mark_readonly)."""
    return _repeats(a) or (bool(_READONLY) and id(a) in _READONLY)


class Flags:
    """ndarray.flags: NumPy's memory-layout flags of a resident array (a
    snapshot, read-only: setting them is NumPy's business for host memory)."""

    _KEYS = {"C_CONTIGUOUS": "c_contiguous", "C": "c_contiguous", "CONTIGUOUS": "c_contiguous",
             "F_CONTIGUOUS": "f_contiguous", "F": "f_contiguous", "FORTRAN": "f_contiguous",
             "OWNDATA": "owndata", "O": "owndata", "WRITEABLE": "writeable", "W": "writeable",
             "ALIGNED": "aligned", "A": "aligned", "WRITEBACKIFCOPY": "writebackifcopy",
             "X": "writebackifcopy"}

    def __init__(self, a):
        shape, st = a.shape, elem_strides(a)
        f = 1
        fc = True
        for d, x in zip(shape, st):
            if d != 1 and x != f:
                fc = False
            f *= d
        empty = a._size == 0
        self.c_contiguous = empty or c_contiguous(a)
        self.f_contiguous = empty or fc
        self.owndata = bool(a._whole)
        self.writeable = not readonly(a)
        self.aligned = True
        self.writebackifcopy = False

    @property
    def forc(self):
        return self.c_contiguous or self.f_contiguous

    @property
    def fnc(self):
        return self.f_contiguous and not self.c_contiguous

    def __getitem__(self, key):
        try:
            return getattr(self, self._KEYS[str(key).upper()])
        except KeyError:
            raise KeyError(f"Unknown flag {key!r}") from None

    def __repr__(self):
        return "\n".join(f"  {k} : {getattr(self, v)}" for k, v in (
            ("C_CONTIGUOUS", "c_contiguous"), ("F_CONTIGUOUS", "f_contiguous"),
            ("OWNDATA", "owndata"), ("WRITEABLE", "writeable"), ("ALIGNED", "aligned"),
            ("WRITEBACKIFCOPY", "writebackifcopy")))


def exportable(buf):
    """Whether a buffer is CUDA-importable memory (_cuda.exportable)."""
    from . import _cuda
    return _cuda.exportable(buf)


class _Flat:
    """ndarray.flat: C-order element positions, through a's own indexing."""

    __slots__ = ("base",)

    def __init__(self, a):
        self.base = a

    def _where(self, key):
        a = self.base
        pos = np.arange(a._size)[key.numpy() if isinstance(key, ndarray) else key]
        return np.unravel_index(pos, a.shape) if a.ndim else (), np.ndim(pos)

    def __len__(self):
        return self.base._size

    def __iter__(self):
        return iter(self.base.numpy().ravel().tolist())

    def __getitem__(self, key):
        a = self.base
        if a.contiguous:
            return a.reshape(-1)[key]
        idx, nd = self._where(key)
        r = a[idx] if a.ndim else a
        return r

    def __setitem__(self, key, value):
        a = self.base
        check_writable(a, "flat")
        if a.contiguous:
            a.reshape(-1)[key] = value
            return
        idx, nd = self._where(key)
        if a.ndim:
            n = int(np.prod(np.shape(idx[0])))
            v = value.numpy() if isinstance(value, ndarray) else np.asarray(value)
            a[idx] = np.resize(v, n) if v.size not in (1, n) else v.reshape(-1) if v.size == n \
                else v.reshape(())
        else:
            a[...] = value

    def copy(self):
        """A flattened copy, as numpy's flatiter.copy()."""
        return self.base.flatten()


def view_of(a, v):
    """`v`, a view of `a`, read-only when `a` is."""
    if not readonly(a):
        return v
    return mark_readonly(v, _READONLY[id(a)][1] if id(a) in _READONLY else _BROADCAST)


def check_writable(a, where):
    """Raises NumPy's ValueError for a write into a view that reaches some
    element more than once (vp.broadcast_to's stride 0 over a length > 1):
    its elements would be written by several invocations in no set order
    (b[...] = y of b = vp.broadcast_to(x, (3, 4)) left x holding whichever
    row of y was written last: y's last row on lavapipe, no defined row on
    a GPU). NumPy's broadcast_to views are read-only and raise the same."""
    why = _READONLY[id(a)][1] if _READONLY and id(a) in _READONLY else None
    if _repeats(a) and why in (None, _BROADCAST):
        raise ValueError(f"{where}: the destination is read-only (a broadcast view, shape "
                         f"{tuple(a.shape)} with a zero stride); write into a copy or into the "
                         f"array it broadcasts")
    if why is not None:
        raise ValueError(f"{where}: the destination is read-only ({why[0]}); write into {why[1]}")


def unalias(args, outs):
    """`args` with each resident input that write_hazard says overlaps one
    of `outs` replaced by a copy (the tuple itself when none does)."""
    res = None
    for k, a in enumerate(args):
        if type(a) is not ndarray:
            continue
        for o in outs:
            if type(o) is ndarray and o._buf is a._buf and write_hazard(o, a):
                if res is None:
                    res = list(args)
                res[k] = a.copy()
                break
    return args if res is None else tuple(res)


def _strided_download(a):
    """The view `a` as a NumPy view of a download of only the elements it
    reaches (x[n - 1:] of a big device-local array reads one element, not
    the whole buffer: that read was most of the 2.4 s of a[mask] at 2^26)."""
    if a._size == 0:
        return np.empty(a.shape, a._sdtype)
    lo, hi = span(a)
    part = np.empty((hi + 1 - lo) // a._sdtype.itemsize, a._sdtype)
    a._buf.download(part, lo)
    return _strided(part, a, lo // a._sdtype.itemsize)


def _strided(elems, a, first=0):
    """The view `a` over the NumPy array `elems` of its buffer's elements
    from element `first` on."""
    return np.lib.stride_tricks.as_strided(elems[a._offset - first:], a.shape,
                                           [x * elems.itemsize for x in elem_strides(a)])


# ---------------------------------------------------------------- creation


def empty(shape: ShapeLike, dtype: DTypeLike = np.float32, *, memory: Memory = None,
          context: ContextLike = None, device=None, exportable: bool = False) -> ndarray:
    """vp.empty(shape, dtype=float32, *, memory=None, context=None,
    exportable=False): a new resident array (zeroed: Vulkan memory is cleared before use;
    for 'device' and 'rebar' memory by a fill on the GPU, sent with the next
    submission, so it costs the host nothing). dtype= a struct class gives
    an array of zeroed structs (its std430 layout, vp.struct_dtype).
    exportable=True: device memory of its own that CUDA can import, so
    cupy.from_dlpack / torch.from_dlpack see it with no copy
    (docs/multidevice.md, "DLPack to CUDA"; vp.cuda_interop() says whether
    that works here).

        x = vp.empty((2, 3), np.int32)     # zeros, int32, on the GPU

    device= is the array API's name for context= (a vp.Context, as x.device).
    """
    context = _context.with_device(device, context, "vp.empty")
    ctx = _context.resolve(context)
    if dtype is None:  # no dtype= given: VulPy's default (numpy.ones(..., like=x) passes float64)
        dtype = _F32
    if exportable:
        return _exportable(shape, dtype, memory, ctx)
    try:
        plan = ctx._ufast.get(("empty", dtype, memory))
    except TypeError:  # an unhashable dtype=: check_dtype below says what is wrong
        plan = None
    if plan is not None:  # made in C (fastarray.c); NotImplemented: a shape to check here
        r = _native.ext().empty_array(plan, shape, ctx)
        if r is not NotImplemented:
            return r
    sdt = _structs.as_struct_dtype(dtype)
    if sdt is not None:
        return _struct_array(np.zeros(_shape(shape), sdt), None, check_memory(memory, ctx), ctx)
    dt = check_dtype(dtype)
    kind = check_memory(memory, ctx)
    shape = _shape(shape)
    n = _count(shape, storage_dtype(dt).itemsize, "vp.empty")
    buf = _native.ext().Buffer(ctx._native, _padded(n * storage_dtype(dt).itemsize), kind)
    ctx._ufast[("empty", dtype, memory)] = _alloc_plan(ctx, dt, kind, True)
    return ndarray(buf, shape, dt, ctx)


def _exportable(shape, dtype, memory, ctx):
    """vp.empty(..., exportable=True) (issue 18, vulpy/_cuda.py)."""
    from . import _cuda
    if memory not in (None, "device"):
        raise ValueError(f"vp.empty: exportable=True arrays live in 'device' memory, not "
                         f"memory={memory!r}")
    if _structs.as_struct_dtype(dtype) is not None:
        raise TypeError("vp.empty: exportable=True takes a NumPy dtype, not a struct")
    dt = check_dtype(dtype)
    if dt == _BOOL:
        raise TypeError("vp.empty: exportable=True: bool arrays are stored as uint32 words, "
                        "which DLPack cannot describe; use uint8")
    shape = _shape(shape)
    n = _count(shape, storage_dtype(dt).itemsize, "vp.empty")
    buf = _cuda.empty(ctx, _padded(n * storage_dtype(dt).itemsize))
    return ndarray(buf, shape, dt, ctx)


def _dlpack_cuda(a, pointer, owner, versioned, device):
    """A kDLCUDA capsule over CUDA device pointer `pointer` (vulpy/_cuda.py)."""
    code = _DL_CODES.get(a.dtype.kind)
    if code is None:
        raise BufferError(f"__dlpack__: dtype {a.dtype} has no DLPack export")
    return _native.ext().dlpack_capsule(owner, pointer, a.shape, None, code,
                                        a.dtype.itemsize * 8, versioned, False, 2, device)


def _alloc_plan(ctx, dt, kind, zero):
    """What the extension's empty_array needs to make arrays of a checked
    dtype and memory kind on ctx in C (fastarray.c); zero=False: every
    element is written by the caller's next operation (_result)."""
    return (ndarray, ctx._native, dt, storage_dtype(dt),
            _native.ext().MEMORY_KINDS.index(kind), zero)


def _result(shape, dt, memory, ctx):
    """A new array whose every element the caller's next operation writes
    on the GPU (a ufunc's or vp.jit's result, a full copy): its memory comes
    from the pool as is, with only the padding past the elements zeroed, so
    a temporary costs no zeroing (docs/python-api.md, "Memory"). `shape` a
    tuple, `dt` a checked dtype, `memory` a kind, `ctx` a Context."""
    plan = ctx._ufast.get(("result", dt, memory))
    if plan is not None:
        r = _native.ext().empty_array(plan, shape, ctx)
        if r is not NotImplemented:
            return r
    n = _count(shape, storage_dtype(dt).itemsize, "new array")
    nbytes = n * storage_dtype(dt).itemsize
    buf = _native.ext().Buffer(ctx._native, _padded(nbytes), memory, nbytes)
    ctx._ufast[("result", dt, memory)] = _alloc_plan(ctx, dt, memory, False)
    return ndarray(buf, shape, dt, ctx)


def zeros(shape: ShapeLike, dtype: DTypeLike = np.float32, *, memory: Memory = None,
          context: ContextLike = None, device=None) -> ndarray:
    """vp.zeros(shape, dtype=float32, *, memory=None, context=None): a new
    resident array of zeros (NumPy's zeros, kept on the device). The
    default dtype is float32, VulPy's rule for Python data (module
    docstring of vulpy._array); pass dtype= for another.

    Example:
        z = vp.zeros((2, 3))               # float32 zeros on the GPU
        z[0] = 1.0
        print(z.numpy())                   # [[1. 1. 1.] [0. 0. 0.]]

    device= is the array API's name for context= (a vp.Context, as x.device).
    """
    context = _context.with_device(device, context, "vp.zeros")
    return empty(shape, dtype, memory=memory, context=context)


def full(shape: ShapeLike, fill_value, dtype: DTypeLike = None, *, memory: Memory = None,
         context: ContextLike = None, device=None) -> ndarray:
    """vp.full(shape, fill_value, dtype=None, *, memory=None, context=None):
    a resident array with every element `fill_value` (without dtype=:
    float32 for a Python float, int64 for an int, bool for a bool, the
    value's own dtype for a NumPy scalar).

        vp.full(4, 2.5).numpy()            # array([2.5, 2.5, 2.5, 2.5], dtype=float32)

    device= is the array API's name for context= (a vp.Context, as x.device).
    """
    context = _context.with_device(device, context, "vp.full")
    if dtype is None:
        dtype = default_dtype(np.asarray(fill_value).dtype, fill_value)
    ctx = _context.resolve(context)
    out = _result(_shape(shape), check_dtype(dtype), check_memory(memory, ctx), ctx)
    _fill(out, fill_value)  # writes every element: no zeroing first
    return out


def ones(shape: ShapeLike, dtype: DTypeLike = np.float32, *, memory: Memory = None,
         context: ContextLike = None, device=None) -> ndarray:
    """vp.ones(shape, dtype=float32, *, memory=None, context=None): a
    resident array of ones; arguments and errors as vp.zeros.

        vp.ones((2, 2), np.int32).numpy()  # [[1 1] [1 1]]

    device= is the array API's name for context= (a vp.Context, as x.device).
    """
    context = _context.with_device(device, context, "vp.ones")
    # dtype=None is the default float32 (as vp.zeros), not the int64 of full's 1
    return full(shape, 1, _F32 if dtype is None else dtype, memory=memory,
                context=context)


# the arguments and errors of vp.empty, vp.zeros and vp.full, written once
_CREATION_ARGS = """
    Arguments:
        shape     an int or a tuple of ints (each >= 0).
        dtype     bool, int8/16/32/64, uint8/16/32/64, float16/32/64,
                  complex64/128 or a vp.struct class; 64-bit types need the
                  device's float64 / int64 features for arithmetic.
        memory    'device' (the default), 'host', 'cached' or 'rebar'
                  (vp.MEMORY_KINDS); None picks the context's default.
        context   the vp.Context to allocate on (None: vp.default_context()).

    Errors: TypeError for a dtype the GPU cannot hold, ValueError for a
    negative dimension or an unknown memory kind, vp.OutOfMemoryError when
    the device has no room.
    """
for _f in (empty, zeros, full):
    _f.__doc__ = _f.__doc__.rstrip() + "\n" + _CREATION_ARGS


def no_complex_drop(src, dt, what):
    """TypeError where complex data would become real dtype dt (NumPy
    warns and drops the imaginary part; issue 19 says never silently)."""
    if np.dtype(src).kind == "c" and np.dtype(dt).kind != "c":
        raise TypeError(f"{what}: {np.dtype(src).name} data into {np.dtype(dt).name} would "
                        f"drop the imaginary part; take .real first")


def _fill(arr, value):
    no_complex_drop(np.asarray(value).dtype, arr.dtype, "fill")
    if not arr._size:
        return
    word = np.asarray(value).astype(arr._sdtype if arr.dtype != _BOOL else np.bool_)
    word = word.astype(arr._sdtype)
    raw = word.tobytes()
    if len(raw) == 4:
        arr._buf.fill(int.from_bytes(raw, "little"), 0, _padded(arr.nbytes))
    elif raw[:4] == raw[4:]:
        arr._buf.fill(int.from_bytes(raw[:4], "little"), 0, _padded(arr.nbytes))
    else:
        arr._buf.upload(np.full(arr._size, word, arr._sdtype))


def _traced_like(a, value, dtype, shape, memory, context, name):
    """vp.<name>(a, ...) of an array traced by vp.jit: the traced constant
    (empty_like gives zeros there too); None for any other `a`."""
    like = getattr(type(a), "_vp_like", None)
    if like is None:
        return None
    if memory is not None or context is not None:
        raise TypeError(f"vp.{name} inside vp.jit: memory= and context= are the call's "
                        f"(the result is a value of the traced function)")
    return like(a, value, dtype, shape)


def _like(a, dtype, shape):
    if isinstance(a, ndarray):
        return (a.shape if shape is None else shape, a.dtype if dtype is None else dtype,
                a._ctx, a.memory)
    h = np.asarray(a)
    return (h.shape if shape is None else shape,
            default_dtype(h.dtype, a) if dtype is None else dtype, None, None)


def empty_like(a: ArrayLike, dtype: DTypeLike = None, *, shape: Optional[ShapeLike] = None,
               memory: Memory = None, context: ContextLike = None, device=None) -> ndarray:
    """vp.empty_like(a, dtype=None, *, shape=None, memory=None, context=None):
    a new (zeroed) resident array with a's shape and dtype (and, for a
    resident `a`, its context and memory kind); `a` is a resident or NumPy
    array. dtype=, shape=, memory= and context= override what `a` gives.
    Errors as vp.empty.

    device= is the array API's name for context= (a vp.Context, as x.device).
    """
    context = _context.with_device(device, context, "vp.empty_like")
    traced = _traced_like(a, 0, dtype, shape, memory, context, "empty_like")
    if traced is not None:
        return traced
    shp, dt, ctx, mem = _like(a, dtype, shape)
    return empty(shp, dt, memory=memory or mem, context=context or ctx)


def zeros_like(a: ArrayLike, dtype: DTypeLike = None, *, shape: Optional[ShapeLike] = None,
               memory: Memory = None, context: ContextLike = None, device=None) -> ndarray:
    """vp.zeros_like(a, dtype=None, *, shape=None, memory=None,
    context=None): zeros with a's shape and dtype (a resident `a` also gives
    its context and memory kind); the keywords override them, as in
    vp.empty_like.

    device= is the array API's name for context= (a vp.Context, as x.device).
    """
    context = _context.with_device(device, context, "vp.zeros_like")
    return empty_like(a, dtype, shape=shape, memory=memory, context=context)


def ones_like(a: ArrayLike, dtype: DTypeLike = None, *, shape: Optional[ShapeLike] = None,
              memory: Memory = None, context: ContextLike = None, device=None) -> ndarray:
    """vp.ones_like(a, dtype=None, *, shape=None, memory=None, context=None):
    ones with a's shape and dtype (a resident `a` also gives its context
    and memory kind); the keywords override them, as in vp.empty_like.

    device= is the array API's name for context= (a vp.Context, as x.device).
    """
    context = _context.with_device(device, context, "vp.ones_like")
    traced = _traced_like(a, 1, dtype, shape, memory, context, "ones_like")
    if traced is not None:
        return traced
    out = empty_like(a, dtype, shape=shape, memory=memory, context=context)
    _fill(out, 1)
    return out


def full_like(a: ArrayLike, fill_value, dtype: DTypeLike = None, *,
              shape: Optional[ShapeLike] = None, memory: Memory = None,
              context: ContextLike = None, device=None) -> ndarray:
    """vp.full_like(a, fill_value, dtype=None, *, shape=None, memory=None,
    context=None): an array like `a` (shape, dtype; a resident `a`'s context
    and memory kind) with every element `fill_value`; the keywords override
    what `a` gives, as in vp.empty_like.

    device= is the array API's name for context= (a vp.Context, as x.device).
    """
    context = _context.with_device(device, context, "vp.full_like")
    traced = _traced_like(a, fill_value, dtype, shape, memory, context, "full_like")
    if traced is not None:
        return traced
    out = empty_like(a, dtype, shape=shape, memory=memory, context=context)
    _fill(out, fill_value)
    return out


def _import_target(a, ctx):
    """The object whose memory can be imported for array `a` without a copy
    (a itself, or the HostMemory under it), or None."""
    align = ctx.info["limits"]["min_imported_host_pointer_alignment"]
    if not align or not a.flags.c_contiguous or not a.flags.writeable or a.dtype == _BOOL:
        return None
    addr = a.__array_interface__["data"][0]
    if addr % align:
        return None
    base = a
    while isinstance(base, np.ndarray) and base.base is not None:
        base = base.base
    hm = _native.ext().HostMemory
    if isinstance(base, memoryview):
        base = base.obj
    if isinstance(base, hm) and base.address == addr:
        return base
    if a.nbytes and a.nbytes % align == 0:
        return a
    return None


def asarray(obj: ArrayLike, dtype: DTypeLike = None, *, copy: Optional[bool] = None,
            memory: Memory = None, context: ContextLike = None, device=None) -> ndarray:
    """A resident array of `obj` (a NumPy array, a list, a scalar, or a
    resident array, which comes back as is when nothing changes).

    copy= as NumPy 2's and the array API's: None (the default) copies only
    where it must, True always (vp.array), False never (a ValueError where
    the result would be a copy: an upload of host data is one).

    With memory='host', a C-contiguous writable NumPy array whose data is
    page-aligned (vp.aligned_empty makes such arrays) is imported with no
    copy: the GPU then reads and writes the NumPy array's own pages.

    Without dtype=, Python float data (lists, scalars) becomes float32 and
    NumPy data keeps its dtype (module docstring).

    A vp.HostArray gives h.on(context): that context's array over the
    shared pages (docs/multidevice.md).

    device= is the array API's name for context= (a vp.Context, as x.device).
    """
    context = _context.with_device(device, context, "vp.asarray")
    if copy is not None:
        return array(obj, dtype, copy=copy, memory=memory, context=context)
    if getattr(obj, "_vp_host_array", False):
        if memory not in (None, "host") or (dtype is not None and np.dtype(dtype) != obj.dtype):
            raise ValueError(f"vp.asarray of a vp.HostArray shares its pages as they are "
                             f"(memory='host', dtype {obj.dtype}); got memory={memory!r}, "
                             f"dtype={dtype!r}: copy with vp.asarray(h.numpy(), ...) instead")
        return obj.on(context)
    if memory is not None:
        check_memory(memory)
    if isinstance(obj, ndarray):
        ctx = obj._ctx if context is None else _context.resolve(context)
        if ctx is obj._ctx and (dtype is None or np.dtype(dtype) == obj.dtype) and \
                memory in (obj.memory, None):
            return obj
        if ctx is not obj._ctx:
            return asarray(obj.numpy(), dtype or obj.dtype, memory=memory, context=ctx)
        return obj.astype(dtype or obj.dtype, memory=memory)
    ctx = _context.resolve(context)
    memory = check_memory(memory, ctx)
    want = _structs.as_struct_dtype(dtype)
    if want is not None:  # records: a structured array, or Python tuples to make one
        a = obj if isinstance(obj, np.ndarray) else np.array(obj, dtype=want)
        return _struct_array(a, dtype, memory, ctx)
    a = np.asarray(obj)
    if a.dtype.names is not None:
        return _struct_array(a, dtype, memory, ctx)
    dt = check_dtype(dtype if dtype is not None else default_dtype(a.dtype, obj), "vp.asarray")
    no_complex_drop(a.dtype, dt, "vp.asarray")
    if memory == "host" and a.dtype == dt and ctx.has("external_memory_host"):
        target = _import_target(a, ctx)
        if target is not None:
            buf = _native.ext().Buffer.import_host(ctx._native, target)
            return ndarray(buf, a.shape, dt, ctx)
    out = _result(_shape(a.shape), dt, memory, ctx)  # the upload writes every element
    if out._size:
        c = np.ascontiguousarray(a, dtype=out._sdtype)
        ctx._upload(out._buf, c, c is obj)
    return out


def array(obj: ArrayLike, dtype: DTypeLike = None, *, copy: Optional[bool] = True,
          memory: Memory = None, context: ContextLike = None, device=None) -> ndarray:
    """vp.array(obj, dtype=None, *, copy=True, memory=None, context=None):
    vp.asarray, copying as numpy.array and cupy.array do: with copy=True
    (the default) the result never shares memory with `obj` (a resident
    array, a vp.HostArray's pages, a NumPy array imported with
    memory='host' are copied); copy=None is vp.asarray; copy=False raises
    ValueError where the result would be a copy.

    device= is the array API's name for context= (a vp.Context, as x.device).
    """
    context = _context.with_device(device, context, "vp.array")
    r = asarray(obj, dtype, memory=memory, context=context)
    shared = r is obj or getattr(obj, "_vp_host_array", False) or (
        isinstance(obj, np.ndarray) and r._buf.imported)
    if copy and shared:
        return r.copy()
    if copy is False and not shared:
        raise ValueError("vp.array / vp.asarray: copy=False, but the result is a copy of the "
                         "data (use copy=None to allow it)")
    return r


def _struct_array(a, dtype, memory, ctx):
    """vp.asarray of a NumPy structured array: a resident array of structs
    (its bytes as they are). With dtype= a struct class (or a structured
    dtype) the layout must be that struct's std430 one; without, a kernel
    call checks it against the kernel's struct (_structs)."""
    want = _structs.as_struct_dtype(dtype)
    if want is not None and (a.dtype.names is None or not _structs.layout_matches(a.dtype, want)):
        name = getattr(dtype, "__name__", "the struct")
        raise TypeError(f"vp.asarray: dtype={name} has the std430 layout\n"
                        f"{_structs.describe_dtype(want)}\nbut the array has "
                        f"{_structs.describe_dtype(a.dtype)}\n(build the array with that "
                        f"dtype: np.zeros(n, vp.struct_dtype({name})), then fill its fields)")
    if want is None and dtype is not None:
        raise TypeError(f"vp.asarray: a structured array takes dtype=None or a struct class, "
                        f"not {dtype!r}")
    if any(a.dtype.fields[n][0].hasobject for n in a.dtype.names):
        raise TypeError("vp.asarray: a structured array with Python-object fields has no "
                        "GPU layout")
    a = np.ascontiguousarray(a)
    nbytes = a.nbytes
    buf = _native.ext().Buffer(ctx._native, _padded(nbytes), memory, nbytes)
    if nbytes:
        buf.upload(a.view(np.uint8).reshape(-1))
    return ndarray(buf, a.shape, a.dtype, ctx)


def aligned_empty(shape: ShapeLike, dtype: DTypeLike = np.float32) -> np.ndarray:
    """vp.aligned_empty(shape, dtype=float32): a NumPy array of the given
    shape and dtype on page-aligned host memory, which
    vp.asarray(a, memory='host') imports with no copy (the GPU then works
    on these pages). ValueError for a negative dimension."""
    dt = np.dtype(dtype)
    shape = _shape(shape)
    n = _count(shape, dt.itemsize, "vp.aligned_empty")
    mem = _native.ext().HostMemory(n * dt.itemsize)
    return np.frombuffer(mem, dt, n).reshape(shape)


def arange(start, stop=None, step=1, dtype: DTypeLike = None, *, memory: Memory = None,
           context: ContextLike = None, device=None) -> ndarray:
    """vp.arange(start, stop=None, step=1, dtype=None, *, memory=None,
    context=None): numpy.arange(start, stop, step), resident; float32 for
    Python float bounds unless dtype= says otherwise (the values are
    NumPy's, rounded to float32). memory= and context= as for vp.zeros.

        vp.arange(0, 1, 0.25).numpy()      # [0.   0.25 0.5  0.75], float32

    device= is the array API's name for context= (a vp.Context, as x.device).
    """
    context = _context.with_device(device, context, "vp.arange")
    a = np.arange(start, stop, step, dtype=dtype)
    if dtype is None:
        a = a.astype(default_dtype(a.dtype, start, stop, step), copy=False)
    return asarray(a, memory=memory, context=context)


def linspace(start, stop, num: int = 50, endpoint: bool = True, retstep: bool = False,
             dtype: DTypeLike = None, axis: int = 0, *, memory: Memory = None,
             context: ContextLike = None, device=None):
    """vp.linspace(start, stop, num=50, endpoint=True, retstep=False,
    dtype=None, axis=0, *, memory=None, context=None):
    numpy.linspace's values and arguments (retstep=True also returns the
    step, NumPy's float64; array bounds and axis= as NumPy's), resident;
    float32 unless dtype= (or NumPy bounds of another dtype) say otherwise.
    memory= and context= as for vp.zeros. (Before session 43 the fifth
    positional argument was dtype, not NumPy's retstep.)

    device= is the array API's name for context= (a vp.Context, as x.device).
    """
    context = _context.with_device(device, context, "vp.linspace")
    h = lambda v: v.numpy() if isinstance(v, ndarray) else v  # noqa: E731
    a, step = np.linspace(h(start), h(stop), num, endpoint=endpoint, retstep=True, dtype=dtype,
                          axis=axis)
    if dtype is None:
        a = a.astype(default_dtype(a.dtype, start, stop), copy=False)
    r = asarray(a, memory=memory, context=context)
    return (r, step) if retstep else r


def _rebuild(data, dtype, memory):
    """Unpickling: upload the host copy into memory of the pickled kind
    (the default context's; 'device' where that kind is missing)."""
    return asarray(data, dtype=dtype, memory=memory)


# ------------------------------------------------------------------ DLPack
_DL_CODES = {"i": 0, "u": 1, "f": 2, "b": 6}


def _dlpack_of(a, owner=None, versioned=False, copied=False):
    """A 'dltensor' capsule over NumPy array `a`'s bytes, keeping `owner`
    (default `a`) alive (dlpack.c); versioned: DLPack 1.0's
    'dltensor_versioned' (writable for NumPy; 0.8 imports are read-only)."""
    code = _DL_CODES.get(a.dtype.kind)
    if code is None:
        raise BufferError(f"__dlpack__: dtype {a.dtype} has no DLPack export")
    item = a.dtype.itemsize
    if any(s % item for s in a.strides):
        raise BufferError("__dlpack__: strides are not a multiple of the element size")
    strides = None if a.flags.c_contiguous else tuple(s // item for s in a.strides)
    return _native.ext().dlpack_capsule(a if owner is None else owner, a.ctypes.data, a.shape,
                                        strides, code, item * 8, versioned, copied)


def from_dlpack(x, *, copy: Optional[bool] = None, context: ContextLike = None,
                device=None) -> ndarray:
    """vp.from_dlpack(x, *, copy=None, context=None): a resident array from
    `x`, any object with __dlpack__ (a NumPy array, a
    PyTorch CPU tensor, a vp.ndarray). kDLCPU data is imported as
    memory='host' with no copy where vp.asarray can import it (page-aligned,
    C-contiguous, writable, a whole number of import granules: what
    vp.aligned_empty makes, or large NumPy allocations); otherwise the data is
    copied into a new array (copy=False then raises BufferError instead).
    A vp.ndarray of the same context comes back as is. Device (non-CPU)
    tensors raise BufferError.

    device= is the array API's name for context= (a vp.Context, as x.device).
    """
    context = _context.with_device(device, context, "vp.from_dlpack")
    if isinstance(x, ndarray):
        if context is not None and _context.resolve(context) is not x._ctx:
            if copy is False:
                raise BufferError(f"vp.from_dlpack: copy=False, but the array lives on "
                                  f"{describe_context(x._ctx)}, not on "
                                  f"{describe_context(_context.resolve(context))}: moving "
                                  f"it is a copy")
            return x.to(context)
        return x.copy() if copy else x
    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"vp.from_dlpack: {type(x).__name__} has no __dlpack__")
    if hasattr(x, "__dlpack_device__"):
        dev = tuple(x.__dlpack_device__())
        if dev[0] not in (1, 3):  # kDLCPU, kDLCUDAHost: the host can read both
            raise BufferError(f"vp.from_dlpack: the tensor is on DLPack device {dev} (not "
                              f"the CPU); VulPy imports kDLCPU tensors only")
    a = np.from_dlpack(x)
    ctx = _context.resolve(context)
    dt = check_dtype(a.dtype, "vp.from_dlpack")
    if not copy and ctx.has("external_memory_host") and a.dtype == dt:
        target = _import_target(a, ctx)
        if target is not None:
            buf = _native.ext().Buffer.import_host(ctx._native, target)
            return ndarray(buf, a.shape, dt, ctx)
    if copy is False:
        raise BufferError("vp.from_dlpack: copy=False, but this tensor cannot be imported "
                          "without a copy (it must be C-contiguous, writable and page-aligned "
                          "with a size that is a multiple of the device's import alignment)")
    return asarray(a, dt, memory="host", context=ctx)


def describe_context(ctx):
    """A context's name for error messages: two contexts on one device
    (two vp.Context() on lavapipe) must still read differently."""
    return f"{ctx.name} (device {ctx.index}, context {id(ctx):#x})"


def common_context(where, xs):
    """The context of the resident arrays among xs (None when there is
    none); ValueError naming `where` when two differ."""
    ctx = None
    for x in xs:
        if isinstance(x, ndarray):
            if ctx is None:
                ctx = x._ctx
            elif x._ctx is not ctx:
                raise mixed_contexts(where, ctx, x._ctx)
    return ctx


def out_shape_error(where, out, shape):
    """The ValueError for out= of another shape than the result's."""
    return ValueError(f"{where}: out= has shape {tuple(out.shape)}, the result has shape "
                      f"{tuple(shape)}")


def out_dtype_error(where, out, dt):
    """The TypeError for out= of another dtype than the result's."""
    return TypeError(f"{where}: out= has dtype {out.dtype.name}, the result is {dt.name} "
                     f"(VulPy does not cast into out=)")


def mixed_contexts(where, a, b):
    """The ValueError for arrays of two contexts meeting in one call."""
    return ValueError(f"{where}: arrays of different contexts meet in one call: "
                      f"{describe_context(a)} and {describe_context(b)}; copy one "
                      f"over with x.to(context)")
