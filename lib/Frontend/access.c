/* access.c - attributes and subscripts: swizzles, struct fields, push
 * constants, `vp.NAME`, and indexing of buffers, shared arrays (2-D ones
 * flattened row by row), vectors and matrices.
 *
 * On memory both extend the place's member path (`parts[i].vel.x` is one
 * `buffer.load @parts[%i].vel.x`); on values they are extract, swizzle and
 * extract_dyn.
 */
#include <string.h>

#include "fe.h"

/* --------------------------------------------------------- attributes */

/* xyzw, rgba or stpq, one set at a time; -1 when not a swizzle. */
int vfe_swizzle(const char *s, uint8_t out[4]) {
  static const char *const sets[3] = {"xyzw", "rgba", "stpq"};
  size_t n = strlen(s);
  if (n < 1 || n > 4)
    return -1;
  for (int k = 0; k < 3; k++) {
    size_t i;
    for (i = 0; i < n; i++) {
      const char *p = strchr(sets[k], s[i]);
      if (!p || !s[i])
        break;
      out[i] = (uint8_t)(p - sets[k]);
    }
    if (i == n)
      return (int)n;
  }
  return -1;
}

static vfe_val swizzle_value(vfe_ctx *c, const vfe_node *at, vir_value *v, const char *attr) {
  uint8_t comp[4];
  int n = vfe_swizzle(attr, comp);
  const vir_type *t = v->type;
  if (n < 0)
    return vfe_err(c, at, "%s has no attribute '%s'", vfe_tyname(c, t), attr);
  for (int i = 0; i < n; i++)
    if (comp[i] >= t->n)
      return vfe_err(c, at, "component '%c' is out of range for %s", attr[i], vfe_tyname(c, t));
  vir_type *s = t->elem;
  if (n == 1) {
    vir_op *op = vfe_build(c, VIR_OP_EXTRACT, s, 1, &v);
    op->attr.index = comp[0];
    return vfe_value_of(vir_result(op));
  }
  vir_op *op = vfe_build(c, VIR_OP_SWIZZLE, vir_ty_vec(c->m, s, (unsigned)n), 1, &v);
  op->attr.nswz = (uint8_t)n;
  memcpy(op->attr.swz, comp, (size_t)n);
  return vfe_value_of(vir_result(op));
}

