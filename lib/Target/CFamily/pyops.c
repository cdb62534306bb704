/* pyops.c - helpers for Python's operators where C's differ.
 *
 * Python's // and % round toward minus infinity (C truncates), % on floats
 * follows NumPy's remainder, shifting by the width or more gives 0 (or -1
 * for negative numbers shifted right) as in NumPy, and round() is half away
 * from zero for VIR's `round` (GLSL leaves halfway cases open). GLSL's % is
 * undefined for negative operands, so C's remainder is spelled out too.
 * Each helper is one small function per scalar type the kernel uses, named
 * vp_<op> (overloaded), with componentwise overloads for vectors.
 */
#include <stdio.h>
#include <string.h>

#include "cfamily.h"

/* scalar slots: int 8..64, uint 8..64, float 16..64 */
static int slot_of(const vir_type *s) {
  int lg = s->bits == 8 ? 0 : s->bits == 16 ? 1 : s->bits == 32 ? 2 : 3;
  switch (s->kind) {
  case VIR_TY_INT: return lg;
  case VIR_TY_UINT: return 4 + lg;
  case VIR_TY_FLOAT: return 8 + (s->bits == 16 ? 0 : s->bits == 32 ? 1 : 2);
  default: return -1;
  }
}

static const char *const slot_type[11] = {"int8_t",  "int16_t",  "int",  "int64_t",   "uint8_t", "uint16_t",
                                          "uint",    "uint64_t", "float16_t", "float", "double"};
static const char *const slot_vec[11] = {"i8vec", "i16vec", "ivec", "i64vec", "u8vec", "u16vec",
                                         "uvec",  "u64vec", "f16vec", "vec", "dvec"};
static const unsigned slot_bits[11] = {8, 16, 32, 64, 8, 16, 32, 64, 16, 32, 64};

static const char *const names[CF_PY_COUNT] = {"vp_floordiv", "vp_mod",    "vp_rem",
                                               "vp_shl",      "vp_shr",    "vp_round",
                                               "vp_rint",     "vp_sext64", "vp_trunc",
                                               "vp_sign",     "vp_f2u",    "vp_f2u64"};

const char *cf_need_pyop(cf_printer *p, cf_pyop k, const vir_type *t) {
  const vir_type *s = vir_ty_scalar_of(t);
  int slot = slot_of(s);
  if (slot < 0)
    return names[k];
  p->pyops[k] |= 1u << slot;
  if (t->kind == VIR_TY_VEC)
    p->pyops_vec[k][slot] |= (uint8_t)(1u << t->n);
  /* float // and % are built on the exact remainder */
  if (slot >= 8 && (k == CF_PY_FLOORDIV || k == CF_PY_MOD))
    p->pyops[CF_PY_REM] |= 1u << slot;
  /* float32 // in GLSL divides by vp_divf (body) */
  if (slot == 9 && k == CF_PY_FLOORDIV && p->dialect == CF_GLSL && !p->o->fast_math)
    cf_need_math(p, VIR_OP_DIV, s);
  /* and GLSL's double remainder and round on vp_trunc */
  if (slot == 10 && p->dialect == CF_GLSL &&
      (k == CF_PY_FLOORDIV || k == CF_PY_MOD || k == CF_PY_REM || k == CF_PY_ROUND))
    p->pyops[CF_PY_TRUNC] |= 1u << slot;
  if (p->dialect != CF_GLSL) {
    p->pre |= CF_PRE_MATH;
    if (t->kind == VIR_TY_VEC)
      p->pre |= CF_PRE_VEC;
  }
  return names[k];
}

/* the IEEE sign bit of x as a bool expression: -0.0 counts, and it is read
 * from the bits because float arithmetic may drop zero signs */
