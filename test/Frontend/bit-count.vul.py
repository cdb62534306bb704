# vp.bit_count(x) (issue 19: the onesweep sort's ballot ranks): the number of
# set bits of a 32-bit integer scalar, in its type; GLSL's bitCount and
# CUDA's __popc return int, so the printers cast to the op's type; a
# constant folds.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | vulpy-opt --canonicalize - | FileCheck %s --check-prefix=FOLD
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=glsl --no-dispatch-guard - | FileCheck %s --check-prefix=GLSL
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=cuda --no-dispatch-guard - | FileCheck %s --check-prefix=CUDA
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=spirv --no-dispatch-guard - -o %t.spv && spirv-val --target-env vulkan1.2 %t.spv
import vulpy as vp

def main(u: vp.Buffer[vp.uint32], s: vp.Buffer[vp.int32]):
    i = vp.global_id()
    a = vp.bit_count(u[i])
    b = vp.bit_count(s[i])
    u[i] = a + vp.bit_count(vp.uint32(0xF0F0))
    s[i] = b

# CHECK: %a = bit_count %{{[0-9]+}} : u32
# CHECK: %b = bit_count %{{[0-9]+}} : i32
# GLSL: uint(bitCount(
# GLSL: int(bitCount(
# CUDA: uint(__popc(
# CUDA: int(__popc(
# FOLD: %{{[0-9]+}} = const 8 : u32
# FOLD-NOT: bit_count %{{[0-9]+}} : u32 loc(15
