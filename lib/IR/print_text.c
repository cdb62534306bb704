/* print_text.c - the pieces of the VIR text: numbers, strings, literals
 * (floats in the shortest form that reads back), locations, value names
 * (unique per function, in definition order) and access paths. Appends go
 * straight into the output buffer (print.h); the printer is on the IR
 * throughput benchmark's path.
 */
#include "print.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void prt_u64(printer *p, uint64_t v) {
  char buf[24];
  int i = sizeof buf;
  do {
    buf[--i] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  put(p, buf + i, sizeof buf - (size_t)i);
}

void prt_i64(printer *p, int64_t v) {
  if (v < 0) {
    putc_(p, '-');
    prt_u64(p, (uint64_t)0 - (uint64_t)v);
  } else {
    prt_u64(p, (uint64_t)v);
  }
}

void prt_string(printer *p, const char *s) {
  putc_(p, '"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') {
      putc_(p, '\\');
      putc_(p, (char)c);
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      snprintf(buf, sizeof buf, "\\x%02x", c);
      puts_(p, buf);
    } else {
      putc_(p, (char)c);
    }
  }
  putc_(p, '"');
}

static bool is_ident_char(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$' || c >= 0x80;
}

/* A symbol or field name: bare when the lexer reads it back as one name,
 * quoted otherwise. */
void prt_name(printer *p, const char *s) {
  bool bare = *s != 0;
  for (const char *q = s; *q; q++)
    if (!is_ident_char((unsigned char)*q))
      bare = false;
  if (bare)
    puts_(p, s);
  else
    prt_string(p, s);
}

void prt_sym(printer *p, const vir_sym *s) {
  putc_(p, '@');
  prt_name(p, s ? s->name : "<null>");
}

/* Does the text read back as the same value at the type's width? */
static bool float_reads_back(const char *s, double d, unsigned bits) {
  double r = strtod(s, NULL);
  if (bits == 64)
    return r == d;
  if (bits == 32)
    return strtof(s, NULL) == (float)d;
  return vir_round_f16(r) == d;
}

void vir_format_float(char *buf, size_t size, double d, unsigned bits) {
  if (isnan(d)) {
    snprintf(buf, size, "nan");
    return;
  }
  if (isinf(d)) {
    snprintf(buf, size, d < 0 ? "-inf" : "inf");
    return;
  }
  /* whole numbers as whole numbers (65504.0 reads better than 6.55e+04 for
   * an f16), the rest as the shortest %g text that reads back */
  if (d == trunc(d) && fabs(d) < 1e16) {
    snprintf(buf, size, "%.1f", d);
    return;
  }
  /* %g drops trailing zeros, so when the shortest text has at most P
   * digits, %.Pg finds it as long as 10^-P is coarser than the type's
   * precision: start at 6 digits for f32 and 15 for f64 (from 1 for f16
   * and subnormals, which have fewer digits) */
  int start = bits == 64 && fabs(d) >= DBL_MIN ? 15 : bits == 32 && fabs(d) >= FLT_MIN ? 6 : 1;
  for (int prec = start; prec <= 17; prec++) {
    snprintf(buf, size, "%.*g", prec, d);
    if (float_reads_back(buf, d, bits))
      break;
  }
  if (!strpbrk(buf, ".e"))
    strncat(buf, ".0", size - strlen(buf) - 1);
}

void prt_literal(printer *p, const vir_type *t, vir_literal v) {
  switch (t ? t->kind : VIR_TY_VOID) {
  case VIR_TY_BOOL: puts_(p, v.b ? "true" : "false"); break;
  case VIR_TY_INT: prt_i64(p, v.i); break;
  case VIR_TY_UINT: prt_u64(p, v.u); break;
  case VIR_TY_FLOAT: {
    if (v.f == trunc(v.f) && fabs(v.f) < 1e15 && !(v.f == 0 && signbit(v.f))) {
      prt_i64(p, (int64_t)v.f); /* whole numbers without printf */
      put(p, ".0", 2);
      break;
    }
    char buf[40];
    vir_format_float(buf, sizeof buf, v.f, t->bits);
    puts_(p, buf);
    break;
  }
  default: prt_i64(p, v.i);
  }
}

