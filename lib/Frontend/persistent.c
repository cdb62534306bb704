/* persistent.c - the kernel language of persistent programs
 * (docs/persistent.md): `persistent=True`, vp.grid_sync(), grid-stride loops
 * `for p in vp.grid_range(n[, ny[, nz]])`, and the time loop.
 *
 * Before the body is translated, a scan of the kernel's AST finds the time
 * loops (top-level `for`/`while` loops that hold a grid_sync) and reports
 * misuse with its place: grid_sync in a kernel not declared persistent, in
 * a helper, under `if` or a nested loop (non-uniform control flow), and a
 * `return` inside a time loop. Translation then emits persistent.* ops:
 * persistent.step first in each time loop's body, persistent.grid_sync,
 * persistent.control for named control words, and grid_range as a `for`
 * from persistent.group_id * L + local_index by persistent.num_groups * L.
 * lower-persistent turns them into plain kernel VIR.
 *
 * The decorator's barrier= and nonprivate= (or the same options) choose
 * that lowering: the frontend sets the module's pipeline, which every
 * driver (vulpy-translate, the Python extension) runs before a back end.
 */
#include <stdio.h>
#include <string.h>

#include "fe.h"
#include "vulpy/passes.h"

/* Whether `e` is a call of the vulpy built-in `name` (vp.NAME(...) or a
 * bare / from-imported NAME). */
static bool is_vp_call(vfe_ctx *c, const vfe_node *e, const char *name) {
  if (vfe_ast_of(e) != VFE_AST_Call)
    return false;
  const vfe_node *f = vfe_get(e, "func");
  if (vfe_ast_of(f) == VFE_AST_Attribute) {
    const char *attr = vfe_get_str(f, "attr");
    const vfe_node *base = vfe_get(f, "value");
    const char *id = vfe_get_str(base, "id");
    return attr && strcmp(attr, name) == 0 && vfe_ast_of(base) == VFE_AST_Name && id &&
           vfe_map_get(&c->vp_names, id);
  }
  if (vfe_ast_of(f) == VFE_AST_Name) {
    const char *id = vfe_get_str(f, "id");
    const vfe_builtin *bi = id ? vfe_map_get(&c->from_names, id) : NULL;
    return bi && strcmp(bi->name, name) == 0;
  }
  return false;
}

/* The first grid_sync call anywhere under `n` (statements and
 * expressions), or NULL. */
static const vfe_node *find_sync(vfe_ctx *c, const vfe_node *n) {
  if (!n || (n->kind != VFE_J_OBJ && n->kind != VFE_J_LIST))
    return NULL;
  if (n->kind == VFE_J_OBJ && is_vp_call(c, n, "grid_sync"))
    return n;
  for (uint32_t i = 0; i < n->len; i++) {
    const vfe_node *r = find_sync(c, n->items[i]);
    if (r)
      return r;
  }
  return NULL;
}

static const vfe_node *find_return(const vfe_node *n) {
  if (!n || (n->kind != VFE_J_OBJ && n->kind != VFE_J_LIST))
    return NULL;
  if (vfe_ast_of(n) == VFE_AST_Return)
    return n;
  for (uint32_t i = 0; i < n->len; i++) {
    const vfe_node *r = find_return(n->items[i]);
    if (r)
      return r;
  }
  return NULL;
}

static void non_uniform(vfe_ctx *c, const vfe_node *at) {
  vfe_err(c, at, "vp.grid_sync() under non-uniform control flow");
  vfe_hint(c, "every invocation must reach a grid sync: call it as a statement of the kernel "
              "body or of its time loop's body, not under if, a nested loop or an expression "
              "(an `if` on a compile-time constant is fine)");
}

/* Reports every grid_sync in `body` that is not a statement of its own
 * there (the allowed places are the kernel body and a time loop's body;
 * an `if` holding one waits for its condition, vfe_persistent_if). */
