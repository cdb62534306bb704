/* construct.c - calls of types: casts of scalars (vp.float32(i),
 * int(x) truncating, bool(x) as x != 0, literals folded and checked to fit)
 * and constructors of vectors (components adding up, a splat, conversion or
 * truncation of one vector) and matrices (columns, scalars in column order,
 * or one scalar for the diagonal).
 */
#include <string.h>

#include "fe.h"

/* --------------------------------------------------- casts, constructors */

/* A literal as t(literal) converts it, still a literal: a float truncated
 * toward zero for an integer t (checked to fit), a number to bool as != 0,
 * a bool to 0 / 1; VFE_V_ERR after an error. */
static vfe_val cast_literal(vfe_ctx *c, const vfe_node *at, vfe_val v, vir_type *t) {
  if (v.kind == VFE_V_FLOAT && t->kind != VIR_TY_FLOAT && t->kind != VIR_TY_BOOL) {
    /* int(2.7) == 2: truncation toward zero, checked to fit */
    double f = v.f;
    if (!(f > -9.3e18 && f < 1.85e19))
      return vfe_err(c, at, "%g does not fit %s", f, vfe_tyname(c, t));
    return f < 0 ? (vfe_val){.kind = VFE_V_INT, .i = (int64_t)f}
                 : (vfe_val){.kind = VFE_V_INT, .u = (uint64_t)f, .big = f > 9.2e18};
  }
  if (t->kind == VIR_TY_BOOL)
    return (vfe_val){.kind = VFE_V_BOOL,
                     .b = v.kind == VFE_V_BOOL ? v.b : v.kind == VFE_V_INT ? v.i != 0 : v.f != 0};
  if (v.kind == VFE_V_BOOL)
    return (vfe_val){.kind = VFE_V_INT, .i = v.b};
  return v;
}

/* Python's int(lit) / float(lit): the literal converted, still a literal
 * (int truncated toward zero, a bool 0 / 1, an int made a float). */
static vfe_val python_literal(vfe_ctx *c, const vfe_node *at, vfe_val v, vir_type *t) {
  if ((v = cast_literal(c, at, v, t)).kind == VFE_V_ERR)
    return v;
  if (t->kind == VIR_TY_FLOAT && v.kind == VFE_V_INT)
    return (vfe_val){.kind = VFE_V_FLOAT, .f = v.big ? (double)v.u : (double)v.i};
  v.gsym = NULL;
  return v;
}

static vfe_val cast_scalar(vfe_ctx *c, const vfe_node *call, vir_type *t, vfe_node **args, uint32_t n,
                           bool python) {
  if (n == 0) /* int() is 0, as in Python */
    return python ? (vfe_val){.kind = t->kind == VIR_TY_FLOAT ? VFE_V_FLOAT : VFE_V_INT}
                  : vfe_value_of(t->kind == VIR_TY_FLOAT ? vfe_const_float(c, t, 0) : vfe_const_int(c, t, 0));
  if (!vfe_arity(c, call, vfe_vpname(c, t), n, 0, 1))
    return (vfe_val){0};
  vfe_val v = vfe_expr(c, args[0]);
  vfe_set_loc(c, call);
  if (python && vfe_is_literal(&v)) /* float(2) is the literal 2.0, as in Python */
    return python_literal(c, args[0], v, t);
  if (python && v.kind == VFE_V_LITSEL) {
    vfe_val *lits = vfe_alloc(c, 2 * sizeof *lits);
    for (int k = 0; k < 2; k++)
      if ((lits[k] = python_literal(c, args[0], v.elems[k], t)).kind == VFE_V_ERR)
        return lits[k];
    v.elems = lits;
    return v;
  }
  if (vfe_is_literal(&v)) {
    if ((v = cast_literal(c, args[0], v, t)).kind == VFE_V_ERR)
      return v;
    return vfe_value_of(vfe_coerce(c, args[0], v, t, VFE_WHAT("%s(...)", 0, 0, 0, 0, t)));
  }
  if (v.kind == VFE_V_LITSEL && vir_ty_is_scalar(t)) { /* t(a if c else b): each literal converted */
    vfe_val *lits = vfe_alloc(c, 2 * sizeof *lits);
    for (int k = 0; k < 2; k++)
      if ((lits[k] = cast_literal(c, args[0], v.elems[k], t)).kind == VFE_V_ERR)
        return lits[k];
    v.elems = lits;
    return vfe_value_of(vfe_coerce(c, args[0], v, t, VFE_WHAT("%s(...)", 0, 0, 0, 0, t)));
  }
  vir_value *x = vfe_use(c, args[0], v);
  if (!x)
    return (vfe_val){0};
  if (!vir_ty_is_scalar(x->type)) {
    vfe_err(c, call, "%s() converts scalars, not %s", vfe_vpname(c, t), vfe_tyname(c, x->type));
    if (x->type->kind == VIR_TY_VEC)
      vfe_hint(c, "convert a vector with its vector type: %s(...)",
               vfe_vpname(c, vir_ty_with_scalar(c->m, x->type, t)));
    return (vfe_val){0};
  }
  if (x->type == t)
    return vfe_value_of(x);
  if (t->kind == VIR_TY_BOOL) {
    vir_value *zero = vir_ty_is_float(x->type) ? vfe_const_float(c, x->type, 0)
                                               : vfe_const_int(c, x->type, 0);
    return vfe_value_of(vfe_build2(c, VIR_OP_NE, t, x, zero));
  }
  return vfe_value_of(vfe_build1(c, VIR_OP_CAST, t, x));
}

