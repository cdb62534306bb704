/* expr.c - Python expressions to VIR values.
 *
 * vfe_expr returns a vfe_val, not yet a VIR value: a name may be a buffer,
 * `pc`, a built-in or a helper; `buf[i].pos` is a place in memory that
 * becomes a load only when read (or a store when assigned); literals stay
 * untyped until the other operand or the target gives them a type. Places
 * carry a symbol and a member path, so `parts[i].vel.x` is one
 * `buffer.load @parts[%i].1.0`. and/or and `a if c else b` first build
 * their right sides inside an `if`; when the ops turn out pure they move
 * out and become land/lor/select.
 */
#include <string.h>

#include "fe.h"

/* ------------------------------------------------------------- helpers */

void vfe_name_value(vfe_ctx *c, vir_value *v, const char *name) {
  if (v && !v->name)
    v->name = vfe_mstrdup(c, name);
}

vir_sym *vfe_temp(vfe_ctx *c, const char *what, vir_type *t) {
  const char *name = vp_arena_printf(&c->m->arena, "_vp_%s%u", what, c->fn->ntemps++);
  if (!name)
    longjmp(c->oom, 1);
  vir_sym *s = vir_func_add_local(c->m, c->fn->f, name, t, c->b.loc);
  if (!s)
    longjmp(c->oom, 1);
  return s;
}

void vfe_hoist(vir_region *r, vir_op *before) { vir_region_splice(before->parent, before, r); }

bool vfe_region_is_pure(const vir_region *r) {
  for (const vir_op *op = r->first; op; op = op->next) {
    if (vir_op_infos[op->code].flags & VIR_F_PURE)
      continue;
    if (op->code == VIR_OP_LOCAL_LOAD)
      continue;
    return false;
  }
  return true;
}

static vir_value *local_load(vfe_ctx *c, vir_sym *s) {
  vir_op *op = vfe_build(c, VIR_OP_LOCAL_LOAD, s->type, 0, NULL);
  op->attr.sym = s;
  return vir_result(op);
}

static void local_store(vfe_ctx *c, vir_sym *s, vir_value *v) {
  vir_op *op = vfe_build(c, VIR_OP_LOCAL_STORE, NULL, 1, &v);
  op->attr.sym = s;
}

vir_value *vfe_logic(vfe_ctx *c, const vfe_node *at, bool is_and, vir_value *a, vfe_rhs_fn rhs,
                     const void *arg) {
  vir_op *iff = vfe_build(c, VIR_OP_IF, NULL, 1, &a);
  vir_builder save = c->b;
  vir_region *r = &iff->regions[is_and ? 0 : 1];
  vir_builder_at_end(&c->b, r);
  vir_value *b = rhs(c, arg);
  c->b = save;
  vfe_set_loc(c, at);
  if (!b)
    return NULL;
  if (vfe_region_is_pure(r)) {
    vfe_hoist(r, iff);
    vir_op_unlink(iff);
    return vfe_build2(c, is_and ? VIR_OP_LAND : VIR_OP_LOR, a->type, a, b);
  }
  /* The right side loads or calls: it must not run when the left side
   * already decides, so the result lives in a local. */
  vir_sym *t = vfe_temp(c, is_and ? "and" : "or", a->type);
  vir_builder_before(&c->b, iff);
  local_store(c, t, a);
  vir_builder_at_end(&c->b, r);
  local_store(c, t, b);
  c->b = save;
  return local_load(c, t);
}

/* ------------------------------------------------------------- memory */

vir_value *vfe_load(vfe_ctx *c, const vfe_place *p) {
  static const vir_opcode load[] = {VIR_OP_BUFFER_LOAD, VIR_OP_SHARED_LOAD, VIR_OP_LOCAL_LOAD,
                                    VIR_OP_PUSH_LOAD};
  vir_value *idx = p->index;
  vir_op *op = vfe_build(c, load[p->root], p->type, idx ? 1 : 0, idx ? &idx : NULL);
  op->attr.sym = p->sym;
  op->attr.npath = p->npath;
  memcpy(op->attr.path, p->path, p->npath);
  if (p->arr)
    p->arr->reads++;
  return vir_result(op);
}

