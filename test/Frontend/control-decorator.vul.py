# A control buffer whose words are named by the decorator's keyword in a
# .vul.py file (no Python call evaluates the decorator there; the frontend
# reads the literal): the same atomics as with the control_words option.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=glsl --no-dispatch-guard - | FileCheck %s --check-prefix=GLSL
import vulpy as vp

@vp.kernel(local_size_x=32, control_words={"other": ["x"], "ctrl": ("mode", "hot_count")})
def k(ctrl: vp.Control, data: vp.Buffer[vp.float32]):
    if ctrl.mode == 2:
        vp.atomic_add(ctrl.hot_count, 1)
        ctrl.mode = 3
    ctrl[5] = 7

# CHECK: buffer @ctrl : u32[] binding(0, 0) readwrite coherent
# CHECK-LABEL: kernel @k local_size(32, 1, 1)
# CHECK: %[[W0:[0-9]+]] = const 0 : u32 loc(10:8)
# CHECK-NEXT: %{{[0-9]+}} = atomic.load @ctrl[%[[W0]]] device acquire : u32 loc(10:8)
# CHECK: %[[W1:[0-9]+]] = const 1 : u32 loc(11:23)
# CHECK: atomic.add @ctrl[%[[W1]]], %{{[0-9]+}} device relaxed : u32 loc(11:9)
# CHECK: %[[W0B:[0-9]+]] = const 0 : u32 loc(12:9)
# CHECK: atomic.store @ctrl[%[[W0B]]], %{{[0-9]+}} device release loc(12:9)
# CHECK: buffer.store @ctrl[%{{[0-9]+}}], %{{[0-9]+}} loc(13:5)

# GLSL: layout(std430, set = 0, binding = 0) coherent buffer ctrl_buf { uint ctrl[]; };
# GLSL: atomicLoad(ctrl[0u], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire)
