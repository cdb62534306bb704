/* tiled.c - scans and long reductions of the lower-arrays pass, tiled.
 *
 * See the comment below: lines longer than a tile are cut into tiles,
 * one invocation per (line, tile), over several kernels.
 */
#include "lower_arrays.h"

/* ------------------------------------------- tiled scans and reductions
 *
 * A scan, or a reduction whose reduced extent R is long, must not loop
 * over a whole line in one invocation: besides being serial, lavapipe
 * ends every loop of an invocation silently after ~65,535 back-edges in
 * all (LP_MAX_TGSI_LOOP_ITERATIONS), which cut cumsum off at 2^16. So a
 * line of D elements is cut into tiles of TILE, one invocation per
 * (line, tile); the tiles' totals form lines of ceil(D / TILE) elements,
 * cut again until a line fits in a tile. A scan runs up the levels
 * (totals) and back down (each tile rescanned from the total of the
 * tiles before it); a reduction runs up and finishes at the top. Every
 * loop of every invocation is at most TILE iterations (plus a
 * grid-stride loop over the tiles that runs once below 2^24 tiles). */
enum { TILE = 1024, MAX_LEVELS = 4 };

/* A temporary buffer of the module (the host gives it memory). */
static vir_sym *temp_buffer(lw *l, const char *suffix, vir_type *t, uint64_t count) {
  vir_sym *b = vir_add_buffer(l->m, vla_kname(l, suffix), t, 0, 0, VIR_ACCESS_READWRITE, l->b.loc);
  if (!b) {
    l->failed = true;
    return NULL;
  }
  b->count = count ? count : 1;
  b->binding = 0;
  for (uint32_t q = 0; q < l->m->syms.len; q++) {
    const vir_sym *o = l->m->syms.data[q];
    if (o != b && o->kind == VIR_SYM_BUFFER && o->set == 0 && o->binding >= b->binding)
      b->binding = o->binding + 1;
  }
  return b;
}

/* The level sizes: n[0] = D, n[i + 1] = ceil(n[i] / TILE), until one fits
 * in a tile. Returns the top level's index. */
static uint32_t tile_levels(uint64_t D, uint64_t *n) {
  uint32_t m = 0;
  n[0] = D;
  while (n[m] > TILE && m + 1 < MAX_LEVELS) {
    n[m + 1] = (n[m] + TILE - 1) / TILE;
    m++;
  }
  /* lower_kernel refuses arrays of 2^32 elements or more: 4 levels of
   * TILE = 2^10 hold them */
  assert(n[m] <= TILE);
  return m;
}

typedef struct tile {
  vir_value *t, *line, *c, *lo, *hi; /* tile, its line and index there, its range */
  saved so, si;
} tile;

/* for t in tiles (grid-stride) { line, c = t / nc, t % nc; lo, hi =
 * c * TILE, min(c * TILE + TILE, D) ...: the caller opens the inner loop
 * over [lo, hi) and closes both. *g: the groups. */
static void tile_begin(lw *l, uint64_t lines, uint64_t D, tile *T, uint32_t *g) {
  uint64_t nc = D ? (D + TILE - 1) / TILE : 0;
  *g = vla_groups_for(lines * nc, WG, MAX_GROUPS);
  vir_value *gid = vla_id_x(l, VIR_OP_GLOBAL_ID);
  T->t = vla_for_begin(l, gid, vla_ku(l, lines * nc), vla_ku(l, (uint64_t)*g * WG), &T->so);
  T->line = nc <= 1 ? T->t : vla_bin(l, VIR_OP_DIV, T->t, vla_ku(l, nc));
  T->c = nc <= 1 ? vla_ku(l, 0) : vla_bin(l, VIR_OP_REM, T->t, vla_ku(l, nc));
  T->lo = vla_bin(l, VIR_OP_MUL, T->c, vla_ku(l, TILE));
  /* lo + min(TILE, D - lo): no u32 overflow near 2^32 */
  T->hi = vla_bin(l, VIR_OP_ADD, T->lo, vla_bin(l, VIR_OP_MIN, vla_ku(l, TILE), vla_bin(l, VIR_OP_SUB, vla_ku(l, D), T->lo)));
}

/* What a scan or reduction tile starts from: the identity, or for a
 * scan's tile c > 0 the inclusive total of tiles 0..c-1 of its line
 * (offs, a line of nc per line). */
static accum tile_acc(lw *l, const red *r, tile *T, vir_sym *offs, uint64_t nc) {
  accum a = vla_acc_new(l, r);
  if (offs && a.v) {
    vir_value *pos = vla_bin(l, VIR_OP_GT, T->c, vla_ku(l, 0));
    vir_value *prev = vla_bin(l, VIR_OP_SUB, vla_bin(l, VIR_OP_MAX, T->c, vla_ku(l, 1)), vla_ku(l, 1));
    vir_value *at = vla_bin(l, VIR_OP_ADD, vla_bin(l, VIR_OP_MUL, T->line, vla_ku(l, nc)), prev);
    vir_value *o = vla_mem_load(l, VIR_OP_BUFFER_LOAD, offs, at, r->acc, false);
    vla_lstore(l, a.v, vla_sel(l, pos, o, vla_lload(l, a.v)));
  }
  return a;
}

/* Level i >= 1 of a tiled scan or reduction, over buffers: up (dst set):
 * dst[t] = the total of tile t of src (lines of D); down (offs set, or
 * neither at the top): src's tile rescanned in place from offs. */
static uint32_t kernel_tile_level(lw *l, const red *r, uint64_t lines, uint64_t D, vir_sym *src,
                                  vir_sym *srci, vir_sym *dst, vir_sym *dsti, vir_sym *offs) {
  tile T;
  uint32_t g;
  tile_begin(l, lines, D, &T, &g);
  accum a = tile_acc(l, r, &T, offs, (D + TILE - 1) / TILE); /* lives across the inner loop */
  vir_value *j = vla_for_begin(l, T.lo, T.hi, vla_ku(l, 1), &T.si);
  vir_value *at = vla_bin(l, VIR_OP_ADD, vla_bin(l, VIR_OP_MUL, T.line, vla_ku(l, D)), j);
  vir_value *x = vla_mem_load(l, VIR_OP_BUFFER_LOAD, src, at, r->acc, false);
  if (r->arg)
    vla_acc_add(l, r, a, x, vla_mem_load(l, VIR_OP_BUFFER_LOAD, srci, at, vla_u32t(l), false));
  else
    vla_acc_add(l, r, a, x, NULL);
  if (!dst)
    vla_mem_store(l, VIR_OP_BUFFER_STORE, src, at, vla_lload(l, a.v));
  vla_leave(l, T.si);
  if (dst) {
    vla_mem_store(l, VIR_OP_BUFFER_STORE, dst, T.t, vla_lload(l, a.v));
    if (dsti)
      vla_mem_store(l, VIR_OP_BUFFER_STORE, dsti, T.t, vla_lload(l, a.i));
  }
  vla_leave(l, T.so);
  return g;
}

/* Level 0 of a tiled scan: up (dst set): dst[t] = the total of tile t of
 * the input; down: the tile's scan, from offs, stored to the result. */
