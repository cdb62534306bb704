/* memsock.c - MemSock in the kernel language: the `vp.MemSock[T]`
 * parameter, fire bodies and `pipe.fire(body, **payload)`.
 *
 *   def main(field: vp.Buffer[vp.float32], pipe: vp.MemSock[vp.float32]):
 *       p = vp.global_id()
 *       def pipe_body(snap_idx: vp.uint32):     # or at module level
 *           pipe[snap_idx * pc.nx + p] = field[p]
 *       if pc.t % pc.snap_interval == 0:
 *           pipe.fire(pipe_body, snap_idx=pc.t)
 *
 * A MemSock parameter is two buffers: the frames (`pipe`, elements of T,
 * write-only) and the ring words (`pipe_ring`, u32, the next binding). A
 * fire becomes a `memsock.fire @pipe, %sig, %payload...` op whose region is
 * the body, inlined in the kernel's scope (it reads the kernel's names); the
 * payload fields are the body's annotated parameters, 32-bit numbers, and
 * %sig their signature (vulpy/memsock_abi.h), which the host checks against
 * the pipe's payload= dict. `lower-memsock` turns the op into the protocol
 * and checks that every invocation reaches it.
 */
#include "fe.h"

#include "vulpy/memsock_abi.h"

#include <string.h>

/* `vp.MemSock[T]` or `MemSock[T]`: the element type (NULL after an error),
 * *is false when `ann` is something else. */
static vir_type *memsock_annotation(vfe_ctx *c, const vfe_node *ann, bool *is) {
  *is = false;
  if (vfe_ast_of(ann) != VFE_AST_Subscript)
    return NULL;
  const vfe_node *base = vfe_get(ann, "value");
  const char *attr = vfe_get_str(base, "attr"), *id = vfe_get_str(base, "id");
  if (vfe_ast_of(base) == VFE_AST_Attribute) {
    const vfe_node *mod = vfe_get(base, "value");
    const char *mid = vfe_get_str(mod, "id");
    if (!attr || strcmp(attr, "MemSock") != 0 || vfe_ast_of(mod) != VFE_AST_Name || !mid ||
        !(vfe_map_get(&c->vp_names, mid) || strcmp(mid, "vp") == 0 || strcmp(mid, "vulpy") == 0))
      return NULL;
  } else if (vfe_ast_of(base) != VFE_AST_Name || !id || strcmp(id, "MemSock") != 0) {
    return NULL;
  }
  *is = true;
  vir_type *t = vfe_type_of_annotation(c, vfe_get(ann, "slice"));
  if (t && (!vir_ty_is_scalar(t) || vir_ty_is_bool(t))) {
    vfe_err(c, ann, "a MemSock's frames hold numbers (vp.float32, vp.int32, ...), not %s",
            vfe_tyname(c, t));
    return NULL;
  }
  return t;
}

bool vfe_memsock_param(vfe_ctx *c, const vfe_node *p, const char *name, const vfe_node *ann,
                       vfe_var *v) {
  bool is;
  vir_type *elem = memsock_annotation(c, ann, &is);
  if (!is)
    return false;
  if (!elem) {
    v->bind = VFE_BIND_POISON;
    return true;
  }
  v->bind = VFE_BIND_ARRAY;
  v->arr = vfe_add_buffer(c, p, name, elem);
  v->arr->memsock = true;
  /* The frames are read by the host while the kernel runs: coherent, so
   * the release before the publish makes them available. */
  v->arr->sym->buf_flags |= VIR_BUF_COHERENT;
  const char *rn = vp_arena_printf(&c->arena, "%s_ring", name);
  vfe_array *ring = vfe_add_buffer(c, p, rn, vir_ty_uint(c->m, 32));
  ring->sym->buf_flags |= VIR_BUF_COHERENT; /* the host writes ack and closed while it runs */
  ring->reads = ring->writes = 1;
  v->arr->ring = ring->sym;
  c->has_memsock = true;
  return true;
}

