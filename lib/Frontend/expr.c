/* expr.c - Python expressions: the dispatch over expression nodes,
 * constants, unary operators, comparisons (chained ones too), and/or/not,
 * and `a if c else b`.
 *
 * vfe_expr returns a vfe_val, not yet a VIR value: a name may be a buffer,
 * `pc`, a built-in or a helper; a place in memory is read only when used;
 * literals stay untyped until the other operand or the target gives them a
 * type (types.c). `a if c else b` builds both sides inside an `if` and
 * turns it into a select when both are pure, as vfe_logic does for and/or.
 */
#include <string.h>

#include "fe.h"

/* ---------------------------------------------------------- constants */

vfe_val vfe_constant(vfe_ctx *c, const vfe_node *e) {
  const char *kind = vfe_get_str(e, "kind");
  const vfe_node *v = vfe_get(e, "value");
  vfe_val r = {0};
  if (!kind)
    return vfe_err(c, e, "malformed AST: a Constant without \"kind\"");
  if (strcmp(kind, "int") == 0 && v && v->kind == VFE_J_INT) {
    r.kind = VFE_V_INT;
    r.i = v->i;
    r.big = v->big;
    return r;
  }
  if (strcmp(kind, "float") == 0 && v) {
    r.kind = VFE_V_FLOAT;
    if (v->kind == VFE_J_FLOAT)
      r.f = v->f;
    else if (v->kind == VFE_J_INT)
      r.f = v->big ? (double)v->u : (double)v->i;
    else if (v->kind == VFE_J_STR && strcmp(v->s, "inf") == 0)
      r.f = __builtin_inf();
    else if (v->kind == VFE_J_STR && strcmp(v->s, "-inf") == 0)
      r.f = -__builtin_inf();
    else if (v->kind == VFE_J_STR && strcmp(v->s, "nan") == 0)
      r.f = __builtin_nan("");
    else
      return vfe_err(c, e, "malformed AST: float constant out of range");
    return r;
  }
  if (strcmp(kind, "int") == 0)
    return vfe_err(c, e, "integer literal does not fit 64 bits");
  if (strcmp(kind, "bool") == 0 && v && v->kind == VFE_J_BOOL) {
    r.kind = VFE_V_BOOL;
    r.b = v->b;
    return r;
  }
  if (strcmp(kind, "None") == 0)
    return (vfe_val){.kind = VFE_V_NONE};
  if (strcmp(kind, "str") == 0) {
    r.kind = VFE_V_STR;
    r.s = v && v->kind == VFE_J_STR ? v->s : "";
    return r;
  }
  vfe_err(c, e, "%s constants are not supported in kernels", kind);
  return r;
}

static vir_value *cond_of(vfe_ctx *c, const vfe_node *e, vfe_val v);

/* ------------------------------------------------------------- unary */

/* -x, +x, ~x of a number literal, folded as Python computes them. */
static vfe_val unary_literal(vfe_ctx *c, const vfe_node *e, vfe_ast op, vfe_val v) {
  v.gsym = NULL; /* -C and ~C are not C by name (the sign would be lost) */
  if (v.kind == VFE_V_INT) {
    if (op == VFE_AST_UAdd)
      return v;
    if (op == VFE_AST_USub) {
      if (v.big && v.u != (1ull << 63))
        return vfe_err(c, e, "integer literal does not fit 64 bits");
      if (v.big) {
        v.big = false;
        v.i = INT64_MIN;
      } else if (v.i == INT64_MIN) {
        v.big = true;
        v.u = 1ull << 63;
      } else {
        v.i = -v.i;
      }
      return v;
    }
    if (op == VFE_AST_Invert && !v.big) {
      v.i = ~v.i; /* Python: ~x == -x - 1 */
      return v;
    }
    return vfe_err(c, e, "integer literal does not fit 64 bits");
  }
  if (op == VFE_AST_USub)
    v.f = -v.f;
  else if (op == VFE_AST_Invert)
    return vfe_err(c, e, "~ needs an integer, not a float");
  return v;
}

