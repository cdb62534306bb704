/* value.c - the values of expressions: memory places, loads and stores,
 * literals made concrete, short-circuit logic, and the frontend's hidden
 * locals.
 *
 * An expression's vfe_val is not yet a VIR value: `buf[i].pos` is a place
 * that becomes a load only when read (or a store when assigned), so member
 * paths reach memory in one access. vfe_use makes any value concrete.
 * and/or (vfe_logic) first build their right side inside an `if`; when its
 * ops turn out pure they move out and become land/lor, otherwise a local
 * keeps the result and the right side runs only when needed.
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
    if (op->code == VIR_OP_LOCAL_LOAD || op->code == VIR_OP_LOCAL_LOAD_AT) /* clamped: never faults */
      continue;
    return false;
  }
  return true;
}

vir_value *vfe_local_load(vfe_ctx *c, vir_sym *s) {
  vir_op *op = vfe_build(c, VIR_OP_LOCAL_LOAD, s->type, 0, NULL);
  op->attr.sym = s;
  return vir_result(op);
}

void vfe_local_store(vfe_ctx *c, vir_sym *s, vir_value *v) {
  vir_op *op = vfe_build(c, VIR_OP_LOCAL_STORE, NULL, 1, &v);
  op->attr.sym = s;
}

vir_value *vfe_logic(vfe_ctx *c, const vfe_node *at, bool is_and, vir_value *a, vfe_rhs_fn rhs,
                     const void *arg) {
  vir_op *k = a->def && a->def->code == VIR_OP_CONST ? a->def : NULL;
  if (k && k->attr.lit.b != is_and) {
    /* `True or x`, `False and x` (a module constant's test, a literal): the
     * left side decides, as Python's short circuit, so x never runs; it is
     * still translated, in an `if` dropped after, for its errors */
    vir_op *iff = vfe_build(c, VIR_OP_IF, NULL, 1, &a);
    vir_builder save = c->b;
    vir_builder_at_end(&c->b, &iff->regions[is_and ? 0 : 1]);
    vir_value *b = rhs(c, arg);
    c->b = save;
    vir_op_unlink(iff);
    return b ? a : NULL;
  }
  if (k) /* `True and x`, `False or x`: x */
    return rhs(c, arg);
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
  vfe_local_store(c, t, a);
  vir_builder_at_end(&c->b, r);
  vfe_local_store(c, t, b);
  c->b = save;
  return vfe_local_load(c, t);
}

/* ------------------------------------------------------------- memory */

vir_value *vfe_load(vfe_ctx *c, const vfe_place *p) {
  static const vir_opcode load[] = {VIR_OP_BUFFER_LOAD, VIR_OP_SHARED_LOAD, VIR_OP_LOCAL_LOAD,
                                    VIR_OP_PUSH_LOAD};
  vir_value *idx = p->index;
  vfe_memsock_check_read(c, p);
  /* a named control word: the host or other workgroups write it while the
   * kernel runs, so every read is an atomic load (acquire, device scope) */
  vir_opcode code = p->atomic ? VIR_OP_ATOMIC_LOAD
                    : p->root == VFE_R_LOCAL && idx ? VIR_OP_LOCAL_LOAD_AT /* vp.Local */
                                                    : load[p->root];
  if (p->atomic && c->persistent) /* the grid-uniform snapshot of the last grid sync */
    code = VIR_OP_PERSIST_CONTROL;
  vir_op *op = vfe_build(c, code, p->type, idx ? 1 : 0, idx ? &idx : NULL);
  if (p->atomic) {
    op->attr.scope = VIR_SCOPE_DEVICE;
    op->attr.sem = VIR_SEM_ACQUIRE;
  }
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
  if (p->root == VFE_R_LOCAL && p->index) { /* an element of a vp.Local */
    op = vfe_build(c, VIR_OP_LOCAL_STORE_AT, NULL, 2, ops);
  } else if (p->root == VFE_R_LOCAL) {
    op = vfe_build(c, VIR_OP_LOCAL_STORE, NULL, 1, &v);
  } else if (p->atomic) { /* a named control word: atomic store (release, device scope) */
    op = vfe_build(c, VIR_OP_ATOMIC_STORE, NULL, 2, ops);
    op->attr.scope = VIR_SCOPE_DEVICE;
    op->attr.sem = VIR_SEM_RELEASE;
  } else
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
  case VFE_V_BOOL:
  case VFE_V_LITSEL: return vfe_rvalue(c, at, v);
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
    vfe_err(c, at, "%s '%s' is not a value",
            v.arr->priv ? "private array" : v.arr->shared ? "shared array" : "buffer", v.arr->sym->name);
    vfe_hint(c, "index it: %s[i]", v.arr->sym->name);
    return NULL;
  case VFE_V_PUSH:
    vfe_err(c, at, "'pc' is the push-constant block, not a value");
    vfe_hint(c, "read one field: pc.NAME");
    return NULL;
  case VFE_V_VP: vfe_err(c, at, "the vulpy module is not a value"); return NULL;
  case VFE_V_MATH: vfe_err(c, at, "the math module is not a value"); return NULL;
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
  case VFE_V_CLASS: vfe_err(c, at, "'%s' is a type, not a value", v.st->name); return NULL;
  case VFE_V_TYPE: vfe_err(c, at, "'%s' is a type, not a value", vfe_tyname(c, v.type)); return NULL;
  case VFE_V_NONE:
    if (vfe_ast_of(at) == VFE_AST_Call) /* a helper without `return value` */
      vfe_err(c, at, "this call returns nothing");
    else
      vfe_err(c, at, "None is not a value in a kernel");
    return NULL;
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


vir_value *vfe_splat(vfe_ctx *c, vir_value *s, vir_type *vec) {
  return vir_result(vfe_build(c, VIR_OP_CONSTRUCT, vec, 1, &s));
}
