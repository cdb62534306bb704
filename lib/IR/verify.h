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
  /* The module has array functions or tensor types: without them, only
   * array.* ops themselves need verify_array.c's rules (the others cannot
   * meet a tensor), which keeps two calls per op off the common path. */
  bool array_level;
} vctx;

/* An array.* op (ops.def keeps them together). */
static inline bool vir_is_array_opcode(vir_opcode c) { return c >= VIR_OP_ARRAY_LOAD && c <= VIR_OP_ARRAY_LAUNCH; }

void vir_verror(vctx *c, vp_loc loc, const char *fmt, ...) VP_PRINTF(3, 4);
/* The type rules of one op whose operands are all present. */
void vir_verify_op_types(vctx *c, const vir_op *op);
/* verify_array.c: where array-level ops may appear, and their types;
 * vir_verify_array_types returns false for ops it does not cover. */
void vir_verify_placement(vctx *c, const vir_op *op, const vir_region *r);
bool vir_verify_array_types(vctx *c, const vir_op *op);
void vir_verify_array_op(vctx *c, const vir_op *op);

#endif
