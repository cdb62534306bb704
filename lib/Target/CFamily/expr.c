/* expr.c - VIR values as C-family expressions.
 *
 * A value is printed either as its name (named values, parameters, loop
 * variables) or, when stmt.c decided to inline it, as the expression of its
 * defining op, with parentheses only where C precedence needs them (and
 * around mixed bitwise/arithmetic operands, as -Wparentheses would ask).
 * Operators whose C meaning differs from Python's (//, %, shifts by the
 * width or more, round) become calls to small helpers (pyops.c);
 * transcendental functions become calls to the precise helpers (mathlib.c)
 * unless fast math is on, and so do float32 abs, negation, sign, min, max,
 * clamp, floor, ceil and sqrt (right on a device that flushes subnormals).
 */
#include <string.h>

#include "cfamily.h"

#include <math.h>


static bool gpu_c(const cf_printer *p) { return p->dialect != CF_GLSL; }

/* Appends `s` wrapped in parentheses when its precedence is below `need`. */
static void put(vp_strbuf *b, const vp_strbuf *s, int have, int need) {
  if (have < need)
    vp_strbuf_putc(b, '(');
  if (s->len)
    vp_strbuf_appendn(b, s->data, s->len);
  if (have < need)
    vp_strbuf_putc(b, ')');
}

void cf_expr(cf_printer *p, vp_strbuf *b, const vir_value *v, int prec) {
  cf_func *fn = p->fn;
  if (!v->def || !fn->inl[v->id]) {
    const char *name = v->id < fn->nvals ? fn->name[v->id] : NULL;
    vp_strbuf_append(b, name ? name : "/*?*/");
    return;
  }
  vp_strbuf s = {0};
  int have = cf_op_expr(p, &s, v->def);
  put(b, &s, have, prec);
  vp_strbuf_free(&s);
}

/* An operand of a bitwise or shift operator: parenthesized unless it is a
 * primary or the same operator. */
static void bit_operand(cf_printer *p, vp_strbuf *b, const vir_value *v, vir_opcode parent) {
  vp_strbuf s = {0};
  int have;
  if (!v->def || !p->fn->inl[v->id]) {
    cf_expr(p, &s, v, CF_PREC_PRIMARY);
    have = CF_PREC_PRIMARY;
  } else {
    have = cf_op_expr(p, &s, v->def);
    if (have < CF_PREC_UNARY && v->def->code != parent)
      have = CF_PREC_LOWEST;
  }
  put(b, &s, have, CF_PREC_UNARY);
  vp_strbuf_free(&s);
}

static int infix_prec(vir_opcode c) {
  switch (c) {
  case VIR_OP_MUL:
  case VIR_OP_DIV:
  case VIR_OP_MATMUL: return CF_PREC_MUL;
  case VIR_OP_ADD:
  case VIR_OP_SUB: return CF_PREC_ADD;
  case VIR_OP_SHL:
  case VIR_OP_SHR: return CF_PREC_SHIFT;
  case VIR_OP_LT:
  case VIR_OP_LE:
  case VIR_OP_GT:
  case VIR_OP_GE: return CF_PREC_REL;
  case VIR_OP_EQ:
  case VIR_OP_NE: return CF_PREC_EQ;
  case VIR_OP_AND: return CF_PREC_BAND;
  case VIR_OP_XOR: return CF_PREC_BXOR;
  case VIR_OP_OR: return CF_PREC_BOR;
  case VIR_OP_LAND: return CF_PREC_LAND;
  case VIR_OP_LOR: return CF_PREC_LOR;
  default: return CF_PREC_PRIMARY;
  }
}

static bool is_bitwise(vir_opcode c) {
  return c == VIR_OP_AND || c == VIR_OP_OR || c == VIR_OP_XOR || c == VIR_OP_SHL || c == VIR_OP_SHR;
}

/* An operand of a function-style call that must have the shape `want`:
 * a scalar meeting a vector is splatted (`vec3(s)`) because GLSL's pow,
 * mod, atan, ... and our helpers take equal shapes. */
static void shaped(cf_printer *p, vp_strbuf *b, const vir_value *v, const vir_type *want) {
  if (want->kind == VIR_TY_VEC && v->type->kind != VIR_TY_VEC) {
    cf_type(p, b, want, false);
    vp_strbuf_putc(b, '(');
    cf_expr(p, b, v, CF_PREC_LOWEST);
    vp_strbuf_putc(b, ')');
  } else {
    cf_expr(p, b, v, CF_PREC_LOWEST);
  }
}

/* name(a, b, ...) with every operand shaped like the result (or like the
 * widest operand for ops with a scalar result). */
static int call(cf_printer *p, vp_strbuf *b, const char *name, const vir_op *op, bool splat) {
  const vir_type *want = op->val.type;
  for (uint32_t i = 0; i < op->nopnd; i++)
    if (op->opnd[i]->type->kind == VIR_TY_VEC)
      want = op->opnd[i]->type;
  vp_strbuf_printf(b, "%s(", name);
  for (uint32_t i = 0; i < op->nopnd; i++) {
    if (i)
      vp_strbuf_append(b, ", ");
    if (splat)
      shaped(p, b, op->opnd[i], want);
    else
      cf_expr(p, b, op->opnd[i], CF_PREC_LOWEST);
  }
  vp_strbuf_putc(b, ')');
  return CF_PREC_PRIMARY;
}

/* Follows a member/component path from type t. */
static void path(cf_printer *p, vp_strbuf *b, const vir_type *t, uint32_t n, const uint8_t *pth) {
  for (uint32_t i = 0; i < n && t; i++) {
    uint8_t k = pth[i];
    switch (t->kind) {
    case VIR_TY_STRUCT:
      if (k < t->st->nfields) {
        vp_strbuf_printf(b, ".%s", cf_member_name(p, t->st->fields[k].name));
        t = t->st->fields[k].type;
      } else {
        t = NULL;
      }
      break;
    case VIR_TY_VEC:
      vp_strbuf_printf(b, ".%c", cf_comp[k & 3]);
      t = t->elem;
      break;
    case VIR_TY_MAT:
      vp_strbuf_printf(b, "[%u]", k);
      t = t->elem;
      break;
    case VIR_TY_ARRAY:
      vp_strbuf_printf(b, "[%u]", k);
      t = t->elem;
      break;
    default: t = NULL; break;
    }
  }
}

/* `[index]`. GLSL indexes with 32-bit integers only (glslang: "scalar
 * integer expression required" for a uint64_t or int16_t index), so an
 * index of another width is converted there; no buffer or array holds 2^32
 * elements a GLSL index could reach. */
static void print_index(cf_printer *p, vp_strbuf *b, const vir_value *index) {
  const vir_type *t = index->type;
  bool narrow = p->dialect == CF_GLSL && (t->kind == VIR_TY_INT || t->kind == VIR_TY_UINT) &&
                t->bits != 32;
  vp_strbuf_append(b, narrow ? (t->kind == VIR_TY_INT ? "[int(" : "[uint(") : "[");
  cf_expr(p, b, index, CF_PREC_LOWEST);
  vp_strbuf_append(b, narrow ? ")]" : "]");
}

void cf_lvalue(cf_printer *p, vp_strbuf *b, const vir_op *op, const vir_value *index) {
  const vir_sym *s = op->attr.sym;
  const char *name = s->kind == VIR_SYM_LOCAL ? NULL : cf_sym_name(p, s);
  if (s->kind == VIR_SYM_LOCAL) {
    const vir_func *f = p->fn->f;
    for (uint32_t i = 0; i < f->locals.len; i++)
      if (f->locals.data[i] == s)
        name = p->fn->local_name[i];
  }
  vp_strbuf_append(b, name ? name : "/*?*/");
  const vir_type *t = s->type;
  if (s->kind == VIR_SYM_PUSH) {
    /* pc.FIELD: the first path element is the field */
  } else if (index) {
    print_index(p, b, index);
    if ((s->kind == VIR_SYM_SHARED || s->kind == VIR_SYM_LOCAL) && t->kind == VIR_TY_ARRAY)
      t = t->elem;
  }
  path(p, b, t, op->attr.npath, op->attr.path);
}

