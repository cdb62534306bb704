"""Where a tiny @vp.kernel call's time goes, with the GPU out of it.

    .venv/bin/python bench/probes/call_breakdown.py

Times, each alone in a loop, the pieces of the Python path (the kernel's
native dispatch replaced by one that does nothing), the whole Python path,
and the whole Launcher call (KernelCall -> Launcher with dry_run: checks and
push block, no dispatch). bench/notes/python.md ("Per-call path") has the
figures and what they mean.
"""
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench/
import numpy as np  # noqa: E402

# the python suite's tiny kernel and no-op dispatch: one definition of both
# (bench_python puts bindings/python on sys.path before it imports vulpy)
from bench_python import _NoDispatch, _tiny as tiny  # noqa: E402
import vulpy as vp  # noqa: E402
from vulpy import _array, _context, _kernel  # noqa: E402


def loop(fn, it=20000, rounds=9):
    """Median ns per call of `fn` over `rounds` loops of `it` calls."""
    r = []
    for _ in range(rounds):
        t0 = time.perf_counter_ns()
        for _ in range(it):
            fn()
        r.append((time.perf_counter_ns() - t0) / it)
    return statistics.median(r)


def main():
    c = vp.default_context()
    n = 64
    xv = vp.asarray(np.arange(n, dtype=np.float32))
    yv = vp.empty_like(xv)
    tiny(xv, yv, dispatch=n, a=2.0)  # compiles; makes the Launcher
    prog = tiny.program()
    launcher = tiny._fast
    args = (xv, yv)

    def buffer_loop():
        binds = []
        for a, b, w in zip(args, prog.buffers, prog._want):
            if type(a) is _array.ndarray:
                if a._sdtype is not w and a._sdtype != w:
                    pass
                binds.append(a._buf)

    def context_of():
        ctx = None
        for a in args:
            cc = getattr(a, "_ctx", None)
            if cc is not None and ctx is None:
                ctx = cc
        return _context.resolve(ctx)

    def kw_frame(*b, dispatch=None, groups=None, sync=True, context=None, **push):
        return None

    def closure():
        def finish():
            return None
        finish()

    pieces = {
        "the __call__ frame: k(*buffers, dispatch=, a=)":
            lambda: kw_frame(xv, yv, dispatch=n, a=2.0),
        "the arrays' context + _context.resolve": context_of,
        "_grid(dispatch=N)": lambda: _kernel._grid("k", n, None),
        "PushPacker.pack({'a': 2.0})": lambda: prog.packer.pack({"a": 2.0}),
        "buffer loop (type, dtype checks, list of Buffers)": buffer_loop,
        "Program.native(ctx) (dict lookup)": lambda: prog.native(c),
        "the finish closure made and called": closure,
        "[Launcher] launcher.call(buffers, kw), dry_run":
            lambda: launcher.call(args, {"dispatch": n, "a": 2.0}),
    }
    base = loop(lambda: None)
    prog.native = lambda ctx: _NoDispatch()
    tiny._fast = False
    whole = loop(lambda: tiny(xv, yv, dispatch=n, a=2.0)) - base
    launcher.dry_run = True
    tiny._fast = launcher
    fast = loop(lambda: tiny(xv, yv, dispatch=n, a=2.0)) - base
    print(f"whole Python path (no dispatch): {whole:.0f} ns")
    for name, fn in pieces.items():
        print(f"  {loop(fn) - base:6.0f} ns  {name}")
    print(f"whole Launcher call (KernelCall -> Launcher, dry_run): {fast:.0f} ns")
    launcher.dry_run = False
    del prog.native


if __name__ == "__main__":
    main()
