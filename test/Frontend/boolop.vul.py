# and / or / not on bools with short-circuit: a right side without loads or
# calls becomes land/lor; one that reads memory or calls runs only when needed.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
import vulpy as vp

def main(a: vp.Buffer[vp.float32], n: vp.uint32):
    i = vp.global_id()
    pure = i < n and i > 2 or not (i == 7)
    guarded = i < n and a[i] > 0.0
    either = i >= n or a[i] < 0.0
    if guarded or either and pure:
        a[i] = 0.0

# CHECK: %[[P1:[0-9]+]] = land %{{[0-9]+}}, %{{[0-9]+}} : bool
# CHECK: %[[E:[0-9]+]] = eq %i, %{{[0-9]+}} : bool
# CHECK-NEXT: %[[NE:[0-9]+]] = lnot %[[E]] : bool
# CHECK-NEXT: %pure = lor %[[P1]], %[[NE]] : bool
# The load of a[i] happens only when i < n:
# CHECK: %[[G1:[0-9]+]] = lt %i, %{{[0-9]+}} : bool
# CHECK-NEXT: local.store @_vp_and0, %[[G1]]
# CHECK-NEXT: if %[[G1]]
# CHECK-NEXT: buffer.load @a[%i]
# CHECK: local.store @_vp_and0
# CHECK-NEXT: }
# CHECK-NEXT: %guarded = local.load @_vp_and0 : bool
# `or` runs its right side in the else region:
# CHECK: local.store @_vp_or1, %[[O1:[0-9]+]]
# CHECK-NEXT: if %[[O1]] {{.*}}{
# CHECK-NEXT: } else {
# CHECK-NEXT: buffer.load @a[%i]
# CHECK: %either = local.load @_vp_or1 : bool
# CHECK: %[[AP:[0-9]+]] = land %either, %pure : bool
# CHECK-NEXT: %[[COND:[0-9]+]] = lor %guarded, %[[AP]] : bool
# CHECK-NEXT: if %[[COND]]