vfe_val vfe_attribute(vfe_ctx *c, const vfe_node *at, vfe_val base, const char *attr) {
  switch (base.kind) {
  case VFE_V_ERR: return base;
  case VFE_V_VP: {
    const vfe_builtin *bi = vfe_builtin_find(attr);
    if (!bi || (bi->python && bi->kind == VFE_B_TYPE)) { /* int, float: Python's */
      vfe_err(c, at, "vulpy has no attribute '%s'", attr);
      const char *sug = vfe_builtin_suggest(attr);
      if (sug)
        vfe_hint(c, "did you mean 'vp.%s'?", sug);
      return (vfe_val){0};
    }
    return (vfe_val){.kind = VFE_V_BUILTIN, .bi = bi};
  }
  case VFE_V_PUSH: {
    int f = c->push_st ? vir_struct_find(c->push_st, attr) : -1;
    if (f < 0 || (uint32_t)f == c->count_field) {
      vfe_err(c, at, "no push constant named '%s'", attr);
      vfe_hint(c, "declare it in `class PushConstants:` as %s: vp.uint32 (or its type)", attr);
      return (vfe_val){0};
    }
    vfe_val r = {.kind = VFE_V_PLACE};
    r.place = (vfe_place){.root = VFE_R_PUSH, .npath = 1, .sym = c->push,
                          .type = c->push_st->fields[f].type};
    r.place.path[0] = (uint8_t)f;
    return r;
  }
  case VFE_V_IDVEC: return swizzle_value(c, at, base.v, attr);
  case VFE_V_MATH: return vfe_math_attr(c, at, attr);
  case VFE_V_PLACE: {
    vfe_place p = base.place;
    if (p.dims_left)
      break;
    if (p.type->kind == VIR_TY_STRUCT) {
      int f = vir_struct_find(p.type->st, attr);
      if (f < 0) {
        vfe_err(c, at, "struct %s has no field '%s'", p.type->st->name, attr);
        return (vfe_val){0};
      }
      if (p.npath < VIR_MAX_PATH) {
        p.path[p.npath++] = (uint8_t)f;
        p.type = p.type->st->fields[f].type;
        base.place = p;
        return base;
      }
    } else if (p.type->kind == VIR_TY_VEC) {
      uint8_t comp[4];
      if (vfe_swizzle(attr, comp) == 1 && comp[0] < p.type->n && p.npath < VIR_MAX_PATH &&
          p.root != VFE_R_PUSH) {
        p.path[p.npath++] = comp[0];
        p.type = p.type->elem;
        base.place = p;
        return base;
      }
    }
    vir_value *v = vfe_use(c, at, base);
    return v ? vfe_attribute(c, at, vfe_value_of(v), attr) : (vfe_val){0};
  }
  case VFE_V_VAL: {
    vir_type *t = base.v->type;
    if (t->kind == VIR_TY_VEC)
      return swizzle_value(c, at, base.v, attr);
    if (t->kind == VIR_TY_STRUCT) {
      int f = vir_struct_find(t->st, attr);
      if (f < 0)
        return vfe_err(c, at, "struct %s has no field '%s'", t->st->name, attr);
      vir_op *op = vfe_build(c, VIR_OP_EXTRACT, t->st->fields[f].type, 1, &base.v);
      op->attr.index = (uint32_t)f;
      return vfe_value_of(vir_result(op));
    }
    return vfe_err(c, at, "%s has no attribute '%s'", vfe_tyname(c, t), attr);
  }
  case VFE_V_ARRAY:
    if (base.arr->control)
      return vfe_control_word(c, at, base.arr, attr);
    if (base.arr->ndim) /* a.shape, a.ndim (ndbuf.c) */
      return vfe_nd_attribute(c, at, base.arr, attr);
    vfe_err(c, at, "%s '%s' has no attribute '%s'", base.arr->shared ? "shared array" : "buffer",
            base.arr->sym->name, attr);
    if (!base.arr->shared)
      vfe_hint(c, "index it first: %s[i].%s; its length is len(%s)", base.arr->sym->name, attr,
               base.arr->sym->name);
    return (vfe_val){0};
  default: break;
  }
  return vfe_err(c, at, "this has no attribute '%s'", attr);
}

/* `ctrl.NAME`: the word the decorator's control_words name NAME, a place
 * read and written atomically. */
vfe_val vfe_control_word(vfe_ctx *c, const vfe_node *at, vfe_array *a, const char *attr) {
  for (uint32_t i = 0; i < a->nwords; i++) {
    if (strcmp(a->words[i], attr) != 0)
      continue;
    vfe_set_loc(c, at);
    vfe_val r = {.kind = VFE_V_PLACE};
    r.place = (vfe_place){.root = VFE_R_BUFFER, .sym = a->sym, .type = a->elem, .arr = a,
                          .atomic = true, .index = vfe_const_int(c, vir_ty_uint(c->m, 32), i)};
    return r;
  }
  const char *name = a->sym->name;
  if (!a->nwords) {
    vfe_err(c, at, "control buffer '%s' has no named words", name);
    vfe_hint(c, "name them in the decorator: control_words={\"%s\": [\"%s\", ...]}, or index "
                "the words: %s[i]", name, attr, name);
    return (vfe_val){0};
  }
  vp_strbuf b = {0};
  for (uint32_t i = 0; i < a->nwords && i < 8; i++)
    vp_strbuf_printf(&b, "%s%s", i ? ", " : "", a->words[i]);
  vfe_err(c, at, "control buffer '%s' has no word '%s'", name, attr);
  vfe_hint(c, "its words: %s%s", b.data ? b.data : "", a->nwords > 8 ? ", ..." : "");
  vp_strbuf_free(&b);
  return (vfe_val){0};
}

