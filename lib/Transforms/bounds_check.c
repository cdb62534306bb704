/* bounds_check.c - debug mode: check every buffer and shared-array index,
 * and record the first failure (or failed assert) for the host.
 *
 * Every buffer.load/store and shared.load/store (and atomic on either)
 * gets `bad = idx < 0 || idx >= length` before it (the length is the
 * buffer's runtime size from buffer.len, its fixed count, or the shared
 * array's constant size). A bad access is never made: a load reads
 * element 0 instead (its index goes through a select), a store or atomic
 * moves into the else branch of `if bad { record } else { access }` (an
 * atomic whose old value is used keeps it through a local, 0 when
 * skipped). So nothing outside a buffer is touched and the kernel goes on.
 *
 * The record is the hidden buffer `_vp_assert : u32[]` the frontend makes
 * for `assert` with debug asserts on (added here, after the last binding
 * of set 0, when the kernel has no assert). Word 0 is the line of the
 * first failure, claimed with atomic.cmpxchg(0 -> line): first fault wins;
 * the invocation that claimed it then writes the rest:
 *   [0] line  [1] column  [2] kind (VIR_FAULT_* below)
 *   [3..5] global invocation id x, y, z
 *   [6] the index (low 32 bits)  [7] the length  [8] which symbol: the
 *   buffer's binding + 1, or the shared array's ordinal + 1 among the
 *   module's shared arrays  [9] 1 when the index type is signed
 * The frontend's assert already claims word 0 with its line; this pass
 * adds the rest of the record after it (kind 1). The host (vulpy's
 * _debug.py) reads the record after the dispatch and raises
 * vp.KernelError. docs/errors.md, "KernelError", describes it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transforms.h"

enum {
  VIR_FAULT_ASSERT = 1,
  VIR_FAULT_BUFFER_READ = 2,
  VIR_FAULT_BUFFER_WRITE = 3,
  VIR_FAULT_SHARED_READ = 4,
  VIR_FAULT_SHARED_WRITE = 5,
  VIR_FAULT_BUFFER_ATOMIC = 6,
  VIR_FAULT_SHARED_ATOMIC = 7,
};

#define RECORD_NAME "_vp_assert"

typedef struct bc_ctx {
  vir_module *m;
  vir_sym *rec;
  vir_op **ops;
  size_t n, cap;
  bool oom;
} bc_ctx;

static bool is_access(const vir_op *op) {
  switch (op->code) {
  case VIR_OP_BUFFER_LOAD:
  case VIR_OP_BUFFER_STORE:
  case VIR_OP_SHARED_LOAD:
  case VIR_OP_SHARED_STORE: return true;
  default:
    return vir_op_info_of(op->code)->attr == VIR_ATTR_ATOMIC && op->attr.sym &&
           (op->attr.sym->kind == VIR_SYM_BUFFER || op->attr.sym->kind == VIR_SYM_SHARED);
  }
}

/* Collects the ops to rewrite first: the rewrite adds ops of its own. */
static void collect(bc_ctx *c, vir_region *r) {
  for (vir_op *op = r->first; op; op = op->next) {
    for (uint32_t i = 0; i < vir_op_info_of(op->code)->nregion; i++)
      collect(c, &op->regions[i]);
    if (!is_access(op))
      continue;
    if (c->n == c->cap) {
      size_t cap = c->cap ? c->cap * 2 : 64;
      vir_op **p = realloc(c->ops, cap * sizeof *p);
      if (!p) {
        c->oom = true;
        return;
      }
      c->ops = p;
      c->cap = cap;
    }
    c->ops[c->n++] = op;
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

static uint32_t shared_ordinal(const vir_module *m, const vir_sym *s) {
  uint32_t k = 0;
  for (uint32_t i = 0; i < m->syms.len; i++) {
    if (m->syms.data[i] == s)
      return k;
    k += ((const vir_sym *)m->syms.data[i])->kind == VIR_SYM_SHARED;
  }
  return k;
}

static void store_word(bc_ctx *c, vir_builder *b, uint32_t word, vir_value *v) {
  vir_type *u32 = vir_ty_uint(c->m, 32);
  vir_value *ops[2] = {vir_build_int(b, u32, word), v};
  vir_op *st = vir_build(b, VIR_OP_BUFFER_STORE, NULL, 2, ops);
  if (st)
    st->attr.sym = c->rec;
}

static vir_value *to_u32(bc_ctx *c, vir_builder *b, vir_value *v) {
  vir_type *u32 = vir_ty_uint(c->m, 32);
  if (v->type == u32)
    return v;
  vir_op *op = vir_build(b, VIR_OP_CAST, u32, 1, &v);
  return op ? &op->val : NULL;
}

/* The words after the line, written by the invocation that claimed the
 * record (where `claimed` is true). */
static void write_rest(bc_ctx *c, vir_builder *b, vir_value *old, vp_loc loc, uint32_t kind,
                       vir_value *idx, vir_value *len, uint32_t which, bool is_signed) {
  vir_type *u32 = vir_ty_uint(c->m, 32);
  vir_value *z = vir_build_int(b, u32, 0);
  vir_value *eqo[2] = {old, z};
  vir_op *first = vir_build(b, VIR_OP_EQ, vir_ty_bool(c->m), 2, eqo);
  vir_value *cond = &first->val;
  vir_op *iff = vir_build(b, VIR_OP_IF, NULL, 1, &cond);
  vir_builder in = *b;
  vir_builder_at_end(&in, &iff->regions[0]);
  store_word(c, &in, 1, vir_build_int(&in, u32, loc.col));
  store_word(c, &in, 2, vir_build_int(&in, u32, kind));
  vir_op *gid = vir_build(&in, VIR_OP_GLOBAL_ID, vir_ty_vec(c->m, u32, 3), 0, NULL);
  for (uint32_t k = 0; k < 3; k++) {
    vir_value *g = &gid->val;
    vir_op *e = vir_build(&in, VIR_OP_EXTRACT, u32, 1, &g);
    e->attr.index = k;
    store_word(c, &in, 3 + k, &e->val);
  }
  store_word(c, &in, 6, idx ? to_u32(c, &in, idx) : vir_build_int(&in, u32, 0));
  store_word(c, &in, 7, len ? len : vir_build_int(&in, u32, 0));
  store_word(c, &in, 8, vir_build_int(&in, u32, which));
  store_word(c, &in, 9, vir_build_int(&in, u32, is_signed));
}

/* if bad { claim the record with the op's line, then the rest } */
static vir_op *record_fault(bc_ctx *c, vir_builder *b, vir_value *bad, vp_loc loc, uint32_t kind,
                            vir_value *idx, vir_value *len, uint32_t which, bool is_signed) {
  vir_type *u32 = vir_ty_uint(c->m, 32);
  vir_op *iff = vir_build(b, VIR_OP_IF, NULL, 1, &bad);
  vir_builder in = *b;
  vir_builder_at_end(&in, &iff->regions[0]);
  vir_value *ops[3] = {vir_build_int(&in, u32, 0), vir_build_int(&in, u32, 0),
                       vir_build_int(&in, u32, loc.line ? loc.line : 1)};
  vir_op *cx = vir_build(&in, VIR_OP_ATOMIC_CMPXCHG, u32, 3, ops);
  cx->attr.sym = c->rec;
  cx->attr.scope = VIR_SCOPE_DEVICE;
  cx->attr.sem = VIR_SEM_RELAXED;
  write_rest(c, &in, &cx->val, loc, kind, idx, len, which, is_signed);
  return iff;
}

static void check_access(bc_ctx *c, vir_op *op) {
  vir_module *m = c->m;
  vir_sym *s = op->attr.sym;
  if (!s || s == c->rec || !op->nopnd)
    return;
  vir_value *idx = op->opnd[0];
  vir_type *it = idx->type;
  if (!it || (it->kind != VIR_TY_INT && it->kind != VIR_TY_UINT))
    return;
  bool shared = s->kind == VIR_SYM_SHARED;
  uint64_t fixed = shared ? (s->type && s->type->kind == VIR_TY_ARRAY ? s->type->len : 0)
                          : s->count;
  if (shared && !fixed)
    return;
  const vir_literal *k = vir_const_of(idx);
  if (k && fixed) { /* a constant index: checked once, here */
    bool neg = it->kind == VIR_TY_INT && k->i < 0;
    if (!neg && k->u < fixed)
      return;
  }
  vir_type *u32 = vir_ty_uint(m, 32);
  vir_builder b;
  vir_builder_init(&b, m);
  vir_builder_before(&b, op);
  b.loc = op->loc;
  vir_value *len;
  if (fixed) {
    len = vir_build_int(&b, u32, (int64_t)(fixed > 0xffffffffu ? 0xffffffffu : fixed));
  } else {
    vir_op *l = vir_build(&b, VIR_OP_BUFFER_LEN, u32, 0, NULL);
    l->attr.sym = s;
    len = &l->val;
  }
  vir_value *lent = len;
  if (it != u32) {
    vir_op *cv = vir_build(&b, VIR_OP_CAST, it, 1, &len);
    lent = &cv->val;
  }
  vir_value *ge_ops[2] = {idx, lent};
  vir_value *bad = &vir_build(&b, VIR_OP_GE, vir_ty_bool(m), 2, ge_ops)->val;
  bool is_signed = it->kind == VIR_TY_INT;
  if (is_signed) {
    vir_value *lt_ops[2] = {idx, vir_build_int(&b, it, 0)};
    vir_value *neg = &vir_build(&b, VIR_OP_LT, vir_ty_bool(m), 2, lt_ops)->val;
    vir_value *or_ops[2] = {neg, bad};
    bad = &vir_build(&b, VIR_OP_LOR, vir_ty_bool(m), 2, or_ops)->val;
  }
  bool atomic = vir_op_info_of(op->code)->attr == VIR_ATTR_ATOMIC;
  bool load = op->code == VIR_OP_BUFFER_LOAD || op->code == VIR_OP_SHARED_LOAD;
  uint32_t kind = atomic ? (shared ? VIR_FAULT_SHARED_ATOMIC : VIR_FAULT_BUFFER_ATOMIC)
                  : load ? (shared ? VIR_FAULT_SHARED_READ : VIR_FAULT_BUFFER_READ)
                         : (shared ? VIR_FAULT_SHARED_WRITE : VIR_FAULT_BUFFER_WRITE);
  uint32_t which = shared ? shared_ordinal(m, s) + 1 : s->binding + 1;
  vir_op *iff = record_fault(c, &b, bad, op->loc, kind, idx, len, which, is_signed);
  if (load) { /* read element 0 instead: harmless, and the load stays a value */
    vir_value *sel[3] = {bad, vir_build_int(&b, it, 0), idx};
    op->opnd[0] = &vir_build(&b, VIR_OP_SELECT, it, 3, sel)->val;
    return;
  }
  /* stores and atomics: only in the else branch */
  vir_value *res = vir_result(op);
  vir_func *f = vir_op_func(op);
  vir_sym *keep = NULL;
  if (res && f) {
    vir_func_count_uses(f);
    if (res->nuses) {
      char name[40];
      snprintf(name, sizeof name, "_vp_bc%u", res->id);
      keep = vir_func_add_local(m, f, name, res->type, op->loc);
    }
  }
  vir_op *nxt = op->next;
  vir_region *parent = op->parent;
  vir_op_unlink(op);
  vir_region_insert(&iff->regions[1], NULL, op);
  if (keep) {
    /* a skipped atomic reads as 0 */
    vir_builder pre;
    vir_builder_init(&pre, m);
    vir_builder_before(&pre, iff);
    pre.loc = op->loc;
    vir_value *zero = vir_ty_is_float(res->type) ? vir_build_float(&pre, res->type, 0.0)
                                                 : vir_build_int(&pre, res->type, 0);
    vir_op *z = vir_build(&pre, VIR_OP_LOCAL_STORE, NULL, 1, &zero);
    z->attr.sym = keep;
    vir_builder post;
    vir_builder_init(&post, m);
    if (nxt)
      vir_builder_before(&post, nxt);
    else
      vir_builder_at_end(&post, parent);
    post.loc = op->loc;
    vir_op *ld = vir_build(&post, VIR_OP_LOCAL_LOAD, res->type, 0, NULL);
    ld->attr.sym = keep;
    vir_replace_all_uses(f, res, &ld->val);
    vir_builder inside;
    vir_builder_init(&inside, m);
    vir_builder_at_end(&inside, &iff->regions[1]);
    inside.loc = op->loc;
    vir_op *st = vir_build(&inside, VIR_OP_LOCAL_STORE, NULL, 1, &res);
    st->attr.sym = keep;
  }
}

/* The frontend's assert: `atomic.cmpxchg @_vp_assert[0], 0, LINE` (its
 * result unused); the rest of the record follows it. */
static void finish_assert(bc_ctx *c, vir_op *op) {
  vir_builder b;
  vir_builder_init(&b, c->m);
  if (op->next)
    vir_builder_before(&b, op->next);
  else
    vir_builder_at_end(&b, op->parent);
  b.loc = op->loc;
  write_rest(c, &b, &op->val, op->loc, VIR_FAULT_ASSERT, NULL, NULL, 0, false);
}

vir_pass_result vir_opt_bounds_check(vir_module *m, const vir_pass_options *opts,
                                     vp_diags *diags) {
  (void)opts;
  bc_ctx c = {.m = m};
  bool any = false;
  for (uint32_t i = 0; i < m->syms.len; i++) {
    vir_sym *s = m->syms.data[i];
    if (s->kind == VIR_SYM_FUNC && s->func && !s->func->is_array)
      collect(&c, &s->func->body);
  }
  if (c.oom) {
    free(c.ops);
    vp_error(diags, (vp_loc){0}, "bounds-check: out of memory");
    return VIR_PASS_FAILURE;
  }
  bool has_kernel = false;
  for (uint32_t i = 0; i < m->syms.len; i++) {
    const vir_sym *s = m->syms.data[i];
    has_kernel |= s->kind == VIR_SYM_FUNC && s->func && s->func->is_kernel;
  }
  if (!has_kernel) {
    free(c.ops);
    return VIR_PASS_UNCHANGED;
  }
  c.rec = record_sym(m);
  if (!c.rec) {
    free(c.ops);
    vp_error(diags, (vp_loc){0}, "bounds-check: '%s' names something other than a buffer",
             RECORD_NAME);
    return VIR_PASS_FAILURE;
  }
  for (size_t i = 0; i < c.n; i++) {
    vir_op *op = c.ops[i];
    if (op->attr.sym == c.rec) {
      if (op->code == VIR_OP_ATOMIC_CMPXCHG) {
        finish_assert(&c, op);
        any = true;
      }
      continue;
    }
    check_access(&c, op);
    any = true;
  }
  free(c.ops);
  return any ? VIR_PASS_CHANGED : VIR_PASS_UNCHANGED;
}
