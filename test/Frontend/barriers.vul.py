# barrier() (workgroup execution and memory) and memory_barrier() (device
# scope, acquire-release, buffer and shared memory).
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

def main(a: vp.Buffer[vp.float32]):
    i = vp.global_id()
    lid = vp.local_index()
    t = vp.Shared[vp.float32, 64]
    t[lid] = a[i]
    vp.barrier()
    a[i] = t[(lid + 1) % 64]
    vp.memory_barrier()

# CHECK: shared.store @t[%lid]
# CHECK-NEXT: barrier loc(11:5)
# CHECK: buffer.store @a[%i]
# CHECK-NEXT: memory_barrier device acq_rel all loc(13:5)
