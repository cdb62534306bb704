import vulpy as vp


def helper(a: vp.Buffer[vp.float32]):
    vp.grid_sync()


@vp.kernel(persistent=True)
def main(a: vp.Buffer[vp.float32], n: vp.uint32):
    helper(a)
    vp.grid_sync()

# A grid sync in a helper: the compiler cannot check that every invocation
# reaches it.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s
# CHECK: {{.*}}persistent-helper.vul.py:5:5: error: vp.grid_sync() in a helper function
# CHECK: {{^}}  hint: call it in the persistent kernel itself, where the compiler can check that every invocation reaches it
# CHECK-NOT: error:
