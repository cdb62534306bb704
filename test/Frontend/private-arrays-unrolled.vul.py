# A private array declared in the body of a loop unrolled at compile time:
# each copy gets a freshly zeroed array, as Python's rebinding would give; the
# storage is one VIR local, zeroed again where each copy declares it.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

def main(data: vp.Buffer[vp.uint32], out: vp.Buffer[vp.uint32]):
    i = vp.global_id()
    for d in vp.static(range(2)):
        h = vp.Local[vp.uint32, 4]
        h[data[i] >> d & 3] += 1
        out[i * 2 + d] = h[1]

# CHECK: local @h : array<u32, 4>
# CHECK-NOT: local @
# CHECK: for %[[K:[0-9]+]] = {{.*}} {
# CHECK-NEXT: local.store_at @h[%[[K]]], %{{[0-9]+}}
# CHECK: local.store_at @h[
# CHECK: buffer.store @out
# CHECK: for %[[K2:[0-9]+]] = {{.*}} {
# CHECK-NEXT: local.store_at @h[%[[K2]]], %{{[0-9]+}}
# CHECK: local.store_at @h[
# CHECK: buffer.store @out
