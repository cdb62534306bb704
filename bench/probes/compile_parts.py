"""Where a cold compile's time goes, step by step, in CPU time of the
calling thread (time.thread_time_ns: steadier than wall time on a shared
machine), median of N in-process repeats after glslang's one-time set-up.
The kernel is compile_probe.py's sin + exp. bench/notes/python.md quotes it.

    .venv/bin/python bench/probes/compile_parts.py [N]
"""
import importlib.util
import linecache
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bindings" / "python"))
d = tempfile.mkdtemp(prefix="vulpy-parts-")
os.environ["VULPY_CACHE_DIR"] = d

import vulpy as vp  # noqa: E402
from vulpy import _astjson, _compiler, _kernel, _launch, _native  # noqa: E402

reps = int(sys.argv[1]) if len(sys.argv) > 1 else 15
path = os.path.join(d, "probe_kernel.py")
with open(path, "w") as f:
    f.write('''
import vulpy as vp

def sinexp(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32]):
    i = vp.global_id()
    y[i] = vp.sin(x[i]) + vp.exp(x[i])
''')
spec = importlib.util.spec_from_file_location("probe_kernel", path)
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
ext = _native.ext()
t0 = time.perf_counter_ns()
ext.glsl_to_spirv("#version 450\nlayout(local_size_x=1) in; void main(){}")
print(f"glslang one-time set-up (first compile of the process): "
      f"{(time.perf_counter_ns() - t0) / 1e6:.1f} ms wall")
tt = time.thread_time_ns
acc = {}


def m(name, fn):
    t = tt()
    r = fn()
    acc.setdefault(name, []).append(tt() - t)
    return r


for _ in range(reps):
    _compiler._memory.clear()
    _compiler._file_facts.clear()
    linecache.clearcache()
    k = vp.kernel(local_size_x=256)(mod.sinexp)
    m("function key (reads + hashes the file)",
      lambda: _compiler.function_key(k.fn, k.options, dict(fast_math=False)))
    doc = m("AST dump (inspect, ast.parse, walk)",
            lambda: _astjson.dump_function(k.fn, k.options))
    text = m("JSON text", lambda: _astjson.to_json(doc))
    args = (text, "k.py", doc.get("kernel"), (256, 1, 1), True, False, False, False,
            0xFFFFFFFF, 0)
    m("frontend + passes + VIR print", lambda: ext.compile_ast(*args, ("vir",), None))
    g = m("frontend + passes + GLSL print", lambda: ext.compile_ast(*args, ("glsl",), None))
    m("GLSL -> SPIR-V (glslang + spirv-val)", lambda: ext.glsl_to_spirv(g["glsl"]))
    m("frontend + manifest from VIR", lambda: ext.compile_ast(*args, ("manifest",), None))
    out = m("compile_ast, all four targets",
            lambda: ext.compile_ast(*args, _compiler.TARGETS, None))
    out["key"] = "0" * 64
    m("disk store (two entries)", lambda: (_compiler._disk_store("aa" + "0" * 62, out),
                                           _compiler._disk_store("ab" + "0" * 62, out)))
    m("disk load (one entry)", lambda: _compiler._disk_load("aa" + "0" * 62))
    m("Program() (manifest parse, push packer)", lambda: _launch.Program(out, "k"))
print("| step | CPU ms |\n| --- | --- |")
for name, v in acc.items():
    print(f"| {name} | {statistics.median(v) / 1e6:.2f} |")
