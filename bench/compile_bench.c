/* compile_bench.c - time from verified VIR to validated SPIR-V, by phase.
 *
 *   compile_bench [--reps N] NAME=FILE.vir ...
 *
 * For each module: parse and verify (not timed), then N rounds of
 * VIR -> GLSL -> SPIR-V -> validate, and N rounds with -O (optimize and
 * validate again). The first compile of the process (glslang's process
 * set-up) is reported apart as the cold compile. One JSON object per line:
 * {"case", "phase", "ms": [...]} (bench/bench_compile.py makes records).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vulpy/target.h"

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void put_list(const char *name, const char *phase, const double *v, int n) {
  printf("{\"case\": \"%s\", \"phase\": \"%s\", \"ms\": [", name, phase);
  for (int i = 0; i < n; i++)
    printf("%s%.4f", i ? ", " : "", v[i]);
  printf("]}\n");
}

int main(int argc, char **argv) {
  int reps = 20;
  bool cold_done = false;
  for (int a = 1; a < argc; a++) {
    if (strcmp(argv[a], "--reps") == 0 && a + 1 < argc) {
      reps = atoi(argv[++a]);
      continue;
    }
    char *eq = strchr(argv[a], '=');
    if (!eq) {
      fprintf(stderr, "compile_bench: want NAME=FILE.vir, got '%s'\n", argv[a]);
      return 2;
    }
    *eq = 0;
    const char *name = argv[a], *path = eq + 1;
    size_t len;
    char *text = vp_read_file(path, &len);
    vp_diags d = {0};
    vir_module *m = text ? vir_parse(text, len, path, &d) : NULL;
    if (!m || !vir_verify(m, &d)) {
      char *msg = vp_diags_format(&d, text);
      fprintf(stderr, "compile_bench: %s: cannot read the module\n%s", path, msg ? msg : "");
      free(msg);
      return 1;
    }
    double *v[6];
    for (int k = 0; k < 6; k++)
      v[k] = calloc((size_t)reps, sizeof(double));
    for (int opt = 0; opt < 2; opt++) {
      for (int r = 0; r < reps + 1; r++) {
        vtg_timings tm = {0};
        vtg_options o;
        vtg_options_init(&o);
        o.optimize = opt;
        o.timings = &tm;
        vp_strbuf out = {0};
        double t0 = now_ms();
        bool ok = vtg_emit_spirv(m, &o, &out, &d);
        double total = now_ms() - t0;
        vp_strbuf_free(&out);
        if (!ok) {
          char *msg = vp_diags_format(&d, NULL);
          fprintf(stderr, "compile_bench: %s: %s", name, msg ? msg : "");
          free(msg);
          return 1;
        }
        if (!cold_done) {
          double cold[1] = {total};
          put_list(name, "cold", cold, 1);
          cold_done = true;
        }
        if (r == 0)
          continue; /* a warm-up round per mode */
        if (!opt) {
          v[0][r - 1] = tm.print_ms;
          v[1][r - 1] = tm.glslang_ms;
          v[2][r - 1] = tm.validate_ms;
          v[3][r - 1] = total;
        } else {
          v[4][r - 1] = tm.optimize_ms;
          v[5][r - 1] = total;
        }
      }
    }
    put_list(name, "print", v[0], reps);
    put_list(name, "glslang", v[1], reps);
    put_list(name, "validate", v[2], reps);
    put_list(name, "total", v[3], reps);
    put_list(name, "optimize", v[4], reps);
    put_list(name, "total-O", v[5], reps);
    /* the size of the GLSL, for the record */
    vtg_options o;
    vtg_options_init(&o);
    vp_strbuf g = {0};
    vtg_emit_glsl(m, &o, &g, &d);
    size_t lines = 0;
    for (size_t i = 0; i < g.len; i++)
      lines += g.data[i] == '\n';
    printf("{\"case\": \"%s\", \"phase\": \"glsl_lines\", \"ms\": [%zu]}\n", name, lines);
    vp_strbuf_free(&g);
    for (int k = 0; k < 6; k++)
      free(v[k]);
    vir_module_destroy(m);
    free(text);
    vp_diags_free(&d);
  }
  return 0;
}
