/* arrays.c - partitioning array functions into kernels (docs/fusion.md).
 *
 * The body of an array function is a flat list of array ops. Partitioning
 * turns it into a sequence of array.kernel regions, in four steps:
 *
 *  1. Materialize. Values that one kernel cannot recompute per element are
 *     written to a buffer and read back: the result of every reduction and
 *     scan (unless its only use is one array.store, which is then the
 *     reduction's destination), a stored value whose expression reads the
 *     stored-to buffer through another view, a load that a later store
 *     to its buffer makes stale before a root after that store reads it,
 *     and, in SPLIT mode, every value. Materializing %v inserts `array.store @buf, %v` and
 *     `%v' = array.load @buf` after its definition and points the other
 *     uses at %v'. The buffer is a store target nothing else reads, or a
 *     new temporary.
 *  2. Roots. Every array.store and array.scatter is a root; its tree is
 *     the expression it stores, down to array.loads (and through the one
 *     reduction or scan it may store). Its iteration space is the stored
 *     shape, or the reduction's input shape.
 *  3. Groups. Roots are taken in program order; a root joins the group
 *     before it when both iterate over the same shape, they hold at most
 *     one reduction between them, neither is a scan or a scatter, and no
 *     buffer one writes is read or written by the other. Otherwise it
 *     starts a group. A group becomes one kernel.
 *  4. The cost rule. A value computed in the trees of two or more groups
 *     is recomputed by each when its cost (the ops of its tree, in the
 *     units of arrays.h) is at most VIR_COST_MATERIALIZE; otherwise it is
 *     materialized (step 1) and the groups are formed again.
 *
 * Then each group's roots and trees are cloned, in program order, into an
 * array.kernel at the end of the function, and the flat ops are removed.
 * Scalar ops (constants, push loads) stay where they are: the kernels'
 * regions see them.
 */
#include "arrays.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct root {
  vir_op *op;  /* array.store or array.scatter */
  vir_op *red; /* the reduction or scan it stores, or NULL */
  const vir_type *space;
  bool solo;   /* a scan or a scatter: a kernel of its own */
  int group;
} root;

typedef struct part {
  vir_module *m;
  vir_func *f;
  vir_partition_mode mode;
  vp_diags *d;
  bool reported; /* an error said why partitioning failed */
  uint32_t nids;
  vp_arena tmp;
  vp_ptrvec *users; /* by value id: the top-level ops that use it */
  root *roots;
  uint32_t nroots, ngroups;
  uint8_t *trees; /* nroots rows of nids bytes: 1 when the op (by val.id) is in the root's tree */
} part;

static bool is_array_value(const vir_value *v) { return v && vir_ty_is_tensor(v->type); }

static bool is_root_op(const vir_op *op) {
  return op->code == VIR_OP_ARRAY_STORE || op->code == VIR_OP_ARRAY_SCATTER;
}

/* The value a root stores. */
static vir_value *stored(const vir_op *op) { return vir_array_stored(op); }

uint32_t vir_array_op_cost(const vir_op *op) {
  switch (op->code) {
  case VIR_OP_ARRAY_LOAD:
  case VIR_OP_ARRAY_TAKE: return VIR_COST_LOAD;
  case VIR_OP_ARRAY_BROADCAST:
  case VIR_OP_ARRAY_RESHAPE:
  case VIR_OP_ARRAY_TRANSPOSE:
  case VIR_OP_ARRAY_SLICE: return 0; /* index arithmetic */
  case VIR_OP_DIV:
  case VIR_OP_REM:
  case VIR_OP_FLOORDIV:
  case VIR_OP_MOD:
  case VIR_OP_SQRT:
  case VIR_OP_RSQRT: return VIR_COST_HEAVY;
  default:
    return (vir_op_info_of(op->code)->flags & VIR_F_TRANSC) ? VIR_COST_HEAVY : VIR_COST_OP;
  }
}