static const char *signbit_of(cf_printer *p, unsigned bits, const char *x, char s[64]) {
  if (p->dialect != CF_GLSL)
    snprintf(s, 64, "signbit(%s)", x);
  else if (bits == 64)
    snprintf(s, 64, "unpackDouble2x32(%s).y >= 0x80000000u", x);
  else if (bits == 32)
    snprintf(s, 64, "floatBitsToUint(%s) >= 0x80000000u", x);
  else /* through float32, which keeps the sign of -0.0 */
    snprintf(s, 64, "floatBitsToUint(float(%s)) >= 0x80000000u", x);
  return s;
}

/* fmod by binary long division, for finite a and b != 0 where a / b is
 * beyond the Dekker path: s = |b| 2^k, the largest not above |a|, then
 * halved back to |b|, subtracted wherever it fits. Each subtraction is
 * exact (s <= x < 2s: Sterbenz), so the remainder is; one step per bit of
 * the quotient's exponent (at most ~280 for float32, ~2100 for float64),
 * bounded so that a device flushing subnormals cannot loop forever. */
static void rem_long(cf_printer *p, vp_strbuf *b, const char *T, unsigned bits) {
  char sa[64];
  unsigned cap = bits == 64 ? 2200u : bits == 32 ? 300u : 48u;
  vp_strbuf_printf(b,
                   "%s vp_rem_long(%s a, %s b) {\n"
                   "  precise %s x = abs(a);\n"
                   "  %s y = abs(b), s = y;\n"
                   "  for (int i = 0; i < %u && s * %s(2) <= x; i++) s *= %s(2);\n"
                   "  for (int i = 0; i < %u && s >= y; i++) {\n"
                   "    if (x >= s) x -= s;\n"
                   "    s *= %s(0.5);\n"
                   "  }\n"
                   "  return (%s) ? -x : x;\n"
                   "}\n",
                   T, T, T, T, T, cap, T, T, cap + 1, T, signbit_of(p, bits, "a", sa));
}

static void body(cf_printer *p, vp_strbuf *b, cf_pyop k, int slot) {
  const char *T = slot_type[slot];
  unsigned bits = slot_bits[slot];
  bool is_float = slot >= 8, is_signed = slot < 4;
  bool gpu = p->dialect != CF_GLSL;
  const char *dev = gpu ? "__device__ inline " : "";
  char sa[64], sb[64];
  switch (k) {
  case CF_PY_FLOORDIV:
    if (is_float) {
      /* float32 GLSL with precise math divides as `/` does there: vp_divf,
       * correctly rounded where fma is fused (mathlib.c, printed after the
       * pyops: declared here) */
      bool divf = !gpu && bits == 32 && !p->o->fast_math;
      if (divf)
        vp_strbuf_printf(b, "float vp_divf(float a, float b);\n");
      char big[96], near[32];
      snprintf(big, sizeof big, divf ? "vp_divf((a - m) * %s(0.25), b * %s(0.25))" : "((a - m) * %s(0.25)) / (b * %s(0.25))",
               T, T);
      snprintf(near, sizeof near, "%s", divf ? "vp_divf(a - m, b)" : "(a - m) / b");
      vp_strbuf_printf(b,
                       "// Python's a // b on floats (NumPy's floor_divide).\n"
                       "%s%s vp_floordiv(%s a, %s b) {\n"
                       "  if (b == %s(0)) return a / b;\n"
                       "  %s m = vp_rem(a, b);\n"
                       "  // Vulkan divides only by |b| <= 2^%u: NVIDIA's a * (1 / b) gave 0 past it\n"
                       "  %s d = abs(b) > %s(%s) ? %s : %s;\n"
                       "  if (m != %s(0) && ((b < %s(0)) != (m < %s(0)))) d -= %s(1);\n"
                       "  // a zero quotient has the sign of a / b (NumPy), from the bits\n"
                       "  if (d == %s(0)) return (%s) != (%s) ? -%s(0) : %s(0);\n"
                       "  %s f = floor(d);\n"
                       "  if (d - f > %s(0.5)) f += %s(1);\n"
                       "  return f;\n"
                       "}\n",
                       dev, T, T, T, T, T, bits == 64 ? 1022u : bits == 32 ? 126u : 14u, T, T,
                       bits == 64 ? "4.49423283715579e307" : bits == 32 ? "8.507059e37" : "16384.0", big, near,
                       T, T, T, T, T, signbit_of(p, bits, "a", sa), signbit_of(p, bits, "b", sb), T, T, T, T, T);
    } else
      vp_strbuf_printf(b,
                       "// Python's a // b: the quotient rounded down (C's / truncates);\n"
                       "// 0 for b == 0, as NumPy (C leaves it undefined).\n"
                       "%s%s vp_floordiv(%s a, %s b) {\n"
                       "  if (b == %s(0)) return %s(0);\n"
                       "  %s q = a / b;\n"
                       "  if (q * b != a && ((a < %s(0)) != (b < %s(0)))) q -= %s(1);\n"
                       "  return q;\n"
                       "}\n",
                       dev, T, T, T, T, T, T, T, T, T);
    break;
  case CF_PY_MOD:
    if (is_float)
      vp_strbuf_printf(b,
                       "// Python's a %% b on floats: the sign of b (NumPy's remainder).\n"
                       "%s%s vp_mod(%s a, %s b) {\n"
                       "  %s m = vp_rem(a, b);\n"
                       "  if (m == %s(0)) return b < %s(0) ? -%s(0) : %s(0);\n"
                       "  if ((b < %s(0)) != (m < %s(0))) m += b;\n"
                       "  return m;\n"
                       "}\n",
                       dev, T, T, T, T, T, T, T, T, T, T);
    else
      vp_strbuf_printf(b,
                       "// Python's a %% b: the remainder has the sign of b; 0 for b == 0 (NumPy).\n"
                       "%s%s vp_mod(%s a, %s b) {\n"
                       "  if (b == %s(0)) return %s(0);\n"
                       "  %s r = a - (a / b) * b;\n"
                       "  if (r != %s(0) && ((r < %s(0)) != (b < %s(0)))) r += b;\n"
                       "  return r;\n"
                       "}\n",
                       dev, T, T, T, T, T, T, T, T, T);
    break;
  case CF_PY_REM:
    if (is_float && gpu)
      vp_strbuf_printf(b, "%s%s vp_rem(%s a, %s b) { return fmod(a, b); }\n", dev, T, T, T);
    else if (is_float) {
      /* 2^(max exponent - 13): q b and the 2^27 (2^13) split stay finite */
      const char *big = bits == 64 ? "1e299lf" : bits == 32 ? "1e34" : "512.0";
      rem_long(p, b, T, bits);
      vp_strbuf_printf(b,
                       "// C's fmod(a, b), exact: a Dekker product while |a / b| < 2^%u and the\n"
                       "// split of a and b cannot overflow, else vp_rem_long (b infinite, b tiny,\n"
                       "// a or b near the largest number, the quotient huge).\n"
                       "%s vp_rem(%s a, %s b) {\n"
                       "  if (isinf(b) && !isinf(a)) return a;\n"
                       "  %s q = %s(a / b);\n"
                       "  if (!(abs(q) < %s(%s) && abs(a) < %s(%s) && abs(b) < %s(%s)) &&\n"
                       "      !isinf(a) && !isnan(a) && !isnan(b) && b != %s(0))\n"
                       "    return vp_rem_long(a, b);\n"
                       "  // a - q b exactly, by Dekker's product: fma(-q, b, a) would be exact\n"
                       "  // only where fma is fused, which Vulkan does not require\n"
                       "  precise %s cq = q * %s(%s), cb = b * %s(%s);\n"
                       "  precise %s qh = cq - (cq - q), bh = cb - (cb - b);\n"
                       "  precise %s ql = q - qh, bl = b - bh;\n"
                       "  precise %s p = q * b;\n"
                       "  precise %s e = ((qh * bh - p) + qh * bl + ql * bh) + ql * bl;\n"
                       "  precise %s r = (a - p) - e;\n"
                       "  // a / b may have rounded to the next integer: step back by |b|\n"
                       "  if (r != %s(0) && ((r < %s(0)) != (a < %s(0)))) r += a < %s(0) ? -abs(b) : abs(b);\n"
                       "  else if (abs(r) >= abs(b)) r -= a < %s(0) ? -abs(b) : abs(b);\n",
                       bits == 64 ? 53u : bits == 32 ? 24u : 11u, T, T, T, T, bits == 64 ? "vp_trunc" : "trunc", T,
                       bits == 64 ? "9007199254740992" : bits == 32 ? "16777216" : "2048", T, big, T, big, T, T, T,
                       bits == 64 ? "134217729" : bits == 32 ? "4097" : "65", T,
                       bits == 64 ? "134217729" : bits == 32 ? "4097" : "65", T, T, T, T, T, T, T, T, T, T);
      /* a zero remainder has the sign of a, as C's fmod (a - q b gave +0.0) */
      vp_strbuf_printf(b,
                       "  if (r == %s(0)) return (%s) ? -%s(0) : %s(0);\n"
                       "  return r;\n"
                       "}\n",
                       T, signbit_of(p, bits, "a", sa), T, T);
    } else
      vp_strbuf_printf(b,
                       "// C's a %% b for signed a, b (GLSL's %% is undefined for negatives).\n"
                       "%s%s vp_rem(%s a, %s b) { return a - (a / b) * b; }\n",
                       dev, T, T, T);
    break;
  case CF_PY_SHL: break; /* shl_body */
  case CF_PY_SHR:
    if (is_signed)
      vp_strbuf_printf(b,
                       "// a >> n, all sign bits once n reaches the width (NumPy).\n"
                       "%s%s vp_shr(%s a, %s n) {\n"
                       "  return (n >= %s(0) && n < %s(%u)) ? a >> n : (a < %s(0) ? %s(-1) : %s(0));\n"
                       "}\n",
                       dev, T, T, T, T, T, bits, T, T, T);
    else
      vp_strbuf_printf(b,
                       "// a >> n, 0 once n reaches the width (NumPy).\n"
                       "%s%s vp_shr(%s a, %s n) { return n < %s(%u) ? a >> n : %s(0); }\n",
                       dev, T, T, T, T, bits, T);
    break;
  case CF_PY_ROUND:
    vp_strbuf_printf(b,
                     "// round half away from zero (GLSL's round() leaves .5 open).\n"
                     "%s%s vp_round(%s x) {\n"
                     "  %s t = %s(x);\n"
                     "  if (abs(x - t) >= %s(0.5)) t += sign(x);\n"
                     "  return t;\n"
                     "}\n",
                     dev, T, T, T, bits == 64 && p->dialect == CF_GLSL ? "vp_trunc" : "trunc", T);
    break;
  case CF_PY_RINT:
    /* 2^52 (2^23) + |x| rounds |x| to an integer, ties to even, as IEEE
     * addition must; the sign bit is put back, so -0.5 gives -0.0 */
    vp_strbuf_printf(b,
                     "// x rounded to an integer, ties to even (NumPy's rint). Not roundEven():\n"
                     "// Mesa 22's lavapipe rounds double ties toward zero.\n"
                     "%s vp_rint(%s x) {\n"
                     "  if (!(abs(x) < %s(%s))) return x;\n"
                     "  precise %s t = abs(x) + %s(%s);\n"
                     "  precise %s r = t - %s(%s);\n"
                     "  return %s ? -r : r;\n"
                     "}\n",
                     T, T, T, bits == 64 ? "4503599627370496" : "8388608", T, T,
                     bits == 64 ? "4503599627370496" : "8388608", T, T, bits == 64 ? "4503599627370496" : "8388608",
                     bits == 64 ? "unpackDouble2x32(x).y >= 0x80000000u" : "floatBitsToUint(x) >= 0x80000000u");
    break;
  case CF_PY_TRUNC:
    /* Mesa 22.3's lavapipe returns a double of magnitude 2^31 or more from
     * trunc() as it is (trunc(-867361737988.4) was -867361737988.4), which
     * made fmod, // and % of float64 wrong; floor and ceil are right. */
    vp_strbuf_printf(b,
                     "// x rounded toward zero. Not trunc(): Mesa 22's lavapipe leaves a double\n"
                     "// of 2^31 or more as it is.\n"
                     "%s vp_trunc(%s x) { return x < %s(0) ? ceil(x) : floor(x); }\n",
                     T, T, T);
    break;
  case CF_PY_SEXT64:
    /* Mesa 22.3's lavapipe (LLVM 15) compares int64_t(x) of a negative int
     * x with a constant as if x had been zero-extended: int64_t(-128) < 0l
     * was false, so int32 // int64 rounded toward zero. The same value
     * built from its two words compares right. */
    vp_strbuf_append(b, "// int64_t(x), spelled from the words: Mesa 22's lavapipe compares a\n"
                        "// sign-extended int with a constant as unsigned.\n"
                        "int64_t vp_sext64(int x) { return packInt2x32(ivec2(x, x >> 31)); }\n");
    break;
  case CF_PY_SIGN:
    /* lavapipe's sign(double) of NaN is 0.0; float32 has vp_signf */
    vp_strbuf_printf(b,
                     "// sign(x), NaN for NaN (NumPy's sign; GLSL leaves NaN open).\n"
                     "%s vp_sign(%s x) { return isnan(x) ? x : sign(x); }\n",
                     T, T);
    break;
  case CF_PY_F2U:
  case CF_PY_F2U64: {
    /* A negative float converts to an unsigned type as NumPy's does on x86
     * (C's conversion through the signed type): -12.3 -> uint8 is 244,
     * -1.0 -> uint32 is 4294967295. GLSL and CUDA leave it undefined;
     * lavapipe saturated to the maximum and NVIDIA to 0. */
    bool w64 = k == CF_PY_F2U64;
    const char *U = w64 ? "uint64_t" : "uint", *S = w64 ? "int64_t" : "int";
    vp_strbuf_printf(b,
                     "// %s(x), a negative x through %s (NumPy on x86; GLSL leaves it undefined).\n"
                     "%s%s %s(%s x) { return x < %s(0) ? %s(%s(x)) : %s(x); }\n",
                     U, S, dev, U, names[k], T, T, U, S, U);
    break;
  }
  default: break;
  }
}

