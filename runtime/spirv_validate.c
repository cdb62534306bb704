/* spirv_validate.c - SPIRV-Tools' validator on a kernel's SPIR-V, for the
 * context's Vulkan version, before a driver sees the module (spirv.c reads
 * the interface; this is the full check). */
#include "internal.h"

/* libspirv.h defines `const uint32_t kDefaultMaxIdBound` (an external
 * definition in C): renamed so that a program can link this library and
 * lib/Target/SPIRV, which includes it too. */
#define kDefaultMaxIdBound vrt_spirv_kDefaultMaxIdBound
#include <spirv-tools/libspirv.h>
#undef kDefaultMaxIdBound

bool vrt__spirv_validate(vrt_context *ctx, const uint32_t *words, size_t nwords, vp_diags *d) {
  uint32_t api = ctx->info.api_version;
  spv_target_env env = api >= VK_API_VERSION_1_3   ? SPV_ENV_VULKAN_1_3
                       : api >= VK_API_VERSION_1_2 ? SPV_ENV_VULKAN_1_2
                                                   : SPV_ENV_VULKAN_1_1;
  spv_context sc = spvContextCreate(env);
  spv_validator_options opts = spvValidatorOptionsCreate();
  if (!sc || !opts) {
    spvContextDestroy(sc);
    spvValidatorOptionsDestroy(opts);
    vrt__error(ctx, d, "out of host memory");
    return false;
  }
  /* Kernels use std430 (scalar where the device allows) layouts. */
  spvValidatorOptionsSetRelaxBlockLayout(opts, true);
  spv_const_binary_t bin = {words, nwords};
  spv_diagnostic diag = NULL;
  spv_result_t r = spvValidateWithOptions(sc, opts, &bin, &diag);
  bool ok = r == SPV_SUCCESS;
  if (!ok) {
    vp_error(d, (vp_loc){0}, "invalid SPIR-V: %s", diag && diag->error ? diag->error : "rejected");
    if (diag && !diag->isTextSource)
      vp_diag_hint(d, "SPIRV-Tools (%s) rejected the module at instruction %zu",
                   spvTargetEnvDescription(env), diag->position.index);
  }
  spvDiagnosticDestroy(diag);
  spvValidatorOptionsDestroy(opts);
  spvContextDestroy(sc);
  return ok;
}
