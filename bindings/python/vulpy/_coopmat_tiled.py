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

Edges: M any size, N and K multiples of 8 (a uvec4 of a row is wholly
inside or wholly outside the matrix). A global load outside A or B reads
zeros instead (a guarded load, never out of bounds), so the partial tiles
of M, N and K add exact zeros; the output buffer is padded to whole tiles
(pad_m x pad_n, row stride ldc = pad_n) so every fragment store is in
bounds, and the caller keeps its m x n corner. Accumulation is float32;
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
    def b_stride(self):
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


def glsl(t):
    """The GLSL of tile configuration t (push constants m, n, k, ldc)."""
    t.check()
    T, AQ, BQ = t.invocations, t.bk // 8, t.bn // 8
    a_per, b_per = t.bm * AQ // T, t.bk * BQ // T
    sm, sn = t.bm // t.sgm, t.bn // t.sgn
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
    w(f"// vulpy coopmat tile: {t}")
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
    w("  uint tid = gl_LocalInvocationID.x;")
    w(f"  uint wm = gl_SubgroupID / {t.sgn}u, wn = gl_SubgroupID % {t.sgn}u;")
    w(f"  uint bm = gl_WorkGroupID.y * {t.bm}u, bn = gl_WorkGroupID.x * {t.bn}u;")
    w("  uint kq = pc.k / 8u, nq = pc.n / 8u;  // uvec4s per row of A, of B")
    w(f"  uint nt = (pc.k + {t.bk - 1}u) / {t.bk}u;  // K steps")
    # this invocation's uvec4s of the tile copies: A row ar_s chunk aq_s,
    # B row br_s chunk bq_s
    for s in range(a_per):
        w(f"  uint ar{s} = (tid + {s * T}u) / {AQ}u, aq{s} = (tid + {s * T}u) % {AQ}u;")
    for s in range(b_per):
        w(f"  uint br{s} = (tid + {s * T}u) / {BQ}u, bq{s} = (tid + {s * T}u) % {BQ}u;")
    for i in range(t.fm):
        for j in range(t.fn):
            w(f"  {acc_t} acc{i}_{j} = {acc_t}(0.0);")
    w("  " + " ".join(f"uvec4 ra{s};" for s in range(a_per)))
    w("  " + " ".join(f"uvec4 rb{s};" for s in range(b_per)))

    def load(step, ind):
        """Global -> registers for K step `step` (zeros outside A and B)."""
        for s in range(a_per):
            w(f"{ind}ra{s} = uvec4(0u);")
            w(f"{ind}{{ uint r = bm + ar{s}, q = ({step}) * {AQ}u + aq{s};")
            w(f"{ind}  if (r < pc.m && q < kq) ra{s} = a[r * kq + q]; }}")
        for s in range(b_per):
            w(f"{ind}rb{s} = uvec4(0u);")
            w(f"{ind}{{ uint r = ({step}) * {t.bk}u + br{s}, q = bn / 8u + bq{s};")
            w(f"{ind}  if (r < pc.k && q < nq) rb{s} = b[r * nq + q]; }}")

    def store(buf, ind):
        """Registers -> shared buffer `buf`."""
        for s in range(a_per):
            w(f"{ind}As[({buf}) * {t.a_stage}u + ar{s} * {t.a_stride}u + aq{s}] = ra{s};")
        for s in range(b_per):
            w(f"{ind}Bs[({buf}) * {t.b_stage}u + br{s} * {t.b_stride}u + bq{s}] = rb{s};")

    def math(buf, ind):
        """The MMAs of one K step from shared buffer `buf`."""
        for kk in range(t.bk // FRAG):
            w(f"{ind}{{  // K sub-step {kk}")
            for i in range(t.fm):
                off = f"({buf}) * {t.a_stage}u + (wm * {sm}u + {FRAG * i}u) * {t.a_stride}u + " \
                      f"{2 * kk}u"
                w(f"{ind}  {h_t} fa{i}; coopMatLoadNV(fa{i}, As, {off}, {t.a_stride}u, false);")
            for j in range(t.fn):
                off = f"({buf}) * {t.b_stage}u + {FRAG * kk * t.b_stride}u + " \
                      f"(wn * {sn}u + {FRAG * j}u) / 8u"
                w(f"{ind}  {h_t} fb{j}; coopMatLoadNV(fb{j}, Bs, {off}, {t.b_stride}u, false);")
            for i in range(t.fm):
                for j in range(t.fn):
                    w(f"{ind}  acc{i}_{j} = coopMatMulAddNV(fa{i}, fb{j}, acc{i}_{j});")
            w(f"{ind}}}")

    if t.stages == 2:
        load("0u", "  ")
        store("0u", "  ")
        w("  barrier();")
        w("  for (uint t = 0u; t < nt; t++) {")
        w("    uint cur = t & 1u;")
        w("    bool more = t + 1u < nt;")
        w("    if (more) {  // the next step's loads, in flight during the math")
        load("t + 1u", "      ")
        w("    }")
        math("cur", "    ")
        w("    if (more) {  // into the other buffer: nobody reads it until the barrier")
        store("cur ^ 1u", "      ")
        w("    }")
        w("    barrier();")
        w("  }")
    else:
        load("0u", "  ")
        w("  for (uint t = 0u; t < nt; t++) {")
        w("    barrier();  // everyone has read the last step's tile")
        store("0u", "    ")
        w("    barrier();")
        w("    if (t + 1u < nt) {  // the next step's loads, in flight during the math")
        load("t + 1u", "      ")
        w("    }")
        math("0u", "    ")
        w("  }")
    for i in range(t.fm):
        for j in range(t.fn):
            w(f"  coopMatStoreNV(acc{i}_{j}, c, (bm + wm * {sm}u + {FRAG * i}u) * pc.ldc + "
              f"bn + wn * {sn}u + {FRAG * j}u, pc.ldc, false);")
    w("}")
    return "\n".join(L) + "\n"


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
