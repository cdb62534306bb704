/* stmt.c - Python statements to VIR: variables, assignment, control flow.
 *
 * Python variables are function-wide, so before a body is translated a
 * walk counts each name's assignments. A name assigned exactly once, at the
 * body's top level, and not through vp.var, is an SSA value carrying the
 * name as a hint; every other name is a VIR local of the same name, read
 * with local.load and written with local.store. A variable's type is fixed
 * by its annotation or its first assignment; later assignments must fit it.
 *
 * Errors stop only the statement they are in: the next one is translated,
 * so one run reports every independent mistake.
 */
#include <string.h>

#include "fe.h"

enum {
  A_COUNT = 0xffffff, /* assignment count */
  A_NESTED = 1u << 24, /* assigned inside if/for/while */
  A_VAR = 1u << 25,    /* assigned from vp.var(...) */
  A_LOOP = 1u << 26,   /* a for-loop variable */
  A_MUT = 1u << 27,    /* changed in part: v.x = ..., v[k] = ... (not counted) */
};

/* ---------------------------------------------------- assignment counts */

static void count_name(vfe_ctx *c, vfe_fn *fn, const char *id, uint32_t flags) {
  if (!id)
    return;
  uintptr_t v = (uintptr_t)vfe_map_get(&fn->assigns, id);
  v = ((v & A_COUNT) + !(flags & A_MUT)) | (v & ~(uintptr_t)A_COUNT) | flags;
  vfe_map_put(c, &fn->assigns, id, (void *)v);
}

/* target := NAME | (target, ...) | expr.attr | expr[...]: the name mutated */
static void count_target(vfe_ctx *c, vfe_fn *fn, const vfe_node *t, uint32_t flags) {
  switch (vfe_ast_of(t)) {
  case VFE_AST_Name: count_name(c, fn, vfe_get_str(t, "id"), flags); break;
  case VFE_AST_Tuple:
  case VFE_AST_List: {
    uint32_t n;
    vfe_node **e = vfe_get_list(t, "elts", &n);
    for (uint32_t i = 0; i < n; i++)
      count_target(c, fn, e[i], flags);
    break;
  }
  case VFE_AST_Attribute:
  case VFE_AST_Subscript: {
    /* v.x = 1 and v[0] = 1 change v: it must be a local */
    const vfe_node *base = vfe_get(t, "value");
    while (vfe_ast_of(base) == VFE_AST_Attribute || vfe_ast_of(base) == VFE_AST_Subscript)
      base = vfe_get(base, "value");
    if (vfe_ast_of(base) == VFE_AST_Name)
      count_name(c, fn, vfe_get_str(base, "id"), flags | A_MUT);
    break;
  }
  default: break;
  }
}

static bool is_var_call(vfe_ctx *c, const vfe_node *v) {
  if (vfe_ast_of(v) != VFE_AST_Call)
    return false;
  const vfe_node *f = vfe_get(v, "func");
  const char *name = vfe_ast_of(f) == VFE_AST_Attribute ? vfe_get_str(f, "attr")
                     : vfe_ast_of(f) == VFE_AST_Name    ? vfe_get_str(f, "id")
                                                        : NULL;
  (void)c;
  return name && strcmp(name, "var") == 0;
}

static void count_body(vfe_ctx *c, vfe_fn *fn, vfe_node **body, uint32_t n, uint32_t nested) {
  for (uint32_t i = 0; i < n; i++) {
    const vfe_node *s = body[i];
    uint32_t nt;
    vfe_node **list;
    switch (vfe_ast_of(s)) {
    case VFE_AST_Assign: {
      list = vfe_get_list(s, "targets", &nt);
      uint32_t f = nested | (is_var_call(c, vfe_get(s, "value")) ? A_VAR : 0);
      for (uint32_t k = 0; k < nt; k++)
        count_target(c, fn, list[k], f | (nt > 1 || vfe_ast_of(list[k]) != VFE_AST_Name ? 0 : 0));
      break;
    }
    case VFE_AST_AugAssign: count_target(c, fn, vfe_get(s, "target"), nested | A_VAR); break;
    case VFE_AST_AnnAssign:
      count_target(c, fn, vfe_get(s, "target"),
                   nested | (vfe_get(s, "value") && !is_var_call(c, vfe_get(s, "value")) ? 0 : A_VAR));
      break;
    case VFE_AST_For:
      count_target(c, fn, vfe_get(s, "target"), A_LOOP);
      list = vfe_get_list(s, "body", &nt);
      count_body(c, fn, list, nt, A_NESTED);
      list = vfe_get_list(s, "orelse", &nt);
      count_body(c, fn, list, nt, A_NESTED);
      break;
    case VFE_AST_While:
    case VFE_AST_If:
      list = vfe_get_list(s, "body", &nt);
      count_body(c, fn, list, nt, A_NESTED);
      list = vfe_get_list(s, "orelse", &nt);
      count_body(c, fn, list, nt, A_NESTED);
      break;
    default: break;
    }
  }
}

void vfe_count_assigns(vfe_ctx *c, vfe_fn *fn, vfe_node **body, uint32_t n) {
  count_body(c, fn, body, n, 0);
}

bool vfe_region_terminated(vfe_ctx *c) {
  const vir_op *last = c->b.before ? c->b.before->prev : c->b.region->last;
  return last && (vir_op_infos[last->code].flags & VIR_F_TERM);
}

/* ------------------------------------------------------------ variables */

static vfe_val val(vir_value *v) {
  return v ? (vfe_val){.kind = VFE_V_VAL, .v = v, .type = v->type} : (vfe_val){0};
}

static vfe_var *new_var(vfe_ctx *c, const char *id, vfe_bind bind, vir_type *t, const vfe_node *at) {
  vfe_var *v = vfe_alloc(c, sizeof *v);
  v->bind = bind;
  v->type = t;
  v->line = at ? at->line : 0;
  vfe_map_put(c, &c->fn->vars, id, v);
  return v;
}

static vir_sym *new_local(vfe_ctx *c, const char *id, vir_type *t, const vfe_node *at) {
  const char *name = vfe_mstrdup(c, id);
  if (vir_func_find_local(c->fn->f, name)) /* a loop variable's old name, say */
    name = vp_arena_printf(&c->m->arena, "%s_%u", id, c->fn->ntemps++);
  vir_sym *s = vir_func_add_local(c->m, c->fn->f, name, t, vfe_loc(c, at));
  if (!s)
    longjmp(c->oom, 1);
  return s;
}

/* NAME = value */
static void assign_name(vfe_ctx *c, const vfe_node *target, vfe_val value, const vfe_node *vnode,
                        vir_type *declared) {
  const char *id = vfe_get_str(target, "id");
  if (!id)
    return;
  if (strncmp(id, "_vp_", 4) == 0) {
    vfe_err(c, target, "names starting with _vp_ are reserved for VulPy");
    return;
  }
  vfe_var *v = vfe_map_get(&c->fn->vars, id);
  if (v && v->bind != VFE_BIND_POISON) {
    switch (v->bind) {
    case VFE_BIND_LOCAL: {
      if (declared && declared != v->type) {
        vfe_err(c, target, "'%s' is %s (line %u) and cannot be redeclared as %s", id,
                vfe_tyname(c, v->type), v->line, vfe_tyname(c, declared));
        return;
      }
      vir_value *x = vfe_coerce(c, vnode, value, v->type,
                                vp_arena_printf(&c->arena, "assignment to '%s' (%s since line %u)", id,
                                                vfe_tyname(c, v->type), v->line));
      if (x) {
        vfe_set_loc(c, target);
        vfe_place p = {.root = VFE_R_LOCAL, .sym = v->local, .type = v->type};
        vfe_store(c, &p, x);
      }
      return;
    }
    case VFE_BIND_LOOP:
      vfe_err(c, target, "cannot assign to the loop variable '%s'", id);
      vfe_hint(c, "use another name; range() sets '%s' on every iteration", id);
      return;
    case VFE_BIND_ARRAY:
      vfe_err(c, target, "cannot assign to %s '%s' itself", v->arr->shared ? "shared array" : "buffer", id);
      vfe_hint(c, "store an element: %s[i] = ...", id);
      return;
    case VFE_BIND_PUSH:
      vfe_err(c, target, "cannot assign to push constant '%s'", id);
      vfe_hint(c, "push constants are read-only; copy it: my_%s = %s", id, id);
      return;
    default: break; /* SSA of a dead loop variable's name: a new binding */
    }
  }
  uintptr_t flags = (uintptr_t)vfe_map_get(&c->fn->assigns, id);
  if (value.kind == VFE_V_ARRAY && !declared) {
    if ((flags & A_COUNT) != 1 || (flags & (A_NESTED | A_LOOP | A_VAR))) {
      vfe_err(c, target, "'%s' names an array here but is assigned elsewhere too", id);
      vfe_hint(c, "an array name is bound once, at the top level of the function");
      return;
    }
    new_var(c, id, VFE_BIND_ARRAY, NULL, target)->arr = value.arr;
    return;
  }
  vir_value *x = declared ? vfe_coerce(c, vnode, value, declared,
                                       vp_arena_printf(&c->arena, "assignment to '%s'", id))
                          : vfe_rvalue(c, vnode, value);
  if (!x) {
    new_var(c, id, VFE_BIND_POISON, NULL, target);
    return;
  }
  vfe_set_loc(c, target);
  bool single = (flags & A_COUNT) == 1 && !(flags & (A_NESTED | A_VAR | A_LOOP | A_MUT)) &&
                c->b.region == &c->fn->f->body;
  if (x->type->kind == VIR_TY_VOID) {
    vfe_err(c, vnode, "this call returns nothing");
    new_var(c, id, VFE_BIND_POISON, NULL, target);
    return;
  }
  if (single) {
    vfe_var *nv = new_var(c, id, VFE_BIND_SSA, x->type, target);
    nv->value = x;
    if (x->def && !x->name && x->def->parent == c->b.region)
      vfe_name_value(c, x, id);
    return;
  }
  vfe_var *nv = new_var(c, id, VFE_BIND_LOCAL, x->type, target);
  nv->local = new_local(c, id, x->type, target);
  vfe_place p = {.root = VFE_R_LOCAL, .sym = nv->local, .type = x->type};
  vfe_store(c, &p, x);
}

/* Writes `x` into `count` components (comp) of the vector at place p. */
static void store_swizzle(vfe_ctx *c, const vfe_node *at, const vfe_place *p, const uint8_t *comp,
                          uint32_t count, vfe_val value, const vfe_node *vnode) {
  vir_type *vt = p->type, *s = vt->elem;
  vir_type *want = count == 1 ? s : vir_ty_vec(c->m, s, count);
  vir_value *x = vfe_coerce(c, vnode, value, want, "swizzle assignment");
  if (!x)
    return;
  vfe_set_loc(c, at);
  vir_value *v = vfe_load(c, p);
  for (uint32_t k = 0; k < count; k++) {
    vir_value *part = x;
    if (count > 1) {
      vir_op *e = vfe_build(c, VIR_OP_EXTRACT, s, 1, &x);
      e->attr.index = k;
      part = vir_result(e);
    }
    vir_value *ops[2] = {v, part};
    vir_op *ins = vfe_build(c, VIR_OP_INSERT, vt, 2, ops);
    ins->attr.index = comp[k];
    v = vir_result(ins);
  }
  vfe_store(c, p, v);
}

