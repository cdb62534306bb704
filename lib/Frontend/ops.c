/* ops.c - binary operators and comparisons, with Python's meaning.
 *
 * Literal operands fold at compile time with Python's rules (unbounded
 * ints checked against 64 bits, floor division, modulo with the divisor's
 * sign, ** of ints stays an int). Otherwise the literal takes the other
 * operand's type and typed operands meet by types.c's rules. `//` and `%`
 * become VIR's floordiv and mod (Python semantics for negatives); `/` on
 * integers is refused (Python would make a float); `x ** n` with a small
 * constant n becomes multiplications (pow() of a negative base is undefined
 * in GLSL); `@` is the matrix product.
 */
#include <math.h>
#include <string.h>

#include "fe.h"

typedef __int128 i128;

static bool is_lit(const vfe_val *v) {
  return v->kind == VFE_V_INT || v->kind == VFE_V_FLOAT || v->kind == VFE_V_BOOL;
}

static i128 lit_i(const vfe_val *v) { return v->big ? (i128)v->u : (i128)v->i; }

static double lit_f(const vfe_val *v) {
  return v->kind == VFE_V_FLOAT ? v->f : v->kind == VFE_V_INT ? (double)lit_i(v) : v->b;
}

static vfe_val make_int(vfe_ctx *c, const vfe_node *at, i128 x) {
  if (x < (i128)INT64_MIN || x > (i128)UINT64_MAX)
    return vfe_err(c, at, "constant expression does not fit 64 bits");
  vfe_val r = {.kind = VFE_V_INT};
  if (x > (i128)INT64_MAX) {
    r.big = true;
    r.u = (uint64_t)x;
  } else {
    r.i = (int64_t)x;
  }
  return r;
}

static vfe_val make_float(double f) { return (vfe_val){.kind = VFE_V_FLOAT, .f = f}; }

const char *vfe_op_text(vfe_ast op) {
  switch (op) {
  case VFE_AST_Add: return "+";
  case VFE_AST_Sub: return "-";
  case VFE_AST_Mult: return "*";
  case VFE_AST_Div: return "/";
  case VFE_AST_FloorDiv: return "//";
  case VFE_AST_Mod: return "%";
  case VFE_AST_Pow: return "**";
  case VFE_AST_LShift: return "<<";
  case VFE_AST_RShift: return ">>";
  case VFE_AST_BitAnd: return "&";
  case VFE_AST_BitOr: return "|";
  case VFE_AST_BitXor: return "^";
  case VFE_AST_MatMult: return "@";
  case VFE_AST_Eq: return "==";
  case VFE_AST_NotEq: return "!=";
  case VFE_AST_Lt: return "<";
  case VFE_AST_LtE: return "<=";
  case VFE_AST_Gt: return ">";
  case VFE_AST_GtE: return ">=";
  default: return "?";
  }
}

/* Python's floor division and modulo on integers. */
static i128 floordiv_i(i128 a, i128 b) {
  i128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    q--;
  return q;
}

static double mod_f(double a, double b) {
  double r = fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}

static vfe_val fold(vfe_ctx *c, const vfe_node *at, vfe_ast op, vfe_val a, vfe_val b) {
  if (a.kind == VFE_V_BOOL || b.kind == VFE_V_BOOL) {
    if (a.kind == VFE_V_BOOL && b.kind == VFE_V_BOOL) {
      if (op == VFE_AST_BitAnd)
        return (vfe_val){.kind = VFE_V_BOOL, .b = a.b && b.b};
      if (op == VFE_AST_BitOr)
        return (vfe_val){.kind = VFE_V_BOOL, .b = a.b || b.b};
      if (op == VFE_AST_BitXor)
        return (vfe_val){.kind = VFE_V_BOOL, .b = a.b != b.b};
    }
    return vfe_err(c, at, "arithmetic on bool ('%s'): Python treats True as 1; VulPy does not",
                   vfe_op_text(op));
  }
  if (a.kind == VFE_V_INT && b.kind == VFE_V_INT && op != VFE_AST_Div) {
    i128 x = lit_i(&a), y = lit_i(&b), r = 0;
    switch (op) {
    case VFE_AST_Add: r = x + y; break;
    case VFE_AST_Sub: r = x - y; break;
    case VFE_AST_Mult:
      if (__builtin_mul_overflow(x, y, &r))
        return vfe_err(c, at, "constant expression does not fit 64 bits");
      break;
    case VFE_AST_FloorDiv:
    case VFE_AST_Mod:
      if (y == 0)
        return vfe_err(c, at, "division by zero in a constant expression");
      r = op == VFE_AST_FloorDiv ? floordiv_i(x, y) : x - floordiv_i(x, y) * y;
      break;
    case VFE_AST_Pow:
      if (y < 0)
        return make_float(pow((double)x, (double)y));
      if (x == 0 || x == 1 || x == -1) {
        r = y == 0 ? 1 : x == -1 ? ((y & 1) ? -1 : 1) : x;
        break;
      }
      r = 1; /* |x| >= 2: overflows within 64 steps */
      for (i128 k = 0; k < y; k++)
        if (__builtin_mul_overflow(r, x, &r) || r > (i128)UINT64_MAX || r < (i128)INT64_MIN)
          return vfe_err(c, at, "constant expression does not fit 64 bits");
      break;
    case VFE_AST_LShift:
      if (y < 0)
        return vfe_err(c, at, "negative shift count");
      if (x != 0 && y >= 64)
        return vfe_err(c, at, "constant expression does not fit 64 bits");
      r = x == 0 ? 0 : x * ((i128)1 << y);
      break;
    case VFE_AST_RShift:
      if (y < 0)
        return vfe_err(c, at, "negative shift count");
      r = y >= 100 ? (x < 0 ? -1 : 0) : x >> y;
      break;
    case VFE_AST_BitAnd: r = x & y; break;
    case VFE_AST_BitOr: r = x | y; break;
    case VFE_AST_BitXor: r = x ^ y; break;
    default: return vfe_err(c, at, "'%s' is not defined for numbers", vfe_op_text(op));
    }
    return make_int(c, at, r);
  }
  double x = lit_f(&a), y = lit_f(&b);
  switch (op) {
  case VFE_AST_Add: return make_float(x + y);
  case VFE_AST_Sub: return make_float(x - y);
  case VFE_AST_Mult: return make_float(x * y);
  case VFE_AST_Div:
    if (y == 0)
      return vfe_err(c, at, "division by zero in a constant expression");
    return make_float(x / y);
  case VFE_AST_FloorDiv:
  case VFE_AST_Mod:
    if (y == 0)
      return vfe_err(c, at, "division by zero in a constant expression");
    return make_float(op == VFE_AST_FloorDiv ? floor(x / y) : mod_f(x, y));
  case VFE_AST_Pow:
    if (x < 0 && y != floor(y))
      return vfe_err(c, at, "a negative number to a fractional power is complex");
    return make_float(pow(x, y));
  default:
    return vfe_err(c, at, "'%s' needs integers, not floats", vfe_op_text(op));
  }
}

/* ------------------------------------------------------------- typed */

/* Converts a typed value to `t`'s scalar, keeping its shape. */
static vir_value *to_scalar(vfe_ctx *c, vir_value *v, const vir_type *s) {
  if (vir_ty_scalar_of(v->type) == s)
    return v;
  return vfe_build1(c, VIR_OP_CAST, vir_ty_with_scalar(c->m, v->type, (vir_type *)s), v);
}

/* Gives a literal operand the other side's scalar type. */
static vir_value *adapt(vfe_ctx *c, const vfe_node *at, vfe_val lit, const vfe_node *ln,
                        vir_value *other, const vfe_node *on, vfe_ast op) {
  const vir_type *s = vir_ty_scalar_of(other->type);
  if (other->type->kind == VIR_TY_MAT || other->type->kind == VIR_TY_STRUCT ||
      other->type->kind == VIR_TY_ARRAY) {
    vfe_err(c, at, "'%s' is not defined between %s and a number", vfe_op_text(op),
            vfe_tyname(c, other->type));
    if (other->type->kind == VIR_TY_MAT)
      vfe_hint(c, "matrices take part in @ (matrix products) only");
    return NULL;
  }
  if (vfe_lit_is_float(&lit) && s->kind != VIR_TY_FLOAT) {
    vfe_err(c, at, "'%s' mixes %s and a float literal", vfe_op_text(op), vfe_tyname(c, other->type));
    vfe_hint(c, "convert the integer side: %s",
             vfe_cast_hint(c, vir_ty_with_scalar(c->m, other->type, vir_ty_float(c->m, 32)), on));
    return NULL;
  }
  return vfe_coerce(c, ln, lit, (vir_type *)s, VFE_WHAT("'%s'", vfe_op_text(op)));
}

/* A choice of literals (VFE_V_LITSEL) beside a literal or another choice
 * has no typed partner to adapt to: it takes a literal's own type there
 * (float32 / int32). False after an error. */
static bool settle_choices(vfe_ctx *c, vfe_val *a, const vfe_node *an, vfe_val *b, const vfe_node *bn) {
  if (!vfe_adapts(a) || !vfe_adapts(b))
    return true;
  if (a->kind == VFE_V_LITSEL && !(*a = vfe_value_of(vfe_rvalue(c, an, *a))).v)
    return false;
  if (b->kind == VFE_V_LITSEL && !(*b = vfe_value_of(vfe_rvalue(c, bn, *b))).v)
    return false;
  return true;
}

/* x ** n for a constant n in 0..16: square and multiply. */
static vir_value *power(vfe_ctx *c, vir_value *x, uint32_t n) {
  if (n == 0) {
    const vir_type *s = vir_ty_scalar_of(x->type);
    vir_value *one = s->kind == VIR_TY_FLOAT ? vfe_const_float(c, (vir_type *)s, 1)
                                             : vfe_const_int(c, (vir_type *)s, 1);
    return x->type->kind == VIR_TY_VEC ? vfe_splat(c, one, x->type) : one;
  }
  vir_value *result = NULL, *sq = x;
  for (;;) {
    if (n & 1)
      result = result ? vfe_build2(c, VIR_OP_MUL, x->type, result, sq) : sq;
    n >>= 1;
    if (!n)
      return result;
    sq = vfe_build2(c, VIR_OP_MUL, x->type, sq, sq);
  }
}

static vfe_val matmul(vfe_ctx *c, const vfe_node *at, vir_value *x, vir_value *y) {
  const vir_type *a = x->type, *b = y->type;
  vir_type *t = NULL;
  if (vir_ty_scalar_of(a) == vir_ty_scalar_of(b) && vir_ty_is_float(a)) {
    vir_type *s = (vir_type *)vir_ty_scalar_of(a);
    if (a->kind == VIR_TY_MAT && b->kind == VIR_TY_MAT && a->n == b->rows)
      t = vir_ty_mat(c->m, s, b->n, a->rows);
    else if (a->kind == VIR_TY_MAT && b->kind == VIR_TY_VEC && a->n == b->n)
      t = vir_ty_vec(c->m, s, a->rows);
    else if (a->kind == VIR_TY_VEC && b->kind == VIR_TY_MAT && a->n == b->rows)
      t = vir_ty_vec(c->m, s, b->n);
  }
  if (!t) {
    vfe_err(c, at, "'@' is not defined for %s and %s", vfe_tyname(c, a), vfe_tyname(c, b));
    vfe_hint(c, "@ multiplies matrices and vectors of matching sizes and float type");
    return (vfe_val){0};
  }
  return (vfe_val){.kind = VFE_V_VAL, .v = vfe_build2(c, VIR_OP_MATMUL, t, x, y), .type = t};
}

vfe_val vfe_binop(vfe_ctx *c, const vfe_node *at, vfe_ast op, vfe_val a, const vfe_node *an,
                  vfe_val b, const vfe_node *bn) {
  if (a.kind == VFE_V_ERR || b.kind == VFE_V_ERR)
    return (vfe_val){0};
  if (is_lit(&a) && is_lit(&b))
    return fold(c, at, op, a, b);
  if (!settle_choices(c, &a, an, &b, bn))
    return (vfe_val){0};
  vir_value *x = vfe_adapts(&a) ? NULL : vfe_use(c, an, a);
  vir_value *y = vfe_adapts(&b) ? NULL : vfe_use(c, bn, b);
  if ((!vfe_adapts(&a) && !x) || (!vfe_adapts(&b) && !y))
    return (vfe_val){0};
  vfe_set_loc(c, at);
  if (op == VFE_AST_Pow && x && b.kind == VFE_V_INT && !b.big && b.i >= 0 && b.i <= 16 &&
      (vir_ty_is_int(x->type) || vir_ty_is_float(x->type)) && x->type->kind != VIR_TY_MAT)
    return (vfe_val){.kind = VFE_V_VAL, .v = power(c, x, (uint32_t)b.i), .type = x->type};
  vir_value *typed = x ? x : y;
  bool logic = op == VFE_AST_BitAnd || op == VFE_AST_BitOr || op == VFE_AST_BitXor;
  if (vir_ty_is_bool(typed->type) && !logic) {
    vfe_err(c, at, "arithmetic on bool ('%s'): Python treats True as 1; VulPy does not",
            vfe_op_text(op));
    vfe_hint(c, "convert first: %s", vfe_cast_hint(c, vir_ty_with_scalar(c->m, typed->type, vir_ty_uint(c->m, 32)),
                                                   x ? an : bn));
    return (vfe_val){0};
  }
  if (!x)
    x = adapt(c, at, a, an, y, bn, op);
  else if (!y)
    y = adapt(c, at, b, bn, x, an, op);
  if (!x || !y)
    return (vfe_val){0};
  if (op == VFE_AST_MatMult)
    return matmul(c, at, x, y);
  const vir_type *tx = x->type, *ty = y->type;
  if (tx->kind == VIR_TY_MAT || ty->kind == VIR_TY_MAT || tx->kind == VIR_TY_STRUCT ||
      ty->kind == VIR_TY_STRUCT) {
    vfe_err(c, at, "'%s' is not defined for %s and %s", vfe_op_text(op), vfe_tyname(c, tx),
            vfe_tyname(c, ty));
    if (tx->kind == VIR_TY_MAT || ty->kind == VIR_TY_MAT)
      vfe_hint(c, "use @ for matrix products");
    return (vfe_val){0};
  }
  bool shift = op == VFE_AST_LShift || op == VFE_AST_RShift;
  if (shift && vir_ty_is_int(tx) && vir_ty_is_int(ty)) {
    /* The count's signedness does not matter: give it the value's. */
    y = to_scalar(c, y, vir_ty_scalar_of(tx));
    if (y->type->kind == VIR_TY_VEC && tx->kind != VIR_TY_VEC)
      return vfe_err(c, at, "shifting a scalar by a vector");
    if (b.kind == VFE_V_INT && (b.big || b.i < 0 || b.i >= vir_ty_scalar_of(tx)->bits))
      return vfe_err(c, at, "shift count %lld is out of range for %s", (long long)b.i,
                     vfe_tyname(c, tx));
    return (vfe_val){.kind = VFE_V_VAL,
                     .v = vfe_build2(c, op == VFE_AST_LShift ? VIR_OP_SHL : VIR_OP_SHR, x->type, x, y),
                     .type = x->type};
  }
  vir_type *t = vfe_unify(c, at, tx, ty, VFE_WHAT("'%s'", vfe_op_text(op)));
  if (!t)
    return (vfe_val){0};
  const vir_type *s = vir_ty_scalar_of(t);
  x = to_scalar(c, x, s);
  y = to_scalar(c, y, s);
  bool is_float = s->kind == VIR_TY_FLOAT, is_bool = s->kind == VIR_TY_BOOL;
  vir_opcode code;
  switch (op) {
  case VFE_AST_Add: code = VIR_OP_ADD; break;
  case VFE_AST_Sub: code = VIR_OP_SUB; break;
  case VFE_AST_Mult: code = VIR_OP_MUL; break;
  case VFE_AST_FloorDiv: code = VIR_OP_FLOORDIV; break;
  case VFE_AST_Mod: code = VIR_OP_MOD; break;
  case VFE_AST_Div:
    if (!is_float && !is_bool) {
      vfe_err(c, at, "'/' on integers (%s): Python's / makes a float", vfe_tyname(c, t));
      vfe_hint(c, "use // for integer division, or convert first: %s / ...",
               vfe_cast_hint(c, vir_ty_with_scalar(c->m, t, vir_ty_float(c->m, 32)), an));
      return (vfe_val){0};
    }
    code = VIR_OP_DIV;
    break;
  case VFE_AST_Pow:
    if (!is_float) {
      vfe_err(c, at, "'**' on integers needs a constant exponent from 0 to 16");
      vfe_hint(c, "for powers of two write 1 << n; otherwise convert to float");
      return (vfe_val){0};
    }
    if (x->type != t)
      x = vfe_splat(c, x, t);
    if (y->type != t)
      y = vfe_splat(c, y, t);
    code = VIR_OP_POW;
    break;
  case VFE_AST_BitAnd: code = is_bool ? VIR_OP_LAND : VIR_OP_AND; break;
  case VFE_AST_BitOr: code = is_bool ? VIR_OP_LOR : VIR_OP_OR; break;
  case VFE_AST_BitXor:
    if (is_bool)
      return (vfe_val){.kind = VFE_V_VAL, .v = vfe_build2(c, VIR_OP_NE, t, x, y), .type = t};
    code = VIR_OP_XOR;
    break;
  case VFE_AST_LShift:
  case VFE_AST_RShift:
    return vfe_err(c, at, "'%s' needs integers, not %s", vfe_op_text(op), vfe_tyname(c, t));
  default: return vfe_err(c, at, "this operator is not supported");
  }
  if (is_bool && code != VIR_OP_LAND && code != VIR_OP_LOR) {
    /* a guard: the check of bool operands above sees these first */
    vfe_err(c, at, "arithmetic on bool ('%s'): Python treats True as 1; VulPy does not", vfe_op_text(op));
    vfe_hint(c, "convert first: %s", vfe_cast_hint(c, vir_ty_with_scalar(c->m, t, vir_ty_uint(c->m, 32)), an));
    return (vfe_val){0};
  }
  if (is_float && (code == VIR_OP_AND || code == VIR_OP_OR || code == VIR_OP_XOR))
    return vfe_err(c, at, "'%s' needs integers, not %s", vfe_op_text(op), vfe_tyname(c, t));
  if ((code == VIR_OP_LAND || code == VIR_OP_LOR) && (x->type != t || y->type != t)) {
    if (x->type != t)
      x = vfe_splat(c, x, t);
    if (y->type != t)
      y = vfe_splat(c, y, t);
  }
  return (vfe_val){.kind = VFE_V_VAL, .v = vfe_build2(c, code, t, x, y), .type = t};
}

/* ---------------------------------------------------------- compare */

vfe_val vfe_compare(vfe_ctx *c, const vfe_node *at, vfe_ast op, vfe_val a, const vfe_node *an,
                    vfe_val b, const vfe_node *bn) {
  if (a.kind == VFE_V_ERR || b.kind == VFE_V_ERR)
    return (vfe_val){0};
  if (op == VFE_AST_Is || op == VFE_AST_IsNot || op == VFE_AST_In || op == VFE_AST_NotIn) {
    vfe_err(c, at, "'%s' is not supported in kernels",
            op == VFE_AST_Is ? "is" : op == VFE_AST_IsNot ? "is not" : op == VFE_AST_In ? "in" : "not in");
    if (op == VFE_AST_Is || op == VFE_AST_IsNot)
      vfe_hint(c, "compare values with == or !=");
    return (vfe_val){0};
  }
  bool ordered = op != VFE_AST_Eq && op != VFE_AST_NotEq;
  if (is_lit(&a) && is_lit(&b)) {
    bool r;
    if ((a.kind == VFE_V_BOOL) != (b.kind == VFE_V_BOOL) || (ordered && a.kind == VFE_V_BOOL))
      return vfe_err(c, at, "comparing a bool with a number");
    if (a.kind == VFE_V_INT && b.kind == VFE_V_INT) {
      i128 x = lit_i(&a), y = lit_i(&b);
      r = op == VFE_AST_Eq ? x == y : op == VFE_AST_NotEq ? x != y : op == VFE_AST_Lt ? x < y
        : op == VFE_AST_LtE ? x <= y : op == VFE_AST_Gt ? x > y : x >= y;
    } else {
      double x = lit_f(&a), y = lit_f(&b);
      r = op == VFE_AST_Eq ? x == y : op == VFE_AST_NotEq ? x != y : op == VFE_AST_Lt ? x < y
        : op == VFE_AST_LtE ? x <= y : op == VFE_AST_Gt ? x > y : x >= y;
    }
    return (vfe_val){.kind = VFE_V_BOOL, .b = r};
  }
  if (!settle_choices(c, &a, an, &b, bn))
    return (vfe_val){0};
  vir_value *x = vfe_adapts(&a) ? NULL : vfe_use(c, an, a);
  vir_value *y = vfe_adapts(&b) ? NULL : vfe_use(c, bn, b);
  if ((!vfe_adapts(&a) && !x) || (!vfe_adapts(&b) && !y))
    return (vfe_val){0};
  vfe_set_loc(c, at);
  if (!x)
    x = adapt(c, at, a, an, y, bn, op);
  else if (!y)
    y = adapt(c, at, b, bn, x, an, op);
  if (!x || !y)
    return (vfe_val){0};
  vir_type *t = vfe_unify(c, at, x->type, y->type, VFE_WHAT("'%s'", vfe_op_text(op)));
  if (!t)
    return (vfe_val){0};
  if (ordered && vir_ty_is_bool(t))
    return vfe_err(c, at, "'%s' is not defined for bool", vfe_op_text(op));
  const vir_type *s = vir_ty_scalar_of(t);
  if (ordered && s->kind == VIR_TY_UINT) {
    /* `i - 5 < 0` with i unsigned: Python's ints go negative, unsigned
     * ones wrap, so the test never holds (C compilers warn the same) */
    bool zl = is_lit(&a) && a.kind == VFE_V_INT && lit_i(&a) == 0;
    bool zr = is_lit(&b) && b.kind == VFE_V_INT && lit_i(&b) == 0;
    int always = (zr && op == VFE_AST_Lt) || (zl && op == VFE_AST_Gt)     ? 0
                 : (zr && op == VFE_AST_GtE) || (zl && op == VFE_AST_LtE) ? 1
                                                                          : -1;
    if (always >= 0) {
      vfe_warn(c, at, "this comparison of an unsigned value (%s) with 0 is always %s: unsigned "
                      "integers wrap below 0 instead of going negative",
               vfe_tyname(c, t), always ? "True" : "False");
      vfe_hint(c, "compare in a signed type, e.g. vp.int32(i) - 5 < 0, or compare before "
                  "subtracting: i < 5");
    }
  }
  x = to_scalar(c, x, s);
  y = to_scalar(c, y, s);
  if (x->type != t)
    x = vfe_splat(c, x, t);
  if (y->type != t)
    y = vfe_splat(c, y, t);
  static const struct { vfe_ast py; vir_opcode op; } map[] = {
      {VFE_AST_Eq, VIR_OP_EQ}, {VFE_AST_NotEq, VIR_OP_NE}, {VFE_AST_Lt, VIR_OP_LT},
      {VFE_AST_LtE, VIR_OP_LE}, {VFE_AST_Gt, VIR_OP_GT}, {VFE_AST_GtE, VIR_OP_GE}};
  vir_opcode code = VIR_OP_EQ;
  for (unsigned i = 0; i < sizeof map / sizeof map[0]; i++)
    if (map[i].py == op)
      code = map[i].op;
  vir_type *rt = vir_ty_with_scalar(c->m, t, vir_ty_bool(c->m));
  return (vfe_val){.kind = VFE_V_VAL, .v = vfe_build2(c, code, rt, x, y), .type = rt};
}
