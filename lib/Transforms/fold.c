/* fold.c - evaluates an op on scalar constants (canonicalize's folder).
 *
 * Integers are computed on 64 bits and then wrapped to the type's width by
 * vir_lit_normalize, which is two's-complement wrap-around for every width
 * (what GLSL, SPIR-V and CUDA do for add, sub, mul, shl, neg). Whatever the
 * GPU leaves undefined is not folded: division by zero, INT_MIN / -1,
 * shifts by the width or more, float-to-int conversion out of range or of
 * NaN. Float floordiv and mod are not folded either: the back ends spell
 * them floor(a / b) and a - b * floor(a / b), which Python's // and % do
 * not always match, and a fold must give what the unfolded code gives.
 */
#include "transforms.h"

#include <math.h>

/* Integer ops: a and b are the operands' literals, t their type. */
static bool fold_int(vir_opcode code, const vir_type *t, vir_literal a, vir_literal b,
                     vir_literal *r) {
  bool s = t->kind == VIR_TY_INT;
  int64_t ia = a.i, ib = b.i;
  uint64_t ua = a.u, ub = b.u;
  int64_t min = t->bits == 64 ? INT64_MIN : -(INT64_C(1) << (t->bits - 1));
  switch (code) {
  case VIR_OP_ADD: r->u = ua + ub; return true;
  case VIR_OP_SUB: r->u = ua - ub; return true;
  case VIR_OP_MUL: r->u = ua * ub; return true;
  case VIR_OP_DIV:
  case VIR_OP_REM:
  case VIR_OP_FLOORDIV:
  case VIR_OP_MOD:
    if (ub == 0 || (s && ia == min && ib == -1))
      return false;
    if (!s) {
      r->u = code == VIR_OP_DIV || code == VIR_OP_FLOORDIV ? ua / ub : ua % ub;
      return true;
    }
    if (code == VIR_OP_DIV) {
      r->i = ia / ib;
    } else if (code == VIR_OP_REM) {
      r->i = ia % ib;
    } else if (code == VIR_OP_FLOORDIV) {
      int64_t q = ia / ib;
      r->i = (ia % ib != 0 && ((ia < 0) != (ib < 0))) ? q - 1 : q;
    } else {
      int64_t m = ia % ib;
      r->i = (m != 0 && ((m < 0) != (ib < 0))) ? m + ib : m;
    }
    return true;
  case VIR_OP_MIN: r->i = s ? (ia < ib ? ia : ib) : (int64_t)(ua < ub ? ua : ub); return true;
  case VIR_OP_MAX: r->i = s ? (ia > ib ? ia : ib) : (int64_t)(ua > ub ? ua : ub); return true;
  case VIR_OP_AND: r->u = ua & ub; return true;
  case VIR_OP_OR: r->u = ua | ub; return true;
  case VIR_OP_XOR: r->u = ua ^ ub; return true;
  case VIR_OP_SHL:
  case VIR_OP_SHR: {
    if (s && ib < 0)
      return false;
    uint64_t amount = s ? (uint64_t)ib : ub;
    if (amount >= t->bits)
      return false;
    if (code == VIR_OP_SHL)
      r->u = ua << amount;
    else if (s)
      r->i = ia >> amount; /* arithmetic: gcc and clang shift signed values so */
    else
      r->u = ua >> amount;
    return true;
  }
  default: return false;
  }
}

static bool fold_float(vir_opcode code, double a, double b, double c, vir_literal *r) {
  double x;
  switch (code) {
  case VIR_OP_ADD: x = a + b; break;
  case VIR_OP_SUB: x = a - b; break;
  case VIR_OP_MUL: x = a * b; break;
  case VIR_OP_DIV: x = a / b; break;
  case VIR_OP_REM: x = fmod(a, b); break;
  case VIR_OP_MIN:
  case VIR_OP_MAX:
  case VIR_OP_CLAMP:
    if (isnan(a) || isnan(b) || isnan(c))
      return false; /* GLSL leaves NaN operands of min/max undefined */
    x = code == VIR_OP_MIN ? fmin(a, b) : code == VIR_OP_MAX ? fmax(a, b) : fmin(fmax(a, b), c);
    break;
  case VIR_OP_NEG: x = -a; break;
  case VIR_OP_ABS: x = fabs(a); break;
  case VIR_OP_SIGN: x = a > 0 ? 1.0 : a < 0 ? -1.0 : a; break;
  case VIR_OP_SIN: x = sin(a); break;
  case VIR_OP_COS: x = cos(a); break;
  case VIR_OP_TAN: x = tan(a); break;
  case VIR_OP_ASIN: x = asin(a); break;
  case VIR_OP_ACOS: x = acos(a); break;
  case VIR_OP_ATAN: x = atan(a); break;
  case VIR_OP_ATAN2: x = atan2(a, b); break;
  case VIR_OP_SINH: x = sinh(a); break;
  case VIR_OP_COSH: x = cosh(a); break;
  case VIR_OP_TANH: x = tanh(a); break;
  case VIR_OP_ASINH: x = asinh(a); break;
  case VIR_OP_ACOSH: x = acosh(a); break;
  case VIR_OP_ATANH: x = atanh(a); break;
  case VIR_OP_EXP: x = exp(a); break;
  case VIR_OP_EXP2: x = exp2(a); break;
  case VIR_OP_EXPM1: x = expm1(a); break;
  case VIR_OP_LOG: x = log(a); break;
  case VIR_OP_LOG2: x = log2(a); break;
  case VIR_OP_LOG10: x = log10(a); break;
  case VIR_OP_LOG1P: x = log1p(a); break;
  case VIR_OP_POW: x = pow(a, b); break;
  case VIR_OP_SQRT: x = sqrt(a); break;
  case VIR_OP_RSQRT: x = 1.0 / sqrt(a); break;
  case VIR_OP_CBRT: x = cbrt(a); break;
  case VIR_OP_FLOOR: x = floor(a); break;
  case VIR_OP_CEIL: x = ceil(a); break;
  case VIR_OP_TRUNC: x = trunc(a); break;
  case VIR_OP_ROUND: x = round(a); break;
  case VIR_OP_RINT: x = nearbyint(a); break; /* default rounding: ties to even */
  case VIR_OP_FRACT: x = a - floor(a); break;
  case VIR_OP_STEP: x = b < a ? 0.0 : 1.0; break;
  case VIR_OP_MIX: x = a * (1.0 - c) + b * c; break;
  case VIR_OP_FMA: x = fma(a, b, c); break;
  default: return false;
  }
  r->f = x;
  return true;
}

static bool fold_cmp(vir_opcode code, const vir_type *t, vir_literal a, vir_literal b, vir_literal *r) {
  int cmp; /* -1, 0, 1; 2 = unordered */
  if (t->kind == VIR_TY_FLOAT)
    cmp = isnan(a.f) || isnan(b.f) ? 2 : a.f < b.f ? -1 : a.f > b.f;
  else if (t->kind == VIR_TY_INT)
    cmp = a.i < b.i ? -1 : a.i > b.i;
  else if (t->kind == VIR_TY_UINT)
    cmp = a.u < b.u ? -1 : a.u > b.u;
  else
    cmp = a.b == b.b ? 0 : 1; /* bool: only eq / ne make sense */
  switch (code) {
  case VIR_OP_EQ: r->b = cmp == 0; return true;
  case VIR_OP_NE: r->b = cmp != 0; return true; /* NaN != x is true */
  case VIR_OP_LT: r->b = cmp == -1; return t->kind != VIR_TY_BOOL;
  case VIR_OP_LE: r->b = cmp == -1 || cmp == 0; return t->kind != VIR_TY_BOOL;
  case VIR_OP_GT: r->b = cmp == 1; return t->kind != VIR_TY_BOOL;
  case VIR_OP_GE: r->b = cmp == 1 || cmp == 0; return t->kind != VIR_TY_BOOL;
  default: return false;
  }
}

bool vir_fold_cast(const vir_type *to, const vir_type *from, vir_literal a, vir_literal *r) {
  *r = (vir_literal){0};
  if (to->kind == VIR_TY_BOOL) {
    r->b = from->kind == VIR_TY_FLOAT ? a.f != 0 : from->kind == VIR_TY_BOOL ? a.b : a.u != 0;
    return true;
  }
  if (to->kind == VIR_TY_FLOAT) {
    r->f = from->kind == VIR_TY_FLOAT  ? a.f
           : from->kind == VIR_TY_INT  ? (double)a.i
           : from->kind == VIR_TY_UINT ? (double)a.u
                                       : (a.b ? 1.0 : 0.0);
    /* u64/i64 -> f32 through double can round twice; leave those alone */
    if (from->kind != VIR_TY_FLOAT && from->bits == 64 && to->bits != 64)
      return false;
    *r = vir_lit_normalize(to, *r);
    return true;
  }
  /* to an integer */
  if (from->kind == VIR_TY_BOOL) {
    r->u = a.b ? 1 : 0;
    return true;
  }
  if (from->kind == VIR_TY_FLOAT) {
    if (isnan(a.f))
      return false;
    double t = trunc(a.f);
    if (to->kind == VIR_TY_UINT && t < 0) {
      /* through the signed type, as the emitted vp_f2u (pyops.c) */
      if (!(t >= -ldexp(1, to->bits == 64 ? 63 : 31)))
        return false;
      r->u = (uint64_t)(int64_t)t;
      *r = vir_lit_normalize(to, *r);
      return true;
    }
    double lo = to->kind == VIR_TY_INT ? -ldexp(1, to->bits - 1) : 0;
    double hi = to->kind == VIR_TY_INT ? ldexp(1, to->bits - 1) : ldexp(1, to->bits);
    if (!(t >= lo && t < hi))
      return false; /* undefined on the GPU */
    if (to->kind == VIR_TY_INT)
      r->i = (int64_t)t;
    else
      r->u = (uint64_t)t;
    return true;
  }
  r->u = a.u; /* int <-> int: wrap (normalize sign- or zero-extends) */
  *r = vir_lit_normalize(to, *r);
  return true;
}

bool vir_fold(vir_opcode code, const vir_type *rt, const vir_type *ot, const vir_literal *v,
              uint32_t n, vir_literal *out) {
  vir_literal r = {0};
  bool ok = false;
  vir_literal a = n > 0 ? v[0] : (vir_literal){0}, b = n > 1 ? v[1] : (vir_literal){0};
  vir_literal c = n > 2 ? v[2] : (vir_literal){0};
  switch (code) {
  case VIR_OP_EQ:
  case VIR_OP_NE:
  case VIR_OP_LT:
  case VIR_OP_LE:
  case VIR_OP_GT:
  case VIR_OP_GE: ok = n == 2 && fold_cmp(code, ot, a, b, &r); break;
  case VIR_OP_ISNAN: r.b = isnan(a.f); ok = ot->kind == VIR_TY_FLOAT; break;
  case VIR_OP_ISINF: r.b = isinf(a.f); ok = ot->kind == VIR_TY_FLOAT; break;
  case VIR_OP_LAND: r.b = a.b && b.b; ok = true; break;
  case VIR_OP_LOR: r.b = a.b || b.b; ok = true; break;
  case VIR_OP_LNOT: r.b = !a.b; ok = true; break;
  case VIR_OP_CAST: ok = vir_fold_cast(rt, ot, a, &r); break;
  case VIR_OP_SELECT: r = a.b ? b : c; ok = true; break;
  default:
    if (ot->kind == VIR_TY_FLOAT) {
      ok = fold_float(code, a.f, b.f, c.f, &r);
    } else if (ot->kind == VIR_TY_INT || ot->kind == VIR_TY_UINT) {
      if (code == VIR_OP_NEG) {
        r.u = 0 - a.u;
        ok = true;
      } else if (code == VIR_OP_NOT) {
        r.u = ~a.u;
        ok = true;
      } else if (code == VIR_OP_BIT_COUNT) {
        r.u = (uint64_t)__builtin_popcountll(a.u & 0xFFFFFFFFull);
        ok = true;
      } else if (code == VIR_OP_FIND_LSB || code == VIR_OP_FIND_MSB) {
        uint32_t v = (uint32_t)a.u;
        if (code == VIR_OP_FIND_MSB && ot->kind == VIR_TY_INT && (int32_t)v < 0)
          v = ~v; /* a negative int32: its highest clear bit */
        int32_t bit = v == 0                    ? -1
                      : code == VIR_OP_FIND_LSB ? __builtin_ctz(v)
                                                : 31 - __builtin_clz(v);
        if (ot->kind == VIR_TY_INT)
          r.i = bit;
        else
          r.u = (uint32_t)bit;
        ok = true;
      } else if (code == VIR_OP_ABS) {
        r.u = ot->kind == VIR_TY_INT && a.i < 0 ? 0 - a.u : a.u;
        ok = true;
      } else if (code == VIR_OP_SIGN) {
        r.i = ot->kind == VIR_TY_INT ? (a.i > 0) - (a.i < 0) : a.u != 0;
        ok = true;
      } else if (code == VIR_OP_CLAMP) {
        vir_literal t;
        ok = fold_int(VIR_OP_MAX, ot, a, b, &t) && fold_int(VIR_OP_MIN, ot, vir_lit_normalize(ot, t), c, &r);
      } else if (n == 2) {
        ok = fold_int(code, ot, a, b, &r);
      }
    }
  }
  if (!ok)
    return false;
  *out = vir_lit_normalize(rt, r);
  return true;
}
