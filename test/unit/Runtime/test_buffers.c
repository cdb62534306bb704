/* test_buffers.c - buffer round trips (sizes 0, 1, odd, 256 MiB) in every
 * memory kind, directly mapped and through the staging ring, with one copy
 * thread and with several; zeroing of new
 * and reused memory; fill and copy; range errors; the sub-allocator's
 * blocks. */
#include "rt_test.h"

static void fill_pattern(unsigned char *p, uint64_t n, uint32_t seed) {
  uint32_t x = seed * 2654435761u + 1;
  for (uint64_t i = 0; i < n; i++) {
    x = x * 1664525u + 1013904223u;
    p[i] = (unsigned char)(x >> 24);
  }
}

static void round_trip(vrt_context *ctx, uint64_t size, vrt_memory_kind kind) {
  vp_diags d = {0};
  vrt_buffer *b = vrt_buffer_create(ctx, size, kind, &d);
  CHECK_OK(d);
  if (!b)
    return;
  CHECK_EQ_U64(vrt_buffer_size(b), size);
  unsigned char *in = malloc(size + 1), *out = malloc(size + 1);
  fill_pattern(in, size, (uint32_t)size);
  memset(out, 0xAB, size + 1);
  /* New memory reads as zeros. */
  CHECK(vrt_buffer_download(b, 0, out, size, &d));
  uint64_t nonzero = 0;
  for (uint64_t i = 0; i < size; i++)
    nonzero += out[i] != 0;
  CHECK_EQ_U64(nonzero, 0);
  CHECK(vrt_buffer_upload(b, 0, in, size, &d));
  memset(out, 0xAB, size + 1);
  CHECK(vrt_buffer_download(b, 0, out, size, &d));
  CHECK_OK(d);
  if (memcmp(in, out, size) != 0) {
    fprintf(stderr, "round trip of %llu bytes in '%s' memory differs\n", (unsigned long long)size,
            vrt_memory_kind_name(kind));
    rt_failures++;
  }
  CHECK(out[size] == 0xAB);
  /* A piece in the middle. */
  if (size > 10) {
    unsigned char piece[7] = {1, 2, 3, 4, 5, 6, 7}, back[7] = {0};
    CHECK(vrt_buffer_upload(b, size / 2, piece, 7, &d));
    CHECK(vrt_buffer_download(b, size / 2 - 1, back, 7, &d));
    CHECK(back[0] == in[size / 2 - 1] && back[1] == 1 && back[6] == 6);
    CHECK_OK(d);
  }
  free(in);
  free(out);
  vrt_buffer_destroy(b);
  vp_diags_free(&d);
}

static void round_trips(vrt_context_options opt) {
  vrt_context *ctx = rt_context_with(opt);
  if (!ctx)
    return;
  uint64_t sizes[] = {0, 1, 3, 4, 4097, 1000003, (8 << 20) + 12345, (20 << 20) + 1};
  for (int k = 0; k < VRT_MEMORY_KIND_COUNT; k++)
    for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
      round_trip(ctx, sizes[i], (vrt_memory_kind)k);
  CHECK_VALIDATION(ctx);
  rt_context_done(ctx);
}

static void test_round_trips(void) { round_trips((vrt_context_options){0}); }

/* Device buffers that are not mapped: the staging ring and zero fills. */
static void test_round_trips_staged(void) {
  round_trips((vrt_context_options){.no_device_mapping = true});
}

/* Staging rings of other shapes (vrt_context_options.staging_slots /
 * staging_slot_mib): two 1 MiB slots make every large transfer many
 * chunks through a ring that wraps, eight 2 MiB slots a download that keeps
 * eight copies in flight; a shape outside the bounds is an error naming
 * the field. */
static void test_round_trips_staging_shapes(void) {
  round_trips((vrt_context_options){.no_device_mapping = true, .staging_slots = 2,
                                    .staging_slot_mib = 1});
  round_trips((vrt_context_options){.no_device_mapping = true, .staging_slots = 8,
                                    .staging_slot_mib = 2});
  vp_diags d = {0};
  vrt_context_options bad = {.staging_slots = 9};
  CHECK(!vrt_context_create(&bad, &d));
  CHECK_ERROR(d, "vrt_context_options.staging_slots = 9");
  bad = (vrt_context_options){.staging_slot_mib = 257};
  CHECK(!vrt_context_create(&bad, &d));
  CHECK_ERROR(d, "staging_slot_mib = 257");
  vp_diags_free(&d);
}

/* Large copies split over copy threads (mapped and staged), odd sizes. */
static void test_round_trips_threads(void) {
  round_trips((vrt_context_options){.copy_threads = 3});
  round_trips((vrt_context_options){.copy_threads = 3, .no_device_mapping = true});
  vrt_context *ctx = rt_context_with((vrt_context_options){.copy_threads = 3});
  if (ctx) {
    CHECK_EQ_U64(vrt_context_copy_threads(ctx), 3);
    vrt_context_set_copy_threads(ctx, 0);
    CHECK_EQ_U64(vrt_context_copy_threads(ctx), 1);
    vrt_context_set_copy_threads(ctx, 2);
    round_trip(ctx, (12 << 20) + 7, VRT_CACHED);
  }
  rt_context_done(ctx);
}

static void test_256mib(void) {
  vrt_context *ctx = rt_context_with((vrt_context_options){.no_device_mapping = true});
  if (!ctx)
    return;
  round_trip(ctx, 256ull << 20, VRT_DEVICE);
  rt_context_done(ctx);
  ctx = rt_context();
  if (ctx)
    round_trip(ctx, 256ull << 20, VRT_DEVICE);
  rt_context_done(ctx);
}

/* Memory freed by one buffer and taken by the next reads as zeros. */
static void zero_reuse(vrt_context_options opt) {
  vrt_context *ctx = rt_context_with(opt);
  if (!ctx)
    return;
  vp_diags d = {0};
  enum { N = 65536 };
  unsigned char *ones = malloc(N), *out = malloc(N);
  memset(ones, 0xFF, N);
  for (int round = 0; round < 4; round++) {
    vrt_buffer *b = vrt_buffer_create(ctx, N, VRT_DEVICE, &d);
    CHECK(b && vrt_buffer_download(b, 0, out, N, &d));
    uint64_t nonzero = 0;
    for (int i = 0; i < N; i++)
      nonzero += out[i] != 0;
    CHECK_EQ_U64(nonzero, 0);
    CHECK(vrt_buffer_upload(b, 0, ones, N, &d));
    vrt_buffer_destroy(b);
  }
  /* A buffer destroyed before its zero fill was ever submitted. */
  vrt_buffer *x = vrt_buffer_create(ctx, 1024, VRT_DEVICE, &d);
  vrt_buffer_destroy(x);
  x = vrt_buffer_create(ctx, 1024, VRT_DEVICE, &d);
  CHECK(x && vrt_buffer_download(x, 0, out, 1024, &d) && out[0] == 0 && out[1023] == 0);
  vrt_buffer_destroy(x);
  CHECK_OK(d);
  free(ones);
  free(out);
  vp_diags_free(&d);
  rt_context_done(ctx);
}

static void test_zeroing(void) {
  zero_reuse((vrt_context_options){0});
  zero_reuse((vrt_context_options){.no_device_mapping = true});
}

