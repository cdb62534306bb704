"""Shared host pages (issue 18): vp.HostArray, one allocation of page-aligned
host memory that every context that asks imports with
VK_EXT_external_memory_host, plus one NumPy view of the same bytes
(docs/multidevice.md, "Shared host pages", is the reference).

How: the pages come from vrt_host_alloc (64 KiB-aligned mmap, a multiple of
64 KiB long: every driver's minImportedHostPointerAlignment divides it).
h.on(ctx) imports them once per context (the spec lets a driver refuse a
second import into one device) and keeps the array; where a device cannot
import, it warns (vp.SharingWarning) and gives a COPY, and
h.shared_with(ctx) says False. Every import and the NumPy view hold the
pages, so they are unmapped only after the last user is gone. Ordering
between contexts is the caller's, explicit: `after=`, h.wait(),
handle.wait().
"""
import threading
import weakref
import warnings

import numpy as np

from . import _array, _context, _native
from ._errors import VulkanError

_BOOL = np.dtype(np.bool_)
_FLAG_NAMES = ((1, "device_local"), (2, "host_visible"), (4, "host_coherent"),
               (8, "host_cached"))


class SharingWarning(RuntimeWarning):
    """A vp.HostArray could not be imported into a context: that context got
    a copy of the data, which is NOT shared (h.shared_with(ctx) is False)."""


def _import(ctx, mem):
    """The zero-copy import of HostMemory `mem` into `ctx` (a Buffer), or
    raises why not. A function of its own so that tests can make a driver
    refuse."""
    if not ctx.has("external_memory_host"):
        raise BufferError(f"device '{ctx.name}' lacks VK_EXT_external_memory_host")
    return _native.ext().Buffer.import_host(ctx._native, mem)


