/* call.c - calls of built-ins: math, invocation ids, subgroup operations,
 * atomics, barriers (casts and constructors are in construct.c).
 *
 * Arguments of one built-in meet like the operands of an operator: typed
 * ones widen to a common type, literals take it. Functions that GLSL
 * defines with a scalar beside a vector (clamp(v, 0.0, 1.0), mix(a, b, t))
 * get the scalar splatted, since VIR's ops want one type.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fe.h"

bool vfe_arity(vfe_ctx *c, const vfe_node *call, const char *name, uint32_t n, uint32_t lo,
                  uint32_t hi) {
  if (n >= lo && n <= hi)
    return true;
  if (lo == hi)
    vfe_err(c, call, "%s() takes %u argument%s, got %u", name, lo, lo == 1 ? "" : "s", n);
  else
    vfe_err(c, call, "%s() takes %u to %u arguments, got %u", name, lo, hi, n);
  return false;
}

enum need { NEED_ANY, NEED_NUM, NEED_FLOAT, NEED_INT, NEED_BOOL };

/* Brings `n` arguments, evaluated into v, to one common type (in *t),
 * splatting scalars to the vector type when `splat_all`. Returns false
 * after an error. */
static bool common_vals(vfe_ctx *c, const vfe_node *call, const char *name, vfe_node **nodes,
                        vfe_val *v, uint32_t n, enum need need, bool splat_all, vir_value **out,
                        vir_type **tout) {
  vir_type *t = NULL;
  bool any_float = false;
  for (uint32_t i = 0; i < n; i++) {
    any_float |= vfe_lit_is_float(&v[i]);
    if (vfe_adapts(&v[i]))
      continue;
    out[i] = vfe_use(c, nodes[i], v[i]);
    if (!out[i])
      return false;
    t = t ? vfe_unify(c, call, t, out[i]->type, VFE_WHAT("%s()", name))
          : out[i]->type;
    if (!t)
      return false;
  }
  vfe_set_loc(c, call);
  if (!t)
    t = need == NEED_BOOL ? vir_ty_bool(c->m)
        : need == NEED_FLOAT || any_float ? vir_ty_float(c->m, 32) : vir_ty_int(c->m, 32);
  const vir_type *s = vir_ty_scalar_of(t);
  bool ok = (t->kind == VIR_TY_VEC || vir_ty_is_scalar(t)) &&
            (need == NEED_ANY || (need == NEED_NUM && s->kind != VIR_TY_BOOL) ||
             (need == NEED_FLOAT && s->kind == VIR_TY_FLOAT) ||
             (need == NEED_INT && vir_ty_is_int(t)) || (need == NEED_BOOL && s->kind == VIR_TY_BOOL));
  if (!ok) {
    static const char *const what[] = {"", "numbers", "floats", "integers", "bools"};
    vfe_err(c, call, "%s() takes %s, not %s", name, what[need], vfe_tyname(c, t));
    if (need == NEED_FLOAT && vir_ty_is_int(t))
      vfe_hint(c, "convert first: %s", vfe_cast_hint(c, vir_ty_with_scalar(c->m, t, vir_ty_float(c->m, 32)), nodes[0]));
    return false;
  }
  for (uint32_t i = 0; i < n; i++) {
    if (vfe_adapts(&v[i]))
      out[i] = vfe_coerce(c, nodes[i], v[i], (vir_type *)s, VFE_WHAT("%s()", name));
    else if (vir_ty_scalar_of(out[i]->type) != s)
      out[i] = vfe_build1(c, VIR_OP_CAST, vir_ty_with_scalar(c->m, out[i]->type, (vir_type *)s), out[i]);
    if (!out[i])
      return false;
    if (splat_all && out[i]->type != t)
      out[i] = vfe_splat(c, out[i], t);
  }
  *tout = t;
  return true;
}

/* Evaluates `n` (at most 8) arguments, then common_vals. */
static bool common_args(vfe_ctx *c, const vfe_node *call, const char *name, vfe_node **nodes,
                        uint32_t n, enum need need, bool splat_all, vir_value **out, vir_type **tout) {
  vfe_val v[8];
  for (uint32_t i = 0; i < n; i++) {
    v[i] = vfe_expr(c, nodes[i]);
    if (v[i].kind == VFE_V_ERR)
      return false;
  }
  return common_vals(c, call, name, nodes, v, n, need, splat_all, out, tout);
}

