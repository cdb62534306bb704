# vp.find_lsb / vp.find_msb take a 32-bit integer scalar, as bit_count: a
# float, a 64-bit integer and a vector are errors naming the call.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s
import vulpy as vp

def main(f: vp.Buffer[vp.float32], w: vp.Buffer[vp.uint64]):
    i = vp.global_id()
    a = vp.find_lsb(f[i])
    b = vp.find_msb(w[i])
    c = vp.find_lsb(vp.uvec2(1, 2))

# CHECK: find-bit.vul.py:8:9: error: find_lsb() takes a 32-bit integer scalar (int32 or uint32)
# CHECK: find-bit.vul.py:9:9: error: find_msb() takes a 32-bit integer scalar (int32 or uint32)
# CHECK: find-bit.vul.py:10:9: error: find_lsb() takes a 32-bit integer scalar (int32 or uint32)
