/* test_manifest.c - the manifest as data: a hand-built manifest (the way the
 * back end builds one from VIR) emits, parses back equal, clones equal and
 * frees clean; strings that need quotes survive; look-ups; errors leave no
 * manifest behind. (The YAML text itself is tested by lit in test/Runtime.) */
#include "vulpy/manifest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../IR/check.h"

static vpm_field field(const char *name, const char *type, uint32_t offset, uint32_t size) {
  vpm_field f = {strdup(name), strdup(type), offset, size};
  return f;
}

/* What the back end does: malloc'ed strings and arrays, freed by vpm_free. */
static vpm_manifest *by_hand(void) {
  vpm_manifest *m = calloc(1, sizeof *m);
  m->kernel = strdup("weird: \"name\" with\\stuff"); /* names: no control characters */
  m->entry_point = strdup("main");
  m->source = strdup("dir with spaces/k\t#1.vul.py");
  m->local_size[0] = 128;
  m->local_size[1] = m->local_size[2] = 1;
  m->nbuffers = 3;
  m->buffers = calloc(3, sizeof *m->buffers);
  m->buffers[0] = (vpm_buffer){strdup("pos"), 0, 0, strdup("vec3<f32>"), 16, VPM_READWRITE};
  m->buffers[1] = (vpm_buffer){strdup("null"), 0, 1, strdup("@P"), 32, VPM_READONLY};
  m->buffers[2] = (vpm_buffer){strdup("123abc"), 1, 0, strdup("u8"), 1, VPM_WRITEONLY};
  m->push_size = 16;
  m->npush = 2;
  m->push = calloc(2, sizeof *m->push);
  m->push[0] = field("_vp_count", "vec3<u32>", 0, 12);
  m->push[1] = field("dt", "f32", 12, 4);
  m->nstructs = 1;
  m->structs = calloc(1, sizeof *m->structs);
  m->structs[0].name = strdup("P");
  m->structs[0].size = 32;
  m->structs[0].align = 16;
  m->structs[0].nfields = 2;
  m->structs[0].fields = calloc(2, sizeof(vpm_field));
  m->structs[0].fields[0] = field("x", "vec4<f32>", 0, 16);
  m->structs[0].fields[1] = field("yes", "mat2<f32>", 16, 16);
  m->shared_bytes = 4096;
  m->features = VP_FEAT(FLOAT64) | VP_FEAT(SUBGROUP_ARITH) | VP_FEAT(BDA);
  m->dispatch_guard = strdup("_vp_count");
  return m;
}

static void test_round_trip(void) {
  vpm_manifest *m = by_hand();
  char *a = vpm_emit(m);
  vp_diags d = {0};
  vpm_manifest *p = vpm_parse(a, strlen(a), "a.yaml", &d);
  CHECK(p && d.count == 0);
  if (p) {
    CHECK(strcmp(p->kernel, m->kernel) == 0);
    CHECK(strcmp(p->source, m->source) == 0);
    CHECK(strcmp(p->buffers[1].name, "null") == 0 && strcmp(p->buffers[1].type, "@P") == 0);
    CHECK(strcmp(p->buffers[2].name, "123abc") == 0 && p->buffers[2].access == VPM_WRITEONLY);
    CHECK(strcmp(p->structs[0].fields[1].name, "yes") == 0);
    CHECK(p->features == m->features && p->shared_bytes == 4096);
    CHECK(p->local_size[0] == 128 && p->push_size == 16);
    char *b = vpm_emit(p);
    CHECK(b && strcmp(a, b) == 0);
    free(b);
    vpm_manifest *c = vpm_clone(p);
    char *e = vpm_emit(c);
    CHECK(e && strcmp(a, e) == 0);
    free(e);
    CHECK(vpm_find_buffer(c, "123abc") == 2 && vpm_find_buffer(c, "vel") == -1);
    CHECK(vpm_find_push(c, "dt") == 1 && vpm_find_push(c, "pos") == -1);
    vpm_free(c);
  }
  if (check_failures)
    fprintf(stderr, "%s", a);
  free(a);
  vpm_free(p);
  vpm_free(m);
  vp_diags_free(&d);
}

static void test_errors(void) {
  vp_diags d = {0};
  const char *bad = "vulpy_manifest: 1\nkernel: k\nentry_point: main\nlocal_size: [0]\n"
                    "buffers: {a: 1}\nfeatures: [warp_drive]\n";
  CHECK(vpm_parse(bad, strlen(bad), "bad.yaml", &d) == NULL);
  CHECK(d.nerrors == 3);
  CHECK(d.count && d.items[0].loc.line == 4 && d.items[0].loc.col == 14);
  CHECK(d.count && strcmp(d.items[0].loc.file, "bad.yaml") == 0);
  vp_diags_clear(&d);
  CHECK(vpm_parse("", 0, NULL, &d) == NULL && d.nerrors == 1);
  CHECK(d.count && strcmp(d.items[0].loc.file, "<manifest>") == 0);
  vp_diags_free(&d);
  vpm_free(NULL);
}

/* Nesting: VPM_MAX_DEPTH levels parse (as far as YAML goes), one more is
 * an error at the first node too deep; 100,000 levels (25 s in libyaml's
 * loader before the limit) fail at once. */
static char *nested(const char *head, unsigned levels, char open, char close) {
  size_t n = strlen(head);
  char *s = malloc(n + 2 * (size_t)levels + 2);
  memcpy(s, head, n);
  memset(s + n, open, levels);
  memset(s + n + levels, close, levels);
  s[n + 2 * (size_t)levels] = '\n';
  s[n + 2 * (size_t)levels + 1] = 0;
  return s;
}

static void test_nesting(void) {
  const char *head = "vulpy_manifest: 1\nkernel: k\nentry_point: main\nlocal_size: [1]\n"
                     "structs: ";
  vp_diags d = {0};
  /* 64 levels: the top mapping and 63 lists; structs' schema error, no depth error */
  char *ok = nested(head, VPM_MAX_DEPTH - 1, '[', ']');
  CHECK(vpm_parse(ok, strlen(ok), "deep.yaml", &d) == NULL);
  char *msg = vp_diags_format(&d, NULL);
  CHECK(msg && strstr(msg, "nesting") == NULL);
  free(msg);
  free(ok);
  vp_diags_clear(&d);
  /* 64 lists, 65 levels: an error at the 64th '[' (line 5, column 10 + 63) */
  char *bad = nested(head, VPM_MAX_DEPTH, '[', ']');
  CHECK(vpm_parse(bad, strlen(bad), "deep.yaml", &d) == NULL);
  CHECK(d.nerrors == 1);
  CHECK(d.count && d.items[0].loc.line == 5 && d.items[0].loc.col == 10 + VPM_MAX_DEPTH - 1);
  CHECK(d.count && strcmp(d.items[0].message, "invalid YAML: nesting deeper than 64 levels") == 0);
  free(bad);
  vp_diags_clear(&d);
  /* 100,000 levels of lists and of flow mappings, each in well under a second */
  char *opens[2] = {"[", "{"}, *closes[2] = {"]", "}"};
  for (int k = 0; k < 2; k++) {
    char *huge = nested("", 100000, opens[k][0], closes[k][0]);
    clock_t t0 = clock();
    CHECK(vpm_parse(huge, strlen(huge), "huge.yaml", &d) == NULL);
    double s = (double)(clock() - t0) / CLOCKS_PER_SEC;
    CHECK(s < 1.0);
    CHECK(d.nerrors == 1 && d.count && strstr(d.items[0].message, "nesting deeper"));
    free(huge);
    vp_diags_clear(&d);
  }
  vp_diags_free(&d);
}

int main(void) {
  test_round_trip();
  test_errors();
  test_nesting();
  fprintf(stderr, "%s test_manifest\n", check_failures ? "FAIL" : "PASS");
  return check_failures ? 1 : 0;
}
