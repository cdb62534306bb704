/* print.h - what the files of the VIR printer share (private to lib/IR).
 *
 * print.c prints modules, functions and ops; print_text.c the pieces they
 * are made of: numbers, strings, literals, locations, value names, access
 * paths. Shared functions are prefixed prt_.
 */
#ifndef VULPY_IR_PRINT_H
#define VULPY_IR_PRINT_H

#include "ir_impl.h"

#include <string.h>

typedef struct vname {
  const vir_value *v; /* the value this entry names (ids are per function) */
  const char *s;      /* the name, or NULL: print `num` */
  uint32_t len, num;
} vname;

typedef struct printer {
  vp_strbuf *out;
  const vir_module *m; /* NULL for vir_print_op */
  unsigned flags;
  vname *names; /* by value id, for the function being printed */
  uint32_t nnames;
  vp_arena scratch;
  vp_map used, next_suffix;
  uint32_t counter;
} printer;

/* ------------------------------------------------------------- primitives */

/* Appends without the strbuf's NUL (vir_print adds it at the end): the
 * common case is a memcpy into space that is already there. */
static inline void put(printer *p, const char *s, size_t n) {
  vp_strbuf *b = p->out;
  if (b->len + n + 1 <= b->cap) {
    memcpy(b->data + b->len, s, n);
    b->len += n;
  } else {
    vp_strbuf_appendn(b, s, n);
  }
}
static inline void puts_(printer *p, const char *s) { put(p, s, strlen(s)); }
/* a string literal: its length is known, the memcpy is inlined */
#define PUTS(p, lit) put((p), (lit), sizeof(lit) - 1)
static inline void putc_(printer *p, char c) {
  vp_strbuf *b = p->out;
  if (b->len + 2 <= b->cap)
    b->data[b->len++] = c;
  else
    vp_strbuf_putc(b, c);
}
static inline void indent(printer *p, int depth) {
  for (int i = 0; i < depth; i++)
    put(p, "  ", 2);
}
/* the strbuf's invariant, restored once at the end */
static inline void terminate(printer *p) {
  if (p->out->data && p->out->len < p->out->cap)
    p->out->data[p->out->len] = 0;
}
static inline void put_type(printer *p, const vir_type *t) { puts_(p, t ? t->str : "<null>"); }

void prt_u64(printer *p, uint64_t v);
void prt_i64(printer *p, int64_t v);
/* "..." with escapes */
void prt_string(printer *p, const char *s);
/* a symbol or field name: bare when it reads back as one name, quoted otherwise */
void prt_name(printer *p, const char *s);
void prt_sym(printer *p, const vir_sym *s);
void prt_literal(printer *p, const vir_type *t, vir_literal v);
/* " loc(...)", or nothing (no line, a .vir position, VIR_PRINT_NO_LOCS) */
void prt_loc(printer *p, vp_loc loc);
/* names every value of the region, in definition order */
void prt_name_region(printer *p, const vir_region *r);
void prt_value(printer *p, const vir_value *v);
/* `.field`, `.x`, `[N]` for each step of the path from type t */
void prt_path(printer *p, const vir_type *t, uint32_t npath, const uint8_t *path);
/* @sym[%index].path of a memory op; *next_opnd moves past the index */
void prt_access(printer *p, const vir_op *op, uint32_t *next_opnd);

/* the array level's attributes: " shape(..) offset(K) strides(..)", " axes(..)" */
void prt_view(printer *p, const vir_array_attr *a);
void prt_axes(printer *p, const vir_array_attr *a);

extern const char vir_comp_names[];

#endif
