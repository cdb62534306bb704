# Module-level constants: an unannotated number is a literal that adapts to
# its context and is read by name where its default type (int32/float32)
# fits; annotated or cast ones are typed; constants fold from other constants.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

N = 16
HALF = N // 2
SCALE: vp.float32 = 2.5
MASK = vp.uint32(0xFF)
BIG = 1 << 40
PI = 3.141592653589793

def main(out: vp.Buffer[vp.float32], ids: vp.Buffer[vp.uint32], wide: vp.Buffer[vp.int64]):
    i = vp.global_id()
    k = 0
    for j in range(N):
        k += HALF
    ids[i] = i & MASK
    wide[i] = BIG + vp.int64(k)
    out[i] = SCALE * PI + vp.float32(N)

# CHECK-DAG: const @N : i32 = 16
# CHECK-DAG: const @HALF : i32 = 8
# CHECK-DAG: const @MASK : u32 = 255
# CHECK-DAG: const @BIG : i64 = 1099511627776
# CHECK-DAG: const @SCALE : f32 = 2.5
# CHECK-DAG: const @PI : f32 = 3.1415927
# CHECK-LABEL: kernel @main
# CHECK: %[[N:[0-9]+]] = gconst @N : i32
# CHECK: for %j = %{{[0-9]+}} to %[[N]] step
# CHECK: gconst @HALF : i32
# CHECK: %[[M:[0-9]+]] = gconst @MASK : u32
# CHECK-NEXT: and %i, %[[M]] : u32
# CHECK: gconst @BIG : i64
# CHECK: %[[S:[0-9]+]] = gconst @SCALE : f32
# CHECK-NEXT: %[[P:[0-9]+]] = gconst @PI : f32
# CHECK-NEXT: mul %[[S]], %[[P]] : f32
# In a float context the int constant N is the literal 16.0:
# CHECK-NEXT: const 16.0 : f32
