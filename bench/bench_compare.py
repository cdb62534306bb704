"""VulPy against its peers in one process: the raw-Vulkan reference
(libvkref.so), CuPy, NumPy and Taichi's Vulkan backend, on the cases of
issue 8. bench/notes/compare.md says what each case measures and the goals.

    1. resident elementwise: copy, sin(x)+exp(x), the seed's jit expression
    2. convenience: NumPy in, NumPy out, 1M float32
    3. dispatch: tiny kernel sync round trip; back-to-back async dispatches
    4. compile: cold (new process, empty caches) and warm (disk cache)
    5. reductions: sum and max
    6. transfers per memory kind

Every backend's result is checked against NumPy before it is timed; runs
are interleaved (benchlib.interleave) and ratios are medians of per-pair
ratios. Sizes shrink on a CPU device (lavapipe) and with --quick.
"""
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from benchlib import (Recorder, Skip, WrongResult, check_close, check_equal,  # noqa: E402
                      gc_quiet, interleave, optional, vkref, vulpy, vulpy_skip, wall)


TINY = 64  # elements of the dispatch round-trip kernel (one workgroup)

CUDA_TINY = r"""
extern "C" __global__ void tiny(const float *x, float *y, float a, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}
"""


TAICHI_PROBE = r"""
import sys
import numpy as np
import taichi as ti
ti.init(arch=ti.vulkan, offline_cache=False, log_level=ti.WARN)
arch = ti.lang.impl.current_cfg().arch
if arch != ti.vulkan:
    print(f"VULPY_PROBE: Taichi fell back to {arch} (no usable Vulkan device for it)")
    sys.exit(3)
a = ti.ndarray(ti.f32, 64)
a.from_numpy(np.arange(64, dtype=np.float32))


@ti.kernel
def k(x: ti.types.ndarray()):
    for i in x:
        x[i] = 2.0 * x[i]


k(a)
ti.sync()
if not (a.to_numpy() == 2 * np.arange(64, dtype=np.float32)).all():
    print("VULPY_PROBE: Taichi's tiny Vulkan kernel gave a wrong result")
    sys.exit(4)
print("VULPY_PROBE: ok")
"""


def taichi_probe(timeout=180):
    """None when Taichi's Vulkan backend runs a tiny kernel in a new
    process; else why not, from the probe's last words."""
    # A file, not `python -c`: Taichi reads a kernel's source from its file.
    with tempfile.TemporaryDirectory(prefix="vulpy-taichi-probe-") as d:
        probe = Path(d) / "taichi_probe.py"
        probe.write_text(TAICHI_PROBE)
        try:
            # unbuffered: a probe that crashes still says how far it got
            p = subprocess.run([sys.executable, str(probe)], capture_output=True, text=True,
                               timeout=timeout, cwd=d,
                               env=dict(os.environ, PYTHONUNBUFFERED="1"))
        except subprocess.TimeoutExpired:
            return (f"the probe (import, ti.init(arch=ti.vulkan), a tiny kernel) took over "
                    f"{timeout} s")
    out = (p.stdout or "") + "\n" + (p.stderr or "")
    if p.returncode == 0 and "VULPY_PROBE: ok" in out:
        return None
    said = [ln.strip() for ln in out.splitlines() if ln.strip()]
    mine = [ln[len("VULPY_PROBE: "):] for ln in said if ln.startswith("VULPY_PROBE: ")]
    if mine:
        return mine[-1]
    how = f"exit {p.returncode}" if p.returncode >= 0 else f"killed by signal {-p.returncode}"
    tail = " | ".join(said[-3:])[-240:]
    return f"the probe died ({how}): {tail or 'no output'}"


class Env:
    """The libraries of this run, each loaded on first use (Skip if absent)."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.quick = ctx.quick
        self._ti = None
        self._kernels = {}
        dev_kind, name = None, None
        try:
            r = vkref(ctx)
            dev_kind, name = r.kind, r.name
        except Skip:
            pass
        try:
            vp = vulpy()
            c = vp.default_context()
            dev_kind, name = c.kind, c.name
        except Skip:
            pass
        self.device = name or "no Vulkan device"
        self.cpu = dev_kind in (None, "cpu")

    # -- libraries
    @property
    def vp(self):
        return vulpy()

    @property
    def vk(self):
        return vkref(self.ctx)

    @property
    def cp(self):
        cp = optional("cupy")
        try:
            if cp.cuda.runtime.getDeviceCount() < 1:
                raise Skip("cupy: no CUDA device")
        except Skip:
            raise
        except Exception as e:  # noqa: BLE001
            raise Skip(f"cupy: no CUDA device ({type(e).__name__}: {e})"[:200])
        return cp

    @property
    def ti(self):
        """Taichi on its Vulkan backend, or Skip saying why not. A new
        process tries it first (import, ti.init(arch=ti.vulkan), one tiny
        kernel): a Taichi that falls back to another arch, raises, or
        crashes the interpreter (a missing Vulkan driver can abort inside
        ti.init) then costs this suite one skip record per case, not its
        life."""
        if self._ti is None:
            try:
                optional("taichi")
                why = taichi_probe()
                if why:
                    raise Skip(f"taichi vulkan unusable here: {why}")
                ti = optional("taichi")
                ti.init(arch=ti.vulkan, offline_cache=False, log_level=ti.WARN)
                arch = ti.lang.impl.current_cfg().arch
                if arch != ti.vulkan:
                    self._ti = Skip(f"taichi: no Vulkan backend here (fell back to {arch})")
                else:
                    self._ti = ti
            except Skip as e:
                # bench/device/suites.sh says why the carried Taichi wheels did not install
                note = os.environ.get("VULPY_BENCH_TAICHI_NOTE")
                self._ti = Skip(f"{e}; {note}"[:300]) if note else e
            except Exception as e:  # noqa: BLE001
                self._ti = Skip(f"taichi: {type(e).__name__}: {e}"[:200])
        if isinstance(self._ti, Skip):
            raise self._ti
        return self._ti

    def kernel(self, name, **opts):
        """vp.kernel(local_size_x=256) of compare_kernels.<name>, made once."""
        key = (name, tuple(sorted(opts.items())))
        if key not in self._kernels:
            vp = self.vp
            import compare_kernels
            fn = getattr(compare_kernels, name)
            self._kernels[key] = vp.kernel(local_size_x=opts.get("local_size_x", 256))(fn)
        return self._kernels[key]

    # -- plans
    def sizes(self):
        """Resident sizes: 2^20/2^24/2^28 on a GPU, smaller on a CPU device."""
        if self.cpu:
            return [1 << 16] if self.quick else [1 << 16, 1 << 20]
        return [1 << 20, 1 << 24] if self.quick else [1 << 20, 1 << 24, 1 << 28]

    def reps(self, n=None):
        if self.cpu:
            return 3 if self.quick else 7
        return 5 if self.quick else 20


def setup(rec, case, size, backend, fn):
    """Runs a backend's setup; returns its runner, or None after recording
    why not (skip, wrong result, error)."""
    try:
        return fn()
    except Skip as e:
        rec.skip(case, size, backend, e)
    except WrongResult as e:
        rec.error(case, size, backend, f"WRONG RESULT: {e}")
    except Exception as e:  # noqa: BLE001
        if backend.startswith("vulpy") and vulpy_skip(e):
            rec.skip(case, size, backend, f"{type(e).__name__}: {e}")
        elif isinstance(e, MemoryError) or "OutOfMemory" in type(e).__name__:
            rec.skip(case, size, backend, f"out of memory: {e}")
        else:
            rec.error(case, size, backend, f"{type(e).__name__}: {e}")
    return None


def record_runs(rec, case, size, samples, unit, scale, inverse, methods, **extra):
    """Records each backend's samples (or the exception that stopped it)."""
    for b, s in samples.items():
        if isinstance(s, Exception):
            rec.error(case, size, b, f"{type(s).__name__}: {s}")
        elif s:
            rec.add(case, size, b, s, unit, scale=scale, inverse=inverse,
                    method=methods.get(b, ""), **extra)


