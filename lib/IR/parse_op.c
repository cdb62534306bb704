/* parse_op.c - values, ops, access paths and regions of the VIR text.
 *
 * Values are found by name in a per-function table (numbered values %N in
 * an array, named ones in a hash map). An op is parsed into local buffers,
 * then built with vir_new_op; the op-specific syntax follows its attribute
 * kind from ops.def.
 */
#include "parse.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ----------------------------------------------------------------- values */

/* The slot of a named value in the current generation, or the empty slot
 * where it would go. */
/* Two names of equal length, both in the lexer's text (which is readable
 * VIR_LEX_PAD bytes past any name): short ones compare as one word. */
static inline bool same_name(const char *a, const char *b, uint32_t len) {
  if (len <= 8) {
    uint64_t x, y;
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    return ((x ^ y) & (~0ull >> (64 - 8 * len))) == 0;
  }
  return memcmp(a, b, len) == 0;
}

static inline pr_vslot *vslot_find(parser *p, const vir_token *t) {
  uint32_t mask = p->vcap - 1;
  for (uint32_t i = t->hash & mask;; i = (i + 1) & mask) {
    pr_vslot *e = &p->vtab[i];
    if (e->gen != p->gen || (e->hash == t->hash && e->len == t->len && same_name(e->s, t->s, t->len)))
      return e;
  }
}

/* Keeps the table at most half full (it starts at 256 slots). */
static bool vtab_reserve(parser *p) {
  if (2 * (p->vlen + 1) <= p->vcap)
    return true;
  uint32_t cap = p->vcap ? 2 * p->vcap : 256;
  pr_vslot *t = vp_arena_alloc(&p->tmp, cap * sizeof *t);
  if (!t)
    return false;
  for (uint32_t i = 0; i < p->vcap; i++) {
    pr_vslot *e = &p->vtab[i];
    if (e->gen != p->gen)
      continue;
    uint32_t j = e->hash & (cap - 1);
    while (t[j].gen == p->gen)
      j = (j + 1) & (cap - 1);
    t[j] = *e;
  }
  p->vtab = t;
  p->vcap = cap;
  return true;
}

/* A %N token whose number is past the index table goes into the name
 * table like a name; it needs the hash the lexer left out. */
static const vir_token *by_name(const vir_token *t, vir_token *copy) {
  if (t->num < 0)
    return t;
  *copy = *t;
  copy->hash = vir_lex_hash(t->s, t->len);
  return copy;
}

/* %N past the index table, looked up by name. */
static vir_value *lookup_big(parser *p, const vir_token *t) {
  vir_token copy;
  pr_vslot *e = vslot_find(p, by_name(t, &copy));
  return e->gen == p->gen ? e->v : NULL;
}

/* Inline: every operand goes through here. */
static inline vir_value *lookup_value(parser *p, const vir_token *t) {
  int32_t n = t->num;
  if (n >= 0) {
    if ((uint32_t)n < p->nnumbered && p->numbered[n])
      return p->numbered[n];
    return p->nbig ? lookup_big(p, t) : NULL;
  }
  if (!p->vlen)
    return NULL;
  pr_vslot *e = vslot_find(p, t);
  return e->gen == p->gen ? e->v : NULL;
}

vir_value *pr_lookup_value(parser *p, const vir_token *t) { return lookup_value(p, t); }

/* Enters %name -> v. Names made only of digits get no name hint; they are
 * the printer's numbering, and go into an array indexed by the number
 * (unless the number is far past the others: a table, then). */
void pr_define_value(parser *p, const vir_token *t, vir_value *v) {
  int32_t n = t->num;
  if (n >= 0 && pr_lookup_value(p, t)) {
    pr_error(p, t, "redefinition of %%%.*s", (int)t->len, t->s);
    return;
  }
  if (n >= 0 && (uint64_t)n < 2 * (uint64_t)p->nnumbered + 1024) {
    if ((uint32_t)n >= p->nnumbered) {
      uint32_t cap = p->nnumbered ? p->nnumbered : 256;
      while (cap <= (uint32_t)n)
        cap *= 2;
      vir_value **a = vp_arena_alloc(&p->tmp, cap * sizeof *a);
      if (!a)
        return;
      if (p->nnumbered)
        memcpy(a, p->numbered, p->nnumbered * sizeof *a);
      p->numbered = a;
      p->nnumbered = cap;
    }
    p->numbered[n] = v;
    if ((uint32_t)n + 1 > p->maxnum)
      p->maxnum = (uint32_t)n + 1;
    return;
  }
  if (!vtab_reserve(p))
    return;
  vir_token copy;
  const vir_token *k = by_name(t, &copy);
  pr_vslot *e = vslot_find(p, k);
  if (e->gen == p->gen) {
    pr_error(p, t, "redefinition of %%%.*s", (int)t->len, t->s);
    return;
  }
  *e = (pr_vslot){t->s, t->len, k->hash, p->gen, v};
  p->vlen++;
  if (n >= 0)
    p->nbig++;
  else if (v && (v->name = vp_arena_alloc(&p->m->arena, t->len + 1)) != NULL)
    memcpy((char *)v->name, t->s, t->len); /* the arena's memory is zero: NUL-terminated */
}

