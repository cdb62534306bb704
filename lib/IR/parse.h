/* parse.h - what the files of the VIR parser share (private to lib/IR).
 *
 * The parser is three files: parse.c (tokens, locations, declarations,
 * functions, the module), parse_type.c (types and literals), parse_op.c
 * (values, ops, access paths, regions). Functions shared between them are
 * prefixed pr_.
 */
#ifndef VULPY_IR_PARSE_H
#define VULPY_IR_PARSE_H

#include "ir_impl.h"
#include "lex.h"

#include <string.h>

enum { MAX_ERRORS = 20 };

typedef struct pr_vslot {
  const char *s;
  uint32_t len, hash, gen;
  vir_value *v;
} pr_vslot;

typedef struct parser {
  vir_lexer lx;
  vir_token tok;
  vir_module *m;
  vp_diags *diags;
  const char *file; /* m->text_file */
  vp_arena tmp;     /* parse-time tables; freed at the end */
  vir_kwtab *kw;    /* keywords and op names, for the lexer */
  vp_map structs;   /* struct name -> vir_struct* */
  vir_func *f;      /* the function being parsed */
  /* value name -> vir_value*, for names that are not numbers: open
   * addressing on the lexer's hash; an entry counts only in the current
   * generation, so starting a function is `gen++` */
  struct pr_vslot *vtab;
  uint32_t vcap, vlen, gen, nbig; /* nbig: %N entries among them */
  vir_value **numbered; /* %N -> value, N < nnumbered */
  uint32_t nnumbered, maxnum;
  vp_ptrvec calls; /* call ops whose callee is resolved at the end */
  vp_ptrvec callee_names;
  uint32_t nerrors;
  int depth, type_depth;
  bool no_fast; /* VIR_PARSE_NO_FAST */
  /* the fast path's types: scalar keywords, and vec2..4 of them */
  vir_type *kwtype[KW_COUNT];
  vir_type *vectype[KW_F64 - KW_BOOL + 1][3];
} parser;

/* ---------------------------------------------------------------- tokens */

static inline void pr_next(parser *p) { vir_lex_next(&p->lx, &p->tok); }
static inline vp_loc pr_loc_of(parser *p, const vir_token *t) { return (vp_loc){p->file, t->line, t->col}; }
static inline bool pr_is_kw(const vir_token *t, const char *kw) {
  return t->kind == TK_IDENT && strlen(kw) == t->len && memcmp(t->s, kw, t->len) == 0;
}
static inline bool pr_accept(parser *p, vir_tok_kind k) {
  if (p->tok.kind != k)
    return false;
  pr_next(p);
  return true;
}
static inline bool pr_accept_kw(parser *p, const char *kw) {
  if (!pr_is_kw(&p->tok, kw))
    return false;
  pr_next(p);
  return true;
}
/* The keywords of lex.h, by number (no string compare). */
static inline bool pr_is(const vir_token *t, vir_kw kw) { return t->kind == TK_IDENT && t->kw == kw; }
static inline bool pr_accept_k(parser *p, vir_kw kw) {
  if (!pr_is(&p->tok, kw))
    return false;
  pr_next(p);
  return true;
}

VP_PRINTF(3, 4) void pr_error(parser *p, const vir_token *t, const char *fmt, ...);
/* "expected WHAT, found TOKEN" at the current token */
void pr_expected(parser *p, const char *what);
bool pr_expect_slow(parser *p, vir_tok_kind k);
static inline bool pr_expect(parser *p, vir_tok_kind k) {
  if (p->tok.kind == k) {
    pr_next(p);
    return true;
  }
  return pr_expect_slow(p, k);
}
bool pr_expect_kw(parser *p, const char *kw);
/* a name token (symbol, identifier, string, decoded) as an arena string */
char *pr_tok_name(parser *p, const vir_token *t);
/* INT as a uint32 */
bool pr_u32(parser *p, uint32_t *out);
/* loc := 'loc' '(' (STRING ':')? INT ':' INT ')'; nothing when absent */
bool pr_loc_slow(parser *p, vp_loc *loc);
static inline bool pr_loc(parser *p, vp_loc *loc) {
  if (p->tok.kind == TK_LOC) { /* `loc(L:C)`, read by the lexer */
    *loc = (vp_loc){p->m->source_name, (uint32_t)p->tok.num, p->tok.hash};
    pr_next(p);
    return true;
  }
  return pr_loc_slow(p, loc);
}

/* ------------------------------------------------- types and literals */

vir_type *pr_type(parser *p);
bool pr_read_literal(parser *p, vir_token *lt, bool *neg);
bool pr_convert_literal(parser *p, const vir_token *lt, bool neg, const vir_type *t, vir_literal *out);

/* ------------------------------------------------------ values and ops */

vir_value *pr_lookup_value(parser *p, const vir_token *t);
void pr_define_value(parser *p, const vir_token *t, vir_value *v);
/* forgets the values of the previous function */
void pr_reset_values(parser *p);
/* The head of a function-like declaration ('func', 'kernel', 'array'):
 * *start is the keyword, *name the SYM after it; the values of the
 * previous function are forgotten. False (reported) without a name. */
bool pr_decl_head(parser *p, vir_token *start, vir_token *name);
/* region := '{' (op | local)* '}' */
bool pr_region(parser *p, vir_region *r);

/* ------------------------------------------- the array level (parse_array.c) */

/* tensor<...> after the 'tensor' keyword `kw` (the current token is '<') */
vir_type *pr_tensor_rest(parser *p, const vir_token *kw);
/* ints := '(' (INT (',' INT)*)? ')' into i64, or u8 (axes) when given */
bool pr_ints(parser *p, const char *what, int64_t *i64, uint8_t *u8, uint8_t *n);
/* view := ('shape' ints)? ('offset' '(' INT ')')? ('strides' ints)? */
bool pr_view(parser *p, vir_array_attr *v);
/* array := 'array' SYM loc? region */
bool pr_array_func(parser *p);

#endif