static int swizzle_of(const char *s, uint8_t out[4]) {
  static const char *const sets[3] = {"xyzw", "rgba", "stpq"};
  size_t n = strlen(s);
  if (n < 1 || n > 4)
    return -1;
  for (int k = 0; k < 3; k++) {
    size_t i;
    for (i = 0; i < n && strchr(sets[k], s[i]); i++)
      out[i] = (uint8_t)(strchr(sets[k], s[i]) - sets[k]);
    if (i == n)
      return (int)n;
  }
  return -1;
}

static bool writable(vfe_ctx *c, const vfe_node *at, const vfe_val *base) {
  if (base->kind == VFE_V_ERR)
    return false;
  if (base->kind == VFE_V_PLACE && base->place.root == VFE_R_PUSH) {
    vfe_err(c, at, "push constants are read-only");
    return false;
  }
  if (base->kind != VFE_V_PLACE) {
    vfe_err(c, at, "cannot assign to this");
    vfe_hint(c, "assign to a variable, a buffer or shared element, or a part of one");
    return false;
  }
  return true;
}

static void assign(vfe_ctx *c, const vfe_node *target, vfe_val value, const vfe_node *vnode);

/* base.attr = value */
static void assign_attribute(vfe_ctx *c, const vfe_node *t, vfe_val value, const vfe_node *vnode) {
  vfe_val base = vfe_expr(c, vfe_get(t, "value"));
  const char *attr = vfe_get_str(t, "attr");
  if (!attr || !writable(c, t, &base))
    return;
  vfe_place p = base.place;
  uint8_t comp[4];
  int n;
  if (p.type->kind == VIR_TY_VEC && (n = swizzle_of(attr, comp)) > 0 &&
      (n > 1 || p.npath == VIR_MAX_PATH)) {
    for (int k = 0; k < n; k++)
      for (int j = 0; j < k; j++)
        if (comp[j] == comp[k]) {
          vfe_err(c, t, "swizzle '%s' names a component twice", attr);
          return;
        }
    for (int k = 0; k < n; k++)
      if (comp[k] >= p.type->n) {
        vfe_err(c, t, "component '%c' is out of range for %s", attr[k], vfe_tyname(c, p.type));
        return;
      }
    store_swizzle(c, t, &p, comp, (uint32_t)n, value, vnode);
    return;
  }
  vfe_val dst = vfe_attribute(c, t, base, attr);
  if (dst.kind == VFE_V_ERR)
    return;
  if (dst.kind != VFE_V_PLACE) {
    vfe_err(c, t, "cannot assign to this attribute");
    return;
  }
  vir_value *x = vfe_coerce(c, vnode, value, dst.place.type, vp_arena_printf(&c->arena, "assignment to .%s", attr));
  if (x) {
    vfe_set_loc(c, t);
    vfe_store(c, &dst.place, x);
  }
}

/* base[index] = value (and base[:] = value) */
static void assign_subscript(vfe_ctx *c, const vfe_node *t, vfe_val value, const vfe_node *vnode) {
  const vfe_node *sl = vfe_get(t, "slice");
  if (vfe_ast_of(sl) == VFE_AST_Slice) {
    /* x[:] = v: the whole value (the seed's vp.var idiom) */
    vfe_val base = vfe_expr(c, vfe_get(t, "value"));
    if (base.kind == VFE_V_ARRAY) {
      vfe_err(c, t, "whole-buffer assignment %s[:] = ... is not supported", base.arr->sym->name);
      vfe_hint(c, "store one element per invocation: %s[i] = ...", base.arr->sym->name);
      return;
    }
    if (vfe_get(sl, "lower") || vfe_get(sl, "upper") || vfe_get(sl, "step")) {
      vfe_err(c, sl, "slices other than [:] are not supported");
      return;
    }
    if (!writable(c, t, &base))
      return;
    vir_value *x = vfe_coerce(c, vnode, value, base.place.type, "slice assignment");
    if (x) {
      vfe_set_loc(c, t);
      vfe_store(c, &base.place, x);
    }
    return;
  }
  vfe_val base = vfe_expr(c, vfe_get(t, "value"));
  if (base.kind == VFE_V_PLACE && base.place.type->kind == VIR_TY_VEC && !base.place.dims_left) {
    vfe_val iv = vfe_expr(c, sl);
    if (iv.kind == VFE_V_ERR)
      return;
    if (iv.kind == VFE_V_INT) {
      int64_t k = iv.big ? INT64_MAX : iv.i < 0 ? iv.i + base.place.type->n : iv.i;
      if (k < 0 || k >= base.place.type->n) {
        vfe_err(c, sl, "index is out of range for %s", vfe_tyname(c, base.place.type));
        return;
      }
      uint8_t comp = (uint8_t)k;
      store_swizzle(c, t, &base.place, &comp, 1, value, vnode);
      return;
    }
    /* v[j] = x with j unknown: rebuild v with a select per component */
    vir_value *j = vfe_use(c, sl, iv);
    vir_type *vt = base.place.type, *s = vt->elem;
    if (!j)
      return;
    if (!vir_ty_is_int(j->type) || !vir_ty_is_scalar(j->type)) {
      vfe_err(c, sl, "an index must be an integer scalar, not %s", vfe_tyname(c, j->type));
      return;
    }
    vir_value *x = vfe_coerce(c, vnode, value, s, "element assignment");
    if (!x)
      return;
    vfe_set_loc(c, t);
    vir_value *old = vfe_load(c, &base.place), *comps[4];
    for (uint32_t k = 0; k < vt->n; k++) {
      vir_op *e = vfe_build(c, VIR_OP_EXTRACT, s, 1, &old);
      e->attr.index = k;
      vir_value *is_k = vfe_build2(c, VIR_OP_EQ, vir_ty_bool(c->m), j, vfe_const_int(c, j->type, k));
      vir_value *ops[3] = {is_k, x, vir_result(e)};
      comps[k] = vir_result(vfe_build(c, VIR_OP_SELECT, s, 3, ops));
    }
    vfe_store(c, &base.place, vir_result(vfe_build(c, VIR_OP_CONSTRUCT, vt, vt->n, comps)));
    return;
  }
  /* buffers, shared arrays, matrix columns: the place of the subscript */
  vfe_val dst = vfe_subscript_on(c, t, base);
  if (!writable(c, t, &dst))
    return;
  if (dst.place.dims_left) {
    vfe_err(c, t, "'%s' has 2 dimensions; index both", dst.place.sym->name);
    return;
  }
  vir_value *x = vfe_coerce(c, vnode, value, dst.place.type,
                            vp_arena_printf(&c->arena, "store to '%s'", dst.place.sym->name));
  if (x) {
    vfe_set_loc(c, t);
    vfe_store(c, &dst.place, x);
  }
}

