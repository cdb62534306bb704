/* parse_type.c - types and literals of the VIR text.
 *
 * Types are interned as they are read; literals are read as tokens first
 * (the type comes after them: `const 1.5 : f32`) and converted once the
 * type is known, with range checks per width.
 */
#include "parse.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ types */

/* '<' type '>' */
static vir_type *parse_elem_type(parser *p) {
  if (!pr_expect(p, TK_LT))
    return NULL;
  vir_type *t = pr_type(p);
  if (!t || !pr_expect(p, TK_GT))
    return NULL;
  return t;
}

/* type := scalar | 'vec'N '<' scalar '>' | 'mat'C('x'R)? '<' float '>'
 *       | 'array' '<' type ',' INT '>' | SYM */
static vir_type *parse_type_inner(parser *p);

vir_type *pr_type(parser *p) {
  if (p->type_depth >= 32) {
    pr_error(p, &p->tok, "type nested more than 32 deep");
    return NULL;
  }
  p->type_depth++;
  vir_type *t = parse_type_inner(p);
  p->type_depth--;
  return t;
}

static vir_type *parse_type_inner(parser *p) {
  vir_token t = p->tok;
  vir_module *m = p->m;
  if (t.kind == TK_SYM) {
    char *name = t.quoted ? pr_tok_name(p, &t) : NULL;
    vir_struct *st = name ? vp_map_get(&p->structs, name, strlen(name))
                          : vp_map_get(&p->structs, t.s, t.len);
    if (!st) {
      pr_error(p, &t, "unknown struct @%.*s", (int)t.len, t.s);
      return NULL;
    }
    pr_next(p);
    return vir_ty_struct(m, st);
  }
  if (t.kind != TK_IDENT) {
    pr_expected(p, "a type");
    return NULL;
  }
  pr_next(p);
  const char *s = t.s;
  uint32_t n = t.len;
  /* the common types by their keyword number: no string compare */
  switch ((vir_kw)t.kw) {
  case KW_VOID: return vir_ty_void(m);
  case KW_BOOL: return vir_ty_bool(m);
  case KW_I8: case KW_I16: case KW_I32: case KW_I64: return vir_ty_int(m, 8u << (t.kw - KW_I8));
  case KW_U8: case KW_U16: case KW_U32: case KW_U64: return vir_ty_uint(m, 8u << (t.kw - KW_U8));
  case KW_F16: case KW_F32: case KW_F64: return vir_ty_float(m, 16u << (t.kw - KW_F16));
  case KW_VEC2: case KW_VEC3: case KW_VEC4: {
    vir_type *e = parse_elem_type(p);
    if (!e)
      return NULL;
    if (!vir_ty_is_scalar(e)) {
      pr_error(p, &t, "vector elements must be scalars, not %s", e->str);
      return NULL;
    }
    return vir_ty_vec(m, e, 2u + (t.kw - KW_VEC2));
  }
  default: break;
  }
  if ((n == 4 || (n == 6 && s[4] == 'x')) && memcmp(s, "mat", 3) == 0 && s[3] >= '2' &&
      s[3] <= '4' && (n == 4 || (s[5] >= '2' && s[5] <= '4'))) {
    unsigned cols = (unsigned)(s[3] - '0'), rows = n == 4 ? cols : (unsigned)(s[5] - '0');
    vir_type *e = parse_elem_type(p);
    if (!e)
      return NULL;
    if (e->kind != VIR_TY_FLOAT) {
      pr_error(p, &t, "matrix elements must be floats, not %s", e->str);
      return NULL;
    }
    return vir_ty_mat(m, e, cols, rows);
  }
  if (pr_is_kw(&t, "tensor"))
    return pr_tensor_rest(p, &t);
  if (pr_is_kw(&t, "array")) {
    uint32_t len;
    if (!pr_expect(p, TK_LT))
      return NULL;
    vir_type *e = pr_type(p);
    if (!e || !pr_expect(p, TK_COMMA) || !pr_u32(p, &len) || !pr_expect(p, TK_GT))
      return NULL;
    if (e->kind == VIR_TY_VOID) {
      pr_error(p, &t, "array of void");
      return NULL;
    }
    return vir_ty_array(m, e, len);
  }
  pr_error(p, &t, "unknown type '%.*s'", (int)t.len, t.s);
  return NULL;
}

/* --------------------------------------------------------------- literals */

/* `D.F` with few digits (what kernels write) without strtod: the digits
 * as an integer m and the places k; m / 10^k in the literal's own
 * precision is correctly rounded when m and 10^k are exact in it (the
 * classic fast path: m < 2^53 and k <= 22 for f64, m < 2^24 and k <= 10
 * for f32; f16 rounds the f64 value, as strtod's result would be). */
static bool short_float(const vir_token *lt, unsigned bits, double *out) {
  static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10};
  const char *s = lt->s, *end = lt->s + lt->len;
  bool neg = *s == '-';
  s += neg;
  uint64_t m = 0;
  int digits = 0, k = -1;
  for (; s < end; s++) {
    if (*s == '.' && k < 0) {
      k = 0;
      continue;
    }
    if (*s < '0' || *s > '9' || ++digits > 15)
      return false; /* an exponent, or too long: strtod */
    m = m * 10 + (uint64_t)(*s - '0');
    k += k >= 0;
  }
  if (k < 0)
    k = 0;
  if (k > 10 || (bits == 32 && m >= (1u << 24)))
    return false;
  double d;
  if (bits == 32)
    d = (float)m / (float)p10[k];
  else
    d = (double)m / p10[k];
  if (bits == 16)
    d = vir_round_f16(d);
  *out = neg ? -d : d;
  return true;
}

/* literal := INT | FLOAT | '-'? ('inf' | 'nan') | 'true' | 'false', read
 * as a value of type `t` (the token `lt` was read before the type). */
bool pr_convert_literal(parser *p, const vir_token *lt, bool neg, const vir_type *t,
                            vir_literal *out) {
  char buf[64];
  *out = (vir_literal){0};
  if (!t || !vir_ty_is_scalar(t)) {
    pr_error(p, lt, "a constant must have a scalar type, not %s", t ? t->str : "?");
    return false;
  }
  if (t->kind == VIR_TY_BOOL) {
    if (pr_is_kw(lt, "true") || pr_is_kw(lt, "false")) {
      out->b = pr_is_kw(lt, "true");
      return true;
    }
    pr_error(p, lt, "expected 'true' or 'false' for a bool constant");
    return false;
  }
  bool special = pr_is_kw(lt, "inf") || pr_is_kw(lt, "nan");
  if (t->kind == VIR_TY_FLOAT && special) {
    out->f = pr_is_kw(lt, "nan") ? NAN : neg ? -INFINITY : INFINITY;
    return true;
  }
  if (lt->kind != TK_INT && !(lt->kind == TK_FLOAT && t->kind == VIR_TY_FLOAT)) {
    pr_error(p, lt, "expected %s literal for type %s",
             t->kind == VIR_TY_FLOAT ? "a number" : "an integer", t->str);
    return false;
  }
  if (lt->len >= sizeof buf) {
    pr_error(p, lt, "literal too long");
    return false;
  }
  memcpy(buf, lt->s, lt->len);
  buf[lt->len] = 0;
  errno = 0;
  if (t->kind == VIR_TY_FLOAT && short_float(lt, t->bits, &out->f))
    return true;
  if (t->kind == VIR_TY_FLOAT) {
    double d = strtod(buf, NULL);
    if (t->bits == 32)
      d = strtof(buf, NULL);
    else if (t->bits == 16)
      d = vir_round_f16(d);
    if (isinf(d)) {
      pr_error(p, lt, "literal %s is out of range for %s", buf, t->str);
      return false;
    }
    out->f = d;
    return true;
  }
  bool ok;
  if (t->kind == VIR_TY_INT) {
    long long v = strtoll(buf, NULL, 10);
    int64_t lo = t->bits == 64 ? INT64_MIN : -(INT64_C(1) << (t->bits - 1));
    int64_t hi = t->bits == 64 ? INT64_MAX : (INT64_C(1) << (t->bits - 1)) - 1;
    ok = errno == 0 && v >= lo && v <= hi;
    out->i = v;
  } else {
    unsigned long long v = strtoull(buf, NULL, 10);
    uint64_t hi = t->bits == 64 ? UINT64_MAX : (UINT64_C(1) << t->bits) - 1;
    ok = errno == 0 && buf[0] != '-' && v <= hi;
    out->u = v;
  }
  if (!ok)
    pr_error(p, lt, "literal %s is out of range for %s", buf, t->str);
  return ok;
}

/* Reads the literal tokens; returns the (last) token and whether a '-'
 * came before `inf`. */
bool pr_read_literal(parser *p, vir_token *lt, bool *neg) {
  *neg = pr_accept(p, TK_MINUS);
  *lt = p->tok;
  if (p->tok.kind == TK_INT || p->tok.kind == TK_FLOAT || p->tok.kind == TK_IDENT) {
    if (*neg && !pr_is_kw(lt, "inf")) {
      pr_expected(p, "'inf' after '-'");
      return false;
    }
    pr_next(p);
    return true;
  }
  pr_expected(p, "a literal");
  return false;
}
