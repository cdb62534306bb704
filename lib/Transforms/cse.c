/* cse.c - common subexpression elimination over structured regions.
 *
 * A pure op (no memory, not convergent, not volatile, no regions) equal
 * to one already seen in the same region or an enclosing one - same
 * opcode, result type, operands (in either order for commutative ops) and
 * attribute - is replaced by that earlier op's value. "Already seen in an
 * enclosing region" is exactly SSA visibility in VIR, so the table is
 * scoped: each region pushes a mark and pops back to it at its end. Buckets
 * are chains with the newest entry first, so popping in reverse order
 * always unlinks a chain head. Uses are rewritten on the fly, as in
 * canonicalize: definitions precede uses in program order.
 */
#include "transforms.h"

#include <stdlib.h>
#include <string.h>

typedef struct entry {
  vir_op *op;
  uint32_t hash;
  struct entry *next;
} entry;

typedef struct cse {
  entry **buckets;
  uint32_t mask;
  entry *pool; /* one entry per op at most */
  uint32_t npool, cap;
  vir_value **remap;
  uint32_t nremap;
  bool changed;
} cse;

static bool eligible(const vir_op *op) {
  const vir_op_info *info = vir_op_info_of(op->code);
  return (info->flags & VIR_F_PURE) && !(info->flags & VIR_F_CONV) && !info->nregion &&
         !(op->flags & VIR_OPF_VOLATILE) && vir_result((vir_op *)op);
}

/* Operands in a canonical order: commutative ops sort their two by id. */
static void operands(const vir_op *op, vir_value **a, vir_value **b) {
  *a = op->nopnd > 0 ? op->opnd[0] : NULL;
  *b = op->nopnd > 1 ? op->opnd[1] : NULL;
  if ((vir_op_info_of(op->code)->flags & VIR_F_COMMUT) && op->nopnd == 2 && *a && *b &&
      (*a)->id > (*b)->id) {
    vir_value *t = *a;
    *a = *b;
    *b = t;
  }
}

static uint32_t mix(uint32_t h, uint64_t v) {
  h ^= (uint32_t)v + 0x9e3779b9u + (h << 6) + (h >> 2);
  h ^= (uint32_t)(v >> 32) + 0x9e3779b9u + (h << 6) + (h >> 2);
  return h;
}

static uint32_t hash_op(const vir_op *op) {
  uint32_t h = mix((uint32_t)op->code, (uintptr_t)op->val.type);
  vir_value *a, *b;
  operands(op, &a, &b);
  h = mix(h, (uintptr_t)a);
  h = mix(h, (uintptr_t)b);
  for (uint32_t i = 2; i < op->nopnd; i++)
    h = mix(h, (uintptr_t)op->opnd[i]);
  h = mix(h, op->attr.lit.u);
  h = mix(h, (uintptr_t)op->attr.sym);
  h = mix(h, op->attr.index);
  return h;
}

static bool same_attr(const vir_op *x, const vir_op *y) {
  const vir_attr *a = &x->attr, *b = &y->attr;
  switch ((vir_attr_kind)vir_op_info_of(x->code)->attr) {
  case VIR_ATTR_NONE: return true;
  case VIR_ATTR_CONST:
    /* bit patterns: 0.0 and -0.0 differ, NaNs with one pattern merge */
    if (x->val.type->kind == VIR_TY_BOOL)
      return a->lit.b == b->lit.b;
    return a->lit.u == b->lit.u;
  case VIR_ATTR_SYM:
    return a->sym == b->sym && a->npath == b->npath && memcmp(a->path, b->path, a->npath) == 0;
  case VIR_ATTR_INDEX:
  case VIR_ATTR_UFUNC: return a->index == b->index;
  case VIR_ATTR_SWIZZLE: return a->nswz == b->nswz && memcmp(a->swz, b->swz, a->nswz) == 0;
  default: return false; /* atomics, barriers, calls are never pure */
  }
}

static bool same_op(const vir_op *x, const vir_op *y) {
  if (x->code != y->code || x->val.type != y->val.type || x->nopnd != y->nopnd ||
      x->flags != y->flags || !same_attr(x, y))
    return false;
  vir_value *xa, *xb, *ya, *yb;
  operands(x, &xa, &xb);
  operands(y, &ya, &yb);
  if (xa != ya || xb != yb)
    return false;
  for (uint32_t i = 2; i < x->nopnd; i++)
    if (x->opnd[i] != y->opnd[i])
      return false;
  return true;
}

static vir_value *resolve(cse *c, vir_value *v) {
  return v && v->id < c->nremap && c->remap[v->id] ? c->remap[v->id] : v;
}

static void cse_region(cse *c, vir_region *r) {
  uint32_t mark = c->npool;
  for (vir_op *op = r->first, *next; op; op = next) {
    next = op->next;
    for (uint32_t i = 0; i < op->nopnd; i++)
      op->opnd[i] = resolve(c, op->opnd[i]);
    const vir_op_info *info = vir_op_info_of(op->code);
    for (uint32_t i = 0; i < info->nregion; i++)
      cse_region(c, &op->regions[i]);
    if (!eligible(op) || c->npool == c->cap)
      continue;
    uint32_t h = hash_op(op);
    entry *e = c->buckets[h & c->mask];
    for (; e; e = e->next)
      if (e->hash == h && same_op(e->op, op))
        break;
    if (e) {
      if (op->val.id < c->nremap)
        c->remap[op->val.id] = &e->op->val;
      vir_op_unlink(op);
      c->changed = true;
      continue;
    }
    entry *n = &c->pool[c->npool++];
    *n = (entry){op, h, c->buckets[h & c->mask]};
    c->buckets[h & c->mask] = n;
  }
  /* leave the region: what it defined is not visible after it */
  while (c->npool > mark) {
    entry *e = &c->pool[--c->npool];
    c->buckets[e->hash & c->mask] = e->next;
  }
}

vir_pass_result vir_opt_cse(vir_module *m, const vir_pass_options *opts, vp_diags *diags) {
  (void)opts;
  bool changed = false;
  for (uint32_t i = 0; i < m->syms.len; i++) {
    vir_sym *s = m->syms.data[i];
    if (s->kind != VIR_SYM_FUNC || !s->func)
      continue;
    vir_func *f = s->func;
    uint32_t n = f->next_id ? f->next_id : 1, size = 16;
    while (size < 2 * n)
      size *= 2;
    cse c = {.mask = size - 1, .cap = n, .nremap = f->next_id};
    c.buckets = calloc(size, sizeof *c.buckets);
    c.pool = malloc(n * sizeof *c.pool);
    c.remap = calloc(n, sizeof *c.remap);
    if (c.buckets && c.pool && c.remap)
      cse_region(&c, &f->body);
    else
      vp_error(diags, f->loc, "out of memory in cse");
    bool ok = c.buckets && c.pool && c.remap;
    free(c.buckets);
    free(c.pool);
    free(c.remap);
    if (!ok)
      return VIR_PASS_FAILURE;
    changed |= c.changed;
  }
  return changed ? VIR_PASS_CHANGED : VIR_PASS_UNCHANGED;
}