/* ------------------------------------------------------------ atomics */

static const char *glsl_scope(const cf_printer *p, vir_scope s) {
  switch (s) {
  case VIR_SCOPE_INVOCATION: return "gl_ScopeInvocation";
  case VIR_SCOPE_SUBGROUP: return "gl_ScopeSubgroup";
  case VIR_SCOPE_WORKGROUP: return "gl_ScopeWorkgroup";
  case VIR_SCOPE_DEVICE: return "gl_ScopeDevice";
  /* QueueFamily scope exists under the Vulkan memory model, which a kernel
   * needing it gets (module.c); device scope otherwise */
  case VIR_SCOPE_QUEUE_FAMILY: return p->ext & CF_EXT_VMM ? "gl_ScopeQueueFamily" : "gl_ScopeDevice";
  }
  return "gl_ScopeDevice";
}

static const char *glsl_sem(vir_semantics s) {
  switch (s) {
  case VIR_SEM_RELAXED: return "gl_SemanticsRelaxed";
  case VIR_SEM_ACQUIRE: return "gl_SemanticsAcquire";
  case VIR_SEM_RELEASE: return "gl_SemanticsRelease";
  default: return "gl_SemanticsAcquireRelease"; /* GLSL has no seq_cst */
  }
}

/* The GLSL name of an atomic op. */
static const char *atomic_glsl(vir_opcode c) { return vir_op_info_of(c)->spell; }

static const char *atomic_cuda(vir_opcode c) {
  switch (c) {
  case VIR_OP_ATOMIC_ADD: return "atomicAdd";
  case VIR_OP_ATOMIC_MIN: return "atomicMin";
  case VIR_OP_ATOMIC_MAX: return "atomicMax";
  case VIR_OP_ATOMIC_AND: return "atomicAnd";
  case VIR_OP_ATOMIC_OR: return "atomicOr";
  case VIR_OP_ATOMIC_XOR: return "atomicXor";
  case VIR_OP_ATOMIC_XCHG: return "atomicExch";
  case VIR_OP_ATOMIC_CMPXCHG: return "atomicCAS";
  case VIR_OP_ATOMIC_LOAD: return "atomicLoad";
  case VIR_OP_ATOMIC_STORE: return "atomicStore";
  default: return "?";
  }
}

/* Notes the extensions an atomic needs (64-bit, float). */
static void note_atomic(cf_printer *p, const vir_op *op) {
  const vir_value *v = op->nopnd > 1 ? op->opnd[op->nopnd - 1] : &op->val;
  const vir_type *t = v->type;
  if (t && t->kind == VIR_TY_VOID)
    t = NULL;
  if (t && vir_ty_is_float(t) && op->code != VIR_OP_ATOMIC_LOAD && op->code != VIR_OP_ATOMIC_STORE)
    p->ext |= CF_EXT_ATOMIC_FLOAT;
  if (t && t->bits == 64)
    p->ext |= CF_EXT_ATOMIC64;
}

int cf_atomic_expr(cf_printer *p, vp_strbuf *b, const vir_op *op) {
  const vir_value *index = op->opnd[0];
  note_atomic(p, op);
  bool is_load = op->code == VIR_OP_ATOMIC_LOAD, is_store = op->code == VIR_OP_ATOMIC_STORE;
  if (gpu_c(p)) {
    /* CUDA/HIP: functions on an address; scope by name suffix; ordering by
     * fences around the relaxed operation (prelude: vp_acquire/vp_release). */
    p->pre |= CF_PRE_ATOMIC;
    bool acq = op->attr.sem == VIR_SEM_ACQUIRE || op->attr.sem >= VIR_SEM_ACQ_REL;
    bool rel = op->attr.sem == VIR_SEM_RELEASE || op->attr.sem >= VIR_SEM_ACQ_REL;
    const char *suffix = "";
    if (op->attr.scope <= VIR_SCOPE_WORKGROUP && p->dialect == CF_CUDA)
      suffix = "_block"; /* HIP has no _block forms: device scope is stronger */
    else if (op->attr.scope == VIR_SCOPE_QUEUE_FAMILY)
      suffix = "_system";
    if (is_load || is_store)
      suffix = "";
    if (acq && !is_store)
      vp_strbuf_append(b, "vp_acquire(");
    if (rel && !is_load)
      vp_strbuf_append(b, "(vp_release(), ");
    vp_strbuf_printf(b, "%s%s(&", atomic_cuda(op->code), suffix);
    cf_lvalue(p, b, op, index);
    for (uint32_t i = 1; i < op->nopnd; i++) {
      vp_strbuf_append(b, ", ");
      cf_expr(p, b, op->opnd[i], CF_PREC_LOWEST);
    }
    vp_strbuf_putc(b, ')');
    if (rel && !is_load)
      vp_strbuf_putc(b, ')');
    if (acq && !is_store)
      vp_strbuf_putc(b, ')');
    return CF_PREC_PRIMARY;
  }
  /* GLSL: plain form for device-scope relaxed read-modify-writes (what
   * atomicAdd always meant), the memory-scope-semantics form otherwise. */
  bool plain = op->attr.scope >= VIR_SCOPE_DEVICE && op->attr.sem == VIR_SEM_RELAXED && !is_load &&
               !is_store &&
               /* a queue-family one keeps its scope where it has one */
               !(op->attr.scope == VIR_SCOPE_QUEUE_FAMILY && (p->ext & CF_EXT_VMM));
  vp_strbuf_printf(b, "%s(", atomic_glsl(op->code));
  cf_lvalue(p, b, op, index);
  for (uint32_t i = 1; i < op->nopnd; i++) {
    vp_strbuf_append(b, ", ");
    cf_expr(p, b, op->opnd[i], CF_PREC_LOWEST);
  }
  if (!plain) {
    p->ext |= CF_EXT_SCOPE;
    bool relaxed = op->attr.sem == VIR_SEM_RELAXED;
    const char *storage = relaxed ? "0"
                          : op->attr.sym->kind == VIR_SYM_SHARED ? "gl_StorageSemanticsShared"
                                                                 : "gl_StorageSemanticsBuffer";
    /* non-private buffers: an ordered atomic on a buffer also makes
     * available (release) and visible (acquire) */
    bool av = p->avvis && !relaxed && op->attr.sym->kind != VIR_SYM_SHARED &&
              op->attr.scope >= VIR_SCOPE_DEVICE;
    vp_strbuf_printf(b, ", %s, %s, %s%s%s", glsl_scope(p, op->attr.scope), storage,
                     relaxed ? "0" : glsl_sem(op->attr.sem),
                     av && op->attr.sem != VIR_SEM_ACQUIRE && !is_load ? " | gl_SemanticsMakeAvailable" : "",
                     av && op->attr.sem != VIR_SEM_RELEASE && !is_store ? " | gl_SemanticsMakeVisible" : "");
    if (op->code == VIR_OP_ATOMIC_CMPXCHG) /* the unequal case: a load */
      vp_strbuf_printf(b, ", %s, %s", storage,
                       relaxed ? "0" : op->attr.sem == VIR_SEM_RELEASE ? "gl_SemanticsRelaxed"
                                                                       : "gl_SemanticsAcquire");
  }
  vp_strbuf_putc(b, ')');
  return CF_PREC_PRIMARY;
}

/* ----------------------------------------------------------- bitcasts */

