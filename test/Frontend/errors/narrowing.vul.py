import vulpy as vp

def main(a: vp.Buffer[vp.float32], d: vp.Buffer[vp.float64]):
    i = vp.global_id()
    a[i] = d[i]

# Error class: narrowing assignment.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}narrowing.vul.py:5:12: error: store to 'a': f64 does not fit f32 without narrowing
# CHECK-NEXT: {{^}}    a[i] = d[i]
# CHECK-NEXT: {{^}}           ^
# CHECK-NEXT: {{^}}  hint: convert explicitly: vp.float32(d[i])
# CHECK-NOT: {{.}}
