"""Where test_eager_adaptive::test_long_random_chains's submissions come
from on a device (on the H200 it saw 574 submits for 982 dispatches, where
the test wants fewer than half): the same random program of eager ufuncs
behind a long spin, run once per operation kind on its own (in place,
new result, weak scalar chain, sync=False handle, clamp), with the full
ctx.stats() difference printed for each, and the spin's own length.

    bash bench/device/probes.sh 120 'bench/probes/eager_chain_stats.py'   (H200)
    .venv/bin/python bench/probes/eager_chain_stats.py                      (here)
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "test", "python"))
import vulpy as vp  # noqa: E402
from test_eager_adaptive import _spin  # noqa: E402


def diff(s0, s1):
    return {k: s1[k] - s0[k] for k in s1
            if isinstance(s1[k], (int, float)) and s1[k] != s0[k]}


def main():
    c = vp.Context()
    c.eager_batch = "adaptive"
    n = 1 << 16
    rng = np.random.default_rng(0)
    vs = [vp.asarray(rng.standard_normal(n).astype(np.float32), context=c) for _ in range(4)]
    for f in (vp.add, vp.subtract, vp.multiply):
        f(vs[0], vs[1])
    vp.multiply(vs[0], 0.5)
    vp.minimum(vs[0], 4.0)
    vp.maximum(vs[0], -4.0)
    c.synchronize()
    t = time.perf_counter()
    _spin(c)
    c.synchronize()
    print(f"spin alone: {1e3 * (time.perf_counter() - t):.1f} ms")
    kinds = {
        "in place add(out=)": lambda: vp.add(vs[0], vs[1], out=vs[2]),
        "new result a * b": lambda: vs.__setitem__(3, vs[0] * vs[1]),
        "weak scalar chain": lambda: vs.__setitem__(3, vp.multiply(vs[0], 1.5) + 0.25),
        "sync=False handle": lambda: vp.add(vs[0], vs[1], sync=False),
        "clamp in place": lambda: (vp.minimum(vs[2], 4.0, out=vs[2]),
                                   vp.maximum(vs[2], -4.0, out=vs[2])),
    }
    for name, op in kinds.items():
        c.synchronize()
        s0 = c.stats()
        t = time.perf_counter()
        _spin(c)
        for _ in range(100):
            op()
        host = time.perf_counter() - t
        s1 = c.stats()
        c.synchronize()
        print(f"{name:22s} host {1e3 * host:7.1f} ms  {diff(s0, s1)}")
    mixed(c)


def mixed(c, seed=0):
    """The test's random program, with the submissions each op kind made
    (a submission counted against the op that was running when it grew)."""
    rng = np.random.default_rng(seed)
    n = 1 << 16
    vs = [vp.asarray(rng.standard_normal(n).astype(np.float32), context=c) for _ in range(4)]
    base = [vp.asarray(rng.standard_normal(n).astype(np.float32), context=c) for _ in range(4)]
    c.synchronize()
    by = {}
    s_start = c.stats()
    big = vp.asarray(np.linspace(0, 1, 1 << 22, dtype=np.float32), context=c)
    c.synchronize()
    s_start = c.stats()
    t = time.perf_counter()
    _spin(c)
    print(f"  after the spin: {diff(s_start, c.stats())}")
    vp.sin(big)
    vp.sin(big)  # the test's _busy
    print(f"  after _busy: {diff(s_start, c.stats())}")
    handles = []
    for step in range(300):
        i, j = rng.choice(4, size=2, replace=False)
        k = rng.integers(0, 4)
        op = int(rng.integers(0, 6))
        w0 = c.stats()["waits_blocked"]
        s0 = c.stats()["submits"]
        if op == 0:
            vp.add(vs[i], vs[j], out=vs[k])
        elif op == 1:
            vp.subtract(vs[i], vs[j], out=vs[k])
        elif op == 2:
            vs[k] = vs[i] * vs[j]
        elif op == 3:
            vs[k] = vp.multiply(vs[i], 1.5) + 0.25
        elif op == 4:
            vp.add(vs[k], vs[k], out=vs[k])
        else:
            handles.append(vp.add(vs[i], vs[j], sync=False))
        s1 = c.stats()["submits"]
        if step % 25 == 24:
            m = step // 25 % 4
            vp.add(vs[m], base[m], out=vs[m])
        s2 = c.stats()["submits"]
        vp.minimum(vs[k], 4.0, out=vs[k])
        vp.maximum(vs[k], -4.0, out=vs[k])
        s3 = c.stats()["submits"]
        w3 = c.stats()["waits_blocked"]
        if w3 != w0:
            print(f"  step {step}: op{op} (i={i} j={j} k={k}) waited; ms since start "
                  f"{1e3 * (time.perf_counter() - t):.1f}; submits so far {s3 - s_start['submits']}")
        for key, d in ((f"op{op}", s1 - s0), ("refresh", s2 - s1), ("clamp", s3 - s2)):
            by[key] = by.get(key, 0) + d
    host = time.perf_counter() - t
    print(f"mixed program: host {1e3 * host:.1f} ms; {diff(s_start, c.stats())}")
    print(f"  submissions by op (op0 add out=, op1 sub out=, op2 new a*b, op3 scalar chain, "
          f"op4 x+x out=x, op5 sync=False): {dict(sorted(by.items()))}")
    c.synchronize()


if __name__ == "__main__":
    main()
