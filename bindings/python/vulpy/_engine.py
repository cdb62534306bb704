"""Compiling and running array-level VIR (vp.jit and the eager array API).

compile(text, ctx) hands the array function to the C compiler
(vulpy._vulpy.jit_compile: fuse, lower-arrays, GLSL, SPIR-V, manifests)
and caches the result by its text and the device's missing features, in
memory and in the kernel cache's disk folder (_compiler).
Compiled.run binds the graph's buffers by name, gives the temporaries the
lowering made (intermediates, reduction partials and counters) buffers of
their own, once per context, and submits the launches: a single kernel
through Kernel.dispatch, several through one Recording (one submission,
barriers between the kernels).

VULPY_REDUCE_GROUPS=<n> caps the workgroups of a full reduction at n (a
power of two, 64..32768; unset: the lowering's default, 4096 on a GPU,
1024 on a CPU device). It is read at each call and is part of the compile
cache key (and of the vp.jit and vp.sum plan keys), so a benchmark can
sweep it in one process.
"""
import collections
import functools
import json
import os
import threading
import weakref

from . import _compiler, _native
from ._launch import Program
from ._types import entry_dtype

# device features the lowering can do without (it works around their absence)
_LOWERING_FEATURES = ("subgroup_basic", "subgroup_arithmetic", "subgroup_vote", "storage8", "int8",
                      "storage16", "int16", "float16")  # issue 19: small types in words

_cache = collections.OrderedDict()
_CACHE_MAX = 512
_lock = threading.Lock()


REDUCE_GROUPS_ENV = "VULPY_REDUCE_GROUPS"
# read at every vp.sum call: os.environ.get of an unset variable raises and
# catches a KeyError inside, so it reads the encoded-key mapping directly
# (figures: bench/notes/python.md, history)
try:
    _env_raw = functools.partial(os.environ._data.get, os.environ.encodekey(REDUCE_GROUPS_ENV))
except AttributeError:  # not CPython's os._Environ
    _env_raw = functools.partial(os.environ.get, REDUCE_GROUPS_ENV)
_groups_memo = ("", 0)  # (the variable's raw value, its cap): parsed once per value


def reduce_groups():
    """The cap on a full reduction's workgroups from VULPY_REDUCE_GROUPS
    (0: unset, the lowering's default). A ValueError names the variable
    when it is not a power of two from 64 to 32768."""
    global _groups_memo
    raw = _env_raw()
    if not raw:
        return 0
    memo = _groups_memo
    if raw == memo[0]:
        return memo[1]
    text = os.environ.get(REDUCE_GROUPS_ENV, "")
    try:
        v = int(text.strip())
    except ValueError:
        v = -1
    if v < 64 or v > 32768 or v & (v - 1):
        raise ValueError(f"{REDUCE_GROUPS_ENV}={text!r}: the cap on a full reduction's "
                         f"workgroups must be a power of two from 64 to 32768 (unset it for "
                         f"the default)")
    _groups_memo = (raw, v)
    return v


def _masks(ctx):
    """(missing, available) VP_FEAT masks of the device."""
    m = getattr(ctx, "_vp_feature_masks", None)
    if m is None:
        names = _native.ext().feature_names()
        missing = available = 0
        for bit, n in enumerate(names):
            if ctx.has(n):
                available |= 1 << bit
            elif n in _LOWERING_FEATURES:
                missing |= 1 << bit
        m = ctx._vp_feature_masks = (missing, available)
    return m


