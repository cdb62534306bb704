"""Is argsort of full-range uint32 keys slow because of its keys or because
of what ran before it? (bench/notes/sort.md: 4 ms in one process, 12-18 ms
in another, every dispatch slower.) Each case runs in a fresh process, and
in one process after the others, in the order given.

    python bench/probes/argsort_order.py [--n 26] [--reps 7]

Cases: KIND:FUNC, KIND one of f32 (standard normal), u32 (full range),
u32lo (below 2^24), f32bits (the f32 keys' bits as uint32).
"""
import argparse
import json
import subprocess
import sys

CHILD = r'''
import json, sys, time
import numpy as np
import vulpy as vp
n, reps = int(sys.argv[1]), int(sys.argv[2])
cases = sys.argv[3:]
r = np.random.default_rng(0)
f = r.standard_normal(n).astype(np.float32)
mk = {"f32": lambda: f, "u32": lambda: r.integers(0, 2**32, n, dtype=np.uint32),
      "u32lo": lambda: r.integers(0, 2**24, n, dtype=np.uint32), "f32bits": lambda: f.view(np.uint32)}
out = {}
for c in cases:
    kind, fn = c.split(":")
    kv = vp.asarray(mk[kind]())
    fun = getattr(vp, fn)
    fun(kv)[:1].numpy()
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fun(kv)[:1].numpy()
        ts.append(time.perf_counter() - t)
    ts.sort()
    out[c] = [round(ts[0] * 1e3, 3), round(ts[len(ts) // 2] * 1e3, 3), round(ts[-1] * 1e3, 3)]
print(json.dumps(out))
'''


def child(n, reps, cases):
    p = subprocess.run([sys.executable, "-c", CHILD, str(1 << n), str(reps), *cases],
                       capture_output=True, text=True, cwd="/tmp")
    return json.loads(p.stdout.strip().splitlines()[-1]) if p.returncode == 0 else p.stderr[-600:]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=26)
    ap.add_argument("--reps", type=int, default=7)
    a = ap.parse_args()
    alone = ["u32:argsort", "f32bits:argsort", "u32lo:argsort", "f32:argsort", "u32:sort"]
    for c in alone:
        print("alone", json.dumps(child(a.n, a.reps, [c])), flush=True)
    seq = ["f32:sort", "f32:argsort", "u32:sort", "u32:argsort", "u32:argsort", "f32:argsort"]
    print("in turn [min, median, max] ms", json.dumps(child(a.n, a.reps, seq)), flush=True)
    print("u32 first", json.dumps(child(a.n, a.reps, ["u32:argsort", "f32:argsort", "u32:argsort"])),
          flush=True)


if __name__ == "__main__":
    main()
