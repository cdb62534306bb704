// Reads a uniform buffer, which VulPy kernels do not bind.
#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform U { uint u; };
layout(set = 0, binding = 1) writeonly buffer B { uint b[]; };
void main() { b[0] = u; }
