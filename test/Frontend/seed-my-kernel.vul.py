# The seed's .vul.py example, exactly as written there: class PushConstants
# read as pc.NAME, bare `uint32`/`float32`, an annotated assignment from
# vp.global_id(), an early return, and f64 buffers meeting an f32 push
# constant (which widens).
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir - | FileCheck %s
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --local-size=256 - | FileCheck %s --check-prefix=LS
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s --check-prefix=NOGUARD
# my_kernel.vul.py
import vulpy as vp

class PushConstants:
    N:  uint32
    dt: float32

def main(pos: vp.Buffer[vp.float64], vel: vp.Buffer[vp.float64]):
    i: uint32 = vp.global_id()
    if i >= pc.N:
        return
    pos[i] = pos[i] + vel[i] * pc.dt

# CHECK: buffer @pos : f64[] binding(0, 0) readwrite
# CHECK: buffer @vel : f64[] binding(0, 1) readonly
# CHECK: push @pc { N: u32 loc(12:5), dt: f32 loc(13:5), _vp_count: vec3<u32> loc(15:1) } loc(11:1)
# CHECK-LABEL: kernel @main local_size(64, 1, 1)
# CHECK: %i = extract %{{[0-9]+}}[0] : u32 loc(16:17)
# CHECK-NEXT: %[[N:[0-9]+]] = push.load @pc.N : u32 loc(17:13)
# CHECK-NEXT: %[[C:[0-9]+]] = ge %i, %[[N]] : bool loc(17:8)
# CHECK-NEXT: if %[[C]] loc(17:5) {
# CHECK-NEXT: return loc(18:9)
# CHECK-NEXT: }
# CHECK-NEXT: %[[P:[0-9]+]] = buffer.load @pos[%i] : f64 loc(19:14)
# CHECK-NEXT: %[[V:[0-9]+]] = buffer.load @vel[%i] : f64 loc(19:23)
# CHECK-NEXT: %[[DT:[0-9]+]] = push.load @pc.dt : f32 loc(19:32)
# CHECK-NEXT: %[[DT64:[0-9]+]] = cast %[[DT]] : f64
# CHECK-NEXT: %[[M:[0-9]+]] = mul %[[V]], %[[DT64]] : f64
# CHECK-NEXT: %[[S:[0-9]+]] = add %[[P]], %[[M]] : f64
# CHECK-NEXT: buffer.store @pos[%i], %[[S]] loc(19:5)
# CHECK-NEXT: }

# LS: kernel @main local_size(256, 1, 1)

# NOGUARD: push @pc { N: u32 loc(12:5), dt: f32 loc(13:5) }
# NOGUARD-NOT: _vp_count
