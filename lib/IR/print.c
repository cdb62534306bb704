/* print.c - the textual form of VIR (docs/ir.md has the grammar).
 *
 * The output is what vir_parse reads, and printing what was parsed gives
 * the same text again. Values are named per function before printing: a
 * value with a name hint prints as %hint, made unique with a .N suffix in
 * definition order (%x, %x.1, ...); the rest are numbered %0, %1, ... in
 * definition order. Numbers and names are appended by hand rather than
 * through printf: the printer is on the IR throughput benchmark's path.
 */
#include "ir_impl.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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
static void put(printer *p, const char *s, size_t n) {
  vp_strbuf *b = p->out;
  if (b->len + n + 1 <= b->cap) {
    memcpy(b->data + b->len, s, n);
    b->len += n;
  } else {
    vp_strbuf_appendn(b, s, n);
  }
}
static void puts_(printer *p, const char *s) { put(p, s, strlen(s)); }
/* a string literal: its length is known, the memcpy is inlined */
#define PUTS(p, lit) put((p), (lit), sizeof(lit) - 1)
static void putc_(printer *p, char c) {
  vp_strbuf *b = p->out;
  if (b->len + 2 <= b->cap)
    b->data[b->len++] = c;
  else
    vp_strbuf_putc(b, c);
}
static void indent(printer *p, int depth) {
  for (int i = 0; i < depth; i++)
    put(p, "  ", 2);
}
/* the strbuf's invariant, restored once at the end */
static void terminate(printer *p) {
  if (p->out->data && p->out->len < p->out->cap)
    p->out->data[p->out->len] = 0;
}

