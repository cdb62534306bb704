/* test_cross.c - SPIRV-Cross targets and the reflection of raw GLSL kernels
 * into manifests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../IR/check.h"

#include "vulpy/target.h"

static const char raw[] =
    "#version 450\n"
    "#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require\n"
    "layout(local_size_x = 64, local_size_y = 2) in;\n"
    "layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;\n"
    "struct Particle { vec3 pos; float mass; };\n"
    "layout(std430, set = 0, binding = 1) readonly buffer parts_buf { Particle parts[]; };\n"
    "layout(std430, set = 0, binding = 0) buffer out_buf { double out_[]; };\n"
    "layout(std430, set = 1, binding = 0) buffer Counters { uint64_t hits; uint64_t misses; } counters;\n"
    "layout(push_constant) uniform PC { uint n; float dt; uvec3 _vp_count; } pc;\n"
    "shared float tile[128];\n"
    "void main() {\n"
    "  uint i = gl_GlobalInvocationID.x;\n"
    "  tile[gl_LocalInvocationIndex] = parts[i].mass;\n"
    "  barrier();\n"
    "  if (i < pc.n) out_[i] = double(tile[0] * pc.dt);\n"
    "  counters.hits += 1ul;\n"
    "}\n";

static uint32_t *compile(const char *src, size_t *n) {
  vtg_options o = {0};
  vp_diags d = {0};
  uint32_t *w = NULL;
  if (!vtg_glsl_to_spirv(src, strlen(src), "raw.comp", &o, &w, n, &d)) {
    char *t = vp_diags_format(&d, NULL);
    fprintf(stderr, "%s", t ? t : "");
    free(t);
  }
  vp_diags_free(&d);
  return w;
}

static void test_reflect(void) {
  size_t n;
  uint32_t *w = compile(raw, &n);
  CHECK(w);
  if (!w)
    return;
  vp_diags d = {0};
  vpm_manifest *m = vtg_reflect_spirv(w, n, &d);
  CHECK(m && d.nerrors == 0);
  if (m) {
    CHECK(strcmp(m->entry_point, "main") == 0);
    CHECK(m->local_size[0] == 64 && m->local_size[1] == 2 && m->local_size[2] == 1);
    CHECK(m->nbuffers == 3);
    /* (set, binding) order */
    CHECK(strcmp(m->buffers[0].name, "out_") == 0 && m->buffers[0].binding == 0);
    CHECK(strcmp(m->buffers[0].type, "f64") == 0 && m->buffers[0].elem_size == 8);
    CHECK(m->buffers[0].access == VPM_READWRITE);
    CHECK(strcmp(m->buffers[1].name, "parts") == 0 && m->buffers[1].binding == 1);
    CHECK(strcmp(m->buffers[1].type, "@Particle") == 0 && m->buffers[1].elem_size == 16);
    CHECK(m->buffers[1].access == VPM_READONLY);
    CHECK(strcmp(m->buffers[2].name, "counters") == 0 && m->buffers[2].set == 1);
    CHECK(strcmp(m->buffers[2].type, "@Counters") == 0 && m->buffers[2].elem_size == 16);
    CHECK(m->npush == 3 && m->push_size == 28);
    CHECK(m->npush == 3 && strcmp(m->push[1].name, "dt") == 0 && m->push[1].offset == 4);
    CHECK(m->npush == 3 && strcmp(m->push[2].type, "vec3<u32>") == 0 && m->push[2].offset == 16);
    CHECK(m->dispatch_guard && strcmp(m->dispatch_guard, "_vp_count") == 0);
    CHECK(m->shared_bytes == 512);
    CHECK(m->features & VP_FEAT(FLOAT64));
    CHECK(m->features & VP_FEAT(INT64));
    int p = -1;
    for (uint32_t i = 0; i < m->nstructs; i++)
      if (strcmp(m->structs[i].name, "Particle") == 0)
        p = (int)i;
    CHECK(p >= 0 && m->structs[p].nfields == 2 && m->structs[p].fields[1].offset == 12);
    char *y = vpm_emit(m);
    CHECK(y && strstr(y, "local_size: [64, 2, 1]"));
    free(y);
  }
  vpm_free(m);

  /* Metal has no doubles: a clear error naming the problem */
  {
    vp_strbuf s = {0};
    CHECK(!vtg_spirv_cross(w, n, VTG_CROSS_MSL, &s, &d));
    CHECK(d.nerrors == 1 && strstr(d.items[0].message, "cannot express this module in MSL: double"));
    vp_strbuf_free(&s);
    vp_diags_clear(&d);
  }
  for (int lang = 1; lang < 3; lang++) {
    vp_strbuf s = {0};
    CHECK(vtg_spirv_cross(w, n, (vtg_cross_lang)lang, &s, &d));
    const char *want = lang == VTG_CROSS_MSL ? "kernel void" : lang == VTG_CROSS_HLSL ? "[numthreads(" : "#version 450";
    CHECK(s.data && strstr(s.data, want));
    if (d.nerrors) {
      char *t = vp_diags_format(&d, NULL);
      fprintf(stderr, "%s", t ? t : "");
      free(t);
      vp_diags_clear(&d);
    }
    vp_strbuf_free(&s);
  }
  CHECK(d.nerrors == 0);
  vp_diags_free(&d);
  free(w);
}

