/* fuzz_manifest.c - libFuzzer target: the manifest reader (YAML, libyaml)
 * on arbitrary bytes.
 *
 * Any input must give a manifest or diagnostics, never a crash, a hang or
 * a leak (ASan and UBSan watch); deep nesting is an error at
 * VPM_MAX_DEPTH levels, not a slow parse. A manifest that parses must emit
 * YAML that parses back and emits the same bytes (vulpy/manifest.h
 * promises emit -> parse -> emit is byte-identical), and its clone must
 * emit the same too. The seeds are the manifests of the tests and the
 * runtime's shaders, plus test/fuzz/corpus/fuzz_manifest.
 *
 * scripts/fuzz.sh reads the lines below.
 */
// sources: lib/Support/support.c lib/Manifest/manifest.c lib/Manifest/manifest_emit.c
// libs: -lyaml
// seeds: test/**/*.yaml
// link: vulpy_manifest
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vulpy/manifest.h"

static void fail(const char *what, const char *a, const char *b) {
  fprintf(stderr, "fuzz_manifest: %s\n--- first:\n%s\n--- second:\n%s\n", what, a ? a : "",
          b ? b : "");
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  vp_diags d = {0};
  vpm_manifest *m = vpm_parse((const char *)data, size, "fuzz.yaml", &d);
  if (!m && !d.nerrors)
    fail("no manifest and no error", NULL, NULL);
  if (m) {
    char *a = vpm_emit(m);
    if (!a)
      fail("emit failed", NULL, NULL);
    vp_diags d2 = {0};
    vpm_manifest *m2 = vpm_parse(a, strlen(a), "emitted.yaml", &d2);
    if (!m2) {
      char *msg = vp_diags_format(&d2, a);
      fail("the emitted manifest does not parse", a, msg);
    }
    char *b = vpm_emit(m2);
    if (!b || strcmp(a, b) != 0)
      fail("emit(parse(emit(m))) differs from emit(m)", a, b);
    vpm_manifest *c = vpm_clone(m);
    char *e = c ? vpm_emit(c) : NULL;
    if (!e || strcmp(a, e) != 0)
      fail("the clone emits differently", a, e);
    for (uint32_t i = 0; i < m->nbuffers; i++)
      if (vpm_find_buffer(m, m->buffers[i].name) < 0)
        fail("a buffer is not found by its name", a, m->buffers[i].name);
    for (uint32_t i = 0; i < m->npush; i++)
      if (vpm_find_push(m, m->push[i].name) < 0)
        fail("a push field is not found by its name", a, m->push[i].name);
    free(a);
    free(b);
    free(e);
    vpm_free(c);
    vpm_free(m2);
    vp_diags_free(&d2);
    vpm_free(m);
  }
  char *text = malloc(size + 1);
  if (text) {
    memcpy(text, data, size);
    text[size] = 0;
    free(vp_diags_format(&d, text));
    free(text);
  }
  vp_diags_free(&d);
  return 0;
}
