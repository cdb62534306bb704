/* test_record.c - recordings: chains of dependent dispatches, copies and
 * fills in one submission (exact results need the barriers, and
 * synchronization validation reports any that is missing), no barriers
 * between independent commands, resubmission, timestamps, misuse. */
#include "rt_test.h"

enum { N = 1000 };

static vrt_buffer *iota(vrt_context *ctx, vp_diags *d) {
  uint32_t v[N];
  for (uint32_t i = 0; i < N; i++)
    v[i] = i;
  vrt_buffer *b = vrt_buffer_create(ctx, sizeof v, VRT_DEVICE, d);
  if (b)
    vrt_buffer_upload(b, 0, v, sizeof v, d);
  return b;
}

static void check_values(vrt_buffer *b, uint32_t mul, uint32_t add, vp_diags *d) {
  uint32_t v[N];
  CHECK(vrt_buffer_download(b, 0, v, sizeof v, d));
  uint32_t bad = 0;
  for (uint32_t i = 0; i < N; i++)
    bad += v[i] != mul * i + add;
  if (bad)
    fprintf(stderr, "  expected %u*i+%u, got v[0]=%u v[1]=%u v[999]=%u\n", mul, add, v[0], v[1],
            v[N - 1]);
  CHECK_EQ_U64(bad, 0);
}

static void chain(vrt_context_options opt) {
  vrt_context *ctx;
  vrt_kernel *k;
  if (!rt_context_kernel(opt, "incr", &ctx, &k))
    return;
  vp_diags d = {0};
  vrt_buffer *a = iota(ctx, &d);
  vrt_buffer *b = vrt_buffer_create(ctx, N * 4, VRT_DEVICE, &d);
  vrt_buffer *c = vrt_buffer_create(ctx, N * 4, VRT_DEVICE, &d);
  CHECK_OK(d);
  vrt_recording *r = vrt_record_begin(ctx, 0, &d);
  vrt_buffer *ab[2] = {a, b}, *bc[2] = {b, c};
  vrt_args args_ab = {ab, 2, NULL, 0}, args_bc = {bc, 2, NULL, 0};
  /* b += a + 1, 100 times: each reads what the previous wrote. */
  for (int i = 0; i < 100; i++)
    CHECK(vrt_record_dispatch(r, k, &args_ab, vrt_invocations(N, 1, 1), &d));
  CHECK_EQ_U64(vrt_record_barrier_count(r), 99);
  /* c = copy of b; then c += b + 1; then a filled with 3 (after its reads). */
  CHECK(vrt_record_copy(r, c, 0, b, 0, N * 4, &d));
  CHECK(vrt_record_dispatch(r, k, &args_bc, vrt_invocations(N, 1, 1), &d));
  CHECK(vrt_record_fill(r, a, 0, UINT64_MAX, 3, &d));
  CHECK_OK(d);
  CHECK(vrt_record_run(r, &d));
  CHECK_OK(d);
  /* b = 100 * (i + 1); c = b + b + 1; a = 3 */
  check_values(b, 100, 100, &d);
  check_values(c, 200, 201, &d);
  check_values(a, 0, 3, &d);
  /* Submitting again runs the same commands on the current contents. */
  vrt_ticket t;
  CHECK(vrt_record_submit(r, &t, &d));
  CHECK(vrt_wait(ctx, t, UINT64_MAX, &d));
  check_values(b, 100, 500, &d); /* b += 3 + 1, 100 times */
  CHECK(!vrt_record_dispatch(r, k, &args_ab, vrt_invocations(N, 1, 1), &d));
  CHECK_ERROR(d, "submitted already");
  CHECK_OK(d);
  vrt_record_destroy(r);
  vrt_buffer_destroy(a);
  vrt_buffer_destroy(b);
  vrt_buffer_destroy(c);
  vrt_kernel_destroy(k);
  vp_diags_free(&d);
  rt_context_done(ctx);
}

static void test_chain(void) { chain((vrt_context_options){0}); }
static void test_chain_pools(void) { chain((vrt_context_options){.no_push_descriptors = true}); }

/* Commands on different buffers get no barriers; readonly sharing neither. */
static void test_independent(void) {
  vrt_context *ctx;
  vrt_kernel *k;
  if (!rt_context_kernel((vrt_context_options){0}, "incr", &ctx, &k))
    return;
  vp_diags d = {0};
  vrt_buffer *a = iota(ctx, &d), *out[10];
  vrt_recording *r = vrt_record_begin(ctx, 0, &d);
  for (int i = 0; i < 10; i++) {
    out[i] = vrt_buffer_create(ctx, N * 4, VRT_DEVICE, &d);
    vrt_buffer *bufs[2] = {a, out[i]};
    vrt_args args = {bufs, 2, NULL, 0};
    CHECK(vrt_record_dispatch(r, k, &args, vrt_invocations(N, 1, 1), &d));
  }
  CHECK_EQ_U64(vrt_record_barrier_count(r), 0);
  CHECK(vrt_record_run(r, &d));
  for (int i = 0; i < 10; i++) {
    check_values(out[i], 1, 1, &d);
    vrt_buffer_destroy(out[i]);
  }
  CHECK_OK(d);
  vrt_record_destroy(r);
  vrt_buffer_destroy(a);
  vrt_kernel_destroy(k);
  vp_diags_free(&d);
  rt_context_done(ctx);
}

/* A released recording's command pool serves the next one (ctx's spare
 * pools): the next recording starts empty, whether the one before was
 * submitted or dropped with commands in it. */
static void test_reuse(void) {
  vrt_context *ctx;
  vrt_kernel *k;
  if (!rt_context_kernel((vrt_context_options){0}, "incr", &ctx, &k))
    return;
  vp_diags d = {0};
  vrt_buffer *a = iota(ctx, &d), *b = vrt_buffer_create(ctx, N * 4, VRT_DEVICE, &d);
  vrt_buffer *bufs[2] = {a, b};
  vrt_args args = {bufs, 2, NULL, 0};
  CHECK(vrt_buffer_fill(b, 0, UINT64_MAX, 0, &d));
  for (int round = 0; round < 20; round++) {
    /* dropped unsubmitted: its 50 dispatches never run */
    vrt_recording *dropped = vrt_record_begin(ctx, 0, &d);
    for (int i = 0; i < 50; i++)
      CHECK(vrt_record_dispatch(dropped, k, &args, vrt_invocations(N, 1, 1), &d));
    vrt_record_destroy(dropped);
    /* then one dispatch (b += a + 1), run and released */
    vrt_recording *r = vrt_record_begin(ctx, 0, &d);
    CHECK(r != NULL);
    CHECK(vrt_record_dispatch(r, k, &args, vrt_invocations(N, 1, 1), &d));
    CHECK_EQ_U64(vrt_record_barrier_count(r), 0);
    CHECK(vrt_record_run(r, &d));
    vrt_record_destroy(r);
  }
  check_values(b, 20, 20, &d);
  CHECK_OK(d);
  vrt_buffer_destroy(a);
  vrt_buffer_destroy(b);
  vrt_kernel_destroy(k);
  vp_diags_free(&d);
  rt_context_done(ctx);
}

static void test_timestamps(void) {
  vrt_context *ctx = rt_context();
  vrt_kernel *k = ctx ? rt_kernel(ctx, "incr", NULL) : NULL;
  if (!k || !vrt_context_device(ctx)->timestamps) {
    vrt_kernel_destroy(k);
    rt_context_done(ctx);
    return;
  }
  vp_diags d = {0};
  vrt_buffer *a = iota(ctx, &d), *b = vrt_buffer_create(ctx, N * 4, VRT_DEVICE, &d);
  vrt_recording *r = vrt_record_begin(ctx, VRT_RECORD_TIMESTAMPS, &d);
  vrt_buffer *bufs[2] = {a, b};
  vrt_args args = {bufs, 2, NULL, 0};
  for (int i = 0; i < 300; i++)
    CHECK(vrt_record_dispatch(r, k, &args, vrt_invocations(N, 1, 1), &d));
  double ns[400];
  CHECK_EQ_U64(vrt_record_times(r, ns, 400), 0); /* not run yet */
  CHECK(vrt_record_run(r, &d));
  CHECK_EQ_U64(vrt_record_times(r, ns, 400), 300);
  uint32_t bad = 0;
  for (int i = 0; i < 300; i++)
    bad += !(ns[i] >= 0 && ns[i] < 1e9);
  CHECK_EQ_U64(bad, 0);
  check_values(b, 300, 300, &d);
  CHECK_OK(d);
  vrt_record_destroy(r);
  vrt_buffer_destroy(a);
  vrt_buffer_destroy(b);
  vrt_kernel_destroy(k);
  vp_diags_free(&d);
  rt_context_done(ctx);
}

int main(void) {
  RT_RUN(test_chain);
  RT_RUN(test_chain_pools);
  RT_RUN(test_independent);
  RT_RUN(test_reuse);
  RT_RUN(test_timestamps);
  return rt_failures ? 1 : 0;
}
