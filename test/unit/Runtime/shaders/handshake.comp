// A kernel that talks to the host while it runs: it raises word 0 (started),
// then waits (bounded, so it can never hang) until the host sets word 1 (go),
// and finally writes the number of polls it needed to word 2 and done=1 to
// word 3.
#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) coherent volatile buffer Ctrl { uint w[]; };
layout(push_constant) uniform Push { uint max_polls; } pc;
void main() {
  atomicAdd(w[0], 1u);
  uint polls = 0u;
  while (atomicAdd(w[1], 0u) == 0u && polls < pc.max_polls)
    polls++;
  w[2] = polls;
  atomicExchange(w[3], 1u);
}
