/* loop_canary.c - catch the loops a device ended early (lavapipe).
 *
 * Lavapipe (llvmpipe) ends every loop of an invocation silently once its
 * loops took 65,535 back-edges in all; after that every loop runs once, and
 * the kernel's results are wrong with no error. A kernel whose loops may
 * add up to that many (a trip count known only at run time, a while loop,
 * a constant count past LOOP_BUDGET) gets the canary of lower_memsock.c's
 * add_canary before every return and at the end of its body:
 *
 *   n = _vp_assert[15]          (the host writes it: no compiler unrolls it)
 *   count = 0; for _ in 0..n: count += 1
 *   if count != n: claim the record (cmpxchg word 0: 0 -> the kernel's
 *                  line) and write the rest, kind VIR_FAULT_LOOP_BUDGET
 *
 * A count short of n means this invocation's budget was spent: some loop
 * of it was cut. The record is bounds_check.c's (`_vp_assert`, 16 u32
 * words, added after the last binding of set 0 when the kernel has none);
 * the host reads it after the dispatch and raises vp.KernelError. Kernels
 * whose loops are all short constant ones are left alone (no record). A
 * kernel with memsock.fire is left alone too: lower-memsock adds its own
 * canary for its wait loops; so is a persistent program (after
 * lower-persistent: the module has @_vp_grid), whose host binds its own
 * hidden buffers last and bounds its barrier waits itself.
 */
#include <stdint.h>
#include <stdlib.h>

#include "transforms.h"

enum { VIR_FAULT_LOOP_BUDGET = 8 };

#define RECORD_NAME "_vp_assert"
#define TRIPS_WORD 15
/* below lavapipe's 65,535 with room for the canary's own back-edges */
#define LOOP_BUDGET 65000u

static uint64_t sat_add(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }

static uint64_t sat_mul(uint64_t a, uint64_t b) {
  return a && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

static bool const_int(const vir_value *v, int64_t *out) {
  const vir_literal *k = vir_const_of(v);
  if (!k || !v->type || (v->type->kind != VIR_TY_INT && v->type->kind != VIR_TY_UINT))
    return false;
  *out = k->i;
  return true;
}

static uint64_t const_trips(const vir_op *op) {
  int64_t lo, hi, st;
  if (op->nopnd != 3 || !const_int(op->opnd[0], &lo) || !const_int(op->opnd[1], &hi) ||
      !const_int(op->opnd[2], &st) || !st)
    return UINT64_MAX;
  if (st > 0)
    return hi > lo ? ((uint64_t)hi - (uint64_t)lo + (uint64_t)st - 1) / (uint64_t)st : 0;
  return lo > hi ? ((uint64_t)lo - (uint64_t)hi + (uint64_t)(-st) - 1) / (uint64_t)(-st) : 0;
}

/* The most back-edges the ops of `r` may take (UINT64_MAX: unknown), the
 * functions it calls included; `depth` stops a call cycle. */
static uint64_t backedges(const vir_region *r, int depth) {
  uint64_t total = 0;
  for (const vir_op *op = r ? r->first : NULL; op; op = op->next) {
    uint64_t inner = 0;
    for (uint32_t k = 0; k < vir_op_info_of(op->code)->nregion; k++)
      inner = sat_add(inner, backedges(&op->regions[k], depth));
    if (op->code == VIR_OP_CALL) {
      const vir_sym *s = op->attr.sym;
      inner = sat_add(inner, depth > 16 ? UINT64_MAX
                             : s && s->func ? backedges(&s->func->body, depth + 1) : 0);
    }
    if (op->code == VIR_OP_FOR)
      total = sat_add(total, sat_mul(const_trips(op), sat_add(1, inner)));
    else if (op->code == VIR_OP_LOOP || op->code == VIR_OP_WHILE)
      total = UINT64_MAX;
    else
      total = sat_add(total, inner);
  }
  return total;
}

static bool has_fire(const vir_region *r) {
  for (const vir_op *op = r->first; op; op = op->next) {
    if (op->code == VIR_OP_MEMSOCK_FIRE)
      return true;
    for (uint32_t i = 0; i < vir_op_info_of(op->code)->nregion; i++)
      if (has_fire(&op->regions[i]))
        return true;
  }
  return false;
}

typedef struct lc_ctx {
  vir_module *m;
  vir_func *f;
  vir_sym *rec, *count;
  vir_type *u32;
  vir_op **rets;
  size_t n, cap;
  bool oom;
} lc_ctx;

static void collect_returns(lc_ctx *c, vir_region *r) {
  for (vir_op *op = r->first; op; op = op->next) {
    for (uint32_t i = 0; i < vir_op_info_of(op->code)->nregion; i++)
      collect_returns(c, &op->regions[i]);
    if (op->code != VIR_OP_RETURN)
      continue;
    if (c->n == c->cap) {
      size_t cap = c->cap ? c->cap * 2 : 8;
      vir_op **p = realloc(c->rets, cap * sizeof *p);
      if (!p) {
        c->oom = true;
        return;
      }
      c->rets = p;
      c->cap = cap;
    }
    c->rets[c->n++] = op;
  }
}

static vir_sym *record_sym(vir_module *m) {
  vir_sym *s = vir_module_find(m, RECORD_NAME);
  if (s)
    return s->kind == VIR_SYM_BUFFER ? s : NULL;
  uint32_t binding = 0;
  for (uint32_t i = 0; i < m->syms.len; i++) {
    const vir_sym *b = m->syms.data[i];
    if (b->kind == VIR_SYM_BUFFER && b->set == 0 && b->binding + 1 > binding)
      binding = b->binding + 1;
  }
  return vir_add_buffer(m, RECORD_NAME, vir_ty_uint(m, 32), 0, binding, VIR_ACCESS_READWRITE,
                        (vp_loc){0});
}

static vir_value *k32(lc_ctx *c, vir_builder *b, uint32_t v) { return vir_build_int(b, c->u32, v); }

static void store_word(lc_ctx *c, vir_builder *b, uint32_t word, vir_value *v) {
  vir_value *ops[2] = {k32(c, b, word), v};
  vir_op *st = vir_build(b, VIR_OP_BUFFER_STORE, NULL, 2, ops);
  st->attr.sym = c->rec;
}

static vir_value *lload(lc_ctx *c, vir_builder *b) {
  vir_op *op = vir_build(b, VIR_OP_LOCAL_LOAD, c->u32, 0, NULL);
  op->attr.sym = c->count;
  return &op->val;
}

static void lstore(lc_ctx *c, vir_builder *b, vir_value *v) {
  vir_op *op = vir_build(b, VIR_OP_LOCAL_STORE, NULL, 1, &v);
  op->attr.sym = c->count;
}

/* The canary at b's position (see the file comment). */
static void add_canary(lc_ctx *c, vir_builder *b) {
  vir_module *m = c->m;
  vp_loc loc = c->f->loc;
  b->loc = loc;
  vir_value *w = k32(c, b, TRIPS_WORD);
  vir_op *ld = vir_build(b, VIR_OP_BUFFER_LOAD, c->u32, 1, &w);
  ld->attr.sym = c->rec;
  vir_value *n = &ld->val;
  lstore(c, b, k32(c, b, 0));
  vir_value *fo[3] = {k32(c, b, 0), n, k32(c, b, 1)};
  vir_op *loop = vir_build(b, VIR_OP_FOR, NULL, 3, fo);
  vir_builder in = *b;
  vir_builder_at_end(&in, &loop->regions[0]);
  vir_value *add[2] = {lload(c, &in), k32(c, &in, 1)};
  lstore(c, &in, &vir_build(&in, VIR_OP_ADD, c->u32, 2, add)->val);
  vir_value *ne[2] = {lload(c, b), n};
  vir_value *cut = &vir_build(b, VIR_OP_NE, vir_ty_bool(m), 2, ne)->val;
  vir_op *iff = vir_build(b, VIR_OP_IF, NULL, 1, &cut);
  vir_builder_at_end(&in, &iff->regions[0]);
  vir_value *cx_ops[3] = {k32(c, &in, 0), k32(c, &in, 0), k32(c, &in, loc.line ? loc.line : 1)};
  vir_op *cx = vir_build(&in, VIR_OP_ATOMIC_CMPXCHG, c->u32, 3, cx_ops);
  cx->attr.sym = c->rec;
  cx->attr.scope = VIR_SCOPE_DEVICE;
  cx->attr.sem = VIR_SEM_RELAXED;
  vir_value *eq[2] = {&cx->val, k32(c, &in, 0)};
  vir_value *first = &vir_build(&in, VIR_OP_EQ, vir_ty_bool(m), 2, eq)->val;
  vir_op *claimed = vir_build(&in, VIR_OP_IF, NULL, 1, &first);
  vir_builder_at_end(&in, &claimed->regions[0]);
  store_word(c, &in, 1, k32(c, &in, loc.col));
  store_word(c, &in, 2, k32(c, &in, VIR_FAULT_LOOP_BUDGET));
  vir_op *gid = vir_build(&in, VIR_OP_GLOBAL_ID, vir_ty_vec(m, c->u32, 3), 0, NULL);
  for (uint32_t k = 0; k < 3; k++) {
    vir_value *g = &gid->val;
    vir_op *e = vir_build(&in, VIR_OP_EXTRACT, c->u32, 1, &g);
    e->attr.index = k;
    store_word(c, &in, 3 + k, &e->val);
  }
  for (uint32_t k = 6; k < 10; k++)
    store_word(c, &in, k, k32(c, &in, 0));
}

static bool canary_kernel(lc_ctx *c) {
  vir_func *f = c->f;
  c->n = 0;
  collect_returns(c, &f->body);
  if (c->oom)
    return false;
  c->count = vir_func_add_local(c->m, f, "_vp_loop_canary", c->u32, f->loc);
  vir_builder b;
  vir_builder_init(&b, c->m);
  b.f = f;
  for (size_t i = 0; i < c->n; i++) {
    vir_builder_before(&b, c->rets[i]);
    add_canary(c, &b);
  }
  vir_op *last = f->body.last;
  if (!last || !(vir_op_info_of(last->code)->flags & VIR_F_TERM)) {
    vir_builder_at_end(&b, &f->body);
    add_canary(c, &b);
  }
  return true;
}

vir_pass_result vir_opt_loop_canary(vir_module *m, const vir_pass_options *opts,
                                    vp_diags *diags) {
  (void)opts;
  if (vir_module_find(m, "_vp_grid"))
    return VIR_PASS_UNCHANGED;
  lc_ctx c = {.m = m, .u32 = vir_ty_uint(m, 32)};
  bool any = false;
  uint32_t nsyms = m->syms.len; /* the record, when added, is not a function */
  for (uint32_t i = 0; i < nsyms; i++) {
    vir_sym *s = m->syms.data[i];
    vir_func *f = s->kind == VIR_SYM_FUNC ? s->func : NULL;
    if (!f || !f->is_kernel || f->is_array || has_fire(&f->body) ||
        backedges(&f->body, 0) < LOOP_BUDGET)
      continue;
    if (!c.rec)
      c.rec = record_sym(m);
    if (!c.rec) {
      vp_error(diags, (vp_loc){0}, "loop-canary: '%s' names something other than a buffer",
               RECORD_NAME);
      free(c.rets);
      return VIR_PASS_FAILURE;
    }
    c.f = f;
    if (!canary_kernel(&c)) {
      vp_error(diags, (vp_loc){0}, "loop-canary: out of memory");
      free(c.rets);
      return VIR_PASS_FAILURE;
    }
    any = true;
  }
  free(c.rets);
  return any ? VIR_PASS_CHANGED : VIR_PASS_UNCHANGED;
}