static void test_fill_copy(void) {
  vrt_context *ctx = rt_context_with((vrt_context_options){.no_device_mapping = true});
  if (!ctx)
    return;
  vp_diags d = {0};
  vrt_buffer *a = vrt_buffer_create(ctx, 4000, VRT_DEVICE, &d);
  vrt_buffer *b = vrt_buffer_create(ctx, 4000, VRT_HOST, &d);
  CHECK_OK(d);
  uint32_t v[1000];
  CHECK(vrt_buffer_fill(a, 0, UINT64_MAX, 7, &d));
  CHECK(vrt_buffer_fill(a, 400, 800, 0xdeadbeef, &d));
  CHECK(vrt_buffer_copy(b, 0, a, 0, 4000, &d));
  CHECK(vrt_buffer_download(b, 0, v, sizeof v, &d));
  CHECK(v[0] == 7 && v[99] == 7 && v[100] == 0xdeadbeef && v[299] == 0xdeadbeef && v[300] == 7);
  CHECK(vrt_buffer_copy(a, 8, b, 400, 12, &d));
  CHECK(vrt_buffer_download(a, 0, v, 16, &d));
  CHECK(v[0] == 7 && v[1] == 7 && v[2] == 0xdeadbeef && v[3] == 0xdeadbeef);
  CHECK(vrt_buffer_copy(a, 0, a, 100, 100, &d)); /* same buffer, apart */
  CHECK_OK(d);

  CHECK(!vrt_buffer_fill(a, 2, 8, 0, &d));
  CHECK_ERROR(d, "must be multiples of 4");
  CHECK(!vrt_buffer_fill(a, 0, 4004, 0, &d));
  CHECK_ERROR(d, "fill: bytes [0, 4004) are outside the buffer of 4000 bytes");
  CHECK(!vrt_buffer_copy(a, 0, a, 10, 100, &d));
  CHECK_ERROR(d, "overlap");
  CHECK(!vrt_buffer_copy(b, 3990, a, 0, 20, &d));
  CHECK_ERROR(d, "copy destination: bytes [3990, 4010)");
  CHECK(!vrt_buffer_upload(b, 4000, v, 1, &d));
  CHECK_ERROR(d, "upload: bytes [4000, 4001) are outside");
  CHECK(!vrt_buffer_download(a, UINT64_MAX - 2, v, 8, &d));
  CHECK_ERROR(d, "download:");
  CHECK(vrt_buffer_upload(b, 4000, v, 0, &d)); /* empty at the end is fine */
  CHECK_OK(d);
  vrt_buffer_destroy(a);
  vrt_buffer_destroy(b);
  vp_diags_free(&d);
  rt_context_done(ctx);
}

/* Small buffers share blocks; emptied blocks go back once the pool frees them. */
static void test_suballocation(void) {
  vrt_context *ctx = rt_context();
  if (!ctx)
    return;
  vp_diags d = {0};
  vrt_context_stats s0, s1, s2;
  vrt_context_stats_get(ctx, &s0);
  vrt_buffer *bufs[300];
  for (int i = 0; i < 300; i++)
    bufs[i] = vrt_buffer_create(ctx, 1000 + (uint64_t)i * 37, (vrt_memory_kind)(i % 4), &d);
  CHECK_OK(d);
  vrt_context_stats_get(ctx, &s1);
  CHECK(s1.blocks - s0.blocks <= 4);
  CHECK(s1.used_bytes - s0.used_bytes >= 300 * 1000);
  /* Distinct, non-overlapping memory: write each buffer's index, read back. */
  for (int i = 0; i < 300; i++) {
    uint32_t v = (uint32_t)i;
    CHECK(vrt_buffer_upload(bufs[i], vrt_buffer_size(bufs[i]) - 4, &v, 4, &d));
  }
  for (int i = 0; i < 300; i += 2)
    vrt_buffer_destroy(bufs[i]);
  for (int i = 1; i < 300; i += 2) {
    uint32_t v = 0;
    CHECK(vrt_buffer_download(bufs[i], vrt_buffer_size(bufs[i]) - 4, &v, 4, &d) &&
          v == (uint32_t)i);
    vrt_buffer_destroy(bufs[i]);
  }
  CHECK_OK(d);
  /* Destroyed buffers wait in the memory pool (pool.c) until it lets go. */
  CHECK(vrt_pool_free_all(ctx, &d));
  vrt_context_stats_get(ctx, &s2);
  CHECK_EQ_U64(s2.used_bytes, s0.used_bytes);
  CHECK(s2.blocks <= s0.blocks + 1);
  /* A big buffer gets a block of its own, returned when it goes. */
  vrt_buffer *big = vrt_buffer_create(ctx, 100 << 20, VRT_DEVICE, &d);
  vrt_context_stats_get(ctx, &s1);
  CHECK(s1.block_bytes >= s2.block_bytes + (100 << 20));
  vrt_buffer_destroy(big);
  CHECK(vrt_pool_free_all(ctx, &d));
  vrt_context_stats_get(ctx, &s1);
  CHECK_EQ_U64(s1.block_bytes, s2.block_bytes);
  CHECK_OK(d);
  vp_diags_free(&d);
  rt_context_done(ctx);
}

int main(void) {
  RT_RUN(test_round_trips);
  RT_RUN(test_round_trips_staged);
  RT_RUN(test_round_trips_threads);
  RT_RUN(test_round_trips_staging_shapes);
  RT_RUN(test_256mib);
  RT_RUN(test_zeroing);
  RT_RUN(test_fill_copy);
  RT_RUN(test_suballocation);
  return rt_failures ? 1 : 0;
}
