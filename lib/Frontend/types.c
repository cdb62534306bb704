/* types.c - the language's predefined names and its typing rules.
 *
 * One table lists every built-in: the types (bool, int8..uint64, float16..
 * float64, vecN/ivecN/uvecN/dvecN/bvecN, matN/dmatN) and the functions, with
 * the VIR op each becomes. The rules (docs/language.md, "Types"):
 *   - an int literal takes the type of the other operand (it must fit),
 *     else int32; a float literal takes the other operand's float type,
 *     else float32; an int literal next to a float value becomes a float;
 *   - typed operands of one kind (signed, unsigned, float) widen to the
 *     wider one; signed with unsigned, or int with float, is an error that
 *     suggests a cast; nothing narrows or wraps silently.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fe.h"

#define T(name, k, bits, n, cols) {name, VFE_B_TYPE, 0, 0, VIR_TY_##k, bits, n, cols, false}
#define F(name, fn, op) {name, VFE_B_FUNC, VFE_F_##fn, VIR_OP_##op, 0, 0, 0, 0, false}
#define PY(name, fn, op) {name, VFE_B_FUNC, VFE_F_##fn, VIR_OP_##op, 0, 0, 0, 0, true}

static const vfe_builtin builtins[] = {
    /* scalar types */
    T("bool", BOOL, 1, 1, 0), T("int8", INT, 8, 1, 0), T("int16", INT, 16, 1, 0),
    T("int32", INT, 32, 1, 0), T("int64", INT, 64, 1, 0), T("uint8", UINT, 8, 1, 0),
    T("uint16", UINT, 16, 1, 0), T("uint32", UINT, 32, 1, 0), T("uint64", UINT, 64, 1, 0),
    T("float16", FLOAT, 16, 1, 0), T("float32", FLOAT, 32, 1, 0), T("float64", FLOAT, 64, 1, 0),
    /* Python's own names for the defaults */
    {"int", VFE_B_TYPE, 0, 0, VIR_TY_INT, 32, 1, 0, true},
    {"float", VFE_B_TYPE, 0, 0, VIR_TY_FLOAT, 32, 1, 0, true},
    /* vectors */
    T("vec2", FLOAT, 32, 2, 0), T("vec3", FLOAT, 32, 3, 0), T("vec4", FLOAT, 32, 4, 0),
    T("ivec2", INT, 32, 2, 0), T("ivec3", INT, 32, 3, 0), T("ivec4", INT, 32, 4, 0),
    T("uvec2", UINT, 32, 2, 0), T("uvec3", UINT, 32, 3, 0), T("uvec4", UINT, 32, 4, 0),
    T("dvec2", FLOAT, 64, 2, 0), T("dvec3", FLOAT, 64, 3, 0), T("dvec4", FLOAT, 64, 4, 0),
    T("bvec2", BOOL, 1, 2, 0), T("bvec3", BOOL, 1, 3, 0), T("bvec4", BOOL, 1, 4, 0),
    /* square matrices: columns of vectors */
    T("mat2", FLOAT, 32, 2, 2), T("mat3", FLOAT, 32, 3, 3), T("mat4", FLOAT, 32, 4, 4),
    T("dmat2", FLOAT, 64, 2, 2), T("dmat3", FLOAT, 64, 3, 3), T("dmat4", FLOAT, 64, 4, 4),
    /* declarations */
    {"Buffer", VFE_B_BUFFER, 0, 0, 0, 0, 0, 0, false},
    {"Shared", VFE_B_SHARED, 0, 0, 0, 0, 0, 0, false},
    {"Control", VFE_B_CONTROL, 0, 0, 0, 0, 0, 0, false},
    /* math */
    F("sin", MATH1, SIN), F("cos", MATH1, COS), F("tan", MATH1, TAN), F("asin", MATH1, ASIN),
    F("acos", MATH1, ACOS), F("atan", ATAN, ATAN), F("atan2", MATH2, ATAN2),
    F("sinh", MATH1, SINH), F("cosh", MATH1, COSH), F("tanh", MATH1, TANH),
    F("asinh", MATH1, ASINH), F("acosh", MATH1, ACOSH), F("atanh", MATH1, ATANH),
    F("exp", MATH1, EXP), F("exp2", MATH1, EXP2), F("expm1", MATH1, EXPM1),
    F("log", MATH1, LOG), F("log2", MATH1, LOG2), F("log10", MATH1, LOG10),
    F("log1p", MATH1, LOG1P), F("sqrt", MATH1, SQRT), F("inversesqrt", MATH1, RSQRT),
    F("rsqrt", MATH1, RSQRT), F("cbrt", MATH1, CBRT), F("floor", MATH1, FLOOR),
    F("ceil", MATH1, CEIL), F("trunc", MATH1, TRUNC), PY("round", ROUND, RINT),
    F("fract", MATH1, FRACT), F("mod", MATH2, MOD), PY("pow", MATH2, POW),
    PY("abs", NUM1, ABS), F("sign", NUM1, SIGN), PY("min", MINMAX, MIN), PY("max", MINMAX, MAX),
    F("clamp", CLAMP, CLAMP), F("mix", MATH3, MIX), F("step", STEP, STEP),
    F("smoothstep", MATH3, SMOOTHSTEP), F("fma", MATH3, FMA), F("dot", VEC2, DOT),
    F("cross", VEC2, CROSS), F("length", VEC1, LENGTH), F("distance", VEC2, DISTANCE),
    F("normalize", VEC1, NORMALIZE), F("reflect", VEC2, REFLECT), F("isnan", TEST, ISNAN),
    F("isinf", TEST, ISINF), F("any", ANYALL, ANY), F("all", ANYALL, ALL),
    F("where", WHERE, SELECT), F("select", WHERE, SELECT), F("transpose", TRANSPOSE, TRANSPOSE),
    F("bit_count", NUM1, BIT_COUNT), /* issue 19 */
    F("find_lsb", NUM1, FIND_LSB), F("find_msb", NUM1, FIND_MSB),
    /* invocation ids */
    F("global_id", ID, GLOBAL_ID), F("local_id", ID, LOCAL_ID),
    F("workgroup_id", ID, WORKGROUP_ID), F("num_workgroups", ID, NUM_WORKGROUPS),
    F("workgroup_size", ID, WORKGROUP_SIZE), F("local_index", ID1, LOCAL_INDEX),
    F("subgroup_id", ID1, SUBGROUP_ID), F("subgroup_size", ID1, SUBGROUP_SIZE),
    F("subgroup_lane", ID1, SUBGROUP_LANE), F("subgroup_invocation_id", ID1, SUBGROUP_LANE),
    F("num_subgroups", ID1, NUM_SUBGROUPS),
    /* subgroup operations */
    F("subgroup_add", SG1, SG_ADD), F("subgroup_mul", SG1, SG_MUL),
    F("subgroup_min", SG1, SG_MIN), F("subgroup_max", SG1, SG_MAX),
    F("subgroup_and", SG1, SG_AND), F("subgroup_or", SG1, SG_OR),
    F("subgroup_xor", SG1, SG_XOR), F("subgroup_inclusive_add", SG1, SG_INCLUSIVE_ADD),
    F("subgroup_exclusive_add", SG1, SG_EXCLUSIVE_ADD), F("subgroup_all", SG1, SG_ALL),
    F("subgroup_any", SG1, SG_ANY), F("subgroup_broadcast_first", SG1, SG_BROADCAST_FIRST),
    F("subgroup_broadcast", SG2, SG_BROADCAST), F("subgroup_shuffle", SG2, SG_SHUFFLE),
    F("subgroup_shuffle_xor", SG2, SG_SHUFFLE_XOR), F("subgroup_shuffle_up", SG2, SG_SHUFFLE_UP),
    F("subgroup_shuffle_down", SG2, SG_SHUFFLE_DOWN), F("subgroup_ballot", BALLOT, SG_BALLOT),
    F("subgroup_elect", ELECT, SG_ELECT), F("subgroup_barrier", BARRIER, SG_BARRIER),
    /* atomics: return the old value */
    F("atomic_add", ATOMIC, ATOMIC_ADD), F("atomic_sub", ATOMIC_SUB, ATOMIC_ADD),
    F("atomic_min", ATOMIC, ATOMIC_MIN), F("atomic_max", ATOMIC, ATOMIC_MAX),
    F("atomic_and", ATOMIC, ATOMIC_AND), F("atomic_or", ATOMIC, ATOMIC_OR),
    F("atomic_xor", ATOMIC, ATOMIC_XOR), F("atomic_exchange", ATOMIC, ATOMIC_XCHG),
    F("atomic_compare_exchange", ATOMIC, ATOMIC_CMPXCHG), F("atomic_load", ATOMIC, ATOMIC_LOAD),
    F("atomic_store", ATOMIC, ATOMIC_STORE),
    /* synchronization */
    F("barrier", BARRIER, BARRIER), F("memory_barrier", MEMBAR, MEMORY_BARRIER),
    /* the rest */
    F("var", VAR, CONST), PY("range", RANGE, FOR), PY("len", LEN, BUFFER_LEN),
    F("bitcast", BITCAST, BITCAST), F("kernel", KERNEL, CONST), F("func", KERNEL, CONST),
    /* persistent programs */
    F("grid_sync", GRID_SYNC, PERSIST_GRID_SYNC), F("grid_range", GRID_RANGE, FOR),
    /* the kernel-language patterns (static_loops.c) */
    F("static", STATIC, CONST),
    {"Local", VFE_B_LOCAL, 0, 0, 0, 0, 0, 0, false}, /* locals.c */
    F("print", PRINT, CONST), /* issue 20: print.c */
    /* generic scalars and the struct decorator (generic.c, python-api.md) */
    {"Scalar", VFE_B_SCALAR, 0, 0, 0, 0, 0, 0, false},
    F("struct", KERNEL, CONST),
};

#undef T
#undef F
#undef PY

enum { NBUILTINS = sizeof builtins / sizeof builtins[0] };

const vfe_builtin *vfe_builtin_find(const char *name) {
  /* A linear scan that compares first characters before strcmp: names are
   * resolved through the function's own map first, so this runs only for
   * `vp.X` and bare built-ins. */
  for (unsigned i = 0; i < NBUILTINS; i++)
    if (builtins[i].name[0] == name[0] && strcmp(builtins[i].name, name) == 0)
      return &builtins[i];
  return NULL;
}

vir_type *vfe_builtin_type(vfe_ctx *c, const vfe_builtin *b) {
  vir_module *m = c->m;
  vir_type *s;
  switch (b->tkind) {
  case VIR_TY_BOOL: s = vir_ty_bool(m); break;
  case VIR_TY_INT: s = vir_ty_int(m, b->bits); break;
  case VIR_TY_UINT: s = vir_ty_uint(m, b->bits); break;
  default: s = vir_ty_float(m, b->bits); break;
  }
  if (b->cols)
    return vir_ty_mat(m, s, b->cols, b->n);
  return b->n > 1 ? vir_ty_vec(m, s, b->n) : s;
}

/* Levenshtein distance, capped: names are short. */
static unsigned edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 40 || lb > 40)
    return 99;
  unsigned row[41];
  for (size_t j = 0; j <= lb; j++)
    row[j] = (unsigned)j;
  for (size_t i = 1; i <= la; i++) {
    unsigned diag = row[0];
    row[0] = (unsigned)i;
    for (size_t j = 1; j <= lb; j++) {
      unsigned up = row[j];
      unsigned best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best)
        best = up + 1;
      if (row[j - 1] + 1 < best)
        best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[lb];
}

const char *vfe_builtin_suggest(const char *name) {
  const char *best = NULL;
  unsigned bestd = strlen(name) <= 3 ? 1 : 2;
  for (unsigned i = 0; i < NBUILTINS; i++) {
    unsigned d = edit_distance(name, builtins[i].name);
    if (d <= bestd && (!best || d < bestd)) {
      best = builtins[i].name;
      bestd = d;
    }
  }
  return best;
}

/* ---------------------------------------------------------------- names */

const char *vfe_tyname(vfe_ctx *c, const vir_type *t) {
  if (!t)
    return "?";
  vp_strbuf b = {0};
  vir_type_print(&b, t);
  const char *s = vfe_strdup(c, b.data ? b.data : "?");
  vp_strbuf_free(&b);
  return s;
}

const char *vfe_vpname(vfe_ctx *c, const vir_type *t) {
  if (t->kind == VIR_TY_STRUCT)
    return t->st->name;
  const vir_type *s = vir_ty_scalar_of(t);
  if (t->kind == VIR_TY_MAT)
    return vp_arena_printf(&c->arena, "vp.%smat%u", s->bits == 64 ? "d" : "", t->n);
  if (t->kind == VIR_TY_VEC) {
    const char *p = s->kind == VIR_TY_BOOL   ? "b"
                    : s->kind == VIR_TY_INT  ? "i"
                    : s->kind == VIR_TY_UINT ? "u"
                    : s->bits == 64          ? "d"
                                             : "";
    if ((s->kind == VIR_TY_INT || s->kind == VIR_TY_UINT || s->kind == VIR_TY_FLOAT) &&
        s->bits != (s->kind == VIR_TY_FLOAT && s->bits == 64 ? 64 : 32))
      return vp_arena_printf(&c->arena, "vp.vec%u(...) of %s", t->n, vfe_tyname(c, s));
    return vp_arena_printf(&c->arena, "vp.%svec%u", p, t->n);
  }
  switch (t->kind) {
  case VIR_TY_BOOL: return "vp.bool";
  case VIR_TY_INT: return vp_arena_printf(&c->arena, "vp.int%u", t->bits);
  case VIR_TY_UINT: return vp_arena_printf(&c->arena, "vp.uint%u", t->bits);
  case VIR_TY_FLOAT: return vp_arena_printf(&c->arena, "vp.float%u", t->bits);
  default: return vfe_tyname(c, t);
  }
}

