"""What the cross-library suites share: statistics, interleaved timing,
records, optional imports, and the raw-Vulkan reference (libvkref.so) through
ctypes.

A case is a set of *runners*, one per backend, each made by a setup function
that builds the backend's version of the case, checks its result against
NumPy (raising WrongResult when it differs), and returns a callable that runs
the case once and returns its time in ns (GPU time where the figure is about
the GPU, wall time where it is about the user's experience). `interleave`
then calls the runners round-robin, so every backend sees the same machine
state and ratios are taken from neighbouring runs.

Setups raise Skip when the backend cannot run the case (library missing, a
feature VulPy does not have yet, not enough memory): the record says so and
the suite goes on. A wrong result is a record with "error" and makes the
whole run fail (bench/run.py exits non-zero), after every other case ran.
"""
import ctypes
import gc
import importlib
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


class Skip(Exception):
    """The backend cannot run this case here; the message says why."""


class WrongResult(Exception):
    """The backend ran but its answer differs from NumPy's."""


# ---------------------------------------------------------------- stats

def quantiles(samples):
    """(median, p10, p90) of a list of numbers."""
    s = sorted(samples)
    if len(s) == 1:
        return s[0], s[0], s[0]
    q = statistics.quantiles(s, n=10, method="inclusive")
    return statistics.median(s), q[0], q[-1]


def stats_ns(samples_ns, unit):
    """A record's median/p10/p90 of ns samples, in "us" or "ms" (the python
    and fusion suites' figures; statistics.quantiles' default method)."""
    scale = {"us": 1e-3, "ms": 1e-6}[unit]
    s = sorted(samples_ns)
    q = statistics.quantiles(s, n=10) if len(s) >= 10 else [s[0]] * 9
    return {"median": statistics.median(s) * scale, "p10": q[0] * scale, "p90": q[-1] * scale,
            "unit": unit}


def now_ns():
    return time.perf_counter_ns()


def wall(fn):
    """A runner that times fn() with the wall clock."""
    def run():
        t0 = time.perf_counter_ns()
        fn()
        return time.perf_counter_ns() - t0
    return run


def recorded(vp, dev, kern, buf, push, invocations, repeat):
    """A runner of GPU ns per dispatch: `repeat` back-to-back dispatches of
    vp.kernel `kern` (push constants `push`, one buffer, a 1-D grid of
    `invocations`) in one recording with timestamps, replayed each call
    (bench_random and the normal / store probes time kernels so)."""
    prog = kern.program()
    nk = prog.native(dev)
    data = prog.packer.pack(push)
    r = vp._native.ext().Recording(dev._native, True)
    for _ in range(repeat):
        r.dispatch(nk, [buf], data, invocations, 1, 1, False)

    def run():
        r.run()
        return sum(r.times()) / repeat
    return run


def cupy_events(cp, fn, repeat):
    """A runner of CUDA ns per call: events around `repeat` back-to-back
    calls of fn (called once untimed first)."""
    start, end = cp.cuda.Event(), cp.cuda.Event()
    fn()

    def run():
        start.record()
        for _ in range(repeat):
            fn()
        end.record()
        end.synchronize()
        return cp.cuda.get_elapsed_time(start, end) * 1e6 / repeat
    return run


def interleave(runners, reps, warmup=2, budget_s=None, block=1, block_warmup=0):
    """Runs the runners round-robin; returns {name: [ns, ...]}.

    Each round gives every runner a block: `block_warmup` untimed calls,
    then `block` timed calls back to back. The untimed calls absorb what
    switching backends costs the first call after the switch (on a GPU
    shared by several APIs and VkDevices the driver switches contexts, some
    100 us; a clock that dropped while another backend ran), so a block
    measures the backend's steady state while the rounds still interleave
    the backends over the same stretch of machine time. The first `warmup`
    rounds are not recorded; `reps` rounds are. A runner that raises is
    dropped (its exception is kept in the returned dict under its name).
    `budget_s` stops early (after at least 3 recorded rounds) when the case
    runs long."""
    out = {name: [] for name in runners}
    live = dict(runners)
    t_end = None if budget_s is None else time.perf_counter() + budget_s
    for i in range(warmup + reps):
        for name, fn in list(live.items()):
            try:
                for _ in range(block_warmup):
                    fn()
                ts = [fn() for _ in range(block)]
            except Exception as e:  # noqa: BLE001 - reported as the backend's error
                out[name] = e
                del live[name]
                continue
            if i >= warmup:
                out[name].extend(ts)
        if t_end and i >= warmup + 2 and time.perf_counter() > t_end:
            break
    return out


# ---------------------------------------------------------------- checks

SAMPLE_ABOVE = 1 << 24


def _sample(got, want):
    """Above 2^24 elements the check reads every 16th element and the last
    2^16 (the full arrays were checked at 2^24): seconds instead of minutes
    for 2^28-element results on the host."""
    if got.size <= SAMPLE_ABOVE:
        return got, want
    g, w = got.ravel(), want.ravel()
    return (np.concatenate([g[::16], g[-(1 << 16):]]),
            np.concatenate([w[::16], w[-(1 << 16):]]))


def check_close(got, want, rtol, atol=0.0, what="result"):
    """WrongResult unless got ≈ want elementwise (NaN never passes)."""
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape:
        raise WrongResult(f"{what}: shape {got.shape}, want {want.shape}")
    got, want = _sample(got, want)
    g = got.astype(np.float64)
    w = want.astype(np.float64)
    err = np.abs(g - w)
    bad = ~(err <= atol + rtol * np.abs(w))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise WrongResult(f"{what}: {int(bad.sum())} of {bad.size} elements differ; first at "
                          f"[{i}]: got {g.flat[i]!r}, want {w.flat[i]!r} (rtol {rtol})")
    return float((err / np.maximum(np.abs(w), 1e-30)).max()) if err.size else 0.0


def check_equal(got, want, what="result"):
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape == want.shape:
        got, want = _sample(got, want)
    if got.shape != want.shape or not np.array_equal(got.view(np.uint8), want.view(np.uint8)):
        diff = np.flatnonzero(got.ravel() != want.ravel()) if got.shape == want.shape else []
        where = f"; first at [{diff[0]}]: got {got.ravel()[diff[0]]!r}, want " \
                f"{want.ravel()[diff[0]]!r}" if len(diff) else ""
        raise WrongResult(f"{what}: not bit-exact{where}")
    return 0.0


# ---------------------------------------------------------------- imports

_IMPORTS = {}


def optional(name):
    """The module, or raises Skip with the reason it cannot be imported."""
    if name not in _IMPORTS:
        try:
            _IMPORTS[name] = importlib.import_module(name)
        except Exception as e:  # noqa: BLE001 - any import failure means "not here"
            _IMPORTS[name] = Skip(f"{name} not importable: {type(e).__name__}: {e}"[:200])
    mod = _IMPORTS[name]
    if isinstance(mod, Skip):
        raise mod
    return mod


def vulpy():
    """The vulpy package from this tree (or an installed wheel), with a
    usable default context; Skip otherwise."""
    if "vulpy" not in _IMPORTS:
        src = ROOT / "bindings" / "python"
        if os.environ.get("VULPY_BENCH_INSTALLED") != "1" and str(src) not in sys.path:
            sys.path.insert(0, str(src))
        try:
            vp = importlib.import_module("vulpy")
            vp.default_context()
            _IMPORTS["vulpy"] = vp
        except Exception as e:  # noqa: BLE001
            _IMPORTS["vulpy"] = Skip(f"vulpy unusable: {type(e).__name__}: {e}"[:300])
    mod = _IMPORTS["vulpy"]
    if isinstance(mod, Skip):
        raise mod
    return mod


def vulpy_skip(e):
    """True when a VulPy exception means 'not implemented / not supported
    here' rather than a bug: such cases are skipped, not failed."""
    names = {"NotImplementedError", "FeatureError", "ExtensionMissingError", "ImportError",
             "ModuleNotFoundError", "AttributeError"}
    return type(e).__name__ in names


