import vulpy as vp

X = None
Y: vp.uint32 = vp.int32(3)
Z: vp.uint8 = 300
W = 1 @ 2
V = 1.5 << 2

class Base:
    x: vp.float32

class Derived(Base):
    y: vp.float32

class Twice:
    x: vp.float32
    x: vp.float32

def main(a: vp.Buffer[vp.float32], d: vp.Buffer[Derived], tw: vp.Buffer[Twice]):
    i = vp.global_id()
    s = vp.Shared[vp.float32, 4]
    s = vp.Shared[vp.float32, 8]
    if i > 0:
        x: vp.float32 = 1.0
    x: vp.int32 = 2
    a[i] = X + Y + Z + W + V

# Error classes of module constants, struct classes and redeclarations: None
# as a constant, a typed constant of another type, a constant that does not
# fit its annotation, @ and << on literals, a class with a base, a field
# declared twice, a shared array assigned twice, a local redeclared with
# another type.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s
# CHECK: {{.*}}module-and-classes.vul.py:12:1: error: class Derived has base classes; kernel structs are plain annotated classes
# CHECK: {{.*}}module-and-classes.vul.py:17:5: error: field x is declared twice
# CHECK: {{.*}}module-and-classes.vul.py:21:5: error: 's' names a shared array and cannot be assigned elsewhere
# CHECK: {{.*}}module-and-classes.vul.py:22:5: error: 's' names a shared array and cannot be assigned elsewhere
# CHECK: {{.*}}module-and-classes.vul.py:25:5: error: 'x' is f32 (line 24) and cannot be redeclared as i32
# CHECK: {{.*}}module-and-classes.vul.py:3:5: error: module-level 'X' is not a number
# CHECK: {{.*}}module-and-classes.vul.py:4:16: error: constant 'Y' is i32 but annotated u32
# CHECK: {{.*}}module-and-classes.vul.py:5:15: error: constant 'Z' does not fit u8
# CHECK: {{.*}}module-and-classes.vul.py:6:5: error: '@' is not defined for numbers
# CHECK: {{.*}}module-and-classes.vul.py:7:5: error: '<<' needs integers, not floats
# CHECK-NOT: error:
