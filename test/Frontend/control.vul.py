# A control buffer (vp.Control): uint32 words, coherent; the words the
# options' control_words name are read with atomic loads (acquire), written
# with atomic stores (release) and used in atomics by name, all at device
# scope; by index the words are plain buffer elements.
# RUN: %python %S/Inputs/dump_opts.py %s '{"control_words": {"ctrl": ["mode", "hot_count"]}}' | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
# RUN: %python %S/Inputs/dump_opts.py %s '{"control_words": {"ctrl": ["mode", "hot_count"]}}' | vulpy-translate --from=ast --to=glsl --no-dispatch-guard - | FileCheck %s --check-prefix=GLSL
import vulpy as vp
from vulpy import Control

def main(ctrl: vp.Control, data: vp.Buffer[vp.float32], other: Control):
    i = vp.global_id().x
    if ctrl.mode == 2:
        old = vp.atomic_add(ctrl.hot_count, 1)
        ctrl.mode = 3
        data[i] = vp.float32(old)
    ctrl[5] = ctrl[4]
    other[0] = 1

# CHECK: buffer @ctrl : u32[] binding(0, 0) readwrite coherent
# CHECK: buffer @data : f32[] binding(0, 1) writeonly
# CHECK: buffer @other : u32[] binding(0, 2) writeonly coherent
# CHECK-LABEL: kernel @main
# CHECK: %[[W0:[0-9]+]] = const 0 : u32 loc(12:8)
# CHECK-NEXT: %[[MODE:[0-9]+]] = atomic.load @ctrl[%[[W0]]] device acquire : u32 loc(12:8)
# CHECK: eq %[[MODE]],
# CHECK: %[[W1:[0-9]+]] = const 1 : u32 loc(13:29)
# CHECK: %[[OLD:[0-9]+]] = atomic.add @ctrl[%[[W1]]], %{{[0-9]+}} device relaxed : u32 loc(13:15)
# CHECK-NEXT: local.store @old, %[[OLD]]
# CHECK: %[[W0B:[0-9]+]] = const 0 : u32 loc(14:9)
# CHECK: atomic.store @ctrl[%[[W0B]]], %{{[0-9]+}} device release loc(14:9)
# CHECK: %[[E4:[0-9]+]] = buffer.load @ctrl[%{{[0-9]+}}] : u32 loc(16:15)
# CHECK: buffer.store @ctrl[%{{[0-9]+}}], %[[E4]] loc(16:5)

# GLSL: layout(std430, set = 0, binding = 0) coherent buffer ctrl_buf { uint ctrl[]; };
# GLSL: atomicLoad(ctrl[0u], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire)
# GLSL: atomicAdd(ctrl[1u], 1u)
# GLSL: atomicStore(ctrl[0u], 3u, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
