/* ir_throughput - times vir_parse, vir_verify and vir_print on one file.
 *
 *   ir_throughput FILE [REPEAT]
 *
 * Prints one JSON object: the op count, the input size, and for each of
 * REPEAT runs the seconds spent parsing, verifying and printing. The module
 * of each run is destroyed before the next; reading the file is not timed.
 * bench/bench_ir.py generates the inputs and turns the times into ops/s.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vulpy/ir.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static vir_walk_result count(vir_op *op, void *ctx) {
  (void)op;
  (*(size_t *)ctx)++;
  return VIR_WALK_ADVANCE;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: ir_throughput FILE [REPEAT]\n");
    return 2;
  }
  int repeat = argc > 2 ? atoi(argv[2]) : 3;
  size_t len;
  char *text = vp_read_file(argv[1], &len);
  if (!text) {
    perror(argv[1]);
    return 1;
  }
  size_t ops = 0, out_len = 0, arena = 0;
  printf("{\"file\": \"%s\", \"bytes\": %zu, \"runs\": [", argv[1], len);
  for (int r = 0; r < repeat; r++) {
    vp_diags d = {0};
    double t0 = now();
    vir_module *m = vir_parse(text, len, argv[1], &d);
    double t1 = now();
    if (!m) {
      char *msg = vp_diags_format(&d, text);
      fprintf(stderr, "%s", msg ? msg : "parse failed\n");
      return 1;
    }
    bool ok = vir_verify(m, &d);
    double t2 = now();
    vp_strbuf out = {0};
    vir_print(m, 0, &out);
    double t3 = now();
    if (!ok) {
      char *msg = vp_diags_format(&d, text);
      fprintf(stderr, "%s", msg ? msg : "verify failed\n");
      return 1;
    }
    ops = 0;
    vir_walk_module(m, count, &ops);
    out_len = out.len;
    arena = m->arena.total;
    printf("%s{\"parse\": %.6f, \"verify\": %.6f, \"print\": %.6f}", r ? ", " : "", t1 - t0, t2 - t1,
           t3 - t2);
    vp_strbuf_free(&out);
    vp_diags_free(&d);
    vir_module_destroy(m);
  }
  printf("], \"ops\": %zu, \"printed_bytes\": %zu, \"arena_bytes\": %zu}\n", ops, out_len, arena);
  free(text);
  return 0;
}
