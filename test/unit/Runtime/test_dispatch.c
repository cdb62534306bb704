/* test_dispatch.c - kernels run and give the right answers: 1-3D grids,
 * sizes that are not multiples of the local size, explicit groups, the
 * dispatch guard, async tickets, the launch cache, descriptor sets from
 * pools as well as push descriptors, GPU timestamps, the done flag of
 * synchronous dispatches (its results, its fallback to the semaphore, a
 * lost device behind it), and readbacks (a copy in the dispatch's own
 * submission). */
#include "rt_test.h"

#include <pthread.h>

/* Most tests below run the "fixed" kernel (out[i] = 2 * i + push[1] for
 * i < push[0]) on a context of their own: fixed_open makes both, or makes
 * neither and says false (the failure is reported); fixed_close destroys
 * them, failing the test on validation messages at the caller's line. */
static bool kernel_open(vrt_context_options opt, const char *name, vrt_context **ctx,
                        vrt_kernel **k) {
  *ctx = rt_context_with(opt);
  *k = *ctx ? rt_kernel(*ctx, name, NULL) : NULL;
  if (!*k) {
    rt_context_done(*ctx);
    *ctx = NULL;
  }
  return *k != NULL;
}

static bool fixed_open(vrt_context **ctx, vrt_kernel **k) {
  return kernel_open((vrt_context_options){0}, "fixed", ctx, k);
}

static void fixed_close_at(vrt_context *ctx, vrt_kernel *k, const char *file, int line) {
  vrt_kernel_destroy(k);
  rt_context_done_at(ctx, file, line);
}
#define fixed_close(ctx, k) fixed_close_at((ctx), (k), __FILE__, __LINE__)

static vrt_buffer *upload_f32(vrt_context *ctx, const float *v, uint32_t n, vrt_memory_kind kind) {
  vp_diags d = {0};
  vrt_buffer *b = vrt_buffer_create(ctx, (uint64_t)n * 4, kind, &d);
  CHECK(b && vrt_buffer_upload(b, 0, v, (uint64_t)n * 4, &d));
  CHECK_OK(d);
  vp_diags_free(&d);
  return b;
}

/* saxpy on n elements, for several n around the local size (64). */
static void saxpy_case(vrt_context *ctx, vrt_kernel *k, uint32_t n, vrt_memory_kind kind) {
  vp_diags d = {0};
  float *x = malloc((n + 1) * 4), *y = malloc((n + 1) * 4), *out = malloc((n + 1) * 4);
  for (uint32_t i = 0; i < n; i++) {
    x[i] = (float)i * 0.5f;
    y[i] = (float)(n - i);
  }
  vrt_buffer *bx = upload_f32(ctx, x, n, kind), *by = upload_f32(ctx, y, n, kind);
  struct {
    uint32_t count[3];
    float alpha;
  } push = {{0}, 3.0f};
  vrt_buffer *bufs[2] = {bx, by};
  vrt_args args = {bufs, 2, &push, sizeof push};
  CHECK(vrt_dispatch(k, &args, vrt_invocations(n, 1, 1), &d));
  CHECK_OK(d);
  CHECK(vrt_buffer_download(by, 0, out, (uint64_t)n * 4, &d));
  CHECK_OK(d);
  uint32_t bad = 0;
  for (uint32_t i = 0; i < n; i++)
    bad += out[i] != 3.0f * x[i] + y[i];
  CHECK_EQ_U64(bad, 0);
  vrt_buffer_destroy(bx);
  vrt_buffer_destroy(by);
  free(x);
  free(y);
  free(out);
  vp_diags_free(&d);
}

/* vrt_dispatch_eager_nowait: a launch not recorded yet (and a new buffer,
 * owed zeros where the pool defers them) leaves it busy with nothing done
 * (the counts of dispatches and submissions unchanged); once the blocking
 * call recorded the launch it runs exactly as vrt_dispatch_eager, and the
 * results are saxpy's, again and again (y accumulates). */
static void test_eager_nowait(void) {
  vrt_context *ctx = rt_context();
  if (!ctx)
    return;
  vrt_kernel *k = rt_kernel(ctx, "saxpy", NULL);
  vp_diags d = {0};
  enum { N = 256 };
  float x[N], y[N], out[N];
  for (uint32_t i = 0; i < N; i++) {
    x[i] = (float)i;
    y[i] = 1.0f;
  }
  vrt_buffer *bx = upload_f32(ctx, x, N, VRT_DEVICE), *by = upload_f32(ctx, y, N, VRT_DEVICE);
  struct {
    uint32_t count[3];
    float alpha;
  } push = {{0}, 2.0f};
  vrt_buffer *bufs[2] = {bx, by};
  vrt_args args = {bufs, 2, &push, sizeof push};
  vrt_grid g = vrt_invocations(N, 1, 1);
  vrt_context_stats s0, s1;
  vrt_context_stats_get(ctx, &s0);
  bool busy = false;
  vrt_ticket t = 0;
  CHECK(vrt_dispatch_eager_nowait(k, &args, NULL, g, &t, &busy, &d) && busy);
  /* a new buffer: another launch, maybe owed zeros: busy too */
  vrt_buffer *fresh = vrt_buffer_create(ctx, N * 4, VRT_DEVICE, &d);
  vrt_buffer *fb[2] = {bx, fresh};
  vrt_args fargs = {fb, 2, &push, sizeof push};
  busy = false;
  CHECK(fresh && vrt_dispatch_eager_nowait(k, &fargs, NULL, g, &t, &busy, &d) && busy);
  vrt_context_stats_get(ctx, &s1);
  CHECK_EQ_U64(s1.dispatches, s0.dispatches);
  CHECK_EQ_U64(s1.submits, s0.submits);
  /* recorded by the blocking call; then resubmitted without blocking */
  CHECK(vrt_dispatch_eager(k, &args, NULL, g, &t, &d));
  int ran = 1;
  for (int i = 0; i < 3; i++) {
    busy = true;
    CHECK(vrt_dispatch_eager_nowait(k, &args, NULL, g, &t, &busy, &d));
    CHECK(!busy);
    ran += !busy;
  }
  CHECK(t > 0 && vrt_wait(ctx, t, UINT64_MAX, &d));
  CHECK(vrt_buffer_download(by, 0, out, N * 4, &d));
  CHECK_OK(d);
  uint32_t bad = 0;
  for (uint32_t i = 0; i < N; i++)
    bad += out[i] != 1.0f + (float)ran * 2.0f * x[i];
  CHECK_EQ_U64(bad, 0);
  vrt_buffer_destroy(fresh);
  vrt_buffer_destroy(bx);
  vrt_buffer_destroy(by);
  vp_diags_free(&d);
  vrt_kernel_destroy(k);
  rt_context_done(ctx);
}

static void test_saxpy_sizes(void) {
  vrt_context *ctx = rt_context();
  if (!ctx)
    return;
  vrt_kernel *k = rt_kernel(ctx, "saxpy", NULL);
  uint32_t sizes[] = {1, 63, 64, 65, 1000, 4097};
  for (unsigned i = 0; k && i < sizeof sizes / sizeof sizes[0]; i++)
    saxpy_case(ctx, k, sizes[i], i % 2 ? VRT_DEVICE : VRT_HOST);
  vrt_kernel_destroy(k);
  rt_context_done(ctx);
}

/* Every invocation of an nx x ny x nz grid writes its id at its index; the
 * buffer is one larger than the grid, and the extra word must stay 0. */
static void grid_case(vrt_kernel *k, vrt_context *ctx, uint32_t nx, uint32_t ny, uint32_t nz,
                      bool explicit_groups) {
  vp_diags d = {0};
  uint32_t n = nx * ny * nz;
  vrt_buffer *o = vrt_buffer_create(ctx, (uint64_t)(n + 1) * 4, VRT_DEVICE, &d);
  CHECK_OK(d);
  uint32_t local[3];
  vrt_kernel_local_size(k, local);
  vrt_grid g = vrt_invocations(nx, ny, nz);
  uint32_t count[3] = {nx, ny, nz};
  if (explicit_groups)
    g = vrt_groups((nx + local[0] - 1) / local[0], (ny + local[1] - 1) / local[1],
                   (nz + local[2] - 1) / local[2]);
  vrt_args args = {&o, 1, count, sizeof count};
  CHECK(vrt_dispatch(k, &args, g, &d));
  CHECK_OK(d);
  uint32_t *out = malloc((size_t)(n + 1) * 4);
  CHECK(vrt_buffer_download(o, 0, out, (uint64_t)(n + 1) * 4, &d));
  CHECK_OK(d);
  uint32_t bad = 0;
  for (uint32_t z = 0; z < nz; z++)
    for (uint32_t y = 0; y < ny; y++)
      for (uint32_t x = 0; x < nx; x++)
        bad += out[(z * ny + y) * nx + x] != (0x80000000u | z << 20 | y << 10 | x);
  CHECK_EQ_U64(bad, 0);
  CHECK_EQ_U64(out[n], 0);
  free(out);
  vrt_buffer_destroy(o);
  vp_diags_free(&d);
}

static void test_grids(void) {
  vrt_context *ctx = rt_context();
  if (!ctx)
    return;
  vrt_kernel *k1 = rt_kernel(ctx, "grid", &(vrt_kernel_options){{32, 1, 1}, false, false, false});
  vrt_kernel *k2 = rt_kernel(ctx, "grid", &(vrt_kernel_options){{8, 8, 1}, false, false, false});
  vrt_kernel *k3 = rt_kernel(ctx, "grid", NULL); /* 4 x 4 x 4 from the manifest */
  if (k1 && k2 && k3) {
    uint32_t l[3];
    vrt_kernel_local_size(k3, l);
    CHECK(l[0] == 4 && l[1] == 4 && l[2] == 4);
    grid_case(k1, ctx, 1, 1, 1, false);
    grid_case(k1, ctx, 1000, 1, 1, false);
    grid_case(k1, ctx, 1024, 1, 1, true); /* explicit groups: the guard is the whole grid */
    grid_case(k2, ctx, 17, 9, 1, false);
    grid_case(k2, ctx, 64, 64, 1, true);
    grid_case(k3, ctx, 5, 6, 7, false);
    grid_case(k3, ctx, 12, 4, 8, true);
    grid_case(k1, ctx, 31, 3, 2, false);
  }
  vrt_kernel_destroy(k1);
  vrt_kernel_destroy(k2);
  vrt_kernel_destroy(k3);
  rt_context_done(ctx);
}

/* A literal local size, an explicit bound in the kernel, and the launch
 * cache: the same dispatch again reuses its command buffer, a different
 * push value records a new one. */
static void test_fixed_and_launch_cache(void) {
  vrt_context *ctx;
  vrt_kernel *k;
  if (!fixed_open(&ctx, &k))
    return;
  vp_diags d = {0};
  vrt_buffer *o = vrt_buffer_create(ctx, 200 * 4, VRT_HOST, &d);
  CHECK_OK(d);
  uint32_t push[2] = {200, 7};
  vrt_args args = {&o, 1, push, sizeof push};
  vrt_context_stats s0, s1, s2;
  vrt_context_stats_get(ctx, &s0);
  for (int i = 0; i < 5; i++)
    CHECK(vrt_dispatch(k, &args, vrt_invocations(200, 1, 1), &d));
  vrt_context_stats_get(ctx, &s1);
  CHECK_EQ_U64(s1.reused_launches - s0.reused_launches, 4);
  push[1] = 9;
  CHECK(vrt_dispatch(k, &args, vrt_invocations(200, 1, 1), &d));
  vrt_context_stats_get(ctx, &s2);
  CHECK_EQ_U64(s2.reused_launches, s1.reused_launches);
  CHECK_OK(d);
  const uint32_t *v = vrt_buffer_map(o);
  CHECK(v != NULL);
  uint32_t bad = 0;
  for (uint32_t i = 0; v && i < 200; i++)
    bad += v[i] != 2 * i + 9;
  CHECK_EQ_U64(bad, 0);
  vrt_buffer_destroy(o);
  vp_diags_free(&d);
  fixed_close(ctx, k);
}

/* vrt_dispatch_readback: the kernel writes device memory (not mapped, as
 * on a discrete GPU), the copy in the same submission brings the words to a
 * host-visible buffer; one submission; the launch cache keys on the
 * readback; the buffers' last use is the ticket; bad readbacks are errors. */
static void readback_case(vrt_context_options opt) {
  opt.no_device_mapping = true;
  vrt_context *ctx;
  vrt_kernel *k;
  if (!kernel_open(opt, "fixed", &ctx, &k))
    return;
  vp_diags d = {0};
  vrt_buffer *o = vrt_buffer_create(ctx, 200 * 4, VRT_DEVICE, &d);
  vrt_buffer *m = vrt_buffer_create(ctx, 16 * 4, VRT_CACHED, &d);
  CHECK_OK(d);
  CHECK(o && !vrt_buffer_map(o) && m && vrt_buffer_map(m));
  if (!o || vrt_buffer_map(o) || !m || !vrt_buffer_map(m))
    return;
  uint32_t push[2] = {200, 7};
  vrt_args args = {&o, 1, push, sizeof push};
  vrt_readback rb = {m, 4, o, 100 * 4, 8 * 4}; /* words 100..107 to m[1..8] */
  for (uint32_t round = 0; round < 3; round++) {
    vrt_context_stats s0, s1;
    vrt_context_stats_get(ctx, &s0);
    vrt_ticket t = 0;
    CHECK(vrt_dispatch_readback(k, &args, vrt_invocations(200, 1, 1), &rb, &t, &d));
    CHECK(vrt_wait(ctx, t, UINT64_MAX, &d) && vrt_buffer_invalidate(m, &d));
    CHECK_OK(d);
    vrt_context_stats_get(ctx, &s1);
    CHECK_EQ_U64(s1.submits - s0.submits, 1);
    CHECK_EQ_U64(s1.reused_launches - s0.reused_launches, (uint64_t)(round == 1));
    CHECK_EQ_U64(vrt_buffer_last_use(o), t);
    CHECK_EQ_U64(vrt_buffer_last_use(m), t);
    const uint32_t *v = vrt_buffer_map(m);
    uint32_t bad = v[0] != 0 || v[9] != 0;
    for (uint32_t i = 0; i < 8; i++)
      bad += v[1 + i] != 2 * (100 + i) + push[1];
    CHECK_EQ_U64(bad, 0);
    push[1] += round; /* round 1 reuses round 0's command buffer; round 2 does not */
  }
  /* synchronous (no ticket): waits itself, in the context's wait mode */
  push[1] = 40;
  CHECK(vrt_dispatch_readback(k, &args, vrt_invocations(200, 1, 1), &rb, NULL, &d));
  CHECK(vrt_buffer_invalidate(m, &d));
  CHECK_OK(d);
  const uint32_t *w = vrt_buffer_map(m);
  CHECK_EQ_U64(w[1], 2 * 100 + 40);
  CHECK_EQ_U64(w[8], 2 * 107 + 40);
  CHECK_EQ_U64(vrt_buffer_last_use(o), vrt_buffer_last_use(m));
  /* a plain dispatch of the same arguments is another launch (no copy) */
  vrt_context_stats s2, s3;
  vrt_context_stats_get(ctx, &s2);
  CHECK(vrt_dispatch(k, &args, vrt_invocations(200, 1, 1), &d));
  vrt_context_stats_get(ctx, &s3);
  CHECK_EQ_U64(s3.reused_launches, s2.reused_launches);
  CHECK(vrt_buffer_last_use(o) > vrt_buffer_last_use(m));
  CHECK_OK(d);
  vrt_readback self = {o, 0, o, 4, 4};
  CHECK(!vrt_dispatch_readback(k, &args, vrt_invocations(200, 1, 1), &self, NULL, &d));
  CHECK_ERROR(d, "copies a buffer onto itself");
  vp_diags_clear(&d);
  vrt_readback big = {m, 0, o, 0, 200 * 4};
  CHECK(!vrt_dispatch_readback(k, &args, vrt_invocations(200, 1, 1), &big, NULL, &d));
  CHECK_ERROR(d, "readback of 800 bytes");
  vp_diags_clear(&d);
  CHECK_VALIDATION(ctx);
  vrt_buffer_destroy(o);
  vrt_buffer_destroy(m);
  vrt_kernel_destroy(k);
  vp_diags_free(&d);
  rt_context_done(ctx);
}

static void test_readback(void) {
  readback_case((vrt_context_options){0});
  readback_case((vrt_context_options){.wait = VRT_WAIT_SPIN_BLOCK, .spin_us = 20000});
}

/* Several asynchronous dispatches in flight, waited on out of order. */
static void test_async_tickets(void) {
  vrt_context *ctx;
  vrt_kernel *k;
  if (!fixed_open(&ctx, &k))
    return;
  vp_diags d = {0};
  enum { N = 8, LEN = 4096 };
  vrt_buffer *bufs[N];
  vrt_ticket t[N];
  for (int i = 0; i < N; i++) {
    bufs[i] = vrt_buffer_create(ctx, LEN * 4, VRT_DEVICE, &d);
    uint32_t push[2] = {LEN, (uint32_t)i * 100};
    vrt_args args = {&bufs[i], 1, push, sizeof push};
    CHECK(vrt_dispatch_async(k, &args, vrt_invocations(LEN, 1, 1), &t[i], &d));
    CHECK(i == 0 || t[i] > t[i - 1]);
  }
  CHECK_OK(d);
  CHECK(vrt_wait(ctx, t[N - 1], UINT64_MAX, &d));
  for (int i = 0; i < N; i++)
    CHECK(vrt_ticket_done(ctx, t[i]));
  CHECK(vrt_wait(ctx, t[0], UINT64_MAX, &d));
  CHECK(vrt_ticket_done(ctx, 0));
  uint32_t *out = malloc(LEN * 4);
  for (int i = 0; i < N; i++) {
    CHECK(vrt_buffer_download(bufs[i], 0, out, LEN * 4, &d));
    CHECK(out[0] == (uint32_t)i * 100 && out[LEN - 1] == 2 * (LEN - 1) + (uint32_t)i * 100);
    vrt_buffer_destroy(bufs[i]);
  }
  CHECK_OK(d);
  /* A ticket never issued times out instead of hanging. */
  CHECK(!vrt_wait(ctx, t[N - 1] + 1000, 1000000, &d));
  CHECK_ERROR(d, "timed out");
  free(out);
  vp_diags_free(&d);
  fixed_close(ctx, k);
}

/* runtime/internal.h: spin-block's extra spin after a wait (context.c). */
uint64_t vrt__spin_extra(uint64_t base, uint64_t old, uint64_t took);

/* The policy: a wait within the base spin leaves the extra as it was; one
 * that outlasted it by up to 10 ms asks for 1.25x its time; a longer one
 * ends the extra. Then, on a device: waits that block are counted (block
 * mode always, spin-block after its spin), spinning ones are not. */
static void test_spin_extra(void) {
  uint64_t us = 1000;
  CHECK(vrt__spin_extra(100 * us, 0, 50 * us) == 0);
  CHECK(vrt__spin_extra(100 * us, 375 * us, 50 * us) == 375 * us);
  CHECK(vrt__spin_extra(100 * us, 0, 300 * us) == 375 * us);
  CHECK(vrt__spin_extra(100 * us, 375 * us, 800 * us) == 1000 * us);
  CHECK(vrt__spin_extra(100 * us, 375 * us, 2000 * us) == 2500 * us);
  CHECK(vrt__spin_extra(100 * us, 375 * us, 3000 * us) == 3750 * us);
  CHECK(vrt__spin_extra(100 * us, 375 * us, 10000 * us) == 12500 * us);
  CHECK(vrt__spin_extra(100 * us, 375 * us, 10001 * us) == 0);
  CHECK(vrt__spin_extra(100 * us, 375 * us, 50000 * us) == 0);

  vrt_context *ctx;
  vrt_kernel *k;
  if (!fixed_open(&ctx, &k))
    return;
  vp_diags d = {0};
  vrt_buffer *o = vrt_buffer_create(ctx, 1024 * 4, VRT_HOST, &d);
  uint32_t push[2] = {1024, 7};
  vrt_ticket t = 0;
  vrt_context_stats s0, s1;
  CHECK(o && vrt_dispatch_async(k, &(vrt_args){&o, 1, push, 8}, vrt_invocations(1024, 1, 1),
                                &t, &d));
  vrt_wait_mode modes[] = {VRT_WAIT_SPIN, VRT_WAIT_BLOCK, VRT_WAIT_SPIN_BLOCK};
  for (uint32_t m = 0; o && m < 3; m++) {
    vrt_context_set_wait(ctx, modes[m], m == 2 ? 5 : 0);
    vrt_context_stats_get(ctx, &s0);
    CHECK(!vrt_wait(ctx, t + 1000, 1000000, &d)); /* never reached: runs out its 1 ms */
    CHECK_ERROR(d, "timed out");
    vrt_context_stats_get(ctx, &s1);
    CHECK(s1.waits_blocked == s0.waits_blocked + (modes[m] != VRT_WAIT_SPIN));
  }
  CHECK(vrt_wait(ctx, t, UINT64_MAX, &d));
  CHECK_OK(d);
  vrt_buffer_destroy(o);
  vp_diags_free(&d);
  fixed_close(ctx, k);
}

/* Each wait strategy gives the same results, a never-reached ticket times
 * out in each (spinning included), and the default on a CPU device blocks
 * at once. */
static void test_wait_modes(void) {
  vrt_context *ctx;
  vrt_kernel *k;
  if (!fixed_open(&ctx, &k))
    return;
  vp_diags d = {0};
  uint32_t spin = 0;
  vrt_wait_mode def = vrt_context_wait_mode(ctx, &spin);
  CHECK(def != VRT_WAIT_DEFAULT);
  if (vrt_context_device(ctx)->kind == VRT_DEVICE_CPU)
    CHECK(def == VRT_WAIT_BLOCK);
  else
    CHECK(def == VRT_WAIT_SPIN_BLOCK && spin == 100);
  vrt_buffer *o = vrt_buffer_create(ctx, 1024 * 4, VRT_HOST, &d);
  vrt_wait_mode modes[] = {VRT_WAIT_SPIN, VRT_WAIT_BLOCK, VRT_WAIT_SPIN_BLOCK, VRT_WAIT_DEFAULT};
  for (uint32_t m = 0; o && m < 4; m++) {
    vrt_context_set_wait(ctx, modes[m], m == 2 ? 5 : 0);
    CHECK(vrt_context_wait_mode(ctx, NULL) == (m == 3 ? def : modes[m]));
    for (uint32_t r = 0; r < 20; r++) {
      uint32_t push[2] = {1024, m * 1000 + r};
      CHECK(vrt_dispatch(k, &(vrt_args){&o, 1, push, 8}, vrt_invocations(1024, 1, 1), &d));
      uint32_t *v = vrt_buffer_map(o);
      CHECK(v[0] == m * 1000 + r && v[1023] == 2046 + m * 1000 + r);
    }
    vrt_ticket t;
    uint32_t push[2] = {1024, 1};
    CHECK(vrt_dispatch_async(k, &(vrt_args){&o, 1, push, 8}, vrt_invocations(1024, 1, 1), &t,
                             &d));
    CHECK(!vrt_wait(ctx, t + 1000, 2000000, &d));
    CHECK_ERROR(d, "timed out");
    CHECK(vrt_wait(ctx, t, UINT64_MAX, &d));
  }
  CHECK(strcmp(vrt_wait_mode_name(VRT_WAIT_SPIN_BLOCK), "spin-block") == 0);
  CHECK_OK(d);
  vrt_buffer_destroy(o);
  vp_diags_free(&d);
  fixed_close(ctx, k);
  /* The option and VULPY_WAIT choose it at creation. */
  ctx = rt_context_with((vrt_context_options){.wait = VRT_WAIT_SPIN});
  CHECK(ctx && vrt_context_wait_mode(ctx, NULL) == VRT_WAIT_SPIN);
  rt_context_done(ctx);
  setenv("VULPY_WAIT", "block", 1);
  ctx = rt_context();
  CHECK(ctx && vrt_context_wait_mode(ctx, NULL) == VRT_WAIT_BLOCK);
  rt_context_done(ctx);
  unsetenv("VULPY_WAIT");
}

/* Descriptor sets from pools: a kernel with two sets, and saxpy with push
 * descriptors turned off. */
static void test_descriptor_pools(void) {
  vrt_context *ctx = rt_context_with((vrt_context_options){.no_push_descriptors = true});
  if (!ctx)
    return;
  vrt_kernel *k = rt_kernel(ctx, "twosets", NULL);
  vrt_kernel *s = rt_kernel(ctx, "saxpy", NULL);
  vp_diags d = {0};
  if (k && s) {
    vrt_kernel_stats st;
    vrt_kernel_stats_get(k, &st);
    CHECK(!st.push_descriptors);
    uint32_t a[100];
    for (int i = 0; i < 100; i++)
      a[i] = (uint32_t)i;
    vrt_buffer *ba = vrt_buffer_create(ctx, sizeof a, VRT_DEVICE, &d);
    vrt_buffer *bb = vrt_buffer_create(ctx, sizeof a, VRT_DEVICE, &d);
    CHECK(vrt_buffer_upload(ba, 0, a, sizeof a, &d));
    vrt_buffer *bufs[2] = {ba, bb};
    uint32_t n = 100;
    vrt_args args = {bufs, 2, &n, 4};
    for (int rep = 0; rep < 3; rep++)
      CHECK(vrt_dispatch(k, &args, vrt_invocations(100, 1, 1), &d));
    uint32_t out[100];
    CHECK(vrt_buffer_download(bb, 0, out, sizeof out, &d));
    CHECK(out[0] == 0 && out[99] == 297 && out[50] == 150);
    CHECK_OK(d);
    vrt_buffer_destroy(ba);
    vrt_buffer_destroy(bb);
    saxpy_case(ctx, s, 333, VRT_DEVICE);
  }
  vrt_kernel_destroy(k);
  vrt_kernel_destroy(s);
  vp_diags_free(&d);
  rt_context_done(ctx);
}

