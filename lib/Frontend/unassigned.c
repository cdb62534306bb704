/* unassigned.c - the kernel's locals once it is built: those nothing
 * refers to, and names that may be read before they are assigned.
 *
 * vfe_drop_unused_locals removes the locals no op refers to (those only a
 * pruned constant `if`'s dropped branch used, stmt.c, or a declaration
 * never used) and the pruned conditions' constants no op reads.
 *
 * vfe_check_unassigned: Python raises UnboundLocalError when a name is read
 * on a path where no assignment to it ran (`if i < 3: y = 5.0` then
 * `a[i] = y` with i >= 3); a VIR local read there holds whatever the GPU's
 * register held. This walk finds such reads and warns at the first read of
 * each name (a warning, not an error: a kernel that compiled before still
 * compiles; docs/language.md, "Variables and assignment").
 *
 * A forward walk over the structured regions with the set of locals
 * assigned on every path so far: after an `if`, those both branches
 * assign (a branch that ends in return / break / continue does not reach
 * what follows); after a `for` or `while`, those assigned before it and at
 * every `break` (the body may not run, and `while`'s condition runs once);
 * after a `loop` (while True), those assigned at every `break`. A store to
 * part of a local (an element, a field) counts as an assignment. Locals of
 * array and struct type (vp.Local arrays, self) and the frontend's own
 * (`_vp_` names) are not followed.
 */
#include <stdlib.h>
#include <string.h>

#include "fe.h"

/* Fills `index` (in arena `a`) with f's locals: vir_sym* bytes -> 1 + the
 * local's place in f->locals; longjmps on allocation failure. */
static void index_locals(vfe_ctx *c, vp_arena *a, vp_map *index, const vir_func *f) {
  for (uint32_t i = 0; i < f->locals.len; i++)
    if (!vp_map_put(a, index, (const char *)&f->locals.data[i], sizeof(void *),
                    (void *)(uintptr_t)(i + 1))) {
      vp_arena_free(a);
      longjmp(c->oom, 1);
    }
}

/* The place in f->locals of the local `op` refers to, or -1. */
static int local_of(const vp_map *index, const vir_op *op) {
  if (vir_op_infos[op->code].attr != VIR_ATTR_SYM || !op->attr.sym ||
      op->attr.sym->kind != VIR_SYM_LOCAL)
    return -1;
  uintptr_t i = (uintptr_t)vp_map_get(index, (const char *)&op->attr.sym, sizeof(void *));
  return i ? (int)i - 1 : -1;
}

/* ------------------------------------------------ locals nothing refers to */

typedef struct local_refs {
  vp_map index;
  bool *used;
} local_refs;

static vir_walk_result mark_local(vir_op *op, void *p) {
  local_refs *r = p;
  int i = local_of(&r->index, op);
  if (i >= 0)
    r->used[i] = true;
  return VIR_WALK_ADVANCE;
}

void vfe_drop_unused_locals(vfe_ctx *c) {
  if (c->pruned.len) {
    for (uint32_t s = 0; s < c->m->syms.len; s++) {
      vir_sym *sym = c->m->syms.data[s];
      if (sym->kind == VIR_SYM_FUNC && sym->func)
        vir_func_count_uses(sym->func);
    }
    for (uint32_t i = 0; i < c->pruned.len; i++) {
      vir_op *k = c->pruned.data[i];
      if (k->parent && !k->val.nuses)
        vir_op_unlink(k);
    }
  }
  for (uint32_t s = 0; s < c->m->syms.len; s++) {
    vir_sym *sym = c->m->syms.data[s];
    vir_func *f = sym->kind == VIR_SYM_FUNC ? sym->func : NULL;
    if (!f || !f->locals.len)
      continue;
    vp_arena tmp = {0};
    local_refs r = {.used = vp_arena_alloc(&tmp, f->locals.len)};
    if (!r.used) {
      vp_arena_free(&tmp);
      longjmp(c->oom, 1);
    }
    memset(r.used, 0, f->locals.len);
    index_locals(c, &tmp, &r.index, f);
    vir_walk_func(f, mark_local, &r);
    bool drop = false;
    for (uint32_t i = 0; i < f->locals.len; i++)
      drop |= !r.used[i];
    if (drop)
      vir_func_filter_locals(c->m, f, r.used);
    vp_arena_free(&tmp);
  }
}

/* ------------------------------------------- reads before an assignment */

typedef struct ua_ctx {
  vfe_ctx *c;
  vp_map index; /* vir_sym* bytes -> 1 + its index in f->locals */
  vp_arena tmp;
  uint32_t n;
  bool *followed, *warned;
} ua_ctx;

/* One loop being walked: the locals assigned at every break so far. */
typedef struct ua_loop {
  bool *at_break;
  bool any_break;
} ua_loop;

