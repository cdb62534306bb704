"""What every way of running a kernel shares: the compiled Program (SPIR-V,
manifest and the texts it came from), its pipelines per Context, packing of
push constants by name, the Handle that `sync=False` returns, and
ufunc_c_call, which gives a ufunc the extension's call in C.
"""

import functools

from . import _array, _native
from ._types import entry_dtype


class PushPacker:
    """Packs keyword values into a kernel's push-constant block, as the
    manifest lays it out, with the extension's push_pack: the one packer
    that vulpy-run and the Launcher use too (lib/Manifest/push_pack.c
    says which value a field holds). The dispatch guard's field stays zero:
    the runtime fills it."""

    def __init__(self, manifest, label):
        self.label = label
        guard = manifest.get("dispatch_guard")
        names, fields, types, pos = [], [], {}, 0
        for f in sorted(manifest["push"], key=lambda f: f["offset"]):
            pos = max(pos, f["offset"] + f["size"])
            if f["name"] == guard:
                continue
            code, n = f["code"], f["lanes"]
            if code is None:
                raise TypeError(f"{label}: push constant '{f['name']}' has type {f['type']}, "
                                "which VulPy cannot pack from Python")
            names.append(f["name"])
            fields.append((f["name"], code, n, f["offset"]))
            types[f["name"]] = f["type"]
        self.names = tuple(names)
        self.types = types
        self._fields = tuple(fields)
        self.size = max(manifest.get("push_size") or 0, pos)

    def pack(self, values):
        """bytes of the block from a dict name -> value; TypeError naming a
        missing, unknown or unrepresentable constant."""
        if not self.names:
            if values:
                self._unknown(values)
            return None
        data = _native.ext().push_pack(self._fields, self.size, values)
        if data is None:
            self._why(values)
        if len(values) != len(self.names):
            self._unknown(values)
        return data

    def _why(self, values):
        """Raises the TypeError that says why push_pack refused `values`."""
        missing = [n for n in self.names if n not in values]
        if missing:
            raise TypeError(f"{self.label}: missing push constant "
                            f"{', '.join(repr(m) for m in missing)} "
                            f"({', '.join(self.types[m] for m in missing)})")
        pack = _native.ext().push_pack
        for name, code, n, _ in self._fields:
            if pack(((name, code, n, 0),), 8 * n, {name: values[name]}) is None:
                raise TypeError(f"{self.label}: push constant '{name}' "
                                f"({self.types[name]}) cannot hold {values[name]!r}")
        raise TypeError(f"{self.label}: the push constants cannot be packed")

    def _unknown(self, values):
        extra = [k for k in values if k not in self.types]
        if extra:
            have = ", ".join(self.names) or "no push constants"
            raise TypeError(f"{self.label}: unknown push constant {extra[0]!r} (it has: {have})")


class Program:
    """A compiled kernel: artifacts {'spirv', 'manifest', 'glsl', 'vir', ...}
    and, per Context, its pipeline (made on first use). `precise`: VulPy
    compiled it with precise math, so its pipelines keep subnormals where
    the context says so (Context.denorm_preserve, VULPY_DENORM); raw GLSL
    and SPIR-V leave it False and run as written."""

    def __init__(self, artifacts, label, local_size=None, precise=False):
        self.artifacts = artifacts
        self.label = label
        self.precise = bool(precise)
        self.manifest = _native.ext().manifest_parse(artifacts["manifest"])
        self.local_size = tuple(local_size) if local_size else None
        self.packer = PushPacker(self.manifest, label)
        self.buffers = self.manifest["buffers"]
        self.key = artifacts.get("key") or id(self)

    def native(self, ctx):
        """The pipeline on `ctx` (cached in the context)."""
        k = ctx._kernels.get(self.key)
        if k is None:
            for feat in self.manifest["features"]:
                ctx.require(feat, f"{self.label}")
            _check_loops(self, ctx)
            k = _native.ext().Kernel(ctx._native, self.artifacts["spirv"],
                                     self.artifacts["manifest"], self.local_size, True,
                                     self.precise, self.precise)
            ctx._kernels[self.key] = k
        return k

    def launcher(self, ctx):
        """The extension's Launcher for this program on `ctx`: the common call
        (resident arrays of the bound dtypes, scalar push constants) done in
        C; anything else it hands back to the Python path. None when every
        call needs the Python path (a vector or float16 push constant)."""
        guard = self.manifest.get("dispatch_guard")
        fields = []
        for f in self.manifest["push"]:
            if f["name"] == guard:
                continue
            code, lanes = f["code"], f["lanes"]
            if code is None or lanes != 1 or code == "e":
                return None
            fields.append((f["name"], code, f["offset"]))
        if self.packer.size > 512 or len(fields) > 64 or len(self.buffers) > 64:
            return None
        wants = []
        for b in self.buffers:  # as launch() checks them (_kernel._check_elem)
            want = entry_dtype(b)
            if want is not None and b["lanes"] > 1:
                want = (want, want.itemsize, b["elem_size"] or want.itemsize)
            wants.append(want)
        wants = tuple(wants)
        return _native.ext().Launcher(self.native(ctx), _array.ndarray, Handle, wants,
                                      fields, self.packer.size)