void prt_loc(printer *p, vp_loc loc) {
  if ((p->flags & VIR_PRINT_NO_LOCS) || !loc.line)
    return;
  const char *src = p->m ? p->m->source_name : NULL;
  if (p->m && loc.file && loc.file == p->m->text_file)
    return;
  PUTS(p, " loc(");
  if (loc.file && !(src && (loc.file == src || strcmp(loc.file, src) == 0))) {
    prt_string(p, loc.file);
    putc_(p, ':');
  }
  prt_u64(p, loc.line);
  putc_(p, ':');
  prt_u64(p, loc.col);
  putc_(p, ')');
}

/* ---------------------------------------------------------- value naming */

/* A name hint as the lexer reads it: identifier characters, and '.' only
 * before a digit (so `%v.xyz` stays a swizzle); anything else becomes '_'. */
static bool name_char_ok(const char *s, size_t i, size_t n) {
  unsigned char c = (unsigned char)s[i];
  return is_ident_char(c) || (c == '.' && i > 0 && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9');
}

static const char *sanitize(printer *p, const char *hint, uint32_t *len) {
  size_t n = strlen(hint), i = 0;
  *len = (uint32_t)n;
  while (i < n && name_char_ok(hint, i, n))
    i++;
  if (i == n)
    return hint; /* the usual case: nothing to replace, nothing to copy */
  char *s = vp_arena_strndup(&p->scratch, hint, n);
  if (!s)
    return NULL;
  for (; i < n; i++)
    if (!name_char_ok(hint, i, n))
      s[i] = '_';
  return s;
}

static void name_value(printer *p, const vir_value *v) {
  if (!v || v->id >= p->nnames)
    return;
  vname *e = &p->names[v->id];
  e->v = v;
  const char *hint = v->name;
  if (!hint || !*hint || (hint[0] >= '0' && hint[0] <= '9')) {
    e->num = p->counter++;
    return;
  }
  uint32_t len;
  const char *s = sanitize(p, hint, &len);
  if (!s) {
    e->num = p->counter++;
    return;
  }
  bool taken;
  void **slot = vp_map_insert(&p->scratch, &p->used, s, len, &taken);
  if (taken) {
    uintptr_t k = (uintptr_t)vp_map_get(&p->next_suffix, s, len);
    if (!k)
      k = 1;
    char *cand;
    for (;; k++) {
      cand = vp_arena_printf(&p->scratch, "%s.%lu", s, (unsigned long)k);
      if (!cand || !vp_map_get(&p->used, cand, strlen(cand)))
        break;
    }
    vp_map_put(&p->scratch, &p->next_suffix, s, len, (void *)(k + 1));
    if (!cand) {
      e->num = p->counter++;
      return;
    }
    s = cand;
    len = (uint32_t)strlen(cand);
    vp_map_put(&p->scratch, &p->used, s, len, (void *)1);
  } else if (slot) {
    *slot = (void *)1;
  }
  e->s = s;
  e->len = len;
}

void prt_name_region(printer *p, const vir_region *r) {
  for (uint32_t i = 0; i < r->nargs; i++)
    name_value(p, r->args[i]);
  for (const vir_op *op = r->first; op; op = op->next) {
    if (op->val.type && op->val.type->kind != VIR_TY_VOID)
      name_value(p, &op->val);
    for (uint32_t i = 0; i < vir_op_info_of(op->code)->nregion; i++)
      prt_name_region(p, &op->regions[i]);
  }
}

void prt_value(printer *p, const vir_value *v) {
  putc_(p, '%');
  if (!v) {
    PUTS(p, "<null>");
    return;
  }
  if (v->id < p->nnames && p->names[v->id].v == v) {
    const vname *e = &p->names[v->id];
    if (e->s)
      put(p, e->s, e->len);
    else
      prt_u64(p, e->num);
    return;
  }
  /* Not named by the function being printed (vir_print_op, or a value
   * from elsewhere, which the verifier rejects): hint or id. */
  if (v->name && *v->name) {
    uint32_t len;
    const char *s = sanitize(p, v->name, &len);
    if (s) {
      put(p, s, len);
      return;
    }
  }
  prt_u64(p, v->id);
}

/* ------------------------------------------------------------------ paths */

const char vir_comp_names[] = "xyzw";

/* `.field`, `.x`, `[N]` for each step of `path` from type `t`. */
void prt_path(printer *p, const vir_type *t, uint32_t npath, const uint8_t *path) {
  for (uint32_t i = 0; i < npath; i++) {
    uint32_t k = path[i];
    if (t && t->kind == VIR_TY_STRUCT && k < t->st->nfields) {
      putc_(p, '.');
      prt_name(p, t->st->fields[k].name);
    } else if (t && t->kind == VIR_TY_VEC && k < t->n) {
      putc_(p, '.');
      putc_(p, vir_comp_names[k]);
    } else {
      putc_(p, '[');
      prt_u64(p, k);
      putc_(p, ']');
    }
    t = t ? vir_type_member(t, k) : NULL;
  }
}

/* The type a symbol's path starts from. */
const vir_type *vir_sym_path_base(const vir_sym *s) {
  if (!s)
    return NULL;
  if (s->kind == VIR_SYM_SHARED && s->type && s->type->kind == VIR_TY_ARRAY)
    return s->type->elem;
  return s->type;
}

/* @sym[%index].path : memory ops name a symbol, an element, a path. */
void prt_access(printer *p, const vir_op *op, uint32_t *next_opnd) {
  prt_sym(p, op->attr.sym);
  bool indexed = op->attr.sym && (op->attr.sym->kind == VIR_SYM_BUFFER || op->attr.sym->kind == VIR_SYM_SHARED);
  /* The index operand is there for buffer/shared ops whatever the symbol. */
  switch (op->code) {
  case VIR_OP_BUFFER_LOAD:
  case VIR_OP_BUFFER_STORE:
  case VIR_OP_SHARED_LOAD:
  case VIR_OP_SHARED_STORE: indexed = true; break;
  case VIR_OP_PUSH_LOAD:
  case VIR_OP_LOCAL_LOAD:
  case VIR_OP_LOCAL_STORE:
  case VIR_OP_GCONST:
  case VIR_OP_BUFFER_LEN: indexed = false; break;
  default: break;
  }
  if (indexed && *next_opnd < op->nopnd) {
    putc_(p, '[');
    prt_value(p, op->opnd[(*next_opnd)++]);
    putc_(p, ']');
  }
  prt_path(p, vir_sym_path_base(op->attr.sym), op->attr.npath, op->attr.path);
}

/* ------------------------------------------------------------ array level */

static void put_list(printer *p, const char *kw, uint32_t n, const int64_t *i64, const uint32_t *u32,
                     const uint8_t *u8) {
  puts_(p, kw);
  putc_(p, '(');
  for (uint32_t i = 0; i < n; i++) {
    if (i)
      PUTS(p, ", ");
    if (i64)
      prt_i64(p, i64[i]);
    else
      prt_u64(p, u32 ? u32[i] : u8[i]);
  }
  putc_(p, ')');
}

void prt_view(printer *p, const vir_array_attr *a) {
  if (!a)
    return;
  if (a->ndims)
    put_list(p, " shape", a->ndims, NULL, a->dims, NULL);
  if (a->offset) {
    PUTS(p, " offset(");
    prt_i64(p, a->offset);
    putc_(p, ')');
  }
  if (a->nstrides)
    put_list(p, " strides", a->nstrides, a->strides, NULL, NULL);
}

void prt_axes(printer *p, const vir_array_attr *a) {
  put_list(p, " axes", a ? a->naxes : 0, NULL, NULL, a ? a->axes : NULL);
}
