/* assign.c - Python variables and assignment.
 *
 * Python variables are function-wide, so before a body is translated a
 * walk counts each name's assignments. A name assigned exactly once, at the
 * body's top level, and not through vp.var, is an SSA value carrying the
 * name as a hint; every other name is a VIR local of the same name, read
 * with local.load and written with local.store. A variable's type is fixed
 * by its annotation or its first assignment; later assignments must fit it.
 * Targets: names, tuples (unpacking vectors and tuples), swizzles and
 * members, subscripts (`v[j] = x` with a run-time j rebuilds the vector),
 * `x[:]` (the whole value), and `NAME = vp.Shared[T, N]` declarations.
 */
#include <string.h>

#include "fe.h"

/* ------------------------------------------------------------ variables */

vfe_var *vfe_bind_name(vfe_ctx *c, const char *id, vfe_bind bind, vir_type *t, const vfe_node *at) {
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
  if (!id) {
    vfe_err(c, target, "malformed AST: a name without its id");
    return;
  }
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
      vir_value *x = vfe_coerce(c, vnode, value, v->type, VFE_WHAT("assignment to '%s' (%s since line %u)", id, NULL, v->line, v->type));
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
      vfe_err(c, target, "cannot assign to %s '%s' itself",
              v->arr->priv ? "private array" : v->arr->shared ? "shared array" : "buffer", id);
      vfe_hint(c, "store an element: %s[i] = ...", id);
      return;
    case VFE_BIND_VALUE: /* a guard: such names are assigned once (static_loops.c, tuples) */
      vfe_err(c, target, "cannot assign to the loop variable '%s'", id);
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
    if ((flags & VFE_A_COUNT) != 1 || (flags & (VFE_A_NESTED | VFE_A_LOOP | VFE_A_VAR))) {
      vfe_err(c, target, "'%s' names an array here but is assigned elsewhere too", id);
      vfe_hint(c, "an array name is bound once, at the top level of the function");
      return;
    }
    vfe_bind_name(c, id, VFE_BIND_ARRAY, NULL, target)->arr = value.arr;
    return;
  }
  if (value.kind == VFE_V_TUPLE && !declared) {
    /* t = (a, b) or t = split(x): the name holds the group (tuples.c) */
    if ((flags & VFE_A_COUNT) != 1 || (flags & (VFE_A_NESTED | VFE_A_LOOP | VFE_A_VAR | VFE_A_MUT))) {
      if (v) /* reported at its first assignment */
        return;
      vfe_err(c, target, "'%s' holds a tuple here but is assigned elsewhere too", id);
      vfe_hint(c, "a tuple is bound once, at the top level of the function; or unpack it: a, b = ...");
      vfe_bind_name(c, id, VFE_BIND_POISON, NULL, target);
      return;
    }
    vfe_var *tv = vfe_bind_name(c, id, VFE_BIND_VALUE, NULL, target);
    tv->val = vfe_alloc(c, sizeof *tv->val);
    *tv->val = value;
    return;
  }
  vir_value *x = declared ? vfe_coerce(c, vnode, value, declared, VFE_WHAT("assignment to '%s'", id))
                          : vfe_rvalue(c, vnode, value);
  if (!x) {
    vfe_bind_name(c, id, VFE_BIND_POISON, NULL, target);
    return;
  }
  vfe_set_loc(c, target);
  bool single = (flags & VFE_A_COUNT) == 1 && !(flags & (VFE_A_NESTED | VFE_A_VAR | VFE_A_LOOP | VFE_A_MUT)) &&
                c->b.region == &c->fn->f->body;
  if (x->type->kind == VIR_TY_VOID) {
    vfe_err(c, vnode, "this call returns nothing");
    vfe_bind_name(c, id, VFE_BIND_POISON, NULL, target);
    return;
  }
  if (single) {
    vfe_var *nv = vfe_bind_name(c, id, VFE_BIND_SSA, x->type, target);
    nv->value = x;
    if (x->def && !x->name && x->def->parent == c->b.region)
      vfe_name_value(c, x, id);
    return;
  }
  vfe_var *nv = vfe_bind_name(c, id, VFE_BIND_LOCAL, x->type, target);
  nv->local = new_local(c, id, x->type, target);
  vfe_place p = {.root = VFE_R_LOCAL, .sym = nv->local, .type = x->type};
  vfe_store(c, &p, x);
}