static void shl_body(cf_printer *p, vp_strbuf *b, int slot) {
  const char *T = slot_type[slot];
  unsigned bits = slot_bits[slot];
  const char *dev = p->dialect != CF_GLSL ? "__device__ inline " : "";
  if (slot < 4)
    vp_strbuf_printf(b,
                     "// a << n, 0 once n reaches the width (NumPy).\n"
                     "%s%s vp_shl(%s a, %s n) { return (n >= %s(0) && n < %s(%u)) ? a << n : %s(0); }\n",
                     dev, T, T, T, T, T, bits, T);
  else
    vp_strbuf_printf(b,
                     "// a << n, 0 once n reaches the width (NumPy).\n"
                     "%s%s vp_shl(%s a, %s n) { return n < %s(%u) ? a << n : %s(0); }\n",
                     dev, T, T, T, T, bits, T);
}

/* The helpers are written with T(0)-style constants; for the common types
 * they read better as literals (0, 0u, 0.0, 0.0lf / 0.0f in CUDA). */
static void literals(cf_printer *p, vp_strbuf *b, size_t from, int slot) {
  const char *T = slot_type[slot];
  size_t tl = strlen(T);
  bool gpu = p->dialect != CF_GLSL;
  const char *suffix = slot == 6 ? "u" : slot == 9 ? (gpu ? "f" : "") : slot == 10 ? (gpu ? "" : "lf") : NULL;
  if (!suffix && slot != 2)
    return;
  vp_strbuf out = {0};
  const char *s = b->data + from, *end = b->data + b->len;
  while (s < end) {
    if ((size_t)(end - s) > tl + 2 && strncmp(s, T, tl) == 0 && s[tl] == '(' &&
        (s == b->data || !(s[-1] == '_' || (s[-1] >= 'a' && s[-1] <= 'z') || (s[-1] >= '0' && s[-1] <= '9')))) {
      const char *q = s + tl + 1, *c = q;
      if (*c == '-')
        c++;
      while (c < end && ((*c >= '0' && *c <= '9') || *c == '.'))
        c++;
      if (c < end && *c == ')' && c > q) {
        bool is_float = slot >= 8;
        bool has_dot = memchr(q, '.', (size_t)(c - q)) != NULL;
        if (*q == '-')
          vp_strbuf_putc(&out, '(');
        vp_strbuf_appendn(&out, q, (size_t)(c - q));
        if (is_float && !has_dot)
          vp_strbuf_append(&out, ".0");
        vp_strbuf_append(&out, suffix ? suffix : "");
        if (*q == '-')
          vp_strbuf_putc(&out, ')');
        s = c + 1;
        continue;
      }
    }
    vp_strbuf_putc(&out, *s++);
  }
  b->len = from;
  vp_strbuf_appendn(b, out.data ? out.data : "", out.len);
  vp_strbuf_free(&out);
}