static uint32_t kernel_scan_level0(lw *l, vir_op *sop, vir_op *rs, const red *r, vir_sym *dst,
                                   vir_sym *offs) {
  const vir_type *in = sop->opnd[0]->type;
  uint32_t k = sop->attr.arr->axes[0], ld[VIR_MAX_RANK], nl = 0;
  uint64_t D = in->dims[k];
  for (uint32_t i = 0; i < in->n; i++)
    if (i != k)
      ld[nl++] = in->dims[i];
  const vir_type *lines = vir_ty_tensor(l->m, in->elem, nl, ld);
  uint64_t L = D ? vir_ty_numel(lines) : 0, nc = D ? (D + TILE - 1) / TILE : 0;
  tile T;
  uint32_t g;
  tile_begin(l, L, D, &T, &g);
  accum a = tile_acc(l, r, &T, offs, nc);
  idx *li = vla_new_idx(l, lines, T.line);
  vir_value *j = vla_for_begin(l, T.lo, T.hi, vla_ku(l, 1), &T.si);
  idx *ix = vla_new_idx(l, in, NULL);
  if (li && ix) {
    for (uint32_t i = 0, q = 0; i < in->n; i++)
      ix->multi[i] = i == k ? j : vla_dim_index(l, li, q++);
    vir_value *x = vla_emit(l, sop->opnd[0], ix);
    if (x) {
      vir_value *s = vla_combine(l, r, vla_lload(l, a.v), vla_lift(l, r, x));
      vla_lstore(l, a.v, s);
      if (!dst)
        vla_store_elem(l, rs->attr.sym, vla_view_offset(l, rs->opnd[0]->type, rs->attr.arr, ix), s);
    }
  }
  vla_leave(l, T.si);
  if (dst)
    vla_mem_store(l, VIR_OP_BUFFER_STORE, dst, T.t, vla_lload(l, a.v));
  vla_leave(l, T.so);
  return g;
}

/* The reduction a scan runs: its code, and an accumulator of the
 * result's type (cummax / cummin: the input's, which verify asks of the
 * result). */
static red scan_red(vir_op *sop) {
  vir_opcode code = sop->code == VIR_OP_ARRAY_CUMSUM    ? VIR_OP_ARRAY_SUM
                    : sop->code == VIR_OP_ARRAY_CUMPROD ? VIR_OP_ARRAY_PROD
                    : sop->code == VIR_OP_ARRAY_CUMMAX  ? VIR_OP_ARRAY_MAX
                                                        : VIR_OP_ARRAY_MIN;
  red r = {.code = code, .in = sop->opnd[0]->type->elem, .res = sop->val.type->elem};
  r.acc = r.res;
  return r;
}

/* A scan in segments of a dynamic extent (ops.def): an invocation per
 * line o below the push field n, its len elements inner apart from
 * (o / inner) * len * inner + o % inner scanned in place into the result
 * (the host keeps len within TILE, the loop budget); the grid, from n, is
 * lower_arrays.c's segment_grid of lines. */
void vla_kernel_segment_scan(lw *l, vir_op *sop, vir_op *rs) {
  red r = scan_red(sop);
  segline sl;
  if (!vla_segment_lines(l, sop, &sl))
    return;
  saved si;
  accum a = vla_acc_new(l, &r);
  vir_value *q = vla_for_begin(l, vla_ku(l, 0), sl.len, vla_ku(l, 1), &si);
  vir_value *at = vla_bin(l, VIR_OP_ADD, sl.base, vla_bin(l, VIR_OP_MUL, q, sl.inner));
  vir_value *x = vla_emit(l, sop->opnd[0], vla_new_idx(l, sop->opnd[0]->type, at));
  if (x) {
    vir_value *s = vla_combine(l, &r, vla_lload(l, a.v), vla_lift(l, &r, x));
    vla_lstore(l, a.v, s);
    vla_store_elem(l, rs->attr.sym, at, s);
  }
  vla_leave(l, si);
  vla_leave(l, sl.so);
}

/* A scan along axis k: kernels up the levels, then down (see above). A
 * line that fits in a tile is one kernel, an invocation per line. */
