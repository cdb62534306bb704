/* guard.c - the dispatch guard in kernels that call vp.barrier().
 *
 * `dispatch=N` runs whole workgroups, and the guard (kernel.c) makes the
 * invocations past N return at once. A kernel with a workgroup barrier
 * cannot do that: barrier() must be reached by every invocation of the
 * workgroup (an early return before it is undefined behaviour, a hang or
 * wrong results on real GPUs). So in such a kernel the early return goes,
 * and the invocations past N run the body *predicated*, as CUDA code
 * written with `if (i < n)` around each access would:
 *   - every buffer store and buffer atomic sits in `if in_range { ... }`
 *     (an atomic's old value, when used, comes through a local that is
 *     zero for the others);
 *   - every buffer load reads element 0 instead of its index (in bounds
 *     for any non-empty buffer) and yields zero (scalars and vectors);
 *   - barriers, shared memory and subgroup operations are untouched: the
 *     extra invocations take part in them with the values they computed.
 * `in_range` is recomputed at the top of each helper the kernel calls
 * (global_id and the push block are visible everywhere). Kernels without
 * a barrier keep the early return.
 */
#include <stdio.h>
#include <string.h>

#include "fe.h"

static bool is_buffer_op(const vir_op *op) {
  return op->attr.sym && op->attr.sym->kind == VIR_SYM_BUFFER;
}

static vir_walk_result find_barrier(vir_op *op, void *ctx) {
  if (op->code == VIR_OP_BARRIER || op->code == VIR_OP_SG_BARRIER) {
    *(bool *)ctx = true;
    return VIR_WALK_STOP;
  }
  return VIR_WALK_ADVANCE;
}

typedef struct {
  vfe_ctx *c;
  vp_ptrvec ops; /* the buffer accesses to predicate, gathered before any change */
} gather;

static vir_walk_result gather_op(vir_op *op, void *ctx) {
  gather *g = ctx;
  switch (op->code) {
  case VIR_OP_BUFFER_LOAD:
  case VIR_OP_BUFFER_STORE:
  case VIR_OP_ATOMIC_ADD:
  case VIR_OP_ATOMIC_MIN:
  case VIR_OP_ATOMIC_MAX:
  case VIR_OP_ATOMIC_AND:
  case VIR_OP_ATOMIC_OR:
  case VIR_OP_ATOMIC_XOR:
  case VIR_OP_ATOMIC_XCHG:
  case VIR_OP_ATOMIC_CMPXCHG:
  case VIR_OP_ATOMIC_LOAD:
  case VIR_OP_ATOMIC_STORE:
    if (is_buffer_op(op) && !vp_ptrvec_push(&g->c->arena, &g->ops, op))
      longjmp(g->c->oom, 1);
    break;
  default: break;
  }
  return VIR_WALK_ADVANCE;
}

static vir_op *build(vfe_ctx *c, vir_builder *b, vir_opcode code, vir_type *t, uint32_t n,
                     vir_value *const *opnd) {
  vir_op *op = vir_build(b, code, t, n, opnd);
  if (!op)
    longjmp(c->oom, 1);
  return op;
}

/* A zero of scalar or vector type `t`, or NULL for other types. */
static vir_value *zero_of(vfe_ctx *c, vir_builder *b, vir_type *t) {
  const vir_type *s = vir_ty_scalar_of(t);
  if (!s || (t->kind != VIR_TY_VEC && !vir_ty_is_scalar(t)))
    return NULL;
  vir_value *z = vir_ty_is_float(s) ? vir_build_float(b, (vir_type *)s, 0.0)
                                    : vir_build_int(b, (vir_type *)s, 0);
  if (!z)
    longjmp(c->oom, 1);
  if (t->kind != VIR_TY_VEC)
    return z;
  vir_value *lanes[4] = {z, z, z, z};
  return vir_result(build(c, b, VIR_OP_CONSTRUCT, t, vir_ty_width(t), lanes));
}

/* in_range = !any(global_id >= _vp_count), built at the top of `f`. */
static vir_value *in_range_at_top(vfe_ctx *c, vir_func *f, vp_loc loc) {
  vir_builder b;
  vir_builder_init(&b, c->m);
  b.f = f;
  if (f->body.first)
    vir_builder_before(&b, f->body.first);
  else
    vir_builder_at_end(&b, &f->body);
  b.f = f;
  b.loc = loc;
  vir_type *u32 = vir_ty_uint(c->m, 32), *v3 = vir_ty_vec(c->m, u32, 3);
  vir_value *gid = vir_result(build(c, &b, VIR_OP_GLOBAL_ID, v3, 0, NULL));
  vir_op *ld = build(c, &b, VIR_OP_PUSH_LOAD, v3, 0, NULL);
  ld->attr.sym = c->push;
  ld->attr.npath = 1;
  ld->attr.path[0] = (uint8_t)c->count_field;
  vir_value *cmp[2] = {gid, vir_result(ld)};
  vir_value *past = vir_result(build(c, &b, VIR_OP_GE, vir_ty_vec(c->m, vir_ty_bool(c->m), 3), 2, cmp));
  vir_value *any = vir_result(build(c, &b, VIR_OP_ANY, vir_ty_bool(c->m), 1, &past));
  return vir_result(build(c, &b, VIR_OP_LNOT, vir_ty_bool(c->m), 1, &any));
}

