/* small_types.c - the `lower-small-types` pass: 8/16-bit dtypes computed in
 * 32 bits, as NumPy's answers need (issue 19).
 *
 * int8, int16, uint8, uint16 and float16 tensors live in memory at their own
 * size (or packed in words: lower_arrays/index.c), but every op on one
 * runs on its 32-bit type: a value is widened when an op reads it (f16 ->
 * f32, i8/i16 -> i32, u8/u16 -> u32) and the op's result narrowed to the
 * declared type (integers wrap, float16 rounds to nearest even). NumPy
 * computes float16 in float32 and rounds too, and 32-bit integer results
 * truncated to 8/16 bits are NumPy's wrapped ones, so the answers are
 * NumPy's; kernels then need only the 8/16-bit storage features, never
 * 8/16-bit arithmetic. After this pass a small type appears only in loads,
 * stores, data movement (slice, broadcast, reshape, transpose, take,
 * scatter) and casts to and from its own 32-bit type; a cast between a
 * small type and any other goes through the 32-bit one, and float64 ->
 * float16 through float32 rounded to odd (one rounding, as NumPy's).
 *
 * Two facts per value keep the casts to what changes a value: `wide`, on
 * a small value, the 32-bit value equal to it (made once, however many
 * ops read it), and `fits`, on a 32-bit value, a small type that holds it
 * exactly (a widened value, a constant): narrowing a value that fits and
 * widening it again gives the value itself.
 *
 * The array compile (vtg_compile_array) runs it first, on the straight-line
 * body of each array function, before lower-ufuncs: the eager ufuncs,
 * operators, reductions and vp.jit then record their ops at the dtypes
 * NumPy resolved (bindings/python/vulpy/_graph.py) and this file alone
 * knows how the GPU computes the small ones.
 */
#include "transforms.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct sx {
  vir_builder b;
  vir_module *m;
  vir_value **wide, **repl; /* by value id: the 32-bit twin; the replacement */
  vir_type **fits;          /* by value id */
  uint32_t cap;
  bool oom;
} sx;

static vir_type *elem(const vir_value *v) { return vir_ty_elem_of(v->type); }

static bool small(const vir_type *e) {
  return (e->kind == VIR_TY_INT || e->kind == VIR_TY_UINT || e->kind == VIR_TY_FLOAT) &&
         (e->bits == 8 || e->bits == 16);
}

/* The 32-bit type a small type computes in. */
static vir_type *wide_type(sx *s, const vir_type *e) {
  return e->kind == VIR_TY_FLOAT ? vir_ty_float(s->m, 32)
         : e->kind == VIR_TY_INT ? vir_ty_int(s->m, 32)
                                 : vir_ty_uint(s->m, 32);
}

/* Whether NumPy casts small type `f` to `d` safely (np.can_cast "safe"). */
static bool safe_cast(const vir_type *f, const vir_type *d) {
  if (d->kind == f->kind)
    return d->bits >= f->bits;
  if (f->kind == VIR_TY_FLOAT || d->kind == VIR_TY_BOOL)
    return false;
  if (d->kind == VIR_TY_FLOAT || (f->kind == VIR_TY_UINT && d->kind == VIR_TY_INT))
    return d->bits > f->bits;
  return false; /* signed -> unsigned */
}

/* The per-value tables hold value `id`. */
static bool room(sx *s, uint32_t id) {
  if (id < s->cap)
    return true;
  uint32_t cap = s->cap ? s->cap : 64;
  while (cap <= id)
    cap *= 2;
  vir_value **w = realloc(s->wide, cap * sizeof *w);
  if (w)
    s->wide = w;
  vir_value **r = w ? realloc(s->repl, cap * sizeof *r) : NULL;
  if (r)
    s->repl = r;
  vir_type **f = r ? realloc(s->fits, cap * sizeof *f) : NULL;
  if (f)
    s->fits = f;
  if (!f) {
    s->oom = true;
    return false;
  }
  memset(s->wide + s->cap, 0, (cap - s->cap) * sizeof *w);
  memset(s->repl + s->cap, 0, (cap - s->cap) * sizeof *r);
  memset(s->fits + s->cap, 0, (cap - s->cap) * sizeof *f);
  s->cap = cap;
  return true;
}

static vir_type *fits_of(sx *s, const vir_value *v) {
  return v->id < s->cap ? s->fits[v->id] : NULL;
}
static void set_fits(sx *s, vir_value *v, vir_type *t) {
  if (v && room(s, v->id))
    s->fits[v->id] = t;
}
static void set_wide(sx *s, vir_value *v, vir_value *w) {
  if (v && room(s, v->id))
    s->wide[v->id] = w;
}

/* `like`'s shape with element type e. */
static vir_type *shaped(sx *s, const vir_type *like, vir_type *e) {
  return vir_ty_is_tensor(like) ? vir_ty_tensor(s->m, e, like->n, like->dims) : e;
}

static vir_value *built(sx *s, vir_op *op) {
  if (!op) {
    s->oom = true;
    return NULL;
  }
  return &op->val;
}

static vir_value *opn(sx *s, vir_opcode code, vir_type *t, uint32_t n, vir_value **a) {
  for (uint32_t i = 0; i < n; i++)
    if (!a[i])
      return NULL;
  return built(s, vir_build(&s->b, code, t, n, a));
}

/* An elementwise op whose result has `like`'s shape and element type e. */
static vir_value *op2(sx *s, vir_opcode code, const vir_type *like, vir_type *e, vir_value *a,
                      vir_value *b) {
  vir_value *x[2] = {a, b};
  return opn(s, code, shaped(s, like, e), 2, x);
}

static vir_value *plain_cast(sx *s, vir_value *v, vir_type *e) {
  return v ? opn(s, VIR_OP_CAST, shaped(s, v->type, e), 1, &v) : NULL;
}

/* float32 y rounded to float16 (nearest even; overflow to inf; float16's
 * subnormals), still a float32: the value of float(float16_t(y)), spelled
 * in integer ops. NVIDIA's compiler drops that pair of conversions, so a
 * fused chain of float16 ops kept its float32 intermediates there
 * ((x + 4096) - 4096 was x on the H200, NumPy's 0 for small x). */
static vir_value *round_half(sx *s, vir_value *y) {
  const vir_type *t = y->type;
  vir_type *u32 = vir_ty_uint(s->m, 32), *f32 = vir_ty_float(s->m, 32), *bt = vir_ty_bool(s->m);
  vir_builder *b = &s->b;
  vir_value *bits = opn(s, VIR_OP_BITCAST, shaped(s, t, u32), 1, &y);
  vir_value *a = op2(s, VIR_OP_AND, t, u32, bits, vir_build_int(b, u32, 0x7FFFFFFF));
  /* normal float16 range: drop 13 bits, ties to the even one */
  vir_value *odd = op2(s, VIR_OP_AND, t, u32,
                       op2(s, VIR_OP_SHR, t, u32, a, vir_build_int(b, u32, 13)),
                       vir_build_int(b, u32, 1));
  vir_value *n = op2(s, VIR_OP_ADD, t, u32, op2(s, VIR_OP_ADD, t, u32, a, vir_build_int(b, u32, 0xFFF)),
                     odd);
  n = op2(s, VIR_OP_AND, t, u32, n, vir_build_int(b, u32, 0xFFFFE000));
  vir_value *over[3] = {op2(s, VIR_OP_GT, t, bt, n, vir_build_int(b, u32, 0x477FE000)), /* 65504 */
                        vir_build_int(b, u32, 0x7F800000), n};
  n = opn(s, VIR_OP_SELECT, shaped(s, t, u32), 3, over);
  n = op2(s, VIR_OP_OR, t, u32, n,
          op2(s, VIR_OP_AND, t, u32, bits, vir_build_int(b, u32, 0x80000000u)));
  vir_value *normal = n ? opn(s, VIR_OP_BITCAST, shaped(s, t, f32), 1, &n) : NULL;
  /* below 2^-14: a multiple of 2^-24 (the scalings are exact) */
  vir_value *up = op2(s, VIR_OP_MUL, t, f32, y, vir_build_float(b, f32, 16777216.0));
  vir_value *sub = op2(s, VIR_OP_MUL, t, f32, up ? opn(s, VIR_OP_RINT, up->type, 1, &up) : NULL,
                       vir_build_float(b, f32, 1.0 / 16777216.0));
  vir_value *tiny[3] = {op2(s, VIR_OP_LT, t, bt, a, vir_build_int(b, u32, 0x38800000)), sub, normal};
  vir_value *r = opn(s, VIR_OP_SELECT, shaped(s, t, f32), 3, tiny);
  vir_value *keep[3] = {op2(s, VIR_OP_GE, t, bt, a, vir_build_int(b, u32, 0x7F800000)), y, r};
  return opn(s, VIR_OP_SELECT, shaped(s, t, f32), 3, keep); /* inf and NaN as they are */
}

/* v in its 32-bit type when it is of a small type (made once). A float16
 * narrowed from a float32 widens as that float32 rounded (round_half). */
static vir_value *widen(sx *s, vir_value *v) {
  if (!v || !small(elem(v)))
    return v;
  if (v->id < s->cap && s->wide[v->id])
    return s->wide[v->id];
  const vir_op *def = v->def;
  vir_value *w;
  if (elem(v)->kind == VIR_TY_FLOAT && def && def->code == VIR_OP_CAST && def->nopnd == 1 &&
      def->opnd[0] && elem(def->opnd[0]) == vir_ty_float(s->m, 32))
    w = round_half(s, def->opnd[0]);
  else
    w = plain_cast(s, v, wide_type(s, elem(v)));
  set_fits(s, w, elem(v));
  set_wide(s, v, w);
  return w;
}

/* float64 d rounded to float32 by round-to-odd (toward zero, the last bit
 * set when inexact): rounding that to float16 is then d correctly rounded
 * (24 >= 11 + 2 bits), as NumPy's double -> half, where two
 * round-to-nearest steps could round twice (1 + 2^-11 + 2^-40 would become
 * 1.0, not 1.001). */
static vir_value *f32_odd(sx *s, vir_value *d) {
  vir_type *f32 = vir_ty_float(s->m, 32), *f64 = elem(d), *u32 = vir_ty_uint(s->m, 32);
  vir_type *bt = vir_ty_bool(s->m);
  vir_value *f = plain_cast(s, d, f32), *back = plain_cast(s, f, f64);
  vir_value *inexact = op2(s, VIR_OP_NE, d->type, bt, back, d);
  vir_value *ab = opn(s, VIR_OP_ABS, d->type, 1, &back), *ad = opn(s, VIR_OP_ABS, d->type, 1, &d);
  vir_value *away = op2(s, VIR_OP_GT, d->type, bt, ab, ad);
  vir_value *bits = f ? opn(s, VIR_OP_BITCAST, shaped(s, d->type, u32), 1, &f) : NULL;
  vir_value *one = vir_build_int(&s->b, u32, 1), *zero = vir_build_int(&s->b, u32, 0);
  vir_value *sa[3] = {away, one, zero}, *si[3] = {inexact, one, zero};
  vir_value *down = opn(s, VIR_OP_SELECT, shaped(s, d->type, u32), 3, sa);
  vir_value *odd = opn(s, VIR_OP_SELECT, shaped(s, d->type, u32), 3, si);
  bits = op2(s, VIR_OP_OR, d->type, u32, op2(s, VIR_OP_SUB, d->type, u32, bits, down), odd);
  return bits ? opn(s, VIR_OP_BITCAST, shaped(s, d->type, f32), 1, &bits) : NULL;
}

/* v cast to element type d, through the 32-bit types where a small type
 * is involved. */
static vir_value *convert(sx *s, vir_value *v, vir_type *d) {
  if (!v || elem(v) == d)
    return v;
  vir_type *dst_w = small(d) ? wide_type(s, d) : NULL;
  v = widen(s, v);
  if (!v || elem(v) == d)
    return v;
  if (d->kind == VIR_TY_FLOAT && d->bits == 16 && elem(v)->kind == VIR_TY_FLOAT &&
      elem(v)->bits == 64)
    v = f32_odd(s, v);
  else if (dst_w && elem(v) != dst_w)
    v = convert(s, v, dst_w);
  vir_value *r = plain_cast(s, v, d);
  vir_type *f = v ? fits_of(s, v) : NULL;
  if (r && f && safe_cast(f, d)) {
    if (dst_w)
      set_wide(s, r, v); /* narrowing a value that fits: widening it again is v */
    else if (d->bits == 32 && d->kind != VIR_TY_BOOL)
      set_fits(s, r, f); /* u8 -> u32 -> i32 still fits u8 */
  }
  return r;
}

/* NumPy's float16 maximum / minimum: a if a >= b (a <= b) or a is NaN,
 * else b (so maximum(-0.0, 0.0) is -0.0, unlike the float32 loop's). */
static vir_value *half_pick(sx *s, vir_op *op, vir_value *a, vir_value *b) {
  vir_type *f32 = vir_ty_float(s->m, 32), *bt = vir_ty_bool(s->m);
  const vir_type *rt = op->val.type; /* the broadcast shape (scalars stay scalars) */
  vir_value *x[2] = {a, b};
  for (int i = 0; i < 2; i++)
    if (x[i] && vir_ty_is_tensor(x[i]->type) && x[i]->type != shaped(s, rt, f32))
      x[i] = opn(s, VIR_OP_ARRAY_BROADCAST, shaped(s, rt, f32), 1, &x[i]);
  if (!x[0] || !x[1])
    return NULL;
  bool max = op->attr.index == VIR_UFUNC_MAXIMUM;
  vir_value *cmp = op2(s, max ? VIR_OP_GE : VIR_OP_LE, rt, bt, x[0], x[1]);
  vir_value *nan = opn(s, VIR_OP_ISNAN, shaped(s, x[0]->type, bt), 1, &x[0]);
  vir_value *sel[3] = {op2(s, VIR_OP_LOR, rt, bt, cmp, nan), x[0], x[1]};
  return opn(s, VIR_OP_SELECT, shaped(s, rt, f32), 3, sel);
}

static vir_value *sel3(sx *s, const vir_type *like, vir_type *e, vir_value *c, vir_value *x,
                       vir_value *y) {
  vir_value *a[3] = {c, x, y};
  return opn(s, VIR_OP_SELECT, shaped(s, like, e), 3, a);
}

/* NumPy's float16 spacing (b NULL) and nextafter (npy_half_spacing,
 * npy_half_nextafter), on the float32 values of float16 ones (exact), in
 * float16's grid. spacing is positive, as npy_half_spacing's: the gap
 * above |x|, 2^max(E - 10, -24) for x's exponent E, but the gap below it,
 * 2^max(E - 11, -24), for a negative power of two of float16's normal range;
 * inf for +65504 only, NaN for inf and NaN. nextafter(x, y) is y where x ==
 * y (C99's, float32's and float64's; NumPy's float16 loop gave x, so -0.0
 * toward +0.0 stayed -0.0, until numpy#31475), NaN where either is NaN, +-2^-24 from a zero toward y, +-65504 from an
 * infinity, else x moved one
 * float16 step toward y: away from zero by the gap above |x|, toward it by
 * the gap below (half the gap above at a power of two past 2^-14); a step
 * onto zero keeps x's sign. Every value here is a float16 value or gap, at
 * least 2^-24 in magnitude: normal float32 numbers, so the arithmetic is
 * exact, also where float32 subnormals flush; the narrowing after gives the
 * float16 (65504 + 32 is 65536: inf there). */
