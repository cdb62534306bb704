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

static bool is_alpha(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}
static bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
static bool is_name(unsigned char c) { return is_alpha(c) || is_digit(c) || c == '$'; }

static vir_token make(vir_lexer *lx, vir_tok_kind k, const char *s, const char *e) {
  return (vir_token){.kind = k, .s = s, .len = (uint32_t)(e - s), .line = lx->line,
                     .col = (uint32_t)(s - lx->line_start) + 1};
}

static vir_token error_tok(vir_lexer *lx, const char *s, const char *msg) {
  vir_token t = make(lx, TK_ERROR, s, s + 1);
  t.err = msg;
  lx->p = s + 1;
  return t;
}

/* "..." with backslash escapes; the token is the text between the quotes. */
static vir_token lex_string(vir_lexer *lx, const char *start, vir_tok_kind k) {
  const char *p = start + 1;
  while (p < lx->end && *p != '"' && *p != '\n') {
    if (*p == '\\' && p + 1 < lx->end && p[1] != '\n')
      p++;
    p++;
  }
  if (p >= lx->end || *p != '"')
    return error_tok(lx, start, "unterminated string");
  vir_token t = make(lx, k, start + 1, p);
  lx->p = p + 1;
  return t;
}

static vir_token lex_number(vir_lexer *lx, const char *s) {
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
  if (p < lx->end && is_alpha((unsigned char)*p))
    return error_tok(lx, p, "unexpected character after a number");
  lx->p = p;
  return make(lx, k, s, p);
}

vir_token vir_lex_next(vir_lexer *lx) {
  const char *p = lx->p;
  for (;;) {
    if (p >= lx->end) {
      lx->p = p;
      return make(lx, TK_EOF, p, p);
    }
    char c = *p;
    if (c == '\n') {
      p++;
      lx->line++;
      lx->line_start = p;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      p++;
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
    return make(lx, TK_IDENT, s, p);
  }
  if (is_digit(c) || (c == '-' && p + 1 < lx->end && is_digit((unsigned char)p[1])))
    return lex_number(lx, s);
  if (c == '%' || c == '@') {
    vir_tok_kind k = c == '%' ? TK_VALUE : TK_SYM;
    if (k == TK_SYM && p + 1 < lx->end && p[1] == '"') {
      vir_token t = lex_string(lx, p + 1, TK_SYM);
      t.col--; /* at the '@' */
      t.quoted = t.kind == TK_SYM;
      return t;
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
    if (p == s + 1)
      return error_tok(lx, s, c == '%' ? "expected a value name after '%'" : "expected a symbol name after '@'");
    lx->p = p;
    vir_token t = make(lx, k, s + 1, p);
    t.col--;
    return t;
  }
  lx->p = p + 1;
  switch (c) {
  case '"': return lex_string(lx, s, TK_STRING);
  case '{': return make(lx, TK_LBRACE, s, p + 1);
  case '}': return make(lx, TK_RBRACE, s, p + 1);
  case '(': return make(lx, TK_LPAREN, s, p + 1);
  case ')': return make(lx, TK_RPAREN, s, p + 1);
  case '[': return make(lx, TK_LBRACKET, s, p + 1);
  case ']': return make(lx, TK_RBRACKET, s, p + 1);
  case '<': return make(lx, TK_LT, s, p + 1);
  case '>': return make(lx, TK_GT, s, p + 1);
  case ',': return make(lx, TK_COMMA, s, p + 1);
  case ':': return make(lx, TK_COLON, s, p + 1);
  case '=': return make(lx, TK_EQ, s, p + 1);
  case '.': return make(lx, TK_DOT, s, p + 1);
  case '-':
    if (p + 1 < lx->end && p[1] == '>') {
      lx->p = p + 2;
      return make(lx, TK_ARROW, s, p + 2);
    }
    return make(lx, TK_MINUS, s, p + 1);
  default: return error_tok(lx, s, "unexpected character");
  }
}

const char *vir_tok_kind_name(vir_tok_kind k) {
  static const char *const names[] = {
      "end of file", "invalid token", "identifier", "value", "symbol", "integer", "number",
      "string", "'{'", "'}'", "'('", "')'", "'['", "']'", "'<'", "'>'", "','", "':'", "'='",
      "'.'", "'->'", "'-'"};
  return names[k];
}
