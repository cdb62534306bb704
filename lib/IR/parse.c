/* parse.c - recursive-descent parser for the VIR text (docs/ir.md):
 * tokens, locations, declarations, functions and the module.
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
#include "parse.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- basics */

void pr_error(parser *p, const vir_token *t, const char *fmt, ...) {
  p->nerrors++;
  if (p->nerrors > MAX_ERRORS)
    return;
  va_list ap;
  va_start(ap, fmt);
  vp_diag_vadd(p->diags, VP_ERROR, pr_loc_of(p, t), fmt, ap);
  va_end(ap);
}

/* "expected X, found Y" at the current token. */
void pr_expected(parser *p, const char *what) {
  if (p->tok.kind == TK_ERROR)
    pr_error(p, &p->tok, "%s", p->tok.err);
  else if (p->tok.kind == TK_EOF)
    pr_error(p, &p->tok, "expected %s, found end of file", what);
  else if (p->tok.kind == TK_VALUE || (p->tok.kind == TK_SYM && !p->tok.quoted))
    pr_error(p, &p->tok, "expected %s, found '%c%.*s'", what, p->tok.kind == TK_VALUE ? '%' : '@',
             (int)p->tok.len, p->tok.s);
  else if (p->tok.kind == TK_STRING || p->tok.kind == TK_SYM)
    pr_error(p, &p->tok, "expected %s, found %s\"%.*s\"", what, p->tok.kind == TK_SYM ? "@" : "",
             (int)p->tok.len, p->tok.s);
  else /* a loc(L:C) token is named by its word */
    pr_error(p, &p->tok, "expected %s, found '%.*s'", what,
             (int)(p->tok.kind == TK_LOC ? 3 : p->tok.len), p->tok.s);
}

bool pr_expect_slow(parser *p, vir_tok_kind k) {
  pr_expected(p, vir_tok_kind_name(k));
  return false;
}

bool pr_expect_kw(parser *p, const char *kw) {
  if (pr_accept_kw(p, kw))
    return true;
  char what[64];
  snprintf(what, sizeof what, "'%s'", kw);
  pr_expected(p, what);
  return false;
}

