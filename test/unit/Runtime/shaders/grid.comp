// Writes each invocation's id, encoded, at its linear index (1-3D grids).
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(set = 0, binding = 0) writeonly buffer Out { uint o[]; };
layout(push_constant) uniform Push { uvec3 count; } pc;
void main() {
  uvec3 g = gl_GlobalInvocationID;
  if (any(greaterThanEqual(g, pc.count)))
    return;
  uint idx = (g.z * pc.count.y + g.y) * pc.count.x + g.x;
  o[idx] = (g.z << 20) | (g.y << 10) | g.x | 0x80000000u;
}
