import vulpy as vp
from vulpy import sine

class Node:
    next: Node

class Meta:
    x: vp.float32
    y = 2

class Flag:
    on: vp.bool

class WithDefault:
    x: vp.float32 = 1.0

class P:
    x: vp.float32

class PushConstants:
    n: vp.int32

def main(a: vp.Buffer[vp.float32], n: vp.int32) -> vp.float32:
    i = vp.global_id()
    for k in range(1, 2, 3, 4):
        pass
    for k2 in range(1.5):
        pass
    i2 = 0
    for i2 in range(3):
        pass
    assert i > 0, i
    async for z in range(3):
        pass
    i + 1
    e = (yield 1)
    h: 3 = 1
    m = Meta(x=1.0)
    fl = Flag(on=True)
    wd = WithDefault(x=1.0)
    nd = Node(next=1)
    s = vp.float32(vp.vec2(1.0, 2.0))
    d = P(**i)

# Error classes of statements, structs and the kernel's interface: an unknown
# name imported from vulpy, a push constant declared twice, a kernel return
# annotation, range() with 4 arguments or float bounds, a loop variable that
# is already a variable, an assert message that is not a string, async for,
# an expression statement without effect (a warning), yield, a literal as an
# annotation, a struct class with a plain attribute, a bool field, a field
# default, a struct that contains itself (each reported once, at the class,
# however often it is used), a vector passed to a scalar conversion, and
# **kwargs in a struct call.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s
# CHECK: {{.*}}statements-and-structs.vul.py:2:19: error: vulpy has no name 'sine'
# CHECK: {{^}}  hint: did you mean 'sin'?
# CHECK: {{.*}}statements-and-structs.vul.py:23:36: error: push constant 'n' is declared twice
# CHECK: {{^}}  hint: PushConstants fields and scalar kernel parameters share one namespace
# CHECK: {{.*}}statements-and-structs.vul.py:23:52: error: a kernel returns nothing; results go to its buffers
# CHECK: {{.*}}statements-and-structs.vul.py:25:14: error: range() takes 1 to 3 positional arguments, got 4
# CHECK: {{.*}}statements-and-structs.vul.py:27:15: error: range() bounds must be integers, not f32
# CHECK: {{^}}  hint: convert: vp.int32(1.5)
# CHECK: {{.*}}statements-and-structs.vul.py:30:9: error: loop variable 'i2' is also a variable outside the loop
# CHECK: {{^}}  hint: give the loop its own name
# CHECK: {{.*}}statements-and-structs.vul.py:32:19: error: an assert message must be a string literal
# CHECK: {{.*}}statements-and-structs.vul.py:33:5: error: async for is not supported in kernels
# CHECK: {{.*}}statements-and-structs.vul.py:35:5: warning: this expression has no effect
# CHECK: {{.*}}statements-and-structs.vul.py:36:10: error: generators and coroutines are not supported in kernels
# CHECK: {{.*}}statements-and-structs.vul.py:37:8: error: this annotation is not a type
# CHECK: {{^}}  hint: use a VulPy type such as vp.float32, vp.uint32, vp.vec3 or an annotated class
# CHECK: {{.*}}statements-and-structs.vul.py:9:5: error: a struct class holds only annotated fields (name: type)
# CHECK: {{.*}}statements-and-structs.vul.py:12:5: error: bool fields have no memory layout the GPU and the host agree on
# CHECK: {{^}}  hint: use vp.uint32 (0 or 1)
# CHECK: {{.*}}statements-and-structs.vul.py:15:5: error: struct fields cannot have default values
# CHECK: {{.*}}statements-and-structs.vul.py:4:1: error: struct Node contains itself
# CHECK: {{.*}}statements-and-structs.vul.py:42:9: error: vp.float32() converts scalars, not vec2<f32>
# CHECK: {{^}}  hint: convert a vector with its vector type: vp.vec2(...)
# CHECK: {{.*}}statements-and-structs.vul.py:43:11: error: **arguments are not supported in kernels
# CHECK-NOT: error:
