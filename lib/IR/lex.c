/* lex.c - the VIR lexer: one pass over the text, a token at a time.
 *
 * Tokens point into the text (no copies, no allocation). `//` starts a
 * comment to the end of the line, which is how lit's RUN and CHECK lines
 * live in .vir files. Identifiers may be dotted (`buffer.load`, `pos.x`):
 * op names read as one token and the parser splits member paths. A value
 * name may contain '.' only before a digit, so `%x.1` is a name and
 * `%v.xyz` a swizzle.
 *
 * The lexer does the per-name work once, where the characters are already
 * at hand: an identifier is looked up in the keyword and op-name table
 * (one hash probe), a value name gets its hash (the parser's value table
 * uses it) and, for %N, its number (the parser's index table).
 */
#include "lex.h"

#include "vulpy/ir.h"

#include <stddef.h>

/* Character classes, one table lookup per character (GNU range
 * designators; bytes >= 0x80 are name characters, so UTF-8 names work). */
enum { C_SPACE = 1, C_ALPHA = 2, C_DIGIT = 4, C_NAME = 8 };
static const unsigned char cls[256] = {
    [' '] = C_SPACE, ['\t'] = C_SPACE, ['\r'] = C_SPACE, ['\n'] = C_SPACE, ['/'] = C_SPACE,
    ['a' ... 'z'] = C_ALPHA | C_NAME, ['A' ... 'Z'] = C_ALPHA | C_NAME, ['_'] = C_ALPHA | C_NAME,
    [0x80 ... 0xff] = C_ALPHA | C_NAME, ['0' ... '9'] = C_DIGIT | C_NAME, ['$'] = C_NAME,
};

static inline bool is_alpha(unsigned char c) { return cls[c] & C_ALPHA; }
static inline bool is_digit(unsigned char c) { return cls[c] & C_DIGIT; }
static inline bool is_name(unsigned char c) { return cls[c] & C_NAME; }

/* The end of a possibly dotted identifier starting at `p` (a letter):
 * name characters, and '.' where a letter follows it. */
static inline const char *scan_dotted(const char *p) {
  for (;;) {
    while (is_name((unsigned char)*p))
      p++;
    if (*p == '.' && is_alpha((unsigned char)p[1]))
      p++;
    else
      return p;
  }
}

/* ------------------------------------------------------------- keywords */

/* The name as three zero-padded words (len <= VIR_KW_MAXLEN), loaded
 * whole: the text is padded (VIR_LEX_PAD), so the loads stay inside it. */
static inline void name_words(const char *s, uint32_t len, uint64_t w[3]) {
  memcpy(w, s, VIR_KW_MAXLEN);
  /* keep the name's bytes of the last word it reaches (1..8 of them) and
   * clear the words after it; len is 1..VIR_KW_MAXLEN */
  uint32_t last = (len - 1) >> 3;
  w[last] &= ~0ull >> (64 - 8 * (len - 8 * last));
  if (last < 2)
    w[2] = 0;
  if (last < 1)
    w[1] = 0;
}

/* For a name of at most 8 bytes (w[1] = w[2] = 0) this is one multiply. */
static inline uint32_t words_hash(const uint64_t w[3], uint32_t len) {
  uint64_t h = (w[0] ^ (w[1] * 0xc4ceb9fe1a85ec53ull) ^ (w[2] * 0x9e3779b97f4a7c15ull)) *
               0xff51afd7ed558ccdull;
  return (uint32_t)(h >> 40) ^ len;
}

static void kw_put(vir_kwtab *t, const char *s, uint16_t kw, uint16_t op) {
  uint32_t len = (uint32_t)strlen(s);
  char padded[VIR_KW_MAXLEN + 1] = {0};
  memcpy(padded, s, len < VIR_KW_MAXLEN ? len : VIR_KW_MAXLEN);
  uint64_t w[3];
  name_words(padded, len, w);
  for (uint32_t i = words_hash(w, len) & (VIR_KWTAB_SIZE - 1);; i = (i + 1) & (VIR_KWTAB_SIZE - 1)) {
    vir_kwent *e = &t->e[i];
    if (!e->len) {
      *e = (vir_kwent){{w[0], w[1], w[2]}, (uint16_t)len, kw, op};
      return;
    }
    if (e->len == len && e->w[0] == w[0] && e->w[1] == w[1] && e->w[2] == w[2]) {
      /* a word that is both (`const`): keep both meanings */
      if (kw)
        e->kw = kw;
      if (op != VIR_OP_COUNT)
        e->op = op;
      return;
    }
  }
}

void vir_kwtab_init(vir_kwtab *t) {
  memset(t, 0, sizeof *t);
  static const char *const words[] = {
      NULL,
#define VIR_KW_NAME(ID, S) S,
      VIR_KEYWORDS(VIR_KW_NAME)
#undef VIR_KW_NAME
  };
  for (unsigned k = 1; k < KW_COUNT; k++)
    kw_put(t, words[k], (uint16_t)k, VIR_OP_COUNT);
  for (unsigned c = 0; c < VIR_OP_COUNT; c++)
    kw_put(t, vir_op_infos[c].name, KW_NONE, (uint16_t)c);
}

static inline __attribute__((always_inline)) void lookup_ident(const vir_kwtab *t, vir_token *tok) {
  uint32_t len = tok->len;
  if (len <= 8) {
    /* most names: one word, one multiply, one compare per probe (an entry
     * of this length has its other words zero) */
    uint64_t w0;
    memcpy(&w0, tok->s, 8);
    w0 &= ~0ull >> (64 - 8 * len);
    uint64_t w[3] = {w0, 0, 0};
    for (uint32_t i = words_hash(w, len) & (VIR_KWTAB_SIZE - 1);; i = (i + 1) & (VIR_KWTAB_SIZE - 1)) {
      const vir_kwent *e = &t->e[i];
      if (!e->len)
        return;
      if (e->w[0] == w0 && e->len == len) {
        tok->kw = e->kw;
        tok->op = e->op;
        return;
      }
    }
  }
  if (len > VIR_KW_MAXLEN)
    return;
  uint64_t w[3];
  name_words(tok->s, len, w);
  for (uint32_t i = words_hash(w, len) & (VIR_KWTAB_SIZE - 1);; i = (i + 1) & (VIR_KWTAB_SIZE - 1)) {
    const vir_kwent *e = &t->e[i];
    if (!e->len)
      return;
    if (e->w[0] == w[0] && e->w[1] == w[1] && e->w[2] == w[2] && e->len == len) {
      tok->kw = e->kw;
      tok->op = e->op;
      return;
    }
  }
}

/* --------------------------------------------------------------- tokens */

void vir_lex_init(vir_lexer *lx, const char *text, size_t len) {
  lx->p = text;
  lx->end = text + len;
  lx->line_start = text;
  lx->line = 1;
  lx->kw = NULL;
  lx->no_op = VIR_OP_COUNT;
  lx->split = lx->tail = lx->tail_end = NULL;
}

void vir_lex_split(vir_lexer *lx, const char *text, size_t split, const char *tail, size_t tail_len) {
  vir_lex_init(lx, text, split);
  lx->split = text + split;
  lx->tail = tail;
  lx->tail_end = tail + tail_len;
}

static void error_tok(vir_lexer *lx, vir_token *t, const char *s, const char *msg) {
  t->kind = TK_ERROR;
  t->s = s;
  t->len = 1;
  t->col = (uint32_t)(s - lx->line_start) + 1;
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
  t->kind = k;
  t->s = start + 1;
  t->len = (uint32_t)(p - start - 1);
  lx->p = p + 1;
}

static void lex_number(vir_lexer *lx, vir_token *t, const char *s) {
  const char *p = s;
  if (*p == '-')
    p++;
  while (is_digit((unsigned char)*p))
    p++;
  vir_tok_kind k = TK_INT;
  if (*p == '.' && is_digit((unsigned char)p[1])) {
    k = TK_FLOAT;
    p++;
    while (is_digit((unsigned char)*p))
      p++;
  }
  if (*p == 'e' || *p == 'E') {
    const char *q = p + 1;
    if (*q == '+' || *q == '-')
      q++;
    if (is_digit((unsigned char)*q)) {
      k = TK_FLOAT;
      p = q;
      while (is_digit((unsigned char)*p))
        p++;
    }
  }
  if (is_alpha((unsigned char)*p) && p < lx->end) {
    error_tok(lx, t, p, "unexpected character after a number");
    return;
  }
  lx->p = p;
  t->kind = k;
  t->len = (uint32_t)(p - s);
}

