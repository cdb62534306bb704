/* fuzz_vir_text.c - libFuzzer target: the VIR text round trip alone.
 *
 * parse -> print -> parse -> print on arbitrary bytes: the two printed
 * texts must be equal, the verifier must give the same answer on both
 * modules, and nothing may crash, hang or leak (ASan and UBSan watch).
 * Unlike fuzz_vir it runs no passes, so it spends its executions on the
 * lexer, the parser, the printer and the verifier; the last input byte
 * picks whether loc(...) is printed, so both printer paths are fuzzed.
 *
 * scripts/fuzz.sh reads the lines below.
 */
// sources: lib/Support/support.c lib/IR/*.c
// seeds: test/IR/**/*.vir test/Transforms/**/*.vir examples/*.vir
// link: vulpy_ir
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vulpy/ir.h"

static void fail(const char *what, const char *a, const char *b) {
  fprintf(stderr, "fuzz_vir_text: %s\n--- first:\n%s\n--- second:\n%s\n", what, a ? a : "",
          b ? b : "");
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  unsigned flags = size && (data[size - 1] & 1) ? VIR_PRINT_NO_LOCS : 0;
  vp_diags d = {0};
  vir_module *m = vir_parse((const char *)data, size, "fuzz.vir", &d);
  if (!m && !d.nerrors)
    fail("no module and no error", NULL, NULL);
  if (m) {
    bool ok = vir_verify(m, &d);
    vp_strbuf a = {0}, b = {0};
    vir_print(m, flags, &a);
    vp_diags d2 = {0};
    vir_module *m2 = vir_parse(a.data ? a.data : "", a.len, "printed.vir", &d2);
    if (!m2) {
      char *msg = vp_diags_format(&d2, a.data);
      fail("printed text does not parse", a.data, msg);
    }
    if (vir_verify(m2, &d2) != ok) {
      char *msg = vp_diags_format(&d2, a.data);
      fail("the printed module verifies differently", a.data, msg);
    }
    vir_print(m2, flags, &b);
    if (a.len != b.len || (a.len && memcmp(a.data, b.data, a.len) != 0))
      fail("print(parse(print(m))) differs from print(m)", a.data, b.data);
    vir_module_destroy(m2);
    vp_diags_free(&d2);
    vp_strbuf_free(&a);
    vp_strbuf_free(&b);
    vir_module_destroy(m);
  }
  vp_diags_free(&d);
  return 0;
}