/* ---------------------------------------------------------- subscripts */

/* An index as an integer scalar; literals become u32. */
static vir_value *index_value(vfe_ctx *c, const vfe_node *e, vfe_val v, vir_type *like) {
  if (v.kind == VFE_V_INT) {
    if (!v.big && v.i < 0) {
      vfe_err(c, e, "negative index %lld into a buffer or shared array", (long long)v.i);
      return NULL;
    }
    return vfe_coerce(c, e, v, like ? like : vir_ty_uint(c->m, 32), VFE_WHAT("index"));
  }
  vir_value *x = vfe_use(c, e, v);
  if (!x)
    return NULL;
  if (!vir_ty_is_scalar(x->type) || !vir_ty_is_int(x->type)) {
    vfe_err(c, e, "an index must be an integer scalar, not %s", vfe_tyname(c, x->type));
    if (vir_ty_is_float(x->type))
      vfe_hint(c, "convert it: %s", vfe_cast_hint(c, vir_ty_uint(c->m, 32), e));
    return NULL;
  }
  if (like && x->type != like) {
    if (vir_ty_is_signed(x->type) != vir_ty_is_signed(like) || x->type->bits > like->bits) {
      vfe_err(c, e, "the indices mix %s and %s", vfe_tyname(c, like), vfe_tyname(c, x->type));
      vfe_hint(c, "convert one: %s", vfe_cast_hint(c, like, e));
      return NULL;
    }
    x = vfe_build1(c, VIR_OP_CAST, like, x);
  }
  return x;
}

/* Index into a vector or matrix value (constant: extract, else extract_dyn). */
static vfe_val index_aggregate(vfe_ctx *c, const vfe_node *at, vir_value *v, const vfe_node *ie,
                               vfe_val iv) {
  vir_type *t = v->type;
  vir_type *et = t->elem;
  uint32_t n = t->n;
  if (iv.kind == VFE_V_ERR)
    return iv;
  if (iv.kind == VFE_V_INT) {
    int64_t k = iv.big ? INT64_MAX : iv.i;
    if (k < 0)
      k += n; /* Python's v[-1] */
    if (k < 0 || k >= (int64_t)n)
      return vfe_err(c, ie, "index %lld is out of range for %s", (long long)iv.i, vfe_tyname(c, t));
    vir_op *op = vfe_build(c, VIR_OP_EXTRACT, et, 1, &v);
    op->attr.index = (uint32_t)k;
    return vfe_value_of(vir_result(op));
  }
  vir_value *x = index_value(c, ie, iv, NULL);
  if (!x)
    return (vfe_val){0};
  return vfe_value_of(vfe_build2(c, VIR_OP_EXTRACT_DYN, et, v, x));
}

/* A bound of a vector slice: absent, or an integer constant. */
static bool slice_bound(vfe_ctx *c, const vfe_node *b, bool *given, int64_t *v) {
  *given = b != NULL;
  if (!b)
    return true;
  vfe_val x = vfe_expr(c, b);
  if (x.kind == VFE_V_ERR)
    return false;
  if (x.kind != VFE_V_INT || x.big || x.i < -64 || x.i > 64) {
    vfe_err(c, b, "a vector slice's bounds are integer constants");
    vfe_hint(c, "write v[0:2], v[1:], v[::-1]; for an index known only at run time use v[i]");
    return false;
  }
  *v = x.i;
  return true;
}

