# Debug mode (issue 20): bounds-check guards every buffer and shared access
# and completes the assert record. A bad load reads element 0 (select), a
# bad store runs only in the else branch; the first fault claims word 0 of
# _vp_assert with its line (cmpxchg), then writes column, kind, invocation,
# index, length and which symbol. The GLSL shows the same guards.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard --debug-asserts - > %t.vir
# RUN: vulpy-opt --bounds-check %t.vir | FileCheck %s
# RUN: vulpy-opt --bounds-check %t.vir > %t2.vir
# RUN: vulpy-translate --from=vir --to=glsl %t2.vir | FileCheck %s --check-prefix=GLSL
# RUN: vulpy-translate --from=vir --to=cuda %t2.vir | FileCheck %s --check-prefix=CUDA
import vulpy as vp

def main(a: vp.Buffer[vp.float32], out: vp.Buffer[vp.float32], n: vp.int32):
    i = vp.global_id()
    tile = vp.Shared[vp.float32, 64]
    assert n > 0
    tile[vp.local_index()] = a[i + 1]
    vp.barrier()
    out[n] = tile[i % 70]

# CHECK: buffer @_vp_assert : u32[] binding(0, 2) readwrite
# the assert: the frontend's claim of word 0, then the rest (kind 1)
# CHECK: %[[OLD:[0-9]+]] = atomic.cmpxchg @_vp_assert[%{{[0-9]+}}], %{{[0-9]+}}, %{{[0-9]+}} device relaxed : u32 loc(16:5)
# CHECK-NEXT: %[[Z:[0-9]+]] = const 0 : u32
# CHECK-NEXT: %[[FIRST:[0-9]+]] = eq %[[OLD]], %[[Z]] : bool
# CHECK-NEXT: if %[[FIRST]]
# CHECK-NEXT: %[[COL:[0-9]+]] = const 5 : u32
# CHECK-NEXT: %[[W1:[0-9]+]] = const 1 : u32
# CHECK-NEXT: buffer.store @_vp_assert[%[[W1]]], %[[COL]]
# CHECK: return
# the read of a: a runtime length, a select of the index
# CHECK: %[[IX:[0-9]+]] = add %i, %{{[0-9]+}} : u32 loc(17:32)
# CHECK: %[[LEN:[0-9]+]] = buffer.len @a : u32 loc(17:30)
# CHECK-NEXT: %[[BAD:[0-9]+]] = ge %[[IX]], %[[LEN]] : bool
# CHECK-NEXT: if %[[BAD]] loc(17:30) {
# CHECK: %[[LINE:[0-9]+]] = const 17 : u32
# CHECK-NEXT: atomic.cmpxchg @_vp_assert[%{{[0-9]+}}], %{{[0-9]+}}, %[[LINE]] device relaxed : u32
# CHECK: buffer.store @_vp_assert[%{{[0-9]+}}], %[[IX]]
# CHECK: buffer.store @_vp_assert[%{{[0-9]+}}], %[[LEN]]
# CHECK: }
# CHECK: %[[SEL:[0-9]+]] = select %[[BAD]], %{{[0-9]+}}, %[[IX]] : u32
# CHECK-NEXT: buffer.load @a[%[[SEL]]] : f32
# the shared store: the constant size 64
# CHECK: %[[N64:[0-9]+]] = const 64 : u32 loc(17:5)
# CHECK-NEXT: ge %{{[0-9]+}}, %[[N64]] : bool
# CHECK: } else {
# CHECK-NEXT: shared.store @tile
# CHECK-NEXT: }
# the shared read of tile[i % 70]
# CHECK: const 64 : u32 loc(19:14)
# CHECK: shared.load @tile[%{{[0-9]+}}] : f32
# the store through a signed index: both ends checked
# CHECK: %[[OL:[0-9]+]] = buffer.len @out : u32 loc(19:5)
# CHECK-NEXT: %[[OLI:[0-9]+]] = cast %[[OL]] : i32
# CHECK-NEXT: %[[HI:[0-9]+]] = ge %{{[a-z0-9]+}}, %[[OLI]] : bool
# CHECK-NEXT: %[[Z0:[0-9]+]] = const 0 : i32
# CHECK-NEXT: %[[LO:[0-9]+]] = lt %{{[a-z0-9]+}}, %[[Z0]] : bool
# CHECK-NEXT: lor %[[LO]], %[[HI]] : bool
# CHECK: } else {
# CHECK-NEXT: buffer.store @out

# GLSL: _vp_assert
# GLSL: atomicCompSwap(_vp_assert
# GLSL: .length()
# GLSL: tile[
# CUDA: atomicCAS
