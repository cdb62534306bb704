/* types.c - type names and literals in the C-family dialects.
 *
 * Every dialect spells types with GLSL's names (float, uint, vec3, dvec2,
 * i64vec4, mat3, float16_t); CUDA and HIP get them from the prelude's
 * typedefs. Spelling a type is also how the printer learns which GLSL
 * extensions and prelude sections the text needs. Literals print in the
 * shortest form that reads back to the same value, with the dialect's
 * suffix (1.5 / 1.5lf in GLSL, 1.5f / 1.5 in CUDA).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfamily.h"

const char cf_comp[4] = {'x', 'y', 'z', 'w'};

static bool is_gpu_c(const cf_printer *p) { return p->dialect != CF_GLSL; }

void cf_note_type(cf_printer *p, const vir_type *t, bool storage) {
  switch (t->kind) {
  case VIR_TY_INT:
  case VIR_TY_UINT:
    if (t->bits == 8)
      p->ext |= storage ? CF_EXT_STORAGE8 : CF_EXT_INT8;
    else if (t->bits == 16)
      p->ext |= storage ? CF_EXT_STORAGE16 : CF_EXT_INT16;
    else if (t->bits == 64)
      p->ext |= CF_EXT_INT64;
    break;
  case VIR_TY_FLOAT:
    if (t->bits == 16) {
      p->ext |= storage ? CF_EXT_STORAGE16 : CF_EXT_FLOAT16;
      p->pre |= CF_PRE_F16;
    }
    break;
  case VIR_TY_VEC:
    cf_note_type(p, t->elem, storage);
    p->pre |= CF_PRE_VEC;
    break;
  case VIR_TY_MAT:
    cf_note_type(p, t->elem, storage);
    p->pre |= CF_PRE_VEC | CF_PRE_MAT;
    break;
  case VIR_TY_ARRAY: cf_note_type(p, t->elem, storage); break;
  default: break;
  }
}

static const char *scalar_name(const vir_type *t) {
  switch (t->kind) {
  case VIR_TY_BOOL: return "bool";
  case VIR_TY_INT:
    return t->bits == 8 ? "int8_t" : t->bits == 16 ? "int16_t" : t->bits == 64 ? "int64_t" : "int";
  case VIR_TY_UINT:
    return t->bits == 8 ? "uint8_t" : t->bits == 16 ? "uint16_t" : t->bits == 64 ? "uint64_t" : "uint";
  case VIR_TY_FLOAT: return t->bits == 16 ? "float16_t" : t->bits == 64 ? "double" : "float";
  case VIR_TY_VOID: return "void";
  default: return "?";
  }
}

/* The vector prefix of a scalar: "" vec, "d" dvec, "i64" i64vec, ... */
static const char *vec_prefix(const vir_type *s) {
  switch (s->kind) {
  case VIR_TY_BOOL: return "b";
  case VIR_TY_INT: return s->bits == 8 ? "i8" : s->bits == 16 ? "i16" : s->bits == 64 ? "i64" : "i";
  case VIR_TY_UINT: return s->bits == 8 ? "u8" : s->bits == 16 ? "u16" : s->bits == 64 ? "u64" : "u";
  case VIR_TY_FLOAT: return s->bits == 16 ? "f16" : s->bits == 64 ? "d" : "";
  default: return "?";
  }
}

static void type_name(cf_printer *p, vp_strbuf *b, const vir_type *t) {
  switch (t->kind) {
  case VIR_TY_VEC: vp_strbuf_printf(b, "%svec%u", vec_prefix(t->elem), t->n); break;
  case VIR_TY_MAT: {
    const vir_type *s = vir_ty_scalar_of(t);
    const char *pre = s->bits == 64 ? "d" : s->bits == 16 ? "f16" : "";
    if (t->n == t->rows)
      vp_strbuf_printf(b, "%smat%u", pre, t->n);
    else
      vp_strbuf_printf(b, "%smat%ux%u", pre, t->n, t->rows);
    break;
  }
  case VIR_TY_ARRAY:
    type_name(p, b, t->elem);
    break;
  case VIR_TY_STRUCT: {
    int idx = -1;
    for (uint32_t i = 0; i < p->m->structs.len; i++)
      if (p->m->structs.data[i] == t->st)
        idx = (int)i;
    vp_strbuf_append(b, idx >= 0 && p->struct_name ? p->struct_name[idx] : t->st->name);
    break;
  }
  default: vp_strbuf_append(b, scalar_name(t)); break;
  }
}

static void array_dims(vp_strbuf *b, const vir_type *t) {
  for (; t->kind == VIR_TY_ARRAY; t = t->elem)
    vp_strbuf_printf(b, "[%u]", t->len);
}

void cf_type(cf_printer *p, vp_strbuf *b, const vir_type *t, bool storage) {
  cf_note_type(p, t, storage);
  type_name(p, b, t);
  array_dims(b, t);
}

