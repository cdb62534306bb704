/* types.c - interned VIR types, their text, std430 layout and paths.
 *
 * Types are interned per module so that equal types are equal pointers:
 * scalars and vectors through a fixed cache indexed by scalar slot and
 * width, matrices and arrays through a hash map keyed by their parts,
 * struct types once per struct. Each type
 * carries its text (`vec4<f32>`) so the printer never formats a type twice.
 */
#include "ir_impl.h"

#include <string.h>

/* Slot of a scalar in m->ty_cache: void, bool, i8..i64, u8..u64, f16..f64. */
static int log2_bytes(unsigned bits) { return bits == 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 2 : 3; }

static int scalar_slot(vir_type_kind k, unsigned bits) {
  switch (k) {
  case VIR_TY_VOID: return 0;
  case VIR_TY_BOOL: return 1;
  case VIR_TY_INT: return 2 + log2_bytes(bits);
  case VIR_TY_UINT: return 6 + log2_bytes(bits);
  case VIR_TY_FLOAT: return 10 + log2_bytes(bits) - 1;
  default: return -1;
  }
}

static vir_type *new_type(vir_module *m, vir_type proto, const char *str) {
  vir_type *t = vp_arena_alloc(&m->arena, sizeof *t);
  if (!t)
    return NULL;
  *t = proto;
  t->str = str;
  t->str_len = str ? (uint32_t)strlen(str) : 0;
  vp_ptrvec_push(&m->arena, &m->types, t);
  return t;
}

static vir_type *scalar(vir_module *m, vir_type_kind k, unsigned bits) {
  int slot = scalar_slot(k, bits);
  vir_type *t = m->ty_cache[slot][0];
  if (t)
    return t;
  const char *str;
  switch (k) {
  case VIR_TY_VOID: str = "void"; break;
  case VIR_TY_BOOL: str = "bool"; break;
  default: str = vp_arena_printf(&m->arena, "%c%u", k == VIR_TY_INT ? 'i' : k == VIR_TY_UINT ? 'u' : 'f', bits);
  }
  t = new_type(m, (vir_type){.kind = k, .bits = (uint8_t)bits}, str);
  m->ty_cache[slot][0] = t;
  return t;
}

static unsigned valid_int_bits(unsigned bits) {
  return bits == 8 || bits == 16 || bits == 32 || bits == 64 ? bits : 32;
}

vir_type *vir_ty_void(vir_module *m) { return scalar(m, VIR_TY_VOID, 0); }
vir_type *vir_ty_bool(vir_module *m) { return scalar(m, VIR_TY_BOOL, 32); }
vir_type *vir_ty_int(vir_module *m, unsigned bits) { return scalar(m, VIR_TY_INT, valid_int_bits(bits)); }
vir_type *vir_ty_uint(vir_module *m, unsigned bits) { return scalar(m, VIR_TY_UINT, valid_int_bits(bits)); }
vir_type *vir_ty_float(vir_module *m, unsigned bits) {
  return scalar(m, VIR_TY_FLOAT, bits == 16 || bits == 64 ? bits : 32);
}

vir_type *vir_ty_vec(vir_module *m, vir_type *s, unsigned n) {
  if (!s || !vir_ty_is_scalar(s) || n < 2 || n > 4)
    return NULL;
  int slot = scalar_slot(s->kind, s->bits);
  vir_type *t = m->ty_cache[slot][n - 1];
  if (t)
    return t;
  t = new_type(m, (vir_type){.kind = VIR_TY_VEC, .bits = s->bits, .n = (uint8_t)n, .elem = s},
               vp_arena_printf(&m->arena, "vec%u<%s>", n, s->str));
  m->ty_cache[slot][n - 1] = t;
  return t;
}

/* Matrices and arrays are found by their parts in m->typetab; the key is
 * the bytes of this struct (zeroed first, so padding compares equal). */
typedef struct type_key {
  const vir_type *elem;
  uint32_t kind, a, b;
} type_key;

