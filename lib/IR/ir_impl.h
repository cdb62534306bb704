/* ir_impl.h - what the files of lib/IR share and nobody else needs. */
#ifndef VULPY_IR_IMPL_H
#define VULPY_IR_IMPL_H

#include "vulpy/ir.h"

/* Regions nest at most this deep (the parser refuses deeper input, so the
 * recursive walks of the printer and the verifier stay bounded). */
#define VIR_MAX_DEPTH 200

/* A fresh value with the next id of `f`. */
vir_value *vir_new_value(vir_func *f, vp_arena *a, vir_type *t, vir_region *owner);
/* An op not yet inserted anywhere (vir_build without the insertion). */
vir_op *vir_new_op(vir_module *m, vir_func *f, vir_opcode code, vir_type *type, uint32_t nopnd,
                   vir_value *const *opnd);
double vir_round_f16(double d);
vir_type *vir_arith_type(vir_type *a, vir_type *b);
vir_type *vir_matmul_type(vir_module *m, const vir_type *a, const vir_type *b);
/* The shortest decimal text that reads back as `d` at `bits` (16, 32, 64);
 * always with a '.' or an exponent, or inf / -inf / nan. */
void vir_format_float(char *buf, size_t size, double d, unsigned bits);

/* vir_parse with options: VIR_PARSE_NO_FAST reads every line with the
 * general parser, for tests that compare it with the fast path. */
enum { VIR_PARSE_NO_FAST = 1u << 0 };
vir_module *vir_parse_ex(const char *text, size_t len, const char *filename, unsigned flags,
                         vp_diags *diags);

#endif
