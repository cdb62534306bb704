// stream.comp - the raw-Vulkan reference's streaming kernels (bench/vkref.c).
// One source, four variants chosen at build time:
//   -DSINEXP  y = sin(x) + exp(x), else y = x (copy)
//   -DVEC4    16-byte accesses (vec4 elements), else 4-byte float accesses
// One element (float or vec4) per invocation; a 2-D grid when the group
// count passes the device's X limit: row = invocations per grid row.
// SALT (a specialization constant, 0 by default) is never 0xFFFFFFFF in a
// pipeline that runs: vkref's pipeline-creation figure sets it to a new
// value each time, so no driver cache answers and the figure is a compile.
#version 450
layout(local_size_x = 256) in;
#ifdef VEC4
#define T vec4
#else
#define T float
#endif
layout(std430, set = 0, binding = 0) readonly buffer X { T x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y { T y[]; };
layout(push_constant) uniform P { uint n; uint row; };
layout(constant_id = 0) const uint SALT = 0u;

void main() {
  uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * row;
  if (i >= n || SALT == 0xFFFFFFFFu)
    return;
#ifdef SINEXP
  T v = x[i];
  y[i] = sin(v) + exp(v);
#else
  y[i] = x[i];
#endif
}
