/* build.c - the small builders of the lower-arrays pass.
 *
 * Constants (deduplicated per kernel), locals, buffer loads, stores and
 * atomics, barriers, invocation ids, and structured control flow (for /
 * if regions: the builder moves into the new region and `leave` moves it
 * back). Grid sizing (groups_for) and the grid-stride item loop that
 * every elementwise-shaped kernel uses.
 */
#include "lower_arrays.h"


vir_value *vla_op_(lw *l, vir_opcode c, vir_type *t, uint32_t n, vir_value *const *a) {
  vir_op *op = t ? vir_build(&l->b, c, t, n, a) : vir_build_auto(&l->b, c, n, a);
  if (!op) {
    l->failed = true;
    return NULL;
  }
  return vir_result(op) ? &op->val : NULL;
}

/* A constant in the kernel's prologue (visible everywhere in it), made
 * once per kernel. */
vir_value *vla_konst(lw *l, vir_type *t, vir_literal v) {
  v = vir_lit_normalize(t, v);
  for (uint32_t i = 0; i < l->consts.len; i++) {
    vir_value *c = l->consts.data[i];
    if (c->type == t && c->def->attr.lit.u == v.u)
      return c;
  }
  vir_builder pb = l->b;
  pb.region = &l->k->body;
  pb.before = l->pro ? l->pro->next : l->k->body.first;
  vir_op *op = vir_build(&pb, VIR_OP_CONST, t, 0, NULL);
  if (!op) {
    l->failed = true;
    return NULL;
  }
  op->attr.lit = v;
  l->pro = op;
  if (!vp_ptrvec_push(&l->tmp, &l->consts, &op->val))
    l->failed = true;
  return &op->val;
}

/* The largest / smallest value of a scalar type (float: +-inf). */
vir_value *vla_extreme(lw *l, vir_type *t, bool max) {
  vir_literal v = {0};
  if (t->kind == VIR_TY_FLOAT)
    v.f = max ? INFINITY : -INFINITY;
  else if (t->kind == VIR_TY_INT)
    v.i = max ? (t->bits == 64 ? INT64_MAX : (INT64_C(1) << (t->bits - 1)) - 1)
              : (t->bits == 64 ? INT64_MIN : -(INT64_C(1) << (t->bits - 1)));
  else if (t->kind == VIR_TY_UINT)
    v.u = max ? (t->bits == 64 ? UINT64_MAX : (UINT64_C(1) << t->bits) - 1) : 0;
  else
    v.b = max;
  return vla_konst(l, t, v);
}

vir_value *vla_num(lw *l, vir_type *t, double x) {
  vir_literal v = {0};
  if (t->kind == VIR_TY_FLOAT)
    v.f = x;
  else if (t->kind == VIR_TY_BOOL)
    v.b = x != 0;
  else
    v.i = (int64_t)x;
  return vla_konst(l, t, v);
}

/* A local of the kernel (accumulators live across loop iterations). */
vir_sym *vla_local(lw *l, const char *base, vir_type *t) {
  char name[48];
  snprintf(name, sizeof name, "%s%u", base, l->nlocals++);
  vir_sym *s = vir_func_add_local(l->m, l->k, name, t, l->b.loc);
  if (!s)
    l->failed = true;
  return s;
}
vir_value *vla_lload(lw *l, vir_sym *s) {
  vir_op *op = vir_build(&l->b, VIR_OP_LOCAL_LOAD, s->type, 0, NULL);
  if (!op) {
    l->failed = true;
    return NULL;
  }
  op->attr.sym = s;
  return &op->val;
}
void vla_lstore(lw *l, vir_sym *s, vir_value *v) {
  vir_op *op = vir_build(&l->b, VIR_OP_LOCAL_STORE, NULL, 1, &v);
  if (!op) {
    l->failed = true;
    return;
  }
  op->attr.sym = s;
}

vir_value *vla_mem_load(lw *l, vir_opcode c, vir_sym *s, vir_value *i, vir_type *t, bool vol) {
  vir_op *op = vir_build(&l->b, c, t, 1, &i);
  if (!op) {
    l->failed = true;
    return NULL;
  }
  op->attr.sym = s;
  if (vol)
    op->flags |= VIR_OPF_VOLATILE;
  return &op->val;
}
void vla_mem_store(lw *l, vir_opcode c, vir_sym *s, vir_value *i, vir_value *v) {
  vir_value *a[2] = {i, v};
  vir_op *op = vir_build(&l->b, c, NULL, 2, a);
  if (!op) {
    l->failed = true;
    return;
  }
  op->attr.sym = s;
}
vir_value *vla_atomic(lw *l, vir_opcode c, vir_sym *s, vir_value *i, vir_value *v) {
  vir_value *a[2] = {i, v};
  vir_op *op = vir_build(&l->b, c, s->type, 2, a);
  if (!op) {
    l->failed = true;
    return NULL;
  }
  op->attr.sym = s;
  op->attr.scope = VIR_SCOPE_DEVICE;
  op->attr.sem = VIR_SEM_ACQ_REL;
  return &op->val;
}

/* global_id.x, workgroup_id.x, num_workgroups.x or local_index (or global_id.y: y set),
 * once per kernel, in its prologue. */
static vir_value *id_xy(lw *l, vir_opcode c, bool y) {
  int slot = y ? 3 : c == VIR_OP_GLOBAL_ID ? 0 : c == VIR_OP_WORKGROUP_ID ? 1
                 : c == VIR_OP_NUM_WORKGROUPS ? 4 : 2;
  if (l->ids[slot])
    return l->ids[slot];
  vir_builder pb = l->b;
  pb.region = &l->k->body;
  pb.before = l->pro ? l->pro->next : l->k->body.first;
  vir_op *e;
  if (c == VIR_OP_LOCAL_INDEX) {
    e = vir_build(&pb, c, vla_u32t(l), 0, NULL);
  } else {
    vir_op *v = vir_build(&pb, c, vir_ty_vec(l->m, vla_u32t(l), 3), 0, NULL);
    e = v ? vir_build(&pb, VIR_OP_EXTRACT, vla_u32t(l), 1, (vir_value *[]){&v->val}) : NULL;
    if (e)
      e->attr.index = y ? 1 : 0;
  }
  if (!e) {
    l->failed = true;
    return NULL;
  }
  l->pro = e;
  return l->ids[slot] = &e->val;
}
vir_value *vla_id_x(lw *l, vir_opcode c) { return id_xy(l, c, false); }
vir_value *vla_id_y(lw *l) { return id_xy(l, VIR_OP_GLOBAL_ID, true); }

/* push.load of the push block's field `n` (the dynamic extent) at pb. */
vir_value *vla_push_n(lw *l, vir_builder *pb) {
  vir_sym *pc = NULL;
  for (uint32_t i = 0; i < l->m->syms.len && !pc; i++)
    if (((vir_sym *)l->m->syms.data[i])->kind == VIR_SYM_PUSH)
      pc = l->m->syms.data[i];
  int f = pc && pc->type->st ? vir_struct_find(pc->type->st, "n") : -1;
  assert(f >= 0); /* the verifier checked it */
  vir_op *op = f >= 0 ? vir_build(pb, VIR_OP_PUSH_LOAD, vla_u32t(l), 0, NULL) : NULL;
  if (!op) {
    l->failed = true;
    return NULL;
  }
  op->attr.sym = pc;
  op->attr.npath = 1;
  op->attr.path[0] = (uint8_t)f;
  return &op->val;
}

/* The push field n, loaded once in the kernel's prologue (a kernel over
 * a dynamic extent, or in segments). */
vir_value *vla_prologue_n(lw *l) {
  vir_builder pb = l->b;
  pb.region = &l->k->body;
  pb.before = l->pro ? l->pro->next : l->k->body.first;
  vir_value *n = vla_push_n(l, &pb);
  if (n)
    l->pro = n->def;
  return n;
}

void vla_barrier(lw *l) { vla_op_(l, VIR_OP_BARRIER, vir_ty_void(l->m), 0, NULL); }

void vla_mbarrier(lw *l) {
  vir_op *op = vir_build(&l->b, VIR_OP_MEMORY_BARRIER, NULL, 0, NULL);
  if (!op) {
    l->failed = true;
    return;
  }
  op->attr.scope = VIR_SCOPE_DEVICE;
  op->attr.sem = VIR_SEM_ACQ_REL;
  op->attr.storage = VIR_STORAGE_BUFFER;
}


