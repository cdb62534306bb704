import vulpy as vp

class Body:
    x: vp.float32

    def nothing():
        return 1.0

    def push(self, d):
        self.x += d
        return self.x

def total(arr):
    return arr[0]

def main(a: vp.Buffer[vp.float32], n: vp.int32):
    i = vp.global_id()
    h = vp.Local[vp.float32, 4]
    h2, h3 = vp.Local[vp.float32, 4]
    if n > 0:
        h4 = vp.Local[vp.float32, 4]
    h5 = vp.Local[vp.float32]
    h6 = vp.Local[vp.float32, n]
    h7 = vp.Local[vp.float32, 4]
    h7 = vp.Local[vp.float32, 4]
    h[4] = 1.0
    h[-5] = 1.0
    vp.atomic_add(h, 0, 1.0)
    s = total(h)
    b = Body(1.0)
    b.nothing()
    b.push(1.0)

# Errors of private arrays (vp.Local) and struct methods: declarations that
# are not one name at the top level, bad shapes, constant indices out of
# range, atomics on and helpers given a private array, a method without
# self, a method that changes self and returns a value.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s
# CHECK: {{.*}}locals-and-methods.vul.py:19:5: error: a private array is declared as NAME = vp.Local[T, N]
# CHECK: {{.*}}locals-and-methods.vul.py:21:9: error: private arrays are declared at the top level of a function
# CHECK: {{^}}  hint: move `h4 = vp.Local[...]` before the loop or branch; it is zeroed where it is declared
# CHECK: {{.*}}locals-and-methods.vul.py:22:19: error: write vp.Local[T, N]: an element type and a length
# CHECK: {{.*}}locals-and-methods.vul.py:23:31: error: a private array's length is an integer constant from 1 to 1024
# CHECK: {{.*}}locals-and-methods.vul.py:24:5: error: 'h7' names a private array and cannot be assigned elsewhere
# CHECK: {{.*}}locals-and-methods.vul.py:26:7: error: index 4 is out of range for 'h' (4 elements)
# CHECK: {{.*}}locals-and-methods.vul.py:27:7: error: index -5 is out of range for 'h' (4 elements)
# CHECK: {{.*}}locals-and-methods.vul.py:28:19: error: atomic_add() on a private array: no other invocation can see it
# CHECK: {{^}}  hint: update it directly: h[i] += ...
# CHECK: {{.*}}locals-and-methods.vul.py:29:15: error: private array 'h' cannot be passed to a helper (it is the caller's local)
# CHECK: {{^}}  hint: pass its elements, or return values from the helper and store them
# CHECK: {{.*}}locals-and-methods.vul.py:31:5: error: method Body_nothing() has no self parameter
# CHECK: {{.*}}locals-and-methods.vul.py:11:16: error: method 'Body_push' changes self, so it cannot also return a value
# CHECK: {{^}}  hint: return the new values instead of assigning self's fields, or write them to a buffer