static vfe_val unary(vfe_ctx *c, const vfe_node *e) {
  vfe_ast op = vfe_ast_of(vfe_get(e, "op"));
  const vfe_node *on = vfe_get(e, "operand");
  if (op == VFE_AST_Not) {
    vfe_val v = vfe_expr(c, on);
    if (v.kind == VFE_V_BOOL || v.kind == VFE_V_INT || v.kind == VFE_V_FLOAT) {
      bool t = v.kind == VFE_V_BOOL ? v.b : v.kind == VFE_V_INT ? v.i != 0 : v.f != 0;
      return (vfe_val){.kind = VFE_V_BOOL, .b = !t};
    }
    vir_value *x = cond_of(c, on, v);
    vfe_set_loc(c, e);
    return x ? vfe_value_of(vfe_build1(c, VIR_OP_LNOT, x->type, x)) : (vfe_val){0};
  }
  vfe_val v = vfe_expr(c, on);
  vfe_set_loc(c, e);
  if (v.kind == VFE_V_ERR)
    return v;
  /* A constant used as a literal (gsym: emitted by name) folds to a new
   * literal (unary_literal drops the name); +C stays C. */
  if (v.kind == VFE_V_INT || v.kind == VFE_V_FLOAT)
    return op == VFE_AST_UAdd ? v : unary_literal(c, e, op, v);
  if (v.kind == VFE_V_LITSEL) { /* each literal of the choice */
    vfe_val *lits = vfe_alloc(c, 2 * sizeof *lits);
    for (int k = 0; k < 2; k++)
      if ((lits[k] = unary_literal(c, e, op, v.elems[k])).kind == VFE_V_ERR)
        return lits[k];
    v.elems = lits;
    return v;
  }
  if (v.kind == VFE_V_BOOL)
    return vfe_err(c, e, "%s on a bool: Python turns it into an int; VulPy refuses to guess",
                   op == VFE_AST_Invert ? "~" : op == VFE_AST_USub ? "unary -" : "unary +");
  vir_value *x = vfe_use(c, on, v);
  if (!x)
    return (vfe_val){0};
  const vir_type *s = vir_ty_scalar_of(x->type);
  if (op == VFE_AST_Invert) {
    if (!vir_ty_is_int(x->type))
      return vfe_err(c, e, "~ needs an integer, not %s", vfe_tyname(c, x->type));
    return vfe_value_of(vfe_build1(c, VIR_OP_NOT, x->type, x));
  }
  if (x->type->kind == VIR_TY_MAT || s->kind == VIR_TY_BOOL || x->type->kind == VIR_TY_STRUCT)
    return vfe_err(c, e, "unary %s needs a number, not %s", op == VFE_AST_USub ? "-" : "+",
                   vfe_tyname(c, x->type));
  if (op == VFE_AST_UAdd)
    return vfe_value_of(x);
  if (s->kind == VIR_TY_UINT) {
    vfe_err(c, e, "negating an unsigned value (%s)", vfe_tyname(c, x->type));
    vfe_hint(c, "convert to a signed type first: %s", vfe_cast_hint(c, vir_ty_int(c->m, s->bits), on));
    return (vfe_val){0};
  }
  return vfe_value_of(vfe_build1(c, VIR_OP_NEG, x->type, x));
}

/* ----------------------------------------------------- compare, and/or */

typedef struct chain {
  const vfe_node *e;
  vfe_node **ops, **comps;
  uint32_t n, at;
  vfe_val left;
  const vfe_node *left_node;
} chain;

/* comparison ((op) expr)+: a < b < c is (a < b) and (b < c), b evaluated once. */
static vir_value *chain_rest(vfe_ctx *c, const void *arg) {
  chain ch = *(const chain *)arg;
  vfe_val right = vfe_expr(c, ch.comps[ch.at]);
  if (right.kind == VFE_V_PLACE || right.kind == VFE_V_IDVEC) {
    /* evaluated once even when it takes part in two comparisons */
    vir_value *v = vfe_use(c, ch.comps[ch.at], right);
    right = v ? vfe_value_of(v) : (vfe_val){0};
  }
  vfe_set_loc(c, ch.e);
  vfe_val r = vfe_compare(c, ch.e, vfe_ast_of(ch.ops[ch.at]), ch.left, ch.left_node, right,
                          ch.comps[ch.at]);
  vir_value *x = r.kind == VFE_V_BOOL ? vfe_const_bool(c, r.b) : r.kind == VFE_V_VAL ? r.v : NULL;
  if (!x || ch.at + 1 == ch.n)
    return x;
  if (x->type->kind != VIR_TY_BOOL) {
    vfe_err(c, ch.e, "a chained comparison of vectors is ambiguous");
    vfe_hint(c, "compare pairwise and combine with vp.all(...) or vp.any(...)");
    return NULL;
  }
  chain next = ch;
  next.at++;
  next.left = right;
  next.left_node = ch.comps[ch.at];
  return vfe_logic(c, ch.e, true, x, chain_rest, &next);
}

