"""Which lever moves the 256 MiB `device` upload (the compare suite's
"upload 256 MiB, memory=device" row, `a.set(x)` into an existing array)?
One process, one context per configuration (each reads the VULPY_*
variables when it is made; the Python levers are set on it after), blocks
that take turns, NumPy's memcpy of the same bytes beside them as the host's
own speed on the same stretch of time.

The levers:
  - the default: array uploads of more than 32 MiB copy on the GPU from the
    NumPy array's cached import (Context.upload_import_min; pinned on the
    first upload, kept while the array lives), the rest through the
    staging ring with half the CPUs (at most 8) as copy threads;
  - "ring": Context.upload_import_min = 0, the staging ring alone (the path
    before), with 4 copy threads (the old default), 8, 12;
  - "per-call import N MiB": VULPY_UPLOAD_IMPORT_MIB=N, the runtime imports
    the source's pages N MiB at a time on every call, copies from them and
    releases them (runtime/staging.c, "imported uploads"), cache off;
  - the device made with one queue or without exported semaphores, and the
    staging ring's shape (VULPY_STAGING_SLOTS, VULPY_STAGING_MIB), on the
    ring path (the differences between the upload path now and before
    streams, 04f4106).
With --fresh every timed call uploads a new copy of x (made before the
timer): the import paths then pin new pages on every call, the cost a
program that uploads a new array each time pays.

    python bench/probes/upload_ab.py [--mib 256] [--blocks 8] [--memory device]
        [--fresh] [--no-device-mapping] [--json out.json]

Read: "GB/s" per configuration and "vs default" (the ratio of medians,
above 1 faster than the default); "memcpy" is the host's bandwidth for the
same bytes. The default should beat every "ring" row, with and without
--fresh; if "ring, copy threads 8" beats it with --fresh, pinning per call
costs more than the memcpy it saves on that host.
"""
import argparse
import json
import os
import statistics
import time

import numpy as np

RING = {"upload_import_min": 0}
# (name, VULPY_* variables, Context attributes)
CONFIGS = [
    ("default", {}, {}),
    ("ring (upload_import_min=0)", {}, RING),
    ("ring, copy threads 4 (old default)", {"VULPY_COPY_THREADS": "4"}, RING),
    ("ring, copy threads 8", {"VULPY_COPY_THREADS": "8"}, RING),
    ("ring, copy threads 12", {"VULPY_COPY_THREADS": "12"}, RING),
    ("per-call import 16 MiB", {"VULPY_UPLOAD_IMPORT_MIB": "16"}, RING),
    ("per-call import 64 MiB", {"VULPY_UPLOAD_IMPORT_MIB": "64"}, RING),
    ("per-call import 256 MiB", {"VULPY_UPLOAD_IMPORT_MIB": "256"}, RING),
    ("cached import, 8 copy threads", {"VULPY_COPY_THREADS": "8"}, {}),
    ("ring, one queue", {"VULPY_STREAM_QUEUES": "0"}, RING),
    ("ring, no exported semaphores", {"VULPY_EXPORT_SEMAPHORES": "0"}, RING),
    ("ring, staging 4 x 16 MiB", {"VULPY_STAGING_MIB": "16"}, RING),
    ("ring, staging 8 x 8 MiB", {"VULPY_STAGING_SLOTS": "8"}, RING),
]
KEYS = ("VULPY_STREAM_QUEUES", "VULPY_EXPORT_SEMAPHORES", "VULPY_STAGING_MIB",
        "VULPY_STAGING_SLOTS", "VULPY_COPY_THREADS", "VULPY_UPLOAD_IMPORT_MIB")


def make_context(vp, env, attrs, no_map):
    saved = {k: os.environ.pop(k, None) for k in KEYS}
    os.environ.update(env)
    try:
        c = vp.Context(no_device_mapping=no_map)
    finally:
        for k in KEYS:
            os.environ.pop(k, None)
            if saved[k] is not None:
                os.environ[k] = saved[k]
    for k, v in attrs.items():
        setattr(c, k, v)
    return c


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mib", type=int, default=256)
    ap.add_argument("--blocks", type=int, default=8)
    ap.add_argument("--reps", type=int, default=3, help="timed calls per block")
    ap.add_argument("--memory", default="device")
    ap.add_argument("--no-device-mapping", action="store_true",
                    help="never map 'device' memory (a discrete GPU's paths on lavapipe)")
    ap.add_argument("--fresh", action="store_true",
                    help="upload a new copy of x on every timed call")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    import vulpy as vp
    n = (a.mib << 20) // 4
    x = np.random.default_rng(6).integers(0, 2 ** 32, n, dtype=np.uint32).view(np.float32)
    runners = {}
    for name, env, attrs in CONFIGS:
        c = make_context(vp, env, attrs, a.no_device_mapping)
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
                src = x.copy() if a.fresh else x  # new pages, outside the timer
                t0 = time.perf_counter_ns()
                arr.set(src)
                got[name].append(time.perf_counter_ns() - t0)
                del src
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
    print(f"device {c0.name}, {a.mib} MiB, memory={a.memory}, {a.blocks} blocks x {a.reps}"
          f"{', a fresh source per call' if a.fresh else ''}; default copy threads "
          f"{c0.copy_threads}")
    print(f"{'configuration':40s} {'GB/s':>7s} {'p10':>7s} {'p90':>7s} {'vs default':>10s}")
    for name, ns in got.items():
        ns = sorted(ns)
        med = statistics.median(ns)
        p10, p90 = ns[len(ns) // 10], ns[(len(ns) * 9) // 10]
        row = {"case": f"upload {a.mib} MiB, memory={a.memory}{', fresh' if a.fresh else ''}",
               "backend": name,
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
