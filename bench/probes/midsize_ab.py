"""Per-op wall time of mid-size eager ops (2^20 float32) under runtime
levers, one child process per setting (the memory suite's 2^20 rows doubled
between two H200 runs of 2026-12-02): which lever brings it back. The
eager_batch rows (1, 8, "adaptive": runtime/eager.c, the default, adaptive
with 1 in flight and with a polling flusher) also time pipelined
blocks of 20 and 2^24 elements, and print the submissions per block.

    python3 bench/probes/midsize_ab.py            (prints one table)
    python3 bench/probes/midsize_ab.py --eager    (only the eager_batch rows)
    python3 bench/probes/midsize_ab.py --eager --quick   (lavapipe: counts)
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
# Context.eager_batch, set by the child (PROBE_EAGER_BATCH)
EAGER = [
    ("eager_batch=1", {"PROBE_EAGER_BATCH": "1"}),
    ("eager_batch=8", {"PROBE_EAGER_BATCH": "8"}),
    ("eager_batch=adaptive", {"PROBE_EAGER_BATCH": "adaptive"}),
    # the device's default (adaptive on GPUs since 2026-12-03, 8 on CPUs)
    ("eager_batch default", {}),
    # adaptive as before 2026-12-03: held while anything runs
    ("adaptive 1 in flight", {"PROBE_EAGER_BATCH": "adaptive", "VULPY_EAGER_INFLIGHT": "1"}),
    ("adaptive poll 20us", {"PROBE_EAGER_BATCH": "adaptive", "VULPY_EAGER_FLUSHER_US": "20"}),
]

CHILD = r'''
import os, sys, time, numpy as np, vulpy as vp
ctx = vp.default_context()
eb = os.environ.get("PROBE_EAGER_BATCH")
if eb:
    ctx.eager_batch = eb if eb == "adaptive" else int(eb)
eager_rows, quick = sys.argv[1] == "1", sys.argv[2] == "1"
warm, reps, each = (2, 3, 20) if quick else (30, 40, 200)
n = 1 << 20
a = vp.asarray(np.ones(n, np.float32)); b = vp.asarray(np.ones(n, np.float32))
c = vp.empty(n, dtype=np.float32)
import vulpy._ufunc as _u
pycall = _u.Ufunc.__call__
def block(f, k=10):
    t = time.perf_counter(); [f() for _ in range(k)]; ctx.synchronize()
    return (time.perf_counter() - t) / k * 1e6
cases = {
  "add out= x10+sync": (lambda: vp.add(a, b, out=c), 10),
  "add out= python path": (lambda: pycall(vp.add, a, b, out=c), 10),
  "c = a + b x10+sync": (lambda: a + b, 10),
  "sin(a) x10+sync": (lambda: vp.sin(a), 10),
}
if eager_rows:
    m = 1 << 24
    A = vp.asarray(np.ones(m, np.float32)); B = vp.asarray(np.ones(m, np.float32))
    C = vp.empty(m, dtype=np.float32)
    cases.update({
      "add out= x20+sync": (lambda: vp.add(a, b, out=c), 20),
      "2^24 add out= x10+sync": (lambda: vp.add(A, B, out=C), 10),
      "2^24 add out= x20+sync": (lambda: vp.add(A, B, out=C), 20),
      "2^24 c = a + b x20+sync": (lambda: A + B, 20),
    })
for f, k in cases.values():
    for _ in range(warm): block(f, k)
res = {}
for name, (f, k) in cases.items():
    res[name] = min(block(f, k) for _ in range(reps))
def counts(f, k):
    s0 = ctx.stats(); block(f, k); s1 = ctx.stats()
    return {key: s1[key] - s0[key] for key in s1
            if isinstance(s1[key], (int, float)) and s1[key] != s0[key]}
d = {name: counts(f, k) for name, (f, k) in cases.items()
     if eager_rows or name == "add out= x10+sync"}
t = time.perf_counter()
for _ in range(each): vp.add(a, b, out=c); ctx.synchronize()
res["add out= +sync each"] = (time.perf_counter() - t) / each * 1e6
t = time.perf_counter()
for _ in range(each): vp.sin(a) + vp.exp(a); ctx.synchronize()
res["sin+exp +sync each"] = (time.perf_counter() - t) / each * 1e6
print(repr((res, d)))
'''

def main():
    eager_rows, quick = "--eager" in sys.argv, "--quick" in sys.argv
    rows = []
    for label, env in (EAGER if eager_rows else SETTINGS + EAGER):
        e = dict(os.environ, **env)
        p = subprocess.run([sys.executable, "-c", CHILD, str(int(eager_rows)), str(int(quick))],
                           env=e, capture_output=True, text=True, timeout=600)
        if p.returncode:
            print(label, "failed:", p.stderr[-400:]); continue
        res, d = eval(p.stdout.strip().splitlines()[-1])
        rows.append((label, res, d))
    names = list(rows[0][1]) if rows else []
    print(f"us per op (best of {3 if quick else 40} blocks)".ljust(30)
          + "".join(f"{label[:22]:>24}" for label, _, _ in rows))
    for n in names:
        print(n.ljust(30) + "".join(f"{res[n]:24.2f}" for _, res, _ in rows))
    for label, res, d in rows:
        for name, st in d.items():
            print(f"{label}: {name}: submits {st.get('submits', 0)}, dispatches "
                  f"{st.get('dispatches', 0)}, flusher sends {st.get('eager_flushes', 0)}, "
                  f"drained {st.get('eager_drained', 0)}")

if __name__ == "__main__":
    main()
