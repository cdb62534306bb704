/* test_text.c - the fast paths of the VIR text against the slow ones they
 * stand in for: float constants printed without printf (the shortest text
 * that reads back, as vir_format_float finds it with printf and strtod),
 * read without strtod (correctly rounded, as strtod / strtof), value
 * names and numbers, and a text split between the caller's buffer and the
 * lexer's padded copy of its last lines. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../../lib/IR/ir_impl.h"
#include "check.h"

/* A little generator of its own, so the run is the same everywhere. */
static uint64_t rng_state = 0x243f6a8885a308d3ull;
static uint64_t rng(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

/* The text of `const v : fN` as vir_print writes it, and the value read back. */
static void print_const(double v, unsigned bits, char *text, size_t size, double *norm, double *back) {
  vir_module *m = vir_module_create(NULL);
  vir_type *t = vir_ty_float(m, bits);
  vir_func *f = vir_add_func(m, "k", true, NULL, 0, NULL, NULL, (vp_loc){0});
  vir_builder b;
  vir_builder_init(&b, m);
  vir_builder_at_end(&b, &f->body);
  *norm = vir_build_float(&b, t, v)->def->attr.lit.f; /* rounded to the width */
  vir_build(&b, VIR_OP_RETURN, NULL, 0, NULL);
  vp_strbuf out = {0};
  vir_print(m, 0, &out);
  const char *c = strstr(out.data, "const ");
  const char *e = c ? strstr(c, " : ") : NULL;
  snprintf(text, size, "%.*s", c && e ? (int)(e - c - 6) : 0, c ? c + 6 : "");
  vp_diags d = {0};
  vir_module *r = vir_parse(out.data, out.len, "t.vir", &d);
  CHECK(r != NULL);
  *back = NAN;
  if (r) {
    vir_func *rf = vir_module_find(r, "k")->func;
    *back = rf->body.first->attr.lit.f;
  }
  vir_module_destroy(r);
  vp_diags_free(&d);
  vp_strbuf_free(&out);
  vir_module_destroy(m);
}

static void check_float(double v, unsigned bits) {
  char text[64], want[64];
  double f, back;
  print_const(v, bits, text, sizeof text, &f, &back);
  vir_format_float(want, sizeof want, f, bits);
  if (strcmp(text, want) != 0 || !(back == f || (isnan(back) && isnan(f)))) {
    fprintf(stderr, "f%u %.17g: printed %s (want %s), read back %.17g\n", bits, f, text, want, back);
    check_failures++;
  }
  /* reading: the fast path against strtod / strtof on the same text */
  double want_read = bits == 32 ? strtof(want, NULL) : strtod(want, NULL);
  if (bits == 16)
    want_read = vir_round_f16(want_read);
  CHECK(back == want_read || isnan(back));
}

static void floats(void) {
  static const unsigned widths[] = {16, 32, 64};
  for (int w = 0; w < 3; w++) {
    unsigned bits = widths[w];
    for (int i = 0; i < 3000; i++) {
      uint64_t r = rng();
      double v;
      switch (i % 5) {
      case 0: v = (double)(int64_t)(r % 200000 - 100000) / 8; break;        /* k/8 */
      case 1: v = (double)(int64_t)(r % 2000000 - 1000000) / 1000; break;   /* 3 places */
      case 2: v = (double)(r % 10000000) / 1e6; break;                       /* 6 places */
      case 3: v = ldexp((double)(r % (1u << 20)), (int)(r >> 60) - 12); break; /* binary */
      default: {
        double d;
        memcpy(&d, &r, 8);
        v = isfinite(d) ? d : 1.0;
      }
      }
      if (bits < 64 && fabs(v) > (bits == 32 ? 3e38 : 65000))
        continue;
      check_float(v, bits);
    }
  }
  check_float(0.1, 32);
  check_float(0.1, 64);
  check_float(124.875, 32);
  check_float(-2.5, 16);
  check_float(1e-4, 32);
  check_float(65504.5, 16);
}

/* The same module parsed whole, and with its text longer than the lexer's
 * in-place limit: every name and number found either way. */
static void long_text(void) {
  vp_strbuf t = {0};
  vp_strbuf_append(&t, "module \"big.vul.py\"\nbuffer @y : f32[] binding(0, 0) readwrite\n");
  vp_strbuf_append(&t, "kernel @k local_size(1, 1, 1) {\n  %i = const 0 : u32\n  %v = const 1.5 : f32\n");
  for (int i = 0; i < 400; i++)
    vp_strbuf_printf(&t, "  %%%d = add %%v, %%v : f32 loc(%d:%d)\n  %%n%d = mul %%%d, %%v\n", i, i + 2, i % 7 + 1, i, i);
  vp_strbuf_append(&t, "  buffer.store @y[%i], %n399\n  return\n}\n");
  vp_diags d = {0};
  vir_module *m = vir_parse(t.data, t.len, "big.vir", &d);
  CHECK(m != NULL);
  if (m) {
    vp_strbuf out = {0};
    vir_print(m, 0, &out);
    CHECK(strstr(out.data, "%n399 = mul %399, %v : f32") != NULL);
    CHECK(strstr(out.data, "buffer.store @y[%i], %n399") != NULL);
    CHECK(strstr(out.data, "loc(401:1)") != NULL);
    vp_strbuf_free(&out);
  }
  vir_module_destroy(m);
  /* an error in the copied last lines still names its line and column */
  t.len -= 3; /* drop "}\n" and the final line break of "return" */
  vp_strbuf_append(&t, " %\n}\n");
  vp_diags_clear(&d);
  CHECK(vir_parse(t.data, t.len, "big.vir", &d) == NULL);
  char *msg = vp_diags_format(&d, NULL);
  CHECK(msg && strstr(msg, "big.vir:807:10: error: expected a value name after '%'"));
  if (msg && !strstr(msg, "big.vir:807:10"))
    fprintf(stderr, "%s", msg);
  free(msg);
  vp_diags_free(&d);
  vp_strbuf_free(&t);
}

int main(void) {
  floats();
  long_text();
  if (check_failures)
    fprintf(stderr, "%d check(s) failed\n", check_failures);
  return check_failures != 0;
}
