import vulpy as vp

def main(a: vp.Buffer[vp.float32], d: vp.Buffer[vp.float64], n: vp.uint32):
    i = vp.global_id()
    vp.print(vp.vec2(a[0], a[1]))
    vp.print(d[i])
    vp.print(i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i, i)

# Error class: vp.print() arguments (issue 20).
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}vp-print-args.vul.py:5:14: error: print() takes scalars and string constants in a kernel, not vec2<f32>
# CHECK: {{.*}}vp-print-args.vul.py:6:14: error: print() of a 64-bit value (f64) is not supported in a kernel yet; convert it (vp.float32(x), vp.int32(x))
# CHECK: {{.*}}vp-print-args.vul.py:7:5: error: print() takes at most 16 arguments in a kernel