static vfe_val compare(vfe_ctx *c, const vfe_node *e) {
  chain ch = {.e = e};
  uint32_t nc;
  ch.ops = vfe_get_list(e, "ops", &ch.n);
  ch.comps = vfe_get_list(e, "comparators", &nc);
  if (ch.n == 0 || nc != ch.n)
    return vfe_err(c, e, "malformed AST: Compare");
  ch.left_node = vfe_get(e, "left");
  ch.left = vfe_expr(c, ch.left_node);
  if (ch.left.kind == VFE_V_ERR)
    return ch.left;
  if (ch.n == 1) {
    vfe_val right = vfe_expr(c, ch.comps[0]);
    vfe_set_loc(c, e);
    return vfe_compare(c, e, vfe_ast_of(ch.ops[0]), ch.left, ch.left_node, right, ch.comps[0]);
  }
  vir_value *x = chain_rest(c, &ch);
  return x ? vfe_value_of(x) : (vfe_val){0};
}

vir_value *vfe_expr_cond(vfe_ctx *c, const vfe_node *e) { return cond_of(c, e, vfe_expr(c, e)); }

static vir_value *cond_of(vfe_ctx *c, const vfe_node *e, vfe_val v) {
  if (v.kind == VFE_V_BOOL)
    return vfe_const_bool(c, v.b);
  if (v.kind == VFE_V_INT || v.kind == VFE_V_FLOAT)
    return vfe_const_bool(c, v.kind == VFE_V_INT ? v.i != 0 : v.f != 0);
  vir_value *x = vfe_use(c, e, v);
  if (!x)
    return NULL;
  if (x->type->kind == VIR_TY_BOOL)
    return x;
  if (vir_ty_is_scalar(x->type)) {
    /* Python's truth test: nonzero is true. */
    vir_value *zero = vir_ty_is_float(x->type) ? vfe_const_float(c, x->type, 0)
                                               : vfe_const_int(c, x->type, 0);
    return vfe_build2(c, VIR_OP_NE, vir_ty_bool(c->m), x, zero);
  }
  vfe_err(c, e, "a %s is not a condition", vfe_tyname(c, x->type));
  if (x->type->kind == VIR_TY_VEC)
    vfe_hint(c, "reduce it: vp.any(...) or vp.all(...)");
  return NULL;
}

/* A strict bool operand of and/or: Python's `x or y` returns an operand,
 * which only matches a bool result when both are bools. */
static vir_value *bool_operand(vfe_ctx *c, const vfe_node *e) {
  vfe_val v = vfe_expr(c, e);
  if (v.kind == VFE_V_BOOL)
    return vfe_const_bool(c, v.b);
  vir_value *x = v.kind == VFE_V_ERR ? NULL : vfe_use(c, e, v);
  if (!x)
    return NULL;
  if (x->type->kind != VIR_TY_BOOL) {
    vfe_err(c, e, "and/or need bool operands, not %s", vfe_tyname(c, x->type));
    vfe_hint(c, "compare explicitly (x != 0); Python's `or` would return the operand itself");
    return NULL;
  }
  return x;
}

typedef struct boolchain {
  const vfe_node *e;
  vfe_node **vals;
  uint32_t n, at;
  bool is_and;
} boolchain;

static vir_value *bool_rest(vfe_ctx *c, const void *arg) {
  boolchain bc = *(const boolchain *)arg;
  vir_value *x = bool_operand(c, bc.vals[bc.at]);
  if (!x || bc.at + 1 == bc.n)
    return x;
  bc.at++;
  return vfe_logic(c, bc.e, bc.is_and, x, bool_rest, &bc);
}

static vfe_val boolop(vfe_ctx *c, const vfe_node *e) {
  boolchain bc = {.e = e, .is_and = vfe_ast_of(vfe_get(e, "op")) == VFE_AST_And};
  bc.vals = vfe_get_list(e, "values", &bc.n);
  if (bc.n < 2)
    return vfe_err(c, e, "malformed AST: BoolOp");
  /* (a and b) and c: left to right, each step guarding the rest */
  vir_value *x = bool_operand(c, bc.vals[0]);
  if (!x)
    return (vfe_val){0};
  bc.at = 1;
  vir_value *r = vfe_logic(c, e, bc.is_and, x, bool_rest, &bc);
  return r ? vfe_value_of(r) : (vfe_val){0};
}