static void put_u64(printer *p, uint64_t v) {
  char buf[24];
  int i = sizeof buf;
  do {
    buf[--i] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  put(p, buf + i, sizeof buf - (size_t)i);
}

static void put_i64(printer *p, int64_t v) {
  if (v < 0) {
    putc_(p, '-');
    put_u64(p, (uint64_t)0 - (uint64_t)v);
  } else {
    put_u64(p, (uint64_t)v);
  }
}

static void put_string(printer *p, const char *s) {
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
static void put_name(printer *p, const char *s) {
  bool bare = *s != 0;
  for (const char *q = s; *q; q++)
    if (!is_ident_char((unsigned char)*q))
      bare = false;
  if (bare)
    puts_(p, s);
  else
    put_string(p, s);
}

static void put_sym(printer *p, const vir_sym *s) {
  putc_(p, '@');
  put_name(p, s ? s->name : "<null>");
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

static void put_literal(printer *p, const vir_type *t, vir_literal v) {
  switch (t ? t->kind : VIR_TY_VOID) {
  case VIR_TY_BOOL: puts_(p, v.b ? "true" : "false"); break;
  case VIR_TY_INT: put_i64(p, v.i); break;
  case VIR_TY_UINT: put_u64(p, v.u); break;
  case VIR_TY_FLOAT: {
    if (v.f == trunc(v.f) && fabs(v.f) < 1e15 && !(v.f == 0 && signbit(v.f))) {
      put_i64(p, (int64_t)v.f); /* whole numbers without printf */
      put(p, ".0", 2);
      break;
    }
    char buf[40];
    vir_format_float(buf, sizeof buf, v.f, t->bits);
    puts_(p, buf);
    break;
  }
  default: put_i64(p, v.i);
  }
}

static void put_type(printer *p, const vir_type *t) { puts_(p, t ? t->str : "<null>"); }

static void put_loc(printer *p, vp_loc loc) {
  if ((p->flags & VIR_PRINT_NO_LOCS) || !loc.line)
    return;
  const char *src = p->m ? p->m->source_name : NULL;
  if (p->m && loc.file && loc.file == p->m->text_file)
    return;
  PUTS(p, " loc(");
  if (loc.file && !(src && (loc.file == src || strcmp(loc.file, src) == 0))) {
    put_string(p, loc.file);
    putc_(p, ':');
  }
  put_u64(p, loc.line);
  putc_(p, ':');
  put_u64(p, loc.col);
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

static void name_region(printer *p, const vir_region *r) {
  for (uint32_t i = 0; i < r->nargs; i++)
    name_value(p, r->args[i]);
  for (const vir_op *op = r->first; op; op = op->next) {
    if (op->val.type && op->val.type->kind != VIR_TY_VOID)
      name_value(p, &op->val);
    for (uint32_t i = 0; i < vir_op_info_of(op->code)->nregion; i++)
      name_region(p, &op->regions[i]);
  }
}

static void put_value(printer *p, const vir_value *v) {
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
      put_u64(p, e->num);
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
  put_u64(p, v->id);
}

/* ------------------------------------------------------------------ paths */

static const char comp_names[] = "xyzw";

/* `.field`, `.x`, `[N]` for each step of `path` from type `t`. */
static void put_path(printer *p, const vir_type *t, uint32_t npath, const uint8_t *path) {
  for (uint32_t i = 0; i < npath; i++) {
    uint32_t k = path[i];
    if (t && t->kind == VIR_TY_STRUCT && k < t->st->nfields) {
      putc_(p, '.');
      put_name(p, t->st->fields[k].name);
    } else if (t && t->kind == VIR_TY_VEC && k < t->n) {
      putc_(p, '.');
      putc_(p, comp_names[k]);
    } else {
      putc_(p, '[');
      put_u64(p, k);
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
static void put_access(printer *p, const vir_op *op, uint32_t *next_opnd) {
  put_sym(p, op->attr.sym);
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
    put_value(p, op->opnd[(*next_opnd)++]);
    putc_(p, ']');
  }
  put_path(p, vir_sym_path_base(op->attr.sym), op->attr.npath, op->attr.path);
}

/* ------------------------------------------------------------------- ops */

static void print_region_body(printer *p, const vir_region *r, int depth);

static void put_operands(printer *p, const vir_op *op, uint32_t from, bool lead_comma) {
  for (uint32_t i = from; i < op->nopnd; i++) {
    puts_(p, i > from || lead_comma ? ", " : " ");
    put_value(p, op->opnd[i]);
  }
}

static void print_op(printer *p, const vir_op *op, int depth) {
  const vir_op_info *info = vir_op_info_of(op->code);
  indent(p, depth);
  bool has_result = op->val.type && op->val.type->kind != VIR_TY_VOID;
  if (has_result) {
    put_value(p, &op->val);
    PUTS(p, " = ");
  }
  puts_(p, info->name);
  if (op->flags & VIR_OPF_VOLATILE)
    PUTS(p, " volatile");
  uint32_t k = 0;
  switch ((vir_attr_kind)info->attr) {
  case VIR_ATTR_NONE:
    if (op->code == VIR_OP_FOR && op->nopnd == 3) {
      putc_(p, ' ');
      put_value(p, op->regions[0].nargs ? op->regions[0].args[0] : NULL);
      PUTS(p, " = ");
      put_value(p, op->opnd[0]);
      PUTS(p, " to ");
      put_value(p, op->opnd[1]);
      PUTS(p, " step ");
      put_value(p, op->opnd[2]);
    } else {
      put_operands(p, op, 0, false);
    }
    break;
  case VIR_ATTR_CONST:
    putc_(p, ' ');
    put_literal(p, op->val.type, op->attr.lit);
    put_operands(p, op, 0, true);
    break;
  case VIR_ATTR_SYM:
    putc_(p, ' ');
    put_access(p, op, &k);
    put_operands(p, op, k, true);
    break;
  case VIR_ATTR_INDEX:
    putc_(p, ' ');
    put_value(p, op->nopnd ? op->opnd[0] : NULL);
    putc_(p, '[');
    put_u64(p, op->attr.index);
    putc_(p, ']');
    put_operands(p, op, 1, true);
    break;
  case VIR_ATTR_SWIZZLE:
    putc_(p, ' ');
    put_value(p, op->nopnd ? op->opnd[0] : NULL);
    putc_(p, '.');
    for (uint32_t i = 0; i < op->attr.nswz && i < 4; i++)
      putc_(p, op->attr.swz[i] < 4 ? comp_names[op->attr.swz[i]] : '?');
    put_operands(p, op, 1, true);
    break;
  case VIR_ATTR_ATOMIC:
    putc_(p, ' ');
    put_access(p, op, &k);
    put_operands(p, op, k, true);
    putc_(p, ' ');
    puts_(p, vir_scope_name(op->attr.scope));
    putc_(p, ' ');
    puts_(p, vir_semantics_name(op->attr.sem));
    break;
  case VIR_ATTR_SCOPE:
    putc_(p, ' ');
    puts_(p, vir_scope_name(op->attr.scope));
    putc_(p, ' ');
    puts_(p, vir_semantics_name(op->attr.sem));
    puts_(p, op->attr.storage == VIR_STORAGE_BUFFER   ? " buffer"
             : op->attr.storage == VIR_STORAGE_SHARED ? " shared"
                                                      : " all");
    put_operands(p, op, 0, true);
    break;
  case VIR_ATTR_CALL:
    putc_(p, ' ');
    put_sym(p, op->attr.sym);
    putc_(p, '(');
    for (uint32_t i = 0; i < op->nopnd; i++) {
      if (i)
        PUTS(p, ", ");
      put_value(p, op->opnd[i]);
    }
    putc_(p, ')');
    break;
  }
  if (has_result) {
    PUTS(p, " : ");
    put_type(p, op->val.type);
  }
  put_loc(p, op->loc);
  for (uint32_t i = 0; i < info->nregion; i++) {
    const vir_region *r = &op->regions[i];
    /* `else {}` and nothing else may be left out */
    if (op->code == VIR_OP_IF && i == 1 && !r->first)
      break;
    if (i == 1)
      puts_(p, op->code == VIR_OP_WHILE ? " do" : " else");
    PUTS(p, " {\n");
    print_region_body(p, r, depth + 1);
    indent(p, depth);
    putc_(p, '}');
  }
  putc_(p, '\n');
}

static void print_region_body(printer *p, const vir_region *r, int depth) {
  for (const vir_op *op = r->first; op; op = op->next)
    print_op(p, op, depth);
}

/* ---------------------------------------------------------- declarations */

static void print_fields(printer *p, const vir_struct *st) {
  PUTS(p, " {");
  for (uint32_t i = 0; st && i < st->nfields; i++) {
    puts_(p, i ? ", " : " ");
    put_name(p, st->fields[i].name);
    PUTS(p, ": ");
    put_type(p, st->fields[i].type);
    put_loc(p, st->fields[i].loc);
  }
  puts_(p, st && st->nfields ? " }" : "}");
}

static void print_func(printer *p, const vir_func *f) {
  free(p->names);
  p->nnames = f->next_id;
  p->names = calloc(p->nnames ? p->nnames : 1, sizeof(vname));
  p->counter = 0;
  p->used = (vp_map){0};
  p->next_suffix = (vp_map){0};
  if (p->names)
    name_region(p, &f->body);
  else
    p->nnames = 0;

  puts_(p, f->is_kernel ? "kernel " : "func ");
  put_sym(p, f->sym);
  if (f->is_kernel) {
    PUTS(p, " local_size(");
    for (int i = 0; i < 3; i++) {
      if (i)
        PUTS(p, ", ");
      put_u64(p, f->local_size[i]);
    }
    putc_(p, ')');
  } else {
    putc_(p, '(');
    for (uint32_t i = 0; i < f->body.nargs; i++) {
      if (i)
        PUTS(p, ", ");
      put_value(p, f->body.args[i]);
      PUTS(p, ": ");
      put_type(p, f->body.args[i]->type);
    }
    putc_(p, ')');
    if (f->ret && f->ret->kind != VIR_TY_VOID) {
      PUTS(p, " -> ");
      put_type(p, f->ret);
    }
  }
  put_loc(p, f->loc);
  PUTS(p, " {\n");
  for (uint32_t i = 0; i < f->locals.len; i++) {
    const vir_sym *s = f->locals.data[i];
    PUTS(p, "  local ");
    put_sym(p, s);
    PUTS(p, " : ");
    put_type(p, s->type);
    put_loc(p, s->loc);
    putc_(p, '\n');
  }
  print_region_body(p, &f->body, 1);
  PUTS(p, "}\n");
}

static void print_decl(printer *p, const vir_sym *s) {
  switch (s->kind) {
  case VIR_SYM_PUSH:
    PUTS(p, "push ");
    put_sym(p, s);
    print_fields(p, s->type && s->type->kind == VIR_TY_STRUCT ? s->type->st : NULL);
    break;
  case VIR_SYM_BUFFER:
    PUTS(p, "buffer ");
    put_sym(p, s);
    PUTS(p, " : ");
    put_type(p, s->type);
    PUTS(p, "[] binding(");
    put_u64(p, s->set);
    PUTS(p, ", ");
    put_u64(p, s->binding);
    puts_(p, s->access == VIR_ACCESS_READONLY ? ") readonly"
             : s->access == VIR_ACCESS_WRITEONLY ? ") writeonly" : ") readwrite");
    if (s->buf_flags & VIR_BUF_COHERENT)
      PUTS(p, " coherent");
    if (s->buf_flags & VIR_BUF_VOLATILE)
      PUTS(p, " volatile");
    break;
  case VIR_SYM_SHARED:
    PUTS(p, "shared ");
    put_sym(p, s);
    PUTS(p, " : ");
    put_type(p, s->type);
    break;
  case VIR_SYM_CONST:
    PUTS(p, "const ");
    put_sym(p, s);
    PUTS(p, " : ");
    put_type(p, s->type);
    PUTS(p, " = ");
    put_literal(p, s->type, s->lit);
    break;
  default: return;
  }
  put_loc(p, s->loc);
  putc_(p, '\n');
}

void vir_print(const vir_module *m, unsigned flags, vp_strbuf *out) {
  printer p = {.out = out, .m = m, .flags = flags};
  bool any = false;
  if (m->source_name) {
    PUTS(&p, "module ");
    put_string(&p, m->source_name);
    putc_(&p, '\n');
  }
  /* Structs, then data symbols, then functions: each group in declaration
   * order, so everything is declared before it is named (calls excepted:
   * the parser resolves those at the end). */
  const vir_struct *push_st = m->push && m->push->type && m->push->type->kind == VIR_TY_STRUCT
                                  ? m->push->type->st : NULL;
  for (uint32_t i = 0; i < m->structs.len; i++) {
    const vir_struct *st = m->structs.data[i];
    bool is_push = st == push_st;
    for (uint32_t j = 0; !is_push && j < m->syms.len; j++) {
      const vir_sym *s = m->syms.data[j];
      is_push = s->kind == VIR_SYM_PUSH && s->type && s->type->st == st;
    }
    if (is_push)
      continue;
    if (!any && m->source_name)
      putc_(&p, '\n');
    any = true;
    PUTS(&p, "struct @");
    put_name(&p, st->name);
    print_fields(&p, st);
    put_loc(&p, st->loc);
    putc_(&p, '\n');
  }
  for (uint32_t i = 0; i < m->syms.len; i++) {
    const vir_sym *s = m->syms.data[i];
    if (s->kind == VIR_SYM_FUNC)
      continue;
    if (!any && m->source_name)
      putc_(&p, '\n');
    any = true;
    print_decl(&p, s);
  }
  for (uint32_t i = 0; i < m->syms.len; i++) {
    const vir_sym *s = m->syms.data[i];
    if (s->kind != VIR_SYM_FUNC || !s->func)
      continue;
    if (any || m->source_name)
      putc_(&p, '\n');
    any = true;
    vp_arena_free(&p.scratch);
    print_func(&p, s->func);
  }
  free(p.names);
  vp_arena_free(&p.scratch);
  terminate(&p);
}

void vir_print_op(const vir_op *op, unsigned flags, vp_strbuf *out) {
  printer p = {.out = out, .flags = flags};
  print_op(&p, op, 0);
  vp_arena_free(&p.scratch);
  terminate(&p);
}
