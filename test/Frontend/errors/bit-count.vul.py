# vp.bit_count takes a 32-bit integer scalar: a float, a 64-bit integer and
# a vector are errors naming the call.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s
import vulpy as vp

def main(f: vp.Buffer[vp.float32], w: vp.Buffer[vp.uint64]):
    i = vp.global_id()
    a = vp.bit_count(f[i])
    b = vp.bit_count(w[i])
    c = vp.bit_count(vp.uvec2(1, 2))

# CHECK: bit-count.vul.py:8:9: error: bit_count() takes a 32-bit integer scalar (int32 or uint32)
# CHECK: bit-count.vul.py:9:9: error: bit_count() takes a 32-bit integer scalar (int32 or uint32)
# CHECK: bit-count.vul.py:10:9: error: bit_count() takes a 32-bit integer scalar (int32 or uint32)
