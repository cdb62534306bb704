/* spirv.c - GLSL compute source to validated SPIR-V, in-process.
 *
 * glslang's C interface parses and links the GLSL and generates SPIR-V
 * (its own optimizer stays off: SPIRV-Tools' optimizer runs instead, and
 * only when asked). Every module then goes through SPIRV-Tools' validator
 * for the target environment before anyone sees it; an optimized module is
 * validated a second time.
 *
 * The GLSL is ours (the C-family printer's), so a glslang error is a VulPy
 * bug. It is reported at the Python line named by the nearest `// file:line`
 * comment above the failing GLSL line, with the GLSL line in the hint, so
 * that a bug report says both what the user wrote and what we printed.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glslang/Include/glslang_c_interface.h>
#include <glslang/Public/resource_limits_c.h>

#include "spirv_internal.h" /* libspirv.h, with its one definition renamed */
#include "vulpy/target.h"

/* glslang keeps process-wide tables that glslang_initialize_process builds;
 * it must run once before the first shader. A once-flag is the only state
 * this library keeps outside its callers' objects. The process is never
 * finalized: a long-running Python process may compile again at any time. */
static pthread_once_t glslang_once = PTHREAD_ONCE_INIT;
static void glslang_init(void) { glslang_initialize_process(); }

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Vulkan version (major*10+minor) to the SPIRV-Tools environment. */
spv_target_env vtg_spirv_env(unsigned vulkan) {
  switch (vulkan) {
  case 10: return SPV_ENV_VULKAN_1_0;
  case 11: return SPV_ENV_VULKAN_1_1;
  case 13: return SPV_ENV_VULKAN_1_3;
  default: return SPV_ENV_VULKAN_1_2;
  }
}

static void glslang_versions(unsigned vulkan, glslang_target_client_version_t *client,
                             glslang_target_language_version_t *spv) {
  switch (vulkan) {
  case 10: *client = GLSLANG_TARGET_VULKAN_1_0; *spv = GLSLANG_TARGET_SPV_1_0; break;
  case 11: *client = GLSLANG_TARGET_VULKAN_1_1; *spv = GLSLANG_TARGET_SPV_1_3; break;
  case 13: *client = GLSLANG_TARGET_VULKAN_1_3; *spv = GLSLANG_TARGET_SPV_1_6; break;
  default: *client = GLSLANG_TARGET_VULKAN_1_2; *spv = GLSLANG_TARGET_SPV_1_5; break;
  }
}

/* ------------------------------------------------------ error mapping */

static vp_loc loc_at(const char *file, uint32_t line) {
  vp_loc l = {file, line, 0};
  return l;
}

/* The text of 1-based line `n` of `s` (length in *len), or NULL. */
static const char *line_of(const char *s, size_t slen, unsigned n, size_t *len) {
  const char *p = s, *end = s + slen;
  for (unsigned i = 1; i < n && p < end; i++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl)
      return NULL;
    p = nl + 1;
  }
  if (p >= end)
    return NULL;
  const char *nl = memchr(p, '\n', (size_t)(end - p));
  *len = nl ? (size_t)(nl - p) : (size_t)(end - p);
  return p;
}

/* Finds the nearest `// FILE:LINE` comment at or above GLSL line `n` and
 * returns its location; the file name is copied into `file` (cap bytes). */
static vp_loc source_loc_above(const char *glsl, size_t len, unsigned n, char *file, size_t cap) {
  vp_loc loc = {0};
  for (unsigned l = n; l >= 1; l--) {
    size_t ll;
    const char *t = line_of(glsl, len, l, &ll);
    if (!t)
      continue;
    while (ll && (*t == ' ' || *t == '\t'))
      t++, ll--;
    if (ll < 4 || t[0] != '/' || t[1] != '/' || t[2] != ' ')
      continue;
    /* "// name.vul.py:12" possibly followed by more text */
    const char *s = t + 3, *e = t + ll;
    const char *colon = NULL;
    for (const char *q = s; q < e && *q != ' '; q++)
      if (*q == ':')
        colon = q;
    if (!colon || colon + 1 >= e || colon[1] < '0' || colon[1] > '9')
      continue;
    size_t fl = (size_t)(colon - s);
    if (fl == 0 || fl + 1 > cap)
      continue;
    memcpy(file, s, fl);
    file[fl] = 0;
    loc.file = file;
    loc.line = (uint32_t)strtoul(colon + 1, NULL, 10);
    return loc;
  }
  return loc;
}

