"""Dumps the GLSL of every vp ufunc x dtype x layout (dynamic extent: cc, sc, cs;
and a static broadcast graph) to compare two builds text for text:
    .venv/bin/python scripts/ufunc_glsl_corpus.py before.txt  (then after.txt; diff)
Used to keep lower-ufuncs byte-identical with the Python tables it replaced."""
import itertools
import sys

import numpy as np
from vulpy import _graph, _ufunc, _native, _array

ext = _native.ext()
out = open(sys.argv[1], "w")
DTS = [np.float32, np.float64, np.int32, np.uint32, np.int64, np.uint64, np.bool_,
       np.float16, np.int8, np.uint8, np.int16, np.uint16]
names = sorted(set(_ufunc.BY_NUMPY) | {"where"})
n_ok = 0
def glsl_of(text):
    art = ext.jit_compile(text, "corpus", True, 0, targets=True)
    return "\n".join(f"// {k}\n{v['glsl']}" for k, v in sorted(art["kernels"].items()))

for name in names:
    uf = getattr(_ufunc, name)
    for dts in itertools.product(DTS, repeat=min(uf.nin, 2)):
        if uf.nin == 3:
            dts = (np.bool_, dts[0], dts[1])
        keys = tuple(np.dtype(d) for d in dts)
        try:
            loop_in, out_dt = uf.resolve(keys)
        except TypeError:
            continue
        if any(np.dtype(d).kind == "c" or d == np.dtype("O") for d in tuple(loop_in) + (out_dt,)):
            continue
        for layout in (["c" * uf.nin, "s" + "c" * (uf.nin - 1), "c" * (uf.nin - 1) + "s"] if uf.nin > 1 else ["c"]):
            try:
                text = _ufunc._array_vir(uf, tuple(loop_in), out_dt, layout, tuple(loop_in))
            except Exception as e:
                out.write(f"== {name} {keys} {layout}: PY-ERROR {type(e).__name__}: {e}\n")
                continue
            try:
                g = glsl_of(text)
            except Exception as e:
                g = f"C-ERROR {e}"
            n_ok += 1
            out.write(f"== {name} {[str(k) for k in keys]} {layout}\n{g}\n")
        # a static broadcast graph: (3,1) op (4,) with a scalar const mix
        g_ = _graph.Graph(name)
        vals = []
        for k, dt in enumerate(loop_in):
            shp = (3, 1) if k == 0 else (4,)
            b = g_.buffer(("x", k), _array.storage_dtype(dt), 12, None, "x")
            vals.append(g_.load(b, dt, shp))
        try:
            r = _graph.apply_ufunc(g_, uf, vals, loop_in, out_dt)
            r = g_.broadcast(r, np.broadcast_shapes(*[v.shape for v in vals]))
            g_.store(g_.buffer(("out",), _array.storage_dtype(out_dt), 64, None, "out"), r)
            out.write(f"== static {name} {[str(k) for k in keys]}\n{glsl_of(g_.text())}\n")
        except Exception as e:
            out.write(f"== static {name} {keys}: ERROR {type(e).__name__}: {e}\n")
print("variants", n_ok)
