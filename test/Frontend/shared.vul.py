# Workgroup memory: `tile = vp.Shared[T, N]` and the 2-D form (flattened row
# by row, indexed as t[r, c] or t[r][c]), with barrier() between the phases.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

ROWS = 8

def main(a: vp.Buffer[vp.float32], out: vp.Buffer[vp.float32]):
    i = vp.global_id()
    lid = vp.local_index()
    tile = vp.Shared[vp.float32, 64]
    grid = vp.Shared[vp.uint32, ROWS, 8]
    tile[lid] = a[i]
    grid[lid // 8, lid % 8] = lid
    vp.barrier()
    out[i] = tile[63 - lid] + vp.float32(grid[lid % 8][lid // 8])

# CHECK: shared @tile : array<f32, 64>
# CHECK: shared @grid : array<u32, 64>
# CHECK: %[[A:[0-9]+]] = buffer.load @a[%i] : f32
# CHECK-NEXT: shared.store @tile[%lid], %[[A]]
# CHECK: %[[R:[0-9]+]] = floordiv %lid, %{{[0-9]+}} : u32
# CHECK: %[[RO:[0-9]+]] = mul %[[R]], %{{[0-9]+}} : u32
# CHECK: %[[C:[0-9]+]] = mod %lid, %{{[0-9]+}} : u32
# CHECK-NEXT: %[[IX:[0-9]+]] = add %[[RO]], %[[C]] : u32
# CHECK-NEXT: shared.store @grid[%[[IX]]], %lid
# CHECK-NEXT: barrier
# CHECK: %[[J:[0-9]+]] = sub %{{[0-9]+}}, %lid : u32
# CHECK-NEXT: shared.load @tile[%[[J]]] : f32
# CHECK: shared.load @grid[%{{[0-9]+}}] : u32