/* glslang logs lines like "ERROR: 0:12: 'x' : undeclared identifier".
 * Each becomes one diagnostic. */
static void report_glslang_log(const char *log, const char *glsl, size_t glsl_len,
                               const char *name, vp_diags *d) {
  bool any = false;
  const char *p = log ? log : "";
  while (*p) {
    const char *nl = strchr(p, '\n');
    size_t ll = nl ? (size_t)(nl - p) : strlen(p);
    if (ll > 7 && strncmp(p, "ERROR: ", 7) == 0) {
      const char *q = p + 7;
      unsigned gline = 0;
      /* "0:12: " = string number, line */
      const char *c1 = memchr(q, ':', ll - 7);
      if (c1 && c1[1] >= '0' && c1[1] <= '9')
        gline = (unsigned)strtoul(c1 + 1, NULL, 10);
      const char *msg = q;
      if (gline) {
        const char *c2 = strchr(c1 + 1, ':');
        if (c2 && c2 < p + ll)
          msg = c2 + 1;
      }
      while (*msg == ' ')
        msg++;
      int mlen = (int)(p + ll - msg);
      /* glslang's closing lines say nothing about the error itself */
      bool noise = false;
      static const char *const closing[] = {"compilation terminated", "compilation errors.  No code generated"};
      for (unsigned k = 0; k < 2; k++) {
        const char *hit = strstr(msg, closing[k]);
        if (hit && hit < p + ll)
          noise = true;
      }
      if (mlen > 0 && !noise) {
        char file[256];
        vp_loc src = gline ? source_loc_above(glsl, glsl_len, gline, file, sizeof file)
                           : loc_at(NULL, 0);
        vp_loc at = src.file ? src : loc_at(name, gline);
        vp_error(d, at, "internal error: the generated GLSL does not compile (a VulPy bug): %.*s",
                 mlen, msg);
        size_t gl;
        const char *gtext = gline ? line_of(glsl, glsl_len, gline, &gl) : NULL;
        if (gtext) {
          while (gl && (*gtext == ' ' || *gtext == '\t'))
            gtext++, gl--;
          vp_diag_hint(d, "%s:%u: %.*s", name, gline, (int)gl, gtext);
        }
        any = true;
      }
    }
    if (!nl)
      break;
    p = nl + 1;
  }
  if (!any)
    vp_error(d, loc_at(name, 0), "internal error: glslang failed: %s", log && *log ? log : "(no log)");
}

/* --------------------------------------------------------- compiling */

