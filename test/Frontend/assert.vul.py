# assert is type-checked and compiled out by default; with --debug-asserts a
# failure records its line in the hidden buffer _vp_assert (first failure
# wins) and ends the invocation.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s --check-prefix=OFF
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard --debug-asserts - | FileCheck %s --check-prefix=ON
import vulpy as vp

def main(out: vp.Buffer[vp.float32]):
    i = vp.global_id()
    assert out[i] >= 0.0, "negative input"
    out[i] = vp.sqrt(out[i])

# OFF-NOT: _vp_assert
# OFF-NOT: if
# OFF: %[[X:[0-9]+]] = buffer.load @out[%i] : f32 loc(11:22)
# OFF-NEXT: sqrt %[[X]]

# ON: buffer @_vp_assert : u32[] binding(0, 1) readwrite
# ON: %[[X:[0-9]+]] = buffer.load @out[%i] : f32 loc(10:12)
# ON: %[[OK:[0-9]+]] = ge %[[X]], %{{[0-9]+}} : bool
# ON-NEXT: %[[BAD:[0-9]+]] = lnot %[[OK]] : bool
# ON-NEXT: if %[[BAD]] loc(10:5) {
# ON-NEXT: %[[Z:[0-9]+]] = const 0 : u32
# ON-NEXT: %[[Z2:[0-9]+]] = const 0 : u32
# ON-NEXT: %[[LINE:[0-9]+]] = const 10 : u32
# ON-NEXT: atomic.cmpxchg @_vp_assert[%[[Z]]], %[[Z2]], %[[LINE]] device relaxed : u32
# ON-NEXT: return
# ON-NEXT: }
