/* lex.h - the tokens of the VIR text (private to lib/IR). */
#ifndef VULPY_IR_LEX_H
#define VULPY_IR_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef enum vir_tok_kind {
  TK_EOF,
  TK_ERROR,  /* s/len: the offending character; the lexer's message in `err` */
  TK_IDENT,  /* [A-Za-z_][A-Za-z0-9_$]* ('.' the same)*: names, keywords, op names */
  TK_VALUE,  /* %name, s/len without the '%' */
  TK_SYM,    /* @name or @"quoted", s/len without the '@' (and quotes) */
  TK_INT,    /* -?[0-9]+ */
  TK_FLOAT,  /* -?[0-9]+.[0-9]+([eE][+-]?[0-9]+)? or with an exponent only */
  TK_STRING, /* "...", s/len between the quotes, escapes not yet decoded */
  TK_LBRACE, TK_RBRACE, TK_LPAREN, TK_RPAREN, TK_LBRACKET, TK_RBRACKET,
  TK_LT, TK_GT, TK_COMMA, TK_COLON, TK_EQ, TK_DOT, TK_ARROW, TK_MINUS,
  TK_LOC,    /* loc(L:C) in one token (one per op): num = L, hash = C */
} vir_tok_kind;

/* The words the parser looks for on its hot path. The lexer recognizes
 * them (and op names) with one probe of a table keyed by the identifier's
 * hash, so the parser compares small integers instead of strings. Scopes,
 * semantics and the scalar types are in enum order (vir_scope,
 * vir_semantics, and i8..i64, u8..u64, f16..f64). */
#define VIR_KEYWORDS(X)                                                                     \
  X(LOC, "loc") X(VOLATILE, "volatile") X(TO, "to") X(STEP, "step") X(ELSE, "else")          \
  X(DO, "do") X(LOCAL, "local") X(TRUE, "true") X(FALSE, "false") X(INF, "inf")             \
  X(NAN, "nan") X(INVOCATION, "invocation") X(SUBGROUP, "subgroup")                         \
  X(WORKGROUP, "workgroup") X(DEVICE, "device") X(QUEUE_FAMILY, "queue_family")             \
  X(RELAXED, "relaxed") X(ACQUIRE, "acquire") X(RELEASE, "release") X(ACQ_REL, "acq_rel")   \
  X(SEQ_CST, "seq_cst") X(BUFFER, "buffer") X(SHARED, "shared") X(ALL, "all")               \
  X(VOID, "void") X(BOOL, "bool") X(I8, "i8") X(I16, "i16") X(I32, "i32") X(I64, "i64")     \
  X(U8, "u8") X(U16, "u16") X(U32, "u32") X(U64, "u64") X(F16, "f16") X(F32, "f32")         \
  X(F64, "f64") X(VEC2, "vec2") X(VEC3, "vec3") X(VEC4, "vec4")

typedef enum vir_kw {
  KW_NONE,
#define VIR_KW_ENUM(ID, S) KW_##ID,
  VIR_KEYWORDS(VIR_KW_ENUM)
#undef VIR_KW_ENUM
  KW_COUNT
} vir_kw;

/* Keyword and op-name lookup: open addressing on the first 24 bytes of
 * the name held as three words (no name of either kind is longer), built
 * once per parse (vir_kwtab_init) from the keyword list and ops.def. A
 * probe compares words, not strings. */
enum { VIR_KW_MAXLEN = 24 };
typedef struct vir_kwent {
  uint64_t w[3]; /* the name, zero-padded */
  uint16_t len;  /* 0: empty */
  uint16_t kw;   /* vir_kw, or KW_NONE */
  uint16_t op;   /* vir_opcode, or VIR_OP_COUNT */
} vir_kwent;

enum { VIR_KWTAB_SIZE = 1024 };
typedef struct vir_kwtab {
  vir_kwent e[VIR_KWTAB_SIZE];
} vir_kwtab;

void vir_kwtab_init(vir_kwtab *t);

typedef struct vir_token {
  vir_tok_kind kind;
  uint16_t kw;     /* TK_IDENT: a vir_kw, or KW_NONE */
  uint16_t op;     /* TK_IDENT: a vir_opcode, or VIR_OP_COUNT */
  bool quoted;     /* TK_SYM written @"..." */
  const char *s;
  uint32_t len;
  uint32_t line, col;
  uint32_t hash;   /* TK_VALUE: vir_lex_hash(s, len); TK_LOC: the column */
  int32_t num;     /* TK_VALUE: N of %N (digits, no leading zero, < 10^9), else -1;
                      TK_LOC: the line */
  const char *err; /* TK_ERROR */
} vir_token;

typedef struct vir_lexer {
  const char *p, *end, *line_start;
  /* The text's last lines may be lexed from a padded copy (vir_lex_split):
   * the newline that ends at `split` continues at `tail`. */
  const char *split, *tail, *tail_end;
  uint32_t line;
  const vir_kwtab *kw; /* NULL: identifiers are not looked up */
  uint16_t no_op;      /* the `op` of an identifier that is no op (VIR_OP_COUNT) */
} vir_lexer;

/* The lexer reads up to VIR_LEX_PAD bytes past the end of the text, which
 * must be zero: a NUL ends every scanning loop without a bounds check.
 * Reads stay within a line and the VIR_LEX_PAD bytes after it, so only the
 * last lines of a text need the padding: vir_lex_split lexes `text` up to
 * a line end `split` and then the rest from a padded copy. */
enum { VIR_LEX_PAD = 32 };
void vir_lex_init(vir_lexer *lx, const char *text, size_t len);
/* Lexes text[0, split) (which ends with '\n' and is followed by at least
 * VIR_LEX_PAD more bytes of text) in place, then `tail` (a copy of the
 * rest, tail_len bytes, padded). */
void vir_lex_split(vir_lexer *lx, const char *text, size_t split, const char *tail, size_t tail_len);
/* The next token, into *t. */
void vir_lex_next(vir_lexer *lx, vir_token *t);
const char *vir_tok_kind_name(vir_tok_kind k);

/* For the parser's fast path, which reads common lines straight from the
 * text (parse_op.c): a value name `%x` at s, or an identifier at s (looked
 * up like the lexer does), into *t (kind, s, len and the value key or
 * kw/op; no position). Return the end, or NULL when there is none at s. */
const char *vir_lex_scan_value(const char *s, vir_token *t);
const char *vir_lex_scan_word(const vir_lexer *lx, const char *s, vir_token *t);
/* `loc(L:C)` exactly (no spaces, up to 9 digits each) at s. */
const char *vir_lex_scan_loc(const char *s, uint32_t *line, uint32_t *col);

/* The hash of a name in the lexer's text: a word at a time, the last word
 * overlapping; a name of up to 8 bytes is one masked load (the text is
 * readable VIR_LEX_PAD bytes past any name in it). */
static inline uint32_t vir_lex_hash(const char *s, uint32_t len) {
  uint64_t w;
  if (len <= 8) {
    memcpy(&w, s, 8);
    w &= ~0ull >> (64 - 8 * len); /* len >= 1 */
    return (uint32_t)((w * 0xff51afd7ed558ccdull) >> 32) ^ len;
  }
  uint64_t h = 0x9e3779b97f4a7c15ull ^ len;
  uint32_t i = 0;
  for (; i + 8 <= len; i += 8) {
    memcpy(&w, s + i, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  if (i < len) {
    memcpy(&w, s + len - 8, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
  }
  h *= 0xc4ceb9fe1a85ec53ull;
  return (uint32_t)(h >> 32);
}

#endif