class Compiled:
    """One compiled array function: its texts, kernels and launches."""

    def __init__(self, art, label, fast_math=False, text=None):
        self.art = art
        self.text = text  # the array VIR compiled (with locations)
        self.label = label
        self.launches = [tuple(x) for x in art["launches"]]
        # per launch: None, or the ops of the grid of a kernel over a dynamic
        # extent (tensor<?xT>), computed from the push field n at each run
        self.grids = list(art.get("grids") or [None] * len(self.launches))
        self._grid_memo = {}
        self.buffers = {b["name"]: b for b in art["buffers"]}
        self.programs = {}
        for name, k in art["kernels"].items():
            a = dict(k)
            a["vir"] = art["lowered"]
            a["key"] = ("jit", hash(bytes(k["spirv"])), name)
            self.programs[name] = Program(a, f"{label} ({name})", precise=not fast_math)
        self._temps = {}
        self._temps_lock = threading.Lock()

    # ------------------------------------------------------------ inspection
    @property
    def vir(self):
        """The array function as traced (before fusion)."""
        return self.art["vir"]

    @property
    def array_vir(self):
        """The array VIR text the compiler was given, locations included:
        `vulpy-translate --from=vir --arrays --to=glsl` on it prints .glsl
        (add --cpu-device for a CPU device, --no-fuse and --fast-math as the
        call had them)."""
        return self.text

    @property
    def fused_vir(self):
        return self.art["fused"]

    @property
    def lowered_vir(self):
        return self.art["lowered"]

    @property
    def glsl(self):
        """The GLSL of every kernel, in launch order."""
        seen, parts = set(), []
        for name, *_ in self.launches:
            if name not in seen:
                seen.add(name)
                parts.append(self.art["kernels"][name]["glsl"])
        return "\n".join(parts)

    @property
    def dispatches(self):
        """Kernel launches per call."""
        return len(self.launches)

    # ------------------------------------------------------------ running
    def temps(self, ctx, bound):
        """Buffers for the module's buffers nobody binds (made zeroed, once
        per context: the kernels leave their counters at zero)."""
        key = id(ctx)
        with self._temps_lock:
            # keyed by id(ctx) with a weak reference that says it is still
            # this context: a context that died may leave its id to a new one
            got = self._temps.get(key)
            t = got[1] if got is not None and got[0]() is ctx else None
            if t is None:
                t = {}
                for name, b in self.buffers.items():
                    if name in bound:
                        continue
                    dt = entry_dtype(b)
                    esize = (dt.itemsize if dt is not None else 4) * b["lanes"]
                    size = max(16, (b["count"] * esize + 15) & ~15)
                    t[name] = _native.ext().Buffer(ctx._native, size, "device")
                self._temps[key] = (weakref.ref(ctx), t)
            return t

    def grid(self, i, n):
        """The grid (gx, gy, gz) of launch i for extent n (a launch over a
        dynamic extent; its ops evaluated in C once per n)."""
        key = (i, n)
        g = self._grid_memo.get(key)
        if g is None:
            if len(self._grid_memo) >= 4096:
                self._grid_memo.clear()
            g = self._grid_memo[key] = _native.ext().launch_grid(self.grids[i], n)
        return g

    def _calls(self, ctx, bind, push):
        temps = None
        calls = []
        for i, (name, gx, gy, gz) in enumerate(self.launches):
            if self.grids[i] is not None:
                gx, gy, gz = self.grid(i, int(push["n"]))
            prog = self.programs[name]
            k = prog.native(ctx)
            bufs = []
            for b in prog.buffers:
                buf = bind.get(b["name"])
                if buf is None:
                    if temps is None:
                        temps = self.temps(ctx, bind)
                    buf = temps[b["name"]]
                bufs.append(buf)
            pk = prog.packer
            data = pk.pack({n: push[n] for n in pk.names}) if pk.names else None
            calls.append((k, bufs, data, gx, gy, gz))
        return calls

    def timer(self, ctx, bind, push, repeat=1):
        """A function running the launches `repeat` times back to back and
        returning their GPU nanoseconds per run (one recording with
        timestamps, made here, submitted at each call; the sum of its
        dispatches' times over `repeat`). Back-to-back runs keep the GPU
        busy, so its clocks stay up: a single short dispatch after an idle
        host sync can be timed at idle clocks (bench/notes/fusion.md)."""
        rec = _native.ext().Recording(ctx._native, True)
        calls = self._calls(ctx, bind, push)
        for _ in range(max(1, int(repeat))):
            for k, bufs, data, gx, gy, gz in calls:
                rec.dispatch(k, bufs, data, gx, gy, gz, True)
        n = max(1, int(repeat))

        def run():
            rec.run()
            return sum(rec.times()) / n
        return run

    def run(self, ctx, bind, push, sync=True, readback=None):
        """Submits the launches; `bind` maps buffer names to Buffers, `push`
        field names to values. `readback` (dst, dst_offset, src, src_offset,
        size): a copy after the last launch in the same submission (a small
        result into host-visible memory, read with no second submission).
        Returns None (sync) or something with wait()/done (a Ticket, or a
        Recording's Ticket kept with it). sync=None: eager where the program
        is one launch without readback (submitted, not waited for; host
        reads and writes of its buffers wait), else as sync=True."""
        calls = self._calls(ctx, bind, push)
        if not calls:
            return None
        if len(calls) == 1:
            k, bufs, data, gx, gy, gz = calls[0]
            return k.dispatch(bufs, data, gx, gy, gz, True,
                              True if sync is None and readback is not None else sync, readback)
        sync = True if sync is None else sync
        rec = _native.ext().Recording(ctx._native, False)
        for k, bufs, data, gx, gy, gz in calls:
            rec.dispatch(k, bufs, data, gx, gy, gz, True)
        if readback is not None:
            rec.copy(*readback)
        if sync:
            rec.run()
            return None
        return _RecordingTicket(rec, rec.submit())