static const char plain[] =
    "#version 450\n"
    "layout(local_size_x = 32) in;\n"
    "layout(std430, binding = 0) buffer x_buf { float x[]; };\n"
    "void main() { x[gl_GlobalInvocationID.x] *= 2.0; }\n";

static void test_msl(void) {
  size_t n;
  uint32_t *w = compile(plain, &n);
  vp_diags d = {0};
  vp_strbuf s = {0};
  CHECK(w && vtg_spirv_cross(w, n, VTG_CROSS_MSL, &s, &d));
  CHECK(s.data && strstr(s.data, "kernel void main0(device x_buf& _"));
  vp_strbuf_free(&s);
  vp_diags_free(&d);
  free(w);
}

static void test_bad_module(void) {
  uint32_t junk[6] = {1, 2, 3, 4, 5, 6};
  vp_diags d = {0};
  CHECK(vtg_reflect_spirv(junk, 6, &d) == NULL);
  CHECK(d.nerrors == 1 && strstr(d.items[0].message, "not a SPIR-V module"));
  vp_diags_free(&d);
}

/* Inputs fuzz_spirv_reflect found (test/fuzz/corpus/fuzz_spirv_reflect):
 * each is an error, not an allocation of gigabytes, a read past the words
 * or a manifest that does not read back. */
static uint32_t *read_words(const char *name, size_t *n) {
  char path[1024];
  snprintf(path, sizeof path, "%s/test/fuzz/corpus/fuzz_spirv_reflect/%s", VULPY_SOURCE_DIR, name);
  size_t len = 0;
  char *bytes = vp_read_file(path, &len);
  CHECK(bytes != NULL);
  *n = len / 4;
  uint32_t *w = malloc(*n * 4 + 4);
  if (bytes && w)
    memcpy(w, bytes, *n * 4);
  free(bytes);
  return w;
}

static void test_fuzzed(void) {
  static const struct {
    const char *file, *error;
  } cases[] = {
      /* a runtime array without ArrayStride: the validator refuses it (it
       * reflected as elem_size 0, which the manifest reader rejects) */
      {"regress-no-array-stride.spv", "invalid SPIR-V: "},
      /* an id bound of 0xb4000000-ish: SPIRV-Cross allocated it */
      {"regress-huge-id-bound.spv", "invalid SPIR-V: "},
      /* the word scan's own tables were as big as the id bound */
      {"regress-scan-huge-bound.spv", "malformed SPIR-V: id bound"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t n;
    uint32_t *w = read_words(cases[i].file, &n);
    vp_diags d = {0};
    vpm_manifest *m = w ? vtg_reflect_spirv(w, n, &d) : NULL;
    CHECK(m == NULL);
    CHECK(d.nerrors >= 1 && strstr(d.items[0].message, cases[i].error));
    if (d.count && !strstr(d.items[0].message, cases[i].error))
      fprintf(stderr, "%s: %s\n", cases[i].file, d.items[0].message);
    vpm_free(m);
    vp_diags_free(&d);
    free(w);
  }
}

int main(void) {
  test_reflect();
  test_msl();
  test_bad_module();
  test_fuzzed();
  if (check_failures) {
    fprintf(stderr, "%d failure(s)\n", check_failures);
    return 1;
  }
  printf("ok\n");
  return 0;
}