saved vla_enter(lw *l, vir_region *r) {
  saved s = {l->b.region, l->b.before, l->nmemo};
  vir_builder_at_end(&l->b, r);
  return s;
}
void vla_leave(lw *l, saved s) {
  l->b.region = s.region;
  l->b.before = s.before;
  l->nmemo = s.nmemo; /* values emitted inside are not visible after it */
}

/* for %i = lo to hi step st { ... }: returns %i */
vir_value *vla_for_begin(lw *l, vir_value *lo, vir_value *hi, vir_value *st, saved *sv) {
  vir_value *a[3] = {lo, hi, st};
  *sv = (saved){l->b.region, l->b.before, l->nmemo};
  vir_op *op = vir_build(&l->b, VIR_OP_FOR, NULL, 3, a);
  if (!op) {
    l->failed = true;
    return NULL;
  }
  *sv = vla_enter(l, &op->regions[0]);
  return op->regions[0].args[0];
}

void vla_if_begin(lw *l, vir_value *c, saved *sv) {
  *sv = (saved){l->b.region, l->b.before, l->nmemo};
  vir_op *op = vir_build(&l->b, VIR_OP_IF, NULL, 1, &c);
  if (!op) {
    l->failed = true;
    return;
  }
  *sv = vla_enter(l, &op->regions[0]);
}

uint32_t vla_groups_for(uint64_t n, uint64_t per_group, uint32_t cap) {
  uint64_t g = (n + per_group - 1) / per_group;
  return g < 1 ? 1 : g > cap ? cap : (uint32_t)g;
}

/* The grid of `items` invocations (WG a group): 1-D up to MAX_GROUPS
 * groups, else rows of ROW_GROUPS groups (a dynamic extent's grid is this
 * rule written as scalar ops of n: lower_arrays.c, dynamic_grid). */
void vla_array_grid(uint64_t items, uint32_t grid[3]) {
  uint64_t row = (uint64_t)ROW_GROUPS * WG;
  bool small = items <= (uint64_t)MAX_GROUPS * WG;
  grid[0] = small ? vla_groups_for(items, WG, MAX_GROUPS) : ROW_GROUPS;
  grid[1] = small ? 1 : (uint32_t)((items + row - 1) / row);
  grid[2] = 1;
}

/* One item (an element, or a vec4 of them) per invocation, like a
 * hand-written kernel: a 1-D grid up to MAX_GROUPS workgroups, else rows
 * of ROW_GROUPS workgroups (item = x + y * row). No loop: a grid-stride
 * loop costs a loop per invocation where the back end cannot prove it
 * runs once (masked loops on CPU devices). `if (i < items)` only when
 * the grid is larger than the items. Sets *gx and l->gy; *open says
 * whether item_end must close the `if`. */
vir_value *vla_item_begin(lw *l, uint64_t items, uint32_t *gx, saved *sv, bool *open) {
  vir_value *i;
  uint64_t cover;
  uint32_t grid[3];
  vla_array_grid(items, grid);
  if (grid[1] == 1) {
    *gx = grid[0];
    l->gy = 1;
    i = vla_id_x(l, VIR_OP_GLOBAL_ID);
    cover = (uint64_t)*gx * WG;
  } else {
    uint64_t row = (uint64_t)ROW_GROUPS * WG;
    *gx = grid[0];
    l->gy = grid[1];
    vir_value *y = vla_bin(l, VIR_OP_MUL, id_xy(l, VIR_OP_GLOBAL_ID, true), vla_ku(l, row));
    i = vla_bin(l, VIR_OP_ADD, vla_id_x(l, VIR_OP_GLOBAL_ID), y);
    cover = row * l->gy;
  }
  *open = cover != items;
  if (*open)
    vla_if_begin(l, vla_bin(l, VIR_OP_LT, i, vla_ku(l, items)), sv);
  return i;
}

void vla_item_end(lw *l, saved sv, bool open) {
  if (open)
    vla_leave(l, sv);
}