/* body if test else orelse */
static vfe_val ifexp(vfe_ctx *c, const vfe_node *e) {
  vir_value *cond = vfe_expr_cond(c, vfe_get(e, "test"));
  if (!cond)
    return (vfe_val){0};
  vfe_set_loc(c, e);
  vir_op *iff = vfe_build(c, VIR_OP_IF, NULL, 1, &cond);
  vir_builder save = c->b;
  const vfe_node *side[2] = {vfe_get(e, "body"), vfe_get(e, "orelse")};
  vfe_val v[2];
  for (int k = 0; k < 2; k++) {
    vir_builder_at_end(&c->b, &iff->regions[k]);
    v[k] = vfe_expr(c, side[k]);
    bool lit = v[k].kind == VFE_V_INT || v[k].kind == VFE_V_FLOAT || v[k].kind == VFE_V_BOOL;
    if (!lit && v[k].kind != VFE_V_ERR) {
      vir_value *x = vfe_use(c, side[k], v[k]);
      v[k] = x ? vfe_value_of(x) : (vfe_val){0};
    }
  }
  c->b = save;
  if (v[0].kind == VFE_V_ERR || v[1].kind == VFE_V_ERR)
    return (vfe_val){0};
  vir_type *t;
  if (v[0].kind == VFE_V_VAL && v[1].kind == VFE_V_VAL)
    t = vfe_unify(c, e, v[0].v->type, v[1].v->type, VFE_WHAT("a conditional expression"));
  else if (v[0].kind == VFE_V_VAL)
    t = v[0].v->type;
  else if (v[1].kind == VFE_V_VAL)
    t = v[1].v->type;
  else if (v[0].kind != VFE_V_BOOL && v[1].kind != VFE_V_BOOL && !v[0].gsym && !v[1].gsym) {
    /* two number literals: a choice that takes its type where it is used,
     * as they would (h[i] * (2.0 if c else 0.5) with a float16 h is f16);
     * module constants keep their declared types (below) */
    vir_op_unlink(iff);
    vfe_val *lits = vfe_alloc(c, 2 * sizeof *lits);
    lits[0] = v[0];
    lits[1] = v[1];
    return (vfe_val){.kind = VFE_V_LITSEL, .v = cond, .elems = lits, .nelems = 2};
  } else {
    /* two literals: the wider kind, default types */
    vfe_val pick = v[0].kind == VFE_V_FLOAT ? v[0] : v[1];
    vir_builder_at_end(&c->b, &iff->regions[0]);
    vir_value *tmp = vfe_rvalue(c, e, pick);
    c->b = save;
    if (!tmp)
      return (vfe_val){0};
    vir_op_unlink(tmp->def);
    t = tmp->type;
  }
  if (!t)
    return (vfe_val){0};
  vir_value *x[2];
  for (int k = 0; k < 2; k++) {
    vir_builder_at_end(&c->b, &iff->regions[k]);
    x[k] = vfe_coerce(c, side[k], v[k], t, VFE_WHAT("a conditional expression"));
  }
  c->b = save;
  if (!x[0] || !x[1])
    return (vfe_val){0};
  if (vfe_region_is_pure(&iff->regions[0]) && vfe_region_is_pure(&iff->regions[1])) {
    vfe_hoist(&iff->regions[0], iff);
    vfe_hoist(&iff->regions[1], iff);
    vir_op_unlink(iff);
    vir_value *ops[3] = {cond, x[0], x[1]};
    return vfe_value_of(vir_result(vfe_build(c, VIR_OP_SELECT, t, 3, ops)));
  }
  vir_sym *tmp = vfe_temp(c, "sel", t);
  for (int k = 0; k < 2; k++) {
    vir_builder_at_end(&c->b, &iff->regions[k]);
    vfe_local_store(c, tmp, x[k]);
  }
  c->b = save;
  return vfe_value_of(vfe_local_load(c, tmp));
}

/* ------------------------------------------------------------- dispatch */

static vfe_val unsupported(vfe_ctx *c, const vfe_node *e) {
  switch (vfe_ast_of(e)) {
  case VFE_AST_Lambda:
    vfe_err(c, e, "lambda is not supported in kernels");
    vfe_hint(c, "define a helper function with def");
    break;
  case VFE_AST_GeneratorExp:
  case VFE_AST_ListComp:
  case VFE_AST_SetComp:
  case VFE_AST_DictComp:
    vfe_err(c, e, "comprehensions and generators are not supported in kernels");
    vfe_hint(c, "write a for loop over range(...)");
    break;
  case VFE_AST_List:
  case VFE_AST_Dict:
  case VFE_AST_Set:
    vfe_err(c, e, "%s are not supported in kernels (no dynamic memory on the GPU)",
            vfe_ast_of(e) == VFE_AST_List ? "lists" : vfe_ast_of(e) == VFE_AST_Dict ? "dicts" : "sets");
    vfe_hint(c, "use a vector (vp.vec4(...)), a buffer or vp.Shared[T, N]");
    break;
  case VFE_AST_JoinedStr: vfe_err(c, e, "strings are not supported in kernels"); break;
  case VFE_AST_NamedExpr: vfe_err(c, e, "the walrus operator := is not supported"); break;
  case VFE_AST_Starred: vfe_err(c, e, "*unpacking is not supported in kernels"); break;
  case VFE_AST_Await:
  case VFE_AST_Yield:
  case VFE_AST_YieldFrom:
    vfe_err(c, e, "generators and coroutines are not supported in kernels");
    vfe_hint(c, "return the values from a helper (a tuple for several: return a, b)");
    break;
  case VFE_AST_Slice: vfe_err(c, e, "slices other than x[:] are not supported"); break;
  default:
    vfe_err(c, e, "%s expressions are not supported in kernels",
            e && e->type_name ? e->type_name : "these");
    break;
  }
  return (vfe_val){0};
}

vfe_val vfe_expr(vfe_ctx *c, const vfe_node *e) {
  if (!e || e->kind != VFE_J_OBJ)
    return vfe_err(c, e, "malformed AST: expected an expression");
  if (++c->depth > 400) {
    c->depth--;
    if (c->too_deep)
      return (vfe_val){0};
    c->too_deep = true;
    return vfe_err(c, e, "expression nested too deeply");
  }
  vfe_set_loc(c, e);
  vfe_val r;
  switch (vfe_ast_of(e)) {
  case VFE_AST_Constant: r = vfe_constant(c, e); break;
  case VFE_AST_Name: {
    const char *id = vfe_get_str(e, "id");
    r = id ? vfe_name(c, e, id) : vfe_err(c, e, "malformed AST: Name without id");
    break;
  }
  case VFE_AST_Attribute: {
    vfe_val base = vfe_expr(c, vfe_get(e, "value"));
    const char *attr = vfe_get_str(e, "attr");
    vfe_set_loc(c, e);
    r = attr ? vfe_attribute(c, e, base, attr) : vfe_err(c, e, "malformed AST: Attribute");
    break;
  }
  case VFE_AST_Subscript: r = vfe_subscript_on(c, e, vfe_expr(c, vfe_get(e, "value"))); break;
  case VFE_AST_BinOp: {
    const vfe_node *ln = vfe_get(e, "left"), *rn = vfe_get(e, "right");
    vfe_val a = vfe_expr(c, ln);
    if (a.kind == VFE_V_PLACE || a.kind == VFE_V_IDVEC) {
      /* read before the right side runs (it may call or store) */
      vir_value *x = vfe_use(c, ln, a);
      a = x ? vfe_value_of(x) : (vfe_val){0};
    }
    vfe_val b = vfe_expr(c, rn);
    vfe_set_loc(c, e);
    r = vfe_binop(c, e, vfe_ast_of(vfe_get(e, "op")), a, ln, b, rn);
    break;
  }
  case VFE_AST_UnaryOp: r = unary(c, e); break;
  case VFE_AST_Compare: r = compare(c, e); break;
  case VFE_AST_BoolOp: r = boolop(c, e); break;
  case VFE_AST_IfExp: r = ifexp(c, e); break;
  case VFE_AST_Call: r = vfe_call(c, e); break;
  case VFE_AST_Tuple: {
    uint32_t n;
    vfe_node **elts = vfe_get_list(e, "elts", &n);
    r = (vfe_val){.kind = VFE_V_TUPLE, .nelems = n};
    r.elems = vfe_alloc(c, (n ? n : 1) * sizeof *r.elems);
    for (uint32_t i = 0; i < n; i++) {
      r.elems[i] = vfe_expr(c, elts[i]);
      if (r.elems[i].kind == VFE_V_PLACE || r.elems[i].kind == VFE_V_IDVEC) {
        vir_value *v = vfe_use(c, elts[i], r.elems[i]);
        r.elems[i] = v ? vfe_value_of(v) : (vfe_val){0};
      }
    }
    break;
  }
  default: r = unsupported(c, e); break;
  }
  if (--c->depth == 0)
    c->too_deep = false; /* the next statement's expressions may say it again */
  return r;
}

vir_value *vfe_expr_value(vfe_ctx *c, const vfe_node *e) {
  vfe_val v = vfe_expr(c, e);
  return vfe_use(c, e, v);
}

vir_value *vfe_expr_as(vfe_ctx *c, const vfe_node *e, vir_type *t, vfe_what what) {
  vfe_val v = vfe_expr(c, e);
  vfe_set_loc(c, e);
  return vfe_coerce(c, e, v, t, what);
}
