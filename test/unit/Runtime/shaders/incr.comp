// b[i] += a[i] + 1: chains of these need barriers between them.
#version 450
layout(local_size_x_id = 0) in;
layout(set = 0, binding = 0) readonly buffer A { uint a[]; };
layout(set = 0, binding = 1) buffer B { uint b[]; };
layout(push_constant) uniform Push { uvec3 count; } pc;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < pc.count.x)
    b[i] += a[i] + 1u;
}
