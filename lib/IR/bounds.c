/* bounds.c - an upper bound of an unsigned integer value, from how it is
 * computed (the ops that define it, helper functions' returns included).
 *
 * Used where a guard costs an ALU op on every execution and the value is
 * in range by construction: `min(d, 255u)` of `d = x & 255u` (canonicalize),
 * a shared index clamp (clamp_shared.c), a shift by a count below the width
 * (the C-family printers print C's operator instead of NumPy's guarded
 * shift). A bound is only ever claimed from facts the ops guarantee: an
 * unsigned `x & k`, `min(x, k)`, `x % k` (a constant k > 0), `x >> k`,
 * `x // k`, sums and products that cannot wrap, selects, widening casts,
 * constants, a local's load from all its stores (where one of them runs
 * before the load on every path), and (given the module) a helper's
 * parameter from the arguments of every call of the helper in the module.
 * So a bound holds for the function and module as they are: a pass that
 * adds a store or a call after a clamp was left out must not store or pass
 * a larger value. */
#include "vulpy/ir.h"

#define DEPTH 10
#define BUDGET 1000000 /* ops a query may visit */

#define MEMO 64 /* locals a query remembers */

/* One query: the module (for helpers' parameters, may be NULL), the
 * locals being bounded (a store of `i = i + 1` bounds nothing), a budget
 * of ops visited (a query never costs more than about this many) and the
 * locals it has bounded. */
typedef struct bctx {
  const vir_module *m;
  const vir_sym *stack[DEPTH + 2];
  int nstack;
  uint32_t budget;
  struct {
    const vir_sym *s;
    bool ok;
    uint64_t hi;
  } memo[MEMO]; /* the locals bounded so far (each walked once a query) */
  int nmemo;
} bctx;

static bool ub(bctx *c, const vir_value *v, uint64_t *out, int depth);

static uint64_t type_max(const vir_type *t) {
  return t->bits >= 64 ? UINT64_MAX : ((uint64_t)1 << t->bits) - 1;
}

static unsigned bitlen(uint64_t x) {
  unsigned n = 0;
  while (x) {
    n++;
    x >>= 1;
  }
  return n;
}

/* The largest value any `return x` of function body r may give. */
static bool returns_ub(bctx *c, const vir_region *r, uint64_t *out, bool *any,
                       int depth) {
  for (const vir_op *op = r ? r->first : NULL; op; op = op->next) {
    for (uint32_t k = 0; k < vir_op_info_of(op->code)->nregion; k++)
      if (!returns_ub(c, &op->regions[k], out, any, depth))
        return false;
    if (op->code == VIR_OP_RETURN && op->nopnd == 1) {
      uint64_t b;
      if (!ub(c, op->opnd[0], &b, depth + 1))
        return false;
      *out = *any && *out > b ? *out : b;
      *any = true;
    }
  }
  return true;
}

/* The largest argument `arg` of any call of `callee` in region r. */
static bool args_ub(bctx *c, const vir_region *r, const vir_sym *callee, uint32_t arg,
                    uint64_t *out, bool *any, int depth) {
  for (const vir_op *op = r ? r->first : NULL; op; op = op->next) {
    if (!c->budget) /* (it stays 0: every later walk stops too) */
      return false;
    c->budget--;
    for (uint32_t k = 0; k < vir_op_info_of(op->code)->nregion; k++)
      if (!args_ub(c, &op->regions[k], callee, arg, out, any, depth))
        return false;
    if (op->code == VIR_OP_CALL && op->attr.sym == callee) {
      uint64_t b;
      if (arg >= op->nopnd || !ub(c, op->opnd[arg], &b, depth + 1))
        return false;
      *out = *any && *out > b ? *out : b;
      *any = true;
    }
  }
  return true;
}

/* A helper's parameter: the largest argument any call in m passes it. */
static bool param_ub(bctx *c, const vir_value *v, uint64_t *out, int depth) {
  const vir_module *m = c->m;
  const vir_region *r = v->owner;
  if (!m || !r || r->parent_op || !r->func || r->func->is_kernel || !r->func->sym)
    return false;
  const vir_func *f = r->func;
  uint32_t arg = 0;
  while (arg < r->nargs && r->args[arg] != v)
    arg++;
  if (arg == r->nargs)
    return false;
  bool any = false;
  uint64_t b = 0;
  for (uint32_t i = 0; i < m->syms.len; i++) {
    const vir_sym *s = m->syms.data[i];
    /* (f's own calls too: a recursive call's argument asks for this
     * parameter again and, cut by the depth, bounds nothing) */
    if (s->kind == VIR_SYM_FUNC && s->func && !args_ub(c, &s->func->body, f->sym, arg, &b, &any, depth))
      return false;
  }
  if (!any) /* never called: nothing known */
    return false;
  *out = b;
  return true;
}

