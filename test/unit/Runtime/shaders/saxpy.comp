// y = alpha * x + y, bound-checked through the dispatch guard (count).
#version 450
layout(local_size_x_id = 0) in;
layout(set = 0, binding = 0) readonly buffer X { float x[]; };
layout(set = 0, binding = 1) buffer Y { float y[]; };
layout(push_constant) uniform Push {
  uvec3 count;
  float alpha;
} pc;
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= pc.count.x)
    return;
  y[i] = pc.alpha * x[i] + y[i];
}
