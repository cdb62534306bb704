"""H200 diagnosis of the MemSock `block` hang (docs/memsock.md, "On the H200").

(1) ping-pong visibility between a running kernel and the host in each
memory kind: the kernel publishes j (atomic store), waits (bounded) for the
host to echo it; counts timeouts. (2) the bench's throughput case (16 fires a
dispatch into 4 slots, block) with a bounded GPU spin, ring memory in each
kind, with a monitor printing pipe.stats while the dispatch runs.

    python bench/probes/memsock_diag.py pingpong host|cached|rebar
    python bench/probes/memsock_diag.py fill host|cached|rebar [elems]
"""
import os
import sys
import threading
import time

import numpy as np

import vulpy as vp
from vulpy import _native


def pingpong(memory):
    @vp.kernel(local_size_x=1)
    def pp(w: vp.Buffer[vp.uint32], n: vp.uint32, spins: vp.uint32):
        for j in range(n):
            vp.atomic_store(w[0], j + 1)
            k = vp.var(vp.uint32(0))
            while vp.atomic_load(w[1]) < j + 1 and k < spins:
                k += 1
            if k >= spins:
                vp.atomic_add(w[2], vp.uint32(1))

    w = vp.zeros(4, dtype=np.uint32, memory=memory)
    v = w.numpy_view()
    n = 200
    stop = threading.Event()
    seen = []

    def echo():
        last = 0
        while not stop.is_set():
            x = int(v[0])
            if x != last:
                seen.append((time.perf_counter_ns(), x))
                v[1] = x
                last = x

    th = threading.Thread(target=echo, daemon=True)
    th.start()
    t0 = time.perf_counter()
    pp(w, dispatch=1, n=n, spins=1 << 20)
    dt = time.perf_counter() - t0
    stop.set()
    th.join()
    print(f"pingpong memory={memory}: {dt*1e3:.1f} ms for {n} rounds, host saw {len(seen)} "
          f"changes (last {seen[-1][1] if seen else None}), gpu timeouts {int(v[2])}, "
          f"{dt/n*1e6:.1f} us/round", flush=True)


def fill(memory, elems):
    ext = _native.ext()
    orig = ext.MemSock
    ext.MemSock = lambda *a, **k: orig(*a, spin_limit=int(os.environ.get('SPIN', 1 << 20)), **k)

    @vp.kernel(local_size_x=256)
    def fillk(pipe: vp.MemSock[vp.float32], first: vp.uint32, n: vp.uint32):
        p = vp.global_id()

        def body(seq: vp.uint32):
            pipe[p] = vp.float32(seq)

        for j in range(n):
            pipe.fire(body, seq=first + j)

    pipe = vp.MemSock(dtype=vp.float32, frame_shape=(elems,), payload={"seq": vp.uint32})
    got = []
    pipe.on("message", lambda f, seq: got.append((seq, float(f[0]), float(f[-1]))))
    pipe.open(capacity=4, policy="block", memory=memory)
    t0 = time.perf_counter()
    fillk(pipe, dispatch=elems, first=0, n=1)
    print(f"fill memory={memory} warm n=1: {time.perf_counter()-t0:.3f} s stats {pipe.stats}",
          flush=True)
    stop = threading.Event()

    def monitor():
        while not stop.wait(0.5):
            print(f"  t={time.perf_counter()-t0:.1f}s stats {pipe.stats}", flush=True)

    th = threading.Thread(target=monitor, daemon=True)
    t0 = time.perf_counter()
    th.start()
    try:
        fillk(pipe, dispatch=elems, first=1, n=16)
    except Exception as e:  # noqa: BLE001
        print("  error:", repr(e))
    stop.set()
    print(f"fill memory={memory} n=16 cap=4: {time.perf_counter()-t0:.3f} s stats {pipe.stats} "
          f"frames ok {all(a == b == c for a, b, c in got[1:])} {len(got)} {got[:6]}", flush=True)
    # the bench's loop: rounds of 16 fires into 4 slots, a checking callback
    t0 = time.perf_counter()
    first = 17
    for r in range(int(sys.argv[4]) if len(sys.argv) > 4 else 64):
        fillk(pipe, dispatch=elems, first=first, n=16)
        first += 16
        if r % 8 == 0:
            print(f"  round {r}: {time.perf_counter()-t0:.3f} s stats {pipe.stats}", flush=True)
    print(f"rounds done: {time.perf_counter()-t0:.3f} s stats {pipe.stats}", flush=True)
    pipe.close()


if __name__ == "__main__":
    if os.environ.get("CUPY"):
        import cupy
        cupy.zeros(1).sum()
        print("cupy initialised", flush=True)
    what, memory = sys.argv[1], sys.argv[2]
    if what == "pingpong":
        pingpong(memory)
    else:
        fill(memory, int(sys.argv[3]) if len(sys.argv) > 3 else 16384)
