# `...` as a statement is Python's placeholder, as `pass`: a kernel body
# sketched with it compiles (docs/memsock.md's sample writes `...  # the
# time step`). As a value it stays an error.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - | FileCheck %s
# RUN: sed "s/^    \.\.\.  # stmt$/    a[0] = .../" %s > %t.vul.py
# RUN: %dump-ast %t.vul.py | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s --check-prefix=ERR
import vulpy as vp

def main(a: vp.Buffer[vp.float32]):
    i = vp.global_id()
    ...  # stmt
    a[i] = 2.0

# CHECK-LABEL: kernel @main
# CHECK-NOT: error
# CHECK: store
# ERR: error: Ellipsis constants are not supported in kernels