/* The end of a value (or symbol) name that starts at s. */
static inline const char *name_end(const char *s, bool value) {
  for (;;) {
    if (is_name((unsigned char)*s))
      s++;
    else if (value && *s == '.' && is_digit((unsigned char)s[1]))
      s++;
    else
      return s;
  }
}

/* The parts of a TK_VALUE token past its text: the number of %N, the hash
 * of a name. */
static inline void value_key(vir_token *t) {
  const char *s = t->s;
  uint32_t len = t->len, d = (uint32_t)(unsigned char)s[0] - '0';
  if (d < 10 && len <= 9 && (d || len == 1)) {
    uint32_t x = 0, i = 0;
    while (i < len && (d = (uint32_t)(unsigned char)s[i] - '0') < 10) {
      x = x * 10 + d;
      i++;
    }
    if (i == len) {
      t->num = (int32_t)x;
      return;
    }
  }
  t->num = -1;
  t->hash = vir_lex_hash(s, len);
}

/* %name or @name after the sigil at s. */
static inline __attribute__((always_inline)) void lex_name(vir_lexer *lx, vir_token *t, const char *s,
                                                            vir_tok_kind k) {
  const char *p = name_end(s + 1, k == TK_VALUE);
  if (p == s + 1 || p > lx->end) {
    error_tok(lx, t, s, k == TK_VALUE ? "expected a value name after '%'" : "expected a symbol name after '@'");
    return;
  }
  lx->p = p;
  t->kind = k;
  t->s = s + 1;
  t->len = (uint32_t)(p - s - 1);
  if (k == TK_VALUE)
    value_key(t);
}

/* ------------------------------------------------- the parser's fast path */

const char *vir_lex_scan_value(const char *s, vir_token *t) {
  if (*s != '%')
    return NULL;
  const char *e = name_end(s + 1, true);
  if (e == s + 1)
    return NULL;
  t->kind = TK_VALUE;
  t->s = s + 1;
  t->len = (uint32_t)(e - s - 1);
  value_key(t);
  return e;
}

const char *vir_lex_scan_word(const vir_lexer *lx, const char *s, vir_token *t) {
  if (!is_alpha((unsigned char)*s) || !lx->kw)
    return NULL;
  const char *p = scan_dotted(s);
  t->kind = TK_IDENT;
  t->s = s;
  t->len = (uint32_t)(p - s);
  t->kw = KW_NONE;
  t->op = lx->no_op;
  lookup_ident(lx->kw, t);
  return p;
}

static void lex_sym(vir_lexer *lx, vir_token *t, const char *s) { lex_name(lx, t, s, TK_SYM); }

/* `loc(L:C)` exactly (digits, no spaces, up to 9 digits each), as one
 * token: every op has one. Anything else is left to the identifier path
 * and the parser's general rule. */
/* 1 to 9 decimal digits at s into *v; the end, or NULL. */
static inline const char *digits9(const char *s, uint32_t *v) {
  const char *q = s;
  uint32_t x = 0, d;
  while ((d = (uint32_t)(unsigned char)*q - '0') < 10) {
    x = x * 10 + d;
    q++;
  }
  if (q == s || q - s > 9)
    return NULL;
  *v = x;
  return q;
}

const char *vir_lex_scan_loc(const char *s, uint32_t *line, uint32_t *col) {
  if (s[0] != 'l' || s[1] != 'o' || s[2] != 'c' || s[3] != '(')
    return NULL;
  const char *q = digits9(s + 4, line);
  if (!q || *q != ':' || !(q = digits9(q + 1, col)) || *q != ')')
    return NULL;
  return q + 1;
}

