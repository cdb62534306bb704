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

const char prt_digit_pairs[200] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

bool prt_grow(printer *p, size_t n) {
  prt_sync(p);
  vp_strbuf *b = p->out;
  /* at least doubling (vp_strbuf_reserve does), so appends stay linear */
  if (!vp_strbuf_reserve(b, n)) {
    p->cur = p->lim = NULL; /* dropped from now on, as the strbuf does */
    return false;
  }
  p->cur = b->data + b->len;
  p->lim = b->data + b->cap - 1; /* the NUL's place */
  return true;
}

void prt_u64_slow(printer *p, uint64_t v) {
  char buf[24];
  int i = sizeof buf;
  while (v >= 100) {
    i -= 2;
    memcpy(buf + i, prt_digit_pairs + 2 * (v % 100), 2);
    v /= 100;
  }
  if (v >= 10) {
    i -= 2;
    memcpy(buf + i, prt_digit_pairs + 2 * v, 2);
  } else {
    buf[--i] = (char)('0' + v);
  }
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

/* A float that is exactly a decimal with at most 6 places (1.5, 0.125,
 * 124.875: what kernels write), printed without printf when that decimal
 * is also the shortest text that reads back, i.e. what vir_format_float
 * would print: every other decimal with fewer places is at least 10^-k
 * away from it, more than half an ulp when an ulp is below 10^-k. */
static bool short_decimal(printer *p, double d, unsigned bits) {
  static const double pow10[] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6};
  double a = fabs(d);
  if (!(a >= 1e-4 && a < 1e9) || bits < 16)
    return false;
  int e;
  frexp(a, &e);
  double ulp = ldexp(1.0, e - (bits == 64 ? 53 : bits == 32 ? 24 : 11));
  for (int k = 1; k <= 6; k++) {
    double x = a * pow10[k];
    if (x != trunc(x))
      continue;
    /* exact: d * 10^k is x with nothing rounded away */
    if (fma(a, pow10[k], -x) != 0 || ulp >= 1 / pow10[k])
      return false;
    uint64_t n = (uint64_t)x, ip = n / (uint64_t)pow10[k], fp = n % (uint64_t)pow10[k];
    char frac[8];
    for (int i = k - 1; i >= 0; i--) {
      frac[i] = (char)('0' + fp % 10);
      fp /= 10;
    }
    if (d < 0)
      putc_(p, '-');
    prt_u64(p, ip);
    putc_(p, '.');
    put(p, frac, (size_t)k);
    return true;
  }
  return false;
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
    if (short_decimal(p, v.f, t->bits))
      break;
    char buf[40];
    vir_format_float(buf, sizeof buf, v.f, t->bits);
    puts_(p, buf);
    break;
  }
  default: prt_i64(p, v.i);
  }
}

void prt_loc_slow(printer *p, vp_loc loc) {
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

/* Identifier characters (is_ident_char) by table. */
static const unsigned char ident_cls[256] = {
    ['a' ... 'z'] = 1, ['A' ... 'Z'] = 1, ['0' ... '9'] = 1, ['_'] = 1, ['$'] = 1, [0x80 ... 0xff] = 1,
};

/* The hint as printed, and its length: the hint itself when every
 * character reads back (the usual case: no copy), else a copy with '_'. */
static const char *sanitize(printer *p, const char *hint, uint32_t *len) {
  size_t i = 0;
  while (ident_cls[(unsigned char)hint[i]])
    i++;
  size_t n = i;
  if (hint[i]) {
    n = strlen(hint);
    while (i < n && name_char_ok(hint, i, n))
      i++;
  }
  *len = (uint32_t)n;
  if (i == n)
    return hint;
  char *s = vp_arena_strndup(&p->scratch, hint, n);
  if (!s)
    return NULL;
  for (; i < n; i++)
    if (!name_char_ok(hint, i, n))
      s[i] = '_';
  return s;
}

/* A name of up to 15 bytes is hashed as two zero-padded words (which the
 * naming's fast path has at hand), longer ones a word at a time. */
static inline uint32_t words_hash(uint64_t w0, uint64_t w1, uint32_t len) {
  uint64_t h = (w0 ^ (w1 * 0xc4ceb9fe1a85ec53ull) ^ len) * 0xff51afd7ed558ccdull;
  return (uint32_t)(h >> 32);
}

static uint32_t name_hash(const char *s, uint32_t len) {
  if (len < 16) {
    uint64_t w[2] = {0, 0};
    memcpy(w, s, len);
    return words_hash(w[0], w[1], len);
  }
  uint64_t h = 0x9e3779b97f4a7c15ull ^ len;
  while (len >= 8) {
    uint64_t w;
    memcpy(&w, s, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
    s += 8;
    len -= 8;
  }
  uint64_t w = 0;
  memcpy(&w, s, len);
  h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
  return (uint32_t)(h >> 32);
}

/* The slot of a taken name, or the empty one where it would go. */
static taken_name *taken_find(printer *p, const char *s, uint32_t len, uint32_t hash) {
  uint32_t mask = p->taken_cap - 1;
  for (uint32_t i = hash & mask;; i = (i + 1) & mask) {
    taken_name *e = &p->taken[i];
    if (e->gen != p->gen || (e->hash == hash && e->len == len && memcmp(e->s, s, len) == 0))
      return e;
  }
}

/* Room for one more name (the table stays at most half full). */
static bool taken_reserve(printer *p) {
  if (2 * (p->ntaken + 1) <= p->taken_cap)
    return true;
  uint32_t cap = p->taken_cap ? 2 * p->taken_cap : 1024;
  taken_name *t = calloc(cap, sizeof *t);
  if (!t)
    return false;
  for (uint32_t i = 0; i < p->taken_cap; i++) {
    taken_name *e = &p->taken[i];
    if (e->gen != p->gen)
      continue;
    uint32_t j = e->hash & (cap - 1);
    while (t[j].gen == p->gen)
      j = (j + 1) & (cap - 1);
    t[j] = *e;
  }
  free(p->taken);
  p->taken = t;
  p->taken_cap = cap;
  return true;
}

void prt_begin_func(printer *p, uint32_t nvalues) {
  p->gen++; /* forgets the names of the previous function */
  p->ntaken = 0;
  p->counter = 0;
  if (nvalues > p->names_cap) {
    vname *n = realloc(p->names, nvalues * sizeof *n);
    if (!n) {
      p->nnames = 0;
      return;
    }
    /* zeroed, so that an entry names a value only once it was set */
    memset(n + p->names_cap, 0, (nvalues - p->names_cap) * sizeof *n);
    p->names = n;
    p->names_cap = nvalues;
  }
  p->nnames = nvalues;
}

void prt_free(printer *p) {
  free(p->names);
  free(p->taken);
  vp_arena_free(&p->scratch);
}

static void name_value(printer *p, const vir_value *v) {
  if (!v || v->id >= p->nnames)
    return;
  vname *e = &p->names[v->id];
  e->v = v;
  e->s = NULL;
  e->small = false;
  const char *hint = v->name;
  if (!hint || !*hint || (hint[0] >= '0' && hint[0] <= '9')) {
    e->num = p->counter++;
    return;
  }
  if (!taken_reserve(p)) {
    e->num = p->counter++;
    return;
  }
  /* The usual hint: short and plain. Copied into the `%name` text while
   * checked, and hashed from that copy. */
  union {
    uint64_t w[2];
    char c[16];
  } k = {{0, 0}};
  uint32_t len = 0;
  while (len < 15 && ident_cls[(unsigned char)hint[len]]) {
    k.c[len] = hint[len];
    len++;
  }
  const char *s = hint;
  uint32_t hash;
  if (!hint[len]) {
    hash = words_hash(k.w[0], k.w[1], len);
  } else {
    s = sanitize(p, hint, &len);
    if (!s) {
      e->num = p->counter++;
      return;
    }
    hash = name_hash(s, len);
  }
  taken_name *t = taken_find(p, s, len, hash);
  if (t->gen == p->gen) {
    /* taken: the first free `name.N`, counting on from the last one given */
    taken_name *base = t;
    char *cand = NULL;
    uint32_t clen = 0, chash = 0;
    for (uint32_t k = base->suffix ? base->suffix : 1;; k++) {
      cand = vp_arena_printf(&p->scratch, "%.*s.%u", (int)len, s, k);
      if (!cand)
        break;
      clen = (uint32_t)strlen(cand);
      chash = name_hash(cand, clen);
      t = taken_find(p, cand, clen, chash);
      if (t->gen != p->gen) {
        base->suffix = k + 1;
        break;
      }
    }
    if (!cand) {
      e->num = p->counter++;
      return;
    }
    s = cand;
    len = clen;
    hash = chash;
  }
  *t = (taken_name){s, len, hash, p->gen, 0};
  p->ntaken++;
  e->s = s;
  e->len = len;
  if (len < 15) {
    memset(e->text, 0, sizeof e->text);
    e->text[0] = '%';
    memcpy(e->text + 1, s, len);
    e->small = true;
  }
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

void prt_value_slow(printer *p, const vir_value *v) {
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
  case VIR_OP_SHARED_STORE:
  case VIR_OP_LOCAL_LOAD_AT:
  case VIR_OP_LOCAL_STORE_AT: indexed = true; break;
  case VIR_OP_PUSH_LOAD:
  case VIR_OP_LOCAL_LOAD:
  case VIR_OP_LOCAL_STORE:
  case VIR_OP_GCONST:
  case VIR_OP_MEMSOCK_FIRE: /* names the pipe; its operands are the signature and payload */
  case VIR_OP_BUFFER_LEN: indexed = false; break;
  default:
    /* The parser reads `[%i]` after every atomic's symbol (even one that
     * the verifier then rejects, such as a kernel): print it the same way,
     * or the text does not parse back (found by fuzz_vir_text). */
    indexed = indexed || vir_op_info_of(op->code)->attr == VIR_ATTR_ATOMIC;
    break;
  }
  if (indexed && *next_opnd < op->nopnd) {
    putc_(p, '[');
    prt_value(p, op->opnd[(*next_opnd)++]);
    putc_(p, ']');
  }
  const vir_type *base = vir_sym_path_base(op->attr.sym);
  if ((op->code == VIR_OP_LOCAL_LOAD_AT || op->code == VIR_OP_LOCAL_STORE_AT) && base &&
      base->kind == VIR_TY_ARRAY)
    base = base->elem; /* an indexed local: the path starts at the element */
  prt_path(p, base, op->attr.npath, op->attr.path);
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