/* ------------------------------------------- abs / min / max of literals */

static bool is_number_literal(const vfe_val *v) {
  return v->kind == VFE_V_INT || v->kind == VFE_V_FLOAT;
}

/* a > b between number literals, as Python compares an int and a float. */
static bool literal_greater(const vfe_val *a, const vfe_val *b) {
  if (a->kind == VFE_V_INT && b->kind == VFE_V_INT) {
    if (a->big || b->big)
      return a->big && (!b->big ? true : a->u > b->u);
    return a->i > b->i;
  }
  double x = a->kind == VFE_V_FLOAT ? a->f : a->big ? (double)a->u : (double)a->i;
  double y = b->kind == VFE_V_FLOAT ? b->f : b->big ? (double)b->u : (double)b->i;
  return x > y;
}

/* abs(), min() and max() of number literals fold to a literal, as Python
 * computes them (min/max return one of their operands, first kept on a
 * tie or NaN), so the result adapts to its partner like any literal:
 * `h[i] * max(1.5, 2.0)` with a float16 h stays float16. */
static vfe_val fold_literal_call(vir_opcode code, const vfe_val *v, uint32_t n) {
  if (code == VIR_OP_ABS) {
    vfe_val r = v[0];
    if (r.kind == VFE_V_FLOAT)
      r.f = fabs(r.f);
    else if (!r.big && r.i < 0) {
      if (r.i == INT64_MIN) {
        r.big = true;
        r.u = (uint64_t)1 << 63;
      } else
        r.i = -r.i;
    }
    r.gsym = NULL;
    return r;
  }
  vfe_val r = v[0];
  for (uint32_t k = 1; k < n; k++)
    if (code == VIR_OP_MAX ? literal_greater(&v[k], &r) : literal_greater(&r, &v[k]))
      r = v[k];
  r.gsym = NULL;
  return r;
}

/* ------------------------------------------------------------ atomics */

static vfe_val atomic(vfe_ctx *c, const vfe_node *call, const vfe_builtin *bi, vfe_node **args, uint32_t n) {
  if (n == 0)
    return vfe_err(c, call, "%s() needs a buffer or shared element", bi->name);
  vfe_val first = vfe_expr(c, args[0]);
  if (first.kind == VFE_V_ERR)
    return first;
  vfe_place p;
  uint32_t rest;
  if (first.kind == VFE_V_ARRAY && first.arr->priv) {
    vfe_err(c, args[0], "%s() on a private array: no other invocation can see it", bi->name);
    vfe_hint(c, "update it directly: %s[i] += ...", first.arr->sym->name);
    return (vfe_val){0};
  }
  if (first.kind == VFE_V_ARRAY && first.arr->ndim) {
    vfe_err(c, args[0], "%s() on an N-d buffer takes its element", bi->name);
    vfe_hint(c, "write %s(%s[i, j], value)", bi->name, first.arr->sym->name);
    return (vfe_val){0};
  }
  if (first.kind == VFE_V_ARRAY) {
    if (n < 2)
      return vfe_err(c, call, "%s(%s, index, ...) needs an index", bi->name, first.arr->sym->name);
    vfe_val iv = vfe_expr(c, args[1]);
    vir_value *idx = iv.kind == VFE_V_INT ? vfe_coerce(c, args[1], iv, vir_ty_uint(c->m, 32), VFE_WHAT("index"))
                                          : vfe_use(c, args[1], iv);
    if (!idx)
      return (vfe_val){0};
    if (!vir_ty_is_int(idx->type) || !vir_ty_is_scalar(idx->type))
      return vfe_err(c, args[1], "an index must be an integer scalar, not %s", vfe_tyname(c, idx->type));
    if (first.arr->shared && first.arr->dims[1])
      return vfe_err(c, args[0], "index a 2-D shared array with %s[row, col]", first.arr->sym->name);
    p = (vfe_place){.root = first.arr->shared ? VFE_R_SHARED : VFE_R_BUFFER, .sym = first.arr->sym,
                    .index = idx, .type = first.arr->elem, .arr = first.arr};
    rest = 2;
  } else if (first.kind == VFE_V_PLACE &&
             (first.place.root == VFE_R_BUFFER || first.place.root == VFE_R_SHARED) &&
             !first.place.dims_left) {
    p = first.place;
    rest = 1;
  } else {
    vfe_err(c, args[0], "%s() works on a buffer or shared-array element", bi->name);
    vfe_hint(c, "write %s(buf, i, value) or %s(buf[i], value)", bi->name, bi->name);
    return (vfe_val){0};
  }
  uint32_t nval = bi->op == VIR_OP_ATOMIC_LOAD ? 0 : bi->op == VIR_OP_ATOMIC_CMPXCHG ? 2 : 1;
  if (n - rest != nval)
    return vfe_err(c, call, "%s() takes %u value argument%s after the element, got %u", bi->name,
                   nval, nval == 1 ? "" : "s", n - rest);
  vir_type *t = p.type;
  const vir_type *s = vir_ty_scalar_of(t);
  bool int_ok = vir_ty_is_scalar(t) && vir_ty_is_int(t) && s->bits >= 32;
  bool float_ok = vir_ty_is_scalar(t) && s->kind == VIR_TY_FLOAT && s->bits == 32 &&
                  (bi->op == VIR_OP_ATOMIC_ADD || bi->op == VIR_OP_ATOMIC_XCHG ||
                   bi->op == VIR_OP_ATOMIC_LOAD || bi->op == VIR_OP_ATOMIC_STORE);
  if ((!int_ok && !float_ok) || (bi->fn == VFE_F_ATOMIC_SUB && !int_ok)) {
    vfe_err(c, call, "%s() is not available on %s elements", bi->name, vfe_tyname(c, t));
    vfe_hint(c, "atomics work on 32- and 64-bit integers; float32 has add, exchange, load and store");
    return (vfe_val){0};
  }
  vir_value *ops[3] = {p.index};
  for (uint32_t i = 0; i < nval; i++) {
    ops[1 + i] = vfe_expr_as(c, args[rest + i], t, VFE_WHAT("%s", bi->name));
    if (!ops[1 + i])
      return (vfe_val){0};
  }
  vfe_set_loc(c, call);
  if (bi->fn == VFE_F_ATOMIC_SUB) /* atomic add of 0 - v: modular, like the subtraction */
    ops[1] = vfe_build2(c, VIR_OP_SUB, t, vfe_const_int(c, t, 0), ops[1]);
  bool store = bi->op == VIR_OP_ATOMIC_STORE;
  vir_op *op = vfe_build(c, (vir_opcode)bi->op, store ? NULL : t, 1 + nval, ops);
  op->attr.sym = p.sym;
  op->attr.npath = p.npath;
  memcpy(op->attr.path, p.path, p.npath);
  op->attr.scope = p.root == VFE_R_SHARED ? VIR_SCOPE_WORKGROUP : VIR_SCOPE_DEVICE;
  op->attr.sem = VIR_SEM_RELAXED;
  if (p.arr) {
    p.arr->reads++;
    p.arr->writes += bi->op != VIR_OP_ATOMIC_LOAD;
  }
  return store ? (vfe_val){.kind = VFE_V_NONE} : vfe_value_of(vir_result(op));
}

/* ---------------------------------------------------------- dispatch */

static vfe_val idvec(vfe_ctx *c, const vfe_node *call, const vfe_builtin *bi, vfe_node **args, uint32_t n) {
  if (!vfe_arity(c, call, bi->name, n, 0, 1))
    return (vfe_val){0};
  vir_type *v3 = vir_ty_vec(c->m, vir_ty_uint(c->m, 32), 3);
  vfe_val axis = n ? vfe_expr(c, args[0]) : (vfe_val){.kind = VFE_V_NONE};
  if (n && (axis.kind != VFE_V_INT || axis.big || axis.i < 0 || axis.i > 2)) {
    if (axis.kind != VFE_V_ERR)
      vfe_err(c, args[0], "%s(axis): axis must be the constant 0, 1 or 2", bi->name);
    return (vfe_val){0};
  }
  vfe_set_loc(c, call);
  vir_value *v = vir_result(vfe_build(c, (vir_opcode)bi->op, v3, 0, NULL));
  if (!n)
    return (vfe_val){.kind = VFE_V_IDVEC, .v = v, .type = v3};
  vir_op *op = vfe_build(c, VIR_OP_EXTRACT, v3->elem, 1, &v);
  op->attr.index = (uint32_t)axis.i;
  return vfe_value_of(vir_result(op));
}

static vfe_val subgroup(vfe_ctx *c, const vfe_node *call, const vfe_builtin *bi, vfe_node **args, uint32_t n) {
  vir_opcode code = (vir_opcode)bi->op;
  uint32_t want = bi->fn == VFE_F_SG2 ? 2 : 1;
  if (!vfe_arity(c, call, bi->name, n, want, want))
    return (vfe_val){0};
  enum need need = code == VIR_OP_SG_ALL || code == VIR_OP_SG_ANY ? NEED_BOOL
                   : code == VIR_OP_SG_AND || code == VIR_OP_SG_OR || code == VIR_OP_SG_XOR ? NEED_ANY
                   : bi->fn == VFE_F_SG2 || code == VIR_OP_SG_BROADCAST_FIRST ? NEED_ANY
                                                                               : NEED_NUM;
  vir_value *x[1];
  vir_type *t;
  if (!common_args(c, call, bi->name, args, 1, need, false, x, &t))
    return (vfe_val){0};
  if ((code == VIR_OP_SG_AND || code == VIR_OP_SG_OR || code == VIR_OP_SG_XOR) && vir_ty_is_float(t))
    return vfe_err(c, call, "%s() takes integers or bools, not %s", bi->name, vfe_tyname(c, t));
  if (want == 1)
    return vfe_value_of(vfe_build1(c, code, t, x[0]));
  vfe_val lane = vfe_expr(c, args[1]);
  if (code == VIR_OP_SG_BROADCAST && lane.kind != VFE_V_INT && lane.kind != VFE_V_ERR)
    return vfe_err(c, args[1], "subgroup_broadcast() needs a constant lane");
  vir_value *l = vfe_coerce(c, args[1], lane, vir_ty_uint(c->m, 32), VFE_WHAT("%s", bi->name));
  vfe_set_loc(c, call);
  return l ? vfe_value_of(vfe_build2(c, code, t, x[0], l)) : (vfe_val){0};
}

/* One-type math: `n` arguments of the kind `need`, splatted to one type. */
static vfe_val math(vfe_ctx *c, const vfe_node *call, const vfe_builtin *bi, vfe_node **args,
                    uint32_t n, uint32_t want, enum need need, vir_opcode code) {
  if (!vfe_arity(c, call, bi->name, n, want, want))
    return (vfe_val){0};
  vir_value *x[4];
  vir_type *t;
  if (!common_args(c, call, bi->name, args, n, need, true, x, &t))
    return (vfe_val){0};
  return vfe_value_of(vir_result(vfe_build(c, code, t, n, x)));
}

