import vulpy as vp

def h(x: vp.float32, y: vp.float32) -> vp.float32:
    return x + y

def f(x: vp.float32) -> vp.float32:
    return

def g(x) -> None:
    return x

@vp.sin
def decorated(x):
    return x

def main(a: vp.Buffer[vp.float32], u: vp.Buffer[vp.uint32], n: vp.int32):
    i = vp.global_id()
    t = vp.Shared[vp.float32, 4, 4]
    s = vp.Shared[vp.float32, 4]
    p = t[1, 2, 3]
    q = s[1, 2]
    t[1] = 1.0
    e = t[1]
    r = vp.atomic_add()
    r2 = vp.atomic_add(u)
    r3 = vp.atomic_add(u, i)
    ax = vp.global_id(3)
    sg = vp.subgroup_and(a[i])
    mn = vp.min(a[i], axis=1)
    bf = vp.Buffer(1)
    m1 = vp.min(1.0)
    m2 = vp.max(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0)
    w1 = vp.where(a[i], 1.0, 2.0)
    w2 = vp.where(vp.bvec2(True, False), vp.vec3(1.0, 1.0, 1.0), vp.vec3(0.0, 0.0, 0.0))
    kk = vp.kernel()
    v0 = vp.vec3()
    v1 = vp.vec2(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0)
    v2 = vp.ivec2(1.5, 2)
    v3 = vp.vec2(vp.mat2(1.0, 0.0, 0.0, 1.0), 1.0)
    m3 = vp.mat2(1.0, 2.0, 3.0)
    c1 = h(1.0, z=2.0)
    c2 = h(1.0, x=2.0)
    c4 = f(1.0)
    c5 = g(1.0)
    c6 = decorated(1.0)
    x = 1.5 << 2
    y = a[i] << 2
    z = (n < 1) < (n > 2)
    ww = vp.vec2(1.0, 2.0) + vp.vec3(1.0, 2.0, 3.0)
    jj = 1j
    b = -True

# Error classes of calls and constructors: multi-indices of the wrong rank,
# a 2-D shared array with one index (stored and read), atomics without their
# element, index or value, a global_id axis out of range, a subgroup bit
# operation on floats, keywords to a built-in, calling vp.Buffer, min/max
# argument counts, where() conditions, calling a decorator, vector and matrix
# constructors with no, too many, float or matrix components, helper keyword
# arguments, returns that disagree with the annotation, a helper with a
# decorator VulPy does not know, shifts of floats, ordering bools, vectors of
# two sizes, complex literals, - on a bool.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s
# CHECK: {{.*}}calls-and-constructors.vul.py:20:11: error: 't' has 2 dimensions, not 3
# CHECK: {{.*}}calls-and-constructors.vul.py:21:11: error: 's' has one dimension
# CHECK: {{.*}}calls-and-constructors.vul.py:22:5: error: 't' has 2 dimensions; index both
# CHECK: {{.*}}calls-and-constructors.vul.py:23:9: error: 't' has 2 dimensions; index both
# CHECK: {{^}}  hint: write t[row, col]
# CHECK: {{.*}}calls-and-constructors.vul.py:24:9: error: atomic_add() needs a buffer or shared element
# CHECK: {{.*}}calls-and-constructors.vul.py:25:10: error: atomic_add(u, index, ...) needs an index
# CHECK: {{.*}}calls-and-constructors.vul.py:26:10: error: atomic_add() takes 1 value argument after the element, got 0
# CHECK: {{.*}}calls-and-constructors.vul.py:27:23: error: global_id(axis): axis must be the constant 0, 1 or 2
# CHECK: {{.*}}calls-and-constructors.vul.py:28:10: error: subgroup_and() takes integers or bools, not f32
# CHECK: {{.*}}calls-and-constructors.vul.py:29:10: error: min() takes no keyword arguments
# CHECK: {{.*}}calls-and-constructors.vul.py:30:10: error: vp.Buffer is used as vp.Buffer[...], not called
# CHECK: {{.*}}calls-and-constructors.vul.py:31:10: error: min() takes at least 2 arguments, got 1
# CHECK: {{.*}}calls-and-constructors.vul.py:32:10: error: max() takes at most 8 arguments in kernels
# CHECK: {{.*}}calls-and-constructors.vul.py:33:19: error: where() needs a bool condition, not f32
# CHECK: {{.*}}calls-and-constructors.vul.py:34:10: error: where(): the condition has 2 components, the values 3
# CHECK: {{.*}}calls-and-constructors.vul.py:35:10: error: vp.kernel is a decorator, not something to call in a kernel
# CHECK: {{.*}}calls-and-constructors.vul.py:36:10: error: vp.vec3() needs components
# CHECK: {{.*}}calls-and-constructors.vul.py:37:10: error: vp.vec2() takes at most 2 components
# CHECK: {{.*}}calls-and-constructors.vul.py:38:19: error: vp.ivec2() takes i32 components; this is a float literal
# CHECK: {{.*}}calls-and-constructors.vul.py:39:18: error: vp.vec2() takes scalars and vectors, not mat2<f32>
# CHECK: {{.*}}calls-and-constructors.vul.py:40:10: error: vp.mat2() takes 2 columns or 4 scalars, got 3 arguments
# CHECK: {{.*}}calls-and-constructors.vul.py:41:17: error: h() has no parameter 'z'
# CHECK: {{.*}}calls-and-constructors.vul.py:42:17: error: h() got two values for 'x'
# CHECK: {{.*}}calls-and-constructors.vul.py:7:5: error: 'f' returns f32; this return has no value
# CHECK: {{.*}}calls-and-constructors.vul.py:10:12: error: 'g' is annotated to return nothing; this return has a value
# CHECK: {{.*}}calls-and-constructors.vul.py:44:10: error: this call returns nothing
# CHECK: {{.*}}calls-and-constructors.vul.py:12:2: error: helper 'decorated' has a decorator VulPy does not know
# CHECK: {{.*}}calls-and-constructors.vul.py:46:9: error: '<<' needs integers, not floats
# CHECK: {{.*}}calls-and-constructors.vul.py:47:9: error: '<<' needs integers, not f32
# CHECK: {{.*}}calls-and-constructors.vul.py:48:9: error: '<' is not defined for bool
# CHECK: {{.*}}calls-and-constructors.vul.py:49:10: error: '+': operand types vec2<f32> and vec3<f32> do not match
# CHECK: {{.*}}calls-and-constructors.vul.py:50:10: error: complex constants are not supported in kernels
# CHECK: {{.*}}calls-and-constructors.vul.py:51:9: error: unary - on a bool: Python turns it into an int; VulPy refuses to guess
# CHECK-NOT: error:
