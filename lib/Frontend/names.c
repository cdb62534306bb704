/* names.c - what a Python name means, and module-level constants.
 *
 * A name is looked up, in order: in the function (its variables,
 * parameters, loop variables, shared arrays); as a name the function
 * assigns later (then it is read before assignment: an error, as Python's
 * UnboundLocalError); at module level (constants, struct classes, helper
 * functions, the `vulpy` import); `pc` for the push block; then the
 * built-ins, reachable bare or through the vulpy prefix.
 *
 * Module constants are evaluated once, by folding: literals, other
 * constants, unary and binary operators, and casts such as vp.uint32(8).
 * A constant with a type (annotated, or cast) is a typed VIR constant; one
 * without stays a literal that adapts to its context like any literal, and
 * is printed by name where its default type (int32, float32) is the type
 * the context wants.
 */
#include <string.h>

#include "fe.h"

static vfe_val const_eval(vfe_ctx *c, const vfe_node *e, vir_type **type);
static bool ensure(vfe_ctx *c, const vfe_node *at, vfe_global *g, const char *name);

static vfe_val lookup_const(vfe_ctx *c, const vfe_node *at, const char *id, vir_type **type) {
  vfe_global *g = id ? vfe_map_get(&c->globals, id) : NULL;
  if (!g || g->kind != VFE_G_CONST) {
    vfe_err(c, at, "'%s' is not a module-level constant", id);
    return (vfe_val){0};
  }
  if (!ensure(c, at, g, id) || g->value.kind == VFE_V_ERR)
    return (vfe_val){0};
  if (g->typed)
    *type = g->sym->type; /* a typed constant in another constant: its value */
  vfe_val lit = g->value;
  lit.gsym = NULL;
  return lit;
}

/* const := literal | NAME | unary const | const binop const | TYPE(const) */
static vfe_val const_eval(vfe_ctx *c, const vfe_node *e, vir_type **type) {
  switch (vfe_ast_of(e)) {
  case VFE_AST_Constant: return vfe_constant(c, e);
  case VFE_AST_Name: return lookup_const(c, e, vfe_get_str(e, "id"), type);
  case VFE_AST_Tuple: {
    /* W = (0.25, 0.5, 0.25): a tuple of constants, for unrolled loops and
     * W[k] (static_loops.c, tuples.c); no VIR declaration of its own */
    uint32_t n;
    vfe_node **elts = vfe_get_list(e, "elts", &n);
    vfe_val t = {.kind = VFE_V_TUPLE, .nelems = n};
    t.elems = vfe_alloc(c, (n ? n : 1) * sizeof *t.elems);
    for (uint32_t i = 0; i < n; i++) {
      vir_type *et = NULL;
      t.elems[i] = const_eval(c, elts[i], &et);
      if (t.elems[i].kind == VFE_V_ERR)
        return t.elems[i];
    }
    return t;
  }
  case VFE_AST_UnaryOp: {
    vfe_val v = const_eval(c, vfe_get(e, "operand"), type);
    if (v.kind != VFE_V_INT && v.kind != VFE_V_FLOAT && v.kind != VFE_V_BOOL)
      return v;
    /* -x as 0 - x, ~x as -x - 1, not x: the same folding as expressions */
    vfe_ast op = vfe_ast_of(vfe_get(e, "op"));
    vfe_val zero = {.kind = v.kind == VFE_V_FLOAT ? VFE_V_FLOAT : VFE_V_INT};
    vfe_val one = {.kind = VFE_V_INT, .i = 1};
    if (op == VFE_AST_Not)
      return (vfe_val){.kind = VFE_V_BOOL,
                       .b = v.kind == VFE_V_BOOL ? !v.b : v.kind == VFE_V_INT ? v.i == 0 : v.f == 0};
    if (op == VFE_AST_UAdd)
      return v;
    vfe_val neg = vfe_binop(c, e, VFE_AST_Sub, zero, NULL, v, NULL);
    if (op == VFE_AST_Invert)
      return v.kind == VFE_V_INT ? vfe_binop(c, e, VFE_AST_Sub, neg, NULL, one, NULL)
                                 : vfe_err(c, e, "~ needs an integer, not %s", v.kind == VFE_V_BOOL ? "a bool" : "a float");
    return neg;
  }
  case VFE_AST_BinOp: {
    vir_type *ta = NULL, *tb = NULL;
    vfe_val a = const_eval(c, vfe_get(e, "left"), &ta);
    vfe_val b = const_eval(c, vfe_get(e, "right"), &tb);
    if (a.kind == VFE_V_ERR || b.kind == VFE_V_ERR)
      return (vfe_val){0};
    if (ta && tb && ta != tb)
      return vfe_err(c, e, "constant expression mixes %s and %s", vfe_tyname(c, ta), vfe_tyname(c, tb));
    *type = ta ? ta : tb;
    return vfe_binop(c, e, vfe_ast_of(vfe_get(e, "op")), a, NULL, b, NULL);
  }
  case VFE_AST_Call: {
    uint32_t n, nk;
    vfe_node **args = vfe_get_list(e, "args", &n);
    vfe_get_list(e, "keywords", &nk);
    const vfe_node *f = vfe_get(e, "func");
    const char *id = vfe_ast_of(f) == VFE_AST_Name ? vfe_get_str(f, "id")
                     : vfe_ast_of(f) == VFE_AST_Attribute ? vfe_get_str(f, "attr") : NULL;
    const vfe_builtin *bi = id ? vfe_builtin_find(id) : NULL;
    if (bi && bi->kind == VFE_B_TYPE && bi->n == 1 && !bi->cols && n == 1 && nk == 0) {
      vir_type *inner = NULL;
      vfe_val v = const_eval(c, args[0], &inner);
      if (v.kind == VFE_V_ERR)
        return v;
      vir_type *t = vfe_builtin_type(c, bi);
      if (v.kind == VFE_V_FLOAT && t->kind != VIR_TY_FLOAT) {
        /* int(2.5) truncates, as in Python */
        v.kind = VFE_V_INT;
        v.big = false;
        v.i = (int64_t)v.f;
      } else if (v.kind == VFE_V_INT && t->kind == VIR_TY_FLOAT) {
        double f = v.big ? (double)v.u : (double)v.i;
        v = (vfe_val){.kind = VFE_V_FLOAT, .f = f};
      }
      if (!vfe_literal_fits(&v, t))
        return vfe_err(c, args[0], "the constant does not fit %s", vfe_tyname(c, t));
      *type = t;
      return v;
    }
    break;
  }
  default: break;
  }
  vfe_err(c, e, "module-level '%s' is not a compile-time constant", c->const_name ? c->const_name : "?");
  vfe_hint(c, "kernels read module-level numbers (literals and arithmetic on them); pass other data in a buffer");
  return (vfe_val){0};
}

/* Evaluates a constant's definition: a literal, its type in *type when it
 * has one, and its VIR declaration. */
static vfe_val eval_global(vfe_ctx *c, vfe_global *g, const char *name, vir_type **type) {
  vir_type *t = NULL;
  vfe_val v = const_eval(c, g->node, &t);
  if (v.kind == VFE_V_ERR)
    return v;
  if (v.kind == VFE_V_TUPLE) {
    if (g->ann)
      return vfe_err(c, g->ann, "a module-level tuple takes its elements' types; leave out the annotation");
    *type = NULL;
    return v;
  }
  if (v.kind != VFE_V_INT && v.kind != VFE_V_FLOAT && v.kind != VFE_V_BOOL)
    return vfe_err(c, g->node, "module-level '%s' is not a number", name);
  if (g->ann) {
    vir_type *at = vfe_type_of_annotation(c, g->ann);
    if (!at)
      return (vfe_val){0};
    if (!vir_ty_is_scalar(at))
      return vfe_err(c, g->ann, "a module constant must be a scalar, not %s", vfe_tyname(c, at));
    if (t && t != at)
      return vfe_err(c, g->node, "constant '%s' is %s but annotated %s", name, vfe_tyname(c, t),
                     vfe_tyname(c, at));
    t = at;
  }
  *type = t;
  if (!t) {
    /* no type of its own: declared with the default one, used as a literal */
    t = v.kind == VFE_V_BOOL                             ? vir_ty_bool(c->m)
        : v.kind == VFE_V_FLOAT                          ? vir_ty_float(c->m, 32)
        : vfe_literal_fits(&v, vir_ty_int(c->m, 32))     ? vir_ty_int(c->m, 32)
        : vfe_literal_fits(&v, vir_ty_int(c->m, 64))     ? vir_ty_int(c->m, 64)
                                                         : vir_ty_uint(c->m, 64);
    if (v.kind == VFE_V_FLOAT && !vfe_literal_fits(&v, t))
      t = vir_ty_float(c->m, 64);
  }
  if (!vfe_literal_fits(&v, t))
    return vfe_err(c, g->node, "constant '%s' does not fit %s", name, vfe_tyname(c, t));
  if (t->kind == VIR_TY_FLOAT && v.kind == VFE_V_INT)
    v = (vfe_val){.kind = VFE_V_FLOAT, .f = v.big ? (double)v.u : (double)v.i};
  vir_literal lit;
  if (v.kind == VFE_V_FLOAT)
    lit.f = v.f;
  else if (v.kind == VFE_V_BOOL)
    lit.b = v.b;
  else
    lit.i = v.i; /* the same bits as v.u */
  g->sym = vir_add_const(c->m, vfe_mstrdup(c, name), t, lit, vfe_loc(c, g->node));
  if (!g->sym)
    longjmp(c->oom, 1);
  if (!*type)
    v.gsym = g->sym;
  return v;
}

/* Evaluates a constant once; false (with an error) for a cycle. */
static bool ensure(vfe_ctx *c, const vfe_node *at, vfe_global *g, const char *name) {
  if (g->evaluating) {
    vfe_err(c, at, "constant '%s' is defined in terms of itself", name);
    return false;
  }
  if (!g->evaluated) {
    g->evaluating = true;
    vp_loc saved = c->b.loc;
    vfe_fn *fn = c->fn;
    c->fn = NULL; /* a constant sees module names only */
    vir_type *t = NULL;
    const char *outer_name = c->const_name;
    c->const_name = name;
    g->value = eval_global(c, g, name, &t);
    c->const_name = outer_name;
    g->typed = t != NULL;
    c->fn = fn;
    c->b.loc = saved;
    g->evaluating = false;
    g->evaluated = true;
  }
  return true;
}

bool vfe_module_int(vfe_ctx *c, const vfe_node *e, int64_t *out) {
  *out = -1;
  if (vfe_ast_of(e) != VFE_AST_Name)
    return true;
  vfe_fn *fn = c->fn;
  c->fn = NULL; /* module names only */
  vir_type *t = NULL;
  const char *outer_name = c->const_name;
  c->const_name = vfe_get_str(e, "id");
  vfe_val v = const_eval(c, e, &t);
  c->const_name = outer_name;
  c->fn = fn;
  if (v.kind == VFE_V_ERR)
    return false;
  if (v.kind == VFE_V_INT && !v.big)
    *out = v.i;
  return true;
}

vfe_val vfe_global_const(vfe_ctx *c, const vfe_node *at, vfe_global *g, const char *name) {
  if (!ensure(c, at, g, name))
    return (vfe_val){0};
  if (g->value.kind == VFE_V_ERR || !g->typed)
    return g->value;
  if (!c->fn)
    return vfe_err(c, at, "internal: typed constant outside a function");
  /* a typed constant: read by name */
  vfe_set_loc(c, at);
  vir_op *op = vfe_build(c, VIR_OP_GCONST, g->sym->type, 0, NULL);
  op->attr.sym = g->sym;
  return (vfe_val){.kind = VFE_V_VAL, .v = vir_result(op), .type = g->sym->type};
}

/* ---------------------------------------------------------------- names */

vfe_val vfe_name(vfe_ctx *c, const vfe_node *n, const char *id) {
  vfe_fn *fn = c->fn;
  if (fn) {
    vfe_var *v = vfe_map_get(&fn->vars, id);
    if (v) {
      vfe_val r = {0};
      switch (v->bind) {
      case VFE_BIND_LOCAL:
        r.kind = VFE_V_PLACE;
        r.place = (vfe_place){.root = VFE_R_LOCAL, .sym = v->local, .type = v->type};
        return r;
      case VFE_BIND_SSA:
      case VFE_BIND_LOOP: return (vfe_val){.kind = VFE_V_VAL, .v = v->value, .type = v->type};
      case VFE_BIND_ARRAY: return (vfe_val){.kind = VFE_V_ARRAY, .arr = v->arr};
      case VFE_BIND_VALUE: return *v->val; /* an unrolled loop's variable, a tuple */
      case VFE_BIND_DEAD:
        vfe_err(c, n, "'%s' is a loop variable (line %u); it has no value after its loop", id, v->line);
        vfe_hint(c, "copy it to a variable inside the loop if you need it afterwards");
        return r;
      case VFE_BIND_PUSH:
        r.kind = VFE_V_PLACE;
        r.place = (vfe_place){.root = VFE_R_PUSH, .npath = 1, .sym = c->push, .type = v->type};
        r.place.path[0] = (uint8_t)v->field;
        return r;
      default: return r;
      }
    }
    /* only whole assignments make a name the function's own; pc.N = 1 or
     * vp.x = 1 change a part (VFE_A_MUT) and are reported where they are */
    if ((uintptr_t)vfe_map_get(&fn->assigns, id) & VFE_A_COUNT) {
      vfe_err(c, n, "'%s' is read before it is assigned", id);
      vfe_hint(c, "assign it first; a name assigned anywhere in a function is that function's variable");
      /* once per name: later reads until its assignment stay quiet */
      vfe_bind_name(c, id, VFE_BIND_POISON, NULL, n);
      return (vfe_val){0};
    }
  }
  vfe_global *g = vfe_map_get(&c->globals, id);
  if (g) {
    switch (g->kind) {
    case VFE_G_CONST: return vfe_global_const(c, n, g, id);
    case VFE_G_CLASS: {
      vir_struct *st = vfe_declare_class(c, g, id);
      return st ? (vfe_val){.kind = VFE_V_CLASS, .st = st} : (vfe_val){0};
    }
    case VFE_G_FUNC: return (vfe_val){.kind = VFE_V_FUNC, .helper = g->helper};
    default: {
      if (vfe_ast_of(g->node) == VFE_AST_AsyncFunctionDef) {
        vfe_err(c, n, "'%s' is an async function; kernels have no coroutines", id);
        vfe_hint(c, "define it with def: a helper function");
        return (vfe_val){0};
      }
      const char *kind = vfe_ast_of(g->node) == VFE_AST_Constant ? vfe_get_str(g->node, "kind") : NULL;
      if (vfe_ast_of(g->node) == VFE_AST_Import || (kind && strcmp(kind, "module") == 0)) {
        /* `import mymod` then mymod.C: the live module's attributes are
         * not constants (a @vp.kernel's dump sends {"kind": "module"}) */
        vfe_err(c, n, "'%s' is a module; kernels read attributes of vulpy and math only", id);
        vfe_hint(c, "import the number itself: from %s import NAME", id);
        return (vfe_val){0};
      }
      if (kind)
        vfe_err(c, n, "'%s' is a module-level %s, not a compile-time constant", id, kind);
      else
        vfe_err(c, n, "'%s' is a module-level value that is not a compile-time constant", id);
      vfe_hint(c, "kernels see numbers, struct classes and functions of their module; pass other data in a buffer");
      return (vfe_val){0};
    }
    }
  }
  if (vfe_map_get(&c->vp_names, id))
    return (vfe_val){.kind = VFE_V_VP};
  const vfe_builtin *bi = vfe_map_get(&c->from_names, id);
  if (bi)
    return (vfe_val){.kind = VFE_V_BUILTIN, .bi = bi};
  if (strcmp(id, "pc") == 0 && c->push)
    return (vfe_val){.kind = VFE_V_PUSH};
  if (vfe_map_get(&c->math_names, id)) /* import math (builtins.c) */
    return (vfe_val){.kind = VFE_V_MATH};
  if (strcmp(id, "print") == 0) { /* the built-in is vp.print (print.c) */
    vfe_err(c, n, "print() is not available in kernels");
    vfe_hint(c, "use vp.print(...): it prints after the dispatch");
    return (vfe_val){0};
  }
  bi = vfe_py_builtin(id);              /* Python's round, pow */
  if (!bi)
    bi = vfe_builtin_find(id);
  if (bi)
    return (vfe_val){.kind = VFE_V_BUILTIN, .bi = bi};
  if (strcmp(id, "pc") == 0) {
    vfe_err(c, n, "'pc' names the push constants, but this kernel has none");
    vfe_hint(c, "declare them in `class PushConstants:`, e.g. N: vp.uint32");
    return (vfe_val){0};
  }
  vfe_err(c, n, "unknown name '%s'", id);
  const char *sug = vfe_builtin_suggest(id);
  if (sug)
    vfe_hint(c, "did you mean '%s'?", sug);
  return (vfe_val){0};
}