# ---------------------------------------------------------------- timers

def cuda_events(cp, fn, batch=1):
    """A runner timing `batch` calls of fn with CUDA events: ns per call."""
    start, stop = cp.cuda.Event(), cp.cuda.Event()

    def run():
        start.record()
        for _ in range(batch):
            fn()
        stop.record()
        stop.synchronize()
        return cp.cuda.get_elapsed_time(start, stop) * 1e6 / batch
    return run


def pipelined(submit, wait, batch):
    """A runner: `batch` asynchronous submissions, one wait: ns per call."""
    def run():
        t0 = time.perf_counter_ns()
        h = None
        for _ in range(batch):
            h = submit()
        wait(h)
        return (time.perf_counter_ns() - t0) / batch
    return run


def batch_for(n):
    """Calls per sample for pipelined and event timers: enough that one
    sample is not all launch overhead."""
    return 1 if n >= 1 << 24 else (8 if n >= 1 << 20 else 32)


# ---------------------------------------------------------------- 1. resident

def case_resident(env, rec):
    for n in env.sizes():
        x = np.linspace(0.0, 1.0, n, dtype=np.float32)
        _resident_op(env, rec, "copy", n, x, x, x, 8)
        _resident_op(env, rec, "sin+exp", n, x, x, np.sin(x) + np.exp(x), 8)
        # The seed's expression on random a and b, as the fusion suite runs
        # it: a > b differs between neighbours, so a warp runs both sides
        # of the select. (Until the second H200 run b was 0.5 * a with a
        # ramp: a > b everywhere, only sin ran, and the figure flattered
        # every library's where; bench/notes/compare.md.)
        rng = np.random.default_rng(n)
        a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
        _resident_op(env, rec, "jit where(a > b, sin a, cos b)", n, a, b,
                     np.where(a > b, np.sin(a), np.cos(b)), 12)


