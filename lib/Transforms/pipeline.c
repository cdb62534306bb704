/* pipeline.c - the pass registry (from passes.def) and the pipeline runner.
 *
 * A pipeline is a comma-separated list of pass names. Every name is looked
 * up before anything runs, so a typo changes nothing. With verify_each the
 * verifier runs after every pass and the pipeline stops at the first pass
 * that leaves the module broken, naming it.
 */
#include <string.h>

#include "vulpy/passes.h"

static const vir_pass_info passes[] = {
#define VIR_PASS(FN, NAME, SUMMARY) {NAME, SUMMARY, FN},
#include "vulpy/passes.def"
#undef VIR_PASS
};

const vir_pass_info *vir_pass_table(size_t *count) {
  *count = sizeof passes / sizeof passes[0];
  return passes;
}

static const vir_pass_info *lookup(const char *name, size_t len) {
  for (size_t i = 0; i < sizeof passes / sizeof passes[0]; i++)
    if (strlen(passes[i].name) == len && memcmp(passes[i].name, name, len) == 0)
      return &passes[i];
  return NULL;
}

const vir_pass_info *vir_pass_lookup(const char *name) { return lookup(name, strlen(name)); }

enum { MAX_PIPELINE = 256 };

vir_pass_result vir_run_pipeline(vir_module *m, const char *pipeline,
                                 const vir_pipeline_options *opts, vp_diags *diags) {
  static const vir_pipeline_options defaults;
  if (!opts)
    opts = &defaults;
  const vir_pass_info *list[MAX_PIPELINE];
  size_t n = 0;
  bool bad = false;
  for (const char *s = pipeline ? pipeline : ""; *s;) {
    const char *e = strchr(s, ',');
    size_t len = e ? (size_t)(e - s) : strlen(s);
    while (len && s[0] == ' ')
      s++, len--;
    while (len && s[len - 1] == ' ')
      len--;
    if (len) {
      const vir_pass_info *p = lookup(s, len);
      if (!p) {
        vp_error(diags, (vp_loc){0}, "unknown pass '%.*s'", (int)len, s);
        bad = true;
      } else if (n == MAX_PIPELINE) {
        vp_error(diags, (vp_loc){0}, "pipeline longer than %d passes", MAX_PIPELINE);
        return VIR_PASS_FAILURE;
      } else {
        list[n++] = p;
      }
    }
    s = e ? e + 1 : s + len;
  }
  if (bad)
    return VIR_PASS_FAILURE;
  bool changed = false;
  for (size_t i = 0; i < n; i++) {
    vir_pass_result r = list[i]->run(m, &opts->pass, diags);
    if (r == VIR_PASS_FAILURE)
      return r;
    changed |= r == VIR_PASS_CHANGED;
    if (opts->after_pass)
      opts->after_pass(list[i], m, opts->ctx);
    if (opts->verify_each && !vir_verify(m, diags)) {
      vp_error(diags, (vp_loc){0}, "the module does not verify after pass '%s'", list[i]->name);
      return VIR_PASS_FAILURE;
    }
  }
  return changed ? VIR_PASS_CHANGED : VIR_PASS_UNCHANGED;
}
