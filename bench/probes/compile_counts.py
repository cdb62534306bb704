"""Which array-API calls compile per shape: each case runs at four shapes
(a new number of rows and columns each time) and the probe counts the
distinct array VIR texts handed to the compiler at each (0: the plan or
the cached kernel of an earlier shape served it; 1 or more: a compile).

    python bench/probes/compile_counts.py

(Session 39, lavapipe: axis= reductions, cumsum, nonzero and
integer-array gathers still printed 1 per shape - x - x.mean(axis=0) too,
for its mean; views of up to two axis terms, row and column broadcasts,
copies, tile and repeat printed 0 after the first. Session 40: axis=
reductions and scans in segments, nonzero from the mask compaction and
x[idx] as the take over a dynamic extent print 0 after the first too.)
"""
import numpy as np

import vulpy as vp
from vulpy import _engine

CASES = {
    "x + 1": lambda x: x + 1,
    "x[:, 1:] + 1 (2-D view)": lambda x: x[:, 1:] + 1,
    "x - x.mean(axis=0)": lambda x: x - x.mean(axis=0),
    "x / x.sum(axis=1, keepdims)": lambda x: x / x.sum(axis=1, keepdims=True),
    "x.T.copy()": lambda x: x.T.copy(),
    "x.astype(float64)": lambda x: x.astype(np.float64),
    "vp.where(x > 0.5, x, 0)": lambda x: vp.where(x > 0.5, x, 0),
    "vp.clip": lambda x: vp.clip(x, 0.2, 0.8),
    "tile": lambda x: vp.tile(x, 2),
    "repeat": lambda x: vp.repeat(x, 2, axis=0),
    "concatenate axis=1": lambda x: vp.concatenate([x, x], axis=1),
    "pad": lambda x: vp.pad(x, 1),
    "x.sum()": lambda x: x.sum(),
    "x.sum(axis=1)": lambda x: x.sum(axis=1),
    "x.max(axis=0)": lambda x: x.max(axis=0),
    "argmax(axis=1)": lambda x: vp.argmax(x, axis=1),
    "std(axis=0)": lambda x: vp.std(x, axis=0),
    "cumsum": lambda x: vp.cumsum(x.reshape(-1)),
    "nonzero": lambda x: vp.nonzero(x > 0.5),
    "x[idx] gather": lambda x: x[np.array([0, 2, 1])],
    "x[mask]": lambda x: x[x > 0.5],
    "sort(axis=1)": lambda x: vp.sort(x, axis=1),
    "x @ x.T": lambda x: x @ x.T,
}


def main():
    seen, texts = set(), []
    real = _engine.compile

    def counting(text, c, *a, **kw):
        if text not in seen:
            seen.add(text)
            texts.append(text)
        return real(text, c, *a, **kw)

    _engine.compile = counting
    print(vp.default_context().info.get("name"))
    for name, f in CASES.items():
        counts = []
        for n in (5, 6, 7, 9):
            x = vp.asarray(np.random.default_rng(n).random((n, 8 + n)).astype(np.float32))
            before = len(texts)
            f(x)
            counts.append(len(texts) - before)
        print(f"{name:30s} new texts at 4 shapes: {counts}")


if __name__ == "__main__":
    main()
