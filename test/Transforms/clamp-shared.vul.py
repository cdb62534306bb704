# Default build (issue 20): clamp-shared keeps every shared index inside its
# vp.Shared array, min(u32(i), N - 1), so a bad index is a wrong element and
# never memory past the array (on lavapipe it corrupted the interpreter's
# heap). Constant in-range indexes stay as they are.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - > %t.vir
# RUN: vulpy-opt --clamp-shared %t.vir | FileCheck %s
# RUN: vulpy-opt --clamp-shared %t.vir | vulpy-translate --from=vir --to=glsl - | FileCheck %s --check-prefix=GLSL
import vulpy as vp

def main(out: vp.Buffer[vp.float32], n: vp.int32):
    i = vp.global_id()
    tile = vp.Shared[vp.float32, 64]
    tile[vp.local_index()] = 1.0
    tile[3] = 2.0
    vp.barrier()
    out[i] = tile[n]

# CHECK: %[[L:[0-9]+]] = local_index : u32
# CHECK: %[[M:[0-9]+]] = const 63 : u32
# CHECK-NEXT: %[[C:[0-9]+]] = min %[[L]], %[[M]] : u32
# CHECK-NEXT: shared.store @tile[%[[C]]]
# CHECK: shared.store @tile[%{{[0-9]+}}], %{{[0-9]+}}
# CHECK: %[[N:[0-9]+]] = push.load @pc.n : i32
# CHECK-NEXT: %[[U:[0-9]+]] = cast %[[N]] : u32
# CHECK-NEXT: %[[M2:[0-9]+]] = const 63 : u32
# CHECK-NEXT: %[[C2:[0-9]+]] = min %[[U]], %[[M2]] : u32
# CHECK-NEXT: shared.load @tile[%[[C2]]] : f32
# GLSL: tile[min(
