"""The tiled cooperative-matrix GEMM (issue 19): GLSL for one tile
configuration, generated here, for vulpy._coopmat.

Why GLSL written by a generator, not the kernel language: VulPy's kernel
language and VIR have no cooperative-matrix types or ops, and SPIRV-Cross
(2021) cannot reflect such a module, so, like the older variants in
_coopmat.py, this kernel is GLSL (GL_NV_cooperative_matrix) compiled
in-process by glslang and validated by SPIRV-Tools (glsl_to_spirv), with
its manifest written here. The generator unrolls every loop over fragments
into straight-line code with one variable per fragment, so no cooperative
matrix is ever indexed dynamically (which a driver may put in local
memory) and the text reads as what runs.

What one workgroup does (Tile(bm, bn, bk, sgm, sgn, stages)):
- It owns a bm x bn block of C; its sgm x sgn subgroups (32 invocations
  each) each own a (bm/sgm) x (bn/sgn) piece of it as fm x fn accumulators
  of 16 x 16 float32 (fm = bm/sgm/16, fn = bn/sgn/16).
- The K loop takes bk halves a step. A step's A tile (bm x bk halves) and
  B tile (bk x bn) are copied from global memory to shared memory as uvec4s
  (8 halves, 16-byte loads; consecutive invocations take consecutive uvec4s
  of a row, so the loads coalesce). In shared memory every row is padded by
  one uvec4, so the 8 row addresses of a fragment load fall in different
  banks.
- The next step's global loads are issued into registers before the
  current step's MMAs, so their latency hides behind the math. With
  stages=2 the shared tiles are double buffered (one barrier a step: the
  registers go to the other buffer after the math); with stages=1 there is
  one buffer and two barriers a step (the copy waits until everyone has
  read the old tile).
- Each 16-half K sub-step loads the subgroup's fm A and fn B fragments from
  shared memory (coopMatLoadNV, row-major, offsets and strides in uvec4s)
  and issues fm * fn coopMatMulAddNV.
- C is stored with coopMatStoreNV, one fragment at a time, straight to the
  output buffer.

Options (Tile fields after stages, off by default: shape, b_one, group;
wave 10's experiments, compared on the H200 by bench/probes/coopmat_ab.py):
docs/python-api.md, "Cooperative matrices", and bench/notes/matmul.md
(which also keeps the figures of the retired b_t) say what each changes.

Edges: M any size, N and K multiples of 8 (a uvec4 of a row is wholly
inside or wholly outside the matrix). A global load outside A or B reads
zeros instead (a guarded load, never out of bounds), so the partial tiles
of M, N and K add exact zeros; the output buffer is padded to whole tiles
(pad_m x pad_n, row stride ldc = pad_n) so every fragment store is in
bounds, and the caller keeps its m x n corner. A shape kernel on a shape
of whole tiles (and K a multiple of bk) has no guard at all. Accumulation is float32;
the output float32.
"""
from dataclasses import dataclass

FRAG = 16      # the fragment: 16 x 16 x 16, float16 in, float32 accumulators
SUBGROUP = 32  # invocations per subgroup the layout assumes (NVIDIA's size)


