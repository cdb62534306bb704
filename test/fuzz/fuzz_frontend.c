/* fuzz_frontend.c - libFuzzer target: the frontend (JSON reader and
 * translator) on arbitrary bytes.
 *
 * Any input must give a module or diagnostics, never a crash, a hang or a
 * leak (ASan and UBSan watch). A module that comes back has passed
 * vir_verify inside vfe_translate_json; here it must also print and parse
 * back. The seeds are AST documents of the lit tests (test/Frontend/Inputs,
 * made by `python -m vulpy dump-ast`), so mutations start from real kernels.
 *
 * scripts/fuzz.sh reads the lines below.
 */
// sources: lib/Support/support.c lib/IR/*.c lib/Frontend/*.c lib/Transforms/*.c lib/Transforms/lower_arrays/*.c
// cflags: -Ilib/Frontend
// libs: -lyaml
// seeds: test/Frontend/Inputs/*.json
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vulpy/frontend.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  vfe_options o;
  vfe_options_init(&o);
  /* one bit of the input picks the options, so both paths get fuzzed */
  if (size && (data[size - 1] & 1)) {
    o.dispatch_guard = false;
    o.debug_asserts = true;
  }
  vp_diags d = {0};
  char *source = NULL;
  vir_module *m = vfe_translate_json((const char *)data, size, "fuzz.json", &o, &source, &d);
  if (m) {
    if (d.nerrors) {
      fprintf(stderr, "fuzz_frontend: a module came back with errors\n");
      abort();
    }
    vp_strbuf text = {0};
    vir_print(m, 0, &text);
    vp_diags pd = {0};
    vir_module *again = vir_parse(text.data ? text.data : "", text.len, "printed.vir", &pd);
    if (!again) {
      char *msg = vp_diags_format(&pd, text.data);
      fprintf(stderr, "fuzz_frontend: the printed module does not parse:\n%s\n%s\n", msg, text.data);
      abort();
    }
    vir_module_destroy(again);
    vp_diags_free(&pd);
    vp_strbuf_free(&text);
    vir_module_destroy(m);
  } else if (!d.nerrors) {
    fprintf(stderr, "fuzz_frontend: no module and no error\n");
    abort();
  }
  char *msg = vp_diags_format(&d, source);
  free(msg);
  free(source);
  vp_diags_free(&d);
  return 0;
}