void vfe_store(vfe_ctx *c, const vfe_place *p, vir_value *v) {
  vir_value *ops[2] = {p->index, v};
  vir_op *op;
  if (p->root == VFE_R_LOCAL)
    op = vfe_build(c, VIR_OP_LOCAL_STORE, NULL, 1, &v);
  else
    op = vfe_build(c, p->root == VFE_R_BUFFER ? VIR_OP_BUFFER_STORE : VIR_OP_SHARED_STORE, NULL,
                   2, ops);
  op->attr.sym = p->sym;
  op->attr.npath = p->npath;
  memcpy(op->attr.path, p->path, p->npath);
  if (p->arr)
    p->arr->writes++;
}

vir_value *vfe_use(vfe_ctx *c, const vfe_node *at, vfe_val v) {
  switch (v.kind) {
  case VFE_V_ERR: return NULL;
  case VFE_V_VAL: return v.v;
  case VFE_V_INT:
  case VFE_V_FLOAT:
  case VFE_V_BOOL: return vfe_rvalue(c, at, v);
  case VFE_V_PLACE: {
    if (v.place.dims_left) {
      vfe_err(c, at, "'%s' has %u dimensions; index both", v.place.sym->name, 2);
      vfe_hint(c, "write %s[row, col]", v.place.sym->name);
      return NULL;
    }
    vp_loc saved = c->b.loc; /* the load is where the place is written */
    vfe_set_loc(c, at);
    vir_value *x = vfe_load(c, &v.place);
    c->b.loc = saved;
    return x;
  }
  case VFE_V_IDVEC: {
    vir_op *op = vfe_build(c, VIR_OP_EXTRACT, vir_ty_uint(c->m, 32), 1, &v.v);
    op->attr.index = 0;
    return vir_result(op);
  }
  case VFE_V_ARRAY:
    vfe_err(c, at, "%s '%s' is not a value", v.arr->shared ? "shared array" : "buffer",
            v.arr->sym->name);
    vfe_hint(c, "index it: %s[i]", v.arr->sym->name);
    return NULL;
  case VFE_V_PUSH:
    vfe_err(c, at, "'pc' is the push-constant block, not a value");
    vfe_hint(c, "read one field: pc.NAME");
    return NULL;
  case VFE_V_VP: vfe_err(c, at, "the vulpy module is not a value"); return NULL;
  case VFE_V_BUILTIN:
    if (v.bi->kind == VFE_B_FUNC) {
      vfe_err(c, at, "'%s' is a function, not a value", v.bi->name);
      vfe_hint(c, "call it: %s(...)", v.bi->name);
    } else {
      vfe_err(c, at, "'%s' is a type, not a value", v.bi->name);
    }
    return NULL;
  case VFE_V_FUNC:
    vfe_err(c, at, "'%s' is a function, not a value", v.helper->name);
    vfe_hint(c, "functions are called, not stored or passed");
    return NULL;
  case VFE_V_CLASS:
  case VFE_V_TYPE: vfe_err(c, at, "a type is not a value"); return NULL;
  case VFE_V_NONE: vfe_err(c, at, "None is not a value in a kernel"); return NULL;
  case VFE_V_STR:
    vfe_err(c, at, "strings are not supported in kernels");
    vfe_hint(c, "kernels compute numbers; strings may appear only as docstrings and assert messages");
    return NULL;
  case VFE_V_TUPLE:
    vfe_err(c, at, "a tuple is not a value in a kernel");
    vfe_hint(c, "build a vector instead: vp.vec3(a, b, c)");
    return NULL;
  }
  return NULL;
}

/* ---------------------------------------------------------- constants */