class Handle:
    """What a call with sync=False returns: the work is submitted; wait()
    blocks until it is done (the GIL is released meanwhile) and returns the
    call's result."""

    __slots__ = ("_ticket", "_finish", "_result", "_done")

    def __init__(self, ticket, finish=None, result=None):
        """Made by the launch paths, not by users: `ticket` is the
        submission's timeline value on its context, `finish` a function
        run once after the wait (it makes the result), `result` the result
        when there is nothing to finish."""
        self._ticket, self._finish, self._result, self._done = ticket, finish, result, False

    def wait(self, timeout=None):
        """Blocks until the work is done; returns the result (the output
        array, or None for kernels)."""
        if not self._done:
            if self._ticket is not None:
                self._ticket.wait(timeout)
            if self._finish is not None:
                self._result = self._finish()
            self._done = True
        return self._result

    @property
    def done(self):
        """True once the GPU finished (never blocks)."""
        return self._done or self._ticket is None or self._ticket.done

    def __repr__(self):
        return f"<vp.Handle {'done' if self.done else 'pending'}>"


def grid_2d(ctx, items, local):
    """Groups (gx, gy) covering `items` invocations with `local` per group in
    a 2-D grid (x first, up to the device limit), and the row pitch
    gx * local that turns (x, y) back into a linear index."""
    groups = -(-items // local)
    maxx = ctx.info["limits"]["max_workgroup_count"][0] or 65535
    gx = min(groups, maxx)
    gy = -(-groups // gx) if gx else 0
    return gx, gy, gx * local


# The x extent of the library kernels' grids (_sort, _sort_onesweep,
# _compact): more workgroups go in rows, which the kernels fold back
# (_kernel_helpers.tile_id); tests set a small one to run the fold.
MAX_GX = 32768


def rows_grid(count):
    """(gx, gy): `count` workgroups in rows of at most MAX_GX."""
    gx = max(1, min(count, MAX_GX))
    return gx, -(-count // gx)


class Recorder:
    """Dispatches of the library's own kernels (vp.kernel objects),
    recorded into one submission that run() sends; `rec` is the
    extension's Recording (fill, copy). With `profile`, each dispatch
    carries GPU timestamps and `names` lists the kernels in order."""

    def __init__(self, ctx, profile=False):
        self.ctx = ctx
        self.prof = profile
        self.rec = _native.ext().Recording(ctx._native, profile)
        self.names = []

    def __call__(self, kern, bufs, groups, **push):
        """Records kern over `bufs` (resident arrays or buffers) on
        `groups` = (gx, gy) with the push constants by name."""
        prog = kern.program()
        bufs = [b._buf if isinstance(b, _array.ndarray) else b for b in bufs]
        self.rec.dispatch(prog.native(self.ctx), bufs, prog.packer.pack(push), groups[0],
                          groups[1], 1, True)
        self.names.append(kern.__name__)

    def run(self):
        self.rec.run()


def _check_loops(prog, ctx):
    """Warns when a kernel's loops with constant trip counts add up to more
    back-edges per invocation than the device runs before ending loops
    silently (lavapipe: ctx.limits['max_loop_iterations']; issue 20)."""
    n = int(prog.artifacts.get("loop_backedges") or 0)
    if n <= 65535:  # below every known limit: skip building ctx.limits
        return
    lim = ctx.limits.get("max_loop_iterations")
    if lim is not None and n > lim:
        import warnings
        warnings.warn(f"{prog.label}: its loops take {n} iterations per invocation, more than "
                      f"the {lim} after which {ctx.name} ends loops silently "
                      f"(ctx.limits['max_loop_iterations']): its results will be wrong there; "
                      f"spread the work over more invocations", RuntimeWarning, stacklevel=4)


@functools.lru_cache(maxsize=None)
def _c_call_class(cls):
    """The subclass of ufunc class `cls` whose calls run in C (launch.c,
    ufunc_call_class; its `_call` is cls.__call__, the Python path), with
    cls's signature for inspect."""
    import inspect
    sub = _native.ext().ufunc_call_class(cls, f"{cls.__module__}.{cls.__qualname__}")
    sub.__qualname__, sub.__doc__ = cls.__qualname__, cls.__doc__
    params = list(inspect.signature(cls.__call__).parameters.values())[1:]  # no self
    sub.__signature__ = inspect.Signature(params)
    sub._vp_c_call = True
    return sub


def ufunc_c_call(uf):
    """Gives ufunc `uf` the extension's call in C (launch.c, "UfuncCall"):
    its calls then reach the Launcher.ufunc its `_fastw` / `_fastnw` refer
    to with no Python frame, and go to its class's __call__ when that
    declines. Called when the Python path plans a Launcher.ufunc (the
    extension is loaded by then; `import vulpy` makes the ufuncs as plain
    objects and loads no compiled module). The object's class is swapped in
    place - the subclass adds no field - so every reference to `uf` (vp.add,
    an operator's) sees it."""
    cls = type(uf)
    if not cls.__dict__.get("_vp_c_call"):
        uf.__class__ = _c_call_class(cls)
