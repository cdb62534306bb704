/* builtins.c - Python's own built-ins with Python's semantics, and the math
 * module.
 *
 * Bare `round` and `pow` are Python's (`round(x)` is an int, rounded half to
 * even; `round(x, n)` a float; `pow(a, b)` is `a ** b`), while `vp.round`
 * and `vp.pow` stay GLSL's (types.c). `math.NAME` maps onto the VIR math
 * ops: constants (pi, e, tau, inf, nan) are float literals, functions of
 * literals fold at compile time with the C library (what CPython calls),
 * other arguments become the op; an integer argument is converted to a
 * float as Python does (float32, or float64 for a 64-bit integer), and
 * math.floor/ceil/trunc return an int as in Python (int32, or int64 for a
 * float64 argument).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fe.h"

/* What a VFE_F_PY built-in is (vfe_builtin.op). */
enum pyfn {
  PY_ROUND, PY_POW,
  M_F1,     /* one float: VIR op in `vop` */
  M_TOINT,  /* floor, ceil, trunc: the op, then an int */
  M_F2,     /* two floats: atan2, pow, fmod */
  M_LOG,    /* log(x[, base]) */
  M_HYPOT, M_DEGREES, M_RADIANS, M_ISNAN, M_ISINF, M_ISFINITE, M_COPYSIGN,
  M_CONST,
};

typedef struct mathfn {
  const char *name;
  uint8_t fn;      /* enum pyfn */
  uint16_t vop;    /* vir_opcode */
  double (*fold1)(double);
  double (*fold2)(double, double);
  double value;    /* M_CONST */
} mathfn;

static double deg(double x) { return x * (180.0 / M_PI); }
static double rad(double x) { return x * (M_PI / 180.0); }

/* X(id, kind, VIR op, fold of one argument, fold of two, constant value) */
#define MATH_FNS(X)                                                                                \
  X(pi, M_CONST, CONST, 0, 0, M_PI) X(e, M_CONST, CONST, 0, 0, M_E)                                 \
  X(tau, M_CONST, CONST, 0, 0, 2 * M_PI) X(inf, M_CONST, CONST, 0, 0, INFINITY)                     \
  X(nan, M_CONST, CONST, 0, 0, NAN) X(sqrt, M_F1, SQRT, sqrt, 0, 0) X(cbrt, M_F1, CBRT, cbrt, 0, 0)   \
  X(sin, M_F1, SIN, sin, 0, 0) X(cos, M_F1, COS, cos, 0, 0) X(tan, M_F1, TAN, tan, 0, 0)             \
  X(asin, M_F1, ASIN, asin, 0, 0) X(acos, M_F1, ACOS, acos, 0, 0) X(atan, M_F1, ATAN, atan, 0, 0)    \
  X(sinh, M_F1, SINH, sinh, 0, 0) X(cosh, M_F1, COSH, cosh, 0, 0) X(tanh, M_F1, TANH, tanh, 0, 0)    \
  X(asinh, M_F1, ASINH, asinh, 0, 0) X(acosh, M_F1, ACOSH, acosh, 0, 0)                             \
  X(atanh, M_F1, ATANH, atanh, 0, 0) X(exp, M_F1, EXP, exp, 0, 0) X(exp2, M_F1, EXP2, exp2, 0, 0)    \
  X(expm1, M_F1, EXPM1, expm1, 0, 0) X(log2, M_F1, LOG2, log2, 0, 0)                                \
  X(log10, M_F1, LOG10, log10, 0, 0) X(log1p, M_F1, LOG1P, log1p, 0, 0)                             \
  X(fabs, M_F1, ABS, fabs, 0, 0) X(floor, M_TOINT, FLOOR, floor, 0, 0)                              \
  X(ceil, M_TOINT, CEIL, ceil, 0, 0) X(trunc, M_TOINT, TRUNC, trunc, 0, 0)                          \
  X(atan2, M_F2, ATAN2, 0, atan2, 0) X(pow, M_F2, POW, 0, pow, 0) X(fmod, M_F2, REM, 0, fmod, 0)     \
  X(log, M_LOG, LOG, log, 0, 0) X(hypot, M_HYPOT, CONST, 0, hypot, 0)                               \
  X(copysign, M_COPYSIGN, CONST, 0, copysign, 0) X(degrees, M_DEGREES, CONST, deg, 0, 0)            \
  X(radians, M_RADIANS, CONST, rad, 0, 0) X(isnan, M_ISNAN, ISNAN, 0, 0, 0)                         \
  X(isinf, M_ISINF, ISINF, 0, 0, 0) X(isfinite, M_ISFINITE, CONST, 0, 0, 0)

enum {
#define MATH_ID(id, ...) MATH_##id,
  MATH_FNS(MATH_ID)
#undef MATH_ID
  NMATH
};

static const mathfn mathfns[NMATH] = {
#define MATH_ROW(id, k, op, f1, f2, v) {#id, k, VIR_OP_##op, f1, f2, v},
    MATH_FNS(MATH_ROW)
#undef MATH_ROW
};

/* The built-in each math function is (its `op`: 0x100 + its index), as
 * constant data: the frontend keeps no mutable globals. */
static const vfe_builtin math_bi[NMATH] = {
#define MATH_BI(id, ...) {#id, VFE_B_FUNC, VFE_F_PY, 0x100 + MATH_##id, 0, 0, 0, 0, false},
    MATH_FNS(MATH_BI)
#undef MATH_BI
};

static const vfe_builtin py_bi[] = {
    {"round", VFE_B_FUNC, VFE_F_PY, PY_ROUND, 0, 0, 0, 0, true},
    {"pow", VFE_B_FUNC, VFE_F_PY, PY_POW, 0, 0, 0, 0, true},
};

const vfe_builtin *vfe_py_builtin(const char *name) {
  for (unsigned i = 0; i < sizeof py_bi / sizeof py_bi[0]; i++)
    if (strcmp(py_bi[i].name, name) == 0)
      return &py_bi[i];
  return NULL;
}

vfe_val vfe_math_attr(vfe_ctx *c, const vfe_node *at, const char *name) {
  for (unsigned i = 0; i < NMATH; i++) {
    if (strcmp(mathfns[i].name, name) != 0)
      continue;
    if (mathfns[i].fn == M_CONST)
      return (vfe_val){.kind = VFE_V_FLOAT, .f = mathfns[i].value};
    return (vfe_val){.kind = VFE_V_BUILTIN, .bi = &math_bi[i]};
  }
  vfe_err(c, at, "math.%s is not available in kernels", name);
  vfe_hint(c, "kernels have the math functions VulPy maps to GPU math (sqrt, sin, exp, log, floor, pi, ...); see docs/language.md");
  return (vfe_val){0};
}

/* ------------------------------------------------------------ arguments */

/* The float type Python's int -> float conversion gives an integer type. */
static vir_type *float_for(vfe_ctx *c, const vir_type *t) {
  const vir_type *s = vir_ty_scalar_of(t);
  vir_type *f = vir_ty_float(c->m, s->bits > 32 ? 64 : 32);
  return vir_ty_with_scalar(c->m, (vir_type *)t, f);
}

/* Evaluates `n` float arguments: all literals (*lit true, vals filled), or
 * values of one float type (out, *t); integers are converted, a scalar
 * beside a vector splatted. False after an error. */
static bool float_args(vfe_ctx *c, const vfe_node *call, const char *name, vfe_node **args, uint32_t n,
                       vfe_val *vals, bool *lit, vir_value **out, vir_type **tout) {
  vir_type *t = NULL;
  *lit = true;
  for (uint32_t i = 0; i < n; i++) {
    vals[i] = vfe_expr(c, args[i]);
    if (vals[i].kind == VFE_V_ERR)
      return false;
    if (vals[i].kind == VFE_V_INT || vals[i].kind == VFE_V_FLOAT) {
      out[i] = NULL;
      continue;
    }
    *lit = false;
    vir_value *x = vfe_use(c, args[i], vals[i]);
    if (!x)
      return false;
    const vir_type *s = vir_ty_scalar_of(x->type);
    if ((x->type->kind != VIR_TY_VEC && !vir_ty_is_scalar(x->type)) || s->kind == VIR_TY_BOOL) {
      vfe_err(c, args[i], "math.%s() takes numbers, not %s", name, vfe_tyname(c, x->type));
      return false;
    }
    if (s->kind != VIR_TY_FLOAT) { /* Python: an int argument is converted */
      vfe_set_loc(c, args[i]);
      x = vfe_build1(c, VIR_OP_CAST, float_for(c, x->type), x);
    }
    out[i] = x;
    t = t ? vfe_unify(c, call, t, x->type, VFE_WHAT("math.%s()", name)) : x->type;
    if (!t)
      return false;
  }
  if (*lit)
    return true;
  vfe_set_loc(c, call);
  const vir_type *s = vir_ty_scalar_of(t);
  for (uint32_t i = 0; i < n; i++) {
    if (!out[i])
      out[i] = vfe_coerce(c, args[i], vals[i], (vir_type *)s, VFE_WHAT("math.%s()", name));
    else if (vir_ty_scalar_of(out[i]->type) != s)
      out[i] = vfe_build1(c, VIR_OP_CAST, vir_ty_with_scalar(c->m, out[i]->type, (vir_type *)s), out[i]);
    if (!out[i])
      return false;
    if (out[i]->type != t)
      out[i] = vfe_splat(c, out[i], t);
  }
  *tout = t;
  return true;
}

static double lit_f(const vfe_val *v) {
  return v->kind == VFE_V_FLOAT ? v->f : v->big ? (double)v->u : (double)v->i;
}

/* A folded float that became an int (floor, round): it must fit 64 bits. */
static vfe_val int_lit(vfe_ctx *c, const vfe_node *at, double d) {
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
    return vfe_err(c, at, "the result %g is not an integer that fits 64 bits", d);
  return (vfe_val){.kind = VFE_V_INT, .i = (int64_t)d};
}

/* x converted to an int type of its shape (int32, int64 for float64). */
static vir_value *to_int(vfe_ctx *c, vir_value *x) {
  const vir_type *s = vir_ty_scalar_of(x->type);
  vir_type *it = vir_ty_with_scalar(c->m, x->type, vir_ty_int(c->m, s->bits > 32 ? 64 : 32));
  return vfe_build1(c, VIR_OP_CAST, it, x);
}

/* ----------------------------------------------------------- the calls */

static vfe_val py_round(vfe_ctx *c, const vfe_node *call, vfe_node **args, uint32_t n) {
  if (!vfe_arity(c, call, "round", n, 1, 2))
    return (vfe_val){0};
  vfe_val x = vfe_expr(c, args[0]);
  if (x.kind == VFE_V_ERR)
    return x;
  int64_t nd = 0;
  if (n == 2) {
    vfe_val d = vfe_expr(c, args[1]);
    if (d.kind == VFE_V_ERR)
      return d;
    if (d.kind != VFE_V_INT || d.big || d.i < -30 || d.i > 30)
      return vfe_err(c, args[1], "round(x, ndigits): ndigits must be an integer constant from -30 to 30");
    nd = d.i;
  }
  if (x.kind == VFE_V_INT) {
    if (n == 2 && nd < 0)
      return vfe_err(c, call, "round() of an integer to a negative number of digits is not supported");
    return x; /* round(int) is the int */
  }
  if (x.kind == VFE_V_FLOAT) {
    /* nearbyint rounds half to even in the default rounding mode */
    if (n == 1)
      return int_lit(c, call, nearbyint(x.f));
    double p = pow(10.0, (double)(nd < 0 ? -nd : nd));
    return (vfe_val){.kind = VFE_V_FLOAT, .f = nd >= 0 ? nearbyint(x.f * p) / p : nearbyint(x.f / p) * p};
  }
  vir_value *v = vfe_use(c, args[0], x);
  if (!v)
    return (vfe_val){0};
  const vir_type *s = vir_ty_scalar_of(v->type);
  if ((v->type->kind != VIR_TY_VEC && !vir_ty_is_scalar(v->type)) || s->kind == VIR_TY_BOOL)
    return vfe_err(c, args[0], "round() takes a number, not %s", vfe_tyname(c, v->type));
  vfe_set_loc(c, call);
  if (s->kind != VIR_TY_FLOAT) {
    if (n == 2 && nd < 0)
      return vfe_err(c, call, "round() of an integer to a negative number of digits is not supported");
    return vfe_value_of(v);
  }
  if (n == 1)
    return vfe_value_of(to_int(c, vfe_build1(c, VIR_OP_RINT, v->type, v)));
  if (nd == 0)
    return vfe_value_of(vfe_build1(c, VIR_OP_RINT, v->type, v));
  vir_value *p = vfe_const_float(c, (vir_type *)s, pow(10.0, (double)(nd < 0 ? -nd : nd)));
  if (v->type->kind == VIR_TY_VEC)
    p = vfe_splat(c, p, v->type);
  vir_value *scaled = vfe_build2(c, nd > 0 ? VIR_OP_MUL : VIR_OP_DIV, v->type, v, p);
  vir_value *r = vfe_build1(c, VIR_OP_RINT, v->type, scaled);
  return vfe_value_of(vfe_build2(c, nd > 0 ? VIR_OP_DIV : VIR_OP_MUL, v->type, r, p));
}

static vfe_val call_math(vfe_ctx *c, const vfe_node *call, const mathfn *m, vfe_node **args, uint32_t n) {
  uint32_t want = m->fn == M_F2 || m->fn == M_HYPOT || m->fn == M_COPYSIGN ? 2 : 1;
  char full[32];
  snprintf(full, sizeof full, "math.%s", m->name);
  if (m->fn == M_LOG ? !vfe_arity(c, call, full, n, 1, 2) : !vfe_arity(c, call, full, n, want, want))
    return (vfe_val){0};
  vfe_val vals[2] = {{0}};
  vir_value *x[2] = {0};
  vir_type *t = NULL;
  bool lit;
  if (!float_args(c, call, m->name, args, n, vals, &lit, x, &t))
    return (vfe_val){0};
  if (lit) {
    double a = lit_f(&vals[0]), b = n > 1 ? lit_f(&vals[1]) : 0, r;
    switch (m->fn) {
    case M_ISNAN: return (vfe_val){.kind = VFE_V_BOOL, .b = isnan(a)};
    case M_ISINF: return (vfe_val){.kind = VFE_V_BOOL, .b = isinf(a)};
    case M_ISFINITE: return (vfe_val){.kind = VFE_V_BOOL, .b = isfinite(a)};
    case M_TOINT: return int_lit(c, call, m->fold1(a));
    case M_LOG: r = n == 2 ? log(a) / log(b) : log(a); break;
    default: r = m->fold1 ? m->fold1(a) : m->fold2(a, b); break;
    }
    return (vfe_val){.kind = VFE_V_FLOAT, .f = r};
  }
  vfe_set_loc(c, call);
  vir_type *bt = vir_ty_with_scalar(c->m, t, vir_ty_bool(c->m));
  const vir_type *s = vir_ty_scalar_of(t);
  switch (m->fn) {
  case M_TOINT: return vfe_value_of(to_int(c, vfe_build1(c, (vir_opcode)m->vop, t, x[0])));
  case M_F2: return vfe_value_of(vfe_build2(c, (vir_opcode)m->vop, t, x[0], x[1]));
  case M_LOG: {
    vir_value *l = vfe_build1(c, VIR_OP_LOG, t, x[0]);
    if (n == 1)
      return vfe_value_of(l);
    vir_value *lb = vfe_build1(c, VIR_OP_LOG, t, x[1]);
    return vfe_value_of(vfe_build2(c, VIR_OP_DIV, t, l, lb));
  }
  case M_HYPOT: {
    /* max * sqrt(1 + (min / max)^2), as vp.hypot (lower-ufuncs): the squares
     * of sqrt(x*x + y*y) overflow past ~1.8e19 (float32) and underflow below
     * ~1e-19; inf where either is infinite (NaN or not), else NaN where
     * either is NaN (C's hypot) */
    vir_value *k[4];
    const double kv[4] = {0.0, 1.0, NAN, INFINITY};
    for (int i = 0; i < 4; i++) {
      k[i] = vfe_const_float(c, (vir_type *)s, kv[i]);
      if (t->kind == VIR_TY_VEC)
        k[i] = vfe_splat(c, k[i], t);
    }
    vir_value *ax = vfe_build1(c, VIR_OP_ABS, t, x[0]), *ay = vfe_build1(c, VIR_OP_ABS, t, x[1]);
    vir_value *hi = vfe_build2(c, VIR_OP_MAX, t, ax, ay), *lo = vfe_build2(c, VIR_OP_MIN, t, ax, ay);
    vir_value *sel[3] = {vfe_build2(c, VIR_OP_EQ, bt, hi, k[0]), k[1], hi};
    vir_value *q = vfe_build2(c, VIR_OP_DIV, t, lo, vir_result(vfe_build(c, VIR_OP_SELECT, t, 3, sel)));
    vir_value *r = vfe_build2(c, VIR_OP_MUL, t, hi,
                              vfe_build1(c, VIR_OP_SQRT, t,
                                         vfe_build2(c, VIR_OP_ADD, t, k[1], vfe_build2(c, VIR_OP_MUL, t, q, q))));
    vir_value *nan = vfe_build2(c, VIR_OP_LOR, bt,
                                vfe_build1(c, VIR_OP_ISNAN, bt, x[0]), vfe_build1(c, VIR_OP_ISNAN, bt, x[1]));
    vir_value *inf = vfe_build2(c, VIR_OP_LOR, bt,
                                vfe_build1(c, VIR_OP_ISINF, bt, x[0]), vfe_build1(c, VIR_OP_ISINF, bt, x[1]));
    vir_value *s1[3] = {nan, k[2], r};
    r = vir_result(vfe_build(c, VIR_OP_SELECT, t, 3, s1));
    vir_value *s2[3] = {inf, k[3], r};
    return vfe_value_of(vir_result(vfe_build(c, VIR_OP_SELECT, t, 3, s2)));
  }
  case M_DEGREES:
  case M_RADIANS: {
    vir_value *k = vfe_const_float(c, (vir_type *)s, m->fn == M_DEGREES ? 180.0 / M_PI : M_PI / 180.0);
    if (t->kind == VIR_TY_VEC)
      k = vfe_splat(c, k, t);
    return vfe_value_of(vfe_build2(c, VIR_OP_MUL, t, x[0], k));
  }
  case M_COPYSIGN: {
    /* |x| with y's sign bit: -0.0 counts as negative, as in C */
    vir_type *ut = vir_ty_with_scalar(c->m, t, vir_ty_uint(c->m, s->bits));
    vir_value *ax = vfe_build1(c, VIR_OP_BITCAST, ut, x[0]);
    vir_value *by = vfe_build1(c, VIR_OP_BITCAST, ut, x[1]);
    vir_value *mag = vfe_const_int(c, (vir_type *)vir_ty_scalar_of(ut), (int64_t)((1ull << (s->bits - 1)) - 1));
    vir_value *sign = vfe_const_int(c, (vir_type *)vir_ty_scalar_of(ut), (int64_t)(1ull << (s->bits - 1)));
    if (t->kind == VIR_TY_VEC) {
      mag = vfe_splat(c, mag, ut);
      sign = vfe_splat(c, sign, ut);
    }
    vir_value *m = vfe_build2(c, VIR_OP_AND, ut, ax, mag);
    vir_value *sg = vfe_build2(c, VIR_OP_AND, ut, by, sign);
    vir_value *r = vfe_build2(c, VIR_OP_OR, ut, m, sg);
    return vfe_value_of(vfe_build1(c, VIR_OP_BITCAST, t, r));
  }
  case M_ISNAN:
  case M_ISINF: return vfe_value_of(vfe_build1(c, (vir_opcode)m->vop, bt, x[0]));
  case M_ISFINITE: {
    vir_value *nan = vfe_build1(c, VIR_OP_ISNAN, bt, x[0]);
    vir_value *inf = vfe_build1(c, VIR_OP_ISINF, bt, x[0]);
    vir_value *bad = vfe_build2(c, VIR_OP_LOR, bt, nan, inf);
    return vfe_value_of(vfe_build1(c, VIR_OP_LNOT, bt, bad));
  }
  default: /* M_F1 */
    return vfe_value_of(vfe_build1(c, (vir_opcode)m->vop, t, x[0]));
  }
}

vfe_val vfe_call_py(vfe_ctx *c, const vfe_node *call, const vfe_builtin *bi) {
  uint32_t n;
  vfe_node **args = vfe_get_list(call, "args", &n);
  if (bi->op >= 0x100)
    return call_math(c, call, &mathfns[bi->op - 0x100], args, n);
  if (bi->op == PY_ROUND)
    return py_round(c, call, args, n);
  /* pow(a, b) is a ** b: the same typing and folding */
  if (n == 3)
    return vfe_err(c, call, "pow(a, b, mod) is not supported in kernels");
  if (!vfe_arity(c, call, "pow", n, 2, 2))
    return (vfe_val){0};
  vfe_val a = vfe_expr(c, args[0]);
  if (a.kind == VFE_V_PLACE || a.kind == VFE_V_IDVEC) {
    vir_value *v = vfe_use(c, args[0], a);
    a = v ? vfe_value_of(v) : (vfe_val){0};
  }
  vfe_val b = vfe_expr(c, args[1]);
  vfe_set_loc(c, call);
  return vfe_binop(c, call, VFE_AST_Pow, a, args[0], b, args[1]);
}