static int bitcast(cf_printer *p, vp_strbuf *b, const vir_op *op) {
  const vir_type *to = op->val.type, *from = op->opnd[0]->type;
  const vir_type *ts = vir_ty_scalar_of(to), *fs = vir_ty_scalar_of(from);
  const char *fn = NULL;
  if (gpu_c(p))
    p->pre |= CF_PRE_BITS;
  if (fs->kind == VIR_TY_FLOAT && ts->kind != VIR_TY_FLOAT) {
    if (fs->bits == 32)
      fn = ts->kind == VIR_TY_INT ? "floatBitsToInt" : "floatBitsToUint";
    else if (fs->bits == 64 && to->kind == VIR_TY_VEC && vir_ty_width(to) == 2 && ts->bits == 32)
      fn = "unpackDouble2x32";
    else if (fs->bits == 64)
      fn = ts->kind == VIR_TY_INT ? "doubleBitsToInt64" : "doubleBitsToUint64";
    else
      fn = ts->kind == VIR_TY_INT ? "float16BitsToInt16" : "float16BitsToUint16";
  } else if (ts->kind == VIR_TY_FLOAT && fs->kind != VIR_TY_FLOAT) {
    if (ts->bits == 32)
      fn = fs->kind == VIR_TY_INT ? "intBitsToFloat" : "uintBitsToFloat";
    else if (ts->bits == 64 && from->kind == VIR_TY_VEC && vir_ty_width(from) == 2 && fs->bits == 32)
      fn = "packDouble2x32";
    else if (ts->bits == 64)
      fn = fs->kind == VIR_TY_INT ? "int64BitsToDouble" : "uint64BitsToDouble";
    else
      fn = fs->kind == VIR_TY_INT ? "int16BitsToFloat16" : "uint16BitsToFloat16";
  }
  if (fn) {
    if ((fs->bits == 64 || ts->bits == 64) && strcmp(fn, "packDouble2x32") && strcmp(fn, "unpackDouble2x32"))
      p->ext |= CF_EXT_INT64;
    if (fs->bits == 16 || ts->bits == 16)
      p->ext |= CF_EXT_INT16 | CF_EXT_FLOAT16;
    vp_strbuf_printf(b, "%s(", fn);
    cf_expr(p, b, op->opnd[0], CF_PREC_LOWEST);
    vp_strbuf_putc(b, ')');
    return CF_PREC_PRIMARY;
  }
  /* int <-> uint of one width: a conversion keeps the bits */
  cf_type(p, b, to, false);
  vp_strbuf_putc(b, '(');
  cf_expr(p, b, op->opnd[0], CF_PREC_LOWEST);
  vp_strbuf_putc(b, ')');
  return CF_PREC_PRIMARY;
}

/* ------------------------------------------------------- comparisons */

static int compare(cf_printer *p, vp_strbuf *b, const vir_op *op) {
  const vir_value *a = op->opnd[0], *c = op->opnd[1];
  bool vec = a->type->kind == VIR_TY_VEC || c->type->kind == VIR_TY_VEC;
  if (!vec) {
    int prec = infix_prec(op->code);
    cf_expr(p, b, a, prec);
    vp_strbuf_printf(b, " %s ", vir_op_info_of(op->code)->spell);
    cf_expr(p, b, c, prec + 1);
    return prec;
  }
  const char *fn = "equal";
  switch (op->code) {
  case VIR_OP_NE: fn = "notEqual"; break;
  case VIR_OP_LT: fn = "lessThan"; break;
  case VIR_OP_LE: fn = "lessThanEqual"; break;
  case VIR_OP_GT: fn = "greaterThan"; break;
  case VIR_OP_GE: fn = "greaterThanEqual"; break;
  default: break;
  }
  if (gpu_c(p))
    p->pre |= CF_PRE_VEC;
  const vir_type *want = a->type->kind == VIR_TY_VEC ? a->type : c->type;
  vp_strbuf_printf(b, "%s(", fn);
  shaped(p, b, a, want);
  vp_strbuf_append(b, ", ");
  shaped(p, b, c, want);
  vp_strbuf_putc(b, ')');
  return CF_PREC_PRIMARY;
}

/* ---------------------------------------------------- the expressions */

static int builtin_id(cf_printer *p, vp_strbuf *b, const vir_op *op) {
  const vir_op_info *info = vir_op_info_of(op->code);
  if (info->flags & VIR_F_SUBGROUP)
    p->ext |= CF_EXT_SG_BASIC;
  if (gpu_c(p))
    p->pre |= CF_PRE_IDS | CF_PRE_VEC;
  vp_strbuf_append(b, info->spell);
  return CF_PREC_PRIMARY;
}

static uint32_t subgroup_ext(vir_opcode c) {
  switch (c) {
  case VIR_OP_SG_ADD:
  case VIR_OP_SG_MUL:
  case VIR_OP_SG_MIN:
  case VIR_OP_SG_MAX:
  case VIR_OP_SG_AND:
  case VIR_OP_SG_OR:
  case VIR_OP_SG_XOR:
  case VIR_OP_SG_INCLUSIVE_ADD:
  case VIR_OP_SG_EXCLUSIVE_ADD: return CF_EXT_SG_ARITH;
  case VIR_OP_SG_ALL:
  case VIR_OP_SG_ANY: return CF_EXT_SG_VOTE;
  case VIR_OP_SG_BALLOT:
  case VIR_OP_SG_BROADCAST:
  case VIR_OP_SG_BROADCAST_FIRST: return CF_EXT_SG_BALLOT;
  case VIR_OP_SG_SHUFFLE:
  case VIR_OP_SG_SHUFFLE_XOR: return CF_EXT_SG_SHUFFLE;
  case VIR_OP_SG_SHUFFLE_UP:
  case VIR_OP_SG_SHUFFLE_DOWN: return CF_EXT_SG_SHUFFLE_REL;
  default: return CF_EXT_SG_BASIC;
  }
}

/* The constant value of v when it is a `const` op, for shift checks. */
static bool const_u64(const vir_value *v, uint64_t *out) {
  if (!v->def || v->def->code != VIR_OP_CONST || !vir_ty_is_scalar(v->type))
    return false;
  *out = v->def->val.type->kind == VIR_TY_INT ? (uint64_t)v->def->attr.lit.i : v->def->attr.lit.u;
  return true;
}

/* An unsigned divisor known not to be zero: `x // 4u` and `x // max(d, 1u)`
 * stay C's `/`; any other unsigned // and % goes through the helper that
 * gives 0 for a zero divisor (NumPy), where C's / and % are undefined
 * (lavapipe: all ones). The helper's test is not free where registers are
 * tight: an H100 ran argsort's onesweep 50% slower with it. `d | k` with a
 * nonzero constant k is nonzero too, and so is `d == 0 ? 1 : d`. */
static bool nonzero_unsigned(const vir_value *v, int depth) {
  uint64_t k;
  if (const_u64(v, &k))
    return k != 0;
  if (!v->def || depth > 4)
    return false;
  const vir_op *d = v->def;
  switch (d->code) {
  case VIR_OP_MAX:
  case VIR_OP_OR:
    return nonzero_unsigned(d->opnd[0], depth + 1) || nonzero_unsigned(d->opnd[1], depth + 1);
  case VIR_OP_SELECT: {
    /* c ? k : x, nonzero when both are, or when c is `x == 0` (the array
     * level's safe divisor, lower-arrays' `b == 0 ? 1 : b`) */
    const vir_value *c = d->opnd[0], *t = d->opnd[1], *f = d->opnd[2];
    if (!nonzero_unsigned(t, depth + 1))
      return false;
    if (nonzero_unsigned(f, depth + 1))
      return true;
    uint64_t z;
    return c->def && c->def->code == VIR_OP_EQ &&
           ((c->def->opnd[0] == f && const_u64(c->def->opnd[1], &z) && z == 0) ||
            (c->def->opnd[1] == f && const_u64(c->def->opnd[0], &z) && z == 0));
  }
  default: return false;
  }
}

static int arith(cf_printer *p, vp_strbuf *b, const vir_op *op) {
  const vir_type *t = op->val.type;
  const vir_type *s = vir_ty_scalar_of(t);
  bool is_float = s->kind == VIR_TY_FLOAT, is_signed = s->kind == VIR_TY_INT;
  switch (op->code) {
  case VIR_OP_REM:
    if (!is_float && !is_signed)
      break; /* unsigned: C's % */
    return call(p, b, cf_need_pyop(p, CF_PY_REM, t), op, true);
  case VIR_OP_FLOORDIV:
    if (!is_float && !is_signed && nonzero_unsigned(op->opnd[1], 0)) {
      /* unsigned: truncation is flooring */
      int prec = CF_PREC_MUL;
      cf_expr(p, b, op->opnd[0], prec);
      vp_strbuf_append(b, " / ");
      cf_expr(p, b, op->opnd[1], prec + 1);
      return prec;
    }
    return call(p, b, cf_need_pyop(p, CF_PY_FLOORDIV, t), op, true);
  case VIR_OP_MOD:
    if (!is_float && !is_signed && nonzero_unsigned(op->opnd[1], 0))
      break;
    return call(p, b, cf_need_pyop(p, CF_PY_MOD, t), op, true);
  case VIR_OP_SHL:
  case VIR_OP_SHR: {
    uint64_t k;
    if ((const_u64(op->opnd[1], &k) || vir_uint_upper_bound(p->m, op->opnd[1], &k)) && k < s->bits)
      break; /* in range (a constant, or `n & 31u`, ...): C's operator */
    return call(p, b, cf_need_pyop(p, op->code == VIR_OP_SHL ? CF_PY_SHL : CF_PY_SHR, t), op, true);
  }
  default: break;
  }
  /* an infix operator; `%` for unsigned rem/mod */
  const char *spell = vir_op_info_of(op->code)->spell;
  int prec = infix_prec(op->code);
  if (op->code == VIR_OP_REM || op->code == VIR_OP_MOD) {
    spell = "%";
    prec = CF_PREC_MUL;
  }
  if (op->code == VIR_OP_MUL && t->kind == VIR_TY_MAT)
    return call(p, b, "matrixCompMult", op, false);
  if (is_bitwise(op->code)) {
    bit_operand(p, b, op->opnd[0], op->code);
    vp_strbuf_printf(b, " %s ", spell);
    bit_operand(p, b, op->opnd[1], VIR_OP_COUNT);
    return prec;
  }
  cf_expr(p, b, op->opnd[0], prec);
  vp_strbuf_printf(b, " %s ", spell);
  cf_expr(p, b, op->opnd[1], prec + 1);
  return prec;
}

static int logic(cf_printer *p, vp_strbuf *b, const vir_op *op) {
  const vir_type *t = op->val.type;
  if (t->kind == VIR_TY_VEC) {
    /* GLSL has no && on bvecN: go through uvecN's & and | */
    if (op->code == VIR_OP_LNOT) {
      if (gpu_c(p))
        p->pre |= CF_PRE_VEC;
      vp_strbuf_append(b, "not(");
      cf_expr(p, b, op->opnd[0], CF_PREC_LOWEST);
      vp_strbuf_putc(b, ')');
      return CF_PREC_PRIMARY;
    }
    cf_type(p, b, t, false);
    vp_strbuf_printf(b, "(uvec%u(", t->n);
    cf_expr(p, b, op->opnd[0], CF_PREC_LOWEST);
    vp_strbuf_printf(b, ") %s uvec%u(", op->code == VIR_OP_LAND ? "&" : "|", t->n);
    cf_expr(p, b, op->opnd[1], CF_PREC_LOWEST);
    vp_strbuf_append(b, "))");
    return CF_PREC_PRIMARY;
  }
  if (op->code == VIR_OP_LNOT) {
    vp_strbuf_putc(b, '!');
    cf_expr(p, b, op->opnd[0], CF_PREC_UNARY);
    return CF_PREC_UNARY;
  }
  int prec = infix_prec(op->code);
  /* `a || b && c` reads badly: parenthesize && inside || */
  int need = prec + 1;
  cf_expr(p, b, op->opnd[0], op->code == VIR_OP_LOR ? CF_PREC_LAND + 1 : prec);
  vp_strbuf_printf(b, " %s ", vir_op_info_of(op->code)->spell);
  cf_expr(p, b, op->opnd[1], op->code == VIR_OP_LOR ? CF_PREC_LAND + 1 : need);
  return prec;
}

/* A unary prefix operator; `- -x` would read as `--x`. */
static int prefix(cf_printer *p, vp_strbuf *b, const vir_op *op) {
  const char *spell = vir_op_info_of(op->code)->spell;
  vp_strbuf s = {0};
  cf_expr(p, &s, op->opnd[0], CF_PREC_UNARY);
  vp_strbuf_append(b, spell);
  if (s.len && s.data[0] == spell[0])
    vp_strbuf_putc(b, '(');
  vp_strbuf_appendn(b, s.data ? s.data : "", s.len);
  if (s.len && s.data[0] == spell[0])
    vp_strbuf_putc(b, ')');
  vp_strbuf_free(&s);
  return CF_PREC_UNARY;
}

/* An int8/int16/uint8/uint16/float16 operand or result. */
static bool is_small(const vir_type *t) {
  const vir_type *s = vir_ty_scalar_of(t);
  return (s->kind == VIR_TY_INT || s->kind == VIR_TY_UINT || s->kind == VIR_TY_FLOAT) && s->bits < 32;
}

static bool small_operands(const vir_op *op) {
  if (is_small(op->val.type))
    return true;
  for (uint32_t i = 0; i < op->nopnd; i++)
    if (is_small(op->opnd[i]->type))
      return true;
  return false;
}

/* t with a 32-bit scalar of its kind, as GLSL spells it */
static void wide_type(vp_strbuf *b, const vir_type *t) {
  const vir_type *s = vir_ty_scalar_of(t);
  const char *scalar = s->kind == VIR_TY_INT ? "int" : s->kind == VIR_TY_UINT ? "uint" : "float";
  const char *vec = s->kind == VIR_TY_INT ? "ivec" : s->kind == VIR_TY_UINT ? "uvec" : "vec";
  if (t->kind == VIR_TY_VEC)
    vp_strbuf_printf(b, "%s%u", vec, t->n);
  else
    vp_strbuf_append(b, scalar);
}

/* GLSL's built-in functions on 8/16-bit values, computed at 32 bits:
 * T(name(W(a), W(b), ...)). glslang 11 declares no Int8/Int16/Float16
 * capability for a GLSL.std.450 call, so a kernel whose only small-type
 * arithmetic was `min(a[i], b[i])` on int16 failed spirv-val. min, max,
 * clamp, abs, sign, floor, trunc, ... of the widened values are exact, and
 * a float16 sin is float32's rounded once, as NumPy computes it. `splat`
 * widens every operand to the vector of the result, as call() shapes them. */
static int widened(cf_printer *p, vp_strbuf *b, const vir_op *op, const char *name, bool splat) {
  const vir_type *want = op->val.type;
  for (uint32_t i = 0; i < op->nopnd; i++)
    if (op->opnd[i]->type->kind == VIR_TY_VEC)
      want = op->opnd[i]->type;
  cf_type(p, b, op->val.type, false);
  vp_strbuf_printf(b, "(%s(", name);
  for (uint32_t i = 0; i < op->nopnd; i++) {
    const vir_type *t = op->opnd[i]->type;
    if (i)
      vp_strbuf_append(b, ", ");
    if (vir_ty_scalar_of(t)->kind == VIR_TY_BOOL) {
      cf_expr(p, b, op->opnd[i], CF_PREC_LOWEST);
      continue;
    }
    wide_type(b, splat ? want : t);
    vp_strbuf_putc(b, '(');
    cf_expr(p, b, op->opnd[i], CF_PREC_LOWEST);
    vp_strbuf_putc(b, ')');
  }
  vp_strbuf_append(b, "))");
  return CF_PREC_PRIMARY;
}

