/* clamp_shared.c - keep shared-array indexes inside the array.
 *
 * Shared (workgroup) memory has no bounds checking on most devices: an
 * index past a `vp.Shared[T, N]` array reads or writes whatever lies
 * beyond it, and on lavapipe (where workgroup memory is a heap allocation
 * of the host process) an out-of-bounds shared store corrupted the Python
 * interpreter's heap (SIGSEGV, issue 20). Every shared access whose index
 * is not known to be in range (a constant, or an unsigned index its ops
 * bound: vir_uint_upper_bound) gets `min(u32(i), N - 1)`: one
 * or two ALU ops, a negative signed index becoming a huge unsigned one and
 * so N - 1 too. The access then stays inside the array (a wrong element,
 * not a crash); debug mode (bounds-check) reports the index instead.
 * Buffers are the robustBufferAccess feature's business (Context(robust=)).
 * Run on every kernel VulPy compiles from Python (vulpy/_compiler.py).
 */
#include "transforms.h"

static bool clamp_region(vir_module *m, vir_region *r) {
  bool changed = false;
  for (vir_op *op = r->first; op; op = op->next) {
    for (uint32_t i = 0; i < vir_op_info_of(op->code)->nregion; i++)
      changed |= clamp_region(m, &op->regions[i]);
    vir_sym *s = op->attr.sym;
    bool access = op->code == VIR_OP_SHARED_LOAD || op->code == VIR_OP_SHARED_STORE ||
                  vir_op_info_of(op->code)->attr == VIR_ATTR_ATOMIC;
    if (!access || !s || s->kind != VIR_SYM_SHARED || !op->nopnd || !s->type ||
        s->type->kind != VIR_TY_ARRAY || !s->type->len)
      continue;
    vir_value *idx = op->opnd[0];
    vir_type *it = idx->type;
    if (!it || (it->kind != VIR_TY_INT && it->kind != VIR_TY_UINT))
      continue;
    uint32_t n = s->type->len;
    const vir_literal *k = vir_const_of(idx);
    if (k && !(it->kind == VIR_TY_INT && k->i < 0) && k->u < n)
      continue;
    uint64_t hi; /* in range by how it is computed (`d & 255u` into 256) */
    if (it->kind == VIR_TY_UINT && vir_uint_upper_bound(m, idx, &hi) && hi < n)
      continue;
    vir_type *u32 = vir_ty_uint(m, 32);
    vir_builder b;
    vir_builder_init(&b, m);
    vir_builder_before(&b, op);
    b.loc = op->loc;
    vir_value *u = idx;
    if (it != u32)
      u = &vir_build(&b, VIR_OP_CAST, u32, 1, &idx)->val;
    vir_value *mo[2] = {u, vir_build_int(&b, u32, n - 1)};
    op->opnd[0] = &vir_build(&b, VIR_OP_MIN, u32, 2, mo)->val;
    changed = true;
  }
  return changed;
}

vir_pass_result vir_opt_clamp_shared(vir_module *m, const vir_pass_options *opts,
                                     vp_diags *diags) {
  (void)opts;
  (void)diags;
  bool changed = false;
  for (uint32_t i = 0; i < m->syms.len; i++) {
    vir_sym *s = m->syms.data[i];
    if (s->kind == VIR_SYM_FUNC && s->func && !s->func->is_array)
      changed |= clamp_region(m, &s->func->body);
  }
  return changed ? VIR_PASS_CHANGED : VIR_PASS_UNCHANGED;
}