static void test_timestamps(void) {
  vrt_context *ctx;
  vrt_kernel *k;
  if (!fixed_open(&ctx, &k))
    return;
  vp_diags d = {0};
  if (vrt_context_device(ctx)->timestamps) {
    vrt_buffer *o = vrt_buffer_create(ctx, 1 << 16, VRT_DEVICE, &d);
    uint32_t push[2] = {1 << 14, 1};
    vrt_args args = {&o, 1, push, sizeof push};
    double ns = -1;
    CHECK(vrt_dispatch_timed(k, &args, vrt_invocations(1 << 14, 1, 1), &ns, &d));
    CHECK(ns >= 0 && ns < 10e9);
    uint32_t v;
    CHECK(vrt_buffer_download(o, 4 * 100, &v, 4, &d));
    CHECK_EQ_U64(v, 201);
    vrt_buffer_destroy(o);
  }
  CHECK_OK(d);
  vp_diags_free(&d);
  fixed_close(ctx, k);
}

/* One context, one kernel, several threads dispatching at once (sync and
 * async) on their own buffers: the context lock serializes the CPU side. */
typedef struct worker {
  vrt_context *ctx;
  vrt_kernel *k;
  uint32_t base, bad;
} worker;

static void *work(void *p) {
  worker *w = p;
  vrt_context *ctx = w->ctx;
  vp_diags d = {0};
  enum { LEN = 300 };
  vrt_buffer *o = vrt_buffer_create(ctx, LEN * 4, VRT_DEVICE, &d);
  for (uint32_t i = 0; o && i < 40; i++) {
    uint32_t push[2] = {LEN, w->base + i};
    vrt_args args = {&o, 1, push, sizeof push};
    vrt_ticket t;
    bool ok = i % 2 ? vrt_dispatch(w->k, &args, vrt_invocations(LEN, 1, 1), &d)
                    : vrt_dispatch_async(w->k, &args, vrt_invocations(LEN, 1, 1), &t, &d) &&
                          vrt_wait(ctx, t, UINT64_MAX, &d);
    uint32_t v[LEN];
    ok = ok && vrt_buffer_download(o, 0, v, sizeof v, &d);
    w->bad += !ok || v[0] != w->base + i || v[LEN - 1] != 2 * (LEN - 1) + w->base + i;
  }
  w->bad += d.nerrors;
  vrt_buffer_destroy(o);
  vp_diags_free(&d);
  return NULL;
}

static void threads_case(bool spin) {
  vrt_context *ctx;
  vrt_kernel *k;
  vrt_context_options opt = {.wait = spin ? VRT_WAIT_SPIN_BLOCK : VRT_WAIT_DEFAULT};
  if (!kernel_open(opt, "fixed", &ctx, &k))
    return;
  pthread_t th[4];
  worker w[4];
  for (int i = 0; i < 4; i++) {
    w[i] = (worker){ctx, k, (uint32_t)i * 1000, 0};
    pthread_create(&th[i], NULL, work, &w[i]);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    CHECK_EQ_U64(w[i].bad, 0);
  }
  fixed_close(ctx, k);
}

static void test_threads(void) {
  threads_case(false);
  threads_case(true);
}

/* ------------------------------------------------------- sync chains */

/* saxpy's y += alpha * x with integer-valued floats (exact), n = 64. */
typedef struct chain {
  vrt_buffer *bufs[2];
  struct {
    uint32_t count[3];
    float alpha;
  } push;
  float x[64], y[64]; /* what y must be */
} chain;

static void chain_init(vrt_context *ctx, chain *c, float alpha) {
  for (int i = 0; i < 64; i++) {
    c->x[i] = (float)(i % 7);
    c->y[i] = (float)i;
  }
  c->bufs[0] = upload_f32(ctx, c->x, 64, VRT_DEVICE);
  c->bufs[1] = upload_f32(ctx, c->y, 64, VRT_HOST);
  c->push.alpha = alpha;
}

/* Runs one step (sync or async) and updates the expected y. */
static bool chain_step(vrt_kernel *k, chain *c, bool sync, vrt_ticket *t, vp_diags *d) {
  vrt_args args = {c->bufs, 2, &c->push, sizeof c->push};
  for (int i = 0; i < 64; i++)
    c->y[i] += c->push.alpha * c->x[i];
  return sync ? vrt_dispatch(k, &args, vrt_invocations(64, 1, 1), d)
              : vrt_dispatch_async(k, &args, vrt_invocations(64, 1, 1), t, d);
}

/* Compares y through the mapping, right after the wait returned. */
static uint32_t chain_bad(const chain *c) {
  const float *v = vrt_buffer_map(c->bufs[1]);
  uint32_t bad = 0;
  for (int i = 0; i < 64; i++)
    bad += !v || v[i] != c->y[i];
  return bad;
}

static void chain_free(chain *c) {
  vrt_buffer_destroy(c->bufs[0]);
  vrt_buffer_destroy(c->bufs[1]);
}

/* Many back-to-back synchronous calls, each result read at once through the
 * mapping, in a spinning wait mode; asynchronous calls mixed in. One
 * recording serves them all. */
static void test_sync_chain(void) {
  vrt_context *ctx;
  vrt_kernel *k;
  vrt_context_options opt = {.wait = VRT_WAIT_SPIN_BLOCK, .spin_us = 20000};
  if (!kernel_open(opt, "saxpy", &ctx, &k))
    return;
  vp_diags d = {0};
  chain c;
  chain_init(ctx, &c, 1.0f);
  vrt_context_stats s0, s1;
  vrt_context_stats_get(ctx, &s0);
  uint32_t bad = 0;
  for (int r = 0; r < 300; r++) {
    CHECK(chain_step(k, &c, true, NULL, &d));
    bad += chain_bad(&c);
  }
  CHECK_EQ_U64(bad, 0);
  vrt_context_stats_get(ctx, &s1);
  CHECK_EQ_U64(s1.reused_launches - s0.reused_launches, 299);
  /* Async calls queued ahead of a synchronous one: its wait covers all of
   * them (the closing barriers order them), so y has every step. */
  for (int r = 0; r < 50; r++) {
    vrt_ticket t;
    for (int a = 0; a < r % 4; a++)
      CHECK(chain_step(k, &c, false, &t, &d));
    CHECK(chain_step(k, &c, true, NULL, &d));
    bad += chain_bad(&c);
  }
  CHECK_EQ_U64(bad, 0);
  CHECK_OK(d);
  CHECK_VALIDATION(ctx);
  chain_free(&c);
  vrt_kernel_destroy(k);
  vp_diags_free(&d);
  rt_context_done(ctx);
}

/* The device is lost during a synchronous dispatch's wait: an error, not a
 * hang, and every later call fails. */
static void test_sync_lost(void) {
  vrt_context *ctx;
  vrt_kernel *k;
  vrt_context_options opt = {.wait = VRT_WAIT_BLOCK};
  if (!kernel_open(opt, "saxpy", &ctx, &k))
    return;
  vp_diags d = {0};
  chain c;
  chain_init(ctx, &c, 3.0f);
  CHECK(chain_step(k, &c, true, NULL, &d));
  CHECK_OK(d);
  vrt_context_inject_fault(ctx, "vkWaitSemaphores", -4 /* VK_ERROR_DEVICE_LOST */);
  CHECK(!chain_step(k, &c, true, NULL, &d));
  CHECK_ERROR(d, "VK_ERROR_DEVICE_LOST");
  CHECK(vrt_context_lost(ctx));
  CHECK(!chain_step(k, &c, true, NULL, &d));
  CHECK_ERROR(d, "lost");
  vp_diags_free(&d);
  /* The context's teardown (after vkDeviceWaitIdle) frees the buffers and
   * the kernel: the layer would call them in use before it. */
  rt_context_done(ctx);
}

int main(void) {
  RT_RUN(test_saxpy_sizes);
  RT_RUN(test_eager_nowait);
  RT_RUN(test_grids);
  RT_RUN(test_fixed_and_launch_cache);
  RT_RUN(test_readback);
  RT_RUN(test_async_tickets);
  RT_RUN(test_wait_modes);
  RT_RUN(test_spin_extra);
  RT_RUN(test_descriptor_pools);
  RT_RUN(test_timestamps);
  RT_RUN(test_threads);
  RT_RUN(test_sync_chain);
  RT_RUN(test_sync_lost);
  return rt_failures ? 1 : 0;
}
