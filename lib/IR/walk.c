/* walk.c - the shared op walker and use replacement.
 *
 * The walk is pre-order in program order. Before calling back it remembers
 * the next op, so the callback may unlink (or replace) the op it is given;
 * when the op is still in place afterwards the walk continues from its
 * current successor, so ops the callback inserted after it are visited too.
 */
#include "ir_impl.h"

static bool walk(vir_region *r, vir_walk_fn fn, void *ctx) {
  vir_op *op = r->first;
  while (op) {
    vir_op *next = op->next;
    vir_walk_result res = fn(op, ctx);
    if (res == VIR_WALK_STOP)
      return false;
    if (op->parent == r) {
      if (res == VIR_WALK_ADVANCE)
        for (uint32_t i = 0; i < vir_op_info_of(op->code)->nregion; i++)
          if (!walk(&op->regions[i], fn, ctx))
            return false;
      next = op->next;
    }
    op = next;
  }
  return true;
}

bool vir_walk_region(vir_region *r, vir_walk_fn fn, void *ctx) { return walk(r, fn, ctx); }

bool vir_walk_func(vir_func *f, vir_walk_fn fn, void *ctx) { return walk(&f->body, fn, ctx); }

bool vir_walk_module(vir_module *m, vir_walk_fn fn, void *ctx) {
  for (uint32_t i = 0; i < m->syms.len; i++) {
    vir_sym *s = m->syms.data[i];
    if (s->kind == VIR_SYM_FUNC && s->func && !walk(&s->func->body, fn, ctx))
      return false;
  }
  return true;
}

typedef struct {
  vir_value *from, *to;
} replace_ctx;

static vir_walk_result replace_cb(vir_op *op, void *p) {
  replace_ctx *c = p;
  for (uint32_t i = 0; i < op->nopnd; i++)
    if (op->opnd[i] == c->from)
      op->opnd[i] = c->to;
  return VIR_WALK_ADVANCE;
}

void vir_replace_all_uses(vir_func *f, vir_value *from, vir_value *to) {
  replace_ctx c = {from, to};
  walk(&f->body, replace_cb, &c);
}
