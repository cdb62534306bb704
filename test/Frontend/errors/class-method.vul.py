import vulpy as vp

class P:
    x: vp.float32
    def __init__(self, x):
        self.x = x
    @staticmethod
    def zero():
        return 0.0
    async def later(self):
        pass

def main(p: vp.Buffer[P]):
    i = vp.global_id()

# Error class: struct classes may have plain methods (methods.c), but not
# special methods such as __init__ (a struct is built from its fields),
# decorated or async ones.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}class-method.vul.py:5:5: error: class P defines __init__; kernel structs are built from their fields
# CHECK-NEXT: {{^}}    def __init__(self, x):
# CHECK-NEXT: {{^}}    ^
# CHECK-NEXT: {{^}}  hint: call P(field=..., ...) to build one; write other operations as methods
# CHECK-NEXT: {{.*}}class-method.vul.py:8:5: error: method P.zero has a decorator; kernel struct methods are plain functions of self
# CHECK-NEXT: {{^}}    def zero():
# CHECK-NEXT: {{^}}    ^
# CHECK-NEXT: {{.*}}class-method.vul.py:10:5: error: class P has an async method; kernels have no coroutines
