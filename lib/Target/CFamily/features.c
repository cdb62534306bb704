/* features.c - does the kernel fit the device profile?
 *
 * vir_module_features() says what the kernel needs; vtg_options.features
 * says what the target may use. For each missing feature the error names
 * the first thing that needs it: an op (by its VIR name, at its source
 * line) or, for a buffer/shared/push declaration, the symbol.
 */
#include "cfamily.h"

/* Features the types of a value need. */
static uint32_t type_features(const vir_type *t) {
  if (!t)
    return 0;
  switch (t->kind) {
  case VIR_TY_INT:
  case VIR_TY_UINT:
    return t->bits == 64 ? VP_FEAT(INT64) : t->bits == 16 ? VP_FEAT(INT16) : t->bits == 8 ? VP_FEAT(INT8) : 0;
  case VIR_TY_FLOAT: return t->bits == 64 ? VP_FEAT(FLOAT64) : t->bits == 16 ? VP_FEAT(FLOAT16) : 0;
  case VIR_TY_VEC:
  case VIR_TY_MAT:
  case VIR_TY_ARRAY: return type_features(t->elem);
  case VIR_TY_STRUCT: {
    uint32_t f = 0;
    for (uint32_t i = 0; i < t->st->nfields; i++)
      f |= type_features(t->st->fields[i].type);
    return f;
  }
  default: return 0;
  }
}

/* 8/16-bit values in memory need the storage features, not arithmetic. */
static uint32_t storage_features(const vir_type *t) {
  uint32_t f = type_features(t);
  uint32_t out = f & ~(VP_FEAT(INT8) | VP_FEAT(INT16) | VP_FEAT(FLOAT16));
  if (f & VP_FEAT(INT8))
    out |= VP_FEAT(STORAGE8);
  if (f & (VP_FEAT(INT16) | VP_FEAT(FLOAT16)))
    out |= VP_FEAT(STORAGE16);
  return out;
}

uint32_t cf_op_features(const vir_op *op) {
  const vir_op_info *info = vir_op_info_of(op->code);
  uint32_t f = 0;
  bool memory = op->code == VIR_OP_BUFFER_LOAD || op->code == VIR_OP_BUFFER_STORE ||
                op->code == VIR_OP_CAST;
  for (uint32_t i = 0; i < op->nopnd; i++)
    f |= memory ? storage_features(op->opnd[i]->type) : type_features(op->opnd[i]->type);
  if (op->val.type)
    f |= memory ? storage_features(op->val.type) : type_features(op->val.type);
  if (op->code == VIR_OP_BUFFER_LOAD || op->code == VIR_OP_BUFFER_STORE)
    f |= storage_features(op->attr.sym->type);
  if (info->flags & VIR_F_SUBGROUP) {
    f |= VP_FEAT(SUBGROUP_BASIC);
    switch (op->code) {
    case VIR_OP_SG_ADD:
    case VIR_OP_SG_MUL:
    case VIR_OP_SG_MIN:
    case VIR_OP_SG_MAX:
    case VIR_OP_SG_AND:
    case VIR_OP_SG_OR:
    case VIR_OP_SG_XOR:
    case VIR_OP_SG_INCLUSIVE_ADD:
    case VIR_OP_SG_EXCLUSIVE_ADD: f |= VP_FEAT(SUBGROUP_ARITH); break;
    case VIR_OP_SG_ALL:
    case VIR_OP_SG_ANY: f |= VP_FEAT(SUBGROUP_VOTE); break;
    case VIR_OP_SG_BALLOT:
    case VIR_OP_SG_ELECT:
    case VIR_OP_SG_BROADCAST:
    case VIR_OP_SG_BROADCAST_FIRST: f |= VP_FEAT(SUBGROUP_BALLOT); break;
    case VIR_OP_SG_SHUFFLE:
    case VIR_OP_SG_SHUFFLE_XOR: f |= VP_FEAT(SUBGROUP_SHUFFLE); break;
    case VIR_OP_SG_SHUFFLE_UP:
    case VIR_OP_SG_SHUFFLE_DOWN: f |= VP_FEAT(SUBGROUP_SHUFFLE_REL); break;
    default: break;
    }
    if (op->code == VIR_OP_SG_ELECT)
      f &= ~VP_FEAT(SUBGROUP_BALLOT); /* elect is basic */
  }
  if (op->code >= VIR_OP_ATOMIC_ADD && op->code <= VIR_OP_ATOMIC_STORE) {
    const vir_type *t = op->nopnd > 1 ? op->opnd[op->nopnd - 1]->type : op->val.type;
    const vir_type *s = t ? vir_ty_scalar_of(t) : NULL;
    if (s && s->bits == 64 && s->kind != VIR_TY_FLOAT)
      f |= VP_FEAT(ATOMIC64);
    if (s && s->kind == VIR_TY_FLOAT && op->code != VIR_OP_ATOMIC_LOAD && op->code != VIR_OP_ATOMIC_STORE)
      f |= VP_FEAT(ATOMIC_FLOAT);
  }
  return f;
}

