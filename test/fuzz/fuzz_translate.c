/* fuzz_translate.c - libFuzzer target: `vulpy-translate --from=ast` of
 * arbitrary bytes through every back end, in-process.
 *
 * What tools/vulpy-translate does for an AST JSON document: the frontend
 * (vfe_translate_json, verified), lower-persistent and lower-memsock, then
 * the emitters of the target table: GLSL, SPIR-V (glslang in-process,
 * validated by SPIRV-Tools), CUDA, HIP and the manifest on every module
 * that translates, and one of the SPIRV-Cross targets (MSL, HLSL, GLSL
 * from SPIR-V, SPIR-V assembly) picked by the input's last byte, so that
 * one execution costs two glslang compiles, not five. Any input must give
 * output or diagnostics, never a crash, a hang or a leak (ASan and UBSan
 * watch), and a kernel whose GLSL is emitted must compile to valid SPIR-V
 * (else VulPy printed GLSL that glslang or the validator rejects). The
 * seeds are the AST documents of the lit tests (test/Frontend/Inputs).
 *
 * scripts/fuzz.sh reads the lines below.
 */
// sources: lib/Support/*.c lib/IR/*.c lib/Frontend/*.c lib/Transforms/*.c lib/Transforms/lower_arrays/*.c lib/Target/*.c lib/Target/CFamily/*.c lib/Manifest/*.c lib/Target/Cross/*.c lib/Target/SPIRV/spirv.c lib/Target/SPIRV/optimize.cpp
// libs: -lyaml -lspirv-cross-c-shared -lSPIRV -lglslang -lMachineIndependent -lOGLCompiler -lOSDependent -lGenericCodeGen -lglslang-default-resource-limits -lSPIRV-Tools-opt -lSPIRV-Tools-link -lSPIRV-Tools -lpthread -lrt
// seeds: test/Frontend/Inputs/*.json
// link: vulpy_frontend vulpy_target
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vulpy/frontend.h"
#include "vulpy/passes.h"
#include "vulpy/target.h"

static void fail(const char *what, const char *text, vp_diags *d) {
  char *msg = vp_diags_format(d, NULL);
  fprintf(stderr, "fuzz_translate: %s\n%s\n%s\n", what, text ? text : "", msg ? msg : "");
  abort();
}

static bool emit(vir_module *m, const char *name, vp_strbuf *out, vp_diags *d) {
  const vtg_target *t = vtg_target_lookup(name);
  vtg_options o;
  vtg_options_init(&o);
  vp_strbuf_free(out);
  bool ok = t->emit(m, &o, out, d);
  if (!ok && !d->nerrors)
    fail("a back end failed without an error", name, d);
  return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  vfe_options fo;
  vfe_options_init(&fo);
  vp_diags d = {0};
  char *source = NULL;
  vir_module *m = vfe_translate_json((const char *)data, size, "fuzz.json", &fo, &source, &d);
  if (!m && !d.nerrors)
    fail("no module and no error", NULL, &d);
  free(source);
  if (!m) {
    vp_diags_free(&d);
    return 0;
  }
  vp_diags_clear(&d);
  bool ok = vir_run_pipeline(m, "lower-persistent", NULL, &d) != VIR_PASS_FAILURE &&
            vir_lower_memsock(m, NULL, &d) != VIR_PASS_FAILURE;
  if (ok) {
    vp_strbuf out = {0};
    bool glsl = emit(m, "glsl", &out, &d);
    vp_diags_clear(&d);
    if (!emit(m, "spirv", &out, &d) && glsl) {
      vp_strbuf text = {0};
      emit(m, "glsl", &text, &d);
      fail("GLSL was emitted but does not compile to valid SPIR-V", text.data, &d);
    }
    vp_diags_clear(&d);
    emit(m, "cuda", &out, &d);
    vp_diags_clear(&d);
    emit(m, "hip", &out, &d);
    vp_diags_clear(&d);
    emit(m, "manifest", &out, &d);
    vp_diags_clear(&d);
    static const char *const cross[] = {"msl", "hlsl", "glsl-cross", "spirv-asm"};
    emit(m, cross[data[size - 1] & 3], &out, &d);
    vp_strbuf_free(&out);
  } else if (!d.nerrors) {
    fail("a lowering failed without an error", NULL, &d);
  }
  vp_diags_free(&d);
  vir_module_destroy(m);
  return 0;
}
