import vulpy as vp

def main(v: vp.Buffer[vp.vec4], n: vp.uint32):
    i = vp.global_id().x
    a = v[i]
    b = a[1:2]
    c = a[0:n]
    d = a[::0]
    e = v[0:2]
    f = i[0:2]

# Error class: vector slices: fewer than 2 components, bounds that are not
# constants, a zero step, slicing a buffer or a scalar.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}vector-slice.vul.py:6:11: error: this slice of a vec4<f32> has 1 component; a vector has 2 to 4
# CHECK-NEXT: {{^}}    b = a[1:2]
# CHECK-NEXT: {{^}}          ^
# CHECK-NEXT: {{^}}  hint: for one component write v[1]
# CHECK-NEXT: {{.*}}vector-slice.vul.py:7:13: error: a vector slice's bounds are integer constants
# CHECK: {{.*}}vector-slice.vul.py:8:11: error: slice step cannot be zero
# CHECK: {{.*}}vector-slice.vul.py:9:9: error: buffer 'v' cannot be sliced
# CHECK: {{.*}}vector-slice.vul.py:10:9: error: only vectors can be sliced, not u32
