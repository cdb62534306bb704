/* cross.c - SPIR-V to MSL, HLSL and GLSL through SPIRV-Cross's C API.
 *
 * One context per call (SPIRV-Cross keeps all its allocations in it), error
 * messages collected through its callback and returned as diagnostics.
 * Options: MSL 2.1 (threadgroup memory, simd-group functions), HLSL shader
 * model 6.0 (wave intrinsics for subgroup ops; 6.2 with native 16-bit types
 * when the module has 8/16/64-bit data), GLSL 450 with Vulkan
 * semantics (a readable round trip of any module, raw GLSL included).
 */
#include <spirv_cross/spirv_cross_c.h>
#include <stdio.h>
#include <string.h>

/* libspirv.h defines `const uint32_t kDefaultMaxIdBound` (an external
 * definition in C): renamed, as runtime/spirv_validate.c does, so that a
 * program can link this library and lib/Target/SPIRV. */
#define kDefaultMaxIdBound vtg_cross_kDefaultMaxIdBound
#include <spirv-tools/libspirv.h>
#undef kDefaultMaxIdBound

#include "cross_internal.h"
#include "vulpy/target.h"

/* SPIRV-Cross trusts its input: an id bound of 2^32 makes it allocate
 * hundreds of GiB, a bad operand reads out of bounds (found by
 * fuzz_spirv_reflect). Any words reach it (vp.reflect_spirv, the kernel
 * cache's entries), so SPIRV-Tools validates them first, for the Vulkan
 * version the module's SPIR-V version implies, with the most permissive
 * block layouts a device may allow (only a broken module is refused). */
static bool validate(const uint32_t *words, size_t nwords, vp_diags *d) {
  unsigned ver = nwords >= 2 ? (words[1] >> 8) & 0xffff : 0; /* 0x0105 = SPIR-V 1.5 */
  spv_target_env env = ver >= 0x0106   ? SPV_ENV_VULKAN_1_3
                       : ver >= 0x0104 ? SPV_ENV_VULKAN_1_2
                                       : SPV_ENV_VULKAN_1_1;
  spv_context ctx = spvContextCreate(env);
  spv_validator_options vo = spvValidatorOptionsCreate();
  bool ok = ctx && vo;
  spv_diagnostic diag = NULL;
  if (ok) {
    spvValidatorOptionsSetRelaxBlockLayout(vo, true);
    spvValidatorOptionsSetScalarBlockLayout(vo, true);
    spv_const_binary_t bin = {words, nwords};
    ok = spvValidateWithOptions(ctx, vo, &bin, &diag) == SPV_SUCCESS;
    if (!ok)
      vp_error(d, vtg_cross_loc(), "invalid SPIR-V: %s",
               diag && diag->error ? diag->error : "rejected by SPIRV-Tools");
  } else {
    vp_error(d, vtg_cross_loc(), "out of memory");
  }
  spvDiagnosticDestroy(diag);
  if (vo)
    spvValidatorOptionsDestroy(vo);
  if (ctx)
    spvContextDestroy(ctx);
  return ok;
}

static void on_error(void *userdata, const char *error) {
  vp_strbuf *b = userdata;
  if (b->len)
    vp_strbuf_append(b, "; ");
  vp_strbuf_append(b, error);
}

bool vtg_cross_open(vtg_cross *x, const uint32_t *words, size_t nwords, spvc_backend backend,
                    vp_diags *d) {
  memset(x, 0, sizeof *x);
  if (!validate(words, nwords, d))
    return false;
  if (spvc_context_create(&x->ctx) != SPVC_SUCCESS) {
    vp_error(d, vtg_cross_loc(), "out of memory");
    return false;
  }
  spvc_context_set_error_callback(x->ctx, on_error, &x->errors);
  spvc_parsed_ir ir;
  if (spvc_context_parse_spirv(x->ctx, words, nwords, &ir) != SPVC_SUCCESS ||
      spvc_context_create_compiler(x->ctx, backend, ir, SPVC_CAPTURE_MODE_TAKE_OWNERSHIP,
                                   &x->comp) != SPVC_SUCCESS) {
    vp_error(d, vtg_cross_loc(), "SPIRV-Cross cannot read the module: %s",
             x->errors.len ? x->errors.data : "(no message)");
    vtg_cross_close(x);
    return false;
  }
  return true;
}

void vtg_cross_close(vtg_cross *x) {
  if (x->ctx)
    spvc_context_destroy(x->ctx);
  vp_strbuf_free(&x->errors);
  memset(x, 0, sizeof *x);
}

vp_loc vtg_cross_loc(void) {
  vp_loc l = {"<spirv>", 0, 0};
  return l;
}

bool vtg_spirv_cross(const uint32_t *words, size_t nwords, vtg_cross_lang lang, vp_strbuf *out,
                     vp_diags *d) {
  static const spvc_backend backends[] = {
      [VTG_CROSS_MSL] = SPVC_BACKEND_MSL,
      [VTG_CROSS_HLSL] = SPVC_BACKEND_HLSL,
      [VTG_CROSS_GLSL] = SPVC_BACKEND_GLSL,
  };
  static const char *const names[] = {"MSL", "HLSL", "GLSL"};
  vtg_cross x;
  if (!vtg_cross_open(&x, words, nwords, backends[lang], d))
    return false;
  spvc_compiler_options opts;
  bool ok = spvc_compiler_create_compiler_options(x.comp, &opts) == SPVC_SUCCESS;
  if (ok) {
    switch (lang) {
    case VTG_CROSS_MSL:
      spvc_compiler_options_set_uint(opts, SPVC_COMPILER_OPTION_MSL_VERSION,
                                     SPVC_MAKE_MSL_VERSION(2, 1, 0));
      break;
    case VTG_CROSS_HLSL:
      /* 6.0 for wave intrinsics; 6.2 with native 16-bit types for 8/16/64-bit data */
      if (vtg_cross_features(words, nwords) & (VP_FEAT(FLOAT64) | VP_FEAT(INT64) | VP_FEAT(INT16) |
                                               VP_FEAT(FLOAT16) | VP_FEAT(STORAGE16) | VP_FEAT(STORAGE8))) {
        spvc_compiler_options_set_uint(opts, SPVC_COMPILER_OPTION_HLSL_SHADER_MODEL, 62);
        spvc_compiler_options_set_bool(opts, SPVC_COMPILER_OPTION_HLSL_ENABLE_16BIT_TYPES, SPVC_TRUE);
      } else {
        spvc_compiler_options_set_uint(opts, SPVC_COMPILER_OPTION_HLSL_SHADER_MODEL, 60);
      }
      break;
    case VTG_CROSS_GLSL:
      spvc_compiler_options_set_uint(opts, SPVC_COMPILER_OPTION_GLSL_VERSION, 450);
      spvc_compiler_options_set_bool(opts, SPVC_COMPILER_OPTION_GLSL_ES, SPVC_FALSE);
      spvc_compiler_options_set_bool(opts, SPVC_COMPILER_OPTION_GLSL_VULKAN_SEMANTICS, SPVC_TRUE);
      break;
    }
    ok = spvc_compiler_install_compiler_options(x.comp, opts) == SPVC_SUCCESS;
  }
  const char *src = NULL;
  if (ok)
    ok = spvc_compiler_compile(x.comp, &src) == SPVC_SUCCESS && src;
  if (ok)
    vp_strbuf_append(out, src);
  else
    vp_error(d, vtg_cross_loc(), "SPIRV-Cross cannot express this module in %s: %s", names[lang],
             x.errors.len ? x.errors.data : "(no message)");
  vtg_cross_close(&x);
  return ok;
}