/* vecN(...): components from scalars and vectors adding up to N, one
 * scalar (splat), or one vector (conversion, or truncation as in GLSL). */
static vfe_val construct_vec(vfe_ctx *c, const vfe_node *call, vir_type *t, vfe_node **args, uint32_t n) {
  vir_type *s = t->elem;
  const char *name = vfe_vpname(c, t);
  if (n == 0)
    return vfe_err(c, call, "%s() needs components", name);
  vir_value *ops[16];
  uint32_t ncomp = 0;
  if (n > 16)
    return vfe_err(c, call, "%s() takes at most %u components", name, t->n);
  for (uint32_t i = 0; i < n; i++) {
    vfe_val v = vfe_expr(c, args[i]);
    if (v.kind == VFE_V_ERR)
      return v;
    vfe_set_loc(c, call);
    if (vfe_is_literal(&v)) {
      if (v.kind == VFE_V_FLOAT && s->kind != VIR_TY_FLOAT)
        return vfe_err(c, args[i], "%s() takes %s components; this is a float literal", name,
                       vfe_tyname(c, s));
      ops[i] = vfe_coerce(c, args[i], v, s, VFE_WHAT("%s", name));
      ncomp++;
    } else {
      vir_value *x = vfe_use(c, args[i], v);
      if (!x)
        return (vfe_val){0};
      if (x->type->kind != VIR_TY_VEC && !vir_ty_is_scalar(x->type))
        return vfe_err(c, args[i], "%s() takes scalars and vectors, not %s", name, vfe_tyname(c, x->type));
      if (n == 1 && x->type->kind == VIR_TY_VEC && x->type->n > t->n) {
        vir_op *op = vfe_build(c, VIR_OP_SWIZZLE, vir_ty_vec(c->m, x->type->elem, t->n), 1, &x);
        op->attr.nswz = (uint8_t)t->n;
        for (uint8_t k = 0; k < t->n; k++)
          op->attr.swz[k] = k;
        x = vir_result(op);
      }
      if (vir_ty_scalar_of(x->type) != s) /* constructors convert, as in GLSL */
        x = vfe_build1(c, VIR_OP_CAST, vir_ty_with_scalar(c->m, x->type, s), x);
      ops[i] = x;
      ncomp += vir_ty_width(x->type);
    }
    if (!ops[i])
      return (vfe_val){0};
  }
  if (n == 1 && ops[0]->type == t)
    return vfe_value_of(ops[0]);
  if (!(n == 1 && ncomp == 1) && ncomp != t->n) {
    vfe_err(c, call, "%s() needs %u components, got %u", name, t->n, ncomp);
    return (vfe_val){0};
  }
  return vfe_value_of(vir_result(vfe_build(c, VIR_OP_CONSTRUCT, t, n, ops)));
}

/* matN(...): N columns, N*N scalars in column order, or one scalar (the
 * diagonal, as GLSL's mat4(1.0)). */