static vir_type *lookup_composite(vir_module *m, const type_key *k) {
  return vp_map_get(&m->typetab, (const char *)k, sizeof *k);
}

static void remember_composite(vir_module *m, const type_key *k, vir_type *t) {
  type_key *stored = vp_arena_alloc(&m->arena, sizeof *stored);
  if (stored && t) {
    *stored = *k;
    vp_map_put(&m->arena, &m->typetab, (const char *)stored, sizeof *stored, t);
  }
}

vir_type *vir_ty_mat(vir_module *m, vir_type *s, unsigned cols, unsigned rows) {
  if (!s || s->kind != VIR_TY_FLOAT || cols < 2 || cols > 4 || rows < 2 || rows > 4)
    return NULL;
  type_key k;
  memset(&k, 0, sizeof k);
  k.elem = s, k.kind = VIR_TY_MAT, k.a = cols, k.b = rows;
  vir_type *t = lookup_composite(m, &k);
  if (t)
    return t;
  const char *str = cols == rows ? vp_arena_printf(&m->arena, "mat%u<%s>", cols, s->str)
                                 : vp_arena_printf(&m->arena, "mat%ux%u<%s>", cols, rows, s->str);
  t = new_type(m,
               (vir_type){.kind = VIR_TY_MAT, .bits = s->bits, .n = (uint8_t)cols,
                          .rows = (uint8_t)rows, .elem = vir_ty_vec(m, s, rows)},
               str);
  remember_composite(m, &k, t);
  return t;
}

vir_type *vir_ty_array(vir_module *m, vir_type *elem, uint32_t len) {
  if (!elem || elem->kind == VIR_TY_VOID)
    return NULL;
  type_key k;
  memset(&k, 0, sizeof k);
  k.elem = elem, k.kind = VIR_TY_ARRAY, k.a = len;
  vir_type *t = lookup_composite(m, &k);
  if (t)
    return t;
  t = new_type(m, (vir_type){.kind = VIR_TY_ARRAY, .elem = elem, .len = len},
               vp_arena_printf(&m->arena, "array<%s, %u>", elem->str, len));
  remember_composite(m, &k, t);
  return t;
}

vir_type *vir_ty_tensor(vir_module *m, vir_type *elem, unsigned rank, const uint32_t *dims) {
  if (!elem || !vir_ty_is_scalar(elem) || rank > VIR_MAX_RANK)
    return NULL;
  uint64_t n = 1;
  for (unsigned i = 0; i < rank; i++) {
    if (dims[i] == VIR_DIM_DYNAMIC && rank != 1)
      return NULL; /* a dynamic extent: rank-1 tensors only */
    n *= dims[i];
  }
  if (n > UINT32_MAX)
    return NULL;
  for (uint32_t i = 0; i < m->types.len; i++) {
    vir_type *t = m->types.data[i];
    if (t->kind == VIR_TY_TENSOR && t->elem == elem && t->n == rank &&
        (rank == 0 || memcmp(t->dims, dims, rank * sizeof *dims) == 0))
      return t;
  }
  uint32_t *d = rank ? vp_arena_alloc(&m->arena, rank * sizeof *d) : NULL;
  if (rank && !d)
    return NULL;
  if (rank)
    memcpy(d, dims, rank * sizeof *d);
  vp_strbuf b = {0};
  vp_strbuf_append(&b, "tensor<");
  for (unsigned i = 0; i < rank; i++)
    if (dims[i] == VIR_DIM_DYNAMIC)
      vp_strbuf_append(&b, "?x");
    else
      vp_strbuf_printf(&b, "%ux", dims[i]);
  vp_strbuf_printf(&b, "%s>", elem->str);
  const char *str = b.data ? vp_arena_strdup(&m->arena, b.data) : NULL;
  vp_strbuf_free(&b);
  vir_type *t = new_type(m, (vir_type){.kind = VIR_TY_TENSOR, .elem = elem, .n = (uint8_t)rank}, str);
  if (t)
    t->dims = d;
  return t;
}

uint64_t vir_ty_numel(const vir_type *t) {
  uint64_t n = 1;
  if (t && t->kind == VIR_TY_TENSOR)
    for (unsigned i = 0; i < t->n; i++)
      n *= t->dims[i];
  return n;
}

/* "@Name", or @"..." with escapes when the name is not an identifier. */
static const char *struct_type_text(vir_module *m, const char *name) {
  bool bare = *name != 0;
  for (const unsigned char *q = (const unsigned char *)name; *q; q++)
    if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') ||
          *q == '_' || *q == '$' || *q >= 0x80))
      bare = false;
  if (bare)
    return vp_arena_printf(&m->arena, "@%s", name);
  vp_strbuf b = {0};
  vp_strbuf_append(&b, "@\"");
  for (const unsigned char *q = (const unsigned char *)name; *q; q++) {
    if (*q == '"' || *q == '\\')
      vp_strbuf_printf(&b, "\\%c", *q);
    else if (*q < 0x20 || *q == 0x7f)
      vp_strbuf_printf(&b, "\\x%02x", *q);
    else
      vp_strbuf_putc(&b, (char)*q);
  }
  vp_strbuf_putc(&b, '"');
  const char *s = b.data ? vp_arena_strdup(&m->arena, b.data) : NULL;
  vp_strbuf_free(&b);
  return s;
}

vir_type *vir_ty_struct(vir_module *m, vir_struct *st) {
  if (!st)
    return NULL;
  if (!st->type)
    st->type = new_type(m, (vir_type){.kind = VIR_TY_STRUCT, .st = st}, struct_type_text(m, st->name));
  return st->type;
}

/* ------------------------------------------------------------ predicates */

const vir_type *vir_ty_scalar_of(const vir_type *t) {
  if (t->kind == VIR_TY_VEC)
    return t->elem;
  if (t->kind == VIR_TY_MAT)
    return t->elem->elem;
  return t;
}

unsigned vir_ty_width(const vir_type *t) { return t->kind == VIR_TY_VEC ? t->n : 1; }

bool vir_ty_is_float(const vir_type *t) { return vir_ty_scalar_of(t)->kind == VIR_TY_FLOAT; }

bool vir_ty_is_int(const vir_type *t) {
  if (t->kind == VIR_TY_MAT)
    return false;
  vir_type_kind k = vir_ty_scalar_of(t)->kind;
  return k == VIR_TY_INT || k == VIR_TY_UINT;
}

bool vir_ty_is_signed(const vir_type *t) {
  vir_type_kind k = vir_ty_scalar_of(t)->kind;
  return k == VIR_TY_INT || k == VIR_TY_FLOAT;
}

bool vir_ty_is_bool(const vir_type *t) {
  return t->kind != VIR_TY_MAT && vir_ty_scalar_of(t)->kind == VIR_TY_BOOL;
}

vir_type *vir_ty_with_scalar(vir_module *m, const vir_type *shape, vir_type *s) {
  if (shape->kind == VIR_TY_VEC)
    return vir_ty_vec(m, s, shape->n);
  if (shape->kind == VIR_TY_MAT)
    return vir_ty_mat(m, s, shape->n, shape->rows);
  return s;
}

void vir_type_print(vp_strbuf *b, const vir_type *t) { vp_strbuf_append(b, t ? t->str : "<null>"); }

/* ---------------------------------------------------------------- std430 */

uint32_t vir_type_align(const vir_type *t) {
  switch (t->kind) {
  case VIR_TY_VOID: return 1;
  case VIR_TY_BOOL: return 4; /* a bool in memory is a 32-bit word */
  case VIR_TY_INT:
  case VIR_TY_UINT:
  case VIR_TY_FLOAT: return t->bits / 8u;
  case VIR_TY_VEC: return vir_type_align(t->elem) * (t->n == 3 ? 4u : t->n);
  case VIR_TY_MAT: return vir_type_align(t->elem); /* a column */
  case VIR_TY_ARRAY: return vir_type_align(t->elem);
  case VIR_TY_STRUCT: return t->st->align ? t->st->align : 1;
  case VIR_TY_TENSOR: return vir_type_align(t->elem); /* not in memory; for completeness */
  }
  return 1;
}

static uint32_t round_up(uint32_t x, uint32_t a) { return (x + a - 1) / a * a; }

/* The distance between array elements (and matrix columns) in std430. */
static uint32_t stride_of(const vir_type *t) { return round_up(vir_type_size(t), vir_type_align(t)); }

uint32_t vir_type_size(const vir_type *t) {
  switch (t->kind) {
  case VIR_TY_VOID: return 0;
  case VIR_TY_BOOL: return 4;
  case VIR_TY_INT:
  case VIR_TY_UINT:
  case VIR_TY_FLOAT: return t->bits / 8u;
  case VIR_TY_VEC: return vir_type_size(t->elem) * t->n;
  case VIR_TY_MAT: return stride_of(t->elem) * t->n;
  case VIR_TY_ARRAY: return stride_of(t->elem) * t->len;
  case VIR_TY_STRUCT: return t->st->size;
  case VIR_TY_TENSOR: return (uint32_t)(vir_type_size(t->elem) * vir_ty_numel(t));
  }
  return 0;
}

/* ---------------------------------------------------------------- structs */

vir_struct *vir_struct_create(vir_module *m, const char *name, vp_loc loc) {
  vir_struct *st = vp_arena_alloc(&m->arena, sizeof *st);
  if (!st)
    return NULL;
  st->name = vp_arena_strdup(&m->arena, name);
  st->loc = loc;
  st->align = 1;
  vp_ptrvec_push(&m->arena, &m->structs, st);
  vir_ty_struct(m, st);
  return st;
}

void vir_struct_add_field(vir_module *m, vir_struct *st, const char *name, vir_type *t, vp_loc loc) {
  /* Fields grow by doubling inside the arena; structs are small. */
  uint32_t n = st->nfields;
  if ((n & (n - 1)) == 0) {
    vir_field *f = vp_arena_alloc(&m->arena, (n ? 2 * n : 1) * sizeof *f);
    if (!f)
      return;
    if (n)
      memcpy(f, st->fields, n * sizeof *f);
    st->fields = f;
  }
  st->fields[n] = (vir_field){.name = vp_arena_strdup(&m->arena, name), .type = t, .loc = loc};
  st->nfields = n + 1;
}

void vir_struct_layout(vir_struct *st) {
  uint32_t off = 0, align = 1;
  for (uint32_t i = 0; i < st->nfields; i++) {
    vir_field *f = &st->fields[i];
    uint32_t a = f->type ? vir_type_align(f->type) : 1;
    off = round_up(off, a);
    f->offset = off;
    off += f->type ? vir_type_size(f->type) : 0;
    if (a > align)
      align = a;
  }
  st->align = align;
  st->size = round_up(off, align);
}

int vir_struct_find(const vir_struct *st, const char *name) {
  for (uint32_t i = 0; i < st->nfields; i++)
    if (strcmp(st->fields[i].name, name) == 0)
      return (int)i;
  return -1;
}

/* ------------------------------------------------------------------ paths */

/* One step of a path: a struct member, a vector component, a matrix
 * column, an array element. */
vir_type *vir_type_member(const vir_type *t, uint32_t i) {
  switch (t->kind) {
  case VIR_TY_STRUCT: return i < t->st->nfields ? t->st->fields[i].type : NULL;
  case VIR_TY_VEC:
  case VIR_TY_MAT: return i < t->n ? t->elem : NULL;
  case VIR_TY_ARRAY: return i < t->len ? t->elem : NULL;
  default: return NULL;
  }
}

vir_type *vir_path_type(vir_type *t, uint32_t npath, const uint8_t *path) {
  for (uint32_t i = 0; t && i < npath; i++)
    t = vir_type_member(t, path[i]);
  return t;
}
