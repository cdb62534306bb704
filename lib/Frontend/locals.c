/* locals.c - thread-private arrays: `acc = vp.Local[T, N]`.
 *
 * Each invocation gets its own N elements of T (registers, or the GPU's
 * local memory when large or indexed at run time), zeroed where the
 * declaration is: a VIR local of type array<T, N>, read and written by
 * element with local.load_at / local.store_at (`acc[i]` in GLSL, CUDA and
 * HIP). A constant index is checked while compiling (a negative one counts
 * from the end, as in Python); a run-time index is clamped into [0, N-1]
 * (min for unsigned indices, clamp for signed ones), so an index out of
 * range reads or writes the nearest end element instead of memory that
 * belongs to something else - never undefined behaviour. A declaration in
 * the body of a loop unrolled at compile time (`for w in vp.static(...)`)
 * gives each copy a freshly zeroed array, as Python would.
 */
#include <string.h>

#include "fe.h"

enum { MAX_LOCAL_ELEMS = 1024 };

/* A zero of any value type (scalars, vectors, matrices, structs). */
static vir_value *zero_of(vfe_ctx *c, vir_type *t) {
  switch (t->kind) {
  case VIR_TY_BOOL: return vfe_const_bool(c, false);
  case VIR_TY_FLOAT: return vfe_const_float(c, t, 0.0);
  case VIR_TY_INT:
  case VIR_TY_UINT: return vfe_const_int(c, t, 0);
  case VIR_TY_VEC: return vfe_splat(c, zero_of(c, t->elem), t);
  case VIR_TY_MAT: {
    vir_value *col = zero_of(c, t->elem), *cols[4] = {col, col, col, col};
    return vir_result(vfe_build(c, VIR_OP_CONSTRUCT, t, t->n, cols));
  }
  case VIR_TY_STRUCT: {
    vir_struct *st = t->st;
    vir_value **f = vfe_alloc(c, (st->nfields ? st->nfields : 1) * sizeof *f);
    for (uint32_t i = 0; i < st->nfields; i++)
      f[i] = zero_of(c, st->fields[i].type);
    return vir_result(vfe_build(c, VIR_OP_CONSTRUCT, t, st->nfields, f));
  }
  default: return NULL;
  }
}

/* for k in range(N): a[k] = 0, where the declaration `s` is. */
static void zero_fill(vfe_ctx *c, const vfe_node *s, vfe_array *a) {
  vfe_set_loc(c, s);
  vir_value *zero = zero_of(c, a->elem);
  vir_type *u32 = vir_ty_uint(c->m, 32);
  vir_value *ops[3] = {vfe_const_int(c, u32, 0), vfe_const_int(c, u32, a->dims[0]), vfe_const_int(c, u32, 1)};
  vir_op *loop = vfe_build(c, VIR_OP_FOR, NULL, 3, ops);
  vir_value *k = loop->regions[0].args[0];
  vir_builder save = c->b;
  vir_builder_at_end(&c->b, &loop->regions[0]);
  vir_value *st[2] = {k, zero};
  vfe_build(c, VIR_OP_LOCAL_STORE_AT, NULL, 2, st)->attr.sym = a->sym;
  c->b = save;
}

bool vfe_local_decl(vfe_ctx *c, const vfe_node *s, const vfe_node *target, const vfe_node *value) {
  if (!vfe_is_array_decl(c, value, "Local", VFE_B_LOCAL))
    return false;
  const char *id = vfe_ast_of(target) == VFE_AST_Name ? vfe_get_str(target, "id") : NULL;
  if (!id) {
    vfe_err(c, s, "a private array is declared as NAME = vp.Local[T, N]");
    return true;
  }
  if (c->b.region != &c->fn->f->body) {
    vfe_err(c, s, "private arrays are declared at the top level of a function");
    vfe_hint(c, "move `%s = vp.Local[...]` before the loop or branch; it is zeroed where it is declared", id);
    return true;
  }
  uintptr_t flags = (uintptr_t)vfe_map_get(&c->fn->assigns, id);
  vfe_var *old = vfe_map_get(&c->fn->vars, id);
  if (old && old->bind == VFE_BIND_POISON)
    return true; /* reported at its first assignment */
  if (old && old->bind == VFE_BIND_ARRAY && old->arr->priv && old->arr->decl == s) {
    /* The same declaration again: a copy of a loop unrolled at compile time
     * (static_loops.c). As in Python each pass gets a fresh zeroed array;
     * the previous one can no longer be reached (a private array is not a
     * value), so its storage is reused and zeroed again. */
    zero_fill(c, s, old->arr);
    return true;
  }
  if ((flags & VFE_A_COUNT) != 1 || old) {
    vfe_err(c, s, "'%s' names a private array and cannot be assigned elsewhere", id);
    vfe_bind_name(c, id, VFE_BIND_POISON, NULL, target);
    return true;
  }
  uint32_t n;
  const vfe_node *sl = vfe_get(value, "slice");
  vfe_node **items = vfe_ast_of(sl) == VFE_AST_Tuple ? vfe_get_list(sl, "elts", &n) : NULL;
  if (!items || n != 2) {
    vfe_err(c, sl, "write vp.Local[T, N]: an element type and a length");
    return true;
  }
  vir_type *t = vfe_type_of_annotation(c, items[0]);
  vfe_val d = vfe_expr(c, items[1]);
  if (d.kind != VFE_V_INT || d.big || d.i < 1 || d.i > MAX_LOCAL_ELEMS) {
    if (d.kind != VFE_V_ERR)
      vfe_err(c, items[1], "a private array's length is an integer constant from 1 to %d", MAX_LOCAL_ELEMS);
    return true;
  }
  if (!t)
    return true;
  vfe_array *a = vfe_alloc(c, sizeof *a);
  a->elem = t;
  a->priv = true;
  a->dims[0] = (uint32_t)d.i;
  const char *name = vfe_mstrdup(c, id);
  if (vir_func_find_local(c->fn->f, name))
    name = vp_arena_printf(&c->m->arena, "%s_%u", id, c->fn->ntemps++);
  a->sym = vir_func_add_local(c->m, c->fn->f, name, vir_ty_array(c->m, t, a->dims[0]), vfe_loc(c, s));
  if (!a->sym)
    longjmp(c->oom, 1);
  a->decl = s;
  vfe_bind_name(c, id, VFE_BIND_ARRAY, NULL, target)->arr = a;
  zero_fill(c, s, a);
  return true;
}

vfe_val vfe_local_index(vfe_ctx *c, const vfe_node *e, vfe_array *a) {
  const vfe_node *sl = vfe_get(e, "slice");
  if (vfe_ast_of(sl) == VFE_AST_Tuple)
    return vfe_err(c, sl, "'%s' has one dimension", a->sym->name);
  vfe_val iv = vfe_expr(c, sl);
  if (iv.kind == VFE_V_ERR)
    return iv;
  vfe_val r = {.kind = VFE_V_PLACE};
  r.place = (vfe_place){.root = VFE_R_LOCAL, .sym = a->sym, .type = a->elem, .arr = a};
  uint32_t n = a->dims[0];
  if (iv.kind == VFE_V_INT) {
    int64_t k = iv.big ? INT64_MAX : iv.i < 0 ? iv.i + (int64_t)n : iv.i;
    if (k < 0 || k >= (int64_t)n)
      return vfe_err(c, sl, "index %lld is out of range for '%s' (%u elements)", iv.big ? (long long)INT64_MAX : (long long)iv.i,
                     a->sym->name, n);
    r.place.index = vfe_const_int(c, vir_ty_uint(c->m, 32), k);
    return r;
  }
  vir_value *x = vfe_use(c, sl, iv);
  if (!x)
    return (vfe_val){0};
  if (!vir_ty_is_scalar(x->type) || !vir_ty_is_int(x->type)) {
    vfe_err(c, sl, "an index must be an integer scalar, not %s", vfe_tyname(c, x->type));
    return (vfe_val){0};
  }
  vfe_set_loc(c, e);
  /* clamped into the array: an index out of range touches an end element */
  vir_value *hi = vfe_const_int(c, x->type, n - 1);
  if (vir_ty_is_signed(x->type)) {
    vir_value *ops[3] = {x, vfe_const_int(c, x->type, 0), hi};
    r.place.index = vir_result(vfe_build(c, VIR_OP_CLAMP, x->type, 3, ops));
  } else {
    r.place.index = vfe_build2(c, VIR_OP_MIN, x->type, x, hi);
  }
  return r;
}
