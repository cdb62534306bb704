"""Devices and contexts: vp.list_devices(), vp.Context, the default context.

A Context is one Vulkan device with its compute queue (the C runtime's
vrt_context). Everything resident - arrays, kernels, control buffers -
belongs to one. Functions that take `context=None` use the default context,
created on first use from VULPY_DEVICE (an index, a kind, or part of a
name) or the best device (dgpu > igpu > virtual > cpu).
"""
import atexit
import os
import threading
import weakref

import numpy as np

from . import _native
from ._errors import FeatureError

KINDS = ("dgpu", "igpu", "cpu", "virtual", "other", "any")

# Every live Context, so tests can collect validation messages from all.
_live = weakref.WeakSet()
_default = None
_default_lock = threading.Lock()


def list_devices():
    """Every Vulkan device as a dict: index, name, kind ('dgpu', 'igpu',
    'cpu', 'virtual', 'other'), vendor, api_version, memory (heaps and
    types), features (['float64', 'int64', ...]), limits, uma, usable.

    Raises VulkanError saying what to install when there is no Vulkan
    loader or no device."""
    return _native.ext().list_devices()


class Context:
    """A Vulkan device and its compute queue.

        vp.Context()                   the default choice (VULPY_DEVICE, else the
                                       best device: dgpu > igpu > virtual > cpu)
        vp.Context(device_index=1)     by index, as vp.list_devices() numbers them
        vp.Context(kind="dgpu")        the first device of a kind: dgpu, igpu, cpu,
                                       virtual, other, any
        vp.Context(device="RTX")       the first device whose name contains the text

    `validation=True` enables the Khronos validation layer (default: on when
    VULPY_VALIDATION=1); `cache_dir` is the pipeline cache folder (None:
    $VULPY_CACHE_DIR, else $XDG_CACHE_HOME/vulpy, else ~/.cache/vulpy; "":
    none). Every argument left at its default takes the VULPY_* variable of
    docs/runtime.md ("Environment variables"); a variable with a value it
    does not take raises VulkanError naming it. `wait` is how a synchronous call waits
    for the GPU: 'spin-block' (poll, then sleep: the default on GPUs),
    'block' (sleep at once: the default on CPU devices), 'spin' (poll until
    done); `copy_threads` is how many threads share large host copies
    (default: VULPY_COPY_THREADS, else half the CPUs, at most 8).
    `timeout` (seconds, default None) bounds every wait that has no
    timeout of its own: past it the call raises vp.TimeoutError. It also
    bounds the wait of the context's teardown (30 s when None): a device
    still busy then (a stalled persistent program) is left to the driver,
    with a line on stderr, instead of hanging the interpreter's exit.
    `no_device_mapping=True` never maps 'device' memory, even where it is
    host-visible (unified memory): a CPU or integrated device then takes a
    discrete GPU's paths (staging copies, readback mirrors); tests use it.
    `robust=True` enables robustBufferAccess: an out-of-range buffer index
    then reads 0 and writes nothing instead of touching other memory (it
    costs on every access: docs/runtime.md; debug=True on a kernel reports
    the index instead, docs/errors.md#kernelerror).

    Arrays, kernels and jit functions take context= (default: the arrays'
    own context, else vp.default_context()); operands of one call must live
    on one context. Attributes: name, kind, index, info (the device's
    limits and features), has(feature); upload_import_min (bytes, default
    32 MiB, 0: off): larger uploads of a NumPy array into memory the host
    cannot map copy from the array's imported pages (docs/python-api.md).

    Errors: ValueError for an unknown kind or wait mode; vp.VulkanError
    when no device matches the index or name (the message lists the
    devices) or the driver cannot create the device;
    vp.ExtensionMissingError when the C extension is not built.

    Example:
        for d in vp.list_devices():
            print(d["index"], d["name"], d["kind"])
        ctx = vp.Context(kind="any", timeout=10.0)
        x = vp.zeros(1024, context=ctx)
    """

    def __init__(self, device_index=None, kind=None, *, device=None, validation=None,
                 cache_dir=None, wait=None, copy_threads=None, no_device_mapping=False,
                 timeout=None, robust=False):
        given = [x is not None for x in (device_index, kind, device)]
        if sum(given) > 1:
            raise ValueError("give at most one of device_index=, kind= and device=")
        if device_index is not None:
            if isinstance(device_index, bool) or not isinstance(device_index, int) or device_index < 0:
                raise TypeError(f"device_index must be a non-negative int, got {device_index!r}")
            selector = str(device_index)
        elif kind is not None:
            if kind not in KINDS:
                raise ValueError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
            selector = kind
        elif device is not None:
            if not isinstance(device, str):
                raise TypeError(f"device must be a str (a name, an index or a kind), got {device!r}")
            selector = device
        else:
            selector = None  # VULPY_DEVICE, else the default order
        v = -1 if validation is None else int(bool(validation))
        _prewarm()
        if copy_threads is not None and (isinstance(copy_threads, bool) or
                                         not isinstance(copy_threads, int) or
                                         not 1 <= copy_threads <= 64):
            raise ValueError(f"copy_threads must be an int in 1..64, got {copy_threads!r}")
        self._native = _native.ext().Context(selector, v, cache_dir, wait=wait,
                                             copy_threads=copy_threads or 0,
                                             no_device_mapping=bool(no_device_mapping),
                                             robust=bool(robust))
        # ctx.synchronize() is the extension's own call: no Python frame on
        # the wait that every `op(...); ctx.synchronize()` loop makes
        # (issue 14's per-call figure); the method below is its reference
        self.synchronize = self._native.wait_idle
        self.robust = bool(robust)  # robustBufferAccess on (issue 20)
        self.info = self._native.info()
        if timeout is not None:
            self.timeout = timeout
        self._features = frozenset(self.info["features"])
        self._kernels = {}  # compile key -> native Kernel on this device
        self._ufast = {}  # ufunc call signature -> a ready dispatch (_ufunc's fast path)
        self._plans = {}  # a library call's shape -> its dispatches, ready (the sort's)
        self._imports = {}  # id(ndarray) -> (weakref, address, nbytes, Buffer): _host_input
        self._imports_lock = threading.Lock()
        # Convenience calls read NumPy inputs in place (imported pages) and
        # return results that are views of mapped buffers; either can be
        # turned off (the copy paths then run, as for odd cases anyway).
        self.host_import = "external_memory_host" in self._features
        self.zero_copy_results = True
        # Uploads of more than this many bytes from a NumPy array into memory
        # the host cannot map ('device' on a discrete GPU) copy on the GPU
        # from the array's imported pages (the host_import cache: pinned
        # once, for the array's lifetime) instead of through the staging
        # ring's memcpy; 0: never (_upload).
        self.upload_import_min = self._UPLOAD_IMPORT_MIN
        _live.add(self)

    # ---------------------------------------------------------- description
    @property
    def name(self):
        """The device name."""
        return self.info["name"]

    @property
    def kind(self):
        """'dgpu', 'igpu', 'cpu', 'virtual' or 'other'."""
        return self.info["kind"]

    @property
    def index(self):
        """The device index, as vp.list_devices() numbers it."""
        return self.info["index"]

    @property
    def features(self):
        """The optional features the device has: 'float64', 'int64', ..."""
        return self._features

    @property
    def uma(self):
        """True when device and host memory are the same DRAM."""
        return self.info["uma"]

    @property
    def fma_fused(self):
        """True when this context's pipelines take the fused-fma paths of the
        precise math (the VP_FMA_FUSED specialization constant): detected per
        device (False on CPU devices such as lavapipe, whose fma() is a
        multiply and an add), overridden by VULPY_FMA=fused|unfused when the
        context is made. docs/math.md, docs/runtime.md."""
        return self.info["fma_fused"]

    @property
    def denorm_preserve(self):
        """The float widths, as a tuple such as (16, 32, 64), whose
        subnormals this context's precise-math kernels keep: the runtime adds
        the SPIR-V execution mode DenormPreserve to them where the device
        allows it (shaderDenormPreserveFloat32 ...; NVIDIA flushes float32
        subnormals otherwise). () leaves subnormals to the device: lavapipe
        keeps them anyway; VULPY_DENORM=default asks for it; VULPY_DENORM=
        preserve makes a device that cannot keep them an error.
        fast_math kernels and raw GLSL/SPIR-V always run as written.
        docs/math.md, docs/runtime.md."""
        return tuple(self.info["denorm_preserve"])

    @property
    def denorm_emulate(self):
        """True when this context's precise-math float32 functions handle
        subnormal arguments and results with integer operations (the
        VP_DENORM_EMULATE specialization constant): on by default where the
        device flushes float32 subnormals and cannot be asked to keep them
        (NVIDIA: no shaderDenormPreserveFloat32), so that sin, exp, log, cbrt,
        pow, ... of subnormals keep NumPy's tolerances there. VULPY_DENORM=
        emulate forces it (testing on devices that keep subnormals), default
        turns it off. Plain arithmetic (+ - * /, compares) still follows the
        device. fast_math kernels never emulate. docs/math.md."""
        return bool(self.info.get("denorm_emulate", False))

    @property
    def flushes_subnormals(self):
        """True when float32 arithmetic in this context's precise-math
        kernels flushes subnormal operands and results to +-0, as CUDA with
        -ftz=true: + - * / and the ufuncs built on them (multiply, divide,
        floor_divide, remainder, ...), compares and float32 conversions.
        That is where float32 gets no DenormPreserve and the driver is not
        one known to keep subnormals (lavapipe keeps them): True on NVIDIA
        (the H200), False on lavapipe, VULPY_DENORM=emulate included. The
        math functions (sin, exp, log, ...) keep their bounds and abs,
        negative, sign, minimum, maximum, clip, copysign, fmin/fmax stay
        exact either way (docs/math.md, "Subnormals")."""
        return bool(self.info.get("denorm_flush", False))

    @property
    def small_dtypes(self):
        """How resident arrays of the small dtypes are stored (issue 19): a
        dict such as {'int8': 'native', ..., 'float16': 'words'}. 'native':
        the type's own size in the buffer, read and written through the
        device's 8/16-bit storage (VK_KHR_8bit_storage / 16bit_storage) with
        its shaderInt8 / shaderInt16 / shaderFloat16; 'words': packed in
        32-bit words by the array path's kernels (shifts and masks, bytes
        written with atomic and/or), where the device lacks one of them.
        Either way the values are NumPy's (docs/python-api.md, "Dtypes")."""
        # what the array path's compiler is told the device lacks: the
        # features themselves, or the masks a test forced (_engine._masks)
        m = getattr(self, "_vp_feature_masks", None)
        if m is not None:
            lacks = {n for i, n in enumerate(_native_feature_names()) if m[0] >> i & 1}
        else:
            lacks = {f for f in ("storage8", "int8", "storage16", "int16", "float16")
                     if not self.has(f)}
        need = {"int8": ("storage8", "int8"), "uint8": ("storage8", "int8"),
                "int16": ("storage16", "int16"), "uint16": ("storage16", "int16"),
                "float16": ("storage16", "float16")}
        return {t: "words" if lacks & set(f) else "native" for t, f in need.items()}

    @property
    def lost(self):
        """True once the device was lost; every later call raises DeviceLostError."""
        return self._native.lost

    @property
    def default_memory(self):
        """The memory kind arrays get when memory= is not given: 'device' on
        unified-memory devices (where it is host-visible anyway), 'rebar' on
        discrete devices whose whole VRAM is host-visible (resizable BAR),
        else 'device'. Either way the GPU works at full VRAM bandwidth; with
        the first two numpy_view() also works."""
        mem = self.__dict__.get("_default_memory")
        if mem is None:
            mem = "device"
            m = self.info["memory"]
            if not self.uma:
                dl_heap = max((h["size"] for h in m["heaps"] if h["device_local"]), default=0)
                for t in m["types"]:
                    if t["flags"] & 0x7 == 0x7 and m["heaps"][t["heap"]]["size"] >= dl_heap // 2:
                        mem = "rebar"
            self._default_memory = mem
        return mem

    def has(self, feature):
        """Whether the device has a feature ('float64', 'int64', ...)."""
        return feature in self._features

    def require(self, feature, what):
        """Raises FeatureError naming `feature` unless the device has it."""
        if feature not in self._features:
            vk = {"float64": "shaderFloat64", "int64": "shaderInt64", "int16": "shaderInt16",
                  "float16": "shaderFloat16", "int8": "shaderInt8",
                  "storage8": "storageBuffer8BitAccess",
                  "storage16": "storageBuffer16BitAccess",
                  "push_constant8": "storagePushConstant8",
                  "push_constant16": "storagePushConstant16"}.get(feature, feature)
            raise FeatureError(f"{what} needs the device feature '{feature}' ({vk}), which "
                               f"{self.name} does not have")

    @property
    def timeout(self):
        """Seconds that any wait without a timeout of its own may block
        (synchronous calls, Handle.wait(), synchronize()) before raising
        vp.TimeoutError; None (the default): no limit. The GPU work goes on
        after a timeout; a kernel stuck in a loop keeps the queue busy."""
        return self._native.timeout

    @timeout.setter
    def timeout(self, seconds):
        self._native.timeout = seconds

    @property
    def limits(self):
        """The device's limits (a dict, from info['limits']) plus
        'max_loop_iterations': how many loop back-edges one invocation may
        take in all before the driver silently ends its loops (llvmpipe,
        lavapipe's compiler: 65535, LP_MAX_TGSI_LOOP_ITERATIONS), or None
        where loops are not cut short. VulPy's own kernels stay far below
        it; a @vp.kernel whose loops may add up to more computes a wrong
        result there without an error (docs/language.md)."""
        d = dict(self.info["limits"])
        d["max_loop_iterations"] = 65535 if "llvmpipe" in self.name.lower() else None
        return d

    def describe(self, verbose=True):
        """The runtime's description of the device (limits, memory types)."""
        return self._native.describe(verbose)

    def synchronize(self):
        """Waits until every submitted dispatch and copy is done (raises
        DeviceLostError on a lost device)."""
        self._native.wait_idle()

    @property
    def wait(self):
        """How synchronous calls wait for the GPU: 'spin-block', 'block' or
        'spin'. Assign one of them (or 'default') to change it."""
        return self._native.wait[0]

    @wait.setter
    def wait(self, mode):
        self._native.set_wait(mode)

    @property
    def copy_threads(self):
        """Threads that share large host copies (uploads, downloads)."""
        return self._native.copy_threads

    @copy_threads.setter
    def copy_threads(self, n):
        self._native.copy_threads = n

    @property
    def eager_batch(self):
        """How eager dispatches (ufuncs and operators on resident arrays)
        are batched into submissions: an int n holds up to n back and sends
        them in one submission (1: each is submitted at once); "adaptive"
        submits at once while fewer than 2 submissions are in flight
        (VULPY_EAGER_INFLIGHT) and holds dispatches (up to 64, or 256 MiB
        bound) only while that many still run, sending them as soon as one
        is done - by the next eager call or by the context's flusher
        thread, without waiting for another call. Default: 8 on CPU
        devices, "adaptive" on GPUs. Held work is also sent by any host
        read, wait or synchronize() that needs it, and by any other
        submission, so results never depend on it; holding costs fewer
        submissions, sending at once starts the GPU sooner."""
        return self._native.eager_batch

    @eager_batch.setter
    def eager_batch(self, n):
        self._native.eager_batch = n

    def take_validation(self):
        """The validation layer's messages since the last call (a list of str)."""
        return self._native.take_validation()

    def stats(self):
        """Counters: submits, dispatches, open_launches (those whose
        command buffer ends without the closing barrier: every buffer
        device-local, docs/runtime.md "Barriers"), cached pipelines, the allocator's
        memory blocks and bytes, and the memory pool's: driver_allocations
        and driver_frees (vkAllocateMemory / vkFreeMemory calls), pool_hits
        and pool_misses (buffers handed out again / made new),
        pool_used_bytes, pool_cached_bytes, pool_cached_buffers, pool_limit,
        gpu_zero_bytes and cpu_zero_bytes (what zeroing new buffers cost);
        with streams, xfer_copies and xfer_routed (transfer-stream copies run
        on the transfer queue family / on the compute family because a
        buffer was made before the transfer stream) and conc_buffers
        (buffers shared by both families: docs/multidevice.md, "Streams");
        eager_held (eager dispatches held back now, not yet submitted),
        eager_flushes (held batches the flusher thread sent: eager_batch)
        and eager_drained (adaptive batches sent with nothing in flight)."""
        return self._native.stats()

    @property
    def memory_pool(self):
        """The context's MemoryPool: the caching allocator that arrays'
        memory comes from and goes back to (docs/python-api.md, "Memory")."""
        pool = self.__dict__.get("_memory_pool")
        if pool is None:
            pool = self._memory_pool = MemoryPool(self)
        return pool

    def __repr__(self):
        return f"<vp.Context {self.index}: {self.name} ({self.kind})>"

    # ------------------------------------------------------ scratch buffers
    # Convenience calls (NumPy in, NumPy out) stage their data in buffers of
    # the native context's pool instead of allocating (and zeroing) new ones
    # on every call; a Buffer goes back to the pool when it dies, so _release
    # has nothing to do (it stays for the callers that use it).

    def _scratch(self, kind, nbytes):
        return self._native.scratch(nbytes, kind)

    def _release(self, buf):
        pass

    # Arrays of at least this many bytes are imported rather than copied.
    _IMPORT_MIN = 256 << 10
    # Results up to this size are views of their (pooled) buffer; larger
    # ones are copied into an ordinary NumPy array, so that no result holds
    # a large block of the driver's (often pinned) memory.
    _ZERO_COPY_MAX = 128 << 20
    _IMPORTS_MAX = 32
    _IMPORTS_MAX_BYTES = 4 << 30
    # The staging ring's default size (4 slots of 8 MiB, runtime/staging.c):
    # a staged upload larger than this waits for its own first copies, and
    # so for the work queued before them, as the import path waits for its
    # copy; up to it the ring returns without waiting for the GPU.
    _UPLOAD_IMPORT_MIN = 32 << 20

    def _upload(self, buf, a, cacheable):
        """buf.upload(a) for a C-contiguous ndarray `a` (buf's first
        a.nbytes bytes). With `cacheable` (`a` is the caller's own array, not
        a temporary made for this call), more than upload_import_min bytes
        and a `buf` the host cannot map, the GPU copies from `a`'s pages
        imported by _imported (kept while `a` lives, so a second upload of
        the same array costs no pinning) and the call returns once that copy
        is done: no staging memcpy. Any other case, and an array that cannot
        be imported, takes the staging ring (runtime/staging.c)."""
        n = a.nbytes
        if cacheable and self.upload_import_min and n > self.upload_import_min and \
                self.host_import and not buf.mapped and a.flags.writeable and \
                a.flags.c_contiguous:
            src = self._imported(a)
            if src is not None:
                buf.copy_from(src, 0, 0, n)
                return
        buf.upload(a)

    def _host_input(self, a, allow_import=True):
        """A Buffer the GPU can read C-contiguous ndarray `a` from: the
        vulpy Buffer `a` is a view of (a convenience result), `a`'s own pages
        imported with no copy (kept for the array's lifetime, so a second call
        on the same array costs a dictionary lookup), or a pooled 'host'
        buffer with a copy of it. allow_import=False (a sync=False call,
        whose inputs must not see later host writes): always the copy."""
        base = a.base if allow_import else None
        while isinstance(base, np.ndarray):
            base = base.base
        if isinstance(base, memoryview):  # np.frombuffer's base
            base = base.obj
        ext = _native.ext()
        if isinstance(base, ext.Buffer) and base.context is self._native and base.mapped and \
                a.__array_interface__["data"][0] == base.address:
            return base
        n = a.nbytes
        if allow_import and self.host_import and n >= self._IMPORT_MIN and \
                a.flags.writeable and a.flags.c_contiguous:
            buf = self._imported(a)
            if buf is not None:
                return buf
        buf = self._scratch("host" if not self.uma else "device", max(n, 16))
        if n:
            buf.upload(a)
        return buf

    def _imported(self, a):
        addr = a.__array_interface__["data"][0]
        key = id(a)
        with self._imports_lock:
            hit = self._imports.get(key)
        if hit is not None:
            ref, haddr, hn, buf = hit
            if ref() is a and haddr == addr and hn == a.nbytes:
                return buf
            self._forget(key, ref)
        if addr % 16:
            return None
        try:
            buf = _native.ext().Buffer.import_range(self._native, a, False)
        except Exception:  # noqa: BLE001 - not importable: the copy path
            return None
        imports = self._imports

        def gone(ref, key=key, imports=imports, lock=self._imports_lock):
            # The array is being freed: drop its import first (this waits for
            # the GPU work that reads it).
            with lock:
                entry = imports.get(key)
                if entry is not None and entry[0] is ref:
                    del imports[key]
        try:
            ref = weakref.ref(a, gone)
        except TypeError:
            return None
        with self._imports_lock:
            self._imports[key] = (ref, addr, a.nbytes, buf)
            # Imported pages are pinned: past _IMPORTS_MAX arrays or
            # _IMPORTS_MAX_BYTES (large uploads) the oldest go, the newest stays.
            held = sum(e[2] for e in self._imports.values())
            while len(self._imports) > 1 and (len(self._imports) > self._IMPORTS_MAX or
                                              held > self._IMPORTS_MAX_BYTES):
                held -= self._imports.pop(next(iter(self._imports)))[2]
        return buf

    def _forget(self, key, ref):
        with self._imports_lock:
            entry = self._imports.get(key)
            if entry is not None and entry[0] is ref:
                del self._imports[key]


