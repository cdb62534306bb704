# clamp-shared and a local (a Python name assigned more than once): a load
# is bounded by the largest value any store to the local gives, where a
# store runs before the load on every path. `j` is stored `n & 255` and
# `n & 127` (no clamp); `k` is stored in both branches of an if, so its
# load inside the first branch follows a store there (no clamp), but its
# load after the if has no store before it in its region or around it (the
# rule is structural: clamped, conservatively); `s` adds to itself in a
# loop (no bound: clamped).
# RUN: %dump-ast %s | vulpy-translate --from=ast --to=vir --no-dispatch-guard - > %t.vir
# RUN: vulpy-opt --clamp-shared %t.vir | vulpy-translate --from=vir --to=glsl - | FileCheck %s
import vulpy as vp

def main(out: vp.Buffer[vp.uint32], n: vp.uint32):
    i = vp.global_id()
    h = vp.Shared[vp.uint32, 256]
    j = n & vp.uint32(255)
    if i > vp.uint32(3):
        j = n & vp.uint32(127)
    h[j] = i
    if i > vp.uint32(7):
        k = n & vp.uint32(7)
        h[k] = i
    else:
        k = n & vp.uint32(15)
    s = vp.uint32(0)
    for q in range(n):
        s = s + vp.uint32(1)
    vp.barrier()
    out[i] = h[k] + h[s]

# CHECK: h[j] = i;
# CHECK: h[k] = i;
# CHECK: out_[i] = h[min(k, 255u)] + h[min(s, 255u)];