static void check_syncs(vfe_ctx *c, vfe_node **body, uint32_t n, bool time_loop_ok) {
  for (uint32_t i = 0; i < n; i++) {
    const vfe_node *s = body[i];
    vfe_ast k = vfe_ast_of(s);
    if (k == VFE_AST_Expr && is_vp_call(c, vfe_get(s, "value"), "grid_sync"))
      continue;
    bool loop = k == VFE_AST_For || k == VFE_AST_While;
    if (loop && time_loop_ok && find_sync(c, s)) {
      const vfe_node *iter = vfe_get(s, "iter");
      if (k == VFE_AST_For && is_vp_call(c, iter, "grid_range")) {
        vfe_err(c, find_sync(c, s), "vp.grid_sync() inside a grid_range loop: not every invocation "
                                    "reaches it the same number of times");
        vfe_hint(c, "end the grid_range loop first, then call vp.grid_sync()");
        continue;
      }
      if (c->ntime_loops == VFE_MAX_TIME_LOOPS) {
        vfe_err(c, s, "a persistent kernel has at most %d time loops (loops with a vp.grid_sync() "
                      "in their body)", VFE_MAX_TIME_LOOPS);
        vfe_hint(c, "join loops that run the same number of steps into one");
        continue;
      }
      c->time_loops[c->ntime_loops++] = s;
      const vfe_node *r = find_return(s);
      if (r) {
        vfe_err(c, r, "return inside a persistent kernel's time loop");
        vfe_hint(c, "leave the loop with break (every invocation must leave together) or let the "
                    "host stop it (handle.stop())");
      }
      uint32_t nb;
      vfe_node **lb = vfe_get_list(s, "body", &nb);
      check_syncs(c, lb, nb, false);
      lb = vfe_get_list(s, "orelse", &nb);
      check_syncs(c, lb, nb, false);
      continue;
    }
    const vfe_node *bad = find_sync(c, s);
    if (bad && k == VFE_AST_If && c->nsync_ifs < VFE_MAX_TIME_LOOPS) {
      /* decided when its condition is translated: a compile-time constant
       * (`if SYNC:`) puts the taken branch's statements in its place */
      c->sync_if_loop_ok[c->nsync_ifs] = time_loop_ok;
      c->sync_ifs[c->nsync_ifs++] = s;
      continue;
    }
    if (bad)
      non_uniform(c, bad);
  }
}

/* Called by stmt_if with the translated condition of `s`: an `if` holding a
 * grid_sync is right only when the condition is a compile-time constant
 * (the frontend keeps just the taken branch); its statements are then
 * checked as if they stood in the if's place. */
void vfe_persistent_if(vfe_ctx *c, const vfe_node *s, const vir_value *cond) {
  for (uint32_t i = 0; i < c->nsync_ifs; i++) {
    if (c->sync_ifs[i] != s)
      continue;
    bool loop_ok = c->sync_if_loop_ok[i];
    c->sync_ifs[i] = NULL; /* checked once */
    if (!cond)
      return; /* the condition's own error says it all */
    if (!cond->def || cond->def->code != VIR_OP_CONST) {
      non_uniform(c, find_sync(c, s));
      return;
    }
    uint32_t n;
    vfe_node **taken = vfe_get_list(s, cond->def->attr.lit.b ? "body" : "orelse", &n);
    check_syncs(c, taken, n, loop_ok);
    return;
  }
}

/* The value of keyword `name`: the document's option (a JSON value), else
 * the decorator's keyword (its constant's value, or the expression itself,
 * which no kind check accepts); `at` gets the node an error points at. */
static const vfe_node *keyword(vfe_ctx *c, const vfe_node *def, const char *name,
                               const vfe_node **at) {
  const vfe_node *opt = vfe_get(vfe_get(c->doc, "options"), name);
  *at = def;
  if (opt)
    return opt;
  uint32_t nd, nk;
  vfe_node **decos = vfe_get_list(def, "decorator_list", &nd);
  for (uint32_t d = 0; d < nd; d++) {
    vfe_node **kws = vfe_get_list(decos[d], "keywords", &nk);
    for (uint32_t k = 0; k < nk; k++) {
      const char *arg = vfe_get_str(kws[k], "arg");
      const vfe_node *v = vfe_get(kws[k], "value");
      if (arg && strcmp(arg, name) == 0) {
        *at = v;
        return vfe_ast_of(v) == VFE_AST_Constant ? vfe_get(v, "value") : v;
      }
    }
  }
  return NULL;
}

/* The lowering pass of grid barrier `name` ("lean" is the plain
 * lower-persistent), or NULL when no pass of the table is one. */
static const char *barrier_pass(vfe_ctx *c, const char *name) {
  if (strcmp(name, "lean") == 0)
    return "lower-persistent";
  const char *pass = vp_arena_printf(&c->arena, "lower-persistent-%s", name);
  return pass && strcmp(name, "stepped") != 0 && vir_pass_lookup(pass) ? pass : NULL;
}

/* barrier="NAME" and nonprivate=True|False: the module's pipeline (the
 * default one when neither is given). */
static void choose_pipeline(vfe_ctx *c, const vfe_node *def) {
  const vfe_node *at_b, *at_n;
  const vfe_node *b = keyword(c, def, "barrier", &at_b);
  const vfe_node *np = keyword(c, def, "nonprivate", &at_n);
  const char *pass = "lower-persistent-flip";
  if (b && b->kind != VFE_J_NULL && (b->kind != VFE_J_STR || !(pass = barrier_pass(c, b->s)))) {
    char names[512] = "'lean'";
    size_t n, len = strlen(names);
    const vir_pass_info *t = vir_pass_table(&n);
    for (size_t i = 0; i < n && len < sizeof names; i++)
      if (strncmp(t[i].name, "lower-persistent-", 17) == 0 && strcmp(t[i].name + 17, "stepped"))
        len += (size_t)snprintf(names + len, sizeof names - len, ", '%s'", t[i].name + 17);
    vfe_err(c, at_b, "barrier= must be one of %s", names);
    vfe_hint(c, "the grid barrier of a persistent kernel (docs/persistent.md, \"Barrier "
                "variants\")");
    pass = NULL;
  }
  if (np && np->kind != VFE_J_BOOL) {
    vfe_err(c, at_n, "nonprivate= must be True or False");
    return;
  }
  if (pass)
    c->m->pipeline = vp_arena_printf(&c->m->arena, "lower-memsock,%s%s",
                                   np && np->b ? "persistent-nonprivate," : "", pass);
}

void vfe_persistent_setup(vfe_ctx *c, const vfe_node *def) {
  choose_pipeline(c, def);
  /* persistent=True: the decorator keyword (.vul.py) or the options */
  const vfe_node *opt = vfe_get(vfe_get(c->doc, "options"), "persistent");
  if (opt && opt->kind == VFE_J_BOOL)
    c->persistent = opt->b;
  uint32_t nd;
  vfe_node **decos = vfe_get_list(def, "decorator_list", &nd);
  for (uint32_t d = 0; !opt && d < nd; d++) {
    uint32_t nk;
    vfe_node **kws = vfe_get_list(decos[d], "keywords", &nk);
    for (uint32_t k = 0; k < nk; k++) {
      const char *arg = vfe_get_str(kws[k], "arg");
      const vfe_node *v = vfe_get(kws[k], "value");
      const vfe_node *val = vfe_get(v, "value");
      if (!arg || strcmp(arg, "persistent") != 0)
        continue;
      if (vfe_ast_of(v) != VFE_AST_Constant || !val || val->kind != VFE_J_BOOL)
        vfe_err(c, v, "persistent must be True or False");
      else
        c->persistent = val->b;
    }
  }
  uint32_t n;
  vfe_node **body = vfe_get_list(def, "body", &n);
  if (!c->persistent) {
    const vfe_node *s = find_sync(c, vfe_get(def, "body"));
    if (s) {
      vfe_err(c, s, "vp.grid_sync() in a kernel that is not persistent");
      vfe_hint(c, "declare it: @vp.kernel(persistent=True); a grid sync needs every workgroup "
                  "resident, which only a persistent launch arranges");
    }
    return;
  }
  check_syncs(c, body, n, true);
}

void vfe_persistent_loop_body(vfe_ctx *c, const vfe_node *s, vir_region *body) {
  for (uint32_t i = 0; i < c->ntime_loops; i++)
    if (c->time_loops[i] == s && c->fn && c->fn->is_kernel) {
      vir_builder save = c->b;
      vir_builder_at_end(&c->b, body);
      vfe_set_loc(c, s);
      vfe_build(c, VIR_OP_PERSIST_STEP, NULL, 0, NULL);
      c->b = save;
      return;
    }
}

vfe_val vfe_persistent_call(vfe_ctx *c, const vfe_node *call, const vfe_builtin *bi) {
  uint32_t n, nk;
  vfe_get_list(call, "args", &n);
  vfe_get_list(call, "keywords", &nk);
  if (bi->fn == VFE_F_GRID_RANGE) {
    vfe_err(c, call, "vp.grid_range() makes a loop: write `for p in vp.grid_range(n):`");
    return (vfe_val){0};
  }
  if (!vfe_arity(c, call, bi->name, n + nk, 0, 0))
    return (vfe_val){0};
  if (!c->fn || !c->fn->is_kernel) {
    vfe_err(c, call, "vp.grid_sync() in a helper function");
    vfe_hint(c, "call it in the persistent kernel itself, where the compiler can check that every "
                "invocation reaches it");
    return (vfe_val){0};
  }
  vfe_build(c, VIR_OP_PERSIST_GRID_SYNC, NULL, 0, NULL);
  return (vfe_val){.kind = VFE_V_NONE};
}

/* for p in vp.grid_range(n) / for x, y in vp.grid_range(nx, ny) / 3-D:
 * one grid-stride loop over the n (nx*ny, nx*ny*nz) points, x fastest. */
bool vfe_persistent_for(vfe_ctx *c, const vfe_node *s) {
  const vfe_node *iter = vfe_get(s, "iter"), *target = vfe_get(s, "target");
  if (!is_vp_call(c, iter, "grid_range"))
    return false;
  uint32_t n, nk, nt = 1;
  vfe_node **args = vfe_get_list(iter, "args", &n);
  vfe_get_list(iter, "keywords", &nk);
  if (n < 1 || n > 3 || nk) {
    vfe_err(c, iter, "vp.grid_range() takes 1 to 3 extents (nx[, ny[, nz]]), got %u", n + nk);
    return true;
  }
  vfe_node *one[1] = {(vfe_node *)target};
  vfe_node **names = one;
  if (vfe_ast_of(target) == VFE_AST_Tuple || vfe_ast_of(target) == VFE_AST_List)
    names = vfe_get_list(target, "elts", &nt);
  if (nt != n) {
    vfe_err(c, target, "vp.grid_range() with %u extent%s yields %u index%s; the loop names %u",
            n, n == 1 ? "" : "s", n, n == 1 ? "" : "es", nt);
    return true;
  }
  const char *ids[3];
  for (uint32_t i = 0; i < nt; i++) {
    ids[i] = vfe_ast_of(names[i]) == VFE_AST_Name ? vfe_get_str(names[i], "id") : NULL;
    if (!ids[i]) {
      vfe_err(c, names[i], "a grid_range loop's targets are names");
      return true;
    }
    vfe_var *old = vfe_map_get(&c->fn->vars, ids[i]);
    if (old && old->bind != VFE_BIND_DEAD && old->bind != VFE_BIND_POISON) {
      vfe_err(c, names[i], "loop variable '%s' is also a variable outside the loop", ids[i]);
      vfe_hint(c, "give the loop its own name");
      return true;
    }
  }
  vir_type *u32 = vir_ty_uint(c->m, 32);
  vir_value *ext[3], *total = NULL;
  for (uint32_t i = 0; i < n; i++) {
    ext[i] = vfe_expr_as(c, args[i], u32, VFE_WHAT("vp.grid_range() extent %s", i == 0 ? "nx" : i == 1 ? "ny" : "nz"));
    if (!ext[i])
      return true;
  }
  vfe_set_loc(c, iter);
  total = ext[0];
  for (uint32_t i = 1; i < n; i++)
    total = vfe_build2(c, VIR_OP_MUL, u32, total, ext[i]);
  const uint32_t *ls = c->fn->f->local_size;
  vir_value *lsz = vfe_const_int(c, u32, (int64_t)ls[0] * ls[1] * ls[2]);
  vir_value *gid = vir_result(vfe_build(c, VIR_OP_PERSIST_GROUP_ID, u32, 0, NULL));
  vir_value *ng = vir_result(vfe_build(c, VIR_OP_PERSIST_NUM_GROUPS, u32, 0, NULL));
  vir_value *li = vir_result(vfe_build(c, VIR_OP_LOCAL_INDEX, u32, 0, NULL));
  vir_value *ops[3] = {vfe_build2(c, VIR_OP_ADD, u32, vfe_build2(c, VIR_OP_MUL, u32, gid, lsz), li),
                       total, vfe_build2(c, VIR_OP_MUL, u32, ng, lsz)};
  vfe_set_loc(c, s);
  vir_op *loop = vfe_build(c, VIR_OP_FOR, NULL, 3, ops);
  vir_value *p = loop->regions[0].args[0];
  vir_builder save = c->b;
  vir_builder_at_end(&c->b, &loop->regions[0]);
  vfe_set_loc(c, target);
  vfe_var *vars[3];
  vir_value *rest = p;
  for (uint32_t i = 0; i < n; i++) {
    vir_value *v = rest;
    if (i + 1 < n) { /* x = rest % nx; rest = rest / nx */
      v = vfe_build2(c, VIR_OP_REM, u32, rest, ext[i]);
      rest = vfe_build2(c, VIR_OP_DIV, u32, rest, ext[i]);
    }
    vfe_name_value(c, v, ids[i]);
    vars[i] = vfe_bind_name(c, ids[i], VFE_BIND_LOOP, u32, names[i]);
    vars[i]->value = v;
  }
  uint32_t nb;
  vfe_node **body = vfe_get_list(s, "body", &nb);
  c->fn->loop_depth++;
  vfe_stmts(c, body, nb);
  c->fn->loop_depth--;
  c->b = save;
  for (uint32_t i = 0; i < n; i++)
    vars[i]->bind = VFE_BIND_DEAD;
  return true;
}
