"""What Context(robust=True) costs (issue 20): robustBufferAccess makes an
out-of-range buffer index read 0 and write nothing, at a price on every
access. A memory-bound kernel (saxpy, y = 2x + y, float32) and a gather
(y[i] = x[idx[i]]) timed on a default context and on a robust one,
interleaved, GPU timestamps; the records give GB/s and the ratio robust /
default time (1.0 = free). 2^22 elements on a CPU device (lavapipe), 2^26
on a GPU.

    bash bench/device/suites.sh --suites robust
    .venv/bin/python bench/run.py --suite robust --quick
"""
import numpy as np

from benchlib import Recorder, check_close, interleave, vulpy

vp = vulpy()


def _saxpy(x: vp.Buffer[vp.float32], y: vp.Buffer[vp.float32]):
    i = vp.global_id()
    y[i] = 2.0 * x[i] + y[i]


def _gather(x: vp.Buffer[vp.float32], idx: vp.Buffer[vp.uint32],
            y: vp.Buffer[vp.float32]):
    i = vp.global_id()
    y[i] = x[idx[i]]


def run(ctx):
    rec = Recorder("robust", getattr(ctx, "device_label", "local"))
    base = vp.default_context()
    cpu = base.kind == "cpu"
    n = 1 << (22 if cpu or ctx.quick else 26)
    rng = np.random.default_rng(5)
    x = rng.random(n, dtype=np.float32)
    idx = rng.integers(0, n, n).astype(np.uint32)
    ctxs = {"default": vp.Context(), "robust": vp.Context(robust=True)}
    for case, fn, nbytes in (("saxpy", _saxpy, 12.0 * n), ("gather", _gather, 16.0 * n)):
        runners = {}
        for mode, c in ctxs.items():
            k = vp.kernel(local_size_x=256, context=c)(fn)
            xv = vp.asarray(x, context=c, memory="device")
            yv = vp.zeros(n, np.float32, context=c, memory="device")
            if case == "saxpy":
                args = [xv, yv]
                k(*args, dispatch=n)
                check_close(yv.numpy(), 2 * x, 1e-6, 0, f"saxpy ({mode})")
            else:
                iv = vp.asarray(idx, context=c, memory="device")
                args = [xv, iv, yv]
                k(*args, dispatch=n)
                check_close(yv.numpy(), x[idx], 0, 0, f"gather ({mode})")
            nk = k.program().native(c)
            push = k.program().packer.pack({})
            bufs = [a.buffer for a in args]
            runners[mode] = (lambda nk=nk, push=push, bufs=bufs:
                             nk.dispatch_timed(bufs, push, n, 1, 1, False))
        out = interleave(runners, 5 if cpu or ctx.quick else 20)
        if any(isinstance(s, Exception) for s in out.values()):
            for mode, s in out.items():
                if isinstance(s, Exception):
                    rec.error(case, n, mode, s)
            continue
        for mode, s in out.items():
            rec.add(case, n, mode, s, "GB/s", scale=nbytes, inverse=True)
        rec.ratio(f"{case}: robust / default time", n, out["robust"], out["default"],
                  higher_is_better=False)
    return rec.records
