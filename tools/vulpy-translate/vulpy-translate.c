/* vulpy-translate - Python AST JSON or VIR in, VIR / GLSL / SPIR-V / CUDA /
 * HIP / MSL / HLSL / manifest out.
 *
 *   vulpy-translate --from=ast|vir --to=TARGET [-O] [--fast-math]
 *                   [--local-size=X,Y,Z] [--kernel=NAME] [-o OUT] FILE|-
 *   vulpy-translate --from=vir --arrays [--no-fuse] [--cpu-device]
 *                   [--reduce-groups=N] --to=TARGET FILE|-
 *
 * --arrays compiles an array function the way vp.jit and the eager array
 * API do (vtg_compile_array: fuse, lower-arrays, every kernel in launch
 * order), so `vulpy-translate --from=vir --arrays --to=glsl` on a
 * JitFunction's .array_vir prints its .glsl.
 *
 * A thin driver: reading, the frontend, the passes and the emitters are
 * library calls; this file parses flags and shows diagnostics.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vulpy/ir.h"
#include "vulpy/passes.h"
#include "vulpy/frontend.h"
#include "vulpy/target.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: vulpy-translate --from=ast|vir --to=TARGET [options] FILE|-\n"
          "\n"
          "options:\n"
          "  --from=ast|vir        input: Python AST JSON (python -m vulpy dump-ast) or VIR\n"
          "  --to=TARGET           output (below)\n"
          "  -o OUT                write to OUT (required for binary targets)\n"
          "  -O                    optimize (SPIRV-Tools performance passes)\n"
          "  --fast-math           built-in transcendental functions instead of precise ones\n"
          "  --local-size=X,Y,Z    override the kernel's local size\n"
          "  --kernel=NAME         which kernel to translate\n"
          "  --no-dispatch-guard   (ast) do not add the dispatch=N guard\n"
          "  --debug-asserts       (ast) compile assert statements\n"
          "  --features=a,b|all    (targets) the device profile, e.g. --features=int64\n"
          "  --arrays              (vir) compile the array function as vp.jit does: fuse,\n"
          "                        lower-arrays, then every kernel in launch order\n"
          "                        (--to=vir prints the lowered module)\n"
          "  --no-fuse             (--arrays) one kernel per array op\n"
          "  --cpu-device          (--arrays) lower for a CPU device (lavapipe)\n"
          "  --reduce-groups=N     (--arrays) cap a full reduction's workgroups\n"
          "\n"
          "targets:\n"
          "  vir                   VIR text\n");
  size_t n;
  const vtg_target *t = vtg_target_table(&n);
  for (size_t i = 0; i < n; i++)
    fprintf(f, "  %-21s %s\n", t[i].name, t[i].summary);
}

static int show_diags(vp_diags *d, const char *source) {
  char *text = vp_diags_format(d, source);
  if (text)
    fputs(text, stderr);
  free(text);
  return d->nerrors ? 1 : 0;
}

static bool parse_u32_list(const char *s, uint32_t out[3]) {
  for (int i = 0; i < 3; i++) {
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (end == s || v == 0 || v > 65535)
      return false;
    out[i] = (uint32_t)v;
    if (*end == 0) {
      for (int j = i + 1; j < 3; j++)
        out[j] = 1;
      return true;
    }
    if (*end != ',')
      return false;
    s = end + 1;
  }
  return *s == 0;
}

/* --features=a,b|all as VP_FEAT bits; false after an unknown name. */
static bool parse_features(const char *features, uint32_t *bits) {
  *bits = ~0u;
  if (!features || strcmp(features, "all") == 0)
    return true;
  /* a named profile: only what is listed (the baseline needs nothing) */
  bool ok = true;
  *bits = 0;
  char *list = strdup(features);
  for (char *tok = list ? strtok(list, ",") : NULL; tok; tok = strtok(NULL, ",")) {
    int bit = vp_feature_lookup(tok);
    if (bit < 0) {
      fprintf(stderr, "vulpy-translate: error: unknown feature '%s'\n", tok);
      ok = false;
    } else {
      *bits |= 1u << bit;
    }
  }
  bool have = list != NULL;
  free(list);
  return ok && have;
}

/* --arrays: the array function compiled as vp.jit compiles it
 * (vtg_compile_array), then target `to` of every kernel in launch order
 * (or of --kernel), separated by blank lines as JitFunction.glsl joins
 * them; --to=vir prints the lowered module. */
