import vulpy as vp

class P:
    x: vp.float32
    def norm(self):
        return self.x

def main(p: vp.Buffer[P]):
    i = vp.global_id()

# Error class: a class with methods used as a struct.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}class-method.vul.py:5:5: error: class P has a method; kernel structs hold data only
# CHECK-NEXT: {{^}}    def norm(self):
# CHECK-NEXT: {{^}}    ^
# CHECK-NEXT: {{^}}  hint: write a plain function that takes the struct instead
# CHECK-NOT: {{.}}
