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
  /* `%name` zero-padded when it fits (len < 15), so that printing it is
   * one 16-byte copy rather than a memcpy call */
  bool small;
  char text[16];
} vname;

/* A name taken in the function being printed (open addressing; an entry
 * counts only in the current generation, so a new function is `gen++`). */
typedef struct taken_name {
  const char *s;
  uint32_t len, hash, gen;
  uint32_t suffix; /* the next .N to try when the name comes again */
} taken_name;

typedef struct printer {
  vp_strbuf *out;
  /* The free part of out's buffer, written directly: out->len is brought
   * up to date when the buffer grows and at the end (prt_sync). */
  char *cur, *lim;
  const vir_module *m; /* NULL for vir_print_op */
  unsigned flags;
  vname *names; /* by value id, for the function being printed */
  uint32_t nnames, names_cap;
  vp_arena scratch; /* names made here (sanitized, suffixed); lives through the print */
  taken_name *taken;
  uint32_t taken_cap, ntaken, gen;
  uint32_t counter;
} printer;

/* ------------------------------------------------------------- primitives */

/* Makes room for n more bytes (and the final NUL); false when out of
 * memory, after which appends are dropped. */
bool prt_grow(printer *p, size_t n);
/* out->len from the write position; the NUL after it (once, at the end) */
static inline void prt_sync(printer *p) {
  if (p->cur)
    p->out->len = (size_t)(p->cur - p->out->data);
}
static inline void terminate(printer *p) {
  prt_sync(p);
  if (p->out->data && p->out->len < p->out->cap)
    p->out->data[p->out->len] = 0;
}
/* At least n bytes free, for the writes that follow without checks. */
static inline bool room(printer *p, size_t n) { return (size_t)(p->lim - p->cur) >= n || prt_grow(p, n); }

/* Appends without the strbuf's NUL: the common case is a memcpy into
 * space that is already there. */
static inline void put(printer *p, const char *s, size_t n) {
  if (room(p, n)) {
    memcpy(p->cur, s, n);
    p->cur += n;
  }
}
static inline void puts_(printer *p, const char *s) { put(p, s, strlen(s)); }
/* a string literal: its length is known, the memcpy is inlined */
#define PUTS(p, lit) put((p), (lit), sizeof(lit) - 1)
static inline void putc_(printer *p, char c) {
  if (room(p, 1))
    *p->cur++ = c;
}
static inline void indent(printer *p, int depth) {
  for (int i = 0; i < depth; i++)
    put(p, "  ", 2);
}
static inline void put_type(printer *p, const vir_type *t) {
  if (t)
    put(p, t->str, t->str_len);
  else
    PUTS(p, "<null>");
}

void prt_u64_slow(printer *p, uint64_t v);
/* Decimal digits, two at a time from a table; the common small numbers
 * (value ids, lines, columns) written straight into the buffer. */
extern const char prt_digit_pairs[200];
static inline void prt_u64(printer *p, uint64_t v) {
  if (v < 10000 && room(p, 4)) {
    char *d = p->cur;
    if (v < 10) {
      d[0] = (char)('0' + v);
      p->cur += 1;
    } else if (v < 100) {
      memcpy(d, prt_digit_pairs + 2 * v, 2);
      p->cur += 2;
    } else if (v < 1000) {
      d[0] = (char)('0' + v / 100);
      memcpy(d + 1, prt_digit_pairs + 2 * (v % 100), 2);
      p->cur += 3;
    } else {
      memcpy(d, prt_digit_pairs + 2 * (v / 100), 2);
      memcpy(d + 2, prt_digit_pairs + 2 * (v % 100), 2);
      p->cur += 4;
    }
    return;
  }
  prt_u64_slow(p, v);
}
/* the printer's tables, freed at the end of a print */
void prt_free(printer *p);
/* starts naming the values of a function with `nvalues` ids */
void prt_begin_func(printer *p, uint32_t nvalues);
void prt_i64(printer *p, int64_t v);
/* "..." with escapes */
void prt_string(printer *p, const char *s);
/* a symbol or field name: bare when it reads back as one name, quoted otherwise */
void prt_name(printer *p, const char *s);
void prt_sym(printer *p, const vir_sym *s);
void prt_literal(printer *p, const vir_type *t, vir_literal v);
/* " loc(...)", or nothing (no line, a .vir position, VIR_PRINT_NO_LOCS) */
void prt_loc_slow(printer *p, vp_loc loc);
/* The decimal digits of v at d (room for 10); the end. */
static inline char *put_u32(char *d, uint32_t v) {
  unsigned n = v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : v < 10000 ? 4 : v < 100000 ? 5 :
               v < 1000000 ? 6 : v < 10000000 ? 7 : v < 100000000 ? 8 : v < 1000000000 ? 9 : 10;
  char *end = d + n, *w = end;
  while (v >= 100) {
    w -= 2;
    memcpy(w, prt_digit_pairs + 2 * (v % 100), 2);
    v /= 100;
  }
  if (v >= 10)
    memcpy(w - 2, prt_digit_pairs + 2 * v, 2);
  else
    w[-1] = (char)('0' + v);
  return end;
}
/* " loc(L:C)", or nothing (no line, a .vir position, VIR_PRINT_NO_LOCS);
 * the usual one (in the module's source file) written straight out */
static inline void prt_loc(printer *p, vp_loc loc) {
  if (p->m && loc.file == p->m->source_name && loc.file != p->m->text_file && loc.line &&
      !(p->flags & VIR_PRINT_NO_LOCS) && room(p, 27)) {
    char *d = p->cur;
    memcpy(d, " loc(", 5);
    d = put_u32(d + 5, loc.line);
    *d++ = ':';
    d = put_u32(d, loc.col);
    *d++ = ')';
    p->cur = d;
    return;
  }
  prt_loc_slow(p, loc);
}
/* names every value of the region, in definition order */
void prt_name_region(printer *p, const vir_region *r);
void prt_value_slow(printer *p, const vir_value *v);
/* %name or %N of a value named by the function being printed */
static inline void prt_value(printer *p, const vir_value *v) {
  if (v && v->id < p->nnames && p->names[v->id].v == v && room(p, 16)) {
    const vname *e = &p->names[v->id];
    if (e->small) {
      memcpy(p->cur, e->text, 16);
      p->cur += e->len + 1;
      return;
    }
    if (!e->s && room(p, 11)) {
      *p->cur = '%';
      p->cur = put_u32(p->cur + 1, e->num);
      return;
    }
  }
  prt_value_slow(p, v);
}
/* `.field`, `.x`, `[N]` for each step of the path from type t */
void prt_path(printer *p, const vir_type *t, uint32_t npath, const uint8_t *path);
/* @sym[%index].path of a memory op; *next_opnd moves past the index */
void prt_access(printer *p, const vir_op *op, uint32_t *next_opnd);

/* the array level's attributes: " shape(..) offset(K) strides(..)", " axes(..)" */
void prt_view(printer *p, const vir_array_attr *a);
void prt_axes(printer *p, const vir_array_attr *a);

extern const char vir_comp_names[];

#endif
