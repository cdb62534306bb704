// Control-buffer atomics: every invocation counts itself (word 0) and adds
// its id mod 7 (word 1); words 2.. count invocations by id mod 4.
#version 450
layout(local_size_x_id = 0) in;
layout(set = 0, binding = 0) coherent buffer Ctrl { uint w[]; };
layout(push_constant) uniform Push { uvec3 count; } pc;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= pc.count.x)
    return;
  atomicAdd(w[0], 1u);
  atomicAdd(w[1], i % 7u);
  atomicAdd(w[2u + (i & 3u)], 1u);
}