bool vla_lower_scan(lw *l, vir_op *K, const char *name, vir_op *sop, vir_op *rs) {
  const vir_type *in = sop->opnd[0]->type;
  uint64_t D = in->dims[sop->attr.arr->axes[0]];
  uint64_t L = D ? vir_ty_numel(in) / D : 0;
  uint64_t n[MAX_LEVELS];
  uint32_t m = tile_levels(D, n);
  red r = scan_red(sop);
  vir_sym *part[MAX_LEVELS] = {0};
  uint32_t kn = 0;
#define NEXT_KERNEL() vla_start_kernel(l, K, kn++ ? vp_arena_printf(&l->m->arena, "%s_%u", name, kn - 1) : name)
  for (uint32_t i = 0; i < m; i++) { /* up */
    if (!NEXT_KERNEL())
      return false;
    part[i + 1] = temp_buffer(l, "tiles", r.acc, L * n[i + 1]);
    uint32_t g = i == 0 ? kernel_scan_level0(l, sop, rs, &r, part[1], NULL)
                        : kernel_tile_level(l, &r, L, n[i], part[i], NULL, part[i + 1], NULL, NULL);
    if (!vla_end_kernel(l, K, g))
      return false;
  }
  for (uint32_t i = m + 1; i-- > 0;) { /* down */
    if (!NEXT_KERNEL())
      return false;
    vir_sym *offs = i < m ? part[i + 1] : NULL;
    uint32_t g = i == 0 ? kernel_scan_level0(l, sop, rs, &r, NULL, offs)
                        : kernel_tile_level(l, &r, L, n[i], part[i], NULL, NULL, NULL, offs);
    if (!vla_end_kernel(l, K, g))
      return false;
  }
  return true;
}

/* The reductions kernel_full_reduce lowers: one result element and every
 * axis reduced, with or without kept dims. Reducing the last axis of a 1x4
 * array with kept dims also has one element but is a partial reduction,
 * which reads scalars: a vec4 plan for it did not verify. */
bool vla_full_reduction(const vir_op *rop) {
  if (rop->nopnd > 1) /* in segments (ops.def) */
    return false;
  uint32_t nin = rop->opnd[0]->type->n, nax = rop->attr.arr->naxes;
  return vir_ty_numel(rop->val.type) == 1 && (rop->val.type->n + nax == nin || nax == nin);
}

/* Whether a reduction over some axes is tiled: its reduced extent would
 * take one invocation (or, cooperatively, one workgroup) more than TILE
 * (MAX_ITER) iterations. */
bool vla_tiled_reduction(vir_op *rop) {
  const vir_type *in = rop->opnd[0]->type;
  const vir_array_attr *ax = rop->attr.arr;
  if (rop->nopnd > 1 || vla_full_reduction(rop))
    return false; /* in segments (the host keeps them short), or a full reduction: its own grid */
  uint64_t R = 1;
  bool suffix = true;
  for (uint32_t i = 0; i < ax->naxes; i++) {
    R *= in->dims[ax->axes[i]];
    suffix &= ax->axes[i] == in->n - ax->naxes + i;
  }
  if (suffix && R >= COOP_MIN)
    return R > (uint64_t)WG * MAX_ITER;
  return R > TILE;
}

/* red_info without shared memory (no workgroup tree). */
red vla_plain_red(lw *l, vir_op *rop) {
  const vir_type *in = rop->opnd[0]->type;
  red r = {.code = rop->code, .in = in->elem, .res = rop->val.type->elem};
  r.arg = rop->code == VIR_OP_ARRAY_ARGMIN || rop->code == VIR_OP_ARRAY_ARGMAX;
  r.acc = r.arg || rop->code == VIR_OP_ARRAY_MIN || rop->code == VIR_OP_ARRAY_MAX ? r.in
          : rop->code == VIR_OP_ARRAY_ANY || rop->code == VIR_OP_ARRAY_ALL ? vla_u32t(l) : r.res;
  if (r.acc->kind == VIR_TY_BOOL) /* bool min/max accumulate as u32 0/1 */
    r.acc = vla_u32t(l);
  return r;
}

/* A reduction with a long reduced extent: level 0 reduces tiles of the
 * input's reduced elements (an output's, flat) into totals, the levels
 * above reduce the totals, and the last kernel (an invocation per output,
 * at most TILE totals) finishes and stores. */
bool vla_lower_tiled_reduce(lw *l, vir_op *K, const char *name, vir_op *rop, vir_op *rs,
                               vir_op **stores, uint32_t ns) {
  const vir_type *in = rop->opnd[0]->type;
  const vir_array_attr *ax = rop->attr.arr;
  uint64_t R = 1;
  for (uint32_t i = 0; i < ax->naxes; i++)
    R *= in->dims[ax->axes[i]];
  uint64_t O = vir_ty_numel(in) / R; /* R > TILE: not 0 */
  uint64_t n[MAX_LEVELS];
  uint32_t m = tile_levels(R, n);
  red r = vla_plain_red(l, rop);
  r.count = R;
  vir_sym *part[MAX_LEVELS] = {0}, *parti[MAX_LEVELS] = {0};
  uint32_t kn = 0;
  for (uint32_t i = 0; i < m; i++) {
    if (!NEXT_KERNEL())
      return false;
    part[i + 1] = temp_buffer(l, "tiles", r.acc, O * n[i + 1]);
    parti[i + 1] = r.arg ? temp_buffer(l, "tilesi", vla_u32t(l), O * n[i + 1]) : NULL;
    uint32_t g;
    if (i == 0) {
      tile T;
      tile_begin(l, O, R, &T, &g);
      accum a = vla_acc_new(l, &r);
      vir_value *q = vla_for_begin(l, T.lo, T.hi, vla_ku(l, 1), &T.si);
      idx *ix = vla_split_index(l, in, ax, T.line, q);
      vir_value *x = ix ? vla_emit(l, rop->opnd[0], ix) : NULL;
      if (x)
        vla_acc_add(l, &r, a, vla_lift(l, &r, x), q);
      if (ix)
        vla_emit_stores(l, stores, ns, ix);
      vla_leave(l, T.si);
      vla_mem_store(l, VIR_OP_BUFFER_STORE, part[1], T.t, vla_lload(l, a.v));
      if (a.i)
        vla_mem_store(l, VIR_OP_BUFFER_STORE, parti[1], T.t, vla_lload(l, a.i));
      vla_leave(l, T.so);
    } else {
      g = kernel_tile_level(l, &r, O, n[i], part[i], parti[i], part[i + 1], parti[i + 1], NULL);
    }
    if (!vla_end_kernel(l, K, g))
      return false;
  }
  /* the top: an invocation per output over its n[m] <= TILE totals */
  if (!NEXT_KERNEL())
    return false;
  uint32_t g = vla_groups_for(O, WG, MAX_GROUPS);
  saved so, si;
  vir_value *gid = vla_id_x(l, VIR_OP_GLOBAL_ID);
  vir_value *o = vla_for_begin(l, gid, vla_ku(l, O), vla_ku(l, (uint64_t)g * WG), &so);
  accum a = vla_acc_new(l, &r);
  vir_value *j = vla_for_begin(l, vla_ku(l, 0), vla_ku(l, n[m]), vla_ku(l, 1), &si);
  vir_value *at = vla_bin(l, VIR_OP_ADD, vla_bin(l, VIR_OP_MUL, o, vla_ku(l, n[m])), j);
  vir_value *x = vla_mem_load(l, VIR_OP_BUFFER_LOAD, part[m], at, r.acc, false);
  vla_acc_add(l, &r, a, x, r.arg ? vla_mem_load(l, VIR_OP_BUFFER_LOAD, parti[m], at, vla_u32t(l), false) : NULL);
  vla_leave(l, si);
  vla_store_result(l, rs, o, vla_finish(l, &r, vla_lload(l, a.v), a.i ? vla_lload(l, a.i) : NULL));
  vla_leave(l, so);
  return vla_end_kernel(l, K, g);
#undef NEXT_KERNEL
}
