/* fuzz_vir.c - libFuzzer target: the VIR parser, verifier, printer and
 * passes on arbitrary bytes.
 *
 * Bad input must give diagnostics, never a crash or a hang (ASan and
 * UBSan watch). What parses must print to text that parses again and
 * prints the same (the round trip), verify the same way, and survive the
 * standard pipeline with the verifier after each pass.
 *
 * scripts/fuzz.sh reads the two lines below: the sources to compile with
 * the target, and the seed corpus.
 */
// sources: lib/Support/support.c lib/IR/*.c lib/Transforms/*.c lib/Transforms/lower_arrays/*.c
// seeds: test/**/*.vir examples/*.vir
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/IR/ir_impl.h"
#include "vulpy/passes.h"

static void fail(const char *what, const char *a, const char *b) {
  fprintf(stderr, "fuzz_vir: %s\n--- first:\n%s\n--- second:\n%s\n", what, a ? a : "", b ? b : "");
  abort();
}

/* print(m) must parse, print the same, and verify as m did */
static char *round_trip(vir_module *m, bool verified) {
  vp_strbuf a = {0}, b = {0};
  vir_print(m, 0, &a);
  vp_diags d = {0};
  vir_module *m2 = vir_parse(a.data ? a.data : "", a.len, "printed.vir", &d);
  if (!m2) {
    char *msg = vp_diags_format(&d, a.data);
    fail("printed text does not parse", a.data, msg);
  }
  vir_print(m2, 0, &b);
  if (a.len != b.len || (a.len && memcmp(a.data, b.data, a.len) != 0))
    fail("print(parse(print(m))) differs from print(m)", a.data, b.data);
  if (vir_verify(m2, &d) != verified)
    fail("the printed module verifies differently", a.data, NULL);
  vp_diags_free(&d);
  vir_module_destroy(m2);
  vp_strbuf_free(&b);
  return vp_strbuf_take(&a);
}

/* The parser's fast path (common lines read straight from the text) must
 * give what the general parser gives: the same module, the same errors. */
static void same_as_general_parser(const uint8_t *data, size_t size, vir_module *m, vp_diags *d) {
  vp_diags d2 = {0};
  vir_module *m2 = vir_parse_ex((const char *)data, size, "fuzz.vir", VIR_PARSE_NO_FAST, &d2);
  char *e1 = vp_diags_format(d, NULL), *e2 = vp_diags_format(&d2, NULL);
  if (!m != !m2 || strcmp(e1 ? e1 : "", e2 ? e2 : "") != 0)
    fail("the fast path and the general parser disagree on errors", e1, e2);
  if (m) {
    vp_strbuf a = {0}, b = {0};
    vir_print(m, 0, &a);
    vir_print(m2, 0, &b);
    if (a.len != b.len || (a.len && memcmp(a.data, b.data, a.len) != 0))
      fail("the fast path and the general parser read different modules", a.data, b.data);
    vp_strbuf_free(&a);
    vp_strbuf_free(&b);
  }
  free(e1);
  free(e2);
  vir_module_destroy(m2);
  vp_diags_free(&d2);
}

/* Whether the pipeline's diagnostics say a pass broke the module (not
 * that a pass refused it). */
static bool broke(const vp_diags *d) {
  char *msg = vp_diags_format(d, NULL);
  bool b = !msg || strstr(msg, "does not verify after pass") != NULL;
  free(msg);
  return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  vp_diags d = {0};
  vir_module *m = vir_parse((const char *)data, size, "fuzz.vir", &d);
  same_as_general_parser(data, size, m, &d);
  if (m) {
    bool ok = vir_verify(m, &d);
    char *before = round_trip(m, ok);
    if (ok) {
      (void)vir_module_features(m);
      vir_pipeline_options o = {.verify_each = true};
      /* the array level's passes too (a no-op without array functions) */
      /* A pass may refuse a verified module with an error of its own (e.g.
       * lower-arrays: two reductions in one region); what must never
       * happen is a pass leaving the module broken, which verify_each
       * reports as "does not verify after pass". */
      if (vir_run_pipeline(m, "canonicalize,cse,dce,fuse,lower-arrays", &o, &d) ==
              VIR_PASS_FAILURE &&
          broke(&d)) {
        vp_strbuf after = {0};
        vir_print(m, 0, &after);
        char *msg = vp_diags_format(&d, NULL);
        fprintf(stderr, "%s\n", msg ? msg : "");
        fail("the pipeline broke a verified module", before, after.data);
      }
      free(round_trip(m, true));
    }
    free(before);
    vir_module_destroy(m);
  }
  /* the diagnostics with carets, over the input itself */
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
