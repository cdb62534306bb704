import vulpy as vp

class P:
    x: vp.float32

class PushConstants:
    N: vp.uint32

def helper(x):
    return x

def main(a: vp.Buffer[vp.float32]):
    i = vp.global_id()
    z = pc
    t = vp
    u = helper
    k = vp.sin
    c = P
    s = a + 1.0
    b = vp.Buffer[vp.float32]
    w = vp.Buffer[vp.float32](1)

# Names that are not values where a value is needed: the push block, the
# vulpy module, a helper function, a built-in function, a struct class, a
# buffer: each says what it is, with the hint to use it.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s
# CHECK: {{.*}}not-values.vul.py:14:9: error: 'pc' is the push-constant block, not a value
# CHECK: {{^}}  hint: read one field: pc.NAME
# CHECK: {{.*}}not-values.vul.py:15:9: error: the vulpy module is not a value
# CHECK: {{.*}}not-values.vul.py:16:9: error: 'helper' is a function, not a value
# CHECK: {{^}}  hint: functions are called, not stored or passed
# CHECK: {{.*}}not-values.vul.py:17:9: error: 'sin' is a function, not a value
# CHECK: {{^}}  hint: call it: sin(...)
# CHECK: {{.*}}not-values.vul.py:18:9: error: 'P' is a type, not a value
# CHECK: {{.*}}not-values.vul.py:19:9: error: buffer 'a' is not a value
# CHECK: {{^}}  hint: index it: a[i]
# CHECK: {{.*}}not-values.vul.py:20:9: error: vp.Buffer[...] declares a kernel parameter's type; it is not a value here
# CHECK: {{.*}}not-values.vul.py:21:9: error: vp.Buffer[...] declares a kernel parameter's type; it is not a value here
# CHECK-NOT: error:
