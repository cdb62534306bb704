/* parse.c - recursive-descent parser for the VIR text (docs/ir.md).
 *
 * One token of lookahead. The parser resolves names (values, symbols,
 * struct fields) and checks the syntax; types and every other invariant
 * are the verifier's job, so a module built in C and one read from text
 * are checked by the same code. Calls may name functions declared later:
 * they are resolved at the end. After an error the parser skips to the
 * next line (and past any region that line opens) and goes on, so one run
 * reports several errors; a value whose definition failed is still
 * entered, so its uses do not add errors of their own.
 */
#include "ir_impl.h"
#include "lex.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_ERRORS = 20 };

typedef struct parser {
  vir_lexer lx;
  vir_token tok;
  vir_module *m;
  vp_diags *diags;
  const char *file; /* m->text_file */
  vp_arena tmp;     /* parse-time tables; freed at the end */
  vp_map opnames;   /* op name -> opcode + 1 */
  vp_map structs;   /* struct name -> vir_struct* */
  vir_func *f;      /* the function being parsed */
  vp_map values;    /* value name -> vir_value*, for names that are not numbers */
  vir_value **numbered; /* %N -> value, N < nnumbered */
  uint32_t nnumbered, maxnum;
  vp_ptrvec calls; /* call ops whose callee is resolved at the end */
  vp_ptrvec callee_names;
  uint32_t nerrors;
  int depth, type_depth;
} parser;

/* ---------------------------------------------------------------- basics */

static void next(parser *p) { vir_lex_next(&p->lx, &p->tok); }

static vp_loc loc_of(parser *p, const vir_token *t) { return (vp_loc){p->file, t->line, t->col}; }

VP_PRINTF(3, 4)
static void error_at(parser *p, const vir_token *t, const char *fmt, ...) {
  p->nerrors++;
  if (p->nerrors > MAX_ERRORS)
    return;
  va_list ap;
  va_start(ap, fmt);
  vp_diag_vadd(p->diags, VP_ERROR, loc_of(p, t), fmt, ap);
  va_end(ap);
}

/* "expected X, found Y" at the current token. */
static void expected(parser *p, const char *what) {
  if (p->tok.kind == TK_ERROR)
    error_at(p, &p->tok, "%s", p->tok.err);
  else if (p->tok.kind == TK_EOF)
    error_at(p, &p->tok, "expected %s, found end of file", what);
  else if (p->tok.kind == TK_VALUE || (p->tok.kind == TK_SYM && !p->tok.quoted))
    error_at(p, &p->tok, "expected %s, found '%c%.*s'", what, p->tok.kind == TK_VALUE ? '%' : '@',
             (int)p->tok.len, p->tok.s);
  else if (p->tok.kind == TK_STRING || p->tok.kind == TK_SYM)
    error_at(p, &p->tok, "expected %s, found %s\"%.*s\"", what, p->tok.kind == TK_SYM ? "@" : "",
             (int)p->tok.len, p->tok.s);
  else
    error_at(p, &p->tok, "expected %s, found '%.*s'", what, (int)p->tok.len, p->tok.s);
}

static bool accept(parser *p, vir_tok_kind k) {
  if (p->tok.kind != k)
    return false;
  next(p);
  return true;
}

static bool expect(parser *p, vir_tok_kind k) {
  if (accept(p, k))
    return true;
  expected(p, vir_tok_kind_name(k));
  return false;
}

static bool is_kw(const vir_token *t, const char *kw) {
  return t->kind == TK_IDENT && strlen(kw) == t->len && memcmp(t->s, kw, t->len) == 0;
}

static bool accept_kw(parser *p, const char *kw) {
  if (!is_kw(&p->tok, kw))
    return false;
  next(p);
  return true;
}

static bool expect_kw(parser *p, const char *kw) {
  if (accept_kw(p, kw))
    return true;
  char what[64];
  snprintf(what, sizeof what, "'%s'", kw);
  expected(p, what);
  return false;
}

/* A name token (symbol, identifier, quoted string) as an arena string. */
static char *tok_name(parser *p, const vir_token *t) {
  if (!t->quoted && t->kind != TK_STRING)
    return vp_arena_strndup(&p->m->arena, t->s, t->len);
  char *s = vp_arena_alloc(&p->m->arena, t->len + 1);
  if (!s)
    return NULL;
  size_t n = 0;
  for (uint32_t i = 0; i < t->len; i++) {
    char c = t->s[i];
    if (c == '\\' && i + 1 < t->len) {
      c = t->s[++i];
      if (c == 'n')
        c = '\n';
      else if (c == 't')
        c = '\t';
      else if (c == 'x' && i + 2 < t->len) {
        char hex[3] = {t->s[i + 1], t->s[i + 2], 0};
        c = (char)strtol(hex, NULL, 16);
        i += 2;
      }
    }
    s[n++] = c;
  }
  s[n] = 0;
  return s;
}

/* INT as a uint32; errors past 2^32 - 1. */
static bool parse_u32(parser *p, uint32_t *out) {
  if (p->tok.kind != TK_INT || p->tok.s[0] == '-') {
    expected(p, "an unsigned integer");
    return false;
  }
  uint64_t v = 0;
  for (uint32_t i = 0; i < p->tok.len; i++) {
    v = v * 10 + (uint64_t)(p->tok.s[i] - '0');
    if (v > UINT32_MAX) {
      error_at(p, &p->tok, "integer %.*s is too large", (int)p->tok.len, p->tok.s);
      return false;
    }
  }
  *out = (uint32_t)v;
  next(p);
  return true;
}

/* -------------------------------------------------------------- locations */

/* `(L:C)` straight from the text after 'loc' when it is exactly that (the
 * common case, one per op): digits, ':', digits, ')', no spaces. */
static bool fast_loc(parser *p, vp_loc *loc) {
  const char *s = p->lx.p, *end = p->lx.end;
  uint64_t v[2] = {0, 0};
  for (int k = 0; k < 2; k++) {
    const char *start = s;
    while (s < end && *s >= '0' && *s <= '9' && s - start < 9)
      v[k] = v[k] * 10 + (uint64_t)(*s++ - '0');
    if (s == start || s >= end || *s != (k ? ')' : ':'))
      return false;
    s++;
  }
  p->lx.p = s;
  *loc = (vp_loc){p->m->source_name, (uint32_t)v[0], (uint32_t)v[1]};
  next(p);
  return true;
}

/* loc := 'loc' '(' (STRING ':')? INT ':' INT ')' */
static bool parse_loc(parser *p, vp_loc *loc) {
  if (!accept_kw(p, "loc"))
    return true;
  if (p->tok.kind == TK_LPAREN && fast_loc(p, loc))
    return true;
  if (!expect(p, TK_LPAREN))
    return false;
  const char *file = p->m->source_name;
  if (p->tok.kind == TK_STRING) {
    char *name = tok_name(p, &p->tok);
    file = name ? vir_intern_file(p->m, name) : NULL;
    next(p);
    if (!expect(p, TK_COLON))
      return false;
  }
  uint32_t line, col;
  if (!parse_u32(p, &line) || !expect(p, TK_COLON) || !parse_u32(p, &col) || !expect(p, TK_RPAREN))
    return false;
  *loc = (vp_loc){file, line, col};
  return true;
}

/* ------------------------------------------------------------------ types */

static vir_type *parse_type(parser *p);

/* '<' type '>' */
static vir_type *parse_elem_type(parser *p) {
  if (!expect(p, TK_LT))
    return NULL;
  vir_type *t = parse_type(p);
  if (!t || !expect(p, TK_GT))
    return NULL;
  return t;
}

/* type := scalar | 'vec'N '<' scalar '>' | 'mat'C('x'R)? '<' float '>'
 *       | 'array' '<' type ',' INT '>' | SYM */
static vir_type *parse_type_inner(parser *p);

static vir_type *parse_type(parser *p) {
  if (p->type_depth >= 32) {
    error_at(p, &p->tok, "type nested more than 32 deep");
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
    char *name = t.quoted ? tok_name(p, &t) : NULL;
    vir_struct *st = name ? vp_map_get(&p->structs, name, strlen(name))
                          : vp_map_get(&p->structs, t.s, t.len);
    if (!st) {
      error_at(p, &t, "unknown struct @%.*s", (int)t.len, t.s);
      return NULL;
    }
    next(p);
    return vir_ty_struct(m, st);
  }
  if (t.kind != TK_IDENT) {
    expected(p, "a type");
    return NULL;
  }
  next(p);
  const char *s = t.s;
  uint32_t n = t.len;
  if (is_kw(&t, "void"))
    return vir_ty_void(m);
  if (is_kw(&t, "bool"))
    return vir_ty_bool(m);
  if (n >= 2 && n <= 3 && (s[0] == 'i' || s[0] == 'u' || s[0] == 'f')) {
    /* i8 .. f64: the width, digits only, no leading zero */
    unsigned bits = 0;
    bool digits = s[1] != '0';
    for (uint32_t i = 1; i < n; i++) {
      digits = digits && s[i] >= '0' && s[i] <= '9';
      bits = bits * 10 + (unsigned)(s[i] - '0');
    }
    if (digits) {
      if (s[0] != 'f' && (bits == 8 || bits == 16 || bits == 32 || bits == 64))
        return s[0] == 'i' ? vir_ty_int(m, bits) : vir_ty_uint(m, bits);
      if (s[0] == 'f' && (bits == 16 || bits == 32 || bits == 64))
        return vir_ty_float(m, bits);
    }
  }
  if (n == 4 && memcmp(s, "vec", 3) == 0 && s[3] >= '2' && s[3] <= '4') {
    vir_type *e = parse_elem_type(p);
    if (!e)
      return NULL;
    if (!vir_ty_is_scalar(e)) {
      error_at(p, &t, "vector elements must be scalars, not %s", e->str);
      return NULL;
    }
    return vir_ty_vec(m, e, (unsigned)(s[3] - '0'));
  }
  if ((n == 4 || (n == 6 && s[4] == 'x')) && memcmp(s, "mat", 3) == 0 && s[3] >= '2' &&
      s[3] <= '4' && (n == 4 || (s[5] >= '2' && s[5] <= '4'))) {
    unsigned cols = (unsigned)(s[3] - '0'), rows = n == 4 ? cols : (unsigned)(s[5] - '0');
    vir_type *e = parse_elem_type(p);
    if (!e)
      return NULL;
    if (e->kind != VIR_TY_FLOAT) {
      error_at(p, &t, "matrix elements must be floats, not %s", e->str);
      return NULL;
    }
    return vir_ty_mat(m, e, cols, rows);
  }
  if (is_kw(&t, "array")) {
    uint32_t len;
    if (!expect(p, TK_LT))
      return NULL;
    vir_type *e = parse_type(p);
    if (!e || !expect(p, TK_COMMA) || !parse_u32(p, &len) || !expect(p, TK_GT))
      return NULL;
    if (e->kind == VIR_TY_VOID) {
      error_at(p, &t, "array of void");
      return NULL;
    }
    return vir_ty_array(m, e, len);
  }
  error_at(p, &t, "unknown type '%.*s'", (int)t.len, t.s);
  return NULL;
}

