/* verify.h - what verify.c and verify_ops.c share (private to lib/IR). */
#ifndef VULPY_IR_VERIFY_H
#define VULPY_IR_VERIFY_H

#include "ir_impl.h"

typedef struct vctx {
  const vir_module *m;
  vir_module *mm; /* the same module: interning a type is not a change */
  vp_diags *d;
  vp_arena tmp;
  const vir_func *f; /* the function being checked */
  const vir_value **vis; /* by value id: the value when visible here */
  uint32_t nvis;
  int loop_depth, depth;
  const vir_func **funcs; /* every function, and the calls each makes */
  vp_ptrvec *calls;
  uint32_t nfuncs, fi;
  vp_map func_ids; /* vir_func* bytes -> index + 1 */
} vctx;

void vir_verror(vctx *c, vp_loc loc, const char *fmt, ...) VP_PRINTF(3, 4);
/* The type rules of one op whose operands are all present. */
void vir_verify_op_types(vctx *c, const vir_op *op);
/* verify_array.c: where array-level ops may appear, and their types;
 * vir_verify_array_types returns false for ops it does not cover. */
void vir_verify_placement(vctx *c, const vir_op *op, const vir_region *r);
bool vir_verify_array_types(vctx *c, const vir_op *op);
void vir_verify_array_op(vctx *c, const vir_op *op);

#endif