static bool compile_arrays(vir_module *m, const char *to, const char *kernel, bool to_file,
                           bool fuse, bool fast_math, bool cpu_device, uint32_t reduce_groups,
                           const char *features, vp_strbuf *out, bool *binary, vp_diags *d) {
  const vtg_target *t = strcmp(to, "vir") == 0 ? NULL : vtg_target_lookup(to);
  if (strcmp(to, "vir") != 0 && !t) {
    fprintf(stderr, "vulpy-translate: error: unknown target '%s' (see --help)\n", to);
    return false;
  }
  vtg_array_options o;
  vtg_array_options_init(&o);
  o.fuse = fuse;
  o.targets = false; /* the chosen target is emitted below */
  o.pass.fast_math = fast_math;
  o.pass.cpu_device = cpu_device;
  o.pass.reduce_groups = reduce_groups;
  o.target.fast_math = fast_math;
  o.target.vulkan = 0; /* as vp.jit: the default (1.2) */
  if (!parse_features(features, &o.target.features))
    return false;
  /* the lowering works around what the profile lacks (subgroups, 8-bit) */
  o.pass.missing_features = ~o.target.features;
  vtg_array_result r;
  bool ok = vtg_compile_array(m, &o, &r, d);
  if (ok && !t) {
    vp_strbuf_append(out, r.lowered);
  } else if (ok) {
    const char *names[256];
    uint32_t n = 0;
    for (uint32_t i = 0; i < r.nlaunches && n < 256; i++) {
      bool seen = false;
      for (uint32_t j = 0; j < n; j++)
        seen = seen || strcmp(names[j], r.launches[i].kernel) == 0;
      if (!seen && (!kernel || strcmp(kernel, r.launches[i].kernel) == 0))
        names[n++] = r.launches[i].kernel;
    }
    if (kernel && n == 0) {
      fprintf(stderr, "vulpy-translate: error: no kernel '%s' among the lowered launches\n",
              kernel);
      ok = false;
    } else if (t->binary && (n != 1 || !to_file)) {
      fprintf(stderr, "vulpy-translate: error: --to=%s writes one kernel's bytes: give "
                      "--kernel=NAME (%u kernels) and -o FILE\n", to, n);
      ok = false;
    }
    *binary = t->binary;
    for (uint32_t i = 0; ok && i < n; i++) {
      vtg_options ko = o.target;
      ko.kernel = names[i];
      if (i)
        vp_strbuf_putc(out, '\n');
      ok = t->emit(m, &ko, out, d);
    }
  }
  vtg_array_result_free(&r);
  return ok;
}

