/* lex.c - the VIR lexer: one pass over the text, a token at a time.
 *
 * Tokens point into the text (no copies). `//` starts a comment to the end
 * of the line, which is how lit's RUN and CHECK lines live in .vir files.
 * Identifiers may be dotted (`buffer.load`, `pos.x`): op names read as one
 * token and the parser splits member paths. A value name may contain '.'
 * only before a digit, so `%x.1` is a name and `%v.xyz` a swizzle.
 */
#include "lex.h"

#include <stddef.h>

void vir_lex_init(vir_lexer *lx, const char *text, size_t len) {
  lx->p = text;
  lx->end = text + len;
  lx->line_start = text;
  lx->line = 1;
}

/* Character classes, one table lookup per character (GNU range
 * designators; bytes >= 0x80 are name characters, so UTF-8 names work). */
enum { C_SPACE = 1, C_ALPHA = 2, C_DIGIT = 4, C_NAME = 8 };
static const unsigned char cls[256] = {
    [' '] = C_SPACE, ['\t'] = C_SPACE, ['\r'] = C_SPACE,
    ['a' ... 'z'] = C_ALPHA | C_NAME, ['A' ... 'Z'] = C_ALPHA | C_NAME, ['_'] = C_ALPHA | C_NAME,
    [0x80 ... 0xff] = C_ALPHA | C_NAME, ['0' ... '9'] = C_DIGIT | C_NAME, ['$'] = C_NAME,
};

static bool is_alpha(unsigned char c) { return cls[c] & C_ALPHA; }
static bool is_digit(unsigned char c) { return cls[c] & C_DIGIT; }
static bool is_name(unsigned char c) { return cls[c] & C_NAME; }

/* Tokens are written in place (the parser's lookahead): returning a
 * 40-byte struct by value cost a quarter of the lexer's time. */
static void make(vir_lexer *lx, vir_token *t, vir_tok_kind k, const char *s, const char *e) {
  t->kind = k;
  t->s = s;
  t->len = (uint32_t)(e - s);
  t->line = lx->line;
  t->col = (uint32_t)(s - lx->line_start) + 1;
  t->quoted = false;
  t->err = NULL;
}

static void error_tok(vir_lexer *lx, vir_token *t, const char *s, const char *msg) {
  make(lx, t, TK_ERROR, s, s + 1);
  t->err = msg;
  lx->p = s + 1;
}

/* "..." with backslash escapes; the token is the text between the quotes. */
static void lex_string(vir_lexer *lx, vir_token *t, const char *start, vir_tok_kind k) {
  const char *p = start + 1;
  while (p < lx->end && *p != '"' && *p != '\n') {
    if (*p == '\\' && p + 1 < lx->end && p[1] != '\n')
      p++;
    p++;
  }
  if (p >= lx->end || *p != '"') {
    error_tok(lx, t, start, "unterminated string");
    return;
  }
  make(lx, t, k, start + 1, p);
  lx->p = p + 1;
}

static void lex_number(vir_lexer *lx, vir_token *t, const char *s) {
  const char *p = s;
  if (*p == '-')
    p++;
  while (p < lx->end && is_digit((unsigned char)*p))
    p++;
  vir_tok_kind k = TK_INT;
  if (p + 1 < lx->end && *p == '.' && is_digit((unsigned char)p[1])) {
    k = TK_FLOAT;
    p++;
    while (p < lx->end && is_digit((unsigned char)*p))
      p++;
  }
  if (p < lx->end && (*p == 'e' || *p == 'E')) {
    const char *q = p + 1;
    if (q < lx->end && (*q == '+' || *q == '-'))
      q++;
    if (q < lx->end && is_digit((unsigned char)*q)) {
      k = TK_FLOAT;
      p = q;
      while (p < lx->end && is_digit((unsigned char)*p))
        p++;
    }
  }
  if (p < lx->end && is_alpha((unsigned char)*p)) {
    error_tok(lx, t, p, "unexpected character after a number");
    return;
  }
  lx->p = p;
  make(lx, t, k, s, p);
}

