/* verify_ops.c - the type rules of each op (docs/ir.md, "Ops").
 *
 * First the op's result rule from ops.def (SAME, ARITH, CMP, ...) and its
 * operand class flags (NUM, INT, FLOAT, BOOL); then the rules of the ops
 * whose result is EXPLICIT, which each need their own check: memory ops
 * against their symbol, access path and buffer access, atomics, calls,
 * conversions, vector construction, control flow.
 */
#include "verify.h"

#include <string.h>

#define ERR(c, op, ...) vir_verror((c), (op)->loc, __VA_ARGS__)

static const char *tname(const vir_type *t) { return t ? t->str : "none"; }
static const char *oname(const vir_op *op) { return vir_op_info_of(op->code)->name; }

static bool is_scalar_or_vec(const vir_type *t) { return vir_ty_is_scalar(t) || t->kind == VIR_TY_VEC; }
static bool is_int_scalar(const vir_type *t) { return t->kind == VIR_TY_INT || t->kind == VIR_TY_UINT; }

/* The operand class of NUM/INT/FLOAT/BOOL ops; matrices only for the
 * linear-algebra ops. */
static bool check_class(vctx *c, const vir_op *op, uint32_t i) {
  uint32_t fl = vir_op_info_of(op->code)->flags;
  const vir_type *t = op->opnd[i]->type;
  bool mat_ok = op->code == VIR_OP_MATMUL || op->code == VIR_OP_TRANSPOSE;
  const char *want = NULL;
  if ((fl & VIR_F_NUM) && !(is_scalar_or_vec(t) && !vir_ty_is_bool(t)))
    want = "a number (int, uint or float scalar or vector)";
  else if ((fl & VIR_F_INT) && !vir_ty_is_int(t))
    want = "an integer (scalar or vector)";
  else if ((fl & VIR_F_FLOAT) && !(vir_ty_is_float(t) && (mat_ok || t->kind != VIR_TY_MAT)))
    want = mat_ok ? "a float vector or matrix" : "a float (scalar or vector)";
  else if ((fl & VIR_F_BOOL) && !vir_ty_is_bool(t))
    want = "a bool (scalar or vector)";
  if (want) {
    ERR(c, op, "'%s' operand %u must be %s, not %s", oname(op), i + 1, want, tname(t));
    return false;
  }
  return true;
}

static void want_result(vctx *c, const vir_op *op, const vir_type *want, const char *why) {
  if (want && op->val.type != want)
    ERR(c, op, "'%s' result must be %s%s, not %s", oname(op), tname(want), why, tname(op->val.type));
}

/* ------------------------------------------------------------ memory ops */

static vir_sym_kind expected_sym(vir_opcode code) {
  switch (code) {
  case VIR_OP_PUSH_LOAD: return VIR_SYM_PUSH;
  case VIR_OP_GCONST: return VIR_SYM_CONST;
  case VIR_OP_SHARED_LOAD:
  case VIR_OP_SHARED_STORE: return VIR_SYM_SHARED;
  case VIR_OP_LOCAL_LOAD:
  case VIR_OP_LOCAL_STORE:
  case VIR_OP_LOCAL_LOAD_AT:
  case VIR_OP_LOCAL_STORE_AT: return VIR_SYM_LOCAL;
  case VIR_OP_CALL: return VIR_SYM_FUNC;
  default: return VIR_SYM_BUFFER; /* buffer ops and atomics (which also take shared) */
  }
}

/* The symbol, its kind, the index operand and the path; returns the type
 * at the end of the path, or NULL after reporting. */
