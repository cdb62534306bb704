import vulpy as vp

def main(a: vp.Buffer[vp.float32, 2], b: vp.Buffer[vp.float32, 5], c: vp.Buffer[vp.float32, 2, 3],
         d: vp.Buffer[vp.bool, 2], u: vp.Buffer[vp.uint32, 2]):
    i = vp.global_id()
    x = a[i]
    y = a[i, i, i]
    z = a[-1, 0]
    s = a.strides
    vp.atomic_add(u, i, 1)
    q = a[i, 1.5]

# Errors of N-d buffers: a dimension count that is not 1 to 4, an annotation
# that is not [T, N], a bool element, the wrong number of indices, a negative
# constant index, an unknown attribute, an atomic on the whole buffer, a
# float index.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s
# CHECK: {{.*}}nd-buffer.vul.py:3:64: error: a buffer has 1 to 4 dimensions (an integer constant)
# CHECK: {{.*}}nd-buffer.vul.py:3:81: error: write vp.Buffer[T, N]: an element type and a number of dimensions
# CHECK: {{.*}}nd-buffer.vul.py:4:13: error: a buffer of bool has no layout the host agrees on
# CHECK: {{.*}}nd-buffer.vul.py:6:11: error: 'a' has 2 dimensions; give 2 indices, not 1
# CHECK: {{.*}}nd-buffer.vul.py:7:11: error: 'a' has 2 dimensions; give 2 indices, not 3
# CHECK: {{.*}}nd-buffer.vul.py:8:11: error: index -1 of 'a' is out of range (0 to 4294967295; negative ones do not count from the end)
# CHECK: {{.*}}nd-buffer.vul.py:9:9: error: buffer 'a' has no attribute 'strides'
# CHECK: {{^}}  hint: an N-d buffer has .shape and .ndim; index it: a[i, j]
# CHECK: {{.*}}nd-buffer.vul.py:10:19: error: atomic_add() on an N-d buffer takes its element
# CHECK: {{^}}  hint: write atomic_add(u[i, j], value)
# CHECK: {{.*}}nd-buffer.vul.py:11:14: error: an index must be an integer scalar, not f32
