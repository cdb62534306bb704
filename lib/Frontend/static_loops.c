/* static_loops.c - for loops unrolled at compile time.
 *
 * `for x in SEQ:` where SEQ is known while compiling: a tuple (written in
 * place, a module-level tuple of numbers, a helper's returned tuple),
 * `vp.static(range(...))` with constant bounds, and `enumerate`, `zip` and
 * `reversed` of those. The frontend computes the items, then translates the
 * body once per item, in place, with the loop's target bound to the item
 * as a compile-time value (VFE_BIND_VALUE): a literal stays a literal in
 * each copy, so `w * x[i + j]` with `w` from a tuple of floats folds the
 * weight into the expression. `break` and `continue` have no loop to leave
 * in the unrolled code and are errors; a `return` works as anywhere.
 */
#include <string.h>

#include "fe.h"

enum { MAX_UNROLL = 1024 };

/* Whether a Name means the Python built-in `id` (not shadowed). */
static bool is_python_name(vfe_ctx *c, const vfe_node *f, const char *id) {
  const char *nm = vfe_ast_of(f) == VFE_AST_Name ? vfe_get_str(f, "id") : NULL;
  if (!nm || strcmp(nm, id) != 0)
    return false;
  return !(c->fn && vfe_map_get(&c->fn->vars, nm)) && !vfe_map_get(&c->globals, nm);
}

static bool is_vp_static(vfe_ctx *c, const vfe_node *f) {
  if (vfe_ast_of(f) == VFE_AST_Attribute) {
    const vfe_node *b = vfe_get(f, "value");
    const char *a = vfe_get_str(f, "attr"), *id = vfe_get_str(b, "id");
    return a && strcmp(a, "static") == 0 && vfe_ast_of(b) == VFE_AST_Name && id &&
           vfe_map_get(&c->vp_names, id);
  }
  const char *id = vfe_ast_of(f) == VFE_AST_Name ? vfe_get_str(f, "id") : NULL;
  const vfe_builtin *bi = id ? vfe_map_get(&c->from_names, id) : NULL;
  return bi && bi->fn == VFE_F_STATIC;
}

/* Whether `iter` is a compile-time sequence (decided without evaluating). */
static bool is_static(vfe_ctx *c, const vfe_node *iter) {
  switch (vfe_ast_of(iter)) {
  case VFE_AST_Tuple: return true;
  case VFE_AST_Name: {
    const char *id = vfe_get_str(iter, "id");
    vfe_var *v = id && c->fn ? vfe_map_get(&c->fn->vars, id) : NULL;
    if (v)
      return v->bind == VFE_BIND_VALUE && v->val->kind == VFE_V_TUPLE;
    vfe_global *g = id ? vfe_map_get(&c->globals, id) : NULL;
    return g && g->kind == VFE_G_CONST && vfe_ast_of(g->node) == VFE_AST_Tuple;
  }
  case VFE_AST_Call: {
    const vfe_node *f = vfe_get(iter, "func");
    return is_vp_static(c, f) || is_python_name(c, f, "enumerate") || is_python_name(c, f, "zip") ||
           is_python_name(c, f, "reversed");
  }
  default: return false;
  }
}

typedef struct seq {
  vfe_val *items;
  uint32_t n;
} seq;

static bool sequence(vfe_ctx *c, const vfe_node *e, seq *out, bool in_static);

/* range(...) inside vp.static: constant integer bounds. */
static bool static_range(vfe_ctx *c, const vfe_node *e, seq *out) {
  uint32_t n, nk;
  vfe_node **args = vfe_get_list(e, "args", &n);
  vfe_get_list(e, "keywords", &nk);
  if (n < 1 || n > 3 || nk) {
    vfe_err(c, e, "range() takes 1 to 3 positional arguments, got %u", n + nk);
    return false;
  }
  int64_t b[3] = {0, 0, 1};
  for (uint32_t i = 0; i < n; i++) {
    vfe_val v = vfe_expr(c, args[i]);
    if (v.kind == VFE_V_ERR)
      return false;
    if (v.kind != VFE_V_INT || v.big || v.i < -(1ll << 40) || v.i > (1ll << 40)) {
      vfe_err(c, args[i], "vp.static(range(...)) needs integer constants for its bounds");
      vfe_hint(c, "a loop with bounds known only at run time is an ordinary for i in range(n)");
      return false;
    }
    b[n == 1 ? 1 : i] = v.i;
  }
  if (b[2] == 0) {
    vfe_err(c, e, "range() step must be a nonzero integer constant");
    return false;
  }
  int64_t count = b[2] > 0 ? (b[1] > b[0] ? (b[1] - b[0] + b[2] - 1) / b[2] : 0)
                           : (b[0] > b[1] ? (b[0] - b[1] - b[2] - 1) / -b[2] : 0);
  if (count > MAX_UNROLL) {
    vfe_err(c, e, "vp.static(range(...)) has %lld iterations; unrolling stops at %d",
            (long long)count, MAX_UNROLL);
    vfe_hint(c, "use an ordinary for i in range(n) loop");
    return false;
  }
  out->n = (uint32_t)count;
  out->items = vfe_alloc(c, (out->n ? out->n : 1) * sizeof *out->items);
  for (uint32_t i = 0; i < out->n; i++)
    out->items[i] = (vfe_val){.kind = VFE_V_INT, .i = b[0] + (int64_t)i * b[2]};
  return true;
}

static bool sequence(vfe_ctx *c, const vfe_node *e, seq *out, bool in_static) {
  if (vfe_ast_of(e) == VFE_AST_Call) {
    const vfe_node *f = vfe_get(e, "func");
    uint32_t n, nk;
    vfe_node **args = vfe_get_list(e, "args", &n);
    vfe_get_list(e, "keywords", &nk);
    if (is_vp_static(c, f)) {
      if (nk || n != 1) {
        vfe_err(c, e, "vp.static() takes 1 argument, got %u", n + nk);
        return false;
      }
      return sequence(c, args[0], out, true);
    }
    if (in_static && is_python_name(c, f, "range"))
      return static_range(c, e, out);
    bool en = is_python_name(c, f, "enumerate"), zip = is_python_name(c, f, "zip"),
         rev = is_python_name(c, f, "reversed");
    if (en || zip || rev) {
      const char *what = en ? "enumerate" : zip ? "zip" : "reversed";
      if (nk || (en && (n < 1 || n > 2)) || (rev && n != 1) || (zip && n < 1)) {
        vfe_err(c, e, "%s() takes %s, without keywords", what,
                en ? "a sequence and an optional start" : zip ? "one or more sequences" : "one sequence");
        return false;
      }
      uint32_t nseq = en || rev ? 1 : n;
      seq *parts = vfe_alloc(c, nseq * sizeof *parts);
      uint32_t len = UINT32_MAX;
      for (uint32_t k = 0; k < nseq; k++) {
        if (!sequence(c, args[k], &parts[k], in_static))
          return false;
        len = parts[k].n < len ? parts[k].n : len; /* zip stops at the shortest */
      }
      int64_t start = 0;
      if (en && n == 2) {
        vfe_val s = vfe_expr(c, args[1]);
        if (s.kind == VFE_V_ERR)
          return false;
        if (s.kind != VFE_V_INT || s.big)
          return vfe_err(c, args[1], "enumerate()'s start must be an integer constant"), false;
        start = s.i;
      }
      out->n = len;
      out->items = vfe_alloc(c, (len ? len : 1) * sizeof *out->items);
      for (uint32_t i = 0; i < len; i++) {
        if (rev) {
          out->items[i] = parts[0].items[len - 1 - i];
          continue;
        }
        uint32_t w = en ? 2 : nseq;
        vfe_val t = {.kind = VFE_V_TUPLE, .nelems = w};
        t.elems = vfe_alloc(c, w * sizeof *t.elems);
        if (en) {
          t.elems[0] = (vfe_val){.kind = VFE_V_INT, .i = start + (int64_t)i};
          t.elems[1] = parts[0].items[i];
        } else {
          for (uint32_t k = 0; k < nseq; k++)
            t.elems[k] = parts[k].items[i];
        }
        out->items[i] = t;
      }
      return true;
    }
  }
  vfe_val v = vfe_expr(c, e);
  if (v.kind == VFE_V_ERR)
    return false;
  if (v.kind == VFE_V_TUPLE) {
    out->items = v.elems;
    out->n = v.nelems;
    return true;
  }
  vfe_err(c, e, "this is not a sequence known at compile time");
  vfe_hint(c, "unrolled loops run over a tuple, vp.static(range(N)) with constant N, enumerate(...) or zip(...)");
  return false;
}

/* Checks that a target's names may be bound by this loop. */
static bool check_target(vfe_ctx *c, const vfe_node *t) {
  if (vfe_ast_of(t) == VFE_AST_Tuple || vfe_ast_of(t) == VFE_AST_List) {
    uint32_t n;
    vfe_node **elts = vfe_get_list(t, "elts", &n);
    for (uint32_t i = 0; i < n; i++)
      if (!check_target(c, elts[i]))
        return false;
    return true;
  }
  const char *id = vfe_ast_of(t) == VFE_AST_Name ? vfe_get_str(t, "id") : NULL;
  if (!id) {
    vfe_err(c, t, "an unrolled loop's target is a name or a tuple of names");
    return false;
  }
  vfe_var *old = vfe_map_get(&c->fn->vars, id);
  if (old && old->bind != VFE_BIND_DEAD && old->bind != VFE_BIND_POISON) {
    vfe_err(c, t, "loop variable '%s' is also a variable outside the loop", id);
    vfe_hint(c, "give the loop its own name");
    return false;
  }
  uintptr_t flags = (uintptr_t)vfe_map_get(&c->fn->assigns, id);
  if ((flags & VFE_A_COUNT) > 1 && (flags & ~(uintptr_t)(VFE_A_COUNT | VFE_A_NESTED)) != VFE_A_LOOP) {
    vfe_err(c, t, "loop variable '%s' is assigned elsewhere in the function", id);
    vfe_hint(c, "give the loop its own name");
    return false;
  }
  return true;
}

static bool bind_target(vfe_ctx *c, const vfe_node *t, vfe_val v, vfe_bind bind) {
  if (vfe_ast_of(t) == VFE_AST_Tuple || vfe_ast_of(t) == VFE_AST_List) {
    uint32_t n;
    vfe_node **elts = vfe_get_list(t, "elts", &n);
    if (v.kind != VFE_V_TUPLE || v.nelems != n) {
      if (v.kind == VFE_V_TUPLE)
        vfe_err(c, t, "cannot unpack %u values into %u names", v.nelems, n);
      else
        vfe_err(c, t, "cannot unpack a single value into %u names", n);
      return false;
    }
    for (uint32_t i = 0; i < n; i++)
      if (!bind_target(c, elts[i], v.elems[i], bind))
        return false;
    return true;
  }
  vfe_var *var = vfe_bind_name(c, vfe_get_str(t, "id"), bind, v.type, t);
  var->val = vfe_alloc(c, sizeof *var->val);
  *var->val = v;
  return true;
}

static void kill_target(vfe_ctx *c, const vfe_node *t) {
  uint32_t n;
  vfe_node **elts = vfe_get_list(t, "elts", &n);
  if (vfe_ast_of(t) == VFE_AST_Name)
    vfe_bind_name(c, vfe_get_str(t, "id"), VFE_BIND_DEAD, NULL, t);
  else
    for (uint32_t i = 0; i < n; i++)
      kill_target(c, elts[i]);
}

bool vfe_static_for(vfe_ctx *c, const vfe_node *s) {
  const vfe_node *target = vfe_get(s, "target"), *iter = vfe_get(s, "iter");
  if (!is_static(c, iter))
    return false;
  uint32_t nelse, nb;
  vfe_get_list(s, "orelse", &nelse);
  vfe_node **body = vfe_get_list(s, "body", &nb);
  if (nelse) {
    vfe_err(c, s, "for ... else is not supported");
    return true;
  }
  seq items;
  if (!sequence(c, iter, &items, false) || !check_target(c, target))
    return true;
  uint32_t saved_base = c->fn->static_base;
  c->fn->static_base = c->fn->loop_depth + 1;
  for (uint32_t i = 0; i < items.n; i++) {
    uint32_t errors = c->diags->nerrors;
    if (!bind_target(c, target, items.items[i], VFE_BIND_VALUE))
      break;
    vfe_stmts(c, body, nb);
    if (c->diags->nerrors != errors || vfe_region_terminated(c))
      break; /* once is enough for each message; nothing follows a return */
  }
  c->fn->static_base = saved_base;
  /* after the loop its names are not values, as after a range loop */
  kill_target(c, target);
  return true;
}