static vfe_val construct_mat(vfe_ctx *c, const vfe_node *call, vir_type *t, vfe_node **args, uint32_t n) {
  vir_type *col = t->elem, *s = col->elem;
  const char *name = vfe_vpname(c, t);
  if (n == 1) {
    vir_value *d = vfe_expr_as(c, args[0], s, VFE_WHAT("%s", name));
    if (!d)
      return (vfe_val){0};
    vir_value *zero = vfe_const_float(c, s, 0), *cols[4], *comp[4];
    for (uint32_t i = 0; i < t->n; i++) {
      for (uint32_t r = 0; r < col->n; r++)
        comp[r] = r == i ? d : zero;
      cols[i] = vir_result(vfe_build(c, VIR_OP_CONSTRUCT, col, col->n, comp));
    }
    return vfe_value_of(vir_result(vfe_build(c, VIR_OP_CONSTRUCT, t, t->n, cols)));
  }
  vir_value *ops[16];
  vir_type *want = n == t->n ? col : n == t->n * col->n ? s : NULL;
  if (!want)
    return vfe_err(c, call, "%s() takes %u columns or %u scalars, got %u arguments", name, t->n,
                   t->n * col->n, n);
  for (uint32_t i = 0; i < n; i++) {
    ops[i] = vfe_expr_as(c, args[i], want, VFE_WHAT("%s", name));
    if (!ops[i])
      return (vfe_val){0};
  }
  vfe_set_loc(c, call);
  return vfe_value_of(vir_result(vfe_build(c, VIR_OP_CONSTRUCT, t, n, ops)));
}

vfe_val vfe_construct(vfe_ctx *c, const vfe_node *call, vir_type *t, vfe_node **args, uint32_t n,
                      bool python) {
  if (t->kind == VIR_TY_MAT)
    return construct_mat(c, call, t, args, n);
  if (t->kind == VIR_TY_VEC)
    return construct_vec(c, call, t, args, n);
  return cast_scalar(c, call, t, args, n, python);
}

/* Particle(pos=..., mass=...) or Particle(pos, mass): a struct value from
 * every field, in order or by name (no defaults: a field left out is an
 * error), each converted to its field's type. */
vfe_val vfe_construct_struct(vfe_ctx *c, const vfe_node *call, vir_struct *st) {
  uint32_t n, nk, nf = st->nfields;
  vfe_node **args = vfe_get_list(call, "args", &n);
  vfe_node **kws = vfe_get_list(call, "keywords", &nk);
  const vfe_node **given = vfe_alloc(c, (nf + 1) * sizeof *given);
  for (uint32_t i = 0; i < n; i++) {
    if (vfe_ast_of(args[i]) == VFE_AST_Starred)
      return vfe_err(c, args[i], "*arguments are not supported in kernels");
    if (i >= nf)
      return vfe_err(c, args[i], "%s() takes %u field%s, got %u", st->name, nf, nf == 1 ? "" : "s", n);
    given[i] = args[i];
  }
  for (uint32_t k = 0; k < nk; k++) {
    const char *name = vfe_get_str(kws[k], "arg");
    if (!name)
      return vfe_err(c, kws[k], "**arguments are not supported in kernels");
    int f = vir_struct_find(st, name);
    if (f < 0) {
      vfe_err(c, kws[k], "struct %s has no field '%s'", st->name, name);
      return (vfe_val){0};
    }
    if (given[f])
      return vfe_err(c, kws[k], "%s() gets field '%s' twice", st->name, name);
    given[f] = vfe_get(kws[k], "value");
  }
  for (uint32_t f = 0; f < nf; f++)
    if (!given[f]) {
      vfe_err(c, call, "%s() needs every field; '%s' is missing", st->name, st->fields[f].name);
      vfe_hint(c, "a struct built by a call has no default values");
      return (vfe_val){0};
    }
  if (!nf)
    return vfe_err(c, call, "struct %s has no fields to build", st->name);
  vir_value **x = vfe_alloc(c, nf * sizeof *x);
  bool ok = true;
  for (uint32_t f = 0; f < nf; f++) {
    x[f] = vfe_expr_as(c, given[f], st->fields[f].type,
                       VFE_WHAT("field '%s' of %s", st->fields[f].name, st->name));
    ok = ok && x[f];
  }
  if (!ok)
    return (vfe_val){0};
  vfe_set_loc(c, call);
  return vfe_value_of(vir_result(vfe_build(c, VIR_OP_CONSTRUCT, vir_ty_struct(c->m, st), nf, x)));
}
