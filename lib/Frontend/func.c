/* func.c - helper functions: calls, specialization, translation.
 *
 * A helper (a module-level `def`, or one passed to the decorator) becomes
 * a VIR func when it is first called. Annotated parameters have their
 * type; unannotated ones take the types of the call's arguments, so one
 * Python helper may become several VIR funcs (`sq`, `sq_1`, ...), one per
 * distinct list of argument types. A buffer or shared array passed to a
 * helper is not a VIR parameter: the helper is specialized for that
 * array and reads it directly. The return type is the annotation, or the
 * type of the first `return` with a value. Recursion is refused: a helper
 * being translated cannot be called again (GPUs have no call stack).
 */
#include <string.h>

#include "fe.h"

/* Whether a statement list always ends in a return (so a helper with a
 * value cannot fall off its end). */
static bool always_returns(vfe_node **body, uint32_t n) {
  if (n == 0)
    return false;
  const vfe_node *last = body[n - 1];
  if (vfe_ast_of(last) == VFE_AST_Return)
    return true;
  if (vfe_ast_of(last) == VFE_AST_If) {
    uint32_t nt, ne;
    vfe_node **t = vfe_get_list(last, "body", &nt);
    vfe_node **e = vfe_get_list(last, "orelse", &ne);
    return always_returns(t, nt) && always_returns(e, ne);
  }
  return false;
}

static bool same_key(const vfe_inst *in, const vfe_val *args, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (in->args[i].kind != args[i].kind)
      return false;
    if (args[i].kind == VFE_V_ARRAY ? in->args[i].arr != args[i].arr : in->args[i].type != args[i].type)
      return false;
  }
  return true;
}

static void translate_inst(vfe_ctx *c, const vfe_node *call, vfe_helper *h, vfe_inst *in,
                           vfe_node **params) {
  const vfe_node *def = h->def;
  uint32_t nvals = 0;
  vir_type *types[64];
  const char *names[64];
  for (uint32_t i = 0; i < in->nparams; i++)
    if (in->args[i].kind == VFE_V_VAL) {
      types[nvals] = in->args[i].type;
      names[nvals++] = vfe_mstrdup(c, vfe_get_str(params[i], "arg"));
    }
  /* the first specialization keeps the Python name */
  const char *name = h->name;
  for (uint32_t k = h->ninst; k == h->ninst || vir_module_find(c->m, name); k++)
    name = k ? vp_arena_printf(&c->arena, "%s_%u", h->name, k) : h->name;
  h->ninst++;
  vfe_fn fn = {.helper = h, .file = h->file};
  const vfe_node *ret = vfe_get(def, "returns");
  vir_builder saved = c->b;
  vfe_fn *outer = c->fn;
  c->fn = &fn; /* annotations and locations in the helper's own file */
  if (ret) {
    bool none = vfe_ast_of(ret) == VFE_AST_Constant && !vfe_get(ret, "value");
    fn.ret = none ? vir_ty_void(c->m) : vfe_type_of_annotation(c, ret);
    fn.ret_annotated = fn.ret != NULL;
  }
  fn.f = vir_add_func(c->m, vfe_mstrdup(c, name), false,
                      fn.ret ? fn.ret : vir_ty_void(c->m), nvals, types, names, vfe_loc(c, def));
  if (!fn.f)
    longjmp(c->oom, 1);
  in->func = fn.f;
  c->b = (vir_builder){.m = c->m, .f = fn.f, .loc = vfe_loc(c, def)};
  vir_builder_at_end(&c->b, &fn.f->body);
  uint32_t n;
  vfe_node **body = vfe_get_list(def, "body", &n);
  vfe_count_assigns(c, &fn, body, n);
  /* Parameters: arrays bind to the caller's symbol; values are the
   * function's arguments, copied to a local when the body assigns them. */
  for (uint32_t i = 0, k = 0; i < in->nparams; i++) {
    const char *pname = vfe_get_str(params[i], "arg");
    vfe_var *v = vfe_alloc(c, sizeof *v);
    v->line = params[i]->line;
    if (in->args[i].kind == VFE_V_ARRAY) {
      v->bind = VFE_BIND_ARRAY;
      v->arr = in->args[i].arr;
    } else if (in->args[i].kind == VFE_V_ERR) {
      v->bind = VFE_BIND_POISON; /* a check of an unused helper: unknown, silent */
    } else {
      vir_value *arg = fn.f->body.args[k++];
      v->type = arg->type;
      if (vfe_map_get(&fn.assigns, pname)) {
        v->bind = VFE_BIND_LOCAL;
        v->local = vir_func_add_local(c->m, fn.f, vfe_mstrdup(c, pname), arg->type, vfe_loc(c, params[i]));
        if (!v->local)
          longjmp(c->oom, 1);
        vfe_place p = {.root = VFE_R_LOCAL, .sym = v->local, .type = arg->type};
        vfe_store(c, &p, arg);
        if (h->method && i == 0 && arg->type->kind == VIR_TY_STRUCT) {
          /* a method that changes self: the func returns the new self,
           * which the call stores back (methods.c) */
          fn.self_local = v->local;
          in->self_out = true;
          fn.f->ret = arg->type;
        }
      } else {
        v->bind = VFE_BIND_SSA;
        v->value = arg;
      }
    }
    vfe_map_put(c, &fn.vars, pname, v);
  }
  vfe_stmts(c, body, n);
  if (!fn.ret)
    fn.ret = vir_ty_void(c->m);
  fn.f->ret = fn.self_local ? fn.self_local->type : fn.ret;
  if (fn.self_local && !vfe_region_terminated(c)) {
    vir_value *s = vfe_local_load(c, fn.self_local);
    vfe_build(c, VIR_OP_RETURN, NULL, 1, &s);
  } else if (fn.ret->kind != VIR_TY_VOID && !always_returns(body, n) && !vfe_region_terminated(c)) {
    vfe_err(c, def, "helper '%s' can reach its end without returning a value", h->name);
    vfe_hint(c, "end every path with `return ...`");
  } else if (fn.ret->kind == VIR_TY_VOID && !vfe_region_terminated(c)) {
    vfe_build(c, VIR_OP_RETURN, NULL, 0, NULL);
  }
  c->fn = outer;
  c->b = saved;
  in->done = true;
  (void)call;
}