class MemoryPool:
    """The caching allocator of one Context (CuPy's MemoryPool, in spirit).

    A freed array's buffer is not given back to the driver: it waits, binned
    by memory kind and size class, and the next array of that kind and class
    takes it once the GPU work that used it is done. So a loop of array
    expressions allocates from the driver only on its first iteration.
    When the driver runs out of memory, or a request would pass
    set_limit's cap, cached buffers are freed and the request retried
    before vp.OutOfMemoryError is raised."""

    def __init__(self, ctx):
        """Each vp.Context makes its own (`ctx`, its .memory_pool); use
        vp.get_default_memory_pool() or ctx.memory_pool rather than this."""
        self._ctx = ctx

    def used_bytes(self):
        """Bytes of live arrays and buffers (rounded to their size class)."""
        return self._ctx._native.stats()["pool_used_bytes"]

    def free_bytes(self):
        """Bytes of freed buffers the pool keeps for reuse."""
        return self._ctx._native.stats()["pool_cached_bytes"]

    def total_bytes(self):
        """used_bytes() + free_bytes(): what the pool holds."""
        s = self._ctx._native.stats()
        return s["pool_used_bytes"] + s["pool_cached_bytes"]

    def n_free_blocks(self):
        """How many freed buffers the pool keeps."""
        return self._ctx._native.stats()["pool_cached_buffers"]

    def free_all_blocks(self):
        """Gives every cached buffer back to the driver (after the GPU work
        that used it), with the allocator's empty memory blocks."""
        self._ctx._native.memory_free_all()

    def set_limit(self, size=None, fraction=None):
        """Caps the bytes the pool holds (live and cached): `size` in bytes,
        or `fraction` of the largest device-local heap; neither (or 0): no
        cap. An allocation past the cap raises vp.OutOfMemoryError naming
        the sizes, after the cached buffers were freed."""
        if size is not None and fraction is not None:
            raise ValueError("set_limit: give size= or fraction=, not both")
        if fraction is not None:
            if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) or \
                    not 0 <= fraction <= 1:
                raise ValueError(f"set_limit: fraction must be in [0, 1], got {fraction!r}")
            heaps = [h["size"] for h in self._ctx.info["memory"]["heaps"] if h["device_local"]]
            size = int(max(heaps or [h["size"] for h in self._ctx.info["memory"]["heaps"]]) *
                       fraction)
        if size is None:
            size = 0
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise ValueError(f"set_limit: size must be a non-negative int, got {size!r}")
        self._ctx._native.memory_set_limit(size)

    def get_limit(self):
        """The cap set by set_limit (0: none)."""
        return self._ctx._native.stats()["pool_limit"]

    def __repr__(self):
        return (f"<vp.MemoryPool of {self._ctx.name}: {self.used_bytes()} bytes used, "
                f"{self.free_bytes()} cached>")


