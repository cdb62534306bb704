/* fuzz_spirv_reflect.c - libFuzzer target: reflection of arbitrary SPIR-V.
 *
 * The input's bytes are SPIR-V words (a trailing partial word is dropped)
 * given to both readers of a module's interface: the runtime's own
 * (vrt__spirv_reflect, runtime/spirv.c: what a kernel's manifest is checked
 * against before the driver sees the module) and the compiler's
 * (vtg_reflect_spirv, lib/Target/Cross/reflect.c: a word scan plus
 * SPIRV-Cross, behind vp.reflect_spirv and the kernel cache's check). Any
 * words must give a result or diagnostics, never a crash, a hang or a leak
 * (ASan and UBSan watch). A manifest that comes back must emit YAML that
 * vpm_parse reads back. The seeds are SPIR-V modules the build makes
 * (test/fuzz/corpus/fuzz_spirv_reflect: the runtime tests' shaders by
 * glslangValidator, VIR tests by vulpy-translate --to=spirv).
 *
 * scripts/fuzz.sh reads the lines below.
 */
// sources: lib/Support/support.c lib/Support/sha256.c lib/Manifest/manifest.c lib/Manifest/manifest_emit.c lib/Target/Cross/cross.c lib/Target/Cross/reflect.c runtime/spirv.c
// cflags: -Iruntime
// libs: -lyaml -lspirv-cross-c-shared -lSPIRV-Tools -lpthread
// link: vulpy_runtime vulpy_cross vulpy_manifest
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "vulpy/manifest.h"
#include "vulpy/target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t n = size / 4;
  /* exactly n words, so that ASan sees any read past the module */
  uint32_t *w = malloc(n ? n * 4 : 1);
  if (!w)
    return 0;
  memcpy(w, data, n * 4);

  vp_diags d = {0};
  vrt_spirv_info info;
  if (!vrt__spirv_reflect(w, n, "main", &info, &d) && !d.nerrors) {
    fprintf(stderr, "fuzz_spirv_reflect: the runtime's reflection failed without an error\n");
    abort();
  }
  free(vp_diags_format(&d, NULL));
  vp_diags_free(&d);

  vpm_manifest *m = vtg_reflect_spirv(w, n, &d);
  if (!m && !d.nerrors) {
    fprintf(stderr, "fuzz_spirv_reflect: vtg_reflect_spirv failed without an error\n");
    abort();
  }
  if (m) {
    char *yaml = vpm_emit(m);
    vp_diags pd = {0};
    vpm_manifest *back = yaml ? vpm_parse(yaml, strlen(yaml), "reflected.yaml", &pd) : NULL;
    if (!back) {
      char *msg = vp_diags_format(&pd, yaml);
      fprintf(stderr, "fuzz_spirv_reflect: the reflected manifest does not parse back:\n%s\n%s\n",
              yaml ? yaml : "(no YAML)", msg ? msg : "");
      abort();
    }
    vpm_free(back);
    vp_diags_free(&pd);
    free(yaml);
    vpm_free(m);
  }
  free(vp_diags_format(&d, NULL));
  vp_diags_free(&d);
  free(w);
  return 0;
}
