"""vp.MemSock: a typed GPU -> CPU channel that a running kernel streams
frames into (docs/memsock.md is the reference, with an example).

The kernel fires frames with `pipe.fire(body, snap_idx=t)`; the frames are
delivered in order to the "message" callbacks (on a poller thread that
waits without the GIL), or to `for frame, payload in pipe` /
`async for frame, payload in pipe` when no callback is registered. A
dispatch that binds the pipe returns once its frames were delivered to the
callbacks; an exception raised by a callback stops the pipe and is raised
again by that dispatch (or by close()).
"""
import atexit
import collections
import struct
import threading
import warnings
import weakref

import numpy as np

from . import _array, _context, _native

_PAYLOAD = {np.dtype(np.uint32): ("u32", "I"), np.dtype(np.int32): ("i32", "i"),
            np.dtype(np.float32): ("f32", "f")}
_POLICIES = ("block", "skip", "overwrite")
_CTRL_WORDS = 2  # ctrl_view[ctrl_offset]: frames delivered; [+1]: 1 once closed
_END = object()
_OPEN = weakref.WeakSet()  # pipes closed at exit, so their poller threads end


@atexit.register
def _close_all():
    for pipe in list(_OPEN):
        try:
            pipe._native.close()
        except Exception:  # noqa: BLE001 - exiting anyway
            pass


class _MemSockAnnotation:
    """What `vp.MemSock[T]` evaluates to in a kernel's annotation."""

    def __init__(self, elem):
        self.elem = elem

    def __repr__(self):
        return f"vp.MemSock[{getattr(self.elem, '__name__', self.elem)}]"


def _dtype(what, t):
    try:
        return np.dtype(t)
    except TypeError:
        raise TypeError(f"{what} must be a NumPy scalar type such as vp.float32, "
                        f"got {t!r}") from None


class MemSock:
    """A GPU -> CPU frame channel. `dtype` and `frame_shape` describe one
    frame; `payload` maps field names to vp.uint32 / vp.int32 / vp.float32
    (the fire body's parameters, in the same order)."""

    def __class_getitem__(cls, elem):
        return _MemSockAnnotation(elem)

    def __init__(self, dtype, frame_shape, payload=None):
        self.dtype = _dtype("MemSock(dtype=...)", dtype)
        if self.dtype.kind not in "iuf" or self.dtype.itemsize > 8:
            raise TypeError(f"MemSock(dtype=...): frames hold numbers, not {self.dtype}")
        if isinstance(frame_shape, (int, np.integer)) and not isinstance(frame_shape, bool):
            frame_shape = (int(frame_shape),)
        if not isinstance(frame_shape, (tuple, list)) or not frame_shape or not all(
                isinstance(d, (int, np.integer)) and not isinstance(d, bool) and d > 0
                for d in frame_shape):
            raise ValueError(f"MemSock(frame_shape=...) must be a tuple of positive ints, "
                             f"got {frame_shape!r}")
        self.frame_shape = tuple(int(d) for d in frame_shape)
        self.frame_elems = int(np.prod(self.frame_shape))
        payload = dict(payload or {})
        fields = []
        for name, t in payload.items():
            if not isinstance(name, str) or not name.isidentifier():
                raise ValueError(f"MemSock(payload=...): field name {name!r} is not an identifier")
            dt = _dtype(f"MemSock(payload={{{name!r}: ...}})", t)
            if dt not in _PAYLOAD:
                raise TypeError(f"MemSock payload field {name!r} is {dt}; payload fields are "
                                "vp.uint32, vp.int32 or vp.float32")
            fields.append((name, dt))
        if len(fields) > 64:
            raise ValueError("MemSock(payload=...) has at most 64 fields")
        self.payload = dict(fields)
        self._fmt = "<" + "".join(_PAYLOAD[dt][1] for _, dt in fields)
        self._unpack = struct.Struct(self._fmt).unpack  # compiled once: a frame's only decode
        self._Payload = collections.namedtuple("Payload", [n for n, _ in fields])
        self._sig_fields = [(n, _PAYLOAD[dt][0]) for n, dt in fields]
        self._handlers = {"message": [], "close": []}
        self._native = None
        self._ctx = None
        self._thread = None
        self._error = None
        self._ctrl = None
        self._timeouts = 0
        self._views = []
        self._lock = threading.Lock()

    # ------------------------------------------------------------- set-up

    def on(self, event, fn=None):
        """Registers fn(frame, *payload) for "message" (or fn() for "close");
        as a decorator: @pipe.on("message")."""
        if event not in self._handlers:
            raise ValueError(f"MemSock.on: unknown event {event!r} (use 'message' or 'close')")

        def register(f):
            if not callable(f):
                raise TypeError(f"MemSock.on({event!r}) needs a callable, got {f!r}")
            self._handlers[event].append(f)
            if self._native is not None and event == "message":
                self._start()
            return f

        return register(fn) if fn is not None else register

    def open(self, ctx=None, capacity=8, ctrl_view=None, ctrl_offset=0, policy="block",
             memory="cached"):
        """Allocates the ring on `ctx`: `capacity` frames in host-visible,
        host-coherent memory (`memory`: 'cached' or 'host', or the user's own
        pages: a vp.HostArray, a page-aligned NumPy array, or a vp.ndarray
        over imported host memory, of at least
        MemSock.required_bytes(...) bytes; the frames handed to callbacks are
        then views into that memory, which the pipe keeps alive; a device
        that cannot import it raises BufferError, never copies). policy: 'block'
        (the kernel waits for a free slot: lossless), 'skip' (a frame with no
        free slot is dropped and counted), 'overwrite' (the newest frames
        win; frames overwritten while read are detected and counted as torn).
        With ctrl_view (a vp.ControlBuffer or its uint32 view) the pipe keeps
        word ctrl_offset at the count of frames delivered and word
        ctrl_offset + 1 at 1 once closed, for a kernel to steer by."""
        if self._native is not None:
            raise RuntimeError("MemSock.open: the pipe is open already")
        ctx = _context.resolve(ctx)
        if isinstance(capacity, bool) or not isinstance(capacity, (int, np.integer)) or \
                not 1 <= capacity <= 1 << 20:
            raise ValueError(f"MemSock.open(capacity=...) must be an int in 1..2**20, "
                             f"got {capacity!r}")
        if policy not in _POLICIES:
            raise ValueError(f"MemSock.open(policy={policy!r}): use 'block', 'skip' or "
                             "'overwrite'")
        user, frames = None, None
        if not isinstance(memory, str):
            user, frames = memory, self._user_frames(memory, ctx, int(capacity))
            memory = "cached"  # unused: the frames are the user's
        elif memory not in ("cached", "host", "rebar", "device"):
            raise ValueError(f"MemSock.open(memory={memory!r}): use 'cached' or 'host', or "
                             "a vp.HostArray or page-aligned NumPy array (user pages)")
        if ctrl_view is not None:
            self._ctrl = self._ctrl_words(ctrl_view, ctrl_offset)
        ext = _native.ext()
        sig = ext.memsock_signature(self._sig_fields)
        self._native = ext.MemSock(ctx._native, self.dtype.itemsize, self.frame_elems,
                                   len(self._sig_fields), int(capacity), policy, memory, sig,
                                   frames=frames)
        self._user_memory = user  # the user's pages outlive the pipe
        self._ctx = ctx
        _OPEN.add(self)
        self.capacity = int(capacity)
        self.policy = policy
        self.memory = memory if user is None else "user"
        stride = self._native.stride
        mem = np.frombuffer(self._native, np.uint8)
        nbytes = self.frame_elems * self.dtype.itemsize
        self._views = []
        for j in range(self.capacity):
            v = mem[j * stride:j * stride + nbytes].view(self.dtype).reshape(self.frame_shape)
            v.flags.writeable = False
            self._views.append(v)
        self._frames_buf = self._native.frames
        self._ring_buf = self._native.ring
        self._ctrl_store(0, 0)
        self._ctrl_store(1, 0)
        if self._handlers["message"]:
            self._start()
        return self

    def required_bytes(self, capacity):
        """The bytes a ring of `capacity` frames takes in memory=<user pages>:
        capacity * the slot stride (each frame rounded up to 256 bytes)."""
        return _native.ext().memsock_frames_bytes(self.dtype.itemsize, self.frame_elems,
                                                  int(capacity))

    def _user_frames(self, mem, ctx, capacity):
        """The frames Buffer over the user's pages `mem` (no copy), or raises."""
        need = self.required_bytes(capacity)
        where = f"MemSock.open(memory=<{type(mem).__name__}>)"
        if isinstance(mem, np.ndarray):
            a = mem
        elif getattr(mem, "_vp_host_array", False) or isinstance(mem, _array.ndarray):
            a = None
        else:
            raise TypeError(f"{where}: memory= takes 'cached', 'host', a vp.HostArray, a "
                            "page-aligned NumPy array or a vp.ndarray over host pages")
        nbytes = mem.nbytes
        if nbytes < need:
            raise ValueError(f"{where}: the memory has {nbytes} bytes; {capacity} frames need "
                             f"{need} (MemSock.required_bytes({capacity}): capacity * the "
                             f"{need // capacity}-byte slot stride)")
        if a is None and not isinstance(mem, _array.ndarray):
            try:
                mem = mem.on(ctx, copy=False)
            except BufferError as e:
                raise BufferError(f"{where}: {e}") from e
        if a is None:
            if mem._ctx is not ctx:
                raise ValueError(f"{where}: the array lives in another context")
            if mem.base:
                raise ValueError(f"{where}: a view cannot hold the frames (its buffer does not "
                                 "start at the view); pass the whole array")
            return mem._buf
        target = _array._import_target(a, ctx) if ctx.has("external_memory_host") else None
        if target is None:
            raise BufferError(f"{where}: device '{ctx.name}' cannot import this array's "
                              "memory without a copy (it needs VK_EXT_external_memory_host, "
                              "and a C-contiguous, writable array whose address and size are "
                              "multiples of the import alignment: use vp.HostArray)")
        return _native.ext().Buffer.import_host(ctx._native, target)

    @staticmethod
    def _ctrl_words(view, offset):
        if hasattr(view, "_control"):  # a ControlBuffer
            n = view.words
        else:
            view = np.asarray(view)
            if view.dtype != np.uint32 or view.ndim != 1:
                raise TypeError("MemSock.open(ctrl_view=...) must be a vp.ControlBuffer or a "
                                f"1-D uint32 array, got {view.dtype} of {view.ndim} dims")
            n = view.shape[0]
        if isinstance(offset, bool) or not isinstance(offset, (int, np.integer)) or \
                not 0 <= offset <= n - _CTRL_WORDS:
            raise ValueError(f"MemSock.open(ctrl_offset={offset!r}): the pipe uses "
                             f"{_CTRL_WORDS} words and the control view has {n}")
        return view, int(offset)

    def _ctrl_store(self, k, value):
        if self._ctrl is None:
            return
        view, off = self._ctrl
        if hasattr(view, "_control"):
            view.store(off + k, value & 0xFFFFFFFF)
        else:
            view[off + k] = value & 0xFFFFFFFF

    # ----------------------------------------------------------- delivery

    def _frame(self, got):
        seq, slot, pay, copy = got
        frame = self._views[slot] if copy is None else \
            np.frombuffer(copy, self.dtype).reshape(self.frame_shape)
        values = self._unpack(pay) if self._fmt != "<" else ()
        return seq, frame, values

    def _start(self):
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._poll, name="vulpy-memsock", daemon=True)
        self._thread.start()

    def _poll(self):
        # per frame: the native wait (no GIL), the view and payload, the
        # callbacks, the release (the GPU's credit); nothing else
        native = self._native
        handlers = self._handlers["message"]
        frame_of = self._frame
        ctrl = self._ctrl is not None
        delivered = 0
        try:
            while True:
                got = native.next(0.05)  # waits with the GIL released
                if got is None:
                    continue
                if got is False:
                    break
                try:
                    _, frame, values = frame_of(got)
                    for fn in tuple(handlers):
                        fn(frame, *values)
                finally:
                    native.release()
                delivered += 1
                if ctrl:
                    self._ctrl_store(0, delivered)
        except BaseException as e:  # noqa: BLE001 - handed to the caller
            self._error = e
            native.close()  # the GPU stops waiting for this consumer
            self._ctrl_store(1, 1)

    def _raise_error(self):
        e, self._error = self._error, None
        if e is not None:
            raise e

    # -------------------------------------------------------- dispatches

    def _check_open(self, what):
        if self._native is None:
            raise RuntimeError(f"{what}: the MemSock is not open (call pipe.open(ctx, ...))")

    def _bind(self, ctx, bdefs, i, label):
        """The two buffers for manifest buffers i (frames) and i + 1 (ring)."""
        self._check_open(label)
        if ctx is not None and ctx is not self._ctx:
            raise ValueError(f"{label}: the MemSock is open on {self._ctx.name}, the kernel "
                             f"runs on {ctx.name}")
        b = bdefs[i] if i < len(bdefs) else None
        ring = bdefs[i + 1] if i + 1 < len(bdefs) else None
        if b is None or ring is None or ring["name"] != b["name"] + "_ring":
            name = b["name"] if b else "?"
            raise TypeError(f"{label}: a vp.MemSock was passed for buffer '{name}', which is "
                            "not a vp.MemSock[...] parameter")
        from ._types import entry_dtype
        if entry_dtype(b) != self.dtype:
            raise TypeError(f"{label}: parameter '{b['name']}' is a MemSock of "
                            f"{entry_dtype(b)} but the pipe's frames are {self.dtype}")
        return [self._frames_buf, self._ring_buf]

    def _begin(self):
        self._raise_error()
        self._native.begin_dispatch()

    def _end(self):
        """After the GPU finished a dispatch: account for its frames and, with
        callbacks, wait until they were delivered. A dispatch whose loops the
        device cut short (lavapipe's loop budget: the kernel's canary) raises
        once the frames delivered before are done; its others are dropped as
        torn (docs/memsock.md)."""
        cut = None
        try:
            self._native.end_dispatch()
        except Exception as e:  # noqa: BLE001 - re-raised below
            if "loops early" not in str(e):
                raise
            cut = e
        timeouts = self._native.stats()["gpu_timeouts"]
        if timeouts != self._timeouts and self.policy == "block":
            warnings.warn(f"vp.MemSock: the kernel gave up waiting for a free slot "
                          f"{timeouts - self._timeouts} time(s) and dropped those frames: "
                          f"a consumer that stalled, a device that cannot wait long "
                          f"(lavapipe), or a dispatch that fired more frames than the pipe "
                          f"has slots ({self.capacity}) with more workgroups than the device "
                          f"runs at once (the wait needs workgroups that cannot start). Give "
                          f"the pipe as many slots as one dispatch fires, or dispatch a grid "
                          f"the device holds at once (docs/memsock.md)",
                          RuntimeWarning, stacklevel=4)
        self._timeouts = timeouts
        if self._thread is not None:
            while not self._native.flush(0.1):
                if not self._thread.is_alive():
                    break
        self._raise_error()
        if cut is not None:
            raise cut

    # ---------------------------------------------------------- consumers

    def next(self, timeout=None):
        """The next frame as (frame, payload), waiting up to `timeout`
        seconds (None: until one comes or the pipe is closed and drained:
        then StopIteration). The frame view stays valid until the next call."""
        self._check_open("MemSock.next")
        if self._handlers["message"]:
            raise RuntimeError("MemSock.next: this pipe delivers to its on('message') callbacks")
        with self._lock:
            self._native.release()
            t = -1.0 if timeout is None else float(timeout)
            got = self._native.next(t)
            if got is None:
                raise TimeoutError(f"MemSock.next: no frame within {timeout} s")
            if got is False:
                raise StopIteration
            _, frame, values = self._frame(got)
            return frame, self._Payload(*values)

    def __iter__(self):
        while True:
            try:
                yield self.next()
            except StopIteration:
                return

    def __aiter__(self):
        return self._aiter()

    async def _aiter(self):
        import asyncio  # ~50 ms: only for `async for` (not at `import vulpy`)
        loop = asyncio.get_running_loop()
        while True:
            # the wait runs on an executor thread, without the GIL
            item = await loop.run_in_executor(None, self._next_or_none)
            if item is _END:
                return
            if item is not None:
                yield item

    def _next_or_none(self):
        try:
            return self.next(0.05)
        except TimeoutError:
            return None
        except StopIteration:  # cannot cross a Future
            return _END

    # -------------------------------------------------------------- state

    @property
    def stats(self):
        """Counters: published (frames the GPU finalized), delivered, dropped
        (skipped, lapped or left at close), torn (overwritten while read),
        pending, and the GPU's own counts gpu_dropped / gpu_timeouts."""
        if self._native is None:
            return {"published": 0, "delivered": 0, "dropped": 0, "torn": 0, "pending": 0,
                    "gpu_dropped": 0, "gpu_timeouts": 0, "closed": False, "failed": False}
        return self._native.stats()

    @property
    def is_open(self):
        return self._native is not None and not self._native.stats()["closed"]

    def close(self, timeout=10.0):
        """Closes the pipe, like a socket: the kernel stops writing frames
        and waiting for credit (its fires are dropped), frames not yet
        delivered are dropped (counted), iterators end, the poller thread
        stops. Raises the error a callback raised, if any."""
        if self._native is None:
            return
        if self._thread is None:
            with self._lock:  # the iterator's last frame goes back
                self._native.release()
        self._native.close()
        self._ctrl_store(1, 1)
        t = self._thread
        if t is not None and t is not threading.current_thread():
            t.join(timeout)
        for fn in list(self._handlers["close"]):
            fn()
        self._raise_error()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        state = "unopened" if self._native is None else \
            f"{self.policy}, capacity {self.capacity}, {self.stats['delivered']} delivered"
        return (f"vp.MemSock({self.dtype}, frame_shape={self.frame_shape}, "
                f"payload={list(self.payload)}; {state})")