static vir_value *half_steps(sx *s, vir_op *op, vir_value *a, vir_value *b) {
  vir_type *f32 = vir_ty_float(s->m, 32), *u32 = vir_ty_uint(s->m, 32), *bt = vir_ty_bool(s->m);
  vir_builder *bb = &s->b;
  const vir_type *rt = op->val.type;
  vir_value *x[2] = {a, b};
  for (int i = 0; i < 2; i++) /* both of the result's shape (a scalar too) */
    if (x[i] && vir_ty_is_tensor(rt) && x[i]->type != shaped(s, rt, f32))
      x[i] = opn(s, VIR_OP_ARRAY_BROADCAST, shaped(s, rt, f32), 1, &x[i]);
  if (!x[0] || (b && !x[1]))
    return NULL;
  vir_value *bits = opn(s, VIR_OP_BITCAST, shaped(s, rt, u32), 1, &x[0]);
  vir_value *mag = op2(s, VIR_OP_AND, rt, u32, bits, vir_build_int(bb, u32, 0x7FFFFFFF));
  vir_value *e = op2(s, VIR_OP_SHR, rt, u32, mag, vir_build_int(bb, u32, 23));
  /* a power of two in float16's normal range (exponent field 113 and up) */
  vir_value *pow2 = op2(s, VIR_OP_LAND, rt, bt,
                        op2(s, VIR_OP_EQ, rt, bt,
                            op2(s, VIR_OP_AND, rt, u32, mag, vir_build_int(bb, u32, 0x7FFFFF)),
                            vir_build_int(bb, u32, 0)),
                        op2(s, VIR_OP_GE, rt, bt, e, vir_build_int(bb, u32, 113)));
  vir_value *neg = op2(s, VIR_OP_NE, rt, bt, bits, mag);
  /* 2^max(E - 10 - less, -24) as float32 bits (E - 10 - less >= -25 + ...) */
  vir_value *pick = op2(s, VIR_OP_LAND, rt, bt, pow2, b ? pow2 : neg);
  vir_value *k = sel3(s, rt, u32, pick, vir_build_int(bb, u32, 11), vir_build_int(bb, u32, 10));
  vir_value *gb = op2(s, VIR_OP_SHL, rt, u32,
                      op2(s, VIR_OP_MAX, rt, u32,
                          op2(s, VIR_OP_SUB, rt, u32,
                              op2(s, VIR_OP_MAX, rt, u32, e, vir_build_int(bb, u32, 103)), k),
                          vir_build_int(bb, u32, 103)),
                      vir_build_int(bb, u32, 23));
  vir_value *qnan = vir_build_float(bb, f32, NAN);
  if (!b) {
    vir_value *gap = opn(s, VIR_OP_BITCAST, shaped(s, rt, f32), 1, &gb);
    vir_value *r = sel3(s, rt, f32, op2(s, VIR_OP_EQ, rt, bt, bits,
                                        vir_build_int(bb, u32, 0x477FE000)), /* +65504 */
                        vir_build_float(bb, f32, INFINITY), gap);
    return sel3(s, rt, f32, op2(s, VIR_OP_EQ, rt, bt, e, vir_build_int(bb, u32, 255)), qnan, r);
  }
  /* nextafter: gb above is the gap below |x| (pick = pow2); the gap above */
  vir_value *ga = op2(s, VIR_OP_SHL, rt, u32,
                      op2(s, VIR_OP_SUB, rt, u32,
                          op2(s, VIR_OP_MAX, rt, u32, e, vir_build_int(bb, u32, 113)),
                          vir_build_int(bb, u32, 10)),
                      vir_build_int(bb, u32, 23));
  vir_value *gap = opn(s, VIR_OP_BITCAST, shaped(s, rt, f32), 1, &ga);
  vir_value *down = opn(s, VIR_OP_BITCAST, shaped(s, rt, f32), 1, &gb);
  vir_value *xv = x[0], *yv = x[1];
  vir_value *zero = vir_build_float(bb, f32, 0.0);
  vir_value *up = op2(s, VIR_OP_GT, rt, bt, yv, xv);
  vir_value *pos = op2(s, VIR_OP_GT, rt, bt, xv, zero);
  vir_value *away = op2(s, VIR_OP_EQ, rt, bt, pos, up);
  vir_value *step = sel3(s, rt, f32, away, gap, down);
  /* toward +inf adds the step, toward -inf subtracts it */
  vir_value *moved = sel3(s, rt, f32, up, op2(s, VIR_OP_ADD, rt, f32, xv, step),
                          op2(s, VIR_OP_SUB, rt, f32, xv, step));
  /* a step onto zero keeps x's sign (2^-24 - 2^-24 is +0) */
  vir_value *mb = opn(s, VIR_OP_BITCAST, shaped(s, rt, u32), 1, &moved);
  vir_value *sign = op2(s, VIR_OP_AND, rt, u32, bits, vir_build_int(bb, u32, 0x80000000u));
  mb = sel3(s, rt, u32, op2(s, VIR_OP_EQ, rt, bt, moved, zero),
            op2(s, VIR_OP_OR, rt, u32, mb, sign), mb);
  moved = opn(s, VIR_OP_BITCAST, shaped(s, rt, f32), 1, &mb);
  vir_value *from0 = sel3(s, rt, f32, up, vir_build_float(bb, f32, 0x1p-24),
                          vir_build_float(bb, f32, -0x1p-24));
  vir_value *r = sel3(s, rt, f32, op2(s, VIR_OP_EQ, rt, bt, xv, zero), from0, moved);
  /* from an infinity: the largest finite float16 of its sign */
  r = sel3(s, rt, f32, op2(s, VIR_OP_EQ, rt, bt, e, vir_build_int(bb, u32, 255)),
           sel3(s, rt, f32, pos, vir_build_float(bb, f32, 65504.0),
                vir_build_float(bb, f32, -65504.0)), r);
  r = sel3(s, rt, f32, op2(s, VIR_OP_EQ, rt, bt, xv, yv), yv, r); /* y, as C99 (numpy#31475) */
  vir_value *anynan = op2(s, VIR_OP_LOR, rt, bt, opn(s, VIR_OP_ISNAN, shaped(s, rt, bt), 1, &xv),
                          opn(s, VIR_OP_ISNAN, shaped(s, rt, bt), 1, &yv));
  return sel3(s, rt, f32, anynan, qnan, r);
}

