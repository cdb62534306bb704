"""Host cost per call of what allocates (issue 21's cases) under two or more
builds of the package, in one interleaved run: is a change to the
allocation / eager ufunc path faster or slower?

    # the old build's package, then the change, then the new one (twice: A/A)
    cp -r bindings/python/vulpy /tmp/ab/old/ && <change, cmake --build build>
    cp -r bindings/python/vulpy /tmp/ab/new/ && cp -r bindings/python/vulpy /tmp/ab/new2/
    .venv/bin/python bench/ab_alloc.py /tmp/ab/old /tmp/ab/new /tmp/ab/new2 [--rounds 12]
    .venv/bin/python bench/ab_alloc.py /tmp/ab/new@1 /tmp/ab/new   # eager_batch 1 vs default
    .venv/bin/python bench/ab_alloc.py --layers    # one build: the per-layer breakdown

Each argument is a folder holding a `vulpy` package (its _vulpy.abi3.so
built); FOLDER@N runs that build with Context.eager_batch = N. Every round runs one process per folder, in a rotating order; each
process times, in blocks of calls that take turns, the cases below and
prints the medians (µs per call). Printed: each folder's median and the
median of the per-round ratios to the first folder. A block of eager calls
ends with ctx.synchronize(), so GPU work is inside the block; at 2^10
elements that is a few µs on lavapipe and the figure is the host's.

    vp.empty(n)              n = 2^10 and 2^20, the array dropped each call
    c = a + b                resident float32, a new result each call
    vp.sin(x) + vp.exp(x)    two temporaries and a result
    c = 0.5 * a              a Python scalar operand
    fdtd alloc / prealloc    bench_memory's FDTD-like loop (40 steps) at 2^12:
                             a temporary and a new field per update against
                             the same dispatches with out=
    conv sin+exp 2^16        NumPy in, NumPy out (the convenience path)

--layers (the current build only) times the layers of `c = a + b` and
`vp.empty` one by one, the fastest of 40 loops of 300 calls each: Buffer() alone, ndarray() alone, _array._result,
the Python ufunc path (_try_fast), the kernel's eager dispatch with prebuilt
arguments, the whole call (bench/notes/memory.md has the figures).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def _timed(fn, inner, sync):
    t0 = time.perf_counter_ns()
    for _ in range(inner):
        fn()
    sync()
    return (time.perf_counter_ns() - t0) / inner


def _cases(vp, np):
    ctx = vp.default_context()
    out = {}
    for n in (1 << 10, 1 << 20):
        x = vp.asarray(np.linspace(0, 1, n, dtype=np.float32))
        y = vp.asarray(np.linspace(1, 2, n, dtype=np.float32))
        tag = f"2^{n.bit_length() - 1}"
        out[f"vp.empty(n) {tag}"] = lambda n=n: vp.empty(n)
        out[f"c = a + b {tag}"] = lambda x=x, y=y: x + y
        out[f"vp.sin(x) + vp.exp(x) {tag}"] = lambda x=x: vp.sin(x) + vp.exp(x)
        out[f"c = 0.5 * a {tag}"] = lambda x=x: 0.5 * x
    m = 1 << 12
    e0 = vp.asarray(np.linspace(0, 1, m, dtype=np.float32))
    E2, H2, T2 = vp.empty(m), vp.empty(m), vp.empty(m)

    def alloc():
        E, H = e0.copy(), vp.zeros(m)
        for _ in range(40):
            H = H + 0.5 * E
            E = E + 0.5 * H
        return E

    def prealloc():
        E2._buf.copy_from(e0._buf)
        H2.fill(0)
        for _ in range(40):
            vp.multiply(E2, 0.5, out=T2)
            vp.add(H2, T2, out=H2)
            vp.multiply(H2, 0.5, out=T2)
            vp.add(E2, T2, out=E2)
        return E2

    out["fdtd 2^12 alloc (40 steps)"] = alloc
    out["fdtd 2^12 prealloc (40 steps)"] = prealloc
    h = np.linspace(0, 1, 1 << 16, dtype=np.float32)
    out["conv sin+exp 2^16"] = lambda: vp.sin(h) + vp.exp(h)
    # the results are right (the fast paths serve these calls from the 3rd on)
    for _ in range(3):
        got = (vp.sin(x) + vp.exp(x)).numpy()
    want = np.sin(np.linspace(0, 1, 1 << 20, dtype=np.float32))
    want = want + np.exp(np.linspace(0, 1, 1 << 20, dtype=np.float32))
    if not np.allclose(got, want, rtol=2e-6, atol=1e-6):
        raise AssertionError("sin + exp is wrong")
    if not np.allclose(alloc().numpy(), prealloc().numpy(), rtol=1e-6):
        raise AssertionError("the FDTD loops disagree")
    return ctx, out


def child(blocks, batch):
    import numpy as np

    import vulpy as vp

    if batch:  # FOLDER@N: this build with Context.eager_batch = N
        vp.default_context().eager_batch = batch
    ctx, cases = _cases(vp, np)
    got = {k: [] for k in cases}
    for fn in cases.values():  # warm: plans, pipelines, the pool
        for _ in range(3):
            fn()
    ctx.synchronize()
    for _ in range(blocks):
        for k, fn in cases.items():
            inner = 2 if k.startswith("fdtd") else 5 if "2^20" in k or "conv" in k else 50
            got[k].append(_timed(fn, inner, ctx.synchronize))
    res = {k: statistics.median(v) for k, v in got.items()}
    res["fdtd alloc / prealloc"] = (res["fdtd 2^12 alloc (40 steps)"] /
                                    res["fdtd 2^12 prealloc (40 steps)"])
    print(json.dumps(res))


def layers(batch=0):
    """The per-layer breakdown of `c = a + b` and `vp.empty` (this build)."""
    import numpy as np

    import vulpy as vp
    from vulpy import _array, _native

    ctx = vp.default_context()
    if batch:
        ctx.eager_batch = batch
    n = 1 << 10
    a = vp.asarray(np.ones(n, np.float32))
    b = vp.asarray(np.ones(n, np.float32))
    for _ in range(3):
        a + b
        vp.empty(n)
    ext = _native.ext()
    kind = a.memory
    dt = np.dtype(np.float32)
    plan = ctx._ufast[("add", dt, dt, (n,), True)]
    kern, push, gx, gy = plan[:4]
    c = a + b
    binds = [a._buf, b._buf, c._buf]
    sync = ctx.synchronize

    def loop(fn, it=300, rounds=40):
        # the fastest of many short rounds: what the call costs when the
        # machine (2 shared cores here) leaves it alone for a round
        r = []
        for _ in range(rounds):
            t0 = time.perf_counter_ns()
            for _ in range(it):
                fn()
            sync()
            r.append((time.perf_counter_ns() - t0) / it / 1e3)
        return min(r)

    rows = [
        ("Buffer(ctx, 4096, kind) (pool hit)", lambda: ext.Buffer(ctx._native, 4096, kind)),
        ("Buffer(..., written) (pool hit)", lambda: ext.Buffer(ctx._native, 4096, kind, 4096)),
        ("ndarray(buf, shape, dtype, ctx)", lambda: _array.ndarray(c._buf, (n,), dt, ctx)),
        ("_array._result((n,), f32, kind, ctx)", lambda: _array._result((n,), dt, kind, ctx)),
        ("vp.empty(n)", lambda: vp.empty(n)),
        ("kern.dispatch(binds, eager)", lambda: kern.dispatch(binds, push, gx, gy, 1, True, None)),
        ("vp.add(a, b, out=c)", lambda: vp.add(a, b, out=c)),
        ("vp.add(a, b)", lambda: vp.add(a, b)),
        ("a + b", lambda: a + b),
    ]
    if hasattr(ext, "empty_array"):
        p = ctx._ufast.get(("empty", np.float32, None))
        if p is not None:
            rows.append(("empty_array(plan, n) (C path)", lambda: ext.empty_array(p, n, ctx)))
    for name, fn in rows:
        print(f"{name:48s} {loop(fn):7.2f} us")
    # the host's part alone: the same calls with the dispatch left out
    print("-- no dispatch (host cost only):")

    class NoDispatch:
        def dispatch(self, *a):
            return None

    sig = ("add", dt, dt, (n,), True)
    fastn = getattr(vp.add, "_fastn", None)
    rows = []
    if fastn is not None:
        launcher = fastn.__self__
        launcher.dry_run = True
        rows += [("a + b, C path (Launcher.ufunc dry run)", lambda: a + b),
                 ("Launcher.ufunc((a, b), None, True) dry run",
                  lambda: fastn((a, b), None, True))]
    for name, fn in rows:
        print(f"{name:48s} {loop(fn):7.2f} us")
    if fastn is not None:
        launcher.dry_run = False
    ctx._ufast[sig] = (NoDispatch(),) + plan[1:7] + (None,)
    vp.add._fastn = None
    rows = [("a + b, Python path (Ufunc._try_fast)", lambda: a + b),
            ("vp.add(a, b), Python path", lambda: vp.add(a, b)),
            ("vp.add._try_fast((a, b), ...)", lambda: vp.add._try_fast((a, b), None, None, True))]
    for name, fn in rows:
        print(f"{name:48s} {loop(fn):7.2f} us")
    ctx._ufast[sig] = plan


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("builds", nargs="*", help="folders each holding a vulpy package")
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--blocks", type=int, default=7, help="blocks per case and process")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--batch", type=int, default=0,
                    help="with --layers: Context.eager_batch for the run")
    ap.add_argument("--layers", action="store_true", help="this build's per-layer breakdown")
    args = ap.parse_args()
    if args.child:
        return child(args.blocks, args.batch)
    if args.layers:
        return layers(args.batch)
    if len(args.builds) < 2:
        ap.error("give at least two folders (or --layers)")
    res = {b: [] for b in args.builds}
    t0 = time.time()
    for r in range(args.rounds):
        order = args.builds[r % len(args.builds):] + args.builds[:r % len(args.builds)]
        for b in order:
            path, _, batch = b.partition("@")
            p = subprocess.run([sys.executable, __file__, "--child", "--blocks", str(args.blocks),
                                "--batch", batch or "0"],
                               env=dict(os.environ, PYTHONPATH=path), capture_output=True,
                               text=True)
            if p.returncode:
                sys.exit(f"{b}: {p.stderr[-2000:]}")
            res[b].append(json.loads(p.stdout.strip().splitlines()[-1]))
    base = args.builds[0]
    print(f"{args.rounds} rounds, {time.time() - t0:.0f} s; per call, medians; ratios are "
          f"medians of per-round ratios to {base}")
    for case in res[base][0]:
        unit = "" if "/" in case else " us"
        scale = 1 if "/" in case else 1e3
        line = f"{case:32s} {statistics.median(x[case] for x in res[base]) / scale:8.2f}{unit}"
        for b in args.builds[1:]:
            ratio = statistics.median(x[case] / y[case] for x, y in zip(res[b], res[base]))
            med = statistics.median(x[case] for x in res[b]) / scale
            line += f" | {os.path.basename(b.rstrip('/'))} {med:8.2f}{unit} x{ratio:.3f}"
        print(line)


if __name__ == "__main__":
    main()
