// waitprobe.comp - the tiny dispatch of bench/waitprobe.c: one workgroup of
// 64 invocations, y[i] = 2 x[i] + 1; with flag = 1 the workgroup then bumps
// a host-visible counter (the "shader writes the completion word" variant).
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y { float y[]; };
layout(std430, set = 0, binding = 2) coherent buffer F { uint flag[]; };
layout(push_constant) uniform P { uint n; uint use_flag; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < n)
    y[i] = 2.0 * x[i] + 1.0;
  if (use_flag != 0u) {
    memoryBarrierBuffer();
    barrier();
    if (gl_LocalInvocationIndex == 0u)
      atomicAdd(flag[0], 1u);
  }
}
