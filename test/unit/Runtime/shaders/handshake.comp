// A dispatch that talks to the host while it runs. Each workgroup counts
// itself started (word 0), then polls word 1 (go) a bounded number of times
// (so it never hangs, and because llvmpipe ends any loop after 65535
// iterations); a workgroup that saw go counts itself in word 2; every
// workgroup counts itself done in word 3. Once the host sets go, the
// remaining workgroups finish at once.
#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) coherent volatile buffer Ctrl { uint w[]; };
layout(push_constant) uniform Push { uint max_polls; } pc;
void main() {
  atomicAdd(w[0], 1u);
  uint polls = 0u;
  while (atomicAdd(w[1], 0u) == 0u && polls < pc.max_polls)
    polls++;
  if (polls < pc.max_polls)
    atomicAdd(w[2], 1u);
  atomicAdd(w[3], 1u);
}
