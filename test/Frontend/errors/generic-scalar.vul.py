import vulpy as vp

def main(x: vp.Buffer[vp.float32], a: vp.Scalar, b: vp.Scalar, c: vp.Scalar, d: vp.Scalar):
    i = vp.global_id()

# A generic scalar without a type from the call, or with one that is not a
# scalar type (a vector, bool, Python's own name, an unknown name).
# RUN: %python %S/../Inputs/dump_opts.py %s '{"scalar_dtypes": {"b": "vec2", "c": "bool", "d": "object"}}' | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s
# CHECK: {{.*}}generic-scalar.vul.py:3:36: error: generic scalar 'a' (vp.Scalar) has no type yet
# CHECK: {{^}}  hint: call the kernel (the value's type, or the generic buffers' element type, decides), or write a: vp.float32
# CHECK: {{.*}}generic-scalar.vul.py:3:50: error: generic scalar 'b': 'vec2' is not a scalar type VulPy knows
# CHECK: {{^}}  hint: scalar types are int8..int64, uint8..uint64 and float16..float64
# CHECK: {{.*}}generic-scalar.vul.py:3:64: error: generic scalar 'c': 'bool' is not a scalar type VulPy knows
# CHECK: {{.*}}generic-scalar.vul.py:3:78: error: generic scalar 'd': 'object' is not a scalar type VulPy knows
