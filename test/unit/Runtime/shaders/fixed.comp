// A literal local size (64) and an explicit bound: o[i] = 2 * i + base.
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) writeonly buffer Out { uint o[]; };
layout(push_constant) uniform Push { uint n; uint base; } pc;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < pc.n)
    o[i] = 2u * i + pc.base;
}
