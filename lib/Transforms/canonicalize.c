/* canonicalize.c - constant folding, algebraic identities, dead branches.
 *
 * One forward walk per function. Defs come before uses in program order,
 * so when an op is replaced by a value, recording old id -> new value and
 * rewriting the operands of every later op as it is reached updates all
 * uses in the same walk; folds cascade without a second walk. Rules:
 *   - an op on constant scalars is evaluated (fold.c) and becomes `const`;
 *   - gconst of a scalar module constant becomes `const`;
 *   - identities: x+0, x-0, x*1, x/1, x|0, x^0, x<<0, x&~0 -> x; x*0,
 *     x&0 -> 0, x-x, x^x -> 0 for integers only (for floats x*0 is not 0
 *     when x is NaN, inf or negative, and x+0.0 is not x for x = -0.0;
 *     float x+(-0.0), x-0.0, x*1.0, x/1.0 are exact and folded);
 *     -(-x), ~~x, !!x -> x; x&&true, x||false -> x; min(x,x), x&x -> x;
 *     select(c, a, a) -> a, select(const, a, b) -> a or b; a cast to the
 *     same type -> x; min(x, k) -> x for an unsigned x whose ops bound it
 *     by k (vir_uint_upper_bound: `x & 255u`, a clamp of the frontend's
 *     local-array index that the index already keeps); commutative ops get
 *     constants on the right;
 *   - `if const` is replaced by the branch taken (and what follows a
 *     terminator at its end is dropped), `while` whose condition is false
 *     (and whose condition region only computes) and `for` over an empty
 *     constant range are removed.
 */
#include "transforms.h"

#include <math.h>
#include <stdlib.h>

typedef struct canon {
  vir_module *m;
  vir_value **remap; /* by value id: the replacement */
  uint32_t nremap;
  bool changed;
} canon;

static vir_value *resolve(canon *c, vir_value *v) {
  for (int guard = 0; v && v->id < c->nremap && c->remap[v->id] && guard < 64; guard++)
    v = c->remap[v->id];
  return v;
}

static bool is_int_k(const vir_value *v, int64_t k) {
  const vir_literal *l = vir_const_of(v);
  if (!l || (v->type->kind != VIR_TY_INT && v->type->kind != VIR_TY_UINT))
    return false;
  return l->u == vir_lit_normalize(v->type, (vir_literal){.i = k}).u;
}

static bool is_float_k(const vir_value *v, double k) {
  const vir_literal *l = vir_const_of(v);
  return l && v->type->kind == VIR_TY_FLOAT && l->f == k && signbit(l->f) == signbit(k);
}

static bool is_bool_k(const vir_value *v, bool k) {
  const vir_literal *l = vir_const_of(v);
  return l && v->type->kind == VIR_TY_BOOL && l->b == k;
}

static bool is_int_ty(const vir_type *t) { return vir_ty_is_int(t); }

static vir_value *make_const(canon *c, vir_op *before, vir_type *t, vir_literal v) {
  vir_builder b;
  vir_builder_init(&b, c->m);
  vir_builder_before(&b, before);
  b.loc = before->loc;
  vir_value *r = vir_build_const(&b, t, v);
  if (r) /* the folded value keeps the name of what it replaces */
    r->name = before->val.name;
  return r;
}

/* x op x for ops where that is x (or a constant 0) */
static vir_value *same_operand(canon *c, vir_op *op, vir_value *a) {
  switch (op->code) {
  case VIR_OP_AND:
  case VIR_OP_OR:
  case VIR_OP_MIN:
  case VIR_OP_MAX:
  case VIR_OP_LAND:
  case VIR_OP_LOR: return a;
  case VIR_OP_SUB:
  case VIR_OP_XOR:
    if (is_int_ty(a->type) && vir_ty_is_scalar(a->type))
      return make_const(c, op, op->val.type, (vir_literal){0});
    return NULL;
  default: return NULL;
  }
}

/* The algebraic identities; NULL when none applies. */
static vir_value *identity(canon *c, vir_op *op) {
  vir_type *rt = op->val.type;
  vir_value *a = op->nopnd > 0 ? op->opnd[0] : NULL, *b = op->nopnd > 1 ? op->opnd[1] : NULL;
  vir_value *r = NULL;
  bool fl = vir_ty_is_float(rt);
  switch (op->code) {
  case VIR_OP_ADD:
    if (fl)
      r = is_float_k(b, -0.0) ? a : is_float_k(a, -0.0) ? b : NULL;
    else
      r = is_int_k(b, 0) ? a : is_int_k(a, 0) ? b : NULL;
    break;
  case VIR_OP_SUB: r = (fl ? is_float_k(b, 0.0) : is_int_k(b, 0)) ? a : NULL; break;
  case VIR_OP_MUL:
    if (fl)
      r = is_float_k(b, 1.0) ? a : is_float_k(a, 1.0) ? b : NULL;
    else
      r = is_int_k(b, 1) ? a : is_int_k(a, 1) ? b : is_int_k(b, 0) ? b : is_int_k(a, 0) ? a : NULL;
    break;
  case VIR_OP_DIV: r = (fl ? is_float_k(b, 1.0) : is_int_k(b, 1)) ? a : NULL; break;
  case VIR_OP_AND: r = is_int_k(b, -1) ? a : is_int_k(b, 0) ? b : is_int_k(a, 0) ? a : NULL; break;
  case VIR_OP_OR:
  case VIR_OP_XOR: r = is_int_k(b, 0) ? a : is_int_k(a, 0) ? b : NULL; break;
  case VIR_OP_SHL:
  case VIR_OP_SHR: r = is_int_k(b, 0) ? a : NULL; break;
  case VIR_OP_LAND: r = is_bool_k(b, true) ? a : is_bool_k(a, true) ? b : is_bool_k(b, false) ? b : NULL; break;
  case VIR_OP_LOR: r = is_bool_k(b, false) ? a : is_bool_k(a, false) ? b : is_bool_k(b, true) ? b : NULL; break;
  case VIR_OP_NEG:
  case VIR_OP_NOT:
  case VIR_OP_LNOT:
    if (a->def && a->def->code == op->code && a->def->nopnd == 1)
      r = a->def->opnd[0];
    break;
  case VIR_OP_CAST: r = a->type == rt ? a : NULL; break;
  case VIR_OP_MIN: { /* min(x, k) of an unsigned x known to be <= k: x */
    uint64_t x;
    const vir_literal *kb = vir_const_of(b), *ka = vir_const_of(a);
    if (rt->kind != VIR_TY_UINT || !vir_ty_is_scalar(rt))
      break;
    if (kb && vir_uint_upper_bound(c->m, a, &x) && x <= kb->u)
      r = a;
    else if (ka && vir_uint_upper_bound(c->m, b, &x) && x <= ka->u)
      r = b;
    break;
  }
  case VIR_OP_SELECT:
    if (op->opnd[1] == op->opnd[2])
      r = op->opnd[1];
    else if (vir_const_of(a) && a->type->kind == VIR_TY_BOOL)
      r = vir_const_of(a)->b ? op->opnd[1] : op->opnd[2];
    break;
  default: break;
  }
  if (!r && b && a == b && op->nopnd == 2)
    r = same_operand(c, op, a);
  return r && r->type == rt ? r : NULL;
}

/* An op on constant scalars, evaluated; NULL when it cannot be. */
static vir_value *fold_constants(canon *c, vir_op *op) {
  const vir_op_info *info = vir_op_info_of(op->code);
  if (op->code == VIR_OP_GCONST) {
    vir_sym *s = op->attr.sym;
    if (s && s->kind == VIR_SYM_CONST && s->type == op->val.type && vir_ty_is_scalar(s->type) &&
        !op->attr.npath)
      return make_const(c, op, s->type, s->lit);
    return NULL;
  }
  if (!(info->flags & VIR_F_PURE) || info->nregion || !op->nopnd || op->nopnd > 3 ||
      !vir_ty_is_scalar(op->val.type))
    return NULL;
  vir_literal lits[3];
  for (uint32_t i = 0; i < op->nopnd; i++) {
    const vir_literal *l = vir_const_of(op->opnd[i]);
    if (!l || !vir_ty_is_scalar(op->opnd[i]->type))
      return NULL;
    lits[i] = *l;
  }
  /* select's operand 0 is the bool; the others carry the type */
  const vir_type *ot = op->code == VIR_OP_SELECT ? op->opnd[1]->type : op->opnd[0]->type;
  vir_literal out;
  if (!vir_fold(op->code, op->val.type, ot, lits, op->nopnd, &out))
    return NULL;
  return make_const(c, op, op->val.type, out);
}

static void replace(canon *c, vir_op *op, vir_value *v) {
  if (op->val.id < c->nremap)
    c->remap[op->val.id] = v;
  vir_op_unlink(op);
  c->changed = true;
}

/* Does the region only compute (no effects), so dropping it changes nothing? */
static bool only_pure(const vir_region *r) {
  for (const vir_op *op = r->first; op; op = op->next) {
    uint32_t f = vir_op_info_of(op->code)->flags;
    if (op->code != VIR_OP_CONDITION && !(f & VIR_F_PURE))
      return false;
  }
  return true;
}

static bool empty_range(const vir_op *op) {
  const vir_literal *lo = vir_const_of(op->opnd[0]), *hi = vir_const_of(op->opnd[1]),
                    *st = vir_const_of(op->opnd[2]);
  if (!lo || !hi || !st)
    return false;
  if (op->opnd[0]->type->kind == VIR_TY_UINT)
    return st->u != 0 && lo->u >= hi->u;
  return (st->i > 0 && lo->i >= hi->i) || (st->i < 0 && lo->i <= hi->i);
}

static void canon_region(canon *c, vir_region *r);

/* Control flow decided by constants; returns the op to go on with (the
 * first op of an inlined branch), or `next` when nothing was done. */
static vir_op *dead_branches(canon *c, vir_op *op, vir_region *r, vir_op *next, bool *done) {
  *done = false;
  if (op->code == VIR_OP_IF && op->nopnd == 1 && vir_const_of(op->opnd[0])) {
    vir_region *taken = &op->regions[vir_const_of(op->opnd[0])->b ? 0 : 1];
    vir_op *last = taken->last;
    bool ends_in_term = last && (vir_op_info_of(last->code)->flags & VIR_F_TERM);
    bool in_cond = r->parent_op && r->parent_op->code == VIR_OP_WHILE && r == &r->parent_op->regions[0];
    if (ends_in_term && in_cond)
      return next;
    vir_op *first = taken->first;
    vir_region_splice(r, op, taken);
    vir_op_unlink(op);
    if (ends_in_term) /* what followed the if can no longer run */
      while (last->next)
        vir_op_unlink(last->next);
    c->changed = *done = true;
    return first ? first : (ends_in_term ? NULL : next);
  }
  if (op->code == VIR_OP_WHILE) {
    vir_op *cond = op->regions[0].last;
    if (cond && cond->code == VIR_OP_CONDITION && cond->nopnd == 1 && is_bool_k(resolve(c, cond->opnd[0]), false) &&
        only_pure(&op->regions[0])) {
      vir_op_unlink(op);
      c->changed = *done = true;
    }
    return next;
  }
  if (op->code == VIR_OP_FOR && op->nopnd == 3 && empty_range(op)) {
    vir_op_unlink(op);
    c->changed = *done = true;
  }
  return next;
}

static void canon_region(canon *c, vir_region *r) {
  vir_op *op = r->first;
  while (op) {
    vir_op *next = op->next;
    for (uint32_t i = 0; i < op->nopnd; i++)
      op->opnd[i] = resolve(c, op->opnd[i]);
    const vir_op_info *info = vir_op_info_of(op->code);
    if (info->nregion) {
      bool done;
      vir_op *cont = dead_branches(c, op, r, next, &done);
      if (done) {
        op = cont;
        continue;
      }
      for (uint32_t i = 0; i < info->nregion; i++)
        canon_region(c, &op->regions[i]);
      op = next;
      continue;
    }
    /* Tensor ops are the array level's (docs/fusion.md): their folds would
     * build scalar constants of tensor type, so they are left alone. */
    if ((info->flags & VIR_F_PURE) && vir_result(op) && !vir_ty_is_tensor(op->val.type)) {
      vir_value *v = fold_constants(c, op);
      if (!v)
        v = identity(c, op);
      if (v) {
        replace(c, op, v);
        op = next;
        continue;
      }
      /* constants to the right of commutative ops, for cse */
      if ((info->flags & VIR_F_COMMUT) && op->nopnd == 2 && vir_const_of(op->opnd[0]) &&
          !vir_const_of(op->opnd[1])) {
        vir_value *t = op->opnd[0];
        op->opnd[0] = op->opnd[1];
        op->opnd[1] = t;
        c->changed = true;
      }
    }
    op = next;
  }
}

vir_pass_result vir_opt_canonicalize(vir_module *m, const vir_pass_options *opts, vp_diags *diags) {
  (void)opts;
  bool any = false;
  for (uint32_t i = 0; i < m->syms.len; i++) {
    vir_sym *s = m->syms.data[i];
    if (s->kind != VIR_SYM_FUNC || !s->func)
      continue;
    vir_func *f = s->func;
    /* a second walk catches what the first exposed (an inlined branch's
     * ops folded against values after it); more is rarely needed */
    for (int round = 0; round < 4; round++) {
      canon c = {.m = m, .nremap = f->next_id};
      c.remap = calloc(c.nremap ? c.nremap : 1, sizeof *c.remap);
      if (!c.remap) {
        vp_error(diags, f->loc, "out of memory in canonicalize");
        return VIR_PASS_FAILURE;
      }
      canon_region(&c, &f->body);
      free(c.remap);
      any |= c.changed;
      if (!c.changed)
        break;
    }
  }
  return any ? VIR_PASS_CHANGED : VIR_PASS_UNCHANGED;
}