static inline vir_value *parse_value(parser *p) {
  if (p->tok.kind != TK_VALUE) {
    pr_expected(p, "a value");
    return NULL;
  }
  vir_value *v = lookup_value(p, &p->tok);
  if (!v)
    pr_error(p, &p->tok, "use of undefined value %%%.*s", (int)p->tok.len, p->tok.s);
  pr_next(p);
  return v;
}

void pr_reset_values(parser *p) {
  p->gen++;
  p->vlen = p->nbig = 0;
  if (p->maxnum)
    memset(p->numbered, 0, p->maxnum * sizeof *p->numbered);
  p->maxnum = 0;
}

bool pr_decl_head(parser *p, vir_token *start, vir_token *name) {
  *start = p->tok;
  pr_next(p);
  if (p->tok.kind != TK_SYM) {
    pr_expected(p, "the function name");
    return false;
  }
  *name = p->tok;
  pr_next(p);
  pr_reset_values(p);
  return true;
}

/* ------------------------------------------------------------------- ops */

typedef struct opnds {
  vir_value *v[8];
  vir_value **data;
  uint32_t n, cap;
  parser *p;
} opnds;

static bool opnds_grow(opnds *o) {
  uint32_t cap = o->cap * 2;
  vir_value **d = vp_arena_alloc(&o->p->tmp, cap * sizeof *d);
  if (!d)
    return false;
  memcpy(d, o->data, o->n * sizeof *d);
  o->data = d;
  o->cap = cap;
  return true;
}

static inline void opnds_push(opnds *o, vir_value *v) {
  if (o->n < o->cap || opnds_grow(o))
    o->data[o->n++] = v;
}

/* values := value (',' value)* ; only on the op's own line, so that an
 * operand-less op is not followed into the next line's result name */
static bool parse_values(parser *p, opnds *o, uint32_t line, bool lead_comma) {
  if (lead_comma) {
    if (p->tok.kind != TK_COMMA || p->tok.line != line)
      return true;
    pr_next(p);
  } else if (p->tok.kind != TK_VALUE || p->tok.line != line) {
    return true;
  }
  do {
    if (p->tok.kind != TK_VALUE) {
      pr_expected(p, "a value");
      return false;
    }
    vir_value *v = parse_value(p);
    opnds_push(o, v);
  } while (pr_accept(p, TK_COMMA));
  return true;
}

static const char comps[] = "xyzw";

/* path := ('.' NAME | '[' INT ']')* ; names are struct fields or vector
 * components, each checked against the type reached so far */
static bool parse_path(parser *p, const vir_type *t, vir_attr *a) {
  for (;;) {
    vir_token start = p->tok;
    if (pr_accept(p, TK_DOT)) {
      if (p->tok.kind != TK_IDENT && p->tok.kind != TK_STRING) {
        pr_expected(p, "a field or component name");
        return false;
      }
      /* a dotted identifier is several steps */
      vir_token name = p->tok;
      const char *s = name.s, *end = name.s + name.len;
      pr_next(p);
      while (s < end) {
        const char *e = name.kind == TK_STRING ? end : memchr(s, '.', (size_t)(end - s));
        if (!e)
          e = end;
        size_t n = (size_t)(e - s);
        int k = -1;
        if (t && t->kind == VIR_TY_STRUCT) {
          char *fname = name.kind == TK_STRING ? pr_tok_name(p, &name) : vp_arena_strndup(&p->tmp, s, n);
          k = fname ? vir_struct_find(t->st, fname) : -1;
          if (k < 0) {
            pr_error(p, &name, "no field '%.*s' in %s", (int)n, s, t->str);
            return false;
          }
        } else if (t && t->kind == VIR_TY_VEC && n == 1 && *s && strchr(comps, *s)) {
          k = (int)(strchr(comps, *s) - comps);
          if (k >= t->n) {
            pr_error(p, &name, "component '%c' is out of range for %s", *s, t->str);
            return false;
          }
        } else {
          pr_error(p, &name, "'.%.*s' does not name a member of %s", (int)n, s, t ? t->str : "?");
          return false;
        }
        if (a->npath == VIR_MAX_PATH) {
          pr_error(p, &start, "access path longer than %d steps", VIR_MAX_PATH);
          return false;
        }
        a->path[a->npath++] = (uint8_t)k;
        t = vir_type_member(t, (uint32_t)k);
        s = e + 1;
      }
    } else if (p->tok.kind == TK_LBRACKET) {
      pr_next(p);
      uint32_t k;
      if (!pr_u32(p, &k) || !pr_expect(p, TK_RBRACKET))
        return false;
      if (!t || (t->kind != VIR_TY_ARRAY && t->kind != VIR_TY_MAT) || !vir_type_member(t, k)) {
        pr_error(p, &start, "'[%u]' does not index %s", k, t ? t->str : "?");
        return false;
      }
      if (a->npath == VIR_MAX_PATH) {
        pr_error(p, &start, "access path longer than %d steps", VIR_MAX_PATH);
        return false;
      }
      a->path[a->npath++] = (uint8_t)k;
      t = vir_type_member(t, k);
    } else {
      return true;
    }
  }
}

/* The type an access path starts from: an indexed local's element. */
static const vir_type *access_base(vir_opcode code, const vir_sym *sym) {
  const vir_type *t = vir_sym_path_base(sym);
  if ((code == VIR_OP_LOCAL_LOAD_AT || code == VIR_OP_LOCAL_STORE_AT) && t && t->kind == VIR_TY_ARRAY)
    return t->elem;
  return t;
}

static bool op_has_index(vir_opcode c) {
  switch (c) {
  case VIR_OP_BUFFER_LOAD:
  case VIR_OP_BUFFER_STORE:
  case VIR_OP_SHARED_LOAD:
  case VIR_OP_SHARED_STORE:
  case VIR_OP_LOCAL_LOAD_AT:
  case VIR_OP_LOCAL_STORE_AT: return true;
  default: return vir_op_info_of(c)->attr == VIR_ATTR_ATOMIC;
  }
}

/* access := SYM ('[' value ']')? path */
static bool parse_access(parser *p, vir_opcode code, vir_attr *a, opnds *o) {
  if (p->tok.kind != TK_SYM) {
    pr_expected(p, "a symbol");
    return false;
  }
  vir_token t = p->tok;
  char *name = t.quoted ? pr_tok_name(p, &t) : NULL;
  const char *s = name ? name : t.s;
  size_t n = name ? strlen(name) : t.len;
  bool local_op = code == VIR_OP_LOCAL_LOAD || code == VIR_OP_LOCAL_STORE ||
                  code == VIR_OP_LOCAL_LOAD_AT || code == VIR_OP_LOCAL_STORE_AT;
  vir_sym *sym = NULL;
  if (local_op && p->f)
    sym = vp_map_get(&p->f->localtab, s, n);
  if (!sym)
    sym = vp_map_get(&p->m->symtab, s, n);
  if (!sym && !local_op && p->f)
    sym = vp_map_get(&p->f->localtab, s, n);
  if (!sym) {
    pr_error(p, &t, "unknown symbol @%.*s", (int)n, s);
    return false;
  }
  pr_next(p);
  a->sym = sym;
  if (op_has_index(code)) {
    if (!pr_expect(p, TK_LBRACKET))
      return false;
    opnds_push(o, parse_value(p));
    if (!pr_expect(p, TK_RBRACKET))
      return false;
  }
  return parse_path(p, access_base(code, sym), a);
}

/* scope_sem := SCOPE SEMANTICS (both keywords of lex.h, in enum order) */
static bool parse_scope_sem(parser *p, vir_attr *a) {
  unsigned k = p->tok.kind == TK_IDENT ? p->tok.kw : KW_NONE;
  if (k < KW_INVOCATION || k > KW_QUEUE_FAMILY) {
    pr_expected(p, "a scope (invocation, subgroup, workgroup, device, queue_family)");
    return false;
  }
  a->scope = (vir_scope)(k - KW_INVOCATION);
  pr_next(p);
  k = p->tok.kind == TK_IDENT ? p->tok.kw : KW_NONE;
  if (k < KW_RELAXED || k > KW_SEQ_CST) {
    pr_expected(p, "memory semantics (relaxed, acquire, release, acq_rel, seq_cst)");
    return false;
  }
  a->sem = (vir_semantics)(k - KW_RELAXED);
  pr_next(p);
  return true;
}

/* The op-specific part after the op name; fills `o`, `a`, the flags. */
static bool parse_op_body(parser *p, vir_opcode code, uint32_t line, opnds *o, vir_attr *a,
                          vir_token *lit, bool *lit_neg, vir_token *callee, vir_token *ivar) {
  const vir_op_info *info = vir_op_info_of(code);
  switch ((vir_attr_kind)info->attr) {
  case VIR_ATTR_NONE:
    if (code == VIR_OP_FOR) {
      /* for %i = %lo to %hi step %s */
      if (p->tok.kind != TK_VALUE) {
        pr_expected(p, "the induction variable");
        return false;
      }
      *ivar = p->tok;
      pr_next(p);
      if (!pr_expect(p, TK_EQ))
        return false;
      opnds_push(o, parse_value(p));
      if (!pr_accept_k(p, KW_TO) && !pr_expect_kw(p, "to"))
        return false;
      opnds_push(o, parse_value(p));
      if (!pr_accept_k(p, KW_STEP) && !pr_expect_kw(p, "step"))
        return false;
      opnds_push(o, parse_value(p));
      return true;
    }
    return parse_values(p, o, line, false);
  case VIR_ATTR_CONST: return pr_read_literal(p, lit, lit_neg);
  case VIR_ATTR_SYM:
  case VIR_ATTR_ATOMIC:
    if (!parse_access(p, code, a, o) || !parse_values(p, o, line, true))
      return false;
    return info->attr == VIR_ATTR_SYM || parse_scope_sem(p, a);
  case VIR_ATTR_INDEX: {
    opnds_push(o, parse_value(p));
    uint32_t k;
    if (!pr_expect(p, TK_LBRACKET) || !pr_u32(p, &k) || !pr_expect(p, TK_RBRACKET))
      return false;
    a->index = k;
    return parse_values(p, o, line, true);
  }
  case VIR_ATTR_SWIZZLE: {
    opnds_push(o, parse_value(p));
    if (!pr_expect(p, TK_DOT))
      return false;
    vir_token t = p->tok;
    bool comps_ok = t.kind == TK_IDENT && t.len <= 4;
    for (uint32_t i = 0; comps_ok && i < t.len; i++)
      comps_ok = t.s[i] && strchr(comps, t.s[i]);
    if (!comps_ok) {
      pr_expected(p, "1 to 4 components of xyzw");
      return false;
    }
    for (uint32_t i = 0; i < t.len; i++)
      a->swz[i] = (uint8_t)(strchr(comps, t.s[i]) - comps);
    a->nswz = (uint8_t)t.len;
    pr_next(p);
    return true;
  }
  case VIR_ATTR_SCOPE:
    if (!parse_scope_sem(p, a))
      return false;
    if (pr_accept_k(p, KW_BUFFER))
      a->storage = VIR_STORAGE_BUFFER;
    else if (pr_accept_k(p, KW_SHARED))
      a->storage = VIR_STORAGE_SHARED;
    else if (pr_accept_k(p, KW_ALL))
      a->storage = VIR_STORAGE_BUFFER | VIR_STORAGE_SHARED;
    else {
      pr_expected(p, "'buffer', 'shared' or 'all'");
      return false;
    }
    return true;
  case VIR_ATTR_VIEW: {
    /* load := access view ; store := access view ',' value ;
     * scatter := access view ',' value ',' value ; slice := value view */
    if (!(a->arr = vir_array_attr_new(p->m, NULL)))
      return false;
    if (code == VIR_OP_ARRAY_SLICE) {
      opnds_push(o, parse_value(p));
    } else {
      if (p->tok.kind != TK_SYM) {
        pr_expected(p, "a buffer");
        return false;
      }
      vir_token t = p->tok;
      char *name = t.quoted ? pr_tok_name(p, &t) : NULL;
      a->sym = vp_map_get(&p->m->symtab, name ? name : t.s, name ? strlen(name) : t.len);
      if (!a->sym) {
        pr_error(p, &t, "unknown symbol @%.*s", (int)t.len, t.s);
        return false;
      }
      pr_next(p);
    }
    /* a run-time view: at(%off, %step) (a store's operands become
     * value, off, step: vir_view_scalars) */
    bool at = code != VIR_OP_ARRAY_SLICE && code != VIR_OP_ARRAY_SCATTER && pr_accept_kw(p, "at");
    /* (a load's block broadcast: at(%off, %step, %div, %mod); two axes:
     * at(%off, %step, %div, %mod, %step2, %div2, %mod2)) */
    for (int k = 0; at && (k < 2 || (k < 7 && p->tok.kind == TK_COMMA)); k++) {
      if (!pr_expect(p, k ? TK_COMMA : TK_LPAREN))
        return false;
      if (p->tok.kind != TK_VALUE) {
        pr_expected(p, "a value");
        return false;
      }
      opnds_push(o, parse_value(p));
    }
    if (at && !pr_expect(p, TK_RPAREN))
      return false;
    if (!pr_view(p, a->arr))
      return false;
    if (code == VIR_OP_ARRAY_LOAD || code == VIR_OP_ARRAY_SLICE)
      return true;
    if (!parse_values(p, o, line, true))
      return false;
    if (at) { /* the value first, then the view's scalars */
      vir_value **v = o->data, *t = v[o->n - 1];
      memmove(v + 1, v, (o->n - 1) * sizeof *v);
      v[0] = t;
    }
    return true;
  }
  case VIR_ATTR_AXES:
    /* values 'axes' ints */
    if (!parse_values(p, o, line, false) || !(a->arr = vir_array_attr_new(p->m, NULL)) ||
        !pr_expect_kw(p, "axes"))
      return false;
    return pr_ints(p, "axes", NULL, a->arr->axes, &a->arr->naxes);
  case VIR_ATTR_UFUNC: {
    /* NAME values */
    vir_token t = p->tok;
    vir_ufunc u = t.kind == TK_IDENT ? vir_ufunc_lookup(t.s, t.len) : VIR_UFUNC_COUNT;
    if (u == VIR_UFUNC_COUNT) {
      pr_expected(p, "a NumPy ufunc name (vulpy/ir/ufuncs.def)");
      return false;
    }
    a->index = (uint32_t)u;
    pr_next(p);
    return parse_values(p, o, line, false);
  }
  case VIR_ATTR_CALL:
    if (p->tok.kind != TK_SYM) {
      pr_expected(p, "the callee");
      return false;
    }
    *callee = p->tok;
    pr_next(p);
    if (!pr_expect(p, TK_LPAREN))
      return false;
    if (p->tok.kind != TK_RPAREN) {
      do
        opnds_push(o, parse_value(p));
      while (pr_accept(p, TK_COMMA));
    }
    return pr_expect(p, TK_RPAREN);
  }
  return false;
}