def get_default_memory_pool():
    """vp.get_default_memory_pool(): the MemoryPool of the default context
    (vp.default_context().memory_pool): used_bytes(), total_bytes(),
    free_all_blocks(), set_limit(size=...), as CuPy's."""
    return default_context().memory_pool


def _prewarm():
    """Starts glslang's one-time set-up (most of a process's first compile)
    on a background thread while the Vulkan device is being created (or at
    the first @vp.kernel decoration, whichever comes first);
    VULPY_PREWARM=0 turns it off. The thread is joined at exit."""
    if not _native.available():
        return
    ext = _native.ext()
    try:
        if not ext.env_options()["prewarm"]:
            return
    except Exception:  # a bad VULPY_* value: the context creation reports it
        return
    if hasattr(ext, "prewarm") and ext.prewarm():
        atexit.register(ext.prewarm_join)


def default_context():
    """The context every call without `context=` uses; created on first use
    (VULPY_DEVICE selects the device, as for vp.Context())."""
    global _default
    ctx = _default
    if ctx is None:
        with _default_lock:
            if _default is None:
                _default = Context()
            ctx = _default
    return ctx


def set_default_context(ctx):
    """Makes `ctx` (a Context, or None to forget it) the default context."""
    global _default
    if ctx is not None and not isinstance(ctx, Context):
        raise TypeError(f"set_default_context expects a vp.Context or None, got {ctx!r}")
    _default = ctx


