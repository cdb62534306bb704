/* module.c - modules, symbols, functions, locals and region lists.
 *
 * The module struct itself lives in its own arena (the first allocation),
 * so destroying the module is one vp_arena_free. Module-level symbols and
 * function locals are also kept in hash maps for the parser and the
 * passes; the ptrvecs keep declaration order for the printer.
 */
#include "ir_impl.h"

#include <string.h>

vir_module *vir_module_create(const char *source_name) {
  vp_arena a = {0};
  vir_module *m = vp_arena_alloc(&a, sizeof *m);
  if (!m) {
    vp_arena_free(&a);
    return NULL;
  }
  m->arena = a;
  if (source_name)
    m->source_name = vir_intern_file(m, source_name);
  return m;
}

void vir_module_destroy(vir_module *m) {
  if (!m)
    return;
  vp_arena a = m->arena; /* m itself is inside the arena */
  vp_arena_free(&a);
}

const char *vir_intern_file(vir_module *m, const char *file) {
  if (!file)
    return NULL;
  size_t n = strlen(file);
  const char *s = vp_map_get(&m->filetab, file, n);
  if (s)
    return s;
  char *copy = vp_arena_strndup(&m->arena, file, n);
  if (copy)
    vp_map_put(&m->arena, &m->filetab, copy, n, copy);
  return copy;
}

/* ---------------------------------------------------------------- symbols */

static vir_sym *new_sym(vir_module *m, vir_sym_kind kind, const char *name, vir_type *t, vp_loc loc) {
  vir_sym *s = vp_arena_alloc(&m->arena, sizeof *s);
  if (!s)
    return NULL;
  s->kind = kind;
  s->name = vp_arena_strdup(&m->arena, name);
  s->type = t;
  s->loc = loc;
  return s;
}

/* Registers a module-level symbol. A second symbol of the same name stays
 * in the list (the verifier reports it) but lookups find the first. */
static vir_sym *add_global(vir_module *m, vir_sym *s) {
  if (!s)
    return NULL;
  vp_ptrvec_push(&m->arena, &m->syms, s);
  size_t n = strlen(s->name);
  if (!vp_map_get(&m->symtab, s->name, n))
    vp_map_put(&m->arena, &m->symtab, s->name, n, s);
  return s;
}

void vir_module_truncate(vir_module *m, uint32_t nsyms, uint32_t nstructs) {
  for (uint32_t i = nsyms; i < m->syms.len; i++) {
    vir_sym *s = m->syms.data[i];
    size_t n = strlen(s->name);
    if (vp_map_get(&m->symtab, s->name, n) == s)
      vp_map_put(&m->arena, &m->symtab, s->name, n, NULL); /* absent again */
    if (s == m->push)
      m->push = NULL;
  }
  if (nsyms < m->syms.len)
    m->syms.len = nsyms;
  if (nstructs < m->structs.len)
    m->structs.len = nstructs;
}

vir_sym *vir_add_buffer(vir_module *m, const char *name, vir_type *elem, uint32_t set,
                        uint32_t binding, vir_access access, vp_loc loc) {
  vir_sym *s = new_sym(m, VIR_SYM_BUFFER, name, elem, loc);
  if (s) {
    s->set = set;
    s->binding = binding;
    s->access = access;
  }
  return add_global(m, s);
}

vir_sym *vir_add_push(vir_module *m, const char *name, vir_struct *fields, vp_loc loc) {
  vir_sym *s = add_global(m, new_sym(m, VIR_SYM_PUSH, name, vir_ty_struct(m, fields), loc));
  if (s && !m->push)
    m->push = s;
  return s;
}

vir_sym *vir_add_shared(vir_module *m, const char *name, vir_type *array, vp_loc loc) {
  return add_global(m, new_sym(m, VIR_SYM_SHARED, name, array, loc));
}

vir_sym *vir_add_const(vir_module *m, const char *name, vir_type *t, vir_literal v, vp_loc loc) {
  vir_sym *s = new_sym(m, VIR_SYM_CONST, name, t, loc);
  if (s)
    s->lit = t ? vir_lit_normalize(t, v) : v;
  return add_global(m, s);
}

vir_sym *vir_module_find(const vir_module *m, const char *name) {
  return vp_map_get(&m->symtab, name, strlen(name));
}

/* -------------------------------------------------------------- functions */

vir_value *vir_new_value(vir_func *f, vp_arena *a, vir_type *t, vir_region *owner) {
  vir_value *v = vp_arena_alloc(a, sizeof *v);
  if (!v)
    return NULL;
  v->type = t;
  v->owner = owner;
  v->id = f->next_id++;
  return v;
}

vir_func *vir_add_func(vir_module *m, const char *name, bool is_kernel, vir_type *ret,
                       uint32_t nparams, vir_type *const *param_types,
                       const char *const *param_names, vp_loc loc) {
  vir_func *f = vp_arena_alloc(&m->arena, sizeof *f);
  if (!f)
    return NULL;
  f->sym = add_global(m, new_sym(m, VIR_SYM_FUNC, name, ret ? ret : vir_ty_void(m), loc));
  if (!f->sym)
    return NULL;
  f->sym->func = f;
  f->is_kernel = is_kernel;
  f->local_size[0] = f->local_size[1] = f->local_size[2] = 1;
  f->ret = ret ? ret : vir_ty_void(m);
  f->loc = loc;
  f->body.func = f;
  if (nparams) {
    f->body.args = vp_arena_alloc(&m->arena, nparams * sizeof(vir_value *));
    if (!f->body.args)
      return NULL;
    for (uint32_t i = 0; i < nparams; i++) {
      vir_value *v = vir_new_value(f, &m->arena, param_types[i], &f->body);
      if (!v)
        return NULL;
      if (param_names && param_names[i])
        v->name = vp_arena_strdup(&m->arena, param_names[i]);
      f->body.args[i] = v;
    }
    f->body.nargs = nparams;
  }
  return f;
}

vir_sym *vir_func_add_local(vir_module *m, vir_func *f, const char *name, vir_type *t, vp_loc loc) {
  vir_sym *s = new_sym(m, VIR_SYM_LOCAL, name, t, loc);
  if (!s)
    return NULL;
  vp_ptrvec_push(&m->arena, &f->locals, s);
  size_t n = strlen(s->name);
  if (!vp_map_get(&f->localtab, s->name, n))
    vp_map_put(&m->arena, &f->localtab, s->name, n, s);
  return s;
}

vir_sym *vir_func_find_local(const vir_func *f, const char *name) {
  return vp_map_get(&f->localtab, name, strlen(name));
}

void vir_func_filter_locals(vir_module *m, vir_func *f, const bool *keep) {
  /* vp_map has no deletion: rebuild the list and the map */
  vp_ptrvec old = f->locals;
  f->locals = (vp_ptrvec){0};
  f->localtab = (vp_map){0};
  for (uint32_t i = 0; i < old.len; i++) {
    vir_sym *s = old.data[i];
    if (!keep[i])
      continue;
    vp_ptrvec_push(&m->arena, &f->locals, s);
    size_t n = strlen(s->name);
    if (!vp_map_get(&f->localtab, s->name, n))
      vp_map_put(&m->arena, &f->localtab, s->name, n, s);
  }
}

void vir_func_remove_local(vir_module *m, vir_func *f, vir_sym *local) {
  bool *keep = vp_arena_alloc(&m->arena, f->locals.len + 1);
  if (!keep)
    return;
  for (uint32_t i = 0; i < f->locals.len; i++)
    keep[i] = f->locals.data[i] != local;
  vir_func_filter_locals(m, f, keep);
}

/* Recursion over regions: nesting depth is bounded by the source program,
 * and the parser caps it (VIR_MAX_DEPTH). */
static void zero_uses(vir_region *r) {
  for (uint32_t i = 0; i < r->nargs; i++)
    r->args[i]->nuses = 0;
  for (vir_op *op = r->first; op; op = op->next) {
    op->val.nuses = 0;
    for (uint32_t i = 0; i < vir_op_info_of(op->code)->nregion; i++)
      zero_uses(&op->regions[i]);
  }
}

static void add_uses(vir_region *r) {
  for (vir_op *op = r->first; op; op = op->next) {
    for (uint32_t i = 0; i < op->nopnd; i++)
      if (op->opnd[i])
        op->opnd[i]->nuses++;
    for (uint32_t i = 0; i < vir_op_info_of(op->code)->nregion; i++)
      add_uses(&op->regions[i]);
  }
}

void vir_func_count_uses(vir_func *f) {
  zero_uses(&f->body);
  add_uses(&f->body);
}

/* ---------------------------------------------------------------- regions */

void vir_region_insert(vir_region *r, vir_op *before, vir_op *op) {
  op->parent = r;
  op->next = before;
  op->prev = before ? before->prev : r->last;
  if (op->prev)
    op->prev->next = op;
  else
    r->first = op;
  if (before)
    before->prev = op;
  else
    r->last = op;
}

void vir_op_unlink(vir_op *op) {
  vir_region *r = op->parent;
  if (!r)
    return;
  if (op->prev)
    op->prev->next = op->next;
  else
    r->first = op->next;
  if (op->next)
    op->next->prev = op->prev;
  else
    r->last = op->prev;
  op->prev = op->next = NULL;
  op->parent = NULL;
}

void vir_region_splice(vir_region *to, vir_op *before, vir_region *from) {
  vir_op *op = from->first;
  while (op) {
    vir_op *next = op->next;
    op->prev = op->next = NULL;
    vir_region_insert(to, before, op);
    op = next;
  }
  from->first = from->last = NULL;
}

vir_func *vir_op_func(const vir_op *op) { return op->parent ? op->parent->func : NULL; }

const char *vir_sym_kind_name(vir_sym_kind k) {
  static const char *const names[] = {"buffer", "push-constant block", "shared array",
                                      "constant", "local", "function"};
  return k <= VIR_SYM_FUNC ? names[k] : "?";
}

const char *vir_scope_name(vir_scope s) {
  static const char *const names[] = {"invocation", "subgroup", "workgroup", "device",
                                      "queue_family"};
  return s <= VIR_SCOPE_QUEUE_FAMILY ? names[s] : "?";
}

const char *vir_semantics_name(vir_semantics s) {
  static const char *const names[] = {"relaxed", "acquire", "release", "acq_rel", "seq_cst"};
  return s <= VIR_SEM_SEQ_CST ? names[s] : "?";
}