static const vir_type *check_access(vctx *c, const vir_op *op, bool indexed) {
  const vir_sym *s = op->attr.sym;
  if (!s) {
    ERR(c, op, "'%s' names no symbol", oname(op));
    return NULL;
  }
  vir_sym_kind want = expected_sym(op->code);
  bool atomic = vir_op_info_of(op->code)->attr == VIR_ATTR_ATOMIC;
  if (s->kind != want && !(atomic && s->kind == VIR_SYM_SHARED)) {
    ERR(c, op, "'%s' needs a %s%s, but @%s is a %s", oname(op), vir_sym_kind_name(want),
        atomic ? " or shared array" : "", s->name, vir_sym_kind_name(s->kind));
    return NULL;
  }
  if (s->kind == VIR_SYM_LOCAL && vir_func_find_local(c->f, s->name) != s) {
    ERR(c, op, "local @%s does not belong to @%s", s->name, c->f->sym->name);
    return NULL;
  }
  if (indexed && !(vir_ty_is_scalar(op->opnd[0]->type) && is_int_scalar(op->opnd[0]->type))) {
    ERR(c, op, "'%s' index must be an integer scalar, not %s", oname(op), tname(op->opnd[0]->type));
    return NULL;
  }
  if (!vir_sym_path_base(s))
    return NULL;
  const vir_type *base = vir_sym_path_base(s);
  if (op->code == VIR_OP_LOCAL_LOAD_AT || op->code == VIR_OP_LOCAL_STORE_AT) {
    if (base->kind != VIR_TY_ARRAY) {
      ERR(c, op, "'%s' needs a local of array type, but @%s is %s", oname(op), s->name, tname(base));
      return NULL;
    }
    base = base->elem; /* the path starts at the element */
  }
  const vir_type *t = vir_path_type((vir_type *)base, op->attr.npath, op->attr.path);
  if (!t || op->attr.npath > VIR_MAX_PATH) {
    ERR(c, op, "'%s' has an invalid access path into @%s", oname(op), s->name);
    return NULL;
  }
  if (s->kind == VIR_SYM_BUFFER) {
    bool reads = vir_op_info_of(op->code)->flags & VIR_F_READMEM;
    bool writes = vir_op_info_of(op->code)->flags & VIR_F_WRITEMEM;
    if (writes && s->access == VIR_ACCESS_READONLY)
      ERR(c, op, "'%s' writes to readonly buffer @%s", oname(op), s->name);
    else if (reads && s->access == VIR_ACCESS_WRITEONLY)
      ERR(c, op, "'%s' reads from writeonly buffer @%s", oname(op), s->name);
  }
  return t;
}

static void check_store_value(vctx *c, const vir_op *op, const vir_type *dst, const vir_value *v) {
  if (dst && v->type != dst)
    ERR(c, op, "'%s' value has type %s, but the destination holds %s", oname(op), tname(v->type),
        tname(dst));
}

static void check_atomic(vctx *c, const vir_op *op) {
  const vir_type *t = check_access(c, op, true);
  if (!t)
    return;
  bool float_ok = op->code == VIR_OP_ATOMIC_ADD || op->code == VIR_OP_ATOMIC_XCHG ||
                  op->code == VIR_OP_ATOMIC_LOAD || op->code == VIR_OP_ATOMIC_STORE;
  bool ok = (is_int_scalar(t) && (t->bits == 32 || t->bits == 64)) ||
            (float_ok && t->kind == VIR_TY_FLOAT && t->bits == 32);
  if (!ok) {
    ERR(c, op, "'%s' needs a 32- or 64-bit integer%s element, not %s", oname(op),
        float_ok ? " (or f32)" : "", tname(t));
    return;
  }
  for (uint32_t i = 1; i < op->nopnd; i++)
    if (op->opnd[i]->type != t)
      ERR(c, op, "'%s' operand %u has type %s, but the element is %s", oname(op), i + 1,
          tname(op->opnd[i]->type), tname(t));
  if (op->code != VIR_OP_ATOMIC_STORE)
    want_result(c, op, t, " (the element type)");
  if (op->attr.scope == VIR_SCOPE_INVOCATION)
    ERR(c, op, "'%s' needs a scope wider than invocation", oname(op));
  if (op->attr.sym->kind == VIR_SYM_SHARED && op->attr.scope > VIR_SCOPE_WORKGROUP)
    ERR(c, op, "'%s' on shared @%s cannot have %s scope", oname(op), op->attr.sym->name,
        vir_scope_name(op->attr.scope));
  if (op->code == VIR_OP_ATOMIC_LOAD && (op->attr.sem == VIR_SEM_RELEASE || op->attr.sem == VIR_SEM_ACQ_REL))
    ERR(c, op, "'atomic.load' cannot have %s semantics", vir_semantics_name(op->attr.sem));
  if (op->code == VIR_OP_ATOMIC_STORE && (op->attr.sem == VIR_SEM_ACQUIRE || op->attr.sem == VIR_SEM_ACQ_REL))
    ERR(c, op, "'atomic.store' cannot have %s semantics", vir_semantics_name(op->attr.sem));
}

/* ---------------------------------------------------------- other ops */

static void check_construct(vctx *c, const vir_op *op) {
  const vir_type *t = op->val.type;
  if (!op->nopnd) {
    ERR(c, op, "'construct' needs at least one operand");
    return;
  }
  if (t->kind == VIR_TY_VEC || t->kind == VIR_TY_MAT) {
    const vir_type *s = vir_ty_scalar_of(t);
    uint32_t total = t->kind == VIR_TY_VEC ? t->n : (uint32_t)t->n * t->rows, got = 0;
    for (uint32_t i = 0; i < op->nopnd; i++) {
      const vir_type *o = op->opnd[i]->type;
      if (o == s)
        got += 1;
      else if (o->kind == VIR_TY_VEC && o->elem == s && !(t->kind == VIR_TY_MAT && o != t->elem))
        got += o->n;
      else {
        ERR(c, op, "'construct' of %s cannot take operand %u of type %s", t->str, i + 1, o->str);
        return;
      }
    }
    bool splat = op->nopnd == 1 && op->opnd[0]->type == s;
    if (got != total && !splat)
      ERR(c, op, "'construct' of %s needs %u components, got %u", t->str, total, got);
    return;
  }
  if (t->kind == VIR_TY_ARRAY || t->kind == VIR_TY_STRUCT) {
    uint32_t n = t->kind == VIR_TY_ARRAY ? t->len : t->st->nfields;
    if (op->nopnd != n) {
      ERR(c, op, "'construct' of %s needs %u operands, got %u", t->str, n, op->nopnd);
      return;
    }
    for (uint32_t i = 0; i < n; i++)
      if (op->opnd[i]->type != vir_type_member(t, i))
        ERR(c, op, "'construct' operand %u has type %s; %s wants %s", i + 1,
            op->opnd[i]->type->str, t->str, tname(vir_type_member(t, i)));
    return;
  }
  ERR(c, op, "'construct' cannot build %s", tname(t));
}

static void check_call(vctx *c, const vir_op *op) {
  const vir_sym *s = op->attr.sym;
  if (!s || s->kind != VIR_SYM_FUNC || !s->func) {
    ERR(c, op, "'call' needs a function, but @%s is a %s", s ? s->name : "?",
        s ? vir_sym_kind_name(s->kind) : "nothing");
    return;
  }
  const vir_func *f = s->func;
  if (f->is_kernel) {
    ERR(c, op, "'call' of kernel @%s (kernels are entry points, not functions)", s->name);
    return;
  }
  if (op->nopnd != f->body.nargs) {
    ERR(c, op, "'call' passes %u argument%s to @%s, which takes %u", op->nopnd,
        op->nopnd == 1 ? "" : "s", s->name, f->body.nargs);
    return;
  }
  for (uint32_t i = 0; i < op->nopnd; i++)
    if (op->opnd[i]->type != f->body.args[i]->type)
      ERR(c, op, "'call' argument %u has type %s; @%s takes %s", i + 1, op->opnd[i]->type->str,
          s->name, tname(f->body.args[i]->type));
  want_result(c, op, f->ret, " (the callee's return type)");
}

