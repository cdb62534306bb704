import vulpy as vp

A = A + 1
B = 1 // 0
C = 2.5e39

class Empty:
    pass

class WithDefault:
    x: vp.float32 = 1.0

class Base(WithDefault):
    y: vp.float32

@staticmethod
def helper(x):
    return x

def main(a: vp.Buffer[vp.float32], flags: vp.Buffer[vp.bool], on: vp.bool, *rest):
    i = vp.global_id()
    a[i] = A + B + C + pc.N + helper(1.0)
    e = Empty()
    while i < 3:
        i += 1
    else:
        pass
    for j in range(3):
        pass
    else:
        pass
    match i:
        case 1:
            pass

# Error classes at the module and the interface: a constant defined by itself,
# division by zero in a constant, *args, a buffer of bool, a bool push
# constant, pc.NAME without PushConstants, an unknown decorator, an empty
# struct, while/for ... else, match.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s
# CHECK: {{.*}}module-and-interface.vul.py:20:1: error: a kernel takes plain named parameters (no *args, **kwargs or /)
# CHECK: {{.*}}module-and-interface.vul.py:20:43: error: a buffer of bool has no layout the host agrees on
# CHECK: {{^}}  hint: use vp.Buffer[vp.uint32] with 0 and 1
# CHECK: {{.*}}module-and-interface.vul.py:20:63: error: push constant 'on' is a bool, which has no host layout
# CHECK: {{^}}  hint: use vp.uint32 (0 or 1)
# CHECK: {{.*}}module-and-interface.vul.py:3:5: error: constant 'A' is defined in terms of itself
# CHECK: {{.*}}module-and-interface.vul.py:4:5: error: division by zero in a constant expression
# CHECK: {{.*}}module-and-interface.vul.py:22:24: error: no push constant named 'N'
# CHECK: {{^}}  hint: declare it in `class PushConstants:` as N: vp.uint32 (or its type)
# CHECK: {{.*}}module-and-interface.vul.py:16:2: error: unknown name 'staticmethod'
# CHECK: {{.*}}module-and-interface.vul.py:7:1: error: struct Empty has no fields
# CHECK: {{.*}}module-and-interface.vul.py:24:5: error: while ... else is not supported
# CHECK: {{.*}}module-and-interface.vul.py:28:5: error: for ... else is not supported
# CHECK: {{.*}}module-and-interface.vul.py:32:5: error: match statements are not supported in kernels
# CHECK-NOT: error:
