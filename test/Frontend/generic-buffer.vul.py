# A generic kernel: `x: vp.Buffer` without an element type takes it from
# the document's "buffer_dtypes" option (the Python layer passes each call's
# dtypes and compiles once per list); literals adapt to it.
# RUN: %python %S/Inputs/dump_opts.py %s '{"buffer_dtypes": {"x": "float64", "y": "float64"}}' | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
# RUN: %python %S/Inputs/dump_opts.py %s '{"buffer_dtypes": {"x": "int32", "y": "int32"}}' | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s --check-prefix=INT
import vulpy as vp

def main(x: vp.Buffer, y: vp.Buffer):
    i = vp.global_id()
    y[i] = 2 * x[i] + y[i]

# CHECK: buffer @x : f64[] binding(0, 0) readonly
# CHECK: buffer @y : f64[] binding(0, 1) readwrite
# CHECK: const 2.0 : f64
# INT: buffer @x : i32[] binding(0, 0) readonly
# INT: const 2 : i32
# INT: mul {{.*}} : i32
