/* parse_array.c - the array level's syntax (docs/fusion.md): tensor
 * types, integer lists (shape, strides, axes) and array functions.
 *
 *   tensor := 'tensor' '<' (INT 'x')* scalar '>'
 *   ints   := '(' (INT (',' INT)*)? ')'
 *   array  := 'array' SYM loc? region
 */
#include "parse.h"

#include <stdint.h>

/* A scalar type by its name ("f32", "bool"), or NULL. */
static vir_type *scalar_named(vir_module *m, const char *s, size_t n) {
  if (n == 4 && memcmp(s, "bool", 4) == 0)
    return vir_ty_bool(m);
  if (n < 2 || n > 3 || (s[0] != 'i' && s[0] != 'u' && s[0] != 'f') || s[1] == '0')
    return NULL;
  unsigned bits = 0;
  for (size_t i = 1; i < n; i++) {
    if (s[i] < '0' || s[i] > '9')
      return NULL;
    bits = bits * 10 + (unsigned)(s[i] - '0');
  }
  if (s[0] != 'f' && (bits == 8 || bits == 16 || bits == 32 || bits == 64))
    return s[0] == 'i' ? vir_ty_int(m, bits) : vir_ty_uint(m, bits);
  if (s[0] == 'f' && (bits == 16 || bits == 32 || bits == 64))
    return vir_ty_float(m, bits);
  return NULL;
}

/* The part of a tensor type after 'tensor' (`kw`), the current token being
 * '<'. Read from the raw text: the lexer would take `4x8xf32` as an INT
 * and an identifier. */
vir_type *pr_tensor_rest(parser *p, const vir_token *kw) {
  if (p->tok.kind != TK_LT) {
    pr_expected(p, "'<'");
    return NULL;
  }
  const char *q = p->lx.p, *end = p->lx.end;
  uint32_t dims[VIR_MAX_RANK];
  unsigned rank = 0;
  while (q < end && ((*q >= '0' && *q <= '9') || *q == '?')) {
    if (*q == '?') { /* a dynamic extent (vir_ty_is_dynamic) */
      if (q + 1 >= end || q[1] != 'x') {
        pr_error(p, kw, "expected 'x' after a tensor dimension");
        return NULL;
      }
      q += 2;
      if (rank == VIR_MAX_RANK) {
        pr_error(p, kw, "a tensor has at most %d dimensions", VIR_MAX_RANK);
        return NULL;
      }
      dims[rank++] = VIR_DIM_DYNAMIC;
      continue;
    }
    uint64_t v = 0;
    while (q < end && *q >= '0' && *q <= '9' && v <= UINT32_MAX)
      v = v * 10 + (uint64_t)(*q++ - '0');
    if (v >= UINT32_MAX) { /* UINT32_MAX is VIR_DIM_DYNAMIC */
      pr_error(p, kw, "tensor dimension too large");
      return NULL;
    }
    if (q >= end || *q != 'x') {
      pr_error(p, kw, "expected 'x' after a tensor dimension");
      return NULL;
    }
    q++;
    if (rank == VIR_MAX_RANK) {
      pr_error(p, kw, "a tensor has at most %d dimensions", VIR_MAX_RANK);
      return NULL;
    }
    dims[rank++] = (uint32_t)v;
  }
  const char *e0 = q;
  while (q < end && ((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9')))
    q++;
  vir_type *e = scalar_named(p->m, e0, (size_t)(q - e0));
  if (!e) {
    pr_error(p, kw, "expected a scalar element type in tensor<...>, found '%.*s'", (int)(q - e0), e0);
    return NULL;
  }
  if (q >= end || *q != '>') {
    pr_error(p, kw, "expected '>' to end tensor<...>");
    return NULL;
  }
  p->lx.p = q + 1;
  pr_next(p);
  bool dyn = false;
  for (unsigned i = 0; i < rank; i++)
    dyn |= dims[i] == VIR_DIM_DYNAMIC;
  vir_type *t = vir_ty_tensor(p->m, e, rank, dims);
  if (!t && dyn)
    pr_error(p, kw, "a dynamic extent '?' is for rank-1 tensors only");
  else if (!t)
    pr_error(p, kw, "tensor has more than 2^32 - 1 elements");
  return t;
}

bool pr_ints(parser *p, const char *what, int64_t *i64, uint8_t *u8, uint8_t *n) {
  if (!pr_expect(p, TK_LPAREN))
    return false;
  *n = 0;
  if (p->tok.kind != TK_RPAREN) {
    do {
      bool neg = pr_accept(p, TK_MINUS);
      vir_token t = p->tok;
      if (t.kind != TK_INT || t.len > 19) {
        pr_expected(p, "an integer");
        return false;
      }
      int64_t v = 0;
      for (uint32_t i = 0; i < t.len; i++)
        if (t.s[i] >= '0' && t.s[i] <= '9')
          v = v * 10 + (t.s[i] - '0');
      if (t.s[0] == '-')
        neg = !neg;
      pr_next(p);
      if (*n == VIR_MAX_RANK) {
        pr_error(p, &t, "more than %d %s", VIR_MAX_RANK, what);
        return false;
      }
      if (u8) {
        if (neg || v >= VIR_MAX_RANK) {
          pr_error(p, &t, "%s must be between 0 and %d", what, VIR_MAX_RANK - 1);
          return false;
        }
        u8[(*n)++] = (uint8_t)v;
      } else {
        i64[(*n)++] = neg ? -v : v;
      }
    } while (pr_accept(p, TK_COMMA));
  }
  return pr_expect(p, TK_RPAREN);
}

/* view := ('shape' ints)? ('offset' '(' INT ')')? ('strides' ints)? */
bool pr_view(parser *p, vir_array_attr *v) {
  if (pr_accept_kw(p, "shape")) {
    int64_t d[VIR_MAX_RANK];
    vir_token t = p->tok;
    if (!pr_ints(p, "dims", d, NULL, &v->ndims))
      return false;
    for (uint32_t i = 0; i < v->ndims; i++) {
      if (d[i] < 0 || d[i] > UINT32_MAX) {
        pr_error(p, &t, "shape dims must be between 0 and 2^32 - 1");
        return false;
      }
      v->dims[i] = (uint32_t)d[i];
    }
  }
  if (pr_accept_kw(p, "offset")) {
    int64_t off[VIR_MAX_RANK];
    uint8_t n;
    vir_token t = p->tok;
    if (!pr_ints(p, "offsets", off, NULL, &n))
      return false;
    if (n != 1) {
      pr_error(p, &t, "offset(...) takes one integer");
      return false;
    }
    v->offset = off[0];
  }
  if (pr_accept_kw(p, "strides") && !pr_ints(p, "strides", v->strides, NULL, &v->nstrides))
    return false;
  return true;
}

/* array := 'array' SYM loc? region */
bool pr_array_func(parser *p) {
  vir_token start, name;
  if (!pr_decl_head(p, &start, &name))
    return false;
  vp_loc loc = pr_loc_of(p, &start);
  if (!pr_loc(p, &loc))
    return false;
  char *fname = pr_tok_name(p, &name);
  vir_func *f = fname ? vir_add_array_func(p->m, fname, loc) : NULL;
  if (!f)
    return false;
  p->f = f;
  bool ok = pr_region(p, &f->body);
  p->f = NULL;
  return ok;
}
