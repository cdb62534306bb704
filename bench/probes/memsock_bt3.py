"""bench_memsock.run() with a monitor printing every open pipe's stats and ring header."""
import faulthandler
import sys
import threading
import time
from types import SimpleNamespace

import numpy as np

faulthandler.dump_traceback_later(int(sys.argv[1]) if len(sys.argv) > 1 else 30, exit=True)
sys.path.insert(0, "bench")
import benchlib  # noqa: E402
import bench_memsock as mod  # noqa: E402

vp = benchlib.vulpy()
from vulpy import _memsock  # noqa: E402


def monitor():
    while True:
        time.sleep(2)
        for p in list(_memsock._OPEN):
            try:
                ring = np.frombuffer(p._ring_buf, np.uint32)[:32]
            except Exception as e:  # noqa: BLE001
                ring = repr(e)
            print(f"  {p.frame_shape} cap {p.capacity}: {p.stats}\n    ring {list(ring)}", flush=True)


threading.Thread(target=monitor, daemon=True).start()
t0 = time.perf_counter()
print(mod.run(SimpleNamespace(build="build", quick=False, device_label="x", root=".")))
print(f"run: {time.perf_counter()-t0:.2f} s", flush=True)
