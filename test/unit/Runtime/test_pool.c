/* test_pool.c - the caching allocator (runtime/pool.c): reuse without the
 * driver, zeros after reuse (GPU-filled and memset), written-first buffers
 * that are not zeroed, the limit and its out-of-memory error, free_all
 * returning memory to the driver, and the pool under 8 threads. */
#include "rt_test.h"

#include <pthread.h>

static vrt_context_stats stats(vrt_context *ctx) {
  vrt_context_stats s;
  vrt_context_stats_get(ctx, &s);
  return s;
}

/* 10^4 allocate/free rounds of a few sizes: a handful of driver calls. */
static void test_reuse(void) {
  vrt_context *ctx = rt_context();
  if (!ctx)
    return;
  vp_diags d = {0};
  vrt_context_stats s0 = stats(ctx);
  for (int i = 0; i < 10000; i++) {
    vrt_buffer *a = vrt_buffer_create(ctx, 4096 + (uint64_t)(i % 3) * 4, VRT_DEVICE, &d);
    vrt_buffer *b = vrt_buffer_create_ex(ctx, 3 << 20, VRT_REBAR, 3 << 20, &d);
    vrt_buffer_destroy(a);
    vrt_buffer_destroy(b);
  }
  CHECK_OK(d);
  vrt_context_stats s1 = stats(ctx);
  CHECK(s1.driver_allocations - s0.driver_allocations <= 4);
  CHECK(s1.pool_hits - s0.pool_hits >= 19990);
  CHECK(s1.pool_cached_bytes > 0 && s1.pool_used_bytes == s0.pool_used_bytes);
  /* free_all gives every cached buffer and empty block back. */
  CHECK(vrt_pool_free_all(ctx, &d));
  vrt_context_stats s2 = stats(ctx);
  CHECK_EQ_U64(s2.pool_cached_bytes, 0);
  CHECK_EQ_U64(s2.blocks, 0);
  CHECK(s2.driver_frees > s1.driver_frees);
  CHECK_OK(d);
  vp_diags_free(&d);
  rt_context_done(ctx);
}

/* A reused buffer never shows what its last owner wrote: zeros, whether the
 * zeroing is a GPU fill (device, rebar) or a memset (host, cached), and the
 * part a written-first buffer does not promise to write. */
static void test_zero_after_reuse(void) {
  vrt_context *ctx = rt_context();
  if (!ctx)
    return;
  vp_diags d = {0};
  enum { N = 1 << 16 };
  unsigned char *ones = malloc(N), *out = malloc(N);
  memset(ones, 0xFF, N);
  for (int k = 0; k < VRT_MEMORY_KIND_COUNT; k++) {
    vrt_buffer *a = vrt_buffer_create(ctx, N, (vrt_memory_kind)k, &d);
    CHECK(a && vrt_buffer_upload(a, 0, ones, N, &d));
    vrt_buffer_destroy(a);
    vrt_buffer *b = vrt_buffer_create(ctx, N - 100, (vrt_memory_kind)k, &d);
    CHECK(b == a); /* the same buffer came back: the test covers reuse */
    memset(out, 0xAB, N);
    CHECK(b && vrt_buffer_download(b, 0, out, N - 100, &d));
    uint64_t nonzero = 0;
    for (int i = 0; i < N - 100; i++)
      nonzero += out[i] != 0;
    CHECK_EQ_U64(nonzero, 0);
    /* Through the mapping, once host_ready says so. */
    if (vrt_buffer_map(b)) {
      CHECK(vrt_buffer_host_ready(b, &d));
      const unsigned char *m = vrt_buffer_map(b);
      nonzero = 0;
      for (int i = 0; i < N - 100; i++)
        nonzero += m[i] != 0;
      CHECK_EQ_U64(nonzero, 0);
    }
    CHECK(vrt_buffer_upload(b, 0, ones, N - 100, &d));
    vrt_buffer_destroy(b);
    /* Written first: bytes past `written` are zeroed, the rest is the
     * caller's to write. */
    vrt_buffer *c = vrt_buffer_create_ex(ctx, N - 100, (vrt_memory_kind)k, 1000, &d);
    CHECK(c && vrt_buffer_download(c, 1000, out, N - 1100, &d));
    nonzero = 0;
    for (int i = 0; i < N - 1100; i++)
      nonzero += out[i] != 0;
    CHECK_EQ_U64(nonzero, 0);
    vrt_buffer_destroy(c);
  }
  CHECK_OK(d);
  /* A buffer fully written first is not zeroed at all. */
  vrt_context_stats s0 = stats(ctx);
  vrt_buffer *w = vrt_buffer_create_ex(ctx, 1 << 20, VRT_DEVICE, 1 << 20, &d);
  vrt_context_stats s1 = stats(ctx);
  CHECK_EQ_U64(s1.gpu_zero_bytes + s1.cpu_zero_bytes, s0.gpu_zero_bytes + s0.cpu_zero_bytes);
  vrt_buffer_destroy(w);
  /* A large device buffer is zeroed by the GPU, not through the mapping,
   * when first used (lazy zeroing): here the host's first access. */
  vrt_buffer *z = vrt_buffer_create(ctx, 8 << 20, VRT_REBAR, &d);
  CHECK_EQ_U64(stats(ctx).gpu_zero_bytes, s1.gpu_zero_bytes);
  CHECK(vrt_buffer_host_ready(z, &d));
  vrt_context_stats s2 = stats(ctx);
  CHECK(s2.gpu_zero_bytes - s1.gpu_zero_bytes >= (8 << 20));
  CHECK_EQ_U64(s2.cpu_zero_bytes, s1.cpu_zero_bytes);
  vrt_buffer_destroy(z);
  /* Said to be written whole before its first use: never filled. */
  vrt_buffer *e = vrt_buffer_create(ctx, 8 << 20, VRT_REBAR, &d);
  vrt_buffer_will_write(e, 0, 8 << 20);
  vrt_context_stats s3 = stats(ctx);
  CHECK_EQ_U64(s3.zero_fills_dropped, s2.zero_fills_dropped + 1);
  CHECK(vrt_buffer_host_ready(e, &d));
  CHECK_EQ_U64(stats(ctx).gpu_zero_bytes, s3.gpu_zero_bytes);
  vrt_buffer_destroy(e);
  /* Written in part: the rest is still zeroed on first use. */
  vrt_buffer *p = vrt_buffer_create(ctx, 8 << 20, VRT_REBAR, &d);
  vrt_buffer_will_write(p, 0, 1 << 20);
  CHECK(vrt_buffer_host_ready(p, &d));
  CHECK(stats(ctx).gpu_zero_bytes - s3.gpu_zero_bytes >= (7 << 20));
  const unsigned char *pm = vrt_buffer_map(p);
  if (pm) {
    size_t nz = 0;
    for (size_t i = 1 << 20; i < (8 << 20); i++)
      nz += pm[i] != 0;
    CHECK_EQ_U64(nz, 0);
  }
  vrt_buffer_destroy(p);
  CHECK_OK(d);
  free(ones);
  free(out);
  vp_diags_free(&d);
  rt_context_done(ctx);
}

/* The limit: a request past it frees the cache, then fails with the sizes. */
static void test_limit(void) {
  vrt_context *ctx = rt_context();
  if (!ctx)
    return;
  vp_diags d = {0};
  vrt_buffer *a = vrt_buffer_create(ctx, 8 << 20, VRT_DEVICE, &d);
  vrt_buffer *b = vrt_buffer_create(ctx, 4 << 20, VRT_DEVICE, &d);
  vrt_buffer_destroy(b); /* 4 MiB cached */
  CHECK_OK(d);
  vrt_pool_set_limit(ctx, 14 << 20);
  CHECK_EQ_U64(stats(ctx).pool_limit, 14 << 20);
  /* 8 in use + 4 cached + 5 > 14: the cached 4 go, then it fits. */
  vrt_buffer *c = vrt_buffer_create(ctx, 5 << 20, VRT_DEVICE, &d);
  CHECK(c != NULL);
  CHECK_OK(d);
  CHECK_EQ_U64(stats(ctx).pool_cached_bytes, 0);
  vrt_buffer *e = vrt_buffer_create(ctx, 2 << 20, VRT_DEVICE, &d);
  CHECK(e == NULL);
  CHECK_ERROR(d, "out of device memory: cannot allocate 2097152 bytes of 'device' memory: the "
                 "memory pool's limit is 14680064 bytes and 13631488 bytes are in use");
  vrt_pool_set_limit(ctx, 0);
  e = vrt_buffer_create(ctx, 2 << 20, VRT_DEVICE, &d);
  CHECK(e != NULL);
  CHECK_OK(d);
  vrt_buffer_destroy(a);
  vrt_buffer_destroy(c);
  vrt_buffer_destroy(e);
  vp_diags_free(&d);
  rt_context_done(ctx);
}

