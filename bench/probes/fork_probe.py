"""What a fork child can do after its parent used the device (NVIDIA vs
lavapipe): each step in its own child, bounded by alarm(), printed as it
goes. python fork_probe.py"""
import os, sys, time, signal, json
import numpy as np
import vulpy as vp

x = vp.asarray(np.arange(8, dtype=np.float32))
print("parent", float(vp.sum(x)), vp.Context.default().info.get("device", {}).get("name") if hasattr(vp.Context, "default") else "", flush=True)


def child(name, fn, limit=20):
    t0 = time.time()
    pid = os.fork()
    if pid == 0:
        signal.alarm(limit)
        try:
            r = fn()
            print(f"  child {name}: ok {r!r}", flush=True)
        except BaseException as e:
            print(f"  child {name}: {type(e).__name__}: {str(e)[:300]}", flush=True)
        if name.endswith("os._exit"):
            os._exit(0)
        sys.exit(0)
    deadline = time.time() + limit + 5
    while time.time() < deadline:
        p, status = os.waitpid(pid, os.WNOHANG)
        if p:
            print(f"{name}: status={status} in {time.time() - t0:.1f}s", flush=True)
            return
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
    print(f"{name}: HUNG, killed after {time.time() - t0:.1f}s", flush=True)


child("exit-only", lambda: None)
child("exit-only os._exit", lambda: None)
child("compute", lambda: float(vp.sum(vp.asarray(np.ones(4, np.float32)))))
print("parent after", float(vp.sum(x)), flush=True)
