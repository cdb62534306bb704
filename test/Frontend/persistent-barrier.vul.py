# The decorator's barrier= and nonprivate= choose how persistent.* ops are
# lowered (docs/persistent.md, "Barrier variants"): vulpy-translate runs the
# pipeline the frontend sets, as vp.compile does. "packed" keeps the
# expected generation in _vp_lgen, the default "flip" a phase in _vp_lphase;
# nonprivate=True makes the written buffers non-private instead of coherent.
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=glsl - | FileCheck %s
# RUN: sed -e 's/barrier="packed", nonprivate=True/barrier=None/' %s > %t.vul.py
# RUN: %dump-ast %t.vul.py | vulpy-translate --from=ast --to=glsl - | FileCheck %s --check-prefix=FLIP
import vulpy as vp


@vp.kernel(persistent=True, local_size_x=64, barrier="packed", nonprivate=True)
def main(acc: vp.Buffer[vp.uint32], n: vp.uint32, steps: vp.uint32):
    for t in range(steps):
        for p in vp.grid_range(n):
            acc[p] = acc[p] + 2
        vp.grid_sync()

# CHECK: nonprivate buffer acc_buf
# CHECK-NOT: _vp_lphase
# CHECK: uint _vp_lgen0 = 0u;
# FLIP: coherent buffer acc_buf
# FLIP-NOT: _vp_lgen
# FLIP: uint _vp_lphase0 = 0u;
