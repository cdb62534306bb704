"""Which lever moves the 256 MiB `device` upload (the compare suite's
"upload 256 MiB, memory=device" row, `a.set(x)` into an existing array)?
One process, one context per configuration (each reads the VULPY_*
variables when it is made), blocks that take turns, NumPy's memcpy of the
same bytes beside them as the host's own speed on the same stretch of time.

The configurations are the differences between the upload path now and
before streams (04f4106), each selectable alone:
  - the device made with extra queues (4 compute + 1 transfer) and the
    external-semaphore extension: VULPY_STREAM_QUEUES=0,
    VULPY_EXPORT_SEMAPHORES=0;
  - the staging ring's shape (4 slots of 8 MiB, as before):
    VULPY_STAGING_SLOTS, VULPY_STAGING_MIB;
  - the memcpy threads (half the CPUs, at most 4): VULPY_COPY_THREADS.
The upload path itself (staging.c) records, submits and waits as before
for a context without streams; its slots are taken outside the context
lock, which costs two lock round trips per 8 MiB.

    python bench/probes/upload_ab.py [--mib 256] [--blocks 8] [--memory device]
        [--json out.json]

Read: "GB/s" per configuration and "vs default" (the ratio of medians,
above 1 faster); "memcpy" is the host's bandwidth for the same bytes.
"""
import argparse
import json
import os
import statistics
import time

import numpy as np

CONFIGS = [
    ("default", {}),
    ("one queue (VULPY_STREAM_QUEUES=0)", {"VULPY_STREAM_QUEUES": "0"}),
    ("no exported semaphores", {"VULPY_EXPORT_SEMAPHORES": "0"}),
    ("one queue, no exported semaphores", {"VULPY_STREAM_QUEUES": "0",
                                           "VULPY_EXPORT_SEMAPHORES": "0"}),
    ("staging 4 x 16 MiB", {"VULPY_STAGING_MIB": "16"}),
    ("staging 4 x 32 MiB", {"VULPY_STAGING_MIB": "32"}),
    ("staging 8 x 8 MiB", {"VULPY_STAGING_SLOTS": "8"}),
    ("staging 2 x 8 MiB", {"VULPY_STAGING_SLOTS": "2"}),
    ("copy threads 2", {"VULPY_COPY_THREADS": "2"}),
    ("copy threads 8", {"VULPY_COPY_THREADS": "8"}),
]
KEYS = ("VULPY_STREAM_QUEUES", "VULPY_EXPORT_SEMAPHORES", "VULPY_STAGING_MIB",
        "VULPY_STAGING_SLOTS", "VULPY_COPY_THREADS")


def make_context(vp, env):
    saved = {k: os.environ.pop(k, None) for k in KEYS}
    os.environ.update(env)
    try:
        return vp.Context()
    finally:
        for k in KEYS:
            os.environ.pop(k, None)
            if saved[k] is not None:
                os.environ[k] = saved[k]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mib", type=int, default=256)
    ap.add_argument("--blocks", type=int, default=8)
    ap.add_argument("--reps", type=int, default=3, help="timed calls per block")
    ap.add_argument("--memory", default="device")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    import vulpy as vp
    n = (a.mib << 20) // 4
    x = np.random.default_rng(6).integers(0, 2 ** 32, n, dtype=np.uint32).view(np.float32)
    runners = {}
    for name, env in CONFIGS:
        c = make_context(vp, env)
        arr = vp.asarray(x, memory=a.memory, context=c)
        np.testing.assert_array_equal(arr.numpy(), x)  # the round trip is right
        runners[name] = (c, arr)
    y = np.empty_like(x)
    got = {k: [] for k in runners}
    got["memcpy"] = []
    for _ in range(a.blocks):
        for name, (c, arr) in runners.items():
            arr.set(x)  # untimed: the switch between VkDevices
            c.synchronize()
            for _ in range(a.reps):
                t0 = time.perf_counter_ns()
                arr.set(x)
                got[name].append(time.perf_counter_ns() - t0)
            c.synchronize()
        for _ in range(a.reps):
            t0 = time.perf_counter_ns()
            np.copyto(y, x)
            got["memcpy"].append(time.perf_counter_ns() - t0)
    for name, (c, arr) in runners.items():
        np.testing.assert_array_equal(arr.numpy(), x)
    nbytes = x.nbytes
    rows = []
    base = statistics.median(got["default"])
    c0 = runners["default"][0]
    print(f"device {c0.name}, {a.mib} MiB, memory={a.memory}, {a.blocks} blocks x {a.reps}")
    print(f"{'configuration':40s} {'GB/s':>7s} {'p10':>7s} {'p90':>7s} {'vs default':>10s}")
    for name, ns in got.items():
        ns = sorted(ns)
        med = statistics.median(ns)
        p10, p90 = ns[len(ns) // 10], ns[(len(ns) * 9) // 10]
        row = {"case": f"upload {a.mib} MiB, memory={a.memory}", "backend": name,
               "GB/s": nbytes / med, "p10": nbytes / p90, "p90": nbytes / p10,
               "vs default": base / med}
        rows.append(row)
        print(f"{name:40s} {row['GB/s']:7.2f} {row['p10']:7.2f} {row['p90']:7.2f} "
              f"{row['vs default']:10.3f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"device": c0.name, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
