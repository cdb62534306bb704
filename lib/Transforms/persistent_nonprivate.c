/* persistent_nonprivate.c - `--persistent-nonprivate`: the buffers a
 * persistent kernel writes become non-private instead of coherent
 * (docs/persistent.md, "Memory model"). Run before lower-persistent.
 *
 * Groups read, after a grid barrier, what other groups wrote before it.
 * lower-persistent makes every written buffer `coherent` for that: each
 * access then goes to the device-coherent level (on NVIDIA, past the L1).
 * Under the Vulkan memory model, which persistent kernels are printed with
 * (`#pragma use_vulkan_memory_model`), non-private accesses are enough
 * when the barrier's fences and ordered atomics carry availability and
 * visibility operations for buffer memory at device scope (the GLSL
 * printer adds gl_SemanticsMakeAvailable / MakeVisible to them in a module
 * with a `nonprivate` buffer): a write is made available by its
 * invocation's release fence before the workgroup barrier, the barrier
 * chain orders it before the reader, and the reader's acquire fence after
 * the barrier makes it visible. Plain loads may then be served from a
 * cache between barriers.
 *
 * Marked: buffers the kernel may write that are not coherent already
 * (control words, MemSock frames and rings stay coherent: the host reads
 * or writes them while the kernel runs), in modules with a grid sync or a
 * time loop. A compile option until the H200 shows persistent and stepped
 * results bit-identical with it (@vp.kernel(nonprivate=True)).
 */
#include "vulpy/passes.h"

static vir_walk_result find(vir_op *o, void *ctx) {
  if (o->code == VIR_OP_PERSIST_GRID_SYNC || o->code == VIR_OP_PERSIST_STEP) {
    *(bool *)ctx = true;
    return VIR_WALK_STOP;
  }
  return VIR_WALK_ADVANCE;
}

vir_pass_result vir_persistent_nonprivate(vir_module *m, const vir_pass_options *opts,
                                          vp_diags *diags) {
  (void)opts;
  (void)diags;
  bool persistent = false;
  for (uint32_t i = 0; i < m->syms.len && !persistent; i++) {
    vir_sym *s = m->syms.data[i];
    if (s->kind == VIR_SYM_FUNC && s->func->is_kernel)
      vir_walk_func(s->func, find, &persistent);
  }
  if (!persistent)
    return VIR_PASS_UNCHANGED;
  bool changed = false;
  for (uint32_t i = 0; i < m->syms.len; i++) {
    vir_sym *s = m->syms.data[i];
    if (s->kind == VIR_SYM_BUFFER && s->access != VIR_ACCESS_READONLY &&
        !(s->buf_flags & (VIR_BUF_COHERENT | VIR_BUF_VOLATILE | VIR_BUF_NONPRIVATE))) {
      s->buf_flags |= VIR_BUF_NONPRIVATE;
      changed = true;
    }
  }
  return changed ? VIR_PASS_CHANGED : VIR_PASS_UNCHANGED;
}