@dataclass(frozen=True)
class Tile:
    bm: int      # rows of C per workgroup
    bn: int      # columns of C per workgroup
    bk: int      # K (halves) per step
    sgm: int     # subgroups down
    sgn: int     # subgroups across
    stages: int  # shared-memory buffers: 1 or 2
    shape: bool = False  # the kernel is compiled per (m, n, k): constants, no needless guards
    b_one: bool = False  # B fragments loaded one at a time (fewer live registers)
    group: int = 0       # workgroups walk C in groups of this many tile rows (0: row by row)

    @property
    def invocations(self):
        return SUBGROUP * self.sgm * self.sgn

    @property
    def fm(self):
        return self.bm // self.sgm // FRAG

    @property
    def fn(self):
        return self.bn // self.sgn // FRAG

    @property
    def a_stride(self):  # uvec4s per A row in shared memory (one of padding)
        return self.bk // 8 + 1

    @property
    def b_stride(self):  # uvec4s per B row in shared memory (one of padding)
        return self.bn // 8 + 1

    @property
    def a_stage(self):  # uvec4s per A buffer
        return self.bm * self.a_stride

    @property
    def b_stage(self):
        return self.bk * self.b_stride

    @property
    def shared_bytes(self):
        return 16 * self.stages * (self.a_stage + self.b_stage)

    def check(self):
        """The tile's own consistency (a programming error if not)."""
        assert self.stages in (1, 2), self
        assert self.bm % (FRAG * self.sgm) == 0 and self.bn % (FRAG * self.sgn) == 0, self
        assert self.bk % FRAG == 0, self
        # every invocation copies the same number of uvec4s of each tile
        assert (self.bm * self.bk // 8) % self.invocations == 0, self
        assert (self.bk * self.bn // 8) % self.invocations == 0, self
        return self

    def padded(self, m, n):
        """(pad_m, pad_n): the output buffer's rows and columns (whole tiles)."""
        return -(-m // self.bm) * self.bm, -(-n // self.bn) * self.bn

    def groups(self, m, n):
        """The dispatch grid (x: column blocks, y: row blocks)."""
        pm, pn = self.padded(m, n)
        return pn // self.bn, pm // self.bm, 1


class _E:
    """A GLSL uint expression: the index formulas below are written once
    and run on ints or NumPy arrays (emulate) or on _E (glsl), which prints
    them; every operand is nonnegative and in range, so uint arithmetic and
    Python's agree."""

    def __init__(self, s):
        self.s = s

    @staticmethod
    def of(x):
        return x if isinstance(x, _E) else _E(f"{int(x)}u")

    def _op(self, o, op, swap=False):
        x, y = (_E.of(o), self) if swap else (self, _E.of(o))
        return _E(f"({x.s} {op} {y.s})")

    def __add__(self, o):
        return self._op(o, "+")

    def __radd__(self, o):
        return self._op(o, "+", True)

    def __mul__(self, o):
        return self._op(o, "*")

    def __rmul__(self, o):
        return self._op(o, "*", True)

    def __floordiv__(self, o):
        return self._op(o, "/")

    def __mod__(self, o):
        return self._op(o, "%")

    def __sub__(self, o):
        return self._op(o, "-")

    def __rsub__(self, o):
        return self._op(o, "-", True)

    def __str__(self):
        return self.s


def _min(x, y):
    """min of two formula values: ints, NumPy arrays or _E."""
    if isinstance(x, _E) or isinstance(y, _E):
        return _E(f"min({_E.of(x).s}, {_E.of(y).s})")
    if isinstance(x, int) and isinstance(y, int):
        return min(x, y)
    import numpy as np
    return np.minimum(x, y)


# ---- the index formulas (uvec4 units unless said; shared by glsl and emulate)

def tile_of(t, x, y, gx, gy):
    """(row block, column block) of C that workgroup (x, y) of the gx x gy
    grid computes. Without t.group, (y, x). With it, the workgroups walk C
    in groups of t.group tile rows, column by column inside a group, so
    the workgroups resident at once share A rows and B columns in L2
    (linear id L = y * gx + x; a bijection: the last group may be shorter)."""
    if not t.group:
        return y, x
    per = t.group * gx          # workgroups of a full group
    lin = y * gx + x
    g0 = lin // per * t.group   # its first tile row
    rows = _min(gy - g0, t.group)
    r = lin % per
    return g0 + r % rows, r // rows


def a_copy(t, tid, s):
    """Invocation tid's s-th uvec4 of the A tile: (row, uvec4 in the row)."""
    e = tid + s * t.invocations
    return e // (t.bk // 8), e % (t.bk // 8)


def b_copy(t, tid, s):
    """Invocation tid's s-th uvec4 of the B tile: (row k, uvec4 in the row)."""
    e = tid + s * t.invocations
    return e // (t.bn // 8), e % (t.bn // 8)


def a_global(t, bm, ar, aq, step, kq):
    """(row, uvec4 column, index) of that uvec4 of A in K step `step`; it
    exists when row < m and column < kq (= k / 8)."""
    r, q = bm + ar, step * (t.bk // 8) + aq
    return r, q, r * kq + q


def b_global(t, bn, br, bq, step, nq):
    """(row k, uvec4 column, index) in B; exists when k < K, column < nq."""
    r, q = step * t.bk + br, bn // 8 + bq
    return r, q, r * nq + q


def a_shared(t, buf, ar, aq):
    return buf * t.a_stage + ar * t.a_stride + aq


def b_shared(t, buf, br, bq):
    return buf * t.b_stage + br * t.b_stride + bq


def a_frag(t, buf, wm, i, kk):
    """Offset of A fragment i of K sub-step kk in shared buffer buf (row
    stride t.a_stride)."""
    return buf * t.a_stage + (wm * (t.bm // t.sgm) + FRAG * i) * t.a_stride + 2 * kk


def b_frag(t, buf, wn, j, kk):
    """Offset of B fragment j of K sub-step kk (row-major)."""
    return buf * t.b_stage + FRAG * kk * t.b_stride + (wn * (t.bn // t.sgn) + FRAG * j) // 8


def c_frag(t, bm, bn, wm, wn, i, j, ldc):
    """Offset (floats) of accumulator (i, j) in C (row stride ldc)."""
    return (bm + wm * (t.bm // t.sgm) + FRAG * i) * ldc + bn + wn * (t.bn // t.sgn) + FRAG * j


def guards(t, shape):
    """Which bounds checks the global loads need: (A rows, A K, B K, B
    columns). Without a shape, all; with one (a t.shape kernel), only
    those a partial tile of that shape can fail (m % bm: A rows; k % bk:
    the K of both; n % bn: B columns), the others being true for every
    load of every step."""
    if shape is None:
        return True, True, True, True
    m, n, k = shape
    return bool(m % t.bm), bool(k % t.bk), bool(k % t.bk), bool(n % t.bn)


def glsl(t, shape=None):
    """The GLSL of tile configuration t. m, n, k and ldc are push
    constants, or, for a t.shape kernel, constants of `shape` = (m, n, k)
    written into the text (strides and trip count known to the compiler,
    no guard that cannot fail)."""
    t.check()
    assert (shape is not None) == t.shape, (t, shape)
    T, AQ, BQ = t.invocations, t.bk // 8, t.bn // 8
    a_per, b_per = t.bm * AQ // T, t.bk * BQ // T
    E = _E
    tid, wm, wn, bm, bn = E("tid"), E("wm"), E("wn"), E("bm"), E("bn")
    kq, nq = E("kq"), E("nq")
    acc_t = "fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>"
    h_t = "fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>"
    L = []
    w = L.append
    w("#version 450")
    w("#extension GL_NV_cooperative_matrix : require")
    w("#extension GL_KHR_memory_scope_semantics : require")
    w("#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require")
    w("#extension GL_EXT_shader_16bit_storage : require")
    w("#extension GL_KHR_shader_subgroup_basic : require")
    w(f"// vulpy coopmat tile: {t} (generated by vulpy/_coopmat_tiled.py)")
    if shape is not None:
        w(f"// compiled for m, n, k = {shape[0]}, {shape[1]}, {shape[2]}")
    w(f"layout(local_size_x = {T}) in;")
    w("layout(set = 0, binding = 0) readonly buffer A { uvec4 a[]; };")
    w("layout(set = 0, binding = 1) readonly buffer B { uvec4 b[]; };")
    w("layout(set = 0, binding = 2) writeonly buffer C { float c[]; };")
    w("layout(push_constant) uniform P { uint m; uint n; uint k; uint ldc; } pc;")
    w(f"shared uvec4 As[{t.stages * t.a_stage}];  // {t.stages} x {t.bm} rows of "
      f"{AQ} + 1 uvec4s")
    w(f"shared uvec4 Bs[{t.stages * t.b_stage}];  // {t.stages} x {t.bk} rows of "
      f"{BQ} + 1 uvec4s")
    w("void main() {")
    if shape is None:
        w("  uint m = pc.m, n = pc.n, k = pc.k, ldc = pc.ldc;")
    else:
        m_, n_, k_ = shape
        w(f"  const uint m = {m_}u, n = {n_}u, k = {k_}u, ldc = {t.padded(m_, n_)[1]}u;")
    w("  uint tid = gl_LocalInvocationID.x;")
    w(f"  uint wm = gl_SubgroupID / {t.sgn}u, wn = gl_SubgroupID % {t.sgn}u;")
    if t.group:
        gx, gy = ((E("gl_NumWorkGroups.x"), E("gl_NumWorkGroups.y")) if shape is None
                  else t.groups(shape[0], shape[1])[:2])
        ty, tx = tile_of(t, E("gl_WorkGroupID.x"), E("gl_WorkGroupID.y"), gx, gy)
        w(f"  uint ty = {ty}, tx = {tx};  // this workgroup's tile (grouped order)")
        w(f"  uint bm = ty * {t.bm}u, bn = tx * {t.bn}u;")
    else:
        w(f"  uint bm = gl_WorkGroupID.y * {t.bm}u, bn = gl_WorkGroupID.x * {t.bn}u;")
    w("  uint kq = k / 8u, nq = n / 8u;  // uvec4s per row of A, of B")
    w(f"  uint nt = (k + {t.bk - 1}u) / {t.bk}u;  // K steps")
    # this invocation's uvec4s of the tile copies: A row ar_s, uvec4 aq_s;
    # B row br_s, uvec4 bq_s
    for s in range(a_per):
        r, q = a_copy(t, tid, s)
        w(f"  uint ar{s} = {r}, aq{s} = {q};")
    for s in range(b_per):
        r, q = b_copy(t, tid, s)
        w(f"  uint br{s} = {r}, bq{s} = {q};")
    for i in range(t.fm):
        for j in range(t.fn):
            w(f"  {acc_t} acc{i}_{j} = {acc_t}(0.0);")
    w("  " + " ".join(f"uvec4 ra{s};" for s in range(a_per)))
    w("  " + " ".join(f"uvec4 rb{s};" for s in range(b_per)))

    g_am, g_ak, g_bk, g_bn = guards(t, shape)

    def guarded(ind, reg, conds, idx, buf):
        conds = [c for c in conds if c]
        if not conds:
            w(f"{ind}{reg} = {buf}[{idx}];")
            return
        w(f"{ind}{reg} = uvec4(0u);")
        w(f"{ind}if ({' && '.join(conds)}) {reg} = {buf}[{idx}];")

    def load(step, ind):
        """Global -> registers for K step `step` (zeros outside A and B)."""
        for s in range(a_per):
            r, q, idx = a_global(t, bm, E(f"ar{s}"), E(f"aq{s}"), step, kq)
            guarded(ind, f"ra{s}", [g_am and f"{r} < m", g_ak and f"{q} < kq"], idx, "a")
        for s in range(b_per):
            r, q, idx = b_global(t, bn, E(f"br{s}"), E(f"bq{s}"), step, nq)
            guarded(ind, f"rb{s}", [g_bk and f"{r} < k", g_bn and f"{q} < nq"], idx, "b")

    def store(buf, ind):
        """Registers -> shared buffer `buf`."""
        for s in range(a_per):
            w(f"{ind}As[{a_shared(t, buf, E(f'ar{s}'), E(f'aq{s}'))}] = ra{s};")
        for s in range(b_per):
            w(f"{ind}Bs[{b_shared(t, buf, E(f'br{s}'), E(f'bq{s}'))}] = rb{s};")

    def math(buf, ind):
        """The MMAs of one K step from shared buffer `buf`."""
        for kk in range(t.bk // FRAG):
            w(f"{ind}{{  // K sub-step {kk}")
            for i in range(t.fm):
                w(f"{ind}  {h_t} fa{i}; coopMatLoadNV(fa{i}, As, {a_frag(t, buf, wm, i, kk)}, "
                  f"{t.a_stride}u, false);")
            if t.b_one:  # one B fragment live at a time, used by a column of MMAs
                w(f"{ind}  {h_t} fb;")
                for j in range(t.fn):
                    w(f"{ind}  coopMatLoadNV(fb, Bs, {b_frag(t, buf, wn, j, kk)}, "
                      f"{t.b_stride}u, false);")
                    for i in range(t.fm):
                        w(f"{ind}  acc{i}_{j} = coopMatMulAddNV(fa{i}, fb, acc{i}_{j});")
            else:
                for j in range(t.fn):
                    w(f"{ind}  {h_t} fb{j}; coopMatLoadNV(fb{j}, Bs, "
                      f"{b_frag(t, buf, wn, j, kk)}, {t.b_stride}u, false);")
                for i in range(t.fm):
                    for j in range(t.fn):
                        w(f"{ind}  acc{i}_{j} = coopMatMulAddNV(fa{i}, fb{j}, acc{i}_{j});")
            w(f"{ind}}}")

    step, cur, nxt = E("t"), E("cur"), E("(cur ^ 1u)")
    if t.stages == 2:
        load(0, "  ")
        store(0, "  ")
        w("  barrier();")
        w("  for (uint t = 0u; t < nt; t++) {")
        w("    uint cur = t & 1u;")
        w("    bool more = t + 1u < nt;")
        w("    if (more) {  // the next step's loads, in flight during the math")
        load(step + 1, "      ")
        w("    }")
        math(cur, "    ")
        w("    if (more) {  // into the other buffer: nobody reads it until the barrier")
        store(nxt, "      ")
        w("    }")
        w("    barrier();")
        w("  }")
    else:
        load(0, "  ")
        w("  for (uint t = 0u; t < nt; t++) {")
        w("    barrier();  // everyone has read the last step's tile")
        store(0, "    ")
        w("    barrier();")
        w("    if (t + 1u < nt) {  // the next step's loads, in flight during the math")
        load(step + 1, "      ")
        w("    }")
        math(0, "    ")
        w("  }")
    for i in range(t.fm):
        for j in range(t.fn):
            w(f"  coopMatStoreNV(acc{i}_{j}, c, {c_frag(t, bm, bn, wm, wn, i, j, E('ldc'))}, "
              f"ldc, false);")
    w("}")
    return "\n".join(L) + "\n"


def emulate(t, a16, b16):
    """What the kernel computes, step by step in NumPy with the same index
    formulas, the same schedule of loads and buffers and the same guards:
    a16 (m x k) and b16 (k x n) float16, C-contiguous, k and n multiples
    of 8. Returns the padded float32 output buffer (pad_m x pad_n) as the
    kernel leaves it. The MMA is a float32 matmul of the fragments (its
    rounding order is the hardware's own); the tests compare the result
    with NumPy (vulpy's tests run it; the device cannot be asked here)."""
    import numpy as np
    t.check()
    m, k = a16.shape
    n = b16.shape[1]
    A = np.ascontiguousarray(a16).view(np.uint32).reshape(-1, 4)  # uvec4s
    B = np.ascontiguousarray(b16).view(np.uint32).reshape(-1, 4)
    pm, pn = t.padded(m, n)
    C = np.full(pm * pn, np.nan, np.float32)  # what the kernel does not write stays NaN
    kq, nq, nt = k // 8, n // 8, -(-k // t.bk)
    T = t.invocations
    a_per, b_per = t.bm * (t.bk // 8) // T, t.bk * (t.bn // 8) // T
    tid = np.arange(T)
    ones = np.ones(T, bool)
    gx, gy, _ = t.groups(m, n)
    # the guards the GLSL keeps (all, or for a t.shape kernel those its shape needs)
    g_am, g_ak, g_bk, g_bn = guards(t, (m, n, k) if t.shape else None)

    def frag(S, off, stride):  # 16 x 16 halves, row-major, from uvec4 array S
        rows = [S[off + r * stride: off + r * stride + 2].reshape(-1) for r in range(FRAG)]
        return np.stack(rows).view(np.float16).astype(np.float32)

    for wy in range(gy):
        for wx in range(gx):
            ty, tx = tile_of(t, wx, wy, gx, gy)
            bm, bn = ty * t.bm, tx * t.bn
            As = np.full((t.stages * t.a_stage, 4), 0xFFFFFFFF, np.uint32)  # NaN halves
            Bs = np.full((t.stages * t.b_stage, 4), 0xFFFFFFFF, np.uint32)
            acc = np.zeros((t.sgm * t.sgn, t.fm, t.fn, FRAG, FRAG), np.float32)

            def load(step):
                ra, rb = [], []
                for s in range(a_per):
                    ar, aq = a_copy(t, tid, s)
                    r, q, idx = a_global(t, bm, ar, aq, step, kq)
                    ok = (r < m if g_am else True) & (q < kq if g_ak else True) & ones
                    v = np.zeros((T, 4), np.uint32)
                    v[ok] = A[idx[ok]]  # an unguarded load out of A raises IndexError
                    ra.append(v)
                for s in range(b_per):
                    br, bq = b_copy(t, tid, s)
                    r, q, idx = b_global(t, bn, br, bq, step, nq)
                    ok = (r < k if g_bk else True) & (q < nq if g_bn else True) & ones
                    v = np.zeros((T, 4), np.uint32)
                    v[ok] = B[idx[ok]]
                    rb.append(v)
                return ra, rb

            def store(buf, regs):
                ra, rb = regs
                for s in range(a_per):
                    As[a_shared(t, buf, *a_copy(t, tid, s))] = ra[s]
                for s in range(b_per):
                    Bs[b_shared(t, buf, *b_copy(t, tid, s))] = rb[s]

            def math(buf):
                for sg in range(t.sgm * t.sgn):
                    wm, wn = sg // t.sgn, sg % t.sgn
                    for kk in range(t.bk // FRAG):
                        fa = [frag(As, a_frag(t, buf, wm, i, kk), t.a_stride) for i in range(t.fm)]
                        fb = [frag(Bs, b_frag(t, buf, wn, j, kk), t.b_stride) for j in range(t.fn)]
                        for i in range(t.fm):
                            for j in range(t.fn):
                                acc[sg, i, j] += fa[i] @ fb[j]

            if t.stages == 2:
                store(0, load(0))
                for step in range(nt):
                    cur = step & 1
                    regs = load(step + 1) if step + 1 < nt else None
                    math(cur)
                    if regs is not None:
                        store(cur ^ 1, regs)
            else:
                regs = load(0)
                for step in range(nt):
                    store(0, regs)
                    if step + 1 < nt:
                        regs = load(step + 1)
                    math(0)
            for sg in range(t.sgm * t.sgn):
                wm, wn = sg // t.sgn, sg % t.sgn
                for i in range(t.fm):
                    for j in range(t.fn):
                        off = c_frag(t, bm, bn, wm, wn, i, j, pn)
                        for r in range(FRAG):
                            C[off + r * pn: off + r * pn + FRAG] = acc[sg, i, j, r]
    return C.reshape(pm, pn)


def manifest(t):
    """The hand-written manifest (SPIRV-Cross cannot reflect the module)."""
    return f"""vulpy_manifest: 1
kernel: main
entry_point: main
local_size: [{t.invocations}, 1, 1]
buffers:
  - {{name: a, set: 0, binding: 0, type: vec4<u32>, elem_size: 16, access: readonly}}
  - {{name: b, set: 0, binding: 1, type: vec4<u32>, elem_size: 16, access: readonly}}
  - {{name: c, set: 0, binding: 2, type: f32, elem_size: 4, access: writeonly}}
push_constants:
  size: 16
  fields:
    - {{name: m, type: u32, offset: 0, size: 4}}
    - {{name: "n", type: u32, offset: 4, size: 4}}
    - {{name: k, type: u32, offset: 8, size: 4}}
    - {{name: ldc, type: u32, offset: 12, size: 4}}
structs: []
shared_bytes: {t.shared_bytes}
features: [storage16, float16, subgroup_basic, vulkan_memory_model, cooperative_matrix]
"""