bool vfe_memsock_def(vfe_ctx *c, const vfe_node *s) {
  /* only a kernel with a MemSock has fire bodies; elsewhere a nested def
   * stays the error it was */
  if (vfe_ast_of(s) != VFE_AST_FunctionDef || !c->fn || !c->fn->is_kernel || !c->has_memsock)
    return false;
  const char *name = vfe_get_str(s, "name");
  if (!name)
    return false;
  vfe_map_put(c, &c->fire_bodies, name, (void *)s);
  return true;
}

void vfe_memsock_check_access(vfe_ctx *c, const vfe_node *at, vfe_array *a) {
  if (!a || !a->memsock || c->fire_depth)
    return;
  vfe_err(c, at, "MemSock '%s' is written only inside a fire body", a->sym->name);
  vfe_hint(c, "write the frame in a function and fire it: pipe.fire(body, field=value)");
}

void vfe_memsock_check_read(vfe_ctx *c, const vfe_place *p) {
  if (p->arr && p->arr->memsock)
    vp_error(c->diags, c->b.loc, "MemSock '%s' is write-only in a kernel (the host reads it)",
             p->arr->sym->name);
}

/* The FunctionDef a fire names: a def inside the kernel, or at module level. */
static const vfe_node *fire_body(vfe_ctx *c, const vfe_node *e) {
  const char *id = vfe_ast_of(e) == VFE_AST_Name ? vfe_get_str(e, "id") : NULL;
  if (!id)
    return NULL;
  const vfe_node *def = vfe_map_get(&c->fire_bodies, id);
  if (def)
    return def;
  vfe_global *g = vfe_map_get(&c->globals, id);
  if (g && g->kind == VFE_G_FUNC && g->helper) {
    g->helper->fire_body = true;
    return g->helper->def;
  }
  return NULL;
}

/* pipe.fire(body, name=value, ...) */
static vfe_val fire(vfe_ctx *c, const vfe_node *call, vfe_array *a) {
  uint32_t nargs, nkw, nparams;
  vfe_node **args = vfe_get_list(call, "args", &nargs);
  vfe_node **kws = vfe_get_list(call, "keywords", &nkw);
  const char *pname = a->sym->name;
  if (nargs != 1)
    return vfe_err(c, call, "%s.fire takes the body function and the payload by keyword: "
                            "%s.fire(body, field=value, ...)", pname, pname);
  const vfe_node *def = fire_body(c, args[0]);
  if (!def)
    return vfe_err(c, args[0], "%s.fire's first argument must name a function defined in the "
                               "kernel or at module level (the fire body)", pname);
  if (c->fire_depth)
    return vfe_err(c, call, "a fire inside a fire body");
  const vfe_node *fargs = vfe_get(def, "args");
  vfe_node **params = vfe_get_list(fargs, "args", &nparams);
  uint32_t extra;
  vfe_get_list(fargs, "kwonlyargs", &extra);
  if (extra || vfe_get(fargs, "vararg") || vfe_get(fargs, "kwarg") || nparams > 64)
    return vfe_err(c, def, "a fire body takes at most 64 plain parameters, the payload fields");
  /* the payload: one value per parameter, by keyword */
  vir_value **ops = vfe_alloc(c, (nparams + 1) * sizeof *ops);
  vir_type **types = vfe_alloc(c, (nparams + 1) * sizeof *types);
  bool ok = true;
  unsigned sig = VMS_SIG_INIT;
  for (uint32_t k = 0; k < nkw; k++) {
    const char *kn = vfe_get_str(kws[k], "arg");
    bool known = false;
    for (uint32_t i = 0; kn && i < nparams; i++)
      known = known || strcmp(kn, vfe_get_str(params[i], "arg")) == 0;
    if (!known) {
      vfe_err(c, kws[k], "%s.fire: '%s' is not a payload field of %s()", pname,
              kn ? kn : "**", vfe_get_str(def, "name"));
      ok = false;
    }
  }
  for (uint32_t i = 0; i < nparams; i++) {
    const char *fname = vfe_get_str(params[i], "arg");
    const vfe_node *ann = vfe_get(params[i], "annotation");
    if (!ann) {
      vfe_err(c, params[i], "payload field '%s' has no type", fname);
      vfe_hint(c, "annotate it: %s: vp.uint32 (payload fields are 32-bit numbers)", fname);
      ok = false;
      continue;
    }
    vir_type *t = vfe_type_of_annotation(c, ann);
    if (!t)
      return (vfe_val){0};
    if (!vir_ty_is_scalar(t) || vir_ty_is_bool(t) || vir_type_size(t) != 4) {
      vfe_err(c, ann, "payload field '%s' is %s; payload fields are vp.uint32, vp.int32 or "
                      "vp.float32", fname, vfe_tyname(c, t));
      ok = false;
      continue;
    }
    types[i] = t;
    const vfe_node *value = NULL;
    for (uint32_t k = 0; k < nkw; k++) {
      const char *kn = vfe_get_str(kws[k], "arg");
      if (kn && strcmp(kn, fname) == 0)
        value = vfe_get(kws[k], "value");
    }
    if (!value) {
      vfe_err(c, call, "%s.fire: payload field '%s' has no value (pass %s=...)", pname, fname,
              fname);
      ok = false;
      continue;
    }
    ops[i + 1] = vfe_expr_as(c, value, t, VFE_WHAT("payload field '%s'", fname));
    ok = ok && ops[i + 1];
    sig = vms_sig_step(sig, fname);
    sig = vms_sig_step(sig, ":");
    sig = vms_sig_step(sig, t->str);
    sig = vms_sig_step(sig, ";");
  }
  if (!ok)
    return (vfe_val){0};
  vfe_set_loc(c, call);
  ops[0] = vfe_const_int(c, vir_ty_uint(c->m, 32), sig ? sig : 1);
  vir_op *op = vfe_build(c, VIR_OP_MEMSOCK_FIRE, NULL, nparams + 1, ops);
  op->attr.sym = a->sym;
  a->writes++;
  /* the body, in the kernel's scope, its parameters bound to the payload */
  vfe_var **saved = vfe_alloc(c, (nparams + 1) * sizeof *saved);
  for (uint32_t i = 0; i < nparams; i++) {
    const char *fname = vfe_get_str(params[i], "arg");
    saved[i] = vfe_map_get(&c->fn->vars, fname);
    vfe_var *v = vfe_bind_name(c, fname, VFE_BIND_SSA, types[i], params[i]);
    v->value = ops[i + 1];
  }
  uint32_t nb;
  vfe_node **body = vfe_get_list(def, "body", &nb);
  vfe_count_assigns(c, c->fn, body, nb);
  vir_builder save = c->b;
  vir_builder_at_end(&c->b, &op->regions[0]);
  uint32_t loops = c->fn->loop_depth; /* a break in the body cannot leave it */
  c->fn->loop_depth = 0;
  c->fire_depth++;
  vfe_stmts(c, body, nb);
  c->fire_depth--;
  c->fn->loop_depth = loops;
  c->b = save;
  for (uint32_t i = 0; i < nparams; i++) {
    const char *fname = vfe_get_str(params[i], "arg");
    if (saved[i]) {
      vfe_map_put(c, &c->fn->vars, fname, saved[i]);
    } else {
      vfe_var *dead = vfe_bind_name(c, fname, VFE_BIND_DEAD, types[i], params[i]);
      (void)dead;
    }
  }
  return (vfe_val){.kind = VFE_V_NONE};
}

bool vfe_memsock_call(vfe_ctx *c, const vfe_node *call, vfe_val *out) {
  const vfe_node *f = vfe_get(call, "func");
  const char *attr = vfe_get_str(f, "attr");
  if (vfe_ast_of(f) != VFE_AST_Attribute || !attr || strcmp(attr, "fire") != 0)
    return false;
  const vfe_node *base = vfe_get(f, "value");
  const char *id = vfe_ast_of(base) == VFE_AST_Name ? vfe_get_str(base, "id") : NULL;
  vfe_var *v = id && c->fn ? vfe_map_get(&c->fn->vars, id) : NULL;
  if (!v || v->bind != VFE_BIND_ARRAY || !v->arr || !v->arr->memsock)
    return false;
  *out = fire(c, call, v->arr);
  return true;
}