static void assign(vfe_ctx *c, const vfe_node *target, vfe_val value, const vfe_node *vnode) {
  switch (vfe_ast_of(target)) {
  case VFE_AST_Name: assign_name(c, target, value, vnode, NULL); return;
  case VFE_AST_Attribute: assign_attribute(c, target, value, vnode); return;
  case VFE_AST_Subscript: assign_subscript(c, target, value, vnode); return;
  case VFE_AST_Tuple:
  case VFE_AST_List: {
    uint32_t n;
    vfe_node **elts = vfe_get_list(target, "elts", &n);
    if (value.kind == VFE_V_TUPLE) {
      if (value.nelems != n) {
        vfe_err(c, target, "cannot unpack %u values into %u names", value.nelems, n);
        return;
      }
      for (uint32_t i = 0; i < n; i++)
        assign(c, elts[i], value.elems[i], vnode);
      return;
    }
    vir_value *v = vfe_use(c, vnode, value);
    if (!v)
      return;
    if (v->type->kind != VIR_TY_VEC || v->type->n != n) {
      vfe_err(c, target, "cannot unpack %s into %u names", vfe_tyname(c, v->type), n);
      return;
    }
    for (uint32_t i = 0; i < n; i++) {
      vfe_set_loc(c, elts[i]);
      vir_op *e = vfe_build(c, VIR_OP_EXTRACT, v->type->elem, 1, &v);
      e->attr.index = i;
      assign(c, elts[i], val(vir_result(e)), elts[i]);
    }
    return;
  }
  case VFE_AST_Starred: vfe_err(c, target, "*unpacking is not supported in kernels"); return;
  default: vfe_err(c, target, "cannot assign to this"); return;
  }
}

/* tile = vp.Shared[T, N] or vp.Shared[T, ROWS, COLS] */
static bool shared_decl(vfe_ctx *c, const vfe_node *s, const vfe_node *target, const vfe_node *value) {
  if (vfe_ast_of(value) != VFE_AST_Subscript)
    return false;
  const vfe_node *b = vfe_get(value, "value");
  const char *nm = vfe_ast_of(b) == VFE_AST_Attribute ? vfe_get_str(b, "attr")
                   : vfe_ast_of(b) == VFE_AST_Name    ? vfe_get_str(b, "id")
                                                      : NULL;
  if (!nm || strcmp(nm, "Shared") != 0)
    return false;
  vfe_val bv = vfe_expr(c, b);
  if (bv.kind != VFE_V_BUILTIN || bv.bi->kind != VFE_B_SHARED)
    return false;
  const char *id = vfe_ast_of(target) == VFE_AST_Name ? vfe_get_str(target, "id") : NULL;
  if (!id) {
    vfe_err(c, s, "a shared array is declared as NAME = vp.Shared[T, N]");
    return true;
  }
  if (!c->fn->is_kernel || c->b.region != &c->fn->f->body) {
    vfe_err(c, s, "shared arrays are declared at the top level of the kernel");
    vfe_hint(c, "move `%s = vp.Shared[...]` to the start of the kernel and pass it to helpers", id);
    return true;
  }
  uintptr_t flags = (uintptr_t)vfe_map_get(&c->fn->assigns, id);
  if ((flags & A_COUNT) != 1 || vfe_map_get(&c->fn->vars, id)) {
    vfe_err(c, s, "'%s' names a shared array and cannot be assigned elsewhere", id);
    return true;
  }
  uint32_t n;
  const vfe_node *sl = vfe_get(value, "slice");
  vfe_node **items = vfe_ast_of(sl) == VFE_AST_Tuple ? vfe_get_list(sl, "elts", &n) : NULL;
  if (!items || n < 2 || n > 3) {
    vfe_err(c, sl, "write vp.Shared[T, N] or vp.Shared[T, ROWS, COLS]");
    return true;
  }
  vir_type *t = vfe_type_of_annotation(c, items[0]);
  uint32_t dims[2] = {0, 0};
  for (uint32_t k = 1; k < n; k++) {
    vfe_val d = vfe_expr(c, items[k]);
    if (d.kind != VFE_V_INT || d.big || d.i < 1 || d.i > (1 << 20)) {
      if (d.kind != VFE_V_ERR)
        vfe_err(c, items[k], "a shared array's size is a positive integer constant");
      return true;
    }
    dims[k - 1] = (uint32_t)d.i;
  }
  if (!t)
    return true;
  if ((uint64_t)dims[0] * (dims[1] ? dims[1] : 1) * vir_type_size(t) > (1u << 20)) {
    vfe_err(c, sl, "shared array '%s' is larger than any device's workgroup memory", id);
    return true;
  }
  vfe_array *a = vfe_declare_shared(c, s, id, t, dims[0], dims[1]);
  new_var(c, id, VFE_BIND_ARRAY, NULL, target)->arr = a;
  return true;
}

