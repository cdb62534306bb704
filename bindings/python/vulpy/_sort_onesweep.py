"""The onesweep radix sort (issue 19): the fast path of vp.sort / argsort
on GPUs that give workgroups forward progress (NVIDIA, AMD, Intel):
Adinets & Merrill's onesweep (arXiv 2206.01784, CUB's DeviceRadixSort),
in VulPy's own kernel language. docs/python-api.md ("Sorting") and
bench/notes/sort.md say what it costs against the reduce-then-scan sort of
_sort_kernels.py, and how its kernels keep a GPU busy:

  ohist     one read of the keys: all P digit histograms of a row at once
            (shared-memory atomics, HCO copies; then global atomics)
            -> gh[row, pass, digit]
  oscan     per (row, pass): gh becomes the exclusive scan over digits
  onesweep  per pass, one dispatch: a workgroup takes the next tile id
            from an atomic counter, ranks its T = L * IPT keys by digit
            with subgroup ballots, looks back over the tiles before it
            (decoupled look-back: a status word per tile and digit, flag in
            the top 2 bits, count in the low 30) for its exclusive prefix,
            publishes the inclusive one, sorts the tile in shared memory
            and writes it out in runs of a digit.

Stability: a tile's keys are ranked in position order (subgroup w, round
q, lane l holds tile position w*SG*IPT + q*SG + l), tiles in id order
within a row. The look-back spins on another workgroup's status word,
which Vulkan does not promise ends (lavapipe ends any loop after 65,535
back-edges): the spin is bounded, a workgroup that gives up (or finds a
subgroup size other than SG, the one the kernels are built for) says so
in a host-memory word, and the host then runs the reduce-then-scan sort
(right either way). Same key images as _sort_kernels.py (its KEYS text).
Variants (VARIANTS, VULPY_ONESWEEP) are switches of the one template,
same results.
"""
import os

from . import _sort_kernels

SOURCE = r'''
import vulpy as vp

L = @L@                  # invocations per workgroup
SG = @SG@                # subgroup size (the ballots use the first word)
W = L // SG              # subgroups per workgroup
IPT = @IPT@              # keys per invocation
T = L * IPT              # keys per tile
B = 256                  # radix: 8-bit digits
P = @P@                  # passes
DPI = B // L             # digits per invocation (L <= 256)
HCO = @HCO@              # copies of the histograms in ohist
HT = @HT@                # tiles per ohist workgroup
SPIN = @SPIN@            # look-back reads before a workgroup gives up
GH = @GH@                # the state buffer: the passes' tile counters in words
                         # 0 .. P-1, gh from word GH, the status words st from sto
MASK = 0x3FFFFFFF        # a status word's count
AGG = 0x40000000         # ... flag: the tile's own count
INC = 0x80000000         # ... flag: the count of the row up to this tile
MODE = @MODE@
VALS = @VALS@
PUBLISH = @PUBLISH@      # 0 (tests only): no inclusive prefixes but a row's first
                         # tile's, so every look-back walks the AGG chain to it
LB = @LB@                # status words a look-back step reads at once
BT = @BT@                # 1: the ranking's bit tests as ballot predicates and selects
W1 = @W1@                # 1: while the nearest word is unpublished, spin on it alone
LBF = @LBF@              # 1: a look-back step's words added without branches, from
                         # its first unpublished and first INC word; 0: one by one
SCAN = @SCAN@            # 1: one owner per digit from the counts to the look-back
SHAREV = @SHAREV@        # 1: the payload through the keys' shared array (32-bit keys)
DEFER = @DEFER@          # 1: the ranking's shuffles after all its shared atomics
KSH = @KSH@              # 1: the loaded keys wait in shared memory, not registers
AOR = @AOR@              # 1: a round's peers by atomic xors into a shared word per
                         # digit between two subgroup barriers, not 8 ballots

@KEYS@

def popc(x: vp.uint32) -> vp.uint32:
    # the number of set bits: one instruction on GPUs (OpBitCount, POPC)
    return vp.bit_count(x)


# onesweep's steps that its variants share (each written once here; the
# switches below only choose the order and the owner of the work)
def digit_count(whist, d: vp.uint32) -> vp.uint32:
    # the tile's count of digit d; the subgroups' counts of it (whist, W
    # rows of B) become their first ranks among the tile's keys of d
    run = vp.uint32(0)
    for u in vp.static(range(W)):
        c = whist[vp.uint32(u * B) + d]
        whist[vp.uint32(u * B) + d] = run
        run += c
    return run


def publish(st, at: vp.uint32, j: vp.uint32, run: vp.uint32):
    # a tile's status word: its own count (AGG), or the row's count up to
    # it (INC) for a row's first tile (j == 0), which has nothing before it
    flag = vp.uint32(AGG)
    if j == vp.uint32(0):
        flag = vp.uint32(INC)
    vp.atomic_store(st, at, flag | run)


def invocations_before(wt, s: vp.uint32) -> vp.uint32:
    # the sum of s over the workgroup's invocations before this one (in
    # subgroup order): subgroup scans, then the subgroups' totals via wt
    w = vp.subgroup_id()@MK_W@   # (masked: see onesweep)
    ex = vp.subgroup_exclusive_add(s)
    tot = vp.subgroup_add(s)
    if vp.subgroup_lane() == vp.uint32(0):
        wt[w] = tot
    vp.barrier()
    for u in vp.static(range(W)):
        if vp.uint32(u) < w:
            ex += wt[u]
    return ex


def tile_place(tstart, whist, wb: vp.uint32, r: vp.uint32) -> vp.uint32:
    # a key's place in the tile sorted by digit, from its ranking r (rank
    # in the subgroup << 8 | digit) and wb, its subgroup's row of whist
    d = r & vp.uint32(255)
    return tstart[d] + whist[wb + d] + (r >> vp.uint32(8))


def write_out(kout, sk, add, p: vp.uint32, sh: vp.uint32) -> vp.uint32:
    # the key at sorted tile position p to its place in the output (which
    # it returns: the payload goes to the same place)
    x = sk[p]
    o = add[digit(x, sh)] + p
    kout[o] = x
    return o


@vp.kernel(local_size_x=B, helpers=HELPERS, dispatch_guard=False)
def oscan(gh: vp.Buffer[vp.uint32], count: vp.uint32, gx: vp.uint32):
    # per (row, pass): the exclusive scan of the 256 digit counts
    tot = vp.Shared[vp.uint32, B]
    d = vp.local_index()@MK_B@   # (masked: no shared clamps)
    ok = vp.workgroup_id(1) * gx + vp.workgroup_id(0) < count
    c = min(vp.workgroup_id(1) * gx + vp.workgroup_id(0), count - 1)
    ex = digits_exclusive(tot, d, gh[GH + c * B + d])
    if ok:
        gh[GH + c * B + d] = ex

@vp.kernel(local_size_x=L, dispatch_guard=False)
def ohist(keys: vp.Buffer[vp.@WORD@], gh: vp.Buffer[vp.uint32], n: vp.uint32, cpr: vp.uint32,
          nchunks: vp.uint32, gx: vp.uint32, tpr: vp.uint32, ntiles: vp.uint32, sto: vp.uint32):
    # every pass's digit histogram of a chunk of HT tiles in one read of
    # its keys; invocation i counts into copy i % HCO; then one global
    # atomic per bin and chunk (not per tile). gh is the state buffer (sb):
    # the chunk's tiles' status words of every pass are zeroed here, not
    # by a fill of their own (the stores drain while the atomics count)
    cnt = vp.Shared[vp.uint32, HCO * P * B]
    lid = vp.local_index()@MK_L@   # (masked: no shared clamps)
    ok = vp.workgroup_id(1) * gx + vp.workgroup_id(0) < nchunks
    c = min(vp.workgroup_id(1) * gx + vp.workgroup_id(0), nchunks - 1)
    row = c // max(cpr, vp.uint32(1))
    j = c - row * cpr
    base = row * n + j * (HT * T)
    m = min(vp.uint32(HT * T), n - j * (HT * T))   # >= 1
    for z in vp.static(range(HCO * P * B // L)):
        cnt[vp.uint32(z * L) + lid] = vp.uint32(0)
    vp.barrier()
    copy = (lid % HCO) * (P * B)
    kk = vp.Local[vp.@WORD@, IPT]
    for h in range(vp.uint32(HT)):
        first = h * T
        if first < m:
            t = row * tpr + j * vp.uint32(HT) + h
            for pp in vp.static(range(P)):
                for z in vp.static(range(B // L)):
                    gh[sto + (vp.uint32(pp) * ntiles + t) * B + vp.uint32(z * L) + lid] = \
                        vp.uint32(0)
            # the tile's loads first, all in flight together (no branch,
            # no atomic between them), then the counting
            for q in vp.static(range(IPT)):
                kk[q] = keys[base + min(first + vp.uint32(q * L) + lid, m - 1)]
            for q in vp.static(range(IPT)):
                if first + vp.uint32(q * L) + lid < m:
                    k = key(kk[q])
                    for pp in vp.static(range(P)):
                        d = vp.uint32((k >> vp.@WORD@(8 * pp)) & vp.@WORD@(255))
                        vp.atomic_add(cnt, copy + vp.uint32(pp * B) + d, vp.uint32(1))
    vp.barrier()
    for z in vp.static(range(P * B // L)):
        i = vp.uint32(z * L) + lid
        s = vp.uint32(0)
        for u in vp.static(range(HCO)):
            s += cnt[vp.uint32(u * P * B) + i]
        if ok and s != 0:
            vp.atomic_add(gh, GH + row * (P * B) + i, s)


@vp.kernel(local_size_x=L, dispatch_guard=@GUARD@)
def onesweep(kin: vp.Buffer[vp.@WORD@], kout: vp.Buffer[vp.@WORD@], vin: vp.Buffer[vp.uint32],
             vout: vp.Buffer[vp.@VOUT@], sb: vp.Buffer[vp.uint32], gave: vp.Buffer[vp.uint32],
             n: vp.uint32,
             tpr: vp.uint32, ntiles: vp.uint32, pas: vp.uint32, sh: vp.uint32, first: vp.uint32,
             sto: vp.uint32):
    # sb: the state (GH above); the status word of tile t's digit d in pass
    # pas is sb[sto + (pas * ntiles + t) * B + d]. A workgroup that gives
    # up sets gave[0] (host memory, zeroed by the host: no copy back)
    whist = vp.Shared[vp.uint32, W * B]   # per subgroup: digit counts, then first ranks
    tstart = vp.Shared[vp.uint32, B]      # the tile's first position of each digit
    add = vp.Shared[vp.uint32, B]         # output position of a key = add[d] + its tile position
    wt = vp.Shared[vp.uint32, W]
    tix = vp.Shared[vp.uint32, 1]
    sk = vp.Shared[vp.@WORD@, T]
    sv = vp.Shared[vp.uint32, @SVLEN@]
    ski = vp.Shared[vp.@WORD@, @SKILEN@]  # KSH: the tile as loaded, then its payload
    wmk = vp.Shared[vp.uint32, @WMKLEN@]  # AOR: per subgroup and digit, the lanes' bits
                                          # (in sk where it is 32-bit and holds them:
                                          # 48 KiB of shared memory is NVIDIA's limit)
    # masked: the kernel is built for L invocations in subgroups of SG (a
    # device with other subgroups gives up below), so the masks change
    # nothing but tell clamp-shared that the shared indexes are in range
    lid = vp.local_index()@MK_L@
    w = vp.subgroup_id()@MK_W@
    lane = vp.subgroup_lane()@MK_SG@
    if lid == 0:
        tix[0] = vp.atomic_add(sb, pas, vp.uint32(1))
        if vp.subgroup_size() != vp.uint32(SG):  # built for SG lanes: the host sorts again
            gave[0] = vp.uint32(1)
    for z in vp.static(range(W * B // L)):
        whist[vp.uint32(z * L) + lid] = vp.uint32(0)
    vp.barrier()
    t0 = tix[0]
    ok = t0 < ntiles
    t = min(t0, ntiles - 1)
    row = t // max(tpr, vp.uint32(1))   # nonzero: C's / (language.md)
    j = t - row * tpr
    base = row * n + j * T
    m = min(vp.uint32(T), n - j * T)
    if not ok:
        m = vp.uint32(0)
    if vp.subgroup_size() != vp.uint32(SG):
        # built for SG lanes: the ranks would be wrong and a key's place
        # could fall outside its row, so no key is ranked or written (the
        # tile publishes zero counts, so the look-backs after it finish;
        # gave[0], set above, makes the host sort again)
        m = vp.uint32(0)
    last = max(m, vp.uint32(1)) - vp.uint32(1)   # loads past the tile read its last key
    lt = (vp.uint32(1) << lane) - vp.uint32(1)
    wb = w * B
    mine0 = w * vp.uint32(SG * IPT) + lane       # round q: tile position mine0 + q * SG
    kk = vp.Local[vp.@WORD@, IPT]
    rk = vp.Local[vp.uint32, IPT]   # rank in the subgroup << 8 | digit
    olds = vp.Local[vp.uint32, IPT]   # DEFER: each round's count before it
    vv = vp.Local[vp.uint32, @VVLEN@]
    # the keys first: IPT independent loads, no branch and no atomic between
    # them, so they are all in flight at once (KSH: into shared memory, not
    # registers: each lane reads back only what it wrote, so no barrier)
    for q in vp.static(range(IPT)):
        if KSH == 0:
            kk[q] = kin[base + min(mine0 + vp.uint32(q * SG), last)]
        else:
            ski[mine0 + vp.uint32(q * SG)] = kin[base + min(mine0 + vp.uint32(q * SG), last)]
    # rank: round q of subgroup w holds tile positions w*SG*IPT + q*SG + lane
    for q in vp.static(range(IPT)):
        valid = mine0 + vp.uint32(q * SG) < m
        x = kk[q]
        if KSH != 0:
            x = ski[mine0 + vp.uint32(q * SG)]
        d = digit(x, sh)
        if AOR != 0:
            # the lanes of the subgroup with this lane's digit: each xors its
            # bit into the digit's word, and the word's change is the set
            # (whatever the word held before: it is never cleared). The
            # barriers order the reads around the xors of all lanes, and
            # this round's xors after the last round's reads (CUB's
            # WARP_MATCH_ATOMIC_OR, without its clearing store)
            at = wb + d
            was = @WMK@[at]
            vp.subgroup_barrier()
            if valid:
                vp.atomic_xor(@WMK@[at], vp.uint32(1) << lane)
            vp.subgroup_barrier()
            peers = vp.where(valid, was ^ @WMK@[at], vp.uint32(0))
        else:
            peers = vp.subgroup_ballot(valid).x
            for b in vp.static(range(8)):
                # the lanes whose digit has bit b as this lane's: the ballot,
                # or its complement where the bit is 0 (no branch)
                if BT == 0:
                    bit = (d >> vp.uint32(b)) & vp.uint32(1)
                    peers = peers & (vp.subgroup_ballot(bit != vp.uint32(0)).x ^
                                     (bit - vp.uint32(1)))
                else:  # the bit's test as the ballot's predicate, then a select (CUB's form)
                    on = (d & vp.uint32(1 << b)) != vp.uint32(0)
                    v = vp.subgroup_ballot(on).x
                    peers = peers & vp.where(on, v, ~v)
        below = popc(peers & lt)
        old = vp.uint32(0)
        if valid and below == vp.uint32(0):
            old = vp.atomic_add(whist, wb + d, popc(peers))
        leader = vp.find_lsb(peers) & vp.uint32(SG - 1)   # the lowest lane of the digit
        if DEFER == 0:
            rk[q] = ((vp.subgroup_shuffle(old, leader) + below) << vp.uint32(8)) | d
        else:  # the shuffle after all rounds: no round waits on an atomic's result
            olds[q] = old
            rk[q] = (below << vp.uint32(13)) | (leader << vp.uint32(8)) | d
    if DEFER != 0:
        for q in vp.static(range(IPT)):
            r = rk[q]
            first_rank = vp.subgroup_shuffle(olds[q], (r >> vp.uint32(8)) & vp.uint32(31))
            rk[q] = ((first_rank + (r >> vp.uint32(13))) << vp.uint32(8)) | (r & vp.uint32(255))
    if VALS != 0:
        # the payload's loads, in flight during the scans and the look-back
        # (the first pass makes the positions instead of reading them)
        for q in vp.static(range(IPT)):
            p = mine0 + vp.uint32(q * SG)
            if first != 0:
                vv[q] = j * T + p
            else:
                vv[q] = vin[base + min(p, last)]
    vp.barrier()
    mine = (w * vp.uint32(SG) + lane) * vp.uint32(DPI)
    tc = vp.Local[vp.uint32, DPI]   # the tile's count of each digit this invocation owns
    ts = vp.Local[vp.uint32, DPI]   # ... and its first tile position (SCAN = 1)
    own = vp.Local[vp.uint32, DPI]
    lbw = vp.Local[vp.uint32, LB]   # a look-back step's status words
    lps = vp.Local[vp.uint32, IPT]  # SHAREV: each key's position in sk ...
    ops = vp.Local[vp.uint32, IPT]  # ... and in kout, for its payload
    if SCAN == 0:
        # per digit: the counts of the subgroups become their first ranks,
        # and the tile's count is published for the tiles after it
        for z in vp.static(range(DPI)):
            d = vp.uint32(z * L) + lid
            run = digit_count(whist, d)
            tc[z] = run
            tstart[d] = run
            if ok:
                publish(sb, sto + (pas * ntiles + t) * B + d, j, run)
        vp.barrier()
        # the tile's counts scanned over the digits (lane l of subgroup w owns
        # digits (w*SG + l)*DPI ..., the order subgroup scans follow): subgroup
        # scans, then the subgroups' totals
        s = vp.uint32(0)
        for z in vp.static(range(DPI)):
            own[z] = tstart[mine + z]
            s += own[z]
        ex = invocations_before(wt, s)
        for z in vp.static(range(DPI)):
            tstart[mine + z] = ex
            ex += own[z]
        vp.barrier()
    else:
        # the same with one owner per digit throughout (digits mine ..
        # mine + DPI - 1, the subgroup scans' order): the counts stay in
        # registers from the subgroups' prefix to the scan over digits and
        # the look-back, one barrier fewer (and tstart is not read back)
        s = vp.uint32(0)
        for z in vp.static(range(DPI)):
            d = mine + vp.uint32(z)
            run = digit_count(whist, d)
            tc[z] = run
            s += run
            if ok:
                publish(sb, sto + (pas * ntiles + t) * B + d, j, run)
        ex = invocations_before(wt, s)
        for z in vp.static(range(DPI)):
            ts[z] = ex
            tstart[mine + vp.uint32(z)] = ex
            ex += tc[z]
    # decoupled look-back, one digit per invocation (DPI of them)
    for z in vp.static(range(DPI)):
        d = mine + vp.uint32(z)
        if SCAN == 0:
            d = vp.uint32(z * L) + lid
        pre = vp.uint32(0)
        if ok and j > 0:
            k = t - 1
            done = False
            near = False   # W1: tile k's word was not published: wait on it alone
            for it in range(vp.uint32(SPIN)):
                if W1 != 0:
                    if near:
                        # one load a spin, not LB: a waiting workgroup takes
                        # few issue slots from the others on its multiprocessor
                        if vp.atomic_load(sb, sto + (pas * ntiles + k) * B + d) >> \
                                vp.uint32(30) != vp.uint32(0):
                            near = False
                if not near:
                    # the words of tiles k, k-1, ..., k-LB+1 at once (independent
                    # loads: one round trip per LB tiles of the walk), none
                    # before the row's first tile t - j, whose word is INC
                    at = sto + (pas * ntiles + k) * B + d   # tile k's word
                    lim = k - (t - j)                        # tiles back to the row's first
                    for i in vp.static(range(LB)):
                        lbw[i] = vp.atomic_load(sb, at - min(vp.uint32(i), lim) * vp.uint32(B))
                    # added nearest first, up to an INC word or one not
                    # published yet (the next step starts there)
                    if LBF == 0:
                        more = True
                        for i in vp.static(range(LB)):
                            v = lbw[i]
                            f = v >> vp.uint32(30)
                            if more:
                                if f == vp.uint32(0):
                                    more = False
                                    if i == 0 and W1 != 0:
                                        near = True
                                else:
                                    pre += v & vp.uint32(MASK)
                                    if f == vp.uint32(2):
                                        done = True
                                        more = False
                                    else:
                                        k -= 1
                    else:
                        # the same walk without a branch, from two masks over
                        # the LB words (bit i: word i unpublished / INC): it
                        # takes the words before the first unpublished one and
                        # up to the first INC one. Every sum term waits on all
                        # loads (so they stay together, one round trip); a
                        # 5 % faster pass on an H200 than the branches
                        # (bench/notes/sort.md)
                        zm = vp.uint32(1 << LB)
                        im = vp.uint32(1 << LB)
                        for i in vp.static(range(LB)):
                            v = lbw[i]
                            zm = zm | vp.where(v == vp.uint32(0), vp.uint32(1 << i), vp.uint32(0))
                            im = im | ((v >> vp.uint32(31)) << vp.uint32(i))
                        fz = vp.find_lsb(zm)
                        fi = vp.find_lsb(im)
                        take = min(fz, fi + vp.uint32(1))
                        for i in vp.static(range(LB)):
                            pre += vp.where(vp.uint32(i) < take, lbw[i] & vp.uint32(MASK),
                                            vp.uint32(0))
                        k -= take
                        done = fi < fz
                        if W1 != 0:
                            near = fz == vp.uint32(0)
                if done:
                    break
            if done:
                if PUBLISH != 0:
                    vp.atomic_store(sb, sto + (pas * ntiles + t) * B + d,
                                    vp.uint32(INC) | (pre + tc[z]))
            else:  # gave up: the host sorts again with the safe path
                gave[0] = vp.uint32(1)
        if SCAN == 0:
            add[d] = row * n + sb[GH + (row * P + pas) * B + d] + pre - tstart[d]
        else:
            add[d] = row * n + sb[GH + (row * P + pas) * B + d] + pre - ts[z]
    if SCAN != 0:
        vp.barrier()   # tstart and add, for the scatter
    # the tile sorted in shared memory, then written out in runs of a digit
    if KSH != 0:
        # the keys from the load array to their sorted places; then the
        # load array, read by now, takes the payload (sv's role)
        for q in vp.static(range(IPT)):
            if mine0 + vp.uint32(q * SG) < m:
                sk[tile_place(tstart, whist, wb, rk[q])] = ski[mine0 + vp.uint32(q * SG)]
        if VALS != 0:
            vp.barrier()
            for q in vp.static(range(IPT)):
                if mine0 + vp.uint32(q * SG) < m:
                    ski[tile_place(tstart, whist, wb, rk[q])] = vv[q]
        vp.barrier()
        for q in vp.static(range(IPT)):
            p = vp.uint32(q * L) + lid
            if p < m:
                o = write_out(kout, sk, add, p, sh)
                if VALS != 0:
                    vout[o] = vp.@VOUT@(ski[p])
    elif SHAREV == 0:
        for q in vp.static(range(IPT)):
            if mine0 + vp.uint32(q * SG) < m:
                lp = tile_place(tstart, whist, wb, rk[q])
                sk[lp] = kk[q]
                if VALS != 0:
                    sv[lp] = vv[q]
        vp.barrier()
        for q in vp.static(range(IPT)):
            p = vp.uint32(q * L) + lid
            if p < m:
                o = write_out(kout, sk, add, p, sh)
                if VALS != 0:  # (the last pass writes argsort's int64 directly)
                    vout[o] = vp.@VOUT@(sv[p])
    else:
        # the payload goes through the keys' shared array after them (as
        # CUB's onesweep): half the shared memory of argsort, so more
        # workgroups fit a multiprocessor; each key's shared and global
        # positions are kept for its payload
        for q in vp.static(range(IPT)):
            if mine0 + vp.uint32(q * SG) < m:
                lp = tile_place(tstart, whist, wb, rk[q])
                sk[lp] = kk[q]
                lps[q] = lp
        vp.barrier()
        for q in vp.static(range(IPT)):
            p = vp.uint32(q * L) + lid
            if p < m:
                ops[q] = write_out(kout, sk, add, p, sh)
        if VALS != 0:
            vp.barrier()
            for q in vp.static(range(IPT)):
                if mine0 + vp.uint32(q * SG) < m:
                    sk[lps[q]] = vv[q]
            vp.barrier()
            for q in vp.static(range(IPT)):
                p = vp.uint32(q * L) + lid
                if p < m:
                    vout[ops[q]] = vp.@VOUT@(sk[p])
'''

_NS = {}

HIST_TILES = 16   # tiles per ohist workgroup
GH = 16           # the state buffer's first word of gh (the kernels' GH)

# The kernels' variants (issue 19), same algorithm and results, each a set
# of the template's switches (lb, scan, sharev, defer, ksh, w1, mk, bt, lbf, aor; the
# tile: lanes x ipt, None: shape()'s); bench/notes/sort.md says what each
# changes and keeps the figures of the retired variant 2 ("3:lb=1,scan=0,ksh=0"),
# of the retired hco=N (ohist's histogram copies: slower on the H200) and of
# the retired inv and sdg switches (session 50: no faster, and 3-4 % slower).
# 3 is the default.
VARIANTS = {
    3: dict(lb=8, scan=1, sharev=0, defer=0, ksh=1, lanes=None, ipt=None, w1=0, mk=1, bt=1,
            lbf=1, aor=0),
}
# which variant sort_rows runs: "N" or "N:key=value,..." overriding the
# variant's settings (bench/probes/sort_ab.py sweeps them), from the
# environment variable VULPY_ONESWEEP at import; tests and probes set it
VARIANT = os.environ.get("VULPY_ONESWEEP", "") or "3"


def settings(spec=None):
    """The settings dict of a variant spec ("3", "3:lb=16,ipt=12"; None:
    VARIANT), with ValueErrors naming VULPY_ONESWEEP."""
    spec = str(VARIANT if spec is None else spec)
    num, _, rest = spec.partition(":")
    try:
        out = dict(VARIANTS[int(num)])
    except (ValueError, KeyError):
        raise ValueError(f"VULPY_ONESWEEP / _sort_onesweep.VARIANT: the variant must be one of "
                         f"{sorted(VARIANTS)} (got {spec!r})") from None
    for item in filter(None, rest.split(",")):
        key, _, val = item.partition("=")
        if key not in out or not val.isdigit():
            raise ValueError(f"VULPY_ONESWEEP / _sort_onesweep.VARIANT: {item!r} in {spec!r} is "
                             f"not key=integer with key one of {sorted(out)}")
        out[key] = int(val)
    if out["lb"] < 1 or (out["lanes"] is not None and out["lanes"] not in (64, 128, 256)):
        raise ValueError(f"VULPY_ONESWEEP / _sort_onesweep.VARIANT: {spec!r}: lb must be >= 1 "
                         f"and lanes 64, 128 or 256")
    return out


def shape(word, sg, cfg=None):
    """(L, IPT) for keys of `word` on a device whose subgroups have sg
    lanes: 256 x 16 32-bit keys (or 256 x 8 64-bit ones), 40 KiB of shared
    memory with values; 64 x 16 (8 KiB) on subgroups of fewer than 32
    lanes (lavapipe's 8, whose shared memory is 32 KiB). A variant's
    settings (cfg) may set the lanes (at least sg) and 32-bit keys' ipt."""
    lanes, ipt = (256 if sg >= 32 else 64), (16 if word == "uint32" else 8)
    if cfg:
        lanes = max(sg, cfg["lanes"] or lanes)
        if word == "uint32" and cfg["ipt"]:
            ipt = cfg["ipt"]
    return lanes, ipt


# tests: False makes every look-back add up the aggregates back to its
# row's first tile (PUBLISH = 0), a chain that a sequential device (one
# lavapipe thread) otherwise never walks
PUBLISH_INCLUSIVE = True


def kernels(word, mode, passes, sg, vals, spin=1 << 20, publish=1, vout="uint32", cfg=None):
    """The namespace holding ohist / oscan / onesweep for keys of `word`
    and kind `mode` (as _sort_kernels.kernels), `passes` 8-bit digits,
    subgroups of sg lanes, with (vals=1) or without a uint32 payload, the
    variant settings cfg (settings(); None: variant 3); onesweep writes
    the payload as `vout` (int64: argsort's result, in the last pass)."""
    cfg = cfg or VARIANTS[3]
    lanes, ipt = shape(word, sg, cfg)
    ksh = int(bool(cfg["ksh"]) and word == "uint32")
    aor = int(bool(cfg.get("aor", 0)))
    # aor's words (a subgroup's 256) in sk, the tile's sorted keys, unused
    # till the scatter: where they are 32-bit and fit (NVIDIA: T = 4096)
    in_sk = word == "uint32" and ipt * sg >= 256
    sharev = int(bool(cfg["sharev"]) and word == "uint32" and not ksh)
    # ohist's copies of the histograms: 16 KiB
    hco = max(1, min(16 // passes, 8192 // (passes * 256)))
    ht = HIST_TILES
    k = (word, mode, passes, sg, vals, spin, publish, vout, ht, lanes, ipt, cfg["lb"],
         int(bool(cfg["scan"])), sharev, int(bool(cfg["defer"])), ksh, hco, int(bool(cfg["w1"])),
         int(bool(cfg.get("mk", 1))), int(bool(cfg.get("bt", 1))), int(bool(cfg.get("lbf", 1))),
         aor)
    ns = _NS.get(k)
    if ns is None:
        from . import _kernel_helpers as H  # a kernel program: at first use
        subst = dict(WORD=word, MODE=mode, L=lanes, SG=sg, IPT=ipt, P=passes, VALS=vals,
                     HCO=hco,
                     SVLEN=lanes * ipt if vals and not sharev and not ksh else 1,
                     KSH=ksh, SKILEN=lanes * ipt if ksh else 1,
                     SPIN=spin, PUBLISH=publish, HT=ht, GH=GH, VVLEN=ipt, VOUT=vout, LB=cfg["lb"],
                     SCAN=int(bool(cfg["scan"])), SHAREV=sharev, DEFER=int(bool(cfg["defer"])),
                     W1=int(bool(cfg["w1"])), BT=int(bool(cfg.get("bt", 1))),
                     LBF=int(bool(cfg.get("lbf", 1))), AOR=aor,
                     WMK="sk" if in_sk else "wmk", WMKLEN=(lanes // sg) * 256 if aor and not in_sk else 1,
                     # mk: the ids masked to their ranges (no shared clamps)
                     **{f"MK_{v}": f" & vp.uint32({v} - 1)" if cfg.get("mk", 1) else ""
                        for v in ("L", "W", "SG", "B")},
                     # the pass's dispatch guard (its workgroups bound themselves):
                     # off for sort, kept for argsort, where ptxas gave the
                     # unguarded pass 141 registers instead of 96 (1 workgroup
                     # a multiprocessor instead of 2; an H100 ran it 1.3x slower)
                     GUARD=bool(vals))
        tag = "-".join(map(str, ("onesweep",) + k))
        ns = _sort_kernels.instantiate(SOURCE, subst, tag,
                                       dict(digits_exclusive=H.digits_exclusive,
                                            HELPERS=(H.digits_exclusive,)))
        _NS[k] = ns
    return ns


# a sort's dispatches, ready: a context's _plans, by call shape (the
# packed push constants, the pipelines, the grids and which of a call's
# buffers each dispatch binds), so a call only allocates and records
_KEYS_ONLY, _A, _B, _VA, _VB, _VO, _SB, _GAVE = range(8)
_PLANS = 64  # plans a context keeps


def _plan(ctx, rows, n, word, mode, bits, values, sg, grid):
    """(sto, swords, i64, steps, keys role, payload role or None) of a sort
    of rows x n keys, or None when the status words would not fit one
    binding: the state buffer's first status word and size in words,
    whether argsort's last pass writes int64, per dispatch (pipeline, push
    bytes, gx, gy, the roles of the buffers it binds, kernel name), and the
    roles of the buffers that end up holding the sorted keys and payload
    (roles: indexes into sort_rows' buffer list, _KEYS_ONLY ... _GAVE);
    grid: _sort's grid shape of a workgroup count."""
    key = ("onesweep", rows, n, word, mode, bits, values, sg, VARIANT, PUBLISH_INCLUSIVE,
           HIST_TILES)
    plans = ctx._plans
    if key in plans:
        return plans[key]
    if len(plans) >= _PLANS:  # many call shapes: the oldest plan goes
        del plans[next(iter(plans))]
    passes = -(-bits // 8)
    vals = int(bool(values))
    cfg = settings()
    lanes, ipt = shape(word, sg, cfg)
    # the look-back's reads, all digits of an invocation together, stay
    # under a device's loop limit (lavapipe: 65,535 back-edges)
    spin = 1 << 20
    cap = ctx.limits.get("max_loop_iterations")
    if cap:
        spin = min(spin, cap // max(1, 256 // lanes) - 256)
    ns = kernels(word, mode, passes, sg, vals, spin, int(PUBLISH_INCLUSIVE), cfg=cfg)
    tile = lanes * ipt
    tpr = -(-n // tile)
    ntiles = rows * tpr
    # the state, one buffer: the passes' tile counters (words 0 .. passes-1),
    # the histograms gh (rows x passes x 256, from word GH), both zeroed by
    # one small fill, and the status words (passes x tiles x 256, from word
    # sto), zeroed by ohist
    sto = GH + rows * passes * 256
    swords = sto + passes * ntiles * 256
    if 4 * swords > ctx.limits["max_storage_buffer_range"]:
        plans[key] = None
        return None
    steps = []

    def step(kern, roles, groups, **push):
        prog = kern.program()
        steps.append((prog.native(ctx), prog.packer.pack(push), groups[0], groups[1], roles,
                      kern.__name__))

    tg = grid(ntiles)
    # a workgroup counts HIST_TILES tiles of a row
    cpr = -(-tpr // HIST_TILES)
    hg = grid(rows * cpr)
    step(ns["ohist"], (_KEYS_ONLY, _SB), hg, n=n, cpr=cpr, nchunks=rows * cpr, gx=hg[0],
         tpr=tpr, ntiles=ntiles, sto=sto)
    g = grid(rows * passes)
    step(ns["oscan"], (_SB,), g, count=rows * passes, gx=g[0])
    # argsort: the last pass writes the positions as int64 (the caller's
    # dtype), sparing a conversion pass over them
    i64 = bool(vals and ctx.has("int64"))
    # the payload bindings of sort take the state buffer (VALS = 0: never touched)
    va, vb = (_VA, _VB) if vals else (_SB, _SB)
    kin, kout = _KEYS_ONLY, _A
    for p in range(passes):
        kern, dst = ns["onesweep"], va
        if i64 and p == passes - 1:
            kern = kernels(word, mode, passes, sg, vals, spin, int(PUBLISH_INCLUSIVE), "int64",
                           cfg)["onesweep"]
            dst = _VO
        step(kern, (kin, kout, vb, dst, _SB, _GAVE), tg, n=n, tpr=tpr, ntiles=ntiles, pas=p,
             sh=8 * p, first=int(p == 0), sto=sto)
        va, vb = vb, dst
        kin, kout = kout, (_B if kout == _A else _A)
    plans[key] = plan = (sto, swords, i64, tuple(steps), kin, vb if vals else None)
    return plan


def sort_rows(keys, values, copy_in, word, mode, bits, rec_cls, grid, sg=None):
    """Sorts every row of the C-contiguous resident 2-D array `keys`
    (never written, so copy_in needs nothing) with the onesweep kernels,
    as _sort.radix_sort does (rec_cls and grid: its recorder and grid shape).
    Returns (keys, positions or None: uint32, or int64 on a device with
    int64), or None when a workgroup gave up waiting on
    another (the caller then uses the safe path)."""
    import numpy as np

    from . import _array
    _U32 = np.dtype(np.uint32)
    rows, n = keys.shape
    ctx = keys._ctx
    sg = sg or ctx.info["limits"]["subgroup_size"]  # (tests pass a wrong one)
    plan = _plan(ctx, rows, n, word, mode, bits, bool(values), sg, grid)
    if plan is None:
        return None  # the status words would not fit one binding
    sto, swords, i64, steps, kres, vres = plan
    mem = keys.memory
    # every word of these is written before it is read (the fill below, a
    # pass, the copy): no zeroing at allocation. (keys stays as it is: the
    # safe path sorts it again should a workgroup give up.)
    a = _array._result(keys.shape, keys.dtype, mem, ctx)
    b = _array._result(keys.shape, keys.dtype, mem, ctx)
    sb = _array._result((swords,), _U32, mem, ctx)
    gave = _array.empty((4,), _U32, memory="host", context=ctx)   # zeroed by the CPU
    bufs = [keys, a, b, None, None, None, sb, gave]
    if values:
        bufs[_VA] = _array._result(keys.shape, _U32, mem, ctx)
        bufs[_VB] = _array._result(keys.shape, _U32, mem, ctx)
        if i64:
            bufs[_VO] = _array._result(keys.shape, np.dtype(np.int64), mem, ctx)
    raw = [x if x is None else x._buf for x in bufs]
    rec = rec_cls(ctx)
    rec.rec.fill(sb._buf, 0, 4 * sto, 0)   # (ohist zeroes the status words)
    dispatch, names = rec.rec.dispatch, rec.names
    for native, push, gx, gy, roles, name in steps:
        dispatch(native, [raw[r] for r in roles], push, gx, gy, 1, True)
        names.append(name)
    rec.run()
    if int(gave.numpy()[0]):
        return None
    return bufs[kres], (bufs[vres] if values else None)
