/* tuples.c - tuples as compile-time groups of values.
 *
 * A tuple is never a VIR value of its own: `(a, b)` is a VFE_V_TUPLE, a
 * list of values, scalarized where it is used. Assigned to a name once it
 * binds that name to the group (VFE_BIND_VALUE); `t[k]` with a constant k
 * picks one; `u, v = t` unpacks it; an unrolled loop runs over it
 * (static_loops.c). Crossing a function boundary needs one value, so a
 * helper's `return a, b` packs the elements into a struct made for it,
 * `struct @_vp_ret_NAME { _0: T0, _1: T1 }` (one `construct`), and the
 * call site unpacks the result with one `extract` per element.
 */
#include <stdio.h>
#include <string.h>

#include "fe.h"

static bool is_tuple_struct(const vir_type *t) {
  return t && t->kind == VIR_TY_STRUCT && strncmp(t->st->name, "_vp_ret_", 8) == 0;
}

static bool struct_named(const vir_module *m, const char *name) {
  for (uint32_t i = 0; i < m->structs.len; i++)
    if (strcmp(((vir_struct *)m->structs.data[i])->name, name) == 0)
      return true;
  return false;
}

/* The struct for a tuple of these element types. */
static vir_type *tuple_struct(vfe_ctx *c, const vfe_node *at, vir_value **x, uint32_t n, const char *base) {
  const char *name = base;
  for (uint32_t k = 1; struct_named(c->m, name); k++)
    name = vp_arena_printf(&c->m->arena, "%s_%u", base, k);
  vir_struct *st = vir_struct_create(c->m, name, vfe_loc(c, at));
  if (!st)
    longjmp(c->oom, 1);
  for (uint32_t i = 0; i < n; i++)
    vir_struct_add_field(c->m, st, vp_arena_printf(&c->m->arena, "_%u", i), x[i]->type, vfe_loc(c, at));
  vir_struct_layout(st);
  return st->type;
}

/* Packs a tuple into a value of type `want` (a tuple struct), or into a new
 * tuple struct when `want` is NULL. */
static vir_value *pack(vfe_ctx *c, const vfe_node *at, vfe_val v, vir_type *want, const char *name) {
  if (v.nelems == 0 || v.nelems > 16) {
    vfe_err(c, at, "a returned tuple has 1 to 16 elements, not %u", v.nelems);
    return NULL;
  }
  if (want && want->st->nfields != v.nelems) {
    vfe_err(c, at, "this returns %u values; an earlier return gave %u", v.nelems, want->st->nfields);
    return NULL;
  }
  vir_value *x[16];
  for (uint32_t i = 0; i < v.nelems; i++) {
    vir_type *ft = want ? want->st->fields[i].type : NULL;
    if (v.elems[i].kind == VFE_V_TUPLE && (!ft || is_tuple_struct(ft))) {
      /* a tuple in a tuple: a struct in the struct, named after its place */
      x[i] = pack(c, at, v.elems[i], ft, vp_arena_printf(&c->m->arena, "%s_%u", name, i));
    } else if (ft) {
      x[i] = vfe_coerce(c, at, v.elems[i], ft, VFE_WHAT("return value of '%s'", c->fn->helper->name));
    } else {
      x[i] = vfe_rvalue(c, at, v.elems[i]);
      if (x[i] && x[i]->type->kind == VIR_TY_VOID) {
        vfe_err(c, at, "this call returns nothing");
        return NULL;
      }
    }
    if (!x[i])
      return NULL;
  }
  vir_type *t = want ? want : tuple_struct(c, at, x, v.nelems, name);
  vfe_set_loc(c, at);
  return vir_result(vfe_build(c, VIR_OP_CONSTRUCT, t, v.nelems, x));
}

vir_value *vfe_tuple_return(vfe_ctx *c, const vfe_node *at, vfe_val v) {
  vfe_fn *fn = c->fn;
  if (fn->ret && !is_tuple_struct(fn->ret)) {
    vfe_err(c, at, "'%s' returns %s; this return has a tuple", fn->helper->name, vfe_tyname(c, fn->ret));
    if (fn->ret_annotated)
      vfe_hint(c, "leave the return type out: a helper returning a tuple takes its types from its first return");
    return NULL;
  }
  vir_value *x = pack(c, at, v, fn->ret, vp_arena_printf(&c->m->arena, "_vp_ret_%s", fn->helper->name));
  if (x && !fn->ret) {
    fn->ret = x->type;
    fn->f->ret = x->type;
  }
  return x;
}

static vfe_val unpack(vfe_ctx *c, vir_value *r) {
  vir_struct *st = r->type->st;
  vfe_val t = {.kind = VFE_V_TUPLE, .nelems = st->nfields};
  t.elems = vfe_alloc(c, st->nfields * sizeof *t.elems);
  for (uint32_t i = 0; i < st->nfields; i++) {
    vir_op *e = vfe_build(c, VIR_OP_EXTRACT, st->fields[i].type, 1, &r);
    e->attr.index = i;
    vir_value *x = vir_result(e);
    t.elems[i] = is_tuple_struct(x->type) ? unpack(c, x) : vfe_value_of(x);
  }
  return t;
}

vfe_val vfe_tuple_result(vfe_ctx *c, const vfe_node *call, vfe_val r) {
  if (r.kind != VFE_V_VAL || !is_tuple_struct(r.type))
    return r;
  vfe_set_loc(c, call);
  return unpack(c, r.v);
}

vfe_val vfe_tuple_index(vfe_ctx *c, const vfe_node *e, vfe_val t, vfe_val k) {
  if (k.kind == VFE_V_ERR)
    return k;
  if (k.kind != VFE_V_INT) {
    vfe_err(c, e, "a tuple is indexed with an integer constant");
    vfe_hint(c, "to loop over a tuple, unroll: for w in W: ... or for j, w in enumerate(W): ...");
    return (vfe_val){0};
  }
  int64_t i = k.big ? INT64_MAX : k.i < 0 ? k.i + (int64_t)t.nelems : k.i;
  if (i < 0 || i >= (int64_t)t.nelems)
    return vfe_err(c, e, "tuple index %lld is out of range for %u elements", k.big ? (long long)INT64_MAX : (long long)k.i,
                   t.nelems);
  return t.elems[i];
}
