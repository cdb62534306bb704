/* mathlib.c - transcendental functions: our precise helpers, GLSL's
 * built-ins, or the vendor's math library.
 *
 * GLSL: by default every transcendental op calls a helper of ours
 * (vp_sin, vp_exp, ...; mathlib_src.c), printed into the shader with the
 * helpers it needs, for float and/or double as used, and componentwise
 * overloads for vectors. With fast math, float ops use GLSL's built-ins
 * where GLSL has one (there are no double built-ins: double always uses the
 * helpers). CUDA and HIP call the vendor's math library (sin, expm1, ...),
 * which is accurate to a few ULP already (docs/math.md); with fast math,
 * float ops use the hardware intrinsics (__sinf, __expf, ...).
 *
 * The expander turns a template (mathlib_src.c) into text for one precision
 * and dialect: placeholders, Horner polynomials from mathcoef.inc, and
 * float literals with the right suffix (1.5 / 1.5lf in GLSL, 1.5f / 1.5 in
 * C++). Two specialization constants are declared before the first helper
 * that reads them: VP_FMA_FUSED and VP_DENORM_EMULATE (float32 only).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfamily.h"
#include "mathlib_src.h"
#include "mathcoef.inc"

/* ----------------------------------------------------- the op table */

static const struct {
  vir_opcode code;
  const char *helper;  /* ours */
  const char *glsl;    /* GLSL's float built-in, or NULL */
  const char *c;       /* C / CUDA / HIP */
  const char *fast_c;  /* CUDA/HIP float intrinsic for fast math, or NULL */
  int arity;
} ops[] = {
    {VIR_OP_SIN, "vp_sin", "sin", "sin", "__sinf", 1},
    {VIR_OP_COS, "vp_cos", "cos", "cos", "__cosf", 1},
    {VIR_OP_TAN, "vp_tan", "tan", "tan", "__tanf", 1},
    {VIR_OP_ASIN, "vp_asin", "asin", "asin", NULL, 1},
    {VIR_OP_ACOS, "vp_acos", "acos", "acos", NULL, 1},
    {VIR_OP_ATAN, "vp_atan", "atan", "atan", NULL, 1},
    {VIR_OP_ATAN2, "vp_atan2", "atan", "atan2", NULL, 2},
    {VIR_OP_SINH, "vp_sinh", "sinh", "sinh", NULL, 1},
    {VIR_OP_COSH, "vp_cosh", "cosh", "cosh", NULL, 1},
    {VIR_OP_TANH, "vp_tanh", "tanh", "tanh", NULL, 1},
    {VIR_OP_ASINH, "vp_asinh", "asinh", "asinh", NULL, 1},
    {VIR_OP_ACOSH, "vp_acosh", "acosh", "acosh", NULL, 1},
    {VIR_OP_ATANH, "vp_atanh", "atanh", "atanh", NULL, 1},
    {VIR_OP_EXP, "vp_exp", "exp", "exp", "__expf", 1},
    {VIR_OP_EXP2, "vp_exp2", "exp2", "exp2", "exp2f", 1},
    {VIR_OP_EXPM1, "vp_expm1", NULL, "expm1", NULL, 1},
    {VIR_OP_LOG, "vp_log", "log", "log", "__logf", 1},
    {VIR_OP_LOG2, "vp_log2", "log2", "log2", "__log2f", 1},
    {VIR_OP_LOG10, "vp_log10", NULL, "log10", "__log10f", 1},
    {VIR_OP_LOG1P, "vp_log1p", NULL, "log1p", NULL, 1},
    {VIR_OP_POW, "vp_pow", "pow", "pow", "__powf", 2},
    {VIR_OP_CBRT, "vp_cbrt", NULL, "cbrt", NULL, 1},
    /* float32 GLSL only, without fast math (expr.c): an operand with its
     * sign bit changed, or a selection of the operands, exact where the
     * device flushes subnormals (mathlib_src.c, docs/math.md "Subnormals") */
    {VIR_OP_NEG, "vp_negf", NULL, NULL, NULL, 1},
    {VIR_OP_ABS, "vp_fabsf", NULL, NULL, NULL, 1},
    {VIR_OP_SIGN, "vp_signf", NULL, NULL, NULL, 1},
    {VIR_OP_MIN, "vp_minf", NULL, NULL, NULL, 2},
    {VIR_OP_MAX, "vp_maxf", NULL, NULL, NULL, 2},
    {VIR_OP_CLAMP, "vp_clampf", NULL, NULL, NULL, 3},
    {VIR_OP_FLOOR, "vp_floorf", NULL, NULL, NULL, 1},
    {VIR_OP_CEIL, "vp_ceilf", NULL, NULL, NULL, 1},
    {VIR_OP_SQRT, "vp_sqrtf", NULL, NULL, NULL, 1},
    {VIR_OP_DIV, "vp_divf", NULL, NULL, NULL, 2},
};
#define NOPS (sizeof ops / sizeof ops[0])

static int op_index(vir_opcode c) {
  for (unsigned i = 0; i < NOPS; i++)
    if (ops[i].code == c)
      return (int)i;
  return -1;
}

bool cf_is_math_op(vir_opcode code) {
  return op_index(code) >= 0 && (vir_op_info_of(code)->flags & VIR_F_TRANSC);
}

bool cf_is_exact_f32_op(const cf_printer *p, const vir_op *op) {
  const vir_type *t = op->val.type;
  if (p->dialect != CF_GLSL || p->o->fast_math || op_index(op->code) < 0 ||
      (vir_op_info_of(op->code)->flags & VIR_F_TRANSC))
    return false;
  if (t->kind != VIR_TY_FLOAT && t->kind != VIR_TY_VEC)
    return false;
  const vir_type *s = vir_ty_scalar_of(t);
  return s->kind == VIR_TY_FLOAT && s->bits == 32;
}

const char *cf_need_math(cf_printer *p, vir_opcode code, const vir_type *t) {
  int i = op_index(code);
  const vir_type *s = vir_ty_scalar_of(t);
  unsigned bits = s->bits;
  if (i < 0)
    return vir_op_info_of(code)->spell;
  if (p->dialect != CF_GLSL) {
    p->pre |= CF_PRE_MATH;
    if (t->kind == VIR_TY_VEC)
      p->pre |= CF_PRE_VEC;
    /* the intrinsics take scalars only; vectors go through the prelude */
    if (p->o->fast_math && bits == 32 && ops[i].fast_c && t->kind != VIR_TY_VEC)
      return ops[i].fast_c;
    return ops[i].c;
  }
  /* half precision: GLSL's built-ins (they take float16_t) */
  if (bits == 16 && ops[i].glsl)
    return ops[i].glsl;
  if (bits == 32 && ops[i].glsl && p->o->fast_math)
    return ops[i].glsl;
  int prec = bits == 64 ? 1 : 0;
  p->math[prec] |= 1ull << i;
  if (t->kind == VIR_TY_VEC && t->n >= 2 && t->n <= 4)
    p->math_vec[prec][t->n - 2] |= 1ull << i;
  return ops[i].helper;
}

/* --------------------------------------------------------- expansion */

typedef struct expander {
  cf_dialect dialect;
  unsigned bits;
  bool emitted[2][128];
  bool tables[3]; /* log2 f, log2 d, 2/pi */
  bool spec_fma;  /* VP_FMA_FUSED declared */
  bool spec_denorm; /* VP_DENORM_EMULATE declared */
  vp_strbuf *out;
} expander;

static const char *const *poly_of(const char *name, size_t len, unsigned bits) {
  static const struct {
    const char *name;
    const char *const *p32, *const *p64;
  } polys[] = {
      {"exp", poly32_exp, poly64_exp},    {"logf", poly32_logf, poly64_logf},
      {"exp2", poly32_exp2, poly64_exp2}, {"expm1", poly32_expm1, poly64_expm1},
      {"sin", poly32_sin, poly64_sin},    {"cos", poly32_cos, poly64_cos},
      {"atan", poly32_atan, poly64_atan}, {"asin", poly32_asin, poly64_asin},
      {"log1p", poly32_log1p, poly64_log1p},
  };
  for (unsigned i = 0; i < sizeof polys / sizeof polys[0]; i++)
    if (strlen(polys[i].name) == len && strncmp(polys[i].name, name, len) == 0)
      return bits == 64 ? polys[i].p64 : polys[i].p32;
  return NULL;
}

static const char *const *konst_of(const char *name, size_t len, unsigned bits) {
  static const struct {
    const char *name;
    const char *const *k32, *const *k64;
  } ks[] = {
      {"LN2", k32_LN2, k64_LN2},         {"LOG2E", k32_LOG2E, k64_LOG2E},
      {"LOG10_2", k32_LOG10_2, k64_LOG10_2}, {"PIO2", k32_PIO2, k64_PIO2},
      {"PI", k32_PI, k64_PI},            {"PIO4", k32_PIO4, k64_PIO4},
      {"TWO_OVER_PI", k32_TWO_OVER_PI, k64_TWO_OVER_PI},
      {"ATAN0", k32_ATAN0, k64_ATAN0},   {"ATAN1", k32_ATAN1, k64_ATAN1},
      {"ATAN2", k32_ATAN2, k64_ATAN2},   {"ATAN3", k32_ATAN3, k64_ATAN3},
      {"PIO2CW", k32_PIO2CW, k64_PIO2CW}, {"LN2CW", k32_LN2CW, k64_LN2CW},
  };
  for (unsigned i = 0; i < sizeof ks / sizeof ks[0]; i++)
    if (strlen(ks[i].name) == len && strncmp(ks[i].name, name, len) == 0)
      return bits == 64 ? ks[i].k64 : ks[i].k32;
  return NULL;
}

/* Per-precision names and limits. */
static const char *xval(const expander *x, const char *name, size_t len) {
  static const struct {
    const char *name, *v32, *v64;
  } xs[] = {
      {"POW2", "vp_pow2f", "vp_pow2d"},
      {"FREXP", "vp_frexpf", "vp_frexpd"},
      {"REMPIO2BIG", "vp_rem_pio2f_big", "vp_rem_pio2d_big"},
      {"SPLITM", "vp_split_mf", "vp_split_md"},
      {"LOGTAB", "vp_log2_tab_f", "vp_log2_tab_d"},
      {"SIGNBIT", "vp_signbitf", "vp_signbitd"},
      {"FABS", "vp_fabsf", "abs"}, /* float: by the bits (docs/math.md, "Subnormals") */
      {"SPLIT", "4097.0", "134217729.0"},
      {"DIV_BIG", "1.0e30", "1.0e300"},
      /* atan2 scales y and x by DIV_UP when one is below DIV_TINY:
       * Dekker's product in vp_div's residual must not underflow */
      {"DIV_TINY", "8.271806125530277e-25", "1.3319983461951343e-256"},
      {"DIV_UP", "1.8446744073709552e19", "1.3407807929942597e154"},
      {"TRIG_FAST", "3216.0", "1600000.0"},
      {"EXP_LO", "-104.0", "-746.0"},
      {"EXP_FAST", "86.0", "707.0"},
      {"MANT", "23", "52"},
      {"MAGIC", "12582912.0", "6755399441055744.0"},
      {"LOWBITS", "floatBitsToInt(t)", "int(unpackDouble2x32(t).x)"},
      {"KINT", "floatBitsToInt(t) - 0x4b400000", "int(unpackDouble2x32(t).x)"},
      {"ADDEXP", "uintBitsToFloat(floatBitsToUint(e) + (floatBitsToUint(t) << 23))",
       "packDouble2x32(uvec2(unpackDouble2x32(e).x, unpackDouble2x32(e).y + (unpackDouble2x32(t).x << 20)))"},
      {"EXP_HI", "89.0", "710.0"},
      /* v, negated in quadrants 2 and 3: for float the sign bit flipped by
       * bit 1 of n (a shift and a xor rather than a compare and a select) */
      {"QUADSIGN", "uintBitsToFloat(floatBitsToUint(v) ^ ((uint(n) << 30) & 0x80000000u))",
       "(n & 2) == 0 ? v : -v"},
      {"POW_YMAX", "1099511627776.0", "1.0e20"},
      {"CBRT0", "vp_cbrt0f", "vp_cbrt0d"},
      {"CBRT_UNSCALE", "vp_cbrt_unscalef", "vp_cbrt_unscaled"},
      {"CBRT_STEPS", "3", "4"},
      {"NAN", "uintBitsToFloat(0x7fc00000u)", "packDouble2x32(uvec2(0u, 0x7ff80000u))"},
      {"INF", "uintBitsToFloat(0x7f800000u)", "packDouble2x32(uvec2(0u, 0x7ff00000u))"},
      {"EXP2_MAX", "128.0", "1024.0"},
      {"EXP2_MIN", "-150.0", "-1075.0"},
      {"EXP_OVF", "88.7228394", "709.782712893384"},
      /* ln 2 = LN2_HI + LN2_LO with LN2_HI's low mantissa bits zero (fdlibm's
       * split), so x - LN2_HI is exact for x near EXP_OVF */
      {"LN2_HI", "0.693145751953125", "0.693147180369123816490"},
      {"LN2_LO", "1.42860682030941723212e-6", "1.90821492927058770002e-10"},
      {"EXPM1_MIN", "-17.5", "-38.0"},
      {"MAXE", "127.0", "1023.0"},
      {"LOG1P_TINY", "5.96046448e-8", "1.1102230246251565e-16"},
      {"TANH_ONE", "9.01", "22.0"},
      {"ASINH_BIG", "4096.0", "134217728.0"},
      {"TRIG_TINY", "2.44140625e-4", "7.4505805969238281e-9"},
      {"ATAN_BIG", "67108864.0", "7.3786976294838206e19"},
      {"INT_LIMIT", "16777216.0", "9007199254740992.0"},
  };
  for (unsigned i = 0; i < sizeof xs / sizeof xs[0]; i++)
    if (strlen(xs[i].name) == len && strncmp(xs[i].name, name, len) == 0)
      return x->bits == 64 ? xs[i].v64 : xs[i].v32;
  return NULL;
}

static bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static const char *suffix(const expander *x) {
  if (x->dialect == CF_GLSL)
    return x->bits == 64 ? "lf" : "";
  return x->bits == 64 ? "" : "f";
}

/* Copies s to out, adding the float suffix to every floating literal. */
static void put_literals(const expander *x, vp_strbuf *out, const char *s, size_t n) {
  const char *sfx = suffix(x);
  size_t i = 0;
  while (i < n) {
    char c = s[i];
    bool starts = (c >= '0' && c <= '9') || (c == '.' && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9');
    if (!starts || (i > 0 && (ident_char(s[i - 1]) || s[i - 1] == '.'))) {
      vp_strbuf_putc(out, c);
      i++;
      continue;
    }
    size_t j = i;
    if (c == '0' && j + 1 < n && (s[j + 1] == 'x' || s[j + 1] == 'X')) {
      while (j < n && ident_char(s[j]))
        j++;
      vp_strbuf_appendn(out, s + i, j - i);
      i = j;
      continue;
    }
    bool is_float = false;
    while (j < n && s[j] >= '0' && s[j] <= '9')
      j++;
    if (j < n && s[j] == '.') {
      is_float = true;
      j++;
      while (j < n && s[j] >= '0' && s[j] <= '9')
        j++;
    }
    if (j < n && (s[j] == 'e' || s[j] == 'E')) {
      size_t k = j + 1;
      if (k < n && (s[k] == '+' || s[k] == '-'))
        k++;
      if (k < n && s[k] >= '0' && s[k] <= '9') {
        is_float = true;
        j = k;
        while (j < n && s[j] >= '0' && s[j] <= '9')
          j++;
      }
    }
    vp_strbuf_appendn(out, s + i, j - i);
    if (is_float && !(j < n && ident_char(s[j])))
      vp_strbuf_append(out, sfx);
    i = j;
  }
}

/* Expands the placeholders (not the literals). */
static void expand(expander *x, vp_strbuf *out, const char *t) {
  const char *F = x->bits == 64 ? "double" : "float";
  const char *V = x->bits == 64 ? "dvec2" : "vec2";
  const char *V3 = x->bits == 64 ? "dvec3" : "vec3";
  while (*t) {
    if (*t != '$') {
      vp_strbuf_putc(out, *t++);
      continue;
    }
    t++;
    if (strncmp(t, "V3", 2) == 0) {
      vp_strbuf_append(out, V3);
      t += 2;
    } else if (*t == 'F') {
      vp_strbuf_append(out, F);
      t++;
    } else if (*t == 'V') {
      vp_strbuf_append(out, V);
      t++;
    } else if (*t == 'S' && t[1] == '{') {
      /* $S{...}: float32 only (the subnormal-safe paths, docs/math.md);
       * dropped for double. Braces inside nest. */
      const char *b = t + 2;
      int depth = 1;
      const char *e = b;
      while (*e && depth) {
        depth += *e == '{' ? 1 : *e == '}' ? -1 : 0;
        if (depth)
          e++;
      }
      if (x->bits == 32) {
        size_t n = (size_t)(e - b);
        char *inner = malloc(n + 1);
        if (inner) {
          memcpy(inner, b, n);
          inner[n] = 0;
          expand(x, out, inner);
        }
        free(inner);
      }
      t = *e ? e + 1 : e;
    } else if (*t == 'W' && t[1] == '(') {
      /* a word of 2/pi, as a literal (Payne-Hanek without an indexed table) */
      vp_strbuf_printf(out, "0x%08Xu", two_over_pi_words[atoi(t + 2)]);
      t = strchr(t, ')') + 1;
    } else if ((*t == 'P' || *t == 'K' || *t == 'X') && t[1] == '(') {
      char kind = *t;
      const char *a = t + 2, *close = strchr(a, ')');
      const char *comma = memchr(a, ',', (size_t)(close - a));
      size_t alen = (size_t)((comma ? comma : close) - a);
      if (kind == 'P') {
        /* Horner with fma: fma(fma(c_n, v, c_n-1), v, ...), c_0 last */
        const char *const *c = poly_of(a, alen, x->bits);
        const char *v = comma + 1;
        size_t vlen = (size_t)(close - v);
        size_t n = 0;
        while (c && c[n])
          n++;
        if (n == 1) {
          vp_strbuf_append(out, c[0]);
        } else {
          for (size_t k = 1; k < n; k++)
            vp_strbuf_append(out, "fma(");
          vp_strbuf_append(out, c[n - 1]);
          for (size_t k = n - 1; k-- > 0;) {
            vp_strbuf_append(out, ", ");
            vp_strbuf_appendn(out, v, vlen);
            vp_strbuf_printf(out, ", %s)", c[k]);
          }
        }
      } else if (kind == 'K') {
        const char *const *k = konst_of(a, alen, x->bits);
        int part = comma ? atoi(comma + 1) : 0;
        vp_strbuf_append(out, k ? k[part] : "0.0");
      } else {
        const char *v = xval(x, a, alen);
        vp_strbuf_append(out, v ? v : "0");
      }
      t = close + 1;
    } else {
      vp_strbuf_putc(out, '$');
    }
  }
}

/* The helper `name` for the precision being printed: the entry written for
 * that precision, else the one for both, else one for the other precision
 * (vp_funnel is 32-bit but serves double's reduction too). */
static int helper_index(const char *name, size_t len, unsigned bits) {
  int any = -1, both = -1;
  for (int i = 0; vtg_math_helpers[i].name; i++) {
    const vtg_math_helper *h = &vtg_math_helpers[i];
    if (strlen(h->name) != len || strncmp(h->name, name, len) != 0)
      continue;
    if ((unsigned)h->bits == bits)
      return i;
    if (h->bits == 0)
      both = i;
    else if (any < 0)
      any = i;
  }
  return both >= 0 ? both : any;
}

static void emit_table(expander *x, const char *name, size_t len) {
  if (len == 8 && strncmp(name, "tab_2opi", 8) == 0) {
    if (x->tables[2])
      return;
    x->tables[2] = true;
    vp_strbuf_append(x->out, "// 2/pi, 32 bits a word, most significant first (Payne-Hanek reduction)\n");
    vp_strbuf_append(x->out, x->dialect == CF_GLSL ? "const uint vp_two_over_pi[40] = uint[40](" : "static const uint vp_two_over_pi[40] = {");
    for (int i = 0; i < 40; i++)
      vp_strbuf_printf(x->out, "%s0x%08Xu", i ? (i % 6 == 0 ? ",\n    " : ", ") : "\n    ", two_over_pi_words[i]);
    vp_strbuf_append(x->out, x->dialect == CF_GLSL ? ");\n" : "};\n");
    return;
  }
  int k = x->bits == 64 ? 1 : 0;
  if (x->tables[k])
    return;
  x->tables[k] = true;
  /* A tree of selects on the bits of i, not an indexed array: drivers that
   * lower indexed constant arrays to branches (Mesa's lavapipe) take tens of
   * seconds to compile four of them in a vec4 overload. */
  const char *V3 = x->bits == 64 ? "dvec3" : "vec3";
  const char *const *inv = x->bits == 64 ? tab64_invc : tab32_invc;
  const char *const *hi = x->bits == 64 ? tab64_logc_hi : tab32_logc_hi;
  const char *const *lo = x->bits == 64 ? tab64_logc_lo : tab32_logc_lo;
  vp_strbuf b = {0};
  vp_strbuf_printf(&b,
                   "// log2's table, entry i of 16: (1/c, -log2(c) as hi + lo) for the interval\n"
                   "// [1 - 2^-5 + i/16, 1 - 2^-5 + (i+1)/16), as a tree of selects on the bits of i\n"
                   "%s vp_log2_tab_%c(int i) {\n"
                   "  bool b0 = (i & 1) != 0, b1 = (i & 2) != 0, b2 = (i & 4) != 0, b3 = (i & 8) != 0;\n",
                   V3, x->bits == 64 ? 'd' : 'f');
  for (int j = 0; j < 16; j += 2)
    vp_strbuf_printf(&b, "  %s t%d = b0 ? %s(%s, %s, %s)\n  %*s: %s(%s, %s, %s);\n", V3, j / 2, V3, inv[j + 1],
                     hi[j + 1], lo[j + 1], (int)strlen(V3) + (j / 2 >= 10 ? 7 : 6), "", V3, inv[j], hi[j], lo[j]);
  vp_strbuf_printf(&b, "  %s u0 = b1 ? t1 : t0, u1 = b1 ? t3 : t2, u2 = b1 ? t5 : t4, u3 = b1 ? t7 : t6;\n", V3);
  vp_strbuf_printf(&b, "  %s v0 = b2 ? u1 : u0, v1 = b2 ? u3 : u2;\n", V3);
  vp_strbuf_append(&b, "  return b3 ? v1 : v0;\n}\n");
  put_literals(x, x->out, b.data, b.len);
  vp_strbuf_free(&b);
}

static void emit_helper(expander *x, int idx);

/* The specialization constant the helpers branch on where a fused fma is
 * cheaper; the runtime sets it per device, the driver folds the branch.
 * C++ (the CPU accuracy test) defines VP_FMA_FUSED in its prelude. */
static void emit_spec_fma(expander *x) {
  if (x->spec_fma || x->dialect != CF_GLSL)
    return;
  x->spec_fma = true;
  vp_strbuf_printf(x->out,
                   "// true where the device's fma() is fused (set by the runtime per device;\n"
                   "// VULPY_FMA=fused|unfused overrides): the helpers then take the shorter path\n"
                   "layout(constant_id = %d) const bool VP_FMA_FUSED = false;\n",
                   VTG_FMA_SPEC_ID);
}

/* The specialization constant the float32 helpers branch on where the
 * device flushes float32 subnormals (the runtime sets it per device and
 * kernel, docs/math.md "Subnormals"); false folds the branches away.
 * C++ (the CPU accuracy test) defines VP_DENORM_EMULATE in its prelude. */
static void emit_spec_denorm(expander *x) {
  if (x->spec_denorm || x->dialect != CF_GLSL)
    return;
  x->spec_denorm = true;
  vp_strbuf_printf(x->out,
                   "// true where the device flushes float32 subnormals and cannot keep them (set by\n"
                   "// the runtime per device; VULPY_DENORM=emulate forces it): the float32 helpers\n"
                   "// then treat subnormal arguments and results with integer operations\n"
                   "layout(constant_id = %d) const bool VP_DENORM_EMULATE = false;\n",
                   VTG_DENORM_SPEC_ID);
}

static void emit_deps(expander *x, const char *deps) {
  const char *d = deps;
  while (*d) {
    while (*d == ' ')
      d++;
    const char *e = d;
    while (*e && *e != ' ')
      e++;
    if (e == d)
      break;
    size_t len = (size_t)(e - d);
    if (len > 3 && strncmp(d, "$S:", 3) == 0) {
      /* a float32-only dependency (of a $S{...} block) */
      if (x->bits == 32) {
        if (len == 14 && strncmp(d + 3, "spec_denorm", 11) == 0)
          emit_spec_denorm(x);
        else
          emit_helper(x, helper_index(d + 3, len - 3, 32));
      }
    } else if (len > 4 && d[0] == '$' && d[1] == 'X' && d[2] == '(') {
      const char *v = xval(x, d + 3, len - 4);
      if (v)
        emit_helper(x, helper_index(v, strlen(v), x->bits));
    } else if (len > 4 && strncmp(d, "tab_", 4) == 0) {
      emit_table(x, d, len);
    } else if (len == 8 && strncmp(d, "spec_fma", 8) == 0) {
      emit_spec_fma(x);
    } else {
      emit_helper(x, helper_index(d, len, x->bits));
    }
    d = e;
  }
}

static void emit_helper(expander *x, int idx) {
  if (idx < 0)
    return;
  const vtg_math_helper *h = &vtg_math_helpers[idx];
  unsigned saved = x->bits;
  if (h->bits)
    x->bits = (unsigned)h->bits;
  int k = x->bits == 64 ? 1 : 0;
  if (!x->emitted[k][idx]) {
    x->emitted[k][idx] = true;
    emit_deps(x, h->deps);
    vp_strbuf t = {0};
    expand(x, &t, h->text);
    put_literals(x, x->out, t.data ? t.data : "", t.len);
    vp_strbuf_free(&t);
  }
  x->bits = saved;
}

static void vector_overload(expander *x, const char *name, unsigned n, int arity) {
  const char *pre = x->bits == 64 ? "dvec" : "vec";
  vp_strbuf_printf(x->out, "%s%u %s(%s%u a", pre, n, name, pre, n);
  if (arity >= 2)
    vp_strbuf_printf(x->out, ", %s%u b", pre, n);
  if (arity == 3)
    vp_strbuf_printf(x->out, ", %s%u c", pre, n);
  vp_strbuf_printf(x->out, ") { return %s%u(", pre, n);
  for (unsigned i = 0; i < n; i++) {
    char c = cf_comp[i];
    if (arity == 3)
      vp_strbuf_printf(x->out, "%s%s(a.%c, b.%c, c.%c)", i ? ", " : "", name, c, c, c);
    else if (arity == 2)
      vp_strbuf_printf(x->out, "%s%s(a.%c, b.%c)", i ? ", " : "", name, c, c);
    else
      vp_strbuf_printf(x->out, "%s%s(a.%c)", i ? ", " : "", name, c);
  }
  vp_strbuf_append(x->out, "); }\n");
}

static void emit_ops(expander *x, uint64_t used[2], uint64_t vec[2][3]) {
  for (int k = 0; k < 2; k++) {
    x->bits = k ? 64 : 32;
    for (unsigned i = 0; i < NOPS; i++) {
      if (!(used[k] & (1ull << i)))
        continue;
      emit_helper(x, helper_index(ops[i].helper, strlen(ops[i].helper), x->bits));
      for (unsigned n = 2; vec && n <= 4; n++)
        if (vec[k][n - 2] & (1ull << i))
          vector_overload(x, ops[i].helper, n, ops[i].arity);
    }
  }
}

void cf_emit_math(cf_printer *p, vp_strbuf *out) {
  if (p->dialect != CF_GLSL || !(p->math[0] | p->math[1]))
    return;
  expander x;
  memset(&x, 0, sizeof x);
  x.dialect = p->dialect;
  x.out = out;
  vp_strbuf_append(out, "// Precise math (docs/math.md): range-reduced, <= 4 ULP (float), <= 8 ULP (double).\n");
  emit_ops(&x, p->math, p->math_vec);
}

void vtg_mathlib_source(int dialect, unsigned which_bits, vp_strbuf *out) {
  expander x;
  memset(&x, 0, sizeof x);
  x.dialect = (cf_dialect)dialect;
  x.out = out;
  uint64_t all = (1ull << NOPS) - 1;
  uint64_t used[2] = {which_bits & 32 ? all : 0, which_bits & 64 ? all : 0};
  emit_ops(&x, used, NULL);
}