vir_sym *vir_array_temp(vir_module *m, const char *prefix, const vir_type *t, vp_loc loc) {
  uint32_t binding = 0;
  for (uint32_t i = 0; i < m->syms.len; i++) {
    const vir_sym *s = m->syms.data[i];
    if (s->kind == VIR_SYM_BUFFER && s->set == 0 && s->binding >= binding)
      binding = s->binding + 1;
  }
  char name[64];
  for (uint32_t k = 0;; k++) {
    snprintf(name, sizeof name, "%s%u", prefix, k);
    if (!vir_module_find(m, name))
      break;
  }
  vir_type *e = vir_ty_elem_of((vir_type *)t);
  if (e->kind == VIR_TY_BOOL)
    e = vir_ty_uint(m, 32);
  vir_sym *s = vir_add_buffer(m, name, e, 0, binding, VIR_ACCESS_READWRITE, loc);
  if (s)
    s->count = vir_ty_numel(t) ? vir_ty_numel(t) : 1;
  return s;
}

/* ---------------------------------------------------------------- uses */

static void collect_users(part *p) {
  p->nids = p->f->next_id;
  p->users = vp_arena_alloc(&p->tmp, (p->nids + 1) * sizeof *p->users);
  if (!p->users)
    return;
  memset(p->users, 0, (p->nids + 1) * sizeof *p->users);
  for (vir_op *op = p->f->body.first; op; op = op->next)
    for (uint32_t i = 0; i < op->nopnd; i++)
      if (op->opnd[i] && op->opnd[i]->id < p->nids)
        vp_ptrvec_push(&p->tmp, &p->users[op->opnd[i]->id], op);
}

static bool buffer_loaded(part *p, const vir_sym *b) {
  for (vir_op *op = p->f->body.first; op; op = op->next)
    if (op->code == VIR_OP_ARRAY_LOAD && op->attr.sym == b)
      return true;
  return false;
}

static uint32_t buffer_writes(part *p, const vir_sym *b) {
  uint32_t n = 0;
  for (vir_op *op = p->f->body.first; op; op = op->next)
    n += is_root_op(op) && op->attr.sym == b;
  return n;
}

static vir_op *new_op_after(part *p, vir_op *after, vir_opcode code, vir_type *t, uint32_t n,
                            vir_value **opnd) {
  vir_builder b;
  vir_builder_init(&b, p->m);
  b.f = p->f;
  b.region = &p->f->body;
  b.before = after->next;
  b.loc = after->loc;
  return vir_build(&b, code, t, n, opnd);
}

/* Step 1 for one value: write it to a buffer after its definition, read it
 * back, and point every other use at the read. */
static bool materialize(part *p, vir_value *v) {
  vir_op *def = v->def;
  if (vir_ty_is_dynamic(v->type)) {
    /* a temporary's size is fixed in the module; the host sizes buffers
     * of dynamic extent */
    vp_error(p->d, def->loc, "a tensor of dynamic extent '?' would go through a temporary buffer "
             "here (a store reads its own buffer through another view, or partitioning splits "
             "every value); the caller must stage it in a buffer of its own");
    p->reported = true;
    return false;
  }
  vp_ptrvec *us = &p->users[v->id];
  vir_op *st = NULL;
  /* an identity-view store of it to a buffer nothing reads or writes else */
  for (uint32_t i = 0; i < us->len && !st; i++) {
    vir_op *u = us->data[i];
    if (u->code == VIR_OP_ARRAY_STORE && vir_view_is_identity(v->type, u->attr.arr) &&
        !buffer_loaded(p, u->attr.sym) && buffer_writes(p, u->attr.sym) == 1)
      st = u;
  }
  if (st) {
    vir_op_unlink(st);
    vir_region_insert(&p->f->body, def->next, st);
    st->attr.sym->access = VIR_ACCESS_READWRITE; /* the later kernels read it back */
  } else {
    vir_sym *buf = vir_array_temp(p->m, "tmp", v->type, def->loc);
    if (!buf)
      return false;
    st = new_op_after(p, def, VIR_OP_ARRAY_STORE, NULL, 1, &v);
    if (!st)
      return false;
    st->attr.sym = buf;
  }
  vir_op *ld = new_op_after(p, st, VIR_OP_ARRAY_LOAD, v->type, 0, NULL);
  if (!ld)
    return false;
  ld->attr.sym = st->attr.sym;
  ld->val.name = v->name;
  for (uint32_t i = 0; i < us->len; i++) {
    vir_op *u = us->data[i];
    if (u == st)
      continue;
    for (uint32_t k = 0; k < u->nopnd; k++)
      if (u->opnd[k] == v)
        u->opnd[k] = &ld->val;
  }
  collect_users(p);
  return true;
}

/* ---------------------------------------------------------------- trees */

static uint8_t *tree_of(part *p, uint32_t r) { return p->trees + (size_t)r * p->nids; }

static void mark_tree(part *p, uint8_t *t, vir_value *v) {
  if (!is_array_value(v) || !v->def || v->def->parent != &p->f->body || v->id >= p->nids || t[v->id])
    return;
  t[v->id] = 1;
  vir_op *d = v->def;
  if (d->code == VIR_OP_ARRAY_LOAD)
    return;
  for (uint32_t i = 0; i < d->nopnd; i++)
    mark_tree(p, t, d->opnd[i]);
}

/* Whether a tree (or, with `op`, one root) reads buffer b. */
static bool tree_reads(part *p, const uint8_t *t, const vir_sym *b, const vir_op **load) {
  for (vir_op *op = p->f->body.first; op; op = op->next)
    if (op->code == VIR_OP_ARRAY_LOAD && op->attr.sym == b && op->val.id < p->nids && t[op->val.id]) {
      if (load)
        *load = op;
      return true;
    }
  return false;
}

/* Whether a load and a store of one buffer view the same elements in the
 * same order (run-time views: the same offset and step values). */
static bool same_view(const vir_type *t, const vir_op *ld, const vir_op *st) {
  vir_value *const *x = vir_view_scalars(ld), *const *y = vir_view_scalars(st);
  if (x || y) {
    if (!x || !y || vir_view_nscalars(ld) != vir_view_nscalars(st))
      return false;
    for (uint32_t k = 0; k < vir_view_nscalars(ld); k++)
      if (x[k] != y[k])
        return false;
    return true;
  }
  const vir_array_attr *a = ld->attr.arr, *b = st->attr.arr;
  if (vir_view_is_identity(t, a) && vir_view_is_identity(t, b))
    return true;
  if (!a || !b || a->offset != b->offset || a->nstrides != b->nstrides)
    return false;
  return memcmp(a->strides, b->strides, a->nstrides * sizeof *a->strides) == 0;
}

static bool same_shape(const vir_type *a, const vir_type *b) {
  return a->n == b->n && (a->n == 0 || memcmp(a->dims, b->dims, a->n * sizeof *a->dims) == 0);
}

static bool build_roots(part *p) {
  p->nroots = 0;
  for (vir_op *op = p->f->body.first; op; op = op->next)
    p->nroots += is_root_op(op);
  p->roots = vp_arena_alloc(&p->tmp, (p->nroots + 1) * sizeof *p->roots);
  p->trees = vp_arena_alloc(&p->tmp, ((size_t)p->nroots + 1) * p->nids);
  if (!p->roots || !p->trees)
    return false;
  memset(p->trees, 0, ((size_t)p->nroots + 1) * p->nids);
  uint32_t r = 0;
  for (vir_op *op = p->f->body.first; op; op = op->next) {
    if (!is_root_op(op))
      continue;
    root *rt = &p->roots[r];
    *rt = (root){.op = op, .group = -1};
    vir_value *v = stored(op);
    vir_op *d = v->def;
    if (d && (vir_is_reduction(d->code) || vir_is_scan(d->code)))
      rt->red = d;
    rt->space = rt->red && vir_is_reduction(rt->red->code) ? rt->red->opnd[0]->type : v->type;
    rt->solo = op->code == VIR_OP_ARRAY_SCATTER || (rt->red && vir_is_scan(rt->red->code));
    uint8_t *t = tree_of(p, r);
    for (uint32_t i = 0; i < op->nopnd; i++)
      mark_tree(p, t, op->opnd[i]);
    r++;
  }
  return true;
}