static bool lex_loc(vir_lexer *lx, vir_token *t, const char *s) {
  uint32_t line, col;
  const char *q = vir_lex_scan_loc(s, &line, &col);
  if (!q)
    return false;
  lx->p = q;
  t->kind = TK_LOC;
  t->len = (uint32_t)(q - s);
  t->num = (int32_t)line;
  t->hash = col;
  return true;
}

/* One token. The fields every token has are written first; the cases
 * fill in kind and length. */
void vir_lex_next(vir_lexer *lx, vir_token *t) {
  const char *p = lx->p;
  /* C_SPACE: blanks, newlines, and '/' which may start a comment */
  while (cls[(unsigned char)*p] & C_SPACE) {
    while (*p == ' ')
      p++;
    if (*p == '\n') {
      p++;
      lx->line++;
      if (p == lx->split) { /* on into the padded copy of the last lines */
        p = lx->tail;
        lx->end = lx->tail_end;
      }
      lx->line_start = p;
    } else if (*p == '\t' || *p == '\r') {
      p++;
    } else if (*p == '/' && p[1] == '/' && p + 1 < lx->end) {
      const char *nl = memchr(p, '\n', (size_t)(lx->end - p));
      p = nl ? nl : lx->end;
    } else {
      break;
    }
  }
  const char *s = p;
  unsigned char c = (unsigned char)*p;
  t->s = s;
  t->line = lx->line;
  t->col = (uint32_t)(s - lx->line_start) + 1;
  t->kw = KW_NONE;
  t->op = lx->no_op;
  t->quoted = false;
  if (c == 'l' && p[3] == '(' && lex_loc(lx, t, p))
    return;
  if (is_alpha(c)) {
    p = scan_dotted(p); /* identifier, possibly dotted */
    if (p > lx->end) { /* the padding is no name */
      error_tok(lx, t, lx->end, "unexpected character");
      return;
    }
    lx->p = p;
    t->kind = TK_IDENT;
    t->len = (uint32_t)(p - s);
    if (lx->kw)
      lookup_ident(lx->kw, t);
    return;
  }
  vir_tok_kind k;
  switch (c) {
  case '%': lex_name(lx, t, s, TK_VALUE); return; /* col: at the sigil; inlined: the common token */
  case '@':
    if (p[1] == '"' && p + 1 < lx->end) {
      t->col++; /* at the quote */
      lex_string(lx, t, p + 1, TK_SYM);
      t->quoted = t->kind == TK_SYM;
      return;
    }
    lex_sym(lx, t, s);
    return;
  case '0' ... '9': lex_number(lx, t, s); return;
  case '"': lex_string(lx, t, s, TK_STRING); return;
  case '{': k = TK_LBRACE; break;
  case '}': k = TK_RBRACE; break;
  case '(': k = TK_LPAREN; break;
  case ')': k = TK_RPAREN; break;
  case '[': k = TK_LBRACKET; break;
  case ']': k = TK_RBRACKET; break;
  case '<': k = TK_LT; break;
  case '>': k = TK_GT; break;
  case ',': k = TK_COMMA; break;
  case ':': k = TK_COLON; break;
  case '=': k = TK_EQ; break;
  case '.': k = TK_DOT; break;
  case '-':
    if (is_digit((unsigned char)p[1])) {
      lex_number(lx, t, s);
      return;
    }
    if (p[1] == '>') {
      lx->p = p + 2;
      t->kind = TK_ARROW;
      t->len = 2;
      return;
    }
    k = TK_MINUS;
    break;
  case 0:
    if (p >= lx->end) {
      lx->p = p;
      t->kind = TK_EOF;
      t->len = 0;
      return;
    }
    /* a NUL inside the text */
    error_tok(lx, t, s, "unexpected character");
    return;
  default: error_tok(lx, t, s, "unexpected character"); return;
  }
  lx->p = p + 1;
  t->kind = k;
  t->len = 1;
}

const char *vir_tok_kind_name(vir_tok_kind k) {
  static const char *const names[] = {
      "end of file", "invalid token", "identifier", "value", "symbol", "integer", "number",
      "string", "'{'", "'}'", "'('", "')'", "'['", "']'", "'<'", "'>'", "','", "':'", "'='",
      "'.'", "'->'", "'-'", "a location"};
  return names[k];
}