/* --------------------------------------------------------- control flow */

static void body_into(vfe_ctx *c, vir_region *r, vfe_node **body, uint32_t n) {
  vir_builder save = c->b;
  vir_builder_at_end(&c->b, r);
  vfe_stmts(c, body, n);
  c->b = save;
}

static void stmt_if(vfe_ctx *c, const vfe_node *s) {
  vir_value *cond = vfe_expr_cond(c, vfe_get(s, "test"));
  uint32_t nt, ne;
  vfe_node **t = vfe_get_list(s, "body", &nt);
  vfe_node **e = vfe_get_list(s, "orelse", &ne);
  if (!cond) {
    /* still check both branches, in a throwaway if */
    cond = vfe_const_bool(c, true);
  }
  vfe_set_loc(c, s);
  vir_op *iff = vfe_build(c, VIR_OP_IF, NULL, 1, &cond);
  body_into(c, &iff->regions[0], t, nt);
  body_into(c, &iff->regions[1], e, ne);
}

/* for NAME in range(stop) | range(start, stop[, step]) */
static void stmt_for(vfe_ctx *c, const vfe_node *s) {
  const vfe_node *target = vfe_get(s, "target"), *iter = vfe_get(s, "iter");
  uint32_t n, nk, nelse;
  vfe_get_list(s, "orelse", &nelse);
  if (nelse) {
    vfe_err(c, s, "for ... else is not supported");
    return;
  }
  const char *id = vfe_ast_of(target) == VFE_AST_Name ? vfe_get_str(target, "id") : NULL;
  if (!id) {
    vfe_err(c, target, "a for loop's target is one name");
    return;
  }
  vfe_val f = vfe_ast_of(iter) == VFE_AST_Call ? vfe_expr(c, vfe_get(iter, "func")) : (vfe_val){0};
  if (f.kind != VFE_V_BUILTIN || f.bi->fn != VFE_F_RANGE) {
    vfe_err(c, iter, "for loops run over range(...) only");
    vfe_hint(c, "write for i in range(n): ... and index the data with i");
    return;
  }
  vfe_node **args = vfe_get_list(iter, "args", &n);
  vfe_get_list(iter, "keywords", &nk);
  if (n < 1 || n > 3 || nk) {
    vfe_err(c, iter, "range() takes 1 to 3 positional arguments, got %u", n + nk);
    return;
  }
  vfe_val lo = {.kind = VFE_V_INT, .i = 0}, hi, step = {.kind = VFE_V_INT, .i = 1};
  const vfe_node *lon = iter, *hin = args[n == 1 ? 0 : 1], *stn = iter;
  /* evaluated in order, each read at once (a place is loaded where it is) */
  if (n >= 2) {
    lon = args[0];
    lo = vfe_expr(c, lon);
    if (lo.kind == VFE_V_PLACE || lo.kind == VFE_V_IDVEC)
      lo = val(vfe_use(c, lon, lo));
  }
  hi = vfe_expr(c, hin);
  if (hi.kind == VFE_V_PLACE || hi.kind == VFE_V_IDVEC)
    hi = val(vfe_use(c, hin, hi));
  if (n == 3) {
    stn = args[2];
    step = vfe_expr(c, stn);
  }
  if (lo.kind == VFE_V_ERR || hi.kind == VFE_V_ERR || step.kind == VFE_V_ERR)
    return;
  if (step.kind != VFE_V_INT || (step.i == 0 && !step.big)) {
    vfe_err(c, stn, "range() step must be a nonzero integer constant");
    vfe_hint(c, "its sign decides the loop's direction; use a while loop for a step known only at run time");
    return;
  }
  bool down = !step.big && step.i < 0;
  /* the loop variable's type: the typed bounds', else int32 */
  vir_value *lov = lo.kind == VFE_V_INT ? NULL : vfe_use(c, lon, lo);
  vir_value *hiv = hi.kind == VFE_V_INT ? NULL : vfe_use(c, hin, hi);
  if ((lo.kind != VFE_V_INT && !lov) || (hi.kind != VFE_V_INT && !hiv))
    return;
  vir_type *t = lov && hiv ? vfe_unify(c, iter, lov->type, hiv->type, "range()")
                : lov ? lov->type : hiv ? hiv->type : vir_ty_int(c->m, 32);
  if (!t)
    return;
  if (!vir_ty_is_int(t) || !vir_ty_is_scalar(t)) {
    vfe_err(c, iter, "range() bounds must be integers, not %s", vfe_tyname(c, t));
    if (vir_ty_is_float(t))
      vfe_hint(c, "convert: %s", vfe_cast_hint(c, vir_ty_int(c->m, 32), lov ? lon : hin));
    return;
  }
  if (down && !vir_ty_is_signed(t)) {
    vfe_err(c, stn, "a negative step needs a signed loop variable; the bounds are %s", vfe_tyname(c, t));
    vfe_hint(c, "count down with signed bounds, e.g. range(vp.int32(n) - 1, -1, -1)");
    return;
  }
  vfe_set_loc(c, iter);
  vir_value *ops[3];
  ops[0] = lov ? vfe_coerce(c, lon, val(lov), t, "range() start") : vfe_coerce(c, lon, lo, t, "range() start");
  ops[1] = hiv ? vfe_coerce(c, hin, val(hiv), t, "range() stop") : vfe_coerce(c, hin, hi, t, "range() stop");
  ops[2] = vfe_coerce(c, stn, step, t, "range() step");
  if (!ops[0] || !ops[1] || !ops[2])
    return;
  vfe_var *old = vfe_map_get(&c->fn->vars, id);
  if (old && old->bind != VFE_BIND_DEAD && old->bind != VFE_BIND_POISON) {
    vfe_err(c, target, "loop variable '%s' is also a variable outside the loop", id);
    vfe_hint(c, "give the loop its own name");
    return;
  }
  uintptr_t flags = (uintptr_t)vfe_map_get(&c->fn->assigns, id);
  if ((flags & A_COUNT) > 1 && (flags & ~(uintptr_t)(A_COUNT | A_NESTED)) != A_LOOP) {
    /* assigned somewhere besides for-targets */
    vfe_err(c, target, "loop variable '%s' is assigned elsewhere in the function", id);
    vfe_hint(c, "give the loop its own name");
    return;
  }
  vfe_set_loc(c, s);
  vir_op *loop = vfe_build(c, VIR_OP_FOR, NULL, 3, ops);
  vir_value *iv = loop->regions[0].args[0];
  vfe_name_value(c, iv, id);
  vfe_var *v = new_var(c, id, VFE_BIND_LOOP, t, target);
  v->value = iv;
  uint32_t nb;
  vfe_node **body = vfe_get_list(s, "body", &nb);
  c->fn->loop_depth++;
  body_into(c, &loop->regions[0], body, nb);
  c->fn->loop_depth--;
  /* After the loop the name is not a value (Python would keep the last one;
   * VulPy asks for an explicit variable instead). */
  v->bind = VFE_BIND_DEAD;
}

