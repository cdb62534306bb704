/* reduce.c - reduction kernels of the lower-arrays pass.
 *
 * A reduction's accumulator (value, and index for argmin / argmax), its
 * identity and combine (NaN-propagating min / max as NumPy), the
 * workgroup tree (subgroup ops, then shared memory), and the two kernel
 * shapes: a full reduction in one dispatch (the last workgroup finishes
 * the partials) and a partial reduction (a workgroup or an invocation
 * per output element).
 */
#include "lower_arrays.h"


static bool is_min(vir_opcode c) { return c == VIR_OP_ARRAY_MIN || c == VIR_OP_ARRAY_ARGMIN; }

static vir_value *identity(lw *l, const red *r) {
  switch (r->code) {
  case VIR_OP_ARRAY_PROD:
  case VIR_OP_ARRAY_ALL: return vla_num(l, r->acc, 1);
  case VIR_OP_ARRAY_MIN:
  case VIR_OP_ARRAY_ARGMIN: return vla_extreme(l, r->acc, true);
  case VIR_OP_ARRAY_MAX:
  case VIR_OP_ARRAY_ARGMAX: return vla_extreme(l, r->acc, false);
  default: return vla_num(l, r->acc, 0);
  }
}

/* An input element as an accumulator value. */
vir_value *vla_lift(lw *l, const red *r, vir_value *x) {
  if (r->code == VIR_OP_ARRAY_ANY || r->code == VIR_OP_ARRAY_ALL) {
    if (x->type->kind != VIR_TY_BOOL)
      x = vla_bin(l, VIR_OP_NE, x, vla_num(l, x->type, 0));
    return vla_cast(l, x, r->acc);
  }
  return vla_cast(l, x, r->acc);
}

/* a (+) b; min/max propagate NaN like NumPy. */
vir_value *vla_combine(lw *l, const red *r, vir_value *a, vir_value *b) {
  switch (r->code) {
  case VIR_OP_ARRAY_SUM:
  case VIR_OP_ARRAY_MEAN: return vla_bin(l, VIR_OP_ADD, a, b);
  case VIR_OP_ARRAY_PROD: return vla_bin(l, VIR_OP_MUL, a, b);
  case VIR_OP_ARRAY_ANY: return vla_bin(l, VIR_OP_MAX, a, b);
  case VIR_OP_ARRAY_ALL: return vla_bin(l, VIR_OP_MIN, a, b);
  default: break;
  }
  bool mn = is_min(r->code);
  if (r->acc->kind != VIR_TY_FLOAT)
    return vla_bin(l, mn ? VIR_OP_MIN : VIR_OP_MAX, a, b);
  vir_value *better = vla_bin(l, mn ? VIR_OP_LT : VIR_OP_GT, b, a);
  return vla_sel(l, vla_bin(l, VIR_OP_LOR, better, vla_un(l, VIR_OP_ISNAN, b)), b, a);
}

/* Whether (bv, bi) beats (av, ai) in argmin/argmax: the smaller (larger)
 * value, NaN first (NumPy), ties to the smaller index. */
static vir_value *arg_better(lw *l, const red *r, vir_value *av, vir_value *ai, vir_value *bv,
                             vir_value *bi) {
  vir_value *cmp = vla_bin(l, is_min(r->code) ? VIR_OP_LT : VIR_OP_GT, bv, av);
  vir_value *ilt = vla_bin(l, VIR_OP_LT, bi, ai);
  vir_value *plain = vla_bin(l, VIR_OP_LOR, cmp, vla_bin(l, VIR_OP_LAND, vla_bin(l, VIR_OP_EQ, bv, av), ilt));
  if (r->acc->kind != VIR_TY_FLOAT)
    return plain;
  vir_value *an = vla_un(l, VIR_OP_ISNAN, av), *bn = vla_un(l, VIR_OP_ISNAN, bv);
  vir_value *not_an = vla_un(l, VIR_OP_LNOT, an);
  return vla_sel(l, bn, vla_bin(l, VIR_OP_LOR, not_an, ilt), vla_bin(l, VIR_OP_LAND, not_an, plain));
}


accum vla_acc_new(lw *l, const red *r) {
  accum a = {vla_local(l, "acc", r->acc), r->arg ? vla_local(l, "acci", vla_u32t(l)) : NULL};
  if (a.v)
    vla_lstore(l, a.v, identity(l, r));
  if (a.i)
    vla_lstore(l, a.i, vla_ku(l, UINT32_MAX));
  return a;
}

void vla_acc_add(lw *l, const red *r, accum a, vir_value *x, vir_value *xi) {
  vir_value *av = vla_lload(l, a.v);
  if (!r->arg) {
    vla_lstore(l, a.v, vla_combine(l, r, av, x));
    return;
  }
  vir_value *ai = vla_lload(l, a.i);
  vir_value *b = arg_better(l, r, av, ai, x, xi);
  vla_lstore(l, a.v, vla_sel(l, b, x, av));
  vla_lstore(l, a.i, vla_sel(l, b, xi, ai));
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
  vir_value *li = vla_id_x(l, VIR_OP_LOCAL_INDEX);
  vir_value *v = vla_lload(l, a.v), *n;
  saved sv;
  if (r->sg) {
    vir_value *s = vla_un(l, subgroup_op(r->code), v);
    if (r->acc->kind == VIR_TY_FLOAT && (r->code == VIR_OP_ARRAY_MIN || r->code == VIR_OP_ARRAY_MAX)) {
      vir_value *nan = vla_un(l, VIR_OP_SG_ANY, vla_un(l, VIR_OP_ISNAN, v));
      s = vla_sel(l, nan, vla_num(l, r->acc, NAN), s);
    }
    vir_value *sid = vla_op_(l, VIR_OP_SUBGROUP_ID, vla_u32t(l), 0, NULL);
    n = vla_op_(l, VIR_OP_NUM_SUBGROUPS, vla_u32t(l), 0, NULL);
    vla_if_begin(l, vla_op_(l, VIR_OP_SG_ELECT, vir_ty_bool(l->m), 0, NULL), &sv);
    vla_mem_store(l, VIR_OP_SHARED_STORE, r->sv, sid, s);
    vla_leave(l, sv);
  } else {
    n = NULL;
    vla_mem_store(l, VIR_OP_SHARED_STORE, r->sv, li, v);
    if (r->arg)
      vla_mem_store(l, VIR_OP_SHARED_STORE, r->si, li, vla_lload(l, a.i));
  }
  vla_barrier(l);
  for (uint32_t s = WG / 2; s >= 1; s /= 2) {
    vir_value *ks = vla_ku(l, s), *c = vla_bin(l, VIR_OP_LT, li, ks);
    vir_value *other = vla_bin(l, VIR_OP_ADD, li, ks);
    saved live;
    if (n) {
      /* A step pairs entries only below n (the subgroups): skip it, and
       * its barrier, when s >= n (uniform: n is the workgroup's). With
       * 32-wide subgroups 3 of the 8 steps remain. */
      vla_if_begin(l, vla_bin(l, VIR_OP_LT, ks, n), &live);
      c = vla_bin(l, VIR_OP_LAND, c, vla_bin(l, VIR_OP_LT, other, n));
    }
    vla_if_begin(l, c, &sv);
    vir_value *x = vla_mem_load(l, VIR_OP_SHARED_LOAD, r->sv, li, r->acc, false);
    vir_value *y = vla_mem_load(l, VIR_OP_SHARED_LOAD, r->sv, other, r->acc, false);
    if (r->arg) {
      vir_value *xi = vla_mem_load(l, VIR_OP_SHARED_LOAD, r->si, li, vla_u32t(l), false);
      vir_value *yi = vla_mem_load(l, VIR_OP_SHARED_LOAD, r->si, other, vla_u32t(l), false);
      vir_value *b = arg_better(l, r, x, xi, y, yi);
      vla_mem_store(l, VIR_OP_SHARED_STORE, r->sv, li, vla_sel(l, b, y, x));
      vla_mem_store(l, VIR_OP_SHARED_STORE, r->si, li, vla_sel(l, b, yi, xi));
    } else {
      vla_mem_store(l, VIR_OP_SHARED_STORE, r->sv, li, vla_combine(l, r, x, y));
    }
    vla_leave(l, sv);
    vla_barrier(l);
    if (n)
      vla_leave(l, live);
  }
  if (ri)
    *ri = r->arg ? vla_mem_load(l, VIR_OP_SHARED_LOAD, r->si, vla_ku(l, 0), vla_u32t(l), false) : NULL;
  return vla_mem_load(l, VIR_OP_SHARED_LOAD, r->sv, vla_ku(l, 0), r->acc, false);
}

/* The result element from the accumulator. */
vir_value *vla_finish(lw *l, const red *r, vir_value *v, vir_value *i) {
  switch (r->code) {
  case VIR_OP_ARRAY_MEAN:
    if (r->dyn_count) /* n = 0: 0 / 0 at run time, NaN */
      return vla_bin(l, VIR_OP_DIV, v, vla_cast(l, r->dyn_count, r->acc));
    /* NumPy: the mean of nothing is NaN (0 / 0 is not NaN everywhere: a
     * driver may take x / 0 as x * (1 / 0) and fold it) */
    if (!r->count && r->acc->kind == VIR_TY_FLOAT)
      return vla_num(l, r->acc, NAN);
    return vla_bin(l, VIR_OP_DIV, v, vla_num(l, r->acc, (double)r->count));
  case VIR_OP_ARRAY_ARGMIN:
  case VIR_OP_ARRAY_ARGMAX: return vla_cast(l, i, r->res);
  case VIR_OP_ARRAY_ANY:
  case VIR_OP_ARRAY_ALL: return vla_bin(l, VIR_OP_NE, v, vla_ku(l, 0));
  default: return vla_cast(l, v, r->res);
  }
}

char *vla_kname(lw *l, const char *suffix) {
  return vp_arena_printf(&l->m->arena, "%s_%s", l->k->sym->name, suffix);
}

static red red_info(lw *l, vir_op *op) {
  red r = {.code = op->code, .in = op->opnd[0]->type->elem, .res = op->val.type->elem};
  r.arg = op->code == VIR_OP_ARRAY_ARGMIN || op->code == VIR_OP_ARRAY_ARGMAX;
  switch (op->code) {
  case VIR_OP_ARRAY_MIN:
  case VIR_OP_ARRAY_MAX:
  case VIR_OP_ARRAY_ARGMIN:
  case VIR_OP_ARRAY_ARGMAX: r.acc = r.in->kind == VIR_TY_BOOL ? vla_u32t(l) : r.in; break;
  case VIR_OP_ARRAY_ANY:
  case VIR_OP_ARRAY_ALL: r.acc = vla_u32t(l); break;
  default: r.acc = r.res; break;
  }
  uint32_t miss = l->o ? l->o->missing_features : 0;
  bool float_minmax = r.acc->kind == VIR_TY_FLOAT && (op->code == VIR_OP_ARRAY_MIN || op->code == VIR_OP_ARRAY_MAX);
  r.sg = !r.arg && r.acc->bits == 32 && r.acc->kind != VIR_TY_BOOL &&
         !(miss & (VP_FEAT(SUBGROUP_BASIC) | VP_FEAT(SUBGROUP_ARITH))) &&
         !(float_minmax && (miss & VP_FEAT(SUBGROUP_VOTE)));
  vir_type *arr = vir_ty_array(l->m, r.acc, WG);
  r.sv = vir_add_shared(l->m, vla_kname(l, "red"), arr, l->b.loc);
  if (r.arg)
    r.si = vir_add_shared(l->m, vla_kname(l, "redi"), vir_ty_array(l->m, vla_u32t(l), WG), l->b.loc);
  return r;
}

/* The input index of output element o and reduced element q. */
idx *vla_split_index(lw *l, const vir_type *in, const vir_array_attr *ax, vir_value *o, vir_value *q) {
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
  idx *oi = vla_new_idx(l, vir_ty_tensor(l->m, in->elem, nk, kd), o);
  idx *qi = vla_new_idx(l, vir_ty_tensor(l->m, in->elem, nr, rd), q);
  idx *ix = vla_new_idx(l, in, NULL);
  if (!oi || !qi || !ix)
    return NULL;
  nk = nr = 0;
  for (uint32_t i = 0; i < in->n; i++)
    ix->multi[i] = isred[i] ? vla_dim_index(l, qi, nr++) : vla_dim_index(l, oi, nk++);
  return ix;
}

void vla_store_result(lw *l, vir_op *rs, vir_value *o, vir_value *x) {
  vir_value *v = rs->opnd[0];
  idx *oi = vla_new_idx(l, v->type, o);
  if (oi)
    vla_store_elem(l, rs->attr.sym, vla_view_offset(l, v->type, rs->attr.arr, oi), x);
}


/* Whether a full reduction reads its input as vec4s (its loads' buffers
 * were retyped by plan_vec4). */
static bool vec4_reduction(lw *l, vir_op *rop) {
  for (vir_op *op = rop->parent->first; op; op = op->next)
    if (op->code == VIR_OP_ARRAY_LOAD && !vla_splat_load(op))
      return vla_is_vec4(l, op->attr.sym);
  return false;
}

/* Whether every op of a kernel region is cheap (no transcendental,
 * division, ...): then unrolling its loop costs little code. */
bool vla_cheap_region(const vir_region *K) {
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
  vla_lanes(l, rop->opnd[0]->type, q, ix);
  for (uint32_t k = 0; k < 4; k++) {
    x[k] = ix[k] ? vla_emit(l, rop->opnd[0], ix[k]) : NULL;
    if (!x[k])
      return;
    x[k] = vla_lift(l, r, x[k]);
  }
  vir_value *lo = vla_combine(l, r, x[0], x[1]);
  vir_value *hi = vla_combine(l, r, x[2], x[3]);
  vla_acc_add(l, r, a, vla_combine(l, r, lo, hi), NULL);
}

/* Issues the vec4 loads of the region's inputs at each of the quads
 * first, so they are in flight together before any of them is used. */
static void load_quads(lw *l, const vir_region *K, vir_value **q, uint32_t n) {
  l->nquads = 0;
  for (uint32_t u = 0; u < n; u++)
    for (const vir_op *op = K->first; op; op = op->next)
      if (op->code == VIR_OP_ARRAY_LOAD && vla_is_vec4(l, op->attr.sym))
        vla_quad_load(l, op->attr.sym, q[u]);
}

/* The group cap of a full reduction: RED_GROUPS (RED_GROUPS_CPU on a CPU
 * device), or the pass option reduce_groups. */
uint32_t vla_full_cap(lw *l) {
  uint32_t cap = l->o && l->o->cpu_device ? RED_GROUPS_CPU : RED_GROUPS;
  return l->o && l->o->reduce_groups ? l->o->reduce_groups : cap;
}

/* The groups of a full reduction of n elements: RED_TILE elements an
 * invocation up to the cap, and enough that no invocation loops more than
 * MAX_ITER times (a dynamic extent: the same rule as scalar ops of n,
 * lower_arrays.c's reduce_grid). */
uint32_t vla_full_groups(lw *l, uint64_t n) {
  uint32_t g = vla_groups_for(n, WG * RED_TILE, vla_full_cap(l));
  uint64_t need = (n + (uint64_t)WG * MAX_ITER - 1) / ((uint64_t)WG * MAX_ITER);
  return g < need ? (uint32_t)need : g;
}

/* Accumulates the (up to 3) elements of quad q below n: each lane's value,
 * or the identity past n (the quad reaches into the buffer's padding). */
static void add_tail_quad(lw *l, const red *r, vir_op *rop, accum a, vir_value *q, vir_value *rem) {
  idx *ix[4];
  vla_lanes(l, rop->opnd[0]->type, q, ix);
  for (uint32_t k = 0; k < 3; k++) {
    vir_value *x = ix[k] ? vla_emit(l, rop->opnd[0], ix[k]) : NULL;
    if (!x)
      return;
    vir_value *in = vla_bin(l, VIR_OP_LT, vla_ku(l, k), rem);
    vla_acc_add(l, r, a, vla_sel(l, in, vla_lift(l, r, x), identity(l, r)), NULL);
  }
}

/* The accumulation of a full reduction of n elements by a grid of g
 * groups: a grid-stride loop; vec4s (UNROLL independent loads an
 * iteration when the expression is cheap, each into its own accumulator,
 * the lanes of a vec4 combined pairwise first; then the remaining vec4s
 * one an iteration). Several loads in flight per invocation is what a
 * reduction needs to reach copy bandwidth. Static: nk elements, gk groups
 * (loops that would not run left out). Over a dynamic extent (dyn): n
 * from the push block, g from num_workgroups (the host computes it from n:
 * lower_arrays.c, reduce_grid), and invocation 0 adds the last n mod 4
 * elements of the padded vec4 past the others. */
static void accumulate(lw *l, red *r, vir_op *rop, accum a, vir_op **stores, uint32_t ns,
                       bool dyn, uint64_t nk, uint32_t gk) {
  const vir_type *in = rop->opnd[0]->type;
  vir_value *n = NULL, *S = NULL; /* over a dynamic extent */
  if (dyn) {
    if (!(n = vla_prologue_n(l)))
      return;
    r->dyn_count = n;
  }
  vir_value *gid = vla_id_x(l, VIR_OP_GLOBAL_ID);
  if (dyn)
    S = vla_bin(l, VIR_OP_MUL, vla_id_x(l, VIR_OP_NUM_WORKGROUPS), vla_ku(l, WG));
  uint64_t Sk = (uint64_t)gk * WG;
  saved sv;
  if (!vec4_reduction(l, rop)) {
    vir_value *i = vla_for_begin(l, gid, dyn ? n : vla_ku(l, nk), dyn ? S : vla_ku(l, Sk), &sv);
    idx *ix = vla_new_idx(l, in, i);
    vir_value *x = vla_emit(l, rop->opnd[0], ix);
    if (x)
      vla_acc_add(l, r, a, vla_lift(l, r, x), i);
    vla_emit_stores(l, stores, ns, ix);
    vla_leave(l, sv);
    return;
  }
  uint64_t n4k = nk / 4;
  uint32_t U = vla_cheap_region(rop->parent) ? UNROLL : 1;
  /* main_end = n4 - n4 mod (U S): U quads an iteration below it */
  uint64_t main_k = !dyn && U > 1 ? n4k / (U * Sk) * (U * Sk) : 0;
  vir_value *n4 = dyn ? vla_bin(l, VIR_OP_SHR, n, vla_ku(l, 2)) : NULL, *main_end = NULL;
  accum acc[UNROLL] = {a};
  for (uint32_t u = 1; u < U; u++)
    acc[u] = vla_acc_new(l, r);
  if (dyn ? U > 1 : main_k != 0) {
    vir_value *US = dyn ? vla_bin(l, VIR_OP_MUL, S, vla_ku(l, U)) : NULL;
    main_end = dyn ? vla_bin(l, VIR_OP_MUL, vla_bin(l, VIR_OP_DIV, n4, US), US) : NULL;
    vir_value *off[UNROLL] = {NULL, S};
    for (uint32_t u = 2; dyn && u < U; u++)
      off[u] = vla_bin(l, VIR_OP_MUL, S, vla_ku(l, u));
    vir_value *q0 = dyn ? vla_for_begin(l, gid, main_end, US, &sv)
                        : vla_for_begin(l, gid, vla_ku(l, main_k), vla_ku(l, U * Sk), &sv);
    vir_value *q[UNROLL];
    for (uint32_t u = 0; u < U; u++)
      q[u] = u ? vla_bin(l, VIR_OP_ADD, q0, dyn ? off[u] : vla_ku(l, u * Sk)) : q0;
    load_quads(l, rop->parent, q, U);
    for (uint32_t u = 0; u < U; u++)
      add_quad(l, r, rop, acc[u], q[u]);
    vla_leave(l, sv);
  }
  if (dyn || main_k < n4k) {
    vir_value *lo = dyn ? (main_end ? vla_bin(l, VIR_OP_ADD, gid, main_end) : gid)
                        : (main_k ? vla_bin(l, VIR_OP_ADD, gid, vla_ku(l, main_k)) : gid);
    vir_value *q = dyn ? vla_for_begin(l, lo, n4, S, &sv)
                       : vla_for_begin(l, lo, vla_ku(l, n4k), vla_ku(l, Sk), &sv);
    l->nquads = 0;
    add_quad(l, r, rop, a, q);
    vla_leave(l, sv);
  }
  for (uint32_t u = 1; u < U; u++) {
    vir_value *x = vla_lload(l, a.v);
    vla_lstore(l, a.v, vla_combine(l, r, x, vla_lload(l, acc[u].v)));
  }
  if (!dyn)
    return;
  vir_value *rem = vla_bin(l, VIR_OP_AND, n, vla_ku(l, 3));
  vir_value *tail = vla_bin(l, VIR_OP_LAND, vla_bin(l, VIR_OP_EQ, gid, vla_ku(l, 0)),
                            vla_bin(l, VIR_OP_NE, rem, vla_ku(l, 0)));
  vla_if_begin(l, tail, &sv);
  l->nquads = 0;
  add_tail_quad(l, r, rop, a, n4, rem);
  vla_leave(l, sv);
}

/* A reduction over every axis: one dispatch (see the file comment). Over
 * a dynamic extent the grid is the host's, from n (returns 0). */
uint32_t vla_kernel_full_reduce(lw *l, vir_op *rop, vir_op *rs, vir_op **stores, uint32_t ns) {
  red r = red_info(l, rop);
  const vir_type *in = rop->opnd[0]->type;
  bool dyn = vir_ty_is_dynamic(in);
  uint64_t n = dyn ? 0 : vir_ty_numel(in);
  r.count = n;
  /* g: the groups (gk when known here); gmax: the most there may be */
  uint32_t gk = dyn ? 0 : vla_full_groups(l, n);
  uint32_t gmax = dyn ? vla_full_groups(l, UINT32_MAX) : gk;
  accum a = vla_acc_new(l, &r);
  accumulate(l, &r, rop, a, stores, ns, dyn, n, gk);
  vir_value *ri, *res = tree(l, &r, a, &ri);
  vir_value *li = vla_id_x(l, VIR_OP_LOCAL_INDEX);
  vir_value *first = vla_bin(l, VIR_OP_EQ, li, vla_ku(l, 0));
  saved sv;
  if (gk == 1) {
    vla_if_begin(l, first, &sv);
    vla_store_result(l, rs, vla_ku(l, 0), vla_finish(l, &r, res, ri));
    vla_leave(l, sv);
    return gk;
  }
  vir_value *gv = dyn ? vla_id_x(l, VIR_OP_NUM_WORKGROUPS) : vla_ku(l, gk);
  saved many;
  if (dyn) {
    l->dyn_red_cap = vla_full_cap(l);
    /* one group (n <= 2^14): the result straight away, as the static
     * kernel of g = 1; else the partials (a uniform branch) */
    saved one;
    vla_if_begin(l, vla_bin(l, VIR_OP_LAND, vla_bin(l, VIR_OP_EQ, gv, vla_ku(l, 1)), first), &one);
    vla_store_result(l, rs, vla_ku(l, 0), vla_finish(l, &r, res, ri));
    vla_leave(l, one);
    vla_if_begin(l, vla_bin(l, VIR_OP_NE, gv, vla_ku(l, 1)), &many);
  }
  /* partials, and the last workgroup to finish reduces them */
  vir_sym *part = vir_add_buffer(l->m, vla_kname(l, "part"), r.acc, 0, 0, VIR_ACCESS_READWRITE, l->b.loc);
  vir_sym *parti = r.arg ? vir_add_buffer(l->m, vla_kname(l, "parti"), vla_u32t(l), 0, 0, VIR_ACCESS_READWRITE, l->b.loc) : NULL;
  vir_sym *cnt = vir_add_buffer(l->m, vla_kname(l, "count"), vla_u32t(l), 0, 0, VIR_ACCESS_READWRITE, l->b.loc);
  vir_sym *flag = vir_add_shared(l->m, vla_kname(l, "last"), vir_ty_array(l->m, vla_u32t(l), 1), l->b.loc);
  vir_sym *bufs[3] = {part, parti, cnt};
  for (int k = 0; k < 3; k++) {
    if (!bufs[k])
      continue;
    vir_sym *b = bufs[k];
    b->count = k == 2 ? 1 : gmax;
    b->buf_flags = VIR_BUF_COHERENT;
    b->binding = 0;
    for (uint32_t q = 0; q < l->m->syms.len; q++) {
      const vir_sym *o = l->m->syms.data[q];
      if (o != b && o->kind == VIR_SYM_BUFFER && o->set == 0 && o->binding >= b->binding)
        b->binding = o->binding + 1;
    }
  }
  vir_value *wg = vla_id_x(l, VIR_OP_WORKGROUP_ID);
  vla_if_begin(l, first, &sv);
  vla_mem_store(l, VIR_OP_BUFFER_STORE, part, wg, res);
  if (parti)
    vla_mem_store(l, VIR_OP_BUFFER_STORE, parti, wg, ri);
  vla_mbarrier(l);
  vir_value *old = vla_atomic(l, VIR_OP_ATOMIC_ADD, cnt, vla_ku(l, 0), vla_ku(l, 1));
  vir_value *glast = dyn ? vla_bin(l, VIR_OP_SUB, gv, vla_ku(l, 1)) : vla_ku(l, gk - 1);
  vla_mem_store(l, VIR_OP_SHARED_STORE, flag, vla_ku(l, 0), vla_cast(l, vla_bin(l, VIR_OP_EQ, old, glast), vla_u32t(l)));
  vla_leave(l, sv);
  vla_barrier(l);
  vir_value *last = vla_bin(l, VIR_OP_NE, vla_mem_load(l, VIR_OP_SHARED_LOAD, flag, vla_ku(l, 0), vla_u32t(l), false), vla_ku(l, 0));
  vla_if_begin(l, last, &sv);
  vla_mbarrier(l);
  accum a2 = vla_acc_new(l, &r);
  saved sv2;
  /* The partials: F independent loads per iteration (all issued before
   * the first is used, combined pairwise), then one per iteration. Over a
   * dynamic extent F is for gmax groups and fin_end the host's g rounded
   * down to F WG. */
  uint32_t F = 1;
  while (!parti && F < FIN_UNROLL && (uint64_t)F * 2 * WG <= gmax)
    F *= 2;
  uint32_t fin_end = F > 1 ? gk / (F * WG) * (F * WG) : 0;
  vir_value *fe = dyn && F > 1 ? vla_bin(l, VIR_OP_AND, gv, vla_ku(l, ~(F * WG - 1u))) : NULL;
  if (fin_end || fe) {
    vir_value *j0 = vla_for_begin(l, li, fe ? fe : vla_ku(l, fin_end), vla_ku(l, F * WG), &sv2);
    vir_value *pv[FIN_UNROLL];
    for (uint32_t u = 0; u < F; u++)
      pv[u] = vla_mem_load(l, VIR_OP_BUFFER_LOAD, part, u ? vla_bin(l, VIR_OP_ADD, j0, vla_ku(l, u * WG)) : j0,
                       r.acc, true);
    for (uint32_t w = F; w > 1; w /= 2)
      for (uint32_t u = 0; u < w / 2; u++)
        pv[u] = vla_combine(l, &r, pv[2 * u], pv[2 * u + 1]);
    vla_acc_add(l, &r, a2, pv[0], NULL);
    vla_leave(l, sv2);
  }
  if (dyn || fin_end < gk) {
    vir_value *lo = fe ? vla_bin(l, VIR_OP_ADD, li, fe) : fin_end ? vla_bin(l, VIR_OP_ADD, li, vla_ku(l, fin_end)) : li;
    vir_value *j = vla_for_begin(l, lo, gv, vla_ku(l, WG), &sv2);
    vir_value *pv = vla_mem_load(l, VIR_OP_BUFFER_LOAD, part, j, r.acc, true);
    vir_value *pi = parti ? vla_mem_load(l, VIR_OP_BUFFER_LOAD, parti, j, vla_u32t(l), true) : NULL;
    vla_acc_add(l, &r, a2, pv, pi);
    vla_leave(l, sv2);
  }
  vir_value *ri2, *res2 = tree(l, &r, a2, &ri2);
  saved sv3;
  vla_if_begin(l, first, &sv3);
  vla_store_result(l, rs, vla_ku(l, 0), vla_finish(l, &r, res2, ri2));
  vla_mem_store(l, VIR_OP_BUFFER_STORE, cnt, vla_ku(l, 0), vla_ku(l, 0)); /* ready for the next launch */
  vla_leave(l, sv3);
  vla_leave(l, sv);
  if (dyn)
    vla_leave(l, many);
  return gk;
}

/* A workgroup's output o of a reduction a workgroup per output: the tree
 * of the invocations' accumulators, invocation 0 stores the result, and a
 * barrier before the next output reuses the shared memory. */
static void group_store(lw *l, const red *r, accum a, vir_op *rs, vir_value *o, vir_value *li) {
  vir_value *ri, *res = tree(l, r, a, &ri);
  saved sf;
  vla_if_begin(l, vla_bin(l, VIR_OP_EQ, li, vla_ku(l, 0)), &sf);
  vla_store_result(l, rs, o, vla_finish(l, r, res, ri));
  vla_leave(l, sf);
  vla_barrier(l);
}

/* A reduction over some axes: a workgroup per output element when the
 * reduced axes are the trailing ones and long enough, else an invocation
 * per output element. */
uint32_t vla_kernel_partial_reduce(lw *l, vir_op *rop, vir_op *rs, vir_op **stores, uint32_t ns) {
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
  else
    r = vla_plain_red(l, rop); /* no tree: red_info without shared memory */
  r.count = R;
  saved so, si;
  uint32_t g;
  if (coop) {
    g = O > MAX_GROUPS ? MAX_GROUPS : (O ? (uint32_t)O : 1);
    vir_value *wg = vla_id_x(l, VIR_OP_WORKGROUP_ID);
    vir_value *li = vla_id_x(l, VIR_OP_LOCAL_INDEX);
    vir_value *o = vla_for_begin(l, wg, vla_ku(l, O), vla_ku(l, g), &so);
    accum a = vla_acc_new(l, &r);
    vir_value *q = vla_for_begin(l, li, vla_ku(l, R), vla_ku(l, WG), &si);
    idx *ix = vla_split_index(l, in, ax, o, q);
    vir_value *x = ix ? vla_emit(l, rop->opnd[0], ix) : NULL;
    if (x)
      vla_acc_add(l, &r, a, vla_lift(l, &r, x), q);
    vla_emit_stores(l, stores, ns, ix);
    vla_leave(l, si);
    group_store(l, &r, a, rs, o, li);
    vla_leave(l, so);
    return g;
  }
  g = vla_groups_for(O, WG, MAX_GROUPS);
  vir_value *gid = vla_id_x(l, VIR_OP_GLOBAL_ID);
  vir_value *o = vla_for_begin(l, gid, vla_ku(l, O), vla_ku(l, (uint64_t)g * WG), &so);
  accum a = vla_acc_new(l, &r);
  vir_value *q = vla_for_begin(l, vla_ku(l, 0), vla_ku(l, R), vla_ku(l, 1), &si);
  idx *ix = vla_split_index(l, in, ax, o, q);
  vir_value *x = ix ? vla_emit(l, rop->opnd[0], ix) : NULL;
  if (x)
    vla_acc_add(l, &r, a, vla_lift(l, &r, x), q);
  vla_emit_stores(l, stores, ns, ix);
  vla_leave(l, si);
  vla_store_result(l, rs, o, vla_finish(l, &r, vla_lload(l, a.v), a.i ? vla_lload(l, a.i) : NULL));
  vla_leave(l, so);
  return g;
}

/* A reduction in segments of a dynamic extent (ops.def): output o, below
 * the push field n, reduces len elements of x, inner apart, from
 * (o / inner) * len * inner + o % inner. Two operands (inner 1, rows of
 * len): a workgroup per output and the tree of the trailing-axes kernel
 * above; three: an invocation per output, a loop. The groups are the
 * host's, from n (lower_arrays.c, segment_grid: as many as the static
 * kernels of that n would launch), and outputs past them are taken in
 * turn; the host keeps len within the loop budget (MAX_ITER iterations of
 * a workgroup's invocation, TILE of an invocation's) and n within one
 * turn, as the static kernels' shapes do. The kernel stores nothing but
 * the result (the host gives it one load and no other store). */
void vla_kernel_segment_reduce(lw *l, vir_op *rop, vir_op *rs) {
  bool coop = rop->nopnd == 2;
  red r = coop ? red_info(l, rop) : vla_plain_red(l, rop);
  const vir_type *in = rop->opnd[0]->type;
  if (!coop) {
    segline sl;
    if (!vla_segment_lines(l, rop, &sl))
      return;
    r.dyn_count = sl.len; /* the mean's divisor */
    saved si;
    accum a = vla_acc_new(l, &r);
    vir_value *q = vla_for_begin(l, vla_ku(l, 0), sl.len, vla_ku(l, 1), &si);
    vir_value *at = vla_bin(l, VIR_OP_ADD, sl.base, vla_bin(l, VIR_OP_MUL, q, sl.inner));
    vir_value *x = vla_emit(l, rop->opnd[0], vla_new_idx(l, in, at));
    if (x)
      vla_acc_add(l, &r, a, vla_lift(l, &r, x), q);
    vla_leave(l, si);
    vla_store_result(l, rs, sl.o, vla_finish(l, &r, vla_lload(l, a.v), a.i ? vla_lload(l, a.i) : NULL));
    vla_leave(l, sl.so);
    return;
  }
  vir_value *n = vla_prologue_n(l);
  vir_value *len = n ? vla_scalar(l, rop->opnd[1]) : NULL;
  if (!len) {
    l->failed = true;
    return;
  }
  r.dyn_count = len;
  l->dyn_seg = 1;
  saved so, si;
  vir_value *wg = vla_id_x(l, VIR_OP_WORKGROUP_ID);
  vir_value *li = vla_id_x(l, VIR_OP_LOCAL_INDEX);
  vir_value *o = vla_for_begin(l, wg, n, vla_id_x(l, VIR_OP_NUM_WORKGROUPS), &so);
  vir_value *row = vla_bin(l, VIR_OP_MUL, o, len);
  accum a = vla_acc_new(l, &r);
  vir_value *q = vla_for_begin(l, li, len, vla_ku(l, WG), &si);
  vir_value *x = vla_emit(l, rop->opnd[0], vla_new_idx(l, in, vla_bin(l, VIR_OP_ADD, row, q)));
  if (x)
    vla_acc_add(l, &r, a, vla_lift(l, &r, x), q);
  vla_leave(l, si);
  group_store(l, &r, a, rs, o, li);
  vla_leave(l, so);
}

/* Opens the loop of an invocation per line of op in segments (ops.def:
 * operands x, len, inner; n lines): s->o the line, s->base its first
 * element (o / inner) * len * inner + o % inner, s->inner the distance
 * between its elements (max(inner, 1): a divisor the emitters keep as
 * C's /, the host's inner being at least 1). The caller closes s->so. */
bool vla_segment_lines(lw *l, vir_op *op, segline *s) {
  vir_value *n = vla_prologue_n(l);
  s->len = n ? vla_scalar(l, op->opnd[1]) : NULL;
  vir_value *inner = s->len ? vla_scalar(l, op->opnd[2]) : NULL;
  if (!inner) {
    l->failed = true;
    return false;
  }
  l->dyn_seg = 2;
  vir_value *gid = vla_id_x(l, VIR_OP_GLOBAL_ID);
  vir_value *S = vla_bin(l, VIR_OP_MUL, vla_id_x(l, VIR_OP_NUM_WORKGROUPS), vla_ku(l, WG));
  s->o = vla_for_begin(l, gid, n, S, &s->so);
  s->inner = vla_bin(l, VIR_OP_MAX, inner, vla_ku(l, 1));
  vir_value *lo = vla_bin(l, VIR_OP_DIV, s->o, s->inner);
  s->base = vla_bin(l, VIR_OP_ADD, vla_bin(l, VIR_OP_MUL, vla_bin(l, VIR_OP_MUL, lo, s->len), s->inner),
                    vla_bin(l, VIR_OP_SUB, s->o, vla_bin(l, VIR_OP_MUL, lo, s->inner)));
  return true;
}
