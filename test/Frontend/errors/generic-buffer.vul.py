import vulpy as vp

def main(x: vp.Buffer, y: vp.Buffer, z: vp.Buffer):
    i = vp.global_id()

# A generic buffer without a dtype from the call, or with one VulPy does not
# know as an element type.
# RUN: %python %S/../Inputs/dump_opts.py %s '{"buffer_dtypes": {"y": "bool", "z": "object"}}' | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s
# CHECK: {{.*}}generic-buffer.vul.py:3:10: error: generic buffer 'x' (vp.Buffer without an element type) has no type yet
# CHECK: {{^}}  hint: call the kernel with an array (it compiles once per element type), or write vp.Buffer[vp.float32]
# CHECK: {{.*}}generic-buffer.vul.py:3:24: error: generic buffer 'y': 'bool' is not an element type VulPy knows
# CHECK: {{^}}  hint: element types are int8..int64, uint8..uint64, float16..float64 and the vector types
# CHECK: {{.*}}generic-buffer.vul.py:3:38: error: generic buffer 'z': 'object' is not an element type VulPy knows