int main(int argc, char **argv) {
  const char *from = NULL, *to = NULL, *out_path = NULL, *in_path = NULL, *kernel = NULL;
  const char *features = NULL;
  bool optimize = false, fast_math = false, guard = true, asserts = false;
  bool arrays = false, fuse = true, cpu_device = false;
  uint32_t reduce_groups = 0;
  uint32_t local_size[3] = {0, 0, 0};

  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return 0;
    } else if (strncmp(a, "--from=", 7) == 0) {
      from = a + 7;
    } else if (strncmp(a, "--to=", 5) == 0) {
      to = a + 5;
    } else if (strcmp(a, "-o") == 0 && i + 1 < argc) {
      out_path = argv[++i];
    } else if (strcmp(a, "-O") == 0) {
      optimize = true;
    } else if (strcmp(a, "--fast-math") == 0) {
      fast_math = true;
    } else if (strcmp(a, "--no-dispatch-guard") == 0) {
      guard = false;
    } else if (strcmp(a, "--debug-asserts") == 0) {
      asserts = true;
    } else if (strcmp(a, "--arrays") == 0) {
      arrays = true;
    } else if (strcmp(a, "--no-fuse") == 0) {
      fuse = false;
    } else if (strcmp(a, "--cpu-device") == 0) {
      cpu_device = true;
    } else if (strncmp(a, "--reduce-groups=", 16) == 0) {
      char *end;
      unsigned long v = strtoul(a + 16, &end, 10);
      if (*end || end == a + 16 || v == 0 || v > 32768 || !vir_reduce_groups_valid((uint32_t)v)) {
        fprintf(stderr, "vulpy-translate: error: --reduce-groups must be a power of two from 64 "
                        "to 32768, not '%s'\n", a + 16);
        return 2;
      }
      reduce_groups = (uint32_t)v;
    } else if (strncmp(a, "--kernel=", 9) == 0) {
      kernel = a + 9;
    } else if (strncmp(a, "--features=", 11) == 0) {
      features = a + 11;
    } else if (strncmp(a, "--local-size=", 13) == 0) {
      if (!parse_u32_list(a + 13, local_size)) {
        fprintf(stderr, "vulpy-translate: error: --local-size wants X[,Y[,Z]] with values 1..65535\n");
        return 2;
      }
    } else if (a[0] == '-' && a[1] != 0) {
      fprintf(stderr, "vulpy-translate: error: unknown option '%s' (see --help)\n", a);
      return 2;
    } else if (in_path) {
      fprintf(stderr, "vulpy-translate: error: more than one input file ('%s', '%s')\n", in_path, a);
      return 2;
    } else {
      in_path = a;
    }
  }
  /* Some options only matter to libraries this build may lack. */
  (void)optimize, (void)fast_math, (void)guard, (void)asserts, (void)kernel, (void)features;
  (void)fuse, (void)cpu_device, (void)reduce_groups;
  if (!in_path)
    in_path = "-";
  if (!from)
    from = strstr(in_path, ".json") ? "ast" : "vir";
  if (!to) {
    fprintf(stderr, "vulpy-translate: error: --to=TARGET is required (see --help)\n");
    return 2;
  }
  if (arrays && strcmp(from, "vir") != 0) {
    fprintf(stderr, "vulpy-translate: error: --arrays takes array VIR (--from=vir)\n");
    return 2;
  }

  size_t len;
  char *text = vp_read_file(in_path, &len);
  if (!text) {
    fprintf(stderr, "vulpy-translate: error: cannot read '%s': %s\n", in_path, strerror(errno));
    return 1;
  }
  const char *display = strcmp(in_path, "-") == 0 ? "<stdin>" : in_path;

  vp_diags diags = {0};
  vir_module *m = NULL;
  char *source = NULL; /* the Python source, for carets */
  if (strcmp(from, "vir") == 0) {
    m = vir_parse(text, len, display, &diags);
    if (m && !vir_verify(m, &diags)) {
      vir_module_destroy(m);
      m = NULL;
    }
    source = text;
    text = NULL;
  } else if (strcmp(from, "ast") == 0) {
    vfe_options fo;
    vfe_options_init(&fo);
    fo.kernel = kernel;
    memcpy(fo.local_size, local_size, sizeof local_size);
    fo.dispatch_guard = guard;
    fo.debug_asserts = asserts;
    m = vfe_translate_json(text, len, display, &fo, &source, &diags);
  } else {
    fprintf(stderr, "vulpy-translate: error: --from must be 'ast' or 'vir', not '%s'\n", from);
    free(text);
    return 2;
  }
  free(text);
  if (!m) {
    int rc = show_diags(&diags, source);
    free(source);
    vp_diags_free(&diags);
    return rc ? rc : 1;
  }
  if (diags.count)
    show_diags(&diags, source);
  vp_diags_clear(&diags);

  vp_strbuf out = {0};
  bool ok = true, binary = false;
  if (arrays) {
    ok = compile_arrays(m, to, kernel, out_path != NULL, fuse, fast_math, cpu_device,
                        reduce_groups, features, &out, &binary, &diags);
  } else if (strcmp(to, "vir") == 0) {
    vir_print(m, 0, &out);
  } else {
    /* back ends print kernel ops only: memsock.* and then persistent.* ops
     * are lowered first (no-ops for other modules), in the Python
     * compiler's order: a fire inside a persistent loop is lowered before
     * the loop becomes the grid-barrier protocol, with the grid barrier the
     * decorator names (barrier=, nonprivate=; the default otherwise) */
    ok = vir_run_pipeline(m, m->pipeline ? m->pipeline : VIR_BACKEND_PIPELINE, NULL, &diags) !=
         VIR_PASS_FAILURE;
    if (!ok)
      show_diags(&diags, source);
    const vtg_target *t = ok ? vtg_target_lookup(to) : NULL;
    if (!ok) {
      /* reported above */
    } else if (!t) {
      fprintf(stderr, "vulpy-translate: error: unknown target '%s' (see --help)\n", to);
      ok = false;
    } else if (t->binary && !out_path) {
      fprintf(stderr, "vulpy-translate: error: --to=%s writes binary output; give -o FILE\n", to);
      ok = false;
    } else {
      vtg_options to_opts;
      vtg_options_init(&to_opts);
      to_opts.kernel = kernel;
      to_opts.optimize = optimize;
      to_opts.fast_math = fast_math;
      memcpy(to_opts.local_size, local_size, sizeof local_size);
      if (features && strcmp(features, "all") != 0) {
        /* a named profile: only what is listed (the baseline needs nothing) */
        to_opts.features = 0;
        char *list = strdup(features);
        for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
          int bit = vp_feature_lookup(tok);
          if (bit < 0) {
            fprintf(stderr, "vulpy-translate: error: unknown feature '%s'\n", tok);
            ok = false;
          } else {
            to_opts.features |= 1u << bit;
          }
        }
        free(list);
      }
      binary = t->binary;
      /* back ends never see memsock.fire (docs/memsock.md) */
      if (ok)
        ok = vir_lower_memsock(m, NULL, &diags) != VIR_PASS_FAILURE;
      if (ok)
        ok = t->emit(m, &to_opts, &out, &diags);
    }
  }
  /* Back-end diagnostics point into the Python source: with VIR input the
   * text at hand is not that file, so no source lines are shown. */
  if (diags.count)
    show_diags(&diags, strcmp(from, "ast") == 0 ? source : NULL);

  int rc = ok && !out.oom ? 0 : 1;
  if (rc == 0) {
    FILE *f = out_path ? fopen(out_path, binary ? "wb" : "w") : stdout;
    if (!f) {
      fprintf(stderr, "vulpy-translate: error: cannot write '%s': %s\n", out_path, strerror(errno));
      rc = 1;
    } else {
      if (out.len && fwrite(out.data, 1, out.len, f) != out.len)
        rc = 1;
      if (f != stdout && fclose(f) != 0)
        rc = 1;
    }
  }
  vp_strbuf_free(&out);
  free(source);
  vp_diags_free(&diags);
  vir_module_destroy(m);
  return rc;
}