static void stmt_while(vfe_ctx *c, const vfe_node *s) {
  uint32_t nb, ne;
  vfe_node **body = vfe_get_list(s, "body", &nb);
  vfe_get_list(s, "orelse", &ne);
  if (ne) {
    vfe_err(c, s, "while ... else is not supported");
    return;
  }
  const vfe_node *test = vfe_get(s, "test");
  const vfe_node *tv = vfe_get(test, "value");
  c->fn->loop_depth++;
  if (vfe_ast_of(test) == VFE_AST_Constant && tv && tv->kind == VFE_J_BOOL && tv->b) {
    /* while True: a loop left by break or return */
    vir_op *loop = vfe_build(c, VIR_OP_LOOP, NULL, 0, NULL);
    body_into(c, &loop->regions[0], body, nb);
  } else {
    vir_op *loop = vfe_build(c, VIR_OP_WHILE, NULL, 0, NULL);
    vir_builder save = c->b;
    vir_builder_at_end(&c->b, &loop->regions[0]);
    vir_value *cond = vfe_expr_cond(c, test);
    if (!cond)
      cond = vfe_const_bool(c, false);
    vfe_set_loc(c, test);
    vfe_build(c, VIR_OP_CONDITION, NULL, 1, &cond);
    c->b = save;
    body_into(c, &loop->regions[1], body, nb);
  }
  c->fn->loop_depth--;
}

static void stmt_return(vfe_ctx *c, const vfe_node *s) {
  const vfe_node *v = vfe_get(s, "value");
  vfe_fn *fn = c->fn;
  if (fn->is_kernel) {
    if (v) {
      vfe_err(c, v, "a kernel returns nothing; write results to a buffer");
      return;
    }
    vfe_build(c, VIR_OP_RETURN, NULL, 0, NULL);
    return;
  }
  if (!v) {
    if (fn->ret && fn->ret->kind != VIR_TY_VOID) {
      vfe_err(c, s, "'%s' returns %s; this return has no value", fn->helper->name, vfe_tyname(c, fn->ret));
      return;
    }
    fn->ret = vir_ty_void(c->m);
    vfe_build(c, VIR_OP_RETURN, NULL, 0, NULL);
    return;
  }
  vir_value *x;
  if (fn->ret && fn->ret->kind == VIR_TY_VOID) {
    vfe_err(c, v, "'%s' %s nothing; this return has a value", fn->helper->name,
            fn->ret_annotated ? "is annotated to return" : "returned");
    return;
  }
  if (fn->ret)
    x = vfe_expr_as(c, v, fn->ret, vp_arena_printf(&c->arena, "return value of '%s'", fn->helper->name));
  else
    x = vfe_rvalue(c, v, vfe_expr(c, v));
  if (!x)
    return;
  if (!fn->ret) {
    fn->ret = x->type;
    fn->f->ret = x->type;
  }
  vfe_set_loc(c, s);
  vfe_build(c, VIR_OP_RETURN, NULL, 1, &x);
}

/* assert cond[, msg]: checked for types always; compiled only with
 * debug_asserts, where a failure records its line in the hidden buffer
 * _vp_assert ([0]: the first failing line, 0 = none) and ends the
 * invocation. */
static void stmt_assert(vfe_ctx *c, const vfe_node *s) {
  const vfe_node *msg = vfe_get(s, "msg");
  if (msg && !(vfe_ast_of(msg) == VFE_AST_Constant))
    vfe_err(c, msg, "an assert message must be a string literal");
  vir_op *holder = NULL;
  vir_value *t = NULL;
  vir_builder save = c->b;
  if (!c->opts->debug_asserts) {
    /* type-check the condition inside an `if` that is then thrown away */
    t = vfe_const_bool(c, true);
    holder = vfe_build(c, VIR_OP_IF, NULL, 1, &t);
    vir_builder_at_end(&c->b, &holder->regions[0]);
  }
  vir_value *cond = vfe_expr_cond(c, vfe_get(s, "test"));
  if (holder) {
    c->b = save;
    vir_op_unlink(holder);
    vir_op_unlink(t->def);
    return;
  }
  if (!cond)
    return;
  vfe_set_loc(c, s);
  if (!c->assert_buf) {
    vfe_array *a = vfe_alloc(c, sizeof *a);
    a->elem = vir_ty_uint(c->m, 32);
    a->sym = vir_add_buffer(c->m, "_vp_assert", a->elem, 0, c->nbindings++, VIR_ACCESS_READWRITE,
                            vfe_loc(c, s));
    if (!a->sym)
      longjmp(c->oom, 1);
    c->assert_buf = a;
  }
  vir_value *fail = vfe_build1(c, VIR_OP_LNOT, cond->type, cond);
  vir_op *iff = vfe_build(c, VIR_OP_IF, NULL, 1, &fail);
  vir_builder_at_end(&c->b, &iff->regions[0]);
  vir_type *u32 = vir_ty_uint(c->m, 32);
  vir_value *ops[3] = {vfe_const_int(c, u32, 0), vfe_const_int(c, u32, 0), vfe_const_int(c, u32, s->line)};
  vir_op *op = vfe_build(c, VIR_OP_ATOMIC_CMPXCHG, u32, 3, ops);
  op->attr.sym = c->assert_buf->sym;
  op->attr.scope = VIR_SCOPE_DEVICE;
  op->attr.sem = VIR_SEM_RELAXED;
  c->assert_buf->reads++;
  c->assert_buf->writes++;
  if (c->fn->is_kernel) /* a helper records the failure and goes on */
    vfe_build(c, VIR_OP_RETURN, NULL, 0, NULL);
  c->b = save;
}

/* ------------------------------------------------------------ statements */

static void stmt_assign(vfe_ctx *c, const vfe_node *s) {
  uint32_t nt;
  vfe_node **targets = vfe_get_list(s, "targets", &nt);
  const vfe_node *value = vfe_get(s, "value");
  if (nt == 1 && shared_decl(c, s, targets[0], value))
    return;
  vfe_val v = vfe_expr(c, value);
  if (v.kind == VFE_V_ERR) {
    /* the targets become poison: no "undefined name" after this error */
    for (uint32_t i = 0; i < nt; i++)
      if (vfe_ast_of(targets[i]) == VFE_AST_Name && !vfe_map_get(&c->fn->vars, vfe_get_str(targets[i], "id")))
        new_var(c, vfe_get_str(targets[i], "id"), VFE_BIND_POISON, NULL, targets[i]);
    return;
  }
  if (nt > 1 && (v.kind == VFE_V_PLACE || v.kind == VFE_V_IDVEC)) {
    vir_value *x = vfe_use(c, value, v); /* a = b = buf[i]: one load */
    if (!x)
      return;
    v = val(x);
  }
  for (uint32_t i = 0; i < nt; i++)
    assign(c, targets[i], v, value);
}

/* NAME: T [= value] */
static void stmt_annassign(vfe_ctx *c, const vfe_node *s) {
  const vfe_node *target = vfe_get(s, "target"), *value = vfe_get(s, "value");
  if (vfe_ast_of(target) != VFE_AST_Name) {
    vfe_err(c, target, "only a plain name can be annotated");
    return;
  }
  const char *id = vfe_get_str(target, "id");
  vir_type *t = vfe_type_of_annotation(c, vfe_get(s, "annotation"));
  if (!t) {
    if (id && !vfe_map_get(&c->fn->vars, id))
      new_var(c, id, VFE_BIND_POISON, NULL, target);
    return;
  }
  if (!value) {
    /* a declaration: the local exists, uninitialized until assigned */
    vfe_var *old = id ? vfe_map_get(&c->fn->vars, id) : NULL;
    if (old && old->bind != VFE_BIND_POISON) {
      if (old->type != t)
        vfe_err(c, target, "'%s' is %s (line %u) and cannot be redeclared as %s", id,
                vfe_tyname(c, old->type), old->line, vfe_tyname(c, t));
      return;
    }
    vfe_var *v = new_var(c, id, VFE_BIND_LOCAL, t, target);
    v->local = new_local(c, id, t, target);
    return;
  }
  vfe_val v = vfe_expr(c, value);
  if (v.kind == VFE_V_ERR) {
    if (!vfe_map_get(&c->fn->vars, id))
      new_var(c, id, VFE_BIND_POISON, NULL, target);
    return;
  }
  assign_name(c, target, v, value, t);
}

/* target op= value: the target's place is computed once */
static void stmt_augassign(vfe_ctx *c, const vfe_node *s) {
  const vfe_node *target = vfe_get(s, "target"), *value = vfe_get(s, "value");
  vfe_ast op = vfe_ast_of(vfe_get(s, "op"));
  vfe_val dst;
  if (vfe_ast_of(target) == VFE_AST_Name) {
    const char *id = vfe_get_str(target, "id");
    vfe_var *var = id ? vfe_map_get(&c->fn->vars, id) : NULL;
    if (var && var->bind == VFE_BIND_POISON)
      return;
    if (var && var->bind != VFE_BIND_LOCAL) {
      assign_name(c, target, (vfe_val){0}, value, NULL); /* says why not */
      return;
    }
    dst = vfe_expr(c, target);
  } else if (vfe_ast_of(target) == VFE_AST_Attribute) {
    vfe_val base = vfe_expr(c, vfe_get(target, "value"));
    const char *attr = vfe_get_str(target, "attr");
    if (!attr || !writable(c, target, &base))
      return;
    uint8_t comp[4];
    int n = base.place.type->kind == VIR_TY_VEC ? swizzle_of(attr, comp) : -1;
    if (n > 1) {
      /* v.xy += d: read, compute, write the components back */
      vfe_val cur = vfe_attribute(c, target, base, attr);
      vfe_val rhs = vfe_expr(c, value);
      vfe_set_loc(c, s);
      vfe_val r = vfe_binop(c, s, op, cur, target, rhs, value);
      if (r.kind != VFE_V_ERR)
        store_swizzle(c, s, &base.place, comp, (uint32_t)n, r, s);
      return;
    }
    dst = vfe_attribute(c, target, base, attr);
  } else if (vfe_ast_of(target) == VFE_AST_Subscript) {
    dst = vfe_expr(c, target);
  } else {
    vfe_err(c, target, "cannot assign to this");
    return;
  }
  if (!writable(c, target, &dst))
    return;
  vir_value *cur = vfe_use(c, target, dst);
  if (!cur)
    return;
  vfe_val rhs = vfe_expr(c, value);
  vfe_set_loc(c, s);
  vfe_val r = vfe_binop(c, s, op, val(cur), target, rhs, value);
  if (r.kind == VFE_V_ERR)
    return;
  vir_value *x = vfe_coerce(c, s, r, dst.place.type, "augmented assignment");
  if (x) {
    vfe_set_loc(c, s);
    vfe_store(c, &dst.place, x);
  }
}

static void unsupported_stmt(vfe_ctx *c, const vfe_node *s) {
  switch (vfe_ast_of(s)) {
  case VFE_AST_FunctionDef:
  case VFE_AST_AsyncFunctionDef:
    vfe_err(c, s, "functions cannot be defined inside a kernel or helper");
    vfe_hint(c, "define helpers at module level and call them");
    break;
  case VFE_AST_ClassDef:
    vfe_err(c, s, "classes cannot be defined inside a kernel or helper");
    vfe_hint(c, "define struct classes at module level");
    break;
  case VFE_AST_Try:
  case VFE_AST_TryStar:
  case VFE_AST_Raise:
    vfe_err(c, s, "exceptions (try/raise) are not supported in kernels");
    vfe_hint(c, "check conditions with if; report failures through a buffer");
    break;
  case VFE_AST_With:
  case VFE_AST_AsyncWith: vfe_err(c, s, "with statements are not supported in kernels"); break;
  case VFE_AST_Global:
  case VFE_AST_Nonlocal:
    vfe_err(c, s, "global and nonlocal variables are not supported in kernels");
    vfe_hint(c, "share data through buffers or shared arrays");
    break;
  case VFE_AST_Import:
  case VFE_AST_ImportFrom: vfe_err(c, s, "imports belong at module level"); break;
  case VFE_AST_Delete: vfe_err(c, s, "del is not supported in kernels"); break;
  case VFE_AST_Match: vfe_err(c, s, "match statements are not supported in kernels"); break;
  case VFE_AST_AsyncFor: vfe_err(c, s, "async for is not supported in kernels"); break;
  default:
    vfe_err(c, s, "%s statements are not supported in kernels", s->type_name ? s->type_name : "these");
    break;
  }
}

static void stmt(vfe_ctx *c, const vfe_node *s) {
  vfe_set_loc(c, s);
  switch (vfe_ast_of(s)) {
  case VFE_AST_Assign: stmt_assign(c, s); break;
  case VFE_AST_AnnAssign: stmt_annassign(c, s); break;
  case VFE_AST_AugAssign: stmt_augassign(c, s); break;
  case VFE_AST_If: stmt_if(c, s); break;
  case VFE_AST_For: stmt_for(c, s); break;
  case VFE_AST_While: stmt_while(c, s); break;
  case VFE_AST_Return: stmt_return(c, s); break;
  case VFE_AST_Assert: stmt_assert(c, s); break;
  case VFE_AST_Pass: break;
  case VFE_AST_Break:
  case VFE_AST_Continue:
    if (!c->fn->loop_depth) {
      vfe_err(c, s, "'%s' outside a loop", vfe_ast_of(s) == VFE_AST_Break ? "break" : "continue");
      break;
    }
    vfe_build(c, vfe_ast_of(s) == VFE_AST_Break ? VIR_OP_BREAK : VIR_OP_CONTINUE, NULL, 0, NULL);
    break;
  case VFE_AST_Expr: {
    const vfe_node *e = vfe_get(s, "value");
    if (vfe_ast_of(e) == VFE_AST_Constant) {
      const char *kind = vfe_get_str(e, "kind");
      if (kind && strcmp(kind, "str") == 0)
        break; /* a docstring or a comment-like string */
    }
    vfe_val v = vfe_expr(c, e);
    if (v.kind != VFE_V_ERR && vfe_ast_of(e) != VFE_AST_Call)
      vfe_warn(c, s, "this expression has no effect");
    break;
  }
  default: unsupported_stmt(c, s); break;
  }
}

void vfe_stmts(vfe_ctx *c, vfe_node **body, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (vfe_region_terminated(c)) {
      vfe_warn(c, body[i], "this code is never run (it follows a return, break or continue)");
      return;
    }
    stmt(c, body[i]);
  }
}
