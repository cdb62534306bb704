import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    v = vp.vec2(1.0, 2.0)
    a[i] = v.z

# Error class: a swizzle past the vector.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}unknown-swizzle.vul.py:6:12: error: component 'z' is out of range for vec2<f32>
# CHECK-NEXT: {{^}}    a[i] = v.z
# CHECK-NEXT: {{^}}           ^
# CHECK-NOT: {{.}}