static bool *copy_of(ua_ctx *u, const bool *da) {
  bool *out = vp_arena_alloc(&u->tmp, u->n);
  if (!out)
    longjmp(u->c->oom, 1);
  memcpy(out, da, u->n);
  return out;
}

static void meet(ua_ctx *u, bool *into, const bool *other) {
  for (uint32_t i = 0; i < u->n; i++)
    into[i] = into[i] && other[i];
}

/* Walks region r from the state da (updated in place); returns whether the
 * region ends in a return, break or continue (what follows it in the
 * enclosing region is then not reached from here). */
static bool walk(ua_ctx *u, vir_region *r, bool *da, ua_loop *loop) {
  for (vir_op *op = r->first; op; op = op->next) {
    int li = local_of(&u->index, op);
    switch (op->code) {
    case VIR_OP_LOCAL_STORE:
    case VIR_OP_LOCAL_STORE_AT:
      if (li >= 0)
        da[li] = true;
      break;
    case VIR_OP_LOCAL_LOAD:
    case VIR_OP_LOCAL_LOAD_AT:
      if (li >= 0 && u->followed[li] && !da[li] && !u->warned[li]) {
        u->warned[li] = true;
        vp_diag_add(u->c->diags, VP_WARNING, op->loc,
                    "'%s' may be read before it is assigned: on a path to this read no "
                    "assignment to it runs (Python raises UnboundLocalError there; the GPU "
                    "reads an undefined value)",
                    op->attr.sym->name);
        vp_diag_hint(u->c->diags, "assign '%s' before the branch or loop that sets it",
                     op->attr.sym->name);
      }
      if (li >= 0)
        da[li] = true; /* one warning a name */
      break;
    case VIR_OP_BREAK:
      if (loop) {
        if (loop->any_break)
          meet(u, loop->at_break, da);
        else
          memcpy(loop->at_break, da, u->n);
        loop->any_break = true;
      }
      return true;
    case VIR_OP_CONTINUE:
    case VIR_OP_RETURN:
      return true;
    case VIR_OP_IF: {
      bool *dt = copy_of(u, da), *de = copy_of(u, da);
      bool tt = walk(u, &op->regions[0], dt, loop);
      bool te = walk(u, &op->regions[1], de, loop);
      if (tt && te)
        return true;
      memcpy(da, tt ? de : dt, u->n);
      if (!tt && !te)
        meet(u, da, de);
      break;
    }
    case VIR_OP_LOOP:
    case VIR_OP_FOR:
    case VIR_OP_WHILE: {
      ua_loop inner = {.at_break = vp_arena_alloc(&u->tmp, u->n)};
      if (!inner.at_break)
        longjmp(u->c->oom, 1);
      uint32_t body = 0;
      if (op->code == VIR_OP_WHILE) { /* the condition runs at least once */
        walk(u, &op->regions[0], da, NULL);
        body = 1;
      }
      walk(u, &op->regions[body], copy_of(u, da), &inner);
      if (op->code == VIR_OP_LOOP) {
        if (!inner.any_break)
          return true; /* never left but by return */
        memcpy(da, inner.at_break, u->n);
      } else if (inner.any_break) {
        meet(u, da, inner.at_break);
      }
      break;
    }
    default:
      /* other ops with regions (a persistent time loop, a MemSock fire
       * body): their bodies may run any number of times */
      for (uint32_t i = 0; i < vir_op_infos[op->code].nregion; i++)
        walk(u, &op->regions[i], copy_of(u, da), NULL);
      break;
    }
  }
  return false;
}

static void check_func(vfe_ctx *c, vir_func *f) {
  uint32_t n = f->locals.len;
  if (!n)
    return;
  ua_ctx u = {.c = c, .n = n};
  u.followed = vp_arena_alloc(&u.tmp, n);
  u.warned = vp_arena_alloc(&u.tmp, n);
  bool *da = vp_arena_alloc(&u.tmp, n);
  if (!u.followed || !u.warned || !da) {
    vp_arena_free(&u.tmp);
    longjmp(c->oom, 1);
  }
  memset(u.warned, 0, n);
  memset(da, 0, n);
  bool any = false;
  for (uint32_t i = 0; i < n; i++) {
    vir_sym *s = f->locals.data[i];
    vir_type_kind k = s->type ? s->type->kind : VIR_TY_STRUCT;
    u.followed[i] = k != VIR_TY_ARRAY && k != VIR_TY_STRUCT && s->name &&
                    strncmp(s->name, "_vp", 3) != 0;
    any |= u.followed[i];
  }
  index_locals(c, &u.tmp, &u.index, f);
  if (any)
    walk(&u, &f->body, da, NULL);
  vp_arena_free(&u.tmp);
}

void vfe_check_unassigned(vfe_ctx *c) {
  for (uint32_t s = 0; s < c->m->syms.len; s++) {
    vir_sym *sym = c->m->syms.data[s];
    if (sym->kind == VIR_SYM_FUNC && sym->func)
      check_func(c, sym->func);
  }
}