vfe_val vfe_constant(vfe_ctx *c, const vfe_node *e) {
  const char *kind = vfe_get_str(e, "kind");
  const vfe_node *v = vfe_get(e, "value");
  vfe_val r = {0};
  if (!kind)
    return vfe_err(c, e, "malformed AST: a Constant without \"kind\"");
  if (strcmp(kind, "int") == 0 && v && v->kind == VFE_J_INT) {
    r.kind = VFE_V_INT;
    r.i = v->i;
    r.big = v->big;
    return r;
  }
  if (strcmp(kind, "float") == 0 && v) {
    r.kind = VFE_V_FLOAT;
    if (v->kind == VFE_J_FLOAT)
      r.f = v->f;
    else if (v->kind == VFE_J_INT)
      r.f = v->big ? (double)v->u : (double)v->i;
    else if (v->kind == VFE_J_STR && strcmp(v->s, "inf") == 0)
      r.f = __builtin_inf();
    else if (v->kind == VFE_J_STR && strcmp(v->s, "-inf") == 0)
      r.f = -__builtin_inf();
    else if (v->kind == VFE_J_STR && strcmp(v->s, "nan") == 0)
      r.f = __builtin_nan("");
    else
      return vfe_err(c, e, "malformed AST: float constant out of range");
    return r;
  }
  if (strcmp(kind, "int") == 0)
    return vfe_err(c, e, "integer literal does not fit 64 bits");
  if (strcmp(kind, "bool") == 0 && v && v->kind == VFE_J_BOOL) {
    r.kind = VFE_V_BOOL;
    r.b = v->b;
    return r;
  }
  if (strcmp(kind, "None") == 0)
    return (vfe_val){.kind = VFE_V_NONE};
  if (strcmp(kind, "str") == 0) {
    r.kind = VFE_V_STR;
    r.s = v && v->kind == VFE_J_STR ? v->s : "";
    return r;
  }
  vfe_err(c, e, "%s constants are not supported in kernels", kind);
  return r;
}

/* --------------------------------------------------------- attributes */

/* xyzw, rgba or stpq, one set at a time; -1 when not a swizzle. */
static int swizzle(const char *s, uint8_t out[4]) {
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

static vfe_val value_of(vir_value *v) { return (vfe_val){.kind = VFE_V_VAL, .v = v, .type = v->type}; }

static vfe_val swizzle_value(vfe_ctx *c, const vfe_node *at, vir_value *v, const char *attr) {
  uint8_t comp[4];
  int n = swizzle(attr, comp);
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
    return value_of(vir_result(op));
  }
  vir_op *op = vfe_build(c, VIR_OP_SWIZZLE, vir_ty_vec(c->m, s, (unsigned)n), 1, &v);
  op->attr.nswz = (uint8_t)n;
  memcpy(op->attr.swz, comp, (size_t)n);
  return value_of(vir_result(op));
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
      if (swizzle(attr, comp) == 1 && comp[0] < p.type->n && p.npath < VIR_MAX_PATH &&
          p.root != VFE_R_PUSH) {
        p.path[p.npath++] = comp[0];
        p.type = p.type->elem;
        base.place = p;
        return base;
      }
    }
    vir_value *v = vfe_use(c, at, base);
    return v ? vfe_attribute(c, at, value_of(v), attr) : (vfe_val){0};
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
      return value_of(vir_result(op));
    }
    return vfe_err(c, at, "%s has no attribute '%s'", vfe_tyname(c, t), attr);
  }
  case VFE_V_ARRAY:
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

/* ---------------------------------------------------------- subscripts */

/* An index as an integer scalar; literals become u32. */
static vir_value *index_value(vfe_ctx *c, const vfe_node *e, vfe_val v, vir_type *like) {
  if (v.kind == VFE_V_INT) {
    if (!v.big && v.i < 0) {
      vfe_err(c, e, "negative index %lld into a buffer or shared array", (long long)v.i);
      return NULL;
    }
    return vfe_coerce(c, e, v, like ? like : vir_ty_uint(c->m, 32), "index");
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
    return value_of(vir_result(op));
  }
  vir_value *x = index_value(c, ie, iv, NULL);
  if (!x)
    return (vfe_val){0};
  return value_of(vfe_build2(c, VIR_OP_EXTRACT_DYN, et, v, x));
}

static vfe_val subscript(vfe_ctx *c, const vfe_node *e) {
  return vfe_subscript_on(c, e, vfe_expr(c, vfe_get(e, "value")));
}

vfe_val vfe_subscript_on(vfe_ctx *c, const vfe_node *e, vfe_val base) {
  const vfe_node *sl = vfe_get(e, "slice");
  if (base.kind == VFE_V_ERR)
    return base;
  if (vfe_ast_of(sl) == VFE_AST_Slice) {
    if (vfe_get(sl, "lower") || vfe_get(sl, "upper") || vfe_get(sl, "step"))
      return vfe_err(c, sl, "slices other than [:] are not supported");
    return base; /* x[:] reads the whole value */
  }
  if (base.kind == VFE_V_BUILTIN && (base.bi->kind == VFE_B_BUFFER || base.bi->kind == VFE_B_SHARED))
    return vfe_err(c, e, "vp.%s[...] declares %s; it is not a value here", base.bi->name,
                   base.bi->kind == VFE_B_BUFFER ? "a kernel parameter's type" : "a shared array");
  if (base.kind == VFE_V_ARRAY) {
    vfe_array *a = base.arr;
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
    base = value_of(base.v);
  vir_value *v = base.kind == VFE_V_PLACE || base.kind == VFE_V_VAL ? vfe_use(c, e, base) : NULL;
  if (!v) {
    if (base.kind != VFE_V_PLACE && base.kind != VFE_V_VAL)
      vfe_use(c, e, base); /* says what it is */
    return (vfe_val){0};
  }
  if (v->type->kind != VIR_TY_VEC && v->type->kind != VIR_TY_MAT)
    return vfe_err(c, e, "%s cannot be indexed", vfe_tyname(c, v->type));
  return index_aggregate(c, e, v, sl, iv);
}

static vir_value *cond_of(vfe_ctx *c, const vfe_node *e, vfe_val v);

/* ------------------------------------------------------------- unary */

static vfe_val unary(vfe_ctx *c, const vfe_node *e) {
  vfe_ast op = vfe_ast_of(vfe_get(e, "op"));
  const vfe_node *on = vfe_get(e, "operand");
  if (op == VFE_AST_Not) {
    vfe_val v = vfe_expr(c, on);
    if (v.kind == VFE_V_BOOL || v.kind == VFE_V_INT || v.kind == VFE_V_FLOAT) {
      bool t = v.kind == VFE_V_BOOL ? v.b : v.kind == VFE_V_INT ? v.i != 0 : v.f != 0;
      return (vfe_val){.kind = VFE_V_BOOL, .b = !t};
    }
    vir_value *x = cond_of(c, on, v);
    vfe_set_loc(c, e);
    return x ? value_of(vfe_build1(c, VIR_OP_LNOT, x->type, x)) : (vfe_val){0};
  }
  vfe_val v = vfe_expr(c, on);
  vfe_set_loc(c, e);
  if (v.kind == VFE_V_ERR)
    return v;
  if (v.kind == VFE_V_INT) {
    if (op == VFE_AST_UAdd)
      return v;
    if (op == VFE_AST_USub) {
      if (v.big && v.u != (1ull << 63))
        return vfe_err(c, e, "integer literal does not fit 64 bits");
      if (v.big) {
        v.big = false;
        v.i = INT64_MIN;
      } else if (v.i == INT64_MIN) {
        v.big = true;
        v.u = 1ull << 63;
      } else {
        v.i = -v.i;
      }
      return v;
    }
    if (op == VFE_AST_Invert && !v.big) {
      v.i = ~v.i; /* Python: ~x == -x - 1 */
      return v;
    }
    return vfe_err(c, e, "integer literal does not fit 64 bits");
  }
  if (v.kind == VFE_V_FLOAT) {
    if (op == VFE_AST_USub)
      v.f = -v.f;
    else if (op == VFE_AST_Invert)
      return vfe_err(c, e, "~ needs an integer, not a float");
    return v;
  }
  if (v.kind == VFE_V_BOOL)
    return vfe_err(c, e, "%s on a bool: Python turns it into an int; VulPy refuses to guess",
                   op == VFE_AST_Invert ? "~" : "unary +/-");
  vir_value *x = vfe_use(c, on, v);
  if (!x)
    return (vfe_val){0};
  const vir_type *s = vir_ty_scalar_of(x->type);
  if (op == VFE_AST_Invert) {
    if (!vir_ty_is_int(x->type))
      return vfe_err(c, e, "~ needs an integer, not %s", vfe_tyname(c, x->type));
    return value_of(vfe_build1(c, VIR_OP_NOT, x->type, x));
  }
  if (x->type->kind == VIR_TY_MAT || s->kind == VIR_TY_BOOL || x->type->kind == VIR_TY_STRUCT)
    return vfe_err(c, e, "unary %s needs a number, not %s", op == VFE_AST_USub ? "-" : "+",
                   vfe_tyname(c, x->type));
  if (op == VFE_AST_UAdd)
    return value_of(x);
  if (s->kind == VIR_TY_UINT) {
    vfe_err(c, e, "negating an unsigned value (%s)", vfe_tyname(c, x->type));
    vfe_hint(c, "convert to a signed type first: %s", vfe_cast_hint(c, vir_ty_int(c->m, s->bits), on));
    return (vfe_val){0};
  }
  return value_of(vfe_build1(c, VIR_OP_NEG, x->type, x));
}

/* ----------------------------------------------------- compare, and/or */

typedef struct chain {
  const vfe_node *e;
  vfe_node **ops, **comps;
  uint32_t n, at;
  vfe_val left;
  const vfe_node *left_node;
} chain;

/* comparison ((op) expr)+: a < b < c is (a < b) and (b < c), b evaluated once. */
static vir_value *chain_rest(vfe_ctx *c, const void *arg) {
  chain ch = *(const chain *)arg;
  vfe_val right = vfe_expr(c, ch.comps[ch.at]);
  if (right.kind == VFE_V_PLACE || right.kind == VFE_V_IDVEC) {
    /* evaluated once even when it takes part in two comparisons */
    vir_value *v = vfe_use(c, ch.comps[ch.at], right);
    right = v ? value_of(v) : (vfe_val){0};
  }
  vfe_set_loc(c, ch.e);
  vfe_val r = vfe_compare(c, ch.e, vfe_ast_of(ch.ops[ch.at]), ch.left, ch.left_node, right,
                          ch.comps[ch.at]);
  vir_value *x = r.kind == VFE_V_BOOL ? vfe_const_bool(c, r.b) : r.kind == VFE_V_VAL ? r.v : NULL;
  if (!x || ch.at + 1 == ch.n)
    return x;
  if (x->type->kind != VIR_TY_BOOL) {
    vfe_err(c, ch.e, "a chained comparison of vectors is ambiguous");
    vfe_hint(c, "compare pairwise and combine with vp.all(...) or vp.any(...)");
    return NULL;
  }
  chain next = ch;
  next.at++;
  next.left = right;
  next.left_node = ch.comps[ch.at];
  return vfe_logic(c, ch.e, true, x, chain_rest, &next);
}

static vfe_val compare(vfe_ctx *c, const vfe_node *e) {
  chain ch = {.e = e};
  uint32_t nc;
  ch.ops = vfe_get_list(e, "ops", &ch.n);
  ch.comps = vfe_get_list(e, "comparators", &nc);
  if (ch.n == 0 || nc != ch.n)
    return vfe_err(c, e, "malformed AST: Compare");
  ch.left_node = vfe_get(e, "left");
  ch.left = vfe_expr(c, ch.left_node);
  if (ch.left.kind == VFE_V_ERR)
    return ch.left;
  if (ch.n == 1) {
    vfe_val right = vfe_expr(c, ch.comps[0]);
    vfe_set_loc(c, e);
    return vfe_compare(c, e, vfe_ast_of(ch.ops[0]), ch.left, ch.left_node, right, ch.comps[0]);
  }
  vir_value *x = chain_rest(c, &ch);
  return x ? value_of(x) : (vfe_val){0};
}

vir_value *vfe_expr_cond(vfe_ctx *c, const vfe_node *e) { return cond_of(c, e, vfe_expr(c, e)); }

static vir_value *cond_of(vfe_ctx *c, const vfe_node *e, vfe_val v) {
  if (v.kind == VFE_V_BOOL)
    return vfe_const_bool(c, v.b);
  if (v.kind == VFE_V_INT || v.kind == VFE_V_FLOAT)
    return vfe_const_bool(c, v.kind == VFE_V_INT ? v.i != 0 : v.f != 0);
  vir_value *x = vfe_use(c, e, v);
  if (!x)
    return NULL;
  if (x->type->kind == VIR_TY_BOOL)
    return x;
  if (vir_ty_is_scalar(x->type)) {
    /* Python's truth test: nonzero is true. */
    vir_value *zero = vir_ty_is_float(x->type) ? vfe_const_float(c, x->type, 0)
                                               : vfe_const_int(c, x->type, 0);
    return vfe_build2(c, VIR_OP_NE, vir_ty_bool(c->m), x, zero);
  }
  vfe_err(c, e, "a %s is not a condition", vfe_tyname(c, x->type));
  if (x->type->kind == VIR_TY_VEC)
    vfe_hint(c, "reduce it: vp.any(...) or vp.all(...)");
  return NULL;
}

/* A strict bool operand of and/or: Python's `x or y` returns an operand,
 * which only matches a bool result when both are bools. */
static vir_value *bool_operand(vfe_ctx *c, const vfe_node *e) {
  vfe_val v = vfe_expr(c, e);
  if (v.kind == VFE_V_BOOL)
    return vfe_const_bool(c, v.b);
  vir_value *x = v.kind == VFE_V_ERR ? NULL : vfe_use(c, e, v);
  if (!x)
    return NULL;
  if (x->type->kind != VIR_TY_BOOL) {
    vfe_err(c, e, "and/or need bool operands, not %s", vfe_tyname(c, x->type));
    vfe_hint(c, "compare explicitly (x != 0); Python's `or` would return the operand itself");
    return NULL;
  }
  return x;
}

typedef struct boolchain {
  const vfe_node *e;
  vfe_node **vals;
  uint32_t n, at;
  bool is_and;
} boolchain;

static vir_value *bool_rest(vfe_ctx *c, const void *arg) {
  boolchain bc = *(const boolchain *)arg;
  vir_value *x = bool_operand(c, bc.vals[bc.at]);
  if (!x || bc.at + 1 == bc.n)
    return x;
  bc.at++;
  return vfe_logic(c, bc.e, bc.is_and, x, bool_rest, &bc);
}

static vfe_val boolop(vfe_ctx *c, const vfe_node *e) {
  boolchain bc = {.e = e, .is_and = vfe_ast_of(vfe_get(e, "op")) == VFE_AST_And};
  bc.vals = vfe_get_list(e, "values", &bc.n);
  if (bc.n < 2)
    return vfe_err(c, e, "malformed AST: BoolOp");
  /* (a and b) and c: left to right, each step guarding the rest */
  vir_value *x = bool_operand(c, bc.vals[0]);
  if (!x)
    return (vfe_val){0};
  bc.at = 1;
  vir_value *r = vfe_logic(c, e, bc.is_and, x, bool_rest, &bc);
  return r ? value_of(r) : (vfe_val){0};
}

/* body if test else orelse */
static vfe_val ifexp(vfe_ctx *c, const vfe_node *e) {
  vir_value *cond = vfe_expr_cond(c, vfe_get(e, "test"));
  if (!cond)
    return (vfe_val){0};
  vfe_set_loc(c, e);
  vir_op *iff = vfe_build(c, VIR_OP_IF, NULL, 1, &cond);
  vir_builder save = c->b;
  const vfe_node *side[2] = {vfe_get(e, "body"), vfe_get(e, "orelse")};
  vfe_val v[2];
  for (int k = 0; k < 2; k++) {
    vir_builder_at_end(&c->b, &iff->regions[k]);
    v[k] = vfe_expr(c, side[k]);
    bool lit = v[k].kind == VFE_V_INT || v[k].kind == VFE_V_FLOAT || v[k].kind == VFE_V_BOOL;
    if (!lit && v[k].kind != VFE_V_ERR) {
      vir_value *x = vfe_use(c, side[k], v[k]);
      v[k] = x ? value_of(x) : (vfe_val){0};
    }
  }
  c->b = save;
  if (v[0].kind == VFE_V_ERR || v[1].kind == VFE_V_ERR)
    return (vfe_val){0};
  vir_type *t;
  if (v[0].kind == VFE_V_VAL && v[1].kind == VFE_V_VAL)
    t = vfe_unify(c, e, v[0].v->type, v[1].v->type, "the two sides of `if`/`else`");
  else if (v[0].kind == VFE_V_VAL)
    t = v[0].v->type;
  else if (v[1].kind == VFE_V_VAL)
    t = v[1].v->type;
  else {
    /* two literals: the wider kind, default types */
    vfe_val pick = v[0].kind == VFE_V_FLOAT ? v[0] : v[1];
    vir_builder_at_end(&c->b, &iff->regions[0]);
    vir_value *tmp = vfe_rvalue(c, e, pick);
    c->b = save;
    if (!tmp)
      return (vfe_val){0};
    vir_op_unlink(tmp->def);
    t = tmp->type;
  }
  if (!t)
    return (vfe_val){0};
  vir_value *x[2];
  for (int k = 0; k < 2; k++) {
    vir_builder_at_end(&c->b, &iff->regions[k]);
    x[k] = vfe_coerce(c, side[k], v[k], t, "conditional expression");
  }
  c->b = save;
  if (!x[0] || !x[1])
    return (vfe_val){0};
  if (vfe_region_is_pure(&iff->regions[0]) && vfe_region_is_pure(&iff->regions[1])) {
    vfe_hoist(&iff->regions[0], iff);
    vfe_hoist(&iff->regions[1], iff);
    vir_op_unlink(iff);
    vir_value *ops[3] = {cond, x[0], x[1]};
    return value_of(vir_result(vfe_build(c, VIR_OP_SELECT, t, 3, ops)));
  }
  vir_sym *tmp = vfe_temp(c, "sel", t);
  for (int k = 0; k < 2; k++) {
    vir_builder_at_end(&c->b, &iff->regions[k]);
    local_store(c, tmp, x[k]);
  }
  c->b = save;
  return value_of(local_load(c, tmp));
}

/* ------------------------------------------------------------- dispatch */

static vfe_val unsupported(vfe_ctx *c, const vfe_node *e) {
  switch (vfe_ast_of(e)) {
  case VFE_AST_Lambda:
    vfe_err(c, e, "lambda is not supported in kernels");
    vfe_hint(c, "define a helper function with def");
    break;
  case VFE_AST_GeneratorExp:
  case VFE_AST_ListComp:
  case VFE_AST_SetComp:
  case VFE_AST_DictComp:
    vfe_err(c, e, "comprehensions and generators are not supported in kernels");
    vfe_hint(c, "write a for loop over range(...)");
    break;
  case VFE_AST_List:
  case VFE_AST_Dict:
  case VFE_AST_Set:
    vfe_err(c, e, "%s are not supported in kernels (no dynamic memory on the GPU)",
            vfe_ast_of(e) == VFE_AST_List ? "lists" : vfe_ast_of(e) == VFE_AST_Dict ? "dicts" : "sets");
    vfe_hint(c, "use a vector (vp.vec4(...)), a buffer or vp.Shared[T, N]");
    break;
  case VFE_AST_JoinedStr: vfe_err(c, e, "strings are not supported in kernels"); break;
  case VFE_AST_NamedExpr: vfe_err(c, e, "the walrus operator := is not supported"); break;
  case VFE_AST_Starred: vfe_err(c, e, "*unpacking is not supported in kernels"); break;
  case VFE_AST_Await:
  case VFE_AST_Yield:
  case VFE_AST_YieldFrom: vfe_err(c, e, "generators and coroutines are not supported in kernels"); break;
  case VFE_AST_Slice: vfe_err(c, e, "slices other than x[:] are not supported"); break;
  default:
    vfe_err(c, e, "%s expressions are not supported in kernels",
            e && e->type_name ? e->type_name : "these");
    break;
  }
  return (vfe_val){0};
}

vfe_val vfe_expr(vfe_ctx *c, const vfe_node *e) {
  if (!e || e->kind != VFE_J_OBJ)
    return vfe_err(c, e, "malformed AST: expected an expression");
  if (++c->depth > 400) {
    c->depth--;
    return vfe_err(c, e, "expression nested too deeply");
  }
  vfe_set_loc(c, e);
  vfe_val r;
  switch (vfe_ast_of(e)) {
  case VFE_AST_Constant: r = vfe_constant(c, e); break;
  case VFE_AST_Name: {
    const char *id = vfe_get_str(e, "id");
    r = id ? vfe_name(c, e, id) : vfe_err(c, e, "malformed AST: Name without id");
    break;
  }
  case VFE_AST_Attribute: {
    vfe_val base = vfe_expr(c, vfe_get(e, "value"));
    const char *attr = vfe_get_str(e, "attr");
    vfe_set_loc(c, e);
    r = attr ? vfe_attribute(c, e, base, attr) : vfe_err(c, e, "malformed AST: Attribute");
    break;
  }
  case VFE_AST_Subscript: r = subscript(c, e); break;
  case VFE_AST_BinOp: {
    const vfe_node *ln = vfe_get(e, "left"), *rn = vfe_get(e, "right");
    vfe_val a = vfe_expr(c, ln);
    if (a.kind == VFE_V_PLACE || a.kind == VFE_V_IDVEC) {
      /* read before the right side runs (it may call or store) */
      vir_value *x = vfe_use(c, ln, a);
      a = x ? value_of(x) : (vfe_val){0};
    }
    vfe_val b = vfe_expr(c, rn);
    vfe_set_loc(c, e);
    r = vfe_binop(c, e, vfe_ast_of(vfe_get(e, "op")), a, ln, b, rn);
    break;
  }
  case VFE_AST_UnaryOp: r = unary(c, e); break;
  case VFE_AST_Compare: r = compare(c, e); break;
  case VFE_AST_BoolOp: r = boolop(c, e); break;
  case VFE_AST_IfExp: r = ifexp(c, e); break;
  case VFE_AST_Call: r = vfe_call(c, e); break;
  case VFE_AST_Tuple: {
    uint32_t n;
    vfe_node **elts = vfe_get_list(e, "elts", &n);
    r = (vfe_val){.kind = VFE_V_TUPLE, .nelems = n};
    r.elems = vfe_alloc(c, (n ? n : 1) * sizeof *r.elems);
    for (uint32_t i = 0; i < n; i++) {
      r.elems[i] = vfe_expr(c, elts[i]);
      if (r.elems[i].kind == VFE_V_PLACE || r.elems[i].kind == VFE_V_IDVEC) {
        vir_value *v = vfe_use(c, elts[i], r.elems[i]);
        r.elems[i] = v ? value_of(v) : (vfe_val){0};
      }
    }
    break;
  }
  default: r = unsupported(c, e); break;
  }
  c->depth--;
  return r;
}

vir_value *vfe_expr_value(vfe_ctx *c, const vfe_node *e) {
  vfe_val v = vfe_expr(c, e);
  return vfe_use(c, e, v);
}

vir_value *vfe_expr_as(vfe_ctx *c, const vfe_node *e, vir_type *t, const char *what) {
  vfe_val v = vfe_expr(c, e);
  vfe_set_loc(c, e);
  return vfe_coerce(c, e, v, t, what);
}
