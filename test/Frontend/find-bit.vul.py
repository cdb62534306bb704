# vp.find_lsb(x) / vp.find_msb(x): the index of a 32-bit integer scalar's
# lowest / highest set bit (for a negative int32, find_msb's is its highest
# clear bit), -1 where there is none, in x's type: GLSL's findLSB / findMSB
# (which return int, so the printers cast), CUDA/HIP's __ffs(x) - 1 and
# 31 - __clz(x) (x ^ (x >> 31) for a signed x); a constant folds.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | vulpy-opt --canonicalize - | FileCheck %s --check-prefix=FOLD
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=glsl --no-dispatch-guard - | FileCheck %s --check-prefix=GLSL
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=cuda --no-dispatch-guard - | FileCheck %s --check-prefix=CUDA
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=spirv --no-dispatch-guard - -o %t.spv && spirv-val --target-env vulkan1.2 %t.spv
import vulpy as vp

def main(u: vp.Buffer[vp.uint32], s: vp.Buffer[vp.int32]):
    i = vp.global_id()
    a = vp.find_lsb(u[i])
    b = vp.find_msb(s[i])
    c = vp.find_msb(u[i])
    u[i] = a + c + vp.find_lsb(vp.uint32(0xF0F0)) + vp.find_msb(vp.uint32(0))
    s[i] = b + vp.find_msb(vp.int32(-5)) + vp.find_lsb(vp.int32(0))

# CHECK: %a = find_lsb %{{[0-9]+}} : u32
# CHECK: %b = find_msb %{{[0-9]+}} : i32
# CHECK: %c = find_msb %{{[0-9]+}} : u32
# GLSL: uint a = uint(findLSB(
# GLSL: int b = int(findMSB(
# GLSL: uint c = uint(findMSB(
# CUDA: uint a = uint(__ffs(int(
# CUDA-SAME: )) - 1)
# CUDA: int b = int(31 - __clz(int([[X:.*]]) ^ (int([[X]]) >> 31)))
# CUDA: uint c = uint(31 - __clz(int(
# FOLD: %{{[0-9]+}} = const 4 : u32
# FOLD: %{{[0-9]+}} = const 4294967295 : u32
# FOLD: %{{[0-9]+}} = const 2 : i32
# FOLD: %{{[0-9]+}} = const -1 : i32