/* Buffers a root writes and reads, for the hazard checks. */
static bool root_reads(part *p, uint32_t r, const vir_sym *b) { return tree_reads(p, tree_of(p, r), b, NULL); }

static bool conflict(part *p, uint32_t a, uint32_t b) {
  const vir_sym *wa = p->roots[a].op->attr.sym, *wb = p->roots[b].op->attr.sym;
  return wa == wb || root_reads(p, a, wb) || root_reads(p, b, wa);
}

static void form_groups(part *p) {
  p->ngroups = 0;
  int start = 0; /* first root of the current group */
  for (uint32_t r = 0; r < p->nroots; r++) {
    root *rt = &p->roots[r];
    bool join = p->mode == VIR_PARTITION_FUSE && r > 0 && !rt->solo && !p->roots[r - 1].solo;
    bool has_red = rt->red != NULL;
    for (uint32_t q = (uint32_t)start; join && q < r; q++) {
      const root *o = &p->roots[q];
      join = same_shape(o->space, rt->space) && !(has_red && o->red) && !conflict(p, q, r);
      has_red |= o->red != NULL;
    }
    if (!join) {
      p->ngroups++;
      start = (int)r;
    }
    rt->group = (int)p->ngroups - 1;
  }
}

/* Step 4: the first value (in program order) computed by two groups whose
 * tree costs more than materializing it; NULL when there is none. */
static vir_value *costly_shared(part *p) {
  int *first = malloc(p->nids * sizeof *first);
  uint8_t *multi = calloc(p->nids ? p->nids : 1, 1);
  if (!first || !multi) {
    free(first);
    free(multi);
    return NULL;
  }
  for (uint32_t i = 0; i < p->nids; i++)
    first[i] = -1;
  for (uint32_t r = 0; r < p->nroots; r++) {
    const uint8_t *t = tree_of(p, r);
    for (uint32_t i = 0; i < p->nids; i++) {
      if (!t[i])
        continue;
      if (first[i] < 0)
        first[i] = p->roots[r].group;
      else if (first[i] != p->roots[r].group)
        multi[i] = 1;
    }
  }
  vir_value *found = NULL;
  for (vir_op *op = p->f->body.first; op && !found; op = op->next) {
    vir_value *v = vir_result(op);
    if (!is_array_value(v) || v->id >= p->nids || !multi[v->id] || op->code == VIR_OP_ARRAY_LOAD)
      continue;
    uint8_t *t = calloc(p->nids, 1);
    if (!t)
      break;
    mark_tree(p, t, v);
    uint32_t cost = 0;
    for (vir_op *o = p->f->body.first; o; o = o->next)
      if (o->val.id < p->nids && t[o->val.id])
        cost += vir_array_op_cost(o);
    free(t);
    if (cost > VIR_COST_MATERIALIZE)
      found = v;
  }
  free(first);
  free(multi);
  return found;
}

/* ----------------------------------------------------------------- emit */

