#include "vulpy/passes.h"
vir_pass_result vir_opt_canonicalize(vir_module *m, const vir_pass_options *opts, vp_diags *diags) {
  return VIR_PASS_UNCHANGED;
}
