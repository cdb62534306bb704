"""One compile sample, in a fresh process (bench_compare.py's case 4).

    python compile_probe.py vulpy|cupy-ek|cupy-raw|taichi --cache DIR

Points every cache the backend has (VulPy's kernel and pipeline caches, the
Mesa and NVIDIA driver shader caches, CuPy's kernel cache, Taichi's offline
cache) at DIR, imports the library and creates its device context outside
the timing, then times the path from Python kernel source to a kernel that
has run once (VulPy: to a ready pipeline, then one checked run). Prints one
JSON line: {"ns": total, "<part>_ns": ...}, {"skip": why} or {"error": msg}.
The first run on an empty DIR is cold; a second run on the same DIR is warm.
"""
import json
import os
import sys
import time

T_START = time.perf_counter_ns()

which = sys.argv[1]
cache = sys.argv[sys.argv.index("--cache") + 1]
os.environ["XDG_CACHE_HOME"] = cache
os.environ["MESA_SHADER_CACHE_DIR"] = os.path.join(cache, "mesa")
os.environ["__GL_SHADER_DISK_CACHE_PATH"] = os.path.join(cache, "nv")
os.environ["__GL_SHADER_DISK_CACHE_SKIP_CLEANUP"] = "1"
os.environ["CUPY_CACHE_DIR"] = os.path.join(cache, "cupy")
os.environ.pop("VULPY_NO_DISK_CACHE", None)

import numpy as np  # noqa: E402

N = 4096
x = np.linspace(0.0, 1.0, N, dtype=np.float32)
want = np.sin(x) + np.exp(x)


def out(**kw):
    print(json.dumps(kw), flush=True)
    sys.exit(0)


def check(y):
    y = np.asarray(y)
    if not np.allclose(y, want, rtol=1e-5, atol=1e-6):
        out(error=f"{which}: wrong result (max abs err {np.abs(y - want).max()})")


SRC = '''
import vulpy as vp

def sinexp(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32]):
    i = vp.global_id()
    y[i] = vp.sin(x[i]) + vp.exp(x[i])
'''

try:
    if which == "vulpy":
        try:
            t_imp = time.perf_counter_ns()
            import vulpy as vp
            t_ctx = time.perf_counter_ns()
            ctx = vp.default_context()
            t_ready = time.perf_counter_ns()
        except Exception as e:  # noqa: BLE001
            out(skip=f"vulpy unusable: {type(e).__name__}: {e}"[:300])
        # The kernel's source lives in a file, as a user's would.
        path = os.path.join(cache, "probe_kernel.py")
        if not os.path.exists(path):
            with open(path, "w") as f:
                f.write(SRC)
        import importlib.util
        spec = importlib.util.spec_from_file_location("probe_kernel", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        try:
            t0 = time.perf_counter_ns()
            k = vp.kernel(local_size_x=256)(mod.sinexp)
            prog = k.program()
            t1 = time.perf_counter_ns()
            kern = prog.native(ctx)
            t2 = time.perf_counter_ns()
        except (NotImplementedError, AttributeError) as e:
            out(skip=f"vulpy: {type(e).__name__}: {e}"[:300])
        xv = vp.asarray(x)
        yv = vp.empty_like(xv)
        t3 = time.perf_counter_ns()
        k(xv, yv, dispatch=N)  # the first launch (descriptor pool, recording, the run)
        t4 = time.perf_counter_ns()
        check(yv.numpy())
        # outside the timed path, reported apart: what the process paid
        # before the kernel's source was reached, and the first launch
        outside = {"import numpy": (t_imp - T_START) / 1e6, "import vulpy": (t_ctx - t_imp) / 1e6,
                   "context": (t_ready - t_ctx) / 1e6, "first launch": (t4 - t3) / 1e6,
                   # the runtime's driver warm-up thread (0: off, or not done yet)
                   "driver warm-up": ctx._native.stats().get("prewarm_ms", 0.0)}
        # where the pipeline's time went (runtime stats, ms -> ns), and
        # whether the compile came from the cache before the AST dump
        parts = {}
        st = getattr(kern, "stats", {}) or {}
        for name in ("validate", "layout", "cache_load", "create", "cache_save"):
            if f"{name}_ms" in st:
                parts[f"pipeline {name}_ns"] = int(st[f"{name}_ms"] * 1e6)
        from vulpy import _compiler
        cs = getattr(_compiler, "stats", {})
        out(ns=t2 - t0, compile_ns=t1 - t0, pipeline_ns=t2 - t1, **parts,
            fast_hit=bool(cs.get("fast_disk_hits")), compiled=cs.get("compiled"),
            driver_hit=st.get("driver_hit"), outside_ms=outside, prewarm=os.environ.get("VULPY_PREWARM") != "0")
    elif which.startswith("cupy"):
        try:
            import cupy as cp
            if cp.cuda.runtime.getDeviceCount() < 1:
                out(skip="cupy: no CUDA device")
            xd = cp.asarray(x)
            yd = cp.empty_like(xd)
            cp.cuda.Device().synchronize()
        except SystemExit:
            raise
        except Exception as e:  # noqa: BLE001
            out(skip=f"cupy unusable: {type(e).__name__}: {e}"[:300])
        t0 = time.perf_counter_ns()
        if which == "cupy-ek":
            k = cp.ElementwiseKernel("float32 x", "float32 y", "y = sinf(x) + expf(x)", "sinexp")
            k(xd, yd)
        else:
            k = cp.RawKernel(r'''
extern "C" __global__ void sinexp(const float *x, float *y, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = sinf(x[i]) + expf(x[i]);
}''', "sinexp")
            k(((N + 255) // 256,), (256,), (xd, yd, np.uint32(N)))
        cp.cuda.Device().synchronize()
        t1 = time.perf_counter_ns()
        check(cp.asnumpy(yd))
        out(ns=t1 - t0)
    elif which == "taichi":
        try:
            import taichi as ti
            ti.init(arch=ti.vulkan, offline_cache=True,
                    offline_cache_file_path=os.path.join(cache, "taichi"), log_level=ti.WARN)
            if ti.lang.impl.current_cfg().arch != ti.vulkan:
                out(skip="taichi: no Vulkan backend here")
            xt = ti.ndarray(ti.f32, N)
            yt = ti.ndarray(ti.f32, N)
            xt.from_numpy(x)
            ti.sync()
        except SystemExit:
            raise
        except Exception as e:  # noqa: BLE001
            out(skip=f"taichi unusable: {type(e).__name__}: {e}"[:300])

        t0 = time.perf_counter_ns()

        @ti.kernel
        def sinexp(a: ti.types.ndarray(), y: ti.types.ndarray()):
            for i in a:
                y[i] = ti.sin(a[i]) + ti.exp(a[i])
        sinexp(xt, yt)
        ti.sync()
        t1 = time.perf_counter_ns()
        check(yt.to_numpy())
        out(ns=t1 - t0)
    else:
        out(error=f"unknown backend {which}")
except SystemExit:
    raise
except Exception as e:  # noqa: BLE001
    out(error=f"{which}: {type(e).__name__}: {e}"[:500])
