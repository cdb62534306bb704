import vulpy as vp


@vp.kernel(persistent=True)
def main(a: vp.Buffer[vp.float32], n: vp.uint32, steps: vp.uint32):
    for t in range(steps):
        for p in vp.grid_range(n):
            a[p] = 0.0
        vp.grid_sync()
    for t in range(steps):
        for p in vp.grid_range(n):
            a[p] = 1.0
        vp.grid_sync()
    for t in range(steps):
        for p in vp.grid_range(n):
            a[p] = 2.0
        vp.grid_sync()
    for t in range(steps):
        for p in vp.grid_range(n):
            a[p] = 3.0
        vp.grid_sync()
    for t in range(steps):
        for p in vp.grid_range(n):
            a[p] = 4.0
        vp.grid_sync()
    for t in range(steps):
        for p in vp.grid_range(n):
            a[p] = 5.0
        vp.grid_sync()
    for t in range(steps):
        for p in vp.grid_range(n):
            a[p] = 6.0
        vp.grid_sync()
    for t in range(steps):
        for p in vp.grid_range(n):
            a[p] = 7.0
        vp.grid_sync()
    for t in range(steps):
        for p in vp.grid_range(n):
            a[p] = 8.0
        vp.grid_sync()
    for t in range(steps):
        for p in vp.grid_range(n):
            a[p] = 9.0
        vp.grid_sync()
    for t in range(steps):
        for p in vp.grid_range(n):
            a[p] = 10.0
        vp.grid_sync()
    for t in range(steps):
        for p in vp.grid_range(n):
            a[p] = 11.0
        vp.grid_sync()
    for t in range(steps):
        for p in vp.grid_range(n):
            a[p] = 12.0
        vp.grid_sync()
    for t in range(steps):
        for p in vp.grid_range(n):
            a[p] = 13.0
        vp.grid_sync()
    for t in range(steps):
        for p in vp.grid_range(n):
            a[p] = 14.0
        vp.grid_sync()
    for t in range(steps):
        for p in vp.grid_range(n):
            a[p] = 15.0
        vp.grid_sync()
    for t in range(steps):
        for p in vp.grid_range(n):
            a[p] = 16.0
        vp.grid_sync()

# A persistent kernel keeps at most 16 time loops (loops whose body holds a
# grid sync); the 17th is an error at its place, not a loop left without
# its persistent.step (which would never see handle.stop()).
# RUN: %dump-ast %s | not vulpy-translate --from=ast --to=vir - 2>&1 | FileCheck %s
# CHECK: {{.*}}persistent-time-loops.vul.py:70:5: error: a persistent kernel has at most 16 time loops (loops with a vp.grid_sync() in their body)
# CHECK: {{^}}  hint: join loops that run the same number of steps into one
# CHECK-NOT: error:
