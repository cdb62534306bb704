import vulpy as vp

def main(a: vp.Buffer[vp.float32], f: vp.Buffer[vp.float16], n: vp.int32):
    i = vp.global_id()
    t = vp.Shared[vp.uint32, 4, 4]
    x = a.size
    y = (1).real
    z = a[-1]
    w = t[n, i]
    v = vp.vec3(1.0, 2.0, 3.0)
    p = v[3]
    q = v[0:n]
    r = vp.float32[0:1]
    s = len(n)
    b = vp.bitcast(n, vp.float16)
    k = n()
    g = vp.atomic_add(t, 1, 2)
    h = vp.atomic_add(f, i, 1.0)
    c = v < v < v
    d = -(n < 1)
    m = vp.mat2(1.0, 0.0, 0.0, 1.0)
    e = m @ v
    o = m + 1.0
    l = n << vp.ivec2(1, 2)
    bv = vp.bvec2(True, False)
    j = bv * bv
    bb = True < 1
    tt = t[0:1, 2]
    li = (1)[0]

# Error classes of attributes, indexing, slicing and operators: an attribute
# of a buffer or a literal, a negative buffer index, mixed index types, an
# out-of-range vector component, a variable slice bound, slicing a type,
# len() of a scalar, a bitcast between sizes, calling a variable, an atomic on
# a 2-D shared array with one index or on float16, a chained vector
# comparison, - on a bool, @ of mismatched shapes, a matrix plus a number, a
# scalar shifted by a vector, arithmetic on bool vectors, a bool compared with
# a number, a slice inside a multi-index, indexing a literal (once silently
# dropped: the statement vanished and the kernel compiled).
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s
# CHECK: {{.*}}access-and-operators.vul.py:6:9: error: buffer 'a' has no attribute 'size'
# CHECK: {{^}}  hint: index it first: a[i].size; its length is len(a)
# CHECK: {{.*}}access-and-operators.vul.py:7:9: error: this has no attribute 'real'
# CHECK: {{.*}}access-and-operators.vul.py:8:11: error: negative index -1 into a buffer or shared array
# CHECK: {{.*}}access-and-operators.vul.py:9:14: error: the indices mix i32 and u32
# CHECK: {{^}}  hint: convert one: vp.int32(i)
# CHECK: {{.*}}access-and-operators.vul.py:11:11: error: index 3 is out of range for vec3<f32>
# CHECK: {{.*}}access-and-operators.vul.py:12:13: error: a vector slice's bounds are integer constants
# CHECK: {{^}}  hint: write v[0:2], v[1:], v[::-1]; for an index known only at run time use v[i]
# CHECK: {{.*}}access-and-operators.vul.py:13:9: error: only vectors can be sliced
# CHECK: {{.*}}access-and-operators.vul.py:14:13: error: len() of i32
# CHECK: {{.*}}access-and-operators.vul.py:15:9: error: bitcast() from i32 to f16: sizes differ or the type has no bits
# CHECK: {{.*}}access-and-operators.vul.py:16:9: error: this is not a function
# CHECK: {{.*}}access-and-operators.vul.py:17:23: error: index a 2-D shared array with t[row, col]
# CHECK: {{.*}}access-and-operators.vul.py:18:9: error: atomic_add() is not available on f16 elements
# CHECK: {{^}}  hint: atomics work on 32- and 64-bit integers; float32 has add, exchange, load and store
# CHECK: {{.*}}access-and-operators.vul.py:19:9: error: a chained comparison of vectors is ambiguous
# CHECK: {{^}}  hint: compare pairwise and combine with vp.all(...) or vp.any(...)
# CHECK: {{.*}}access-and-operators.vul.py:20:9: error: unary - needs a number, not bool
# CHECK: {{.*}}access-and-operators.vul.py:22:9: error: '@' is not defined for mat2<f32> and vec3<f32>
# CHECK: {{^}}  hint: @ multiplies matrices and vectors of matching sizes and float type
# CHECK: {{.*}}access-and-operators.vul.py:23:9: error: '+' is not defined between mat2<f32> and a number
# CHECK: {{^}}  hint: matrices take part in @ (matrix products) only
# CHECK: {{.*}}access-and-operators.vul.py:24:9: error: shifting a scalar by a vector
# CHECK: {{.*}}access-and-operators.vul.py:26:9: error: arithmetic on bool ('*'): Python treats True as 1; VulPy does not
# CHECK: {{^}}  hint: convert first: vp.uvec2(bv)
# CHECK: {{.*}}access-and-operators.vul.py:27:10: error: comparing a bool with a number
# CHECK: {{.*}}access-and-operators.vul.py:28:12: error: slices other than x[:] are not supported
# CHECK: {{.*}}access-and-operators.vul.py:29:10: error: i32 cannot be indexed
# CHECK-NOT: error:
