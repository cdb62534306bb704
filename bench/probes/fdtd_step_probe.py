"""The FDTD's stepped form at 64^3 (examples/fdtd3d.py Sim.step, sync=False
dispatches), host time and total time per step, outside the fdtd suite.
On the H200 (2026-12-02) this gave 20.5 us a step (48.8k steps/s, with or
without VULPY_STREAM_QUEUES=0), where the fdtd suite's small-grid row of the
same day gave 16.6k steps/s after the 512^3 runs under a power cap: the
suite's stepped row there is not trusted (docs/fdtd.md).

    python bench/probes/fdtd_step_probe.py
"""
import sys, time, os
sys.path.insert(0, "examples")
import numpy as np, vulpy as vp
import fdtd3d
m = fdtd3d.Sim(64, 64, 64)
m.step(50); m.sync()
for rep in range(3):
    t = time.perf_counter(); m.step(1000); t1 = time.perf_counter(); m.sync(); t2 = time.perf_counter()
    print(f"streams={os.environ.get('VULPY_STREAM_QUEUES', 'default')} host/step "
          f"{(t1 - t) * 1e3:.2f} us, total/step {(t2 - t) * 1e3:.2f} us")  # 1000 steps: ms = us/step
print(vp.default_context().stats())
