/* features.c - the optional device features a module needs.
 *
 * Rules (docs/ir.md, "Device features"):
 *   - an SSA value (op result, parameter, local) of a 64-bit float / 64-bit
 *     int / 16-bit int / 16-bit float / 8-bit int type needs float64 /
 *     int64 / int16 / float16 / int8 (the arithmetic capability: the value
 *     lives in registers); shared arrays count as values;
 *   - a buffer or the push block holding 8- or 16-bit members needs
 *     storage8 / storage16 (what the GLSL extension enables), and the push
 *     block also push_constant8 / push_constant16 (the device features
 *     storagePushConstant8/16, which Vulkan keeps apart from buffers);
 *   - atomics on 64-bit ints need atomic_int64, on floats atomic_float;
 *   - subgroup ops need their class: ids and elect basic, reductions and
 *     scans arithmetic, ballot and broadcasts ballot, shuffle / shuffle_xor
 *     shuffle, shuffle_up/down shuffle_relative, all/any vote;
 *   - atomic.load / atomic.store, and any queue_family scope, need the
 *     Vulkan memory model.
 */
#include "ir_impl.h"

/* Arithmetic features for a value type (recursing through aggregates). */
static uint32_t value_features(const vir_type *t, int depth) {
  if (!t || depth > 16)
    return 0;
  switch (t->kind) {
  case VIR_TY_INT:
  case VIR_TY_UINT:
    return t->bits == 64 ? VP_FEAT(INT64) : t->bits == 16 ? VP_FEAT(INT16) : t->bits == 8 ? VP_FEAT(INT8) : 0;
  case VIR_TY_FLOAT: return t->bits == 64 ? VP_FEAT(FLOAT64) : t->bits == 16 ? VP_FEAT(FLOAT16) : 0;
  case VIR_TY_VEC:
  case VIR_TY_MAT:
  case VIR_TY_ARRAY:
  case VIR_TY_TENSOR: return value_features(t->elem, depth + 1);
  case VIR_TY_STRUCT: {
    uint32_t f = 0;
    for (uint32_t i = 0; i < t->st->nfields; i++)
      f |= value_features(t->st->fields[i].type, depth + 1);
    return f;
  }
  default: return 0;
  }
}

/* Storage features for memory holding `t`: 8/16-bit members, plus the
 * 64-bit capabilities (a 64-bit member is still a 64-bit type). */
static uint32_t storage_features(const vir_type *t) {
  uint32_t v = value_features(t, 0), f = v & (VP_FEAT(INT64) | VP_FEAT(FLOAT64));
  if (v & VP_FEAT(INT8))
    f |= VP_FEAT(STORAGE8);
  if (v & (VP_FEAT(INT16) | VP_FEAT(FLOAT16)))
    f |= VP_FEAT(STORAGE16);
  return f;
}

static uint32_t subgroup_class(vir_opcode c) {
  switch (c) {
  case VIR_OP_SUBGROUP_LANE:
  case VIR_OP_SUBGROUP_SIZE:
  case VIR_OP_SUBGROUP_ID:
  case VIR_OP_NUM_SUBGROUPS:
  case VIR_OP_SG_ELECT:
  case VIR_OP_SG_BARRIER: return VP_FEAT(SUBGROUP_BASIC);
  case VIR_OP_SG_ADD:
  case VIR_OP_SG_MUL:
  case VIR_OP_SG_MIN:
  case VIR_OP_SG_MAX:
  case VIR_OP_SG_AND:
  case VIR_OP_SG_OR:
  case VIR_OP_SG_XOR:
  case VIR_OP_SG_INCLUSIVE_ADD:
  case VIR_OP_SG_EXCLUSIVE_ADD: return VP_FEAT(SUBGROUP_BASIC) | VP_FEAT(SUBGROUP_ARITH);
  case VIR_OP_SG_BALLOT:
  case VIR_OP_SG_BROADCAST:
  case VIR_OP_SG_BROADCAST_FIRST: return VP_FEAT(SUBGROUP_BASIC) | VP_FEAT(SUBGROUP_BALLOT);
  case VIR_OP_SG_SHUFFLE:
  case VIR_OP_SG_SHUFFLE_XOR: return VP_FEAT(SUBGROUP_BASIC) | VP_FEAT(SUBGROUP_SHUFFLE);
  case VIR_OP_SG_SHUFFLE_UP:
  case VIR_OP_SG_SHUFFLE_DOWN: return VP_FEAT(SUBGROUP_BASIC) | VP_FEAT(SUBGROUP_SHUFFLE_REL);
  case VIR_OP_SG_ALL:
  case VIR_OP_SG_ANY: return VP_FEAT(SUBGROUP_BASIC) | VP_FEAT(SUBGROUP_VOTE);
  default: return 0;
  }
}

static vir_walk_result op_features(vir_op *op, void *ctx) {
  uint32_t *f = ctx;
  const vir_op_info *info = vir_op_info_of(op->code);
  *f |= value_features(vir_result(op) ? op->val.type : NULL, 0);
  for (uint32_t i = 0; i < info->nregion; i++)
    for (uint32_t j = 0; j < op->regions[i].nargs; j++)
      *f |= value_features(op->regions[i].args[j]->type, 0);
  if (info->flags & VIR_F_SUBGROUP)
    *f |= subgroup_class(op->code);
  if (info->attr == VIR_ATTR_ATOMIC) {
    const vir_type *t = op->attr.sym ? vir_path_type((vir_type *)vir_sym_path_base(op->attr.sym),
                                                     op->attr.npath, op->attr.path) : NULL;
    if (t && t->kind == VIR_TY_FLOAT)
      *f |= VP_FEAT(ATOMIC_FLOAT);
    else if (t && t->bits == 64)
      *f |= VP_FEAT(ATOMIC64);
    if (op->code == VIR_OP_ATOMIC_LOAD || op->code == VIR_OP_ATOMIC_STORE)
      *f |= VP_FEAT(MEMORY_MODEL);
  }
  if ((info->attr == VIR_ATTR_ATOMIC || info->attr == VIR_ATTR_SCOPE) &&
      op->attr.scope == VIR_SCOPE_QUEUE_FAMILY)
    *f |= VP_FEAT(MEMORY_MODEL);
  return VIR_WALK_ADVANCE;
}

uint32_t vir_module_features(const vir_module *m) {
  uint32_t f = 0;
  for (uint32_t i = 0; i < m->syms.len; i++) {
    const vir_sym *s = m->syms.data[i];
    switch (s->kind) {
    case VIR_SYM_BUFFER: f |= storage_features(s->type); break;
    case VIR_SYM_PUSH: {
      uint32_t p = storage_features(s->type);
      f |= p | (p & VP_FEAT(STORAGE8) ? VP_FEAT(PUSH8) : 0) |
           (p & VP_FEAT(STORAGE16) ? VP_FEAT(PUSH16) : 0);
      break;
    }
    case VIR_SYM_SHARED:
    case VIR_SYM_CONST: f |= value_features(s->type, 0); break;
    case VIR_SYM_FUNC:
      if (!s->func)
        break;
      for (uint32_t j = 0; j < s->func->body.nargs; j++)
        f |= value_features(s->func->body.args[j]->type, 0);
      for (uint32_t j = 0; j < s->func->locals.len; j++)
        f |= value_features(((vir_sym *)s->func->locals.data[j])->type, 0);
      f |= value_features(s->func->ret, 0);
      vir_walk_func(s->func, op_features, &f);
      break;
    default: break;
    }
  }
  return f;
}
