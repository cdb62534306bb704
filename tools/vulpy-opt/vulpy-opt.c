/* vulpy-opt - reads VIR, verifies it, runs passes, verifies again, prints.
 *
 *   vulpy-opt [--PASS ...] [--pass-pipeline=a,b] [--verify-each]
 *             [--print-after-all] [--no-locs] [--split-input-file] [-o OUT] FILE|-
 *
 * A thin driver over vir_parse / vir_verify / vir_run_pipeline / vir_print:
 * this file only turns flags into a pipeline string and shows diagnostics.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vulpy/ir.h"
#include "vulpy/passes.h"

static void usage(FILE *f) {
  fprintf(f,
          "usage: vulpy-opt [options] [--PASS ...] FILE|-\n"
          "\n"
          "Reads VIR text, verifies it, runs the passes in the order given, verifies\n"
          "the result and prints it.\n"
          "\n"
          "options:\n"
          "  --pass-pipeline=a,b   run these passes (after any --PASS flags before it)\n"
          "  --verify-each         verify after every pass\n"
          "  --print-after-all     print the module to stderr after every pass\n"
          "  --no-locs             leave loc(...) out of the output\n"
          "  --split-input-file    treat each '// -----' section as its own module\n"
          "  --features            print the device features the module needs, not the module\n"
          "  --device-lacks=a,b    device features the passes must do without (lower-arrays:\n"
          "                        subgroup_arithmetic, subgroup_vote, storage8, int8, ...)\n"
          "  --cpu-device          lower-arrays targets a CPU device (eager selects, vec4 only\n"
          "                        for kernels without costly math)\n"
          "  --reduce-groups=N     lower-arrays caps a full reduction at N workgroups (a power\n"
          "                        of two, 64..32768; default %u, %u on a CPU device)\n"
          "  -o OUT                write to OUT instead of standard output\n"
          "  -h, --help            this text\n"
          "\n"
          "passes:\n",
          VIR_REDUCE_GROUPS_GPU, VIR_REDUCE_GROUPS_CPU);
  size_t n;
  const vir_pass_info *p = vir_pass_table(&n);
  for (size_t i = 0; i < n; i++)
    fprintf(f, "  --%-20s %s\n", p[i].name, p[i].summary);
}

typedef struct options {
  vp_strbuf pipeline;
  bool verify_each, print_after_all, no_locs, split, features, cpu_device;
  uint32_t lacks;         /* VP_FEAT bits (--device-lacks) */
  uint32_t reduce_groups; /* --reduce-groups; 0: the default */
} options;

static void show_diags(vp_diags *d, const char *source) {
  char *text = vp_diags_format(d, source);
  if (text)
    fputs(text, stderr);
  free(text);
}

static void dump_after(const vir_pass_info *pass, const vir_module *m, void *ctx) {
  const options *o = ctx;
  vp_strbuf b = {0};
  vir_print(m, o->no_locs ? VIR_PRINT_NO_LOCS : 0, &b);
  fprintf(stderr, "// -----// IR Dump After %s //----- //\n%s\n", pass->name, b.data ? b.data : "");
  vp_strbuf_free(&b);
}

/* One module: parse, verify, passes, verify, print into `out`. */
static bool process(const char *text, size_t len, const char *name, const char *source,
                    const options *o, vp_strbuf *out) {
  vp_diags diags = {0};
  vir_module *m = vir_parse(text, len, name, &diags);
  bool ok = m && vir_verify(m, &diags);
  if (ok && o->pipeline.len) {
    vir_pipeline_options po = {.verify_each = o->verify_each, .ctx = (void *)o};
    po.pass.missing_features = o->lacks;
    po.pass.cpu_device = o->cpu_device;
    po.pass.reduce_groups = o->reduce_groups;
    if (o->print_after_all)
      po.after_pass = dump_after;
    ok = vir_run_pipeline(m, o->pipeline.data, &po, &diags) != VIR_PASS_FAILURE &&
         vir_verify(m, &diags);
  }
  if (ok && o->features) {
    uint32_t f = vir_module_features(m);
    for (unsigned i = 0; i < VP_FEATURE_COUNT; i++)
      if (f & (1u << i))
        vp_strbuf_printf(out, "%s\n", vp_feature_name(i));
  } else if (ok) {
    vir_print(m, o->no_locs ? VIR_PRINT_NO_LOCS : 0, out);
  }
  show_diags(&diags, source);
  vp_diags_free(&diags);
  vir_module_destroy(m);
  return ok;
}

static bool is_split_line(const char *s, const char *end) {
  while (s < end && (*s == ' ' || *s == '\t'))
    s++;
  return (size_t)(end - s) >= 8 && strncmp(s, "// -----", 8) == 0;
}

int main(int argc, char **argv) {
  options o = {0};
  const char *in_path = NULL, *out_path = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(a, "-o") == 0 && i + 1 < argc) {
      out_path = argv[++i];
    } else if (strncmp(a, "--pass-pipeline=", 16) == 0) {
      if (o.pipeline.len)
        vp_strbuf_putc(&o.pipeline, ',');
      vp_strbuf_append(&o.pipeline, a + 16);
    } else if (strcmp(a, "--verify-each") == 0) {
      o.verify_each = true;
    } else if (strcmp(a, "--print-after-all") == 0) {
      o.print_after_all = true;
    } else if (strcmp(a, "--no-locs") == 0) {
      o.no_locs = true;
    } else if (strcmp(a, "--split-input-file") == 0) {
      o.split = true;
    } else if (strcmp(a, "--features") == 0) {
      o.features = true;
    } else if (strcmp(a, "--cpu-device") == 0) {
      o.cpu_device = true;
    } else if (strncmp(a, "--reduce-groups=", 16) == 0) {
      char *end;
      unsigned long v = strtoul(a + 16, &end, 10);
      if (*end || end == a + 16 || v == 0 || v > 32768 || !vir_reduce_groups_valid((uint32_t)v)) {
        fprintf(stderr,
                "vulpy-opt: error: --reduce-groups must be a power of two from 64 to 32768, "
                "not '%s'\n",
                a + 16);
        return 2;
      }
      o.reduce_groups = (uint32_t)v;
    } else if (strncmp(a, "--device-lacks=", 15) == 0) {
      for (const char *s = a + 15; *s;) {
        const char *e = strchr(s, ',');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        char name[64];
        int bit = -1;
        if (n < sizeof name) {
          memcpy(name, s, n);
          name[n] = 0;
          bit = vp_feature_lookup(name);
        }
        if (bit < 0) {
          fprintf(stderr, "vulpy-opt: error: unknown device feature '%.*s'\n", (int)n, s);
          return 2;
        }
        o.lacks |= 1u << bit;
        s = e ? e + 1 : s + n;
      }
    } else if (strncmp(a, "--", 2) == 0 && a[2] && vir_pass_lookup(a + 2)) {
      if (o.pipeline.len)
        vp_strbuf_putc(&o.pipeline, ',');
      vp_strbuf_append(&o.pipeline, a + 2);
    } else if (a[0] == '-' && a[1] != 0) {
      fprintf(stderr, "vulpy-opt: error: unknown option '%s' (see --help)\n", a);
      return 2;
    } else if (in_path) {
      fprintf(stderr, "vulpy-opt: error: more than one input file ('%s', '%s')\n", in_path, a);
      return 2;
    } else {
      in_path = a;
    }
  }
  if (!in_path)
    in_path = "-";
  size_t len;
  char *text = vp_read_file(in_path, &len);
  if (!text) {
    fprintf(stderr, "vulpy-opt: error: cannot read '%s': %s\n", in_path, strerror(errno));
    return 1;
  }
  const char *name = strcmp(in_path, "-") == 0 ? "<stdin>" : in_path;
  vp_strbuf out = {0};
  bool ok = true;
  if (!o.split) {
    ok = process(text, len, name, text, &o, &out);
  } else {
    /* Each section is parsed with the lines before it blanked, so that
     * line numbers in messages are those of the whole file. */
    char *chunk = malloc(len + 1);
    const char *s = text, *end = text + len;
    bool first = true;
    while (chunk && s <= end) {
      const char *e = s;
      while (e < end) {
        const char *nl = memchr(e, '\n', (size_t)(end - e));
        const char *le = nl ? nl : end;
        if (is_split_line(e, le))
          break;
        e = nl ? nl + 1 : end;
      }
      size_t pad = 0;
      for (const char *q = text; q < s; q++)
        if (*q == '\n')
          chunk[pad++] = '\n';
      memcpy(chunk + pad, s, (size_t)(e - s));
      if (!first)
        vp_strbuf_append(&out, "// -----\n");
      first = false;
      ok &= process(chunk, pad + (size_t)(e - s), name, text, &o, &out);
      if (e >= end)
        break;
      const char *nl = memchr(e, '\n', (size_t)(end - e));
      s = nl ? nl + 1 : end;
    }
    free(chunk);
  }
  int rc = ok ? 0 : 1;
  if (out.len || ok) {
    FILE *f = out_path ? fopen(out_path, "w") : stdout;
    if (!f) {
      fprintf(stderr, "vulpy-opt: error: cannot write '%s': %s\n", out_path, strerror(errno));
      rc = 1;
    } else {
      if (out.len && fwrite(out.data, 1, out.len, f) != out.len)
        rc = 1;
      if (f != stdout && fclose(f) != 0)
        rc = 1;
    }
  }
  vp_strbuf_free(&out);
  vp_strbuf_free(&o.pipeline);
  free(text);
  return rc;
}