static void check_cast(vctx *c, const vir_op *op) {
  const vir_type *from = op->opnd[0]->type, *to = op->val.type;
  if (!is_scalar_or_vec(from) || !is_scalar_or_vec(to)) {
    ERR(c, op, "'%s' converts scalars and vectors only, not %s to %s", oname(op), from->str, to->str);
    return;
  }
  if (vir_ty_width(from) != vir_ty_width(to)) {
    ERR(c, op, "'%s' from %s to %s changes the number of components", oname(op), from->str, to->str);
    return;
  }
  if (op->code == VIR_OP_BITCAST) {
    if (vir_ty_is_bool(from) || vir_ty_is_bool(to))
      ERR(c, op, "'bitcast' of a bool (%s to %s)", from->str, to->str);
    else if (vir_ty_scalar_of(from)->bits != vir_ty_scalar_of(to)->bits)
      ERR(c, op, "'bitcast' from %s to %s changes the size", from->str, to->str);
  }
}

/* Ops whose result is EXPLICIT: everything not implied by the rule. */
static void check_explicit(vctx *c, const vir_op *op) {
  vir_module *m = c->mm;
  const vir_type *t0 = op->nopnd ? op->opnd[0]->type : NULL;
  const vir_type *rt = op->val.type;
  switch (op->code) {
  case VIR_OP_CONST: {
    if (!vir_ty_is_scalar(rt)) {
      ERR(c, op, "'const' must have a scalar type, not %s", rt->str);
      break;
    }
    vir_literal n = vir_lit_normalize(rt, op->attr.lit);
    bool same = rt->kind == VIR_TY_FLOAT ? (n.f == op->attr.lit.f || n.f != n.f)
                : rt->kind == VIR_TY_BOOL ? (n.u & 0xff) == (op->attr.lit.u & 0xff) : n.u == op->attr.lit.u;
    if (!same)
      ERR(c, op, "'const' value does not fit %s", rt->str);
    break;
  }
  case VIR_OP_GCONST: {
    const vir_type *t = check_access(c, op, false);
    want_result(c, op, t, "");
    break;
  }
  case VIR_OP_PUSH_LOAD:
  case VIR_OP_LOCAL_LOAD:
  case VIR_OP_BUFFER_LOAD:
  case VIR_OP_SHARED_LOAD:
  case VIR_OP_LOCAL_LOAD_AT: {
    bool indexed = op->code == VIR_OP_BUFFER_LOAD || op->code == VIR_OP_SHARED_LOAD ||
                   op->code == VIR_OP_LOCAL_LOAD_AT;
    const vir_type *t = check_access(c, op, indexed);
    want_result(c, op, t, " (the type at the access path)");
    break;
  }
  case VIR_OP_BUFFER_LEN:
    check_access(c, op, false);
    want_result(c, op, vir_ty_uint(m, 32), "");
    break;
  case VIR_OP_CAST:
  case VIR_OP_BITCAST: check_cast(c, op); break;
  case VIR_OP_CONSTRUCT: check_construct(c, op); break;
  case VIR_OP_EXTRACT: {
    const vir_type *e = vir_type_member(t0, op->attr.index);
    if (!e)
      ERR(c, op, "'extract' index %u is out of range for %s", op->attr.index, t0->str);
    else
      want_result(c, op, e, "");
    break;
  }
  case VIR_OP_EXTRACT_DYN:
    if (t0->kind != VIR_TY_VEC && t0->kind != VIR_TY_MAT && t0->kind != VIR_TY_ARRAY)
      ERR(c, op, "'extract_dyn' needs a vector, matrix or array, not %s", t0->str);
    else if (!is_int_scalar(op->opnd[1]->type))
      ERR(c, op, "'extract_dyn' index must be an integer scalar, not %s", op->opnd[1]->type->str);
    else
      want_result(c, op, t0->elem, "");
    break;
  case VIR_OP_SWIZZLE:
    if (t0->kind != VIR_TY_VEC) {
      ERR(c, op, "'swizzle' needs a vector, not %s", t0->str);
      break;
    }
    if (op->attr.nswz < 1 || op->attr.nswz > 4) {
      ERR(c, op, "'swizzle' needs 1 to 4 components");
      break;
    }
    for (uint32_t i = 0; i < op->attr.nswz; i++)
      if (op->attr.swz[i] >= t0->n) {
        ERR(c, op, "'swizzle' component %c is out of range for %s", "xyzw????"[op->attr.swz[i] & 7], t0->str);
        return;
      }
    want_result(c, op, op->attr.nswz == 1 ? t0->elem : vir_ty_vec(m, t0->elem, op->attr.nswz), "");
    break;
  case VIR_OP_MATMUL: {
    const vir_type *t = vir_matmul_type(m, t0, op->opnd[1]->type);
    if (!t)
      ERR(c, op, "'matmul' of %s and %s: shapes do not fit", t0->str, op->opnd[1]->type->str);
    else
      want_result(c, op, t, "");
    break;
  }
  case VIR_OP_TRANSPOSE:
    if (t0->kind != VIR_TY_MAT)
      ERR(c, op, "'transpose' needs a matrix, not %s", t0->str);
    else
      want_result(c, op, vir_ty_mat(m, t0->elem->elem, t0->rows, t0->n), "");
    break;
  case VIR_OP_SG_BALLOT:
    if (t0 != vir_ty_bool(m))
      ERR(c, op, "'%s' operand must be bool, not %s", oname(op), t0->str);
    want_result(c, op, vir_ty_vec(m, vir_ty_uint(m, 32), 4), "");
    break;
  case VIR_OP_CALL: check_call(c, op); break;
  case VIR_OP_ATOMIC_ADD:
  case VIR_OP_ATOMIC_MIN:
  case VIR_OP_ATOMIC_MAX:
  case VIR_OP_ATOMIC_AND:
  case VIR_OP_ATOMIC_OR:
  case VIR_OP_ATOMIC_XOR:
  case VIR_OP_ATOMIC_XCHG:
  case VIR_OP_ATOMIC_CMPXCHG:
  case VIR_OP_ATOMIC_LOAD: check_atomic(c, op); break;
  case VIR_OP_PERSIST_CONTROL: /* a word of a u32 buffer, as atomic.load reads it */
    check_atomic(c, op);
    want_result(c, op, vir_ty_uint(m, 32), " (a control word)");
    break;
  default:
    /* invocation ids and the like: fixed types */
    want_result(c, op, vir_infer_type(m, op->code, op->nopnd, op->opnd), "");
    break;
  }
}