def with_device(device, context, what):
    """context= from the array API's device= (a vp.Context, what a vp
    array's .device is): either, or both naming the same context."""
    if device is None:
        return context
    if not isinstance(device, Context):
        raise TypeError(f"{what}: device= must be a vp.Context (a vp array's .device), got "
                        f"{device!r}")
    if context is not None and context is not device:
        raise ValueError(f"{what}: device= and context= name different contexts")
    return device


# --- the array API's inspection namespace (vp.__array_namespace_info__())
_KINDS = {
    "bool": ("bool",),
    "signed integer": ("int8", "int16", "int32", "int64"),
    "unsigned integer": ("uint8", "uint16", "uint32", "uint64"),
    "real floating": ("float32", "float64"),
    "complex floating": ("complex64", "complex128"),
}
_KINDS["integral"] = _KINDS["signed integer"] + _KINDS["unsigned integer"]
_KINDS["numeric"] = _KINDS["integral"] + _KINDS["real floating"] + _KINDS["complex floating"]


class ArrayNamespaceInfo:
    """What vp.__array_namespace_info__() returns (the array API's
    inspection utilities): devices are vp.Contexts (x.device), the default
    dtypes VulPy's rule (float32 and complex64 for Python float and
    complex data, int64 for ints and indices), the dtypes those a device
    holds (64-bit ones need shaderFloat64 / shaderInt64)."""

    __module__ = "vulpy"

    def capabilities(self):
        """{"boolean indexing": True, "data-dependent shapes": True,
        "max dimensions": 32} (NumPy's limit: shapes go through it)."""
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 32}

    def default_device(self):
        """The default vp.Context (vp.default_context())."""
        return resolve(None)

    def devices(self):
        """The contexts made so far, the default one first (a context per
        Vulkan device is made on request: vp.Context(device=...))."""
        d = resolve(None)
        return [d] + [c for c in list(_live) if c is not d]

    def default_dtypes(self, *, device=None):
        """The dtypes VulPy makes when none is given, on `device`."""
        import numpy as np
        resolve(device)
        return {"real floating": np.dtype(np.float32), "complex floating":
                np.dtype(np.complex64), "integral": np.dtype(np.int64),
                "indexing": np.dtype(np.int64)}

    def dtypes(self, *, device=None, kind=None):
        """{name: dtype} of the array API's dtypes `device` holds, of
        `kind` (None: all; a kind name such as "real floating" or
        "integral", or a tuple of them)."""
        import numpy as np
        ctx = resolve(device)
        kinds = (kind,) if kind is None or isinstance(kind, str) else tuple(kind)
        names = []
        for k in kinds:
            if k is None:
                names += ["bool"] + list(_KINDS["numeric"])
            elif k in _KINDS:
                names += list(_KINDS[k])
            else:
                raise ValueError(f"__array_namespace_info__().dtypes: unknown kind {k!r} (one "
                                 f"of {sorted(_KINDS)}, or None)")
        wide = {"float64": "float64", "complex128": "float64", "int64": "int64",
                "uint64": "int64"}
        return {n: np.dtype(n) for n in dict.fromkeys(names)
                if n not in wide or ctx.has(wide[n])}


