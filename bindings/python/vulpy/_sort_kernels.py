"""The device kernels of vp.sort / argsort / searchsorted (issue 19), in
VulPy's own kernel language.

SOURCE is one template, instantiated per key word type (WORD: uint32 or
uint64, the raw bits of the elements) and key kind (MODE: 0 unsigned, 1
signed, 2 IEEE float); kernels() execs it once per (WORD, MODE) with the
text registered in linecache (VulPy compiles kernels from their source),
so each kernel compiles once per dtype and is then cached like any
@vp.kernel (memory and disk).

The radix sort is LSD with 4-bit digits over tiles of T keys; one pass
is five dispatches, recorded back to back with no host round trip:
  hist        per tile, a 16-bin histogram (per-invocation counters,
              summed through shared memory), written digit-major:
              h[(row * 16 + digit) * tiles_per_row + tile]
  scan_reduce / scan_top / scan_down
              the exclusive prefix sum of h (reduce-then-scan); with the
              digit-major layout the scanned h[row, d, tile] is the
              absolute output position of the tile's first key of digit d
  scatter     per tile: ranks every key stably (invocation i owns keys
              [i*IPT, (i+1)*IPT) of the tile; a scan of the 16 x L counts
              in shared memory), reorders the tile in shared memory, then
              writes it out in runs per digit (coalesced).
Every invocation loops at most a few hundred times (lavapipe ends loops
after 65,535 back-edges per invocation).

Keys are the elements' raw bits; the digit of a key is taken from an
order-preserving unsigned image of it (key()): unsigned as is, signed
with the top bit flipped, floats with the sign bit flipped (positive) or
all bits flipped (negative), every NaN mapped to the largest image and
-0.0 to the image of +0.0. So NaNs sort last and -0.0 / +0.0 compare
equal (NumPy's order), while the keys moved are the original bits: a NaN
keeps its payload and a -0.0 its sign, in input order (the sort is
stable), as NumPy's stable sort leaves them.
"""

SOURCE = r'''
import vulpy as vp

L = 128                  # invocations per workgroup of the tile kernels
IPT = @IPT@              # keys per invocation
T = @T@                  # keys per tile (L * IPT)
R = 16                   # radix: 4-bit digits
SL = 256                 # invocations per workgroup of the scan kernels
SB = 4096                # entries per scan block (SL * 16)
MODE = @MODE@


def key(r: vp.@WORD@) -> vp.@WORD@:
    k = r
    if MODE == 1:
        k = r ^ vp.@WORD@(@TOP@)
    if MODE == 2:
        a = r & vp.@WORD@(@ABSM@)
        if a > vp.@WORD@(@INF@):
            k = vp.@WORD@(@ALL@)
        elif a == vp.@WORD@(0):
            k = vp.@WORD@(@TOP@)
        elif (r & vp.@WORD@(@TOP@)) != vp.@WORD@(0):
            k = r ^ vp.@WORD@(@ALL@)
        else:
            k = r | vp.@WORD@(@TOP@)
    return k


def digit(r: vp.@WORD@, sh: vp.uint32) -> vp.uint32:
    return vp.uint32((key(r) >> vp.@WORD@(sh)) & vp.@WORD@(15))


@vp.kernel(local_size_x=L)
def hist(keys: vp.Buffer[vp.@WORD@], h: vp.Buffer[vp.uint32], n: vp.uint32, tpr: vp.uint32,
         ntiles: vp.uint32, gx: vp.uint32, sh: vp.uint32):
    cnt = vp.Shared[vp.uint32, R * L]
    lid = vp.local_index()
    t = vp.workgroup_id(1) * gx + vp.workgroup_id(0)
    ok = t < ntiles
    t = min(t, ntiles - 1)
    row = t // tpr
    j = t - row * tpr
    base = row * n + j * T
    m = min(vp.uint32(T), n - j * T)
    if not ok:
        m = vp.uint32(0)
    c = vp.Local[vp.uint32, R]
    for q in range(vp.uint32(IPT)):
        e = q * L + lid
        if e < m:
            c[digit(keys[base + e], sh)] += 1
    for d in vp.static(range(R)):
        cnt[d * L + lid] = c[d]
    vp.barrier()
    if lid < R and ok:
        s = vp.uint32(0)
        for u in range(vp.uint32(L)):
            s += cnt[lid * L + u]
        h[(row * R + lid) * tpr + j] = s


@vp.kernel(local_size_x=SL)
def scan_reduce(h: vp.Buffer[vp.uint32], sums: vp.Buffer[vp.uint32], total: vp.uint32,
                nb: vp.uint32, gx: vp.uint32):
    red = vp.Shared[vp.uint32, SL]
    lid = vp.local_index()
    b = vp.workgroup_id(1) * gx + vp.workgroup_id(0)
    s = vp.uint32(0)
    for q in range(vp.uint32(16)):
        e = b * SB + q * SL + lid
        if e < total:
            s += h[e]
    red[lid] = s
    vp.barrier()
    for k in vp.static(range(8)):
        w = vp.uint32(128 >> k)
        if lid < w:
            red[lid] = red[lid] + red[lid + w]
        vp.barrier()
    if lid == 0 and b < nb:
        sums[b] = red[0]


def block_exclusive(tot, lid: vp.uint32, s: vp.uint32) -> vp.uint32:
    # tot[lid] = s on entry (every invocation of the SL-wide group);
    # returns the sum of tot[0 .. lid) (Hillis-Steele, barriers included)
    tot[lid] = s
    vp.barrier()
    for k in vp.static(range(8)):
        w = vp.uint32(1 << k)
        v = tot[lid]
        if lid >= w:
            v += tot[lid - w]
        vp.barrier()
        tot[lid] = v
        vp.barrier()
    return tot[lid] - s


@vp.kernel(local_size_x=SL)
def scan_top(sums: vp.Buffer[vp.uint32], nb: vp.uint32, per: vp.uint32):
    tot = vp.Shared[vp.uint32, SL]
    lid = vp.local_index()
    s = vp.uint32(0)
    for q in range(per):
        e = lid * per + q
        if e < nb:
            s += sums[e]
    run = block_exclusive(tot, lid, s)
    for q in range(per):
        e = lid * per + q
        if e < nb:
            v = sums[e]
            sums[e] = run
            run += v


@vp.kernel(local_size_x=SL)
def scan_down(h: vp.Buffer[vp.uint32], sums: vp.Buffer[vp.uint32], total: vp.uint32,
              gx: vp.uint32):
    tot = vp.Shared[vp.uint32, SL]
    lid = vp.local_index()
    b = vp.workgroup_id(1) * gx + vp.workgroup_id(0)
    first = b * SB + lid * 16
    s = vp.uint32(0)
    for q in range(vp.uint32(16)):
        if first + q < total:
            s += h[first + q]
    run = block_exclusive(tot, lid, s) + sums[min(b, (total - 1) // SB)]
    for q in range(vp.uint32(16)):
        if first + q < total:
            v = h[first + q]
            h[first + q] = run
            run += v


def scan_counts(cnt, tot, start, lid: vp.uint32):
    # cnt holds each invocation's count per digit, digit-major
    # (cnt[d * L + i]); afterwards its exclusive prefix sum, so that
    # cnt[d * L + i] is invocation i's first position for digit d in the
    # tile, and start[d] the tile's first position of digit d
    vp.barrier()
    s = vp.uint32(0)
    for q in vp.static(range(R)):
        s += cnt[lid * R + q]
    tot[lid] = s
    vp.barrier()
    for k in vp.static(range(7)):
        w = vp.uint32(1 << k)
        v = tot[lid]
        if lid >= w:
            v += tot[lid - w]
        vp.barrier()
        tot[lid] = v
        vp.barrier()
    run = tot[lid] - s
    for q in vp.static(range(R)):
        v = cnt[lid * R + q]
        cnt[lid * R + q] = run
        run += v
    vp.barrier()
    if lid < R:
        start[lid] = cnt[lid * L]


@vp.kernel(local_size_x=L)
def scatter(kin: vp.Buffer[vp.@WORD@], kout: vp.Buffer[vp.@WORD@], h: vp.Buffer[vp.uint32],
            n: vp.uint32, tpr: vp.uint32, ntiles: vp.uint32, gx: vp.uint32, sh: vp.uint32):
    cnt = vp.Shared[vp.uint32, R * L]
    tot = vp.Shared[vp.uint32, L]
    start = vp.Shared[vp.uint32, R]
    goff = vp.Shared[vp.uint32, R]
    sk = vp.Shared[vp.@WORD@, T]
    lid = vp.local_index()
    t = vp.workgroup_id(1) * gx + vp.workgroup_id(0)
    ok = t < ntiles
    t = min(t, ntiles - 1)
    row = t // tpr
    j = t - row * tpr
    base = row * n + j * T
    m = min(vp.uint32(T), n - j * T)
    if not ok:
        m = vp.uint32(0)
    kk = vp.Local[vp.@WORD@, IPT]
    c = vp.Local[vp.uint32, R]
    for q in range(vp.uint32(IPT)):
        e = lid * IPT + q
        if e < m:
            x = kin[base + e]
            kk[q] = x
            c[digit(x, sh)] += 1
    if lid < R:
        goff[lid] = h[(row * R + lid) * tpr + j]
    for d in vp.static(range(R)):
        cnt[d * L + lid] = c[d]
    scan_counts(cnt, tot, start, lid)
    for d in vp.static(range(R)):
        c[d] = cnt[d * L + lid]
    for q in range(vp.uint32(IPT)):
        e = lid * IPT + q
        if e < m:
            x = kk[q]
            d = digit(x, sh)
            p = c[d]
            c[d] = p + 1
            sk[p] = x
    vp.barrier()
    for q in range(vp.uint32(IPT)):
        p = q * L + lid
        if p < m:
            x = sk[p]
            d = digit(x, sh)
            kout[goff[d] + p - start[d]] = x


@vp.kernel(local_size_x=L)
def scatter_kv(kin: vp.Buffer[vp.@WORD@], kout: vp.Buffer[vp.@WORD@], vin: vp.Buffer[vp.uint32],
               vout: vp.Buffer[vp.uint32], h: vp.Buffer[vp.uint32], n: vp.uint32,
               tpr: vp.uint32, ntiles: vp.uint32, gx: vp.uint32, sh: vp.uint32,
               first: vp.uint32):
    cnt = vp.Shared[vp.uint32, R * L]
    tot = vp.Shared[vp.uint32, L]
    start = vp.Shared[vp.uint32, R]
    goff = vp.Shared[vp.uint32, R]
    sk = vp.Shared[vp.@WORD@, T]
    sv = vp.Shared[vp.uint32, T]
    lid = vp.local_index()
    t = vp.workgroup_id(1) * gx + vp.workgroup_id(0)
    ok = t < ntiles
    t = min(t, ntiles - 1)
    row = t // tpr
    j = t - row * tpr
    base = row * n + j * T
    m = min(vp.uint32(T), n - j * T)
    if not ok:
        m = vp.uint32(0)
    kk = vp.Local[vp.@WORD@, IPT]
    vv = vp.Local[vp.uint32, IPT]
    c = vp.Local[vp.uint32, R]
    for q in range(vp.uint32(IPT)):
        e = lid * IPT + q
        if e < m:
            x = kin[base + e]
            kk[q] = x
            if first != 0:
                vv[q] = j * T + e
            else:
                vv[q] = vin[base + e]
            c[digit(x, sh)] += 1
    if lid < R:
        goff[lid] = h[(row * R + lid) * tpr + j]
    for d in vp.static(range(R)):
        cnt[d * L + lid] = c[d]
    scan_counts(cnt, tot, start, lid)
    for d in vp.static(range(R)):
        c[d] = cnt[d * L + lid]
    for q in range(vp.uint32(IPT)):
        e = lid * IPT + q
        if e < m:
            x = kk[q]
            d = digit(x, sh)
            p = c[d]
            c[d] = p + 1
            sk[p] = x
            sv[p] = vv[q]
    vp.barrier()
    for q in range(vp.uint32(IPT)):
        p = q * L + lid
        if p < m:
            x = sk[p]
            d = digit(x, sh)
            o = goff[d] + p - start[d]
            kout[o] = x
            vout[o] = sv[p]


@vp.kernel(local_size_x=64)
def search(a: vp.Buffer[vp.@WORD@], v: vp.Buffer[vp.@WORD@], out: vp.Buffer[vp.int64],
           n: vp.uint32, nv: vp.uint32, right: vp.uint32, gx: vp.uint32):
    i = (vp.workgroup_id(1) * gx + vp.workgroup_id(0)) * 64 + vp.local_index()
    if i < nv:
        x = key(v[i])
        lo = vp.uint32(0)
        hi = n
        for it in range(vp.uint32(33)):
            if lo < hi:
                mid = lo + (hi - lo) // 2
                y = key(a[mid])
                if y < x or (right != 0 and y == x):
                    lo = mid + 1
                else:
                    hi = mid
        out[i] = vp.int64(lo)
'''