vfe_val vfe_call_builtin(vfe_ctx *c, const vfe_node *call, const vfe_builtin *bi) {
  uint32_t n, nk;
  vfe_node **args = vfe_get_list(call, "args", &n);
  vfe_get_list(call, "keywords", &nk);
  for (uint32_t i = 0; i < n; i++)
    if (vfe_ast_of(args[i]) == VFE_AST_Starred)
      return vfe_err(c, args[i], "*arguments are not supported in kernels");
  if (nk)
    return vfe_err(c, call, "%s() takes no keyword arguments", bi->name);
  if (bi->kind == VFE_B_TYPE) {
    return vfe_construct(c, call, vfe_builtin_type(c, bi), args, n, bi->python);
  }
  if (bi->kind != VFE_B_FUNC)
    return vfe_err(c, call, "vp.%s is used as vp.%s[...], not called", bi->name, bi->name);
  vir_value *x[8];
  vir_type *t;
  vir_opcode code = (vir_opcode)bi->op;
  switch ((vfe_bfn)bi->fn) {
  case VFE_F_MATH1: return math(c, call, bi, args, n, 1, NEED_FLOAT, code);
  case VFE_F_MATH2:
    return math(c, call, bi, args, n, 2, code == VIR_OP_MOD ? NEED_NUM : NEED_FLOAT, code);
  case VFE_F_MATH3: return math(c, call, bi, args, n, 3, NEED_FLOAT, code);
  case VFE_F_STEP: return math(c, call, bi, args, n, 2, NEED_FLOAT, code);
  case VFE_F_ROUND: return math(c, call, bi, args, n, 1, NEED_FLOAT, code);
  case VFE_F_CLAMP: return math(c, call, bi, args, n, 3, NEED_NUM, code);
  case VFE_F_ATAN:
    return math(c, call, bi, args, n, n == 2 ? 2 : 1, NEED_FLOAT, n == 2 ? VIR_OP_ATAN2 : code);
  case VFE_F_NUM1: {
    if (!vfe_arity(c, call, bi->name, n, 1, 1))
      return (vfe_val){0};
    vfe_val v0 = vfe_expr(c, args[0]);
    if (v0.kind == VFE_V_ERR)
      return v0;
    if (code == VIR_OP_ABS && is_number_literal(&v0))
      return fold_literal_call(code, &v0, 1);
    if (!common_vals(c, call, bi->name, args, &v0, 1, NEED_NUM, false, x, &t))
      return (vfe_val){0};
    if (code == VIR_OP_BIT_COUNT || code == VIR_OP_FIND_LSB || code == VIR_OP_FIND_MSB) {
      /* 32-bit integer scalars (GLSL's bitCount, findLSB, findMSB) */
      const vir_type *s = vir_ty_scalar_of(t);
      if (t->kind == VIR_TY_VEC || !vir_ty_is_int(t) || s->bits != 32)
        return vfe_err(c, call, "%s() takes a 32-bit integer scalar (int32 or uint32)", bi->name);
      return vfe_value_of(vfe_build1(c, code, t, x[0]));
    }
    if (vir_ty_scalar_of(t)->kind == VIR_TY_UINT)
      return code == VIR_OP_ABS ? vfe_value_of(x[0]) /* already non-negative */
                                : vfe_err(c, call, "sign() of an unsigned value");
    return vfe_value_of(vfe_build1(c, code, t, x[0]));
  }
  case VFE_F_MINMAX: {
    if (n < 2)
      return vfe_err(c, call, "%s() takes at least 2 arguments, got %u", bi->name, n);
    if (n > 8)
      return vfe_err(c, call, "%s() takes at most 8 arguments in kernels", bi->name);
    vfe_val v[8];
    bool all_lit = true;
    for (uint32_t i = 0; i < n; i++) {
      v[i] = vfe_expr(c, args[i]);
      if (v[i].kind == VFE_V_ERR)
        return v[i];
      all_lit &= is_number_literal(&v[i]);
    }
    if (all_lit)
      return fold_literal_call(code, v, n);
    if (!common_vals(c, call, bi->name, args, v, n, NEED_NUM, true, x, &t))
      return (vfe_val){0};
    vir_value *r = vfe_build2(c, code, t, x[0], x[1]);
    for (uint32_t k = 2; k < n; k++) /* left to right, as Python compares */
      r = vfe_build2(c, code, t, r, x[k]);
    return vfe_value_of(r);
  }
  case VFE_F_VEC1:
  case VFE_F_VEC2: {
    uint32_t want = bi->fn == VFE_F_VEC1 ? 1 : 2;
    if (!vfe_arity(c, call, bi->name, n, want, want) ||
        !common_args(c, call, bi->name, args, n, NEED_FLOAT, false, x, &t))
      return (vfe_val){0};
    for (uint32_t i = 0; i < n; i++)
      if (x[i]->type != t || (code == VIR_OP_CROSS && (t->kind != VIR_TY_VEC || t->n != 3)))
        return vfe_err(c, call, "%s() takes %s, not %s", bi->name,
                       code == VIR_OP_CROSS ? "two vec3" : "vectors of one type",
                       vfe_tyname(c, x[i]->type));
    vir_type *rt = code == VIR_OP_DOT || code == VIR_OP_LENGTH || code == VIR_OP_DISTANCE
                       ? (vir_type *)vir_ty_scalar_of(t) : t;
    return vfe_value_of(vir_result(vfe_build(c, code, rt, n, x)));
  }
  case VFE_F_TEST:
    if (!vfe_arity(c, call, bi->name, n, 1, 1) || !common_args(c, call, bi->name, args, 1, NEED_FLOAT, false, x, &t))
      return (vfe_val){0};
    return vfe_value_of(vfe_build1(c, code, vir_ty_with_scalar(c->m, t, vir_ty_bool(c->m)), x[0]));
  case VFE_F_ANYALL:
    if (!vfe_arity(c, call, bi->name, n, 1, 1) || !common_args(c, call, bi->name, args, 1, NEED_BOOL, false, x, &t))
      return (vfe_val){0};
    return t->kind == VIR_TY_VEC ? vfe_value_of(vfe_build1(c, code, vir_ty_bool(c->m), x[0])) : vfe_value_of(x[0]);
  case VFE_F_WHERE: {
    if (!vfe_arity(c, call, bi->name, n, 3, 3))
      return (vfe_val){0};
    vir_value *cond = vfe_expr_value(c, args[0]);
    if (!cond)
      return (vfe_val){0};
    if (!vir_ty_is_bool(cond->type))
      return vfe_err(c, args[0], "%s() needs a bool condition, not %s", bi->name, vfe_tyname(c, cond->type));
    if (!common_args(c, call, bi->name, args + 1, 2, NEED_ANY, true, x + 1, &t))
      return (vfe_val){0};
    if (cond->type->kind == VIR_TY_VEC && t->kind != VIR_TY_VEC) {
      t = vir_ty_vec(c->m, t, cond->type->n);
      x[1] = vfe_splat(c, x[1], t);
      x[2] = vfe_splat(c, x[2], t);
    }
    if (cond->type->kind == VIR_TY_VEC && cond->type->n != t->n)
      return vfe_err(c, call, "%s(): the condition has %u components, the values %u", bi->name,
                     cond->type->n, t->n);
    x[0] = cond;
    return vfe_value_of(vir_result(vfe_build(c, VIR_OP_SELECT, t, 3, x)));
  }
  case VFE_F_TRANSPOSE: {
    if (!vfe_arity(c, call, bi->name, n, 1, 1))
      return (vfe_val){0};
    vir_value *m = vfe_expr_value(c, args[0]);
    if (!m)
      return (vfe_val){0};
    if (m->type->kind != VIR_TY_MAT)
      return vfe_err(c, args[0], "transpose() takes a matrix, not %s", vfe_tyname(c, m->type));
    vir_type *rt = vir_ty_mat(c->m, m->type->elem->elem, m->type->rows, m->type->n);
    return vfe_value_of(vfe_build1(c, VIR_OP_TRANSPOSE, rt, m));
  }
  case VFE_F_ID: return idvec(c, call, bi, args, n);
  case VFE_F_ID1:
    if (!vfe_arity(c, call, bi->name, n, 0, 0))
      return (vfe_val){0};
    return vfe_value_of(vir_result(vfe_build(c, code, vir_ty_uint(c->m, 32), 0, NULL)));
  case VFE_F_SG1:
  case VFE_F_SG2: return subgroup(c, call, bi, args, n);
  case VFE_F_BALLOT: {
    if (!vfe_arity(c, call, bi->name, n, 1, 1))
      return (vfe_val){0};
    vir_value *b = vfe_expr_as(c, args[0], vir_ty_bool(c->m), VFE_WHAT("%s", bi->name));
    vir_type *u4 = vir_ty_vec(c->m, vir_ty_uint(c->m, 32), 4);
    return b ? vfe_value_of(vfe_build1(c, code, u4, b)) : (vfe_val){0};
  }
  case VFE_F_ELECT:
    if (!vfe_arity(c, call, bi->name, n, 0, 0))
      return (vfe_val){0};
    return vfe_value_of(vir_result(vfe_build(c, code, vir_ty_bool(c->m), 0, NULL)));
  case VFE_F_ATOMIC:
  case VFE_F_ATOMIC_SUB: return atomic(c, call, bi, args, n);
  case VFE_F_GRID_SYNC:
  case VFE_F_GRID_RANGE: return vfe_persistent_call(c, call, bi);
  case VFE_F_BARRIER:
    if (!vfe_arity(c, call, bi->name, n, 0, 0))
      return (vfe_val){0};
    vfe_build(c, code, NULL, 0, NULL); /* barrier or subgroup.barrier */
    return (vfe_val){.kind = VFE_V_NONE};
  case VFE_F_MEMBAR: {
    if (!vfe_arity(c, call, bi->name, n, 0, 0))
      return (vfe_val){0};
    vir_op *op = vfe_build(c, VIR_OP_MEMORY_BARRIER, NULL, 0, NULL);
    op->attr.scope = VIR_SCOPE_DEVICE;
    op->attr.sem = VIR_SEM_ACQ_REL;
    op->attr.storage = VIR_STORAGE_BUFFER | VIR_STORAGE_SHARED;
    return (vfe_val){.kind = VFE_V_NONE};
  }
  case VFE_F_VAR:
    if (!vfe_arity(c, call, bi->name, n, 1, 1))
      return (vfe_val){0};
    return vfe_value_of(vfe_expr_value(c, args[0]));
  case VFE_F_RANGE:
    vfe_err(c, call, "range() is only for `for` loops");
    return (vfe_val){0};
  case VFE_F_LEN: {
    if (!vfe_arity(c, call, bi->name, n, 1, 1))
      return (vfe_val){0};
    vfe_val a = vfe_expr(c, args[0]);
    vfe_set_loc(c, call);
    if (a.kind == VFE_V_ARRAY && a.arr->ndim) /* the first extent (ndbuf.c) */
      return vfe_value_of(vfe_nd_extent(c, a.arr, 0));
    if (a.kind == VFE_V_ARRAY && !a.arr->shared && !a.arr->priv) {
      vir_op *op = vfe_build(c, VIR_OP_BUFFER_LEN, vir_ty_uint(c->m, 32), 0, NULL);
      op->attr.sym = a.arr->sym;
      return vfe_value_of(vir_result(op));
    }
    if (a.kind == VFE_V_ARRAY)
      return (vfe_val){.kind = VFE_V_INT, .i = a.arr->dims[0]};
    if (a.kind == VFE_V_TUPLE)
      return (vfe_val){.kind = VFE_V_INT, .i = a.nelems};
    vir_value *v = a.kind == VFE_V_ERR ? NULL : vfe_use(c, args[0], a);
    if (v && v->type->kind == VIR_TY_VEC)
      return (vfe_val){.kind = VFE_V_INT, .i = v->type->n};
    if (v)
      vfe_err(c, args[0], "len() of %s", vfe_tyname(c, v->type));
    return (vfe_val){0};
  }
  case VFE_F_BITCAST: {
    if (!vfe_arity(c, call, bi->name, n, 2, 2))
      return (vfe_val){0};
    vir_value *x0 = vfe_expr_value(c, args[0]);
    vir_type *to = vfe_type_of_annotation(c, args[1]);
    if (!x0 || !to)
      return (vfe_val){0};
    if (vir_type_size(x0->type) != vir_type_size(to) || vir_ty_is_bool(to) || vir_ty_is_bool(x0->type) ||
        (!vir_ty_is_scalar(to) && to->kind != VIR_TY_VEC))
      return vfe_err(c, call, "bitcast() from %s to %s: sizes differ or the type has no bits",
                     vfe_tyname(c, x0->type), vfe_tyname(c, to));
    return vfe_value_of(vfe_build1(c, VIR_OP_BITCAST, to, x0));
  }
  case VFE_F_KERNEL:
    return vfe_err(c, call, "vp.%s is a decorator, not something to call in a kernel", bi->name);
  case VFE_F_PY: return vfe_call_py(c, call, bi); /* builtins.c */
  case VFE_F_STATIC:
    vfe_err(c, call, "vp.static(...) is only for `for` loops");
    vfe_hint(c, "write for i in vp.static(range(4)): ... to unroll the loop at compile time");
    return (vfe_val){0};
  case VFE_F_PRINT: return vfe_call_print(c, call, args, n);
  }
  return vfe_err(c, call, "%s() is not supported here", bi->name);
}