static void vector_overload(cf_printer *p, vp_strbuf *b, cf_pyop k, int slot, unsigned n) {
  const char *name = names[k];
  const char *dev = p->dialect != CF_GLSL ? "__device__ inline " : "";
  bool unary = k == CF_PY_ROUND || k == CF_PY_RINT || k == CF_PY_SEXT64 || k == CF_PY_TRUNC ||
               k == CF_PY_SIGN || k == CF_PY_F2U || k == CF_PY_F2U64;
  const char *rvec = k == CF_PY_SEXT64 ? "i64vec" : k == CF_PY_F2U ? "uvec" : k == CF_PY_F2U64 ? "u64vec" : slot_vec[slot];
  vp_strbuf_printf(b, "%s%s%u %s(%s%u a%s", dev, rvec, n, name, slot_vec[slot], n, unary ? "" : ", ");
  if (!unary)
    vp_strbuf_printf(b, "%s%u b", slot_vec[slot], n);
  vp_strbuf_printf(b, ") { return %s%u(", rvec, n);
  for (unsigned i = 0; i < n; i++) {
    char c = cf_comp[i];
    if (unary)
      vp_strbuf_printf(b, "%s%s(a.%c)", i ? ", " : "", name, c);
    else
      vp_strbuf_printf(b, "%s%s(a.%c, b.%c)", i ? ", " : "", name, c, c);
  }
  vp_strbuf_append(b, "); }\n");
}

void cf_emit_pyops(cf_printer *p, vp_strbuf *out) {
  /* vp_trunc, then vp_rem first: the float helpers call them */
  static const cf_pyop order[] = {CF_PY_TRUNC, CF_PY_REM,  CF_PY_FLOORDIV, CF_PY_MOD,
                                  CF_PY_SHL,   CF_PY_SHR,  CF_PY_ROUND,    CF_PY_RINT,
                                  CF_PY_SEXT64, CF_PY_SIGN, CF_PY_F2U, CF_PY_F2U64};
  for (unsigned oi = 0; oi < sizeof order / sizeof order[0]; oi++) {
    cf_pyop k = order[oi];
    for (int slot = 0; slot < 11; slot++) {
      if (!(p->pyops[k] & (1u << slot)))
        continue;
      size_t from = out->len;
      if (k == CF_PY_SHL)
        shl_body(p, out, slot);
      else
        body(p, out, k, slot);
      literals(p, out, from, slot);
      for (unsigned n = 2; n <= 4; n++)
        if (p->pyops_vec[k][slot] & (1u << n))
          vector_overload(p, out, k, slot, n);
    }
  }
}