/* A scalar or vector type straight from the text (`f32`, `vec4<f32>`), or
 * NULL: left to pr_type. */
static vir_type *fast_type(parser *p, const char **qp) {
  vir_token w;
  const char *q = vir_lex_scan_word(&p->lx, *qp, &w);
  if (!q)
    return NULL;
  unsigned n = 1;
  if (w.kw >= KW_VEC2 && w.kw <= KW_VEC4) {
    n = 2u + (w.kw - KW_VEC2);
    if (*q != '<' || !(q = vir_lex_scan_word(&p->lx, q + 1, &w)) || *q != '>')
      return NULL;
    q++;
  }
  if (w.kw < KW_BOOL || w.kw > KW_F64)
    return NULL;
  /* the scalar keywords' types, interned once per parse */
  vir_type *t = p->kwtype[w.kw];
  if (!t) {
    vir_module *m = p->m;
    switch ((vir_kw)w.kw) {
    case KW_BOOL: t = vir_ty_bool(m); break;
    case KW_I8: case KW_I16: case KW_I32: case KW_I64: t = vir_ty_int(m, 8u << (w.kw - KW_I8)); break;
    case KW_U8: case KW_U16: case KW_U32: case KW_U64: t = vir_ty_uint(m, 8u << (w.kw - KW_U8)); break;
    default: t = vir_ty_float(m, 16u << (w.kw - KW_F16)); break;
    }
    p->kwtype[w.kw] = t;
  }
  if (n > 1) {
    vir_type **vt = &p->vectype[w.kw - KW_BOOL][n - 2];
    if (!*vt)
      *vt = vir_ty_vec(p->m, t, n);
    t = *vt;
  }
  *qp = q;
  return t;
}

/* `, %a, %b ...` straight from the text into ops[*n]; false when a value
 * is unknown or there are more than `cap`. */
static bool fast_values(parser *p, const char **qp, vir_value **ops, uint32_t *n, uint32_t cap) {
  const char *q = *qp;
  while (q[0] == ',' && q[1] == ' ') {
    vir_token v;
    if (*n == cap || !(q = vir_lex_scan_value(q + 2, &v)) || !(ops[*n] = lookup_value(p, &v)))
      return false;
    ++*n;
  }
  *qp = q;
  return true;
}

/* The end of a plain name (symbol, field) at s: what the printer writes
 * bare; anything else is left to the general path. */
static const char *plain_name_end(const char *s) {
  while ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_')
    s++;
  return s;
}

/* `@sym[%i].field.x` of a memory op straight from the text: plain names,
 * struct fields and vector components only. */
static bool fast_access(parser *p, vir_opcode code, const char **qp, vir_attr *a, vir_value **ops,
                        uint32_t *n) {
  const char *s = *qp + 1;
  if (**qp != '@')
    return false;
  const char *q = plain_name_end(s);
  size_t len = (size_t)(q - s);
  if (!len)
    return false;
  bool local_op = code == VIR_OP_LOCAL_LOAD || code == VIR_OP_LOCAL_STORE ||
                  code == VIR_OP_LOCAL_LOAD_AT || code == VIR_OP_LOCAL_STORE_AT;
  vir_sym *sym = NULL;
  if (local_op && p->f)
    sym = vp_map_get(&p->f->localtab, s, len);
  if (!sym)
    sym = vp_map_get(&p->m->symtab, s, len);
  if (!sym && !local_op && p->f)
    sym = vp_map_get(&p->f->localtab, s, len);
  if (!sym)
    return false;
  a->sym = sym;
  if (op_has_index(code)) {
    vir_token v;
    if (*q != '[' || !(q = vir_lex_scan_value(q + 1, &v)) || *q != ']' || !(ops[*n] = lookup_value(p, &v)))
      return false;
    ++*n;
    q++;
  }
  const vir_type *t = access_base(code, sym);
  while (*q == '.' && !(q[1] >= '0' && q[1] <= '9')) {
    const char *f = q + 1;
    q = plain_name_end(f);
    size_t fl = (size_t)(q - f);
    int k = -1;
    if (t && t->kind == VIR_TY_STRUCT) {
      for (uint32_t i = 0; i < t->st->nfields && k < 0; i++)
        if (strncmp(t->st->fields[i].name, f, fl) == 0 && !t->st->fields[i].name[fl])
          k = (int)i;
    } else if (t && t->kind == VIR_TY_VEC && fl == 1 && strchr(comps, *f)) {
      k = (int)(strchr(comps, *f) - comps);
      if (k >= t->n)
        k = -1;
    }
    if (k < 0 || !fl || a->npath == VIR_MAX_PATH)
      return false;
    a->path[a->npath++] = (uint8_t)k;
    t = vir_type_member(t, (uint32_t)k);
  }
  *qp = q;
  return true;
}

/* The common lines, read straight from the text with no tokens:
 *
 *   %r = OP %a, %b, ... : TYPE loc(L:C)           (no attribute)
 *   %r = extract %v[2], ... : TYPE loc(L:C)       (an index)
 *   %r = buffer.load @x[%i].pos.y, ... : TYPE ... (memory ops)
 *   %r = atomic.add @c[%i], %v device relaxed : TYPE ...
 *   buffer.store @y[%i], %v loc(L:C)              (no result)
 *
 * for ops without regions, TYPE a scalar or vector, exactly one space
 * where the printer puts one. The current token is %r, or the op's name
 * when there is no result. Anything else on the line, and anything wrong
 * with it (an unknown name, a redefinition, a missing type), leaves the
 * parser untouched and returns false: the general path below then reads
 * the line, builds the same op, and reports what is wrong. */
