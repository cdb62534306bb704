// Buffers in two descriptor sets (bound from pools, never pushed).
#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer A { uint a[]; };
layout(set = 1, binding = 3) writeonly buffer B { uint b[]; };
layout(push_constant) uniform Push { uint n; } pc;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < pc.n)
    b[i] = a[i] * 3u;
}
