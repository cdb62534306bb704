/* lower_arrays.h - what the files of the `lower-arrays` pass share
 * (private to lib/Transforms/lower_arrays/).
 *
 * The pass (lower_arrays.c, its entry vir_lower_arrays) turns each
 * array.kernel region of an array function into a kernel and an
 * array.launch. The state of one lowering is an `lw`: the module, the
 * kernel being built and its builder, a memo of emitted values and the
 * kernel's constants. The files, by concern:
 *   build.c    small builders: constants, locals, loads, stores, loops, ifs
 *   index.c    indices (flat / multi), views, buffer storage (packed, vec4),
 *              the small types emulated in 32-bit words
 *   emit.c     emit(): the scalar value of an array value at an index
 *   reduce.c   reductions: accumulators, workgroup trees, full and partial
 *   kernels.c  elementwise and scatter kernels
 *   tiled.c    scans and long reductions, tiled across kernels
 *   vec4.c     the module-wide plan of vec4 buffers and kernels
 * Functions shared between the files carry the `vla_` prefix.
 */
#ifndef VULPY_TRANSFORMS_LOWER_ARRAYS_H
#define VULPY_TRANSFORMS_LOWER_ARRAYS_H

#include "../arrays.h"

#include <assert.h>
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
  vp_ptrvec consts; /* the kernel's constants (a cache: each made once) */
  vir_value *ids[5]; /* global_id.x, workgroup_id.x, local_index, global_id.y, num_workgroups.x */
  uint32_t gy;       /* the launch's Y group count (2-D elementwise grids) */
  uint32_t dyn_lanes; /* a kernel over a dynamic extent: elements per invocation (else 0) */
  uint32_t dyn_red_cap; /* a full reduction over a dynamic extent: its group cap (else 0) */
  uint32_t dyn_seg;     /* a reduction in segments: 1 a workgroup per output, 2 an invocation (else 0) */
  vp_ptrvec vec4;      /* buffers retyped to vec4 elements (vec4 kernels) */
  struct vla_quad {
    const vir_sym *s;
    const vir_value *quad;
    vir_value *v;
  } *quads; /* this loop body's vec4 loads */
  uint32_t nquads, capquads;
  bool failed;
} lw;

/* Control flow: the builder moves into the new region; *_end moves back. */
typedef struct saved {
  vir_region *region;
  vir_op *before;
  uint32_t nmemo;
} saved;

/* A reduction being lowered (reduce.c). */
typedef struct red {
  vir_opcode code;
  vir_type *in, *acc, *res; /* element types: input, accumulator, result */
  bool arg;                 /* argmin / argmax: (value, index) pairs */
  bool sg;                  /* the tree starts with subgroup ops */
  vir_sym *sv, *si;         /* shared memory for the tree (si: indices) */
  uint64_t count;           /* elements per result (mean) */
  vir_value *dyn_count;     /* a dynamic extent: n, the count (else NULL) */
} red;

typedef struct accum {
  vir_sym *v, *i; /* locals */
} accum;

/* ---- build.c: the builder's helpers (constants, locals, memory, loops) */
vir_value *vla_op_(lw *l, vir_opcode c, vir_type *t, uint32_t n, vir_value *const *a);
vir_value *vla_konst(lw *l, vir_type *t, vir_literal v);
vir_value *vla_extreme(lw *l, vir_type *t, bool max);
vir_value *vla_num(lw *l, vir_type *t, double x);
vir_sym *vla_local(lw *l, const char *base, vir_type *t);
vir_value *vla_lload(lw *l, vir_sym *s);
void vla_lstore(lw *l, vir_sym *s, vir_value *v);
vir_value *vla_mem_load(lw *l, vir_opcode c, vir_sym *s, vir_value *i, vir_type *t, bool vol);
void vla_mem_store(lw *l, vir_opcode c, vir_sym *s, vir_value *i, vir_value *v);
vir_value *vla_atomic(lw *l, vir_opcode c, vir_sym *s, vir_value *i, vir_value *v);
vir_value *vla_id_x(lw *l, vir_opcode c);
void vla_barrier(lw *l);
void vla_mbarrier(lw *l);
saved vla_enter(lw *l, vir_region *r);
void vla_leave(lw *l, saved s);
vir_value *vla_for_begin(lw *l, vir_value *lo, vir_value *hi, vir_value *st, saved *sv);
void vla_if_begin(lw *l, vir_value *c, saved *sv);
uint32_t vla_groups_for(uint64_t n, uint64_t per_group, uint32_t cap);
uint32_t vla_full_cap(lw *l);
uint32_t vla_full_groups(lw *l, uint64_t n);
void vla_array_grid(uint64_t items, uint32_t grid[3]);
vir_value *vla_item_begin(lw *l, uint64_t items, uint32_t *gx, saved *sv, bool *open);
void vla_item_end(lw *l, saved sv, bool open);
vir_value *vla_id_y(lw *l);
vir_value *vla_push_n(lw *l, vir_builder *pb);

/* ---- index.c: indices, views, storage, small types emulated in words */
idx *vla_new_idx(lw *l, const vir_type *shape, vir_value *flat);
vir_value *vla_flat_of(lw *l, idx *ix);
vir_value *vla_dim_index(lw *l, idx *ix, uint32_t i);
vir_value *vla_view_offset(lw *l, const vir_type *t, const vir_array_attr *a, idx *ix);
bool vla_is_packed8(lw *l, const vir_sym *s);
bool vla_is_vec4(lw *l, const vir_sym *s);
vir_value *vla_quad_load(lw *l, vir_sym *s, vir_value *quad);
vir_value *vla_load_lane(lw *l, vir_sym *s, vir_value *quad, uint32_t lane);
vir_value *vla_load_elem(lw *l, vir_sym *s, vir_value *off, vir_type *t);
void vla_store_elem(lw *l, vir_sym *s, vir_value *off, vir_value *v);
bool vla_emulated(lw *l, const vir_type *t);
vir_value *vla_small_cast(lw *l, vir_value *x, vir_type *src, vir_type *dst);

/* ---- emit.c: the scalar value of an array value at an index */
vir_value *vla_emit(lw *l, vir_value *v, idx *ix);
vir_value *vla_scalar(lw *l, vir_value *v);
void vla_emit_stores(lw *l, vir_op **stores, uint32_t n, idx *ix);

/* ---- reduce.c: reductions (accumulators, trees, the kernels) */
vir_value *vla_lift(lw *l, const red *r, vir_value *x);
vir_value *vla_combine(lw *l, const red *r, vir_value *a, vir_value *b);
accum vla_acc_new(lw *l, const red *r);
void vla_acc_add(lw *l, const red *r, accum a, vir_value *x, vir_value *xi);
vir_value *vla_finish(lw *l, const red *r, vir_value *v, vir_value *i);
char *vla_kname(lw *l, const char *suffix);
idx *vla_split_index(lw *l, const vir_type *in, const vir_array_attr *ax, vir_value *o, vir_value *q);
void vla_store_result(lw *l, vir_op *rs, vir_value *o, vir_value *x);
bool vla_cheap_region(const vir_region *K);
uint32_t vla_kernel_full_reduce(lw *l, vir_op *rop, vir_op *rs, vir_op **stores, uint32_t ns);
uint32_t vla_kernel_partial_reduce(lw *l, vir_op *rop, vir_op *rs, vir_op **stores, uint32_t ns);
void vla_kernel_segment_reduce(lw *l, vir_op *rop, vir_op *rs);
void vla_kernel_segment_scan(lw *l, vir_op *sop, vir_op *rs);
/* an invocation per line of a reduction or scan in segments (reduce.c) */
typedef struct segline {
  vir_value *o, *len, *inner, *base; /* the line, its length, step and first element */
  saved so;                          /* the loop over the lines */
} segline;
bool vla_segment_lines(lw *l, vir_op *op, segline *s);
vir_value *vla_prologue_n(lw *l);
red vla_plain_red(lw *l, vir_op *rop);

/* ---- kernels.c: elementwise and scatter kernels */
uint32_t vla_kernel_scatter(lw *l, vir_op *sc);
void vla_lanes(lw *l, const vir_type *S, vir_value *q, idx **ix);
uint32_t vla_kernel_elementwise(lw *l, vir_op **stores, uint32_t ns);

/* ---- tiled.c: scans and long reductions, tiled over several kernels */
bool vla_lower_scan(lw *l, vir_op *K, const char *name, vir_op *sop, vir_op *rs);
bool vla_full_reduction(const vir_op *rop);
bool vla_tiled_reduction(vir_op *rop);
bool vla_lower_tiled_reduce(lw *l, vir_op *K, const char *name, vir_op *rop, vir_op *rs,
                               vir_op **stores, uint32_t ns);

/* ---- vec4.c: which buffers and kernels read and write vec4s */
void vla_plan_vec4(lw *l);
bool vla_splat_load(const vir_op *op);

/* ---- lower_arrays.c: the driver */
bool vla_start_kernel(lw *l, vir_op *K, const char *name);
bool vla_end_kernel(lw *l, vir_op *K, uint32_t g);

/* The tiniest builders, used everywhere. */
static inline vir_type *vla_u32t(lw *l) { return vir_ty_uint(l->m, 32); }

static inline vir_value *vla_bin(lw *l, vir_opcode c, vir_value *a, vir_value *b) {
  vir_value *v[2] = {a, b};
  return vla_op_(l, c, NULL, 2, v);
}

static inline vir_value *vla_un(lw *l, vir_opcode c, vir_value *a) { return vla_op_(l, c, NULL, 1, &a); }

static inline vir_value *vla_cast(lw *l, vir_value *a, vir_type *t) {
  return a->type == t ? a : vla_op_(l, VIR_OP_CAST, t, 1, &a);
}

static inline vir_value *vla_sel(lw *l, vir_value *c, vir_value *a, vir_value *b) {
  vir_value *v[3] = {c, a, b};
  return vla_op_(l, VIR_OP_SELECT, a->type, 3, v);
}

static inline vir_value *vla_ku(lw *l, uint64_t v) { return vla_konst(l, vla_u32t(l), (vir_literal){.u = v}); }

#endif