/* A name token (symbol, identifier, quoted string) as an arena string. */
char *pr_tok_name(parser *p, const vir_token *t) {
  if (!(t->kind == TK_SYM && t->quoted) && t->kind != TK_STRING)
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
bool pr_u32(parser *p, uint32_t *out) {
  if (p->tok.kind != TK_INT || p->tok.s[0] == '-') {
    pr_expected(p, "an unsigned integer");
    return false;
  }
  uint64_t v = 0;
  for (uint32_t i = 0; i < p->tok.len; i++) {
    v = v * 10 + (uint64_t)(p->tok.s[i] - '0');
    if (v > UINT32_MAX) {
      pr_error(p, &p->tok, "integer %.*s is too large", (int)p->tok.len, p->tok.s);
      return false;
    }
  }
  *out = (uint32_t)v;
  pr_next(p);
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
  pr_next(p);
  return true;
}

/* loc := 'loc' '(' (STRING ':')? INT ':' INT ')' */
bool pr_loc_slow(parser *p, vp_loc *loc) {
  if (!pr_accept_k(p, KW_LOC))
    return true;
  if (p->tok.kind == TK_LPAREN && fast_loc(p, loc))
    return true;
  if (!pr_expect(p, TK_LPAREN))
    return false;
  const char *file = p->m->source_name;
  if (p->tok.kind == TK_STRING) {
    char *name = pr_tok_name(p, &p->tok);
    file = name ? vir_intern_file(p->m, name) : NULL;
    pr_next(p);
    if (!pr_expect(p, TK_COLON))
      return false;
  }
  uint32_t line, col;
  if (!pr_u32(p, &line) || !pr_expect(p, TK_COLON) || !pr_u32(p, &col) || !pr_expect(p, TK_RPAREN))
    return false;
  *loc = (vp_loc){file, line, col};
  return true;
}

/* ----------------------------------------------------------- declarations */

/* func := 'func' SYM '(' (VALUE ':' type (',' VALUE ':' type)*)? ')' ('->' type)? loc? region
 * kernel := 'kernel' SYM 'local_size' '(' INT ',' INT ',' INT ')' loc? region */
static bool parse_func(parser *p, bool kernel) {
  vir_token start, name;
  if (!pr_decl_head(p, &start, &name))
    return false;
  vir_token pnames[64];
  vir_type *ptypes[64];
  uint32_t np = 0, ls[3] = {1, 1, 1};
  vir_type *ret = NULL;
  if (kernel) {
    if (!pr_expect_kw(p, "local_size") || !pr_expect(p, TK_LPAREN) || !pr_u32(p, &ls[0]) ||
        !pr_expect(p, TK_COMMA) || !pr_u32(p, &ls[1]) || !pr_expect(p, TK_COMMA) ||
        !pr_u32(p, &ls[2]) || !pr_expect(p, TK_RPAREN))
      return false;
  } else {
    if (!pr_expect(p, TK_LPAREN))
      return false;
    if (p->tok.kind != TK_RPAREN) {
      do {
        if (np == 64) {
          pr_error(p, &p->tok, "more than 64 parameters");
          return false;
        }
        if (p->tok.kind != TK_VALUE) {
          pr_expected(p, "a parameter");
          return false;
        }
        pnames[np] = p->tok;
        pr_next(p);
        if (!pr_expect(p, TK_COLON) || !(ptypes[np] = pr_type(p)))
          return false;
        np++;
      } while (pr_accept(p, TK_COMMA));
    }
    if (!pr_expect(p, TK_RPAREN))
      return false;
    if (pr_accept(p, TK_ARROW) && !(ret = pr_type(p)))
      return false;
  }
  vp_loc loc = pr_loc_of(p, &start);
  if (!pr_loc(p, &loc))
    return false;
  char *fname = pr_tok_name(p, &name);
  if (!fname)
    return false;
  vir_func *f = vir_add_func(p->m, fname, kernel, ret, np, ptypes, NULL, loc);
  if (!f)
    return false;
  memcpy(f->local_size, ls, sizeof ls);
  p->f = f;
  for (uint32_t i = 0; i < np; i++)
    pr_define_value(p, &pnames[i], f->body.args[i]);
  bool ok = pr_region(p, &f->body);
  p->f = NULL;
  return ok;
}

/* fields := '{' (NAME ':' type loc? (',' NAME ':' type loc?)*)? '}' */
static bool parse_fields(parser *p, vir_struct *st) {
  if (!pr_expect(p, TK_LBRACE))
    return false;
  if (p->tok.kind != TK_RBRACE) {
    do {
      vir_token name = p->tok;
      if (name.kind != TK_IDENT && name.kind != TK_STRING) {
        pr_expected(p, "a field name");
        return false;
      }
      pr_next(p);
      vir_type *t;
      if (!pr_expect(p, TK_COLON) || !(t = pr_type(p)))
        return false;
      vp_loc loc = {0};
      if (!pr_loc(p, &loc))
        return false;
      char *fname = pr_tok_name(p, &name);
      if (!fname)
        return false;
      if (vir_struct_find(st, fname) >= 0) {
        pr_error(p, &name, "duplicate field '%s' in @%s", fname, st->name);
        return false;
      }
      vir_struct_add_field(p->m, st, fname, t, loc);
    } while (pr_accept(p, TK_COMMA));
  }
  if (!pr_expect(p, TK_RBRACE))
    return false;
  vir_struct_layout(st);
  return true;
}

/* decl := struct | push | buffer | shared | const | func | kernel | array
 *   struct := 'struct' SYM fields loc?
 *   push   := 'push' SYM fields loc?
 *   buffer := 'buffer' SYM ':' type '[' INT? ']' 'binding' '(' INT ',' INT ')'
 *             ('readwrite' | 'readonly' | 'writeonly') ('coherent' | 'volatile' | 'nonprivate')* loc?
 *   shared := 'shared' SYM ':' type loc?
 *   const  := 'const' SYM ':' type '=' literal loc? */
static bool parse_decl(parser *p) {
  vir_token kw = p->tok;
  if (pr_is_kw(&kw, "func") || pr_is_kw(&kw, "kernel"))
    return parse_func(p, pr_is_kw(&kw, "kernel"));
  if (pr_is_kw(&kw, "array"))
    return pr_array_func(p);
  bool is_struct = pr_is_kw(&kw, "struct"), is_push = pr_is_kw(&kw, "push");
  bool is_buffer = pr_is_kw(&kw, "buffer"), is_shared = pr_is_kw(&kw, "shared");
  bool is_const = pr_is_kw(&kw, "const");
  if (!is_struct && !is_push && !is_buffer && !is_shared && !is_const) {
    pr_expected(p, "a declaration (struct, push, buffer, shared, const, func, kernel, array)");
    return false;
  }
  pr_next(p);
  if (p->tok.kind != TK_SYM) {
    pr_expected(p, "a symbol");
    return false;
  }
  vir_token nt = p->tok;
  char *name = pr_tok_name(p, &nt);
  if (!name)
    return false;
  pr_next(p);
  vp_loc loc = pr_loc_of(p, &kw);
  if (is_struct || is_push) {
    if (is_struct && vp_map_get(&p->structs, name, strlen(name))) {
      pr_error(p, &nt, "redefinition of struct @%s", name);
      return false;
    }
    vir_struct *st = vir_struct_create(p->m, name, loc);
    if (!st || !parse_fields(p, st) || !pr_loc(p, &st->loc))
      return false;
    if (is_struct)
      vp_map_put(&p->tmp, &p->structs, st->name, strlen(st->name), st);
    else
      vir_add_push(p->m, name, st, st->loc);
    return true;
  }
  vir_type *t;
  if (!pr_expect(p, TK_COLON) || !(t = pr_type(p)))
    return false;
  if (is_shared) {
    if (!pr_loc(p, &loc))
      return false;
    vir_add_shared(p->m, name, t, loc);
    return true;
  }
  if (is_const) {
    vir_token lt;
    bool neg;
    vir_literal v;
    if (!pr_expect(p, TK_EQ) || !pr_read_literal(p, &lt, &neg) || !pr_convert_literal(p, &lt, neg, t, &v) ||
        !pr_loc(p, &loc))
      return false;
    vir_add_const(p->m, name, t, v, loc);
    return true;
  }
  uint32_t set, binding, count = 0;
  /* a fixed size, `f32[1024]` (array functions' buffers), or none */
  if (!pr_expect(p, TK_LBRACKET) || (p->tok.kind == TK_INT && !pr_u32(p, &count)))
    return false;
  if (!pr_expect(p, TK_RBRACKET) || !pr_expect_kw(p, "binding") ||
      !pr_expect(p, TK_LPAREN) || !pr_u32(p, &set) || !pr_expect(p, TK_COMMA) ||
      !pr_u32(p, &binding) || !pr_expect(p, TK_RPAREN))
    return false;
  vir_access access;
  if (pr_accept_kw(p, "readwrite"))
    access = VIR_ACCESS_READWRITE;
  else if (pr_accept_kw(p, "readonly"))
    access = VIR_ACCESS_READONLY;
  else if (pr_accept_kw(p, "writeonly"))
    access = VIR_ACCESS_WRITEONLY;
  else {
    pr_expected(p, "'readwrite', 'readonly' or 'writeonly'");
    return false;
  }
  uint32_t flags = 0;
  for (;;) {
    if (pr_accept_kw(p, "coherent"))
      flags |= VIR_BUF_COHERENT;
    else if (pr_accept_kw(p, "volatile"))
      flags |= VIR_BUF_VOLATILE;
    else if (pr_accept_kw(p, "nonprivate"))
      flags |= VIR_BUF_NONPRIVATE;
    else
      break;
  }
  if (!pr_loc(p, &loc))
    return false;
  vir_sym *s = vir_add_buffer(p->m, name, t, set, binding, access, loc);
  if (s) {
    s->buf_flags = flags;
    s->count = count;
  }
  return true;
}

/* Skips to the next line that starts (column 1) with a declaration word. */
static void recover_decl(parser *p) {
  pr_next(p);
  while (p->tok.kind != TK_EOF && !(p->tok.col == 1 && p->tok.kind == TK_IDENT))
    pr_next(p);
}

static void resolve_calls(parser *p) {
  for (uint32_t i = 0; i < p->calls.len; i++) {
    vir_op *op = p->calls.data[i];
    vir_token *t = p->callee_names.data[i];
    char *name = pr_tok_name(p, t);
    vir_sym *s = name ? vir_module_find(p->m, name) : NULL;
    if (!s)
      pr_error(p, t, "call to unknown function @%s", name ? name : "?");
    op->attr.sym = s;
  }
}

/* module := ('module' STRING loc?)? decl* */
vir_module *vir_parse(const char *text, size_t len, const char *filename, vp_diags *diags) {
  return vir_parse_ex(text, len, filename, 0, diags);
}

vir_module *vir_parse_ex(const char *text, size_t len, const char *filename, unsigned flags,
                         vp_diags *diags) {
  parser p = {.diags = diags, .gen = 1, .no_fast = flags & VIR_PARSE_NO_FAST};
  p.m = vir_module_create(NULL);
  if (!p.m)
    return NULL;
  /* Not interned: ops without loc(...) point here, which tells the printer
   * to leave their (text) position out. */
  p.file = p.m->text_file = vp_arena_strdup(&p.m->arena, filename ? filename : "<input>");
  /* The lexer needs zero padding after the text (VIR_LEX_PAD): the last
   * lines (at least 64 bytes) are lexed from a padded copy, the rest in
   * place. */
  size_t split = 0;
  if (len > 4096) {
    size_t i = len - 64;
    while (i > 0 && text[i - 1] != '\n')
      i--;
    split = i;
  }
  size_t tail_len = len - split;
  char *buf = tail_len + VIR_LEX_PAD > tail_len ? malloc(tail_len + VIR_LEX_PAD) : NULL;
  p.kw = vp_arena_alloc(&p.tmp, sizeof *p.kw);
  if (!p.kw || !buf) {
    free(buf);
    vp_arena_free(&p.tmp);
    vp_loc where = {p.file, 0, 0};
    vp_error(diags, where, "out of memory reading the VIR text");
    vir_module_destroy(p.m);
    return NULL;
  }
  if (tail_len)
    memcpy(buf, text + split, tail_len);
  memset(buf + tail_len, 0, VIR_LEX_PAD);
  vir_kwtab_init(p.kw);
  if (split)
    vir_lex_split(&p.lx, text, split, buf, tail_len);
  else
    vir_lex_init(&p.lx, buf, len);
  p.lx.kw = p.kw;
  pr_next(&p);
  if (pr_accept_kw(&p, "module")) {
    if (p.tok.kind == TK_STRING) {
      char *name = pr_tok_name(&p, &p.tok);
      p.m->source_name = name ? vir_intern_file(p.m, name) : NULL;
      pr_next(&p);
    } else {
      pr_expected(&p, "the source file name");
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
  free(buf);
  if (p.nerrors) {
    vir_module_destroy(p.m);
    return NULL;
  }
  return p.m;
}
