"""Makes and checks .npy files for the vulpy-run tests.

  npy.py make FILE EXPR          saves eval(EXPR) (numpy as np)
  npy.py check FILE EXPR         prints "OK dtype shape" when FILE equals EXPR,
                                 else "MISMATCH" and the first differences
  npy.py close FILE EXPR RTOL    the same, within a relative tolerance RTOL
                                 (for float kernels the driver may contract)
"""
import sys

import numpy as np


def main():
    cmd, path, expr = sys.argv[1:4]
    if cmd == "make":
        np.save(path, eval(expr, {"np": np}))
        return 0
    got = np.load(path)
    want = np.asarray(eval(expr, {"np": np}))
    rtol = float(sys.argv[4]) if cmd == "close" else 0.0
    same = np.allclose(got, want, rtol=rtol, atol=0) if got.shape == want.shape and rtol \
        else np.array_equal(got, want)
    if got.shape == want.shape and got.dtype == want.dtype and same:
        print("OK", got.dtype, got.shape)
        return 0
    print("MISMATCH", got.dtype, got.shape, "expected", want.dtype, want.shape)
    if got.shape == want.shape:
        bad = np.argwhere(~np.isclose(got, want, rtol=rtol, atol=0) if rtol else got != want)[:5]
        for i in bad:
            print(" at", tuple(i), "got", got[tuple(i)], "expected", want[tuple(i)])
    return 1


if __name__ == "__main__":
    sys.exit(main())