def versions():
    """Versions of everything the suites may use, for the results file."""
    v = {"python": sys.version.split()[0], "numpy": np.__version__,
         "platform": platform.platform()}
    for name in ("vulpy", "cupy", "taichi"):
        try:
            mod = vulpy() if name == "vulpy" else optional(name)
            ver = getattr(mod, "__version__", "?")
            v[name] = ".".join(map(str, ver)) if isinstance(ver, (list, tuple)) else str(ver)
        except Skip:
            pass
    try:
        cp = optional("cupy")
        v["cuda_runtime"] = cp.cuda.runtime.runtimeGetVersion()
        v["cuda_driver"] = cp.cuda.runtime.driverGetVersion()
        v["gpu"] = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    except Exception:  # noqa: BLE001
        pass
    return v


# ---------------------------------------------------------------- vkref

class VkRef:
    """libvkref.so (bench/vkref.c) through ctypes."""

    KERNELS = {"copy float": 0, "sin+exp float": 1, "copy vec4": 2, "sin+exp vec4": 3}

    def __init__(self, path, index=-1):
        lib = ctypes.CDLL(str(path))
        P, D, I, U64 = ctypes.c_void_p, ctypes.c_double, ctypes.c_int, ctypes.c_uint64
        DP = ctypes.POINTER(ctypes.c_double)
        sig = {"vkref_open": (P, [I, ctypes.c_char_p, ctypes.c_size_t]),
               "vkref_close": (None, [P]),
               "vkref_error": (ctypes.c_char_p, [P]),
               "vkref_device_name": (ctypes.c_char_p, [P]),
               "vkref_device_kind": (ctypes.c_char_p, [P]),
               "vkref_driver": (ctypes.c_char_p, [P]),
               "vkref_max_elements": (U64, [P]),
               "vkref_stream_prepare": (I, [P, U64]),
               "vkref_stream_verify": (D, [P, I]),
               "vkref_stream_run": (D, [P, I]),
               "vkref_latency": (I, [P, I, I, DP]),
               "vkref_pipeline": (I, [P, I, I, DP]),
               "vkref_batch": (D, [P, I, I, DP]),
               "vkref_async": (D, [P, I]),
               "vkref_transfer": (I, [P, ctypes.c_char_p, ctypes.c_char_p, U64, I, DP])}
        for name, (res, args) in sig.items():
            f = getattr(lib, name)
            f.restype, f.argtypes = res, args
        self.lib = lib
        err = ctypes.create_string_buffer(512)
        self.h = lib.vkref_open(index, err, len(err))
        if not self.h:
            raise Skip(f"raw Vulkan reference could not open a device: {err.value.decode()}")
        self.name = lib.vkref_device_name(self.h).decode()
        self.kind = lib.vkref_device_kind(self.h).decode()
        self.driver = lib.vkref_driver(self.h).decode()
        self.max_elements = lib.vkref_max_elements(self.h)
        self.n = 0

    def error(self):
        return self.lib.vkref_error(self.h).decode()

    def _ok(self, v, what):
        if v < 0:
            raise RuntimeError(f"vkref {what}: {self.error()}")
        return v

    def prepare(self, n):
        if n > self.max_elements:
            raise Skip(f"{n} floats exceed the device's buffer limit")
        if n != self.n:
            self._ok(self.lib.vkref_stream_prepare(self.h, n), "prepare")
            self.n = n

    def verify(self, kernel):
        return self._ok(self.lib.vkref_stream_verify(self.h, self.KERNELS[kernel]), "verify")

    def run(self, kernel):
        return self._ok(self.lib.vkref_stream_run(self.h, self.KERNELS[kernel]), "run")

    def latency(self, spin, iters):
        buf = (ctypes.c_double * iters)()
        self._ok(self.lib.vkref_latency(self.h, int(spin), iters, buf), "latency")
        return list(buf)

    def pipeline(self, kernel, iters):
        buf = (ctypes.c_double * iters)()
        self._ok(self.lib.vkref_pipeline(self.h, self.KERNELS[kernel], iters, buf), "pipeline")
        return list(buf)

    def batch(self, count, barrier):
        g = ctypes.c_double()
        w = self._ok(self.lib.vkref_batch(self.h, count, int(barrier), ctypes.byref(g)), "batch")
        return w, g.value

    def async_(self, count):
        return self._ok(self.lib.vkref_async(self.h, count), "async")

    def transfer(self, kind, what, nbytes, reps):
        buf = (ctypes.c_double * reps)()
        rc = self.lib.vkref_transfer(self.h, kind.encode(), what.encode(), nbytes, reps, buf)
        if rc == -2:
            raise Skip(f"no '{kind}' memory on this device")
        self._ok(rc, f"transfer {what} {kind}")
        return list(buf)

    def close(self):
        if self.h:
            self.lib.vkref_close(self.h)
            self.h = None


