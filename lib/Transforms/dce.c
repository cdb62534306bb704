/* dce.c - dead code elimination.
 *
 * First the locals that are never loaded: their stores go (a value only
 * written is never observed), and so do the locals. Then ops whose results
 * are unused and which have no effect: pure ops, and loads that are not
 * volatile (and not atomic: those order other memory operations). The walk
 * goes backwards through each region, inner regions first, so by the time
 * it reaches a definition every later use has been counted down; a chain
 * of dead ops goes in one walk. An `if` left with two empty branches goes
 * too.
 */
#include "transforms.h"

#include <stdlib.h>

static bool removable(const vir_op *op) {
  const vir_op_info *info = vir_op_info_of(op->code);
  if (info->nregion || !vir_result((vir_op *)op) || op->val.nuses)
    return false;
  if (info->flags & VIR_F_PURE)
    return true;
  return (info->flags & VIR_F_READMEM) && !(info->flags & (VIR_F_WRITEMEM | VIR_F_CONV)) &&
         !(op->flags & VIR_OPF_VOLATILE) && info->attr != VIR_ATTR_ATOMIC;
}

static void drop(vir_op *op, bool *changed) {
  for (uint32_t i = 0; i < op->nopnd; i++)
    if (op->opnd[i] && op->opnd[i]->nuses)
      op->opnd[i]->nuses--;
  vir_op_unlink(op);
  *changed = true;
}

static void dce_region(vir_region *r, bool *changed) {
  for (vir_op *op = r->last, *prev; op; op = prev) {
    prev = op->prev;
    const vir_op_info *info = vir_op_info_of(op->code);
    for (uint32_t i = info->nregion; i-- > 0;)
      dce_region(&op->regions[i], changed);
    if (op->code == VIR_OP_IF && !op->regions[0].first && !op->regions[1].first)
      drop(op, changed);
    else if (removable(op))
      drop(op, changed);
  }
}

/* ---------------------------------------------------------------- locals */

typedef struct local_ctx {
  vir_func *f;
  uint32_t *loads; /* by index in f->locals */
  vp_map index;    /* vir_sym* bytes -> index + 1 */
  vp_arena tmp;
  bool changed;
} local_ctx;

static int local_index(local_ctx *c, const vir_sym *s) {
  return (int)(uintptr_t)vp_map_get(&c->index, (const char *)&s, sizeof s) - 1;
}

static vir_walk_result count_loads(vir_op *op, void *p) {
  local_ctx *c = p;
  if (op->code == VIR_OP_LOCAL_LOAD || op->code == VIR_OP_LOCAL_LOAD_AT) {
    int i = local_index(c, op->attr.sym);
    if (i >= 0)
      c->loads[i]++;
  }
  return VIR_WALK_ADVANCE;
}

static vir_walk_result drop_stores(vir_op *op, void *p) {
  local_ctx *c = p;
  if (op->code == VIR_OP_LOCAL_STORE || op->code == VIR_OP_LOCAL_STORE_AT) {
    int i = local_index(c, op->attr.sym);
    if (i >= 0 && !c->loads[i]) {
      vir_op_unlink(op); /* the walker allows unlinking the visited op */
      c->changed = true;
    }
  }
  return VIR_WALK_ADVANCE;
}

static bool dead_locals(vir_module *m, vir_func *f) {
  if (!f->locals.len)
    return false;
  local_ctx c = {.f = f, .loads = calloc(f->locals.len, sizeof(uint32_t))};
  if (!c.loads)
    return false;
  /* the keys are the pointers stored in f->locals, which stays put until
   * the removals at the end */
  for (uint32_t i = 0; i < f->locals.len; i++)
    vp_map_put(&c.tmp, &c.index, (const char *)&f->locals.data[i], sizeof(void *),
               (void *)(uintptr_t)(i + 1));
  vir_walk_func(f, count_loads, &c);
  vir_walk_func(f, drop_stores, &c);
  bool *keep = calloc(f->locals.len, sizeof(bool));
  if (keep) {
    bool drop = false;
    for (uint32_t i = 0; i < f->locals.len; i++) {
      keep[i] = c.loads[i] != 0;
      drop |= !keep[i];
    }
    if (drop) {
      vir_func_filter_locals(m, f, keep);
      c.changed = true;
    }
    free(keep);
  }
  free(c.loads);
  vp_arena_free(&c.tmp);
  return c.changed;
}

vir_pass_result vir_opt_dce(vir_module *m, const vir_pass_options *opts, vp_diags *diags) {
  (void)opts;
  (void)diags;
  bool changed = false;
  for (uint32_t i = 0; i < m->syms.len; i++) {
    vir_sym *s = m->syms.data[i];
    if (s->kind != VIR_SYM_FUNC || !s->func)
      continue;
    changed |= dead_locals(m, s->func);
    vir_func_count_uses(s->func);
    dce_region(&s->func->body, &changed);
  }
  return changed ? VIR_PASS_CHANGED : VIR_PASS_UNCHANGED;
}