void vir_lex_next(vir_lexer *lx, vir_token *t) {
  const char *p = lx->p;
  for (;;) {
    while (p < lx->end && (cls[(unsigned char)*p] & C_SPACE))
      p++;
    if (p >= lx->end) {
      lx->p = p;
      make(lx, t, TK_EOF, p, p);
      return;
    }
    char c = *p;
    if (c == '\n') {
      p++;
      lx->line++;
      lx->line_start = p;
    } else if (c == '/' && p + 1 < lx->end && p[1] == '/') {
      while (p < lx->end && *p != '\n')
        p++;
    } else {
      break;
    }
  }
  const char *s = p;
  unsigned char c = (unsigned char)*p;
  if (is_alpha(c)) {
    /* identifier, possibly dotted */
    for (;;) {
      while (p < lx->end && is_name((unsigned char)*p))
        p++;
      if (p + 1 < lx->end && *p == '.' && is_alpha((unsigned char)p[1]))
        p++;
      else
        break;
    }
    lx->p = p;
    make(lx, t, TK_IDENT, s, p);
    return;
  }
  if (is_digit(c) || (c == '-' && p + 1 < lx->end && is_digit((unsigned char)p[1]))) {
    lex_number(lx, t, s);
    return;
  }
  if (c == '%' || c == '@') {
    vir_tok_kind k = c == '%' ? TK_VALUE : TK_SYM;
    if (k == TK_SYM && p + 1 < lx->end && p[1] == '"') {
      lex_string(lx, t, p + 1, TK_SYM);
      t->col--; /* at the '@' */
      t->quoted = t->kind == TK_SYM;
      return;
    }
    p++;
    while (p < lx->end) {
      if (is_name((unsigned char)*p))
        p++;
      else if (k == TK_VALUE && *p == '.' && p + 1 < lx->end && is_digit((unsigned char)p[1]))
        p++;
      else
        break;
    }
    if (p == s + 1) {
      error_tok(lx, t, s, c == '%' ? "expected a value name after '%'" : "expected a symbol name after '@'");
      return;
    }
    lx->p = p;
    make(lx, t, k, s + 1, p);
    t->col--;
    return;
  }
  lx->p = p + 1;
  switch (c) {
  case '"': lex_string(lx, t, s, TK_STRING); return;
  case '{': make(lx, t, TK_LBRACE, s, p + 1); return;
  case '}': make(lx, t, TK_RBRACE, s, p + 1); return;
  case '(': make(lx, t, TK_LPAREN, s, p + 1); return;
  case ')': make(lx, t, TK_RPAREN, s, p + 1); return;
  case '[': make(lx, t, TK_LBRACKET, s, p + 1); return;
  case ']': make(lx, t, TK_RBRACKET, s, p + 1); return;
  case '<': make(lx, t, TK_LT, s, p + 1); return;
  case '>': make(lx, t, TK_GT, s, p + 1); return;
  case ',': make(lx, t, TK_COMMA, s, p + 1); return;
  case ':': make(lx, t, TK_COLON, s, p + 1); return;
  case '=': make(lx, t, TK_EQ, s, p + 1); return;
  case '.': make(lx, t, TK_DOT, s, p + 1); return;
  case '-':
    if (p + 1 < lx->end && p[1] == '>') {
      lx->p = p + 2;
      make(lx, t, TK_ARROW, s, p + 2);
      return;
    }
    make(lx, t, TK_MINUS, s, p + 1);
    return;
  default: error_tok(lx, t, s, "unexpected character"); return;
  }
}

const char *vir_tok_kind_name(vir_tok_kind k) {
  static const char *const names[] = {
      "end of file", "invalid token", "identifier", "value", "symbol", "integer", "number",
      "string", "'{'", "'}'", "'('", "')'", "'['", "']'", "'<'", "'>'", "','", "':'", "'='",
      "'.'", "'->'", "'-'"};
  return names[k];
}
