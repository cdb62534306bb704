/* verify.c - the VIR verifier: module-level rules and the structure of
 * function bodies (docs/ir.md, "Invariants").
 *
 * Every violation becomes one error located at the op, symbol or function
 * it concerns; the walk goes on after an error, so one run reports them
 * all. Dominance is checked in one pass per function: a value is marked
 * visible (vis[id] = the value) once its op has been checked and unmarked
 * when the region defining it ends, so an operand is well defined iff it
 * is marked. The per-op type rules are in verify_ops.c.
 */
#include "verify.h"

#include <stdlib.h>
#include <string.h>

void vir_verror(vctx *c, vp_loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vp_diag_vadd(c->d, VP_ERROR, loc, fmt, ap);
  va_end(ap);
}

/* ------------------------------------------------------------ module level */

static void check_layout(vctx *c, const vir_struct *st, const char *what) {
  uint32_t off = 0, align = 1;
  vp_map names = {0};
  for (uint32_t i = 0; i < st->nfields; i++) {
    const vir_field *f = &st->fields[i];
    if (!f->type || f->type->kind == VIR_TY_VOID) {
      vir_verror(c, f->loc.line ? f->loc : st->loc, "field '%s' of %s @%s has no type", f->name,
                 what, st->name);
      return;
    }
    bool dup;
    vp_map_insert(&c->tmp, &names, f->name, strlen(f->name), &dup);
    if (dup)
      vir_verror(c, f->loc.line ? f->loc : st->loc, "duplicate field '%s' in %s @%s", f->name,
                 what, st->name);
    uint32_t a = vir_type_align(f->type);
    off = (off + a - 1) / a * a;
    if (f->offset != off) {
      vir_verror(c, f->loc.line ? f->loc : st->loc,
                 "field '%s' of %s @%s is at offset %u, but std430 places it at %u", f->name, what,
                 st->name, f->offset, off);
      return;
    }
    off += vir_type_size(f->type);
    if (a > align)
      align = a;
  }
  off = (off + align - 1) / align * align;
  if (st->size != off || st->align != align)
    vir_verror(c, st->loc, "%s @%s has size %u and alignment %u, but std430 gives %u and %u", what,
               st->name, st->size, st->align, off, align);
}

static bool sized_type(const vir_type *t) { return t && t->kind != VIR_TY_VOID; }

static void check_syms(vctx *c) {
  const vir_module *m = c->m;
  vp_map names = {0}, bindings = {0};
  const vir_sym *push = NULL;
  uint64_t shared_bytes = 0;
  vp_loc shared_loc = {0};
  for (uint32_t i = 0; i < m->structs.len; i++) {
    const vir_struct *st = m->structs.data[i];
    bool is_push = m->push && m->push->type && m->push->type->st == st;
    check_layout(c, st, is_push ? "push-constant block" : "struct");
  }
  for (uint32_t i = 0; i < m->syms.len; i++) {
    const vir_sym *s = m->syms.data[i];
    size_t n = strlen(s->name);
    const vir_sym *first = vp_map_get(&names, s->name, n);
    if (first)
      vir_verror(c, s->loc, "redefinition of @%s (a %s)", s->name, vir_sym_kind_name(first->kind));
    else
      vp_map_put(&c->tmp, &names, s->name, n, (void *)s);
    switch (s->kind) {
    case VIR_SYM_BUFFER:
      if (!sized_type(s->type) || s->type->kind == VIR_TY_TENSOR)
        vir_verror(c, s->loc, "buffer @%s needs an element type", s->name);
      {
        /* keyed by the bytes of (set, binding); the key lives in the symbol */
        bool taken;
        void **slot = vp_map_insert(&c->tmp, &bindings, (const char *)&s->set, 2 * sizeof(uint32_t), &taken);
        if (taken)
          vir_verror(c, s->loc, "binding(%u, %u) of @%s is already used by @%s", s->set, s->binding,
                     s->name, ((const vir_sym *)*slot)->name);
        else if (slot)
          *slot = (void *)s;
      }
      break;
    case VIR_SYM_PUSH:
      if (push) {
        vir_verror(c, s->loc, "a module has at most one push-constant block; @%s comes after @%s",
                   s->name, push->name);
        break;
      }
      push = s;
      if (!s->type || s->type->kind != VIR_TY_STRUCT) {
        vir_verror(c, s->loc, "push-constant block @%s must have a struct type", s->name);
        break;
      }
      if (s->type->st->size > 256)
        vir_verror(c, s->loc, "push-constant block @%s is %u bytes; the limit is 256", s->name,
                   s->type->st->size);
      else if (s->type->st->size > 128)
        vp_diag_add(c->d, VP_WARNING, s->loc,
                    "push-constant block @%s is %u bytes; only 128 are guaranteed on every device",
                    s->name, s->type->st->size);
      break;
    case VIR_SYM_SHARED:
      if (!s->type || s->type->kind != VIR_TY_ARRAY) {
        vir_verror(c, s->loc, "shared @%s must have an array type, not %s", s->name,
                   s->type ? s->type->str : "none");
        break;
      }
      if (shared_bytes <= 16384 && shared_bytes + vir_type_size(s->type) > 16384)
        shared_loc = s->loc; /* the declaration that goes past the limit */
      shared_bytes += vir_type_size(s->type);
      break;
    case VIR_SYM_CONST:
      if (!s->type || !vir_ty_is_scalar(s->type))
        vir_verror(c, s->loc, "constant @%s must have a scalar type, not %s", s->name,
                   s->type ? s->type->str : "none");
      break;
    case VIR_SYM_LOCAL:
      vir_verror(c, s->loc, "local @%s is declared at module level", s->name);
      break;
    case VIR_SYM_FUNC:
      if (!s->func)
        vir_verror(c, s->loc, "function symbol @%s has no function", s->name);
      break;
    }
  }
  if (shared_bytes > 16384)
    vp_diag_add(c->d, VP_WARNING, shared_loc,
                "shared memory totals %llu bytes; only 16384 are guaranteed on every device",
                (unsigned long long)shared_bytes);
}

/* ------------------------------------------------------------- call graph */

/* Depth-first search over the call graph, with an explicit stack (a long
 * chain of calls must not overflow the C stack). Each call that reaches a
 * function still on the path closes a cycle and is reported there, naming
 * the cycle. state: 0 unvisited, 1 on the path, 2 done. */
static uint32_t callee_index(vctx *c, const vir_op *call) {
  const vir_func *f = call->attr.sym->func; /* keyed by the vir_func pointer's bytes */
  return (uint32_t)(uintptr_t)vp_map_get(&c->func_ids, (const char *)&f, sizeof f) - 1;
}

static void report_cycle(vctx *c, const vir_op *call, const uint32_t *path, uint32_t depth,
                         uint32_t callee) {
  vp_strbuf b = {0};
  uint32_t from = 0;
  while (path[from] != callee)
    from++;
  for (uint32_t j = from; j <= depth; j++)
    vp_strbuf_printf(&b, "@%s -> ", c->funcs[path[j]]->sym->name);
  vp_strbuf_printf(&b, "@%s", c->funcs[callee]->sym->name);
  vir_verror(c, call->loc, "recursive call: %s (GPUs have no call stack)", b.data ? b.data : "");
  vp_strbuf_free(&b);
}

static void check_recursion(vctx *c) {
  uint32_t n = c->nfuncs;
  uint8_t *state = calloc(n ? n : 1, 1);
  uint32_t *path = calloc(n ? n : 1, sizeof *path); /* functions on the path */
  uint32_t *next = calloc(n ? n : 1, sizeof *next); /* per path entry: next call to follow */
  for (uint32_t root = 0; state && path && next && root < n; root++) {
    if (state[root])
      continue;
    uint32_t depth = 0;
    path[0] = root;
    next[0] = 0;
    state[root] = 1;
    for (;;) {
      uint32_t fi = path[depth];
      vp_ptrvec *calls = &c->calls[fi];
      if (next[depth] == calls->len) {
        state[fi] = 2;
        if (depth == 0)
          break;
        depth--;
        continue;
      }
      const vir_op *call = calls->data[next[depth]++];
      uint32_t callee = callee_index(c, call);
      if (callee >= n)
        continue;
      if (state[callee] == 1) {
        report_cycle(c, call, path, depth, callee);
      } else if (state[callee] == 0) {
        state[callee] = 1;
        path[++depth] = callee;
        next[depth] = 0;
      }
    }
  }
  free(state);
  free(path);
  free(next);
}

/* ---------------------------------------------------------- function body */

static void verify_region(vctx *c, const vir_region *r);

/* Can control leave the region by falling off its end? (For functions that
 * must return a value.) */
static bool loop_has_break(const vir_region *r) {
  for (const vir_op *op = r->first; op; op = op->next) {
    if (op->code == VIR_OP_BREAK)
      return true;
    if (op->code == VIR_OP_IF)
      for (int i = 0; i < 2; i++)
        if (loop_has_break(&op->regions[i]))
          return true;
  }
  return false;
}

static bool always_leaves(const vir_region *r) {
  const vir_op *last = r->last;
  if (!last)
    return false;
  if (last->code == VIR_OP_RETURN)
    return true;
  if (last->code == VIR_OP_IF)
    return always_leaves(&last->regions[0]) && always_leaves(&last->regions[1]);
  if (last->code == VIR_OP_LOOP)
    return !loop_has_break(&last->regions[0]);
  return false;
}