def vkref_paths(ctx):
    """(program, library) paths of vkref in the build folder, or carried
    prebuilt beside the wheels (bench/device/suites.sh)."""
    cands = [Path(ctx.build) / "bin" / "vkref", Path(os.environ.get("VKREF_BIN", "/nonexistent"))]
    libs = [Path(ctx.build) / "lib" / "libvkref.so",
            Path(os.environ.get("VKREF_LIB", "/nonexistent"))]
    exe = next((p for p in cands if p.is_file()), None)
    lib = next((p for p in libs if p.is_file()), None)
    return exe, lib


_VKREF = {}


def vkref(ctx):
    """The shared VkRef (opened once per process), or raises Skip."""
    if "h" not in _VKREF:
        _, lib = vkref_paths(ctx)
        try:
            if lib is None:
                raise Skip("libvkref.so not built (bench/CMakeLists.txt needs glslangValidator "
                           "and volk)")
            _VKREF["h"] = VkRef(lib)
        except Skip as e:
            _VKREF["h"] = e
        except OSError as e:
            _VKREF["h"] = Skip(f"libvkref.so: {e}")
    r = _VKREF["h"]
    if isinstance(r, Skip):
        raise r
    return r


# ---------------------------------------------------------------- records

LIVE = []  # every Recorder of this process: run.py saves their records on a timeout


class Recorder:
    """Collects a suite's records in bench/run.py's format."""

    def __init__(self, suite, device):
        self.suite = suite
        self.device = device
        self.records = []
        LIVE.append(self)

    def add(self, case, size, backend, samples, unit, scale=1.0, inverse=False, **extra):
        """A record from raw samples: value = scale * s, or scale / s when
        `inverse` (throughputs from times)."""
        vals = [scale / s if inverse else s * scale for s in samples]
        med, p10, p90 = quantiles(vals)
        if inverse:
            p10, p90 = min(p10, p90), max(p10, p90)
        r = dict(suite=self.suite, case=case, size=size, backend=backend, median=med, p10=p10,
                 p90=p90, unit=unit, reps=len(vals), device=self.device, **extra)
        self.records.append(r)
        return r

    def value(self, case, size, backend, value, unit, **extra):
        r = dict(suite=self.suite, case=case, size=size, backend=backend, median=value,
                 p10=None, p90=None, unit=unit, device=self.device, **extra)
        self.records.append(r)
        return r

    def skip(self, case, size, backend, reason):
        r = dict(suite=self.suite, case=case, size=size, backend=backend, median=None, p10=None,
                 p90=None, unit="", device=self.device, skipped=str(reason)[:300])
        self.records.append(r)
        print(f"   skip {case} [{backend}]: {str(reason)[:160]}", flush=True)
        return r

    def error(self, case, size, backend, message):
        r = dict(suite=self.suite, case=case, size=size, backend=backend, median=None, p10=None,
                 p90=None, unit="", device=self.device, error=str(message)[:500])
        self.records.append(r)
        print(f"   ERROR {case} [{backend}]: {message}", flush=True)
        return r

    def ratio(self, case, size, num, den, higher_is_better, goal=None, **extra):
        """A ratio record from two interleaved sample lists of times: the
        median of the per-pair ratios den/num (speed of num over den) when
        `higher_is_better`, else num/den."""
        pairs = list(zip(num, den))
        if not pairs:
            return None
        rs = [(d / n if higher_is_better else n / d) for n, d in pairs if n > 0 and d > 0]
        med, p10, p90 = quantiles(rs)
        r = dict(suite=self.suite, case=case, size=size, backend="ratio", median=med, p10=p10,
                 p90=p90, unit="x", device=self.device, **extra)
        if goal is not None:
            r["goal"] = goal
        self.records.append(r)
        return r


def gc_quiet(fn):
    """Runs fn with the garbage collector paused (no GC pauses in timings)."""
    def run(*a, **kw):
        was = gc.isenabled()
        gc.disable()
        try:
            return fn(*a, **kw)
        finally:
            if was:
                gc.enable()
    return run