class HostArray:
    """Page-aligned host memory shared by several contexts (devices) and
    NumPy, with no copy.

        h = vp.HostArray(shape, dtype=np.float32)
        h.on(ctx)                 that context's vp.ndarray over the same pages
                                  (memory='host'; imported on first use, then
                                  the same array every time)
        vp.asarray(h, context=ctx)    the same as h.on(ctx)
        h.numpy()                 the NumPy view (waits for GPU work first)
        h.shared_with(ctx)        True when h.on(ctx) is these pages, False
                                  for a copy (the fallback) or no h.on(ctx) yet
        h.wait()                  host wait for every context's GPU work on it
        h.release(ctx)            drops ctx's import (its arrays keep working)

    `copy=False` in h.on(ctx, copy=False) raises BufferError where the
    context cannot import the pages, instead of the fallback copy.
    Starts zeroed. Bool is refused (resident bool arrays are 32-bit words):
    use uint8 or uint32."""

    _vp_host_array = True  # vp.asarray recognises HostArrays by this

    def __init__(self, shape, dtype=np.float32):
        dt = np.dtype(dtype)
        if dt == _BOOL:
            raise TypeError("vp.HostArray: bool is not shareable (resident bool arrays are "
                            "32-bit words); use np.uint8 or np.uint32")
        dt = _array.check_dtype(dt, "vp.HostArray")
        shape = _array._shape(shape)
        n = _array._count(shape, dt.itemsize, "vp.HostArray")
        self._mem = _native.ext().HostMemory(n * dt.itemsize)
        self._view = np.frombuffer(self._mem, dt, n).reshape(shape)
        self.shape, self.dtype = shape, dt
        self._arrays = {}  # Context -> (vp.ndarray, shared)
        # arrays over the pages that release() forgot: they keep working,
        # so wait() (and numpy()) still waits for their GPU work
        self._released = []  # weak references (vp.ndarray is unhashable)
        self._lock = threading.RLock()

    # ------------------------------------------------------------ basics
    @property
    def size(self):
        """Number of elements."""
        return self._view.size

    @property
    def nbytes(self):
        """Bytes of the elements (the pages are rounded up to 64 KiB)."""
        return self._view.nbytes

    @property
    def ndim(self):
        """Number of dimensions."""
        return self._view.ndim

    @property
    def address(self):
        """The pages' address (the NumPy view's data pointer)."""
        return self._mem.address

    @property
    def contexts(self):
        """The contexts h.on() was called for (shared or copied)."""
        with self._lock:
            return list(self._arrays)

    def __repr__(self):
        with self._lock:
            parts = [f"{c.name} ({'shared' if s else 'COPY'})" for c, (_, s) in
                     self._arrays.items()]
        return (f"<vp.HostArray shape={self.shape} dtype={self.dtype.name} at "
                f"{self.address:#x}; on: {', '.join(parts) or 'no context yet'}>")

    # ------------------------------------------------------- per context
    def on(self, context=None, *, copy=None):
        """This context's resident array over the shared pages (imported on
        the first call for the context, the same array afterwards). Where the
        context cannot import them: a SharingWarning and a copy of the
        current data (h.shared_with(context) is then False; copy=False
        raises BufferError instead)."""
        ctx = _context.resolve(context)
        if copy not in (None, False):
            raise ValueError(f"HostArray.on: copy must be None or False, got {copy!r} (a "
                             f"copy of the data in another context is vp.asarray(h.numpy(), "
                             f"context=ctx))")
        with self._lock:  # held while importing: two threads never import twice
            return self._on(ctx, copy)

    def _on(self, ctx, copy):
        hit = self._arrays.get(ctx)
        if hit is not None:
            if copy is False and not hit[1]:
                raise BufferError(self._refused_text(ctx, "it was refused before"))
            return hit[0]
        try:
            buf = _import(ctx, self._mem)
            arr, shared = _array.ndarray(buf, self.shape, self.dtype, ctx), True
        except (VulkanError, BufferError) as e:
            if copy is False:
                raise BufferError(self._refused_text(ctx, str(e))) from e
            warnings.warn(f"vp.HostArray: {ctx.name} cannot import the shared pages ({e}); "
                          f"h.on(ctx) is a COPY of the data made now: writes on either side "
                          f"are NOT seen by the other (h.shared_with(ctx) is False)",
                          SharingWarning, stacklevel=3)
            arr = _array.empty(self.shape, self.dtype, memory="host", context=ctx)
            if self.size:
                arr._buf.upload(np.ascontiguousarray(self.numpy()))
            shared = False
        self._arrays[ctx] = (arr, shared)
        return arr

    def _refused_text(self, ctx, why):
        return (f"vp.HostArray: {ctx.name} cannot import the shared pages ({why}), and "
                f"copy=False forbids the fallback copy")

    def shared_with(self, context=None):
        """True when h.on(context) is an array over these very pages; False
        when it is a copy (the device could not import them) or when h.on
        was not called for the context yet."""
        ctx = _context.resolve(context)
        with self._lock:
            hit = self._arrays.get(ctx)
        return bool(hit and hit[1])

    def info(self, context=None):
        """How the pages are seen by a context: {'shared': bool, 'device':
        the device index (vp.list_devices()), 'memory_flags': the Vulkan
        memory property flags of the memory type chosen for the import on
        that device, 'memory': their names, 'address': the device array's
        mapping}; None before h.on(context)."""
        ctx = _context.resolve(context)
        with self._lock:
            hit = self._arrays.get(ctx)
        if hit is None:
            return None
        arr, shared = hit
        flags = arr._buf.memory_flags
        return {"shared": shared, "device": ctx.index, "memory_flags": flags,
                "memory": [n for b, n in _FLAG_NAMES if flags & b],
                "address": arr._buf.address}

    def release(self, context=None):
        """Forgets context's import (or copy): the next h.on(context) imports
        again. Arrays handed out keep working (they hold the pages), and
        h.wait() / h.numpy() still wait for their GPU work."""
        ctx = _context.resolve(context)
        with self._lock:
            arr, shared = self._arrays.pop(ctx, (None, False))
            if shared:
                self._released = [r for r in self._released if r() is not None]
                self._released.append(weakref.ref(arr))

    # ------------------------------------------------------------- host
    def wait(self, timeout=None):
        """Blocks until the GPU work every context submitted on these pages
        (through h.on arrays) is done: a host wait point, the cross-device
        ordering of docs/multidevice.md. Returns self."""
        with self._lock:
            arrays = [a for a, shared in self._arrays.values() if shared]
            arrays += [a for a in (r() for r in self._released) if a is not None]
        for a in arrays:
            memoryview(a._buf).release()  # the buffer protocol waits for the buffer's last use
        return self

    def numpy(self):
        """The NumPy view of the pages (the same array object every call,
        no copy), after waiting for the GPU work on them (h.wait())."""
        self.wait()
        return self._view

    def __array__(self, dtype=None, copy=None):
        if copy:
            return np.array(self.numpy(), dtype=dtype)
        v = self.numpy()
        return v if dtype is None else v.astype(dtype, copy=False)


def wait_after(after, label):
    """Host-waits for `after` before a dispatch: a vp.Handle, a
    vp.PersistentHandle, a vp.HostArray, or a list or tuple of them (the
    cross-device ordering of docs/multidevice.md)."""
    if after is None:
        return
    items = after if isinstance(after, (list, tuple)) else (after,)
    for h in items:
        if not callable(getattr(h, "wait", None)):
            raise TypeError(f"{label}: after= takes vp.Handle, vp.PersistentHandle or "
                            f"vp.HostArray objects (or a list of them), got "
                            f"{type(h).__name__}")
    for h in items:
        h.wait()