void cf_decl(cf_printer *p, vp_strbuf *b, const vir_type *t, const char *name, bool storage) {
  cf_note_type(p, t, storage);
  type_name(p, b, t);
  vp_strbuf_printf(b, " %s", name);
  array_dims(b, t);
}

/* ------------------------------------------------------------ literals */

/* Shortest decimal that reads back as v in the precision; always has a
 * '.' or an exponent so that it is a floating literal. */
static void shortest(char *buf, size_t cap, double v, unsigned bits) {
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, cap, "%.*g", prec, v);
    bool same = bits == 64 ? strtod(buf, NULL) == v : (double)strtof(buf, NULL) == v;
    if (same)
      break;
  }
  if (!strpbrk(buf, ".e")) {
    size_t n = strlen(buf);
    if (n + 2 < cap)
      memcpy(buf + n, ".0", 3);
  }
}

void cf_float_literal(cf_printer *p, vp_strbuf *b, double v, unsigned bits) {
  bool gpu_c = is_gpu_c(p);
  if (isnan(v) || isinf(v)) {
    bool neg = signbit(v);
    if (bits == 64) {
      if (gpu_c)
        vp_strbuf_printf(b, "__longlong_as_double(0x%sll)",
                         isnan(v) ? "7ff8000000000000" : neg ? "fff0000000000000" : "7ff0000000000000");
      else
        vp_strbuf_printf(b, "packDouble2x32(uvec2(0u, 0x%su))",
                         isnan(v) ? "7ff80000" : neg ? "fff00000" : "7ff00000");
      return;
    }
    if (gpu_c)
      p->pre |= CF_PRE_BITS;
    const char *bitsx = isnan(v) ? "7fc00000" : neg ? "ff800000" : "7f800000";
    if (bits == 16)
      vp_strbuf_printf(b, "float16_t(uintBitsToFloat(0x%su))", bitsx);
    else
      vp_strbuf_printf(b, "uintBitsToFloat(0x%su)", bitsx);
    return;
  }
  char buf[64];
  shortest(buf, sizeof buf, v, bits == 64 ? 64 : 32);
  if (bits == 16)
    vp_strbuf_printf(b, "float16_t(%s%s)", buf, gpu_c ? "f" : "");
  else if (bits == 64)
    vp_strbuf_printf(b, "%s%s", buf, gpu_c ? "" : "lf");
  else
    vp_strbuf_printf(b, "%s%s", buf, gpu_c ? "f" : "");
}

/* Returns the precedence of what it printed (negative numbers are unary). */
int cf_literal_prec(cf_printer *p, vp_strbuf *b, const vir_type *t, vir_literal v) {
  bool gpu_c = is_gpu_c(p);
  switch (t->kind) {
  case VIR_TY_BOOL: vp_strbuf_append(b, v.b ? "true" : "false"); return CF_PREC_PRIMARY;
  case VIR_TY_INT:
    if (t->bits == 64) {
      if (v.i == INT64_MIN) {
        vp_strbuf_append(b, gpu_c ? "(-9223372036854775807ll - 1ll)" : "(-9223372036854775807l - 1l)");
        return CF_PREC_PRIMARY;
      }
      vp_strbuf_printf(b, "%lld%s", (long long)v.i, gpu_c ? "ll" : "l");
      return v.i < 0 ? CF_PREC_UNARY : CF_PREC_PRIMARY;
    }
    if (t->bits == 32) {
      if (v.i == INT32_MIN) {
        vp_strbuf_append(b, "(-2147483647 - 1)");
        return CF_PREC_PRIMARY;
      }
      vp_strbuf_printf(b, "%lld", (long long)v.i);
      return v.i < 0 ? CF_PREC_UNARY : CF_PREC_PRIMARY;
    }
    vp_strbuf_printf(b, "%s(%lld)", scalar_name(t), (long long)v.i);
    cf_note_type(p, t, false);
    return CF_PREC_PRIMARY;
  case VIR_TY_UINT:
    if (t->bits == 64)
      vp_strbuf_printf(b, "%llu%s", (unsigned long long)v.u, gpu_c ? "ull" : "ul");
    else if (t->bits == 32)
      vp_strbuf_printf(b, "%lluu", (unsigned long long)(uint32_t)v.u);
    else {
      vp_strbuf_printf(b, "%s(%lluu)", scalar_name(t), (unsigned long long)v.u);
      cf_note_type(p, t, false);
    }
    return CF_PREC_PRIMARY;
  case VIR_TY_FLOAT:
    if (t->bits == 16)
      cf_note_type(p, t, false);
    cf_float_literal(p, b, v.f, t->bits);
    return v.f < 0 || (v.f == 0 && signbit(v.f)) ? CF_PREC_UNARY : CF_PREC_PRIMARY;
  default:
    vp_strbuf_append(b, "0");
    return CF_PREC_PRIMARY;
  }
}

void cf_literal(cf_printer *p, vp_strbuf *b, const vir_type *t, vir_literal v) {
  (void)cf_literal_prec(p, b, t, v);
}
