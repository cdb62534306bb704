"""The Python layer's cost: per-call overhead of a tiny resident ufunc and of
a tiny @vp.kernel, against the C runtime's own dispatch round trip measured
in the same process on the same pipeline; and convenience-mode
vp.sin(x) + vp.exp(x) on 1M float32 against NumPy. bench/notes/python.md
says what the goals are.
"""
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bindings" / "python"))

import vulpy as vp  # noqa: E402


def _stats(samples_ns, unit="us"):
    scale = {"us": 1e-3, "ms": 1e-6}[unit]
    s = sorted(samples_ns)
    q = statistics.quantiles(s, n=10) if len(s) >= 10 else [s[0]] * 9
    return {"median": statistics.median(s) * scale, "p10": q[0] * scale, "p90": q[-1] * scale,
            "unit": unit}


def _timed(fn, iters):
    out = []
    for _ in range(iters):
        t0 = time.perf_counter_ns()
        fn()
        out.append(time.perf_counter_ns() - t0)
    return out


@vp.kernel(local_size_x=64)
def _tiny(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32], a: vp.float32):
    i = vp.global_id()
    y[i] = a * x[i]


def run(ctx):
    iters = 200 if ctx.quick else 2000
    c = vp.default_context()
    dev = c.name
    recs = []

    def rec(case, size, backend, stats, **extra):
        r = dict(case=case, size=size, backend=backend, device=dev, **stats, **extra)
        recs.append(r)
        return r

    # The Python calls and the C loop alternate in blocks, so that drift in
    # this shared machine's load hits both alike.
    def interleaved(py_call, c_call, blocks):
        py, c = [], []
        for _ in range(blocks):
            py += _timed(py_call, 50)
            c += c_call(50)
        return py, c

    blocks = iters // 50

    # -- a tiny resident ufunc: vp.sin(xv, out=yv), 1024 elements ---------
    n = 1024
    xv = vp.asarray(np.linspace(0, 1, n, dtype=np.float32))
    yv = vp.empty_like(xv)
    for _ in range(20):
        vp.sin(xv, out=yv)
    # the same pipeline, buffers and push block, dispatched from C
    from vulpy import _ufunc
    prog = next(p for k, p in _ufunc._plans.items() if k[0] == "sin" and k[5])
    kern = prog.native(c)
    items = -(-n // 4)
    gx, gy, row = vp._launch.grid_2d(c, items, _ufunc.LOCAL)
    push = prog.packer.pack({"n": items, "row": row})
    py_ns, c_ns = interleaved(
        lambda: vp.sin(xv, out=yv),
        lambda k: kern.time_dispatch([xv.buffer, yv.buffer], push, gx, gy, 1, True, k), blocks)
    py_ufunc = rec("resident vp.sin(x, out=y) per call", n, "python", _stats(py_ns))
    c_ufunc = rec("C vrt_dispatch round trip (same ufunc kernel)", n, "C", _stats(c_ns))
    rec("ufunc overhead ratio (python / C)", n, "ratio",
        {"median": py_ufunc["median"] / c_ufunc["median"], "p10": None, "p90": None,
         "unit": "x"}, goal=1.5)

    # -- a tiny @vp.kernel ---------------------------------------------------
    _tiny(xv, yv, dispatch=n, a=2.0)
    kp = _tiny.program()
    kk = kp.native(c)
    kpush = kp.packer.pack({"a": 2.0})
    py_ns, c_ns = interleaved(
        lambda: _tiny(xv, yv, dispatch=n, a=2.0),
        lambda k: kk.time_dispatch([xv.buffer, yv.buffer], kpush, n, 1, 1, False, k), blocks)
    py_k = rec("@vp.kernel call per call", n, "python", _stats(py_ns))
    c_k = rec("C vrt_dispatch round trip (same @vp.kernel)", n, "C", _stats(c_ns))
    rec("@vp.kernel overhead ratio (python / C)", n, "ratio",
        {"median": py_k["median"] / c_k["median"], "p10": None, "p90": None, "unit": "x"},
        goal=1.5)

    # -- convenience: vp.sin(x) + vp.exp(x), 1M float32 ----------------------
    m = 1_000_000
    x = np.linspace(0.0, 1.0, m, dtype=np.float32)
    reps = 10 if ctx.quick else 40
    vp.sin(x) + vp.exp(x)
    vp_ns = _timed(lambda: vp.sin(x) + vp.exp(x), reps)
    np_ns = _timed(lambda: np.sin(x) + np.exp(x), reps)
    a = rec("convenience vp.sin(x) + vp.exp(x)", m, "vulpy", _stats(vp_ns, "ms"))
    b = rec("numpy np.sin(x) + np.exp(x)", m, "numpy", _stats(np_ns, "ms"))
    rec("convenience speed-up over NumPy", m, "ratio",
        {"median": b["median"] / a["median"], "p10": None, "p90": None, "unit": "x"})

    # -- resident: sin(x) + exp(x) with the data on the device ----------------
    xv = vp.asarray(x)
    s, e, o = vp.empty_like(xv), vp.empty_like(xv), vp.empty_like(xv)

    def resident():
        vp.sin(xv, out=s)
        vp.exp(xv, out=e)
        vp.add(s, e, out=o)
    resident()
    rec("resident sin(x) + exp(x) (3 kernels, out=)", m, "vulpy",
        _stats(_timed(resident, reps), "ms"))
    return recs