def array_namespace_info():
    """vp.__array_namespace_info__(): the array API's inspection namespace
    (an ArrayNamespaceInfo)."""
    return ArrayNamespaceInfo()


def resolve(context):
    """`context` or the default one, checked."""
    if context is None:
        return _default if _default is not None else default_context()
    if not isinstance(context, Context):
        raise TypeError(f"context must be a vp.Context, got {type(context).__name__}")
    return context


def env_options():
    """What the VULPY_* variables choose for a new context, as a dict
    (device, validation, cache_dir, wait, spin_us, copy_threads, fma,
    denorm, export_semaphores, stream_queues, prewarm, vulkan_library,
    staging_slots, staging_mib, upload_import_mib, fork_child; 0: the
    default):
    the C parser's reading (lib/RuntimeEnv), the only one. Raises
    VulkanError naming a variable whose value it does not take."""
    return _native.ext().env_options()


def env_device():
    """The VULPY_DEVICE selector, or None."""
    return env_options()["device"]


# --- issue 20 (trust): fork --------------------------------------------------
# A forked child cannot use its parent's Vulkan device (the driver's threads
# did not survive the fork; waiting on it hung). The runtime refuses every
# call on an inherited context with a VulkanError saying so, and frees
# nothing of it; here the child forgets the default context, so that plain
# vp.* calls make a fresh one on first use. Whether the child may make one
# is the runtime's call (context.c, "fork"): with Mesa's drivers it may; a
# parent that loaded NVIDIA's (or another driver not known to survive fork)
# leaves the child a VulkanError that says to use 'spawn', as CUDA does. The parent's contexts are kept
# alive, so that no cache keyed by id(context) mistakes a new context for one.
_forked_parents = []


def _after_fork_in_child():
    global _default, _default_lock
    _default_lock = threading.Lock()  # another thread may have held it
    if _default is not None:
        _forked_parents.append(_default)
    _forked_parents.extend(_live)
    _default = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _native_feature_names():
    """The VP_FEAT bit names, in bit order (issue 19: Context.small_dtypes)."""
    return _native.ext().feature_names()