_CONST = {
    "uint32": dict(TOP="0x80000000", ABSM="0x7FFFFFFF", INF="0x7F800000", ALL="0xFFFFFFFF",
                   IPT="16"),
    "uint64": dict(TOP="0x8000000000000000", ABSM="0x7FFFFFFFFFFFFFFF",
                   INF="0x7FF0000000000000", ALL="0xFFFFFFFFFFFFFFFF", IPT="8"),
}
_NS = {}


def kernels(word, mode):
    """The namespace holding the kernels for keys of `word` ('uint32' or
    'uint64') and kind `mode` (0 unsigned, 1 signed, 2 float)."""
    import linecache
    ns = _NS.get((word, mode))
    if ns is None:
        subst = dict(_CONST[word], WORD=word, MODE=str(mode))
        subst["T"] = str(128 * int(subst["IPT"]))
        src = SOURCE
        for k, v in subst.items():
            src = src.replace(f"@{k}@", v)
        name = f"<vulpy-sort-{word}-{mode}>"
        linecache.cache[name] = (len(src), None, src.splitlines(True), name)
        ns = {"__name__": f"_vulpy_sort_{word}_{mode}"}  # not "vulpy.": helpers are read
        exec(compile(src, name, "exec"), ns)
        _NS[(word, mode)] = ns
    return ns
