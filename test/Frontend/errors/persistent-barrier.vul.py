import vulpy as vp


@vp.kernel(persistent=True, barrier="fastest", nonprivate=1)
def main(a: vp.Buffer[vp.float32], n: vp.uint32, steps: vp.uint32):
    for t in range(steps):
        for p in vp.grid_range(n):
            a[p] = 1.0
        vp.grid_sync()

# barrier= names a grid barrier of the pass table; nonprivate= is a bool.
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s
# CHECK: {{.*}}persistent-barrier.vul.py:4:37: error: barrier= must be one of 'lean', 'flip', 'cg', 'cg-offpath', 'flip-offpath', 'cg-tree', 'flip-tree', 'cgx-acqpoll'{{$}}
# CHECK: hint: the grid barrier of a persistent kernel (docs/persistent.md, "Barrier variants")
# CHECK: {{.*}}persistent-barrier.vul.py:4:59: error: nonprivate= must be True or False
# CHECK-NOT: error:
