/* ufuncs.c - the `lower-ufuncs` pass: NumPy's ufunc semantics, written once.
 *
 * `%r = array.ufunc NAME %a, %b : T` (vulpy/ir/ufuncs.def) becomes the
 * elementwise VIR ops that give numpy.NAME's answer on operands already at
 * the loop dtypes NumPy resolved: minimum/maximum where NaN wins, integer
 * floor_divide/remainder/fmod that give 0 for a zero divisor (undefined on
 * a GPU), integer power by squaring, sign(NaN) == NaN, shifts past the
 * width, ... Eager ufuncs, operators on resident arrays and vp.jit all
 * record array.ufunc (bindings/python/vulpy/_graph.py), and the array
 * compile (vtg_compile_array) runs this pass first, so these rules exist
 * here only; `vulpy-opt --lower-ufuncs` shows the expansion.
 *
 * The ops are built where the array.ufunc was: tensor operands broadcast
 * to their common shape by the op that needs them so, scalars staying
 * scalars until an op needs a tensor of them. 8/16-bit
 * dtypes reach this pass widened to 32 bits (lower-small-types runs first).
 */
#include "transforms.h"

#include <math.h>
#include <string.h>

typedef enum vir_ufunc_rule {
  VIR_UR_MAP,
  VIR_UR_SAFE_INT,
  VIR_UR_FMOD,
  VIR_UR_POWER,
  VIR_UR_NAN_PICK,
  VIR_UR_NAN_SKIP,
  VIR_UR_HYPOT,
  VIR_UR_COPYSIGN,
  VIR_UR_LDEXP,
  VIR_UR_LOGADDEXP,
  VIR_UR_HEAVISIDE,
  VIR_UR_NEXTAFTER,
  VIR_UR_SPACING,
  VIR_UR_BITCOUNT,
  VIR_UR_SHIFT,
  VIR_UR_GCD,
  VIR_UR_LOGICAL,
  VIR_UR_CMP,
  VIR_UR_ABS,
  VIR_UR_IDENTITY,
  VIR_UR_SIGN,
  VIR_UR_RECIPROCAL,
  VIR_UR_FLOAT_ONLY,
  VIR_UR_SQUARE,
  VIR_UR_CLASSIFY,
  VIR_UR_SIGNBIT,
  VIR_UR_SCALE,
} vir_ufunc_rule;

static const struct {
  vir_ufunc_rule rule;
  vir_opcode fop, iop, bop; /* VIR_OP_COUNT: none */
} table[VIR_UFUNC_COUNT] = {
#define VIR_UFUNC(ID, NAME, NIN, RULE, FOP, IOP, BOP) \
  {VIR_UR_##RULE, VIR_OP_##FOP, VIR_OP_##IOP, VIR_OP_##BOP},
#include "vulpy/ir/ufuncs.def"
#undef VIR_UFUNC
};

/* One expansion: the builder sits before the array.ufunc. */
typedef struct ux {
  vir_builder b;
  vir_module *m;
  bool oom;
} ux;

static vir_type *elem(const vir_value *v) { return vir_ty_elem_of(v->type); }
/* tensor type `shape` with element type `e` (NULL shape: the scalar) */
static vir_type *shaped(ux *u, const vir_type *shape, vir_type *e) {
  return shape ? vir_ty_tensor(u->m, e, shape->n, shape->dims) : e;
}
static bool tensor(const vir_value *v) { return vir_ty_is_tensor(v->type); }

/* 'f', 'i', 'u' or 'b': NumPy's kind of an element type */
static char kind(const vir_value *v) {
  const vir_type *t = elem(v);
  return t->kind == VIR_TY_FLOAT ? 'f' : t->kind == VIR_TY_INT ? 'i' : t->kind == VIR_TY_UINT ? 'u' : 'b';
}

static vir_value *built(ux *u, vir_op *op) {
  if (!op) {
    u->oom = true;
    return NULL;
  }
  return &op->val;
}

/* v broadcast to tensor type `shape` (any element type): v itself when it
 * has that shape already */
static vir_value *bcast(ux *u, vir_value *v, const vir_type *shape) {
  if (!v || !shape)
    return v;
  vir_type *t = shaped(u, shape, elem(v));
  if (v->type == t)
    return v;
  return built(u, vir_build(&u->b, VIR_OP_ARRAY_BROADCAST, t, 1, &v));
}

/* The common shape of the tensor operands (NumPy's broadcast), or NULL. */
static const vir_type *common(ux *u, vir_value *const *a, uint32_t n) {
  const vir_type *s = NULL;
  bool same = true;
  unsigned rank = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (!a[i] || !tensor(a[i]))
      continue;
    same = same && (!s || a[i]->type->n == s->n) &&
           (!s || !s->n || !memcmp(a[i]->type->dims, s->dims, s->n * sizeof *s->dims));
    if (!s)
      s = a[i]->type;
    rank = a[i]->type->n > rank ? a[i]->type->n : rank;
  }
  if (!s || same)
    return s;
  uint32_t dims[VIR_MAX_RANK];
  for (unsigned k = 0; k < rank; k++)
    dims[k] = 1;
  for (uint32_t i = 0; i < n; i++) {
    if (!a[i] || !tensor(a[i]))
      continue;
    const vir_type *t = a[i]->type;
    for (unsigned k = 0; k < t->n; k++)
      if (t->dims[k] != 1)
        dims[rank - t->n + k] = t->dims[k];
  }
  return vir_ty_tensor(u->m, elem(a[0]), rank, dims);
}

/* An elementwise op of element type `rt`: tensor operands of another shape
 * are broadcast to the first one's, scalars stay scalars. */
static vir_value *opn(ux *u, vir_opcode code, vir_type *rt, uint32_t n, vir_value **a) {
  for (uint32_t i = 0; i < n; i++)
    if (!a[i])
      return NULL;
  const vir_type *s = common(u, a, n);
  for (uint32_t i = 0; s && i < n; i++)
    if (tensor(a[i]))
      a[i] = bcast(u, a[i], s);
  return built(u, vir_build(&u->b, code, shaped(u, s, rt), n, a));
}

static vir_value *op1(ux *u, vir_opcode code, vir_type *rt, vir_value *a) {
  return opn(u, code, rt, 1, (vir_value *[]){a});
}
static vir_value *op2(ux *u, vir_opcode code, vir_type *rt, vir_value *a, vir_value *b) {
  return opn(u, code, rt, 2, (vir_value *[]){a, b});
}
/* select with scalars left as they are (tensors broadcast) */
static vir_value *select_(ux *u, vir_value *c, vir_value *x, vir_value *y) {
  return x ? opn(u, VIR_OP_SELECT, elem(x), 3, (vir_value *[]){c, x, y}) : NULL;
}
/* select with every operand broadcast to the common shape */
static vir_value *sel(ux *u, vir_value *c, vir_value *x, vir_value *y) {
  vir_value *a[3] = {c, x, y};
  const vir_type *s = common(u, a, 3);
  return select_(u, bcast(u, c, s), bcast(u, x, s), bcast(u, y, s));
}
static vir_value *cast(ux *u, vir_value *v, vir_type *to) {
  return v && elem(v) != to ? op1(u, VIR_OP_CAST, to, v) : v;
}
static vir_value *bitcast(ux *u, vir_value *v, vir_type *to) { return op1(u, VIR_OP_BITCAST, to, v); }

static vir_value *kint(ux *u, vir_type *t, int64_t v) {
  vir_value *r = vir_build_int(&u->b, t, v);
  u->oom |= !r;
  return r;
}
static vir_value *kflt(ux *u, vir_type *t, double v) {
  vir_value *r = vir_build_float(&u->b, t, v);
  u->oom |= !r;
  return r;
}

static vir_type *boolt(ux *u) { return vir_ty_bool(u->m); }
static vir_value *isnan_(ux *u, vir_value *a) { return op1(u, VIR_OP_ISNAN, boolt(u), a); }
static vir_value *isinf_(ux *u, vir_value *a) { return op1(u, VIR_OP_ISINF, boolt(u), a); }

/* the integer type of a float's bits */
static vir_type *bits_type(ux *u, vir_value *f) { return vir_ty_int(u->m, elem(f)->bits); }

/* a op b for integers, 0 where b == 0 (a GPU leaves it undefined) */
static vir_value *int_safe(ux *u, vir_value *a, vir_value *b, vir_opcode code) {
  vir_type *t = elem(a);
  vir_value *zero = kint(u, t, 0), *one = kint(u, t, 1);
  vir_value *bz = op2(u, VIR_OP_EQ, boolt(u), b, zero);
  vir_value *safe = select_(u, bz, tensor(b) ? bcast(u, one, b->type) : one, b);
  vir_value *r = op2(u, code, t, a, safe);
  if (!r)
    return NULL;
  return select_(u, bz, tensor(r) ? bcast(u, zero, r->type) : zero, r);
}

/* square and multiply over the exponent's bits; a negative exponent gives
 * 1 / a**|b| truncated toward zero, as an integer quotient: 1 for a = 1,
 * +-1 for a = -1 (the sign of an odd |b|), 0 otherwise (NumPy raises: the
 * exponents are on the device; the caller raises for host ones) */
static vir_value *int_power(ux *u, vir_value *a, vir_value *b) {
  vir_type *ta = elem(a), *tb = elem(b);
  const vir_type *s = common(u, (vir_value *[]){a, b}, 2);
  vir_value *r = bcast(u, kint(u, ta, 1), s);
  vir_value *base = bcast(u, a, s), *e = bcast(u, b, s);
  vir_value *one = kint(u, tb, 1), *zero = kint(u, tb, 0);
  unsigned bits = ta->bits;
  for (unsigned i = 0; i < bits && !u->oom; i++) {
    vir_value *odd = op2(u, VIR_OP_NE, boolt(u), op2(u, VIR_OP_AND, tb, e, one), zero);
    r = select_(u, odd, op2(u, VIR_OP_MUL, ta, r, base), r);
    if (i + 1 < bits) {
      base = op2(u, VIR_OP_MUL, ta, base, base);
      e = op2(u, VIR_OP_SHR, tb, e, one);
    }
  }
  if (tb->kind == VIR_TY_INT) {
    vir_type *bl = boolt(u);
    vir_value *bb = bcast(u, b, s), *ab = bcast(u, a, s);
    vir_value *neg = op2(u, VIR_OP_LT, bl, bb, zero);
    /* 1 / a**|b|: a**|b| is +-1 only for a = +-1, and then so is r's
     * square-and-multiply over b's bits (two's complement: an odd b has
     * its low bit set, whatever its sign), the quotient itself */
    vir_value *unit = op2(u, VIR_OP_LOR, bl, op2(u, VIR_OP_EQ, bl, ab, kint(u, ta, 1)),
                          ta->kind == VIR_TY_INT ? op2(u, VIR_OP_EQ, bl, ab, kint(u, ta, -1))
                                                 : op2(u, VIR_OP_NE, bl, ab, ab));
    r = select_(u, neg, select_(u, unit, r, bcast(u, kint(u, ta, 0), s)), r);
  }
  return r;
}

/* NumPy's minimum / maximum: a NaN operand wins */
static vir_value *nan_pick(ux *u, vir_value *a, vir_value *b, vir_opcode code) {
  vir_value *m = op2(u, code, elem(a), a, b);
  vir_value *na = isnan_(u, a), *nb = isnan_(u, b);
  return select_(u, na, a, select_(u, nb, b, m));
}

/* fmin / fmax: a NaN operand loses to a number */
static vir_value *nan_skip(ux *u, vir_value *a, vir_value *b, vir_opcode code) {
  vir_value *m = op2(u, code, elem(a), a, b);
  vir_value *na = isnan_(u, a), *nb = isnan_(u, b);
  return sel(u, na, b, sel(u, nb, a, m));
}

static vir_value *nonzero(ux *u, vir_value *a) {
  if (kind(a) == 'b')
    return a;
  return op2(u, VIR_OP_NE, boolt(u), a, kint(u, elem(a), 0));
}

/* the IEEE sign bit (set for -0.0 and negative NaNs) */
static vir_value *signbit_(ux *u, vir_value *a) {
  vir_type *it = bits_type(u, a);
  return op2(u, VIR_OP_LT, boolt(u), bitcast(u, a, it), kint(u, it, 0));
}

static vir_value *fmod_(ux *u, vir_value *a, vir_value *b, vir_type *ot) {
  /* C: fmod(x, +-inf) is x for finite x; x - trunc(x/inf) * inf is NaN */
  vir_value *fin = op1(u, VIR_OP_LNOT, boolt(u),
                       op2(u, VIR_OP_LOR, boolt(u), isnan_(u, a), isinf_(u, a)));
  vir_value *keep = op2(u, VIR_OP_LAND, boolt(u), isinf_(u, b), fin);
  vir_value *r = op2(u, VIR_OP_REM, ot, a, b);
  /* C: a zero result has x's sign (fmod(-1.5, 0.75) is -0.0), made from x's
   * bits: float arithmetic may drop zero signs (lavapipe's -1.5 * 0.0) */
  vir_type *it = bits_type(u, a);
  vir_value *sz = bitcast(u, op2(u, VIR_OP_AND, it, bitcast(u, a, it),
                                 kint(u, it, it->bits == 64 ? INT64_MIN : INT32_MIN)), ot);
  r = sel(u, op2(u, VIR_OP_EQ, boolt(u), r, kflt(u, ot, 0)), sz, r);
  return sel(u, keep, a, r);
}

/* max * sqrt(1 + (min/max)^2): no overflow or underflow of the squares */
static vir_value *hypot_(ux *u, vir_value *a, vir_value *b) {
  vir_type *t = elem(a), *bt = boolt(u);
  vir_value *x = op1(u, VIR_OP_ABS, t, a), *y = op1(u, VIR_OP_ABS, t, b);
  vir_value *m = op2(u, VIR_OP_MAX, t, x, y), *n = op2(u, VIR_OP_MIN, t, x, y);
  vir_value *zero = kflt(u, t, 0), *one = kflt(u, t, 1);
  vir_value *mz = op2(u, VIR_OP_EQ, bt, m, zero);
  vir_value *q = op2(u, VIR_OP_DIV, t, n, sel(u, mz, one, m));
  vir_value *r = op2(u, VIR_OP_MUL, t, m,
                     op1(u, VIR_OP_SQRT, t, op2(u, VIR_OP_ADD, t, one, op2(u, VIR_OP_MUL, t, q, q))));
  vir_value *nan = op2(u, VIR_OP_LOR, bt, isnan_(u, a), isnan_(u, b));
  vir_value *inf = op2(u, VIR_OP_LOR, bt, isinf_(u, a), isinf_(u, b));
  r = sel(u, nan, kflt(u, t, NAN), r);
  return sel(u, inf, kflt(u, t, INFINITY), r);
}

/* 2**k for i32 k in the normal exponent range, from its bits */
static vir_value *pow2(ux *u, vir_value *k, vir_type *ft) {
  vir_type *it = vir_ty_int(u->m, ft->bits);
  int64_t bias = ft->bits == 64 ? 1023 : 127, mant = ft->bits == 64 ? 52 : 23;
  vir_type *i32 = vir_ty_int(u->m, 32);
  vir_value *e = cast(u, op2(u, VIR_OP_ADD, i32, k, kint(u, i32, bias)), it);
  return bitcast(u, op2(u, VIR_OP_SHL, it, e, kint(u, it, mant)), ft);
}

/* float32 a (normal, or zero, inf, NaN) times 2**k (i32) where the result
 * is below 2**-126, rounded half to even from the bits: the 24-bit
 * significand shifted right by 1 - e', e' the result's biased exponent (a
 * carry into the exponent field gives the smallest normal, as it should).
 * *tiny says where that is the answer (a finite nonzero a, e' <= 0). The
 * float multiplications round twice there (ldexp(2.7453535e-36, -15) was
 * 8.3781e-41, one unit of the subnormal grid low), and a device that
 * flushes subnormals gives 0. */
static vir_value *ldexp_subnormal(ux *u, vir_value *a, vir_value *k, vir_value **tiny) {
  vir_type *ft = elem(a), *u32 = vir_ty_uint(u->m, 32), *i32 = vir_ty_int(u->m, 32);
  vir_type *bl = boolt(u);
  vir_value *bits = bitcast(u, a, u32), *one = kint(u, u32, 1);
  vir_value *field = cast(u, op2(u, VIR_OP_AND, u32, op2(u, VIR_OP_SHR, u32, bits,
                                                         kint(u, u32, 23)), kint(u, u32, 0xFF)),
                          i32);
  vir_value *e = op2(u, VIR_OP_ADD, i32, field, k);
  vir_value *finite = op2(u, VIR_OP_LAND, bl, op2(u, VIR_OP_GE, bl, field, kint(u, i32, 1)),
                          op2(u, VIR_OP_LE, bl, field, kint(u, i32, 254)));
  *tiny = op2(u, VIR_OP_LAND, bl, finite, op2(u, VIR_OP_LE, bl, e, kint(u, i32, 0)));
  /* 1 - e' in [1, 25] (25 and more all round to 0: the significand is
   * below 2**24, under half of 2**25); clamped for the lanes not taken */
  vir_value *sh = op2(u, VIR_OP_SUB, i32, kint(u, i32, 1), e);
  sh = op2(u, VIR_OP_MAX, i32, op2(u, VIR_OP_MIN, i32, sh, kint(u, i32, 25)), kint(u, i32, 1));
  vir_value *shu = cast(u, sh, u32);
  vir_value *m = op2(u, VIR_OP_OR, u32, op2(u, VIR_OP_AND, u32, bits, kint(u, u32, 0x7FFFFF)),
                     kint(u, u32, 0x800000));
  vir_value *q = op2(u, VIR_OP_SHR, u32, m, shu);
  vir_value *rem = op2(u, VIR_OP_AND, u32, m,
                       op2(u, VIR_OP_SUB, u32, op2(u, VIR_OP_SHL, u32, one, shu), one));
  vir_value *half = op2(u, VIR_OP_SHL, u32, one, op2(u, VIR_OP_SUB, u32, shu, one));
  vir_value *odd = op2(u, VIR_OP_NE, bl, op2(u, VIR_OP_AND, u32, q, one), kint(u, u32, 0));
  vir_value *up = op2(u, VIR_OP_LOR, bl, op2(u, VIR_OP_GT, bl, rem, half),
                      op2(u, VIR_OP_LAND, bl, op2(u, VIR_OP_EQ, bl, rem, half), odd));
  q = op2(u, VIR_OP_ADD, u32, q, sel(u, up, one, kint(u, u32, 0)));
  q = op2(u, VIR_OP_OR, u32, q, op2(u, VIR_OP_AND, u32, bits, kint(u, u32, 0x80000000u)));
  return bitcast(u, q, ft);
}

/* a * 2**b as three exact power-of-two factors (each exponent within the
 * normal range): exact wherever the result is a normal number. A float32
 * subnormal a is taken from its bits, as its integer fraction times
 * 2**-149 (the fraction converts exactly): a device that flushes float32
 * subnormals reads one as 0 in any float operation, and ldexp(1e-45, 64)
 * must be 2**-85 there too (the complex functions scale tiny parts so);
 * a float32 result below 2**-126 is made from the bits (ldexp_subnormal). */
static vir_value *ldexp_(ux *u, vir_value *a, vir_value *b) {
  vir_type *ft = elem(a), *bt = elem(b), *i32 = vir_ty_int(u->m, 32);
  int64_t lim = ft->bits == 64 ? 2100 : 300;
  vir_value *lo = op2(u, VIR_OP_MAX, bt, b, kint(u, bt, -lim));
  vir_value *kb = op2(u, VIR_OP_MIN, bt, lo, kint(u, bt, lim));
  vir_value *k = cast(u, kb, i32);
  if (ft->bits == 32) {
    vir_type *u32 = vir_ty_uint(u->m, 32), *bl = boolt(u);
    vir_value *bits = bitcast(u, a, u32);
    vir_value *frac = op2(u, VIR_OP_AND, u32, bits, kint(u, u32, 0x7FFFFF));
    vir_value *field = op2(u, VIR_OP_AND, u32, bits, kint(u, u32, 0x7F800000));
    vir_value *sub = op2(u, VIR_OP_LAND, bl, op2(u, VIR_OP_EQ, bl, field, kint(u, u32, 0)),
                         op2(u, VIR_OP_NE, bl, frac, kint(u, u32, 0)));
    vir_value *m = bitcast(u, cast(u, frac, ft), u32); /* |a| * 2**149, a normal float */
    m = op2(u, VIR_OP_OR, u32, m, op2(u, VIR_OP_AND, u32, bits, kint(u, u32, 0x80000000u)));
    a = sel(u, sub, bitcast(u, m, ft), a);
    k = sel(u, sub, op2(u, VIR_OP_SUB, i32, k, kint(u, i32, 149)), k);
  }
  vir_value *three = kint(u, i32, 3), *two = kint(u, i32, 2);
  vir_value *k1 = op2(u, VIR_OP_DIV, i32, k, three);
  vir_value *r1 = op2(u, VIR_OP_SUB, i32, k, k1);
  vir_value *k2 = op2(u, VIR_OP_DIV, i32, r1, two);
  vir_value *k3 = op2(u, VIR_OP_SUB, i32, r1, k2);
  vir_value *r = a, *ks[3] = {k1, k2, k3};
  for (int i = 0; i < 3; i++)
    r = op2(u, VIR_OP_MUL, ft, r, pow2(u, ks[i], ft));
  if (ft->bits == 32) {
    vir_value *tiny, *q = ldexp_subnormal(u, a, k, &tiny);
    r = sel(u, tiny, q, r);
  }
  return r;
}

/* max + log1p(exp(-|a - b|)); equal operands (the infinities too) give
 * a + log(2), NaN gives NaN, as NumPy's npy_logaddexp. base2: logaddexp2,
 * max + log1p(exp2(-|a - b|)) / log(2), equal operands a + 1 (npy_logaddexp2) */
static vir_value *logaddexp_(ux *u, vir_value *a, vir_value *b, bool base2) {
  vir_type *t = elem(a), *bt = boolt(u);
  vir_value *m = op2(u, VIR_OP_MAX, t, a, b);
  vir_value *d = op1(u, VIR_OP_ABS, t, op2(u, VIR_OP_SUB, t, a, b));
  vir_value *e = op1(u, base2 ? VIR_OP_EXP2 : VIR_OP_EXP, t, op1(u, VIR_OP_NEG, t, d));
  vir_value *l = op1(u, VIR_OP_LOG1P, t, e);
  if (base2)
    l = op2(u, VIR_OP_MUL, t, l, kflt(u, t, M_LOG2E));
  vir_value *r = op2(u, VIR_OP_ADD, t, m, l);
  vir_value *nan = op2(u, VIR_OP_LOR, bt, isnan_(u, a), isnan_(u, b));
  r = sel(u, nan, kflt(u, t, NAN), r);
  vir_value *same = op2(u, VIR_OP_ADD, t, a, kflt(u, t, base2 ? 1.0 : M_LN2));
  return sel(u, op2(u, VIR_OP_EQ, bt, a, b), same, r);
}

/* NumPy's npy_heaviside: 0 below zero, x2 at zero (-0.0 too), 1 above,
 * a NaN x1 itself. x1's sign is read from its bits (as an integer, a
 * positive float is > 0 and a negative one < 0 except -0.0, the least
 * integer), so a subnormal x1 counts as nonzero on a device that flushes
 * them in float compares; selects only, so x2 and NaN keep their bits. */
static vir_value *heaviside_(ux *u, vir_value *a, vir_value *b) {
  vir_type *t = elem(a), *it = bits_type(u, a), *bt = boolt(u);
  vir_value *ib = bitcast(u, a, it), *izero = kint(u, it, 0);
  vir_value *neg0 = kint(u, it, t->bits == 64 ? INT64_MIN : INT32_MIN);
  vir_value *pos = op2(u, VIR_OP_GT, bt, ib, izero);
  vir_value *neg = op2(u, VIR_OP_LAND, bt, op2(u, VIR_OP_LT, bt, ib, izero),
                       op2(u, VIR_OP_NE, bt, ib, neg0));
  vir_value *zero = kflt(u, t, 0.0);
  vir_value *r = sel(u, pos, kflt(u, t, 1.0), b);
  r = sel(u, neg, zero, r);
  return sel(u, isnan_(u, a), a, r);
}

/* A float's bits as a signed integer whose order is the float order:
 * the bits of a number >= +0, minus the magnitude bits of a negative one
 * (-0.0 and +0.0 both give 0). NaN has no place (callers select it). */
static vir_value *order_key(ux *u, vir_value *a) {
  vir_type *it = bits_type(u, a), *bt = boolt(u);
  int64_t min = elem(a)->bits == 64 ? INT64_MIN : INT32_MIN;
  vir_value *ib = bitcast(u, a, it);
  vir_value *neg = op2(u, VIR_OP_LT, bt, ib, kint(u, it, 0));
  return sel(u, neg, op2(u, VIR_OP_SUB, it, kint(u, it, min), ib), ib);
}

/* NumPy's nextafter: x2 where x1 == x2 (so +-0 toward -+0 gives x2),
 * else one step of x1's order key toward x2's (a key < 0, or a step from
 * a negative x1 onto 0, maps back to a negative number: -0.0 there), NaN
 * where either is NaN.
 * Integer operations only: exact where float compares flush subnormals. */
static vir_value *nextafter_(ux *u, vir_value *a, vir_value *b) {
  vir_type *t = elem(a), *it = bits_type(u, a), *bt = boolt(u);
  int64_t min = t->bits == 64 ? INT64_MIN : INT32_MIN;
  vir_value *ka = order_key(u, a), *kb = order_key(u, b);
  vir_value *step = sel(u, op2(u, VIR_OP_GT, bt, kb, ka), kint(u, it, 1), kint(u, it, -1));
  vir_value *kn = op2(u, VIR_OP_ADD, it, ka, step);
  /* a step onto zero from below is -0.0 (x1's sign kept, as NumPy) */
  vir_value *neg = op2(u, VIR_OP_LOR, bt, op2(u, VIR_OP_LT, bt, kn, kint(u, it, 0)),
                       op2(u, VIR_OP_LT, bt, ka, kint(u, it, 0)));
  vir_value *ib = sel(u, neg, op2(u, VIR_OP_SUB, it, kint(u, it, min), kn), kn);
  vir_value *r = sel(u, op2(u, VIR_OP_EQ, bt, ka, kb), b, bitcast(u, ib, t));
  vir_value *nan = op2(u, VIR_OP_LOR, bt, isnan_(u, a), isnan_(u, b));
  return sel(u, nan, kflt(u, t, NAN), r);
}

/* NumPy's spacing: the gap from |x| to the next number up, with x's sign
 * (positive for both zeros), built from the exponent field e alone:
 * e > mant bits: a normal number (e - mant) << mant; 0 < e <= mant bits:
 * the subnormal 1 << (e - 1); e == 0: the least subnormal; the largest
 * finite number: inf (NumPy's overflow); inf and NaN: NaN. */
static vir_value *spacing_(ux *u, vir_value *a) {
  vir_type *t = elem(a), *it = bits_type(u, a), *bt = boolt(u);
  bool d = t->bits == 64;
  int64_t mant = d ? 52 : 23, emax = d ? 2046 : 254;
  int64_t min = d ? INT64_MIN : INT32_MIN, inf = d ? INT64_C(0x7ff0000000000000) : 0x7f800000;
  vir_value *ib = bitcast(u, a, it);
  vir_value *mag = op2(u, VIR_OP_AND, it, ib, kint(u, it, ~min));
  vir_value *e = op2(u, VIR_OP_SHR, it, mag, kint(u, it, mant));
  vir_value *one = kint(u, it, 1);
  /* both forms are computed for every e: their operands are clamped so
   * that neither shifts a negative number or by the width or more */
  vir_value *zero = kint(u, it, 0), *mk = kint(u, it, mant);
  vir_value *normal = op2(u, VIR_OP_SHL, it,
                          op2(u, VIR_OP_MAX, it, op2(u, VIR_OP_SUB, it, e, mk), zero), mk);
  vir_value *sub = op2(u, VIR_OP_SHL, it, one,
                       op2(u, VIR_OP_MIN, it,
                           op2(u, VIR_OP_MAX, it, op2(u, VIR_OP_SUB, it, e, one), zero), mk));
  vir_value *r = sel(u, op2(u, VIR_OP_GT, bt, e, kint(u, it, mant)), normal, sub);
  r = sel(u, op2(u, VIR_OP_EQ, bt, e, zero), one, r);
  r = sel(u, op2(u, VIR_OP_EQ, bt, mag, kint(u, it, inf - 1)), kint(u, it, inf), r);
  vir_value *neg = op2(u, VIR_OP_LAND, bt, op2(u, VIR_OP_LT, bt, ib, zero),
                       op2(u, VIR_OP_NE, bt, mag, zero));
  r = sel(u, neg, op2(u, VIR_OP_OR, it, r, kint(u, it, min)), r);
  vir_value *bad = op2(u, VIR_OP_GT, bt, e, kint(u, it, emax));
  return sel(u, bad, kflt(u, t, NAN), bitcast(u, r, t));
}

/* NumPy: a count outside [0, bits) gives 0 (a right shift of a negative
 * number: -1); C and the GPU leave it undefined */
static vir_value *shift(ux *u, vir_value *a, vir_value *b, vir_opcode code) {
  vir_type *t = elem(a);
  vir_type *ut = vir_ty_uint(u->m, t->bits);
  vir_value *ok = op2(u, VIR_OP_LT, boolt(u), cast(u, b, ut), kint(u, ut, t->bits));
  vir_value *cnt = sel(u, ok, b, kint(u, elem(b), 0));
  vir_value *r = op2(u, code, t, a, cnt);
  vir_value *far = kint(u, t, 0);
  if (code == VIR_OP_SHR && t->kind == VIR_TY_INT) {
    vir_value *neg = op2(u, VIR_OP_LT, boolt(u), a, kint(u, t, 0));
    far = sel(u, neg, kint(u, t, -1), far);
  }
  return sel(u, ok, r, far);
}

/* |x| as the unsigned type of x's width (INT_MIN's is 2^(bits-1)), as
 * NumPy's npy_gcd / npy_lcm take their operands */
static vir_value *magnitude(ux *u, vir_value *x) {
  vir_type *t = elem(x), *ut = vir_ty_uint(u->m, t->bits);
  vir_value *m = cast(u, x, ut);
  if (t->kind != VIR_TY_INT)
    return m;
  vir_value *neg = op2(u, VIR_OP_LT, boolt(u), x, kint(u, t, 0));
  return sel(u, neg, op2(u, VIR_OP_SUB, ut, kint(u, ut, 0), m), m);
}

/* NumPy's npy_gcdu of unsigned a and b, Euclid unrolled (the array level
 * has no loops): numbers below 2**32 need at most 46 steps, below 2**64
 * at most 92 (Fibonacci bound) */
static vir_value *gcdu(ux *u, vir_value *a, vir_value *b) {
  const vir_type *s = common(u, (vir_value *[]){a, b}, 2);
  a = bcast(u, a, s);
  b = bcast(u, b, s);
  vir_type *t = elem(a);
  vir_value *zero = kint(u, t, 0), *one = kint(u, t, 1);
  for (int i = 0, n = t->bits <= 32 ? 47 : 93; i < n && !u->oom; i++) {
    vir_value *bz = op2(u, VIR_OP_EQ, boolt(u), b, zero);
    vir_value *r = op2(u, VIR_OP_REM, t, a, sel(u, bz, one, b));
    vir_value *na = sel(u, bz, a, b);
    b = sel(u, bz, b, r);
    a = na;
  }
  return a;
}

/* NumPy's npy_gcd: the unsigned gcd of the magnitudes, cast back (so
 * gcd(INT_MIN, INT_MIN) is INT_MIN and gcd(6, INT_MIN) is 2) */
static vir_value *gcd_(ux *u, vir_value *a, vir_value *b) {
  vir_type *t = elem(a);
  return cast(u, gcdu(u, magnitude(u, a), magnitude(u, b)), t);
}

/* NumPy's bitwise_count: the set bits of |x| (a signed x's magnitude;
 * INT_MIN's is its own bits), counted 32 bits at a time, in the output type */
static vir_value *bitcount_(ux *u, vir_value *a, vir_type *ot) {
  vir_type *t = elem(a), *u32 = vir_ty_uint(u->m, 32);
  if (t->kind == VIR_TY_INT)
    a = op1(u, VIR_OP_ABS, t, a);
  a = cast(u, a, vir_ty_uint(u->m, t->bits));
  vir_value *n = op1(u, VIR_OP_BIT_COUNT, u32, cast(u, a, u32));
  if (t->bits == 64) {
    vir_type *u64 = elem(a);
    vir_value *hi = cast(u, op2(u, VIR_OP_SHR, u64, a, kint(u, u64, 32)), u32);
    n = op2(u, VIR_OP_ADD, u32, n, op1(u, VIR_OP_BIT_COUNT, u32, hi));
  }
  return cast(u, n, ot);
}

/* NumPy's npy_lcm: |a| / gcd * |b| in the unsigned type, wrapping, cast
 * back; 0 where the gcd is 0 (a and b both 0; the divisor made 1 there,
 * so the GPU never divides by 0) */
static vir_value *lcm_(ux *u, vir_value *a, vir_value *b) {
  vir_type *t = elem(a), *bt = boolt(u);
  vir_value *ma = magnitude(u, a), *mb = magnitude(u, b);
  vir_value *g = gcdu(u, ma, mb);
  vir_type *ut = elem(g);
  vir_value *zero = kint(u, ut, 0);
  vir_value *gz = op2(u, VIR_OP_EQ, bt, g, zero);
  vir_value *q = op2(u, VIR_OP_DIV, ut, ma, sel(u, gz, kint(u, ut, 1), g));
  vir_value *r = op2(u, VIR_OP_MUL, ut, q, mb);
  return cast(u, sel(u, gz, zero, r), t);
}

/* A comparison of a signed and an unsigned integer, exact as NumPy's (its
 * (int64, uint64) loops): both as unsigned of the wider width, where a
 * negative signed operand decides alone. */
static vir_value *mixed_cmp(ux *u, vir_value *a, vir_value *b, vir_opcode code) {
  bool signed_left = elem(a)->kind == VIR_TY_INT;
  vir_value *s = signed_left ? a : b;
  unsigned bits = elem(a)->bits > elem(b)->bits ? elem(a)->bits : elem(b)->bits;
  vir_type *ut = vir_ty_uint(u->m, bits), *bt = boolt(u);
  vir_value *neg = op2(u, VIR_OP_LT, bt, s, kint(u, elem(s), 0));
  vir_value *c = op2(u, code, bt, cast(u, a, ut), cast(u, b, ut));
  /* true for a negative signed operand: a != b, and a < b (a <= b) when a
   * is the signed one, a > b (a >= b) when b is */
  bool neg_true = code == VIR_OP_NE ||
                  ((code == VIR_OP_LT || code == VIR_OP_LE) ? signed_left
                   : (code == VIR_OP_GT || code == VIR_OP_GE) ? !signed_left : false);
  return neg_true ? op2(u, VIR_OP_LOR, bt, neg, c)
                  : op2(u, VIR_OP_LAND, bt, op1(u, VIR_OP_LNOT, bt, neg), c);
}

/* The value of array.ufunc `op` built before it, or NULL: *why says what
 * is wrong (NULL with u->oom for out of memory). */
static vir_value *expand(ux *u, const vir_op *op, const char **why) {
  vir_ufunc id = (vir_ufunc)op->attr.index;
  vir_value *a = op->opnd[0], *b = op->nopnd > 1 ? op->opnd[1] : NULL;
  vir_type *ot = elem(&((vir_op *)op)->val), *bt = boolt(u);
  char k = kind(a);
  vir_opcode fop = table[id].fop, iop = table[id].iop, bop = table[id].bop;
  vir_opcode by_kind = k == 'f' ? fop : k == 'b' ? bop : iop;
  *why = NULL;
  switch (table[id].rule) {
  case VIR_UR_MAP:
    if (by_kind == VIR_OP_COUNT)
      break;
    return opn(u, by_kind, ot, op->nopnd, (vir_value *[]){a, b});
  case VIR_UR_SAFE_INT:
  case VIR_UR_FMOD:
    if (k == 'b')
      break;
    if (k != 'f')
      return int_safe(u, a, b, iop);
    return table[id].rule == VIR_UR_FMOD ? fmod_(u, a, b, ot) : op2(u, fop, ot, a, b);
  case VIR_UR_POWER: {
    if (k == 'b')
      break;
    if (k != 'f')
      return int_power(u, a, b);
    vir_value *r = op2(u, fop, ot, a, b);
    if (tensor(b))
      return r;
    /* a scalar exponent (NumPy's loop with a zero stride there): 0.5 is
     * sqrt, so (-0.0) ** 0.5 = -0.0 and (-inf) ** 0.5 = NaN, where C99's
     * pow (an array exponent) gives 0.0 and inf */
    vir_value *half = op2(u, VIR_OP_EQ, bt, b, kflt(u, elem(b), 0.5));
    return select_(u, half, op1(u, VIR_OP_SQRT, ot, a), r);
  }
  case VIR_UR_NAN_PICK:
  case VIR_UR_NAN_SKIP:
    if (k == 'f')
      return table[id].rule == VIR_UR_NAN_PICK ? nan_pick(u, a, b, fop) : nan_skip(u, a, b, fop);
    return op2(u, by_kind, k == 'b' ? bt : ot, a, b);
  case VIR_UR_HYPOT:
    if (k == 'f')
      return hypot_(u, a, b);
    break;
  case VIR_UR_COPYSIGN:
    if (k == 'f') {
      vir_value *x = op1(u, VIR_OP_ABS, elem(a), a);
      vir_value *neg = signbit_(u, b);
      return sel(u, neg, op1(u, VIR_OP_NEG, elem(a), x), x);
    }
    break;
  case VIR_UR_LDEXP:
    if (k == 'f' && (kind(b) == 'i' || kind(b) == 'u'))
      return ldexp_(u, a, b);
    break;
  case VIR_UR_LOGADDEXP:
    if (k == 'f')
      return logaddexp_(u, a, b, id == VIR_UFUNC_LOGADDEXP2);
    break;
  case VIR_UR_HEAVISIDE:
    if (k == 'f')
      return heaviside_(u, a, b);
    break;
  case VIR_UR_NEXTAFTER:
    if (k == 'f')
      return nextafter_(u, a, b);
    break;
  case VIR_UR_BITCOUNT:
    if (k == 'i' || k == 'u')
      return bitcount_(u, a, ot);
    break;
  case VIR_UR_SPACING:
    if (k == 'f')
      return spacing_(u, a);
    break;
  case VIR_UR_SHIFT:
    if (k == 'i' || k == 'u')
      return shift(u, a, b, iop);
    break;
  case VIR_UR_GCD:
    if (k == 'i' || k == 'u')
      return id == VIR_UFUNC_LCM ? lcm_(u, a, b) : gcd_(u, a, b);
    break;
  case VIR_UR_LOGICAL:
    if (op->nopnd == 1)
      return op1(u, bop, bt, nonzero(u, a));
    a = nonzero(u, a);
    b = nonzero(u, b);
    return op2(u, bop, bt, a, b);
  case VIR_UR_CMP:
    if ((k == 'i' && kind(b) == 'u') || (k == 'u' && kind(b) == 'i'))
      return mixed_cmp(u, a, b, fop);
    if (k == 'b' && fop != VIR_OP_EQ && fop != VIR_OP_NE) {
      /* false < true, as NumPy orders bools */
      a = cast(u, a, vir_ty_uint(u->m, 32));
      b = cast(u, b, vir_ty_uint(u->m, 32));
    }
    return op2(u, fop, bt, a, b);
  case VIR_UR_ABS:
    return k == 'u' || k == 'b' ? a : op1(u, fop, ot, a);
  case VIR_UR_IDENTITY:
    if (k == 'b')
      break;
    return a;
  case VIR_UR_SIGN:
    if (k == 'f') {
      vir_value *nan = isnan_(u, a);
      return select_(u, nan, a, op1(u, VIR_OP_SIGN, ot, a));
    }
    if (k == 'u')
      return op2(u, VIR_OP_MIN, ot, a, kint(u, elem(a), 1));
    if (k == 'i')
      return op1(u, VIR_OP_SIGN, ot, a);
    break;
  case VIR_UR_RECIPROCAL: {
    if (k == 'f')
      return op2(u, VIR_OP_DIV, ot, kflt(u, elem(a), 1), a);
    if (k == 'b')
      break;
    /* 1/x truncated: x for 1 (and -1), else 0 */
    vir_type *t = elem(a);
    vir_value *one = kint(u, t, 1);
    vir_value *is1 = op2(u, VIR_OP_EQ, bt, a, one);
    vir_value *r = select_(u, is1, a, op2(u, VIR_OP_SUB, t, a, a));
    if (k == 'i') {
      vir_value *m1 = kint(u, t, -1);
      r = select_(u, op2(u, VIR_OP_EQ, bt, a, m1), a, r);
    }
    return r;
  }
  case VIR_UR_FLOAT_ONLY:
    return k == 'f' ? op1(u, fop, ot, a) : a;
  case VIR_UR_SQUARE:
    return k == 'b' ? a : op2(u, VIR_OP_MUL, ot, a, a);
  case VIR_UR_CLASSIFY:
    if (k != 'f') {
      vir_value *c = kint(u, bt, id == VIR_UFUNC_ISFINITE);
      return tensor(a) ? bcast(u, c, a->type) : c;
    }
    if (id == VIR_UFUNC_ISFINITE) {
      vir_value *bad = op2(u, VIR_OP_LOR, bt, isnan_(u, a), isinf_(u, a));
      return op1(u, VIR_OP_LNOT, bt, bad);
    }
    return op1(u, fop, bt, a);
  case VIR_UR_SIGNBIT:
    if (k == 'f')
      return signbit_(u, a);
    break;
  case VIR_UR_SCALE:
    if (k == 'f') {
      /* the factor rounded to the dtype, from pi rounded to it (NumPy) */
      double f;
      if (elem(a)->bits == 32) {
        volatile float pi = (float)M_PI, d = 180.0f;
        f = id == VIR_UFUNC_DEG2RAD ? (double)(float)(pi / d) : (double)(float)(d / pi);
      } else {
        f = id == VIR_UFUNC_DEG2RAD ? M_PI / 180.0 : 180.0 / M_PI;
      }
      return op2(u, VIR_OP_MUL, ot, a, kflt(u, elem(a), f));
    }
    break;
  }
  if (!u->oom)
    *why = "no loop for these operand types";
  return NULL;
}

vir_pass_result vir_lower_ufuncs(vir_module *m, const vir_pass_options *opts, vp_diags *diags) {
  (void)opts;
  bool changed = false;
  for (uint32_t i = 0; i < m->syms.len; i++) {
    vir_sym *s = m->syms.data[i];
    if (s->kind != VIR_SYM_FUNC || !s->func || !s->func->is_array)
      continue;
    vir_func *f = s->func;
    for (vir_op *op = f->body.first, *next; op; op = next) {
      next = op->next;
      if (op->code != VIR_OP_ARRAY_UFUNC)
        continue;
      ux u = {.m = m};
      vir_builder_init(&u.b, m);
      vir_builder_before(&u.b, op);
      u.b.loc = op->loc;
      const char *why;
      vir_value *r = expand(&u, op, &why);
      if (r && elem(r) != elem(&op->val))
        r = cast(&u, r, elem(&op->val)); /* a bool result stored as the declared type */
      if (r && r->type != op->val.type && !u.oom) {
        why = "its result does not have the declared type";
        r = NULL;
      }
      if (!r) {
        if (u.oom)
          vp_error(diags, op->loc, "lower-ufuncs: out of memory");
        else
          vp_error(diags, op->loc, "array.ufunc %s on %s: %s (vulpy/ir/ufuncs.def)",
                   vir_ufunc_name(op->attr.index), op->opnd[0]->type->str, why);
        return VIR_PASS_FAILURE;
      }
      vir_replace_all_uses(f, &op->val, r);
      vir_op_unlink(op);
      changed = true;
    }
  }
  return changed ? VIR_PASS_CHANGED : VIR_PASS_UNCHANGED;
}