/* The driver refuses an allocation (an injected VK_ERROR_OUT_OF_DEVICE_MEMORY):
 * the pool frees what it caches and retries; with nothing cached, the error
 * names the size and the heap. */
static void test_driver_out_of_memory(void) {
  vrt_context *ctx = rt_context();
  if (!ctx)
    return;
  vp_diags d = {0};
  vrt_buffer *big = vrt_buffer_create(ctx, 40 << 20, VRT_DEVICE, &d);
  vrt_buffer_destroy(big); /* cached, in a block of its own */
  CHECK(vrt_context_wait_idle(ctx, &d)); /* its zero fill done: it can go */
  CHECK_EQ_U64(stats(ctx).pool_cached_bytes, 40 << 20);
  vrt_context_inject_fault(ctx, "vkAllocateMemory", -2);
  vrt_buffer *other = vrt_buffer_create(ctx, 50 << 20, VRT_DEVICE, &d);
  CHECK(other != NULL); /* the retry after freeing the cache got it */
  CHECK_OK(d);
  CHECK_EQ_U64(stats(ctx).pool_cached_bytes, 0);
  vrt_buffer_destroy(other);
  CHECK(vrt_pool_free_all(ctx, &d));
  vrt_context_inject_fault(ctx, "vkAllocateMemory", -2);
  vrt_buffer *none = vrt_buffer_create(ctx, 50 << 20, VRT_DEVICE, &d);
  CHECK(none == NULL);
  CHECK_ERROR(d, "out of device memory: cannot allocate 52428800 bytes of 'device' memory on "
                 "device");
  vrt_context_inject_fault(ctx, NULL, 0);
  vp_diags_free(&d);
  rt_context_done(ctx);
}

typedef struct worker {
  vrt_context *ctx;
  int id, bad;
} worker;

static void *work(void *p) {
  worker *w = p;
  vp_diags d = {0};
  uint32_t tag[64], back[64];
  for (int i = 0; i < 300; i++) {
    uint64_t n = 256 + (uint64_t)((w->id + i) % 5) * 64;
    vrt_buffer *b = vrt_buffer_create(w->ctx, n, (vrt_memory_kind)((w->id + i) % 4), &d);
    if (!b) {
      w->bad++;
      continue;
    }
    for (int k = 0; k < 64; k++)
      tag[k] = (uint32_t)(w->id * 100000 + i * 64 + k);
    /* Fresh: zeros; then what this thread wrote, whatever the others do. */
    if (!vrt_buffer_download(b, 0, back, 256, &d) || back[0] || back[63])
      w->bad++;
    if (!vrt_buffer_upload(b, 0, tag, 256, &d) || !vrt_buffer_download(b, 0, back, 256, &d) ||
        memcmp(tag, back, 256))
      w->bad++;
    vrt_buffer_destroy(b);
  }
  w->bad += (int)d.nerrors;
  vp_diags_free(&d);
  return NULL;
}

static void test_threads(void) {
  vrt_context *ctx = rt_context();
  if (!ctx)
    return;
  pthread_t t[8];
  worker w[8];
  for (int i = 0; i < 8; i++) {
    w[i] = (worker){ctx, i, 0};
    pthread_create(&t[i], NULL, work, &w[i]);
  }
  for (int i = 0; i < 8; i++) {
    pthread_join(t[i], NULL);
    CHECK_EQ_U64(w[i].bad, 0);
  }
  vrt_context_stats s = stats(ctx);
  CHECK_EQ_U64(s.pool_used_bytes, 0);
  CHECK(s.pool_hits > 1000);
  rt_context_done(ctx);
}

int main(void) {
  RT_RUN(test_reuse);
  RT_RUN(test_zero_after_reuse);
  RT_RUN(test_limit);
  RT_RUN(test_driver_out_of_memory);
  RT_RUN(test_threads);
  return rt_failures ? 1 : 0;
}
