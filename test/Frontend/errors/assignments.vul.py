import vulpy as vp

class P:
    x: vp.float32

class PushConstants:
    N: vp.uint32

def nothing(a):
    a[0] = 1.0

def takes(a: vp.float32) -> vp.float32:
    return a

def main(a: vp.Buffer[vp.float32], b: vp.Buffer[P], n: vp.int32):
    i = vp.global_id()
    if n > 0:
        arr = a
    x = nothing(a)
    y = vp.barrier()
    pc.N = 1
    vp.foo = 1
    yy = 1
    yy.foo = 2
    (1)[:] = 2
    s = vp.float32(1.0)
    s[0:2] = 1.0
    v = vp.vec3(1.0, 2.0, 3.0)
    v[5] = 1.0
    p, q = (1, 2, 3)
    p2, q2 = v
    r, *rest = vp.vec2(1.0, 2.0)
    sh[0] = vp.Shared[vp.float32, 4]
    sh2 = vp.Shared[vp.float32]
    sh3 = vp.Shared[vp.float32, n]
    sh4 = vp.Shared[vp.vec4, 1 << 20]
    a[0]: vp.float32 = 1.0
    z = takes(a)
    v.xy = 1
    v.xy = vp.ivec2(1, 2)
    b[i].x = vp.int32(1)
    v[1] = vp.int32(1)
    v[n] = vp.int32(1)
    v[0:2] = vp.ivec2(1, 2)
    a[i] += vp.float64(1.0)
    e = vp.uint8(1) if n > 0 else 300
    e2 = vp.float32(1.0) if n > 0 else vp.int32(2)
    for j in range(3):
        pass
    j += 1

# Error classes of assignment: an array name bound twice, a call that returns
# nothing, a push constant or a module attribute as target, an attribute of
# a scalar, a literal as target, a slice of a scalar, an out-of-range
# component, unpacking the wrong count or with a star (said at the star, not
# as a count), shared-array declarations of the wrong shape, size or target,
# an annotated subscript, an array passed for a value parameter, and the
# conversion errors naming each kind of store (swizzle, field, element, slice,
# augmented, conditional expression). A loop variable assigned after its loop
# is reported once, not again at each later use.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s
# CHECK: {{.*}}assignments.vul.py:18:9: error: 'arr' names an array here but is assigned elsewhere too
# CHECK: {{^}}  hint: an array name is bound once, at the top level of the function
# CHECK: {{.*}}assignments.vul.py:19:9: error: this call returns nothing
# CHECK: {{.*}}assignments.vul.py:20:9: error: this call returns nothing
# CHECK: {{.*}}assignments.vul.py:21:5: error: push constants are read-only
# CHECK: {{.*}}assignments.vul.py:22:5: error: cannot assign to this
# CHECK: {{^}}  hint: assign to a variable, a buffer or shared element, or a part of one
# CHECK: {{.*}}assignments.vul.py:24:5: error: i32 has no attribute 'foo'
# CHECK: {{.*}}assignments.vul.py:25:5: error: cannot assign to this
# CHECK: {{^}}  hint: assign to a variable, a buffer or shared element, or a part of one
# CHECK: {{.*}}assignments.vul.py:27:7: error: only vectors can be assigned by slice, not f32
# CHECK: {{.*}}assignments.vul.py:29:7: error: index is out of range for vec3<f32>
# CHECK: {{.*}}assignments.vul.py:30:5: error: cannot unpack 3 values into 2 names
# CHECK: {{.*}}assignments.vul.py:31:5: error: cannot unpack vec3<f32> into 2 names
# CHECK: {{.*}}assignments.vul.py:32:8: error: *unpacking is not supported in kernels
# CHECK: {{.*}}assignments.vul.py:33:5: error: a shared array is declared as NAME = vp.Shared[T, N]
# CHECK: {{.*}}assignments.vul.py:34:21: error: write vp.Shared[T, N] or vp.Shared[T, ROWS, COLS]
# CHECK: {{.*}}assignments.vul.py:35:33: error: a shared array's size is a positive integer constant
# CHECK: {{.*}}assignments.vul.py:36:21: error: shared array 'sh4' is larger than any device's workgroup memory
# CHECK: {{.*}}assignments.vul.py:37:5: error: only a plain name can be annotated
# CHECK: {{.*}}assignments.vul.py:38:15: error: argument 'a' of takes() is annotated as a value; got an array
# CHECK: {{.*}}assignments.vul.py:39:12: error: swizzle assignment: a scalar literal where vec2<f32> is expected
# CHECK: {{^}}  hint: build the vector: vp.vec2(...)
# CHECK: {{.*}}assignments.vul.py:40:12: error: swizzle assignment: expected vec2<f32>, got vec2<i32>
# CHECK: {{^}}  hint: convert explicitly: vp.vec2(vp.ivec2(1, 2))
# CHECK: {{.*}}assignments.vul.py:41:14: error: assignment to .x: expected f32, got i32
# CHECK: {{^}}  hint: convert explicitly: vp.float32(vp.int32(1))
# CHECK: {{.*}}assignments.vul.py:42:12: error: element assignment: expected f32, got i32
# CHECK: {{^}}  hint: convert explicitly: vp.float32(vp.int32(1))
# CHECK: {{.*}}assignments.vul.py:43:12: error: element assignment: expected f32, got i32
# CHECK: {{^}}  hint: convert explicitly: vp.float32(vp.int32(1))
# CHECK: {{.*}}assignments.vul.py:44:14: error: slice assignment: expected vec2<f32>, got vec2<i32>
# CHECK: {{^}}  hint: convert explicitly: vp.vec2(vp.ivec2(1, 2))
# CHECK: {{.*}}assignments.vul.py:45:13: error: augmented assignment: f64 does not fit f32 without narrowing
# CHECK: {{^}}  hint: convert explicitly: vp.float32(vp.float64(1.0))
# CHECK: {{.*}}assignments.vul.py:46:35: error: a conditional expression: literal 300 does not fit u8
# CHECK: {{^}}  hint: use a wider type, e.g. vp.uint16(...)
# CHECK: {{.*}}assignments.vul.py:47:10: error: a conditional expression mixes float (f32) and signed (i32) operands
# CHECK: {{^}}  hint: convert one side explicitly, e.g. vp.float32(...)
# CHECK: {{.*}}assignments.vul.py:48:9: error: loop variable 'j' is assigned elsewhere in the function
# CHECK: {{^}}  hint: give the loop its own name
# CHECK-NOT: error:
