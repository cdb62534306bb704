/* mathlib.c - transcendental functions: vendor, built-in or our own.
 * (placeholder: the precise library lands in mathlib_*.c) */
#include <string.h>

#include "cfamily.h"

static const char *c_name(vir_opcode c) {
  switch (c) {
  case VIR_OP_ATAN2: return "atan2";
  case VIR_OP_EXPM1: return "expm1";
  case VIR_OP_LOG10: return "log10";
  case VIR_OP_LOG1P: return "log1p";
  case VIR_OP_CBRT: return "cbrt";
  default: return vir_op_info_of(c)->name;
  }
}

const char *cf_need_math(cf_printer *p, vir_opcode code, const vir_type *t) {
  if (p->dialect != CF_GLSL) {
    p->pre |= CF_PRE_MATH;
    if (t->kind == VIR_TY_VEC)
      p->pre |= CF_PRE_VEC;
    return c_name(code);
  }
  return code == VIR_OP_ATAN2 ? "atan" : vir_op_info_of(code)->spell;
}

void cf_emit_math(cf_printer *p, vp_strbuf *out) { (void)p; (void)out; }