static bool emit_groups(part *p) {
  vir_op *ret = p->f->body.last && p->f->body.last->code == VIR_OP_RETURN ? p->f->body.last : NULL;
  vir_value **remap = calloc(p->nids ? p->nids : 1, sizeof *remap);
  uint8_t *need = malloc(p->nids ? p->nids : 1);
  if (!remap || !need) {
    free(remap);
    free(need);
    return false;
  }
  bool ok = true;
  for (uint32_t g = 0; ok && g < p->ngroups; g++) {
    memset(need, 0, p->nids);
    vp_loc loc = {0};
    for (uint32_t r = 0; r < p->nroots; r++) {
      if (p->roots[r].group != (int)g)
        continue;
      if (!loc.line)
        loc = p->roots[r].op->loc;
      const uint8_t *t = tree_of(p, r);
      for (uint32_t i = 0; i < p->nids; i++)
        need[i] |= t[i];
      need[p->roots[r].op->val.id] = 1;
    }
    vir_builder b;
    vir_builder_init(&b, p->m);
    b.f = p->f;
    b.region = &p->f->body;
    b.before = ret;
    b.loc = loc;
    vir_op *k = vir_build(&b, VIR_OP_ARRAY_KERNEL, NULL, 0, NULL);
    if (!k) {
      ok = false;
      break;
    }
    vir_builder_at_end(&b, &k->regions[0]);
    for (vir_op *op = p->f->body.first; op && ok; op = op->next) {
      if (op->val.id >= p->nids || !need[op->val.id])
        continue;
      vir_value *ops[8];
      for (uint32_t i = 0; i < op->nopnd && i < 8; i++) {
        vir_value *v = op->opnd[i];
        ops[i] = v && v->id < p->nids && remap[v->id] ? remap[v->id] : v;
      }
      b.loc = op->loc;
      vir_op *c = vir_build(&b, op->code, vir_result(op) ? op->val.type : NULL, op->nopnd, ops);
      if (!c) {
        ok = false;
        break;
      }
      c->attr = op->attr;
      c->flags = op->flags;
      c->val.name = op->val.name;
      remap[op->val.id] = &c->val;
    }
  }
  /* the flat ops are now in the kernels */
  for (vir_op *op = p->f->body.first, *next; op; op = next) {
    next = op->next;
    if (op->code != VIR_OP_ARRAY_KERNEL && op->val.id < p->nids &&
        (is_array_value(vir_result(op)) || is_root_op(op)))
      vir_op_unlink(op);
  }
  free(remap);
  free(need);
  return ok;
}

/* --------------------------------------------------------------- driver */

static bool has_kernels(const vir_func *f) {
  for (const vir_op *op = f->body.first; op; op = op->next)
    if (op->code == VIR_OP_ARRAY_KERNEL || op->code == VIR_OP_ARRAY_LAUNCH)
      return true;
  return false;
}

/* Tensor values nobody uses (a dead reduction would otherwise become a
 * kernel of its own). */
static void drop_dead(part *p) {
  for (bool again = true; again;) {
    again = false;
    collect_users(p);
    if (!p->users)
      return;
    for (vir_op *op = p->f->body.first, *next; op; op = next) {
      next = op->next;
      vir_value *v = vir_result(op);
      if (is_array_value(v) && v->id < p->nids && !p->users[v->id].len) {
        vir_op_unlink(op);
        again = true;
      }
    }
  }
}

/* Step 1 for loads a later store makes stale: an array function's values
 * are taken where they are written, so a load of buffer B before a store
 * to B in program order reads B's old contents. A root after that store
 * runs in a later kernel (it reads what the store writes, so it never
 * joins the store's group), where B holds the new ones: such a load is
 * materialized at its place (a copy before the store). Returns false on
 * failure; *changed when it materialized one. */
static bool stale_load(part *p, bool *changed) {
  *changed = false;
  p->nids = p->f->next_id;
  uint8_t *t = calloc(p->nids ? p->nids : 1, 1);
  if (!t)
    return false;
  for (vir_op *st = p->f->body.first; st; st = st->next) {
    if (!is_root_op(st))
      continue;
    for (vir_op *r = st->next; r; r = r->next) {
      if (!is_root_op(r))
        continue;
      memset(t, 0, p->nids);
      mark_tree(p, t, stored(r));
      if (r->code == VIR_OP_ARRAY_SCATTER)
        mark_tree(p, t, r->opnd[0]);
      for (vir_op *ld = p->f->body.first; ld && ld != st; ld = ld->next)
        if (ld->code == VIR_OP_ARRAY_LOAD && ld->attr.sym == st->attr.sym && ld->val.id < p->nids &&
            t[ld->val.id]) {
          free(t);
          *changed = true;
          collect_users(p);
          return p->users && materialize(p, &ld->val);
        }
    }
  }
  free(t);
  return true;
}

static bool partition_func(part *p) {
  drop_dead(p);
  collect_users(p);
  if (!p->users)
    return false;
  /* step 1: reductions and scans, self-overlapping stores, SPLIT mode */
  for (vir_op *op = p->f->body.first; op; op = op->next) {
    vir_value *v = vir_result(op);
    if (!is_array_value(v) || op->code == VIR_OP_ARRAY_LOAD)
      continue;
    vp_ptrvec *us = &p->users[v->id];
    bool only_store = us->len == 1 && ((vir_op *)us->data[0])->code == VIR_OP_ARRAY_STORE &&
                      stored(us->data[0]) == v;
    bool red = vir_is_reduction(op->code) || vir_is_scan(op->code);
    if ((red || p->mode == VIR_PARTITION_SPLIT) && !only_store && us->len && !materialize(p, v))
      return false;
  }
  for (vir_op *op = p->f->body.first; op; op = op->next) {
    if (!is_root_op(op))
      continue;
    uint8_t *t = calloc(p->f->next_id ? p->f->next_id : 1, 1);
    if (!t)
      return false;
    p->nids = p->f->next_id;
    vir_value *v = stored(op);
    mark_tree(p, t, v);
    if (op->code == VIR_OP_ARRAY_SCATTER)
      mark_tree(p, t, op->opnd[0]);
    const vir_op *load = NULL;
    bool hazard = tree_reads(p, t, op->attr.sym, &load) &&
                  (op->code == VIR_OP_ARRAY_SCATTER || !same_view(v->type, load, op) ||
                   (v->def && vir_is_reduction(v->def->code)) || (v->def && vir_is_scan(v->def->code)));
    free(t);
    if (hazard) {
      /* the stored value (and a scatter's indices) go through a temporary */
      collect_users(p);
      if (op->code == VIR_OP_ARRAY_SCATTER && !materialize(p, op->opnd[0]))
        return false;
      if (!materialize(p, stored(op)))
        return false;
    }
  }
  for (bool again = true; again;)
    if (!stale_load(p, &again))
      return false;
  collect_users(p);
  /* steps 2-4, until the cost rule is content */
  for (int round = 0;; round++) {
    if (!build_roots(p))
      return false;
    form_groups(p);
    vir_value *v = p->mode == VIR_PARTITION_FUSE && round < 64 ? costly_shared(p) : NULL;
    if (!v)
      break;
    if (!materialize(p, v))
      return false;
  }
  return emit_groups(p);
}

bool vir_partition_arrays(vir_module *m, vir_partition_mode mode, vp_diags *d, bool *changed) {
  for (uint32_t i = 0; i < m->syms.len; i++) {
    vir_sym *s = m->syms.data[i];
    if (s->kind != VIR_SYM_FUNC || !s->func || !s->func->is_array || has_kernels(s->func))
      continue;
    part p = {.m = m, .f = s->func, .mode = mode, .d = d};
    bool ok = partition_func(&p);
    vp_arena_free(&p.tmp);
    if (!ok) {
      if (!p.reported)
        vp_error(d, s->func->loc, "could not partition array function @%s (out of memory)", s->name);
      return false;
    }
    *changed = true;
  }
  return true;
}
