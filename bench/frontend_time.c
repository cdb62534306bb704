/* frontend_time.c - times the frontend on one AST document.
 *
 *   frontend_time FILE.json [RUNS]
 *
 * Prints one JSON object: per-run microseconds of the whole frontend
 * (vfe_translate_json: JSON -> verified VIR), of the JSON reading alone
 * (libyaml into the node tree), of libyaml's event parse alone, of the
 * translation with vir_verify alone (vfe_translate_tree on a tree read
 * beforehand), and the document's size. bench/bench_frontend.py turns the lists into records.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yaml.h>

#include "fe.h"

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void print_list(const char *name, const double *v, int n, bool last) {
  printf("\"%s\": [", name);
  for (int i = 0; i < n; i++)
    printf("%s%.3f", i ? ", " : "", v[i]);
  printf("]%s\n", last ? "" : ",");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: frontend_time FILE.json [RUNS]\n");
    return 2;
  }
  int runs = argc > 2 ? atoi(argv[2]) : 50;
  if (runs < 1)
    runs = 1;
  size_t len;
  char *text = vp_read_file(argv[1], &len);
  if (!text) {
    fprintf(stderr, "frontend_time: cannot read %s\n", argv[1]);
    return 1;
  }
  double *total = calloc((size_t)runs, sizeof *total);
  double *read = calloc((size_t)runs, sizeof *read);
  double *events = calloc((size_t)runs, sizeof *events);
  double *translate = calloc((size_t)runs, sizeof *translate);
  unsigned long nevents = 0, nops = 0;
  vfe_options o;
  vfe_options_init(&o);
  for (int r = 0; r < runs; r++) {
    vp_diags d = {0};
    double t0 = now_us();
    vir_module *m = vfe_translate_json(text, len, argv[1], &o, NULL, &d);
    total[r] = now_us() - t0;
    if (!m) {
      char *msg = vp_diags_format(&d, NULL);
      fprintf(stderr, "frontend_time: the document does not translate:\n%s", msg);
      return 1;
    }
    if (r == 0) {
      vp_strbuf b = {0};
      vir_print(m, VIR_PRINT_NO_LOCS, &b);
      for (size_t i = 0; i < b.len; i++)
        nops += b.data[i] == '\n';
      vp_strbuf_free(&b);
    }
    vir_module_destroy(m);
    vp_diags_free(&d);

    vp_arena a = {0};
    t0 = now_us();
    vfe_node *root = vfe_json_read(&a, text, len, argv[1], &d);
    read[r] = now_us() - t0;
    if (!root)
      return 1;
    t0 = now_us();
    m = vfe_translate_tree(root, argv[1], &o, &d);
    translate[r] = now_us() - t0;
    vir_module_destroy(m);
    vp_arena_free(&a);
    vp_diags_free(&d);

    yaml_parser_t p;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    unsigned long n = 0;
    t0 = now_us();
    for (;;) {
      yaml_event_t e;
      if (!yaml_parser_parse(&p, &e))
        break;
      int done = e.type == YAML_STREAM_END_EVENT;
      yaml_event_delete(&e);
      n++;
      if (done)
        break;
    }
    events[r] = now_us() - t0;
    yaml_parser_delete(&p);
    nevents = n;
  }
  printf("{\"bytes\": %zu, \"events\": %lu, \"vir_lines\": %lu,\n", len, nevents, nops);
  print_list("total_us", total, runs, false);
  print_list("read_us", read, runs, false);
  print_list("yaml_us", events, runs, false);
  print_list("translate_us", translate, runs, true);
  printf("}\n");
  free(total);
  free(read);
  free(events);
  free(translate);
  free(text);
  return 0;
}
