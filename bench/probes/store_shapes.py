"""Which launch shape writes 1 GiB fastest on this GPU? Store-only kernels
(each writes one constant everywhere: no arithmetic) over 2^28 float32 in
the shapes the float32 normal kernels could take, beside CuPy's normal
generators and CuPy's `fill` (issue 19: `vp.random` normal float32 must
match `cupy.random`; the bench suite's "store only (v4 grid)" row took
0.635 ms on the H200, 1.69 TB/s, longer than CuPy's whole normal).

Shapes (the row's name; W the workgroup width, K vec4s an invocation):
  scalar/W         one float32 an invocation (scalar stores)
  vec4/W           one vec4 an invocation (the v4 grid is vec4/64)
  uvec4/W          one uvec4 of the constant's bits an invocation
  split K/W        K vec4s an invocation at t + j h (h = n4 / K; v8 is 2/64)
  block K/W        each workgroup one contiguous stretch of K W vec4s
  chunk K/W        K neighbouring vec4s an invocation (a thread's own stretch)
  gs k/W           a grid-stride loop, one vec4 an iteration, over k x SMs
                   workgroups (thread i writes i, i + T, ...)
  gs2 k/W          the same with two vec4 stores an iteration (i, i + T)
  gs-chunk k/W     k x SMs workgroups, each thread its contiguous n4 / T vec4s
GPU time: timestamps around each of REPEAT back-to-back dispatches of one
recording (bench_random's method), rounds of every shape taking turns with
CuPy's (CUDA events around REPEAT calls; the first call after the other
API's is untimed). Then for a few shapes the same kernel through the
`vp.kernel` call (a synchronous call, and REPEAT sync=False calls with one
wait) against the recording: the call's cost over the kernel's.
Every shape's recording is checked: the buffer is set to -1, the recording
runs, and vp.min / vp.max must both be the constant (nothing optimized away,
no slot left unwritten).

    python bench/probes/store_shapes.py [--log2n 28] [--rounds 7] [--json out.json]

Read: "GB/s" (bytes written / median GPU time; the H200's HBM3e peak is
4.8 TB/s) per shape against `cupy fill` (CuPy's own store-only kernel) and
`cupy normal`; which family (W, K, groups a SM) is fastest says what the
normal kernels' launch shape should be (bench/probes/normal_ab.py, now retired, timed the
normal kernels in those shapes). "call - recorded" in the last table is
the launch overhead of a `vp.kernel` call.
"""
import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
sys.path.insert(0, str(ROOT / "bench"))

import vulpy as vp  # noqa: E402
from benchlib import cupy_events, recorded  # noqa: E402

try:
    import cupy as cp
    cp.cuda.runtime.getDeviceCount()
except Exception:  # no CuPy or no CUDA device
    cp = None

REPEAT = 10


# ------------------------------------------------------------------ kernels
def scalar_kernel(W):
    def store_scalar(out: vp.Buffer[vp.float32], v: vp.float32, n: vp.uint32):
        i = vp.global_id(0)
        if i < n:
            out[i] = v
    return vp.kernel(local_size_x=W)(store_scalar)


def vec4_kernel(W):
    def store_vec4(out: vp.Buffer[vp.vec4], v: vp.float32, n4: vp.uint32):
        t = vp.global_id(0)
        if t < n4:
            out[t] = vp.vec4(v, v, v, v)
    return vp.kernel(local_size_x=W)(store_vec4)


def uvec4_kernel(W):
    def store_uvec4(out: vp.Buffer[vp.uvec4], bits: vp.uint32, n4: vp.uint32):
        t = vp.global_id(0)
        if t < n4:
            out[t] = vp.uvec4(bits, bits, bits, bits)
    return vp.kernel(local_size_x=W)(store_uvec4)


def split_kernel(K, W):
    def store_split(out: vp.Buffer[vp.vec4], v: vp.float32, n4: vp.uint32, h: vp.uint32):
        t = vp.global_id(0)
        for j in vp.static(range(K)):
            u = t + j * h
            if u < n4:
                out[u] = vp.vec4(v, v, v, v)
    return vp.kernel(local_size_x=W)(store_split)


def block_kernel(K, W):
    def store_block(out: vp.Buffer[vp.vec4], v: vp.float32, n4: vp.uint32):
        g = vp.global_id(0)
        lane = g % W
        base = (g - lane) * K + lane
        for j in vp.static(range(K)):
            u = base + j * W
            if u < n4:
                out[u] = vp.vec4(v, v, v, v)
    return vp.kernel(local_size_x=W)(store_block)


def chunk_kernel(K, W):
    def store_chunk(out: vp.Buffer[vp.vec4], v: vp.float32, n4: vp.uint32):
        t = vp.global_id(0) * K
        for j in vp.static(range(K)):
            if t + j < n4:
                out[t + j] = vp.vec4(v, v, v, v)
    return vp.kernel(local_size_x=W)(store_chunk)


def gs_kernel(K, W):
    def store_gs(out: vp.Buffer[vp.vec4], v: vp.float32, n4: vp.uint32, stride: vp.uint32):
        t = vp.global_id(0)
        while t < n4:
            for j in vp.static(range(K)):
                u = t + j * stride
                if u < n4:
                    out[u] = vp.vec4(v, v, v, v)
            t = t + K * stride
    return vp.kernel(local_size_x=W)(store_gs)


def gs_chunk_kernel(W):
    def store_gs_chunk(out: vp.Buffer[vp.vec4], v: vp.float32, n4: vp.uint32,
                       per: vp.uint32):
        t = vp.global_id(0) * per
        end = vp.min(t + per, n4)
        while t < end:
            out[t] = vp.vec4(v, v, v, v)
            t = t + 1
    return vp.kernel(local_size_x=W)(store_gs_chunk)


def shapes(n, sms):
    """{name: (kernel, push without v, invocations, bits?)} for n float32."""
    n4 = n // 4
    up = lambda m, w: -(-m // w) * w  # noqa: E731 - whole workgroups
    out = {}
    for W in (64, 256, 1024):
        out[f"scalar/{W}"] = (scalar_kernel(W), dict(n=n), up(n, W), False)
    for W in (64, 128, 256, 512, 1024):
        out[f"vec4/{W}"] = (vec4_kernel(W), dict(n4=n4), up(n4, W), False)
    for W in (64, 256):
        out[f"uvec4/{W}"] = (uvec4_kernel(W), dict(n4=n4), up(n4, W), True)
    for K, W in ((2, 64), (2, 256), (4, 64), (4, 256)):
        h = -(-n4 // K)
        out[f"split {K}/{W}"] = (split_kernel(K, W), dict(n4=n4, h=h), up(h, W), False)
    for K, W in ((2, 256), (4, 256), (8, 256), (4, 128)):
        out[f"block {K}/{W}"] = (block_kernel(K, W), dict(n4=n4), -(-n4 // (K * W)) * W, False)
    for K, W in ((2, 256), (4, 256)):
        out[f"chunk {K}/{W}"] = (chunk_kernel(K, W), dict(n4=n4), up(-(-n4 // K), W), False)
    for K, W, ks in ((1, 256, (1, 2, 4, 8, 16)), (1, 512, (2, 4)), (1, 1024, (1, 2)),
                     (2, 256, (4, 8, 16))):
        for k in ks:
            stride = min(sms * k * W, up(n4, W))
            out[f"gs{K if K > 1 else ''} {k}/{W}"] = (gs_kernel(K, W), dict(n4=n4, stride=stride),
                                                     stride, False)
    for k in (8, 16):
        inv = min(sms * k * 256, up(n4, 256))
        out[f"gs-chunk {k}/256"] = (gs_chunk_kernel(256), dict(n4=n4, per=-(-n4 // inv)), inv,
                                    False)
    return out


# ------------------------------------------------------------------ timers
def cupy_timer(fn):
    return cupy_events(cp, fn, REPEAT)


def cupy_timers(n):
    if cp is None:
        return {}
    cbuf = cp.empty(n, cp.float32)
    g = cp.random.default_rng(0)
    rs = cp.random.RandomState(0)
    try:
        g.standard_normal(16, dtype=cp.float32, out=cbuf[:16])
        gen = lambda: g.standard_normal(n, dtype=cp.float32, out=cbuf)  # noqa: E731
        gname = "cupy default_rng().standard_normal (out=)"
    except TypeError:
        gen = lambda: g.standard_normal(n, dtype=cp.float32)  # noqa: E731
        gname = "cupy default_rng().standard_normal"
    return {gname: cupy_timer(gen),
            "cupy RandomState.normal": cupy_timer(lambda: rs.normal(size=n, dtype=cp.float32)),
            "cupy fill(1)": cupy_timer(lambda: cbuf.fill(1)),
            "cupy empty + fill(1)": cupy_timer(lambda: cp.empty(n, cp.float32).fill(1))}


def check(name, run, vbuf, v):
    """The recording writes v to every element (vp.min and vp.max of the
    buffer after setting it to -1)."""
    vbuf.fill(-1.0)
    run()
    lo, hi = float(vp.min(vbuf)), float(vp.max(vbuf))
    if not lo == hi == v:
        raise SystemExit(f"WRONG RESULT: {name} left min {lo}, max {hi} (want {v})")


def wall_rows(dev, table, vbuf, names, reps):
    """(name, sync call ms, async call ms, recorded ms) for the shapes in
    names: the same kernel through vp.kernel's call."""
    rows = []
    for name in names:
        kern, push, inv, _ = table[name]
        if name.startswith("uvec4"):
            continue

        def call(sync=True):
            return kern(vbuf, dispatch=inv, v=2.0, sync=sync, **push)
        call()
        sync_s, async_s = [], []
        for _ in range(reps):
            t0 = time.perf_counter()
            call()
            sync_s.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            for _ in range(REPEAT):
                call(sync=False)
            dev.synchronize()
            async_s.append((time.perf_counter() - t0) / REPEAT)
        rows.append((name, statistics.median(sync_s) * 1e3, statistics.median(async_s) * 1e3))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--log2n", type=int, default=None, help="float32 elements (default 28 "
                    "on a GPU, 20 on a CPU device)")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--warm", type=float, default=1.0, help="seconds of load first")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    dev = vp.default_context()
    n = 1 << (args.log2n or (20 if dev.kind == "cpu" else 28))
    sms = dev._native.cores()[0] or 128
    print(f"device: {dev.info.get('name', dev.kind)}; {sms} cores (SMs); n = {n} float32 "
          f"({4 * n / 2**30:.3g} GiB); {REPEAT} dispatches a sample, {args.rounds} rounds")
    vbuf = vp.empty(n, np.float32)
    t0 = time.perf_counter()
    table = shapes(n, sms)
    timers = {}
    for i, (name, (kern, push, inv, bits)) in enumerate(table.items()):
        v = float(i + 1)
        p = dict(push, bits=int(np.float32(v).view(np.uint32))) if bits else dict(push, v=v)
        timers[name] = recorded(vp, dev, kern, vbuf.buffer, p, inv, REPEAT)
        check(name, timers[name], vbuf, v)
    print(f"compiled and checked {len(table)} shapes in {time.perf_counter() - t0:.1f} s "
          f"(each writes its constant to all {n} elements)")
    ctimers = cupy_timers(n)
    backend = {**{k: "vulkan" for k in timers}, **{k: "cuda" for k in ctimers}}
    every = {**timers, **ctimers}
    t_end = time.perf_counter() + args.warm
    while time.perf_counter() < t_end:
        for t in every.values():
            t()
    got = {k: [] for k in every}
    for _ in range(args.rounds):
        last = None
        for k, t in every.items():
            if backend[k] != last:  # the first call after the other API's: untimed
                t()
                last = backend[k]
            got[k].append(t())
    rows = []
    print(f"\n{'shape':44s} {'invocations':>12s} {'GPU ms':>8s} {'p10-p90':>15s} {'GB/s':>7s}")
    for k, s in got.items():
        med = statistics.median(s) / 1e6
        q = sorted(s)
        p10, p90 = q[len(q) // 10] / 1e6, q[-1 - len(q) // 10] / 1e6
        inv = table[k][2] if k in table else ""
        gbps = 4 * n / (med * 1e-3) / 1e9
        rows.append(dict(shape=k, invocations=inv, gpu_ms=med, p10=p10, p90=p90, gbps=gbps))
        print(f"{k:44s} {inv!s:>12s} {med:8.3f} {p10:7.3f}-{p90:7.3f} {gbps:7.0f}")
    best = min((r for r in rows if r["shape"] in table), key=lambda r: r["gpu_ms"])
    print(f"\nfastest store shape: {best['shape']} ({best['gpu_ms']:.3f} ms, "
          f"{best['gbps']:.0f} GB/s)")
    names = ["vec4/64", "vec4/256", best["shape"]]
    wall = wall_rows(dev, table, vbuf, list(dict.fromkeys(names)), max(3, args.rounds))
    print(f"\n{'shape (vp.kernel call)':24s} {'sync ms':>8s} {'async ms':>9s} "
          f"{'recorded':>9s} {'call - recorded':>16s}")
    for name, s, a in wall:
        rec = statistics.median(got[name]) / 1e6
        print(f"{name:24s} {s:8.3f} {a:9.3f} {rec:9.3f} {s - rec:16.3f}")
    if args.json:
        Path(args.json).write_text(json.dumps(dict(n=n, sms=sms, rows=rows, wall=[
            dict(shape=a, sync_ms=b, async_ms=c) for a, b, c in wall]), indent=1))


if __name__ == "__main__":
    main()