def _resident_op(env, rec, op, n, x, b_host, want, bpe):
    case = f"resident {op}"
    runners, methods = {}, {}
    exact = op == "copy"
    tol = 1e-5  # relative: ~80 ulp; VulPy's precise sin/exp promise 4 ulp

    def check(got, what):
        return check_equal(got, want, what) if exact else check_close(got, want, tol, 1e-6, what)

    def add(backend, method, make):
        r = setup(rec, case, n, backend, make)
        if r is not None:
            runners[backend] = r
            methods[backend] = method

    # -- VulPy: one kernel from Python, scalar and vec4 accesses
    kern = {"copy": ("vk_copy", "vk_copy4"), "sin+exp": ("vk_sinexp", "vk_sinexp4")}.get(op)
    if kern:
        for fn, lanes in ((kern[0], 1), (kern[1], 4)):
            def make(fn=fn, lanes=lanes):
                vp = env.vp
                k = env.kernel(fn)
                xv = vp.asarray(x, memory="device")
                yv = vp.empty(n, np.float32, memory="device")
                k(xv, yv, dispatch=n // lanes)
                check(yv.numpy(), f"vp.kernel {fn}")
                prog = k.program()
                nk = prog.native(vp.default_context())
                push = prog.packer.pack({})
                bufs = [xv.buffer, yv.buffer]
                if hasattr(nk, "dispatch_timed"):
                    return lambda: nk.dispatch_timed(bufs, push, n // lanes, 1, 1, False)
                return pipelined(lambda: k(xv, yv, dispatch=n // lanes, sync=False),
                                 lambda h: h.wait(), batch_for(n))
            add(f"vulpy kernel {'vec4' if lanes == 4 else 'float'}", "timestamps", make)

    # -- VulPy: vp.jit (fusion) and the ufunc chain (one kernel per op)
    def make_jit():
        vp = env.vp
        if not hasattr(vp, "jit"):
            raise Skip("vp.jit not in this build (issue 7)")
        xv = vp.asarray(x, memory="device")
        bv = vp.asarray(b_host, memory="device")
        if op == "copy":
            f = vp.jit(lambda a: a + 0.0)
            args = (xv,)
        elif op == "sin+exp":
            f = vp.jit(lambda a: vp.sin(a) + vp.exp(a))
            args = (xv,)
        else:
            f = vp.jit(lambda a, b: vp.where(a > b, vp.sin(a), vp.cos(b)))
            args = (xv, bv)
        out = vp.empty(n, np.float32, memory="device")
        # The call forms fusion may offer, most asynchronous first.
        forms = [(lambda: f(*args, out=out, sync=False), _wait, out),
                 (lambda: f(*args, out=out), None, out),
                 (lambda: f(*args, sync=False), _wait, None),  # a new output each call
                 (lambda: f(*args), None, None)]
        for call, waiter, res in forms:
            try:
                got = call()
            except TypeError:
                continue
            if waiter is not None:
                done = got.wait() if hasattr(got, "wait") else got
                res = res if res is not None else done
            res = res if res is not None else got
            check(np.asarray(res.numpy() if hasattr(res, "numpy") else res), "vp.jit")
            if hasattr(f, "timer"):
                # GPU time, like the kernel rows (timestamps) and CuPy's
                # (CUDA events, batch_for(n) calls a sample)
                try:
                    return f.timer(*args, out=out, repeat=batch_for(n))
                except TypeError:  # a vp.jit without timer(repeat=)
                    return f.timer(*args, out=out)
            if waiter is not None:
                return pipelined(call, waiter, batch_for(n))
            return wall(call)
        raise Skip("vp.jit: no call form worked")
    if op != "copy":
        add("vulpy jit", "timestamps", make_jit)

    def make_ufuncs():
        vp = env.vp
        xv = vp.asarray(x, memory="device")
        bv = vp.asarray(b_host, memory="device")
        o = vp.empty(n, np.float32, memory="device")
        t1 = vp.empty(n, np.float32, memory="device")
        t2 = vp.empty(n, np.float32, memory="device")
        if op == "copy":
            def go(sync):
                return vp.positive(xv, out=o, sync=sync) if hasattr(vp, "positive") else \
                    vp.add(xv, 0.0, out=o, sync=sync)
        elif op == "sin+exp":
            def go(sync):
                vp.sin(xv, out=t1, sync=False)
                vp.exp(xv, out=t2, sync=False)
                return vp.add(t1, t2, out=o, sync=sync)
        else:
            m = vp.empty(n, np.bool_, memory="device")

            def go(sync):
                vp.greater(xv, bv, out=m, sync=False)
                vp.sin(xv, out=t1, sync=False)
                vp.cos(bv, out=t2, sync=False)
                return vp.where(m, t1, t2, out=o, sync=sync)
        go(True)
        check(o.numpy(), "vp ufuncs")
        return pipelined(lambda: go(False), _wait, batch_for(n))
    add("vulpy ufuncs", "pipelined wall", make_ufuncs)

    # -- raw Vulkan (libvkref, timestamps)
    if op in ("copy", "sin+exp"):
        for lanes in ("float", "vec4"):
            def make_raw(lanes=lanes):
                vk = env.vk
                vk.prepare(n)
                kname = f"{op} {lanes}"
                err = vk.verify(kname)
                if (err != 0) if exact else not (err < tol):
                    raise WrongResult(f"raw Vulkan {kname}: check {err}")
                return lambda: vk.run(kname)
            add(f"vulkan-raw {lanes}", "timestamps", make_raw)

    # -- CuPy (CUDA events)
    def make_cupy(kind):
        def make():
            cp = env.cp
            xd = cp.asarray(x)
            bd = cp.asarray(b_host)
            yd = cp.empty_like(xd)
            if kind == "memcpy":
                fn = lambda: yd.data.copy_from_device(xd.data, xd.nbytes)  # noqa: E731
            elif kind == "ElementwiseKernel":
                body = {"copy": "y = x", "sin+exp": "y = sinf(x) + expf(x)"}.get(
                    op, "y = x > b ? sinf(x) : cosf(b)")
                ek = cp.ElementwiseKernel("float32 x, float32 b", "float32 y", body,
                                          "vb_" + str(abs(hash(body))))
                fn = lambda: ek(xd, bd, yd)  # noqa: E731
            elif kind == "unfused" and op == "sin+exp":
                fn = lambda: cp.add(cp.sin(xd), cp.exp(xd), out=yd)  # noqa: E731
            elif kind == "unfused":  # cp.where has no out=: it allocates (the
                # memory pool), as cupy.fuse does; no extra copy into yd
                fn = lambda: cp.where(xd > bd, cp.sin(xd), cp.cos(bd))  # noqa: E731
                check(cp.asnumpy(fn()), "cupy unfused")
            else:  # cupy.fuse of a named def: CuPy names the CUDA kernel after the
                # function, and `<lambda>` is no C identifier (NVRTC rejects it)
                def seed_where(a, b):
                    return cp.where(a > b, cp.sin(a), cp.cos(b))
                f = cp.fuse(seed_where)
                fn = lambda: f(xd, bd)  # noqa: E731
                check(cp.asnumpy(f(xd, bd)), "cupy.fuse")
            if kind in ("memcpy", "ElementwiseKernel") or op == "sin+exp":
                fn()
                check(cp.asnumpy(yd), f"cupy {kind}")
            return cuda_events(cp, fn, batch_for(n))
        return make
    kinds = {"copy": ["memcpy", "ElementwiseKernel"],
             "sin+exp": ["ElementwiseKernel", "unfused"]}.get(op, ["unfused", "fuse",
                                                                   "ElementwiseKernel"])
    for kind in kinds:
        add(f"cupy {kind}", "cuda events", make_cupy(kind))

    # -- NumPy on the host (wall), up to 2^24 elements
    def make_numpy():
        if n > 1 << 24:
            raise Skip("NumPy above 2^24 elements takes seconds a run; see the 2^24 row")
        y = np.empty_like(x)
        if op == "copy":
            fn = lambda: np.copyto(y, x)  # noqa: E731
        elif op == "sin+exp":
            t = np.empty_like(x)

            def fn():
                np.sin(x, out=y)
                np.exp(x, out=t)
                np.add(y, t, out=y)
        else:
            def fn():
                np.copyto(y, np.where(x > b_host, np.sin(x), np.cos(b_host)))
        fn()
        check(y, "numpy")
        return wall(fn)
    add("numpy", "wall", make_numpy)

    # -- Taichi's Vulkan backend (pipelined wall)
    def make_taichi():
        ti = env.ti
        xt = ti.ndarray(ti.f32, n)
        bt = ti.ndarray(ti.f32, n)
        yt = ti.ndarray(ti.f32, n)
        xt.from_numpy(x)
        bt.from_numpy(b_host)
        if op == "copy":
            @ti.kernel
            def k(a: ti.types.ndarray(), b: ti.types.ndarray(), y: ti.types.ndarray()):
                for i in a:
                    y[i] = a[i]
        elif op == "sin+exp":
            @ti.kernel
            def k(a: ti.types.ndarray(), b: ti.types.ndarray(), y: ti.types.ndarray()):
                for i in a:
                    y[i] = ti.sin(a[i]) + ti.exp(a[i])
        else:
            @ti.kernel
            def k(a: ti.types.ndarray(), b: ti.types.ndarray(), y: ti.types.ndarray()):
                for i in a:
                    y[i] = ti.sin(a[i]) if a[i] > b[i] else ti.cos(b[i])
        k(xt, bt, yt)
        ti.sync()
        check(yt.to_numpy(), "taichi")
        return pipelined(lambda: k(xt, bt, yt), lambda h: ti.sync(), batch_for(n))
    add("taichi vulkan", "pipelined wall", make_taichi)

    if not runners:
        return
    samples = interleave(runners, env.reps(n), warmup=2, budget_s=60, block_warmup=1)
    record_runs(rec, case, n, samples, "GB/s", bpe * n, True, methods,
                bytes_per_element=bpe)
    _resident_ratios(rec, case, n, samples)


def _wait(h):
    if h is not None and hasattr(h, "wait"):
        h.wait()


def _ok(samples, b):
    s = samples.get(b)
    return s if isinstance(s, list) and s else None


def _resident_ratios(rec, case, n, samples):
    """Throughput ratios of each VulPy variant over the references."""
    at_goal = n == 1 << 28
    refs = [("vulkan-raw vec4", {"resident sin+exp": 0.95}),
            ("cupy ElementwiseKernel", {"resident sin+exp": 2.4}),
            ("cupy unfused", {"resident sin+exp": 7.0}),
            ("cupy fuse", {}),
            ("cupy memcpy", {}),
            ("taichi vulkan", {})]
    for v in ("vulpy kernel float", "vulpy kernel vec4", "vulpy jit", "vulpy ufuncs"):
        num = _ok(samples, v)
        if not num:
            continue
        for ref, goals in refs:
            den = _ok(samples, ref)
            if not den:
                continue
            g = goals.get(case) if at_goal and v != "vulpy ufuncs" else None
            rec.ratio(f"{case}: {v} / {ref}", n, num, den, True,
                      goal={"op": ">=", "target": g, "issue": 8} if g else None,
                      numerator=v, denominator=ref)


# ---------------------------------------------------------------- 2. convenience

def case_convenience(env, rec):
    n = 1_000_000
    case = "convenience sin(x) + exp(x), NumPy in/out"
    x = np.linspace(0.0, 1.0, n, dtype=np.float32)
    want = np.sin(x) + np.exp(x)
    runners = {}

    def add(b, make):
        r = setup(rec, case, n, b, make)
        if r is not None:
            runners[b] = r

    def make_vp():
        vp = env.vp
        check_close(vp.sin(x) + vp.exp(x), want, 1e-5, 1e-6, "vp.sin(x) + vp.exp(x)")
        return wall(lambda: vp.sin(x) + vp.exp(x))
    add("vulpy", make_vp)

    def make_cp():
        cp = env.cp

        def fn():
            return cp.asnumpy(cp.sin(cp.asarray(x)) + cp.exp(cp.asarray(x)))
        check_close(fn(), want, 1e-5, 1e-6, "cupy")
        return wall(fn)
    add("cupy", make_cp)

    def make_np():
        check_close(np.sin(x) + np.exp(x), want, 0, 0, "numpy")
        return wall(lambda: np.sin(x) + np.exp(x))
    add("numpy", make_np)

    def make_ti():
        ti = env.ti

        @ti.kernel
        def k(a: ti.types.ndarray(), y: ti.types.ndarray()):
            for i in a:
                y[i] = ti.sin(a[i]) + ti.exp(a[i])

        def fn():
            y = np.empty_like(x)
            k(x, y)  # NumPy arrays: Taichi copies in and out
            return y
        check_close(fn(), want, 1e-5, 1e-6, "taichi")
        return wall(fn)
    add("taichi vulkan", make_ti)

    if not runners:
        return
    samples = interleave(runners, 10 if env.quick else 40, warmup=3, budget_s=60,
                         block_warmup=1)
    record_runs(rec, case, n, samples, "ms", 1e-6, False, {b: "wall" for b in runners})
    vpv = _ok(samples, "vulpy")
    if vpv:
        for ref, g in (("cupy", 2.0), ("numpy", 5.0), ("taichi vulkan", None)):
            den = _ok(samples, ref)
            if den:
                rec.ratio(f"convenience: vulpy speed-up over {ref}", n, vpv, den, True,
                          goal={"op": ">=", "target": g, "issue": 8, "gpu_only": True}
                          if g else None, numerator="vulpy", denominator=ref)


# ---------------------------------------------------------------- 3. dispatch

def case_dispatch(env, rec):
    x = np.arange(TINY, dtype=np.float32)
    want = 2 * x
    case = "tiny kernel sync round trip"
    runners, methods = {}, {}

    def add(b, make, method="wall"):
        r = setup(rec, case, TINY, b, make)
        if r is not None:
            runners[b] = r
            methods[b] = method

    def make_vp():
        vp = env.vp
        k = env.kernel("vk_tiny", local_size_x=64)
        xv = vp.asarray(x)
        yv = vp.empty_like(xv)
        k(xv, yv, dispatch=TINY, a=2.0)
        check_equal(yv.numpy(), want, "vp.kernel tiny")
        return wall(lambda: k(xv, yv, dispatch=TINY, a=2.0))
    add("vulpy kernel", make_vp)

    for spin in (False, True):
        def make_raw(spin=spin):
            vk = env.vk
            return lambda: vk.latency(spin, 1)[0]
        add(f"vulkan-raw {'spin' if spin else 'fence wait'}", make_raw)

    def make_cp():
        cp = env.cp
        k = cp.RawKernel(CUDA_TINY, "tiny")
        xd = cp.asarray(x)
        yd = cp.empty_like(xd)
        args = (xd, yd, np.float32(2.0), np.uint32(TINY))
        stream = cp.cuda.get_current_stream()
        k((1,), (TINY,), args)
        stream.synchronize()
        check_equal(cp.asnumpy(yd), want, "cupy RawKernel tiny")

        def fn():
            k((1,), (TINY,), args)
            stream.synchronize()
        return wall(fn)
    add("cupy RawKernel", make_cp)

    def make_ti():
        ti = env.ti
        xt = ti.ndarray(ti.f32, TINY)
        yt = ti.ndarray(ti.f32, TINY)
        xt.from_numpy(x)

        @ti.kernel
        def k(a: ti.types.ndarray(), y: ti.types.ndarray()):
            for i in a:
                y[i] = 2.0 * a[i]
        k(xt, yt)
        ti.sync()
        check_equal(yt.to_numpy(), want, "taichi tiny")

        def fn():
            k(xt, yt)
            ti.sync()
        return wall(fn)
    add("taichi vulkan", make_ti)

    if runners:
        # Blocks: per backend, 20 untimed round trips (the GPU switches to
        # this backend's context, clocks settle), then `block` timed ones
        # back to back; the backends take turns block by block. Timing single
        # calls round-robin instead measured the context switch between
        # CUDA and two VkDevices (~150 us) into every figure.
        rounds, block = (4, 50) if env.quick else (10, 200)
        samples = gc_quiet(interleave)(runners, rounds, warmup=1, budget_s=60, block=block,
                                       block_warmup=20)
        record_runs(rec, case, TINY, samples, "us", 1e-3, False, methods,
                    block=block, block_warmup=20)
        vpv = _ok(samples, "vulpy kernel")
        if vpv:
            for ref, g in (("cupy RawKernel", 1.0), ("vulkan-raw fence wait", None),
                           ("vulkan-raw spin", None), ("taichi vulkan", None)):
                den = _ok(samples, ref)
                if den:
                    rec.ratio(f"tiny sync: vulpy time / {ref}", TINY, vpv, den, False,
                              goal={"op": "<=", "target": g, "issue": 8} if g else None,
                              numerator="vulpy kernel", denominator=ref)

    # -- back-to-back asynchronous dispatches, one wait at the end
    count = 2000 if env.quick or env.cpu else 10000
    case = f"{count} async dispatches"
    runners = {}

    def add2(b, make):
        r = setup(rec, case, count, b, make)
        if r is not None:
            runners[b] = r

    def make_vp_async():
        vp = env.vp
        k = env.kernel("vk_tiny", local_size_x=64)
        xv = vp.asarray(x)
        yv = vp.empty_like(xv)
        h = k(xv, yv, dispatch=TINY, a=2.0, sync=False)
        h.wait()
        check_equal(yv.numpy(), want, "vp.kernel tiny async")

        def fn():
            t0 = time.perf_counter_ns()
            h = None
            for _ in range(count):
                h = k(xv, yv, dispatch=TINY, a=2.0, sync=False)
            h.wait()
            return time.perf_counter_ns() - t0
        return fn
    add2("vulpy kernel", make_vp_async)

    def make_raw_async():
        vk = env.vk
        return lambda: vk.async_(count)
    add2("vulkan-raw", make_raw_async)

    def make_cp_async():
        cp = env.cp
        k = cp.RawKernel(CUDA_TINY, "tiny")
        xd = cp.asarray(x)
        yd = cp.empty_like(xd)
        args = (xd, yd, np.float32(2.0), np.uint32(TINY))
        stream = cp.cuda.get_current_stream()

        def fn():
            t0 = time.perf_counter_ns()
            for _ in range(count):
                k((1,), (TINY,), args)
            stream.synchronize()
            return time.perf_counter_ns() - t0
        return fn
    add2("cupy RawKernel", make_cp_async)

    def make_ti_async():
        ti = env.ti
        xt = ti.ndarray(ti.f32, TINY)
        yt = ti.ndarray(ti.f32, TINY)
        xt.from_numpy(x)

        @ti.kernel
        def k(a: ti.types.ndarray(), y: ti.types.ndarray()):
            for i in a:
                y[i] = 2.0 * a[i]

        def fn():
            t0 = time.perf_counter_ns()
            for _ in range(count):
                k(xt, yt)
            ti.sync()
            return time.perf_counter_ns() - t0
        return fn
    add2("taichi vulkan", make_ti_async)

    if runners:
        samples = interleave(runners, 3 if env.quick else 7, warmup=1, budget_s=60,
                             block_warmup=1)
        record_runs(rec, case, count, samples, "dispatch/s", 1e9 * count, True,
                    {b: "wall" for b in runners})
        vpv = _ok(samples, "vulpy kernel")
        for ref in ("vulkan-raw", "cupy RawKernel", "taichi vulkan"):
            den = _ok(samples, ref)
            if vpv and den:
                rec.ratio(f"async dispatch rate: vulpy / {ref}", count, vpv, den, True,
                          numerator="vulpy kernel", denominator=ref)


# ---------------------------------------------------------------- 4. compile

def case_compile(env, rec):
    """Each sample is a new process (bench/compile_probe.py) timing the path
    from a Python kernel to a ready pipeline: cold with empty caches, warm
    with the disk caches a cold run filled."""
    reps = 2 if env.quick else (5 if env.cpu else 3)
    probe = HERE / "compile_probe.py"
    backends = [("vulpy kernel", "vulpy"), ("cupy ElementwiseKernel", "cupy-ek"),
                ("cupy RawKernel", "cupy-raw"), ("taichi vulkan", "taichi")]
    for label, name in backends:
        cold, warm, extra = [], [], {}
        reason = None
        for _ in range(reps):
            with tempfile.TemporaryDirectory(prefix="vulpy-bench-cache-") as d:
                for mode, dest in (("cold", cold), ("warm", warm)):
                    got = _probe(env, probe, name, d)
                    if "skip" in got:
                        reason = got["skip"]
                        break
                    if "error" in got:
                        rec.error(f"compile {mode}", 1, label, got["error"])
                        reason = "error"
                        break
                    dest.append(got["ns"])
                    for k, v in got.items():
                        if k.endswith("_ns"):
                            extra.setdefault(f"{mode} {k[:-3]}", []).append(v)
            if reason:
                break
        if reason and reason != "error":
            rec.skip("compile cold", 1, label, reason)
            rec.skip("compile warm", 1, label, reason)
            continue
        for mode, s, g in (("cold", cold, 20.0), ("warm", warm, 1.0)):
            if not s:
                continue
            parts = {k: float(np.median(v)) * 1e-6 for k, v in extra.items()
                     if k.startswith(mode)}
            r = rec.add(f"compile {mode}", 1, label, s, "ms", scale=1e-6, method="new process",
                        parts_ms=parts)
            if name == "vulpy":
                r["goal"] = {"op": "<=", "target": g, "issue": 8}

    # raw Vulkan: pipeline creation from SPIR-V alone, in this process
    def make_raw():
        vk = env.vk
        return vk.pipeline("sin+exp float", 3 if env.quick else 10)
    try:
        s = make_raw()
        rec.add("pipeline creation from SPIR-V", 1, "vulkan-raw", s, "ms", scale=1e-6,
                method="in process, no VkPipelineCache")
    except Skip as e:
        rec.skip("pipeline creation from SPIR-V", 1, "vulkan-raw", e)


def _probe(env, probe, name, cache):
    cmd = [sys.executable, str(probe), name, "--cache", cache]
    envv = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(HERE.parent / "bindings" / "python")] +
        [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    if os.environ.get("VULPY_BENCH_INSTALLED") == "1":
        envv["PYTHONPATH"] = os.environ.get("PYTHONPATH", "")
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=envv)
    except subprocess.TimeoutExpired:
        return {"error": f"{name} probe timed out"}
    last = (p.stdout.strip().splitlines() or [""])[-1]
    try:
        return json.loads(last)
    except ValueError:
        return {"error": f"{name} probe exited {p.returncode}: {(p.stderr or p.stdout)[-400:]}"}


# ---------------------------------------------------------------- 5. reductions

def case_reductions(env, rec):
    n = (1 << 20) if env.cpu else ((1 << 24) if env.quick else (1 << 28))
    x = np.random.default_rng(8).random(n, dtype=np.float32)
    for op in ("sum", "max"):
        case = f"reduction {op}"
        want = float(np.sum(x, dtype=np.float64)) if op == "sum" else float(np.max(x))
        tol = 1e-4 if op == "sum" else 0.0
        runners = {}

        def check(v, what):
            v = float(v)
            if not abs(v - want) <= tol * abs(want):
                raise WrongResult(f"{what}: {v!r}, want {want!r}")

        def add(b, make):
            r = setup(rec, case, n, b, make)
            if r is not None:
                runners[b] = r

        def make_vp(op=op):
            vp = env.vp
            f = getattr(vp, op, None) or getattr(vp, {"max": "amax"}.get(op, "-"), None)
            if f is None or not callable(f):
                raise Skip(f"vp.{op} not in this build (issue 7)")
            xv = vp.asarray(x, memory="device")
            try:
                got = f(xv)
            except (TypeError, NotImplementedError) as e:
                raise Skip(f"vp.{op}(x) is no reduction in this build: {e}")
            check(got, f"vp.{op}")
            return wall(lambda: float(f(xv)))
        add("vulpy", make_vp)

        def make_cp(op=op):
            cp = env.cp
            xd = cp.asarray(x)
            f = getattr(cp, op)
            check(f(xd), f"cupy.{op}")
            return wall(lambda: float(f(xd)))
        add("cupy", make_cp)

        def make_np(op=op):
            if n > 1 << 24 and env.quick:
                raise Skip("quick run")
            f = getattr(np, op)
            check(f(x), f"numpy.{op}")
            return wall(lambda: f(x))
        add("numpy", make_np)

        def make_ti(op=op):
            # `s += a[i]` over the whole array, Taichi's one-line reduction,
            # is one float32 atomic add per element into one accumulator:
            # it stops growing at 2^24 (adding 0.5 to 2^24 rounds to 2^24),
            # so the second H200 run's Taichi sum was 16777216.0, and its
            # max took 0.2 s. A Taichi user who needs the right sum writes
            # partials: each invocation reduces a grid-stride slice
            # (coalesced reads) into its own slot, three stages (2^18,
            # 2^10, 32 partials), then 32 atomic adds: float32 only, the
            # error of a tree.
            ti = env.ti
            xt = ti.ndarray(ti.f32, n)
            xt.from_numpy(x)
            widths = [w for w in (1 << 18, 1 << 10, 32) if w < n] or [1]
            parts = [ti.ndarray(ti.f32, w) for w in widths]
            if op == "sum":
                @ti.kernel
                def stage(a: ti.types.ndarray(), p: ti.types.ndarray(), m: ti.i32, t: ti.i32):
                    for k in range(t):
                        acc = 0.0
                        i = k
                        while i < m:
                            acc += a[i]
                            i += t
                        p[k] = acc

                @ti.kernel
                def fin(p: ti.types.ndarray(), t: ti.i32) -> ti.f32:
                    s = 0.0
                    for k in range(t):
                        s += p[k]
                    return s
            else:
                @ti.kernel
                def stage(a: ti.types.ndarray(), p: ti.types.ndarray(), m: ti.i32, t: ti.i32):
                    for k in range(t):
                        acc = -3.0e38
                        i = k
                        while i < m:
                            acc = ti.max(acc, a[i])
                            i += t
                        p[k] = acc

                @ti.kernel
                def fin(p: ti.types.ndarray(), t: ti.i32) -> ti.f32:
                    s = -3.0e38
                    for k in range(t):
                        ti.atomic_max(s, p[k])
                    return s

            def k():
                src, m = xt, n
                for w, p in zip(widths, parts):
                    stage(src, p, m, w)
                    src, m = p, w
                return fin(src, m)
            check(k(), f"taichi {op}")
            return wall(lambda: float(k()))
        add("taichi vulkan", make_ti)

        if runners:
            samples = interleave(runners, env.reps(n), warmup=2, budget_s=60, block_warmup=1)
            record_runs(rec, case, n, samples, "GB/s", 4.0 * n, True,
                        {b: "wall, result on the host" for b in runners})
            vpv = _ok(samples, "vulpy")
            den = _ok(samples, "cupy")
            if vpv and den:
                rec.ratio(f"{case}: vulpy / cupy", n, vpv, den, True,
                          goal={"op": ">=", "target": 1.0, "issue": 7} if op == "sum" else None,
                          numerator="vulpy", denominator="cupy")


# ---------------------------------------------------------------- 6. transfers

def case_transfers(env, rec):
    mib = 64 if env.cpu or env.quick else 256
    nbytes = mib << 20
    n = nbytes // 4
    x = np.random.default_rng(6).integers(0, 2**32, n, dtype=np.uint32).view(np.float32)
    reps = 3 if env.quick else 5
    for kind in ("device", "host", "cached", "rebar"):
        for what in ("upload", "download"):
            size = nbytes if not (kind == "rebar" and what == "download") else 16 << 20
            case = f"{what} {mib if size == nbytes else 16} MiB, memory={kind}"
            runners, methods = {}, {}
            xs = x[: size // 4]

            def add(b, make, method="wall"):
                r = setup(rec, case, size, b, make)
                if r is not None:
                    runners[b] = r
                    methods[b] = method

            def make_vp(kind=kind, what=what, xs=xs):
                vp = env.vp
                a = vp.asarray(xs, memory=kind)
                check_equal(a.numpy(), xs, f"vp.asarray(memory={kind!r}) round trip")
                if what == "upload":
                    return wall(lambda: a.set(xs))
                out = np.empty_like(xs)
                try:
                    a.get(out=out)  # into an existing array, when the API has it
                    return wall(lambda: a.get(out=out))
                except TypeError:
                    return wall(lambda: a.numpy())
            add("vulpy", make_vp)

            def make_vp_new(kind=kind, xs=xs):
                vp = env.vp
                return wall(lambda: vp.asarray(xs, memory=kind))
            if what == "upload":
                add("vulpy asarray (new array)", make_vp_new)

            def make_raw(kind=kind, what=what, size=size):
                # One call checks the round trip, warms up and times all the
                # runs (buffers are made once); the runner hands them out.
                vk = env.vk
                got = vk.transfer(kind, what, size, reps + 2)
                return lambda: got.pop()
            add("vulkan-raw", make_raw, "wall (its own loop)")

            if kind == "device":
                def make_cp(pinned, what=what, xs=xs):
                    def make():
                        cp = env.cp
                        a = cp.asarray(xs)
                        check_equal(cp.asnumpy(a), xs, "cupy round trip")
                        host = xs
                        if pinned:
                            mem = cp.cuda.alloc_pinned_memory(xs.nbytes)
                            host = np.frombuffer(mem, np.float32, xs.size)
                            host[...] = xs
                        if what == "upload":
                            return wall(lambda: (a.set(host), cp.cuda.Device().synchronize()))
                        out = host if pinned else np.empty_like(xs)
                        return wall(lambda: a.get(out=out))
                    return make
                add("cupy pageable", make_cp(False))
                add("cupy pinned", make_cp(True))

                def make_np(xs=xs):
                    y = np.empty_like(xs)
                    return wall(lambda: np.copyto(y, xs))
                add("numpy memcpy", make_np)

                def make_ti(what=what, xs=xs):
                    ti = env.ti
                    a = ti.ndarray(ti.f32, xs.size)
                    a.from_numpy(xs)
                    check_equal(a.to_numpy(), xs, "taichi round trip")
                    if what == "upload":
                        return wall(lambda: (a.from_numpy(xs), ti.sync()))
                    return wall(lambda: a.to_numpy())
                add("taichi vulkan", make_ti)
            if not runners:
                continue
            samples = interleave(runners, reps, warmup=1, budget_s=60)
            record_runs(rec, case, size, samples, "GB/s", float(size), True, methods)
            vpv = _ok(samples, "vulpy")
            den = _ok(samples, "vulkan-raw")
            if vpv and den:
                rec.ratio(f"{case}: vulpy / vulkan-raw", size, vpv, den, True,
                          numerator="vulpy", denominator="vulkan-raw")


# ------------------------------------------------------- 3b. array calls

SMALL = 1 << 10  # elements of the small elementwise calls (issue 14's per-call figure)


def case_small_calls(env, rec):
    """A small elementwise call with out= as a user writes it, sync, per
    call: vp.jit (the C launcher path once warm), a vp ufunc, the same
    @vp.kernel, and CuPy's ElementwiseKernel launch + synchronize (issue
    14: the array paths' per-call time <= CuPy's)."""
    x = np.arange(SMALL, dtype=np.float32)
    want = 2 * x
    case = "small elementwise out= sync call"
    runners, methods = {}, {}

    def add(b, make):
        r = setup(rec, case, SMALL, b, make)
        if r is not None:
            runners[b] = r
            methods[b] = "wall"

    def resident():
        vp = env.vp
        xv = vp.asarray(x)
        return xv, vp.empty_like(xv)

    def make_jit():
        xv, yv = resident()
        f = env.vp.jit(lambda a: a * 2.0)
        f(xv, out=yv)
        check_equal(yv.numpy(), want, "vp.jit out= small")
        return wall(lambda: f(xv, out=yv))
    add("vulpy jit", make_jit)

    def make_ufunc():
        xv, yv = resident()
        env.vp.multiply(xv, 2.0, out=yv)
        check_equal(yv.numpy(), want, "vp.multiply out= small")
        return wall(lambda: env.vp.multiply(xv, 2.0, out=yv))
    add("vulpy ufunc", make_ufunc)

    def make_ufunc_sync():
        # the eager ufunc and its wait, as CuPy's row below: an eager call
        # returns before its work runs (and may be held for a batched
        # submission), so the rows without a wait are the host's cost alone
        xv, yv = resident()
        sync = env.vp.default_context().synchronize
        env.vp.multiply(xv, 2.0, out=yv)
        sync()
        check_equal(yv.numpy(), want, "vp.multiply out= small, sync")
        return wall(lambda: (env.vp.multiply(xv, 2.0, out=yv), sync()))
    add("vulpy ufunc + sync", make_ufunc_sync)

    def make_new_sync():
        # a new result each call (the pool, the result made in C), and the wait
        xv, _ = resident()
        sync = env.vp.default_context().synchronize
        check_equal((xv * 2.0).numpy(), want, "xv * 2.0 small")
        return wall(lambda: (xv * 2.0, sync()))
    add("vulpy new result + sync", make_new_sync)

    def make_kernel():
        xv, yv = resident()
        k = env.kernel("vk_tiny", local_size_x=64)
        k(xv, yv, dispatch=SMALL, a=2.0)
        check_equal(yv.numpy(), want, "vp.kernel small")
        return wall(lambda: k(xv, yv, dispatch=SMALL, a=2.0))
    add("vulpy kernel", make_kernel)

    def make_cp():
        cp = env.cp
        ek = cp.ElementwiseKernel("float32 x", "float32 y", "y = 2.0f * x", "vp_small_ek")
        xd = cp.asarray(x)
        yd = cp.empty_like(xd)
        stream = cp.cuda.get_current_stream()
        ek(xd, yd)
        stream.synchronize()
        check_equal(cp.asnumpy(yd), want, "cupy ElementwiseKernel small")

        def fn():
            ek(xd, yd)
            stream.synchronize()
        return wall(fn)
    add("cupy ElementwiseKernel", make_cp)

    def make_cp_new():
        cp = env.cp
        xd = cp.asarray(x)
        stream = cp.cuda.get_current_stream()
        check_equal(cp.asnumpy(xd * 2.0), want, "cupy xd * 2.0 small")

        def fn():
            xd * 2.0
            stream.synchronize()
        return wall(fn)
    add("cupy new result", make_cp_new)

    if not runners:
        return
    rounds, block = (4, 50) if env.quick else (10, 200)
    samples = gc_quiet(interleave)(runners, rounds, warmup=1, budget_s=60, block=block,
                                   block_warmup=20)
    record_runs(rec, case, SMALL, samples, "us", 1e-3, False, methods, block=block,
                block_warmup=20)
    for num in ("vulpy jit", "vulpy ufunc", "vulpy ufunc + sync", "vulpy new result + sync"):
        vpv = _ok(samples, num)
        refs = (("cupy new result", 1.0),) if "new" in num else (
            ("cupy ElementwiseKernel", 1.0), ("vulpy kernel", None))
        for ref, g in refs:
            den = _ok(samples, ref)
            if vpv and den:
                rec.ratio(f"small out= call: {num} time / {ref}", SMALL, vpv, den, False,
                          goal={"op": "<=", "target": g, "issue": 14} if g else None,
                          numerator=num, denominator=ref)


CASES = [case_resident, case_convenience, case_dispatch, case_small_calls, case_compile,
         case_reductions, case_transfers]


def run(ctx):
    env = Env(ctx)
    rec = Recorder("compare", env.device)
    only = os.environ.get("BENCH_COMPARE_CASES")  # e.g. "dispatch,compile"
    for case in CASES:
        name = case.__name__[len("case_"):]
        if only and name not in only.split(","):
            continue
        t0 = time.perf_counter()
        print(f"   -- {name}", flush=True)
        try:
            case(env, rec)
        except Exception as e:  # noqa: BLE001 - one broken case must not hide the others
            import traceback
            traceback.print_exc()
            rec.error(name, 0, "harness", f"{type(e).__name__}: {e}")
        print(f"   -- {name}: {time.perf_counter() - t0:.1f} s", flush=True)
    return rec.records
