"""Prints where VulPy's complex functions differ from NumPy's on edge
values (signed zeros, infinities, NaN, subnormal parts), element by
element: the detail a failing test_complex assertion does not show.

    python bench/probes/complex_edges.py
"""
import numpy as np

import vulpy as vp

EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 1e-20, 3e38, 1e10, np.inf, -np.inf, np.nan]
NAMES = ["arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "sqrt", "log", "exp",
         "reciprocal"]


def _bad(g, w):
    out = []
    for part in ("real", "imag"):
        gp, wp = getattr(g, part), getattr(w, part)
        nan = np.isnan(wp)
        ex = ~nan & (~np.isfinite(wp) | (wp == 0))
        b = (np.isnan(gp) != nan) | (ex & ((gp != wp) | (np.signbit(gp) != np.signbit(wp))))
        b |= ~nan & ~ex & ~(np.abs(gp - wp) <= 1e-5 * np.abs(wp))
        out.append(b)
    return out[0] | out[1]


def main():
    ctx = vp.default_context()
    print(ctx.info.get("name"), "flushes", ctx.flushes_subnormals, "fma_fused", ctx.fma_fused)
    for dt in (np.complex64, np.complex128):
        z = np.array([complex(a, b) for a in EDGES for b in EDGES], dt)
        for name in NAMES:
            with np.errstate(all="ignore"):
                w = getattr(np, name)(z)
            g = getattr(vp, name)(vp.asarray(z)).numpy()
            with np.errstate(all="ignore"):
                b = _bad(g, w)
            for i in np.flatnonzero(b)[:6]:
                print(f"{np.dtype(dt).name} {name}({z[i]!r}): got {g[i]!r} want {w[i]!r}")
            if b.any():
                print(f"{np.dtype(dt).name} {name}: {int(b.sum())} of {z.size} differ")
    x = np.array([0.5 + 0.5j, -2, 2, 0.5, 3j], np.complex64)
    for e in (np.inf, -np.inf):
        with np.errstate(all="ignore"):
            w = x ** e
        g = (vp.asarray(x) ** e).numpy()
        print("z **", e, "got", g, "want", w)
    # division of parts spread over e^-80..e^80 (test_hunt_complex's
    # test_division_is_numpys_to_the_bit), element by element
    r = np.random.default_rng(3)
    w = r.standard_normal((4, 500)) * np.exp(r.uniform(-80, 80, (4, 500)))
    for dt in (np.complex64, np.complex128):
        a, b = (w[0] + 1j * w[1]).astype(dt), (w[2] + 1j * w[3]).astype(dt)
        with np.errstate(all="ignore"):
            want = a / b
        got = (vp.asarray(a) / vp.asarray(b)).numpy()
        bad = ~((got.real == want.real) | (np.isnan(got.real) & np.isnan(want.real))) | \
            ~((got.imag == want.imag) | (np.isnan(got.imag) & np.isnan(want.imag)))
        for i in np.flatnonzero(bad)[:8]:
            print(f"{np.dtype(dt).name} ({a[i]!r}) / ({b[i]!r}): got {got[i]!r} want {want[i]!r}")
        print(f"{np.dtype(dt).name} division: {int(bad.sum())} of {a.size} differ")


if __name__ == "__main__":
    main()
