# `a if c else b`: select when both sides are pure, else a local and an if so
# that only the chosen side runs; a literal side takes the other's type.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

def main(a: vp.Buffer[vp.float32], n: vp.uint32):
    i = vp.global_id()
    x = vp.float32(i)
    s = x if i < n else 0
    t = a[i] if i < n else -1.0
    a[i] = s + t

# CHECK: %[[C:[0-9]+]] = lt %i, %{{[0-9]+}} : bool
# CHECK-NEXT: %[[Z:[0-9]+]] = const 0.0 : f32
# CHECK-NEXT: %s = select %[[C]], %x, %[[Z]] : f32
# CHECK: %[[C2:[0-9]+]] = lt %i, %{{[0-9]+}} : bool
# CHECK-NEXT: if %[[C2]]
# CHECK-NEXT: %[[L:[0-9]+]] = buffer.load @a[%i] : f32
# CHECK-NEXT: local.store @_vp_sel0, %[[L]]
# CHECK-NEXT: } else {
# CHECK-NEXT: %[[M:[0-9]+]] = const -1.0 : f32
# CHECK-NEXT: local.store @_vp_sel0, %[[M]]
# CHECK-NEXT: }
# CHECK-NEXT: %t = local.load @_vp_sel0 : f32