/* ---------------------------------------------------------------- rules */

static int scalar_class(const vir_type *s) {
  switch (s->kind) {
  case VIR_TY_BOOL: return 0;
  case VIR_TY_INT: return 1;
  case VIR_TY_UINT: return 2;
  case VIR_TY_FLOAT: return 3;
  default: return -1;
  }
}

bool vfe_widens(const vir_type *from, const vir_type *to) {
  if (from == to)
    return true;
  if (!from || !to || from->kind != to->kind)
    return false;
  if (from->kind == VIR_TY_VEC && from->n != to->n)
    return false;
  if (from->kind == VIR_TY_MAT && (from->n != to->n || from->rows != to->rows))
    return false;
  if (from->kind != VIR_TY_VEC && from->kind != VIR_TY_MAT && !vir_ty_is_scalar(from))
    return false;
  const vir_type *a = vir_ty_scalar_of(from), *b = vir_ty_scalar_of(to);
  return a->kind == b->kind && a->kind != VIR_TY_BOOL && a->bits <= b->bits;
}

static const char *class_word(const vir_type *s) {
  switch (scalar_class(s)) {
  case 0: return "bool";
  case 1: return "signed";
  case 2: return "unsigned";
  case 3: return "float";
  default: return "aggregate";
  }
}

const char *vfe_what_text(vfe_ctx *c, vfe_what w) {
  const char *s1 = w.vp ? vfe_vpname(c, w.vp) : w.s1 ? w.s1 : "";
  const char *s2 = w.ty ? vfe_tyname(c, w.ty) : w.s2 ? w.s2 : "";
  return w.fmt ? vp_arena_printf(&c->arena, w.fmt, s1, s2, w.n) : "?";
}

vir_type *vfe_unify(vfe_ctx *c, const vfe_node *at, const vir_type *a, const vir_type *b,
                    vfe_what what) {
  if (a == b)
    return (vir_type *)a;
  bool av = a->kind == VIR_TY_VEC, bv = b->kind == VIR_TY_VEC;
  if ((!av && !vir_ty_is_scalar(a)) || (!bv && !vir_ty_is_scalar(b)) || (av && bv && a->n != b->n)) {
    vfe_err(c, at, "%s: operand types %s and %s do not match", vfe_what_text(c, what), vfe_tyname(c, a),
            vfe_tyname(c, b));
    return NULL;
  }
  const vir_type *sa = vir_ty_scalar_of(a), *sb = vir_ty_scalar_of(b);
  if (scalar_class(sa) != scalar_class(sb)) {
    vfe_err(c, at, "%s mixes %s (%s) and %s (%s) operands", vfe_what_text(c, what), class_word(sa),
            vfe_tyname(c, a), class_word(sb), vfe_tyname(c, b));
    const vir_type *to = scalar_class(sa) == 3 || scalar_class(sb) != 3 ? sa : sb;
    vfe_hint(c, "convert one side explicitly, e.g. %s(...)", vfe_vpname(c, to));
    return NULL;
  }
  const vir_type *s = sa->bits >= sb->bits ? sa : sb;
  unsigned n = av ? a->n : bv ? b->n : 1;
  vir_type *st = (vir_type *)s;
  return n > 1 ? vir_ty_vec(c->m, st, n) : st;
}

bool vfe_literal_fits(const vfe_val *v, const vir_type *s) {
  if (v->kind == VFE_V_BOOL)
    return s->kind == VIR_TY_BOOL;
  if (v->kind == VFE_V_FLOAT) {
    if (s->kind != VIR_TY_FLOAT)
      return false;
    double lim = s->bits == 16 ? 65504.0 : s->bits == 32 ? 3.4028234663852886e38 : INFINITY;
    return isnan(v->f) || isinf(v->f) || fabs(v->f) <= lim;
  }
  if (v->kind != VFE_V_INT)
    return false;
  if (s->kind == VIR_TY_FLOAT)
    return true;
  if (s->kind == VIR_TY_UINT) {
    if (!v->big && v->i < 0)
      return false;
    return s->bits == 64 || v->u < (1ull << s->bits);
  }
  if (s->kind == VIR_TY_INT) {
    if (v->big)
      return false;
    int64_t lo = s->bits == 64 ? INT64_MIN : -(1ll << (s->bits - 1));
    int64_t hi = s->bits == 64 ? INT64_MAX : (1ll << (s->bits - 1)) - 1;
    return v->i >= lo && v->i <= hi;
  }
  return false;
}

static const char *lit_text(vfe_ctx *c, const vfe_val *v) {
  if (v->kind == VFE_V_BOOL)
    return v->b ? "True" : "False";
  if (v->kind == VFE_V_FLOAT) {
    /* the shortest text that reads back as the value: 2.5e+39, as the
     * user wrote it, rather than 2.5000000000000001e+39 */
    for (int prec = 1; prec < 17; prec++) {
      const char *t = vp_arena_printf(&c->arena, "%.*g", prec, v->f);
      if (strtod(t, NULL) == v->f)
        return t;
    }
    return vp_arena_printf(&c->arena, "%.17g", v->f);
  }
  if (v->big)
    return vp_arena_printf(&c->arena, "%llu", (unsigned long long)v->u);
  return vp_arena_printf(&c->arena, "%lld", (long long)v->i);
}