/* The stores of local s in region r: every one's value bounded (the
 * largest in *hi), and no access of s but whole-value loads and stores. */
static bool local_stores(bctx *c, const vir_region *r, const vir_sym *s, uint64_t *hi, int depth) {
  for (const vir_op *op = r->first; op; op = op->next) {
    if (!c->budget) /* (it stays 0: every later walk stops too) */
      return false;
    c->budget--;
    for (uint32_t k = 0; k < vir_op_info_of(op->code)->nregion; k++)
      if (!local_stores(c, &op->regions[k], s, hi, depth))
        return false;
    if (op->attr.sym != s)
      continue;
    if (op->code == VIR_OP_LOCAL_LOAD_AT || op->code == VIR_OP_LOCAL_STORE_AT ||
        ((op->code == VIR_OP_LOCAL_LOAD || op->code == VIR_OP_LOCAL_STORE) && op->attr.npath))
      return false;
    uint64_t b;
    if (op->code == VIR_OP_LOCAL_STORE) {
      if (!ub(c, op->opnd[0], &b, depth + 1))
        return false;
      *hi = *hi > b ? *hi : b;
    }
  }
  return true;
}

/* Whether a whole store of s runs before `op` on every path: one earlier
 * in op's region, or earlier in a region around it (structured control
 * flow: an op runs after every op before it in its region). */
static bool stored_before(const vir_op *op, const vir_sym *s) {
  for (; op; op = op->parent ? op->parent->parent_op : NULL)
    for (const vir_op *q = op->prev; q; q = q->prev)
      if (q->code == VIR_OP_LOCAL_STORE && q->attr.sym == s && !q->attr.npath)
        return true;
  return false;
}

/* A whole load of a scalar local: the largest value any store to it gives,
 * where a store runs before the load on every path (stored_before) and no
 * store's value reads the local itself (`i = i + 1` bounds nothing). */
static bool local_ub(bctx *c, const vir_op *load, uint64_t *out, int depth) {
  const vir_sym *s = load->attr.sym;
  const vir_func *f = vir_op_func(load);
  if (!s || s->kind != VIR_SYM_LOCAL || load->attr.npath || !f || c->nstack > DEPTH ||
      !stored_before(load, s))
    return false;
  for (int i = 0; i < c->nmemo; i++)
    if (c->memo[i].s == s) {
      *out = c->memo[i].hi;
      return c->memo[i].ok;
    }
  for (int i = 0; i < c->nstack; i++)
    if (c->stack[i] == s)
      return false;
  c->stack[c->nstack++] = s;
  uint64_t hi = 0;
  bool ok = local_stores(c, &f->body, s, &hi, depth);
  c->nstack--;
  /* (a local whose stores read one being bounded is remembered as not
   * bounded: less than it might be, never wrong) */
  if (c->nmemo < MEMO) {
    c->memo[c->nmemo].s = s;
    c->memo[c->nmemo].ok = ok;
    c->memo[c->nmemo].hi = hi;
    c->nmemo++;
  }
  if (!ok)
    return false;
  *out = hi;
  return true;
}

static bool ub(bctx *c, const vir_value *v, uint64_t *out, int depth) {
  const vir_type *t = v ? v->type : NULL;
  if (!t || !vir_ty_is_scalar(t) || (t->kind != VIR_TY_UINT && t->kind != VIR_TY_BOOL))
    return false;
  if (t->kind == VIR_TY_BOOL) {
    *out = 1;
    return true;
  }
  const vir_op *d = v->def;
  if (depth > DEPTH)
    return false;
  if (!d)
    return param_ub(c, v, out, depth);
  switch (d->code) { /* the ops below; anything else bounds nothing */
  case VIR_OP_CONST:
  case VIR_OP_AND:
  case VIR_OP_MIN:
  case VIR_OP_MAX:
  case VIR_OP_OR:
  case VIR_OP_XOR:
  case VIR_OP_SHR:
  case VIR_OP_REM:
  case VIR_OP_MOD:
  case VIR_OP_FLOORDIV:
  case VIR_OP_ADD:
  case VIR_OP_MUL:
  case VIR_OP_SELECT:
  case VIR_OP_CAST:
  case VIR_OP_CALL: break;
  case VIR_OP_LOCAL_LOAD: return local_ub(c, d, out, depth);
  default: return false;
  }
  uint64_t max = type_max(t), a = 0, b = 0;
  bool call = d->code == VIR_OP_CALL, sel = d->code == VIR_OP_SELECT;
  /* (a select's first operand is its condition; a call's are arguments) */
  bool ka = !call && !sel && d->nopnd > 0 && ub(c, d->opnd[0], &a, depth + 1);
  bool kb = !call && d->nopnd > 1 && ub(c, d->opnd[1], &b, depth + 1);
  switch (d->code) {
  case VIR_OP_CONST: *out = d->attr.lit.u & max; return true;
  case VIR_OP_AND:
  case VIR_OP_MIN:
    if (!ka && !kb)
      return false;
    *out = ka && kb ? (a < b ? a : b) : ka ? a : b;
    return true;
  case VIR_OP_MAX:
    if (!ka || !kb)
      return false;
    *out = a > b ? a : b;
    return true;
  case VIR_OP_OR:
  case VIR_OP_XOR: {
    if (!ka || !kb)
      return false;
    unsigned n = bitlen(a > b ? a : b);
    *out = n >= 64 ? UINT64_MAX : ((uint64_t)1 << n) - 1;
    return true;
  }
  case VIR_OP_SHR: { /* unsigned: logical; a count past the width gives 0 */
    const vir_value *c = d->opnd[1];
    uint64_t s = 0;
    bool ks = c->def && c->def->code == VIR_OP_CONST && vir_ty_is_scalar(c->type) &&
              c->type->kind == VIR_TY_UINT;
    if (ks)
      s = c->def->attr.lit.u;
    uint64_t x = ka ? a : max;
    *out = s >= 64 ? 0 : x >> s;
    return ka || ks;
  }
  case VIR_OP_REM:
  case VIR_OP_MOD: {
    /* unsigned x % k < k for a constant k > 0. A divisor that may be 0:
     * `mod` is NumPy's (0, the printers' vp_mod) and so at most x; `rem`
     * prints as C's %, undefined for 0 (lavapipe: all ones), so nothing. */
    const vir_value *c = d->opnd[1];
    uint64_t k = c->def && c->def->code == VIR_OP_CONST ? c->def->attr.lit.u & max : 0;
    if (k) {
      *out = ka && a < k - 1 ? a : k - 1;
      return true;
    }
    if (d->code == VIR_OP_MOD && ka) {
      *out = a;
      return true;
    }
    return false;
  }
  case VIR_OP_FLOORDIV: { /* unsigned: at most the dividend (0 for k = 0) */
    const vir_value *c = d->opnd[1];
    uint64_t k = c->def && c->def->code == VIR_OP_CONST ? c->def->attr.lit.u : 0;
    if (!ka && !k)
      return false;
    *out = (ka ? a : max) / (k ? k : 1);
    return true;
  }
  case VIR_OP_ADD:
    if (!ka || !kb || a > max - b)
      return false;
    *out = a + b;
    return true;
  case VIR_OP_MUL:
    if (!ka || !kb || (a && b > max / a))
      return false;
    *out = a * b;
    return true;
  case VIR_OP_SELECT: {
    uint64_t f;
    if (!kb || !ub(c, d->opnd[2], &f, depth + 1))
      return false;
    *out = b > f ? b : f;
    return true;
  }
  case VIR_OP_CAST: {
    const vir_type *s = d->opnd[0]->type;
    if (ka && a <= max) { /* an unsigned or bool source in range */
      *out = a;
      return true;
    }
    if (s && vir_ty_is_scalar(s) && s->kind == VIR_TY_UINT && s->bits <= t->bits) {
      *out = type_max(s);
      return true;
    }
    return false;
  }
  case VIR_OP_CALL: {
    const vir_sym *s = d->attr.sym;
    bool any = false;
    uint64_t r = 0;
    if (!s || !s->func || !returns_ub(c, &s->func->body, &r, &any, depth + 1) || !any)
      return false;
    *out = r;
    return true;
  }
  default: return false;
  }
}

bool vir_uint_upper_bound(const vir_module *m, const vir_value *v, uint64_t *out) {
  uint64_t b;
  bctx c = {.m = m, .budget = BUDGET};
  if (!ub(&c, v, &b, 0))
    return false;
  *out = b;
  return true;
}
