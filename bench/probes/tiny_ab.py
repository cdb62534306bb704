"""tiny_ab.py - the tiny synchronous kernel call, one build against another.

The compare suite's dispatch case (`k(xv, yv, dispatch=64, a=2.0)`, sync)
timed in processes that take turns between two source trees (each with its
extension built into bindings/python), so that drift on a shared machine
hits both alike; a round is one process per tree, the ratio of a round is
new / old, and the result is the median over rounds. Each process times
the call in each wait mode it is given (and, where the tree has the done
flag, with it on and off), 2000 calls per mode after a warm-up.

    .venv/bin/python bench/probes/tiny_ab.py OLD_ROOT NEW_ROOT [--rounds 10]
        [--modes default,spin-block] [--calls 2000]

Prints one line per mode, plus the JSON of every sample with --json.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def worker(root, modes, calls):
    sys.path.insert(0, os.path.join(root, "bindings", "python"))
    import numpy as np
    import vulpy as vp

    @vp.kernel(local_size_x=64)
    def tiny(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32], a: vp.float32):
        i = vp.global_id()
        y[i] = a * x[i]

    c = vp.default_context()
    x = np.arange(64, dtype=np.float32)
    xv = vp.asarray(x)
    yv = vp.empty_like(xv)
    tiny(xv, yv, dispatch=64, a=2.0)
    assert (yv.numpy() == 2 * x).all(), "wrong result"
    has_flag = hasattr(c, "done_flag")
    out = {}
    variants = []
    for m in modes:
        if has_flag and m != "block" and (m != "default" or c.wait != "block"):
            variants += [(m, True), (m, False)]
        else:
            variants.append((m, None))
    first_wait, first_flag = c.wait, (c.done_flag if has_flag else None)
    per = {v: [] for v in variants}
    for _ in range(4):  # blocks of each variant, taking turns
        for v in variants:
            c.wait = first_wait if v[0] == "default" else v[0]
            if v[1] is not None:
                c.done_flag = v[1]
            fn = lambda: tiny(xv, yv, dispatch=64, a=2.0)  # noqa: E731
            for _ in range(50):
                fn()
            ns = []
            for _ in range(calls // 4):
                t0 = time.perf_counter_ns()
                fn()
                ns.append(time.perf_counter_ns() - t0)
            per[v].extend(ns)
    c.wait = first_wait
    if has_flag:
        c.done_flag = first_flag
    for (m, flag), ns in per.items():
        key = m if flag is None else f"{m}, {'done flag' if flag else 'no done flag'}"
        out[key] = statistics.median(ns) / 1e3
    print(json.dumps(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--modes", default="default,spin-block")
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    a = ap.parse_args()
    modes = a.modes.split(",")
    if a.worker:
        return worker(a.worker, modes, a.calls)
    env = dict(os.environ, VULPY_VALIDATION="0")
    samples = {"old": [], "new": []}
    for r in range(a.rounds):
        for side in (("old", "new") if r % 2 == 0 else ("new", "old")):
            root = a.old if side == "old" else a.new
            p = subprocess.run([sys.executable, __file__, a.old, a.new, "--modes", a.modes,
                                "--calls", str(a.calls), "--worker", root],
                               env=env, capture_output=True, text=True, check=True)
            samples[side].append(json.loads(p.stdout.strip().splitlines()[-1]))
    keys = sorted(set().union(*samples["old"], *samples["new"]))
    print(f"{'variant':36} {'old us':>8} {'new us':>8}  new/old (median of rounds)")
    for k in keys:
        o = [s.get(k) for s in samples["old"]]
        n = [s.get(k) for s in samples["new"]]
        om = statistics.median([v for v in o if v]) if any(o) else None
        nm = statistics.median([v for v in n if v]) if any(n) else None
        ratios = [b / x for x, b in zip(o, n) if x and b]
        rs = f"{statistics.median(ratios):.3f}x" if ratios else "-"
        fmt = lambda v: f"{v:8.2f}" if v else "       -"  # noqa: E731
        print(f"{k:36} {fmt(om)} {fmt(nm)}  {rs}")
    # the new tree's own A/B: done flag on / off, per round
    for m in modes:
        on, off = f"{m}, done flag", f"{m}, no done flag"
        rr = [s[on] / s[off] for s in samples["new"] if on in s and off in s]
        if rr:
            print(f"new tree, {m}: done flag / no done flag = {statistics.median(rr):.3f}x "
                  f"(median of {len(rr)} rounds)")
    if a.json:
        print(json.dumps(samples))


if __name__ == "__main__":
    main()