/* A literal as a constant of scalar type `s`; NULL (with an error) when it
 * does not fit. */
static vir_value *literal_as(vfe_ctx *c, const vfe_node *at, const vfe_val *v, vir_type *s,
                             vfe_what what) {
  if (!vfe_literal_fits(v, s)) {
    if (v->kind == VFE_V_FLOAT && s->kind != VIR_TY_FLOAT) {
      vfe_err(c, at, "%s: float literal %s where %s is expected", vfe_what_text(c, what), lit_text(c, v),
              vfe_tyname(c, s));
      vfe_hint(c, "the value must be %s here: write an integer, or convert: %s(...)",
               vfe_tyname(c, s), vfe_vpname(c, s));
    } else {
      vfe_err(c, at, "%s: literal %s does not fit %s", vfe_what_text(c, what), lit_text(c, v), vfe_tyname(c, s));
      if (v->kind == VFE_V_INT && s->kind == VIR_TY_UINT && !v->big && v->i < 0)
        vfe_hint(c, "unsigned values cannot be negative; VulPy never wraps silently");
      else if (v->kind != VFE_V_BOOL) {
        /* the narrowest wider type of the same kind that holds it */
        vir_type *w = NULL;
        for (unsigned bits = s->bits * 2; bits <= 64 && !w; bits *= 2) {
          vir_type *t = s->kind == VIR_TY_FLOAT ? vir_ty_float(c->m, bits)
                        : s->kind == VIR_TY_UINT ? vir_ty_uint(c->m, bits)
                                                 : vir_ty_int(c->m, bits);
          if (vfe_literal_fits(v, t))
            w = t;
        }
        vfe_hint(c, "use a wider type, e.g. %s(...)",
                 w ? vfe_vpname(c, w)
                   : s->kind == VIR_TY_FLOAT ? "vp.float64" : s->kind == VIR_TY_UINT ? "vp.uint64" : "vp.int64");
      }
    }
    return NULL;
  }
  if (v->gsym && v->gsym->type == s) {
    /* the module constant by name, as the user wrote it */
    vir_op *op = vfe_build(c, VIR_OP_GCONST, s, 0, NULL);
    op->attr.sym = v->gsym;
    return vir_result(op);
  }
  if (v->kind == VFE_V_BOOL)
    return vfe_const_bool(c, v->b);
  if (s->kind == VIR_TY_FLOAT)
    return vfe_const_float(c, s, v->kind == VFE_V_FLOAT ? v->f : v->big ? (double)v->u : (double)v->i);
  return vfe_const_int(c, s, v->i); /* same bits as u for big values */
}

vir_value *vfe_coerce(vfe_ctx *c, const vfe_node *at, vfe_val v, vir_type *t, vfe_what what) {
  switch (v.kind) {
  case VFE_V_ERR: return NULL;
  case VFE_V_INT:
  case VFE_V_FLOAT:
  case VFE_V_BOOL:
    if (!vir_ty_is_scalar(t)) {
      vfe_err(c, at, "%s: a scalar literal where %s is expected", vfe_what_text(c, what), vfe_tyname(c, t));
      if (t->kind == VIR_TY_VEC)
        vfe_hint(c, "build the vector: %s(...)", vfe_vpname(c, t));
      return NULL;
    }
    return literal_as(c, at, &v, t, what);
  case VFE_V_LITSEL: {
    if (!vir_ty_is_scalar(t))
      break;
    vir_value *ops[3] = {v.v, literal_as(c, at, &v.elems[0], t, what), NULL};
    if (!ops[1] || !(ops[2] = literal_as(c, at, &v.elems[1], t, what)))
      return NULL;
    return vir_result(vfe_build(c, VIR_OP_SELECT, t, 3, ops));
  }
  default: break;
  }
  vir_value *x = vfe_use(c, at, v);
  if (!x)
    return NULL;
  if (x->type == t)
    return x;
  if (vfe_widens(x->type, t))
    return vfe_build1(c, VIR_OP_CAST, t, x);
  const vir_type *fs = vir_ty_scalar_of(x->type), *ts = vir_ty_scalar_of(t);
  bool same_shape = vir_ty_width(x->type) == vir_ty_width(t) && x->type->kind == t->kind;
  if (same_shape && scalar_class(fs) == scalar_class(ts))
    vfe_err(c, at, "%s: %s does not fit %s without narrowing", vfe_what_text(c, what), vfe_tyname(c, x->type),
            vfe_tyname(c, t));
  else
    vfe_err(c, at, "%s: expected %s, got %s", vfe_what_text(c, what), vfe_tyname(c, t), vfe_tyname(c, x->type));
  if (same_shape || (vir_ty_is_scalar(t) && vir_ty_is_scalar(x->type)))
    vfe_hint(c, "convert explicitly: %s", vfe_cast_hint(c, t, at));
  return NULL;
}

vir_value *vfe_rvalue(vfe_ctx *c, const vfe_node *at, vfe_val v) {
  switch (v.kind) {
  case VFE_V_INT:
    if (v.gsym)
      return literal_as(c, at, &v, v.gsym->type, VFE_WHAT("constant"));
    if (!v.big && v.i >= INT32_MIN && v.i <= INT32_MAX)
      return vfe_const_int(c, vir_ty_int(c->m, 32), v.i);
    vfe_err(c, at, "integer literal %s does not fit int32, the type of a literal on its own",
            lit_text(c, &v));
    vfe_hint(c, "give it a type: vp.uint32(...), vp.int64(...) or vp.uint64(...)");
    return NULL;
  case VFE_V_FLOAT:
    if (v.gsym)
      return literal_as(c, at, &v, v.gsym->type, VFE_WHAT("constant"));
    if (!vfe_literal_fits(&v, vir_ty_float(c->m, 32))) {
      vfe_err(c, at, "float literal %s does not fit float32, the type of a literal on its own",
              lit_text(c, &v));
      vfe_hint(c, "give it a type: vp.float64(...)");
      return NULL;
    }
    return vfe_const_float(c, vir_ty_float(c->m, 32), v.f);
  case VFE_V_BOOL: return vfe_const_bool(c, v.b);
  case VFE_V_LITSEL: {
    /* a literal's own type: float32 when either is a float, else int32 */
    vir_type *t = vfe_lit_is_float(&v) ? vir_ty_float(c->m, 32) : vir_ty_int(c->m, 32);
    return vfe_coerce(c, at, v, t, VFE_WHAT("a conditional expression"));
  }
  default: return vfe_use(c, at, v);
  }
}

/* ----------------------------------------------------------- annotations */

vir_type *vfe_type_of_annotation(vfe_ctx *c, const vfe_node *ann) {
  vfe_val v = vfe_expr(c, ann);
  switch (v.kind) {
  case VFE_V_ERR: return NULL;
  case VFE_V_BUILTIN:
    if (v.bi->kind == VFE_B_TYPE)
      return vfe_builtin_type(c, v.bi);
    break;
  case VFE_V_CLASS: return vir_ty_struct(c->m, v.st);
  case VFE_V_TYPE: return v.type;
  default: break;
  }
  vfe_err(c, ann, "this annotation is not a type");
  vfe_hint(c, "use a VulPy type such as vp.float32, vp.uint32, vp.vec3 or an annotated class");
  return NULL;
}