static int math(cf_printer *p, vp_strbuf *b, const vir_op *op) {
  if (p->dialect == CF_GLSL && small_operands(op)) {
    /* the float32 helper (or, with fast math, GLSL's) for the widened type */
    vir_type f32 = {.kind = VIR_TY_FLOAT, .bits = 32};
    vir_type v32 = {.kind = VIR_TY_VEC, .bits = 32, .n = op->val.type->n, .elem = &f32};
    const char *name = cf_need_math(p, op->code, op->val.type->kind == VIR_TY_VEC ? &v32 : &f32);
    return widened(p, b, op, name, true);
  }
  const char *name = cf_need_math(p, op->code, op->val.type);
  return call(p, b, name, op, true);
}

/* GLSL float functions whose CUDA names differ come from the prelude's
 * math section under their GLSL names; C's own (sqrt, floor, ...) exist. */
static int float_fn(cf_printer *p, vp_strbuf *b, const vir_op *op) {
  const char *spell = vir_op_info_of(op->code)->spell;
  bool splat = op->code != VIR_OP_MIX && op->code != VIR_OP_STEP && op->code != VIR_OP_SMOOTHSTEP &&
               op->code != VIR_OP_CLAMP && op->code != VIR_OP_MIN && op->code != VIR_OP_MAX;
  if (gpu_c(p)) {
    p->pre |= CF_PRE_MATH;
    if (op->val.type->kind == VIR_TY_VEC || (op->nopnd && op->opnd[0]->type->kind == VIR_TY_VEC))
      p->pre |= CF_PRE_VEC;
    if (op->code == VIR_OP_ROUND)
      spell = "round"; /* C's round is half away from zero, as VIR's */
  } else if (small_operands(op)) {
    vir_type f32 = {.kind = VIR_TY_FLOAT, .bits = 32};
    vir_type v32 = {.kind = VIR_TY_VEC, .bits = 32, .n = op->val.type->n, .elem = &f32};
    const vir_type *wide = op->val.type->kind == VIR_TY_VEC ? &v32 : &f32;
    if (op->code == VIR_OP_ROUND)
      spell = cf_need_pyop(p, CF_PY_ROUND, wide);
    else if (op->code == VIR_OP_SIGN && vir_ty_is_float(op->val.type))
      spell = cf_need_math(p, VIR_OP_SIGN, wide); /* vp_signf: NaN stays NaN */
    return widened(p, b, op, spell, splat); /* roundEven of a float32 is right on lavapipe */
  } else if (op->code == VIR_OP_ROUND) {
    spell = cf_need_pyop(p, CF_PY_ROUND, op->val.type); /* GLSL leaves .5 open */
  } else if (op->code == VIR_OP_RINT && vir_ty_scalar_of(op->val.type)->bits == 64) {
    spell = cf_need_pyop(p, CF_PY_RINT, op->val.type); /* lavapipe's is wrong */
  } else if (op->code == VIR_OP_TRUNC && vir_ty_scalar_of(op->val.type)->bits == 64) {
    spell = cf_need_pyop(p, CF_PY_TRUNC, op->val.type); /* lavapipe's is wrong */
  } else if (op->code == VIR_OP_SIGN && vir_ty_is_float(op->val.type) && vir_ty_scalar_of(op->val.type)->bits == 64) {
    spell = cf_need_pyop(p, CF_PY_SIGN, op->val.type); /* lavapipe: sign(NaN) == 0.0 */
  }
  return call(p, b, spell, op, splat);
}

/* ------------------------------------------- float arithmetic with a zero
 *
 * Mesa's llvmpipe (lavapipe; gallivm's lp_build_mul/add/sub/div) takes
 * shortcuts when an operand is the constant +0.0 once NIR has folded it,
 * whatever the float controls and `precise` say: x * 0.0 and x / 0.0 give
 * 0, x + 0.0 gives x (-0.0 stays), 0.0 - x gives -x, 0.0 / x gives 0; and a
 * multiply by -0.0 is folded to one by +0.0 first. NumPy's answers differ
 * for inf, NaN, -0.0 and x / 0.0 (measured on Mesa 22.3.6 with GLSL
 * kernels; test/python/test_hunt_kernel.py). So a GLSL float op, scalar
 * or vector, with a constant zero operand (a literal, a splat, a module
 * constant, a cast of a constant) is spelled without one, as IEEE 754
 * defines it: selects on x, x * +-inf for x / +-0.0, -0.0 / -x for 0.0 / x,
 * NaN for x % 0.0. */

/* Whether integer (or bool) v is zero whatever its operands hold, by the
 * integer identities NIR folds before llvmpipe sees the float op: a
 * constant 0 (false), x - x, x ^ x, x * 0, x & 0, -0, 0 << n, 0 >> n
 * (`a / double(b - b)` divided by a constant zero there). */
static bool int_zero(const vir_value *v, int depth) {
  const vir_op *d = v->def;
  if (!d || depth > 4 || !vir_ty_is_scalar(v->type) ||
      (!vir_ty_is_int(v->type) && v->type->kind != VIR_TY_BOOL))
    return false;
  switch (d->code) {
  case VIR_OP_CONST: return v->type->kind == VIR_TY_BOOL ? !d->attr.lit.b : d->attr.lit.u == 0;
  case VIR_OP_SUB:
  case VIR_OP_XOR: return d->nopnd == 2 && d->opnd[0] == d->opnd[1];
  case VIR_OP_MUL:
  case VIR_OP_AND:
    return d->nopnd == 2 && (int_zero(d->opnd[0], depth + 1) || int_zero(d->opnd[1], depth + 1));
  case VIR_OP_NEG:
  case VIR_OP_SHL:
  case VIR_OP_SHR: return d->nopnd >= 1 && int_zero(d->opnd[0], depth + 1);
  default: return false;
  }
}

/* Whether v is a constant float zero (a scalar, a splat, a module constant,
 * a cast of a constant bool, integer or float, or of an integer that is
 * zero by int_zero); *neg: it is -0.0. */
static bool zero_operand(const vir_value *v, bool *neg) {
  const vir_op *d = v->def;
  const vir_type *s = vir_ty_scalar_of(v->type);
  if (!d || s->kind != VIR_TY_FLOAT)
    return false;
  if (d->code == VIR_OP_CONST) {
    *neg = signbit(d->attr.lit.f);
    return d->attr.lit.f == 0;
  }
  if (!vir_ty_is_scalar(v->type))
    return false;
  if (d->code == VIR_OP_GCONST && d->attr.sym && d->attr.sym->kind == VIR_SYM_CONST &&
      !d->attr.npath && d->attr.sym->type == v->type) {
    *neg = signbit(d->attr.sym->lit.f);
    return d->attr.sym->lit.f == 0;
  }
  if (d->code == VIR_OP_CAST && d->nopnd == 1 && d->opnd[0]->def &&
      d->opnd[0]->def->code == VIR_OP_CONST && vir_ty_is_scalar(d->opnd[0]->type)) {
    const vir_type *f = d->opnd[0]->type;
    vir_literal l = d->opnd[0]->def->attr.lit;
    *neg = f->kind == VIR_TY_FLOAT && signbit(l.f);
    return f->kind == VIR_TY_FLOAT ? l.f == 0 : f->kind == VIR_TY_BOOL ? !l.b : l.u == 0;
  }
  if (d->code == VIR_OP_CAST && d->nopnd == 1 && int_zero(d->opnd[0], 0)) {
    *neg = false;
    return true;
  }
  return false;
}

/* A constant of float type t (scalar or vector): +-0.0, or the float32
 * bits given (+-inf, NaN) converted to t. */
static void zero_lit(cf_printer *p, vp_strbuf *b, const vir_type *t, bool neg) {
  if (t->kind == VIR_TY_VEC) {
    cf_type(p, b, t, false);
    vp_strbuf_putc(b, '(');
    cf_literal(p, b, t->elem, (vir_literal){.f = neg ? -0.0 : 0.0});
    vp_strbuf_putc(b, ')');
    return;
  }
  cf_literal(p, b, t, (vir_literal){.f = neg ? -0.0 : 0.0});
}
static void bits_lit(cf_printer *p, vp_strbuf *b, const vir_type *t, const char *bits) {
  bool wrap = t->kind == VIR_TY_VEC || t->bits != 32;
  if (wrap) {
    cf_type(p, b, t, false);
    vp_strbuf_putc(b, '(');
  }
  vp_strbuf_printf(b, "uintBitsToFloat(%s)", bits);
  if (wrap)
    vp_strbuf_putc(b, ')');
}

/* A zero of t (scalar or vector) with the sign of x, flipped when `flip`. */
static void signed_zero(cf_printer *p, vp_strbuf *b, const vir_type *t, const vir_value *x, bool flip) {
  if (t->kind == VIR_TY_VEC) {
    vp_strbuf_append(b, "mix(");
    zero_lit(p, b, t, false);
    vp_strbuf_append(b, ", ");
    zero_lit(p, b, t, true);
    vp_strbuf_printf(b, ", %s(floatBitsToInt(vec%u(", flip ? "greaterThanEqual" : "lessThan", t->n);
    cf_expr(p, b, x, CF_PREC_LOWEST);
    vp_strbuf_printf(b, ")), ivec%u(0)))", t->n);
    return;
  }
  vp_strbuf_append(b, "((floatBitsToUint(float(");
  cf_expr(p, b, x, CF_PREC_LOWEST);
  vp_strbuf_printf(b, ")) >> 31u) %s 0u ? ", flip ? "==" : "!=");
  zero_lit(p, b, t, true);
  vp_strbuf_append(b, " : ");
  zero_lit(p, b, t, false);
  vp_strbuf_putc(b, ')');
}

/* NaN where x is inf or NaN (`nonfinite`) or where x is 0 or NaN (not
 * `nonfinite`), else `val` (printed already). */
static void nan_or(cf_printer *p, vp_strbuf *b, const vir_type *t, const vir_value *x, bool nonfinite,
                   const vp_strbuf *val) {
  if (t->kind == VIR_TY_VEC) {
    vp_strbuf_append(b, "mix(");
    vp_strbuf_appendn(b, val->data ? val->data : "", val->len);
    vp_strbuf_append(b, ", ");
    bits_lit(p, b, t, "0x7fc00000u");
    vp_strbuf_append(b, nonfinite ? ", not(lessThan(abs(" : ", not(greaterThan(abs(");
    cf_expr(p, b, x, CF_PREC_LOWEST);
    vp_strbuf_append(b, "), ");
    if (nonfinite)
      bits_lit(p, b, t, "0x7f800000u");
    else
      zero_lit(p, b, t, false);
    vp_strbuf_append(b, ")))");
    return;
  }
  vp_strbuf_append(b, "((isnan(");
  cf_expr(p, b, x, CF_PREC_LOWEST);
  if (nonfinite) {
    vp_strbuf_append(b, ") || isinf(");
    cf_expr(p, b, x, CF_PREC_LOWEST);
    vp_strbuf_append(b, ")) ? ");
  } else {
    vp_strbuf_append(b, ") || ");
    cf_expr(p, b, x, CF_PREC_EQ + 1);
    vp_strbuf_append(b, " == ");
    zero_lit(p, b, t, false);
    vp_strbuf_append(b, ") ? ");
  }
  bits_lit(p, b, t, "0x7fc00000u");
  vp_strbuf_append(b, " : ");
  vp_strbuf_appendn(b, val->data ? val->data : "", val->len);
  vp_strbuf_putc(b, ')');
}

/* fma(x, +-0.0, c) or fma(+-0.0, x, c): the product spelled as x * +-0.0
 * is (NaN, or a zero with the sign of x xor the zero's), then + c: the same
 * value as the fused op (a product that is exact), which llvmpipe folds to
 * c. False for any other fma. */
static bool zero_fma(cf_printer *p, vp_strbuf *b, const vir_op *op, int *prec) {
  const vir_type *t = op->val.type;
  bool na = false, nb = false;
  bool za = zero_operand(op->opnd[0], &na), zb = zero_operand(op->opnd[1], &nb);
  const vir_value *x = za ? op->opnd[1] : op->opnd[0];
  if (za == zb || x->type != t || op->opnd[2]->type != t)
    return false;
  vp_strbuf z = {0};
  signed_zero(p, &z, t, x, za ? na : nb);
  vp_strbuf_putc(b, '(');
  nan_or(p, b, t, x, true, &z);
  vp_strbuf_free(&z);
  vp_strbuf_append(b, " + ");
  cf_expr(p, b, op->opnd[2], CF_PREC_ADD + 1);
  vp_strbuf_putc(b, ')');
  *prec = CF_PREC_PRIMARY;
  return true;
}

/* The op spelled without its zero operand; false when it has none. */
static bool zero_arith(cf_printer *p, vp_strbuf *b, const vir_op *op, int *prec) {
  const vir_type *t = op->val.type;
  if (p->dialect == CF_GLSL && op->code == VIR_OP_FMA && op->nopnd == 3 &&
      vir_ty_scalar_of(t)->kind == VIR_TY_FLOAT && (t->kind == VIR_TY_VEC || vir_ty_is_scalar(t)))
    return zero_fma(p, b, op, prec);
  if (p->dialect != CF_GLSL || op->nopnd != 2 || vir_ty_scalar_of(t)->kind != VIR_TY_FLOAT ||
      (t->kind != VIR_TY_VEC && !vir_ty_is_scalar(t)))
    return false;
  bool na = false, nb = false;
  bool za = zero_operand(op->opnd[0], &na), zb = zero_operand(op->opnd[1], &nb);
  if (za == zb) /* none, or both (folded long before) */
    return false;
  const vir_value *x = za ? op->opnd[1] : op->opnd[0];
  bool neg = za ? na : nb, vec = t->kind == VIR_TY_VEC;
  if (x->type != t)
    return false; /* a scalar x beside a zero vector */
  switch (op->code) {
  case VIR_OP_ADD:
  case VIR_OP_SUB: {
    if (op->code == VIR_OP_ADD ? neg : (zb && !neg))
      return false; /* x + -0.0, -0.0 + x, x - 0.0: exact, and llvmpipe keeps them */
    if (op->code == VIR_OP_SUB && za && neg)
      return false; /* -0.0 - x: kept */
    /* x + 0.0 (x - -0.0): x with -0.0 made +0.0; 0.0 - x: -x with the same */
    bool minus = op->code == VIR_OP_SUB && za;
    if (vec) {
      vp_strbuf_append(b, minus ? "mix(-" : "mix(");
      cf_expr(p, b, x, minus ? CF_PREC_UNARY : CF_PREC_LOWEST);
      vp_strbuf_append(b, ", ");
      zero_lit(p, b, t, false);
      vp_strbuf_append(b, ", equal(");
      cf_expr(p, b, x, CF_PREC_LOWEST);
      vp_strbuf_append(b, ", ");
      zero_lit(p, b, t, false);
      vp_strbuf_append(b, "))");
    } else {
      vp_strbuf_putc(b, '(');
      cf_expr(p, b, x, CF_PREC_EQ + 1);
      vp_strbuf_append(b, " == ");
      zero_lit(p, b, t, false);
      vp_strbuf_append(b, " ? ");
      zero_lit(p, b, t, false);
      vp_strbuf_append(b, minus ? " : -" : " : ");
      cf_expr(p, b, x, minus ? CF_PREC_UNARY : CF_PREC_TERNARY + 1);
      vp_strbuf_putc(b, ')');
    }
    *prec = CF_PREC_PRIMARY;
    return true;
  }
  case VIR_OP_MUL: {
    /* x * +-0.0: NaN for inf and NaN, else a zero with the sign of x xor c */
    vp_strbuf z = {0};
    signed_zero(p, &z, t, x, neg);
    nan_or(p, b, t, x, true, &z);
    vp_strbuf_free(&z);
    *prec = CF_PREC_PRIMARY;
    return true;
  }
  case VIR_OP_DIV:
  case VIR_OP_FLOORDIV:
    if (zb) { /* x / +-0.0 = x * +-inf (NaN for 0 and NaN), as NumPy's // too */
      cf_expr(p, b, op->opnd[0], CF_PREC_MUL);
      vp_strbuf_append(b, " * ");
      bits_lit(p, b, t, nb ? "0xff800000u" : "0x7f800000u");
      *prec = CF_PREC_MUL;
      return true;
    }
    if (op->code == VIR_OP_DIV && na)
      return false; /* -0.0 / x is kept */
    /* 0.0 / x = -0.0 / -x; +-0.0 // x is +-0.0 / x (a zero, or NaN for 0 and NaN) */
    zero_lit(p, b, t, true);
    vp_strbuf_append(b, na ? " / " : " / -");
    cf_expr(p, b, x, CF_PREC_UNARY);
    *prec = CF_PREC_MUL;
    return true;
  case VIR_OP_MOD:
  case VIR_OP_REM: {
    if (zb) {
      bits_lit(p, b, t, "0x7fc00000u"); /* x % 0.0: NaN */
      *prec = CF_PREC_PRIMARY;
      return true;
    }
    /* +-0.0 % x: NaN for x 0 or NaN, else a zero: NumPy's remainder has the
     * sign of x, C's fmod (REM) the sign of the zero */
    vp_strbuf z = {0};
    if (op->code == VIR_OP_MOD)
      signed_zero(p, &z, t, x, false);
    else
      zero_lit(p, &z, t, neg);
    nan_or(p, b, t, x, false, &z);
    vp_strbuf_free(&z);
    *prec = CF_PREC_PRIMARY;
    return true;
  }
  default: return false;
  }
}