bool vtg_glsl_to_spirv(const char *glsl, size_t len, const char *name, const vtg_options *o,
                       uint32_t **words, size_t *nwords, vp_diags *d) {
  *words = NULL;
  *nwords = 0;
  if (!name)
    name = "<glsl>";
  unsigned vulkan = o ? o->vulkan : 0;
  pthread_once(&glslang_once, glslang_init);

  /* glslang wants a NUL-terminated string. */
  char *code = malloc(len + 1);
  if (!code) {
    vp_error(d, loc_at(name, 0), "out of memory");
    return false;
  }
  memcpy(code, glsl, len);
  code[len] = 0;

  glslang_input_t in = {0};
  in.language = GLSLANG_SOURCE_GLSL;
  in.stage = GLSLANG_STAGE_COMPUTE;
  in.client = GLSLANG_CLIENT_VULKAN;
  glslang_versions(vulkan, &in.client_version, &in.target_language_version);
  in.target_language = GLSLANG_TARGET_SPV;
  in.code = code;
  in.default_version = 450;
  in.default_profile = GLSLANG_NO_PROFILE;
  in.messages = GLSLANG_MSG_SPV_RULES_BIT | GLSLANG_MSG_VULKAN_RULES_BIT;
  in.resource = glslang_default_resource();

  vtg_timings *tm = o ? o->timings : NULL;
  double t0 = now_ms();
  bool ok = false;
  glslang_program_t *prog = NULL;
  glslang_shader_t *sh = glslang_shader_create(&in);
  if (!sh) {
    vp_error(d, loc_at(name, 0), "internal error: glslang could not create a shader");
    goto done;
  }
  if (!glslang_shader_preprocess(sh, &in) || !glslang_shader_parse(sh, &in)) {
    report_glslang_log(glslang_shader_get_info_log(sh), code, len, name, d);
    goto done;
  }
  prog = glslang_program_create();
  glslang_program_add_shader(prog, sh);
  if (!glslang_program_link(prog, in.messages)) {
    report_glslang_log(glslang_program_get_info_log(prog), code, len, name, d);
    goto done;
  }
  glslang_spv_options_t spv = {0};
  spv.disable_optimizer = true; /* SPIRV-Tools' optimizer runs on request instead */
  spv.validate = false;         /* we validate below, with diagnostics as data */
  glslang_program_SPIRV_generate_with_options(prog, GLSLANG_STAGE_COMPUTE, &spv);
  const char *msgs = glslang_program_SPIRV_get_messages(prog);
  if (msgs && *msgs)
    vp_diag_add(d, VP_WARNING, loc_at(name, 0), "glslang: %s", msgs);
  size_t n = glslang_program_SPIRV_get_size(prog);
  uint32_t *w = malloc(n * sizeof *w);
  if (!w) {
    vp_error(d, loc_at(name, 0), "out of memory");
    goto done;
  }
  glslang_program_SPIRV_get(prog, w);
  double t1 = now_ms();
  if (tm)
    tm->glslang_ms += t1 - t0;

  bool valid = vtg_spirv_validate(w, n, vulkan, d);
  double t2 = now_ms();
  if (tm)
    tm->validate_ms += t2 - t1;
  if (!valid) {
    free(w);
    goto done;
  }
  if (o && o->optimize) {
    uint32_t *ow;
    size_t on;
    bool optimized = vtg_spirv_optimize(w, n, vulkan, &ow, &on, d);
    double t3 = now_ms();
    if (tm)
      tm->optimize_ms += t3 - t2;
    if (!optimized) {
      free(w);
      goto done;
    }
    free(w);
    w = ow;
    n = on;
    valid = vtg_spirv_validate(w, n, vulkan, d);
    if (tm)
      tm->validate_ms += now_ms() - t3;
    if (!valid) {
      free(w);
      goto done;
    }
  }
  *words = w;
  *nwords = n;
  ok = true;

done:
  if (prog)
    glslang_program_delete(prog);
  if (sh)
    glslang_shader_delete(sh);
  free(code);
  return ok;
}

/* -------------------------------------------------------- validation */

bool vtg_spirv_validate(const uint32_t *words, size_t nwords, unsigned vulkan, vp_diags *d) {
  spv_context ctx = spvContextCreate(vtg_spirv_env(vulkan));
  spv_validator_options vo = spvValidatorOptionsCreate();
  if (!ctx || !vo) {
    if (ctx)
      spvContextDestroy(ctx);
    if (vo)
      spvValidatorOptionsDestroy(vo);
    vp_error(d, loc_at("<spirv>", 0), "out of memory");
    return false;
  }
  /* 8/16-bit storage members and vec3 in std430 blocks are legal Vulkan. */
  spv_const_binary_t bin = {words, nwords};
  spv_diagnostic diag = NULL;
  spv_result_t r = spvValidateWithOptions(ctx, vo, &bin, &diag);
  bool ok = r == SPV_SUCCESS;
  if (!ok)
    vp_error(d, loc_at("<spirv>", 0), "internal error: SPIR-V validation failed (a VulPy bug): %s",
             diag && diag->error ? diag->error : "(no message)");
  spvDiagnosticDestroy(diag);
  spvValidatorOptionsDestroy(vo);
  spvContextDestroy(ctx);
  return ok;
}

/* ------------------------------------------------------- disassembly */

bool vtg_spirv_disassemble(const uint32_t *words, size_t nwords, vp_strbuf *out, vp_diags *d) {
  /* The newest environment reads every older module. */
  spv_context ctx = spvContextCreate(SPV_ENV_UNIVERSAL_1_6);
  spv_text text = NULL;
  spv_diagnostic diag = NULL;
  spv_result_t r = spvBinaryToText(ctx, words, nwords,
                                   SPV_BINARY_TO_TEXT_OPTION_INDENT |
                                       SPV_BINARY_TO_TEXT_OPTION_FRIENDLY_NAMES |
                                       SPV_BINARY_TO_TEXT_OPTION_COMMENT,
                                   &text, &diag);
  bool ok = r == SPV_SUCCESS;
  if (ok)
    vp_strbuf_appendn(out, text->str, text->length);
  else
    vp_error(d, loc_at("<spirv>", 0), "cannot disassemble SPIR-V: %s",
             diag && diag->error ? diag->error : "(no message)");
  spvTextDestroy(text);
  spvDiagnosticDestroy(diag);
  spvContextDestroy(ctx);
  return ok;
}
