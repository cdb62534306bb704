/* fuse.c - the `fuse` pass: array functions into fused array.kernel regions.
 *
 * Each array function without kernels yet is partitioned in FUSE mode
 * (arrays.c): elementwise chains, with their broadcasts, reshapes,
 * transposes, slices and gathers, go into one array.kernel per iteration
 * space, with at most one reduction at its end; values are recomputed in
 * every kernel that needs them unless the cost rule says a buffer is
 * cheaper (docs/fusion.md, "The cost rule"). lower-arrays then makes one
 * kernel of each region.
 */
#include "arrays.h"

vir_pass_result vir_opt_fuse(vir_module *m, const vir_pass_options *opts, vp_diags *diags) {
  (void)opts;
  bool changed = false;
  if (!vir_partition_arrays(m, VIR_PARTITION_FUSE, diags, &changed))
    return VIR_PASS_FAILURE;
  return changed ? VIR_PASS_CHANGED : VIR_PASS_UNCHANGED;
}
