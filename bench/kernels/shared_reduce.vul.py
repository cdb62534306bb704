# A reduction with shared memory and barriers: each workgroup of 256 sums
# its 256 uint32 values by a tree in shared memory, writes its partial sum,
# and adds it to a grand total atomically. Integers: bit-exact.
import vulpy as vp


@vp.kernel(local_size_x=256)
def reduce_sum(x: vp.Buffer[vp.uint32], partial: vp.Buffer[vp.uint32],
               total: vp.Buffer[vp.uint32]):
    lid = vp.local_index()
    t = vp.Shared[vp.uint32, 256]
    t[lid] = x[vp.global_id()]
    vp.barrier()
    s: vp.uint32 = 128
    while s > 0:
        if lid < s:
            t[lid] = t[lid] + t[lid + s]
        vp.barrier()
        s = s // 2
    if lid == 0:
        partial[vp.workgroup_id()] = t[0]
        vp.atomic_add(total, 0, t[0])