/* Moves `op` into `if in_range { op }`; an atomic's used result comes
 * through a zero-initialized local. */
static void wrap_in_if(vfe_ctx *c, vir_func *f, vir_op *op, vir_value *in_range, unsigned *nlocals) {
  vir_builder b;
  vir_builder_init(&b, c->m);
  vir_builder_before(&b, op);
  b.f = f;
  b.loc = op->loc;
  vir_value *r = vir_result(op);
  vir_sym *local = NULL;
  if (r) {
    vir_func_count_uses(f);
    if (r->nuses) {
      char name[32];
      snprintf(name, sizeof name, "_vp_old%u", (*nlocals)++);
      local = vir_func_add_local(c->m, f, vfe_mstrdup(c, name), r->type, op->loc);
      if (!local)
        longjmp(c->oom, 1);
      vir_value *z = zero_of(c, &b, r->type);
      if (z)
        build(c, &b, VIR_OP_LOCAL_STORE, NULL, 1, &z)->attr.sym = local;
    }
  }
  vir_op *iff = build(c, &b, VIR_OP_IF, NULL, 1, &in_range);
  if (local) {
    vir_builder_init(&b, c->m);
    if (iff->next)
      vir_builder_before(&b, iff->next);
    else
      vir_builder_at_end(&b, iff->parent);
    b.f = f;
    b.loc = op->loc;
    vir_op *ld = build(c, &b, VIR_OP_LOCAL_LOAD, r->type, 0, NULL);
    ld->attr.sym = local;
    vir_replace_all_uses(f, r, vir_result(ld));
  }
  vir_op_unlink(op);
  vir_region_insert(&iff->regions[0], NULL, op);
  if (local) {
    vir_builder_init(&b, c->m);
    vir_builder_at_end(&b, &iff->regions[0]);
    b.f = f;
    b.loc = op->loc;
    build(c, &b, VIR_OP_LOCAL_STORE, NULL, 1, &r)->attr.sym = local;
  }
}

/* A load reads element 0 out of range, and gives zero. */
static void predicate_load(vfe_ctx *c, vir_func *f, vir_op *op, vir_value *in_range) {
  vir_builder b;
  vir_builder_init(&b, c->m);
  vir_builder_before(&b, op);
  b.f = f;
  b.loc = op->loc;
  vir_value *idx = op->opnd[0];
  vir_value *sel[3] = {in_range, idx, vir_build_int(&b, idx->type, 0)};
  if (!sel[2])
    longjmp(c->oom, 1);
  op->opnd[0] = vir_result(build(c, &b, VIR_OP_SELECT, idx->type, 3, sel));
  vir_value *r = vir_result(op);
  if (!r)
    return;
  vir_builder_init(&b, c->m);
  if (op->next)
    vir_builder_before(&b, op->next);
  else
    vir_builder_at_end(&b, op->parent);
  b.f = f;
  b.loc = op->loc;
  vir_value *z = zero_of(c, &b, r->type);
  if (!z)
    return; /* a struct: element 0's value */
  vir_value *cond = in_range;
  vir_value *pick[3] = {cond, r, z};
  vir_op *s = build(c, &b, VIR_OP_SELECT, r->type, 3, pick);
  vir_replace_all_uses(f, r, vir_result(s));
  s->opnd[1] = r; /* the select itself keeps the load */
}

static void predicate_func(vfe_ctx *c, vir_func *f, vir_value *in_range, vp_loc loc) {
  gather g = {.c = c};
  vir_walk_func(f, gather_op, &g);
  if (!g.ops.len)
    return;
  if (!in_range)
    in_range = in_range_at_top(c, f, loc);
  unsigned nlocals = 0;
  for (uint32_t i = 0; i < g.ops.len; i++) {
    vir_op *op = g.ops.data[i];
    if (op->code == VIR_OP_BUFFER_LOAD || op->code == VIR_OP_ATOMIC_LOAD)
      predicate_load(c, f, op, in_range);
    else
      wrap_in_if(c, f, op, in_range, &nlocals);
  }
}

void vfe_guard_barriers(vfe_ctx *c, vir_func *kernel, vir_op *guard_if) {
  if (!guard_if || !c->push)
    return;
  bool barrier = false;
  for (uint32_t i = 0; i < c->m->syms.len && !barrier; i++) {
    vir_sym *s = c->m->syms.data[i];
    if (s->kind == VIR_SYM_FUNC && s->func)
      vir_walk_func(s->func, find_barrier, &barrier);
  }
  if (!barrier)
    return;
  /* The guard's `if past { return }` goes; its `any` stays as the flag. */
  vir_value *past = guard_if->opnd[0];
  vir_builder b;
  vir_builder_init(&b, c->m);
  vir_builder_before(&b, guard_if);
  b.f = kernel;
  b.loc = guard_if->loc;
  vir_value *in_range = vir_result(build(c, &b, VIR_OP_LNOT, vir_ty_bool(c->m), 1, &past));
  vir_op_unlink(guard_if);
  for (uint32_t i = 0; i < c->m->syms.len; i++) {
    vir_sym *s = c->m->syms.data[i];
    if (s->kind == VIR_SYM_FUNC && s->func)
      predicate_func(c, s->func, s->func == kernel ? in_range : NULL, kernel->loc);
  }
}