static bool fast_op(parser *p, vir_region *r) {
  const char *q = p->lx.p;
  vir_token w;
  bool has_result = p->tok.kind == TK_VALUE;
  if (has_result) {
    if (q[0] != ' ' || q[1] != '=' || q[2] != ' ' || !(q = vir_lex_scan_word(&p->lx, q + 3, &w)))
      return false;
  } else {
    w = p->tok;
  }
  if (w.op >= VIR_OP_COUNT)
    return false;
  vir_opcode code = (vir_opcode)w.op;
  const vir_op_info *info = vir_op_info_of(code);
  if (info->nregion || (info->result == VIR_RES_VOID) == has_result || code == VIR_OP_CALL)
    return false;
  vir_value *ops[8];
  uint32_t n = 0;
  vir_attr a; /* zeroed below for the kinds that have one */
  switch ((vir_attr_kind)info->attr) {
  case VIR_ATTR_NONE:
    /* values := value (',' value)* */
    if (q[0] == ' ' && q[1] == '%') {
      vir_token v;
      if (!(q = vir_lex_scan_value(q + 1, &v)) || !(ops[n++] = lookup_value(p, &v)) ||
          !fast_values(p, &q, ops, &n, 8))
        return false;
    }
    break;
  case VIR_ATTR_INDEX: {
    /* value '[' INT ']' */
    a = (vir_attr){0};
    vir_token v;
    if (q[0] != ' ' || !(q = vir_lex_scan_value(q + 1, &v)) || !(ops[n++] = lookup_value(p, &v)) || *q != '[')
      return false;
    uint32_t k = 0;
    const char *d = ++q;
    while (*q >= '0' && *q <= '9' && q - d < 9)
      k = k * 10 + (uint32_t)(*q++ - '0');
    if (q == d || *q != ']')
      return false;
    q++;
    a.index = k;
    break;
  }
  case VIR_ATTR_SYM:
  case VIR_ATTR_ATOMIC:
    a = (vir_attr){0};
    q++;
    if (q[-1] != ' ' || !fast_access(p, code, &q, &a, ops, &n))
      return false;
    break;
  default: return false;
  }
  if (info->attr != VIR_ATTR_NONE && !fast_values(p, &q, ops, &n, 8))
    return false;
  if (info->attr == VIR_ATTR_ATOMIC) {
    /* scope semantics */
    vir_token sc, se;
    if (q[0] != ' ' || !(q = vir_lex_scan_word(&p->lx, q + 1, &sc)) || q[0] != ' ' ||
        !(q = vir_lex_scan_word(&p->lx, q + 1, &se)) || sc.kw < KW_INVOCATION || sc.kw > KW_QUEUE_FAMILY ||
        se.kw < KW_RELAXED || se.kw > KW_SEQ_CST)
      return false;
    a.scope = (vir_scope)(sc.kw - KW_INVOCATION);
    a.sem = (vir_semantics)(se.kw - KW_RELAXED);
  }
  vir_type *type = NULL;
  if (has_result) {
    if (q[0] != ' ' || q[1] != ':' || q[2] != ' ')
      return false;
    q += 3;
    if (!(type = fast_type(p, &q)))
      return false;
  }
  vp_loc loc = pr_loc_of(p, &p->tok);
  bool has_loc = q[0] == ' ' && q[1] == 'l';
  if (has_loc) {
    uint32_t line, col;
    if (!(q = vir_lex_scan_loc(q + 1, &line, &col)))
      return false;
    loc = (vp_loc){p->m->source_name, line, col};
  }
  while (*q == ' ')
    q++;
  if (!(*q == '\n' || (*q == 0 && q >= p->lx.end)) || (has_result && lookup_value(p, &p->tok)))
    return false;
  if (!has_loc) {
    /* The general parser looks past the line end for the `: TYPE` and the
     * `loc(...)` it has not seen yet, and a `,` there continues an
     * operand list (`return %a` then `, %b` on the next line); where the
     * next token is one of them, it reads the line (usually to report it). */
    vir_lexer peek = p->lx;
    vir_token next;
    peek.p = q;
    vir_lex_next(&peek, &next);
    if (next.kind == TK_LOC || next.kind == TK_COLON || next.kind == TK_COMMA ||
        (next.kind == TK_IDENT && next.kw == KW_LOC))
      return false;
  }
  vir_op *op = vir_new_op(p->m, p->f, code, type, n, ops);
  if (!op)
    return false;
  if (info->attr != VIR_ATTR_NONE)
    op->attr = a; /* else it stays zero, as the arena gave it */
  op->loc = loc;
  vir_region_insert(r, NULL, op);
  if (has_result)
    pr_define_value(p, &p->tok, &op->val);
  p->lx.p = q; /* the line break: the lexer goes on from there */
  pr_next(p);
  return true;
}

/* op := (VALUE '=')? NAME 'volatile'? body (':' type)? loc? region* */
static bool parse_op(parser *p, vir_region *r) {
  if ((p->tok.kind == TK_VALUE || p->tok.kind == TK_IDENT) && !p->no_fast && fast_op(p, r))
    return true;
  vp_loc start = pr_loc_of(p, &p->tok);
  vir_token result;
  result.kind = TK_EOF; /* none; the tokens below are read only when set */
  if (p->tok.kind == TK_VALUE) {
    result = p->tok;
    pr_next(p);
    if (!pr_expect(p, TK_EQ))
      return false;
  }
  vir_token name = p->tok;
  if (name.kind != TK_IDENT) {
    pr_expected(p, "an op");
    goto poison;
  }
  if (name.op >= VIR_OP_COUNT) {
    pr_error(p, &name, "unknown op '%.*s'", (int)name.len, name.s);
    goto poison;
  }
  vir_opcode code = (vir_opcode)name.op;
  const vir_op_info *info = vir_op_info_of(code);
  pr_next(p);
  uint32_t flags = pr_accept_k(p, KW_VOLATILE) ? VIR_OPF_VOLATILE : 0;
  vir_value *inline_v[8];
  opnds o = {.data = inline_v, .cap = 8, .p = p};
  vir_attr a = {0};
  vir_token lit, callee, ivar;
  lit.kind = callee.kind = ivar.kind = TK_EOF;
  bool lit_neg = false;
  if (!parse_op_body(p, code, name.line, &o, &a, &lit, &lit_neg, &callee, &ivar))
    goto poison;
  vir_type *type = NULL;
  if (pr_accept(p, TK_COLON) && !(type = pr_type(p)))
    goto poison;
  bool has_result = info->result != VIR_RES_VOID;
  if (!has_result && (type || result.kind)) {
    pr_error(p, result.kind ? &result : &name, "'%s' has no result", info->name);
    goto poison;
  }
  if (has_result && type && type->kind == VIR_TY_VOID && code != VIR_OP_CALL) {
    /* it would print without its result and not read back (fuzz_vir) */
    pr_error(p, &name, "'%s' has a result, which cannot be void", info->name);
    goto poison;
  }
  if (has_result && !type && code != VIR_OP_CALL) {
    type = vir_infer_type(p->m, code, o.n, o.data);
    if (!type) {
      pr_error(p, &name, "missing ': TYPE' after '%s'", info->name);
      goto poison;
    }
  }
  if (code == VIR_OP_CALL && !type && result.kind) {
    pr_error(p, &result, "missing ': TYPE' after 'call' with a result");
    goto poison;
  }
  vir_literal litv = {0};
  if (info->attr == VIR_ATTR_CONST && !pr_convert_literal(p, &lit, lit_neg, type, &litv))
    goto poison;
  vp_loc loc = start;
  if (!pr_loc(p, &loc))
    goto poison;

  vir_op *op = vir_new_op(p->m, p->f, code, type, o.n, o.data);
  if (!op)
    return false;
  op->flags = flags;
  op->attr = a;
  op->attr.lit = litv;
  op->loc = loc;
  vir_region_insert(r, NULL, op);
  if (callee.kind) {
    vp_ptrvec_push(&p->tmp, &p->calls, op);
    vir_token *ct = vp_arena_alloc(&p->tmp, sizeof *ct);
    if (ct)
      *ct = callee;
    vp_ptrvec_push(&p->tmp, &p->callee_names, ct);
  }
  if (result.kind)
    pr_define_value(p, &result, &op->val);
  if (ivar.kind)
    pr_define_value(p, &ivar, op->regions[0].args[0]);

  if (!info->nregion && p->tok.line == name.line && p->tok.kind != TK_RBRACE &&
      p->tok.kind != TK_EOF) {
    pr_expected(p, "the end of the line");
    return false;
  }
  /* regions: if { } (else { })?, while { } do { }, loop/for { } */
  for (uint32_t i = 0; i < info->nregion; i++) {
    if (i == 1) {
      if (code == VIR_OP_IF && !pr_accept_k(p, KW_ELSE))
        break;
      if (code == VIR_OP_WHILE && !pr_accept_k(p, KW_DO) && !pr_expect_kw(p, "do"))
        return false;
    }
    if (!pr_region(p, &op->regions[i]))
      return false;
  }
  return true;

poison:
  /* Keep the name defined so that its uses do not each report an error. */
  if (result.kind && !pr_lookup_value(p, &result))
    pr_define_value(p, &result, vir_new_value(p->f, &p->tmp, NULL, NULL));
  return false;
}

/* Skips the rest of the erroneous line, and any region it opened (up to
 * and including the line its closing brace is on). */
static void recover(parser *p, uint32_t line) {
  int depth = 0;
  while (p->tok.kind != TK_EOF && (p->tok.line == line || depth > 0)) {
    if (p->tok.kind == TK_LBRACE) {
      depth++;
    } else if (p->tok.kind == TK_RBRACE) {
      if (depth == 0)
        return; /* the enclosing region's end */
      depth--;
    }
    line = p->tok.line;
    pr_next(p);
  }
}

/* local := 'local' SYM ':' type loc? */
static bool parse_local(parser *p) {
  vir_token t = p->tok;
  pr_next(p);
  if (p->tok.kind != TK_SYM) {
    pr_expected(p, "a symbol");
    return false;
  }
  vir_token name = p->tok;
  pr_next(p);
  vir_type *ty;
  if (!pr_expect(p, TK_COLON) || !(ty = pr_type(p)))
    return false;
  vp_loc loc = pr_loc_of(p, &t);
  if (!pr_loc(p, &loc))
    return false;
  char *s = pr_tok_name(p, &name);
  if (p->f && s)
    vir_func_add_local(p->m, p->f, s, ty, loc);
  return true;
}

/* region := '{' (op | local)* '}' ; locals only in a function body */
bool pr_region(parser *p, vir_region *r) {
  vir_token open = p->tok;
  if (!pr_expect(p, TK_LBRACE))
    return false;
  if (++p->depth > VIR_MAX_DEPTH) {
    pr_error(p, &open, "regions nested more than %d deep", VIR_MAX_DEPTH);
    p->depth--;
    /* skip the whole region: its contents would only repeat the error */
    for (int depth = 1; depth > 0 && p->tok.kind != TK_EOF; pr_next(p))
      depth += p->tok.kind == TK_LBRACE ? 1 : p->tok.kind == TK_RBRACE ? -1 : 0;
    return false;
  }
  while (p->tok.kind != TK_RBRACE && p->tok.kind != TK_EOF && p->nerrors <= MAX_ERRORS) {
    uint32_t line = p->tok.line;
    bool ok = r->parent_op == NULL && pr_is(&p->tok, KW_LOCAL) ? parse_local(p) : parse_op(p, r);
    if (!ok)
      recover(p, line);
  }
  p->depth--;
  return pr_expect(p, TK_RBRACE);
}
