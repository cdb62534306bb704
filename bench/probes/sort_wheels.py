"""Times vp.sort / vp.argsort of 2^26 keys with several VulPy wheels, one
after another on the same device, a fresh process each: the bisect of a
sort or argsort slowdown between commits (bench/notes/sort.md).

    python bench/probes/sort_wheels.py LABEL=WHEEL.whl ... [--n 26] [--reps 7]

Each wheel is installed into its own directory (pip --target); the child
imports it from there. Keys: standard-normal float32 and full-range random
uint32, resident; the median of --reps synchronous calls (the result read
back as a 4-byte slice so that the call has finished).
"""
import argparse
import json
import os
import subprocess
import sys

CHILD = r'''
import json, sys, time
import numpy as np
import vulpy as vp
n, reps = int(sys.argv[1]), int(sys.argv[2])
r = np.random.default_rng(0)
keys = {"float32": r.standard_normal(n).astype(np.float32),
        "uint32": r.integers(0, 2**32, n, dtype=np.uint32)}
out = {"device": vp.default_context().info.get("name")}
for kn, k in keys.items():
    kv = vp.asarray(k)
    for f in (vp.sort, vp.argsort):
        f(kv)[:1].numpy()
        ts = []
        for _ in range(reps):
            t = time.perf_counter()
            f(kv)[:1].numpy()
            ts.append(time.perf_counter() - t)
        out[f"{f.__name__} {kn}"] = round(sorted(ts)[len(ts) // 2] * 1e3, 3)
print(json.dumps(out))
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("wheels", nargs="+", help="LABEL=path/to/vulpy.whl")
    ap.add_argument("--n", type=int, default=26)
    ap.add_argument("--reps", type=int, default=7)
    a = ap.parse_args()
    for spec in a.wheels:
        label, whl = spec.split("=", 1)
        site = f"/tmp/site-{label}"
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-deps",
                        "--no-compile", "--target", site, whl], check=True)
        env = dict(os.environ, PYTHONPATH=site)
        p = subprocess.run([sys.executable, "-c", CHILD, str(1 << a.n), str(a.reps)], env=env,
                           capture_output=True, text=True, cwd="/tmp")
        res = json.loads(p.stdout.strip().splitlines()[-1]) if p.returncode == 0 else p.stderr[-800:]
        print(label, json.dumps(res), flush=True)


if __name__ == "__main__":
    main()