int vfe_vector_slice(vfe_ctx *c, const vfe_node *sl, const vir_type *t, uint8_t comp[4]) {
  bool glo, ghi, gst;
  int64_t lo = 0, hi = 0, st = 1, n = t->n;
  if (!slice_bound(c, vfe_get(sl, "lower"), &glo, &lo) || !slice_bound(c, vfe_get(sl, "upper"), &ghi, &hi) ||
      !slice_bound(c, vfe_get(sl, "step"), &gst, &st))
    return -1;
  if (!gst)
    st = 1;
  if (st == 0) {
    vfe_err(c, sl, "slice step cannot be zero");
    return -1;
  }
  /* Python's slice.indices(n) */
  if (st > 0) {
    lo = !glo ? 0 : lo < 0 ? (lo + n < 0 ? 0 : lo + n) : (lo > n ? n : lo);
    hi = !ghi ? n : hi < 0 ? (hi + n < 0 ? 0 : hi + n) : (hi > n ? n : hi);
  } else {
    lo = !glo ? n - 1 : lo < 0 ? (lo + n < 0 ? -1 : lo + n) : (lo >= n ? n - 1 : lo);
    hi = !ghi ? -1 : hi < 0 ? (hi + n < 0 ? -1 : hi + n) : (hi >= n ? n - 1 : hi);
  }
  int count = 0;
  for (int64_t k = lo; st > 0 ? k < hi : k > hi; k += st) {
    if (count == 4)
      break;
    comp[count++] = (uint8_t)k;
  }
  if (count < 2) {
    vfe_err(c, sl, "this slice of a %s has %d component%s; a vector has 2 to 4", vfe_tyname(c, t), count,
            count == 1 ? "" : "s");
    if (count == 1)
      vfe_hint(c, "for one component write v[%d]", comp[0]);
    return -1;
  }
  return count;
}

vfe_val vfe_subscript_on(vfe_ctx *c, const vfe_node *e, vfe_val base) {
  const vfe_node *sl = vfe_get(e, "slice");
  if (base.kind == VFE_V_ERR)
    return base;
  if (base.kind == VFE_V_TUPLE && vfe_ast_of(sl) != VFE_AST_Slice) /* tuples.c */
    return vfe_tuple_index(c, e, base, vfe_expr(c, sl));
  if (vfe_ast_of(sl) == VFE_AST_Slice) {
    if (!vfe_get(sl, "lower") && !vfe_get(sl, "upper") && !vfe_get(sl, "step"))
      return base; /* x[:] reads the whole value */
    /* v[a:b:c] of a vector: a swizzle of constant components */
    if (base.kind == VFE_V_IDVEC)
      base = vfe_value_of(base.v);
    if (base.kind == VFE_V_ARRAY)
      return vfe_err(c, e, "%s '%s' cannot be sliced", base.arr->shared ? "shared array" : "buffer",
                     base.arr->sym->name);
    vir_value *v = base.kind == VFE_V_PLACE || base.kind == VFE_V_VAL ? vfe_use(c, e, base) : NULL;
    if (!v) {
      if (base.kind != VFE_V_PLACE && base.kind != VFE_V_VAL)
        vfe_err(c, e, "only vectors can be sliced");
      return (vfe_val){0};
    }
    if (v->type->kind != VIR_TY_VEC)
      return vfe_err(c, e, "only vectors can be sliced, not %s", vfe_tyname(c, v->type));
    uint8_t comp[4];
    int n = vfe_vector_slice(c, sl, v->type, comp);
    if (n < 0)
      return (vfe_val){0};
    vfe_set_loc(c, e);
    vir_op *op = vfe_build(c, VIR_OP_SWIZZLE, vir_ty_vec(c->m, v->type->elem, (unsigned)n), 1, &v);
    op->attr.nswz = (uint8_t)n;
    memcpy(op->attr.swz, comp, (size_t)n);
    return vfe_value_of(vir_result(op));
  }
  if (base.kind == VFE_V_BUILTIN && (base.bi->kind == VFE_B_BUFFER || base.bi->kind == VFE_B_SHARED))
    return vfe_err(c, e, "vp.%s[...] declares %s; it is not a value here", base.bi->name,
                   base.bi->kind == VFE_B_BUFFER ? "a kernel parameter's type" : "a shared array");
  if (base.kind == VFE_V_ARRAY && base.arr->priv) /* vp.Local (locals.c) */
    return vfe_local_index(c, e, base.arr);
  if (base.kind == VFE_V_ARRAY && base.arr->ndim && vfe_ast_of(sl) != VFE_AST_Slice) /* ndbuf.c */
    return vfe_nd_index(c, e, base.arr);
  if (base.kind == VFE_V_ARRAY) {
    vfe_array *a = base.arr;
    vfe_memsock_check_access(c, e, a);
    vfe_val r = {.kind = VFE_V_PLACE};
    r.place.root = a->shared ? VFE_R_SHARED : VFE_R_BUFFER;
    r.place.sym = a->sym;
    r.place.arr = a;
    r.place.type = a->elem;
    if (a->shared && a->dims[1]) {
      /* tile[row, col] or tile[row][col]: row * ncols + col */
      uint32_t n;
      vfe_node **items = vfe_ast_of(sl) == VFE_AST_Tuple ? vfe_get_list(sl, "elts", &n) : NULL;
      if (items && n != 2)
        return vfe_err(c, sl, "'%s' has 2 dimensions, not %u", a->sym->name, n);
      const vfe_node *first = items ? items[0] : sl;
      vir_value *row = index_value(c, first, vfe_expr(c, first), NULL);
      if (!row)
        return (vfe_val){0};
      r.place.index = vfe_build2(c, VIR_OP_MUL, row->type, row, vfe_const_int(c, row->type, a->dims[1]));
      r.place.dims_left = 1;
      if (!items)
        return r;
      vir_value *col = index_value(c, items[1], vfe_expr(c, items[1]), row->type);
      if (!col)
        return (vfe_val){0};
      r.place.index = vfe_build2(c, VIR_OP_ADD, row->type, r.place.index, col);
      r.place.dims_left = 0;
      return r;
    }
    if (vfe_ast_of(sl) == VFE_AST_Tuple)
      return vfe_err(c, sl, "'%s' has one dimension", a->sym->name);
    r.place.index = index_value(c, sl, vfe_expr(c, sl), NULL);
    return r.place.index ? r : (vfe_val){0};
  }
  if (base.kind == VFE_V_PLACE && base.place.dims_left) {
    vir_value *col = index_value(c, sl, vfe_expr(c, sl), base.place.index->type);
    if (!col)
      return (vfe_val){0};
    base.place.index = vfe_build2(c, VIR_OP_ADD, col->type, base.place.index, col);
    base.place.dims_left = 0;
    return base;
  }
  /* A place is read after its index is computed; the same value unless the
   * index expression itself writes that memory. */
  vfe_val iv = vfe_expr(c, sl);
  if (iv.kind == VFE_V_ERR)
    return iv;
  if (base.kind == VFE_V_PLACE &&
      (base.place.type->kind == VIR_TY_VEC || base.place.type->kind == VIR_TY_MAT) &&
      base.place.root != VFE_R_PUSH && base.place.npath < VIR_MAX_PATH) {
    /* A constant component or column extends the path (one load). */
    if (iv.kind == VFE_V_INT && !iv.big) {
      int64_t k = iv.i < 0 ? iv.i + base.place.type->n : iv.i;
      if (k < 0 || k >= base.place.type->n)
        return vfe_err(c, sl, "index %lld is out of range for %s", (long long)iv.i,
                       vfe_tyname(c, base.place.type));
      base.place.path[base.place.npath++] = (uint8_t)k;
      base.place.type = base.place.type->elem;
      return base;
    }
  }
  if (base.kind == VFE_V_IDVEC)
    base = vfe_value_of(base.v);
  /* a literal becomes a scalar (and is told it cannot be indexed); anything
   * else that is not a value says what it is */
  vir_value *v = vfe_use(c, e, base);
  if (!v)
    return (vfe_val){0};
  if (v->type->kind != VIR_TY_VEC && v->type->kind != VIR_TY_MAT)
    return vfe_err(c, e, "%s cannot be indexed", vfe_tyname(c, v->type));
  return index_aggregate(c, e, v, sl, iv);
}