/* --------------------------------------------------------------- literals */

/* literal := INT | FLOAT | '-'? ('inf' | 'nan') | 'true' | 'false', read
 * as a value of type `t` (the token `lt` was read before the type). */
static bool convert_literal(parser *p, const vir_token *lt, bool neg, const vir_type *t,
                            vir_literal *out) {
  char buf[64];
  *out = (vir_literal){0};
  if (!t || !vir_ty_is_scalar(t)) {
    error_at(p, lt, "a constant must have a scalar type, not %s", t ? t->str : "?");
    return false;
  }
  if (t->kind == VIR_TY_BOOL) {
    if (is_kw(lt, "true") || is_kw(lt, "false")) {
      out->b = is_kw(lt, "true");
      return true;
    }
    error_at(p, lt, "expected 'true' or 'false' for a bool constant");
    return false;
  }
  bool special = is_kw(lt, "inf") || is_kw(lt, "nan");
  if (t->kind == VIR_TY_FLOAT && special) {
    out->f = is_kw(lt, "nan") ? NAN : neg ? -INFINITY : INFINITY;
    return true;
  }
  if (lt->kind != TK_INT && !(lt->kind == TK_FLOAT && t->kind == VIR_TY_FLOAT)) {
    error_at(p, lt, "expected %s literal for type %s",
             t->kind == VIR_TY_FLOAT ? "a number" : "an integer", t->str);
    return false;
  }
  if (lt->len >= sizeof buf) {
    error_at(p, lt, "literal too long");
    return false;
  }
  memcpy(buf, lt->s, lt->len);
  buf[lt->len] = 0;
  errno = 0;
  if (t->kind == VIR_TY_FLOAT) {
    double d = strtod(buf, NULL);
    if (t->bits == 32)
      d = strtof(buf, NULL);
    else if (t->bits == 16)
      d = vir_round_f16(d);
    if (isinf(d)) {
      error_at(p, lt, "literal %s is out of range for %s", buf, t->str);
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
    error_at(p, lt, "literal %s is out of range for %s", buf, t->str);
  return ok;
}

/* Reads the literal tokens; returns the (last) token and whether a '-'
 * came before `inf`. */
static bool read_literal(parser *p, vir_token *lt, bool *neg) {
  *neg = accept(p, TK_MINUS);
  *lt = p->tok;
  if (p->tok.kind == TK_INT || p->tok.kind == TK_FLOAT || p->tok.kind == TK_IDENT) {
    if (*neg && !is_kw(lt, "inf")) {
      expected(p, "'inf' after '-'");
      return false;
    }
    next(p);
    return true;
  }
  expected(p, "a literal");
  return false;
}

/* ----------------------------------------------------------------- values */

/* %N with N small enough for the array, or -1. */
static int64_t value_number(const vir_token *t) {
  if (t->len > 9 || t->s[0] < '0' || t->s[0] > '9' || (t->s[0] == '0' && t->len > 1))
    return -1;
  int64_t v = 0;
  for (uint32_t i = 0; i < t->len; i++) {
    if (t->s[i] < '0' || t->s[i] > '9')
      return -1;
    v = v * 10 + (t->s[i] - '0');
  }
  return v;
}

static vir_value *lookup_value(parser *p, const vir_token *t) {
  int64_t n = value_number(t);
  if (n >= 0 && (uint64_t)n < p->nnumbered && p->numbered[n])
    return p->numbered[n];
  return vp_map_get(&p->values, t->s, t->len);
}

/* Enters %name -> v. Names made only of digits get no name hint; they are
 * the printer's numbering. */
static void define_value(parser *p, const vir_token *t, vir_value *v) {
  int64_t n = value_number(t);
  if (n >= 0 ? lookup_value(p, t) != NULL : false) {
    error_at(p, t, "redefinition of %%%.*s", (int)t->len, t->s);
    return;
  }
  if (n >= 0 && (uint64_t)n < 2 * (uint64_t)p->nnumbered + 1024) {
    if ((uint64_t)n >= p->nnumbered) {
      uint32_t cap = p->nnumbered ? p->nnumbered : 256;
      while (cap <= (uint64_t)n)
        cap *= 2;
      vir_value **a = vp_arena_alloc(&p->tmp, cap * sizeof *a);
      if (!a)
        return;
      if (p->nnumbered)
        memcpy(a, p->numbered, p->nnumbered * sizeof *a);
      p->numbered = a;
      p->nnumbered = cap;
    }
    p->numbered[n] = v;
    if ((uint32_t)n + 1 > p->maxnum)
      p->maxnum = (uint32_t)n + 1;
    return;
  }
  bool found;
  void **slot = vp_map_insert(&p->tmp, &p->values, t->s, t->len, &found);
  if (found) {
    error_at(p, t, "redefinition of %%%.*s", (int)t->len, t->s);
    return;
  }
  if (slot)
    *slot = v;
  if (v && n < 0)
    v->name = vp_arena_strndup(&p->m->arena, t->s, t->len);
}

static vir_value *parse_value(parser *p) {
  if (p->tok.kind != TK_VALUE) {
    expected(p, "a value");
    return NULL;
  }
  vir_value *v = lookup_value(p, &p->tok);
  if (!v)
    error_at(p, &p->tok, "use of undefined value %%%.*s", (int)p->tok.len, p->tok.s);
  next(p);
  return v;
}

/* ------------------------------------------------------------------- ops */

typedef struct opnds {
  vir_value *v[8];
  vir_value **data;
  uint32_t n, cap;
  parser *p;
} opnds;

static void opnds_push(opnds *o, vir_value *v) {
  if (o->n == o->cap) {
    uint32_t cap = o->cap * 2;
    vir_value **d = vp_arena_alloc(&o->p->tmp, cap * sizeof *d);
    if (!d)
      return;
    memcpy(d, o->data, o->n * sizeof *d);
    o->data = d;
    o->cap = cap;
  }
  o->data[o->n++] = v;
}

/* values := value (',' value)* ; only on the op's own line, so that an
 * operand-less op is not followed into the next line's result name */
static bool parse_values(parser *p, opnds *o, uint32_t line, bool lead_comma) {
  if (lead_comma) {
    if (p->tok.kind != TK_COMMA || p->tok.line != line)
      return true;
    next(p);
  } else if (p->tok.kind != TK_VALUE || p->tok.line != line) {
    return true;
  }
  do {
    if (p->tok.kind != TK_VALUE) {
      expected(p, "a value");
      return false;
    }
    vir_value *v = parse_value(p);
    opnds_push(o, v);
  } while (accept(p, TK_COMMA));
  return true;
}

static const char comps[] = "xyzw";

/* path := ('.' NAME | '[' INT ']')* ; names are struct fields or vector
 * components, each checked against the type reached so far */
static bool parse_path(parser *p, const vir_type *t, vir_attr *a) {
  for (;;) {
    vir_token start = p->tok;
    if (accept(p, TK_DOT)) {
      if (p->tok.kind != TK_IDENT && p->tok.kind != TK_STRING) {
        expected(p, "a field or component name");
        return false;
      }
      /* a dotted identifier is several steps */
      vir_token name = p->tok;
      const char *s = name.s, *end = name.s + name.len;
      next(p);
      while (s < end) {
        const char *e = name.kind == TK_STRING ? end : memchr(s, '.', (size_t)(end - s));
        if (!e)
          e = end;
        size_t n = (size_t)(e - s);
        int k = -1;
        if (t && t->kind == VIR_TY_STRUCT) {
          char *fname = name.kind == TK_STRING ? tok_name(p, &name) : vp_arena_strndup(&p->tmp, s, n);
          k = fname ? vir_struct_find(t->st, fname) : -1;
          if (k < 0) {
            error_at(p, &name, "no field '%.*s' in %s", (int)n, s, t->str);
            return false;
          }
        } else if (t && t->kind == VIR_TY_VEC && n == 1 && *s && strchr(comps, *s)) {
          k = (int)(strchr(comps, *s) - comps);
          if (k >= t->n) {
            error_at(p, &name, "component '%c' is out of range for %s", *s, t->str);
            return false;
          }
        } else {
          error_at(p, &name, "'.%.*s' does not name a member of %s", (int)n, s, t ? t->str : "?");
          return false;
        }
        if (a->npath == VIR_MAX_PATH) {
          error_at(p, &start, "access path longer than %d steps", VIR_MAX_PATH);
          return false;
        }
        a->path[a->npath++] = (uint8_t)k;
        t = vir_type_member(t, (uint32_t)k);
        s = e + 1;
      }
    } else if (p->tok.kind == TK_LBRACKET) {
      next(p);
      uint32_t k;
      if (!parse_u32(p, &k) || !expect(p, TK_RBRACKET))
        return false;
      if (!t || (t->kind != VIR_TY_ARRAY && t->kind != VIR_TY_MAT) || !vir_type_member(t, k)) {
        error_at(p, &start, "'[%u]' does not index %s", k, t ? t->str : "?");
        return false;
      }
      if (a->npath == VIR_MAX_PATH) {
        error_at(p, &start, "access path longer than %d steps", VIR_MAX_PATH);
        return false;
      }
      a->path[a->npath++] = (uint8_t)k;
      t = vir_type_member(t, k);
    } else {
      return true;
    }
  }
}

static bool op_has_index(vir_opcode c) {
  switch (c) {
  case VIR_OP_BUFFER_LOAD:
  case VIR_OP_BUFFER_STORE:
  case VIR_OP_SHARED_LOAD:
  case VIR_OP_SHARED_STORE: return true;
  default: return vir_op_info_of(c)->attr == VIR_ATTR_ATOMIC;
  }
}

/* access := SYM ('[' value ']')? path */
static bool parse_access(parser *p, vir_opcode code, vir_attr *a, opnds *o) {
  if (p->tok.kind != TK_SYM) {
    expected(p, "a symbol");
    return false;
  }
  vir_token t = p->tok;
  char *name = t.quoted ? tok_name(p, &t) : NULL;
  const char *s = name ? name : t.s;
  size_t n = name ? strlen(name) : t.len;
  bool local_op = code == VIR_OP_LOCAL_LOAD || code == VIR_OP_LOCAL_STORE;
  vir_sym *sym = NULL;
  if (local_op && p->f)
    sym = vp_map_get(&p->f->localtab, s, n);
  if (!sym)
    sym = vp_map_get(&p->m->symtab, s, n);
  if (!sym && !local_op && p->f)
    sym = vp_map_get(&p->f->localtab, s, n);
  if (!sym) {
    error_at(p, &t, "unknown symbol @%.*s", (int)n, s);
    return false;
  }
  next(p);
  a->sym = sym;
  if (op_has_index(code)) {
    if (!expect(p, TK_LBRACKET))
      return false;
    opnds_push(o, parse_value(p));
    if (!expect(p, TK_RBRACKET))
      return false;
  }
  return parse_path(p, vir_sym_path_base(sym), a);
}

static bool parse_scope_sem(parser *p, vir_attr *a) {
  for (int s = 0; s <= VIR_SCOPE_QUEUE_FAMILY; s++)
    if (accept_kw(p, vir_scope_name((vir_scope)s))) {
      a->scope = (vir_scope)s;
      for (int m = 0; m <= VIR_SEM_SEQ_CST; m++)
        if (accept_kw(p, vir_semantics_name((vir_semantics)m))) {
          a->sem = (vir_semantics)m;
          return true;
        }
      expected(p, "memory semantics (relaxed, acquire, release, acq_rel, seq_cst)");
      return false;
    }
  expected(p, "a scope (invocation, subgroup, workgroup, device, queue_family)");
  return false;
}

static bool parse_region(parser *p, vir_region *r);

/* The op-specific part after the op name; fills `o`, `a`, the flags. */
static bool parse_op_body(parser *p, vir_opcode code, uint32_t line, opnds *o, vir_attr *a,
                          vir_token *lit, bool *lit_neg, vir_token *callee, vir_token *ivar) {
  const vir_op_info *info = vir_op_info_of(code);
  switch ((vir_attr_kind)info->attr) {
  case VIR_ATTR_NONE:
    if (code == VIR_OP_FOR) {
      /* for %i = %lo to %hi step %s */
      if (p->tok.kind != TK_VALUE) {
        expected(p, "the induction variable");
        return false;
      }
      *ivar = p->tok;
      next(p);
      if (!expect(p, TK_EQ))
        return false;
      opnds_push(o, parse_value(p));
      if (!expect_kw(p, "to"))
        return false;
      opnds_push(o, parse_value(p));
      if (!expect_kw(p, "step"))
        return false;
      opnds_push(o, parse_value(p));
      return true;
    }
    return parse_values(p, o, line, false);
  case VIR_ATTR_CONST: return read_literal(p, lit, lit_neg);
  case VIR_ATTR_SYM:
  case VIR_ATTR_ATOMIC:
    if (!parse_access(p, code, a, o) || !parse_values(p, o, line, true))
      return false;
    return info->attr == VIR_ATTR_SYM || parse_scope_sem(p, a);
  case VIR_ATTR_INDEX: {
    opnds_push(o, parse_value(p));
    uint32_t k;
    if (!expect(p, TK_LBRACKET) || !parse_u32(p, &k) || !expect(p, TK_RBRACKET))
      return false;
    a->index = k;
    return parse_values(p, o, line, true);
  }
  case VIR_ATTR_SWIZZLE: {
    opnds_push(o, parse_value(p));
    if (!expect(p, TK_DOT))
      return false;
    vir_token t = p->tok;
    bool comps_ok = t.kind == TK_IDENT && t.len <= 4;
    for (uint32_t i = 0; comps_ok && i < t.len; i++)
      comps_ok = t.s[i] && strchr(comps, t.s[i]);
    if (!comps_ok) {
      expected(p, "1 to 4 components of xyzw");
      return false;
    }
    for (uint32_t i = 0; i < t.len; i++)
      a->swz[i] = (uint8_t)(strchr(comps, t.s[i]) - comps);
    a->nswz = (uint8_t)t.len;
    next(p);
    return true;
  }
  case VIR_ATTR_SCOPE:
    if (!parse_scope_sem(p, a))
      return false;
    if (accept_kw(p, "buffer"))
      a->storage = VIR_STORAGE_BUFFER;
    else if (accept_kw(p, "shared"))
      a->storage = VIR_STORAGE_SHARED;
    else if (accept_kw(p, "all"))
      a->storage = VIR_STORAGE_BUFFER | VIR_STORAGE_SHARED;
    else {
      expected(p, "'buffer', 'shared' or 'all'");
      return false;
    }
    return true;
  case VIR_ATTR_CALL:
    if (p->tok.kind != TK_SYM) {
      expected(p, "the callee");
      return false;
    }
    *callee = p->tok;
    next(p);
    if (!expect(p, TK_LPAREN))
      return false;
    if (p->tok.kind != TK_RPAREN) {
      do
        opnds_push(o, parse_value(p));
      while (accept(p, TK_COMMA));
    }
    return expect(p, TK_RPAREN);
  }
  return false;
}

/* op := (VALUE '=')? NAME 'volatile'? body (':' type)? loc? region* */
static bool parse_op(parser *p, vir_region *r) {
  vir_token start = p->tok, result = {0};
  if (p->tok.kind == TK_VALUE) {
    result = p->tok;
    next(p);
    if (!expect(p, TK_EQ))
      return false;
  }
  vir_token name = p->tok;
  if (name.kind != TK_IDENT) {
    expected(p, "an op");
    goto poison;
  }
  uintptr_t c = (uintptr_t)vp_map_get(&p->opnames, name.s, name.len);
  if (!c) {
    error_at(p, &name, "unknown op '%.*s'", (int)name.len, name.s);
    goto poison;
  }
  vir_opcode code = (vir_opcode)(c - 1);
  const vir_op_info *info = vir_op_info_of(code);
  next(p);
  uint32_t flags = accept_kw(p, "volatile") ? VIR_OPF_VOLATILE : 0;
  vir_value *inline_v[8];
  opnds o = {.data = inline_v, .cap = 8, .p = p};
  vir_attr a = {0};
  vir_token lit = {0}, callee = {0}, ivar = {0};
  bool lit_neg = false;
  if (!parse_op_body(p, code, name.line, &o, &a, &lit, &lit_neg, &callee, &ivar))
    goto poison;
  vir_type *type = NULL;
  if (accept(p, TK_COLON) && !(type = parse_type(p)))
    goto poison;
  bool has_result = info->result != VIR_RES_VOID;
  if (!has_result && (type || result.kind)) {
    error_at(p, result.kind ? &result : &name, "'%s' has no result", info->name);
    goto poison;
  }
  if (has_result && !type && code != VIR_OP_CALL) {
    type = vir_infer_type(p->m, code, o.n, o.data);
    if (!type) {
      error_at(p, &name, "missing ': TYPE' after '%s'", info->name);
      goto poison;
    }
  }
  if (code == VIR_OP_CALL && !type && result.kind) {
    error_at(p, &result, "missing ': TYPE' after 'call' with a result");
    goto poison;
  }
  vir_literal litv = {0};
  if (info->attr == VIR_ATTR_CONST && !convert_literal(p, &lit, lit_neg, type, &litv))
    goto poison;
  vp_loc loc = loc_of(p, &start);
  if (!parse_loc(p, &loc))
    goto poison;

  vir_op *op = vir_new_op(p->m, p->f, code, type, o.n, o.data);
  if (!op)
    return false;
  op->flags = flags;
  op->attr = a;
  op->attr.lit = litv;
  op->loc = loc;
  vir_region_insert(r, NULL, op);
  if (callee.kind) {
    vp_ptrvec_push(&p->tmp, &p->calls, op);
    vir_token *ct = vp_arena_alloc(&p->tmp, sizeof *ct);
    if (ct)
      *ct = callee;
    vp_ptrvec_push(&p->tmp, &p->callee_names, ct);
  }
  if (result.kind)
    define_value(p, &result, &op->val);
  if (ivar.kind)
    define_value(p, &ivar, op->regions[0].args[0]);

  if (!info->nregion && p->tok.line == name.line && p->tok.kind != TK_RBRACE &&
      p->tok.kind != TK_EOF) {
    expected(p, "the end of the line");
    return false;
  }
  /* regions: if { } (else { })?, while { } do { }, loop/for { } */
  for (uint32_t i = 0; i < info->nregion; i++) {
    if (i == 1) {
      if (code == VIR_OP_IF && !accept_kw(p, "else"))
        break;
      if (code == VIR_OP_WHILE && !expect_kw(p, "do"))
        return false;
    }
    if (!parse_region(p, &op->regions[i]))
      return false;
  }
  return true;

poison:
  /* Keep the name defined so that its uses do not each report an error. */
  if (result.kind && !lookup_value(p, &result))
    define_value(p, &result, vir_new_value(p->f, &p->tmp, NULL, NULL));
  return false;
}

/* Skips the rest of the erroneous line, and any region it opened (up to
 * and including the line its closing brace is on). */
static void recover(parser *p, uint32_t line) {
  int depth = 0;
  while (p->tok.kind != TK_EOF && (p->tok.line == line || depth > 0)) {
    if (p->tok.kind == TK_LBRACE) {
      depth++;
    } else if (p->tok.kind == TK_RBRACE) {
      if (depth == 0)
        return; /* the enclosing region's end */
      depth--;
    }
    line = p->tok.line;
    next(p);
  }
}

/* local := 'local' SYM ':' type loc? */
static bool parse_local(parser *p) {
  vir_token t = p->tok;
  next(p);
  if (p->tok.kind != TK_SYM) {
    expected(p, "a symbol");
    return false;
  }
  vir_token name = p->tok;
  next(p);
  vir_type *ty;
  if (!expect(p, TK_COLON) || !(ty = parse_type(p)))
    return false;
  vp_loc loc = loc_of(p, &t);
  if (!parse_loc(p, &loc))
    return false;
  char *s = tok_name(p, &name);
  if (p->f && s)
    vir_func_add_local(p->m, p->f, s, ty, loc);
  return true;
}

/* region := '{' (op | local)* '}' ; locals only in a function body */
static bool parse_region(parser *p, vir_region *r) {
  if (!expect(p, TK_LBRACE))
    return false;
  if (++p->depth > VIR_MAX_DEPTH) {
    error_at(p, &p->tok, "regions nested more than %d deep", VIR_MAX_DEPTH);
    p->depth--;
    return false;
  }
  while (p->tok.kind != TK_RBRACE && p->tok.kind != TK_EOF && p->nerrors <= MAX_ERRORS) {
    uint32_t line = p->tok.line;
    bool ok = r->parent_op == NULL && is_kw(&p->tok, "local") ? parse_local(p) : parse_op(p, r);
    if (!ok)
      recover(p, line);
  }
  p->depth--;
  return expect(p, TK_RBRACE);
}

/* ----------------------------------------------------------- declarations */

static void reset_values(parser *p) {
  vp_map_clear(&p->values);
  if (p->maxnum)
    memset(p->numbered, 0, p->maxnum * sizeof *p->numbered);
  p->maxnum = 0;
}

/* func := 'func' SYM '(' (VALUE ':' type (',' VALUE ':' type)*)? ')' ('->' type)? loc? region
 * kernel := 'kernel' SYM 'local_size' '(' INT ',' INT ',' INT ')' loc? region */
static bool parse_func(parser *p, bool kernel) {
  vir_token start = p->tok;
  next(p);
  if (p->tok.kind != TK_SYM) {
    expected(p, "the function name");
    return false;
  }
  vir_token name = p->tok;
  next(p);
  reset_values(p);
  vir_token pnames[64];
  vir_type *ptypes[64];
  uint32_t np = 0, ls[3] = {1, 1, 1};
  vir_type *ret = NULL;
  if (kernel) {
    if (!expect_kw(p, "local_size") || !expect(p, TK_LPAREN) || !parse_u32(p, &ls[0]) ||
        !expect(p, TK_COMMA) || !parse_u32(p, &ls[1]) || !expect(p, TK_COMMA) ||
        !parse_u32(p, &ls[2]) || !expect(p, TK_RPAREN))
      return false;
  } else {
    if (!expect(p, TK_LPAREN))
      return false;
    if (p->tok.kind != TK_RPAREN) {
      do {
        if (np == 64) {
          error_at(p, &p->tok, "more than 64 parameters");
          return false;
        }
        if (p->tok.kind != TK_VALUE) {
          expected(p, "a parameter");
          return false;
        }
        pnames[np] = p->tok;
        next(p);
        if (!expect(p, TK_COLON) || !(ptypes[np] = parse_type(p)))
          return false;
        np++;
      } while (accept(p, TK_COMMA));
    }
    if (!expect(p, TK_RPAREN))
      return false;
    if (accept(p, TK_ARROW) && !(ret = parse_type(p)))
      return false;
  }
  vp_loc loc = loc_of(p, &start);
  if (!parse_loc(p, &loc))
    return false;
  char *fname = tok_name(p, &name);
  if (!fname)
    return false;
  vir_func *f = vir_add_func(p->m, fname, kernel, ret, np, ptypes, NULL, loc);
  if (!f)
    return false;
  memcpy(f->local_size, ls, sizeof ls);
  p->f = f;
  for (uint32_t i = 0; i < np; i++)
    define_value(p, &pnames[i], f->body.args[i]);
  bool ok = parse_region(p, &f->body);
  p->f = NULL;
  return ok;
}

/* fields := '{' (NAME ':' type loc? (',' NAME ':' type loc?)*)? '}' */
static bool parse_fields(parser *p, vir_struct *st) {
  if (!expect(p, TK_LBRACE))
    return false;
  if (p->tok.kind != TK_RBRACE) {
    do {
      vir_token name = p->tok;
      if (name.kind != TK_IDENT && name.kind != TK_STRING) {
        expected(p, "a field name");
        return false;
      }
      next(p);
      vir_type *t;
      if (!expect(p, TK_COLON) || !(t = parse_type(p)))
        return false;
      vp_loc loc = {0};
      if (!parse_loc(p, &loc))
        return false;
      char *fname = tok_name(p, &name);
      if (!fname)
        return false;
      if (vir_struct_find(st, fname) >= 0) {
        error_at(p, &name, "duplicate field '%s' in @%s", fname, st->name);
        return false;
      }
      vir_struct_add_field(p->m, st, fname, t, loc);
    } while (accept(p, TK_COMMA));
  }
  if (!expect(p, TK_RBRACE))
    return false;
  vir_struct_layout(st);
  return true;
}

/* decl := struct | push | buffer | shared | const | func | kernel
 *   struct := 'struct' SYM fields loc?
 *   push   := 'push' SYM fields loc?
 *   buffer := 'buffer' SYM ':' type '[' ']' 'binding' '(' INT ',' INT ')'
 *             ('readwrite' | 'readonly' | 'writeonly') ('coherent' | 'volatile')* loc?
 *   shared := 'shared' SYM ':' type loc?
 *   const  := 'const' SYM ':' type '=' literal loc? */
static bool parse_decl(parser *p) {
  vir_token kw = p->tok;
  if (is_kw(&kw, "func") || is_kw(&kw, "kernel"))
    return parse_func(p, is_kw(&kw, "kernel"));
  bool is_struct = is_kw(&kw, "struct"), is_push = is_kw(&kw, "push");
  bool is_buffer = is_kw(&kw, "buffer"), is_shared = is_kw(&kw, "shared");
  bool is_const = is_kw(&kw, "const");
  if (!is_struct && !is_push && !is_buffer && !is_shared && !is_const) {
    expected(p, "a declaration (struct, push, buffer, shared, const, func, kernel)");
    return false;
  }
  next(p);
  if (p->tok.kind != TK_SYM) {
    expected(p, "a symbol");
    return false;
  }
  vir_token nt = p->tok;
  char *name = tok_name(p, &nt);
  if (!name)
    return false;
  next(p);
  vp_loc loc = loc_of(p, &kw);
  if (is_struct || is_push) {
    if (is_struct && vp_map_get(&p->structs, name, strlen(name))) {
      error_at(p, &nt, "redefinition of struct @%s", name);
      return false;
    }
    vir_struct *st = vir_struct_create(p->m, name, loc);
    if (!st || !parse_fields(p, st) || !parse_loc(p, &st->loc))
      return false;
    if (is_struct)
      vp_map_put(&p->tmp, &p->structs, st->name, strlen(st->name), st);
    else
      vir_add_push(p->m, name, st, st->loc);
    return true;
  }
  vir_type *t;
  if (!expect(p, TK_COLON) || !(t = parse_type(p)))
    return false;
  if (is_shared) {
    if (!parse_loc(p, &loc))
      return false;
    vir_add_shared(p->m, name, t, loc);
    return true;
  }
  if (is_const) {
    vir_token lt;
    bool neg;
    vir_literal v;
    if (!expect(p, TK_EQ) || !read_literal(p, &lt, &neg) || !convert_literal(p, &lt, neg, t, &v) ||
        !parse_loc(p, &loc))
      return false;
    vir_add_const(p->m, name, t, v, loc);
    return true;
  }
  uint32_t set, binding;
  if (!expect(p, TK_LBRACKET) || !expect(p, TK_RBRACKET) || !expect_kw(p, "binding") ||
      !expect(p, TK_LPAREN) || !parse_u32(p, &set) || !expect(p, TK_COMMA) ||
      !parse_u32(p, &binding) || !expect(p, TK_RPAREN))
    return false;
  vir_access access;
  if (accept_kw(p, "readwrite"))
    access = VIR_ACCESS_READWRITE;
  else if (accept_kw(p, "readonly"))
    access = VIR_ACCESS_READONLY;
  else if (accept_kw(p, "writeonly"))
    access = VIR_ACCESS_WRITEONLY;
  else {
    expected(p, "'readwrite', 'readonly' or 'writeonly'");
    return false;
  }
  uint32_t flags = 0;
  for (;;) {
    if (accept_kw(p, "coherent"))
      flags |= VIR_BUF_COHERENT;
    else if (accept_kw(p, "volatile"))
      flags |= VIR_BUF_VOLATILE;
    else
      break;
  }
  if (!parse_loc(p, &loc))
    return false;
  vir_sym *s = vir_add_buffer(p->m, name, t, set, binding, access, loc);
  if (s)
    s->buf_flags = flags;
  return true;
}

/* Skips to the next line that starts (column 1) with a declaration word. */
static void recover_decl(parser *p) {
  next(p);
  while (p->tok.kind != TK_EOF && !(p->tok.col == 1 && p->tok.kind == TK_IDENT))
    next(p);
}

static void resolve_calls(parser *p) {
  for (uint32_t i = 0; i < p->calls.len; i++) {
    vir_op *op = p->calls.data[i];
    vir_token *t = p->callee_names.data[i];
    char *name = tok_name(p, t);
    vir_sym *s = name ? vir_module_find(p->m, name) : NULL;
    if (!s)
      error_at(p, t, "call to unknown function @%s", name ? name : "?");
    op->attr.sym = s;
  }
}

/* module := ('module' STRING loc?)? decl* */
vir_module *vir_parse(const char *text, size_t len, const char *filename, vp_diags *diags) {
  parser p = {.diags = diags};
  p.m = vir_module_create(NULL);
  if (!p.m)
    return NULL;
  /* Not interned: ops without loc(...) point here, which tells the printer
   * to leave their (text) position out. */
  p.file = p.m->text_file = vp_arena_strdup(&p.m->arena, filename ? filename : "<input>");
  for (int c = 0; c < VIR_OP_COUNT; c++) {
    const char *n = vir_op_infos[c].name;
    vp_map_put(&p.tmp, &p.opnames, n, strlen(n), (void *)(uintptr_t)(c + 1));
  }
  vir_lex_init(&p.lx, text, len);
  next(&p);
  if (accept_kw(&p, "module")) {
    if (p.tok.kind == TK_STRING) {
      char *name = tok_name(&p, &p.tok);
      p.m->source_name = name ? vir_intern_file(p.m, name) : NULL;
      next(&p);
    } else {
      expected(&p, "the source file name");
      recover_decl(&p);
    }
  }
  while (p.tok.kind != TK_EOF && p.nerrors <= MAX_ERRORS) {
    if (!parse_decl(&p))
      recover_decl(&p);
  }
  if (!p.nerrors)
    resolve_calls(&p);
  if (p.nerrors > MAX_ERRORS)
    vp_diag_add(diags, VP_NOTE, (vp_loc){0}, "too many errors; stopped after %d", MAX_ERRORS);
  vp_arena_free(&p.tmp);
  if (p.nerrors) {
    vir_module_destroy(p.m);
    return NULL;
  }
  return p.m;
}
