/* transforms.h - helpers the passes share (private to lib/Transforms). */
#ifndef VULPY_TRANSFORMS_H
#define VULPY_TRANSFORMS_H

#include "vulpy/passes.h"

/* Evaluates `code` on the scalar literals v[0..n) of type `ot`, giving a
 * literal of the result type `rt`; false when the op is not folded (not
 * scalar-foldable, or undefined on the GPU for these values). */
bool vir_fold(vir_opcode code, const vir_type *rt, const vir_type *ot, const vir_literal *v,
              uint32_t n, vir_literal *out);
/* A `cast` of literal `a` from `from` to `to`. */
bool vir_fold_cast(const vir_type *to, const vir_type *from, vir_literal a, vir_literal *r);

/* The literal of a value defined by `const`, or NULL. */
static inline const vir_literal *vir_const_of(const vir_value *v) {
  return v && v->def && v->def->code == VIR_OP_CONST ? &v->def->attr.lit : NULL;
}

#endif
