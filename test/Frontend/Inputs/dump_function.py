"""A decorated-style kernel in an ordinary Python file, for
decorated-function.test: dump_function reaches the helper, the struct class
and the module constant through the function's module, and keeps this
file's line numbers."""
from __future__ import annotations  # annotations stay text: vp.Buffer needs no runtime

import vulpy as vp
from vulpy import _astjson

SCALE = 2.5
table = [1, 2, 3]  # not a constant: only an error if a kernel reads it


class Pair:
    a: vp.float32
    b: vp.float32


def helper(x):
    return x * SCALE


class Holder:
    # indented: the columns in diagnostics must still be this file's
    @staticmethod
    def kernel(p: vp.Buffer[Pair], out: vp.Buffer[vp.float32], n: vp.uint32):
        i = vp.global_id()
        out[i] = helper(p[i].a) + p[i].b

    @staticmethod
    def broken(out: vp.Buffer[vp.float32]):
        i = vp.global_id()
        out[i] = table[0] + i * 0.5

    @staticmethod
    def typed(out: vp.Buffer[vp.float64], bits: vp.Buffer[vp.uint64]):
        i = vp.global_id()
        t = DSCALE
        out[i] = t
        bits[i] = MASK

    @staticmethod
    def too_big(out: vp.Buffer[vp.uint32]):
        out[0] = SMALL


DSCALE: vp.float64 = 0.1  # typed by their annotations (decorated-constants.test)
MASK: vp.uint64 = 0xFFFFFFFF
SMALL: vp.uint8 = 300  # an error where a kernel reads it


if __name__ == "__main__":
    import sys
    fn = getattr(Holder, sys.argv[1])
    print(_astjson.to_json(_astjson.dump_function(fn, {"local_size_x": 32})))
