// tiny.comp - the dispatch round-trip kernel of bench/vkref.c: one
// workgroup of 64 invocations, y[i] = 2 x[i] (the same tiny kernel the
// VulPy, CuPy and Taichi rows of bench_compare.py launch).
#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y { float y[]; };
layout(push_constant) uniform P { uint n; uint row; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < n)
    y[i] = 2.0 * x[i];
}
