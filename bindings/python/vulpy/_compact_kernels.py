"""The kernels of a[mask] (boolean-mask selection, _compact.py), in VulPy's
own kernel language: a stream compaction in three dispatches.

The flattened mask (one 32-bit word per element, as resident bools are
stored) is cut into tiles of T = L * IPT elements, one workgroup a tile:
  count    each tile's number of true elements -> counts[tile] (coalesced
           reads: invocation lid reads elements k * L + lid)
  offsets  one workgroup: the exclusive scan of the counts (each
           invocation sums a run of consecutive tiles, a Hillis-Steele
           scan of the L sums in shared memory, then writes its run's
           offsets) and the total after the last tile
  scatter  per tile: each invocation reads the flags of its IPT
           consecutive elements (the tile's lines are read once, through
           the cache), ranks them (the tile's offset, the group's scan of
           the invocations' counts, a running sum) and copies its selected
           elements to out[rank] (W 32-bit words each; bench/notes/scan.md:
           why not staged in shared memory), or writes their indices
           (flatnonzero).
The host reads the total back between offsets and scatter (the result's
length is the count, as in NumPy; 4 bytes). Loops: at most IPT per
invocation in the tile kernels, and 2 * ceil(ntiles / L) in offsets
(16,384 at 2^31 elements: below lavapipe's 65,535 back-edges).
"""
import vulpy as vp
from vulpy._kernel_helpers import SCAN_L, block_exclusive, tile_id

L = SCAN_L             # invocations per workgroup (block_exclusive's 128)
IPT = 16               # elements per invocation
T = L * IPT            # elements per tile


HELPERS = (block_exclusive, tile_id)


@vp.kernel(local_size_x=L, helpers=HELPERS)
def count(mask: vp.Buffer[vp.uint32], counts: vp.Buffer[vp.uint32], n: vp.uint32,
          ntiles: vp.uint32, gx: vp.uint32):
    tot = vp.Shared[vp.uint32, L]
    lid = vp.local_index()
    t = tile_id(gx)
    base = min(t, ntiles - 1) * T
    c = vp.uint32(0)
    for k in vp.static(range(IPT)):
        i = base + k * L + lid
        if i < n:
            if mask[i] != 0:
                c += 1
    before = block_exclusive(tot, lid, c)
    if lid == L - 1 and t < ntiles:
        counts[t] = before + c


@vp.kernel(local_size_x=L, helpers=HELPERS)
def offsets(counts: vp.Buffer[vp.uint32], offs: vp.Buffer[vp.uint32], ntiles: vp.uint32,
            run: vp.uint32):
    """offs[t] = counts[0] + ... + counts[t - 1]; offs[ntiles] = the total.
    Invocation lid owns tiles [lid * run, (lid + 1) * run)."""
    tot = vp.Shared[vp.uint32, L]
    lid = vp.local_index()
    first = lid * run
    s = vp.uint32(0)
    for j in range(run):
        if first + j < ntiles:
            s += counts[first + j]
    acc = block_exclusive(tot, lid, s)
    for j in range(run):
        if first + j < ntiles:
            offs[first + j] = acc
            acc += counts[first + j]
    if lid == L - 1:
        offs[ntiles] = acc


@vp.kernel(local_size_x=L, helpers=HELPERS)
def scatter(mask: vp.Buffer[vp.uint32], x: vp.Buffer[vp.uint32],
            offs: vp.Buffer[vp.uint32], out: vp.Buffer[vp.uint32], n: vp.uint32,
            ntiles: vp.uint32, gx: vp.uint32, words: vp.uint32):
    """Invocation lid of tile t owns elements t * T + lid * IPT ... + IPT - 1:
    their flags (kept as bits), its rank (the tile's offset and the group's
    exclusive scan of the counts), then its selected elements to out in
    order (W = words 32-bit words each; words = 0: the elements' flat
    indices as int64, x unread: numpy.flatnonzero)."""
    tot = vp.Shared[vp.uint32, L]
    lid = vp.local_index()
    t = tile_id(gx)
    tc = min(t, ntiles - 1)
    first = tc * T + lid * IPT
    fl = vp.uint32(0)  # the IPT flags as bits
    c = vp.uint32(0)
    for q in vp.static(range(IPT)):
        if first + q < n:
            if mask[first + q] != 0:
                fl |= vp.uint32(1 << q)
                c += 1
    rank = offs[tc] + block_exclusive(tot, lid, c)
    for q in vp.static(range(IPT)):
        if (fl & vp.uint32(1 << q)) != 0 and t < ntiles:
            if words == 1:
                out[rank] = x[first + q]
            elif words == 0:
                out[2 * rank] = first + q
                out[2 * rank + 1] = vp.uint32(0)
            else:
                out[2 * rank] = x[2 * (first + q)]
                out[2 * rank + 1] = x[2 * (first + q) + 1]
            rank += 1
