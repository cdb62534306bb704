# The decorator's barrier= and nonprivate= choose how persistent.* ops are
# lowered (docs/persistent.md, "Barrier variants"): vulpy-translate runs the
# pipeline the frontend sets, as vp.compile does. "lean" arrives on word 2
# and bumps a generation at word 3, the default "flip" adds to word 96 and
# keeps a phase in _vp_lphase; nonprivate=True makes the written buffers
# non-private instead of coherent.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=glsl - | FileCheck %s
# RUN: sed -e 's/barrier="lean", nonprivate=True/barrier=None/' %s > %t.vul.py
# RUN: %dump-ast %t.vul.py | vulpy-translate --from=ast --to=glsl - | FileCheck %s --check-prefix=FLIP
import vulpy as vp


@vp.kernel(persistent=True, local_size_x=64, barrier="lean", nonprivate=True)
def main(acc: vp.Buffer[vp.uint32], n: vp.uint32, steps: vp.uint32):
    for t in range(steps):
        for p in vp.grid_range(n):
            acc[p] = acc[p] + 2
        vp.grid_sync()

# CHECK: nonprivate buffer acc_buf
# CHECK-NOT: _vp_lphase
# CHECK: atomicLoad(_vp_grid[3u], gl_ScopeDevice, 0, 0);
# CHECK-NEXT: atomicAdd(_vp_grid[2u], 1u,
# CHECK-NOT: _vp_lphase
# FLIP: coherent buffer acc_buf
# FLIP-NOT: _vp_grid[2u]
# FLIP: uint _vp_lphase0 = 0u;
# FLIP-NOT: _vp_grid[2u]
# FLIP: atomicAdd(_vp_grid[96u],
# FLIP-NOT: _vp_grid[2u]