/* Whether op computes on its operands' values (and so in 32 bits). */
static bool computes(const vir_op *op) {
  return op->code == VIR_OP_ARRAY_UFUNC || vir_is_reduction(op->code) || vir_is_scan(op->code) ||
         (vir_op_is_elementwise(op->code) && op->code != VIR_OP_CAST &&
          op->code != VIR_OP_BITCAST);
}

/* The op's replacement, or op's own value when it stays. */
static vir_value *lower(sx *s, vir_op *op) {
  vir_value *v = vir_result(op);
  if (!v)
    return &op->val;
  vir_type *d = elem(v);
  if (op->code == VIR_OP_CONST && small(d)) { /* the value, held wide */
    vir_value *w = vir_build_const(&s->b, wide_type(s, d), op->attr.lit);
    if (!w)
      return NULL;
    set_fits(s, w, d);
    vir_value *r = plain_cast(s, w, d);
    set_wide(s, r, w);
    return r;
  }
  if (op->code == VIR_OP_CAST) {
    vir_type *src = elem(op->opnd[0]);
    return small(src) || small(d) ? convert(s, op->opnd[0], d) : v;
  }
  if (!computes(op))
    return v;
  bool any = small(d);
  for (uint32_t i = 0; i < op->nopnd; i++)
    any |= small(elem(op->opnd[i]));
  if (!any)
    return v;
  vir_value *a[8];
  if (op->nopnd > 8)
    return NULL;
  for (uint32_t i = 0; i < op->nopnd; i++)
    a[i] = widen(s, op->opnd[i]);
  vir_type *rw = small(d) ? wide_type(s, d) : d;
  vir_value *r;
  if (op->code == VIR_OP_ARRAY_UFUNC && d->kind == VIR_TY_FLOAT && d->bits == 16 &&
      (op->attr.index == VIR_UFUNC_MAXIMUM || op->attr.index == VIR_UFUNC_MINIMUM)) {
    r = half_pick(s, op, a[0], a[1]);
  } else if (op->code == VIR_OP_ARRAY_UFUNC && d->kind == VIR_TY_FLOAT && d->bits == 16 &&
             (op->attr.index == VIR_UFUNC_NEXTAFTER || op->attr.index == VIR_UFUNC_SPACING)) {
    /* steps of float16's own grid, which the widened value no longer has */
    r = half_steps(s, op, a[0], op->attr.index == VIR_UFUNC_NEXTAFTER ? a[1] : NULL);
  } else {
    r = opn(s, op->code, shaped(s, v->type, rw), op->nopnd, a);
    if (r) {
      r->def->attr = op->attr;
      r->def->flags = op->flags;
      r->name = v->name;
    }
  }
  return small(d) ? plain_cast(s, r, d) : r;
}

static bool lower_func(sx *s, vir_func *f, vp_diags *diags, bool *changed) {
  for (vir_op *op = f->body.first, *next; op; op = next) {
    next = op->next;
    for (uint32_t i = 0; i < op->nopnd; i++) /* operands already replaced */
      if (op->opnd[i] && op->opnd[i]->id < s->cap && s->repl[op->opnd[i]->id])
        op->opnd[i] = s->repl[op->opnd[i]->id];
    vir_builder_init(&s->b, s->m);
    vir_builder_before(&s->b, op);
    s->b.loc = op->loc;
    vir_value *r = lower(s, op);
    if (!r || s->oom) {
      vp_error(diags, op->loc, "lower-small-types: %s",
               s->oom ? "out of memory" : "an op with more than 8 operands");
      return false;
    }
    if (r == &op->val)
      continue;
    if (!room(s, op->val.id))
      return false;
    s->repl[op->val.id] = r;
    vir_op_unlink(op);
    *changed = true;
  }
  return true;
}

vir_pass_result vir_lower_small_types(vir_module *m, const vir_pass_options *opts,
                                      vp_diags *diags) {
  (void)opts;
  bool changed = false, ok = true;
  for (uint32_t i = 0; ok && i < m->syms.len; i++) {
    vir_sym *sym = m->syms.data[i];
    if (sym->kind != VIR_SYM_FUNC || !sym->func || !sym->func->is_array)
      continue;
    sx s = {.m = m};
    ok = lower_func(&s, sym->func, diags, &changed);
    free(s.wide);
    free(s.repl);
    free(s.fits);
  }
  return !ok ? VIR_PASS_FAILURE : changed ? VIR_PASS_CHANGED : VIR_PASS_UNCHANGED;
}
