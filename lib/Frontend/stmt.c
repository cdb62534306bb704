/* stmt.c - Python statements: the dispatch over statement nodes and
 * control flow (if/elif/else, for over range, while, break, continue,
 * return, assert), the messages for statements outside the language, and
 * the walk that counts each name's assignments before a body is translated
 * (assign.c decides SSA value or local from it).
 *
 * Errors stop only the statement they are in: the next one is translated,
 * so one run reports every independent mistake. Statements after a
 * return/break/continue in the same block are dropped with a warning (a
 * terminator must end its VIR region).
 */
#include <string.h>

#include "fe.h"

/* ---------------------------------------------------- assignment counts */

static void count_name(vfe_ctx *c, vfe_fn *fn, const char *id, uint32_t flags) {
  if (!id)
    return;
  uintptr_t v = (uintptr_t)vfe_map_get(&fn->assigns, id);
  v = ((v & VFE_A_COUNT) + !(flags & VFE_A_MUT)) | (v & ~(uintptr_t)VFE_A_COUNT) | flags;
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
      count_name(c, fn, vfe_get_str(base, "id"), flags | VFE_A_MUT);
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
      uint32_t f = nested | (is_var_call(c, vfe_get(s, "value")) ? VFE_A_VAR : 0);
      for (uint32_t k = 0; k < nt; k++)
        count_target(c, fn, list[k], f);
      break;
    }
    case VFE_AST_AugAssign: count_target(c, fn, vfe_get(s, "target"), nested | VFE_A_VAR); break;
    case VFE_AST_Expr: {
      /* q.step(dt) may be a method that changes q (methods.c): q is a local */
      const vfe_node *v = vfe_get(s, "value");
      if (vfe_ast_of(v) == VFE_AST_Call && vfe_ast_of(vfe_get(v, "func")) == VFE_AST_Attribute)
        count_target(c, fn, vfe_get(v, "func"), nested);
      break;
    }
    case VFE_AST_AnnAssign:
      count_target(c, fn, vfe_get(s, "target"),
                   nested | (vfe_get(s, "value") && !is_var_call(c, vfe_get(s, "value")) ? 0 : VFE_A_VAR));
      break;
    case VFE_AST_For:
      count_target(c, fn, vfe_get(s, "target"), VFE_A_LOOP);
      list = vfe_get_list(s, "body", &nt);
      count_body(c, fn, list, nt, VFE_A_NESTED);
      list = vfe_get_list(s, "orelse", &nt);
      count_body(c, fn, list, nt, VFE_A_NESTED);
      break;
    case VFE_AST_While:
    case VFE_AST_If:
      list = vfe_get_list(s, "body", &nt);
      count_body(c, fn, list, nt, VFE_A_NESTED);
      list = vfe_get_list(s, "orelse", &nt);
      count_body(c, fn, list, nt, VFE_A_NESTED);
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

/* --------------------------------------------------------- control flow */

static void body_into(vfe_ctx *c, vir_region *r, vfe_node **body, uint32_t n) {
  vir_builder save = c->b;
  vir_builder_at_end(&c->b, r);
  vfe_stmts(c, body, n);
  c->b = save;
}

/* An `if` on a constant (a Python-level constant the frontend folded:
 * `if DEBUG:`, `if MODE == 2:`, a library template's switch) keeps only the
 * branch it takes, in its place, so the GLSL shows no `if (false)`. Both
 * branches were translated first: the one never taken is still checked.
 * A taken branch that ends in a return, break or continue keeps its `if`:
 * the statements after it would otherwise be code that never runs. */
static void prune_constant_if(vfe_ctx *c, vir_op *iff) {
  vir_op *k_op = iff->opnd[0]->def;
  if (!k_op || k_op->code != VIR_OP_CONST)
    return;
  vir_region *taken = &iff->regions[k_op->attr.lit.b ? 0 : 1];
  if (taken->last && (vir_op_infos[taken->last->code].flags & VIR_F_TERM))
    return;
  vir_region_splice(iff->parent, iff, taken);
  vir_op_unlink(iff);
  if (!vp_ptrvec_push(&c->arena, &c->pruned, k_op))
    longjmp(c->oom, 1);
}

