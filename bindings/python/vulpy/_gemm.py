"""The GEMM kernels behind vp.matmul, vp.dot, vp.einsum (issue 19);
docs/python-api.md, "The GEMM kernels", is the reference (how a kernel
works, CONFIGS and their options, VULPY_GEMM_CONFIG / set_config(),
K_STEPS_MAX).

C[z] (+)= A[z] @ B[z] for one batch of M x K and K x N operands that are
any strided views of device buffers: each operand comes with an element
offset and a stride per axis (push constants), so a transposed view or a
slice is read in place. A kernel is written in the kernel language
(source() prints it) and compiled once per (dtype, tile configuration,
layout variant: which axis of A and B is contiguous, and whether its
slots are vec4 loads), then cached in memory and on disk (_compiler). A
dispatch covers at most K_STEPS_MAX * BK of K (lavapipe ends loops after
~65,535 back-edges); a longer K is several dispatches that accumulate into
C (`acc_in`).
"""
import os
import threading

import numpy as np

from . import _compiler
from ._launch import Program

# name -> (BM, BN, BK, TM, TN, mapping, double-buffered shared tiles,
# vec4 shared tiles); NT = (BM/TM) * (BN/TN) invocations
CONFIGS = {
    "128x128": (128, 128, 8, 8, 8, "split", False, False),  # 256 invocations, 8x8 each
    "128x128d": (128, 128, 8, 8, 8, "split", True, False),
    "128x128v": (128, 128, 8, 8, 8, "split", False, True),
    "128x128vd": (128, 128, 8, 8, 8, "split", True, True),
    "128x128i": (128, 128, 8, 8, 8, "inter", False, False),
    "128x128k16": (128, 128, 16, 8, 8, "split", True, False),
    "128x64": (128, 64, 8, 8, 4, "split", False, False),      # 256 invocations, 8x4 each
    "64x64": (64, 64, 8, 4, 4, "split", False, False),        # 256 invocations, 4x4 each
    "32x32": (32, 32, 8, 4, 4, "inter", False, False),        # 64 invocations: small
}
LARGE, MEDIUM, SMALL = "128x128vd", "64x64", "32x32"  # LARGE: to be confirmed on the H200
K_STEPS_MAX = 16384
ENV = "VULPY_GEMM_CONFIG"

_KNAME = {"float32": "float32", "float64": "float64", "int32": "int32", "uint32": "uint32",
          "int64": "int64", "uint64": "uint64"}
_VEC = {"float32": "vec4", "int32": "ivec4", "uint32": "uvec4", "float64": "dvec4"}
DTYPES = tuple(np.dtype(n) for n in _KNAME)

_forced = None
_programs = {}
_lock = threading.Lock()


def set_config(name):
    """Forces tile configuration `name` (a key of CONFIGS) for every GEMM,
    or None for the automatic choice. Returns the previous setting."""
    global _forced
    if name is not None and name not in CONFIGS:
        raise ValueError(f"unknown GEMM configuration {name!r} (known: {', '.join(CONFIGS)})")
    prev, _forced = _forced, name
    return prev


def blocks(cfg, m, n, batch=1):
    """Workgroups of configuration cfg for an m x n (x batch) product."""
    BM, BN = CONFIGS[cfg][:2]
    return -(-m // BM) * -(-n // BN) * batch


def choose(m, n, k, batch=1):
    """The configuration for a batch of m x k @ k x n products: the largest
    tile that still gives the GPU enough workgroups (256: about two per SM
    of a large GPU), else smaller ones."""
    name = _forced or os.environ.get(ENV) or None
    if name:
        if name not in CONFIGS:
            raise ValueError(f"{ENV}={name!r}: unknown GEMM configuration "
                             f"(known: {', '.join(CONFIGS)})")
        return name
    for cfg in (LARGE, "128x64"):
        BM, BN = CONFIGS[cfg][:2]
        if m >= BM and n >= BN and blocks(cfg, m, n, batch) >= 256:
            return cfg
    if m * n >= 64 * 64:
        return MEDIUM
    return SMALL


def _rows(count, block, t, mapping):
    """[(constant c_i)] and the multiplier mu of an invocation's rows
    c_i + t*mu (t: its row index in the workgroup)."""
    if mapping == "split" and count % 4 == 0:
        groups = count // 4
        stride = block // groups
        return [(i // 4) * stride + i % 4 for i in range(count)], 4
    return [i * (block // count) for i in range(count)], 1


def source(cfg, dtype, a_axis, a_vec, b_axis, b_vec):
    """Kernel-language source of one variant. a_axis: the axis along which
    A's slots run, 'k' or 'm' (the one of stride 1) or 'g' (along m, both
    strides from push constants); b_axis: 'k', 'n' or 'g'; *_vec: whether
    those slots are vec4 loads."""
    BM, BN, BK, TM, TN, mapping, db, v4 = CONFIGS[cfg]
    NTX, NTY = BN // TN, BM // TM
    NT = NTX * NTY
    T = _KNAME[np.dtype(dtype).name]
    V = _VEC.get(T)
    # vec4 shared tiles: 4 adjacent rows (columns) of one k are one element,
    # stored whole and read whole (128-bit shared accesses for certain)
    v4 = v4 and V is not None and mapping == "split" and TM % 4 == 0 and TN % 4 == 0
    zero = f"vp.{T}(0)"
    rc, rmu = _rows(TM, BM, "ty", mapping)
    cc, cmu = _rows(TN, BN, "tx", mapping)
    params = ["a: vp.Buffer[vp.%s]" % T, "b: vp.Buffer[vp.%s]" % T, "c: vp.Buffer[vp.%s]" % T]
    if a_vec:
        params.append(f"av: vp.Buffer[vp.{V}]")
    if b_vec:
        params.append(f"bv: vp.Buffer[vp.{V}]")
    for p in ("m", "n", "k0", "k1", "acc_in", "ao", "asm", "ask", "abt", "bo", "bsk", "bsn",
              "bbt", "co", "csm", "csn", "cbt"):
        params.append(f"{p}: vp.uint32")
    ST, SD = (V, 4) if v4 else (T, 1)  # shared element type, elements of T in one
    L = ["import vulpy as vp", "", "",
         "def main(" + ", ".join(params) + "):",
         f"    As = vp.Shared[vp.{ST}, {BK * BM * (2 if db else 1) // SD}]",
         f"    Bs = vp.Shared[vp.{ST}, {BK * BN * (2 if db else 1) // SD}]",
         "    tid = vp.local_index()",
         f"    tx = tid % {NTX}",
         f"    ty = tid // {NTX}",
         f"    bm = vp.workgroup_id(1) * {BM}",
         f"    bn = vp.workgroup_id(0) * {BN}",
         "    z = vp.workgroup_id(2)",
         "    abase = ao + z * abt",
         "    bbase = bo + z * bbt",
         "    cbase = co + z * cbt",
         f"    ta = ty * {rmu}",
         f"    tb = tx * {cmu}"]
    for i in range(TM):
        for j in range(TN):
            L.append(f"    acc_{i}_{j} = vp.var({zero})")

    # the slots of one tile: (name prefix, count per invocation)
    def slots(op):
        if op == "a":
            rows, axis, vec = BM, a_axis, a_vec
        else:
            rows, axis, vec = BN, b_axis, b_vec
        total = rows * BK // 4
        per = -(-total // NT)
        out = []
        for s in range(per):
            e = f"(tid + {s * NT})"
            # fewer slots than invocations: the last ones load nothing
            guard = f"{e} < {total}" if (s + 1) * NT > total else None
            if axis == "k" and v4:  # k has stride 1, but the slot is 4 rows (vec4 store)
                out.append((s, f"({e} // {BK}) * 4", f"{e} % {BK}", "rk", False, guard))
            elif axis == "k":   # 4 consecutive k at one row/column (k has stride 1)
                out.append((s, f"{e} // {BK // 4}", f"({e} % {BK // 4}) * 4", "k", vec, guard))
            else:             # 4 consecutive rows/columns at one k ('g': any strides)
                out.append((s, f"({e} % {rows // 4}) * 4", f"{e} // {rows // 4}", axis, vec, guard))
        return out

    a_slots, b_slots = slots("a"), slots("b")

    def load(op, kexpr):
        """Lines loading this invocation's slots of the tile at k = kexpr
        into registers p{op}{s}_{q}."""
        out = []
        base, lim = ("abase", "m") if op == "a" else ("bbase", "n")
        rs, ks = ("asm", "ask") if op == "a" else ("bsn", "bsk")
        top = "bm" if op == "a" else "bn"
        for (s, r_e, k_e, axis, vec, guard) in (a_slots if op == "a" else b_slots):
            out.append(f"        r{op}{s} = {top} + {r_e}")
            out.append(f"        k{op}{s} = {kexpr} + {k_e}")
            row, kk = f"r{op}{s}", f"k{op}{s}"
            # the unit stride of the slot's axis is a literal: the compiler
            # sees consecutive addresses
            rsx, ksx = (rs, "1") if axis in ("k", "rk") else \
                ((rs, ks) if axis == "g" else ("1", ks))
            g = f" and {guard}" if guard else ""
            if vec:
                ok = f"{row} < {lim} and {kk} < k1{g}"
                idx = f"({base} + {row} * {rsx} + {kk} * {ksx}) // 4"
                out.append(f"        o{op}{s} = {ok}")
                out.append(f"        v{op}{s} = {op}v[vp.where(o{op}{s}, {idx}, 0)]")
                for q, comp in enumerate("xyzw"):
                    out.append(f"        p{op}{s}_{q} = vp.where(o{op}{s}, v{op}{s}.{comp}, "
                               f"{zero})")
                continue
            for q in range(4):
                r, kq = (row, f"({kk} + {q})") if axis == "k" else (f"({row} + {q})", kk)
                idx = f"{base} + {r} * {rsx} + {kq} * {ksx}"
                out.append(f"        o{op}{s}_{q} = {r} < {lim} and {kq} < k1{g}")
                out.append(f"        p{op}{s}_{q} = vp.where(o{op}{s}_{q}, "
                           f"{op}[vp.where(o{op}{s}_{q}, {idx}, 0)], {zero})")
        return out

    def store(op, off="", kref="kt"):
        """Lines writing the registers of load() (made at k = kref) into the
        shared tile at element offset `off`."""
        out = []
        W = BM if op == "a" else BN
        S = "As" if op == "a" else "Bs"
        base = "bm" if op == "a" else "bn"
        for (s, r_e, k_e, axis, vec, guard) in (a_slots if op == "a" else b_slots):
            lr = f"(r{op}{s} - {base})"
            lk = f"(k{op}{s} - {kref})"
            ind = "        "
            if guard:
                out.append(f"        if {guard}:")
                ind += "    "
            if v4:  # the slot is 4 adjacent rows at one k: one vec4
                vals = ", ".join(f"p{op}{s}_{q}" for q in range(4))
                out.append(f"{ind}{S}[{off}{lk} * {W // 4} + {lr} // 4] = vp.{V}({vals})")
                continue
            for q in range(4):
                if axis == "k":
                    out.append(f"{ind}{S}[{off}({lk} + {q}) * {W} + {lr}] = p{op}{s}_{q}")
                else:
                    out.append(f"{ind}{S}[{off}{lk} * {W} + {lr} + {q}] = p{op}{s}_{q}")
        return out

    def compute(ind, sa, sb):
        out = [f"{ind}for kk in vp.static(range({BK})):"]
        if v4:  # rows c_i + ty*4 of a group of 4 are one vec4 at (c_i + ty*4) / 4
            for g in range(TM // 4):
                out.append(f"{ind}    xa{g} = As[{sa}kk * {BM // 4} + {rc[4 * g] // 4} + ty]")
            for g in range(TN // 4):
                out.append(f"{ind}    yb{g} = Bs[{sb}kk * {BN // 4} + {cc[4 * g] // 4} + tx]")
            for i in range(TM):
                out.append(f"{ind}    x{i} = xa{i // 4}.{'xyzw'[i % 4]}")
            for j in range(TN):
                out.append(f"{ind}    y{j} = yb{j // 4}.{'xyzw'[j % 4]}")
        for i in (range(TM) if not v4 else ()):
            out.append(f"{ind}    x{i} = As[{sa}kk * {BM} + {rc[i]} + ta]")
        for j in (range(TN) if not v4 else ()):
            out.append(f"{ind}    y{j} = Bs[{sb}kk * {BN} + {cc[j]} + tb]")
        for i in range(TM):
            for j in range(TN):
                out.append(f"{ind}    acc_{i}_{j} += x{i} * y{j}")
        return out

    L.append("    kt = vp.var(k0)")
    L += [x[4:] for x in load("a", "kt") + load("b", "kt")]
    if not db:
        # one shared tile: store, barrier, compute, barrier
        L.append("    while kt < k1:")
        L += store("a") + store("b")
        L.append("        vp.barrier()")
        L.append(f"        kn = kt + {BK}")
        L += load("a", "kn") + load("b", "kn")
        L += compute("        ", "", "")
        L.append("        vp.barrier()")
        L.append("        kt = kn")
    else:
        # two shared tiles: the next tile is stored into the other one while
        # this one is read, one barrier a step (an invocation past the
        # barrier of step i has finished reading the tile step i+1 writes)
        L += [x[4:] for x in store("a") + store("b")]
        L.append("    vp.barrier()")
        L.append("    cur = vp.var(vp.uint32(0))")
        L.append("    while kt < k1:")
        L.append(f"        kn = kt + {BK}")
        L += load("a", "kn") + load("b", "kn")
        oa, ob = f"cur * {BK * BM // SD} + ", f"cur * {BK * BN // SD} + "
        L += compute("        ", oa, ob)
        L.append("        kt = kn")
        L.append("        cur = 1 - cur")
        L += store("a", oa, "kn") + store("b", ob, "kn")
        L.append("        vp.barrier()")
    # the block of C
    for i in range(TM):
        L.append(f"    cr{i} = bm + {rc[i]} + ta")
    for j in range(TN):
        L.append(f"    cq{j} = bn + {cc[j]} + tb")
    for i in range(TM):
        L.append(f"    if cr{i} < m:")
        for j in range(TN):
            L.append(f"        if cq{j} < n:")
            L.append(f"            ci = cbase + cr{i} * csm + cq{j} * csn")
            L.append("            if acc_in != 0:")
            L.append(f"                c[ci] = c[ci] + acc_{i}_{j}")
            L.append("            else:")
            L.append(f"                c[ci] = acc_{i}_{j}")
    return "\n".join(L) + "\n"


def program(cfg, dtype, a_axis, a_vec, b_axis, b_vec):
    """The compiled Program of a variant (cached in memory; the compiler
    caches on disk)."""
    key = (cfg, np.dtype(dtype).name, a_axis, a_vec, b_axis, b_vec)
    p = _programs.get(key)
    if p is not None:
        return p
    BM, BN, BK, TM, TN = CONFIGS[cfg][:5]
    nt = (BM // TM) * (BN // TN)
    src = source(cfg, dtype, a_axis, a_vec, b_axis, b_vec)
    arts = _compiler.compile_source(src, f"<vulpy.matmul {cfg} {key[1]}>", "main", None,
                                    dispatch_guard=False, local_size=(nt, 1, 1),
                                    clamp_shared=False)  # every shared index is in range
    p = Program(arts, f"vp.matmul[{cfg}, {key[1]}]", (nt, 1, 1), precise=True)
    with _lock:
        _programs[key] = p
    return p


def _axis_and_vec(s_rows, s_k, rows, kdim, off, name_rows):
    """(slot axis, vec4?) of an operand with strides (rows, k) in elements:
    'k' when k has stride 1, `name_rows` when the rows do, else 'g'."""
    if s_k == 1 and s_rows != 1:
        return "k", off % 4 == 0 and s_rows % 4 == 0 and kdim % 4 == 0
    if s_rows == 1:
        return name_rows, off % 4 == 0 and s_k % 4 == 0 and rows % 4 == 0
    return "g", False


# tests: (x, y, z) workgroup counts to use instead of the device's, so
# that small products take the blocked dispatch the limits force on large ones
GRID_GROUPS = None


def gemm(ctx, dtype, m, n, k, batch, a, b, c, accumulate=False, sync=True, cfg=None):
    """Runs C[z] (+)= A[z] @ B[z] for z < batch on the device.

    a, b, c: (buffer, offset, (stride_rows, stride_cols, stride_batch)) in
    elements of `dtype`: A is m x k, B is k x n, C is m x n. C may not
    overlap A or B. Returns the last submission's ticket (or None)."""
    dt = np.dtype(dtype)
    if m == 0 or n == 0 or batch == 0:
        return None
    cfg = cfg or choose(m, n, k, batch)
    BM, BN, BK = CONFIGS[cfg][:3]
    (abuf, ao, (asm, ask, abt)), (bbuf, bo, (bsk, bsn, bbt)), (cbuf, co, (csm, csn, cbt)) = a, b, c
    vec_ok = dt.name in _VEC
    a_axis, a_vec = _axis_and_vec(asm, ask, m, k, ao, "m")
    b_axis, b_vec = _axis_and_vec(bsn, bsk, n, k, bo, "n")
    a_vec, b_vec = a_vec and vec_ok, b_vec and vec_ok
    prog = program(cfg, dt, a_axis, a_vec, b_axis, b_vec)
    kern = prog.native(ctx)
    binds = [abuf, bbuf, cbuf] + ([abuf] if a_vec else []) + ([bbuf] if b_vec else [])
    xmax, ymax, zmax = (g or 65535 for g in GRID_GROUPS or
                        ctx.info["limits"]["max_workgroup_count"])
    chunk = K_STEPS_MAX * BK
    ticket = None
    starts = list(range(0, k, chunk)) or [0]
    # C in blocks of at most the device's workgroup counts along x (columns)
    # and y (rows): a (2**22 + 65) x 2 @ 2 x 3 matmul wanted 65,538 groups in
    # y. The blocks start at multiples of BM / BN, so a vec4 variant's
    # alignment holds in each.
    for m0 in range(0, m, ymax * BM):
        mc = min(m - m0, ymax * BM)
        for n0 in range(0, n, xmax * BN):
            nc = min(n - n0, xmax * BN)
            gx, gy = -(-nc // BN), -(-mc // BM)
            for z0 in range(0, batch, zmax):
                nz = min(zmax, batch - z0)
                for kc in starts:
                    vals = {"m": mc, "n": nc, "k0": kc, "k1": min(k, kc + chunk),
                            "acc_in": int(accumulate or kc > 0),
                            "ao": ao + z0 * abt + m0 * asm, "asm": asm, "ask": ask,
                            "abt": abt,
                            "bo": bo + z0 * bbt + n0 * bsn, "bsk": bsk, "bsn": bsn,
                            "bbt": bbt,
                            "co": co + z0 * cbt + m0 * csm + n0 * csn, "csm": csm,
                            "csn": csn, "cbt": cbt}
                    push = prog.packer.pack(vals)
                    ticket = kern.dispatch(binds, push, gx, gy, nz, True, sync)
    return ticket
