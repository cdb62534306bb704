"""Where the host's time goes in `vp.empty(n)` and an eager `c = a + b`,
layer by layer, in one build (issue 21; bench/notes/memory.md quotes it).

    .venv/bin/python bench/probes/alloc_layers.py [--batch N]
    PYTHONPATH=/tmp/old .venv/bin/python bench/probes/alloc_layers.py   # another build

Times, float32[2^10], each alone in a loop: Buffer() alone (a pool hit),
ndarray() alone, _array._result, vp.empty, the kernel's eager dispatch with
prebuilt arguments, the whole calls; then the host's part alone - the C
path (Launcher.ufunc with dry_run: everything but the dispatch) and the
Python path (the plan's kernel replaced by one whose dispatch does nothing).
Each figure is the fastest of 40 loops of 300 calls ended by a
synchronize: what the call costs when a loaded machine leaves it alone.
--batch N runs with Context.eager_batch = N. Interleaved A/B of whole calls
across builds: `bench/ab.py alloc OLD NEW NEW [NEW@1]`.
"""
import argparse
import time


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
    ap.add_argument("--batch", type=int, default=0, help="Context.eager_batch for the run")
    layers(ap.parse_args().batch)


if __name__ == "__main__":
    main()