vfe_val vfe_call(vfe_ctx *c, const vfe_node *call) {
  vfe_val ms;
  if (vfe_memsock_call(c, call, &ms)) /* pipe.fire(...): memsock.c */
    return ms;
  const vfe_node *fnode = vfe_get(call, "func");
  vfe_val f;
  if (vfe_ast_of(fnode) == VFE_AST_Attribute && vfe_get_str(fnode, "attr")) {
    /* obj.method(...) of a struct (methods.c), else an attribute as usual */
    vfe_val base = vfe_expr(c, vfe_get(fnode, "value")), r;
    if (vfe_method_call(c, call, base, vfe_get_str(fnode, "attr"), &r))
      return r;
    vfe_set_loc(c, fnode);
    f = vfe_attribute(c, fnode, base, vfe_get_str(fnode, "attr"));
  } else {
    f = vfe_expr(c, fnode);
  }
  vfe_set_loc(c, call);
  switch (f.kind) {
  case VFE_V_ERR: return f;
  case VFE_V_BUILTIN: return vfe_call_builtin(c, call, f.bi);
  case VFE_V_FUNC: return vfe_tuple_result(c, call, vfe_call_helper(c, call, f.helper));
  case VFE_V_CLASS: return vfe_construct_struct(c, call, f.st);
  default:
    vfe_err(c, call, "this is not a function");
    return (vfe_val){0};
  }
}
