"""The device kernels of vp.sort / argsort / searchsorted (issue 19), in
VulPy's own kernel language: the reduce-then-scan radix sort (every
device, and the fallback of _sort_onesweep.py; docs/python-api.md,
"Sorting"). SOURCE is one template per key word type (WORD: uint32 or
uint64, the elements' raw bits) and key kind (MODE: 0 unsigned, 1 signed,
2 IEEE float), made a namespace of kernels by kernels() (instantiate());
the workgroup scans and tile_id come from _kernel_helpers.py.

The radix sort is LSD with 8-bit digits over tiles of T keys (a row of
the array is split in tiles; a tile never crosses a row). One pass is
five to seven dispatches, recorded back to back with no host round
trip (every loop over a column is unrolled, its loads independent, so
no invocation waits on a chain of dependent loads):
  hist        per tile, the 256-bin histogram of its keys' digits (shared
              memory atomics into 8 copies), written tile-major:
              h[tile * 256 + digit]
  col_reduce  per chunk of CH = 32 tiles of a row, the sum of each
              digit's column -> part[chunk * 256 + digit]; again on part
              while a row has more than 32 chunks (2 levels at 2^26 keys)
  col_scan    per row (one workgroup, an invocation per digit): the
              exclusive scan of the top level's columns (at most 32
              entries), and the row's digit totals scanned across the
              digits: each entry becomes its absolute first output
              position per digit
  col_down    per chunk, level by level down: h[tile, d] becomes the
              absolute output position of the tile's first key of digit d
  scatter     per tile: sorts the tile by the digit in shared memory,
              stably, as two 4-bit splits (invocation i owns keys
              [i*IPT, (i+1)*IPT); each split counts per invocation and
              scans the 16 x L counts), then writes it out: the key at
              tile position p with digit d goes to h[tile, d] + p -
              (the tile's first position of d), so runs of a digit are
              written by neighbouring invocations (coalesced).
Every invocation loops at most a few hundred times (lavapipe ends loops
after 65,535 back-edges per invocation).

Keys: a key's digit is taken from an order-preserving unsigned image of
its raw bits (key(), below): NaNs last, -0.0 == +0.0 (NumPy's order),
while the keys moved are the original bits, in input order (stable).
"""

# The key image and the digit (shared with _sort_onesweep.py's kernels:
# the text is spliced into each template at @KEYS@, as the templates are
# instantiated per WORD / MODE by text substitution).
KEYS = r'''
def key(r: vp.@WORD@) -> vp.@WORD@:
    k = r
    if MODE == 1:
        k = r ^ vp.@WORD@(@TOP@)
    if MODE == 2:
        # branch-free (selects): every NaN -> ALL (after +inf), both zeros
        # -> TOP (equal, so the sort keeps their order), a negative number
        # -> its complement, a positive one -> its bits with TOP set
        a = r & vp.@WORD@(@ABSM@)
        neg = vp.@WORD@(0) - (r >> vp.@WORD@(@SIGN@))   # all ones where r < 0
        k = r ^ (neg | vp.@WORD@(@TOP@))
        k = vp.@WORD@(@TOP@) if a == vp.@WORD@(0) else k
        k = vp.@WORD@(@ALL@) if a > vp.@WORD@(@INF@) else k
    return k


def digit(r: vp.@WORD@, sh: vp.uint32) -> vp.uint32:
    # sh < the width (the mask says so: C's shift, not the guarded one)
    return vp.uint32((key(r) >> vp.@WORD@(sh & vp.uint32(@SIGN@))) & vp.@WORD@(255))
'''

