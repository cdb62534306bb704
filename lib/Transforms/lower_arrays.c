/* lower_arrays.c - the `lower-arrays` pass: array functions into kernels.
 *
 * An array function that `fuse` has not partitioned is first partitioned
 * one op per kernel (arrays.c, SPLIT mode). Then each array.kernel region
 * becomes a kernel `@F_kN` (local size 256) and, in the array function, an
 * `array.launch @F_kN(gx, gy, gz)`: the list of launches is what the host
 * runs, in order.
 *
 * Code is generated per element (docs/fusion.md, "Lowering"): emit(v, I)
 * gives the scalar value of tensor v at index I, recursively: a load reads
 * its buffer at offset + sum(I_k * stride_k); an elementwise op applies
 * the scalar op to its operands at I; broadcast, reshape, transpose and
 * slice rewrite I; take reads its indices at part of I and its source at
 * the gathered index. An index is a flat row-major position, a
 * multi-index, or both, each computed from the other only when needed, so
 * a chain over contiguous arrays reads `@a[%i]` with no index arithmetic.
 * Within one loop body a value is emitted once per index (a memo).
 *
 * Kernel shapes, by what the region stores:
 *   elementwise  a grid-stride loop over the stored shape;
 *   reduction over all axes: a grid-stride loop accumulating per
 *     invocation, a workgroup tree (subgroup ops, then a shared-memory tree
 *     over the subgroups' results; shared memory only without subgroup
 *     arithmetic), each workgroup's result in a partials buffer, and the
 *     last workgroup to finish (an atomic counter) reduces the partials and
 *     writes the result: one dispatch;
 *   reduction over trailing axes (at least 64 elements each): a workgroup
 *     per output element, the same tree;
 *   other reductions: an invocation per output element, a loop;
 *   scan: an invocation per line along the axis, a loop, for lines of
 *     up to TILE; longer lines and long reductions are tiled (see
 *     "tiled scans and reductions");
 *   scatter: a grid-stride loop over the values.
 * Bools are stored as u32 words or bytes; 8-bit buffers on devices without
 * 8-bit storage are read as u32 words and written with atomic and/or.
 * So are 16-bit buffers (int16, uint16, float16) on devices without 16-bit
 * storage, and the small types whose arithmetic feature (int8, int16,
 * float16) the device lacks: in the kernel such a value is its bits in a
 * u32 (zero-extended); casts decode and encode them ("small types
 * emulated in words" below; float16 rounds to nearest even as NumPy).
 */
