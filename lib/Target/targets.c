/* targets.c - the back ends, looked up by name (`--to=NAME`).
 *
 * Each entry is a name, a line for --help and an emitter. The emitters for
 * SPIR-V, SPIRV-Cross and the manifest are here: they chain the libraries
 * (VIR -> GLSL -> SPIR-V -> MSL/HLSL/GLSL).
 */
#include <stdlib.h>
#include <string.h>

#include "vulpy/target.h"

void vtg_options_init(vtg_options *o) {
  memset(o, 0, sizeof *o);
  o->features = ~0u;
  o->vulkan = 12;
}

/* The GLSL of the kernel, compiled, validated (and optimized on -O). The
 * GLSL is named after the source file in diagnostics. */
static bool to_words(const vir_module *m, const vtg_options *o, uint32_t **w, size_t *n, vp_diags *d) {
  vp_strbuf glsl = {0};
  bool ok = vtg_emit_glsl(m, o, &glsl, d);
  if (ok) {
    vp_strbuf name = {0};
    vp_strbuf_printf(&name, "%s.glsl", m->source_name ? m->source_name : "kernel");
    ok = vtg_glsl_to_spirv(glsl.data, glsl.len, name.data, o, w, n, d);
    vp_strbuf_free(&name);
  }
  vp_strbuf_free(&glsl);
  return ok;
}

bool vtg_emit_spirv(const vir_module *m, const vtg_options *o, vp_strbuf *out, vp_diags *d) {
  uint32_t *w;
  size_t n;
  if (!to_words(m, o, &w, &n, d))
    return false;
  vp_strbuf_appendn(out, (const char *)w, n * sizeof *w);
  free(w);
  return true;
}

static bool emit_spirv_asm(const vir_module *m, const vtg_options *o, vp_strbuf *out, vp_diags *d) {
  uint32_t *w;
  size_t n;
  if (!to_words(m, o, &w, &n, d))
    return false;
  bool ok = vtg_spirv_disassemble(w, n, out, d);
  free(w);
  return ok;
}

static bool emit_cross(const vir_module *m, const vtg_options *o, vp_strbuf *out, vp_diags *d,
                       vtg_cross_lang lang) {
  uint32_t *w;
  size_t n;
  if (!to_words(m, o, &w, &n, d))
    return false;
  bool ok = vtg_spirv_cross(w, n, lang, out, d);
  free(w);
  return ok;
}

static bool emit_msl(const vir_module *m, const vtg_options *o, vp_strbuf *out, vp_diags *d) {
  return emit_cross(m, o, out, d, VTG_CROSS_MSL);
}
static bool emit_hlsl(const vir_module *m, const vtg_options *o, vp_strbuf *out, vp_diags *d) {
  return emit_cross(m, o, out, d, VTG_CROSS_HLSL);
}
static bool emit_glsl_cross(const vir_module *m, const vtg_options *o, vp_strbuf *out, vp_diags *d) {
  return emit_cross(m, o, out, d, VTG_CROSS_GLSL);
}

static bool emit_manifest(const vir_module *m, const vtg_options *o, vp_strbuf *out, vp_diags *d) {
  vpm_manifest *mf = vtg_manifest_from_vir(m, o, d);
  if (!mf)
    return false;
  char *text = vpm_emit(mf);
  vpm_free(mf);
  if (!text) {
    vp_loc l = {m->source_name, 0, 0};
    vp_error(d, l, "out of memory while writing the manifest");
    return false;
  }
  vp_strbuf_append(out, text);
  free(text);
  return true;
}

static const vtg_target targets[] = {
    {"glsl", "readable GLSL 450 compute shader", false, vtg_emit_glsl},
    {"spirv", "SPIR-V binary (glslang in-process, validated; -O optimizes)", true, vtg_emit_spirv},
    {"spirv-asm", "SPIR-V, disassembled", false, emit_spirv_asm},
    {"cuda", "CUDA C++ (nvcc, no other header)", false, vtg_emit_cuda},
    {"hip", "HIP C++ (hipcc, no other header)", false, vtg_emit_hip},
    {"msl", "Metal Shading Language (SPIRV-Cross)", false, emit_msl},
    {"hlsl", "HLSL, shader model 6.0 (SPIRV-Cross)", false, emit_hlsl},
    {"glsl-cross", "GLSL from the SPIR-V (SPIRV-Cross)", false, emit_glsl_cross},
    {"manifest", "the kernel's interface as YAML (docs/manifest.md)", false, emit_manifest},
};

const vtg_target *vtg_target_table(size_t *count) {
  *count = sizeof targets / sizeof targets[0];
  return targets;
}

const vtg_target *vtg_target_lookup(const char *name) {
  for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
    if (strcmp(targets[i].name, name) == 0)
      return &targets[i];
  return NULL;
}
