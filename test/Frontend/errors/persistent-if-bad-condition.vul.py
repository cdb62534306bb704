import vulpy as vp


@vp.kernel(persistent=True)
def main(a: vp.Buffer[vp.float32], steps: vp.uint32):
    for t in range(steps):
        if undefined_flag:
            vp.grid_sync()
        vp.grid_sync()

# An `if` holding a grid sync whose condition does not compile gets that
# error alone, not a second one about non-uniform control flow.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s
# CHECK: {{.*}}persistent-if-bad-condition.vul.py:7:12: error: unknown name 'undefined_flag'
# CHECK-NOT: non-uniform
