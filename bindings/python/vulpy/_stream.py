"""Streams and events (issue 18; docs/multidevice.md, "Streams").

`vp.Stream(context=None, kind="compute"|"transfer")` is an in-order line of
GPU work on one of the context's queues, CuPy's word and model: work launched
inside `with stream:` (kernels, ufuncs, uploads, copies) goes to that stream,
as does a kernel call given `stream=`. Two streams are not ordered with each
other: `stream.record()` returns a `vp.Event` marking the work submitted so
far, and `other.wait_event(ev)` makes `other`'s later work wait for it on the
GPU (the host does not block). `stream.synchronize()` waits for that stream
alone; `vp.Event.synchronize()` for the event.

The C runtime does the work (runtime/stream.c); this module is the Python
face: argument checks and the thread's stack of current streams.
"""
import threading

from . import _native

_local = threading.local()


def _ctx(context):
    from . import _context
    return context if context is not None else _context.default_context()


def _stack():
    s = getattr(_local, "stack", None)
    if s is None:
        s = _local.stack = []
    return s


class Stream:
    """A stream of work on `context` (default: the default context).

    kind='compute' runs kernels and copies on a compute queue of its own
    where the device has more than one, else on the default stream's queue
    (`shared` is then True: the work runs in submission order with the
    default stream's, still unordered with respect to the events you do not
    ask for). kind='transfer' is for uploads and downloads: a queue of a
    transfer-only family where the device has one (kernels are then an
    error on it), else the same choice as a compute stream.

    `with stream:` makes it the current stream of this thread for its
    context: everything launched in the block on that context goes to it.
    Streams nest; leaving the block restores the previous one.

    Example:
        >>> import vulpy as vp, numpy as np
        >>> s = vp.Stream()
        >>> with s:
        ...     y = vp.asarray(np.arange(4, dtype=np.float32)) * 2
        >>> s.synchronize()
        >>> y.numpy().tolist()
        [0.0, 2.0, 4.0, 6.0]
    """

    def __init__(self, context=None, kind="compute"):
        if kind not in ("compute", "transfer"):
            raise ValueError(f"vp.Stream: kind={kind!r}: use 'compute' or 'transfer'")
        self.context = _ctx(context)
        self._native = _native.ext().Stream(self.context._native, kind)

    @property
    def kind(self):
        """'compute' or 'transfer'."""
        return self._native.kind

    @property
    def queue_family(self):
        """The Vulkan queue family the stream submits to."""
        return self._native.queue_family

    @property
    def queue_index(self):
        """The queue's index in its family (0 is the default stream's)."""
        return self._native.queue_index

    @property
    def shared(self):
        """True when the stream shares the default stream's Vulkan queue."""
        return self._native.shared

    def synchronize(self, timeout=None):
        """Waits (GIL released) for the work submitted on this stream so far."""
        self._native.synchronize(timeout)

    def query(self):
        """True when the stream's work so far is done (never blocks)."""
        return self._native.query()

    done = property(query)

    def record(self, event=None):
        """Records `event` (a new vp.Event when None) at this point of the
        stream and returns it."""
        ev = event if event is not None else Event(self.context)
        ev.record(self)
        return ev

    def wait_event(self, event):
        """The stream's later work waits for `event`. An event of the same
        context: a GPU wait (the host goes on; returns 'gpu'). An event
        recorded on a stream of another context on the same physical device,
        where the driver exports timeline semaphores
        (VK_KHR_external_semaphore_fd): a GPU wait on the exported semaphore
        ('semaphore'). Otherwise (another device, a CPU device, an event of
        a default stream): the host waits for it now ('host').
        `event.how` says the same."""
        if not isinstance(event, Event):
            raise TypeError(f"wait_event: expected a vp.Event, got {type(event).__name__}")
        event.how = event._native.wait_on(self.context._native, self._native)
        return event.how

    def __enter__(self):
        _stack().append(self)
        _native.ext().stream_activate(self._native)
        return self

    def __exit__(self, *exc):
        st = _stack()
        st.pop()
        _native.ext().stream_activate(st[-1]._native if st else None)
        return False

    def __repr__(self):
        share = ", shared queue" if self.shared else ""
        return (f"<vp.Stream {self.kind} on {self.context.name}: queue family "
                f"{self.queue_family}, index {self.queue_index}{share}>")


def current_stream():
    """The stream of the innermost `with stream:` block of this thread, or
    None (the default stream)."""
    st = _stack()
    return st[-1] if st else None


def using(stream, label):
    """A stream= argument, checked, for `with _stream.using(stream, label):`."""
    if not isinstance(stream, Stream):
        raise TypeError(f"{label}: stream= takes a vp.Stream, got {type(stream).__name__}")
    return stream


class Event:
    """A point on a stream (CuPy's and CUDA's word).

    `ev.record(stream=None)` marks the work submitted on `stream` so far (the
    current stream, or the default one); `ev.query()` / `ev.done` say whether
    it is done, `ev.synchronize()` waits for it, `stream.wait_event(ev)`
    orders a stream after it. An event never recorded is done.
    `vp.Event(context, gate=True)` makes a gate the host opens with
    `ev.set()`: streams that wait on it hold their work until then (tests
    and pipelines that feed a stream from the host use it).
    `how` is how the last `wait_event` waited: 'gpu' (a semaphore wait on
    the device), 'semaphore' (another context's exported semaphore, waited
    on by the device) or 'host' (the host waited).
    Elapsed time between events is not measured (no timestamp queries yet).
    """

    def __init__(self, context=None, *, gate=False):
        self.context = _ctx(context)
        self._native = _native.ext().Event(self.context._native, gate=bool(gate))
        self.gate = bool(gate)
        self.how = None

    def record(self, stream=None):
        if stream is None:
            cur = current_stream()
            stream = cur if cur is not None and cur.context is self.context else None
        if stream is not None and not isinstance(stream, Stream):
            raise TypeError(f"Event.record: expected a vp.Stream or None, got "
                            f"{type(stream).__name__}")
        if stream is not None and stream.context is not self.context:
            raise ValueError(f"Event.record: the event belongs to {self.context!r}, the "
                             f"stream to {stream.context!r}")
        self._native.record(stream._native if stream is not None else None)
        return self

    def query(self):
        return self._native.query()

    done = property(query)

    def synchronize(self, timeout=None):
        self._native.synchronize(timeout)

    def wait(self, timeout=None):
        """The same as synchronize(): lets an event go to `after=`."""
        self._native.synchronize(timeout)

    def set(self):
        """Opens a gate event (vp.Event(..., gate=True))."""
        self._native.set()

    def __repr__(self):
        state = "done" if self.done else "pending"
        return f"<vp.Event on {self.context.name}: {state}>"
