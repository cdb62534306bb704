/* lex.h - the tokens of the VIR text (private to lib/IR). */
#ifndef VULPY_IR_LEX_H
#define VULPY_IR_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
} vir_tok_kind;

typedef struct vir_token {
  vir_tok_kind kind;
  const char *s;
  uint32_t len;
  uint32_t line, col;
  bool quoted;     /* TK_SYM written @"..." */
  const char *err; /* TK_ERROR */
} vir_token;

typedef struct vir_lexer {
  const char *p, *end, *line_start;
  uint32_t line;
} vir_lexer;

void vir_lex_init(vir_lexer *lx, const char *text, size_t len);
/* The next token, into *t. */
void vir_lex_next(vir_lexer *lx, vir_token *t);
const char *vir_tok_kind_name(vir_tok_kind k);

#endif
