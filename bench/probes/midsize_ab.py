"""Per-op wall time of mid-size eager ops (2^20 float32) under runtime
levers, one child process per setting (the memory suite's 2^20 rows doubled
between two H200 runs of 2026-12-02): which lever brings it back.

    python3 bench/probes/midsize_ab.py            (prints one table)
"""
import os
import subprocess
import sys

SETTINGS = [
    ("default", {}),
    ("wait=spin", {"VULPY_WAIT": "spin"}),
    ("spin 1000us", {"VULPY_SPIN_US": "1000"}),
    ("one queue", {"VULPY_STREAM_QUEUES": "0"}),
    ("no exported semaphores", {"VULPY_EXPORT_SEMAPHORES": "0"}),
    ("sharing=concurrent", {"VULPY_SHARING": "concurrent"}),
]

CHILD = r'''
import time, numpy as np, vulpy as vp
ctx = vp.default_context()
n = 1 << 20
a = vp.asarray(np.ones(n, np.float32)); b = vp.asarray(np.ones(n, np.float32))
c = vp.empty(n, dtype=np.float32)
import vulpy._ufunc as _u
pycall = _u.Ufunc.__call__
def block(f, k=10):
    t = time.perf_counter(); [f() for _ in range(k)]; ctx.synchronize()
    return (time.perf_counter() - t) / k * 1e6
cases = {
  "add out= x10+sync": lambda: vp.add(a, b, out=c),
  "add out= python path": lambda: pycall(vp.add, a, b, out=c),
  "c = a + b x10+sync": lambda: a + b,
  "sin(a) x10+sync": lambda: vp.sin(a),
}
for f in cases.values():
    for _ in range(30): block(f)
res = {}
for name, f in cases.items():
    res[name] = min(block(f) for _ in range(40))
s0 = ctx.stats(); block(cases["add out= x10+sync"]); s1 = ctx.stats()
d = {k: s1[k] - s0[k] for k in s1 if isinstance(s1[k], (int, float)) and s1[k] != s0[k]}
t = time.perf_counter()
for _ in range(200): vp.add(a, b, out=c); ctx.synchronize()
res["add out= +sync each"] = (time.perf_counter() - t) / 200 * 1e6
print(repr((res, d)))
'''

def main():
    rows = []
    for label, env in SETTINGS:
        e = dict(os.environ, **env)
        p = subprocess.run([sys.executable, "-c", CHILD], env=e, capture_output=True, text=True, timeout=120)
        if p.returncode:
            print(label, "failed:", p.stderr[-400:]); continue
        res, d = eval(p.stdout.strip().splitlines()[-1])
        rows.append((label, res, d))
    names = list(rows[0][1]) if rows else []
    print("us per op (best of 40 blocks)".ljust(26) + "".join(f"{n[:22]:>24}" for n in names))
    for label, res, d in rows:
        print(label.ljust(26) + "".join(f"{res[n]:24.2f}" for n in names))
    for label, res, d in rows:
        print(label, "stats per 10 add out=:", d)

if __name__ == "__main__":
    main()