typedef struct find_ctx {
  uint32_t bit;
  const vir_op *found;
} find_ctx;

static const vir_op *find_op(const vir_region *r, uint32_t bit) {
  for (const vir_op *op = r->first; op; op = op->next) {
    if (cf_op_features(op) & bit)
      return op;
    for (uint32_t i = 0; i < vir_op_info_of(op->code)->nregion; i++) {
      const vir_op *in = find_op(&op->regions[i], bit);
      if (in)
        return in;
    }
  }
  return NULL;
}

static const char *sym_kind(vir_sym_kind k) {
  switch (k) {
  case VIR_SYM_BUFFER: return "buffer";
  case VIR_SYM_SHARED: return "shared array";
  case VIR_SYM_PUSH: return "push constant block";
  case VIR_SYM_CONST: return "constant";
  default: return "symbol";
  }
}

bool cf_check_features(cf_printer *p) {
  const vir_module *m = p->m;
  uint32_t need = vir_module_features(m);
  /* the kernel's own ops may need more than the module table says */
  for (uint32_t i = 0; i < m->syms.len; i++) {
    const vir_sym *s = m->syms.data[i];
    if (s->kind == VIR_SYM_FUNC) {
      for (uint32_t b = 0; b < VP_FEATURE_COUNT; b++)
        if (find_op(&s->func->body, 1u << b))
          need |= 1u << b;
    }
  }
  uint32_t missing = need & ~p->o->features;
  if (!missing)
    return true;
  for (uint32_t b = 0; b < VP_FEATURE_COUNT; b++) {
    uint32_t bit = 1u << b;
    if (!(missing & bit))
      continue;
    const char *fname = vp_feature_name(b);
    const vir_op *op = NULL;
    for (uint32_t i = 0; i < m->syms.len && !op; i++) {
      const vir_sym *s = m->syms.data[i];
      if (s->kind == VIR_SYM_FUNC)
        op = find_op(&s->func->body, bit);
    }
    if (op) {
      cf_error(p, op->loc, "%s needs %s, which the target profile does not have",
               vir_op_info_of(op->code)->name, fname);
      continue;
    }
    const vir_sym *decl = NULL;
    for (uint32_t i = 0; i < m->syms.len && !decl; i++) {
      const vir_sym *s = m->syms.data[i];
      if (s->kind != VIR_SYM_FUNC && (storage_features(s->type) & bit))
        decl = s;
    }
    if (decl)
      cf_error(p, decl->loc, "%s '%s' needs %s, which the target profile does not have",
               sym_kind(decl->kind), decl->name, fname);
    else
      cf_error(p, p->kernel->loc, "kernel '%s' needs %s, which the target profile does not have",
               p->kernel->sym->name, fname);
  }
  return false;
}
