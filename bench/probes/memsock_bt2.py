"""Which part of bench/run.py's way of running bench_memsock hangs on the H200."""
import faulthandler
import importlib.util
import sys
import threading
import time
from types import SimpleNamespace

faulthandler.dump_traceback_later(int(sys.argv[2]) if len(sys.argv) > 2 else 25, exit=True)
sys.path.insert(0, "bench")
import benchlib  # noqa: E402

mode = sys.argv[1]
if mode == "spec":
    spec = importlib.util.spec_from_file_location("bench_memsock", "bench/bench_memsock.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
else:
    import bench_memsock as mod
vp = benchlib.vulpy()
ctx = vp.default_context()
print("kind", ctx.info.get("kind"), flush=True)
rec = benchlib.Recorder("memsock", "x")
fill, pp, a, b = mod._kernels(vp)
t0 = time.perf_counter()
if mode == "run":
    print(mod.run(SimpleNamespace(build="build", quick=False, device_label="x", root=".")))
else:
    mod._throughput(vp, rec, fill, ctx, "64KiB", 64 << 10, False, False)
    print(rec.records[:1])
print(f"{mode}: {time.perf_counter()-t0:.2f} s", flush=True)
