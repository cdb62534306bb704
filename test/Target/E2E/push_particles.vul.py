# The seed's kernel-decorator example end to end.
# RUN: %dump-ast %s > %t.json
# RUN: vulpy-translate --from=ast --to=glsl %t.json | FileCheck %s
# RUN: vulpy-translate --from=ast --to=spirv -O %t.json -o %t.spv && spirv-val --target-env vulkan1.2 %t.spv
# RUN: vulpy-translate --from=ast --to=spirv %t.json -o %t.plain.spv && spirv-val --target-env vulkan1.2 %t.plain.spv
# RUN: vulpy-translate --from=ast --to=spirv-asm %t.json | FileCheck %s --check-prefix=ASM
# RUN: vulpy-translate --from=ast --to=cuda %t.json | FileCheck %s --check-prefix=CUDA
# RUN: vulpy-translate --from=ast --to=hip %t.json | FileCheck %s --check-prefix=HIP
# RUN: vulpy-translate --from=ast --to=msl %t.json | FileCheck %s --check-prefix=MSL
# RUN: vulpy-translate --from=ast --to=hlsl %t.json | FileCheck %s --check-prefix=HLSL
# RUN: vulpy-translate --from=ast --to=manifest %t.json | FileCheck %s --check-prefix=MANIFEST
import vulpy as vp

@vp.kernel(local_size_x=64)
def push_particles(
    pos: vp.Buffer[vp.vec4],
    vel: vp.Buffer[vp.vec4],
    n:   vp.uint32,
    dt:  vp.float32,
):
    i    = vp.global_id()
    x    = vp.var(pos[i].xyz)
    v    = vp.var(vel[i].xyz)
    x[:] = x + v * dt
    pos[i] = vp.vec4(x, pos[i].w)

# CHECK:      layout(push_constant, std430) uniform PushConstants {
# CHECK-NEXT:   uint n;
# CHECK-NEXT:   float dt;
# CHECK:      layout(std430, set = 0, binding = 0) buffer pos_buf { vec4 pos[]; };
# CHECK-NEXT: layout(std430, set = 0, binding = 1) readonly buffer vel_buf { vec4 vel[]; };
# CHECK-LABEL: void main() {
# CHECK:        // push_particles.vul.py:21
# CHECK-NEXT:   uint i = gl_GlobalInvocationID.x;
# CHECK-NEXT:   // push_particles.vul.py:22
# CHECK-NEXT:   vec3 x = pos[i].xyz;
# CHECK-NEXT:   // push_particles.vul.py:23
# CHECK-NEXT:   vec3 v = vel[i].xyz;
# CHECK-NEXT:   // push_particles.vul.py:24
# CHECK-NEXT:   x = x + v * pc.dt;
# CHECK-NEXT:   // push_particles.vul.py:25
# CHECK-NEXT:   pos[i] = vec4(x, pos[i].w);
# CHECK-NEXT: }

# The same names and comments as the GLSL:
# CUDA-LABEL: extern "C" __global__ void push_particles(vec4 *pos, const vec4 *vel, PushConstants pc) {
# CUDA:        // push_particles.vul.py:21
# CUDA-NEXT:   uint i = gl_GlobalInvocationID.x;
# CUDA-NEXT:   // push_particles.vul.py:22
# CUDA-NEXT:   vec3 x = vp_xyz(pos[i]);
# CUDA-NEXT:   // push_particles.vul.py:23
# CUDA-NEXT:   vec3 v = vp_xyz(vel[i]);
# CUDA-NEXT:   // push_particles.vul.py:24
# CUDA-NEXT:   x = x + v * pc.dt;
# CUDA-NEXT:   // push_particles.vul.py:25
# CUDA-NEXT:   pos[i] = vec4(x, pos[i].w);
# CUDA-NEXT: }

# ASM: OpEntryPoint GLCompute %main "main"
# ASM: OpExecutionMode %main LocalSize 64 1 1
# ASM: OpMemberName %PushConstants 0 "n"
# ASM: OpMemberName %PushConstants 1 "dt"

# HIP: #include <hip/hip_runtime.h>
# HIP: extern "C" __global__ void push_particles(vec4 *pos, const vec4 *vel, PushConstants pc) {
# HIP:   vec3 x = vp_xyz(pos[i]);
# HIP:   pos[i] = vec4(x, pos[i].w);

# MSL: kernel void main0(constant PushConstants& pc {{\[\[}}buffer(0)]], device pos_buf& {{.*}}, const device vel_buf& {{.*}})

# HLSL: cbuffer PushConstants
# HLSL: [numthreads(SPIRV_CROSS_CONSTANT_ID_0, SPIRV_CROSS_CONSTANT_ID_1, SPIRV_CROSS_CONSTANT_ID_2)]
# HLSL: void main(SPIRV_Cross_Input stage_input)

# MANIFEST: kernel: push_particles
# MANIFEST: - {name: pos, set: 0, binding: 0, type: vec4<f32>, elem_size: 16, access: readwrite}
# MANIFEST: features: []
