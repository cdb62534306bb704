import vulpy as vp

def typed(x: vp.uint32) -> vp.uint32:
    return x + 1.5

def untyped(a, b):
    s = a * b
    f = lambda q: q
    return s

def fine(a, b):
    return a + b

def main(out: vp.Buffer[vp.float32]):
    i = vp.global_id().x
    out[i] = 1.0

# Error class: helpers that the kernel never calls are checked too:
# annotated parameters with their types, the others as unknown values that
# raise no errors of their own.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck --strict-whitespace %s
# CHECK: {{.*}}unused-helper.vul.py:4:12: error: '+' mixes u32 and a float literal
# CHECK-NEXT: {{^}}    return x + 1.5
# CHECK: {{.*}}unused-helper.vul.py:8:9: error: lambda is not supported in kernels
# CHECK-NOT: error
