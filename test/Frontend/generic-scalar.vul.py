# A generic scalar: `a: vp.Scalar` is a push constant whose type comes from
# the document's "scalar_dtypes" option (the Python layer passes the call's:
# a NumPy scalar's dtype, or the generic buffers' element type for a Python
# number), so `a * x[i]` is f64, f32 or i32 as the call says.
# RUN: %python %S/Inputs/dump_opts.py %s '{"buffer_dtypes": {"x": "float64", "y": "float64"}, "scalar_dtypes": {"a": "float64", "b": "float64"}}' | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
# RUN: %python %S/Inputs/dump_opts.py %s '{"buffer_dtypes": {"x": "int32", "y": "int32"}, "scalar_dtypes": {"a": "int32", "b": "int32"}}' | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s --check-prefix=INT
import vulpy as vp
from vulpy import Scalar

def main(x: vp.Buffer, y: vp.Buffer, a: vp.Scalar, b: Scalar):
    i = vp.global_id()
    y[i] = a * x[i] + y[i]

# CHECK: buffer @x : f64[] binding(0, 0) readonly
# CHECK: push @pc { a: f64 {{.*}}, b: f64
# CHECK: %[[A:[0-9]+]] = push.load @pc.a : f64
# CHECK: mul %[[A]], %{{[0-9]+}} : f64
# INT: push @pc { a: i32 {{.*}}, b: i32
# INT: mul {{.*}} : i32