class _RecordingTicket:
    """A Recording's ticket that keeps the recording alive until waited on."""

    __slots__ = ("rec", "ticket")

    def __init__(self, rec, ticket):
        self.rec, self.ticket = rec, ticket

    def wait(self, timeout=None):
        self.ticket.wait(timeout)
        self.rec = None

    @property
    def done(self):
        return self.ticket.done


def compile(text, ctx, label="vp.jit", fuse=True, fast_math=False):
    """The Compiled of array-VIR `text` for `ctx`'s device (cached)."""
    missing, available = _masks(ctx)
    # a CPU device runs invocations as SIMD lanes (docs/fusion.md, "CPU
    # devices"); tests set ctx._vp_cpu_lowering to lower for the other kind
    cpu = getattr(ctx, "_vp_cpu_lowering", None)
    if cpu is None:
        cpu = ctx.kind == "cpu"
    groups = reduce_groups()
    key = (text, missing, fuse, fast_math, cpu, groups)
    with _lock:
        c = _cache.get(key)
        if c is not None:
            _cache.move_to_end(key)
            return c
    # the kernel cache's disk folder keeps compiles across processes (an
    # eager ufunc's first call in a new process then compiles nothing)
    fkey = _compiler._fast_key(("array", text, label, missing, available, fuse, fast_math,
                                cpu, groups), {})
    flat = _compiler._cached(fkey, ())
    art = _unflat(flat) if flat is not None and "art" in flat else None
    if art is None:
        art = _native.ext().jit_compile(text, label, fuse, missing, fast_math=fast_math,
                                        features=available, cpu_device=cpu,
                                        reduce_groups=groups)
        _compiler.count_compiled()
        _compiler._remember(fkey, _flat(art))
    c = Compiled(art, label, fast_math, text)
    with _lock:
        _cache[key] = c
        while len(_cache) > _CACHE_MAX:
            _cache.popitem(last=False)
    return c


def _flat(art):
    """jit_compile's result as the disk cache stores it: texts and bytes."""
    meta = {k: v for k, v in art.items() if k != "kernels"}
    meta["kernels"] = {n: {"glsl": k["glsl"], "manifest": k["manifest"]}
                       for n, k in art["kernels"].items()}
    out = {"key": "array", "art": json.dumps(meta)}
    for n, k in art["kernels"].items():
        out["spirv:" + n] = bytes(k["spirv"])
    return out


def _unflat(flat):
    """The result _flat stored; None (compile again) when an entry lacks a
    part or a kernel's SPIR-V does not match its manifest (check_entry, as
    for kernel entries)."""
    try:
        art = json.loads(flat["art"])
        for n, k in art["kernels"].items():
            k["spirv"] = bytes(flat["spirv:" + n])
            if _native.ext().check_entry(k["spirv"], k["manifest"]):
                return None
    except (KeyError, ValueError, TypeError, AttributeError):
        return None
    return art