/* Writes `x` into `count` components (comp) of the vector at place p. */
static void store_swizzle(vfe_ctx *c, const vfe_node *at, const vfe_place *p, const uint8_t *comp,
                          uint32_t count, vfe_val value, const vfe_node *vnode, const char *what) {
  vir_type *vt = p->type, *s = vt->elem;
  vir_type *want = count == 1 ? s : vir_ty_vec(c->m, s, count);
  vir_value *x = vfe_coerce(c, vnode, value, want, VFE_WHAT("%s", what));
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

static bool writable(vfe_ctx *c, const vfe_node *at, const vfe_val *base) {
  if (base->kind == VFE_V_ERR)
    return false;
  if (base->kind == VFE_V_PUSH || (base->kind == VFE_V_PLACE && base->place.root == VFE_R_PUSH)) {
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
  if (attr && base.kind == VFE_V_ARRAY && base.arr->control) {
    /* ctrl.mode = v: an atomic store of the named word */
    vfe_val dst = vfe_control_word(c, t, base.arr, attr);
    vir_value *x = dst.kind == VFE_V_PLACE
                       ? vfe_coerce(c, vnode, value, dst.place.type, VFE_WHAT("assignment to .%s", attr))
                       : NULL;
    if (x) {
      vfe_set_loc(c, t);
      vfe_store(c, &dst.place, x);
    }
    return;
  }
  if (!attr || !writable(c, t, &base))
    return;
  vfe_place p = base.place;
  uint8_t comp[4];
  int n;
  if (p.type->kind == VIR_TY_VEC && (n = vfe_swizzle(attr, comp)) > 0 &&
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
    store_swizzle(c, t, &p, comp, (uint32_t)n, value, vnode, "swizzle assignment");
    return;
  }
  vfe_val dst = vfe_attribute(c, t, base, attr);
  if (dst.kind == VFE_V_ERR)
    return;
  if (dst.kind != VFE_V_PLACE) { /* a guard: a place's attribute is a place or an error */
    vfe_err(c, t, "cannot assign to this");
    vfe_hint(c, "assign to a variable, a buffer or shared element, or a part of one");
    return;
  }
  vir_value *x = vfe_coerce(c, vnode, value, dst.place.type, VFE_WHAT("assignment to .%s", attr));
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
      vfe_err(c, t, "slice assignment to array '%s' is not supported", base.arr->sym->name);
      vfe_hint(c, "store one element per invocation: %s[i] = ...", base.arr->sym->name);
      return;
    }
    if (vfe_get(sl, "lower") || vfe_get(sl, "upper") || vfe_get(sl, "step")) {
      /* v[0:2] = ...: the components, as a swizzle assignment */
      if (!writable(c, t, &base))
        return;
      if (base.place.type->kind != VIR_TY_VEC || base.place.dims_left) {
        vfe_err(c, sl, "only vectors can be assigned by slice, not %s", vfe_tyname(c, base.place.type));
        return;
      }
      uint8_t comp[4];
      int n = vfe_vector_slice(c, sl, base.place.type, comp);
      if (n > 0)
        store_swizzle(c, t, &base.place, comp, (uint32_t)n, value, vnode, "slice assignment");
      return;
    }
    if (!writable(c, t, &base))
      return;
    vir_value *x = vfe_coerce(c, vnode, value, base.place.type, VFE_WHAT("slice assignment"));
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
      store_swizzle(c, t, &base.place, &comp, 1, value, vnode, "element assignment");
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
    vir_value *x = vfe_coerce(c, vnode, value, s, VFE_WHAT("element assignment"));
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
  vir_value *x = vfe_coerce(c, vnode, value, dst.place.type, VFE_WHAT("store to '%s'", dst.place.sym->name));
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
    for (uint32_t i = 0; i < n; i++)
      if (vfe_ast_of(elts[i]) == VFE_AST_Starred) {
        /* a, *rest = v: say so at the star, not "cannot unpack" */
        vfe_err(c, elts[i], "*unpacking is not supported in kernels");
        return;
      }
    if (value.kind == VFE_V_TUPLE) {
      if (value.nelems != n) {
        vfe_err(c, target, "cannot unpack %u values into %u name%s", value.nelems, n, n == 1 ? "" : "s");
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
      vfe_err(c, target, "cannot unpack %s into %u name%s", vfe_tyname(c, v->type), n, n == 1 ? "" : "s");
      return;
    }
    for (uint32_t i = 0; i < n; i++) {
      vfe_set_loc(c, elts[i]);
      vir_op *e = vfe_build(c, VIR_OP_EXTRACT, v->type->elem, 1, &v);
      e->attr.index = i;
      assign(c, elts[i], vfe_value_of(vir_result(e)), elts[i]);
    }
    return;
  }
  case VFE_AST_Starred: vfe_err(c, target, "*unpacking is not supported in kernels"); return;
  default: vfe_err(c, target, "cannot assign to this"); return;
  }
}

/* Whether `value` is vp.NAME[...] (or NAME[...] imported) whose base is the
 * built-in of `kind`: the right side of a shared or private array's
 * declaration (shared_decl here, vfe_local_decl in locals.c). */
bool vfe_is_array_decl(vfe_ctx *c, const vfe_node *value, const char *name, vfe_bkind kind) {
  if (vfe_ast_of(value) != VFE_AST_Subscript)
    return false;
  const vfe_node *b = vfe_get(value, "value");
  const char *nm = vfe_ast_of(b) == VFE_AST_Attribute ? vfe_get_str(b, "attr")
                   : vfe_ast_of(b) == VFE_AST_Name    ? vfe_get_str(b, "id")
                                                      : NULL;
  if (!nm || strcmp(nm, name) != 0)
    return false;
  vfe_val bv = vfe_expr(c, b);
  if (bv.kind != VFE_V_BUILTIN || bv.bi->kind != kind)
    return false;
  return true;
}

/* tile = vp.Shared[T, N] or vp.Shared[T, ROWS, COLS] */
static bool shared_decl(vfe_ctx *c, const vfe_node *s, const vfe_node *target, const vfe_node *value) {
  if (!vfe_is_array_decl(c, value, "Shared", VFE_B_SHARED))
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
  if ((flags & VFE_A_COUNT) != 1 || vfe_map_get(&c->fn->vars, id)) {
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
  vfe_bind_name(c, id, VFE_BIND_ARRAY, NULL, target)->arr = a;
  return true;
}

/* ------------------------------------------------------------ statements */


void vfe_stmt_assign(vfe_ctx *c, const vfe_node *s) {
  uint32_t nt;
  vfe_node **targets = vfe_get_list(s, "targets", &nt);
  const vfe_node *value = vfe_get(s, "value");
  if (nt == 1 && (shared_decl(c, s, targets[0], value) || vfe_local_decl(c, s, targets[0], value)))
    return;
  vfe_val v = vfe_expr(c, value);
  if (v.kind == VFE_V_ERR) {
    /* the targets become poison: no "undefined name" after this error */
    for (uint32_t i = 0; i < nt; i++)
      if (vfe_ast_of(targets[i]) == VFE_AST_Name && !vfe_map_get(&c->fn->vars, vfe_get_str(targets[i], "id")))
        vfe_bind_name(c, vfe_get_str(targets[i], "id"), VFE_BIND_POISON, NULL, targets[i]);
    return;
  }
  if (nt > 1 && (v.kind == VFE_V_PLACE || v.kind == VFE_V_IDVEC)) {
    vir_value *x = vfe_use(c, value, v); /* a = b = buf[i]: one load */
    if (!x)
      return;
    v = vfe_value_of(x);
  }
  for (uint32_t i = 0; i < nt; i++)
    assign(c, targets[i], v, value);
}

/* NAME: T [= value] */
void vfe_stmt_annassign(vfe_ctx *c, const vfe_node *s) {
  const vfe_node *target = vfe_get(s, "target"), *value = vfe_get(s, "value");
  if (vfe_ast_of(target) != VFE_AST_Name) {
    vfe_err(c, target, "only a plain name can be annotated");
    return;
  }
  const char *id = vfe_get_str(target, "id");
  if (!id) {
    vfe_err(c, target, "malformed AST: a name without its id");
    return;
  }
  vir_type *t = vfe_type_of_annotation(c, vfe_get(s, "annotation"));
  if (!t) {
    if (id && !vfe_map_get(&c->fn->vars, id))
      vfe_bind_name(c, id, VFE_BIND_POISON, NULL, target);
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
    vfe_var *v = vfe_bind_name(c, id, VFE_BIND_LOCAL, t, target);
    v->local = new_local(c, id, t, target);
    return;
  }
  vfe_val v = vfe_expr(c, value);
  if (v.kind == VFE_V_ERR) {
    if (!vfe_map_get(&c->fn->vars, id))
      vfe_bind_name(c, id, VFE_BIND_POISON, NULL, target);
    return;
  }
  assign_name(c, target, v, value, t);
}

/* target op= value: the target's place is computed once */
void vfe_stmt_augassign(vfe_ctx *c, const vfe_node *s) {
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
    if (attr && base.kind == VFE_V_ARRAY && base.arr->control) {
      vfe_err(c, target, "'%s.%s' %s= ... would be a load and a store, not one atomic step",
              base.arr->sym->name, attr, vfe_op_text(op));
      vfe_hint(c, "use vp.atomic_add(%s.%s, ...) (or atomic_sub, atomic_or, ...)", base.arr->sym->name, attr);
      return;
    }
    if (!attr || !writable(c, target, &base))
      return;
    uint8_t comp[4];
    int n = base.place.type->kind == VIR_TY_VEC ? vfe_swizzle(attr, comp) : -1;
    if (n > 1) {
      /* v.xy += d: read, compute, write the components back */
      vfe_val cur = vfe_attribute(c, target, base, attr);
      vfe_val rhs = vfe_expr(c, value);
      vfe_set_loc(c, s);
      vfe_val r = vfe_binop(c, s, op, cur, target, rhs, value);
      if (r.kind != VFE_V_ERR)
        store_swizzle(c, s, &base.place, comp, (uint32_t)n, r, s, "augmented assignment");
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
  vfe_val r = vfe_binop(c, s, op, vfe_value_of(cur), target, rhs, value);
  if (r.kind == VFE_V_ERR)
    return;
  /* at the right side: its conversion is the fix the hint names */
  vir_value *x = vfe_coerce(c, value, r, dst.place.type, VFE_WHAT("augmented assignment"));
  if (x) {
    vfe_set_loc(c, s);
    vfe_store(c, &dst.place, x);
  }
}

