import vulpy as vp

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.int32):
    i = vp.global_id()
    x = None
    del i
    t = -(1, 2)
    r = range(4)
    f = vp.float32
    s = vp.sign(u[i])
    y = n << -1
    z = ~1.5
    k = n ** n
    v = vp.vec3(1.0, 2.0)
    w = vp.vec3(1.0, 2.0, 3.0)
    w.xx = vp.vec2(1.0, 2.0)
    _vp_x = 1
    m = vp.transpose(w)
    for (p, q) in range(3):
        pass
    c = vp.subgroup_broadcast(a[i], n)
    a[0:2] = 1.0

# Error classes: values that are not values in a kernel (None, tuples, types,
# range outside for), del, reserved names, bad shifts, ~ on a float, integer
# ** with a variable exponent, wrong component counts, repeated swizzle
# components, transpose of a vector, a tuple loop target, a variable subgroup
# lane, slice assignment to a buffer: one run reports them all, each at its
# place.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s
# CHECK: {{.*}}values-and-statements.vul.py:5:9: error: None is not a value in a kernel
# CHECK: {{.*}}values-and-statements.vul.py:6:5: error: del is not supported in kernels
# CHECK: {{.*}}values-and-statements.vul.py:7:10: error: a tuple is not a value in a kernel
# CHECK: {{^}}  hint: build a vector instead: vp.vec3(a, b, c)
# CHECK: {{.*}}values-and-statements.vul.py:8:9: error: range() is only for `for` loops
# CHECK: {{.*}}values-and-statements.vul.py:9:9: error: 'float32' is a type, not a value
# CHECK: {{.*}}values-and-statements.vul.py:10:9: error: sign() of an unsigned value
# CHECK: {{.*}}values-and-statements.vul.py:11:9: error: shift count -1 is out of range for i32
# CHECK: {{.*}}values-and-statements.vul.py:12:9: error: ~ needs an integer, not a float
# CHECK: {{.*}}values-and-statements.vul.py:13:9: error: '**' on integers needs a constant exponent from 0 to 16
# CHECK: {{^}}  hint: for powers of two write 1 << n; otherwise convert to float
# CHECK: {{.*}}values-and-statements.vul.py:14:9: error: vp.vec3() needs 3 components, got 2
# CHECK: {{.*}}values-and-statements.vul.py:16:5: error: swizzle 'xx' names a component twice
# CHECK: {{.*}}values-and-statements.vul.py:17:5: error: names starting with _vp_ are reserved for VulPy
# CHECK: {{.*}}values-and-statements.vul.py:18:22: error: transpose() takes a matrix, not vec3<f32>
# CHECK: {{.*}}values-and-statements.vul.py:19:9: error: a for loop's target is one name
# CHECK: {{.*}}values-and-statements.vul.py:21:37: error: subgroup_broadcast() needs a constant lane
# CHECK: {{.*}}values-and-statements.vul.py:22:5: error: slice assignment to array 'a' is not supported
# CHECK: {{^}}  hint: store one element per invocation: a[i] = ...
# CHECK-NOT: error:
