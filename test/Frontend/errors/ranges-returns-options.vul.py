import vulpy as vp

HALF = 2.5

def h(x: vp.int32) -> vp.float32:
    return x

@vp.kernel
def bad(a: vp.Buffer[vp.float32], n: vp.int32):
    i = vp.global_id()
    for j in range(vp.uint8(1), 300):
        pass
    for j2 in range(-1, vp.uint32(5)):
        pass
    a[i] = h(n)

@vp.kernel(local_size_x=HALF, local_size_y=COLS, local_size_z=vp.uint32(2))
def options(a: vp.Buffer[vp.float32]):
    a[vp.global_id()] = pc.N

# Error classes of range() bounds (start and stop named, the hint naming the
# narrowest type that holds the bound) and a helper's return value:
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir --kernel=bad - 2>&1 | FileCheck %s
# CHECK: {{.*}}ranges-returns-options.vul.py:11:33: error: range() stop: literal 300 does not fit u8
# CHECK: {{^}}  hint: use a wider type, e.g. vp.uint16(...)
# CHECK: {{.*}}ranges-returns-options.vul.py:13:21: error: range() start: literal -1 does not fit u32
# CHECK: {{^}}  hint: unsigned values cannot be negative; VulPy never wraps silently
# CHECK: {{.*}}ranges-returns-options.vul.py:6:12: error: return value of 'h': expected f32, got i32
# CHECK: {{^}}  hint: convert explicitly: vp.float32(x)
# CHECK-NOT: error:
# Local sizes that are not integer constants, each at the keyword's value;
# `pc` in a kernel without push constants (and the unused helper's error):
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir --kernel=options --no-dispatch-guard - 2>&1 | FileCheck %s --check-prefix=OPT
# OPT: {{.*}}ranges-returns-options.vul.py:17:25: error: local_size_x must be an integer constant from 1 to 65535
# OPT: {{.*}}ranges-returns-options.vul.py:17:44: error: 'COLS' is not a module-level constant
# OPT: {{.*}}ranges-returns-options.vul.py:17:63: error: local_size_z must be an integer constant from 1 to 65535
# OPT: {{.*}}ranges-returns-options.vul.py:19:25: error: 'pc' names the push constants, but this kernel has none
# OPT: {{^}}  hint: declare them in `class PushConstants:`, e.g. N: vp.uint32
# OPT: {{.*}}ranges-returns-options.vul.py:6:12: error: return value of 'h': expected f32, got i32
# OPT-NOT: error:
# A local size given as an option (dump-ast -D, the Python layer) out of range:
# RUN: %dump-ast -D local_size_x=0 %s | not vulpy-translate --from=ast --to=vir --kernel=bad - 2>&1 | FileCheck %s --check-prefix=DOPT
# DOPT: {{.*}}ranges-returns-options.vul.py: error: option local_size_x must be an integer from 1 to 65535