/* Struct classes: `class Particle:` with annotated fields only. */
vir_struct *vfe_declare_class(vfe_ctx *c, vfe_global *g, const char *name) {
  if (g->st)
    return g->st;
  const vfe_node *def = g->node;
  if (g->declaring) {
    vfe_err(c, def, "struct %s contains itself", name);
    return NULL;
  }
  g->declaring = true;
  uint32_t nb, nbody;
  vfe_get_list(def, "bases", &nb);
  vfe_node **body = vfe_get_list(def, "body", &nbody);
  bool ok = true;
  if (nb) {
    vfe_err(c, def, "class %s has base classes; kernel structs are plain annotated classes", name);
    ok = false;
  }
  vir_struct *st = vir_struct_create(c->m, vfe_mstrdup(c, name), vfe_loc(c, def));
  for (uint32_t i = 0; i < nbody; i++) {
    const vfe_node *s = body[i];
    vfe_ast k = vfe_ast_of(s);
    const char *ck = k == VFE_AST_Expr ? vfe_get_str(vfe_get(s, "value"), "kind") : NULL;
    if (ck && strcmp(ck, "str") == 0)
      continue; /* docstring */
    if (k == VFE_AST_Pass)
      continue;
    if (k == VFE_AST_FunctionDef) {
      /* a method: a helper with self first (methods.c); the special ones
       * (__init__, __add__, ...) have no meaning for a kernel struct */
      const char *mname = vfe_get_str(s, "name");
      uint32_t nd;
      vfe_get_list(s, "decorator_list", &nd);
      if (mname && strncmp(mname, "__", 2) == 0) {
        vfe_err(c, s, "class %s defines %s; kernel structs are built from their fields", name, mname);
        vfe_hint(c, "call %s(field=..., ...) to build one; write other operations as methods", name);
        ok = false;
      } else if (nd) {
        vfe_err(c, s, "method %s.%s has a decorator; kernel struct methods are plain functions of self",
                name, mname ? mname : "?");
        ok = false;
      }
      continue;
    }
    if (k == VFE_AST_AsyncFunctionDef) {
      vfe_err(c, s, "class %s has an async method; kernels have no coroutines", name);
      ok = false;
      continue;
    }
    const vfe_node *target = vfe_get(s, "target");
    if (k != VFE_AST_AnnAssign || vfe_ast_of(target) != VFE_AST_Name) {
      vfe_err(c, s, "a struct class holds only annotated fields (name: type)");
      ok = false;
      continue;
    }
    if (vfe_get(s, "value")) {
      vfe_err(c, s, "struct fields cannot have default values");
      ok = false;
    }
    const char *fname = vfe_get_str(target, "id");
    if (!fname) {
      vfe_err(c, s, "malformed AST: a field without a name");
      ok = false;
      continue;
    }
    vir_type *t = vfe_type_of_annotation(c, vfe_get(s, "annotation"));
    if (!t) {
      ok = false;
      continue;
    }
    if (vir_ty_is_bool(t)) {
      vfe_err(c, s, "bool fields have no memory layout the GPU and the host agree on");
      vfe_hint(c, "use vp.uint32 (0 or 1)");
      ok = false;
      continue;
    }
    if (vir_struct_find(st, fname) >= 0) {
      vfe_err(c, s, "field %s is declared twice", fname);
      ok = false;
      continue;
    }
    vir_struct_add_field(c->m, st, vfe_mstrdup(c, fname), t, vfe_loc(c, s));
  }
  if (ok && st->nfields == 0) {
    vfe_err(c, def, "struct %s has no fields", name);
    ok = false;
  }
  /* A field's struct class declared while reading the fields came after
   * this one in the module; move this one behind it, so that the module
   * (and the GLSL, CUDA and HIP printed from it) declares types before
   * their use. */
  vp_ptrvec *sv = &c->m->structs;
  for (uint32_t i = 0; i + 1 < sv->len; i++)
    if (sv->data[i] == st) {
      memmove(&sv->data[i], &sv->data[i + 1], (sv->len - i - 1) * sizeof *sv->data);
      sv->data[sv->len - 1] = st;
      break;
    }
  vir_struct_layout(st);
  g->declaring = false;
  g->st = ok ? st : NULL;
  return g->st;
}