int cf_op_expr(cf_printer *p, vp_strbuf *b, const vir_op *op) {
  const vir_op_info *info = vir_op_info_of(op->code);
  const vir_type *t = op->val.type;
  int zprec;
  if (zero_arith(p, b, op, &zprec))
    return zprec;
  /* float32 abs, -x, sign, min, max, clamp, floor, ceil, sqrt: the helpers that a
   * device that flushes subnormals cannot flush (docs/math.md) */
  if (cf_is_exact_f32_op(p, op))
    return call(p, b, cf_need_math(p, op->code, t), op, true);
  switch (op->code) {
  case VIR_OP_CONST:
    if (t->kind == VIR_TY_VEC) {
      cf_type(p, b, t, false);
      vp_strbuf_putc(b, '(');
      cf_literal(p, b, t->elem, op->attr.lit);
      vp_strbuf_putc(b, ')');
      return CF_PREC_PRIMARY;
    }
    return cf_literal_prec(p, b, t, op->attr.lit);
  case VIR_OP_GCONST:
    vp_strbuf_append(b, cf_sym_name(p, op->attr.sym));
    return CF_PREC_PRIMARY;
  case VIR_OP_CAST: {
    const vir_type *from = vir_ty_scalar_of(op->opnd[0]->type), *to = vir_ty_scalar_of(t);
    bool folded = op->opnd[0]->def && op->opnd[0]->def->code == VIR_OP_CONST;
    if (p->dialect == CF_GLSL && !folded && from->kind == VIR_TY_INT && from->bits == 32 &&
        to->kind == VIR_TY_INT && to->bits == 64)
      vp_strbuf_append(b, cf_need_pyop(p, CF_PY_SEXT64, op->opnd[0]->type)); /* lavapipe: pyops.c */
    else if (from->kind == VIR_TY_FLOAT && to->kind == VIR_TY_UINT) {
      /* a negative value converts through the signed type (pyops.c) */
      const char *f2u = cf_need_pyop(p, to->bits == 64 ? CF_PY_F2U64 : CF_PY_F2U, op->opnd[0]->type);
      bool narrow = to->bits < 32;
      if (narrow) {
        cf_type(p, b, t, false);
        vp_strbuf_putc(b, '(');
      }
      vp_strbuf_append(b, f2u);
      vp_strbuf_putc(b, '(');
      cf_expr(p, b, op->opnd[0], CF_PREC_LOWEST);
      vp_strbuf_append(b, narrow ? "))" : ")");
      return CF_PREC_PRIMARY;
    } else
      cf_type(p, b, t, false);
    vp_strbuf_putc(b, '(');
    cf_expr(p, b, op->opnd[0], CF_PREC_LOWEST);
    vp_strbuf_putc(b, ')');
    return CF_PREC_PRIMARY;
  }
  case VIR_OP_BITCAST: return bitcast(p, b, op);
  case VIR_OP_SELECT:
    if (op->opnd[0]->type->kind == VIR_TY_VEC) {
      /* componentwise: mix(false_value, true_value, bvecN) */
      if (gpu_c(p))
        p->pre |= CF_PRE_VEC | CF_PRE_MATH;
      vp_strbuf_append(b, "mix(");
      shaped(p, b, op->opnd[2], t);
      vp_strbuf_append(b, ", ");
      shaped(p, b, op->opnd[1], t);
      vp_strbuf_append(b, ", ");
      cf_expr(p, b, op->opnd[0], CF_PREC_LOWEST);
      vp_strbuf_putc(b, ')');
      return CF_PREC_PRIMARY;
    }
    cf_expr(p, b, op->opnd[0], CF_PREC_LOR);
    vp_strbuf_append(b, " ? ");
    cf_expr(p, b, op->opnd[1], CF_PREC_TERNARY + 1);
    vp_strbuf_append(b, " : ");
    cf_expr(p, b, op->opnd[2], CF_PREC_TERNARY + 1);
    return CF_PREC_TERNARY;

  case VIR_OP_ADD:
  case VIR_OP_SUB:
  case VIR_OP_MUL:
  case VIR_OP_DIV:
  case VIR_OP_REM:
  case VIR_OP_FLOORDIV:
  case VIR_OP_MOD:
  case VIR_OP_AND:
  case VIR_OP_OR:
  case VIR_OP_XOR:
  case VIR_OP_SHL:
  case VIR_OP_SHR:
    if (gpu_c(p) && (t->kind == VIR_TY_VEC || t->kind == VIR_TY_MAT))
      p->pre |= CF_PRE_VEC;
    return arith(p, b, op);
  case VIR_OP_MATMUL:
    if (gpu_c(p))
      p->pre |= CF_PRE_VEC | CF_PRE_MAT;
    cf_expr(p, b, op->opnd[0], CF_PREC_MUL);
    vp_strbuf_append(b, " * ");
    cf_expr(p, b, op->opnd[1], CF_PREC_MUL + 1);
    return CF_PREC_MUL;
  case VIR_OP_NEG:
  case VIR_OP_NOT: return prefix(p, b, op);
  case VIR_OP_BIT_COUNT: /* GLSL's bitCount and __popc return int: cast to the op's type */
    cf_type(p, b, t, false);
    vp_strbuf_append(b, gpu_c(p) ? "(__popc(" : "(bitCount(");
    cf_expr(p, b, op->opnd[0], CF_PREC_LOWEST);
    vp_strbuf_append(b, "))");
    return CF_PREC_PRIMARY;
  case VIR_OP_FIND_LSB:
  case VIR_OP_FIND_MSB: {
    /* GLSL's findLSB / findMSB return int (-1 for no bit): cast to the
     * op's type; CUDA/HIP: __ffs(x) - 1 and 31 - __clz(x), a negative int's
     * highest clear bit as GLSL's (x ^ (x >> 31): its complement) */
    bool lsb = op->code == VIR_OP_FIND_LSB;
    cf_type(p, b, t, false);
    if (!gpu_c(p)) {
      vp_strbuf_append(b, lsb ? "(findLSB(" : "(findMSB(");
      cf_expr(p, b, op->opnd[0], CF_PREC_LOWEST);
      vp_strbuf_append(b, "))");
      return CF_PREC_PRIMARY;
    }
    bool sgn = t->kind == VIR_TY_INT;
    vp_strbuf_append(b, lsb ? "(__ffs(int(" : "(31 - __clz(int(");
    cf_expr(p, b, op->opnd[0], CF_PREC_LOWEST);
    if (!lsb && sgn) {
      vp_strbuf_append(b, ") ^ (int(");
      cf_expr(p, b, op->opnd[0], CF_PREC_LOWEST);
      vp_strbuf_append(b, ") >> 31)");
    } else {
      vp_strbuf_append(b, ")");
    }
    vp_strbuf_append(b, lsb ? ") - 1)" : "))");
    return CF_PREC_PRIMARY;
  }
  case VIR_OP_LAND:
  case VIR_OP_LOR:
  case VIR_OP_LNOT: return logic(p, b, op);
  case VIR_OP_EQ:
  case VIR_OP_NE:
  case VIR_OP_LT:
  case VIR_OP_LE:
  case VIR_OP_GT:
  case VIR_OP_GE: return compare(p, b, op);

  case VIR_OP_EXTRACT: {
    const vir_type *vt = op->opnd[0]->type;
    cf_expr(p, b, op->opnd[0], CF_PREC_PRIMARY);
    if (vt->kind == VIR_TY_VEC)
      vp_strbuf_printf(b, ".%c", cf_comp[op->attr.index & 3]);
    else if (vt->kind == VIR_TY_STRUCT && op->attr.index < vt->st->nfields)
      vp_strbuf_printf(b, ".%s", cf_member_name(p, vt->st->fields[op->attr.index].name));
    else
      vp_strbuf_printf(b, "[%u]", op->attr.index);
    return CF_PREC_PRIMARY;
  }
  case VIR_OP_EXTRACT_DYN:
    cf_expr(p, b, op->opnd[0], CF_PREC_PRIMARY);
    print_index(p, b, op->opnd[1]);
    return CF_PREC_PRIMARY;
  case VIR_OP_SWIZZLE:
    if (gpu_c(p)) {
      cf_need_swizzle(p, op->attr.swz, op->attr.nswz);
      vp_strbuf_append(b, "vp_");
      for (unsigned i = 0; i < op->attr.nswz; i++)
        vp_strbuf_putc(b, cf_comp[op->attr.swz[i] & 3]);
      vp_strbuf_putc(b, '(');
      cf_expr(p, b, op->opnd[0], CF_PREC_LOWEST);
      vp_strbuf_putc(b, ')');
      return CF_PREC_PRIMARY;
    }
    cf_expr(p, b, op->opnd[0], CF_PREC_PRIMARY);
    vp_strbuf_putc(b, '.');
    for (unsigned i = 0; i < op->attr.nswz; i++)
      vp_strbuf_putc(b, cf_comp[op->attr.swz[i] & 3]);
    return CF_PREC_PRIMARY;
  case VIR_OP_CONSTRUCT:
    cf_type(p, b, t, false);
    vp_strbuf_putc(b, '(');
    for (uint32_t i = 0; i < op->nopnd; i++) {
      if (i)
        vp_strbuf_append(b, ", ");
      cf_expr(p, b, op->opnd[i], CF_PREC_LOWEST);
    }
    vp_strbuf_putc(b, ')');
    return CF_PREC_PRIMARY;
  case VIR_OP_INSERT:
    /* only as a statement (stmt.c); never inlined */
    vp_strbuf_append(b, "/* insert */");
    return CF_PREC_PRIMARY;

  case VIR_OP_GLOBAL_ID:
  case VIR_OP_LOCAL_ID:
  case VIR_OP_WORKGROUP_ID:
  case VIR_OP_NUM_WORKGROUPS:
  case VIR_OP_WORKGROUP_SIZE:
  case VIR_OP_LOCAL_INDEX:
  case VIR_OP_SUBGROUP_LANE:
  case VIR_OP_SUBGROUP_SIZE:
  case VIR_OP_SUBGROUP_ID:
  case VIR_OP_NUM_SUBGROUPS: return builtin_id(p, b, op);

  case VIR_OP_PUSH_LOAD:
  case VIR_OP_LOCAL_LOAD:
    cf_lvalue(p, b, op, NULL);
    return CF_PREC_PRIMARY;
  case VIR_OP_BUFFER_LOAD:
    if (gpu_c(p) && t->kind == VIR_TY_VEC && t->n == 3) {
      /* the element may be a vec3_std430 (16-byte stride): make it a vec3 */
      cf_type(p, b, t, false);
      vp_strbuf_putc(b, '(');
      cf_lvalue(p, b, op, op->opnd[0]);
      vp_strbuf_putc(b, ')');
      return CF_PREC_PRIMARY;
    }
    cf_lvalue(p, b, op, op->opnd[0]);
    return CF_PREC_PRIMARY;
  case VIR_OP_SHARED_LOAD:
  case VIR_OP_LOCAL_LOAD_AT:
    cf_lvalue(p, b, op, op->opnd[0]);
    return CF_PREC_PRIMARY;
  case VIR_OP_BUFFER_LEN: {
    const char *name = cf_sym_name(p, op->attr.sym);
    if (gpu_c(p)) {
      vp_strbuf_printf(b, "%s_len", name);
    } else {
      vp_strbuf_printf(b, "uint(%s.length())", name);
    }
    return CF_PREC_PRIMARY;
  }

  case VIR_OP_ATOMIC_ADD:
  case VIR_OP_ATOMIC_MIN:
  case VIR_OP_ATOMIC_MAX:
  case VIR_OP_ATOMIC_AND:
  case VIR_OP_ATOMIC_OR:
  case VIR_OP_ATOMIC_XOR:
  case VIR_OP_ATOMIC_XCHG:
  case VIR_OP_ATOMIC_CMPXCHG:
  case VIR_OP_ATOMIC_LOAD:
  case VIR_OP_ATOMIC_STORE: return cf_atomic_expr(p, b, op);

  case VIR_OP_CALL: {
    int idx = cf_sym_index(p, op->attr.sym);
    const char *name = idx >= 0 && p->func_name[idx] ? p->func_name[idx] : op->attr.sym->name;
    vp_strbuf_printf(b, "%s(", name);
    for (uint32_t i = 0; i < op->nopnd; i++) {
      if (i)
        vp_strbuf_append(b, ", ");
      cf_expr(p, b, op->opnd[i], CF_PREC_LOWEST);
    }
    if (gpu_c(p) && idx >= 0) {
      /* CUDA/HIP helpers take the kernel's buffers and push block */
      cf_call_resources(p, b, idx, op->nopnd == 0);
    }
    vp_strbuf_putc(b, ')');
    return CF_PREC_PRIMARY;
  }

  default: break;
  }

  if (info->flags & VIR_F_SUBGROUP) {
    p->ext |= CF_EXT_SG_BASIC | subgroup_ext(op->code);
    if (gpu_c(p))
      p->pre |= CF_PRE_SUBGROUP | CF_PRE_IDS;
    return call(p, b, info->spell, op, false);
  }
  if (info->flags & VIR_F_TRANSC)
    return math(p, b, op);
  switch (op->code) {
  case VIR_OP_ISNAN:
  case VIR_OP_ISINF:
  case VIR_OP_ALL:
  case VIR_OP_ANY:
  case VIR_OP_DOT:
  case VIR_OP_CROSS:
  case VIR_OP_LENGTH:
  case VIR_OP_DISTANCE:
  case VIR_OP_NORMALIZE:
  case VIR_OP_REFLECT:
  case VIR_OP_TRANSPOSE:
    if (gpu_c(p))
      p->pre |= CF_PRE_VEC | CF_PRE_MATH | (op->code == VIR_OP_TRANSPOSE ? CF_PRE_MAT : 0);
    else if (op->code != VIR_OP_ISNAN && op->code != VIR_OP_ISINF && op->code != VIR_OP_ALL &&
             op->code != VIR_OP_ANY && small_operands(op))
      return widened(p, b, op, info->spell, false); /* dot, length, ...: GLSL.std.450 too */
    return call(p, b, info->spell, op, false);
  default: break;
  }
  if (info->spell && info->spell[0])
    return float_fn(p, b, op);
  cf_error(p, op->loc, "'%s' cannot be printed as C-family code", info->name);
  return CF_PREC_PRIMARY;
}
