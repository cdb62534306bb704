/* builder.c - the op table, creating ops, result-type inference, literals.
 *
 * An op, its operand array and its regions are one arena allocation. The
 * builder inserts each new op at its insertion point and stamps it with the
 * builder's location; `for` gets its induction variable (the body region's
 * argument) here, typed like the lower bound.
 */
#include "ir_impl.h"

#include <math.h>
#include <string.h>

#define F(x) VIR_F_##x
const vir_op_info vir_op_infos[VIR_OP_COUNT] = {
#define VIR_OP(ID, NAME, NOPND, NREGION, RESULT, ATTR, FLAGS, SPELL) \
  {NAME, NOPND, NREGION, VIR_RES_##RESULT, VIR_ATTR_##ATTR, FLAGS, SPELL},
#include "vulpy/ir/ops.def"
#undef VIR_OP
};
#undef F

vir_opcode vir_opcode_lookup(const char *name, size_t len) {
  for (int c = 0; c < VIR_OP_COUNT; c++) {
    const char *n = vir_op_infos[c].name;
    if (n[0] == name[0] && strlen(n) == len && memcmp(n, name, len) == 0)
      return (vir_opcode)c;
  }
  return VIR_OP_COUNT;
}

/* ---------------------------------------------------------------- builder */

void vir_builder_init(vir_builder *b, vir_module *m) { *b = (vir_builder){.m = m}; }

void vir_builder_at_end(vir_builder *b, vir_region *r) {
  b->region = r;
  b->before = NULL;
  b->f = r->func;
}

void vir_builder_before(vir_builder *b, vir_op *op) {
  b->region = op->parent;
  b->before = op;
  b->f = op->parent ? op->parent->func : NULL;
}

vir_op *vir_new_op(vir_module *m, vir_func *f, vir_opcode code, vir_type *type, uint32_t nopnd,
                   vir_value *const *opnd) {
  const vir_op_info *info = vir_op_info_of(code);
  size_t size = sizeof(vir_op) + nopnd * sizeof(vir_value *) + info->nregion * sizeof(vir_region);
  vir_op *op = vp_arena_alloc(&m->arena, size);
  if (!op)
    return NULL;
  op->code = code;
  op->val.type = type ? type : vir_ty_void(m);
  op->val.def = op;
  op->val.id = f ? f->next_id++ : 0;
  op->regions = (vir_region *)(op + 1);
  op->opnd = (vir_value **)(op->regions + info->nregion);
  op->nopnd = nopnd;
  if (opnd) /* a loop: most ops have 1 to 3 operands, too few for a memcpy call */
    for (uint32_t i = 0; i < nopnd; i++)
      op->opnd[i] = opnd[i];
  for (uint32_t i = 0; i < info->nregion; i++) {
    op->regions[i].parent_op = op;
    op->regions[i].func = f;
  }
  if (code == VIR_OP_FOR && f) {
    vir_region *body = &op->regions[0];
    body->args = vp_arena_alloc(&m->arena, sizeof(vir_value *));
    if (!body->args)
      return NULL;
    body->args[0] = vir_new_value(f, &m->arena, nopnd && opnd && opnd[0] ? opnd[0]->type : NULL, body);
    body->nargs = 1;
  }
  return op;
}

vir_op *vir_build(vir_builder *b, vir_opcode code, vir_type *type, uint32_t nopnd,
                  vir_value *const *opnd) {
  vir_op *op = vir_new_op(b->m, b->f, code, type, nopnd, opnd);
  if (!op)
    return NULL;
  op->loc = b->loc;
  if (b->region)
    vir_region_insert(b->region, b->before, op);
  return op;
}

vir_op *vir_build_auto(vir_builder *b, vir_opcode code, uint32_t nopnd, vir_value *const *opnd) {
  vir_type *t = vir_infer_type(b->m, code, nopnd, opnd);
  return t ? vir_build(b, code, t, nopnd, opnd) : NULL;
}

vir_value *vir_build_const(vir_builder *b, vir_type *t, vir_literal v) {
  vir_op *op = vir_build(b, VIR_OP_CONST, t, 0, NULL);
  if (!op)
    return NULL;
  op->attr.lit = vir_lit_normalize(t, v);
  return &op->val;
}

vir_value *vir_build_int(vir_builder *b, vir_type *t, int64_t v) {
  vir_literal l = {.i = v};
  if (t->kind == VIR_TY_FLOAT)
    l.f = (double)v;
  else if (t->kind == VIR_TY_BOOL)
    l = (vir_literal){.u = v != 0};
  return vir_build_const(b, t, l);
}

vir_value *vir_build_float(vir_builder *b, vir_type *t, double v) {
  return vir_build_const(b, t, (vir_literal){.f = v});
}

/* --------------------------------------------------------------- literals */

/* Rounds to the nearest f16 value (ties to even), as a double. */
double vir_round_f16(double d) {
  if (isnan(d) || isinf(d) || d == 0)
    return d;
  double a = fabs(d);
  if (a >= 65520.0) /* half-way between 65504 and 2^16 rounds to even: inf */
    return copysign(INFINITY, d);
  int e;
  frexp(a, &e);
  int q = e - 11; /* 11 significant bits */
  if (q < -24)    /* subnormal quantum */
    q = -24;
  return copysign(ldexp(nearbyint(ldexp(a, -q)), q), d);
}

vir_literal vir_lit_normalize(const vir_type *t, vir_literal v) {
  vir_literal r = {0};
  switch (t->kind) {
  case VIR_TY_BOOL: r.u = (v.u & 0xff) != 0; break; /* .b's byte, read without a _Bool load */
  case VIR_TY_INT:
    if (t->bits == 64)
      r.i = v.i;
    else {
      unsigned sh = 64 - t->bits;
      r.i = (int64_t)((uint64_t)v.i << sh) >> sh;
    }
    break;
  case VIR_TY_UINT: r.u = t->bits == 64 ? v.u : v.u & ((1ull << t->bits) - 1); break;
  case VIR_TY_FLOAT:
    r.f = t->bits == 64 ? v.f : t->bits == 32 ? (double)(float)v.f : vir_round_f16(v.f);
    break;
  default: r = v;
  }
  return r;
}

/* -------------------------------------------------------------- inference */

static vir_type *u32(vir_module *m) { return vir_ty_uint(m, 32); }

/* ARITH: one type, or a vector and a scalar of its element type. */
vir_type *vir_arith_type(vir_type *a, vir_type *b) {
  if (a == b)
    return a;
  if (a->kind == VIR_TY_VEC && a->elem == b)
    return a;
  if (b->kind == VIR_TY_VEC && b->elem == a)
    return b;
  return NULL;
}

vir_type *vir_infer_type(vir_module *m, vir_opcode code, uint32_t nopnd, vir_value *const *opnd) {
  const vir_op_info *info = vir_op_info_of(code);
  if (info->nopnd != VIR_VARIADIC && (uint32_t)info->nopnd != nopnd)
    return NULL;
  for (uint32_t i = 0; i < nopnd; i++)
    if (!opnd[i] || !opnd[i]->type)
      return NULL;
  vir_type *t0 = nopnd ? opnd[0]->type : NULL;
  if (vir_op_is_elementwise(code)) {
    bool mismatch;
    if (vir_elementwise_shape(nopnd, opnd, &mismatch))
      return vir_elementwise_type(m, code, nopnd, opnd);
  }
  switch ((vir_result_rule)info->result) {
  case VIR_RES_VOID: return vir_ty_void(m);
  case VIR_RES_SAME:
    for (uint32_t i = 1; i < nopnd; i++)
      if (opnd[i]->type != t0)
        return NULL;
    return t0;
  case VIR_RES_SAME0: return t0;
  case VIR_RES_ARITH: return vir_arith_type(t0, opnd[1]->type);
  case VIR_RES_CMP:
    if (nopnd == 2 && opnd[1]->type != t0)
      return NULL;
    if (!vir_ty_is_scalar(t0) && t0->kind != VIR_TY_VEC)
      return NULL;
    return vir_ty_with_scalar(m, t0, vir_ty_bool(m));
  case VIR_RES_SCALAR: return (vir_type *)vir_ty_scalar_of(t0);
  case VIR_RES_SELECT: return opnd[1]->type == opnd[2]->type ? opnd[1]->type : NULL;
  case VIR_RES_BOOL: return vir_ty_bool(m);
  case VIR_RES_EXPLICIT: break;
  }
  switch (code) {
  case VIR_OP_GLOBAL_ID:
  case VIR_OP_LOCAL_ID:
  case VIR_OP_WORKGROUP_ID:
  case VIR_OP_NUM_WORKGROUPS:
  case VIR_OP_WORKGROUP_SIZE: return vir_ty_vec(m, u32(m), 3);
  case VIR_OP_LOCAL_INDEX:
  case VIR_OP_SUBGROUP_LANE:
  case VIR_OP_SUBGROUP_SIZE:
  case VIR_OP_SUBGROUP_ID:
  case VIR_OP_NUM_SUBGROUPS:
  case VIR_OP_PERSIST_GROUP_ID:
  case VIR_OP_PERSIST_NUM_GROUPS:
  case VIR_OP_BUFFER_LEN: return u32(m);
  case VIR_OP_SG_BALLOT: return vir_ty_vec(m, u32(m), 4);
  case VIR_OP_SG_ELECT: return vir_ty_bool(m);
  case VIR_OP_TRANSPOSE:
    return t0->kind == VIR_TY_MAT ? vir_ty_mat(m, t0->elem->elem, t0->rows, t0->n) : NULL;
  case VIR_OP_MATMUL: return vir_matmul_type(m, t0, opnd[1]->type);
  default: return NULL;
  }
}

/* matrix * matrix, matrix * column vector, row vector * matrix. */
vir_type *vir_matmul_type(vir_module *m, const vir_type *a, const vir_type *b) {
  if (a->kind == VIR_TY_MAT && b->kind == VIR_TY_MAT && a->elem->elem == b->elem->elem &&
      a->n == b->rows)
    return vir_ty_mat(m, a->elem->elem, b->n, a->rows);
  if (a->kind == VIR_TY_MAT && b->kind == VIR_TY_VEC && b->elem == a->elem->elem && b->n == a->n)
    return a->elem;
  if (a->kind == VIR_TY_VEC && b->kind == VIR_TY_MAT && a->elem == b->elem->elem && a->n == b->rows)
    return vir_ty_vec(m, a->elem, b->n);
  return NULL;
}