#include "arrays.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* WG: the local size. MAX_GROUPS: the X group count every device takes.
 * ROW_GROUPS: the X count of a 2-D grid (a power of two, so the grid's
 * last index, rows * ROW_GROUPS * WG - 1, stays below 2^32). RED_TILE:
 * elements per invocation of a full reduction (four iterations of UNROLL
 * vec4s) until RED_GROUPS workgroups; past that the tile grows. Many
 * short workgroups, not one per SM slot: a grid of about as many groups
 * as a device holds at once (the former 1024, an H200's 132 x 8 of 256)
 * runs a second, partial wave whenever registers let fewer be resident,
 * and Vulkan does not say how many are. 4096: the best of the H200 sweep
 * (bench fusion, a sum of 2^28 float32; bench/notes/fusion.md), with 2048
 * and 8192 close and 16384 slower; the partials are cheap to finish (FIN_UNROLL
 * loads in flight per invocation of the last workgroup).
 * RED_GROUPS_CPU: the cap on a CPU device, which pays per workgroup for
 * the tree and has no waves to fill.
 * UNROLL: independent vec4 loads per iteration of a full reduction. */
enum {
  WG = 256,
  MAX_GROUPS = 65535,
  ROW_GROUPS = 32768,
  RED_GROUPS = VIR_REDUCE_GROUPS_GPU,
  RED_GROUPS_CPU = VIR_REDUCE_GROUPS_CPU,
  RED_TILE = 64,
  COOP_MIN = 64,
  UNROLL = 4,
  FIN_UNROLL = 8,
  /* the most iterations a library loop makes in one invocation (lavapipe
   * ends loops silently after ~65,535 in all; see "tiled" below) */
  MAX_ITER = 16384,
};

typedef struct idx {
  const vir_type *shape;
  vir_value *flat;
  vir_value *multi[VIR_MAX_RANK];
  bool have_multi;
  vir_value *quad; /* vec4 kernels: the vec4 index; flat = 4 * quad + lane */
  uint32_t lane;
} idx;

typedef struct memo {
  const vir_value *v;
  const idx *ix;
  vir_value *r;
} memo;

typedef struct lw {
  vir_module *m;
  vp_diags *d;
  const vir_pass_options *o;
  vir_func *af;  /* the array function */
  vir_func *k;   /* the kernel being built */
  vir_builder b; /* where the kernel's code goes */
  vir_op *pro;   /* the last prologue op (constants, push loads), or NULL */
  vp_arena tmp;
  memo *memo;
  uint32_t nmemo, capmemo;
  vir_value **scal; /* by array-function value id: the kernel's copy of a scalar */
  uint32_t nscal;
  uint32_t nlocals;
  vp_ptrvec packed; /* 8/16-bit buffers retyped to u32 words (small types emulated) */
  vp_ptrvec packed_elem; /* each one's element type before (parallel to packed) */
  vir_value *consts[128]; /* the kernel's constants */
  uint32_t nconsts;
  vir_value *ids[4]; /* global_id.x, workgroup_id.x, local_index, global_id.y */
  uint32_t gy;       /* the launch's Y group count (2-D elementwise grids) */
  vp_ptrvec vec4;      /* buffers retyped to vec4 elements (vec4 kernels) */
  struct {
    const vir_sym *s;
    const vir_value *quad;
    vir_value *v;
  } quads[64];         /* this loop body's vec4 loads */
  uint32_t nquads;
  bool failed;
} lw;

/* ------------------------------------------------------------- building */

static vir_type *u32t(lw *l) { return vir_ty_uint(l->m, 32); }

static vir_value *op_(lw *l, vir_opcode c, vir_type *t, uint32_t n, vir_value *const *a) {
  vir_op *op = t ? vir_build(&l->b, c, t, n, a) : vir_build_auto(&l->b, c, n, a);
  if (!op) {
    l->failed = true;
    return NULL;
  }
  return vir_result(op) ? &op->val : NULL;
}
static vir_value *bin(lw *l, vir_opcode c, vir_value *a, vir_value *b) {
  vir_value *v[2] = {a, b};
  return op_(l, c, NULL, 2, v);
}
static vir_value *un(lw *l, vir_opcode c, vir_value *a) { return op_(l, c, NULL, 1, &a); }
static vir_value *cast(lw *l, vir_value *a, vir_type *t) {
  return a->type == t ? a : op_(l, VIR_OP_CAST, t, 1, &a);
}
static vir_value *sel(lw *l, vir_value *c, vir_value *a, vir_value *b) {
  vir_value *v[3] = {c, a, b};
  return op_(l, VIR_OP_SELECT, a->type, 3, v);
}

/* A constant in the kernel's prologue (visible everywhere in it), made
 * once per kernel. */
static vir_value *konst(lw *l, vir_type *t, vir_literal v) {
  v = vir_lit_normalize(t, v);
  for (uint32_t i = 0; i < l->nconsts; i++) {
    vir_value *c = l->consts[i];
    if (c->type == t && c->def->attr.lit.u == v.u)
      return c;
  }
  vir_builder pb = l->b;
  pb.region = &l->k->body;
  pb.before = l->pro ? l->pro->next : l->k->body.first;
  vir_op *op = vir_build(&pb, VIR_OP_CONST, t, 0, NULL);
  if (!op) {
    l->failed = true;
    return NULL;
  }
  op->attr.lit = v;
  l->pro = op;
  if (l->nconsts < sizeof l->consts / sizeof *l->consts)
    l->consts[l->nconsts++] = &op->val;
  return &op->val;
}
static vir_value *ku(lw *l, uint64_t v) { return konst(l, u32t(l), (vir_literal){.u = v}); }

/* The largest / smallest value of a scalar type (float: +-inf). */
static vir_value *extreme(lw *l, vir_type *t, bool max) {
  vir_literal v = {0};
  if (t->kind == VIR_TY_FLOAT)
    v.f = max ? INFINITY : -INFINITY;
  else if (t->kind == VIR_TY_INT)
    v.i = max ? (t->bits == 64 ? INT64_MAX : (INT64_C(1) << (t->bits - 1)) - 1)
              : (t->bits == 64 ? INT64_MIN : -(INT64_C(1) << (t->bits - 1)));
  else if (t->kind == VIR_TY_UINT)
    v.u = max ? (t->bits == 64 ? UINT64_MAX : (UINT64_C(1) << t->bits) - 1) : 0;
  else
    v.b = max;
  return konst(l, t, v);
}

static vir_value *num(lw *l, vir_type *t, double x) {
  vir_literal v = {0};
  if (t->kind == VIR_TY_FLOAT)
    v.f = x;
  else if (t->kind == VIR_TY_BOOL)
    v.b = x != 0;
  else
    v.i = (int64_t)x;
  return konst(l, t, v);
}

/* A local of the kernel (accumulators live across loop iterations). */
static vir_sym *local(lw *l, const char *base, vir_type *t) {
  char name[48];
  snprintf(name, sizeof name, "%s%u", base, l->nlocals++);
  vir_sym *s = vir_func_add_local(l->m, l->k, name, t, l->b.loc);
  if (!s)
    l->failed = true;
  return s;
}
static vir_value *lload(lw *l, vir_sym *s) {
  vir_op *op = vir_build(&l->b, VIR_OP_LOCAL_LOAD, s->type, 0, NULL);
  if (!op) {
    l->failed = true;
    return NULL;
  }
  op->attr.sym = s;
  return &op->val;
}
static void lstore(lw *l, vir_sym *s, vir_value *v) {
  vir_op *op = vir_build(&l->b, VIR_OP_LOCAL_STORE, NULL, 1, &v);
  if (!op) {
    l->failed = true;
    return;
  }
  op->attr.sym = s;
}

static vir_value *mem_load(lw *l, vir_opcode c, vir_sym *s, vir_value *i, vir_type *t, bool vol) {
  vir_op *op = vir_build(&l->b, c, t, 1, &i);
  if (!op) {
    l->failed = true;
    return NULL;
  }
  op->attr.sym = s;
  if (vol)
    op->flags |= VIR_OPF_VOLATILE;
  return &op->val;
}
static void mem_store(lw *l, vir_opcode c, vir_sym *s, vir_value *i, vir_value *v) {
  vir_value *a[2] = {i, v};
  vir_op *op = vir_build(&l->b, c, NULL, 2, a);
  if (!op) {
    l->failed = true;
    return;
  }
  op->attr.sym = s;
}
static vir_value *atomic(lw *l, vir_opcode c, vir_sym *s, vir_value *i, vir_value *v) {
  vir_value *a[2] = {i, v};
  vir_op *op = vir_build(&l->b, c, s->type, 2, a);
  if (!op) {
    l->failed = true;
    return NULL;
  }
  op->attr.sym = s;
  op->attr.scope = VIR_SCOPE_DEVICE;
  op->attr.sem = VIR_SEM_ACQ_REL;
  return &op->val;
}

/* global_id.x, workgroup_id.x or local_index (or global_id.y: y set),
 * once per kernel, in its prologue. */
static vir_value *id_xy(lw *l, vir_opcode c, bool y) {
  int slot = y ? 3 : c == VIR_OP_GLOBAL_ID ? 0 : c == VIR_OP_WORKGROUP_ID ? 1 : 2;
  if (l->ids[slot])
    return l->ids[slot];
  vir_builder pb = l->b;
  pb.region = &l->k->body;
  pb.before = l->pro ? l->pro->next : l->k->body.first;
  vir_op *e;
  if (c == VIR_OP_LOCAL_INDEX) {
    e = vir_build(&pb, c, u32t(l), 0, NULL);
  } else {
    vir_op *v = vir_build(&pb, c, vir_ty_vec(l->m, u32t(l), 3), 0, NULL);
    e = v ? vir_build(&pb, VIR_OP_EXTRACT, u32t(l), 1, (vir_value *[]){&v->val}) : NULL;
    if (e)
      e->attr.index = y ? 1 : 0;
  }
  if (!e) {
    l->failed = true;
    return NULL;
  }
  l->pro = e;
  return l->ids[slot] = &e->val;
}
static vir_value *id_x(lw *l, vir_opcode c) { return id_xy(l, c, false); }

static void barrier(lw *l) { op_(l, VIR_OP_BARRIER, vir_ty_void(l->m), 0, NULL); }

static void mbarrier(lw *l) {
  vir_op *op = vir_build(&l->b, VIR_OP_MEMORY_BARRIER, NULL, 0, NULL);
  if (!op) {
    l->failed = true;
    return;
  }
  op->attr.scope = VIR_SCOPE_DEVICE;
  op->attr.sem = VIR_SEM_ACQ_REL;
  op->attr.storage = VIR_STORAGE_BUFFER;
}

/* Control flow: the builder moves into the new region; *_end moves back. */
typedef struct saved {
  vir_region *region;
  vir_op *before;
  uint32_t nmemo;
} saved;

static saved enter(lw *l, vir_region *r) {
  saved s = {l->b.region, l->b.before, l->nmemo};
  vir_builder_at_end(&l->b, r);
  return s;
}
static void leave(lw *l, saved s) {
  l->b.region = s.region;
  l->b.before = s.before;
  l->nmemo = s.nmemo; /* values emitted inside are not visible after it */
}

/* for %i = lo to hi step st { ... }: returns %i */
static vir_value *for_begin(lw *l, vir_value *lo, vir_value *hi, vir_value *st, saved *sv) {
  vir_value *a[3] = {lo, hi, st};
  *sv = (saved){l->b.region, l->b.before, l->nmemo};
  vir_op *op = vir_build(&l->b, VIR_OP_FOR, NULL, 3, a);
  if (!op) {
    l->failed = true;
    return NULL;
  }
  *sv = enter(l, &op->regions[0]);
  return op->regions[0].args[0];
}

static void if_begin(lw *l, vir_value *c, saved *sv) {
  *sv = (saved){l->b.region, l->b.before, l->nmemo};
  vir_op *op = vir_build(&l->b, VIR_OP_IF, NULL, 1, &c);
  if (!op) {
    l->failed = true;
    return;
  }
  *sv = enter(l, &op->regions[0]);
}

static uint32_t groups_for(uint64_t n, uint64_t per_group, uint32_t cap) {
  uint64_t g = (n + per_group - 1) / per_group;
  return g < 1 ? 1 : g > cap ? cap : (uint32_t)g;
}

/* One item (an element, or a vec4 of them) per invocation, like a
 * hand-written kernel: a 1-D grid up to MAX_GROUPS workgroups, else rows
 * of ROW_GROUPS workgroups (item = x + y * row). No loop: a grid-stride
 * loop costs a loop per invocation where the back end cannot prove it
 * runs once (masked loops on CPU devices). `if (i < items)` only when
 * the grid is larger than the items. Sets *gx and l->gy; *open says
 * whether item_end must close the `if`. */
static vir_value *item_begin(lw *l, uint64_t items, uint32_t *gx, saved *sv, bool *open) {
  vir_value *i;
  uint64_t cover;
  if (items <= (uint64_t)MAX_GROUPS * WG) {
    *gx = groups_for(items, WG, MAX_GROUPS);
    l->gy = 1;
    i = id_x(l, VIR_OP_GLOBAL_ID);
    cover = (uint64_t)*gx * WG;
  } else {
    uint64_t row = (uint64_t)ROW_GROUPS * WG;
    *gx = ROW_GROUPS;
    l->gy = (uint32_t)((items + row - 1) / row);
    vir_value *y = bin(l, VIR_OP_MUL, id_xy(l, VIR_OP_GLOBAL_ID, true), ku(l, row));
    i = bin(l, VIR_OP_ADD, id_x(l, VIR_OP_GLOBAL_ID), y);
    cover = row * l->gy;
  }
  *open = cover != items;
  if (*open)
    if_begin(l, bin(l, VIR_OP_LT, i, ku(l, items)), sv);
  return i;
}

static void item_end(lw *l, saved sv, bool open) {
  if (open)
    leave(l, sv);
}

/* ---------------------------------------------------------------- index */

static idx *new_idx(lw *l, const vir_type *shape, vir_value *flat) {
  idx *ix = vp_arena_alloc(&l->tmp, sizeof *ix);
  if (!ix) {
    l->failed = true;
    return NULL;
  }
  memset(ix, 0, sizeof *ix);
  ix->shape = shape;
  ix->flat = flat;
  return ix;
}

static vir_value *dim_index(lw *l, idx *ix, uint32_t i);

static vir_value *flat_of(lw *l, idx *ix) {
  if (ix->flat)
    return ix->flat;
  if (ix->quad) {
    vir_value *f = bin(l, VIR_OP_MUL, ix->quad, ku(l, 4));
    return ix->flat = ix->lane ? bin(l, VIR_OP_ADD, f, ku(l, ix->lane)) : f;
  }
  int64_t st[VIR_MAX_RANK];
  vir_row_major(ix->shape, st);
  vir_value *f = NULL;
  for (uint32_t i = 0; i < ix->shape->n; i++) {
    if (ix->shape->dims[i] == 1)
      continue;
    vir_value *t = dim_index(l, ix, i);
    if (st[i] != 1)
      t = bin(l, VIR_OP_MUL, t, ku(l, (uint64_t)st[i]));
    f = f ? bin(l, VIR_OP_ADD, f, t) : t;
  }
  ix->flat = f ? f : ku(l, 0);
  return ix->flat;
}

/* The index along dim i (from the flat index when not given). */
static vir_value *dim_index(lw *l, idx *ix, uint32_t i) {
  if (ix->multi[i])
    return ix->multi[i];
  const vir_type *s = ix->shape;
  if (s->dims[i] == 1)
    return ix->multi[i] = ku(l, 0);
  int64_t st[VIR_MAX_RANK];
  vir_row_major(s, st);
  vir_value *f = flat_of(l, ix);
  vir_value *q = st[i] == 1 ? f : bin(l, VIR_OP_DIV, f, ku(l, (uint64_t)st[i]));
  bool outer = true; /* no dim before i above 1: no remainder needed */
  for (uint32_t j = 0; j < i; j++)
    outer &= s->dims[j] == 1;
  return ix->multi[i] = outer ? q : bin(l, VIR_OP_REM, q, ku(l, s->dims[i]));
}

/* offset + sum(I_k * stride_k), in u32 arithmetic (wrapping is exact: the
 * sum is in range even when partial sums with negative strides are not). */
static vir_value *view_offset(lw *l, const vir_type *t, const vir_array_attr *a, idx *ix) {
  if (vir_view_is_identity(t, a))
    return flat_of(l, ix);
  int64_t st[VIR_MAX_RANK];
  const int64_t *s = st;
  if (a->nstrides)
    s = a->strides;
  else
    vir_row_major(t, st);
  vir_value *f = NULL;
  for (uint32_t i = 0; i < t->n; i++) {
    if (t->dims[i] == 1 || s[i] == 0)
      continue;
    vir_value *d = dim_index(l, ix, i);
    if (s[i] != 1)
      d = bin(l, VIR_OP_MUL, d, ku(l, (uint32_t)s[i]));
    f = f ? bin(l, VIR_OP_ADD, f, d) : d;
  }
  if (a->offset)
    f = f ? bin(l, VIR_OP_ADD, f, ku(l, (uint32_t)a->offset)) : ku(l, (uint32_t)a->offset);
  return f ? f : ku(l, 0);
}

/* ------------------------------------------------------------- storage */

/* The element type a packed buffer had (NULL: not packed). */
static vir_type *packed_elem(lw *l, const vir_sym *s) {
  for (uint32_t i = 0; i < l->packed.len; i++)
    if (l->packed.data[i] == s)
      return l->packed_elem.data[i];
  return NULL;
}
static bool is_packed8(lw *l, const vir_sym *s) { return packed_elem(l, s) != NULL; }

static bool is_vec4(lw *l, const vir_sym *s) {
  for (uint32_t i = 0; i < l->vec4.len; i++)
    if (l->vec4.data[i] == s)
      return true;
  return false;
}

/* The vec4 at `quad` of a vec4 buffer (one load per quad and loop body). */
static vir_value *quad_load(lw *l, vir_sym *s, vir_value *quad) {
  for (uint32_t i = 0; i < l->nquads; i++)
    if (l->quads[i].s == s && l->quads[i].quad == quad)
      return l->quads[i].v;
  vir_value *v = mem_load(l, VIR_OP_BUFFER_LOAD, s, quad, s->type, false);
  if (v && l->nquads < sizeof l->quads / sizeof *l->quads)
    l->quads[l->nquads++] = (typeof(l->quads[0])){s, quad, v};
  return v;
}

/* Lane `lane` of the vec4 at `quad` of a vec4 buffer. */
static vir_value *load_lane(lw *l, vir_sym *s, vir_value *quad, uint32_t lane) {
  vir_value *v = quad_load(l, s, quad);
  vir_op *e = v ? vir_build(&l->b, VIR_OP_EXTRACT, s->type->elem, 1, &v) : NULL;
  if (!e) {
    l->failed = true;
    return NULL;
  }
  e->attr.index = lane;
  return &e->val;
}

static vir_value *load_elem(lw *l, vir_sym *s, vir_value *off, vir_type *t) {
  vir_type *pe = packed_elem(l, s);
  if (pe) { /* a byte or half-word of a u32 word */
    uint32_t b = pe->bits, lg = b == 8 ? 2 : 1;
    vir_value *w = mem_load(l, VIR_OP_BUFFER_LOAD, s, bin(l, VIR_OP_SHR, off, ku(l, lg)), u32t(l), false);
    vir_value *sh = bin(l, VIR_OP_MUL, bin(l, VIR_OP_AND, off, ku(l, (1u << lg) - 1)), ku(l, b));
    vir_value *field = bin(l, VIR_OP_AND, bin(l, VIR_OP_SHR, w, sh), ku(l, (1u << b) - 1));
    if (t->kind == VIR_TY_BOOL)
      return bin(l, VIR_OP_NE, field, ku(l, 0));
    return field; /* the bits, zero-extended: casts decode them */
  }
  vir_value *x = mem_load(l, VIR_OP_BUFFER_LOAD, s, off, s->type, false);
  if (t->kind == VIR_TY_BOOL && s->type->kind != VIR_TY_BOOL)
    return bin(l, VIR_OP_NE, x, num(l, s->type, 0));
  return x;
}

static void store_elem(lw *l, vir_sym *s, vir_value *off, vir_value *v) {
  vir_type *pe = packed_elem(l, s);
  if (pe) {
    uint32_t b = pe->bits, lg = b == 8 ? 2 : 1;
    vir_value *w = bin(l, VIR_OP_SHR, off, ku(l, lg));
    vir_value *sh = bin(l, VIR_OP_MUL, bin(l, VIR_OP_AND, off, ku(l, (1u << lg) - 1)), ku(l, b));
    vir_value *mask = un(l, VIR_OP_NOT, bin(l, VIR_OP_SHL, ku(l, (1u << b) - 1), sh));
    vir_value *byte = bin(l, VIR_OP_SHL,
                          bin(l, VIR_OP_AND, cast(l, v, u32t(l)), ku(l, (1u << b) - 1)), sh);
    /* relaxed: each byte is written once per kernel, and the kernel's end
     * orders it for later readers */
    vir_value *a1 = atomic(l, VIR_OP_ATOMIC_AND, s, w, mask);
    vir_value *a2 = atomic(l, VIR_OP_ATOMIC_OR, s, w, byte);
    if (a1 && a2) {
      a1->def->attr.sem = VIR_SEM_RELAXED;
      a2->def->attr.sem = VIR_SEM_RELAXED;
    }
    return;
  }
  mem_store(l, VIR_OP_BUFFER_STORE, s, off, cast(l, v, s->type));
}

/* ------------------------------------- small types emulated in words
 * (issue 19) On a device without 8/16-bit storage, or without the
 * arithmetic feature of a small type, a value of int8 / uint8 / int16 /
 * uint16 / float16 is its bits in a u32 (zero-extended); its buffers are
 * packed words (pack_bytes). The array path computes small types in 32
 * bits (bindings/python/vulpy/_graph.py, WIDE), so every op on one is a
 * cast: small_cast decodes and encodes. */

static bool emulated(lw *l, const vir_type *t) {
  if (!t || (t->kind != VIR_TY_INT && t->kind != VIR_TY_UINT && t->kind != VIR_TY_FLOAT) ||
      (t->bits != 8 && t->bits != 16))
    return false;
  uint32_t miss = l->o ? l->o->missing_features : 0;
  if (t->bits == 8)
    return miss & (VP_FEAT(STORAGE8) | VP_FEAT(INT8));
  return miss & (VP_FEAT(STORAGE16) | (t->kind == VIR_TY_FLOAT ? VP_FEAT(FLOAT16) : VP_FEAT(INT16)));
}

static vir_value *bitcast_to(lw *l, vir_value *a, vir_type *t) {
  return a->type == t ? a : op_(l, VIR_OP_BITCAST, t, 1, &a);
}

/* float16 bits (low half of a u32) -> float32, exactly: normals and
 * inf/NaN by moving the fields, subnormals as m * 2^-24 (no float32
 * subnormal is involved, so a flushing device gets them right too). */
static vir_value *half_to_f32(lw *l, vir_value *h) {
  vir_type *f32 = vir_ty_float(l->m, 32);
  vir_value *e = bin(l, VIR_OP_AND, bin(l, VIR_OP_SHR, h, ku(l, 10)), ku(l, 0x1f));
  vir_value *m = bin(l, VIR_OP_AND, h, ku(l, 0x3ff));
  vir_value *sg = bin(l, VIR_OP_SHL, bin(l, VIR_OP_AND, h, ku(l, 0x8000)), ku(l, 16));
  vir_value *m13 = bin(l, VIR_OP_SHL, m, ku(l, 13));
  vir_value *norm = bin(l, VIR_OP_OR, bin(l, VIR_OP_OR, sg, bin(l, VIR_OP_SHL, bin(l, VIR_OP_ADD, e, ku(l, 112)), ku(l, 23))), m13);
  vir_value *inf = bin(l, VIR_OP_OR, bin(l, VIR_OP_OR, sg, ku(l, 0x7f800000)), m13);
  vir_value *bits = sel(l, bin(l, VIR_OP_EQ, e, ku(l, 31)), inf, norm);
  vir_value *sub = bin(l, VIR_OP_MUL, cast(l, m, f32), num(l, f32, 0x1p-24));
  /* the sign by its bit (float negation of 0.0 may lose it: Vulkan does
   * not promise signed zeros without SignedZeroInfNanPreserve) */
  vir_value *subb = bin(l, VIR_OP_OR, bitcast_to(l, sub, u32t(l)), sg);
  return bitcast_to(l, sel(l, bin(l, VIR_OP_EQ, e, ku(l, 0)), subb, bits), f32);
}

/* float32 -> float16 bits, rounded to nearest even: NumPy's
 * npy_floatbits_to_halfbits (overflow to inf, NaN keeps its top payload
 * bits and stays a NaN). */
static vir_value *f32_to_half(lw *l, vir_value *x) {
  vir_type *f32 = vir_ty_float(l->m, 32);
  vir_value *xb = bitcast_to(l, x, u32t(l));
  vir_value *sg = bin(l, VIR_OP_AND, bin(l, VIR_OP_SHR, xb, ku(l, 16)), ku(l, 0x8000));
  vir_value *a = bin(l, VIR_OP_AND, xb, ku(l, 0x7fffffff));
  /* normal: rebias the exponent (127 - 15 = 112), round the 13 dropped bits */
  vir_value *base = bin(l, VIR_OP_SHR, bin(l, VIR_OP_SUB, a, ku(l, 0x38000000)), ku(l, 13));
  vir_value *r = bin(l, VIR_OP_AND, a, ku(l, 0x1fff));
  vir_value *up = bin(l, VIR_OP_LOR, bin(l, VIR_OP_GT, r, ku(l, 0x1000)),
                      bin(l, VIR_OP_LAND, bin(l, VIR_OP_EQ, r, ku(l, 0x1000)),
                          bin(l, VIR_OP_NE, bin(l, VIR_OP_AND, base, ku(l, 1)), ku(l, 0))));
  vir_value *norm = bin(l, VIR_OP_ADD, base, sel(l, up, ku(l, 1), ku(l, 0)));
  /* subnormal: |x| * 2^24 rounded to an integer, nearest even */
  vir_value *ax = bitcast_to(l, a, f32);
  vir_value *sub = cast(l, un(l, VIR_OP_RINT, bin(l, VIR_OP_MUL, ax, num(l, f32, 0x1p24))), u32t(l));
  vir_value *nan = bin(l, VIR_OP_ADD, ku(l, 0x7c00), bin(l, VIR_OP_SHR, bin(l, VIR_OP_AND, a, ku(l, 0x7fffff)), ku(l, 13)));
  nan = sel(l, bin(l, VIR_OP_EQ, nan, ku(l, 0x7c00)), ku(l, 0x7c01), nan);
  vir_value *h = sel(l, bin(l, VIR_OP_LT, a, ku(l, 0x38800000)), sub, norm);
  h = sel(l, bin(l, VIR_OP_GE, a, ku(l, 0x47800000)), ku(l, 0x7c00), h);
  h = sel(l, bin(l, VIR_OP_GT, a, ku(l, 0x7f800000)), nan, h);
  return bin(l, VIR_OP_OR, sg, h);
}

/* A cast from `src` to `dst` where either may be emulated (the value of
 * an emulated type is its bits in a u32). */
static vir_value *small_cast(lw *l, vir_value *x, vir_type *src, vir_type *dst) {
  if (!x)
    return NULL;
  vir_type *i32 = vir_ty_int(l->m, 32), *f32 = vir_ty_float(l->m, 32);
  if (emulated(l, src)) { /* decode to the 32-bit type */
    if (src->kind == VIR_TY_FLOAT) {
      x = half_to_f32(l, x);
    } else if (src->kind == VIR_TY_INT) { /* sign-extend */
      vir_value *k = konst(l, i32, (vir_literal){.i = 32 - src->bits});
      x = bin(l, VIR_OP_SHR, bitcast_to(l, bin(l, VIR_OP_SHL, x, ku(l, 32 - src->bits)), i32), k);
    }
    src = x->type;
  }
  if (!emulated(l, dst))
    return src == dst ? x : cast(l, x, dst);
  if (dst->kind == VIR_TY_FLOAT) /* float64 rounds once more here: the array
                                  * path gives float32 (round-to-odd first) */
    return f32_to_half(l, cast(l, x, f32));
  vir_value *w = cast(l, x, dst->kind == VIR_TY_INT && src->kind == VIR_TY_FLOAT ? i32 : src->kind == VIR_TY_FLOAT ? u32t(l) : x->type);
  if (w->type->kind == VIR_TY_BOOL)
    w = cast(l, w, u32t(l));
  if (w->type->bits == 64)
    w = cast(l, w, w->type->kind == VIR_TY_INT ? i32 : u32t(l));
  return bin(l, VIR_OP_AND, bitcast_to(l, w, u32t(l)), ku(l, (1u << dst->bits) - 1));
}

/* --------------------------------------------------------------- emit */

/* The kernel's copy of a scalar value of the array function (its ops are
 * cloned into the prologue, operands first). */
static vir_value *scalar(lw *l, vir_value *v) {
  if (v->id < l->nscal && l->scal[v->id])
    return l->scal[v->id];
  vir_op *d = v->def;
  if (!d || d->nopnd > 4) {
    l->failed = true;
    return v;
  }
  vir_value *ops[4];
  for (uint32_t i = 0; i < d->nopnd; i++)
    ops[i] = scalar(l, d->opnd[i]);
  vir_builder pb = l->b;
  pb.region = &l->k->body;
  pb.before = l->pro ? l->pro->next : l->k->body.first;
  pb.loc = d->loc;
  if (d->code == VIR_OP_CAST && (emulated(l, d->opnd[0]->type) || emulated(l, v->type))) {
    vir_builder saved = l->b;
    l->b = pb;
    vir_value *r = small_cast(l, ops[0], d->opnd[0]->type, v->type);
    l->b = saved;
    if (r && r->def)
      l->pro = r->def;
    if (r && v->id < l->nscal)
      l->scal[v->id] = r;
    return r ? r : v;
  }
  vir_op *c = vir_build(&pb, d->code, v->type, d->nopnd, ops);
  if (!c) {
    l->failed = true;
    return v;
  }
  c->attr = d->attr;
  c->val.name = v->name;
  l->pro = c;
  if (v->id < l->nscal)
    l->scal[v->id] = &c->val;
  return &c->val;
}

static vir_value *emit(lw *l, vir_value *v, idx *ix);

static vir_value *gathered_index(lw *l, vir_value *j, uint32_t dim) {
  /* NumPy: negative indices count from the end; the rest are clamped so a
   * bad index never reads outside the buffer (the host checks bounds). */
  vir_type *t = j->type;
  if (t->kind == VIR_TY_INT) {
    vir_value *neg = bin(l, VIR_OP_LT, j, num(l, t, 0));
    j = sel(l, neg, bin(l, VIR_OP_ADD, j, num(l, t, dim)), j);
    j = bin(l, VIR_OP_MAX, j, num(l, t, 0));
  }
  j = cast(l, j, u32t(l));
  return bin(l, VIR_OP_MIN, j, ku(l, dim ? dim - 1 : 0));
}

/* Whether v is work, not a name for data (a constant, a load, a lane). */
static bool computed(const vir_value *v) {
  switch (v->def ? v->def->code : VIR_OP_CONST) {
  case VIR_OP_CONST:
  case VIR_OP_EXTRACT:
  case VIR_OP_BUFFER_LOAD:
  case VIR_OP_PUSH_LOAD:
  case VIR_OP_LOCAL_LOAD: return false;
  default: return true;
  }
}

static vir_value *emit_op(lw *l, vir_value *v, idx *ix) {
  vir_op *d = v->def;
  vir_type *et = v->type->elem;
  switch (d->code) {
  case VIR_OP_ARRAY_LOAD:
    if (ix->quad && is_vec4(l, d->attr.sym))
      return load_lane(l, d->attr.sym, ix->quad, ix->lane);
    return load_elem(l, d->attr.sym, view_offset(l, v->type, d->attr.arr, ix), et);
  case VIR_OP_ARRAY_BROADCAST: {
    const vir_type *f = d->opnd[0]->type;
    if (!vir_ty_is_tensor(f))
      return scalar(l, d->opnd[0]);
    if (f->n == v->type->n && !memcmp(f->dims, v->type->dims, f->n * sizeof *f->dims))
      return emit(l, d->opnd[0], ix);
    idx *s = new_idx(l, f, NULL);
    for (uint32_t i = 0; s && i < f->n; i++)
      s->multi[i] = f->dims[i] == 1 ? ku(l, 0) : dim_index(l, ix, i + (v->type->n - f->n));
    return s ? emit(l, d->opnd[0], s) : NULL;
  }
  case VIR_OP_ARRAY_RESHAPE: {
    idx *s = new_idx(l, d->opnd[0]->type, flat_of(l, ix));
    return s ? emit(l, d->opnd[0], s) : NULL;
  }
  case VIR_OP_ARRAY_TRANSPOSE: {
    idx *s = new_idx(l, d->opnd[0]->type, NULL);
    for (uint32_t i = 0; s && i < v->type->n; i++)
      s->multi[d->attr.arr->axes[i]] = dim_index(l, ix, i);
    return s ? emit(l, d->opnd[0], s) : NULL;
  }
  case VIR_OP_ARRAY_SLICE: {
    idx *s = new_idx(l, d->opnd[0]->type, view_offset(l, v->type, d->attr.arr, ix));
    return s ? emit(l, d->opnd[0], s) : NULL;
  }
  case VIR_OP_ARRAY_TAKE: {
    const vir_type *x = d->opnd[0]->type, *it = d->opnd[1]->type;
    uint32_t k = d->attr.arr->axes[0], ri = it->n;
    idx *ii = new_idx(l, it, NULL), *xi = new_idx(l, x, NULL);
    if (!ii || !xi)
      return NULL;
    for (uint32_t i = 0; i < ri; i++)
      ii->multi[i] = dim_index(l, ix, k + i);
    for (uint32_t i = 0; i < k; i++)
      xi->multi[i] = dim_index(l, ix, i);
    xi->multi[k] = gathered_index(l, emit(l, d->opnd[1], ii), x->dims[k]);
    for (uint32_t i = k + 1; i < x->n; i++)
      xi->multi[i] = dim_index(l, ix, i - 1 + ri);
    return emit(l, d->opnd[0], xi);
  }
  default: break;
  }
  if (!vir_op_is_elementwise(d->code) || d->nopnd > 4) {
    vp_error(l->d, d->loc, "lower-arrays: '%s' cannot be computed per element here (run fuse first?)",
             vir_op_info_of(d->code)->name);
    l->failed = true;
    return NULL;
  }
  vir_value *ops[4];
  for (uint32_t i = 0; i < d->nopnd; i++) {
    vir_value *o = d->opnd[i];
    ops[i] = vir_ty_is_tensor(o->type) ? emit(l, o, ix) : scalar(l, o);
    if (!ops[i])
      return NULL;
  }
  {
    const vir_type *src = d->nopnd ? d->opnd[0]->type : NULL;
    src = src && vir_ty_is_tensor(src) ? src->elem : src;
    bool emu = emulated(l, et);
    for (uint32_t i = 0; i < d->nopnd; i++) {
      const vir_type *ot = d->opnd[i]->type;
      emu |= emulated(l, vir_ty_is_tensor(ot) ? ot->elem : ot);
    }
    if (d->code == VIR_OP_CAST && emu)
      return small_cast(l, ops[0], (vir_type *)src, et);
    if (emu) {
      vp_error(l->d, d->loc,
               "lower-arrays: '%s' on a %u-bit type: this device stores it in 32-bit words "
               "(it lacks 8/16-bit storage or arithmetic); cast to a 32-bit type first",
               vir_op_info_of(d->code)->name, emulated(l, et) ? et->bits : src ? src->bits : 0);
      l->failed = true;
      return NULL;
    }
  }
  if (d->code == VIR_OP_SELECT && l->o && l->o->cpu_device) {
    /* a named value is a variable of its own in the printed code, never
     * inlined into the `c ? a : b` */
    for (uint32_t i = 1; i < 3; i++)
      if (!ops[i]->name && computed(ops[i]))
        ops[i]->name = i == 1 ? "if_true" : "if_false";
  }
  vir_op *c = vir_build(&l->b, d->code, et, d->nopnd, ops);
  if (!c) {
    l->failed = true;
    return NULL;
  }
  c->attr = d->attr;
  c->loc = d->loc;
  c->val.name = v->name;
  return &c->val;
}

static vir_value *emit(lw *l, vir_value *v, idx *ix) {
  if (!vir_ty_is_tensor(v->type))
    return scalar(l, v);
  for (uint32_t i = l->nmemo; i-- > 0;)
    if (l->memo[i].v == v && l->memo[i].ix == ix)
      return l->memo[i].r;
  vp_loc saved_loc = l->b.loc;
  l->b.loc = v->def ? v->def->loc : saved_loc;
  vir_value *r = emit_op(l, v, ix);
  l->b.loc = saved_loc;
  if (!r)
    return NULL;
  if (l->nmemo == l->capmemo) {
    uint32_t cap = l->capmemo ? 2 * l->capmemo : 64;
    memo *nm = realloc(l->memo, cap * sizeof *nm);
    if (!nm) {
      l->failed = true;
      return r;
    }
    l->memo = nm;
    l->capmemo = cap;
  }
  l->memo[l->nmemo++] = (memo){v, ix, r};
  return r;
}

/* Stores the region's plain array.stores at index ix (their value shape). */
static void emit_stores(lw *l, vir_op **stores, uint32_t n, idx *ix) {
  for (uint32_t i = 0; i < n; i++) {
    vir_op *st = stores[i];
    vir_value *v = st->opnd[st->nopnd - 1];
    vir_value *x = emit(l, v, ix);
    if (x)
      store_elem(l, st->attr.sym, view_offset(l, v->type, st->attr.arr, ix), x);
  }
}

/* ----------------------------------------------------------- reductions */

typedef struct red {
  vir_opcode code;
  vir_type *in, *acc, *res; /* element types: input, accumulator, result */
  bool arg;                 /* argmin / argmax: (value, index) pairs */
  bool sg;                  /* the tree starts with subgroup ops */
  vir_sym *sv, *si;         /* shared memory for the tree (si: indices) */
  uint64_t count;           /* elements per result (mean) */
} red;

static bool is_min(vir_opcode c) { return c == VIR_OP_ARRAY_MIN || c == VIR_OP_ARRAY_ARGMIN; }

static vir_value *identity(lw *l, const red *r) {
  switch (r->code) {
  case VIR_OP_ARRAY_PROD:
  case VIR_OP_ARRAY_ALL: return num(l, r->acc, 1);
  case VIR_OP_ARRAY_MIN:
  case VIR_OP_ARRAY_ARGMIN: return extreme(l, r->acc, true);
  case VIR_OP_ARRAY_MAX:
  case VIR_OP_ARRAY_ARGMAX: return extreme(l, r->acc, false);
  default: return num(l, r->acc, 0);
  }
}

/* An input element as an accumulator value. */
static vir_value *lift(lw *l, const red *r, vir_value *x) {
  if (r->code == VIR_OP_ARRAY_ANY || r->code == VIR_OP_ARRAY_ALL) {
    if (x->type->kind != VIR_TY_BOOL)
      x = bin(l, VIR_OP_NE, x, num(l, x->type, 0));
    return cast(l, x, r->acc);
  }
  return cast(l, x, r->acc);
}

/* a (+) b; min/max propagate NaN like NumPy. */
static vir_value *combine(lw *l, const red *r, vir_value *a, vir_value *b) {
  switch (r->code) {
  case VIR_OP_ARRAY_SUM:
  case VIR_OP_ARRAY_MEAN: return bin(l, VIR_OP_ADD, a, b);
  case VIR_OP_ARRAY_PROD: return bin(l, VIR_OP_MUL, a, b);
  case VIR_OP_ARRAY_ANY: return bin(l, VIR_OP_MAX, a, b);
  case VIR_OP_ARRAY_ALL: return bin(l, VIR_OP_MIN, a, b);
  default: break;
  }
  bool mn = is_min(r->code);
  if (r->acc->kind != VIR_TY_FLOAT)
    return bin(l, mn ? VIR_OP_MIN : VIR_OP_MAX, a, b);
  vir_value *better = bin(l, mn ? VIR_OP_LT : VIR_OP_GT, b, a);
  return sel(l, bin(l, VIR_OP_LOR, better, un(l, VIR_OP_ISNAN, b)), b, a);
}

/* Whether (bv, bi) beats (av, ai) in argmin/argmax: the smaller (larger)
 * value, NaN first (NumPy), ties to the smaller index. */
static vir_value *arg_better(lw *l, const red *r, vir_value *av, vir_value *ai, vir_value *bv,
                             vir_value *bi) {
  vir_value *cmp = bin(l, is_min(r->code) ? VIR_OP_LT : VIR_OP_GT, bv, av);
  vir_value *ilt = bin(l, VIR_OP_LT, bi, ai);
  vir_value *plain = bin(l, VIR_OP_LOR, cmp, bin(l, VIR_OP_LAND, bin(l, VIR_OP_EQ, bv, av), ilt));
  if (r->acc->kind != VIR_TY_FLOAT)
    return plain;
  vir_value *an = un(l, VIR_OP_ISNAN, av), *bn = un(l, VIR_OP_ISNAN, bv);
  vir_value *not_an = un(l, VIR_OP_LNOT, an);
  return sel(l, bn, bin(l, VIR_OP_LOR, not_an, ilt), bin(l, VIR_OP_LAND, not_an, plain));
}

typedef struct accum {
  vir_sym *v, *i; /* locals */
} accum;

static accum acc_new(lw *l, const red *r) {
  accum a = {local(l, "acc", r->acc), r->arg ? local(l, "acci", u32t(l)) : NULL};
  if (a.v)
    lstore(l, a.v, identity(l, r));
  if (a.i)
    lstore(l, a.i, ku(l, UINT32_MAX));
  return a;
}

static void acc_add(lw *l, const red *r, accum a, vir_value *x, vir_value *xi) {
  vir_value *av = lload(l, a.v);
  if (!r->arg) {
    lstore(l, a.v, combine(l, r, av, x));
    return;
  }
  vir_value *ai = lload(l, a.i);
  vir_value *b = arg_better(l, r, av, ai, x, xi);
  lstore(l, a.v, sel(l, b, x, av));
  lstore(l, a.i, sel(l, b, xi, ai));
}

static vir_opcode subgroup_op(vir_opcode c) {
  switch (c) {
  case VIR_OP_ARRAY_SUM:
  case VIR_OP_ARRAY_MEAN: return VIR_OP_SG_ADD;
  case VIR_OP_ARRAY_PROD: return VIR_OP_SG_MUL;
  case VIR_OP_ARRAY_MIN:
  case VIR_OP_ARRAY_ALL: return VIR_OP_SG_MIN;
  default: return VIR_OP_SG_MAX;
  }
}

/* The workgroup's combined accumulator, seen by every invocation: the
 * subgroups reduce theirs (subgroup ops) and write one value each to
 * shared memory, or every invocation writes its own; then a tree over
 * shared memory halves the live entries per step. *ri: the index (arg). */
static vir_value *tree(lw *l, const red *r, accum a, vir_value **ri) {
  vir_value *li = id_x(l, VIR_OP_LOCAL_INDEX);
  vir_value *v = lload(l, a.v), *n;
  saved sv;
  if (r->sg) {
    vir_value *s = un(l, subgroup_op(r->code), v);
    if (r->acc->kind == VIR_TY_FLOAT && (r->code == VIR_OP_ARRAY_MIN || r->code == VIR_OP_ARRAY_MAX)) {
      vir_value *nan = un(l, VIR_OP_SG_ANY, un(l, VIR_OP_ISNAN, v));
      s = sel(l, nan, num(l, r->acc, NAN), s);
    }
    vir_value *sid = op_(l, VIR_OP_SUBGROUP_ID, u32t(l), 0, NULL);
    n = op_(l, VIR_OP_NUM_SUBGROUPS, u32t(l), 0, NULL);
    if_begin(l, op_(l, VIR_OP_SG_ELECT, vir_ty_bool(l->m), 0, NULL), &sv);
    mem_store(l, VIR_OP_SHARED_STORE, r->sv, sid, s);
    leave(l, sv);
  } else {
    n = NULL;
    mem_store(l, VIR_OP_SHARED_STORE, r->sv, li, v);
    if (r->arg)
      mem_store(l, VIR_OP_SHARED_STORE, r->si, li, lload(l, a.i));
  }
  barrier(l);
  for (uint32_t s = WG / 2; s >= 1; s /= 2) {
    vir_value *ks = ku(l, s), *c = bin(l, VIR_OP_LT, li, ks);
    vir_value *other = bin(l, VIR_OP_ADD, li, ks);
    saved live;
    if (n) {
      /* A step pairs entries only below n (the subgroups): skip it, and
       * its barrier, when s >= n (uniform: n is the workgroup's). With
       * 32-wide subgroups 3 of the 8 steps remain. */
      if_begin(l, bin(l, VIR_OP_LT, ks, n), &live);
      c = bin(l, VIR_OP_LAND, c, bin(l, VIR_OP_LT, other, n));
    }
    if_begin(l, c, &sv);
    vir_value *x = mem_load(l, VIR_OP_SHARED_LOAD, r->sv, li, r->acc, false);
    vir_value *y = mem_load(l, VIR_OP_SHARED_LOAD, r->sv, other, r->acc, false);
    if (r->arg) {
      vir_value *xi = mem_load(l, VIR_OP_SHARED_LOAD, r->si, li, u32t(l), false);
      vir_value *yi = mem_load(l, VIR_OP_SHARED_LOAD, r->si, other, u32t(l), false);
      vir_value *b = arg_better(l, r, x, xi, y, yi);
      mem_store(l, VIR_OP_SHARED_STORE, r->sv, li, sel(l, b, y, x));
      mem_store(l, VIR_OP_SHARED_STORE, r->si, li, sel(l, b, yi, xi));
    } else {
      mem_store(l, VIR_OP_SHARED_STORE, r->sv, li, combine(l, r, x, y));
    }
    leave(l, sv);
    barrier(l);
    if (n)
      leave(l, live);
  }
  if (ri)
    *ri = r->arg ? mem_load(l, VIR_OP_SHARED_LOAD, r->si, ku(l, 0), u32t(l), false) : NULL;
  return mem_load(l, VIR_OP_SHARED_LOAD, r->sv, ku(l, 0), r->acc, false);
}

/* The result element from the accumulator. */
static vir_value *finish(lw *l, const red *r, vir_value *v, vir_value *i) {
  switch (r->code) {
  case VIR_OP_ARRAY_MEAN:
    /* NumPy: the mean of nothing is NaN (0 / 0 is not NaN everywhere: a
     * driver may take x / 0 as x * (1 / 0) and fold it) */
    if (!r->count && r->acc->kind == VIR_TY_FLOAT)
      return num(l, r->acc, NAN);
    return bin(l, VIR_OP_DIV, v, num(l, r->acc, (double)r->count));
  case VIR_OP_ARRAY_ARGMIN:
  case VIR_OP_ARRAY_ARGMAX: return cast(l, i, r->res);
  case VIR_OP_ARRAY_ANY:
  case VIR_OP_ARRAY_ALL: return bin(l, VIR_OP_NE, v, ku(l, 0));
  default: return cast(l, v, r->res);
  }
}

static char *kname(lw *l, const char *suffix) {
  return vp_arena_printf(&l->m->arena, "%s_%s", l->k->sym->name, suffix);
}

static red red_info(lw *l, vir_op *op) {
  red r = {.code = op->code, .in = op->opnd[0]->type->elem, .res = op->val.type->elem};
  r.arg = op->code == VIR_OP_ARRAY_ARGMIN || op->code == VIR_OP_ARRAY_ARGMAX;
  switch (op->code) {
  case VIR_OP_ARRAY_MIN:
  case VIR_OP_ARRAY_MAX:
  case VIR_OP_ARRAY_ARGMIN:
  case VIR_OP_ARRAY_ARGMAX: r.acc = r.in->kind == VIR_TY_BOOL ? u32t(l) : r.in; break;
  case VIR_OP_ARRAY_ANY:
  case VIR_OP_ARRAY_ALL: r.acc = u32t(l); break;
  default: r.acc = r.res; break;
  }
  uint32_t miss = l->o ? l->o->missing_features : 0;
  bool float_minmax = r.acc->kind == VIR_TY_FLOAT && (op->code == VIR_OP_ARRAY_MIN || op->code == VIR_OP_ARRAY_MAX);
  r.sg = !r.arg && r.acc->bits == 32 && r.acc->kind != VIR_TY_BOOL &&
         !(miss & (VP_FEAT(SUBGROUP_BASIC) | VP_FEAT(SUBGROUP_ARITH))) &&
         !(float_minmax && (miss & VP_FEAT(SUBGROUP_VOTE)));
  vir_type *arr = vir_ty_array(l->m, r.acc, WG);
  r.sv = vir_add_shared(l->m, kname(l, "red"), arr, l->b.loc);
  if (r.arg)
    r.si = vir_add_shared(l->m, kname(l, "redi"), vir_ty_array(l->m, u32t(l), WG), l->b.loc);
  return r;
}

/* The input index of output element o and reduced element q. */
static idx *split_index(lw *l, const vir_type *in, const vir_array_attr *ax, vir_value *o, vir_value *q) {
  uint32_t kd[VIR_MAX_RANK], rd[VIR_MAX_RANK], nk = 0, nr = 0;
  bool isred[VIR_MAX_RANK] = {0};
  for (uint32_t i = 0; ax && i < ax->naxes; i++)
    isred[ax->axes[i]] = true;
  for (uint32_t i = 0; i < in->n; i++) {
    if (isred[i])
      rd[nr++] = in->dims[i];
    else
      kd[nk++] = in->dims[i];
  }
  idx *oi = new_idx(l, vir_ty_tensor(l->m, in->elem, nk, kd), o);
  idx *qi = new_idx(l, vir_ty_tensor(l->m, in->elem, nr, rd), q);
  idx *ix = new_idx(l, in, NULL);
  if (!oi || !qi || !ix)
    return NULL;
  nk = nr = 0;
  for (uint32_t i = 0; i < in->n; i++)
    ix->multi[i] = isred[i] ? dim_index(l, qi, nr++) : dim_index(l, oi, nk++);
  return ix;
}

static void store_result(lw *l, vir_op *rs, vir_value *o, vir_value *x) {
  vir_value *v = rs->opnd[0];
  idx *oi = new_idx(l, v->type, o);
  if (oi)
    store_elem(l, rs->attr.sym, view_offset(l, v->type, rs->attr.arr, oi), x);
}

static void lanes(lw *l, const vir_type *S, vir_value *q, idx **ix);

/* Whether a full reduction reads its input as vec4s (its loads' buffers
 * were retyped by plan_vec4). */
static bool vec4_reduction(lw *l, vir_op *rop) {
  for (vir_op *op = rop->parent->first; op; op = op->next)
    if (op->code == VIR_OP_ARRAY_LOAD)
      return is_vec4(l, op->attr.sym);
  return false;
}

/* Whether every op of a kernel region is cheap (no transcendental,
 * division, ...): then unrolling its loop costs little code. */
static bool cheap_region(const vir_region *K) {
  for (const vir_op *op = K->first; op; op = op->next)
    if (vir_array_op_cost(op) >= VIR_COST_HEAVY)
      return false;
  return true;
}

/* Adds the four elements of vec4 `q` to accumulator a: lanes combined
 * pairwise, ((x0 + x1) + (x2 + x3)), so only one op waits for a. */
static void add_quad(lw *l, const red *r, vir_op *rop, accum a, vir_value *q) {
  idx *ix[4];
  vir_value *x[4];
  lanes(l, rop->opnd[0]->type, q, ix);
  for (uint32_t k = 0; k < 4; k++) {
    x[k] = ix[k] ? emit(l, rop->opnd[0], ix[k]) : NULL;
    if (!x[k])
      return;
    x[k] = lift(l, r, x[k]);
  }
  vir_value *lo = combine(l, r, x[0], x[1]);
  vir_value *hi = combine(l, r, x[2], x[3]);
  acc_add(l, r, a, combine(l, r, lo, hi), NULL);
}

/* Issues the vec4 loads of the region's inputs at each of the quads
 * first, so they are in flight together before any of them is used. */
static void load_quads(lw *l, const vir_region *K, vir_value **q, uint32_t n) {
  l->nquads = 0;
  for (uint32_t u = 0; u < n; u++)
    for (const vir_op *op = K->first; op; op = op->next)
      if (op->code == VIR_OP_ARRAY_LOAD && is_vec4(l, op->attr.sym))
        quad_load(l, op->attr.sym, q[u]);
}

/* A reduction over every axis: one dispatch (see the file comment). */
static uint32_t kernel_full_reduce(lw *l, vir_op *rop, vir_op *rs, vir_op **stores, uint32_t ns) {
  red r = red_info(l, rop);
  const vir_type *in = rop->opnd[0]->type;
  uint64_t n = vir_ty_numel(in);
  r.count = n;
  uint32_t cap = l->o && l->o->cpu_device ? RED_GROUPS_CPU : RED_GROUPS;
  if (l->o && l->o->reduce_groups)
    cap = l->o->reduce_groups;
  uint32_t g = groups_for(n, WG * RED_TILE, cap);
  /* enough groups that no invocation loops more than MAX_ITER times */
  uint64_t need = (n + (uint64_t)WG * MAX_ITER - 1) / ((uint64_t)WG * MAX_ITER);
  if (g < need)
    g = (uint32_t)need;
  accum a = acc_new(l, &r);
  vir_value *gid = id_x(l, VIR_OP_GLOBAL_ID);
  saved sv;
  if (vec4_reduction(l, rop)) {
    /* The input read as vec4s: UNROLL independent loads per iteration
     * (when the expression is cheap), each into its own accumulator, the
     * lanes of a vec4 combined pairwise first; then the remaining vec4s
     * one per iteration. Several loads in flight per invocation is what
     * a reduction needs to reach copy bandwidth. */
    uint64_t n4 = n / 4, S = (uint64_t)g * WG;
    uint32_t U = cheap_region(rop->parent) ? UNROLL : 1;
    uint64_t main_end = U > 1 ? n4 / (U * S) * (U * S) : 0;
    accum acc[UNROLL] = {a};
    for (uint32_t u = 1; u < U; u++)
      acc[u] = acc_new(l, &r);
    if (main_end) {
      vir_value *q0 = for_begin(l, gid, ku(l, main_end), ku(l, U * S), &sv);
      vir_value *q[UNROLL];
      for (uint32_t u = 0; u < U; u++)
        q[u] = u ? bin(l, VIR_OP_ADD, q0, ku(l, u * S)) : q0;
      load_quads(l, rop->parent, q, U);
      for (uint32_t u = 0; u < U; u++)
        add_quad(l, &r, rop, acc[u], q[u]);
      leave(l, sv);
    }
    if (main_end < n4) {
      vir_value *lo = main_end ? bin(l, VIR_OP_ADD, gid, ku(l, main_end)) : gid;
      vir_value *q = for_begin(l, lo, ku(l, n4), ku(l, S), &sv);
      l->nquads = 0;
      add_quad(l, &r, rop, a, q);
      leave(l, sv);
    }
    for (uint32_t u = 1; u < U; u++) {
      vir_value *x = lload(l, a.v);
      lstore(l, a.v, combine(l, &r, x, lload(l, acc[u].v)));
    }
  } else {
    vir_value *i = for_begin(l, gid, ku(l, n), ku(l, (uint64_t)g * WG), &sv);
    idx *ix = new_idx(l, in, i);
    vir_value *x = emit(l, rop->opnd[0], ix);
    if (x)
      acc_add(l, &r, a, lift(l, &r, x), i);
    emit_stores(l, stores, ns, ix);
    leave(l, sv);
  }
  vir_value *ri, *res = tree(l, &r, a, &ri);
  vir_value *li = id_x(l, VIR_OP_LOCAL_INDEX);
  vir_value *first = bin(l, VIR_OP_EQ, li, ku(l, 0));
  if (g == 1) {
    if_begin(l, first, &sv);
    store_result(l, rs, ku(l, 0), finish(l, &r, res, ri));
    leave(l, sv);
    return g;
  }
  /* partials, and the last workgroup to finish reduces them */
  vir_sym *part = vir_add_buffer(l->m, kname(l, "part"), r.acc, 0, 0, VIR_ACCESS_READWRITE, l->b.loc);
  vir_sym *parti = r.arg ? vir_add_buffer(l->m, kname(l, "parti"), u32t(l), 0, 0, VIR_ACCESS_READWRITE, l->b.loc) : NULL;
  vir_sym *cnt = vir_add_buffer(l->m, kname(l, "count"), u32t(l), 0, 0, VIR_ACCESS_READWRITE, l->b.loc);
  vir_sym *flag = vir_add_shared(l->m, kname(l, "last"), vir_ty_array(l->m, u32t(l), 1), l->b.loc);
  vir_sym *bufs[3] = {part, parti, cnt};
  for (int k = 0; k < 3; k++) {
    if (!bufs[k])
      continue;
    vir_sym *b = bufs[k];
    b->count = k == 2 ? 1 : g;
    b->buf_flags = VIR_BUF_COHERENT;
    b->binding = 0;
    for (uint32_t q = 0; q < l->m->syms.len; q++) {
      const vir_sym *o = l->m->syms.data[q];
      if (o != b && o->kind == VIR_SYM_BUFFER && o->set == 0 && o->binding >= b->binding)
        b->binding = o->binding + 1;
    }
  }
  vir_value *wg = id_x(l, VIR_OP_WORKGROUP_ID);
  if_begin(l, first, &sv);
  mem_store(l, VIR_OP_BUFFER_STORE, part, wg, res);
  if (parti)
    mem_store(l, VIR_OP_BUFFER_STORE, parti, wg, ri);
  mbarrier(l);
  vir_value *old = atomic(l, VIR_OP_ATOMIC_ADD, cnt, ku(l, 0), ku(l, 1));
  mem_store(l, VIR_OP_SHARED_STORE, flag, ku(l, 0), cast(l, bin(l, VIR_OP_EQ, old, ku(l, g - 1)), u32t(l)));
  leave(l, sv);
  barrier(l);
  vir_value *last = bin(l, VIR_OP_NE, mem_load(l, VIR_OP_SHARED_LOAD, flag, ku(l, 0), u32t(l), false), ku(l, 0));
  if_begin(l, last, &sv);
  mbarrier(l);
  accum a2 = acc_new(l, &r);
  saved sv2;
  /* The partials: F independent loads per iteration (all issued before
   * the first is used, combined pairwise), then one per iteration. */
  uint32_t F = 1;
  while (!parti && F < FIN_UNROLL && (uint64_t)F * 2 * WG <= g)
    F *= 2;
  uint32_t fin_end = F > 1 ? g / (F * WG) * (F * WG) : 0;
  if (fin_end) {
    vir_value *j0 = for_begin(l, li, ku(l, fin_end), ku(l, F * WG), &sv2);
    vir_value *pv[FIN_UNROLL];
    for (uint32_t u = 0; u < F; u++)
      pv[u] = mem_load(l, VIR_OP_BUFFER_LOAD, part, u ? bin(l, VIR_OP_ADD, j0, ku(l, u * WG)) : j0,
                       r.acc, true);
    for (uint32_t w = F; w > 1; w /= 2)
      for (uint32_t u = 0; u < w / 2; u++)
        pv[u] = combine(l, &r, pv[2 * u], pv[2 * u + 1]);
    acc_add(l, &r, a2, pv[0], NULL);
    leave(l, sv2);
  }
  if (fin_end < g) {
    vir_value *lo = fin_end ? bin(l, VIR_OP_ADD, li, ku(l, fin_end)) : li;
    vir_value *j = for_begin(l, lo, ku(l, g), ku(l, WG), &sv2);
    vir_value *pv = mem_load(l, VIR_OP_BUFFER_LOAD, part, j, r.acc, true);
    vir_value *pi = parti ? mem_load(l, VIR_OP_BUFFER_LOAD, parti, j, u32t(l), true) : NULL;
    acc_add(l, &r, a2, pv, pi);
    leave(l, sv2);
  }
  vir_value *ri2, *res2 = tree(l, &r, a2, &ri2);
  saved sv3;
  if_begin(l, first, &sv3);
  store_result(l, rs, ku(l, 0), finish(l, &r, res2, ri2));
  mem_store(l, VIR_OP_BUFFER_STORE, cnt, ku(l, 0), ku(l, 0)); /* ready for the next launch */
  leave(l, sv3);
  leave(l, sv);
  return g;
}

/* A reduction over some axes: a workgroup per output element when the
 * reduced axes are the trailing ones and long enough, else an invocation
 * per output element. */
static uint32_t kernel_partial_reduce(lw *l, vir_op *rop, vir_op *rs, vir_op **stores, uint32_t ns) {
  const vir_type *in = rop->opnd[0]->type;
  const vir_array_attr *ax = rop->attr.arr;
  uint64_t R = 1;
  for (uint32_t i = 0; i < ax->naxes; i++)
    R *= in->dims[ax->axes[i]];
  uint64_t O = R ? vir_ty_numel(in) / R : vir_ty_numel(rop->val.type);
  bool suffix = true;
  for (uint32_t i = 0; i < ax->naxes; i++)
    suffix &= ax->axes[i] == in->n - ax->naxes + i;
  bool coop = suffix && R >= COOP_MIN;
  red r = {0};
  if (coop)
    r = red_info(l, rop);
  else {
    /* no tree: red_info without shared memory */
    r = (red){.code = rop->code, .in = in->elem, .res = rop->val.type->elem};
    r.arg = rop->code == VIR_OP_ARRAY_ARGMIN || rop->code == VIR_OP_ARRAY_ARGMAX;
    r.acc = r.arg || rop->code == VIR_OP_ARRAY_MIN || rop->code == VIR_OP_ARRAY_MAX ? r.in
            : rop->code == VIR_OP_ARRAY_ANY || rop->code == VIR_OP_ARRAY_ALL ? u32t(l) : r.res;
    if (r.acc->kind == VIR_TY_BOOL) /* bool min/max accumulate as u32 0/1 */
      r.acc = u32t(l);
  }
  r.count = R;
  saved so, si;
  uint32_t g;
  if (coop) {
    g = O > MAX_GROUPS ? MAX_GROUPS : (O ? (uint32_t)O : 1);
    vir_value *wg = id_x(l, VIR_OP_WORKGROUP_ID);
    vir_value *li = id_x(l, VIR_OP_LOCAL_INDEX);
    vir_value *o = for_begin(l, wg, ku(l, O), ku(l, g), &so);
    accum a = acc_new(l, &r);
    vir_value *q = for_begin(l, li, ku(l, R), ku(l, WG), &si);
    idx *ix = split_index(l, in, ax, o, q);
    vir_value *x = ix ? emit(l, rop->opnd[0], ix) : NULL;
    if (x)
      acc_add(l, &r, a, lift(l, &r, x), q);
    emit_stores(l, stores, ns, ix);
    leave(l, si);
    vir_value *ri, *res = tree(l, &r, a, &ri);
    saved sf;
    if_begin(l, bin(l, VIR_OP_EQ, li, ku(l, 0)), &sf);
    store_result(l, rs, o, finish(l, &r, res, ri));
    leave(l, sf);
    barrier(l); /* the next output reuses the shared memory */
    leave(l, so);
    return g;
  }
  g = groups_for(O, WG, MAX_GROUPS);
  vir_value *gid = id_x(l, VIR_OP_GLOBAL_ID);
  vir_value *o = for_begin(l, gid, ku(l, O), ku(l, (uint64_t)g * WG), &so);
  accum a = acc_new(l, &r);
  vir_value *q = for_begin(l, ku(l, 0), ku(l, R), ku(l, 1), &si);
  idx *ix = split_index(l, in, ax, o, q);
  vir_value *x = ix ? emit(l, rop->opnd[0], ix) : NULL;
  if (x)
    acc_add(l, &r, a, lift(l, &r, x), q);
  emit_stores(l, stores, ns, ix);
  leave(l, si);
  store_result(l, rs, o, finish(l, &r, lload(l, a.v), a.i ? lload(l, a.i) : NULL));
  leave(l, so);
  return g;
}

/* ------------------------------------------------------- other kernels */

static uint32_t kernel_scatter(lw *l, vir_op *sc) {
  vir_value *iv = sc->opnd[0], *vv = sc->opnd[1];
  const vir_type *V = vv->type, *I = iv->type;
  const vir_array_attr *a = sc->attr.arr;
  const vir_type *T = vir_ty_tensor(l->m, V->elem, a->ndims, a->dims);
  uint64_t n = vir_ty_numel(V);
  uint32_t g = groups_for(n, WG, MAX_GROUPS);
  vir_value *gid = id_x(l, VIR_OP_GLOBAL_ID);
  saved so, sf;
  vir_value *i = for_begin(l, gid, ku(l, n), ku(l, (uint64_t)g * WG), &so);
  idx *vi = new_idx(l, V, i), *ii = new_idx(l, I, NULL), *ti = new_idx(l, T, NULL);
  if (vi && ii && ti) {
    for (uint32_t q = 0; q < I->n; q++)
      ii->multi[q] = dim_index(l, vi, q);
    vir_value *j = emit(l, iv, ii);
    if (j) {
      /* negative indices count from the end; out-of-range ones are dropped */
      if (j->type->kind == VIR_TY_INT) {
        vir_value *neg = bin(l, VIR_OP_LT, j, num(l, j->type, 0));
        j = sel(l, neg, bin(l, VIR_OP_ADD, j, num(l, j->type, T->dims[0])), j);
        j = sel(l, bin(l, VIR_OP_LT, j, num(l, j->type, 0)), num(l, j->type, T->dims[0]), j);
      }
      vir_value *ju = cast(l, j, u32t(l));
      if_begin(l, bin(l, VIR_OP_LT, ju, ku(l, T->dims[0])), &sf);
      ti->multi[0] = ju;
      for (uint32_t q = 1; q < T->n; q++)
        ti->multi[q] = dim_index(l, vi, I->n + q - 1);
      vir_value *x = emit(l, vv, vi);
      if (x)
        store_elem(l, sc->attr.sym, view_offset(l, T, a, ti), x);
      leave(l, sf);
    }
  }
  leave(l, so);
  return g;
}

/* The four lane indices of vec4 index `q` of shape S. */
static void lanes(lw *l, const vir_type *S, vir_value *q, idx **ix) {
  for (uint32_t k = 0; k < 4; k++) {
    ix[k] = new_idx(l, S, NULL); /* the flat index 4q + k only when needed */
    if (ix[k]) {
      ix[k]->quad = q;
      ix[k]->lane = k;
    }
  }
}

/* An elementwise kernel whose buffers are all vec4: four elements per
 * iteration, read and written as vec4s. */
static uint32_t kernel_elementwise4(lw *l, vir_op **stores, uint32_t ns) {
  const vir_type *S = stores[0]->opnd[0]->type;
  uint64_t n4 = vir_ty_numel(S) / 4;
  uint32_t g;
  saved so;
  bool open;
  vir_value *q = item_begin(l, n4, &g, &so, &open);
  idx *ix[4];
  l->nquads = 0;
  lanes(l, S, q, ix);
  for (uint32_t i = 0; i < ns && ix[3]; i++) {
    vir_op *st = stores[i];
    vir_value *x[4];
    for (uint32_t k = 0; k < 4; k++)
      x[k] = cast(l, emit(l, st->opnd[0], ix[k]), st->attr.sym->type->elem);
    vir_op *c = x[0] && x[1] && x[2] && x[3] ? vir_build(&l->b, VIR_OP_CONSTRUCT, st->attr.sym->type, 4, x)
                                             : NULL;
    if (!c) {
      l->failed = true;
      break;
    }
    mem_store(l, VIR_OP_BUFFER_STORE, st->attr.sym, q, &c->val);
  }
  item_end(l, so, open);
  return g;
}

static uint32_t kernel_elementwise(lw *l, vir_op **stores, uint32_t ns) {
  const vir_type *S = stores[0]->opnd[0]->type;
  if (is_vec4(l, stores[0]->attr.sym))
    return kernel_elementwise4(l, stores, ns);
  uint64_t n = vir_ty_numel(S);
  uint32_t g;
  saved so;
  bool open;
  vir_value *i = item_begin(l, n, &g, &so, &open);
  idx *ix = new_idx(l, S, i);
  if (ix)
    emit_stores(l, stores, ns, ix);
  item_end(l, so, open);
  return g;
}

/* ---------------------------------------------------------------- driver */

/* A u32 constant at the top of the array function, made once (reused
 * only when it comes before the launch, ab->before). */
static vir_value *launch_const(lw *l, vir_builder *ab, uint32_t v) {
  for (vir_op *op = l->af->body.first; op && op != ab->before; op = op->next)
    if (op->code == VIR_OP_CONST && op->val.type == u32t(l) && op->attr.lit.u == v)
      return &op->val;
  vir_builder top = *ab;
  top.before = l->af->body.first;
  return vir_build_int(&top, u32t(l), v);
}

/* Starts kernel `name` (local size WG): the builder at its body. */
static bool start_kernel(lw *l, vir_op *K, const char *name) {
  vir_func *k = vir_add_func(l->m, name, true, NULL, 0, NULL, NULL, K->loc);
  if (!k)
    return false;
  k->local_size[0] = WG;
  l->k = k;
  l->pro = NULL;
  l->nmemo = 0;
  l->nlocals = 0;
  l->nconsts = 0;
  memset(l->ids, 0, sizeof l->ids);
  l->gy = 1;
  memset(l->scal, 0, l->nscal * sizeof *l->scal);
  vir_builder_init(&l->b, l->m);
  vir_builder_at_end(&l->b, &k->body);
  l->b.loc = K->loc;
  return true;
}

/* Ends the current kernel and launches it with (g, l->gy, 1) groups
 * before region K in the array function. */
static bool end_kernel(lw *l, vir_op *K, uint32_t g) {
  vir_build(&l->b, VIR_OP_RETURN, NULL, 0, NULL);
  if (l->failed)
    return false;
  vir_builder ab;
  vir_builder_init(&ab, l->m);
  vir_builder_before(&ab, K);
  ab.loc = K->loc;
  vir_value *gx = launch_const(l, &ab, g), *one = launch_const(l, &ab, 1);
  vir_value *gy = l->gy == 1 ? one : launch_const(l, &ab, l->gy);
  vir_value *args[3] = {gx, gy, one};
  vir_op *launch = vir_build(&ab, VIR_OP_ARRAY_LAUNCH, NULL, 3, args);
  if (!launch)
    return false;
  launch->attr.sym = l->k->sym;
  return true;
}

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
  vir_sym *b = vir_add_buffer(l->m, kname(l, suffix), t, 0, 0, VIR_ACCESS_READWRITE, l->b.loc);
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
  *g = groups_for(lines * nc, WG, MAX_GROUPS);
  vir_value *gid = id_x(l, VIR_OP_GLOBAL_ID);
  T->t = for_begin(l, gid, ku(l, lines * nc), ku(l, (uint64_t)*g * WG), &T->so);
  T->line = nc <= 1 ? T->t : bin(l, VIR_OP_DIV, T->t, ku(l, nc));
  T->c = nc <= 1 ? ku(l, 0) : bin(l, VIR_OP_REM, T->t, ku(l, nc));
  T->lo = bin(l, VIR_OP_MUL, T->c, ku(l, TILE));
  /* lo + min(TILE, D - lo): no u32 overflow near 2^32 */
  T->hi = bin(l, VIR_OP_ADD, T->lo, bin(l, VIR_OP_MIN, ku(l, TILE), bin(l, VIR_OP_SUB, ku(l, D), T->lo)));
}