void vir_verify_op_types(vctx *c, const vir_op *op) {
  const vir_op_info *info = vir_op_info_of(op->code);
  vir_module *m = c->mm;
  if (info->nopnd != VIR_VARIADIC && op->nopnd != (uint32_t)info->nopnd) {
    ERR(c, op, "'%s' takes %d operand%s, not %u", info->name, info->nopnd, info->nopnd == 1 ? "" : "s",
        op->nopnd);
    return;
  }
  if ((op->flags & VIR_OPF_VOLATILE) && op->code != VIR_OP_BUFFER_LOAD && op->code != VIR_OP_SHARED_LOAD)
    ERR(c, op, "'volatile' applies to buffer.load and shared.load only, not '%s'", info->name);
  if (info->result == VIR_RES_VOID && op->val.type->kind != VIR_TY_VOID && op->code != VIR_OP_CALL) {
    ERR(c, op, "'%s' has no result, but is typed %s", info->name, op->val.type->str);
    return;
  }
  if (info->result != VIR_RES_VOID && op->val.type->kind == VIR_TY_VOID && op->code != VIR_OP_CALL) {
    ERR(c, op, "'%s' needs a result type", info->name);
    return;
  }
  if ((c->array_level || vir_is_array_opcode(op->code)) && vir_verify_array_types(c, op))
    return;
  /* operand classes: all operands for the shape rules, operand 0 for SAME0 */
  uint32_t nclass = info->result == VIR_RES_SAME0 ? 1 : info->result == VIR_RES_EXPLICIT &&
                    op->code != VIR_OP_MATMUL && op->code != VIR_OP_TRANSPOSE ? 0 : op->nopnd;
  if (op->code == VIR_OP_SG_BALLOT || op->code == VIR_OP_CALL)
    nclass = 0;
  for (uint32_t i = 0; i < nclass; i++)
    if (!check_class(c, op, i))
      return;
  const vir_type *rt = op->val.type;
  const vir_type *t0 = op->nopnd ? op->opnd[0]->type : NULL;
  switch ((vir_result_rule)info->result) {
  case VIR_RES_EXPLICIT: check_explicit(c, op); return;
  case VIR_RES_SAME:
    for (uint32_t i = 0; i < op->nopnd; i++)
      if (op->opnd[i]->type != rt) {
        ERR(c, op, "'%s' operand %u has type %s; operands and result must all be %s", info->name,
            i + 1, op->opnd[i]->type->str, rt->str);
        return;
      }
    if (op->code == VIR_OP_CROSS && !(rt->kind == VIR_TY_VEC && rt->n == 3))
      ERR(c, op, "'cross' needs 3-component vectors, not %s", rt->str);
    if ((info->flags & VIR_F_SUBGROUP) && !is_scalar_or_vec(rt))
      ERR(c, op, "'%s' needs a scalar or vector, not %s", info->name, rt->str);
    if ((op->code == VIR_OP_SG_AND || op->code == VIR_OP_SG_OR || op->code == VIR_OP_SG_XOR) &&
        !vir_ty_is_int(rt) && !vir_ty_is_bool(rt))
      ERR(c, op, "'%s' needs integers or bools, not %s", info->name, rt->str);
    return;
  case VIR_RES_SAME0:
    want_result(c, op, t0, " (the type of operand 1)");
    if (op->code == VIR_OP_INSERT) {
      const vir_type *e = vir_type_member(t0, op->attr.index);
      if (!e)
        ERR(c, op, "'insert' index %u is out of range for %s", op->attr.index, t0->str);
      else if (op->opnd[1]->type != e)
        ERR(c, op, "'insert' value has type %s, but component %u of %s is %s",
            op->opnd[1]->type->str, op->attr.index, t0->str, e->str);
    } else if (!is_int_scalar(op->opnd[1]->type)) {
      /* subgroup broadcast / shuffles: a lane, a mask, a delta */
      ERR(c, op, "'%s' operand 2 must be an integer scalar, not %s", info->name,
          op->opnd[1]->type->str);
    }
    return;
  case VIR_RES_ARITH: {
    const vir_type *t = vir_arith_type(op->opnd[0]->type, op->opnd[1]->type);
    if (!t)
      ERR(c, op, "'%s' operands have types %s and %s, which do not match", info->name, t0->str,
          op->opnd[1]->type->str);
    else
      want_result(c, op, t, "");
    return;
  }
  case VIR_RES_CMP:
    if (op->nopnd == 2 && op->opnd[1]->type != t0) {
      ERR(c, op, "'%s' compares %s with %s", info->name, t0->str, op->opnd[1]->type->str);
      return;
    }
    if (!is_scalar_or_vec(t0)) {
      ERR(c, op, "'%s' compares scalars or vectors, not %s", info->name, t0->str);
      return;
    }
    want_result(c, op, vir_ty_with_scalar(m, t0, vir_ty_bool(m)), "");
    return;
  case VIR_RES_SCALAR:
    if (op->nopnd == 2 && op->opnd[1]->type != t0) {
      ERR(c, op, "'%s' operands have types %s and %s, which do not match", info->name, t0->str,
          op->opnd[1]->type->str);
      return;
    }
    want_result(c, op, vir_ty_scalar_of(t0), "");
    return;
  case VIR_RES_SELECT: {
    const vir_type *a = op->opnd[1]->type, *b = op->opnd[2]->type;
    if (a != b) {
      ERR(c, op, "'select' chooses between %s and %s, which differ", a->str, b->str);
      return;
    }
    if (t0 != vir_ty_bool(m) && t0 != vir_ty_with_scalar(m, a, vir_ty_bool(m)))
      ERR(c, op, "'select' condition must be bool (or a bool vector like the operands), not %s",
          t0->str);
    want_result(c, op, a, "");
    return;
  }
  case VIR_RES_BOOL:
    if (t0->kind != VIR_TY_VEC)
      ERR(c, op, "'%s' needs a bool vector, not %s", info->name, t0->str);
    want_result(c, op, vir_ty_bool(m), "");
    return;
  case VIR_RES_VOID: break;
  }
  /* ops without a result */
  switch (op->code) {
  case VIR_OP_BUFFER_STORE:
  case VIR_OP_SHARED_STORE:
  case VIR_OP_LOCAL_STORE_AT:
    check_store_value(c, op, check_access(c, op, true), op->opnd[1]);
    break;
  case VIR_OP_LOCAL_STORE: check_store_value(c, op, check_access(c, op, false), op->opnd[0]); break;
  case VIR_OP_ATOMIC_STORE: check_atomic(c, op); break;
  case VIR_OP_MEMSOCK_FIRE: /* @frames, %sig, payload: 32-bit scalars */
    check_access(c, op, false);
    if (!op->nopnd || op->opnd[0]->type != vir_ty_uint(m, 32))
      ERR(c, op, "'memsock.fire' takes the payload signature (u32) first");
    for (uint32_t i = 1; i < op->nopnd; i++)
      if (!vir_ty_is_scalar(op->opnd[i]->type) || vir_type_size(op->opnd[i]->type) != 4 ||
          vir_ty_is_bool(op->opnd[i]->type))
        ERR(c, op, "'memsock.fire' payload field %u must be a 32-bit number, not %s", i - 1,
            op->opnd[i]->type->str);
    break;
  case VIR_OP_MEMORY_BARRIER:
    if (!op->attr.storage || op->attr.storage > (VIR_STORAGE_BUFFER | VIR_STORAGE_SHARED))
      ERR(c, op, "'memory_barrier' needs a storage class (buffer, shared or all)");
    if (op->attr.scope == VIR_SCOPE_INVOCATION)
      ERR(c, op, "'memory_barrier' needs a scope wider than invocation");
    if (op->attr.sem == VIR_SEM_RELAXED)
      ERR(c, op, "'memory_barrier' with relaxed semantics orders nothing");
    break;
  case VIR_OP_IF:
  case VIR_OP_CONDITION:
    if (t0 != vir_ty_bool(m))
      ERR(c, op, "'%s' condition must be bool, not %s", info->name, t0->str);
    break;
  case VIR_OP_FOR: {
    const vir_type *iv = op->regions[0].nargs ? op->regions[0].args[0]->type : NULL;
    if (!is_int_scalar(t0))
      ERR(c, op, "'for' bounds must be integer scalars, not %s", t0->str);
    else if (op->opnd[1]->type != t0 || op->opnd[2]->type != t0)
      ERR(c, op, "'for' lower bound, upper bound and step must have one type (%s, %s, %s)", t0->str,
          op->opnd[1]->type->str, op->opnd[2]->type->str);
    else if (op->regions[0].nargs != 1 || iv != t0)
      ERR(c, op, "'for' induction variable must have the bounds' type %s", t0->str);
    break;
  }
  default: break;
  }
}
