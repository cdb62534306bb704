# The kernel entry: a decorated function found by its decorator when there is
# no main, its keywords (local_size_x/y/z) as the local size, the options of
# the dump (-D) overriding them, --local-size overriding both, and --kernel
# picking a function by name; `from vulpy import` names and bare built-ins.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir - | FileCheck %s
# RUN: %dump-ast -D local_size_x=32 %s | vulpy-translate --from=ast --to=vir - | FileCheck %s --check-prefix=OPT
# RUN: %dump-ast -D local_size_x=32 %s | vulpy-translate --from=ast --to=vir --local-size=8,8 - | FileCheck %s --check-prefix=CLI
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --kernel=other - | FileCheck %s --check-prefix=OTHER
import vulpy as vp
from vulpy import float32 as f32, global_id

@vp.kernel(local_size_x=16, local_size_y=4)
def scale(a: vp.Buffer[f32], k: f32):
    i = global_id()
    a[i] = a[i] * k

def other(b: vp.Buffer[vp.uint32]):
    b[global_id()] = 1

# CHECK: kernel @scale local_size(16, 4, 1)
# CHECK-NOT: @other
# OPT: kernel @scale local_size(32, 4, 1)
# CLI: kernel @scale local_size(8, 8, 1)
# OTHER: kernel @other local_size(64, 1, 1)
