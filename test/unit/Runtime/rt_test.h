/* rt_test.h - a small harness for the runtime's C tests.
 *
 * CHECK records a failure and goes on; each test file's main runs its cases
 * with RT_RUN and returns non-zero if anything failed. Contexts are made with
 * the validation layer on and destroyed with rt_context_done, which fails the
 * test on any validation message, those of the teardown included; like any
 * program that honours the VULPY_* variables, the harness fills the options
 * it was not given from them (vulpy/runtime_env.h). Shaders
 * (compiled at build time) and their manifests are read from SHADER_DIR and
 * MANIFEST_DIR.
 */
#ifndef RT_TEST_H
#define RT_TEST_H

#include "vulpy/runtime.h"
#include "vulpy/runtime_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rt_failures;

#define CHECK(cond)                                                          \
  do {                                                                       \
    if (!(cond)) {                                                           \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      rt_failures++;                                                         \
    }                                                                        \
  } while (0)

#define CHECK_EQ_U64(a, b)                                                   \
  do {                                                                       \
    unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b); \
    if (a_ != b_) {                                                          \
      fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%llu != %llu)\n", __FILE__, __LINE__, \
              #a, #b, a_, b_);                                               \
      rt_failures++;                                                         \
    }                                                                        \
  } while (0)

/* Fails (printing them) when `d` holds errors; clears it. */
#define CHECK_OK(d) rt_check_ok(&(d), __FILE__, __LINE__)
/* Expects an error whose text contains `text`; clears `d`. */
#define CHECK_ERROR(d, text) rt_check_error(&(d), (text), __FILE__, __LINE__)

static inline void rt_print(const vp_diags *d) {
  char *s = vp_diags_format(d, NULL);
  fprintf(stderr, "%s", s ? s : "");
  free(s);
}

static inline void rt_check_ok(vp_diags *d, const char *file, int line) {
  if (d->nerrors) {
    fprintf(stderr, "%s:%d: unexpected errors:\n", file, line);
    rt_print(d);
    rt_failures++;
  }
  vp_diags_clear(d);
}

static inline void rt_check_error(vp_diags *d, const char *text, const char *file, int line) {
  bool found = false;
  for (uint32_t i = 0; i < d->count && !found; i++)
    found = d->items[i].severity == VP_ERROR && strstr(d->items[i].message, text);
  if (!found) {
    fprintf(stderr, "%s:%d: expected an error containing '%s', got:\n", file, line, text);
    rt_print(d);
    rt_failures++;
  }
  vp_diags_clear(d);
}

#define RT_RUN(fn)                                                           \
  do {                                                                       \
    int before_ = rt_failures;                                               \
    fn();                                                                    \
    fprintf(stderr, "%s %s\n", rt_failures == before_ ? "PASS" : "FAIL", #fn); \
  } while (0)

/* A context on the default device with validation on, the options not
 * given from the environment; NULL fails the test. */
static inline vrt_context *rt_context_with(vrt_context_options opt) {
  vp_diags d = {0};
  opt.validation = 1;
  vrt_env env;
  vrt_context *ctx =
      vrt_env_context_options(&opt, &env, &d) ? vrt_context_create(&opt, &d) : NULL;
  if (!ctx) {
    vrt_env_note(&env, &d);
    fprintf(stderr, "cannot create a context:\n");
    rt_print(&d);
    rt_failures++;
  }
  vp_diags_free(&d);
  return ctx;
}

static inline vrt_context *rt_context(void) { return rt_context_with((vrt_context_options){0}); }

/* Fails on validation messages so far. */
static inline void rt_validation_clean(vrt_context *ctx, const char *file, int line) {
  vp_diags d = {0};
  if (vrt_context_take_validation(ctx, &d)) {
    fprintf(stderr, "%s:%d: validation messages:\n", file, line);
    rt_print(&d);
    rt_failures++;
  }
  vp_diags_free(&d);
}
#define CHECK_VALIDATION(ctx) rt_validation_clean((ctx), __FILE__, __LINE__)

static inline void rt_context_done_at(vrt_context *ctx, const char *file, int line) {
  if (!ctx)
    return;
  vp_diags d = {0};
  if (vrt_context_destroy_checked(ctx, &d)) {
    fprintf(stderr, "%s:%d: validation messages:\n", file, line);
    rt_print(&d);
    rt_failures++;
  }
  vp_diags_free(&d);
}
#define rt_context_done(ctx) rt_context_done_at((ctx), __FILE__, __LINE__)

static inline void *rt_read(const char *dir, const char *name, const char *ext, size_t *len) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s%s", dir, name, ext);
  void *p = vp_read_file(path, len);
  if (!p) {
    fprintf(stderr, "cannot read %s\n", path);
    rt_failures++;
  }
  return p;
}

static inline vpm_manifest *rt_manifest(const char *name) {
  size_t len;
  char *text = rt_read(MANIFEST_DIR, name, ".yaml", &len);
  if (!text)
    return NULL;
  vp_diags d = {0};
  vpm_manifest *m = vpm_parse(text, len, name, &d);
  if (!m) {
    rt_print(&d);
    rt_failures++;
  }
  vp_diags_free(&d);
  free(text);
  return m;
}

/* A kernel from SHADER_DIR/<name>.spv and its manifest; NULL fails. */
static inline vrt_kernel *rt_kernel(vrt_context *ctx, const char *name,
                                    const vrt_kernel_options *opt) {
  size_t len;
  void *spv = rt_read(SHADER_DIR, name, ".spv", &len);
  vpm_manifest *m = rt_manifest(name);
  vrt_kernel *k = NULL;
  if (spv && m) {
    vp_diags d = {0};
    k = vrt_kernel_create(ctx, spv, len, m, opt, &d);
    if (!k) {
      fprintf(stderr, "cannot create kernel %s:\n", name);
      rt_print(&d);
      rt_failures++;
    }
    vp_diags_free(&d);
  }
  free(spv);
  vpm_free(m);
  return k;
}

/* A context made with `opt` and its kernel `name`; false (the context, if
 * any, done) when either cannot be made - the test then returns. */
static inline bool rt_context_kernel(vrt_context_options opt, const char *name,
                                     vrt_context **ctx, vrt_kernel **k) {
  *ctx = rt_context_with(opt);
  *k = *ctx ? rt_kernel(*ctx, name, NULL) : NULL;
  if (!*k)
    rt_context_done(*ctx);
  return *k != NULL;
}

/* A compute stream held by a closed gate event (*gate): the work submitted
 * to it queues and runs once vrt_event_set(*gate). NULL fails the test. */
static inline vrt_stream *rt_gated_stream(vrt_context *ctx, vrt_event **gate) {
  vp_diags d = {0};
  vrt_stream *s = vrt_stream_create(ctx, VRT_STREAM_COMPUTE, &d);
  *gate = s ? vrt_event_create_gate(ctx, &d) : NULL;
  bool ok = *gate && vrt_stream_wait_event(ctx, s, *gate, NULL, &d);
  CHECK_OK(d);
  CHECK(ok && !vrt_event_query(*gate));
  vp_diags_free(&d);
  return ok ? s : NULL;
}

#endif /* RT_TEST_H */