SOURCE = r'''
import vulpy as vp

L = 128                  # invocations per workgroup of the tile kernels (block_exclusive's)
IPT = @IPT@              # keys per invocation
T = @T@                  # keys per tile (L * IPT)
R = 16                   # a 4-bit split inside the tile
B = 256                  # radix: 8-bit digits
CH = 32                  # entries per chunk of the column scans
HC = 8                   # copies of the histogram in hist
MODE = @MODE@


@KEYS@

def scan_counts(cnt, tot, lid: vp.uint32):
    # cnt holds each invocation's count per nibble, nibble-major
    # (cnt[d * L + i]); afterwards its exclusive prefix sum, so that
    # cnt[d * L + i] is invocation i's first position for nibble d
    vp.barrier()
    s = vp.uint32(0)
    for q in vp.static(range(R)):
        s += cnt[lid * R + q]
    run = block_exclusive(tot, lid, s)
    for q in vp.static(range(R)):
        v = cnt[lid * R + q]
        cnt[lid * R + q] = run
        run += v
    vp.barrier()


def tile_of(gx: vp.uint32, ntiles: vp.uint32) -> vp.uint32:
    return min(tile_id(gx), ntiles - 1)


@vp.kernel(local_size_x=L, helpers=HELPERS)
def hist(keys: vp.Buffer[vp.@WORD@], h: vp.Buffer[vp.uint32], n: vp.uint32, tpr: vp.uint32,
         ntiles: vp.uint32, gx: vp.uint32, sh: vp.uint32):
    # HC copies of the 256 counters, invocation i counting into copy
    # i % HC: keys with few distinct digits (the exponent byte of
    # floats, sorted input) then contend HC times less on one counter
    cnt = vp.Shared[vp.uint32, HC * B]
    lid = vp.local_index()
    ok = vp.workgroup_id(1) * gx + vp.workgroup_id(0) < ntiles
    t = tile_of(gx, ntiles)
    row = t // max(tpr, vp.uint32(1))   # nonzero: C's / (language.md)
    j = t - row * tpr
    base = row * n + j * T
    m = min(vp.uint32(T), n - j * T)
    for z in vp.static(range(HC * B // L)):
        cnt[vp.uint32(z * L) + lid] = vp.uint32(0)
    vp.barrier()
    copy = (lid % HC) * B
    for q in range(vp.uint32(IPT)):
        e = q * L + lid
        if e < m:
            vp.atomic_add(cnt, copy + digit(keys[base + e], sh), vp.uint32(1))
    vp.barrier()
    for z in vp.static(range(2)):
        d = vp.uint32(z * L) + lid
        s = vp.uint32(0)
        for u in vp.static(range(HC)):
            s += cnt[vp.uint32(u * B) + d]
        if ok:
            h[t * B + d] = s


@vp.kernel(local_size_x=B)
def col_reduce(src: vp.Buffer[vp.uint32], dst: vp.Buffer[vp.uint32], slen: vp.uint32,
               dlen: vp.uint32, count: vp.uint32, gx: vp.uint32):
    # dst[row, k, d] = the sum of src[row, k*CH .. k*CH+CH-1, d] (rows of
    # slen and dlen entries of 256 digits); the loads are unrolled and
    # independent, so they are in flight together
    d = vp.local_index()
    c = vp.workgroup_id(1) * gx + vp.workgroup_id(0)
    if c < count:
        row = c // max(dlen, vp.uint32(1))
        k = c - row * dlen
        first = row * slen + k * CH
        s = vp.uint32(0)
        for q in vp.static(range(CH)):
            if k * CH + q < slen:
                s += src[(first + q) * B + d]
        dst[c * B + d] = s


@vp.kernel(local_size_x=B)
def col_down(src: vp.Buffer[vp.uint32], dst: vp.Buffer[vp.uint32], slen: vp.uint32,
             dlen: vp.uint32, count: vp.uint32, gx: vp.uint32):
    # src[row, k*CH + q, d] becomes dst[row, k, d] (the chunk's first
    # position) plus the sum of src[row, k*CH .. k*CH+q-1, d]
    d = vp.local_index()
    c = vp.workgroup_id(1) * gx + vp.workgroup_id(0)
    v = vp.Local[vp.uint32, CH]
    if c < count:
        row = c // max(dlen, vp.uint32(1))
        k = c - row * dlen
        first = row * slen + k * CH
        for q in vp.static(range(CH)):
            if k * CH + q < slen:
                v[q] = src[(first + q) * B + d]
        run = dst[c * B + d]
        for q in vp.static(range(CH)):
            if k * CH + q < slen:
                src[(first + q) * B + d] = run
                run += v[q]


@vp.kernel(local_size_x=B, helpers=HELPERS)
def col_scan(top: vp.Buffer[vp.uint32], n: vp.uint32, tlen: vp.uint32, rows: vp.uint32,
             gx: vp.uint32):
    # per row (tlen <= CH entries of 256 digits): each entry becomes its
    # absolute first output position per digit: row * n, plus the row's
    # keys of smaller digits, plus the digit's count in earlier entries
    tot = vp.Shared[vp.uint32, B]
    d = vp.local_index()
    ok = vp.workgroup_id(1) * gx + vp.workgroup_id(0) < rows
    row = min(vp.workgroup_id(1) * gx + vp.workgroup_id(0), rows - 1)
    first = row * tlen
    v = vp.Local[vp.uint32, CH]
    for q in vp.static(range(CH)):
        if q < tlen:
            v[q] = top[(first + q) * B + d]
    run = vp.uint32(0)
    for q in vp.static(range(CH)):
        if q < tlen:
            w = v[q]
            v[q] = run
            run += w
    add = row * n + digits_exclusive(tot, d, run)
    for q in vp.static(range(CH)):
        if q < tlen and ok:
            top[(first + q) * B + d] = v[q] + add


def sp(i: vp.uint32) -> vp.uint32:
    # a tile position's slot in shared memory: one pad word per 32, so
    # that invocation i reading position i * IPT + q (blocked) and reading
    # q * L + i (striped) both hit 32 different banks
    return i + (i >> vp.uint32(5))


@vp.kernel(local_size_x=L, helpers=HELPERS)
def scatter(kin: vp.Buffer[vp.@WORD@], kout: vp.Buffer[vp.@WORD@], vin: vp.Buffer[vp.uint32],
            vout: vp.Buffer[vp.uint32], h: vp.Buffer[vp.uint32], n: vp.uint32,
            tpr: vp.uint32, ntiles: vp.uint32, gx: vp.uint32, sh: vp.uint32,
            vals: vp.uint32, first: vp.uint32):
    cnt = vp.Shared[vp.uint32, R * L]
    tot = vp.Shared[vp.uint32, L]
    start = vp.Shared[vp.uint32, B]
    goff = vp.Shared[vp.uint32, B]
    sk = vp.Shared[vp.@WORD@, T + T // 32]
    sv = vp.Shared[vp.uint32, T + T // 32]
    lid = vp.local_index()
    ok = vp.workgroup_id(1) * gx + vp.workgroup_id(0) < ntiles
    t = tile_of(gx, ntiles)
    row = t // max(tpr, vp.uint32(1))   # nonzero: C's / (language.md)
    j = t - row * tpr
    base = row * n + j * T
    m = min(vp.uint32(T), n - j * T)
    if not ok:
        m = vp.uint32(0)
    goff[lid] = h[t * B + lid]
    goff[lid + L] = h[t * B + lid + L]
    kk = vp.Local[vp.@WORD@, IPT]
    vv = vp.Local[vp.uint32, IPT]
    c = vp.Local[vp.uint32, R]
    # the tile into shared memory (coalesced loads), then each invocation's
    # IPT consecutive keys into registers (loops over q are unrolled, so
    # kk[q] and vv[q] are registers)
    for q in range(vp.uint32(IPT)):
        p = q * L + lid
        if p < m:
            sk[sp(p)] = kin[base + p]
            if vals != 0:
                if first != 0:
                    sv[sp(p)] = j * T + p
                else:
                    sv[sp(p)] = vin[base + p]
    vp.barrier()
    own = lid * IPT
    for q in range(vp.uint32(IPT)):
        if own + q < m:
            kk[q] = sk[sp(own + q)]
            if vals != 0:
                vv[q] = sv[sp(own + q)]
    # two stable 4-bit splits of the tile: by the digit's low nibble, then
    # by its high nibble
    for half in vp.static(range(2)):
        for z in vp.static(range(R)):
            c[z] = vp.uint32(0)
        for q in range(vp.uint32(IPT)):
            if own + q < m:
                c[(digit(kk[q], sh) >> vp.uint32(4 * half)) & vp.uint32(15)] += 1
        for z in vp.static(range(R)):
            cnt[z * L + lid] = c[z]
        scan_counts(cnt, tot, lid)   # (its barriers also end the reads of sk above)
        for z in vp.static(range(R)):
            c[z] = cnt[z * L + lid]
        for q in range(vp.uint32(IPT)):
            if own + q < m:
                x = kk[q]
                d = (digit(x, sh) >> vp.uint32(4 * half)) & vp.uint32(15)
                p = c[d]
                c[d] = p + 1
                sk[sp(p)] = x
                if vals != 0:
                    sv[sp(p)] = vv[q]
        vp.barrier()
        if half == 0:
            for q in range(vp.uint32(IPT)):
                if own + q < m:
                    kk[q] = sk[sp(own + q)]
                    if vals != 0:
                        vv[q] = sv[sp(own + q)]
            vp.barrier()
    # the tile's first position of each digit present: where the digit
    # changes in the sorted tile
    for q in range(vp.uint32(IPT)):
        p = q * L + lid
        if p < m:
            d = digit(sk[sp(p)], sh)
            if p == 0:
                start[d] = p
            elif digit(sk[sp(p - 1)], sh) != d:
                start[d] = p
    vp.barrier()
    for q in range(vp.uint32(IPT)):
        p = q * L + lid
        if p < m:
            x = sk[sp(p)]
            d = digit(x, sh)
            o = goff[d] + p - start[d]
            kout[o] = x
            if vals != 0:
                vout[o] = sv[sp(p)]


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

# the key images' constants per key word (KEYS)
WORDS = {
    "uint32": dict(TOP="0x80000000", ABSM="0x7FFFFFFF", INF="0x7F800000", ALL="0xFFFFFFFF",
                   SIGN="31"),
    "uint64": dict(TOP="0x8000000000000000", ABSM="0x7FFFFFFFFFFFFFFF",
                   INF="0x7FF0000000000000", ALL="0xFFFFFFFFFFFFFFFF", SIGN="63"),
}
_NS = {}


def instantiate(template, subst, tag, env=None):
    """Execs `template` with KEYS spliced in and every @NAME@ of `subst`
    (plus WORDS[subst["WORD"]]) replaced, in a namespace holding `env`;
    returns the namespace. The text is registered in linecache under
    <vulpy-TAG> (VulPy compiles kernels from their source), so each kernel
    compiles once per instantiation and is then cached like any @vp.kernel
    (memory and disk)."""
    import linecache
    subst = dict(WORDS[subst["WORD"]], **subst)
    src = template.replace("@KEYS@", KEYS)
    for k, v in subst.items():
        src = src.replace(f"@{k}@", str(v))
    name = f"<vulpy-{tag}>"
    linecache.cache[name] = (len(src), None, src.splitlines(True), name)
    # the module name must not start with "vulpy.": helpers are read
    ns = dict(env or {}, __name__="_vulpy_" + tag.replace("-", "_"))
    exec(compile(src, name, "exec"), ns)
    return ns


def kernels(word, mode):
    """The namespace holding the kernels for keys of `word` ('uint32' or
    'uint64') and kind `mode` (0 unsigned, 1 signed, 2 float)."""
    ns = _NS.get((word, mode))
    if ns is None:
        from . import _kernel_helpers as H  # a kernel program: at first use
        ipt = 16 if word == "uint32" else 8
        helpers = (H.block_exclusive, H.digits_exclusive, H.tile_id)
        ns = instantiate(SOURCE, dict(WORD=word, MODE=mode, IPT=ipt, T=128 * ipt),
                         f"sort-{word}-{mode}",
                         dict({f.__name__: f for f in helpers}, HELPERS=helpers))
        _NS[(word, mode)] = ns
    return ns