vfe_val vfe_call_helper(vfe_ctx *c, const vfe_node *call, vfe_helper *h) {
  return vfe_call_helper_self(c, call, h, NULL, NULL);
}

vfe_val vfe_call_helper_self(vfe_ctx *c, const vfe_node *call, vfe_helper *h, const vfe_val *self,
                             bool *self_out) {
  const vfe_node *def = h->def;
  if (h->active) {
    vfe_err(c, call, "'%s' calls itself (directly or through other helpers)", h->name);
    vfe_hint(c, "recursion is not supported on the GPU; write a loop");
    return (vfe_val){0};
  }
  const vfe_node *args = vfe_get(def, "args");
  uint32_t np, nd, nx = 0, tmp;
  vfe_node **params = vfe_get_list(args, "args", &np);
  vfe_node **defaults = vfe_get_list(args, "defaults", &nd);
  vfe_get_list(args, "posonlyargs", &tmp);
  nx += tmp;
  vfe_get_list(args, "kwonlyargs", &tmp);
  nx += tmp;
  if (h->bad_sig)
    return (vfe_val){0};
  h->bad_sig = true; /* until the checks below pass */
  if (nx || vfe_get(args, "vararg") || vfe_get(args, "kwarg")) {
    vfe_err(c, def, "helper '%s' takes plain named parameters only (no *args, **kwargs, / or *)", h->name);
    return (vfe_val){0};
  }
  if (np > 64)
    return vfe_err(c, def, "helper '%s' has more than 64 parameters", h->name);
  for (uint32_t i = 0; i < np; i++)
    if (!vfe_get_str(params[i], "arg"))
      return vfe_err(c, def, "malformed AST: a parameter of '%s' has no name", h->name);
  h->bad_sig = false;
  uint32_t nd_decos;
  vfe_node **decos = vfe_get_list(def, "decorator_list", &nd_decos);
  for (uint32_t i = 0; i < nd_decos; i++) {
    vfe_val d = vfe_expr(c, vfe_ast_of(decos[i]) == VFE_AST_Call ? vfe_get(decos[i], "func") : decos[i]);
    if (d.kind != VFE_V_BUILTIN || d.bi->fn != VFE_F_KERNEL || strcmp(d.bi->name, "func") != 0) {
      if (d.kind != VFE_V_ERR)
        vfe_err(c, decos[i], "helper '%s' has a decorator VulPy does not know", h->name);
      return (vfe_val){0};
    }
  }
  /* Match the call's arguments to the parameters. */
  uint32_t na, nk;
  vfe_node **cargs = vfe_get_list(call, "args", &na);
  vfe_node **kws = vfe_get_list(call, "keywords", &nk);
  const vfe_node *given[64] = {0};
  uint32_t first = self ? 1 : 0; /* a method's self is given already */
  if (self && np == 0)
    return vfe_err(c, call, "method %s() has no self parameter", h->name);
  if (na + first > np)
    return vfe_err(c, call, "%s() takes %u argument%s, got %u", h->name, np - first,
                   np - first == 1 ? "" : "s", na);
  if (self)
    given[0] = call;
  for (uint32_t i = 0; i < na; i++) {
    if (vfe_ast_of(cargs[i]) == VFE_AST_Starred)
      return vfe_err(c, cargs[i], "*arguments are not supported in kernels");
    given[i + first] = cargs[i];
  }
  for (uint32_t k = 0; k < nk; k++) {
    const char *kn = vfe_get_str(kws[k], "arg");
    uint32_t i = 0;
    while (kn && i < np && strcmp(vfe_get_str(params[i], "arg") ?: "", kn) != 0)
      i++;
    if (!kn || i == np)
      return vfe_err(c, kws[k], "%s() has no parameter '%s'", h->name, kn ? kn : "**");
    if (given[i])
      return vfe_err(c, kws[k], "%s() got two values for '%s'", h->name, kn);
    given[i] = vfe_get(kws[k], "value");
  }
  for (uint32_t i = 0; i < np; i++)
    if (!given[i]) {
      if (i + nd >= np) {
        given[i] = defaults[i + nd - np];
      } else {
        return vfe_err(c, call, "%s() is missing the argument '%s'", h->name,
                       vfe_get_str(params[i], "arg"));
      }
    }
  /* Evaluate them and decide each parameter's type. */
  vfe_val key[64];
  vir_value *vals[64];
  uint32_t nvals = 0;
  for (uint32_t i = 0; i < np; i++) {
    const vfe_node *ann = vfe_get(params[i], "annotation");
    vfe_val a = self && i == 0 ? *self : vfe_expr(c, given[i]);
    if (a.kind == VFE_V_ERR)
      return a;
    const char *pname = vfe_get_str(params[i], "arg");
    if (a.kind == VFE_V_ARRAY && a.arr->priv) {
      vfe_err(c, given[i], "private array '%s' cannot be passed to a helper (it is the caller's local)",
              a.arr->sym->name);
      vfe_hint(c, "pass its elements, or return values from the helper and store them");
      return (vfe_val){0};
    }
    if (a.kind == VFE_V_ARRAY) {
      if (ann && vfe_ast_of(ann) != VFE_AST_Subscript)
        return vfe_err(c, given[i], "argument '%s' of %s() is annotated as a value; got an array",
                       pname, h->name);
      key[i] = a;
      continue;
    }
    vir_value *x;
    if (ann) {
      vfe_fn *outer = c->fn;
      vfe_fn ann_scope = {.file = h->file};
      c->fn = &ann_scope; /* the annotation belongs to the helper's module */
      vir_type *t = vfe_type_of_annotation(c, ann);
      c->fn = outer;
      if (!t)
        return (vfe_val){0};
      vfe_set_loc(c, given[i]);
      x = vfe_coerce(c, given[i], a, t, VFE_WHAT("argument '%s' of %s()", pname, h->name));
    } else {
      x = vfe_rvalue(c, given[i], a);
    }
    if (!x)
      return (vfe_val){0};
    key[i] = (vfe_val){.kind = VFE_V_VAL, .type = x->type};
    vals[nvals++] = x;
  }
  vfe_inst *in = h->insts;
  while (in && !same_key(in, key, np))
    in = in->next;
  if (!in && c->helper_depth >= 64) {
    /* each level is a translation on the C stack: keep it bounded */
    vfe_err(c, call, "helpers call each other more than 64 levels deep");
    return (vfe_val){0};
  }
  if (!in) {
    in = vfe_alloc(c, sizeof *in);
    in->nparams = np;
    in->args = vfe_alloc(c, (np ? np : 1) * sizeof *in->args);
    memcpy(in->args, key, np * sizeof *key);
    in->next = h->insts;
    h->insts = in;
    h->active = true;
    c->helper_depth++;
    translate_inst(c, call, h, in, params);
    c->helper_depth--;
    h->active = false;
  }
  if (!in->func || !in->done)
    return (vfe_val){0};
  if (self_out)
    *self_out = in->self_out;
  vfe_set_loc(c, call);
  vir_type *rt = in->func->ret;
  vir_op *op = vfe_build(c, VIR_OP_CALL, rt, nvals, vals);
  op->attr.sym = in->func->sym;
  if (rt->kind == VIR_TY_VOID)
    return (vfe_val){.kind = VFE_V_NONE};
  return (vfe_val){.kind = VFE_V_VAL, .v = vir_result(op), .type = rt};
}

/* Helpers the kernel never calls are checked all the same, so that their
 * errors are not a surprise on the day they are called: each is
 * translated once, annotated parameters with their types and the others
 * as unknown values (which stay silent wherever they are used), and then
 * dropped from the module, with whatever the check declared (other
 * helpers' specializations, shared arrays, constants, structs). Buffers'
 * read and write counts are kept as the kernel left them. */
void vfe_check_unused_helpers(vfe_ctx *c, const vfe_node *kdef) {
  uint32_t nsyms = c->m->syms.len, nstructs = c->m->structs.len, narr = c->arrays.len;
  uint32_t *counts = vfe_alloc(c, (2 * narr + 1) * sizeof *counts);
  for (uint32_t i = 0; i < narr; i++) {
    vfe_array *a = c->arrays.data[i];
    counts[2 * i] = a->reads;
    counts[2 * i + 1] = a->writes;
  }
  uint32_t n;
  vfe_node **body = vfe_get_list(c->module, "body", &n);
  for (uint32_t i = 0; i < n; i++) {
    const vfe_node *def = body[i];
    const char *name = vfe_get_str(def, "name");
    if (vfe_ast_of(def) != VFE_AST_FunctionDef || def == kdef || !name)
      continue;
    vfe_global *g = vfe_map_get(&c->globals, name);
    if (!g || g->kind != VFE_G_FUNC || !g->helper || g->helper->def != def || g->helper->ninst ||
        g->helper->bad_sig || g->helper->fire_body)
      continue;
    /* other kernels of the file are not helpers: @vp.kernel, or main */
    bool kernel = strcmp(name, "main") == 0;
    uint32_t nd;
    vfe_node **decos = vfe_get_list(def, "decorator_list", &nd);
    for (uint32_t k = 0; k < nd; k++) {
      const vfe_node *d = vfe_ast_of(decos[k]) == VFE_AST_Call ? vfe_get(decos[k], "func") : decos[k];
      const char *a = vfe_get_str(d, "attr"), *id = vfe_get_str(d, "id");
      kernel = kernel || (a && strcmp(a, "kernel") == 0) || (id && strcmp(id, "kernel") == 0);
    }
    if (kernel)
      continue;
    vfe_helper *h = g->helper;
    const vfe_node *args = vfe_get(def, "args");
    uint32_t np, extra = 0, tmp;
    vfe_node **params = vfe_get_list(args, "args", &np);
    vfe_get_list(args, "posonlyargs", &tmp);
    extra += tmp;
    vfe_get_list(args, "kwonlyargs", &tmp);
    extra += tmp;
    if (extra || vfe_get(args, "vararg") || vfe_get(args, "kwarg")) {
      vfe_err(c, def, "helper '%s' takes plain named parameters only (no *args, **kwargs, / or *)", name);
      continue;
    }
    if (np > 64) {
      vfe_err(c, def, "helper '%s' has more than 64 parameters", name);
      continue;
    }
    vfe_inst *in = vfe_alloc(c, sizeof *in);
    in->nparams = np;
    in->args = vfe_alloc(c, (np ? np : 1) * sizeof *in->args);
    bool ok = true;
    for (uint32_t k = 0; k < np && ok; k++) {
      const vfe_node *ann = vfe_get(params[k], "annotation");
      ok = vfe_get_str(params[k], "arg") != NULL;
      if (!ok)
        vfe_err(c, def, "malformed AST: a parameter of '%s' has no name", name);
      in->args[k] = (vfe_val){.kind = VFE_V_ERR};
      if (!ann || vfe_ast_of(ann) == VFE_AST_Subscript) /* vp.Buffer[...]: no array to bind */
        continue;
      vfe_fn *outer = c->fn;
      vfe_fn scope = {.file = h->file};
      c->fn = &scope;
      vir_type *t = vfe_type_of_annotation(c, ann);
      c->fn = outer;
      if (t)
        in->args[k] = (vfe_val){.kind = VFE_V_VAL, .type = t};
    }
    if (!ok)
      continue;
    h->active = true;
    c->helper_depth++;
    translate_inst(c, def, h, in, params);
    c->helper_depth--;
    h->active = false;
  }
  vir_module_truncate(c->m, nsyms, nstructs);
  for (uint32_t i = 0; i < narr; i++) {
    vfe_array *a = c->arrays.data[i];
    a->reads = counts[2 * i];
    a->writes = counts[2 * i + 1];
  }
  c->arrays.len = narr;
}
