/* test_spirv.c - glslang in-process, validation, optimization, disassembly
 * and the mapping of glslang errors to `// file:line` comments. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../IR/check.h"

#include "vulpy/target.h"

static const char good[] =
    "#version 450\n"
    "layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;\n"
    "layout(std430, set = 0, binding = 0) buffer x_buf { float x[]; };\n"
    "layout(push_constant, std430) uniform pc_block { uint n; float a; } pc;\n"
    "void main() {\n"
    "  // k.vul.py:4\n"
    "  uint i = gl_GlobalInvocationID.x;\n"
    "  if (i >= pc.n) return;\n"
    "  x[i] = x[i] * pc.a + 1.0;\n"
    "}\n";

static const char bad[] =
    "#version 450\n"
    "layout(local_size_x = 64) in;\n"
    "void main() {\n"
    "  // k.vul.py:7\n"
    "  uint i = gl_GlobalInvocationID.x;\n"
    "  i = nope + 1u;\n"
    "}\n";

static void test_compile(unsigned vulkan, bool optimize) {
  vtg_options o = {0}; /* vtg_options_init lives in the registry library */
  o.vulkan = vulkan;
  o.optimize = optimize;
  vp_diags d = {0};
  uint32_t *w = NULL;
  size_t n = 0;
  CHECK(vtg_glsl_to_spirv(good, strlen(good), "good.glsl", &o, &w, &n, &d));
  CHECK(d.nerrors == 0);
  CHECK(n > 5 && w && w[0] == 0x07230203u);
  CHECK(vtg_spirv_validate(w, n, vulkan, &d));
  vp_strbuf s = {0};
  CHECK(vtg_spirv_disassemble(w, n, &s, &d));
  CHECK(s.data && strstr(s.data, "OpEntryPoint GLCompute"));
  CHECK(s.data && strstr(s.data, "SpecId 0"));
  vp_strbuf_free(&s);
  free(w);
  vp_diags_free(&d);
}

static void test_error_mapping(void) {
  vtg_options o = {0}; /* vtg_options_init lives in the registry library */
  vp_diags d = {0};
  uint32_t *w = NULL;
  size_t n = 0;
  CHECK(!vtg_glsl_to_spirv(bad, strlen(bad), "bad.glsl", &o, &w, &n, &d));
  CHECK(w == NULL && n == 0);
  CHECK(d.nerrors >= 1);
  char *text = vp_diags_format(&d, NULL);
  CHECK(text && strstr(text, "k.vul.py:7:0: error: internal error: the generated GLSL does not compile"));
  CHECK(text && strstr(text, "'nope' : undeclared identifier"));
  CHECK(text && strstr(text, "hint: bad.glsl:6: i = nope + 1u;"));
  if (check_failures)
    fprintf(stderr, "%s", text ? text : "(null)\n");
  free(text);
  vp_diags_free(&d);
}

static void test_invalid_binary(void) {
  uint32_t junk[8] = {0x07230203u, 0x00010500u, 0, 10, 0, 0xdeadbeefu, 0, 0};
  vp_diags d = {0};
  CHECK(!vtg_spirv_validate(junk, 8, 12, &d));
  CHECK(d.nerrors == 1);
  CHECK(strstr(d.items[0].message, "SPIR-V validation failed"));
  vp_diags_free(&d);
}

int main(void) {
  test_compile(0, false);
  test_compile(10, false);
  test_compile(11, true);
  test_compile(13, true);
  test_error_mapping();
  test_invalid_binary();
  if (check_failures) {
    fprintf(stderr, "%d failure(s)\n", check_failures);
    return 1;
  }
  printf("ok\n");
  return 0;
}