static void mark(vctx *c, const vir_value *v, bool on) {
  if (v && v->id < c->nvis)
    c->vis[v->id] = on ? v : NULL;
}

static void verify_op(vctx *c, const vir_op *op, const vir_region *r) {
  const vir_op_info *info = vir_op_info_of(op->code);
  if (op->code >= VIR_OP_COUNT) {
    vir_verror(c, op->loc, "invalid opcode %d", (int)op->code);
    return;
  }
  if (op->parent != r)
    vir_verror(c, op->loc, "'%s' is linked into a region it does not name as its parent", info->name);
  bool operands_ok = true;
  for (uint32_t i = 0; i < op->nopnd; i++) {
    const vir_value *v = op->opnd[i];
    if (!v || !v->type) {
      vir_verror(c, op->loc, "operand %u of '%s' is missing", i + 1, info->name);
      operands_ok = false;
    } else if (v->id >= c->nvis || c->vis[v->id] != v) {
      vir_verror(c, op->loc, "operand %u of '%s' is not defined before this use "
                             "(or is defined in a region that does not enclose it)",
                 i + 1, info->name);
      operands_ok = false;
    }
  }
  if ((info->flags & VIR_F_TERM) && op->next)
    vir_verror(c, op->loc, "'%s' must be the last op of its region", info->name);
  if (!op->val.type) {
    vir_verror(c, op->loc, "'%s' has no result type (use void)", info->name);
    operands_ok = false;
  }
  if (op->val.id >= c->nvis)
    vir_verror(c, op->loc, "'%s' has value id %u, past the function's %u", info->name, op->val.id,
               c->nvis);
  if (operands_ok) {
    if (c->array_level || vir_is_array_opcode(op->code))
      vir_verify_placement(c, op, r);
    vir_verify_op_types(c, op);
  }

  switch (op->code) {
  case VIR_OP_BREAK:
  case VIR_OP_CONTINUE:
    if (!c->loop_depth)
      vir_verror(c, op->loc, "'%s' outside a loop", info->name);
    break;
  case VIR_OP_CONDITION: {
    const vir_op *w = r->parent_op;
    if (!w || w->code != VIR_OP_WHILE || r != &w->regions[0])
      vir_verror(c, op->loc, "'condition' may only end the condition region of a 'while'");
    break;
  }
  case VIR_OP_RETURN: {
    const vir_func *f = c->f;
    bool want = f->ret && f->ret->kind != VIR_TY_VOID;
    if (f->is_kernel && op->nopnd)
      vir_verror(c, op->loc, "kernel @%s cannot return a value", f->sym->name);
    else if (want && op->nopnd != 1)
      vir_verror(c, op->loc, "'return' needs a value of type %s (@%s returns one)", f->ret->str,
                 f->sym->name);
    else if (!want && op->nopnd)
      vir_verror(c, op->loc, "'return' with a value in @%s, which returns nothing", f->sym->name);
    else if (want && op->opnd[0] && op->opnd[0]->type != f->ret)
      vir_verror(c, op->loc, "'return' value has type %s, but @%s returns %s",
                 op->opnd[0]->type ? op->opnd[0]->type->str : "?", f->sym->name, f->ret->str);
    break;
  }
  case VIR_OP_WHILE: {
    const vir_op *last = op->regions[0].last;
    if (!last || last->code != VIR_OP_CONDITION)
      vir_verror(c, op->loc, "the condition region of 'while' must end with 'condition'");
    break;
  }
  case VIR_OP_CALL:
    if (op->attr.sym && op->attr.sym->kind == VIR_SYM_FUNC && op->attr.sym->func)
      vp_ptrvec_push(&c->tmp, &c->calls[c->fi], (void *)op);
    break;
  default: break;
  }

  for (uint32_t i = 0; i < info->nregion; i++) {
    const vir_region *sub = &op->regions[i];
    if (sub->parent_op != op || sub->func != c->f)
      vir_verror(c, op->loc, "region %u of '%s' does not point back to its op and function", i + 1,
                 info->name);
    /* break/continue belong to the innermost loop body; the condition
     * region of a while is not a body */
    int saved = c->loop_depth;
    bool body = op->code == VIR_OP_LOOP || op->code == VIR_OP_FOR ||
                (op->code == VIR_OP_WHILE && i == 1);
    if (body)
      c->loop_depth++;
    else if (op->code == VIR_OP_WHILE)
      c->loop_depth = 0;
    if (c->depth++ < VIR_MAX_DEPTH)
      verify_region(c, sub);
    else
      vir_verror(c, op->loc, "regions nested more than %d deep", VIR_MAX_DEPTH);
    c->depth--;
    c->loop_depth = saved;
  }
  mark(c, vir_result((vir_op *)op), true);
}

static void verify_region(vctx *c, const vir_region *r) {
  for (uint32_t i = 0; i < r->nargs; i++)
    mark(c, r->args[i], true);
  for (const vir_op *op = r->first; op; op = op->next)
    verify_op(c, op, r);
  /* what the region defined is not visible after it */
  for (uint32_t i = 0; i < r->nargs; i++)
    mark(c, r->args[i], false);
  for (const vir_op *op = r->first; op; op = op->next)
    mark(c, &op->val, false);
}

static void verify_func(vctx *c, const vir_func *f) {
  c->f = f;
  c->nvis = f->next_id;
  c->vis = calloc(f->next_id ? f->next_id : 1, sizeof *c->vis);
  if (!c->vis)
    return;
  const char *name = f->sym ? f->sym->name : "?";
  if (f->is_kernel) {
    if (f->body.nargs)
      vir_verror(c, f->loc, "kernel @%s cannot take parameters", name);
    if (f->ret && f->ret->kind != VIR_TY_VOID)
      vir_verror(c, f->loc, "kernel @%s must return void", name);
    for (int i = 0; i < 3; i++)
      if (!f->local_size[i])
        vir_verror(c, f->loc, "kernel @%s: local_size must be at least 1 in each dimension", name);
  }
  if (f->is_array && (f->is_kernel || f->body.nargs || (f->ret && f->ret->kind != VIR_TY_VOID)))
    vir_verror(c, f->loc, "array function @%s takes no parameters and returns nothing (its "
               "arrays are buffers)", name);
  if (f->body.func != f)
    vir_verror(c, f->loc, "the body of @%s does not point back to it", name);
  for (uint32_t i = 0; i < f->body.nargs; i++)
    if (!sized_type(f->body.args[i]->type))
      vir_verror(c, f->loc, "parameter %u of @%s has no type", i + 1, name);
  vp_map locals = {0};
  for (uint32_t i = 0; i < f->locals.len; i++) {
    const vir_sym *s = f->locals.data[i];
    size_t n = strlen(s->name);
    if (vp_map_get(&locals, s->name, n))
      vir_verror(c, s->loc, "redefinition of local @%s", s->name);
    vp_map_put(&c->tmp, &locals, s->name, n, (void *)s);
    if (!sized_type(s->type))
      vir_verror(c, s->loc, "local @%s needs a type", s->name);
  }
  c->loop_depth = 0;
  c->depth = 0;
  verify_region(c, &f->body);
  if (!f->is_kernel && f->ret && f->ret->kind != VIR_TY_VOID && !always_leaves(&f->body))
    vir_verror(c, f->loc, "@%s may reach its end without returning a %s", name, f->ret->str);
  free(c->vis);
  c->vis = NULL;
}

bool vir_verify(const vir_module *m, vp_diags *diags) {
  vctx c = {.m = m, .mm = (vir_module *)m, .d = diags};
  uint32_t errors0 = diags->nerrors;
  for (uint32_t i = 0; i < m->types.len && !c.array_level; i++)
    c.array_level = vir_ty_is_tensor(m->types.data[i]);
  for (uint32_t i = 0; i < m->syms.len && !c.array_level; i++) {
    const vir_sym *s = m->syms.data[i];
    c.array_level = s->kind == VIR_SYM_FUNC && s->func && s->func->is_array;
  }
  check_syms(&c);
  for (uint32_t i = 0; i < m->syms.len; i++) {
    const vir_sym *s = m->syms.data[i];
    if (s->kind == VIR_SYM_FUNC && s->func)
      c.nfuncs++;
  }
  c.funcs = vp_arena_alloc(&c.tmp, (c.nfuncs + 1) * sizeof *c.funcs);
  c.calls = vp_arena_alloc(&c.tmp, (c.nfuncs + 1) * sizeof *c.calls);
  if (!c.funcs || !c.calls) {
    vp_arena_free(&c.tmp);
    return false;
  }
  uint32_t k = 0;
  for (uint32_t i = 0; i < m->syms.len; i++) {
    const vir_sym *s = m->syms.data[i];
    if (s->kind == VIR_SYM_FUNC && s->func) {
      c.funcs[k] = s->func;
      vp_map_put(&c.tmp, &c.func_ids, (const char *)&c.funcs[k], sizeof c.funcs[k],
                 (void *)(uintptr_t)(k + 1));
      k++;
    }
  }
  for (c.fi = 0; c.fi < c.nfuncs; c.fi++)
    verify_func(&c, c.funcs[c.fi]);
  check_recursion(&c);
  vp_arena_free(&c.tmp);
  return diags->nerrors == errors0;
}