/* What a scan or reduction tile starts from: the identity, or for a
 * scan's tile c > 0 the inclusive total of tiles 0..c-1 of its line
 * (offs, a line of nc per line). */
static accum tile_acc(lw *l, const red *r, tile *T, vir_sym *offs, uint64_t nc) {
  accum a = acc_new(l, r);
  if (offs && a.v) {
    vir_value *pos = bin(l, VIR_OP_GT, T->c, ku(l, 0));
    vir_value *prev = bin(l, VIR_OP_SUB, bin(l, VIR_OP_MAX, T->c, ku(l, 1)), ku(l, 1));
    vir_value *at = bin(l, VIR_OP_ADD, bin(l, VIR_OP_MUL, T->line, ku(l, nc)), prev);
    vir_value *o = mem_load(l, VIR_OP_BUFFER_LOAD, offs, at, r->acc, false);
    lstore(l, a.v, sel(l, pos, o, lload(l, a.v)));
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
  vir_value *j = for_begin(l, T.lo, T.hi, ku(l, 1), &T.si);
  vir_value *at = bin(l, VIR_OP_ADD, bin(l, VIR_OP_MUL, T.line, ku(l, D)), j);
  vir_value *x = mem_load(l, VIR_OP_BUFFER_LOAD, src, at, r->acc, false);
  if (r->arg)
    acc_add(l, r, a, x, mem_load(l, VIR_OP_BUFFER_LOAD, srci, at, u32t(l), false));
  else
    acc_add(l, r, a, x, NULL);
  if (!dst)
    mem_store(l, VIR_OP_BUFFER_STORE, src, at, lload(l, a.v));
  leave(l, T.si);
  if (dst) {
    mem_store(l, VIR_OP_BUFFER_STORE, dst, T.t, lload(l, a.v));
    if (dsti)
      mem_store(l, VIR_OP_BUFFER_STORE, dsti, T.t, lload(l, a.i));
  }
  leave(l, T.so);
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
  idx *li = new_idx(l, lines, T.line);
  vir_value *j = for_begin(l, T.lo, T.hi, ku(l, 1), &T.si);
  idx *ix = new_idx(l, in, NULL);
  if (li && ix) {
    for (uint32_t i = 0, q = 0; i < in->n; i++)
      ix->multi[i] = i == k ? j : dim_index(l, li, q++);
    vir_value *x = emit(l, sop->opnd[0], ix);
    if (x) {
      vir_value *s = combine(l, r, lload(l, a.v), lift(l, r, x));
      lstore(l, a.v, s);
      if (!dst)
        store_elem(l, rs->attr.sym, view_offset(l, rs->opnd[0]->type, rs->attr.arr, ix), s);
    }
  }
  leave(l, T.si);
  if (dst)
    mem_store(l, VIR_OP_BUFFER_STORE, dst, T.t, lload(l, a.v));
  leave(l, T.so);
  return g;
}

static red scan_red(vir_op *sop) {
  red r = {.code = sop->code == VIR_OP_ARRAY_CUMSUM ? VIR_OP_ARRAY_SUM : VIR_OP_ARRAY_PROD,
           .in = sop->opnd[0]->type->elem, .res = sop->val.type->elem};
  r.acc = r.res;
  return r;
}

/* A scan along axis k: kernels up the levels, then down (see above). A
 * line that fits in a tile is one kernel, an invocation per line. */
static bool lower_scan(lw *l, vir_op *K, const char *name, vir_op *sop, vir_op *rs) {
  const vir_type *in = sop->opnd[0]->type;
  uint64_t D = in->dims[sop->attr.arr->axes[0]];
  uint64_t L = D ? vir_ty_numel(in) / D : 0;
  uint64_t n[MAX_LEVELS];
  uint32_t m = tile_levels(D, n);
  red r = scan_red(sop);
  vir_sym *part[MAX_LEVELS] = {0};
  uint32_t kn = 0;
#define NEXT_KERNEL() start_kernel(l, K, kn++ ? vp_arena_printf(&l->m->arena, "%s_%u", name, kn - 1) : name)
  for (uint32_t i = 0; i < m; i++) { /* up */
    if (!NEXT_KERNEL())
      return false;
    part[i + 1] = temp_buffer(l, "tiles", r.acc, L * n[i + 1]);
    uint32_t g = i == 0 ? kernel_scan_level0(l, sop, rs, &r, part[1], NULL)
                        : kernel_tile_level(l, &r, L, n[i], part[i], NULL, part[i + 1], NULL, NULL);
    if (!end_kernel(l, K, g))
      return false;
  }
  for (uint32_t i = m + 1; i-- > 0;) { /* down */
    if (!NEXT_KERNEL())
      return false;
    vir_sym *offs = i < m ? part[i + 1] : NULL;
    uint32_t g = i == 0 ? kernel_scan_level0(l, sop, rs, &r, NULL, offs)
                        : kernel_tile_level(l, &r, L, n[i], part[i], NULL, NULL, NULL, offs);
    if (!end_kernel(l, K, g))
      return false;
  }
  return true;
}

/* The reductions kernel_full_reduce lowers: one result element and every
 * axis reduced, with or without kept dims. Reducing the last axis of a 1x4
 * array with kept dims also has one element but is a partial reduction,
 * which reads scalars: a vec4 plan for it did not verify. */
static bool full_reduction(const vir_op *rop) {
  uint32_t nin = rop->opnd[0]->type->n, nax = rop->attr.arr->naxes;
  return vir_ty_numel(rop->val.type) == 1 && (rop->val.type->n + nax == nin || nax == nin);
}

/* Whether a reduction over some axes is tiled: its reduced extent would
 * take one invocation (or, cooperatively, one workgroup) more than TILE
 * (MAX_ITER) iterations. */
static bool tiled_reduction(vir_op *rop) {
  const vir_type *in = rop->opnd[0]->type;
  const vir_array_attr *ax = rop->attr.arr;
  if (vir_ty_numel(rop->val.type) == 1 && ax->naxes == in->n)
    return false; /* a full reduction: its own grid */
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
static red plain_red(lw *l, vir_op *rop) {
  const vir_type *in = rop->opnd[0]->type;
  red r = {.code = rop->code, .in = in->elem, .res = rop->val.type->elem};
  r.arg = rop->code == VIR_OP_ARRAY_ARGMIN || rop->code == VIR_OP_ARRAY_ARGMAX;
  r.acc = r.arg || rop->code == VIR_OP_ARRAY_MIN || rop->code == VIR_OP_ARRAY_MAX ? r.in
          : rop->code == VIR_OP_ARRAY_ANY || rop->code == VIR_OP_ARRAY_ALL ? u32t(l) : r.res;
  if (r.acc->kind == VIR_TY_BOOL) /* bool min/max accumulate as u32 0/1 */
    r.acc = u32t(l);
  return r;
}

/* A reduction with a long reduced extent: level 0 reduces tiles of the
 * input's reduced elements (an output's, flat) into totals, the levels
 * above reduce the totals, and the last kernel (an invocation per output,
 * at most TILE totals) finishes and stores. */
static bool lower_tiled_reduce(lw *l, vir_op *K, const char *name, vir_op *rop, vir_op *rs,
                               vir_op **stores, uint32_t ns) {
  const vir_type *in = rop->opnd[0]->type;
  const vir_array_attr *ax = rop->attr.arr;
  uint64_t R = 1;
  for (uint32_t i = 0; i < ax->naxes; i++)
    R *= in->dims[ax->axes[i]];
  uint64_t O = vir_ty_numel(in) / R; /* R > TILE: not 0 */
  uint64_t n[MAX_LEVELS];
  uint32_t m = tile_levels(R, n);
  red r = plain_red(l, rop);
  r.count = R;
  vir_sym *part[MAX_LEVELS] = {0}, *parti[MAX_LEVELS] = {0};
  uint32_t kn = 0;
  for (uint32_t i = 0; i < m; i++) {
    if (!NEXT_KERNEL())
      return false;
    part[i + 1] = temp_buffer(l, "tiles", r.acc, O * n[i + 1]);
    parti[i + 1] = r.arg ? temp_buffer(l, "tilesi", u32t(l), O * n[i + 1]) : NULL;
    uint32_t g;
    if (i == 0) {
      tile T;
      tile_begin(l, O, R, &T, &g);
      accum a = acc_new(l, &r);
      vir_value *q = for_begin(l, T.lo, T.hi, ku(l, 1), &T.si);
      idx *ix = split_index(l, in, ax, T.line, q);
      vir_value *x = ix ? emit(l, rop->opnd[0], ix) : NULL;
      if (x)
        acc_add(l, &r, a, lift(l, &r, x), q);
      if (ix)
        emit_stores(l, stores, ns, ix);
      leave(l, T.si);
      mem_store(l, VIR_OP_BUFFER_STORE, part[1], T.t, lload(l, a.v));
      if (a.i)
        mem_store(l, VIR_OP_BUFFER_STORE, parti[1], T.t, lload(l, a.i));
      leave(l, T.so);
    } else {
      g = kernel_tile_level(l, &r, O, n[i], part[i], parti[i], part[i + 1], parti[i + 1], NULL);
    }
    if (!end_kernel(l, K, g))
      return false;
  }
  /* the top: an invocation per output over its n[m] <= TILE totals */
  if (!NEXT_KERNEL())
    return false;
  uint32_t g = groups_for(O, WG, MAX_GROUPS);
  saved so, si;
  vir_value *gid = id_x(l, VIR_OP_GLOBAL_ID);
  vir_value *o = for_begin(l, gid, ku(l, O), ku(l, (uint64_t)g * WG), &so);
  accum a = acc_new(l, &r);
  vir_value *j = for_begin(l, ku(l, 0), ku(l, n[m]), ku(l, 1), &si);
  vir_value *at = bin(l, VIR_OP_ADD, bin(l, VIR_OP_MUL, o, ku(l, n[m])), j);
  vir_value *x = mem_load(l, VIR_OP_BUFFER_LOAD, part[m], at, r.acc, false);
  acc_add(l, &r, a, x, r.arg ? mem_load(l, VIR_OP_BUFFER_LOAD, parti[m], at, u32t(l), false) : NULL);
  leave(l, si);
  store_result(l, rs, o, finish(l, &r, lload(l, a.v), a.i ? lload(l, a.i) : NULL));
  leave(l, so);
  return end_kernel(l, K, g);
#undef NEXT_KERNEL
}

static bool lower_kernel(lw *l, vir_op *K, uint32_t num) {
  char *name = vp_arena_printf(&l->m->arena, "%s_k%u", l->af->sym->name, num);
  vir_op *stores[64], *rop = NULL, *rs = NULL, *scatter = NULL;
  uint32_t ns = 0;
  for (vir_op *op = K->regions[0].first; op; op = op->next) {
    if (vir_is_reduction(op->code) || vir_is_scan(op->code))
      rop = op;
    else if (op->code == VIR_OP_ARRAY_SCATTER)
      scatter = op;
    else if (op->code == VIR_OP_ARRAY_STORE) {
      vir_op *d = op->opnd[0]->def;
      if (d && (vir_is_reduction(d->code) || vir_is_scan(d->code)))
        rs = op;
      else if (ns < 64)
        stores[ns++] = op;
    }
  }
  /* indices are u32: a larger array would wrap them (silently wrong) */
  for (vir_op *op = K->regions[0].first; op; op = op->next)
    for (uint32_t i = 0; i <= op->nopnd; i++) {
      const vir_type *t = i < op->nopnd ? op->opnd[i]->type : op->val.type;
      if (t && vir_ty_is_tensor(t) && vir_ty_numel(t) > UINT32_MAX) {
        vp_error(l->d, op->loc, "lower-arrays: an array of %llu elements is more than 2^32 - 1, "
                 "the most a kernel indexes", (unsigned long long)vir_ty_numel(t));
        return false;
      }
    }
  uint32_t g;
  if (rop && !rs) {
    vp_error(l->d, rop->loc, "lower-arrays: the result of '%s' is not stored", vir_op_info_of(rop->code)->name);
    return false;
  }
  if (rop && vir_is_scan(rop->code))
    return lower_scan(l, K, name, rop, rs) && (vir_op_unlink(K), true);
  if (rop && tiled_reduction(rop))
    return lower_tiled_reduce(l, K, name, rop, rs, stores, ns) && (vir_op_unlink(K), true);
  if (!start_kernel(l, K, name))
    return false;
  if (rop && full_reduction(rop))
    g = kernel_full_reduce(l, rop, rs, stores, ns);
  else if (rop)
    g = kernel_partial_reduce(l, rop, rs, stores, ns);
  else if (scatter)
    g = kernel_scatter(l, scatter);
  else if (ns)
    g = kernel_elementwise(l, stores, ns);
  else
    g = 0;
  /* in the array function: array.launch @k(g, 1, 1) in place of the region */
  if (!end_kernel(l, K, g))
    return false;
  vir_op_unlink(K);
  return true;
}

/* vec4 kernels. A kernel qualifies when it is elementwise (plain stores)
 * or a reduction over every axis with no other stores, over a shape whose
 * element count is a multiple of 4, and holds only identity-view loads and
 * stores of that many 32-bit non-bool elements and elementwise ops (no
 * broadcasts, views or gathers): then element 4q + k of every value comes
 * from lane k of vec4 q of its buffer. A buffer becomes vec4 when every
 * kernel that touches it qualifies; a kernel is emitted as vec4 when all
 * of its buffers are. */
static bool vec4_access(const vir_op *op, uint64_t n) {
  const vir_sym *s = op->attr.sym;
  const vir_type *t = op->code == VIR_OP_ARRAY_LOAD ? op->val.type : op->opnd[0]->type;
  /* 8/16-bit elements too (issue 19): a vec4 of them is one 4- or 8-byte
   * access; buffers packed in words (no 8/16-bit storage) stay scalar
   * (plan_vec4 skips them) */
  return s && vir_ty_is_scalar(s->type) && (s->type->bits == 32 || s->type->bits == 16 ||
                                            s->type->bits == 8) && s->type->kind != VIR_TY_BOOL &&
         t->elem == s->type && vir_ty_numel(t) == n && vir_view_is_identity(t, op->attr.arr);
}

static bool vec4_kernel(const vir_op *K) {
  const vir_op *red = NULL;
  uint64_t n = 0;
  uint32_t nstores = 0;
  for (const vir_op *op = K->regions[0].first; op; op = op->next) {
    if (vir_is_reduction(op->code))
      red = op;
    else if (op->code == VIR_OP_ARRAY_STORE)
      nstores++;
    else if (op->code != VIR_OP_ARRAY_LOAD && !vir_op_is_elementwise(op->code))
      return false;
  }
  if (red) {
    if (nstores != 1 || !full_reduction(red) || red->code == VIR_OP_ARRAY_ARGMIN ||
        red->code == VIR_OP_ARRAY_ARGMAX)
      return false;
    n = vir_ty_numel(red->opnd[0]->type);
  }
  for (const vir_op *op = K->regions[0].first; op; op = op->next) {
    if (op->code == VIR_OP_ARRAY_STORE && red && op->opnd[0] == &red->val)
      continue;
    if (op->code == VIR_OP_ARRAY_STORE && !n)
      n = vir_ty_numel(op->opnd[0]->type);
  }
  if (!n || n % 4)
    return false;
  for (const vir_op *op = K->regions[0].first; op; op = op->next) {
    bool red_store = op->code == VIR_OP_ARRAY_STORE && red && op->opnd[0] == &red->val;
    if ((op->code == VIR_OP_ARRAY_LOAD || (op->code == VIR_OP_ARRAY_STORE && !red_store)) &&
        !vec4_access(op, n))
      return false;
  }
  return true;
}

/* The array.kernel regions of every array function, in order. */
static void all_kernels(vir_module *m, vp_arena *a, vp_ptrvec *out) {
  for (uint32_t i = 0; i < m->syms.len; i++) {
    vir_sym *s = m->syms.data[i];
    if (s->kind == VIR_SYM_FUNC && s->func && s->func->is_array)
      for (vir_op *K = s->func->body.first; K; K = K->next)
        if (K->code == VIR_OP_ARRAY_KERNEL)
          vp_ptrvec_push(a, out, K);
  }
}

/* Module-wide: a buffer may be shared by the kernels of several functions. */
static void plan_vec4(lw *l) {
  vp_ptrvec bad = {0}, cand = {0}, ks = {0};
  all_kernels(l->m, &l->tmp, &ks);
  bool cpu = l->o && l->o->cpu_device;
  for (uint32_t ki = 0; ki < ks.len; ki++) {
    vir_op *K = ks.data[ki];
    bool ok = vec4_kernel(K) && !(cpu && !cheap_region(&K->regions[0]));
    for (vir_op *op = K->regions[0].first; op; op = op->next) {
      bool mem = op->code == VIR_OP_ARRAY_LOAD || op->code == VIR_OP_ARRAY_STORE ||
                 op->code == VIR_OP_ARRAY_SCATTER;
      if (!mem)
        continue;
      bool red_store = op->code == VIR_OP_ARRAY_STORE && op->opnd[0]->def &&
                       vir_is_reduction(op->opnd[0]->def->code);
      vp_ptrvec_push(&l->tmp, ok && !red_store ? &cand : &bad, op->attr.sym);
    }
  }
  /* an array function's loose loads and stores (outside any array.kernel:
   * lowered one op at a time, scalar) read their buffers as written, so
   * those buffers keep their element type (found by fuzz_vir) */
  for (uint32_t i = 0; i < l->m->syms.len; i++) {
    vir_sym *f = l->m->syms.data[i];
    if (f->kind == VIR_SYM_FUNC && f->func && f->func->is_array)
      for (vir_op *op = f->func->body.first; op; op = op->next)
        if (op->code == VIR_OP_ARRAY_LOAD || op->code == VIR_OP_ARRAY_STORE ||
            op->code == VIR_OP_ARRAY_SCATTER)
          vp_ptrvec_push(&l->tmp, &bad, op->attr.sym);
  }
  for (uint32_t i = 0; i < cand.len; i++) {
    vir_sym *s = cand.data[i];
    bool isbad = is_packed8(l, s) || is_vec4(l, s);
    for (uint32_t j = 0; j < bad.len && !isbad; j++)
      isbad = bad.data[j] == s;
    if (isbad)
      continue;
    s->type = vir_ty_vec(l->m, s->type, 4);
    s->count = (s->count + 3) / 4;
    vp_ptrvec_push(&l->tmp, &l->vec4, s);
  }
  /* a kernel whose buffers did not all become vec4 stays scalar: its vec4
   * buffers go back */
  for (bool again = true; again;) {
    again = false;
    for (uint32_t ki = 0; ki < ks.len; ki++) {
      vir_op *K = ks.data[ki];
      bool any = false, all = true;
      for (vir_op *op = K->regions[0].first; op; op = op->next) {
        bool red_store = op->code == VIR_OP_ARRAY_STORE && op->opnd[0]->def &&
                         vir_is_reduction(op->opnd[0]->def->code);
        if ((op->code == VIR_OP_ARRAY_LOAD || op->code == VIR_OP_ARRAY_STORE) && !red_store) {
          bool v = is_vec4(l, op->attr.sym);
          any |= v;
          all &= v;
        }
      }
      if (any && !all) {
        for (vir_op *op = K->regions[0].first; op; op = op->next) {
          if (op->code != VIR_OP_ARRAY_LOAD && op->code != VIR_OP_ARRAY_STORE)
            continue;
          vir_sym *s = op->attr.sym;
          for (uint32_t i = 0; i < l->vec4.len; i++)
            if (l->vec4.data[i] == s) {
              s->type = s->type->elem;
              s->count *= 4;
              l->vec4.data[i] = l->vec4.data[--l->vec4.len];
              again = true;
              break;
            }
        }
      }
    }
  }
}

/* 8- and 16-bit buffers become u32 words when the device cannot hold
 * their type (emulated()). */
static void pack_bytes(lw *l) {
  for (uint32_t i = 0; i < l->m->syms.len; i++) {
    vir_sym *s = l->m->syms.data[i];
    if (s->kind == VIR_SYM_BUFFER && vir_ty_is_scalar(s->type) && s->type->kind != VIR_TY_BOOL &&
        (s->type->bits == 8 || s->type->bits == 16) && emulated(l, s->type)) {
      uint32_t per = 32 / s->type->bits;
      vp_ptrvec_push(&l->tmp, &l->packed_elem, s->type);
      s->type = u32t(l);
      s->count = (s->count + per - 1) / per;
      s->access = VIR_ACCESS_READWRITE; /* bytes are written with atomic and/or */
      vp_ptrvec_push(&l->tmp, &l->packed, s);
    }
  }
}

/* Scalar ops of the array function that nothing uses any more. */
static void drop_dead_scalars(vir_func *f) {
  for (bool again = true; again;) {
    again = false;
    vir_func_count_uses(f);
    for (vir_op *op = f->body.first, *next; op; op = next) {
      next = op->next;
      if ((vir_op_info_of(op->code)->flags & VIR_F_PURE) && vir_result(op) && !op->val.nuses) {
        vir_op_unlink(op);
        again = true;
      }
    }
  }
}

bool vir_reduce_groups_valid(uint32_t groups) {
  return groups == 0 || (groups >= 64 && groups <= 32768 && !(groups & (groups - 1)));
}

vir_pass_result vir_lower_arrays(vir_module *m, const vir_pass_options *opts, vp_diags *diags) {
  bool changed = false;
  /* checked here, where it is used: every caller (vulpy-opt, the Python
   * extension, vulpy-translate) gets the same answer */
  if (opts && !vir_reduce_groups_valid(opts->reduce_groups)) {
    vp_error(diags, (vp_loc){0},
             "lower-arrays: reduce_groups must be 0 or a power of two from 64 to 32768, not %u",
             opts->reduce_groups);
    return VIR_PASS_FAILURE;
  }
  if (!vir_partition_arrays(m, VIR_PARTITION_SPLIT, diags, &changed))
    return VIR_PASS_FAILURE;
  lw l = {.m = m, .d = diags, .o = opts};
  pack_bytes(&l);
  plan_vec4(&l);
  bool ok = true;
  uint32_t nsyms = m->syms.len; /* kernels added below are not array functions */
  for (uint32_t i = 0; ok && i < nsyms; i++) {
    vir_sym *s = m->syms.data[i];
    if (s->kind != VIR_SYM_FUNC || !s->func || !s->func->is_array)
      continue;
    l.af = s->func;
    l.nscal = s->func->next_id;
    l.scal = calloc(l.nscal ? l.nscal : 1, sizeof *l.scal);
    if (!l.scal) {
      ok = false;
      break;
    }
    uint32_t num = 0;
    for (vir_op *op = s->func->body.first, *next; ok && op; op = next) {
      next = op->next;
      if (op->code != VIR_OP_ARRAY_KERNEL)
        continue;
      ok = lower_kernel(&l, op, num++);
      changed = true;
    }
    drop_dead_scalars(s->func);
    free(l.scal);
    l.scal = NULL;
  }
  free(l.memo);
  vp_arena_free(&l.tmp);
  if (!ok) {
    if (!diags->nerrors)
      vp_error(diags, (vp_loc){0}, "lower-arrays failed (out of memory)");
    return VIR_PASS_FAILURE;
  }
  return changed ? VIR_PASS_CHANGED : VIR_PASS_UNCHANGED;
}