static void stmt_if(vfe_ctx *c, const vfe_node *s) {
  vir_value *cond = vfe_expr_cond(c, vfe_get(s, "test"));
  vfe_persistent_if(c, s, cond);
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
  prune_constant_if(c, iff);
}

/* for NAME in range(stop) | range(start, stop[, step]) */
/* Whether a for loop over range(lo, hi, step) of type t, constant hi, steps
 * its variable past the type's end after its last value (the loop then
 * runs on): exactly for a constant lo, else for the last value hi - 1
 * (hi + 1 counting down) that any start could reach. */
static bool range_wraps(const vir_type *t, vfe_val lo, int64_t hi, int64_t step) {
  unsigned bits = vir_ty_scalar_of(t)->bits;
  bool is_signed = vir_ty_is_signed(t);
  __int128 max = is_signed ? ((__int128)1 << (bits - 1)) - 1 : ((__int128)1 << bits) - 1;
  __int128 min = is_signed ? -((__int128)1 << (bits - 1)) : 0;
  __int128 h = hi, st = step, last;
  if (h > max || h < min)
    return false; /* a stop that does not fit: the coercion says so */
  if (lo.kind == VFE_V_INT && !lo.big) {
    __int128 l = lo.i;
    if (st > 0 ? l >= h : l <= h)
      return false; /* no iteration */
    last = l + ((h - l + (st > 0 ? -1 : 1)) / st) * st;
  } else {
    last = st > 0 ? h - 1 : h + 1;
  }
  return st > 0 ? last + st > max : last + st < min;
}

static void stmt_for(vfe_ctx *c, const vfe_node *s) {
  const vfe_node *target = vfe_get(s, "target"), *iter = vfe_get(s, "iter");
  if (vfe_static_for(c, s)) /* unrolled at compile time (static_loops.c) */
    return;
  uint32_t n, nk, nelse;
  vfe_get_list(s, "orelse", &nelse);
  if (nelse) {
    vfe_err(c, s, "for ... else is not supported");
    return;
  }
  if (vfe_persistent_for(c, s))
    return;
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
      lo = vfe_value_of(vfe_use(c, lon, lo));
  }
  hi = vfe_expr(c, hin);
  if (hi.kind == VFE_V_PLACE || hi.kind == VFE_V_IDVEC)
    hi = vfe_value_of(vfe_use(c, hin, hi));
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
  vir_type *t = lov && hiv ? vfe_unify(c, iter, lov->type, hiv->type, VFE_WHAT("range()"))
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
  if (hi.kind == VFE_V_INT && !hi.big && !step.big && range_wraps(t, lo, hi.i, step.i)) {
    /* the C loop `j += step` would wrap past the type's end and run on */
    vfe_err(c, hin, "range() stop %lld with step %lld wraps the %s loop variable past its %s",
            (long long)hi.i, (long long)step.i, vfe_tyname(c, t), down ? "minimum" : "maximum");
    vfe_hint(c, "keep the stop at least |step| - 1 inside the type's range, or use a wider type");
    return;
  }
  vfe_set_loc(c, iter);
  vir_value *ops[3];
  ops[0] = lov ? vfe_coerce(c, lon, vfe_value_of(lov), t, VFE_WHAT("range() start")) : vfe_coerce(c, lon, lo, t, VFE_WHAT("range() start"));
  ops[1] = hiv ? vfe_coerce(c, hin, vfe_value_of(hiv), t, VFE_WHAT("range() stop")) : vfe_coerce(c, hin, hi, t, VFE_WHAT("range() stop"));
  ops[2] = vfe_coerce(c, stn, step, t, VFE_WHAT("range() step"));
  if (!ops[0] || !ops[1] || !ops[2])
    return;
  vfe_var *old = vfe_map_get(&c->fn->vars, id);
  if (old && old->bind != VFE_BIND_DEAD && old->bind != VFE_BIND_POISON) {
    vfe_err(c, target, "loop variable '%s' is also a variable outside the loop", id);
    vfe_hint(c, "give the loop its own name");
    return;
  }
  uintptr_t flags = (uintptr_t)vfe_map_get(&c->fn->assigns, id);
  if ((flags & VFE_A_COUNT) > 1 && (flags & ~(uintptr_t)(VFE_A_COUNT | VFE_A_NESTED)) != VFE_A_LOOP) {
    /* assigned somewhere besides for-targets */
    vfe_err(c, target, "loop variable '%s' is assigned elsewhere in the function", id);
    vfe_hint(c, "give the loop its own name");
    vfe_bind_name(c, id, VFE_BIND_POISON, NULL, target); /* its other uses stay quiet */
    return;
  }
  vfe_set_loc(c, s);
  vir_op *loop = vfe_build(c, VIR_OP_FOR, NULL, 3, ops);
  vir_value *iv = loop->regions[0].args[0];
  vfe_name_value(c, iv, id);
  vfe_var *v = vfe_bind_name(c, id, VFE_BIND_LOOP, t, target);
  v->value = iv;
  uint32_t nb;
  vfe_node **body = vfe_get_list(s, "body", &nb);
  c->fn->loop_depth++;
  vfe_persistent_loop_body(c, s, &loop->regions[0]);
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
    vfe_persistent_loop_body(c, s, &loop->regions[0]);
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
    vfe_persistent_loop_body(c, s, &loop->regions[1]);
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
  if (fn->self_local) { /* a method that changes self returns the new self (methods.c) */
    if (v) {
      vfe_err(c, v, "method '%s' changes self, so it cannot also return a value", fn->helper->name);
      vfe_hint(c, "return the new values instead of assigning self's fields, or write them to a buffer");
      return;
    }
    fn->ret = vir_ty_void(c->m);
    vir_value *sv = vfe_local_load(c, fn->self_local);
    vfe_build(c, VIR_OP_RETURN, NULL, 1, &sv);
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
  vfe_val rv = vfe_expr(c, v);
  vfe_set_loc(c, v);
  if (rv.kind == VFE_V_TUPLE) /* return a, b (tuples.c) */
    x = vfe_tuple_return(c, v, rv);
  else if (fn->ret)
    x = vfe_coerce(c, v, rv, fn->ret, VFE_WHAT("return value of '%s'", fn->helper->name));
  else
    x = vfe_rvalue(c, v, rv);
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
  case VFE_AST_Assign: vfe_stmt_assign(c, s); break;
  case VFE_AST_AnnAssign: vfe_stmt_annassign(c, s); break;
  case VFE_AST_AugAssign: vfe_stmt_augassign(c, s); break;
  case VFE_AST_If: stmt_if(c, s); break;
  case VFE_AST_For: stmt_for(c, s); break;
  case VFE_AST_While: stmt_while(c, s); break;
  case VFE_AST_Return: stmt_return(c, s); break;
  case VFE_AST_Assert: stmt_assert(c, s); break;
  case VFE_AST_Pass: break;
  case VFE_AST_Break:
  case VFE_AST_Continue:
    if (!c->fn->loop_depth && c->fn->static_base != 1) {
      vfe_err(c, s, "'%s' outside a loop", vfe_ast_of(s) == VFE_AST_Break ? "break" : "continue");
      break;
    }
    if (c->fn->static_base == c->fn->loop_depth + 1) { /* static_loops.c */
      vfe_err(c, s, "'%s' in a loop unrolled at compile time", vfe_ast_of(s) == VFE_AST_Break ? "break" : "continue");
      vfe_hint(c, "the unrolled copies are not a loop; guard the rest of the body with if");
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
      if (kind && strcmp(kind, "Ellipsis") == 0)
        break; /* `...`: Python's placeholder statement, as `pass` */
    }
    vfe_val v = vfe_expr(c, e);
    if (v.kind != VFE_V_ERR && vfe_ast_of(e) != VFE_AST_Call)
      vfe_warn(c, s, "this expression has no effect");
    break;
  }
  case VFE_AST_FunctionDef:
    if (!vfe_memsock_def(c, s)) /* a fire body (memsock.c) */
      unsupported_stmt(c, s);
    break;
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
